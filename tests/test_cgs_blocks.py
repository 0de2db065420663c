"""AD-LDA, the opt-in approximate parallel sweeps of `GibbsLDA(parallel_blocks=B)`
(`kernels/cgs_blocks.py`): exact bookkeeping, the exact sweep for one block, the same model for
any thread count, and planted topics and held-out likelihood as the exact sampler's."""

import numba
import numpy as np
import pytest

from helpers import matched_tv, numba_threads
from streamtopics import generate_synthetic
from streamtopics.estimators.gibbs_lda import GibbsLDA
from streamtopics.inference import cgs
from streamtopics.kernels import cgs_blocks as kernels_blocks
from test_cgs import copy_state, planted, small  # noqa: F401 (fixtures)


@pytest.mark.parametrize("sampler", ["sparse", "dense"])
def test_block_sweeps_keep_counts_consistent_and_one_block_is_the_exact_sweep(sampler):
    """One block is the exact sweep (the dense sampler's chain throughout; the sparse one
    rebuilds its word lists each sweep, so only its first sweep, from fresh lists, is the same);
    four blocks move other tokens, and the merged counts are those of the assignments."""
    corpus, _ = generate_synthetic(n_topics=6, n_words=40, n_documents=30, seed=3)
    tokens, offsets = corpus.document_tokens()
    exact = cgs.GibbsState.random(tokens, offsets, 6, 40, seed=1)
    blocked, one_block = copy_state(exact), copy_state(exact)
    alpha = np.full(6, 0.1)
    for sweep in range(1, 4 if sampler == "dense" else 2):
        exact.sweep(alpha, 0.05, 1, sweep, sampler)
        kernels_blocks.sweep_blocks(tokens, offsets, np.array([0, 30]), one_block.assignments,
                                    one_block.counts, alpha, 0.05, 1, sweep,
                                    sampler == "sparse", *one_block._kernel_mask)
    np.testing.assert_array_equal(one_block.assignments, exact.assignments)
    np.testing.assert_array_equal(one_block.word_topic_counts, exact.word_topic_counts)
    for sweep in range(1, 4):
        blocked.sweep(alpha, 0.05, 1, sweep, sampler, blocks=4)
    assert not np.array_equal(blocked.assignments, exact.assignments)
    recount = cgs.GibbsState.from_assignments(tokens, offsets, blocked.assignments, 6, 40)
    np.testing.assert_array_equal(blocked.doc_topic_counts, recount.doc_topic_counts)
    np.testing.assert_array_equal(blocked.word_topic_counts, recount.word_topic_counts)
    np.testing.assert_array_equal(blocked.topic_counts, recount.topic_counts)


def test_block_bounds_cut_equal_tokens_whatever_the_threads():
    offsets = np.concatenate([[0], np.cumsum([5, 1, 1, 1, 40, 2, 2, 2, 2, 2])]).astype(np.int64)
    assert list(kernels_blocks.block_bounds(offsets, 2)) == [0, 5, 10]
    assert list(kernels_blocks.block_bounds(offsets, 3)) == [0, 5, 5, 10]  # one empty
    assert list(kernels_blocks.block_bounds(offsets, 1)) == [0, 10]


@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="needs two numba threads")
def test_parallel_blocks_give_the_same_model_for_one_and_two_threads(small):
    train, _ = small
    models = []
    for threads in (1, 2):
        with numba_threads(threads):
            models.append(GibbsLDA(3, n_passes=20, burn_in=10, n_samples=2, parallel_blocks=3,
                                   random_state=5).fit(train))
    np.testing.assert_array_equal(models[0].components_, models[1].components_)
    np.testing.assert_array_equal(models[0].topic_word_counts_, models[1].topic_word_counts_)


def test_parallel_blocks_recover_planted_topics_and_score_as_the_exact_sampler(planted):
    """AD-LDA with 4 blocks against the exact sampler on the same planted corpus (K = 5):
    planted topics within 0.06 mean total variation (exact: 0.032-0.033), and the held-out
    log-likelihood per token (left-to-right, 80 test documents) within 0.01 nats of the exact
    sampler's, median over 3 seeds each (one seed's spread is ~0.003; observed differences
    0.001-0.003 on such corpora)."""
    from streamtopics.evaluation.left_to_right import left_to_right
    corpus, truth = planted
    train, test = corpus.split(0.2, seed=0)
    scores = {}
    for blocks in (0, 4):
        for seed in range(3):
            model = GibbsLDA(5, n_passes=100, burn_in=50, lag=5, n_samples=5,
                             parallel_blocks=blocks, random_state=seed).fit(train)
            if blocks and seed == 0:
                assert matched_tv(model.components_, truth.beta).mean() < 0.06
            scores[blocks, seed] = left_to_right(model.components_, model.doc_topic_prior_, test,
                                                 n_particles=10, seed=0).log_likelihoods.sum()
    exact = np.median([scores[0, seed] for seed in range(3)]) / test.n_tokens
    blocked = np.median([scores[4, seed] for seed in range(3)]) / test.n_tokens
    assert abs(blocked - exact) < 0.01, (blocked, exact)
