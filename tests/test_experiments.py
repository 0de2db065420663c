"""Experiments as a feature (`streamtopics.experiments`, `reporting`, ``streamtopics experiment``):
resumable cells, summaries and tables that match the JSON, optional plots, the CLI end to end."""

import hashlib
import json
import re
import sys

import numpy as np
import pytest

from streamtopics.cli.main import main
from streamtopics.corpus.synthetic import generate_synthetic
from streamtopics.errors import InputError
from streamtopics.estimators.online_lda import OnlineLDA
from streamtopics.validation import ParameterError
from streamtopics.experiments import (EXPERIMENTS, Cell, CellStore, CorpusSource, Options,
                                      SyntheticSpec, run_experiment)
from streamtopics.experiments.cells import CELL_FORMAT
from streamtopics.experiments import runner
from streamtopics.corpus.corpus import restrict_to_words
from streamtopics.experiments.data import reshuffle
from streamtopics.reporting.plots import MISSING_MATPLOTLIB
from streamtopics.reporting.tables import decile_summary, format_spread

SPEC = SyntheticSpec(n_topics=3, n_words=30, n_train=200, n_test=30, mean_length=20, seed=1)
TINY = dict(seeds=(0, 1, 2), batch_size=50, local_passes=3, n_train=200, n_test=30,
            n_particles=5)


@pytest.fixture
def source():
    return CorpusSource.synthetic(SPEC)


@pytest.fixture
def counted(monkeypatch):
    """Count the cells actually trained."""
    calls = []
    real = runner.run_cell

    def counting(cell, split, on_documents=None):
        calls.append(cell)
        return real(cell, split, on_documents)

    monkeypatch.setattr(runner, "run_cell", counting)
    return calls


def test_resume_skips_completed_cells_and_experiments_share_them(tmp_path, source, counted):
    options = Options(methods=("g-oem",), topics=(2, 3), **TINY)
    first = run_experiment(EXPERIMENTS["perplexity-vs-k"], source, options, tmp_path)
    assert len(counted) == 6 and first.computed == 6 and first.reused == 0
    assert len(list((tmp_path / "cells").glob("*.json"))) == 6

    again = run_experiment(EXPERIMENTS["perplexity-vs-k"], CorpusSource.synthetic(SPEC), options,
                           tmp_path)
    assert len(counted) == 6 and again.computed == 0 and again.reused == 6
    assert (json.loads(again.json_path.read_text())["summary"]
            == json.loads(first.json_path.read_text())["summary"])

    boosting = run_experiment(EXPERIMENTS["boosting"], source, options, tmp_path)
    assert len(counted) == 6 and boosting.reused == 6  # the same cells, keyed by settings

    more_seeds = Options(methods=("g-oem",), topics=(2, 3), **{**TINY, "seeds": (0, 1, 2, 3)})
    run_experiment(EXPERIMENTS["perplexity-vs-k"], source, more_seeds, tmp_path)
    assert len(counted) == 8  # only seed 3 is new


def test_markdown_and_summary_match_the_cells_in_json(tmp_path, source):
    options = Options(methods=("g-oem", "v-oem"), topics=(2, 3), **TINY)
    report = run_experiment(EXPERIMENTS["perplexity-vs-k"], source, options, tmp_path)
    record = json.loads(report.json_path.read_text())
    assert len(record["summary"]) == 4
    markdown = report.markdown_path.read_text()
    header = next(line for line in markdown.splitlines() if line.startswith("| method"))
    columns = [cell.strip() for cell in header.strip("|").split("|")][1:]
    for entry in record["summary"]:
        values = [c["result"]["log_perplexity"] for c in record["cells"]
                  if c["cell"]["method"] == entry["series"] and c["cell"]["n_topics"] == entry["x"]]
        assert len(values) == entry["n"] == 3
        expected = decile_summary(values)
        assert entry["median"] == pytest.approx(np.median(values), abs=1e-12)
        assert [entry[k] for k in ("decile_3", "decile_7")] == pytest.approx(
            np.quantile(values, [0.3, 0.7]), abs=1e-12)
        assert {k: entry[k] for k in expected} == expected
        row = next(line for line in markdown.splitlines() if line.startswith(f"| {entry['series']} |"))
        cells = [cell.strip() for cell in row.strip("|").split("|")][1:]
        text = cells[columns.index(str(entry["x"]))]
        assert text == format_spread(entry)
        median, low, high = map(float, re.match(r"(\S+) \[(\S+), (\S+)\]", text).groups())
        assert median == pytest.approx(entry["median"], abs=0.005)
        assert (low, high) == pytest.approx((entry["decile_3"], entry["decile_7"]), abs=0.005)


