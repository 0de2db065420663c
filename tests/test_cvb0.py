"""CVB0 (Asuncion et al. 2009; Papanikolaou et al. 2017 eq. 6): kernels against NumPy twins, the
fixed point, planted-topic recovery and the `CVB0LDA` estimator API."""

import numpy as np
import pytest

import naive
from helpers import matched_tv
from streamtopics import generate_synthetic
from streamtopics.estimators.cvb0_lda import CVB0LDA
from streamtopics.inference.cvb0 import _bag_of_words, fit_cvb0
from streamtopics.kernels import cvb0 as kernels


@pytest.fixture(scope="module")
def tiny():
    corpus, truth = generate_synthetic(n_topics=3, n_words=12, n_documents=8, mean_length=15,
                                       seed=6)
    return corpus, truth


def test_sweep_matches_naive_twin(tiny):
    corpus, _ = tiny
    doc_offsets, words, counts = _bag_of_words(corpus.counts)
    alpha, eta = np.array([0.1, 0.4, 0.2]), 0.05
    gamma = np.empty((words.size, 3))
    doc_topic, word_topic, topic = kernels.cvb0_initialize(doc_offsets, words, counts, 12, 3, 0,
                                                           gamma)
    np.testing.assert_allclose(gamma.sum(axis=1), 1.0)
    np.testing.assert_allclose(doc_topic.sum(axis=1), np.asarray(corpus.counts.sum(axis=1)).ravel())
    twin = [a.copy() for a in (gamma, doc_topic, word_topic, topic)]
    for _ in range(4):
        change = kernels.cvb0_sweep(doc_offsets, words, counts, gamma, doc_topic, word_topic,
                                    topic, alpha, eta)
        twin_change = naive.cvb0_sweep(doc_offsets, words, counts, *twin, alpha, eta)
        assert change == pytest.approx(twin_change, rel=1e-9)
    for array, expected in zip((gamma, doc_topic, word_topic, topic), twin):
        np.testing.assert_allclose(array, expected, rtol=1e-9, atol=1e-12)


def test_predict_matches_naive_twin(tiny):
    corpus, truth = tiny
    doc_offsets, words, counts = _bag_of_words(corpus.counts)
    out = np.zeros((corpus.n_documents, 3))
    phi_word = np.ascontiguousarray(truth.beta.T)
    kernels.cvb0_predict(doc_offsets, words, counts, phi_word, truth.alpha, 7, out)
    expected = naive.cvb0_predict(doc_offsets, words, counts, phi_word, truth.alpha, 7)
    np.testing.assert_allclose(out, expected, rtol=1e-9, atol=1e-12)


def test_converges_to_a_fixed_point_of_equation_6(tiny):
    corpus, _ = tiny
    result = fit_cvb0(corpus.counts, 3, 0.1, 0.05, iterations=500, tolerance=1e-10, seed=1)
    assert result.changes[-1] < 1e-10 < result.changes[0]
    assert len(result.changes) < 500
    np.testing.assert_allclose(result.word_topic.sum(), corpus.n_tokens)


def test_recovers_planted_topics():
    """K=5, V=200, 400 documents: mean total variation after matching below 0.06 (observed
    0.033)."""
    corpus, truth = generate_synthetic(n_topics=5, n_words=200, n_documents=400, alpha=0.1,
                                       topic_concentration=0.05, seed=11)
    model = CVB0LDA(5, n_passes=60, random_state=0).fit(corpus)
    assert matched_tv(model.components_, truth.beta).mean() < 0.06


def test_estimator_api(tiny, tmp_path):
    corpus, _ = tiny
    model = CVB0LDA(3, n_passes=20, random_state=2).fit(corpus)
    again = CVB0LDA(3, n_passes=20, random_state=2).fit(corpus)
    np.testing.assert_array_equal(model.components_, again.components_)
    before = model.components_.copy()
    theta = model.transform(corpus)
    np.testing.assert_allclose(theta.sum(axis=1), 1.0)
    np.testing.assert_array_equal(model.components_, before)
    model.save(tmp_path / "cvb0.npz")
    loaded = CVB0LDA.load(tmp_path / "cvb0.npz")
    np.testing.assert_array_equal(loaded.transform(corpus), theta)
    assert loaded.n_iter_ == 20
    with pytest.raises(ValueError):
        CVB0LDA(3, n_passes=0).fit(corpus)
