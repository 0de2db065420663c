"""UMass, NPMI and c_v coherence on a reference corpus, topic diversity; top-words tables."""

import numpy as np
import pytest

from streamtopics import Corpus, InputError, generate_synthetic
from streamtopics.evaluation import (cv_coherence, npmi_coherence, top_word_ids,
                                     top_words_table, topic_diversity, umass_coherence)


def small_reference():
    # V = 4; document frequencies D(0)=3, D(1)=2, D(2)=1, D(3)=0; D(0,1)=2, D(0,2)=D(1,2)=0
    return Corpus.from_token_lists([[0, 1, 1], [0, 1], [0], [2, 2]], ["a", "b", "c", "d"])


def test_umass_and_npmi_by_hand():
    reference = small_reference()
    beta = np.array([[0.5, 0.3, 0.2, 0.0]])  # top words in order: 0, 1, 2
    log = np.log
    umass = (log((2 + 1) / 3)                           # (v2=1 | v1=0)
             + log((0 + 1) / 3) + log((0 + 1) / 2))     # (v3=2 | 0), (v3=2 | 1)
    assert umass_coherence(beta, reference, 3)[0] == pytest.approx(umass)
    p0, p1, p01 = 3 / 4, 2 / 4, 2 / 4
    npmi_01 = log(p01 / (p0 * p1)) / -log(p01)
    assert npmi_coherence(beta, reference, 3)[0] == pytest.approx((npmi_01 - 1 - 1) / 3)
    # a word absent from the reference corpus: its UMass pairs are undefined and left out
    absent_first = np.array([[0.1, 0.2, 0.0, 0.7]])  # top words 3, 1
    assert umass_coherence(absent_first, reference, 2)[0] == 0.0
    assert npmi_coherence(absent_first, reference, 2)[0] == -1.0


def test_planted_topics_are_more_coherent_than_shuffled_ones():
    corpus, truth = generate_synthetic(6, 200, 400, mean_length=40, alpha=0.1,
                                       topic_concentration=0.05, seed=3)
    shuffled = np.random.default_rng(0).permuted(truth.beta, axis=1)
    for score in (umass_coherence, npmi_coherence):
        assert score(truth.beta, corpus).mean() > score(shuffled, corpus).mean() + 0.05


def test_top_words_table_and_ties():
    beta = np.array([[0.25, 0.25, 0.5], [0.1, 0.6, 0.3]])
    assert top_word_ids(beta, 3).tolist() == [[2, 0, 1], [1, 2, 0]]
    table = top_words_table(beta, ["x", "y", "z"], 2, scores=[0.5, -0.25], score_name="npmi")
    lines = table.splitlines()
    assert lines[0].split() == ["topic", "npmi", "top", "words"]
    assert lines[1].split() == ["0", "0.5000", "z", "x"]
    assert lines[2].split() == ["1", "-0.2500", "y", "z"]
    with pytest.raises(InputError, match="vocabulary"):
        top_words_table(beta, ["x"], 2)
    with pytest.raises(InputError, match="top words"):
        top_word_ids(beta, 4)
    with pytest.raises(InputError, match="share one vocabulary"):
        umass_coherence(np.ones((1, 3)) / 3, small_reference())


def enumerated_cv(beta, documents, n_top, window):
    """c_v from its definition: every window as a set of words, probabilities by counting sets."""
    windows = []
    for document in documents:
        starts = range(max(1, len(document) - window + 1))
        windows += [set(document[start:start + window]) for start in starts]
    def share(*words):
        return sum(all(w in found for w in words) for found in windows) / len(windows)
    scores = []
    for ids in top_word_ids(beta, n_top):
        vectors = np.zeros((n_top, n_top))
        for i, u in enumerate(ids):
            for j, v in enumerate(ids):
                if share(u) > 0 and share(v) > 0:
                    joint = share(u, v) + 1e-12
                    vectors[i, j] = np.log(joint / (share(u) * share(v))) / -np.log(joint)
        whole = vectors.sum(axis=0)
        scores.append(np.mean([row @ whole / (np.linalg.norm(row) * np.linalg.norm(whole))
                               if row.any() else 0.0 for row in vectors]))
    return np.array(scores)


