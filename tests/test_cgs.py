"""Collapsed Gibbs sampling and the CGS_p estimators (Papanikolaou et al. 2017): kernels against
their NumPy twins, exact conditionals, the sparse sampler's distribution, theta^p as a
Rao-Blackwellisation, hyperparameter fixed points, planted-topic recovery and the estimator API."""

import itertools

import numba
import numpy as np
import scipy.sparse as sp
import pytest
from scipy.stats import chisquare

import naive
from helpers import matched_tv, numba_threads
from streamtopics import Corpus, InputError, generate_synthetic
from streamtopics.estimators.base import NotFittedError
from streamtopics.estimators.gibbs_lda import GibbsLDA
from streamtopics.inference import cgs, dirichlet_fixed_point
from streamtopics.kernels import cgs as kernels


def tiny_state(seed=0, n_topics=3, n_words=4, lengths=(3, 4, 2, 5)):
    rng = np.random.default_rng(seed)
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    tokens = rng.integers(n_words, size=offsets[-1]).astype(np.int32)
    assignments = rng.integers(n_topics, size=offsets[-1])
    return cgs.GibbsState.from_assignments(tokens, offsets, assignments, n_topics, n_words)


def copy_state(state):
    return cgs.GibbsState(state.tokens, state.offsets, state.assignments.copy(),
                          state.doc_topic_counts.copy(), state.word_topic_counts.copy(),
                          state.topic_counts.copy())


# --- kernels against twins and exact formulas ---------------------------------------------------
def test_dense_sweep_matches_naive_twin():
    state = tiny_state(seed=1, n_topics=4, n_words=6, lengths=(7, 0, 5, 9))
    twin = copy_state(state)
    alpha, eta = np.array([0.1, 0.5, 0.2, 0.3]), 0.05
    documents = np.arange(4, dtype=np.int64)
    for sweep in range(3):
        kernels.sweep_dense(state.tokens, state.offsets, documents, state.assignments,
                            state.counts, alpha, eta, 7, sweep)
        naive.sweep_dense(twin.tokens, twin.offsets, documents, twin.assignments,
                          twin.doc_topic_counts, twin.word_topic_counts, twin.topic_counts,
                          alpha, eta, 7, sweep)
        np.testing.assert_array_equal(state.assignments, twin.assignments)
    np.testing.assert_array_equal(state.doc_topic_counts, twin.doc_topic_counts)
    np.testing.assert_array_equal(state.word_topic_counts, twin.word_topic_counts)
    np.testing.assert_array_equal(state.topic_counts, twin.topic_counts)


def test_kernel_conditional_is_exact():
    """The kernel's conditional (equation 1) equals the ratio of collapsed joints p(w, z) and the
    paper's equation 1 written out in full, for every token of a tiny corpus."""
    state = tiny_state(seed=2)
    alpha, eta = np.array([0.2, 0.7, 0.4]), 0.3
    V = state.n_words
    weights = np.empty(3)
    for d in range(state.offsets.size - 1):
        for i in range(state.offsets[d], state.offsets[d + 1]):
            w, k = state.tokens[i], state.assignments[i]
            s = copy_state(state)
            s.doc_topic_counts[d, k] -= 1
            s.word_topic_counts[w, k] -= 1
            s.topic_counts[k] -= 1
            inv = 1.0 / (s.topic_counts + eta * V)
            total = kernels._dense_conditional(d, w, s.doc_topic_counts, s.word_topic_counts,
                                               inv, alpha, eta, weights)
            kernel_p = weights / total
            exact = naive.token_conditional(state.tokens, state.offsets, state.assignments, 3, V,
                                            alpha, eta, i)
            n_d = state.offsets[d + 1] - state.offsets[d]
            equation_1 = ((s.word_topic_counts[w] + eta) / (s.topic_counts + V * eta)
                          * (s.doc_topic_counts[d] + alpha) / (n_d - 1 + alpha.sum()))
            np.testing.assert_allclose(kernel_p, exact, rtol=1e-10)
            np.testing.assert_allclose(kernel_p, equation_1 / equation_1.sum(), rtol=1e-12)


