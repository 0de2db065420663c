"""The Metropolis-Hastings local chain (kernels.local_gibbs.mh): its alias tables sample their
weights (chi-square), its chain leaves the exact posterior p(z | X) of a tiny document invariant
(enumeration of all 81 assignments, chi-square), its recorded conditionals and s2 terms are the
exact formulas at the chain's state, s1/s2 match exact enumeration (test_gibbs_estep.py, with the
other kernels), it recovers planted topics next to the sparse kernel, and its results do not
depend on the number of threads."""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.stats import chisquare

from streamtopics.estimators import OnlineLDA
from streamtopics.inference.gibbs_estep import GibbsEstimator
from streamtopics.inference.minibatch import Minibatch
from streamtopics.kernels.local_gibbs.mh import alias_draw, mh_tables

from helpers import matched_tv, numba_threads, random_minibatch
from test_gibbs_estep import test_expectations_match_exact_enumeration as expectations_match
from test_gibbs_estep_sparse import exact_posterior
from test_gibbs_estep_sparse import \
    test_recorded_pass_equals_the_dense_formulas_at_the_chain_state as recorded_pass_matches


@pytest.mark.parametrize("n_topics", [1, 7, 40])
def test_alias_tables_sample_their_weights(n_topics):
    """Chi-square of 40,000 draws from each word's table (zero weights included) and from
    alpha's; a zero-weight topic is never drawn, not even at u = 0 or u -> 1."""
    rng = np.random.default_rng(n_topics)
    weights = rng.random((3, n_topics)) * (rng.random((3, n_topics)) < 0.7)
    weights[:, rng.integers(n_topics)] += 0.3
    weights[2, :] = rng.integers(1, 4, n_topics)  # integer weights: exact in the scaling
    alpha = rng.uniform(0.01, 0.5, n_topics)
    word_tables, alpha_table = mh_tables(weights, alpha)
    uniforms = np.concatenate([[0.0, 1.0 - 2.0**-53], rng.random(40000)])
    for tables, row, target in [*((word_tables, w, weights[w]) for w in range(3)),
                                (alpha_table, 0, alpha)]:
        draws = np.array([alias_draw(tables, row, u) for u in uniforms])
        expected = target / target.sum()
        assert np.all(expected[draws] > 0)
        observed = np.bincount(draws[2:], minlength=n_topics)
        support = expected > 0
        if support.sum() > 1:
            assert chisquare(observed[support], 40000 * expected[support]).pvalue > 1e-3


@pytest.mark.parametrize("cycles", [1, 2])
def test_chain_leaves_the_exact_posterior_invariant(cycles):
    """4,000 chains on one 4-token document (K = 3, 81 assignments), each started from an exact
    posterior draw and run 3 passes more (the chain itself, not its convergence): the sample is
    still distributed as p(z | X) (chi-square); the same with 40 passes from Algorithm 2's
    initialisation (convergence)."""
    beta = np.array([[0.5, 0.3, 0.1, 0.1], [0.1, 0.2, 0.3, 0.4], [0.05, 0.05, 0.45, 0.45]])
    alpha = np.array([0.2, 0.5, 0.9])
    copies = 4000
    batch = Minibatch.from_counts(sp.csr_matrix(np.tile([2, 0, 1, 1], (copies, 1))))
    words = np.repeat(batch.words[batch.entry_word[:3]], batch.entry_count[:3])
    posterior = exact_posterior(beta, alpha, words)
    weights = np.ascontiguousarray(beta[:, batch.words].T)
    powers = 3 ** np.arange(3, -1, -1)
    estimator = GibbsEstimator(passes=50, sampler="mh", mh_cycles=cycles)
    start = np.random.default_rng(cycles).choice(81, copies, p=posterior)
    for passes, restart in ((3, True), (40, False)):
        run = estimator.begin(batch, 3, seed=3, minibatch_index=0)
        run.advance(weights, alpha, 1)  # Algorithm 2's initial sample and one pass
        if restart:
            run.token_topic[:] = (start[:, None] // powers % 3).ravel()
            run.doc_topic_counts[:] = np.stack([np.sum(run.token_topic.reshape(copies, 4) == k,
                                                       axis=1) for k in range(3)], axis=1)
        run.advance(weights, alpha, passes)
        codes = run.token_topic.reshape(copies, 4) @ powers
        observed = np.bincount(codes, minlength=81)
        expected = copies * posterior
        small = expected < 5
        observed = np.append(observed[~small], observed[small].sum())
        expected = np.append(expected[~small], expected[small].sum())
        assert chisquare(observed, expected).pvalue > 1e-3, passes


@pytest.mark.parametrize("n_topics", [5, 40])
def test_recorded_pass_equals_the_dense_formulas_at_the_chain_state(n_topics):
    """The sparse kernel's test, run on the MH chain: one recorded pass adds the exact
    conditionals p(z_n = k | z_-n) at the chain's final state (Algorithm 2, final loop), s2's
    terms, and RECORD_SAMPLE the sample itself."""
    recorded_pass_matches(n_topics, mh_cycles=2)


def test_expectations_match_exact_enumeration():
    """test_gibbs_estep.py's test on the MH chain: Algorithm 2's s1 and s2 estimates (P = 20,
    3,000 chains per document) equal the exact posterior expectations of a tiny model within 5
    Monte Carlo standard errors."""
    expectations_match("mh")


def test_planted_topics_are_recovered_as_by_the_sparse_kernel(planted):
    """4 planted topics (2,000 documents): two passes of G-OEM with the MH chain recover them
    (mean matched total variation below 0.05) within 0.01 of the sparse kernel."""
    corpus, truth = planted

    def distance(sampler):
        model = OnlineLDA(n_topics=4, method="g-oem", n_passes=2, random_state=0,
                          local_sampler=sampler).fit(corpus)
        np.testing.assert_allclose(model.components_.sum(axis=1), 1.0)
        return matched_tv(model.components_, truth.beta).mean()

    mh, sparse = distance("mh"), distance("sparse")
    assert mh < 0.05 and mh < sparse + 0.01, (mh, sparse)


def test_same_result_for_one_and_two_threads():
    """The chain, its recorded statistics and theta, bit for bit, including the alias tables
    built in parallel over words."""
    rng = np.random.default_rng(2)
    batch = random_minibatch(rng, n_docs=40, n_words=30, mean_length=20)
    weights = rng.random((batch.words.size, 10)) * (rng.random((batch.words.size, 10)) < 0.8)
    alpha = rng.uniform(0.05, 0.5, 10)
    results = []
    for threads in (1, 2):
        with numba_threads(threads):
            run = GibbsEstimator(passes=6, sampler="mh").begin(batch, 10, seed=4,
                                                               minibatch_index=1)
            run.advance(weights, alpha, 6)
        results.append((run.token_topic, run.doc_topic_counts, run.rng_state, run.entry_topic,
                        run.doc_log_theta, run.statistics().word_topic, run.doc_topic()))
    for one, two in zip(*results):
        np.testing.assert_array_equal(one, two)