def test_deciles_with_infinities():
    summary = decile_summary([1.0, np.inf, 3.0, 2.0])
    assert summary["median"] == 2.5 and summary["decile_3"] == pytest.approx(1.9)
    assert summary["decile_7"] == pytest.approx(3.0 + 0.1 * np.inf)
    assert decile_summary([np.inf, np.inf])["median"] == np.inf


def test_plots_are_written_with_matplotlib_and_skipped_without(tmp_path, source, monkeypatch):
    options = Options(methods=("g-oem",), topics=(3,), **{**TINY, "seeds": (0,)})
    with_plot = run_experiment(EXPERIMENTS["time"], source, options, tmp_path / "a")
    assert with_plot.plot_path.is_file() and with_plot.plot_path.read_bytes()[:4] == b"\x89PNG"

    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    messages = []
    without = run_experiment(EXPERIMENTS["time"], source, options, tmp_path / "b",
                             log=messages.append)
    assert without.plot_path is None and not list((tmp_path / "b").glob("*.png"))
    assert messages == [MISSING_MATPLOTLIB] and without.markdown_path.is_file()
    assert json.loads(without.json_path.read_text())["files"]["plot"] is None


def test_missing_parts_are_skipped_with_a_message_and_not_stored(tmp_path, source):
    options = Options(methods=("g-oem",), step_decays=(0.5,),
                      alpha_updates=("fixed", "no-such-update"), **{**TINY, "seeds": (0,)})
    messages = []
    report = run_experiment(EXPERIMENTS["alpha-update"], source, options, tmp_path,
                            log=messages.append)
    assert report.computed == 1 and len(report.skipped) == 1
    assert "no-such-update" in messages[0] and "not available" in messages[0]
    assert "Skipped cells" in report.markdown_path.read_text()
    assert len(list((tmp_path / "cells").glob("*.json"))) == 1
    with pytest.raises(InputError, match="unknown method"):
        EXPERIMENTS["perplexity-vs-k"].cells(Options(methods=("no-such-method",)), source)


def test_fixed_alpha_is_the_true_alpha_on_synthetic_data(source):
    split = source.split(0, 200, 30)
    cell = Cell(corpus=source.identity, split=0, seed=0, method="g-oem", n_topics=3,
                alpha_update="fixed", batch_size=50, local_passes=3, n_train=200, n_test=30,
                n_particles=5)
    result = runner.run_cell(cell, split)
    assert result["initial_alpha"] == "true alpha"
    assert result["alpha_mean"] == pytest.approx(SPEC.alpha)
    other_k = runner.run_cell(Cell(**{**cell.as_dict(), "n_topics": 2}), split)
    assert other_k["initial_alpha"] == "1/K" and other_k["alpha_mean"] == pytest.approx(0.5)


def test_step_decay_zero_is_the_constant_step_one(source):
    cell = Cell(corpus=source.identity, split=0, seed=0, method="g-oem", n_topics=3, step_decay=0,
                batch_size=50, local_passes=3, n_train=200, n_test=30, n_particles=5)
    method = runner.cell_method(cell)
    assert method.step_size == "constant" and method.local == "gibbs"
    assert runner.cell_method(Cell(**{**cell.as_dict(), "method": "sgs"})) == "sgs"  # 1/i stays
    steps = []
    model = OnlineLDA(n_topics=3, method=method, batch_size=50, local_passes=3,
                      step_decay=0.0, n_passes=1, random_state=0)
    model.fit(source.split(0, 200, 30).train, callback=lambda _, report: steps.append(report.rho))
    assert steps == [1.0] * 4
    assert (Cell("c", 0, 0, "g-oem", 3, step_decay=1).key()
            == Cell("c", 0, 0, "g-oem", 3, step_decay=1.0).key())


