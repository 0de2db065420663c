"""SGRLD (Patterson & Teh 2013), the thesis' LDS baseline: the Langevin update leaves the
Gamma(eta, 1) prior invariant without data, its drift is the Riemannian gradient of the log
posterior (checked by finite differences with the E-step enumerated exactly), and OnlineLDA's
"lds" preset learns a planted corpus."""

import itertools

import numpy as np
import pytest
from scipy import stats
from scipy.special import gammaln, logsumexp

from streamtopics.corpus.synthetic import generate_synthetic
from streamtopics.estimators import OnlineLDA, load_estimator
from streamtopics.inference.langevin import langevin_step, likelihood_gradient

pytestmark = pytest.mark.usefixtures("one_thread")


@pytest.mark.parametrize("prior", [2.0, 0.5])
def test_without_data_the_chain_samples_the_gamma_prior(prior):
    """20,000 independent chains from theta = 1, 3,000 steps of epsilon = 0.01 (15 relaxation
    times of the CIR diffusion d theta = (eta - theta)/2 dt + sqrt(theta) dW): the final states
    follow Gamma(eta, 1) (KS test; mean and variance eta within a few standard errors, wider at
    eta < 1 where the mirrored Euler scheme is only approximately right near 0)."""
    rng = np.random.default_rng(1)
    theta = np.ones((1, 20_000))
    zero = np.zeros_like(theta)
    for _ in range(3000):
        theta = langevin_step(theta, zero, 0.01, prior, rng)
    sample = theta.ravel()
    tolerance = 4 if prior >= 1 else 12
    assert abs(sample.mean() - prior) < tolerance * np.sqrt(prior / sample.size)
    assert abs(sample.var() - prior) < tolerance * np.sqrt(prior * (2 * prior + 6) / sample.size)
    if prior >= 1:
        assert stats.kstest(sample, stats.gamma(prior).cdf).pvalue > 1e-3


def log_posterior(theta, document, alpha, prior, copies):
    """log Gamma(eta, 1) prior of theta + ``copies`` times log p(document | beta(theta), alpha),
    theta_d collapsed: p(z) is Dirichlet-multinomial, enumerated over every z."""
    n_topics = theta.shape[0]
    beta = theta / theta.sum(axis=1, keepdims=True)
    terms = []
    for z in itertools.product(range(n_topics), repeat=len(document)):
        counts = np.bincount(z, minlength=n_topics)
        log_pz = (gammaln(alpha.sum()) - gammaln(alpha.sum() + len(document))
                  + np.sum(gammaln(alpha + counts) - gammaln(alpha)))
        terms.append(log_pz + np.sum(np.log(beta[list(z), document])))
    return np.sum((prior - 1) * np.log(theta) - theta) + copies * logsumexp(terms)


def expected_counts(theta, document, alpha):
    """E[n_kw] under p(z | document, beta(theta), alpha), by enumeration (K x V)."""
    n_topics = theta.shape[0]
    beta = theta / theta.sum(axis=1, keepdims=True)
    weights, tables = [], []
    for z in itertools.product(range(n_topics), repeat=len(document)):
        counts = np.bincount(z, minlength=n_topics)
        weights.append(np.sum(gammaln(alpha + counts)) + np.sum(np.log(beta[list(z), document])))
        table = np.zeros_like(theta)
        np.add.at(table, (list(z), document), 1.0)
        tables.append(table)
    weights = np.exp(np.array(weights) - logsumexp(weights))
    return np.tensordot(weights, np.array(tables), axes=1)


def test_drift_is_the_riemannian_gradient_of_the_log_posterior():
    """Noise off: (theta* - theta) / (epsilon/2) = theta * d/dtheta log p(theta | D copies of a
    3-token document) + 1 (the metric's correction), the gradient by central differences."""
    theta = np.array([[1.3, 0.4, 2.0], [0.7, 1.1, 0.5]])
    document, alpha, prior, copies = [0, 2, 2], np.array([0.3, 0.6]), 0.8, 5.0
    counts = expected_counts(theta, document, alpha)
    gradient = copies * likelihood_gradient(theta, counts, counts.sum(axis=1))
    drift = (langevin_step(theta, gradient, 1e-3, prior, None) - theta) / 0.5e-3
    numeric = np.zeros_like(theta)
    for index in np.ndindex(theta.shape):
        step = np.zeros_like(theta)
        step[index] = 1e-6
        numeric[index] = (log_posterior(theta + step, document, alpha, prior, copies)
                          - log_posterior(theta - step, document, alpha, prior, copies)) / 2e-6
    np.testing.assert_allclose(drift, theta * numeric + 1.0, rtol=1e-6, atol=1e-7)


def test_lds_preset_learns_a_planted_corpus_and_resumes_exactly(tmp_path):
    """K = 5 planted topics over 200 words: one pass of SGRLD (the 'lds' preset) scores held-out
    documents at least 10% better than the uniform model (N ln V nats); saved mid-stream and
    resumed, it ends bit-identical to the uninterrupted run."""
    corpus, _ = generate_synthetic(n_topics=5, n_words=200, n_documents=2200, mean_length=40,
                                   alpha=0.2, topic_concentration=0.05, seed=3)
    train, test = corpus.counts[:2000], corpus[2000:]
    model = OnlineLDA(5, method="lds", corpus_size=2000, batch_size=100, local_passes=20,
                      random_state=0).fit(train)
    uniform = test.n_tokens / test.n_documents * np.log(200)
    assert -model.score(test) < 0.9 * uniform
    make = lambda: OnlineLDA(5, method="lds", corpus_size=2000, batch_size=100, local_passes=8,
                             random_state=1)
    straight, first = make(), make()
    for start in range(0, 600, 100):
        straight.partial_fit(train[start:start + 100])
    for start in range(0, 300, 100):
        first.partial_fit(train[start:start + 100])
    first.save(tmp_path / "lds.npz")
    resumed = load_estimator(tmp_path / "lds.npz")
    for start in range(300, 600, 100):
        resumed.partial_fit(train[start:start + 100])
    np.testing.assert_array_equal(resumed.components_, straight.components_)
