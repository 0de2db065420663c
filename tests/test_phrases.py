"""Phrases (corpus.phrases): planted collocations are found, independent words are not, and the
pairs, scores and joined text are gensim's `Phrases` with NPMI scoring on the same runs."""

from __future__ import annotations

import math

import numpy as np
import pytest

from streamtopics.corpus import load_stopwords, preprocess_documents
from streamtopics.corpus.phrases import Phrases, phrase_scores

STOP = frozenset({"the", "of", "in"})


def planted_documents(n_documents: int = 400, seed: int = 0) -> list[list[str]]:
    """Documents of independent words drawn from a Zipf-like law, with "new york" (always
    together), "ice cream" (together in 4 of 5 uses of "ice") and stop words placed between
    them."""
    rng = np.random.default_rng(seed)
    words = [f"word{chr(97 + i // 26)}{chr(97 + i % 26)}" for i in range(60)]
    weights = 1.0 / np.arange(1, 61)
    weights /= weights.sum()
    documents = []
    for _ in range(n_documents):
        units = [[str(word)] for word in rng.choice(words, size=rng.integers(8, 20), p=weights)]
        for _ in range(rng.integers(0, 3)):
            units.insert(int(rng.integers(0, len(units) + 1)),
                         ["new", "york"] if rng.random() < 0.5 else
                         ["ice", "cream"] if rng.random() < 0.8 else ["ice"])
        for _ in range(rng.integers(0, 4)):
            units.insert(int(rng.integers(0, len(units) + 1)), [str(rng.choice(sorted(STOP)))])
        documents.append([token for unit in units for token in unit])
    return documents


def test_planted_phrases_are_found_and_independent_words_are_not():
    documents = planted_documents()
    phrases = Phrases.learn(documents, STOP, threshold=0.5, min_count=5)
    assert phrases.bigrams == {("new", "york"), ("ice", "cream")}
    scores = phrase_scores(documents, STOP, min_count=5)
    independent = [score for (a, b), score in scores.items() if a.startswith("word") and b.startswith("word")]
    assert len(independent) > 100 and max(independent) < 0.3   # near 0: independence
    assert scores["new", "york"] > scores["ice", "cream"] > 0.5


def test_npmi_is_the_formula_on_counted_runs():
    # runs: [a b c], [a b], [c a]; N = 7; c(a) = 3, c(b) = 2, c(a, b) = 2
    documents = [["a", "b", "c", "the", "a", "b"], ["c", "a"]]
    scores = phrase_scores(documents, {"the"}, min_count=1)
    expected = math.log((2 / 7) / ((3 / 7) * (2 / 7))) / -math.log(2 / 7)
    assert scores["a", "b"] == pytest.approx(expected, rel=1e-12)
    assert ("c", "a") in scores and ("b", "a") not in scores  # "b the a" is broken by a stop word
    assert phrase_scores(documents, {"the"}, min_count=3) == {}


def test_join_is_greedy_left_to_right_and_never_joins_stop_words():
    phrases = Phrases(frozenset({("a", "b"), ("b", "c"), ("of", "x")}))
    assert phrases.join(["a", "b", "c"], set()) == ["a_b", "c"]
    assert phrases.join(["x", "b", "c", "a"], set()) == ["x", "b_c", "a"]
    assert phrases.join(["of", "x"], {"of"}) == ["of", "x"]
    assert Phrases.from_dict(phrases.as_dict()) == phrases
    for bad in ({"threshold": "0.5"}, {"threshold": float("nan")}, {"min_count": 0},
                {"min_count": 2.0}, {"bigrams": [["a"]]}, {"scoring": "default"}):
        with pytest.raises(ValueError):
            Phrases.from_dict({**phrases.as_dict(), **bad})


def test_preprocess_learns_phrases_and_records_them():
    texts = [" ".join(tokens) for tokens in planted_documents()]
    corpus = preprocess_documents(texts, stopwords=STOP, max_df=1.0, min_count=1, phrases=0.5)
    words = set(corpus.vocabulary.tolist())
    assert {"new_york", "ice_cream"} <= words
    assert {"new", "york"}.isdisjoint(words)          # never apart
    assert "ice" in words and "cream" not in words     # "ice" alone 1 time in 5
    assert corpus.pipeline.phrases.bigrams == {("new", "york"), ("ice", "cream")}
    plain = preprocess_documents(texts, stopwords=STOP, max_df=1.0, min_count=1)
    assert plain.pipeline.phrases is None and "new" in plain.vocabulary
    assert corpus.n_tokens == plain.n_tokens - sum(
        text.count("new york") + text.count("ice cream") for text in texts)


def _gensim_phrases(documents, threshold, min_count):
    gensim_phrases = pytest.importorskip("gensim.models.phrases")
    runs = [run for tokens in documents
            for run in " ".join(t if t not in STOP else "|" for t in tokens).split("|")]
    runs = [run.split() for run in runs if run.split()]
    return runs, gensim_phrases.Phrases(runs, min_count=min_count, threshold=threshold,
                                        scoring="npmi", connector_words=frozenset())


@pytest.mark.parametrize("threshold, min_count", [(0.5, 5), (0.1, 3), (-0.2, 10)])
def test_same_phrases_scores_and_joins_as_gensim(threshold, min_count):
    documents = planted_documents(300, seed=1)
    runs, model = _gensim_phrases(documents, threshold, min_count)
    ours = Phrases.learn(documents, STOP, threshold, min_count)
    theirs = model.export_phrases()
    assert {tuple(phrase.split("_")) for phrase in theirs} == ours.bigrams
    scores = phrase_scores(documents, STOP, min_count)
    for phrase, score in theirs.items():
        assert scores[tuple(phrase.split("_"))] == pytest.approx(score, rel=1e-12, abs=1e-15)
    for run in runs:
        assert ours.join(run, STOP) == model[run]


def test_phrases_on_stop_worded_english():
    stop = load_stopwords()
    text = "the united states of america and the united kingdom met in new york. "
    documents = [(text + f"topic {i} words here").split() for i in range(30)]
    phrases = Phrases.learn(documents, stop, threshold=0.5, min_count=5)
    assert ("united", "states") in phrases.bigrams and ("states", "america") not in phrases.bigrams
