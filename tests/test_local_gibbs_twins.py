"""The local Gibbs kernels of G-OEM against their NumPy twins (tests/naive.py) and against
exact enumeration.

Equality, where kernel and twin make the same draws from the same streams: the initial sample,
the sparse two-bucket kernel, the Metropolis-Hastings chain (with the kernel's alias tables)
and the end-state statistics, on small random minibatches, with and without topic masks.

Distribution, where the sparse and MH chains draw differently from the dense kernel: on a tiny
model (K = 3, one document of 4 tokens, 81 assignments) every chain must sample
p(z | w, beta, alpha) proportional to prod_k Gamma(alpha_k + n_k) prod_n beta_{w_n z_n},
enumerated. Each statistical test runs at a fixed seed (so it never flakes) and asserts a
p-value above 1e-3, its false-alarm level."""

import naive
import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import digamma
from scipy.stats import f as f_distribution
from scipy.stats import power_divergence

import local_gibbs_calls as calls
from helpers import random_minibatch
from streamtopics.inference.minibatch import Minibatch

LEVEL = 1e-3  # false-alarm level of every statistical test here
SEED, MINIBATCH = 7, 3  # the streams of the equality tests


def planted_weights(rng, n_words, n_topics):
    """beta_w rows with zeros (a fifth of them) and no all-zero row."""
    weights = rng.random((n_words, n_topics)) * (rng.random((n_words, n_topics)) < 0.8)
    weights[np.arange(n_words), rng.integers(n_topics, size=n_words)] += 0.05
    return weights


def random_mask(rng, n_documents, n_topics):
    """Every third document restricted to 1-3 allowed topics, the others free (weights then
    need no zeros: a word may have none of its mass on a document's allowed topics)."""
    return [np.sort(rng.choice(n_topics, min(n_topics, rng.integers(1, 4)), replace=False))
            if d % 3 == 1 and n_topics > 1 else np.arange(n_topics)
            for d in range(n_documents)]


def twin_arguments(batch):
    return batch.doc_ptr, batch.entry_word, batch.entry_count


# --- equality: the same draws --------------------------------------------------------------------
@pytest.mark.parametrize("masked", [False, True])
@pytest.mark.parametrize("n_topics", [1, 6, 13, 100])
def test_initial_samples_equal_the_twin(n_topics, masked):
    """z^0 bit for bit for any number of threads (a restricted document's tokens untouched:
    -1); the smoothing totals s_w to rounding (rtol 1e-14: the kernel's sum is vectorised,
    the twin's runs in topic order)."""
    rng = np.random.default_rng(n_topics)
    batch = random_minibatch(rng, n_docs=12, n_words=30, mean_length=20, empty=(1, 7))
    weights = planted_weights(rng, batch.words.size, n_topics)
    alpha = rng.uniform(0.01, 0.5, n_topics)
    mask = random_mask(rng, 12, n_topics) if masked else None
    twin_z, twin_smoothing = naive.initial_samples(*twin_arguments(batch), weights, alpha, SEED,
                                                   MINIBATCH, batch.first_document, mask)
    assert (twin_z == -1).any() == (masked and n_topics > 1)
    for n_threads in (0, 1, 3):
        z, smoothing = calls.initial_samples(batch, weights, alpha, SEED, MINIBATCH, mask,
                                             n_threads)
        np.testing.assert_array_equal(z, twin_z)
        np.testing.assert_allclose(smoothing, twin_smoothing, rtol=1e-14)


