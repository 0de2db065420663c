"""The sparse local Gibbs E-step (kernels.local_gibbs.sparse): its two-bucket draw follows
equation 5 exactly (chi-square), its chain's samples follow the exact posterior p(z | X) of a
tiny model (chi-square against enumeration, next to the dense kernel), its recorded
conditionals and s2 terms equal the dense formulas given the chain's state, masked documents
take the dense path unchanged, and the automatic choice is a function of K only. Expectations
against exact enumeration and thread independence: test_gibbs_estep.py (both kernels)."""

import itertools

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import digamma, gammaln
from scipy.stats import chisquare

from streamtopics.corpus.synthetic import generate_synthetic
from streamtopics.estimators import OnlineLDA
from streamtopics.inference.gibbs_estep import GibbsEstimator
from streamtopics.inference.minibatch import Minibatch
from streamtopics.inference.topic_mask import TopicMask, kernel_mask
from streamtopics.kernels.local_gibbs import (DENSE, MH, RECORD_SAMPLE, SPARSE, AllowedTopics,
                                              PassPlan, Recording, Sampler, StreamKey,
                                              gibbs_sweeps)
from streamtopics.kernels.local_gibbs.sparse import sample_two_buckets, search_cumulative
from streamtopics.kernels.statistics import add_scaled_rows

from helpers import random_minibatch
from test_gibbs_estep import KERNELS, new_chain, parameters, run_kernel


def draw(weights, counts, alpha, uniforms):
    """Topics drawn by the two-bucket sampler for one word (``weights``: beta_wk) in a document
    with topic counts ``counts``."""
    present = np.flatnonzero(counts > 0)
    smoothing = np.cumsum(weights * alpha).reshape(1, -1)
    prefix = np.empty(alpha.size)
    topics = []
    for u in uniforms:
        p = sample_two_buckets(weights, present, counts[present], present.size, prefix,
                               smoothing, 0, u)
        topics.append(present[p] if p >= 0 else -1 - p)
    return np.array(topics)


@pytest.mark.parametrize("n_topics", [1, 7, 40])
def test_two_bucket_draw_follows_the_conditional(n_topics):
    """Chi-square of 40,000 draws against beta_wk (n_dk + alpha_k) / Z (equation 5), with zero
    weights and absent topics; a zero-probability topic is never drawn, not even at u = 0 or
    u -> 1."""
    rng = np.random.default_rng(n_topics)
    weights = rng.random(n_topics) * (rng.random(n_topics) < 0.8)
    weights[rng.integers(n_topics)] += 0.2
    counts = (rng.integers(0, 4, n_topics) * (rng.random(n_topics) < 0.5)).astype(float)
    alpha = rng.uniform(0.01, 0.5, n_topics)
    uniforms = np.concatenate([[0.0, 1.0 - 2.0**-53], rng.random(40000)])
    topics = draw(weights, counts, alpha, uniforms)
    expected = weights * (counts + alpha) / np.sum(weights * (counts + alpha))
    assert np.all(expected[topics] > 0)
    observed = np.bincount(topics[2:], minlength=n_topics)
    support = expected > 0
    if support.sum() > 1:
        assert chisquare(observed[support], 40000 * expected[support]).pvalue > 1e-3


def test_cumulative_search_rounding_falls_back_to_the_last_positive_topic():
    table = np.cumsum([[0.0, 0.5, 0.0, 0.25, 0.0, 0.0]], axis=1)
    assert [search_cumulative(table, 0, t) for t in (0.0, 0.49, 0.5, 0.74)] == [1, 1, 3, 3]
    assert search_cumulative(table, 0, 0.75) == 3 and search_cumulative(table, 0, 2.0) == 3


def exact_posterior(beta, alpha, words):
    """p(z | X, beta, alpha) of one document over all K^N assignments (Dirichlet-multinomial
    p(z | alpha) in closed form), in itertools.product order."""
    n_topics = alpha.size
    log_p = []
    for z in itertools.product(range(n_topics), repeat=len(words)):
        counts = np.bincount(z, minlength=n_topics)
        log_p.append(np.log(beta[list(z), words]).sum() + gammaln(alpha + counts).sum())
    p = np.exp(np.array(log_p) - max(log_p))
    return p / p.sum()


