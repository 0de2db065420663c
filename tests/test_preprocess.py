"""Preprocessing: the tokeniser and each pruning step of ../shared/corpora/README.md, exactly."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from streamtopics.corpus import (Corpus, build_vocabulary, load_stopwords, map_to_vocabulary,
                                 preprocess_documents, shuffle_split, tokenize)
from streamtopics.corpus.readers import RawDocument
from streamtopics.errors import InputError


@pytest.mark.parametrize("text, tokens", [
    ("Hello, World!", ["hello", "world"]),
    ("don\u2019t \u2018quote\u2019 rock\u02bcn\u02bcroll", ["don't", "quote", "rock'n'roll"]),
    ("'leading trailing' a''b", ["leading", "trailing", "a", "b"]),
    ("abc123def 42 under_score", ["abc", "def", "under", "score"]),
    ("\ufb01le \uff26\uff35\uff2c\uff2c", ["file", "full"]),   # NFKC: ligature, fullwidth
    ("Na\u00efve CAF\u00c9 \u00fcber \u0394\u03b9\u03ac", ["naïve", "café", "über", "δι\u03ac"]),
    ("e\u0301t\u00e9", ["été"]),                                  # NFKC composes the accent
    ("", []),
])
def test_tokenize(text, tokens):
    assert tokenize(text) == tokens


def test_bundled_and_custom_stopwords(tmp_path):
    bundled = load_stopwords()
    assert {"the", "and", "of", "don't", "isn"} <= bundled and "apple" not in bundled
    assert all(word == word.lower() and word.strip() for word in bundled)
    path = tmp_path / "stop.txt"
    path.write_text("# comment\nFoo\n\nbar\u2019s\n")
    assert load_stopwords(path) == {"foo", "bar's"}
    with pytest.raises(InputError, match="no such stop-word file"):
        load_stopwords(tmp_path / "missing.txt")


def test_pipeline_steps_and_report():
    documents = [
        "alpha beta gamma alpha",      # 0
        "alpha beta gamma alpha",      # exact duplicate of 0: dropped
        "Alpha, beta! gamma alpha.",   # same tokens after step 2: a duplicate too
        "beta delta the",              # "the" is a stop word
        "the of and",                  # only stop words: empty after preprocessing
        "delta epsilon",
        "zeta",                        # zeta occurs once: rare
    ]
    corpus = preprocess_documents(documents, stopwords={"the", "of", "and"}, max_df=0.5,
                                  min_count=2, max_vocab=None)
    # D = 5 after duplicates; df: alpha 1, beta 2, gamma 1, delta 2, epsilon 1, zeta 1.
    # No word is in more than 2.5 documents; counts: alpha 2, beta 2, delta 2, others 1.
    assert corpus.vocabulary.tolist() == ["alpha", "beta", "delta"]
    assert [t.tolist() for t in corpus.tokens] == [[0, 1, 0], [1, 2], [2]]
    report = corpus.report
    assert report.documents_read == 7 and report.documents_kept == 3
    assert report.documents_skipped == {"duplicate": 2, "empty after preprocessing": 2}
    assert report.tokens_dropped == {"in duplicate documents": 8, "stop word": 4,
                                     "fewer than min_count occurrences": 3}
    assert report.words_removed["fewer than min_count occurrences"] == 3
    assert report.tokens_kept == 6


def test_max_df_is_strictly_greater_than_and_max_vocab_breaks_ties_alphabetically():
    # 5 documents: "common" in 2 (= 0.4 D, kept at max_df 0.4), "everywhere" in 3 (> 0.4 D).
    documents = ["common everywhere kiwi", "common everywhere fig", "everywhere fig kiwi",
                 "date kiwi", "date fig"]
    corpus = preprocess_documents(documents, stopwords=set(), max_df=0.4, min_count=1, max_vocab=10)
    assert "everywhere" not in corpus.vocabulary and "common" in corpus.vocabulary
    assert corpus.report.words_removed["in more than max_df of the documents"] == 3
    # fig and kiwi occur 3 times but sit in 3 documents (> 0.4 D): removed too.
    assert corpus.vocabulary.tolist() == ["common", "date"]
    tie = preprocess_documents(["b a c", "c a b", "d"], stopwords=set(), max_df=1.0,
                               min_count=1, max_vocab=2)
    assert tie.vocabulary.tolist() == ["a", "b"]   # a, b, c tie at 2: alphabetical
    assert tie.report.words_removed["beyond max_vocab"] == 2


def test_labels_and_metadata_follow_the_kept_documents():
    documents = [RawDocument("cat cat dog", 1, {"label": "pets"}),
                 RawDocument("cat cat dog", 2, {"label": "dup"}),
                 RawDocument("cat dog", 3, {"label": "more", "when": "now"})]
    corpus = preprocess_documents(documents, stopwords=set(), max_df=1.0, min_count=1)
    assert corpus.labels == ["pets", "more"]
    assert corpus.metadata == [{"orig_id": 1, "label": "pets"},
                               {"orig_id": 3, "label": "more", "when": "now"}]


def test_nothing_left_is_an_error():
    with pytest.raises(InputError, match="no document is left"):
        preprocess_documents(["the", "and"], stopwords={"the", "and"})


def test_map_to_vocabulary_counts_unknown_words_and_keeps_alignment():
    corpus = map_to_vocabulary(["The cat sat", "nothing known", "cat cat"], ["cat", "sat"])
    assert [t.tolist() for t in corpus.tokens] == [[0, 1], [], [0, 0]]
    assert corpus.report.tokens_dropped == {"not in the vocabulary": 3}
    assert corpus.report.warnings_total == 1 and "1 document(s) have no word" in corpus.report.warnings[0]


def test_shuffle_split_is_the_published_recipe():
    corpus = Corpus.from_token_lists([[i % 3] for i in range(20)], ["a", "b", "c"],
                                     metadata=[{"i": i} for i in range(20)])
    train, test = shuffle_split(corpus, 0.1, seed=0)
    perm = np.random.RandomState(0).permutation(20)
    assert [m["i"] for m in train.metadata] == perm[:18].tolist()
    assert [m["i"] for m in test.metadata] == perm[18:].tolist()
    assert shuffle_split(corpus, 5, seed=1)[1].n_documents == 5
    with pytest.raises(ValueError):
        shuffle_split(corpus, 1.0)


words = st.sampled_from(["ant", "bee", "cat", "dog", "eel", "fox", "gnu", "hen"])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(words, min_size=0, max_size=12), min_size=1, max_size=25),
       st.sampled_from([0.3, 0.6, 1.0]), st.integers(1, 4), st.integers(1, 6))
def test_vocabulary_properties(documents, max_df, min_count, max_vocab):
    """Against a direct reading of step 5: kept words obey every rule, and every word that
    obeys max_df and min_count but was cut is no more frequent than the kept ones."""
    pruning = build_vocabulary(documents, max_df, min_count, max_vocab)
    frequency = Counter(w for d in documents for w in d)
    document_frequency = Counter(w for d in documents for w in set(d))
    eligible = {w for w in frequency
                if document_frequency[w] <= max_df * len(documents) and frequency[w] >= min_count}
    assert set(pruning.words) <= eligible and len(pruning.words) == min(max_vocab, len(eligible))
    rank = [(-frequency[w], w) for w in pruning.words]
    assert rank == sorted(rank)
    for cut in eligible - set(pruning.words):
        assert (-frequency[cut], cut) > rank[-1]
    assert set(pruning.frequent) | set(pruning.rare) | set(pruning.cut) | set(pruning.words) == set(frequency)