def test_a_step_decay_out_of_range_is_refused_by_the_estimator(tmp_path, source):
    """The experiments name kappa as the estimator does, ``step_decay``, and leave its range to
    the estimator's one check (its polynomial step size)."""
    options = Options(methods=("g-oem",), step_decays=(1.5,), alpha_updates=("fixed",),
                      **{**TINY, "seeds": (0,)})
    with pytest.raises(ParameterError, match=r"step decay \(kappa\) must lie in \(0, 1\], got 1.5"):
        run_experiment(EXPERIMENTS["alpha-update"], source, options, tmp_path)


def test_fields_added_later_keep_stored_keys(tmp_path):
    cell = Cell("c", 0, 0, "g-oem", 3)
    settings = {k: v for k, v in cell.as_dict().items() if k != "held_out_words"}
    blob = json.dumps({"format": CELL_FORMAT, **settings}, sort_keys=True)
    assert cell.key() == hashlib.sha256(blob.encode()).hexdigest()[:20]
    store = CellStore(tmp_path)
    store.path(cell).write_text(json.dumps({"format": CELL_FORMAT, "cell": settings,
                                            "result": {"log_perplexity": 1.0}}))
    assert store.load(cell) == {"log_perplexity": 1.0}
    assert Cell("c", 0, 0, "g-oem", 3, eval_every=10, held_out_words="first-evaluation").key() != \
        Cell("c", 0, 0, "g-oem", 3, eval_every=10).key()


def test_splits_and_restriction_to_training_words():
    corpus, _ = generate_synthetic(n_topics=2, n_words=12, n_documents=40, mean_length=8, seed=0)
    train, test = corpus[:30], corpus[30:]
    new_train, new_test = reshuffle(train, test, seed=1)
    assert (new_train.n_documents, new_test.n_documents) == (30, 10)
    assert new_train.n_tokens + new_test.n_tokens == corpus.n_tokens
    assert not np.array_equal(new_test.counts.toarray(), test.counts.toarray())
    keep = np.arange(12) % 2 == 0
    restricted, dropped_tokens, dropped_documents = restrict_to_words(test, keep)
    assert restricted.counts[:, ~keep].nnz == 0
    assert restricted.n_tokens + dropped_tokens == test.n_tokens
    assert restricted.n_documents + dropped_documents == test.n_documents
    assert all(np.all(keep[t]) for t in restricted.tokens)


def test_experiment_command_end_to_end(tmp_path, capsys):
    argv = ["experiment", "all", "synthetic", "-o", str(tmp_path), "--train-docs", "150",
            "--test-docs", "20", "--topics", "3", "--seeds", "0", "--step-decays", "0.5,1",
            "--methods", "g-oem,v-oem", "--local-passes", "2", "--batch-size", "50",
            "--particles", "3", "--synthetic-topics", "3", "--synthetic-words", "25", "--json"]
    assert main(argv) == 0
    result = json.loads(capsys.readouterr().out)
    assert [e["name"] for e in result["experiments"]] == list(EXPERIMENTS)
    for name in EXPERIMENTS:
        for suffix in ("json", "md", "png"):
            assert (tmp_path / f"{name}.{suffix}").is_file()
    through = json.loads((tmp_path / "through-iterations.json").read_text())
    assert {e["x"] for e in through["summary"]} == {50, 100, 150}
    assert all(np.isfinite(e["median"]) for e in through["summary"])  # the same scorable tokens
    assert {c["cell"]["held_out_words"] for c in through["cells"]} == {"first-evaluation"}
    assert main(argv) == 0
    again = json.loads(capsys.readouterr().out)
    assert all(e["cells_computed"] == 0 for e in again["experiments"])

    assert main(["experiment", "time", str(tmp_path / "missing"), "-o", str(tmp_path)]) == 2
    assert "not a corpus directory" in capsys.readouterr().err
