"""Left-to-right (Wallach et al. 2009, Algorithm 3) and its SMC variant against exact values."""

import numpy as np
import pytest

import naive
from streamtopics import Corpus, InputError, generate_synthetic
from streamtopics.evaluation import left_to_right
from streamtopics.kernels.evaluation import left_to_right_document, left_to_right_kernel
from streamtopics.kernels.random import new_stream

from helpers import numba_threads


def tiny_model(seed=0):
    rng = np.random.default_rng(seed)
    beta = rng.dirichlet(np.full(6, 0.5), size=3)  # K = 3, V = 6
    alpha = np.array([0.3, 0.5, 0.2])
    documents = [rng.integers(0, 6, size=n) for n in (5, 5, 4, 5, 3)]
    return beta, alpha, documents


def replicated_estimates(beta, alpha, document, n_particles, resample, copies, seed=1,
                         sparse=False):
    """Independent estimates of log p(document): one per copy, each with its own stream."""
    word_ids = np.tile(document, copies)
    offsets = np.arange(copies + 1, dtype=np.int64) * document.size
    return left_to_right_kernel(np.ascontiguousarray(beta.T), alpha, word_ids, offsets,
                                n_particles, resample, seed, 0, sparse)


def test_smc_estimate_of_p_is_unbiased_against_exact_enumeration():
    beta, alpha, documents = tiny_model()
    for document in documents:
        exact = naive.exact_log_likelihood(beta, alpha, document)
        for n_particles in (1, 20):
            ratios = np.exp(replicated_estimates(beta, alpha, document, n_particles, True, 20000)
                            - exact)
            standard_error = ratios.std(ddof=1) / np.sqrt(ratios.size)
            # E[p_hat] = p exactly: the mean ratio is 1 within Monte Carlo error
            assert abs(ratios.mean() - 1.0) < 4.5 * standard_error, (document, n_particles)


def test_algorithm_3_is_close_to_exact_and_converges_with_particles():
    beta, alpha, documents = tiny_model()
    for document in documents:
        exact = naive.exact_log_likelihood(beta, alpha, document)
        few = replicated_estimates(beta, alpha, document, 2, False, 4000)
        many = replicated_estimates(beta, alpha, document, 100, False, 4000)
        # the spread over seeds shrinks like 1/sqrt(R) (sqrt(50) ~ 7; ask for a factor 4)
        assert many.std() < few.std() / 4
        # Algorithm 3 does not weight its particles, so it keeps a small bias as R grows
        # (Buntine 2009); on 5-token documents it stays within 0.12 nats (measured <= 0.08)
        log_mean_p = np.log(np.mean(np.exp(many - exact)))
        assert abs(log_mean_p) < 0.12, (document, log_mean_p)
        # and the log estimate itself is close: Jensen's bias ~ var / 2 is small at R = 100
        assert abs(many.mean() - exact) < 0.12 + 3 * many.std() / np.sqrt(many.size)


def test_smc_log_estimate_bias_shrinks_as_particles_grow():
    beta, alpha, documents = tiny_model()
    document = documents[0]
    exact = naive.exact_log_likelihood(beta, alpha, document)
    errors = [abs(replicated_estimates(beta, alpha, document, r, True, 4000).mean() - exact)
              for r in (1, 10, 100)]
    assert errors[0] > errors[1] > errors[2]
    assert errors[2] < 0.01


@pytest.mark.parametrize("resample", [False, True])
def test_kernel_matches_numpy_twin_on_the_same_stream(resample):
    rng = np.random.default_rng(3)
    beta = rng.dirichlet(np.full(8, 0.3), size=4)
    alpha = rng.uniform(0.05, 1.0, size=4)
    beta_by_word = np.ascontiguousarray(beta.T)
    documents = [rng.integers(0, 8, size=n) for n in (0, 1, 7, 12)]
    flat = np.concatenate(documents)
    offsets = np.concatenate([[0], np.cumsum([d.size for d in documents])])
    kernel = left_to_right_kernel(beta_by_word, alpha, flat, offsets, 5, resample, 42, 0, False)
    for d, document in enumerate(documents):
        twin = naive.left_to_right_document(beta_by_word, alpha, document, 5, resample,
                                            new_stream(42, 0, d))
        single = left_to_right_document(beta_by_word, alpha, document, 5, resample,
                                        new_stream(42, 0, d))
        assert kernel[d] == single
        assert kernel[d] == pytest.approx(twin, rel=1e-12, abs=1e-12)
    assert kernel[0] == 0.0  # an empty document has probability 1


