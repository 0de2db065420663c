"""The paper's baselines as presets of the one engine: planted-topic recovery of every
baseline, OLDA and batch VB against a plain NumPy Hoffman et al. (2010), the SGS last-sample
recording against its twin, the Newton, Gamma-prior and eta updates against their equations,
the corpus size D of Bayesian methods, and free composition of the four axes."""

import itertools
import math

import naive
import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import digamma, polygamma

from streamtopics.corpus.synthetic import generate_synthetic
from streamtopics.estimators import OnlineLDA
from streamtopics.inference.alpha_updates import (GammaPrior, NewtonStep, fixed_point_alpha,
                                                  gamma_prior_alpha, newton_alpha_step)
from streamtopics.inference.gibbs_estep import GibbsEstimator
from streamtopics.inference.variational_estep import VariationalEstimator
from streamtopics.inference.global_parameters import (PointEstimate, VariationalDirichlet,
                                                      newton_topic_word_prior)
from streamtopics.inference.minibatch import Minibatch
from streamtopics.inference.presets import (ALPHA_UPDATES, GLOBAL_PARAMETERS, LOCAL_ESTIMATORS,
                                            PRESETS, STEP_SIZES, Method)
from streamtopics.inference.stats import MinibatchStats, SufficientStats
from streamtopics.kernels.local_gibbs import (RECORD_SAMPLE, PassPlan, Recording, StreamKey,
                                              gibbs_sweeps)

from helpers import matched_tv
from test_gibbs_estep import new_chain, parameters

pytestmark = pytest.mark.usefixtures("one_thread")

BASELINES = ["olda", "svb", "splda", "sgs", "vargibbs", "batch-vb"]


@pytest.fixture(scope="module")
def small():
    corpus, _ = generate_synthetic(n_topics=3, n_words=30, n_documents=120, mean_length=15, seed=3)
    return corpus


# Bound on the mean matched total-variation distance after two passes (batch-vb: 20 batch
# iterations) over 2000 documents, K = 4, V = 100. Observed over ten initialisation seeds:
# olda 0.014-0.016, vargibbs 0.015-0.016, batch-vb 0.010-0.012, splda 0.011-0.045 (1/i steps),
# svb 0.041-0.096 (1/i steps), sgs 0.044-0.10 (1/i steps and a single hard sample); the random
# initial topics are at about 0.9.
RECOVERY_BOUND = {"olda": 0.03, "vargibbs": 0.03, "batch-vb": 0.03, "splda": 0.08, "svb": 0.15,
                  "sgs": 0.15}


@pytest.mark.parametrize("method", BASELINES)
def test_baselines_recover_planted_topics(planted, method):
    corpus, truth = planted
    passes = 20 if method == "batch-vb" else 2
    model = OnlineLDA(n_topics=4, method=method, n_passes=passes, random_state=0).fit(corpus)
    distances = matched_tv(model.components_, truth.beta)
    assert distances.mean() < RECOVERY_BOUND[method], distances
    np.testing.assert_allclose(model.components_.sum(axis=1), 1.0)
    alpha = model.doc_topic_prior_
    if PRESETS[method].alpha_update == "fixed":
        np.testing.assert_array_equal(alpha, np.full(4, 0.25))  # 1/K, never updated
    else:
        assert np.all((alpha > 0.05) & (alpha < 0.2)), alpha  # true: 0.1


def test_bayesian_components_are_the_mean_of_q(small):
    model = OnlineLDA(3, method="olda", batch_size=40, local_passes=5, n_passes=1,
                      random_state=0).fit(small)
    engine = model._engine
    lam = model.lambda_
    np.testing.assert_allclose(lam, 1 / 3 + small.n_documents * engine.stats.topic_word())
    np.testing.assert_allclose(model.components_, lam / lam.sum(axis=1, keepdims=True), rtol=1e-12)
    assert model.topic_word_prior_ == pytest.approx(1 / 3)
    frequentist = OnlineLDA(3, random_state=0).fit(small)
    assert frequentist.topic_word_prior_ == 0.03 and frequentist.lambda_ is None


