"""Per-document topic masks (Labeled LDA, Papanikolaou et al. 2017 equation 5) in the CGS sweeps
(dense and SparseLDA), the CGS_p soft counts and the G-OEM local Gibbs E-step: kernels against
their NumPy twins, forbidden topics never assigned, masked conditionals equal to the unmasked
ones restricted to the mask and renormalised (exact and chi-square), and a mask allowing every
topic bit-identical to no mask."""

import naive
import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import digamma
from scipy.stats import chisquare

from streamtopics.errors import InputError
from streamtopics.inference import cgs
from streamtopics.inference.gibbs_estep import GibbsEstimator
from streamtopics.inference.minibatch import Minibatch
from streamtopics.inference.topic_mask import TopicMask, kernel_mask
from streamtopics.kernels import cgs as kernels
from streamtopics.kernels.local_gibbs import (RECORD_CONDITIONALS, RECORD_DENSE, AllowedTopics,
                                              PassPlan, Recording, StreamKey, gibbs_sweeps)

from test_gibbs_estep import new_chain, parameters

# Four documents of 4 topics: restricted, restricted to one topic, all topics listed, restricted.
MASK_LISTS = [[0, 2], [3], [0, 1, 2, 3], [1, 2, 3]]


def masked_state(seed=0, n_topics=4, n_words=6, lengths=(7, 4, 5, 9), mask_lists=MASK_LISTS):
    rng = np.random.default_rng(seed)
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    tokens = rng.integers(n_words, size=offsets[-1]).astype(np.int32)
    mask = TopicMask.from_lists(mask_lists, n_topics)
    return cgs.GibbsState.random(tokens, offsets, n_topics, n_words, seed=seed, mask=mask)


def copy_state(state):
    return cgs.GibbsState(state.tokens, state.offsets, state.assignments.copy(),
                          state.doc_topic_counts.copy(), state.word_topic_counts.copy(),
                          state.topic_counts.copy(), state.mask)


def forbidden_counts(state):
    return state.doc_topic_counts[~state.mask.indicator()]


# --- the mask container -------------------------------------------------------------------------
def test_mask_from_indicator_equals_from_lists_and_rejects_bad_rows():
    indicator = np.zeros((4, 4), dtype=bool)
    for d, row in enumerate(MASK_LISTS):
        indicator[d, row] = True
    a = TopicMask.from_indicator(sp.csr_matrix(indicator))
    b = TopicMask.from_lists([reversed(row) for row in MASK_LISTS], 4)
    np.testing.assert_array_equal(a.ptr, b.ptr)
    np.testing.assert_array_equal(a.topics, b.topics)
    np.testing.assert_array_equal(a.indicator(), indicator)
    np.testing.assert_array_equal(a.rows(1, 3).indicator(), indicator[1:3])
    with pytest.raises(InputError, match="document 1 has no allowed topic"):
        TopicMask.from_lists([[0], [], [1]], 4)
    with pytest.raises(InputError, match=r"\[0, 4\)"):
        TopicMask.from_lists([[0, 4]], 4)
    with pytest.raises(ValueError, match="3 documents x 4 topics"):
        kernel_mask(TopicMask.from_lists([[0], [1], [2]], 4), 4, 4)


# --- collapsed Gibbs sampling -------------------------------------------------------------------
def test_masked_dense_sweep_matches_twin_and_never_leaves_the_mask():
    state = masked_state(seed=1)
    assert forbidden_counts(state).sum() == 0  # the random start already honours the mask
    twin = copy_state(state)
    alpha, eta = np.array([0.1, 0.5, 0.2, 0.3]), 0.05
    documents = np.arange(4, dtype=np.int64)
    mask_ptr, mask_topics = kernel_mask(state.mask, 4, 4)
    for sweep in range(5):
        kernels.sweep_dense(state.tokens, state.offsets, documents, state.assignments,
                            state.counts, alpha, eta, 7, sweep, mask_ptr, mask_topics)
        naive.sweep_dense(twin.tokens, twin.offsets, documents, twin.assignments,
                          twin.doc_topic_counts, twin.word_topic_counts, twin.topic_counts,
                          alpha, eta, 7, sweep, mask=MASK_LISTS)
        np.testing.assert_array_equal(state.assignments, twin.assignments)
    np.testing.assert_array_equal(state.word_topic_counts, twin.word_topic_counts)
    assert forbidden_counts(state).sum() == 0


