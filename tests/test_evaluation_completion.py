"""Document completion (Papanikolaou et al. 2017, section 5.2), standard and theta^p estimators."""

import numpy as np
import pytest

import naive
from streamtopics import Corpus, InputError, generate_synthetic
from streamtopics.evaluation import document_completion
from streamtopics.kernels.evaluation import completion_kernel
from streamtopics.kernels.random import new_stream

from helpers import numba_threads


def tiny_model():
    rng = np.random.default_rng(0)
    beta = rng.dirichlet(np.full(6, 0.5), size=3)
    return beta, np.array([0.3, 0.5, 0.2]), rng


@pytest.mark.parametrize("estimator", ["standard", "p"])
def test_one_held_out_token_converges_to_the_exact_conditional(estimator):
    # With one observed and one held-out token, p(w_2 | w_1) = sum_k E[theta_k | w_1] beta_{k,w_2}
    # exactly, and both estimators are unbiased for E[theta | w_1]: the average converges to
    # exp(log p(w_1, w_2) - log p(w_1)).
    beta, alpha, rng = tiny_model()
    for _ in range(4):
        document = rng.integers(0, 6, size=2)
        exact = np.exp(naive.exact_log_likelihood(beta, alpha, document)
                       - naive.exact_log_likelihood(beta, alpha, document[:1]))
        copies = 3000
        corpus_pair = (np.tile(document, copies), np.arange(copies + 1) * 2)
        result = document_completion(beta, alpha, corpus_pair, burn_in=2, n_samples=3, lag=1,
                                     estimator=estimator, seed=3)
        probabilities = np.exp(result.log_likelihoods)
        standard_error = probabilities.std(ddof=1) / np.sqrt(copies)
        assert abs(probabilities.mean() - exact) < 4.5 * standard_error + 1e-12


def test_theta_p_has_lower_variance_than_the_standard_estimator():
    # Rao-Blackwellisation (Papanikolaou et al., eq. 33): with a single sample, the soft counts
    # give a less noisy estimate of the same quantity.
    corpus, truth = generate_synthetic(5, 60, 1, mean_length=40, seed=2)
    document = corpus.document_tokens()[0]
    copies = 400
    pair = (np.tile(document, copies), np.arange(copies + 1) * document.size)
    spread = {estimator: document_completion(truth.beta, truth.alpha, pair, burn_in=20,
                                             n_samples=1, estimator=estimator,
                                             seed=1).log_likelihoods.std()
              for estimator in ("standard", "p")}
    assert spread["p"] < 0.8 * spread["standard"]


@pytest.mark.parametrize("estimator", ["standard", "p"])
def test_true_model_beats_perturbed_models_paired(estimator):
    corpus, truth = generate_synthetic(5, 100, 120, mean_length=40, alpha=0.1, seed=11)
    rng = np.random.default_rng(12)
    noisy_beta = 0.6 * truth.beta + 0.4 * rng.dirichlet(np.ones(100), size=5)

    def score(beta, alpha):
        return document_completion(beta, alpha, corpus, burn_in=10, n_samples=5, lag=2,
                                   estimator=estimator, seed=0).log_likelihoods

    true_scores = score(truth.beta, truth.alpha)
    for beta, alpha in ((noisy_beta, truth.alpha), (truth.beta, 10 * truth.alpha)):
        differences = true_scores - score(beta, alpha)
        assert differences.mean() > 4 * differences.std(ddof=1) / np.sqrt(differences.size) > 0


@pytest.mark.parametrize("soft_counts", [False, True])
def test_kernel_matches_numpy_twin_on_the_same_stream(soft_counts):
    rng = np.random.default_rng(4)
    beta = rng.dirichlet(np.full(9, 0.3), size=4)
    alpha = rng.uniform(0.05, 1.0, size=4)
    beta_by_word = np.ascontiguousarray(beta.T)
    documents = [rng.integers(0, 9, size=n) for n in (0, 1, 2, 9, 16)]
    flat = np.concatenate(documents)
    offsets = np.concatenate([[0], np.cumsum([d.size for d in documents])])
    n_observed = np.diff(offsets) // 2
    kernel = completion_kernel(beta_by_word, alpha, flat, offsets, n_observed, 3, 2, 2,
                               soft_counts, 8, 0)
    for d, document in enumerate(documents):
        twin = naive.completion_document(beta_by_word, alpha, document, n_observed[d], 3, 2, 2,
                                         soft_counts, new_stream(8, 0, d))
        assert kernel[d] == pytest.approx(twin, rel=1e-12, abs=1e-12)


def test_halves_determinism_and_threads(monkeypatch):
    corpus, truth = generate_synthetic(4, 40, 15, mean_length=21, seed=5)
    runs = []
    for n_threads in (1, 2):
        with numba_threads(n_threads):
            runs.append(document_completion(truth.beta, truth.alpha, corpus, burn_in=5,
                                            n_samples=2, estimator="p", seed=3))
    assert np.array_equal(runs[0].log_likelihoods, runs[1].log_likelihoods)
    lengths = corpus.document_lengths
    assert np.array_equal(runs[0].document_lengths, lengths - lengths // 2)
    assert runs[0].method == "document-completion (p)"
    monkeypatch.setattr("streamtopics.evaluation._inputs.PROGRESS_CHUNK", 4)
    chunked = document_completion(truth.beta, truth.alpha, corpus, burn_in=5, n_samples=2,
                                  estimator="p", seed=3, progress=lambda n: None)
    assert np.array_equal(chunked.log_likelihoods, runs[0].log_likelihoods)


def test_bag_of_words_documents_are_shuffled_before_splitting():
    corpus, truth = generate_synthetic(3, 30, 10, mean_length=20, seed=6)
    bag = Corpus(corpus.counts)
    result = document_completion(truth.beta, truth.alpha, bag, burn_in=2, n_samples=1, seed=2)
    assert result.settings["token_order"] == "bag of words, shuffled within documents"
    word_ids, offsets = bag.document_tokens()
    # not the ascending-order split: the held-out halves are not the high word ids
    ascending = document_completion(truth.beta, truth.alpha, (word_ids, offsets), burn_in=2,
                                    n_samples=1, seed=2)
    assert not np.array_equal(result.log_likelihoods, ascending.log_likelihoods)


def test_one_topic_one_word_model_and_bad_input():
    corpus = Corpus.from_token_lists([[0] * n for n in (1, 2, 5)], ["only"])
    result = document_completion(np.ones((1, 1)), 1.0, corpus)
    assert np.array_equal(result.log_likelihoods, np.zeros(3)) and result.per_token_perplexity == 1
    with pytest.raises(InputError, match="estimator"):
        document_completion(np.ones((1, 1)), 1.0, corpus, estimator="q")
    with pytest.raises(InputError, match="n_samples"):
        document_completion(np.ones((1, 1)), 1.0, corpus, n_samples=0)