def test_log_joint_matches_naive():
    state = tiny_state(seed=3)
    alpha, eta = np.array([0.2, 0.7, 0.4]), 0.3
    expected = naive.collapsed_log_joint(state.tokens, state.offsets, state.assignments, 3,
                                         state.n_words, alpha, eta)
    assert state.log_joint(alpha, eta) == pytest.approx(expected, rel=1e-12)


def dense_soft_counts(state, alpha, eta):
    doc_soft = np.zeros(state.doc_topic_counts.shape)
    word_soft = np.zeros(state.word_topic_counts.shape)
    kernels.soft_counts_dense(state.tokens, state.offsets, state.assignments, state.counts, alpha,
                              eta, doc_soft, word_soft)
    return doc_soft, word_soft


def test_soft_counts_match_brute_force():
    """Soft counts of equations 40-41 (Algorithm 1) equal the summed exact conditionals."""
    state = tiny_state(seed=4)
    alpha, eta = np.array([0.2, 0.7, 0.4]), 0.3
    before = state.assignments.copy(), state.word_topic_counts.copy()
    doc_soft, word_soft = dense_soft_counts(state, alpha, eta)
    expected_doc, expected_word = naive.soft_counts_dense(state.tokens, state.offsets,
                                                          state.assignments, 3, state.n_words,
                                                          alpha, eta)
    np.testing.assert_allclose(doc_soft, expected_doc, rtol=1e-10)
    np.testing.assert_allclose(word_soft, expected_word, rtol=1e-10)
    np.testing.assert_array_equal(state.assignments, before[0])
    np.testing.assert_array_equal(state.word_topic_counts, before[1])
    sparse_doc, sparse_word = state.soft_counts(alpha, eta)
    np.testing.assert_allclose(sparse_doc, expected_doc, rtol=1e-10)
    np.testing.assert_allclose(sparse_word, expected_word, rtol=1e-10)
    phi_p, theta_p = state.estimate(alpha, eta, "p")
    np.testing.assert_allclose(theta_p, (expected_doc + alpha) / (expected_doc + alpha).sum(1)[:, None])
    np.testing.assert_allclose(phi_p.sum(axis=1), 1.0)