@pytest.mark.parametrize("sampler", KERNELS)
def test_chain_samples_follow_the_exact_posterior(sampler):
    """4,000 independent chains on one 4-token document (K = 3, 81 assignments): the sample after
    P = 12 passes is distributed as p(z | X) (chi-square, cells of expected count < 5 pooled)."""
    beta = np.array([[0.5, 0.3, 0.1, 0.1], [0.1, 0.2, 0.3, 0.4], [0.25, 0.25, 0.25, 0.25]])
    alpha = np.array([0.2, 0.5, 0.9])
    copies = 4000
    batch = Minibatch.from_counts(sp.csr_matrix(np.tile([2, 0, 1, 1], (copies, 1))))
    words = np.repeat(batch.words[batch.entry_word[:3]], batch.entry_count[:3])
    state = run_kernel(batch, np.ascontiguousarray(beta[:, batch.words].T), alpha, passes=12,
                       record_from=11, seed=3, sampler=KERNELS[sampler])
    codes = state["token_topic"].reshape(copies, 4) @ (3 ** np.arange(3, -1, -1))
    observed = np.bincount(codes, minlength=81)
    expected = copies * exact_posterior(beta, alpha, words)
    small = expected < 5
    observed = np.append(observed[~small], observed[small].sum())
    expected = np.append(expected[~small], expected[small].sum())
    assert chisquare(observed, expected).pvalue > 1e-3


@pytest.mark.parametrize("n_topics", [5, 40])
def test_recorded_pass_equals_the_dense_formulas_at_the_chain_state(n_topics, mh_cycles=0):
    """One recorded pass adds, per token, p(z_n = k | z_-n) = beta_wk (n_dk - [z_n = k] +
    alpha_k) / Z_n at the final sample (Algorithm 2, final loop), and digamma(alpha_k + n_dk) -
    digamma(sum alpha + N_d) to s2 (appendix A.3): computed here densely from the returned
    state. RECORD_SAMPLE adds the sample itself. ``mh_cycles``: the same for the MH chain
    (test_gibbs_estep_mh.py)."""
    rng = np.random.default_rng(n_topics)
    batch = random_minibatch(rng, n_docs=12, n_words=25, mean_length=30)
    weights = rng.random((batch.words.size, n_topics)) * (rng.random((batch.words.size, n_topics)) < 0.7)
    weights[:, 0] += 0.01
    alpha = rng.uniform(0.02, 0.4, n_topics)
    sampler = Sampler(MH, mh_cycles) if mh_cycles else Sampler(SPARSE)
    state = run_kernel(batch, weights, alpha, passes=5, record_from=4, sampler=sampler)
    token_entry = np.repeat(np.arange(batch.n_entries), batch.entry_count)
    token_doc = np.repeat(np.arange(batch.n_documents), np.diff(batch.token_ptr))
    counts = state["doc_topic_counts"]
    expected = np.zeros((batch.n_entries, n_topics))
    for n, (j, d) in enumerate(zip(token_entry, token_doc)):
        conditional = weights[batch.entry_word[j]] * (counts[d] - np.eye(n_topics)[state["token_topic"][n]] + alpha)
        expected[j] += conditional / conditional.sum()
    np.testing.assert_allclose(state["entry_topic"], expected, rtol=1e-10, atol=1e-13)
    lengths = np.diff(batch.token_ptr)[:, None]
    np.testing.assert_allclose(state["doc_log_theta"],
                               digamma(alpha + counts) - digamma(alpha.sum() + lengths), rtol=1e-10)
    sample = run_kernel(batch, weights, alpha, passes=5, record_from=4, mode=RECORD_SAMPLE,
                        sampler=sampler)
    np.testing.assert_array_equal(sample["token_topic"], state["token_topic"])
    hard = np.zeros((batch.n_entries, n_topics))
    np.add.at(hard, (token_entry, state["token_topic"]), 1.0)
    np.testing.assert_array_equal(sample["entry_topic"], hard)


