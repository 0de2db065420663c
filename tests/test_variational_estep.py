"""The local variational E-step of V-OEM (equations 11-12, 14): digamma, kernel == NumPy twin,
the fixed-point identities, thread-count independence and pass-by-pass advancing."""

import naive
import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import digamma as scipy_digamma

from streamtopics.inference.variational_estep import VariationalEstimator
from streamtopics.inference.minibatch import Minibatch
from streamtopics.kernels.special import digamma
from streamtopics.kernels.variational_estep import variational_passes

from helpers import numba_threads, random_minibatch


def test_digamma_matches_scipy():
    x = np.concatenate([np.geomspace(1e-12, 1e8, 2000), np.arange(1, 30) + 0.0, [0.5, 9.999, 10.0]])
    ours = np.array([digamma(v) for v in x])
    np.testing.assert_allclose(ours, scipy_digamma(x), rtol=4e-15, atol=1e-15)


@pytest.mark.parametrize("n_topics", [1, 7])
def test_kernel_matches_numpy_twin(n_topics):
    rng = np.random.default_rng(n_topics)
    batch = random_minibatch(rng)
    weights = rng.random((batch.words.size, n_topics))
    alpha = rng.uniform(0.05, 1.0, n_topics)
    gamma = alpha + (batch.document_lengths / n_topics)[:, None]
    twin_gamma, twin_entry, twin_log_theta = naive.variational_passes(
        batch.doc_ptr, batch.entry_word, batch.entry_count, weights, alpha, 5, gamma)
    entry = np.zeros((batch.n_entries, n_topics))
    log_theta = np.zeros((batch.n_documents, n_topics))
    variational_passes(batch.doc_ptr, batch.entry_word, batch.entry_count, weights, alpha, 5,
                       gamma, entry, log_theta)
    np.testing.assert_allclose(gamma, twin_gamma, rtol=1e-12)
    np.testing.assert_allclose(entry, twin_entry, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(log_theta, twin_log_theta, rtol=1e-12, atol=1e-14)


def test_estimator_identities_and_pass_by_pass():
    """gamma = alpha + sum of the last zeta (12); zeta rows are distributions; s2 = (14);
    advancing one pass at a time with fixed parameters equals one call."""
    rng = np.random.default_rng(3)
    batch = random_minibatch(rng, n_docs=10, n_words=12)
    weights = rng.random((batch.words.size, 5))
    alpha = np.full(5, 0.2)
    estimator = VariationalEstimator(passes=20)
    run = estimator.begin(batch, 5)
    run.advance(weights, alpha, 20)
    np.testing.assert_allclose(run.doc_gamma, alpha + batch.document_totals(run.entry_topic), rtol=1e-12)
    np.testing.assert_allclose(run.entry_topic.sum(axis=1), batch.entry_count, rtol=1e-12)
    np.testing.assert_allclose(run.doc_log_theta, scipy_digamma(run.doc_gamma)
                               - scipy_digamma(run.doc_gamma.sum(axis=1, keepdims=True)), rtol=1e-13)
    stepped = estimator.begin(batch, 5)
    for _ in range(20):
        stepped.advance(weights, alpha, 1)
    np.testing.assert_array_equal(stepped.doc_gamma, run.doc_gamma)
    np.testing.assert_allclose(stepped.doc_topic().sum(axis=1), 1.0)
    stats = run.statistics()
    np.testing.assert_allclose(stats.word_topic.sum(), batch.n_tokens)


def test_tiny_alpha_does_not_underflow():
    batch = Minibatch.from_counts(sp.csr_matrix(np.array([[2, 1, 0], [0, 0, 5]])))
    run = VariationalEstimator(passes=10).begin(batch, 3)
    run.advance(np.array([[0.9, 0.05, 0.05], [0.1, 0.8, 0.1], [0.3, 0.3, 0.4]]), np.full(3, 1e-6), 10)
    assert np.all(np.isfinite(run.doc_log_theta)) and np.all(np.isfinite(run.entry_topic))
    np.testing.assert_allclose(run.entry_topic.sum(axis=1), batch.entry_count)


def test_same_result_for_one_and_two_threads():
    rng = np.random.default_rng(4)
    batch = random_minibatch(rng, n_docs=50, n_words=40, mean_length=30)
    weights = rng.random((batch.words.size, 16))
    alpha = np.full(16, 0.1)
    results = []
    for threads in (1, 2):
        with numba_threads(threads):
            run = VariationalEstimator(passes=5).begin(batch, 16)
            run.advance(weights, alpha, 5)
            results.append((run.doc_gamma, run.entry_topic))
    for a, b in zip(*results):
        np.testing.assert_array_equal(a, b)


def test_word_statistics_are_the_entry_sums_bit_for_bit():
    """`kernels.variational_estep.entry_topic_sums` sums the factored expectations word by word:
    the same numbers as the entries x K array summed in entry order (for 1 and 2 threads of
    the passes)."""
    rng = np.random.default_rng(4)
    batch = random_minibatch(rng, n_docs=20, n_words=25, mean_length=30)
    for threads in (1, 2):
        with numba_threads(threads):
            run = VariationalEstimator(passes=3).begin(batch, 6)
            run.advance(rng.random((batch.words.size, 6)), rng.uniform(0.05, 1.0, 6), 3)
            np.testing.assert_array_equal(run.statistics().word_topic,
                                          batch.word_totals(run.entry_topic))


def test_word_statistics_blend_as_the_rows_do_bit_for_bit():
    """A boosted pass's `VariationalRun.word_statistics` (rows summed as they are blended,
    `kernels.variational_estep.blend_entry_topic_sums`) blends exactly as `statistics`' rows
    through `kernels.statistics.blend_rows`, in place and from other rows, and reads the same
    rows; s2 is left out (NaN)."""
    rng = np.random.default_rng(9)
    batch = random_minibatch(rng, n_docs=20, n_words=25, mean_length=30)
    run = VariationalEstimator(passes=3).begin(batch, 6)
    run.advance(rng.random((batch.words.size, 6)), rng.uniform(0.05, 1.0, 6), 2)
    plain, factored = run.statistics(), run.word_statistics()
    rows = rng.permutation(batch.words.size + 4)[:batch.words.size]
    source = rng.random((batch.words.size + 4, 6))
    for in_place in (False, True):
        outputs = []
        for statistics in (plain, run.word_statistics()):
            raw = source.copy()
            column_sums = np.empty(6)
            statistics.blend_rows(raw, raw if in_place else source, rows, 0.37, column_sums)
            outputs.append((raw, column_sums))
        np.testing.assert_array_equal(outputs[0][0], outputs[1][0])
        np.testing.assert_array_equal(outputs[0][1], outputs[1][1])
    np.testing.assert_array_equal(factored.word_topic, plain.word_topic)
    assert np.isnan(factored.log_theta).all() and np.isfinite(plain.log_theta).all()
