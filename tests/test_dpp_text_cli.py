"""Sentences as DPP items: preprocessing, summaries and the fit-dpp / summarize commands."""

import json

import numpy as np
import pytest

from streamtopics.cli.main import main
from streamtopics.dpp.summaries import closest_to_mean, coverage, lead, marked_text, mean_jaccard
from streamtopics.dpp.text import SentencePreprocessor, independent_rows, split_sentences


def test_split_sentences_strips_html_and_splits_on_punctuation_and_lines():
    text = "Great tea!  Smooth taste.<br />Would buy again?\nYes\n\n  "
    assert split_sentences(text) == ["Great tea!", "Smooth taste.", "Would buy again?", "Yes"]


def test_independent_rows_drops_linear_combinations():
    rows = [np.array([0]), np.array([1]), np.array([0, 1]), np.array([1, 2]), np.array([0, 2])]
    assert independent_rows(rows, 3) == [0, 1, 3]


def test_preprocessor_keeps_distinct_independent_sentences_and_their_positions():
    pre = SentencePreprocessor(n_words=3, stopwords=frozenset({"the"})).fit(
        ["apple banana. apple. cherry pie.", "apple banana cherry."])
    assert pre.vocabulary_ == ["apple", "banana", "cherry"]
    document = pre.document("The apple. Banana! Apple? Nothing here. apple banana. cherry")
    assert [r.tolist() for r in document.rows] == [[0], [1], [2]]
    assert document.kept.tolist() == [0, 1, 5]           # repeat and dependent sentence dropped
    assert pre.document("apple. apple.") is None        # one distinct sentence left


def test_summary_measures_and_baselines():
    pre = SentencePreprocessor(n_words=4, stopwords=frozenset()).fit(["a b c d"])
    document = pre.document("a b. a b c. c d. d.")
    assert lead(document, 2).tolist() == [0, 1]
    assert mean_jaccard(document, [0, 1]) == pytest.approx(2 / 3)
    assert coverage(document, [0, 2]) == 1.0
    assert closest_to_mean(document, 1).tolist() == [1]
    assert marked_text(document, [2]) == "a b. a b c. [[c d.]] d."


ASPECTS = [["apple", "banana", "cherry"], ["car", "truck", "bus"], ["red", "green", "blue"],
           ["cat", "dog", "horse"]]


def planted_reviews(path, n=300, seed=0):
    """Each document has one sentence on each of 2-4 distinct aspects (word groups): sentences on
    the same aspect never meet in a document, the aversion a DPP models."""
    rng = np.random.default_rng(seed)
    with open(path, "w") as handle:
        for i in range(n):
            aspects = rng.choice(len(ASPECTS), size=rng.integers(2, 5), replace=False)
            sentences = [" ".join(rng.choice(ASPECTS[a], size=rng.integers(1, 3), replace=False)) + "."
                         for a in aspects]
            handle.write(json.dumps({"text": " ".join(sentences), "id": i}) + "\n")


def test_fit_dpp_and_summarize_pick_diverse_sentences(tmp_path, capsys):
    planted_reviews(tmp_path / "docs.jsonl")
    model = tmp_path / "dpp.stm"
    assert main(["fit-dpp", str(tmp_path / "docs.jsonl"), "-o", str(model), "--rank", "4",
                 "--vocab-size", "12", "--max-outer", "5", "--penalty", "0", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["test_log_likelihood"] > report["test_log_likelihood_gamma_identity"] + 1.0
    (tmp_path / "new.jsonl").write_text(json.dumps(
        {"text": "apple banana. banana cherry. cherry apple. car truck."}) + "\n")
    assert main(["summarize", str(model), str(tmp_path / "new.jsonl"), "-l", "2", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)["documents"][0]["summary"]
    assert "car truck." in summary                       # lead-2 takes two fruit sentences


def test_summarize_refuses_a_model_without_vocabulary(tmp_path, capsys):
    (tmp_path / "model.stm").write_bytes(b"garbage")
    (tmp_path / "docs.txt").write_text("a. b.\n")
    assert main(["summarize", str(tmp_path / "model.stm"), str(tmp_path / "docs.txt")]) == 2
    assert "model.stm" in capsys.readouterr().err
