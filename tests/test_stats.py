"""Sufficient statistics (equation 6): exact merge, the blend of equation 3 with its lazy scale,
undo for boosted steps, the lazy Polyak-Ruppert average, and step sizes."""

import numpy as np
import pytest
import scipy.sparse as sp

from streamtopics.inference.gibbs_estep import GibbsEstimator
from streamtopics.inference.variational_estep import VariationalEstimator
from streamtopics.inference.global_parameters import PointEstimate
from streamtopics.inference.minibatch import Minibatch
from streamtopics.inference.step_sizes import Incremental, PolynomialDecay
from streamtopics.inference.stats import IterateAverage, MinibatchStats, SufficientStats
from streamtopics.kernels.statistics import merge_sorted_rows

import naive


def random_counts(rng, n_docs, n_words, mean_length=10):
    return sp.csr_matrix(np.array([np.bincount(rng.integers(0, n_words, rng.poisson(mean_length)),
                                               minlength=n_words) for _ in range(n_docs)]))


@pytest.mark.parametrize("estimator", [GibbsEstimator(passes=8), VariationalEstimator(passes=8)])
def test_merge_of_split_minibatch_equals_unsplit(estimator):
    rng = np.random.default_rng(0)
    counts = random_counts(rng, 9, 25)
    beta = rng.dirichlet(np.ones(25), size=4)
    alpha = np.full(4, 0.2)

    def statistics(rows, first):
        batch = Minibatch.from_counts(counts[rows], first_document=first)
        run = estimator.begin(batch, 4, seed=3, minibatch_index=5)
        run.advance(beta[:, batch.words].T, alpha, estimator.passes)
        return run.statistics()

    whole = statistics(slice(0, 9), 0)
    merged = statistics(slice(0, 4), 0).merge(statistics(slice(4, 9), 4))
    np.testing.assert_array_equal(merged.words, whole.words)
    np.testing.assert_allclose(merged.word_topic, whole.word_topic, rtol=1e-13)
    np.testing.assert_allclose(merged.log_theta, whole.log_theta, rtol=1e-13)
    assert merged.n_documents == whole.n_documents == 9
    np.testing.assert_allclose(merged.topic_word().sum(axis=0), np.asarray(counts.sum(axis=0)).ravel())


def minibatch_stats(rng, n_words, n_topics, n_docs=3):
    words = np.sort(rng.choice(n_words, size=rng.integers(1, n_words), replace=False))
    return MinibatchStats(words, rng.random((words.size, n_topics)) * 5,
                          -rng.random(n_topics) * 3 * n_docs, n_docs, n_words)


def test_blend_is_equation_3_with_a_lazy_scale():
    rng = np.random.default_rng(1)
    n_words, n_topics = 12, 3
    stats = SufficientStats.from_parameters(rng.dirichlet(np.ones(n_words), n_topics), np.ones(n_topics), 7.0)
    dense_s1, dense_s2 = stats.topic_word().copy(), stats.log_theta.copy()
    schedule = PolynomialDecay(offset=0.0, decay=0.5)
    for step in range(1, 40):
        minibatch = minibatch_stats(rng, n_words, n_topics)
        rho = schedule(step)
        mean = minibatch.topic_word() / minibatch.n_documents
        dense_s1 = (1 - rho) * dense_s1 + rho * mean
        dense_s2 = (1 - rho) * dense_s2 + rho * minibatch.log_theta / minibatch.n_documents
        stats.blend(rho, minibatch)
        np.testing.assert_allclose(stats.topic_word(), dense_s1, rtol=1e-10, atol=1e-14)
        np.testing.assert_allclose(stats.log_theta, dense_s2, rtol=1e-12)
        np.testing.assert_allclose(stats.topic_totals, dense_s1.sum(axis=1), rtol=1e-10)
    assert stats.scale < 1e-5  # the lazy scale is in use
    before = stats.topic_word()
    stats.compact()
    assert stats.scale == 1.0
    np.testing.assert_allclose(stats.topic_word(), before, rtol=1e-14)
    beta = PointEstimate().components(stats)
    np.testing.assert_allclose(beta, dense_s1 / dense_s1.sum(axis=1, keepdims=True), rtol=1e-10)


def test_checkpoint_restore_undoes_blends_of_its_words():
    rng = np.random.default_rng(2)
    stats = SufficientStats(rng.random((10, 2)), -rng.random(2))
    minibatch = minibatch_stats(rng, 10, 2)
    reference = stats.copy()
    reference.blend(0.3, minibatch)
    checkpoint = stats.checkpoint(minibatch.words)
    for _ in range(3):
        stats.restore(checkpoint)
        stats.blend(0.3, MinibatchStats(minibatch.words, rng.random((minibatch.words.size, 2)),
                                        -rng.random(2), 3, 10))
    stats.restore(checkpoint)
    stats.blend(0.3, minibatch)
    np.testing.assert_array_equal(stats.topic_word(), reference.topic_word())
    np.testing.assert_array_equal(stats.log_theta, reference.log_theta)
    assert stats.n_documents == reference.n_documents


