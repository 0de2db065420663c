# `make demo` and `make test` work on a fresh machine: they create .venv and install what they need.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
BIGARTM := .venv-bigartm

.PHONY: demo test bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.core-installed: $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.test-installed: $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet -e '.[test,plot]'
	touch $@

demo: $(VENV)/.core-installed
	$(BIN)/streamtopics demo

test: $(VENV)/.test-installed
	$(BIN)/python -m pytest -q

# BigARTM 0.9.2 needs protobuf<=3.20, so it gets its own environment (bench/engines.py runs it
# there); where its wheel does not install, bench/vs_peers.py skips it and says so.
$(BIGARTM)/bin/python:
	$(PYTHON) -m venv $(BIGARTM)
	$(BIGARTM)/bin/python -m pip install --quiet 'bigartm==0.9.2' 'protobuf<=3.20' six numpy \
		|| echo "BigARTM did not install: bench/vs_peers.py will skip it"

# One current result per script in bench/results, then the summary (README, docs/performance.md).
bench: $(BIN)/python $(BIGARTM)/bin/python
	$(BIN)/python -m pip install --quiet -e '.[bench,plot,dask]'
	$(BIN)/python bench/vs_peers.py
	$(BIN)/python bench/vs_tomotopy.py
	$(BIN)/python bench/cgs_throughput.py
	$(BIN)/python bench/long_stream.py
	$(BIN)/python bench/distributed.py
	NUMBA_NUM_THREADS=2 $(BIN)/python bench/threads.py
	$(BIN)/python bench/kernel_cost.py
	$(BIN)/python bench/shape_cost.py
	$(BIN)/python bench/wikipedia_shape.py
	$(BIN)/python bench/wikipedia_stream.py
	$(BIN)/python bench/boosted_cost.py
	$(BIN)/python bench/evaluation_speed.py
	$(BIN)/python bench/serving.py
	$(BIN)/python bench/timeline.py
	$(BIN)/python bench/summary.py

clean:
	rm -rf $(VENV) $(BIGARTM) build src/*.egg-info
