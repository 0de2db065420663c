"""select-k: held-out scores by K, its criteria (the guarded held-out elbow, the most coherent K,
the one-standard-error rule), and the command on a planted corpus, where it must recommend the
true K."""

import json
from dataclasses import replace

import numpy as np
import pytest

from streamtopics.cli.main import main
from streamtopics.errors import InputError
from streamtopics.experiments import KScore, recommend_k
from streamtopics.experiments.select_k import elbow_k

PLANTED = ["--synthetic-topics", "5", "--synthetic-words", "200", "--train-docs", "1000",
           "--test-docs", "200", "--passes", "2", "--particles", "5", "--seeds", "0"]


def scores(*rows):
    return [KScore(k, mean, se, 2, 0.0) for k, mean, se in rows]


def test_unpaired_the_smallest_k_within_one_standard_error_of_the_best():
    def heldout(*rows):
        return recommend_k(scores(*rows), "heldout")[:2]
    assert heldout((5, 250.0, 2.0), (10, 240.0, 2.0), (20, 239.0, 1.5)) == (10, 20)
    assert heldout((5, 250.0, 2.0), (10, 240.0, 2.0), (20, 237.0, 1.5)) == (20, 20)
    assert heldout((5, 250.0, 2.0), (10, float("inf"), 0.0)) == (5, 5)
    with pytest.raises(InputError, match="no K has a finite held-out score"):
        recommend_k(scores((5, float("nan"), 0.0)))


def test_paired_by_document_a_small_consistent_gain_counts():
    """Documents differ a lot (unpaired SE 10 nats), but K = 20 beats K = 10 on every document
    by 1 nat: paired, that is far beyond noise, and 20 is recommended; K = 40 beats 20 by 0.01
    nats, within noise (its paired SE is 0.03), and is not."""
    rng = np.random.default_rng(0)
    base = -rng.normal(300, 100, size=100)  # log p(w_d) of 100 held-out documents
    ten, twenty = base + rng.normal(0, 0.3, size=100), base + 1 + rng.normal(0, 0.3, size=100)
    wobble = rng.normal(0, 0.3, size=100)
    forty = twenty + wobble - wobble.mean() + 0.01  # better by 0.01 on average, sd 0.3
    per_document = {10: ten, 20: twenty, 40: forty}
    rows = [KScore(k, -float(v.mean()), float(v.std() / 10), 1, 0.0, None, {(0, 0): v})
            for k, v in per_document.items()]
    recommended, best, gapped = recommend_k(rows, "heldout")
    assert (recommended, best) == (20, 40)
    assert recommend_k([replace(row, documents={}) for row in rows], "heldout")[0] == 10
    by_k = {row.n_topics: row for row in gapped}
    assert by_k[10].gap == pytest.approx(1.01, abs=0.1) and by_k[10].gap > 3 * by_k[10].gap_se
    assert by_k[40].gap == 0.0


def test_the_elbow_is_where_an_added_topic_stops_gaining_its_share():
    # gains per added topic from K = 10: 1.0 (to 20), 0.6 (to 30): 0.1% of 1000 is 1.0, so 10
    # pays to 20 and is not the elbow; from 20: 0.2 per topic to 30, below 1.0: the elbow
    rows = scores((10, 1000.0, 1.0), (20, 990.0, 1.0), (30, 988.0, 1.0))
    assert elbow_k(rows) == 20
    assert elbow_k(rows, min_gain=0.0001) == 30  # 0.2 per topic beats 0.099
    assert elbow_k(rows, min_gain=0.0011) == 10
    # a later, larger step that still pays per topic moves the elbow past a flat stretch
    assert elbow_k(scores((10, 1000.0, 1.0), (20, 999.5, 1.0), (40, 970.0, 1.0))) == 40
    # gains that never reach the share: the smallest K
    assert elbow_k(scores((5, 100.0, 1.0), (10, 99.99, 1.0))) == 5