# --- OLDA and batch VB against a plain Hoffman et al. (2010) -----------------------------------
@pytest.mark.parametrize("update_alpha", [False, True])
def test_olda_matches_numpy_hoffman_algorithm_2_step_by_step(update_alpha):
    rng = np.random.default_rng(0)
    counts = rng.poisson(0.6, size=(23, 12)) * (rng.random((23, 12)) < 0.5)
    counts[5] = 0  # an empty document
    method = PRESETS["olda"] if update_alpha else Method("variational", "dirichlet", "polynomial",
                                                         "fixed", name="olda-fixed-alpha")
    model = OnlineLDA(3, method=method, batch_size=5, local_passes=7, step_offset=2.0,
                      step_decay=0.7, corpus_size=1000, topic_word_prior=0.05, random_state=1)
    steps = []

    def record(model, report):
        engine = model._engine
        steps.append((engine.parameters.topic_word_lambda(engine.stats), model.doc_topic_prior_))

    model._start(sp.csr_matrix(counts), None, first_batch_rows=5)
    engine = model._engine
    initial_lambda = engine.parameters.topic_word_lambda(engine.stats)
    initial_alpha = model.doc_topic_prior_
    model = OnlineLDA(**model.get_params()).fit(counts, callback=record)
    twin = naive.online_vb(counts, initial_lambda, initial_alpha, 0.05, 1000, 5,
                           [(2.0 + t) ** -0.7 for t in range(1, 6)], 7, update_alpha)
    assert len(steps) == len(twin) == 5
    for (lam, alpha), (twin_lam, twin_alpha) in zip(steps, twin):
        np.testing.assert_allclose(lam, twin_lam, rtol=1e-10)
        np.testing.assert_allclose(alpha, twin_alpha, rtol=1e-10)
    if update_alpha:
        assert not np.allclose(steps[-1][1], initial_alpha)


def test_batch_vb_is_hoffman_algorithm_1(small):
    """Each batch-vb step replaces lambda by eta + sum_d n_d phi_d over the whole corpus, with
    the E-step run in chunks of batch_size (merged exactly)."""
    counts = small.counts.toarray()
    steps = []
    model = OnlineLDA(3, method="batch-vb", batch_size=37, local_passes=6, n_passes=3,
                      topic_word_prior=0.2, random_state=2)
    model._start(small.counts, None, corpus_size=small.n_documents)
    initial_lambda = model._engine.parameters.topic_word_lambda(model._engine.stats)
    model.fit(small, callback=lambda m, r: steps.append(
        m._engine.parameters.topic_word_lambda(m._engine.stats)))
    twin = naive.online_vb(np.tile(counts, (3, 1)), initial_lambda, np.full(3, 1 / 3), 0.2,
                           small.n_documents, small.n_documents, [1.0, 1.0, 1.0], 6, False)
    for lam, (twin_lam, _) in zip(steps, twin):
        np.testing.assert_allclose(lam, twin_lam, rtol=1e-10)
    # one partial_fit on the whole corpus is one more batch iteration
    model.partial_fit(small)
    assert model.n_steps_ == 4


def test_batch_step_equals_one_minibatch(small):
    """The exact merge: a batch step over chunks is a partial_fit on their concatenation."""
    whole = OnlineLDA(3, method="g-oem", local_passes=8, random_state=4)
    whole.partial_fit(small)
    chunked = OnlineLDA(3, method="g-oem", batch_size=50, local_passes=8, random_state=4)
    chunked._start(small.counts, None, small.n_documents)
    chunked._engine.batch_step(chunked._chunks(small.counts))
    assert chunked.n_steps_ == 1 and chunked.n_documents_seen_ == small.n_documents
    np.testing.assert_allclose(chunked.components_, whole.components_, rtol=1e-11)
    np.testing.assert_allclose(chunked.doc_topic_prior_, whole.doc_topic_prior_, rtol=1e-10)


