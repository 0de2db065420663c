"""What a scikit-learn or gensim user types: a grid over K (``n_topics``), raw text in memory
(a list of strings, token lists, a pandas Series) read by load_corpus and refused by fit with a
message saying how to count it, and model selection that cannot choose from scores that all
failed."""

import numpy as np
import pytest

from streamtopics import CVB0LDA, GibbsLDA, InputError, OnlineLDA
from streamtopics.corpus import load_corpus
from streamtopics.interop import best_finite_index

ESTIMATORS = (OnlineLDA, GibbsLDA, CVB0LDA)
WORDS = [name + letter for name in ("sun", "sea", "ink") for letter in "abcdef"]


def planted_texts(n_documents=60, seed=0) -> list[str]:
    """Documents of one of three disjoint word groups each (the planted topics)."""
    rng = np.random.default_rng(seed)
    return [" ".join(WORDS[6 * (d % 3) + i] for i in rng.integers(0, 6, size=20))
            for d in range(n_documents)]


def test_grid_search_over_n_topics_fits_that_many_topics():
    sklearn = pytest.importorskip("sklearn")
    from sklearn.model_selection import GridSearchCV
    counts = load_corpus(planted_texts(), min_count=1, max_df=1.0).counts
    search = GridSearchCV(CVB0LDA(n_passes=30, random_state=0), {"n_topics": [2, 3]},
                          cv=3, refit=best_finite_index).fit(counts)
    assert search.best_estimator_.components_.shape[0] == search.best_params_["n_topics"]
    assert sklearn is not None


# --- raw text in memory ---------------------------------------------------------------------------
def test_load_corpus_reads_strings_token_lists_and_series_alike():
    pandas = pytest.importorskip("pandas")
    texts = planted_texts()
    options = dict(min_count=1, max_df=1.0)
    corpora = [load_corpus(texts, **options),
               load_corpus([text.split() for text in texts], **options),
               load_corpus(pandas.Series(texts, index=range(101, 161)), **options),
               load_corpus(np.array(texts), **options)]
    reference = corpora[0]
    assert reference.n_documents == 60 and reference.n_tokens == 60 * 20
    assert sorted(reference.vocabulary) == sorted(WORDS)
    for corpus in corpora[1:]:
        assert list(corpus.vocabulary) == list(reference.vocabulary)
        assert (corpus.counts != reference.counts).nnz == 0
    assert corpora[2].metadata[0]["orig_id"] == 101  # a Series keeps its index as the ids
    assert corpora[0].metadata[0]["orig_id"] == 1
    mapped = load_corpus(["suna suna inkb unknown", ""], vocabulary=WORDS)
    assert mapped.n_documents == 1 and mapped.report.documents_skipped == {"empty document": 1}
    assert mapped.counts[0, WORDS.index("suna")] == 2 and mapped.n_tokens == 3


@pytest.mark.parametrize("texts, problem", [
    ("no/such/file.txt", "no/such/file.txt: no such file"),  # a string is a path
    (["fine", 3], "texts: item 2 is int 3, not a string or a list of strings"),
    (["fine", None], "item 2 is NoneType None"),
    ({"a": "b"}, "load_corpus reads a path, a sparse matrix or raw text in memory"),
])
def test_load_corpus_names_the_item_that_is_not_text(texts, problem):
    with pytest.raises(InputError, match=problem):
        load_corpus(texts)


@pytest.mark.parametrize("estimator", ESTIMATORS)
def test_fit_on_raw_text_says_how_to_count_it(estimator):
    texts = planted_texts()
    for X in (texts, [text.split() for text in texts], np.array(texts), texts[0]):
        with pytest.raises(InputError, match=r"X is raw text .*streamtopics.load_corpus\(texts\)"
                                             r".*CountVectorizer"):
            estimator(n_topics=3).fit(X)
    model = estimator(n_topics=3, n_passes=20, random_state=0).fit(
        load_corpus(texts, min_count=1, max_df=1.0))
    new = load_corpus(planted_texts(6, seed=1), vocabulary=model.vocabulary_)
    groups = [WORDS.index(text.split()[0]) // 6 for text in planted_texts(6, seed=1)]
    dominant = model.transform(new).argmax(axis=1)
    assert all((dominant[a] == dominant[b]) == (groups[a] == groups[b])
               for a in range(6) for b in range(6))


# --- scores that cannot rank ----------------------------------------------------------------------
def test_score_refuses_zero_probability_and_search_refuses_to_choose():
    pytest.importorskip("sklearn")
    from sklearn.model_selection import GridSearchCV
    rng = np.random.default_rng(0)
    X = rng.poisson(1.0, (30, 12))
    X[:, 10:] = 0
    X[np.arange(10), 10 + np.arange(10) % 2] = 2  # words 10, 11 only in documents 0-9
    model = OnlineLDA(n_topics=2, topic_word_prior=0, n_passes=3, random_state=0).fit(X[10:])
    with pytest.raises(InputError, match=r"20 held-out tokens in 10 of 10 documents have "
                                         r"probability 0 .*topic_word_prior > 0"):
        model.score(X[:10])
    search = GridSearchCV(OnlineLDA(topic_word_prior=0, n_passes=3, random_state=0),
                          {"n_topics": [2, 3]}, cv=[(np.arange(10, 30), np.arange(10))],
                          refit=best_finite_index)
    with pytest.warns(UserWarning, match="probability 0"), \
            pytest.raises(ValueError, match="no candidate has a finite mean test score"):
        search.fit(X)
    smoothed = OnlineLDA(n_topics=2, n_passes=3, random_state=0).fit(X[10:])
    assert np.isfinite(smoothed.score(X[:10]))  # the default topic-word prior