@pytest.mark.parametrize("rho", [0.3, 1.0])
def test_blending_the_word_rows_is_blending_the_whole(rho):
    """A boosted step's passes on `WordRows` (a copy per pass, the last one taken back) leave
    the statistics bit-identical to restoring and blending the whole, with rho = 1 (which
    clears every other row) too; and the word weights agree."""
    rng = np.random.default_rng(5)
    stats = SufficientStats(rng.random((12, 3)), -rng.random(3), scale=0.7, n_documents=4.0)
    minibatch = minibatch_stats(rng, 12, 3)
    reference = stats.copy()
    reference.blend(rho, minibatch)
    start = stats.word_rows(minibatch.words)
    for _ in range(3):
        current = start.copy()
        current.blend(rho, MinibatchStats(minibatch.words, rng.random((minibatch.words.size, 3)),
                                          -rng.random(3), 3, 12))
    current = start.copy()
    current.blend(rho, minibatch)
    stats.set_word_rows(current)
    np.testing.assert_array_equal(stats.raw, reference.raw)
    np.testing.assert_array_equal(stats.topic_totals, reference.topic_totals)
    np.testing.assert_array_equal(stats.log_theta, reference.log_theta)
    assert (stats.scale, stats.n_documents) == (reference.scale, reference.n_documents)
    point = PointEstimate(0.1)
    np.testing.assert_array_equal(point.word_weights(current, current.local),
                                  point.word_weights(reference, minibatch.words))
    with pytest.raises(ValueError, match="another minibatch"):
        current.blend(rho, minibatch_stats(np.random.default_rng(0), 12, 3))


def test_lazy_average_equals_the_dense_average_of_iterates():
    rng = np.random.default_rng(3)
    n_words, n_topics = 15, 4
    parameters = PointEstimate()
    stats = SufficientStats.from_parameters(rng.dirichlet(np.ones(n_words), n_topics), np.ones(n_topics), 5.0)
    average = IterateAverage(n_words, n_topics)
    iterates = []
    for step in range(1, 60):
        minibatch = minibatch_stats(rng, n_words, n_topics)
        rho = 1.0 if step in (1, 30) else 0.9 / step**0.3
        average.settle(stats, None if rho >= 1 else minibatch.words)
        stats.blend(rho, minibatch)
        if step % 17 == 0:  # compaction mid-run must not disturb the average
            average.settle(stats)
            stats.compact()
        alpha = rng.random(n_topics)
        average.record(*parameters.row_affine(stats), alpha)
        iterates.append((parameters.components(stats), alpha))
    np.testing.assert_allclose(average.topic_word(stats), np.mean([b for b, _ in iterates], axis=0), rtol=1e-10)
    np.testing.assert_allclose(average.alpha(), np.mean([a for _, a in iterates], axis=0), rtol=1e-12)
    words = np.array([0, 7, 14])
    np.testing.assert_allclose(average.topic_word(stats, words), average.topic_word(stats)[:, words])


def test_step_sizes():
    assert PolynomialDecay()(1) == 1.0
    assert PolynomialDecay(offset=3.0, decay=0.7)(2) == pytest.approx(5.0 ** -0.7)
    for bad in ({"decay": 0.0}, {"decay": 1.5}, {"offset": -1.0}):
        with pytest.raises(ValueError):
            PolynomialDecay(**bad)
    # Incremental: s is the plain average of every document's statistics, short last batch too
    rng = np.random.default_rng(4)
    stats = SufficientStats(np.ones((6, 2)), np.zeros(2))
    schedule, seen, total = Incremental(), 0, np.zeros((2, 6))
    for step, size in enumerate([3, 3, 3, 1], start=1):
        minibatch = MinibatchStats(np.arange(6), rng.random((6, 2)) * size, np.zeros(2), size, 6)
        stats.blend(schedule(step, size, seen), minibatch)
        seen += size
        total += minibatch.topic_word()
    np.testing.assert_allclose(stats.topic_word(), total / seen, rtol=1e-12)


@pytest.mark.parametrize("case", ["overlapping", "disjoint", "same", "one empty"])
def test_merge_kernel_equals_its_numpy_twin_bit_for_bit(case):
    rng = np.random.default_rng(3)
    words_a = np.sort(rng.choice(40, 15, replace=False)).astype(np.int64)
    words_b = {"overlapping": np.sort(rng.choice(40, 12, replace=False)),
               "disjoint": np.setdiff1d(np.arange(40), words_a)[:10],
               "same": words_a.copy(),
               "one empty": np.zeros(0)}[case].astype(np.int64)
    rows_a = rng.gamma(0.5, size=(words_a.size, 4))
    rows_b = rng.gamma(0.5, size=(words_b.size, 4))
    words, rows = merge_sorted_rows(words_a, rows_a, words_b, rows_b)
    expected_words, expected_rows = naive.merge_sorted_rows(words_a, rows_a, words_b, rows_b)
    np.testing.assert_array_equal(words, expected_words)
    np.testing.assert_array_equal(rows, expected_rows)