# --- SGS: the last sample as hard counts ---------------------------------------------------------
def test_last_sample_recording_equals_hard_counts_of_the_last_sweep():
    rng = np.random.default_rng(5)
    lengths = rng.poisson(9, 7)
    lengths[2] = 0
    counts = np.array([np.bincount(rng.integers(0, 10, n), minlength=10) for n in lengths])
    batch = Minibatch.from_counts(sp.csr_matrix(counts))
    weights = rng.random((batch.words.size, 5))
    alpha = rng.uniform(0.05, 0.5, 5)
    entry_topic = np.zeros((batch.n_entries, 5))
    doc_log_theta = np.zeros((batch.n_documents, 5))
    gibbs_sweeps(batch.layout, parameters(weights, alpha), StreamKey(11, 2, 0),
                 PassPlan(0, 6, 5, RECORD_SAMPLE), new_chain(batch, 5),
                 Recording(entry_topic, doc_log_theta))
    twin_entry, twin_log_theta = naive.gibbs_sweeps_last_sample(
        batch.doc_ptr, batch.entry_word, batch.entry_count, weights, alpha, 11, 2, 0, 6)
    np.testing.assert_array_equal(entry_topic, twin_entry)
    np.testing.assert_allclose(doc_log_theta, twin_log_theta, rtol=1e-12, atol=1e-12)
    # through the estimator (the dense kernel, as the twin): integer counts, one per token, from
    # the last pass only
    run = GibbsEstimator(passes=6, last_sample=True, sampler="dense").begin(batch, 5, seed=11,
                                                                          minibatch_index=2)
    run.advance(weights, alpha, 6)
    assert run.n_recorded == 1
    np.testing.assert_array_equal(run.entry_expectations(), twin_entry)
    stats = run.statistics()
    np.testing.assert_array_equal(stats.word_topic, np.round(stats.word_topic))
    np.testing.assert_array_equal(stats.word_topic.sum(axis=1),
                                  np.asarray(counts.sum(axis=0))[batch.words])


def test_smoothed_topics_are_streaming_gibbs_weights():
    """SGS weighs word w in topic k by (eta + n_kw) / (V eta + n_k), n the counts accumulated
    over the N documents seen (Gao et al. 2016): N s1 when s1 is their average."""
    rng = np.random.default_rng(1)
    average_counts = rng.random((6, 2)) * (rng.random((6, 2)) < 0.5)  # V x K, with zeros
    stats = SufficientStats(average_counts, np.zeros(2), n_documents=40.0)
    accumulated = 40.0 * average_counts.T
    expected = (0.3 + accumulated) / (6 * 0.3 + accumulated.sum(axis=1, keepdims=True))
    smoothed = PointEstimate(0.3)
    np.testing.assert_allclose(smoothed.components(stats), expected, rtol=1e-12)
    np.testing.assert_allclose(smoothed.word_weights(stats, np.array([1, 4])), expected[:, [1, 4]].T,
                               rtol=1e-12)
    assert np.all(smoothed.word_weights(stats, np.arange(6)) > 0)  # no word locked out of a topic
    initial = smoothed.initial_stats(np.full((2, 6), 1 / 6), np.ones(2), 10.0)
    np.testing.assert_allclose(smoothed.components(initial), 1 / 6)


# --- alpha and eta updates -----------------------------------------------------------------------
def gamma_prior_residual(alpha, log_theta, n_documents, shape, rate):
    return np.max(np.abs(digamma(alpha) - digamma(alpha.sum()) - log_theta
                         - ((shape - 1) / alpha - rate) / n_documents))


@pytest.mark.parametrize("true_alpha", [[0.1, 0.1, 0.1], [1e-3, 0.5, 20.0], np.geomspace(0.01, 5, 12)])
@pytest.mark.parametrize("n_documents,shape,rate", [(1.0, 2.0, 1.0), (50.0, 3.0, 0.5), (1e4, 1.0, 2.0)])
def test_gamma_prior_update_solves_its_equation(true_alpha, n_documents, shape, rate):
    log_theta = digamma(np.asarray(true_alpha)) - digamma(np.sum(true_alpha))
    found = gamma_prior_alpha(log_theta, n_documents, shape, rate)
    assert np.all(found > 0)
    assert gamma_prior_residual(found, log_theta, n_documents, shape, rate) <= 1e-8
    # it is the maximiser of the MAP objective: nudging any alpha_k lowers it
    def objective(alpha):
        return (n_documents * (np.sum(alpha * log_theta) - sum(map(math.lgamma, alpha))
                               + math.lgamma(alpha.sum()))
                + np.sum((shape - 1) * np.log(alpha) - rate * alpha))
    for k in range(found.size):
        for factor in (0.999, 1.001):
            nudged = found.copy()
            nudged[k] *= factor
            assert objective(nudged) <= objective(found) + 1e-12