@pytest.mark.parametrize("sampler", ["dense", "sparse"])
def test_same_seed_same_result_and_threads_do_not_matter(sampler):
    corpus, truth = generate_synthetic(4, 40, 12, mean_length=25, seed=5)
    results = []
    for n_threads in (1, 2, 1):
        with numba_threads(n_threads):
            results.append(left_to_right(truth.beta, truth.alpha, corpus, n_particles=4,
                                         resample=True, seed=9, sampler=sampler).log_likelihoods)
    assert np.array_equal(results[0], results[1]) and np.array_equal(results[0], results[2])
    by_argument = left_to_right(truth.beta, truth.alpha, corpus, n_particles=4, resample=True,
                                seed=9, n_jobs=1, sampler=sampler).log_likelihoods
    assert np.array_equal(by_argument, results[0])
    other = left_to_right(truth.beta, truth.alpha, corpus, n_particles=4, resample=True, seed=10,
                          sampler=sampler)
    assert not np.array_equal(other.log_likelihoods, results[0])


def test_sparse_sampler_is_unbiased_against_exact_enumeration():
    """The two-bucket sampler runs the same algorithm: SMC's estimate of p is unbiased, and
    Algorithm 3's log estimates have the dense sampler's mean."""
    beta, alpha, documents = tiny_model()
    for document in documents:
        exact = naive.exact_log_likelihood(beta, alpha, document)
        ratios = np.exp(replicated_estimates(beta, alpha, document, 5, True, 20000, sparse=True)
                        - exact)
        assert abs(ratios.mean() - 1.0) < 4.5 * ratios.std(ddof=1) / np.sqrt(ratios.size)
        sparse, dense = (replicated_estimates(beta, alpha, document, 10, False, 4000,
                                              sparse=flag) for flag in (True, False))
        error = np.sqrt((sparse.var(ddof=1) + dense.var(ddof=1)) / sparse.size)
        assert abs(sparse.mean() - dense.mean()) < 4.5 * error, document


@pytest.mark.parametrize("resample", [False, True])
def test_sparse_and_dense_samplers_agree_with_many_topics(resample):
    """K = 40 (topics enter and leave each particle's present list): 3000 independent log
    estimates of one 15-token document from each sampler have the same mean."""
    rng = np.random.default_rng(8)
    beta = rng.dirichlet(np.full(30, 0.1), size=40)
    alpha = rng.uniform(0.01, 0.2, size=40)
    document = rng.integers(0, 30, size=15)
    sparse, dense = (replicated_estimates(beta, alpha, document, 4, resample, 3000, seed=3,
                                          sparse=flag) for flag in (True, False))
    error = np.sqrt((sparse.var(ddof=1) + dense.var(ddof=1)) / sparse.size)
    assert abs(sparse.mean() - dense.mean()) < 4.5 * error
    assert not np.array_equal(sparse, dense)
    assert left_to_right(beta, alpha, (document, [0, 15])).settings["sampler"] == "sparse"
    assert left_to_right(beta[:3] / beta[:3].sum(1, keepdims=True), alpha[:3],
                         (document, [0, 15])).settings["sampler"] == "dense"


def test_progress_chunks_do_not_change_results(monkeypatch):
    corpus, truth = generate_synthetic(3, 30, 11, mean_length=10, seed=6)
    whole = left_to_right(truth.beta, truth.alpha, corpus, n_particles=3, seed=2)
    monkeypatch.setattr("streamtopics.evaluation._inputs.PROGRESS_CHUNK", 4)
    done = []
    chunked = left_to_right(truth.beta, truth.alpha, corpus, n_particles=3, seed=2,
                            progress=done.append)
    assert done == [4, 4, 3]
    assert np.array_equal(whole.log_likelihoods, chunked.log_likelihoods)


@pytest.mark.parametrize("resample", [False, True])
def test_true_model_beats_perturbed_models_paired(resample):
    corpus, truth = generate_synthetic(5, 100, 120, mean_length=30, alpha=0.1, seed=11)
    rng = np.random.default_rng(12)
    noisy_beta = 0.6 * truth.beta + 0.4 * rng.dirichlet(np.ones(100), size=5)
    score = (lambda beta, alpha: left_to_right(beta, alpha, corpus, n_particles=10,
                                               resample=resample, seed=0).log_likelihoods)
    true_scores = score(truth.beta, truth.alpha)
    for beta, alpha in ((noisy_beta, truth.alpha), (truth.beta, 10 * truth.alpha)):
        differences = true_scores - score(beta, alpha)
        standard_error = differences.std(ddof=1) / np.sqrt(differences.size)
        assert differences.mean() > 4 * standard_error > 0