@pytest.mark.parametrize("sampler", ["sparse", "dense"])
def test_samplers_never_assign_a_forbidden_topic(sampler):
    rng = np.random.default_rng(5)
    n_docs, n_topics = 60, 12
    offsets = np.concatenate([[0], np.cumsum(rng.poisson(15, n_docs))]).astype(np.int64)
    tokens = rng.integers(40, size=offsets[-1]).astype(np.int32)
    lists = [rng.choice(n_topics, size=rng.integers(1, 5), replace=False) for _ in range(n_docs)]
    lists[0] = range(n_topics)  # an unrestricted document among them
    mask = TopicMask.from_lists(lists, n_topics)
    state = cgs.GibbsState.random(tokens, offsets, n_topics, 40, seed=3, mask=mask)
    for sweep in range(1, 30):
        state.sweep(np.full(n_topics, 0.3), 0.05, 3, sweep, sampler)
    assert forbidden_counts(state).sum() == 0
    assert state.doc_topic_counts[0].astype(bool).sum() > 1  # the free document uses many
    np.testing.assert_array_equal(state.word_topic_counts,
                                  cgs.GibbsState.from_assignments(tokens, offsets, state.assignments,
                                                                  n_topics, 40).word_topic_counts)


def test_sparse_and_dense_samplers_draw_the_same_restricted_samples():
    """A restricted document draws from equation 5 the same way in both samplers, so with every
    document restricted the chains are identical (the SparseLDA lists stay in step)."""
    mask_lists = [[0, 2], [3], [0, 1, 2], [1, 2, 3]]
    dense = masked_state(seed=2, mask_lists=mask_lists)
    sparse = copy_state(dense)
    alpha, eta = np.array([0.1, 0.5, 0.2, 0.3]), 0.05
    for sweep in range(1, 8):
        dense.sweep(alpha, eta, 9, sweep, "dense")
        sparse.sweep(alpha, eta, 9, sweep, "sparse")
        np.testing.assert_array_equal(dense.assignments, sparse.assignments)
    lists = kernels.build_word_topic_lists(sparse.word_topic_counts)
    start, size, topics = sparse._word_lists
    for w in range(sparse.n_words):
        assert sorted(topics[start[w]:start[w] + size[w]]) == sorted(
            lists[2][lists[0][w]:lists[0][w] + lists[1][w]])


@pytest.mark.parametrize("sampler", ["sparse", "dense"])
def test_masked_conditional_is_the_restricted_renormalised_one_chi_square(sampler):
    """Resampling one token (the only token of its document) 4000 times from the same state
    with independent streams: the frequencies match the exact conditional of unmasked LDA
    (ratio of collapsed joints) restricted to the document's mask and renormalised."""
    rng = np.random.default_rng(4)
    n_topics, n_words = 6, 5
    lengths = [8, 1, 6, 7]
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    tokens = rng.integers(n_words, size=offsets[-1]).astype(np.int32)
    lists = [[0, 1, 4], [1, 3, 4, 5], [2, 3], list(range(n_topics))]
    mask = TopicMask.from_lists(lists, n_topics)
    state = cgs.GibbsState.random(tokens, offsets, n_topics, n_words, seed=0, mask=mask)
    alpha, eta = rng.uniform(0.1, 1.0, n_topics), 0.2
    for sweep in range(1, 5):
        state.sweep(alpha, eta, 0, sweep, "dense")
    i = offsets[1]  # the single token of document 1
    exact = naive.token_conditional(tokens, offsets, state.assignments, n_topics, n_words,
                                    alpha, eta, i)
    allowed = np.array(lists[1])
    expected = exact[allowed] / exact[allowed].sum()
    draws = np.zeros(n_topics, dtype=np.int64)
    documents = np.array([1], dtype=np.int64)
    mask_arrays = kernel_mask(mask, 4, n_topics)
    for stream in range(4000):
        s = copy_state(state)
        if sampler == "dense":
            kernels.sweep_dense(s.tokens, s.offsets, documents, s.assignments, s.counts, alpha,
                                eta, 1, stream, *mask_arrays)
        else:
            kernels.sweep_sparse(s.tokens, s.offsets, documents, s.assignments, s.counts,
                                 kernels.build_word_topic_lists(s.word_topic_counts), alpha, eta,
                                 1, stream, *mask_arrays)
        draws[s.assignments[i]] += 1
    assert draws[np.setdiff1d(np.arange(n_topics), allowed)].sum() == 0
    assert chisquare(draws[allowed], 4000 * expected).pvalue > 1e-3