def test_gamma_prior_tends_to_the_fixed_point_and_is_a_part():
    log_theta = digamma(np.array([0.2, 0.7, 1.5])) - digamma(2.4)
    np.testing.assert_allclose(gamma_prior_alpha(log_theta, 1e12, 2.0, 1.0),
                               fixed_point_alpha(log_theta), rtol=1e-8)
    stats = SufficientStats(np.ones((4, 3)), log_theta, n_documents=30.0)
    np.testing.assert_allclose(GammaPrior(2.0, 1.0)(np.ones(3), stats),
                               gamma_prior_alpha(log_theta, 30.0, 2.0, 1.0))
    with pytest.raises(ValueError, match="shape"):
        GammaPrior(shape=0.5)


def test_newton_update_solves_its_equation_and_is_eq_9():
    true_alpha = np.array([0.05, 0.3, 2.0, 0.7])
    log_theta = digamma(true_alpha) - digamma(true_alpha.sum())
    alpha = 1.3 * true_alpha
    # one damped step is alpha - rho H^-1 g with the full Hessian
    gradient = digamma(alpha.sum()) - digamma(alpha) + log_theta
    hessian = np.diag(-polygamma(1, alpha)) + polygamma(1, alpha.sum())
    np.testing.assert_allclose(newton_alpha_step(alpha, log_theta, 0.3),
                               alpha - 0.3 * np.linalg.solve(hessian, gradient), rtol=1e-12)
    alpha = np.full(4, 1.0)
    for _ in range(60):  # rho = 1: Newton's method, kept positive by halving
        alpha = newton_alpha_step(alpha, log_theta, 1.0)
    np.testing.assert_allclose(digamma(alpha) - digamma(alpha.sum()), log_theta, atol=1e-10)
    np.testing.assert_allclose(alpha, true_alpha, rtol=1e-8)
    # the part uses the minibatch's own average s2 and the step size
    minibatch = MinibatchStats(np.arange(2), np.ones((2, 4)), 3 * log_theta, 3, 2)
    np.testing.assert_allclose(NewtonStep()(np.ones(4), None, minibatch, 0.5),
                               newton_alpha_step(np.ones(4), log_theta, 0.5))


def test_eta_newton_update_solves_its_equation():
    rng = np.random.default_rng(0)
    lam = rng.gamma(2.0, 3.0, size=(5, 40))
    eta = 1.0
    for _ in range(50):
        eta = newton_topic_word_prior(eta, lam, 1.0)
    n_topics, n_words = lam.shape
    elog_sum = (digamma(lam) - digamma(lam.sum(axis=1, keepdims=True))).sum()
    assert n_topics * n_words * (digamma(n_words * eta) - digamma(eta)) + elog_sum == \
        pytest.approx(0.0, abs=1e-8 * abs(elog_sum))
    assert 0 < newton_topic_word_prior(1.0, lam, 0.2) != 1.0


def test_eta_update_in_training_and_resume(tmp_path, small):
    model = OnlineLDA(3, method="olda", batch_size=30, local_passes=5, update_topic_word_prior=True,
                      averaging=True, random_state=3)
    batches = list(small.minibatches(30))
    model.corpus_size = small.n_documents
    for batch in batches[:2]:
        model.partial_fit(batch)
    assert model.topic_word_prior_ != pytest.approx(1 / 3)
    model.save(tmp_path / "olda.npz")
    loaded = OnlineLDA.load(tmp_path / "olda.npz")
    assert loaded.topic_word_prior_ == model.topic_word_prior_
    for batch in batches[2:]:
        model.partial_fit(batch)
        loaded.partial_fit(batch)
    np.testing.assert_array_equal(loaded.components_, model.components_)
    np.testing.assert_array_equal(loaded.transform(small[:10]), model.transform(small[:10]))


# --- corpus size of Bayesian methods -------------------------------------------------------------
@pytest.mark.parametrize("method", ["olda", "svb", "vargibbs", "batch-vb"])
def test_bayesian_partial_fit_without_corpus_size_raises(small, method):
    with pytest.raises(ValueError, match=f"method '{method}'.*corpus_size"):
        OnlineLDA(3, method=method).partial_fit(small)
    OnlineLDA(3, method=method, local_passes=3, corpus_size=500).partial_fit(small)  # given: runs
    with pytest.raises(ValueError, match="corpus_size"):
        OnlineLDA(3, method=method, corpus_size=0).fit(small)