def test_masked_documents_run_the_dense_restricted_path():
    """Every document restricted by a topic mask: the sparse kernel's result is the dense one's,
    bit for bit."""
    rng = np.random.default_rng(5)
    n_topics = 40
    batch = random_minibatch(rng, n_docs=10, n_words=20, mean_length=12, empty=())
    lists = [np.sort(rng.choice(n_topics, rng.integers(1, 6), replace=False)) for _ in range(10)]
    weights = rng.random((batch.words.size, n_topics))
    alpha = np.full(n_topics, 0.1)
    mask = TopicMask.from_lists(lists, n_topics)
    allowed = AllowedTopics(*kernel_mask(mask, 10, n_topics),
                            digamma(np.array([alpha[topics].sum() for topics in lists])))
    results = []
    for kind in (DENSE, SPARSE):
        chain = new_chain(batch, n_topics)
        recording = Recording(np.zeros((batch.n_entries, n_topics)), np.zeros((10, n_topics)))
        gibbs_sweeps(batch.layout, parameters(weights, alpha), StreamKey(1, 2, 0),
                     PassPlan(0, 6, 4), chain, recording, allowed, Sampler(kind))
        results.append([*chain, *recording[:2]])
    for dense, sparse in zip(*results):
        np.testing.assert_array_equal(dense, sparse)


def test_automatic_choice_is_the_sparse_kernel_at_every_number_of_topics():
    assert GibbsEstimator().uses_sparse
    assert not GibbsEstimator(sampler="dense").uses_sparse
    assert not GibbsEstimator(sampler="sparse", dense_reference=True).uses_sparse
    assert GibbsEstimator(sampler="sparse").uses_sparse
    with pytest.raises(ValueError, match="sampler"):
        GibbsEstimator(sampler="fast").uses_sparse
    corpus, _ = generate_synthetic(n_topics=3, n_words=60, n_documents=60, mean_length=20, seed=4)

    def components(n_topics, sampler):
        return OnlineLDA(n_topics, batch_size=30, local_passes=4, n_passes=1, random_state=2,
                         local_sampler=sampler).fit(corpus).components_

    for n_topics in (2, 4, 40):
        np.testing.assert_array_equal(components(n_topics, "auto"), components(n_topics, "sparse"))


def test_deferred_smoothing_part_equals_the_kernels_own():
    """`GibbsRun` adds the smoothing part of the sparse kernel's recorded conditionals itself,
    per word (O(U K) per call); with the boosted schedule (one pass a call, new weights and
    alpha every call, passes before the window recorded alone) its statistics, per-entry
    expectations and theta equal those of the kernel adding it per entry, to 1e-13."""
    rng = np.random.default_rng(8)
    batch = random_minibatch(rng, n_docs=12, n_words=30, mean_length=25)
    n_topics, passes = 40, 8
    estimator = GibbsEstimator(passes=passes, sampler="sparse")
    run = estimator.begin(batch, n_topics, seed=3, minibatch_index=1)
    chain = new_chain(batch, n_topics)
    for t in range(passes):
        weights = rng.random((batch.words.size, n_topics))
        alpha = rng.uniform(0.05, 0.5, n_topics)
        run.advance(weights, alpha, 1)
        if t <= run.window_start:
            entry_topic = np.zeros((batch.n_entries, n_topics))
            log_theta = np.zeros((batch.n_documents, n_topics))
            recorded = 0
        record_from = t if t < run.window_start else run.window_start
        gibbs_sweeps(batch.layout, parameters(weights, alpha),
                     StreamKey(3, 1, batch.first_document), PassPlan(t, 1, record_from), chain,
                     Recording(entry_topic, log_theta), sampler=Sampler(SPARSE))
        recorded += 1
        np.testing.assert_array_equal(run.token_topic, chain.token_topic)
        np.testing.assert_allclose(run.entry_expectations(), entry_topic / recorded, rtol=1e-13)
        np.testing.assert_allclose(run.statistics().word_topic,
                                   batch.word_totals(entry_topic) / recorded, rtol=1e-13)
        np.testing.assert_array_equal(run.statistics().log_theta, log_theta.sum(axis=0) / recorded)
    theta = batch.document_totals(entry_topic) / recorded + alpha
    np.testing.assert_allclose(run.doc_topic(), theta / theta.sum(axis=1, keepdims=True),
                               rtol=1e-13)