def test_masked_soft_counts_match_twin_and_stay_in_the_mask():
    """phi^p / theta^p soft counts (Algorithm 1) under equation 5: dense kernel, sparse kernel
    and the brute-force twin (restricted, renormalised collapsed-joint ratios) agree; no mass
    falls outside a document's mask."""
    state = masked_state(seed=3, n_words=5, lengths=(4, 3, 5, 4))
    alpha, eta = np.array([0.2, 0.7, 0.4, 0.3]), 0.3
    for sweep in range(1, 4):
        state.sweep(alpha, eta, 0, sweep)
    expected_doc, expected_word = naive.soft_counts_dense(
        state.tokens, state.offsets, state.assignments, 4, state.n_words, alpha, eta,
        mask=MASK_LISTS)
    doc_dense = np.zeros(state.doc_topic_counts.shape)
    word_dense = np.zeros(state.word_topic_counts.shape)
    kernels.soft_counts_dense(state.tokens, state.offsets, state.assignments, state.counts, alpha,
                              eta, doc_dense, word_dense, *kernel_mask(state.mask, 4, 4))
    doc_sparse, word_sparse = state.soft_counts(alpha, eta)
    for doc_soft, word_soft in ((doc_dense, word_dense), (doc_sparse, word_sparse)):
        np.testing.assert_allclose(doc_soft, expected_doc, rtol=1e-10, atol=1e-14)
        np.testing.assert_allclose(word_soft, expected_word, rtol=1e-10, atol=1e-14)
    assert np.all(doc_sparse[~state.mask.indicator()] == 0.0)
    _, theta = state.estimate(alpha, eta, "p")
    assert np.all(theta[~state.mask.indicator()] == 0.0)
    np.testing.assert_allclose(theta.sum(axis=1), 1.0)


@pytest.mark.parametrize("sampler", ["sparse", "dense"])
def test_a_mask_allowing_every_topic_is_bit_identical_to_no_mask(sampler):
    corpus_rng = np.random.default_rng(8)
    offsets = np.concatenate([[0], np.cumsum(corpus_rng.poisson(12, 40))]).astype(np.int64)
    tokens = corpus_rng.integers(30, size=offsets[-1]).astype(np.int32)
    full = TopicMask.from_lists([range(5)] * 40, 5)
    schedule = cgs.ChainSchedule(iterations=12, burn_in=5, lag=2, n_samples=3)
    plain = cgs.run_chain(tokens, offsets, 5, 30, 0.2, 0.05, schedule, sampler=sampler, seed=4)
    masked = cgs.run_chain(tokens, offsets, 5, 30, 0.2, 0.05, schedule, sampler=sampler, seed=4,
                           mask=full)
    np.testing.assert_array_equal(plain.state.assignments, masked.state.assignments)
    assert plain.log_likelihood == masked.log_likelihood
    # averaged without alignment (anchored topics) vs aligned: the same when nothing switched
    np.testing.assert_allclose(plain.phi, masked.phi, rtol=1e-15)


# --- the G-OEM local Gibbs E-step ---------------------------------------------------------------
def masked_minibatch(rng, n_docs, n_words, n_topics, mean_length=6):
    lengths = rng.poisson(mean_length, n_docs)
    lengths[1] = 0
    rows = [np.bincount(rng.integers(0, n_words, n), minlength=n_words) for n in lengths]
    lists = [rng.choice(n_topics, size=rng.integers(1, n_topics), replace=False)
             for _ in range(n_docs)]
    lists[2] = range(n_topics)
    return Minibatch.from_counts(sp.csr_matrix(np.array(rows)),
                                 topic_mask=TopicMask.from_lists(lists, n_topics)), lists


