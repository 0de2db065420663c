"""The held-out ELBO of Hoffman et al. (2010, eq. 16): a lower bound, computed as the paper does."""

import numpy as np
import pytest
from scipy.special import digamma as scipy_digamma

import naive
from streamtopics import Corpus, InputError, generate_synthetic
from streamtopics.evaluation import elbo, left_to_right
from streamtopics.kernels.evaluation import digamma, elbo_kernel


def test_digamma_matches_scipy():
    for x in (1e-4, 0.01, 0.3, 1.0, 2.5, 5.999, 6.0, 17.0, 1e3, 1e7):
        assert digamma(x) == pytest.approx(scipy_digamma(x), rel=1e-12, abs=1e-12)


def test_bound_never_exceeds_the_exact_log_likelihood_on_tiny_models():
    rng = np.random.default_rng(0)
    for _ in range(5):
        n_topics = int(rng.integers(2, 4))
        beta = rng.dirichlet(np.full(6, 0.5), size=n_topics)
        alpha = rng.uniform(0.1, 2.0, size=n_topics)
        documents = [rng.integers(0, 6, size=n) for n in (1, 3, 5, 5)]
        bounds = elbo(beta, alpha, Corpus.from_token_lists(documents, n_words=6),
                      max_iterations=500, tolerance=1e-10).bounds
        for bound, document in zip(bounds, documents):
            exact = naive.exact_log_likelihood(beta, alpha, document)
            assert bound <= exact + 1e-9
            assert bound > exact - 2.0  # and not absurdly loose on 5 tokens


def test_single_topic_bound_is_exact():
    beta = np.array([[0.5, 0.25, 0.125, 0.125]])
    document = np.array([0, 1, 1, 3, 2, 0])
    result = elbo(beta, 0.7, (document, [0, document.size]))
    assert result.bounds[0] == pytest.approx(np.log(beta[0, document]).sum(), rel=1e-12)


def test_kernel_matches_numpy_twin_with_explicit_phi():
    corpus, truth = generate_synthetic(4, 30, 6, mean_length=25, alpha=0.3, seed=3)
    log_beta = np.log(truth.beta)
    shift = log_beta.max(axis=0)
    shifted = np.ascontiguousarray(np.exp(log_beta.T - shift[:, None]))
    counts = corpus.counts
    kernel = elbo_kernel(shifted, shift, truth.alpha, counts.indptr.astype(np.int64),
                         counts.indices.astype(np.int64), counts.data.astype(np.float64), 50, 1e-6)
    for d in range(corpus.n_documents):
        row = counts[d]
        twin = naive.elbo_document(log_beta, truth.alpha, row.indices, row.data.astype(float),
                                   50, 1e-6)
        assert kernel[d] == pytest.approx(twin, rel=1e-9)


def test_bound_is_below_the_left_to_right_estimate_on_synthetic_data():
    corpus, truth = generate_synthetic(5, 80, 40, mean_length=30, alpha=0.2, seed=8)
    bounds = elbo(truth.beta, truth.alpha, corpus).bounds
    estimates = left_to_right(truth.beta, truth.alpha, corpus, n_particles=20,
                              resample=True).log_likelihoods
    differences = estimates - bounds
    assert differences.mean() > 4 * differences.std(ddof=1) / np.sqrt(differences.size)


def test_variational_topics_and_the_corpus_level_term():
    corpus, truth = generate_synthetic(3, 20, 10, mean_length=15, seed=4)
    point = elbo(truth.beta, truth.alpha, corpus).bounds
    # q(beta) = Dirichlet(c beta) concentrates on beta as c grows: E_q[log beta] -> log beta
    concentrated = elbo(1e7 * truth.beta + 1e-3, truth.alpha, corpus, eta=0.01).bounds
    assert np.allclose(concentrated, point, rtol=1e-4)
    lam = np.random.default_rng(1).gamma(2.0, 1.0, size=(3, 20))
    without = elbo(lam, truth.alpha, corpus, eta=0.5)
    with_term = elbo(lam, truth.alpha, corpus, eta=0.5, corpus_size=100)
    assert np.all(with_term.bounds < without.bounds)  # -KL(q(beta) || p(beta)) / D < 0
    assert "1/100" in with_term.description and "corpus-level" in with_term.description
    # with q(beta) equal to the prior, the corpus-level term is zero
    prior = elbo(np.full((3, 20), 0.5), truth.alpha, corpus, eta=0.5)
    same = elbo(np.full((3, 20), 0.5), truth.alpha, corpus, eta=0.5, corpus_size=7)
    assert np.allclose(prior.bounds, same.bounds, rtol=0, atol=1e-10)


def test_result_is_a_bound_never_a_perplexity():
    corpus = Corpus.from_token_lists([[0, 0, 0]], ["only"])
    result = elbo(np.ones((1, 1)), 1.0, corpus)
    assert result.bounds[0] == 0.0 and result.bound_per_token == 0.0
    assert "perplexity" not in str(result).lower()
    assert not any("perplexity" in key for key in result.as_dict())


def test_bad_input():
    corpus = Corpus.from_token_lists([[0, 1]], n_words=2)
    with pytest.raises(InputError, match="corpus_size"):
        elbo(np.full((1, 2), 0.5), 1.0, corpus, corpus_size=10)
    with pytest.raises(InputError, match="lambda"):
        elbo(np.zeros((1, 2)), 1.0, corpus, eta=0.1)
    with pytest.raises(InputError, match="vocabulary"):
        elbo(np.full((1, 3), 1 / 3), 1.0, corpus)