def assert_equal_to_twin(kernel, twin, record_sample):
    """Samples, counts and (``record_sample``) hard counts bit for bit; the recorded conditionals
    and s2 to rounding (1e-12: the kernels sum the conditionals factorised, normalised by the
    vectorised s_w, and take digamma(alpha_k + n) by recurrence, which leaves s2 of one topic,
    exactly 0, at a few 1e-14)."""
    np.testing.assert_array_equal(kernel[0], twin[0])
    np.testing.assert_array_equal(kernel[1], twin[1])
    if record_sample:
        np.testing.assert_array_equal(kernel[2], twin[2])
    else:
        np.testing.assert_allclose(kernel[2], twin[2], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(kernel[3], twin[3], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("masked", [False, True])
@pytest.mark.parametrize("record_sample", [False, True])
@pytest.mark.parametrize("n_topics", [1, 5, 40])
def test_sparse_kernel_equals_the_twin(n_topics, record_sample, masked):
    """The two-bucket kernel's chain is `naive.sparse_gibbs_sweeps`'s: the same sample and
    counts after 8 passes, the same hard counts of the recorded passes 5-7, their conditionals
    and s2 to rounding. A draw could differ only where a target fell within rounding of a
    bucket boundary (s_w is summed in another order): never at these seeds."""
    rng = np.random.default_rng(10 + n_topics)
    batch = random_minibatch(rng, n_docs=10, n_words=20, mean_length=15)
    weights = planted_weights(rng, batch.words.size, n_topics)
    alpha = rng.uniform(0.02, 0.4, n_topics)
    mask = random_mask(rng, 10, n_topics) if masked else None
    weights += 1e-3 * masked
    kernel = calls.gibbs_sweeps(batch, weights, alpha, 8, 5, sampler="sparse",
                                record_sample=record_sample, seed=SEED, minibatch=MINIBATCH,
                                mask=mask)
    twin = naive.sparse_gibbs_sweeps(*twin_arguments(batch), weights, alpha, SEED, MINIBATCH,
                                     batch.first_document, 8, 5, mask, record_sample)
    assert_equal_to_twin(kernel, twin, record_sample)


@pytest.mark.parametrize("masked", [False, True])
@pytest.mark.parametrize("record_sample", [False, True])
@pytest.mark.parametrize("cycles", [1, 2])
@pytest.mark.parametrize("n_topics", [5, 40])
def test_mh_chain_equals_the_twin(n_topics, cycles, record_sample, masked):
    """The MH chain is `naive.mh_gibbs_sweeps`'s with the kernel's alias tables: the same
    proposals, acceptances and samples; the recorded results as for the sparse kernel."""
    rng = np.random.default_rng(20 + n_topics + cycles)
    batch = random_minibatch(rng, n_docs=10, n_words=20, mean_length=15)
    weights = planted_weights(rng, batch.words.size, n_topics)
    alpha = rng.uniform(0.02, 0.4, n_topics)
    mask = random_mask(rng, 10, n_topics) if masked else None
    weights += 1e-3 * masked
    kernel = calls.gibbs_sweeps(batch, weights, alpha, 8, 5, sampler="mh", cycles=cycles,
                                record_sample=record_sample, seed=SEED, minibatch=MINIBATCH,
                                mask=mask)
    twin = naive.mh_gibbs_sweeps(*twin_arguments(batch), weights, alpha,
                                 *calls.mh_tables(weights, alpha), cycles, SEED, MINIBATCH,
                                 batch.first_document, 8, 5, mask, record_sample)
    assert_equal_to_twin(kernel, twin, record_sample)


def chain_state(rng, batch, n_topics):
    """A sample whose documents have one topic present, two or three, or any (the end-state
    kernel's three paths), and its counts."""
    token_topic = np.empty(batch.n_tokens, dtype=np.int64)
    counts = np.zeros((batch.n_documents, n_topics))
    for d in range(batch.n_documents):
        tokens = slice(batch.token_ptr[d], batch.token_ptr[d + 1])
        choices = [1, 3, n_topics][d % 3]
        topics = rng.choice(n_topics, min(choices, n_topics), replace=False)
        token_topic[tokens] = rng.choice(topics, batch.token_ptr[d + 1] - batch.token_ptr[d])
        counts[d] = np.bincount(token_topic[tokens], minlength=n_topics)
    return token_topic, counts


@pytest.mark.parametrize("record_entries", [False, True])
@pytest.mark.parametrize("n_topics", [1, 7, 40])
def test_end_state_statistics_equal_the_twin(n_topics, record_entries):
    """The word rows, entry rows and S_j bit for bit (the same operations in the same order);
    s2 to rounding (rtol 1e-12: digamma by recurrence in the kernel). With s_w = sum_k beta_wk
    alpha_k the twin's rows are the sums of the exact conditionals over each word's tokens (to
    rounding), which is what a recorded pass adds."""
    rng = np.random.default_rng(30 + n_topics)
    batch = random_minibatch(rng, n_docs=15, n_words=25, mean_length=30, empty=(4,))
    weights = planted_weights(rng, batch.words.size, n_topics)
    alpha = rng.uniform(0.01, 0.5, n_topics)
    token_topic, counts = chain_state(rng, batch, n_topics)
    smoothing = calls.smoothing_totals(weights, alpha)
    kernel = calls.end_state_statistics(batch, token_topic, counts, weights, alpha, smoothing,
                                        record_entries)
    twin = naive.end_state_statistics(*twin_arguments(batch), token_topic, counts, weights, alpha,
                                      smoothing)
    np.testing.assert_array_equal(kernel[0], twin[0])
    np.testing.assert_allclose(kernel[1], twin[1], rtol=1e-12, atol=1e-12)
    if record_entries:
        np.testing.assert_array_equal(kernel[2], twin[2])
        np.testing.assert_array_equal(kernel[3], twin[3])
    token_word = np.repeat(batch.entry_word, batch.entry_count)
    token_doc = np.repeat(np.arange(batch.n_documents), np.diff(batch.token_ptr))
    exact = np.zeros(weights.shape)
    for n, (w, d) in enumerate(zip(token_word, token_doc)):
        conditional = weights[w] * (counts[d] - np.eye(n_topics)[token_topic[n]] + alpha)
        exact[w] += conditional / conditional.sum()
    np.testing.assert_allclose(twin[0], exact, rtol=1e-12, atol=1e-14)


# --- distribution: exact enumeration on a tiny model ---------------------------------------------
BETA = np.array([[0.5, 0.3, 0.1, 0.1], [0.1, 0.2, 0.3, 0.4], [0.25, 0.25, 0.5, 0.0]])
ALPHA = np.array([0.2, 0.5, 0.9])
DOCUMENT = [2, 0, 1, 1]  # word counts: tokens (0, 0, 2, 3); topic 2 cannot emit word 3
SAMPLERS = {"dense": ("dense", 0), "sparse": ("sparse", 0), "mh 1 cycle": ("mh", 1),
            "mh 2 cycles": ("mh", 2)}


def copies_of_the_document(copies):
    """A minibatch of ``copies`` copies of DOCUMENT (each its own chain and stream) and the
    weights of its U = 3 words."""
    batch = Minibatch.from_counts(sp.csr_matrix(np.tile(DOCUMENT, (copies, 1))))
    return batch, np.ascontiguousarray(BETA[:, batch.words].T)


def exact_posterior():
    """Every assignment of the document's tokens (rows, in itertools.product order) and its
    probability p(z | w, beta, alpha)."""
    words = np.repeat(np.arange(len(DOCUMENT)), DOCUMENT)
    with np.errstate(divide="ignore"):
        return naive.document_posterior(words, BETA, ALPHA)


def exact_expectations():
    """E[s1] per entry (3 entries x K: the expected tokens of each word at each topic) and E[s2]
    under the exact posterior."""
    assignments, probability = exact_posterior()
    token_entry = np.repeat(np.arange(3), [2, 1, 1])
    s1 = np.zeros((3, ALPHA.size))
    s2 = np.zeros(ALPHA.size)
    for z, p in zip(assignments, probability):
        np.add.at(s1, (token_entry, z), p)
        counts = np.bincount(z, minlength=ALPHA.size)
        s2 += p * (digamma(ALPHA + counts) - digamma(ALPHA.sum() + z.size))
    return s1, s2


@pytest.mark.parametrize("sampler", SAMPLERS)
def test_samples_follow_the_exact_posterior(sampler):
    """4,000 independent chains (one document each, its own stream), the sample after 40
    passes: a G-test of its 81 cells against p(z | w, beta, alpha), cells expected below 5
    pooled, at level 1e-3; no impossible assignment ever drawn."""
    copies = 4000
    batch, weights = copies_of_the_document(copies)
    kind, cycles = SAMPLERS[sampler]
    token_topic = calls.gibbs_sweeps(batch, weights, ALPHA, 40, 40, sampler=kind, cycles=cycles,
                                     seed=11, minibatch=0)[0]
    codes = token_topic.reshape(copies, 4) @ (3 ** np.arange(3, -1, -1))
    observed = np.bincount(codes, minlength=81)
    expected = copies * exact_posterior()[1]
    assert observed[expected == 0].sum() == 0
    small = expected < 5
    observed = np.append(observed[~small], observed[small].sum())
    expected = np.append(expected[~small], expected[small].sum())
    assert power_divergence(observed, expected, lambda_="log-likelihood").pvalue > LEVEL


def hotelling_p_value(samples, mean):
    """p-value of Hotelling's T^2 test that the rows of ``samples`` (independent, C x p) have
    mean ``mean``: (C - p) / (p (C - 1)) T^2 ~ F(p, C - p)."""
    copies, dimension = samples.shape
    difference = samples.mean(axis=0) - mean
    statistic = copies * difference @ np.linalg.solve(np.cov(samples, rowvar=False), difference)
    scaled = (copies - dimension) / (dimension * (copies - 1)) * statistic
    return f_distribution.sf(scaled, dimension, copies - dimension)


@pytest.mark.parametrize("record_sample", [True, False])
@pytest.mark.parametrize("sampler", SAMPLERS)
def test_long_run_records_match_the_exact_expectations(sampler, record_sample):
    """2,000 independent chains, 30 burn-in passes, then 40 recorded passes each: every chain's
    average of what the recorded passes add, hard counts (RECORD_SAMPLE) or conditionals
    (RECORD_CONDITIONALS) per entry, and s2, has the exact expectations E[s1], E[s2] as its
    mean (Hotelling's T^2 over the chains, which are independent however correlated a chain's
    passes are, at level 1e-3). Components of expectation 0 (topic 2 at word 3) stay exactly 0;
    each entry's last topic is left out (its row sums to its count)."""
    copies, burn_in, recorded = 2000, 30, 40
    batch, weights = copies_of_the_document(copies)
    kind, cycles = SAMPLERS[sampler]
    _, _, entry_topic, log_theta = calls.gibbs_sweeps(
        batch, weights, ALPHA, burn_in + recorded, burn_in, sampler=kind, cycles=cycles,
        record_sample=record_sample, seed=13, minibatch=1)
    s1, s2 = exact_expectations()
    per_chain = entry_topic.reshape(copies, 3, ALPHA.size) / recorded
    assert np.all(per_chain[:, s1 == 0] == 0)
    free = (s1 > 0) & (np.cumsum(s1 > 0, axis=1) < (s1 > 0).sum(axis=1, keepdims=True))
    samples = np.hstack([per_chain[:, free], log_theta / recorded])
    assert hotelling_p_value(samples, np.concatenate([s1[free], s2])) > LEVEL