@pytest.mark.parametrize("sampler", ["sparse", "mh"])
def test_boosted_statistics_sum_only_the_present_topics_bit_for_bit(sampler):
    """With the boosted schedule (one pass a call), `GibbsRun` sums each entry's recorded
    conditionals over its document's present topics only, and clears only those: the
    statistics after every pass equal the full entries x K sum bit for bit (asked twice, as
    the run hands its smoothing rows over), and every other value of the entries' rows is 0.
    (A burn-in pass of the sparse kernel is recorded when asked for,
    `kernels.local_gibbs.end_state`: the per-entry expectations record it into the rows
    first.)"""
    rng = np.random.default_rng(11)
    batch = random_minibatch(rng, n_docs=15, n_words=40, mean_length=30)
    n_topics, passes = 40, 9
    run = GibbsEstimator(passes=passes, sampler=sampler).begin(batch, n_topics, seed=5,
                                                                minibatch_index=2)
    for t in range(passes):
        alpha = rng.uniform(0.01, 0.3, n_topics)
        run.advance(rng.random((batch.words.size, n_topics)) ** 8, alpha, 1)
        run.entry_expectations()
        assert run.touched is not None and run.pending is None
        outside = ~run.touched[batch.entry_document]
        assert np.all(run.entry_topic[outside] == 0.0)
        smoothing = np.zeros((batch.words.size, n_topics))
        for weights, call_alpha, inverse in run.smoothing_calls:
            add_scaled_rows(smoothing, np.bincount(batch.entry_word, inverse,
                                                   minlength=batch.words.size),
                            weights, call_alpha)
        expected = batch.word_totals(run.entry_topic, run.n_recorded, smoothing)
        np.testing.assert_array_equal(run.statistics().word_topic, expected)
        np.testing.assert_array_equal(run.statistics().word_topic, expected)
    assert outside.mean() > 0.3  # the sums did skip most topics


def test_scan_order_drawn_ahead_is_the_one_a_pass_draws_itself():
    """In one call the kernel shuffles each next pass's scan order during the pass before it,
    from the stream advanced past that pass's uniforms (`kernels.random.advance`); a call
    starting at a pass shuffles its first order itself (`permute`). So P passes in one call and
    the same passes one per call give the same sample, counts and stream bit for bit, and the
    same records up to the rounding of adding them per call (documents of 0, 1 and 2 tokens
    included)."""
    rng = np.random.default_rng(4)
    batch = random_minibatch(rng, n_docs=10, n_words=25, mean_length=12)
    tiny = Minibatch.from_counts(sp.csr_matrix(np.array([[0, 0, 0], [0, 1, 0], [1, 0, 1],
                                                         [0, 2, 0]])))
    n_topics, passes = 12, 7
    weights_all = rng.random((max(batch.words.size, tiny.words.size), n_topics))
    alpha = rng.uniform(0.05, 0.5, n_topics)
    for minibatch in (batch, tiny):
        weights = weights_all[:minibatch.words.size]
        runs = []
        for schedule in ([(0, passes)], [(t, 1) for t in range(passes)]):
            chain = new_chain(minibatch, n_topics)
            recording = Recording(np.zeros((minibatch.n_entries, n_topics)),
                                  np.zeros((minibatch.n_documents, n_topics)))
            for first, n_passes in schedule:
                gibbs_sweeps(minibatch.layout, parameters(weights, alpha), StreamKey(5, 2, 0),
                             PassPlan(first, n_passes, 5), chain, recording,
                             sampler=Sampler(SPARSE))
            runs.append([*chain, *recording[:2]])
        for one_call, pass_by_pass in zip(runs[0][:3], runs[1][:3]):
            np.testing.assert_array_equal(one_call, pass_by_pass)
        for one_call, pass_by_pass in zip(runs[0][3:], runs[1][3:]):
            np.testing.assert_allclose(one_call, pass_by_pass, rtol=1e-13)