def test_sparse_soft_counts_equal_the_dense_pass():
    """The two-pass sparse soft counts (documents, then words in word order) equal the dense
    pass, with empty documents and words that never occur."""
    corpus, _ = generate_synthetic(n_topics=8, n_words=60, n_documents=50, seed=8)
    tokens, offsets = corpus.document_tokens()
    offsets = np.insert(offsets, [0, 20, 20], [0, offsets[20], offsets[20]])  # empty documents
    tokens = np.where(tokens == 7, 8, tokens)  # word 7 never occurs
    state = cgs.GibbsState.random(tokens, offsets, 8, 60, seed=2)
    alpha = np.linspace(0.05, 0.5, 8)
    for sweep in range(3):
        state.sweep(alpha, 0.02, 2, sweep + 1)
    for actual, expected in zip(state.soft_counts(alpha, 0.02), dense_soft_counts(state, alpha, 0.02)):
        np.testing.assert_allclose(actual, expected, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("sampler", ["sparse", "dense"])
@pytest.mark.parametrize("alpha,eta", [([0.3, 1.5, 0.6], 0.4), ([0.05, 0.02, 0.1], 0.01)])
def test_sampler_draws_from_the_exact_conditional(sampler, alpha, eta):
    """One sweep of a 3-token document: the empirical distribution of the 27 possible outcomes
    matches the exact transition prod_i p(z'_i | z'_<i, z_>i) (chi-square)."""
    alpha = np.asarray(alpha)
    state = tiny_state(seed=5, lengths=(3, 6, 4, 5))
    target = np.array([0], dtype=np.int64)
    start, stop = state.offsets[0], state.offsets[1]
    outcomes = list(itertools.product(range(3), repeat=3))
    exact = []
    for outcome in outcomes:
        z, probability = state.assignments.copy(), 1.0
        for position, k in zip(range(start, stop), outcome):
            probability *= naive.token_conditional(state.tokens, state.offsets, z, 3,
                                                   state.n_words, alpha, eta, position)[k]
            z[position] = k
        exact.append(probability)
    exact = np.asarray(exact)
    assert exact.sum() == pytest.approx(1.0)
    draws = 20000
    observed = np.zeros(len(outcomes))
    lists = kernels.build_word_topic_lists(state.word_topic_counts)
    for r in range(draws):
        s = copy_state(state)
        if sampler == "sparse":
            kernels.sweep_sparse(s.tokens, s.offsets, target, s.assignments, s.counts,
                                 kernels.WordTopicLists(lists.start, lists.size.copy(),
                                                        lists.topics.copy()),
                                 alpha, eta, 11, r)
        else:
            kernels.sweep_dense(s.tokens, s.offsets, target, s.assignments, s.counts, alpha, eta,
                                11, r)
        a, b, c = s.assignments[start:stop]
        observed[a * 9 + b * 3 + c] += 1
    keep = exact * draws >= 5
    expected = exact[keep] * draws
    statistic, p_value = chisquare(observed[keep], expected * observed[keep].sum() / expected.sum())
    assert p_value > 1e-3, (statistic, p_value)


def test_sparse_sweeps_keep_counts_and_word_lists_consistent():
    corpus, _ = generate_synthetic(n_topics=6, n_words=40, n_documents=30, seed=3)
    tokens, offsets = corpus.document_tokens()
    state = cgs.GibbsState.random(tokens, offsets, 6, 40, seed=1)
    for sweep in range(5):
        state.sweep(np.full(6, 0.1), 0.05, 1, sweep + 1, "sparse")
    recount = cgs.GibbsState.from_assignments(tokens, offsets, state.assignments, 6, 40)
    np.testing.assert_array_equal(state.doc_topic_counts, recount.doc_topic_counts)
    np.testing.assert_array_equal(state.word_topic_counts, recount.word_topic_counts)
    start, size, topics = state._word_lists
    for w in range(40):
        listed = sorted(topics[start[w]:start[w] + size[w]])
        assert listed == list(np.flatnonzero(state.word_topic_counts[w]))


# --- prediction with phi fixed: theta^p ---------------------------------------------------------
def prediction_setup():
    phi = np.array([[0.6, 0.3, 0.05, 0.05], [0.05, 0.15, 0.7, 0.1], [0.25, 0.25, 0.25, 0.25]])
    alpha = np.array([0.3, 0.2, 0.5])
    words = np.array([0, 2, 1, 2, 3, 0])
    return phi, alpha, words


def test_document_soft_counts_are_the_one_step_expectation():
    """theta^p (eq. 33) from a fixed z equals E[theta-hat] when each token takes one Gibbs step
    from z (eq. 30 with L -> infinity): sum_j T(z_j = k | z_-j), T by exact enumeration."""
    phi, alpha, words = prediction_setup()
    used, rows = np.unique(words, return_inverse=True)
    phi_rows = np.ascontiguousarray(phi[:, used].T)
    smoothing = (phi_rows * alpha).sum(axis=1)
    rng = np.random.default_rng(0)
    for _ in range(5):
        z = rng.integers(3, size=words.size).astype(np.int32)
        counts = np.bincount(z, minlength=3).astype(np.int32)
        out = np.zeros(3)
        kernels.document_soft_counts(rows.astype(np.int32), rows.astype(np.int64),
                                     np.arange(used.size, dtype=np.int32), z, counts, phi_rows,
                                     smoothing, alpha, out)
        np.testing.assert_allclose(out, naive.document_soft_counts(words, z, phi, alpha),
                                   rtol=1e-10)
        assert out.sum() == pytest.approx(words.size)


def independent_chains(phi, alpha, words, n, burn_in, seed):
    """Theta and theta^p of ``n`` independent chains on one document, one sample each (n x K):
    chains have their own streams (copies of a document would share one: streams are keyed by
    the document's content)."""
    prediction = cgs.predict_doc_topics(phi, alpha, words, np.array([0, words.size]),
                                        burn_in=burn_in, n_samples=1, n_chains=n, seed=seed,
                                        per_sample=True)
    return prediction.theta[0], prediction.theta_p[0]


def test_prediction_sampler_reaches_the_exact_posterior():
    """Independent chains on copies of a document: after burn-in their n_d follow the exact
    posterior p(n_d | w_d, phi, alpha) (enumeration of all K^N assignments; chi-square)."""
    phi, alpha, words = prediction_setup()
    words = words[:4]
    n = 4000
    theta, _ = independent_chains(phi, alpha, words, n, burn_in=15, seed=3)
    total = alpha.sum() + words.size
    counts = np.rint(theta * total - alpha).astype(int)
    rows, probability = naive.document_posterior(words, phi, alpha)
    exact = {}
    for z, p in zip(rows, probability):
        key = tuple(np.bincount(z, minlength=3))
        exact[key] = exact.get(key, 0.0) + p
    keys = sorted(exact)
    observed = np.array([np.sum(np.all(counts == key, axis=1)) for key in keys])
    expected = np.array([exact[key] for key in keys]) * n
    assert observed.sum() == n
    _, p_value = chisquare(observed, expected)
    assert p_value > 1e-3


def test_theta_p_is_a_rao_blackwellisation():
    """Same posterior mean, lower variance: over 3000 independent chains of one document,
    theta^p and theta from one sample both average to the exact posterior mean of theta
    (eq. 14), and theta^p's variance is several times smaller."""
    phi, alpha, words = prediction_setup()
    theta, theta_p = independent_chains(phi, alpha, words, 3000, burn_in=20, seed=5)
    rows, probability = naive.document_posterior(words, phi, alpha)
    counts = np.stack([np.bincount(z, minlength=3) for z in rows])
    exact_mean = probability @ ((counts + alpha) / (words.size + alpha.sum()))
    for estimate in (theta, theta_p):
        standard_error = estimate.std(axis=0) / np.sqrt(len(estimate))
        assert np.all(np.abs(estimate.mean(axis=0) - exact_mean) < 4 * standard_error + 1e-12)
    assert theta_p.var(axis=0).sum() < 0.7 * theta.var(axis=0).sum()


def test_prediction_is_independent_of_thread_count():
    corpus, truth = generate_synthetic(n_topics=4, n_words=30, n_documents=40, seed=2)
    tokens, offsets = corpus.document_tokens()
    results = []
    for threads in sorted({1, numba.config.NUMBA_NUM_THREADS}):
        with numba_threads(threads):
            results.append(cgs.predict_doc_topics(truth.beta, truth.alpha, tokens, offsets,
                                                  burn_in=3, lag=2, n_samples=3, n_chains=2,
                                                  seed=9).theta_p)
    np.testing.assert_array_equal(results[0], results[-1])


# --- hyperparameters ----------------------------------------------------------------------------
def test_minka_fixed_point_recovers_an_asymmetric_alpha():
    rng = np.random.default_rng(0)
    alpha = np.array([0.05, 0.2, 0.5, 1.0])
    theta = rng.dirichlet(alpha, size=3000)
    counts = np.stack([rng.multinomial(80, t) for t in theta]).astype(np.int32)
    estimate = dirichlet_fixed_point.optimize_alpha(counts, np.ones(4), iterations=500)
    np.testing.assert_allclose(estimate, alpha, rtol=0.12)


def test_minka_fixed_point_recovers_eta():
    rng = np.random.default_rng(1)
    topics = rng.dirichlet(np.full(300, 0.05), size=20)
    word_topic = np.stack([rng.multinomial(3000, t) for t in topics]).T.astype(np.int32)
    assert dirichlet_fixed_point.optimize_eta(word_topic, 1.0, iterations=500) == pytest.approx(0.05, rel=0.1)


# --- chains and estimators ----------------------------------------------------------------------
def test_align_topics_undoes_a_permutation():
    rng = np.random.default_rng(2)
    phi = rng.dirichlet(np.full(50, 0.1), size=6)
    perm = rng.permutation(6)
    shuffled = phi[perm]
    np.testing.assert_array_equal(shuffled[cgs.align_topics(phi, shuffled)], phi)


def test_sample_sweeps():
    assert cgs.sample_sweeps(200, 50, 5, 10) == list(range(155, 201, 5))
    assert cgs.sample_sweeps(20, 15, 5, 10) == [20]
    assert cgs.sample_sweeps(10, 50, 5, 3) == [10]


@pytest.fixture(scope="module")
def planted():
    corpus, truth = generate_synthetic(n_topics=5, n_words=200, n_documents=400,
                                       mean_length=60, alpha=0.1, topic_concentration=0.05,
                                       seed=11)
    return corpus, truth


@pytest.mark.parametrize("sampler,estimator", [("sparse", "p"), ("sparse", "standard"),
                                               ("dense", "p")])
def test_recovers_planted_topics(planted, sampler, estimator):
    """Planted topics (K=5, V=200, 400 documents of ~60 tokens) are recovered: mean total
    variation to the truth after Hungarian matching below 0.06 (observed 0.032-0.033)."""
    corpus, truth = planted
    model = GibbsLDA(5, n_passes=120, burn_in=60, lag=5, n_samples=5, sampler=sampler,
                     estimator=estimator, random_state=0)
    theta = model.fit_transform(corpus)
    assert matched_tv(model.components_, truth.beta).mean() < 0.06
    np.testing.assert_allclose(model.components_.sum(axis=1), 1.0)
    perm = cgs.align_topics(truth.beta, model.components_)
    assert np.abs(theta[:, perm] - truth.theta).sum(axis=1).mean() / 2 < 0.08


def test_optimised_priors_approach_the_truth(planted):
    corpus, truth = planted
    model = GibbsLDA(5, doc_topic_prior=1.0, topic_word_prior=0.5, optimize_alpha=True,
                     optimize_eta=True, n_passes=100, burn_in=20, n_samples=1,
                     random_state=1).fit(corpus)
    assert np.all(np.abs(model.doc_topic_prior_ - 0.1) < 0.06)
    assert 0.02 < model.topic_word_prior_ < 0.1
    assert matched_tv(model.components_, truth.beta).mean() < 0.1


# --- estimator API ------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def small():
    corpus, _ = generate_synthetic(n_topics=3, n_words=30, n_documents=60, seed=4)
    return corpus.split(0.25, seed=0)


def test_same_seed_same_model_and_transform_leaves_model_alone(small):
    train, test = small
    a = GibbsLDA(3, n_passes=30, burn_in=10, n_samples=2, random_state=5).fit(train)
    b = GibbsLDA(3, n_passes=30, burn_in=10, n_samples=2, random_state=5).fit(train)
    np.testing.assert_array_equal(a.components_, b.components_)
    before = a.components_.copy()
    first = a.transform(test)
    np.testing.assert_array_equal(a.transform(test), first)
    np.testing.assert_array_equal(a.components_, before)
    np.testing.assert_allclose(first.sum(axis=1), 1.0)


def test_transform_of_a_document_does_not_depend_on_its_row(small):
    """Prediction streams are keyed by the document's content, not its row."""
    train, test = small
    model = GibbsLDA(3, n_passes=20, burn_in=5, n_samples=2, n_chains=2,
                     random_state=0).fit(train)
    counts = test.counts
    proportions = model.transform(counts)
    order = np.random.default_rng(1).permutation(counts.shape[0])
    np.testing.assert_array_equal(model.transform(counts[order]), proportions[order])
    np.testing.assert_array_equal(model.transform(counts[::-1])[::-1], proportions)
    twice = sp.vstack([counts[:1], counts[:1]]).tocsr()
    np.testing.assert_array_equal(model.transform(twice), proportions[[0, 0]])


def test_several_chains_keep_the_most_likely(small):
    train, _ = small
    model = GibbsLDA(3, n_passes=20, burn_in=5, n_chains=3, random_state=0).fit(train)
    assert len(model.chain_log_likelihoods_) == 3
    assert model.log_likelihood_ == max(model.chain_log_likelihoods_)


def test_transform_accepts_matrices_token_lists_and_other_vocabularies(small):
    train, test = small
    model = GibbsLDA(3, n_passes=20, burn_in=5, n_samples=2, random_state=0).fit(train)
    expected = model.transform(test)
    np.testing.assert_array_equal(model.transform(test.counts), model.transform(
        Corpus(test.counts)))
    assert model.transform(test.tokens).shape == expected.shape
    reversed_vocabulary = Corpus.from_token_lists(
        [29 - t for t in test.tokens], vocabulary=list(test.vocabulary[::-1]))
    np.testing.assert_array_equal(model.transform(reversed_vocabulary), expected)
    with pytest.raises(InputError):
        model.transform(np.ones((2, 7)))


def test_save_load_round_trip_and_parameters(small, tmp_path):
    train, test = small
    model = GibbsLDA(3, doc_topic_prior=0.2, n_passes=20, burn_in=5, n_samples=2,
                     random_state=0).fit(train)
    model.save(tmp_path / "gibbs.npz")
    loaded = GibbsLDA.load(tmp_path / "gibbs.npz")
    np.testing.assert_array_equal(loaded.components_, model.components_)
    np.testing.assert_array_equal(loaded.transform(test), model.transform(test))
    assert loaded.get_params() == model.get_params()
    assert loaded.top_words(3) == model.top_words(3)
    assert type(model)(**model.get_params()).get_params() == model.get_params()


@pytest.mark.parametrize("params", [{"n_topics": 0}, {"doc_topic_prior": -1.0},
                                    {"topic_word_prior": 0.0}, {"n_passes": 0}, {"lag": 0},
                                    {"estimator": "mean"}, {"sampler": "alias"},
                                    {"doc_topic_prior": [0.1, 0.2]}])
def test_invalid_parameters_fail_clearly(small, params):
    with pytest.raises(ValueError):
        GibbsLDA(**{"n_topics": 3, "n_passes": 2, **params}).fit(small[0])


def test_empty_corpus_and_unfitted_model_fail_clearly():
    with pytest.raises(InputError, match="without any tokens"):
        GibbsLDA(2).fit(Corpus(np.zeros((3, 4))))
    with pytest.raises(NotFittedError):
        GibbsLDA(2).transform(np.ones((1, 4)))


@pytest.mark.parametrize("sampler", ["sparse", "dense"])
def test_corner_cases_one_topic_one_word_empty_documents(sampler):
    corpus = Corpus.from_token_lists([[0, 1, 1], [], [2, 2, 0, 1]], n_words=3)
    model = GibbsLDA(1, topic_word_prior=0.5, n_passes=3, burn_in=1, sampler=sampler,
                     random_state=0)
    np.testing.assert_allclose(model.fit_transform(corpus), 1.0)
    np.testing.assert_allclose(model.components_, [[2.5 / 8.5, 3.5 / 8.5, 2.5 / 8.5]])
    one_word = Corpus.from_token_lists([[0, 0], [0], []], n_words=1)
    theta = GibbsLDA(3, n_passes=3, sampler=sampler,
                     random_state=0).fit(one_word).transform(one_word)
    np.testing.assert_allclose(theta[1:], 1 / 3)
    np.testing.assert_allclose(theta.sum(axis=1), 1.0)