@pytest.mark.parametrize("mode", [RECORD_CONDITIONALS, RECORD_DENSE])
def test_masked_estep_kernel_matches_twin(mode):
    rng = np.random.default_rng(0)
    n_topics = 11
    batch, lists = masked_minibatch(rng, n_docs=6, n_words=9, n_topics=n_topics)
    weights = rng.random((batch.words.size, n_topics))
    alpha = rng.uniform(0.05, 1.0, n_topics)
    mask = batch.topic_mask
    indicator = mask.indicator()
    chain = new_chain(batch, n_topics)
    recording = Recording(np.zeros((batch.n_entries, n_topics)),
                          np.zeros((batch.n_documents, n_topics)))
    gibbs_sweeps(batch.layout, parameters(weights, alpha), StreamKey(7, 3, 0),
                 PassPlan(0, 8, 6, mode), chain, recording,
                 AllowedTopics(mask.ptr, mask.topics, digamma((alpha * indicator).sum(axis=1))))
    state = dict(token_topic=chain.token_topic, doc_topic_counts=chain.doc_topic_counts,
                 entry_topic=recording.entry_topic, doc_log_theta=recording.doc_log_theta)
    twin = naive.gibbs_sweeps(batch.doc_ptr, batch.entry_word, batch.entry_count, weights,
                                    alpha, 7, 3, 0, 8, 6, mask=[np.sort(r) for r in
                                                                map(np.array, map(list, lists))])
    np.testing.assert_array_equal(state["token_topic"], twin[0])
    np.testing.assert_array_equal(state["doc_topic_counts"], twin[1])
    np.testing.assert_allclose(state["entry_topic"], twin[2], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(state["doc_log_theta"], twin[3], rtol=1e-12, atol=1e-12)
    entry_doc = np.repeat(np.arange(batch.n_documents), np.diff(batch.doc_ptr))
    assert np.all(state["entry_topic"][~indicator[entry_doc]] == 0.0)
    np.testing.assert_allclose(state["entry_topic"].sum(axis=1), 2 * batch.entry_count)


def test_masked_estep_chi_square_and_pass_by_pass():
    """4000 one-token documents of one word, each with its own stream: after one pass each token
    is a draw from beta_wk alpha_k restricted to the mask and renormalised (chi-square); running
    the passes one call at a time (G-OEM++) gives the same chains as one call."""
    n_topics = 7
    allowed = [1, 2, 5]
    counts = np.ones((4000, 1), dtype=np.int64)
    batch = Minibatch.from_counts(sp.csr_matrix(counts),
                                  topic_mask=TopicMask.from_lists([allowed] * 4000, n_topics))
    weights = np.array([[0.05, 0.2, 0.1, 0.3, 0.05, 0.25, 0.05]])
    alpha = np.array([0.5, 0.1, 0.9, 0.3, 0.2, 0.4, 0.6])
    run = GibbsEstimator(passes=4).begin(batch, n_topics, seed=5, minibatch_index=0)
    run.advance(weights, alpha, 1)
    draws = np.bincount(run.token_topic, minlength=n_topics)
    expected = (weights[0] * alpha)[allowed]
    assert draws.sum() == draws[allowed].sum() == 4000
    assert chisquare(draws[allowed], 4000 * expected / expected.sum()).pvalue > 1e-3
    for _ in range(3):
        run.advance(weights, alpha, 1)
    whole = GibbsEstimator(passes=4).begin(batch, n_topics, seed=5, minibatch_index=0)
    whole.advance(weights, alpha, 4)
    np.testing.assert_array_equal(run.token_topic, whole.token_topic)
    np.testing.assert_allclose(run.entry_expectations(), whole.entry_expectations())
    theta = whole.doc_topic()
    assert np.all(theta[:, [0, 3, 4, 6]] == 0.0)
    np.testing.assert_allclose(theta.sum(axis=1), 1.0)