def test_balanced_guards_the_elbow_with_coherence_and_diversity():
    def rated(*rows):
        return [KScore(k, mean, 1.0, 2, 0.0, cv=cv, diversity=diversity)
                for k, mean, cv, diversity in rows]
    grid = [(10, 1000.0, 0.60, 0.8), (20, 985.0, 0.58, 0.7), (30, 980.0, 0.50, 0.6),
            (50, 975.0, 0.45, 0.4)]
    assert elbow_k(rated(*grid)) == 20  # 10 -> 20 gains 1.5 per topic, 20 -> 30 0.5
    assert recommend_k(rated(*grid))[0] == 20  # c_v 0.58 within 0.05 of 0.60
    assert recommend_k(rated(*grid), "coherence")[0] == 10
    assert recommend_k(rated(*grid), "heldout")[0] == 50  # unpaired: only 50 within 1 of 975
    less_coherent = [(10, 1000.0, 0.60, 0.8), (20, 985.0, 0.52, 0.7), (30, 980.0, 0.5, 0.6)]
    assert recommend_k(rated(*less_coherent))[0] == 10
    repetitive = [(10, 1000.0, 0.60, 0.45), (20, 985.0, 0.60, 0.4), (30, 980.0, 0.5, 0.3)]
    assert recommend_k(rated(*repetitive))[0] == 10  # none diverse: the most coherent, smaller K
    with pytest.raises(InputError, match="no K has a recorded c_v"):
        recommend_k(scores((5, 250.0, 2.0), (10, 240.0, 2.0)), "coherence")
    assert recommend_k(scores((5, 250.0, 2.0), (10, 240.0, 2.0)))[0] == 10  # no guard recorded
    with pytest.raises(InputError, match="a share in"):
        recommend_k(scores((5, 250.0, 2.0), (10, 240.0, 2.0)), min_gain=-0.1)


def test_select_k_recommends_the_planted_k(tmp_path, capsys):
    out = tmp_path / "k"
    assert main(["select-k", "synthetic", "-k", "3,5,10", "-o", str(out), *PLANTED,
                 "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["recommended_k"] == 5
    by_k = {row["n_topics"]: row for row in result["scores"]}
    assert by_k[3]["log_perplexity"] > by_k[5]["log_perplexity"] + 3 * by_k[5]["standard_error"]
    assert json.loads((out / "select-k.json").read_text())["recommended_k"] == 5
    # coherence is shown beside: planted topics are coherent, fewer topics merge them
    assert by_k[5]["npmi_coherence"] > by_k[3]["npmi_coherence"]
    assert by_k[5]["cv_coherence"] > by_k[3]["cv_coherence"]
    assert by_k[5]["topic_diversity"] > by_k[10]["topic_diversity"]
    assert result["criterion"] == "balanced"
    assert (out / "perplexity-vs-k.md").is_file()
    # the same runs are cells: a second call computes nothing and prints the table
    assert main(["select-k", "synthetic", "-k", "3,5,10", "-o", str(out), *PLANTED]) == 0
    printed = capsys.readouterr().out
    assert "recommended K = 5" in printed and "0 runs computed, 3 reused" in printed
    # an HDP beside them, scored on the same documents, paired; it does not change the rule
    assert main(["select-k", "synthetic", "-k", "3,5,10", "-o", str(out), *PLANTED,
                 "--model", "hdp", "--max-topics", "10", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    hdp = result["hdp"]
    assert result["recommended_k"] == 5 and len(hdp["topics_used"]) == 1
    assert 1 <= hdp["topics_used"][0] <= 10 and 0 < hdp["gap_standard_error"] < 5
    assert hdp["gap_to_best"] == pytest.approx(
        hdp["log_perplexity"] - by_k[5]["log_perplexity"], abs=1e-5)  # cells keep 6 decimals


@pytest.mark.parametrize("arguments, problem", [
    (["-k", "0,5"], "expected comma-separated positive integers, got '0,5'"),
    (["-k", "5", "--test-docs", "0"], "--test-docs: invalid positive_int value: '0'"),
])
def test_option_values_are_refused_by_the_parser(tmp_path, capsys, arguments, problem):
    with pytest.raises(SystemExit) as exit_:
        main(["select-k", "synthetic", "-o", str(tmp_path / "o"), *arguments])
    assert exit_.value.code == 2 and problem in capsys.readouterr().err


@pytest.mark.parametrize("arguments, problem", [
    (["-k", "5,10", "--method", "nope"], "unknown --method 'nope'"),
    (["-k", "5,5"], "select-k compares at least two different K values"),
])
def test_options_are_checked_before_any_corpus_is_read(tmp_path, capsys, arguments, problem):
    assert main(["select-k", "synthetic", "-o", str(tmp_path / "o"), *arguments]) == 2
    assert problem in capsys.readouterr().err
    assert main(["select-k", str(tmp_path / "missing"), "-o", str(tmp_path / "o"),
                 "-k", "5,10"]) == 2
    assert "missing: not a corpus directory" in capsys.readouterr().err