@pytest.mark.parametrize("sampler", ["dense", "sparse"])
def test_one_topic_one_word_model_has_likelihood_one_and_perplexity_one(sampler):
    corpus = Corpus.from_token_lists([[0] * n for n in (1, 3, 7)], ["only"])
    for resample in (False, True):
        result = left_to_right(np.ones((1, 1)), [0.5], corpus, n_particles=3, resample=resample,
                               sampler=sampler)
        assert np.array_equal(result.log_likelihoods, np.zeros(3))
        assert result.per_token_perplexity == 1.0
        assert result.n_tokens == 11 and result.n_documents == 3


@pytest.mark.parametrize("sampler", ["dense", "sparse"])
def test_single_topic_model_is_exact_with_one_particle(sampler):
    # with K = 1 every token's topic is known: log p(w) = sum_n log beta_{w_n}
    beta = np.array([[0.5, 0.25, 0.125, 0.125]])
    document = np.array([0, 1, 1, 3, 2, 0])
    result = left_to_right(beta, [1.0], (document, [0, document.size]), n_particles=1,
                           sampler=sampler)
    assert result.log_likelihoods[0] == pytest.approx(np.log(beta[0, document]).sum(), rel=1e-12)


def test_token_order_and_bag_of_words_order_estimate_the_same_quantity():
    beta, alpha, documents = tiny_model(1)
    document = documents[0]
    exact = naive.exact_log_likelihood(beta, alpha, document)
    reversed_estimates = replicated_estimates(beta, alpha, document[::-1].copy(), 20, True, 20000)
    ratios = np.exp(reversed_estimates - exact)
    assert abs(ratios.mean() - 1) < 4.5 * ratios.std(ddof=1) / np.sqrt(ratios.size)
    bag = Corpus(Corpus.from_token_lists([document], n_words=6).counts)
    assert left_to_right(beta, alpha, bag).settings["token_order"].startswith("bag of words")


def test_max_tokens_scores_only_the_first_tokens():
    beta, alpha, documents = tiny_model()
    corpus = Corpus.from_token_lists(documents, n_words=6)
    capped = left_to_right(beta, alpha, corpus, n_particles=3, max_tokens=2, seed=4)
    prefixes = Corpus.from_token_lists([d[:2] for d in documents], n_words=6)
    expected = left_to_right(beta, alpha, prefixes, n_particles=3, seed=4)
    assert np.array_equal(capped.log_likelihoods, expected.log_likelihoods)
    assert capped.n_tokens == 2 * len(documents)


@pytest.mark.parametrize("sampler", ["dense", "sparse"])
def test_word_no_topic_can_emit_gives_minus_infinity(sampler):
    beta = np.array([[0.5, 0.5, 0.0], [0.25, 0.75, 0.0]])
    result = left_to_right(beta, [1.0, 1.0], ([0, 2, 1], [0, 3]), n_particles=2,
                           sampler=sampler)
    assert result.log_likelihoods[0] == -np.inf


def test_bad_input_is_refused_clearly():
    beta, alpha, documents = tiny_model()
    corpus = Corpus.from_token_lists(documents, n_words=6)
    with pytest.raises(InputError, match="vocabulary"):
        left_to_right(np.full((3, 7), 1 / 7), alpha, corpus)
    with pytest.raises(InputError, match="sum to 1"):
        left_to_right(beta * 2, alpha, corpus)
    with pytest.raises(InputError, match="alpha"):
        left_to_right(beta, [1.0, -1.0, 1.0], corpus)
    with pytest.raises(InputError, match="n_particles"):
        left_to_right(beta, alpha, corpus, n_particles=0)
    with pytest.raises(InputError, match="seed"):
        left_to_right(beta, alpha, corpus, seed=-1)
    with pytest.raises(InputError, match="word ids"):
        left_to_right(beta, alpha, ([0, 9], [0, 2]))
    with pytest.raises(InputError, match="max_tokens"):
        left_to_right(beta, alpha, corpus, max_tokens=0)
