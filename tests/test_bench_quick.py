"""Every benchmark script runs (``--quick``: a small planted corpus, seconds), so that a change
that breaks one is seen here, and what it writes holds: a row per engine or configuration,
finite positive ratios, finite held-out scores that do not beat the true model of the planted
corpus by much, bit-identical models across thread counts and backends, and a summary that
replaces the marked block of a page.

The scripts run in subprocesses, a few at a time, writing into a temporary folder (never
bench/results); peers that are not installed (tomotopy, the lda package, Vowpal Wabbit,
BigARTM) are skipped by the scripts with a line saying so."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "bench"
SCRIPTS = ("vs_peers", "vs_tomotopy", "cgs_throughput", "long_stream", "distributed",
           "threads", "kernel_cost", "shape_cost", "wikipedia_shape", "wikipedia_stream",
           "boosted_cost", "evaluation_speed", "serving", "timeline")
# What the scripts' docstrings promise for the planted corpus of `measuring.planted`.
TRUTH_MARGIN = 0.02  # no model beats the true model's log-perplexity by more than 2%


def run(script: str, output: Path, *options: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(ROOT / "src"), *filter(None, [os.environ.get("PYTHONPATH")])]),
        NUMBA_NUM_THREADS="2" if script == "threads" else "1")
    return subprocess.run([sys.executable, str(BENCH / f"{script}.py"), "--quick",
                           "--output-dir", str(output), *options], env=env, cwd=output,
                          capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    """Every script's --quick run (three at a time), then summary.py's: the completed
    processes by script, and the folder they wrote."""
    output = tmp_path_factory.mktemp("bench")
    with ThreadPoolExecutor(3) as pool:
        done = dict(zip(SCRIPTS, pool.map(lambda script: run(script, output), SCRIPTS)))
    page = output / "page.md"
    page.write_text("before\n<!-- bench-summary:start -->\nold\n<!-- bench-summary:end -->\n"
                    "after\n")
    done["summary"] = run("summary", output, "--pages", str(page))
    return done, output


def result(results, script: str) -> dict:
    done, output = results
    completed = done[script]
    assert completed.returncode == 0, completed.stdout[-2000:] + completed.stderr[-4000:]
    return json.loads((output / f"{script}.json").read_text())


def finite_positive(value) -> bool:
    return math.isfinite(value) and value > 0


def truth_not_beaten(rows, key="log_perplexity", name="engine"):
    truth = next(row[key] for row in rows if row[name] == "true model")
    for row in rows:
        assert row[key] >= truth * (1 - TRUTH_MARGIN), row


def test_vs_peers(results):
    document = result(results, "vs_peers")
    engines = {row["engine"]: row for row in document["rows"]}
    for name in ("G-OEM, one pass", "G-OEM, default fit", "gensim (defaults)",
                 "gensim (offset 64)", "scikit-learn (defaults)", "true model"):
        assert name in engines
    stdout = results[0]["vs_peers"].stdout
    for name in ("Vowpal Wabbit", "BigARTM, update every 1"):
        assert (name in engines) != (f"skipped {name}" in stdout)
    for row in document["rows"]:
        assert math.isfinite(row["log_perplexity"]) and math.isfinite(row["paired_se"])
        if row["engine"] != "true model":
            assert finite_positive(row["cpu_ratio"]) and finite_positive(row["seconds"])
    truth_not_beaten(document["rows"])
    # G-OEM learns the planted topics: within 10% of the true model's score
    truth = engines["true model"]["log_perplexity"]
    assert engines["G-OEM, one pass"]["log_perplexity"] < 1.1 * truth
    assert engines["G-OEM, default fit"]["passes"] > 1
    assert {row["family"] for row in document["best"]} >= {"G-OEM, one pass", "gensim"}


def test_vs_tomotopy(results):
    document = result(results, "vs_tomotopy")
    models = {row["model"]: row for row in document["rows"]}
    assert {"G-OEM, 1 pass", "G-OEM, 3 passes", "true model"} <= set(models)
    assert ("tomotopy CGS, 100 iterations" in models) != bool(document["skipped"])
    truth_not_beaten(document["rows"], name="model")
    # more passes over the same documents fit the planted corpus better
    assert models["G-OEM, 3 passes"]["log_perplexity"] < models["G-OEM, 1 pass"]["log_perplexity"]
    for row in document["rows"]:
        if "seconds" in row:
            assert finite_positive(row["time_share"])


def test_cgs_throughput(results):
    document = result(results, "cgs_throughput")
    assert [row["K"] for row in document["rows"]] == [5, 20]
    for row in document["rows"]:
        for sampler in ("sparse", "dense"):
            assert finite_positive(row[sampler])
            assert finite_positive(row[f"{sampler}_cgsp_pass_seconds"])
        # the two samplers draw from the same chain: after the same sweeps, the same fit
        assert row["sparse_log_joint_per_token"] == pytest.approx(
            row["dense_log_joint_per_token"], rel=0.03)
        for peer in ("tomotopy", "lda"):
            assert (peer in row) != (peer in document["skipped"])


def test_long_stream(results):
    document = result(results, "long_stream")
    steps = [row["step"] for row in document["rows"]]
    assert steps[:2] == ["write (DocwordWriter)", "read in minibatches (DocwordStream)"]
    assert "train G-OEM K = 10 on the file" in steps
    for row in document["rows"]:
        assert row["documents"] == 3000
        assert finite_positive(row["documents_per_second"]) and finite_positive(row["peak_mb"])
    assert document["flat"]


def test_distributed(results):
    document = result(results, "distributed")
    configurations = {row["configuration"]: row for row in document["rows"]}
    assert set(configurations) == {"serial", "dask-2"}
    assert configurations["serial"]["components_sha"] == configurations["dask-2"]["components_sha"]
    assert configurations["dask-2"]["chunks_per_step"] > 1
    for workers in document["projection"]["workers"].values():
        for row in workers["by_batch_size"].values():
            assert finite_positive(row["documents_per_second"])
            assert 0 < row["client_share"] < 1


def test_threads(results):
    document = result(results, "threads")
    cells = {(row["command"], row["condition"]) for row in document["rows"]}
    assert len(cells) == 8 and {condition for _, condition in cells} == {"idle", "one core busy"}
    for row in document["rows"]:
        assert row["same_numbers"], row["command"]
        assert set(row["speed"]) == {"default", "1 thread", "2 threads"}
        assert all(finite_positive(speed) for speed in row["speed"].values())


def test_shape_cost(results):
    document = result(results, "shape_cost")
    cells = [(row["V"], row["L"], row["K"]) for row in document["truth"]]
    assert len(cells) == len(set(cells)) == 10
    assert {v for v, _, _ in cells} == {300, 1000} and {k for _, _, k in cells} == {5, 10, 20}
    for row in document["truth"]:
        assert finite_positive(row["chain_ns"]) and finite_positive(row["statistics_ns"])
        # the planted documents use few of the topics; a minibatch's words are V at most
        assert 1 <= row["present"] <= row["K"] and row["words_per_minibatch"] <= row["V"]
        assert row["words_per_minibatch"] <= row["entries_per_minibatch"]
    fits = {(row["V"], row["eta"]): row for row in document["fits"]}
    assert set(fits) == {(v, eta) for v in (300, 1000) for eta in (0.03, 0.3)}
    for row in fits.values():
        assert finite_positive(row["fit_ns"]) and row["chain_ns"] < row["fit_ns"]
        assert row["default_eta"] == (row["eta"] == 0.03)
        # a one-pass model scores below the generating model, within 15% of it
        assert 0 < row["behind_truth_by"] < 0.15 * row["log_perplexity"]


def test_wikipedia_shape(results):
    document = result(results, "wikipedia_shape")
    engines = {row["engine"]: row for row in document["rows"]}
    assert {"G-OEM, one pass", "G-OEM, one pass, flat-topic setting", "true model"} <= set(engines)
    stdout = results[0]["wikipedia_shape"].stdout
    for name in ("Vowpal Wabbit", "BigARTM, update every 8", "BigARTM, update every 16"):
        assert (name in engines) != (f"skipped {name}" in stdout)
    truth_not_beaten(document["rows"])
    for row in document["rows"]:
        if row["engine"] != "true model":
            assert finite_positive(row["cpu_ratio"]) and finite_positive(row["seconds"])


def test_wikipedia_stream(results):
    document = result(results, "wikipedia_stream")
    [row] = document["rows"]
    assert row["documents"] == 2000 and row["written"]["tokens"] > 0
    for key in ("cpu_seconds", "wall_seconds", "peak_mb", "tokens_per_second",
                "projected_wikipedia_seconds", "transform_documents_per_second"):
        assert finite_positive(row[key]), key
    # one pass over the planted stream comes within 15% of the generating model's score
    assert row["true_log_perplexity"] * (1 - TRUTH_MARGIN) <= row["log_perplexity"]
    assert row["log_perplexity"] < 1.15 * row["true_log_perplexity"]


def test_kernel_cost(results):
    document = result(results, "kernel_cost")
    cells = {(row["K"], row["sampler"]) for row in document["rows"]}
    assert cells == {(k, s) for k in (5, 20) for s in ("dense", "sparse", "mh")}
    for row in document["rows"]:
        assert finite_positive(row["ns_per_token_pass"]) and finite_positive(row["speed_vs_dense"])
        assert 0 < row["chain_share"] + row["statistics_share"] <= 1
        # the samplers draw from the same conditionals: the same model up to noise
        assert abs(row["worse_than_dense_by"]) < TRUTH_MARGIN * row["log_perplexity"]
    assert [row["present"] for row in document["present"]] == [2, 16]
    assert all(finite_positive(row["ns_per_token_pass"]) for row in document["present"])


def test_boosted_cost(results):
    document = result(results, "boosted_cost")
    assert [(row["plain"], row["boosted"]) for row in document["rows"]] == [
        ("g-oem", "g-oem++"), ("v-oem", "v-oem++")]
    for row in document["rows"]:
        assert finite_positive(row["ratio"])
        assert math.isfinite(row["boosted_log_perplexity"])
        assert math.isfinite(row["plain_log_perplexity"])


def test_evaluation_speed(results):
    document = result(results, "evaluation_speed")
    methods = {(row["K"], row["method"]) for row in document["rows"]}
    assert len(methods) == 10
    for row in document["rows"]:
        assert finite_positive(row["seconds_per_1000_documents"])
        assert finite_positive(row["vs_dense"])
        if "paired_se" in row:  # same seed, another sampler: the same estimate up to noise
            assert abs(row["dense_minus_sparse"]) < 4 * row["paired_se"] + 0.5
    assert [point["tokens"] for point in document["growth"]] == [20, 40, 80]
    assert math.isfinite(document["log_log_slope"])


def test_serving(results):
    document = result(results, "serving")
    libraries = {row["library"]: row for row in document["rows"]}
    for name in ("gensim", "scikit-learn"):
        assert (name in libraries) != (name in document["skipped"])
    truth = libraries.pop("true model")
    reference = libraries["streamtopics"]
    for row in libraries.values():
        for mode in ("test", "batch", "single"):
            assert finite_positive(row[f"{mode}_documents_per_second"])
            assert finite_positive(row[f"{mode}_time_ratio"])
        # every library scores the halves the library's own document completion cuts
        assert row["held_out_tokens"] == truth["held_out_tokens"]
        assert math.isfinite(row["completion_per_token"]) and math.isfinite(row["paired_se"])
        # log-likelihoods per token (negative): none beats the true model by more than 2%
        assert row["completion_per_token"] <= truth["completion_per_token"] * (1 - TRUTH_MARGIN)
    assert reference["batch_time_ratio"] == 1.0
    # the planted topics learnt, and the default transform close to a 10x longer chain's
    assert reference["completion_per_token"] > 1.03 * truth["completion_per_token"]
    assert abs(reference["default_minus_fuller"]) < 0.01 * abs(reference["completion_per_token"])


def test_summary(results):
    done, output = results
    assert done["summary"].returncode == 0, done["summary"].stderr
    page = (output / "page.md").read_text()
    assert page.startswith("before\n<!-- bench-summary:start -->\n")
    assert page.endswith("<!-- bench-summary:end -->\nafter\n")
    assert "old" not in page
    for script in SCRIPTS:
        row = next(line for line in page.splitlines() if line.startswith(f"| `bench/{script}.py`"))
        assert "not run" not in row
    peers = (output / "summary.md").read_text()
    assert peers.count("| planted | 5 |") >= 4
    assert peers.count("| synthetic V = 1,000, 60 tokens | 10 |") >= 2  # wikipedia_shape's best


def test_timeline(results):
    """Forward chaining on the planted drifting corpus: every period after the first scored
    by each model; the models of the stream in time order beat the static model of the whole
    past (they follow the drift); the dynamic topic models ran where installed."""
    document = result(results, "timeline")
    chained = document["forward"]
    assert chained["scored_periods"] == len(chained["periods"]) == 5
    for row in chained["periods"]:
        for name in ("time order", "tracking", "static"):
            assert math.isfinite(row[f"{name}_per_document"])
    assert chained["wins"]["tracking"] >= 4 and chained["wins"]["time order"] >= 4
    ahead = document["one_step_ahead"]
    assert {"time order", "tracking", "static"} <= set(ahead["per_document"])
    for name, score in ahead["per_document"].items():
        assert math.isfinite(score) and finite_positive(ahead["seconds"][name]), name