def random_documents(seed, n_words, max_length, repeats=True):
    rng = np.random.default_rng(seed)
    if repeats:
        return [rng.integers(0, n_words, rng.integers(0, max_length)).tolist() for _ in range(30)]
    return [rng.permutation(n_words)[:rng.integers(1, max_length)].tolist() for _ in range(30)]


@pytest.mark.parametrize("window", [1, 3, 5, 20])
def test_cv_equals_its_enumeration_over_windows(window):
    documents = random_documents(1, 12, 15)  # repeated words, an empty document or two
    beta = np.random.default_rng(2).dirichlet(np.full(12, 0.3), size=4)
    reference = Corpus.from_token_lists(documents, n_words=12)
    np.testing.assert_allclose(cv_coherence(beta, reference, 5, window=window),
                               enumerated_cv(beta, documents, 5, window), atol=1e-12)


def test_cv_without_token_order_uses_documents_as_windows():
    documents = random_documents(3, 10, 30)
    beta = np.random.default_rng(4).dirichlet(np.full(10, 0.3), size=3)
    bag = Corpus.from_token_lists(documents, n_words=10).counts
    np.testing.assert_allclose(cv_coherence(beta, bag, 4, window=5),
                               enumerated_cv(beta, documents, 4, window=10 ** 6), atol=1e-12)


def test_cv_of_a_word_absent_from_the_reference_confirms_nothing():
    beta = np.array([[0.1, 0.2, 0.0, 0.7]])  # top words 3 (absent), 1, 0
    scores = cv_coherence(beta, small_reference(), 3)
    assert np.isfinite(scores).all()
    assert scores[0] == pytest.approx(enumerated_cv(beta, [[0, 1, 1], [0, 1], [0], [2, 2]], 3,
                                                    110)[0])
    nothing_occurs = Corpus.from_token_lists([[0, 1], [1]], n_words=4)
    assert cv_coherence(np.array([[0.0, 0.0, 0.5, 0.5]]), nothing_occurs, 2).tolist() == [0.0]


def test_cv_agrees_with_gensim_where_windows_hold_no_repeated_word():
    gensim = pytest.importorskip("gensim")
    documents = random_documents(5, 12, 10, repeats=False)
    beta = np.random.default_rng(6).dirichlet(np.full(12, 0.3), size=4)
    reference = Corpus.from_token_lists(documents, n_words=12)
    dictionary = gensim.corpora.Dictionary([[f"w{v}" for v in range(12)]])
    topics = [[f"w{v}" for v in ids] for ids in top_word_ids(beta, 5)]
    for window in (3, 110):
        theirs = gensim.models.CoherenceModel(
            topics=topics, texts=[[f"w{v}" for v in d] for d in documents],
            dictionary=dictionary, coherence="c_v", window_size=window, processes=1)
        np.testing.assert_allclose(cv_coherence(beta, reference, 5, window=window),
                                   theirs.get_coherence_per_topic(), atol=1e-12)


def test_planted_topics_have_higher_cv_than_shuffled_ones():
    corpus, truth = generate_synthetic(6, 200, 400, mean_length=40, alpha=0.1,
                                       topic_concentration=0.05, seed=3)
    shuffled = np.random.default_rng(0).permuted(truth.beta, axis=1)
    assert cv_coherence(truth.beta, corpus).mean() > cv_coherence(shuffled, corpus).mean() + 0.1


def test_topic_diversity_by_hand():
    beta = np.array([[0.5, 0.3, 0.2, 0.0, 0.0],    # top 2: 0, 1
                     [0.4, 0.0, 0.0, 0.35, 0.25],  # top 2: 0, 3
                     [0.0, 0.0, 0.1, 0.2, 0.7]])   # top 2: 4, 3
    diversity, exclusive = topic_diversity(beta, 2)
    assert diversity == pytest.approx(4 / 6)  # words 0, 1, 3, 4 among 6 top words
    np.testing.assert_allclose(exclusive, [0.5, 0.0, 0.5])
    assert topic_diversity(np.tile(beta[:1], (3, 1)), 3)[0] == pytest.approx(1 / 3)