def test_fit_fills_the_corpus_size_and_save_keeps_it(tmp_path, small):
    filled = OnlineLDA(3, method="olda", batch_size=40, local_passes=4, n_passes=1,
                       random_state=0).fit(small)
    given = OnlineLDA(3, method="olda", batch_size=40, local_passes=4, n_passes=1, random_state=0,
                      corpus_size=small.n_documents).fit(small)
    np.testing.assert_array_equal(filled.components_, given.components_)
    assert filled.corpus_size is None and filled._engine.parameters.corpus_size == small.n_documents
    other = OnlineLDA(3, method="olda", batch_size=40, local_passes=4, n_passes=1, random_state=0,
                      corpus_size=10 * small.n_documents).fit(small)
    assert not np.allclose(other.components_, filled.components_)
    filled.save(tmp_path / "model.npz")
    loaded = OnlineLDA.load(tmp_path / "model.npz")
    assert loaded._engine.parameters.corpus_size == small.n_documents
    np.testing.assert_array_equal(loaded.transform(small[:10]), filled.transform(small[:10]))


# --- composition ---------------------------------------------------------------------------------
COMBINATIONS = [Method(local, parameters, step, alpha, boosted, name="custom")
                for local, parameters, step, alpha, boosted in itertools.product(
                    LOCAL_ESTIMATORS, GLOBAL_PARAMETERS, STEP_SIZES, ALPHA_UPDATES, (False, True))]


def test_every_combination_of_the_axes_runs(small):
    """All 3 x 2 x 3 x 4 x 2 user-built methods (and full-batch ones) train and give topics."""
    corpus = small[:60]
    methods = COMBINATIONS + [Method(local, parameters, "constant", alpha, False, "custom-batch", True)
                              for local, parameters, alpha in itertools.product(
                                  LOCAL_ESTIMATORS, GLOBAL_PARAMETERS, ALPHA_UPDATES)]
    for method in methods:
        model = OnlineLDA(3, method=method, batch_size=20, local_passes=4, n_passes=2,
                          random_state=0).fit(corpus)
        beta = model.components_
        assert np.all(np.isfinite(beta)) and np.all(beta >= 0), method
        np.testing.assert_allclose(beta.sum(axis=1), 1.0, err_msg=str(method))
        assert np.all(model.doc_topic_prior_ > 0) and np.all(np.isfinite(model.doc_topic_prior_))
        assert model.n_steps_ == (2 if method.full_batch else 6)
    with pytest.raises(ValueError, match="boosted"):
        OnlineLDA(3, method=Method(boosted=True, full_batch=True)).fit(corpus)


def test_parts_are_the_presets_axes():
    assert set(BASELINES) <= set(PRESETS)
    assert PRESETS["sgs"].local == "gibbs-last-sample" and PRESETS["splda"].boosted
    assert isinstance(GLOBAL_PARAMETERS["dirichlet"]({"corpus_size": 10, "topic_word_prior": 0.1}),
                      VariationalDirichlet)


def test_variational_random_start_is_per_document_and_reproducible(small):
    """random_start (as gensim and scikit-learn): gamma_0 ~ Gamma(100, 1/100) from the document's
    own stream, so a split minibatch still merges to the unsplit one."""
    estimator = VariationalEstimator(passes=1, random_start=True)
    batch = Minibatch.from_counts(small.counts[30:40], first_document=30)
    run = estimator.begin(batch, 3, seed=7, minibatch_index=4)
    run._start_gamma(np.full(3, 0.1))
    np.testing.assert_array_equal(run.doc_gamma[2], np.random.default_rng([7, 4, 32]).gamma(100.0, 0.01, 3))
    weights = np.random.default_rng(0).random((batch.words.size, 3))

    def statistics(rows, first):
        part = Minibatch.from_counts(small.counts[rows], first_document=first)
        run = VariationalEstimator(passes=5, random_start=True).begin(part, 3, 7, 4)
        run.advance(weights[np.searchsorted(batch.words, part.words)], np.full(3, 0.1), 5)
        return run.statistics()

    whole = statistics(slice(30, 40), 30)
    merged = statistics(slice(30, 34), 30).merge(statistics(slice(34, 40), 34))
    np.testing.assert_allclose(merged.word_topic, whole.word_topic, rtol=1e-12)
