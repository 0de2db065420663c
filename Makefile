# `make demo` and `make test` work on a fresh machine: they create .venv and install what they need.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

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

bench: $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[bench,plot,dask]'
	$(BIN)/python bench/throughput.py
	$(BIN)/python bench/sparse_estep.py
	$(BIN)/python bench/estep_profile.py --topics 10 100
	$(BIN)/python bench/present_topics.py
	$(BIN)/python bench/step_profile.py
	$(BIN)/python bench/local_passes.py
	$(BIN)/python bench/left_to_right_sparse.py
	$(BIN)/python bench/boosted_cost.py
	$(BIN)/python bench/boosted_profile.py
	$(BIN)/python bench/cgs_throughput.py
	NUMBA_NUM_THREADS=2 $(BIN)/python bench/thread_speedup.py
	$(BIN)/python bench/multipass_vs_tomotopy.py --corpus newsarticles
	$(BIN)/python bench/multipass_vs_tomotopy.py --corpus debian --passes 5 10
	$(BIN)/python bench/distributed.py --batch-size 102400

clean:
	rm -rf $(VENV) build src/*.egg-info
