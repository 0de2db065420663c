"""The local Gibbs E-step of G-OEM (Algorithm 2): kernel == NumPy twin, factorised == dense
recording, thread-count independence, and the expectations against exact enumeration (dense
and sparse kernels; the sparse kernel's own tests are in test_gibbs_estep_sparse.py)."""

import itertools

import naive
import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import digamma, gammaln

from streamtopics.inference.gibbs_estep import GibbsEstimator
from streamtopics.inference.minibatch import Minibatch
from streamtopics.inference.topic_mask import TopicMask, kernel_mask
from streamtopics.kernels.local_gibbs import (DENSE, EVERY_TOPIC, MH, RECORD_CONDITIONALS,
                                              RECORD_DENSE, RECORD_SAMPLE, SPARSE,
                                              AllowedTopics, ChainState, GlobalParameters,
                                              PassPlan, Recording, Sampler, StreamKey,
                                              gibbs_sweeps, initial_samples, smoothing_totals)
from streamtopics.kernels.local_gibbs.draws import (initial_sample, sample_topic,
                                                    sample_word_topic, word_chunk_sums)
from streamtopics.kernels.random import stream_seed

from helpers import numba_threads, random_minibatch


KERNELS = {"dense": Sampler(DENSE), "sparse": Sampler(SPARSE)}


def parameters(weights, alpha):
    """The kernels' `GlobalParameters` of ``weights`` and ``alpha``."""
    return GlobalParameters(weights, alpha, digamma(alpha), float(digamma(alpha.sum())))


def new_chain(batch, n_topics):
    """A `ChainState` of zeros (the kernels start it at pass 0)."""
    return ChainState(np.zeros(batch.n_tokens, dtype=np.int64),
                      np.zeros((batch.n_documents, n_topics)),
                      np.zeros(batch.n_documents, dtype=np.uint64))


def run_kernel(batch, weights, alpha, passes, record_from, mode=RECORD_CONDITIONALS, seed=7, minibatch=3,
               sampler=Sampler(DENSE)):
    n_topics = alpha.size
    chain = new_chain(batch, n_topics)
    recording = Recording(np.zeros((batch.n_entries, n_topics)),
                          np.zeros((batch.n_documents, n_topics)))
    gibbs_sweeps(batch.layout, parameters(weights, alpha),
                 StreamKey(seed, minibatch, batch.first_document),
                 PassPlan(0, passes, record_from, mode), chain, recording, sampler=sampler)
    return dict(token_topic=chain.token_topic, doc_topic_counts=chain.doc_topic_counts,
                rng_state=chain.rng_state, entry_topic=recording.entry_topic,
                doc_log_theta=recording.doc_log_theta)


@pytest.mark.parametrize("n_topics", [1, 3, 8, 13])
def testsample_topic_matches_twin_and_distribution(n_topics):
    rng = np.random.default_rng(n_topics)
    probabilities = rng.random(n_topics) * (rng.random(n_topics) < 0.7)
    probabilities[rng.integers(n_topics)] += 0.1
    padded = np.zeros(-(-n_topics // 8) * 8)
    padded[:n_topics] = probabilities
    chunk_sums = np.empty(padded.size // 8)
    uniforms = np.concatenate([[0.0, 1.0 - 2.0**-53], rng.random(4000)])
    draws = np.array([sample_topic(padded, chunk_sums, chunk_sums.size, u) for u in uniforms])
    assert all(d == naive.sample_topic(probabilities, u) for d, u in zip(draws, uniforms))
    assert np.all(probabilities[draws] > 0)
    frequencies = np.bincount(draws[2:], minlength=n_topics) / (uniforms.size - 2)
    expected = probabilities / probabilities.sum()
    assert np.all(np.abs(frequencies - expected) <= 5 * np.sqrt(expected * (1 - expected) / 4000) + 1e-12)


@pytest.mark.parametrize("n_topics", [1, 5, 8, 13, 100])
def test_initial_draw_from_word_chunk_sums_equalssample_topic(n_topics):
    """The initial sample's per-word draw (running totals of the chunk sums once per word,
    `word_chunk_sums`) is `sample_topic` on the zero-padded row, bit for bit: the same running
    totals of the same chunk sums, and the same topic for every uniform, rounding edges
    included."""
    rng = np.random.default_rng(n_topics)
    n_chunks = -(-n_topics // 8)
    rows = [rng.random(n_topics), rng.random(n_topics) * (rng.random(n_topics) < 0.3),
            np.zeros(n_topics)]
    last_only = np.zeros(n_topics)  # weight only in the last (possibly partial) chunk
    last_only[8 * (n_chunks - 1):] = rng.random(n_topics - 8 * (n_chunks - 1))
    rows.append(last_only)
    # Pairwise chunk sums exceed the sequential in-chunk walk: u near 1 takes the fallback
    # (the last positive topic of the chunk), here in the last chunk, before a zero if K allows.
    short = np.zeros(n_topics)
    tail = short[8 * (n_chunks - 1):]
    tail[0] = 1.0
    tail[1:tail.size - (tail.size >= 5)] = 1e-16
    rows.append(short)
    weights = np.array(rows)
    uniforms = np.concatenate([[0.0, 1e-300], 1.0 - np.arange(1, 9) * 2.0**-53, rng.random(2000)])
    table = word_chunk_sums(weights, n_topics)
    assert table.shape == (len(rows), n_chunks)
    padded = np.zeros((len(rows), 8 * n_chunks))
    padded[:, :n_topics] = weights
    chunk_sums = np.empty(n_chunks)
    for w in range(len(rows)):
        # rounding boundaries: u at the running sums over topics, and one ulp either side
        edges = np.cumsum(weights[w]) / max(table[w, -1], 1e-300)
        edges = np.concatenate([edges, np.nextafter(edges, 0.0), np.nextafter(edges, 1.0)])
        for u in np.concatenate([uniforms, edges[(edges >= 0.0) & (edges < 1.0)]]):
            expected = sample_topic(padded[w], chunk_sums, n_chunks, u)
            assert sample_word_topic(weights[w], n_topics, table[w], u) == expected
            assert w == 2 or expected == naive.sample_topic(weights[w], u)  # 2: all zero
        total = 0.0
        for c, s in enumerate(chunk_sums):
            total += s
            assert table[w, c] == total  # bit for bit
    walk = 0.0
    for x in tail:
        walk += x
    if tail.size >= 4:  # the walk falls short of the chunk sum: the fallback is exercised
        assert walk < table[-1, -1]  # the last chunk's sum: the chunks before it are empty
        last = 8 * (n_chunks - 1) + np.flatnonzero(tail)[-1]
        assert sample_word_topic(weights[-1], n_topics, table[-1], 1.0 - 2.0**-53) == last


@pytest.mark.parametrize("n_topics", [1, 13, 100])
def test_initial_samples_word_by_word_equal_document_by_document(n_topics):
    """The minibatch's initial sample drawn word by word (`initial_samples`) is each
    document's `initial_sample` bit for bit, for any number of parts; a document restricted by
    a topic mask is left to its own kernel (its tokens untouched); the smoothing totals drawn
    alongside are `smoothing_totals`'."""
    rng = np.random.default_rng(n_topics)
    batch = random_minibatch(rng, n_docs=12, n_words=30, mean_length=25, empty=(1, 7))
    weights = rng.random((batch.words.size, n_topics)) * (rng.random((batch.words.size,
                                                                        n_topics)) < 0.6)
    weights[:, rng.integers(n_topics)] += 1e-3  # no all-zero row
    alpha = rng.uniform(0.01, 0.5, n_topics)
    chunks = word_chunk_sums(weights, n_topics)
    expected = np.empty(batch.n_tokens, dtype=np.int64)
    for d in range(batch.n_documents):
        entries = slice(batch.doc_ptr[d], batch.doc_ptr[d + 1])
        initial_sample(batch.entry_word[entries], batch.entry_count[entries], weights, chunks,
                       np.uint64(stream_seed(5, 2, 40 + d)),
                       expected[batch.token_ptr[d]:batch.token_ptr[d + 1]])
    restricted = 3  # document 3 may use topic 0 alone (when there are other topics)
    allowed = [[0] if d == restricted and n_topics > 1 else list(range(n_topics))
               for d in range(batch.n_documents)]
    mask = AllowedTopics(np.cumsum([0] + [len(a) for a in allowed]),
                         np.concatenate(allowed).astype(np.int64), np.zeros(batch.n_documents))
    for n_parts in (0, 1, 2, 5):
        z = np.full(batch.n_tokens, -1, dtype=np.int64)
        smoothing = np.empty(batch.words.size)
        initial_samples(batch.layout, parameters(weights, alpha), StreamKey(5, 2, 40), mask,
                        n_parts, z, smoothing)
        tokens = slice(batch.token_ptr[restricted], batch.token_ptr[restricted + 1])
        if n_topics > 1:
            assert np.all(z[tokens] == -1)
            z[tokens] = expected[tokens]
        np.testing.assert_array_equal(z, expected)
        np.testing.assert_array_equal(smoothing, smoothing_totals(weights, alpha))


@pytest.mark.parametrize("n_topics", [1, 11, 20])
def test_kernel_matches_numpy_twin(n_topics):
    rng = np.random.default_rng(0)
    batch = random_minibatch(rng, n_docs=5, n_words=9, mean_length=6)
    weights = rng.random((batch.words.size, n_topics))
    alpha = rng.uniform(0.05, 1.0, n_topics)
    state = run_kernel(batch, weights, alpha, passes=8, record_from=6)
    twin = naive.gibbs_sweeps(batch.doc_ptr, batch.entry_word, batch.entry_count, weights,
                                    alpha, 7, 3, 0, 8, 6)
    np.testing.assert_array_equal(state["token_topic"], twin[0])
    np.testing.assert_array_equal(state["doc_topic_counts"], twin[1])
    np.testing.assert_allclose(state["entry_topic"], twin[2], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(state["doc_log_theta"], twin[3], rtol=1e-12, atol=1e-12)
    # every recorded pass adds one probability distribution per token
    np.testing.assert_allclose(state["entry_topic"].sum(axis=1), 2 * batch.entry_count)


def test_factorised_recording_matches_dense_reference():
    rng = np.random.default_rng(1)
    batch = random_minibatch(rng, n_docs=20, n_words=6, mean_length=15)
    weights = rng.random((batch.words.size, 13))
    alpha = np.full(13, 0.05)
    fast = run_kernel(batch, weights, alpha, passes=12, record_from=0)
    dense = run_kernel(batch, weights, alpha, passes=12, record_from=0, mode=RECORD_DENSE)
    np.testing.assert_array_equal(fast["token_topic"], dense["token_topic"])
    np.testing.assert_allclose(fast["entry_topic"], dense["entry_topic"], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("sampler", KERNELS)
def test_same_result_for_one_and_two_threads(sampler):
    rng = np.random.default_rng(2)
    batch = random_minibatch(rng, n_docs=40, n_words=30, mean_length=20)
    weights = rng.random((batch.words.size, 10))
    alpha = np.full(10, 0.1)
    with numba_threads(1):
        one = run_kernel(batch, weights, alpha, passes=6, record_from=4, sampler=KERNELS[sampler])
    with numba_threads(2):
        two = run_kernel(batch, weights, alpha, passes=6, record_from=4, sampler=KERNELS[sampler])
    for name in one:
        np.testing.assert_array_equal(one[name], two[name])


@pytest.mark.parametrize("sampler", KERNELS)
def test_advancing_pass_by_pass_equals_one_run(sampler):
    """With the parameters unchanged, the boosted schedule of calls gives the plain result."""
    rng = np.random.default_rng(3)
    batch = random_minibatch(rng, n_docs=6, n_words=8, mean_length=6)
    weights = rng.random((batch.words.size, 4))
    alpha = np.full(4, 0.3)
    estimator = GibbsEstimator(passes=10, sampler=sampler)
    whole = estimator.begin(batch, 4, seed=5, minibatch_index=2)
    whole.advance(weights, alpha, 10)
    stepped = estimator.begin(batch, 4, seed=5, minibatch_index=2)
    for _ in range(10):
        stepped.advance(weights, alpha, 1)
    assert stepped.n_recorded == whole.n_recorded == 2
    assert whole.boosted is None and stepped.boosted is not None  # one call keeps no pass state
    np.testing.assert_array_equal(stepped.token_topic, whole.token_topic)
    np.testing.assert_allclose(stepped.statistics().word_topic, whole.statistics().word_topic, rtol=1e-14)
    np.testing.assert_allclose(stepped.statistics().log_theta, whole.statistics().log_theta, rtol=1e-14)


def exact_expectations(beta, alpha, words):
    """E[s1] (K x V) and E[s2] (K) under p(z | X, beta, alpha) by enumerating every assignment,
    with the Dirichlet-multinomial p(z | alpha) in closed form (appendix A.3)."""
    n_topics, n_words = beta.shape
    weights, s1, s2 = [], [], []
    for z in itertools.product(range(n_topics), repeat=len(words)):
        counts = np.bincount(z, minlength=n_topics)
        log_p = (np.log(beta[list(z), words]).sum() + gammaln(alpha + counts).sum()
                 - gammaln(alpha).sum() + gammaln(alpha.sum()) - gammaln(alpha.sum() + len(words)))
        topic_word = np.zeros((n_topics, n_words))
        np.add.at(topic_word, (list(z), words), 1.0)
        weights.append(log_p)
        s1.append(topic_word)
        s2.append(digamma(alpha + counts) - digamma(alpha.sum() + len(words)))
    weights = np.exp(np.array(weights) - max(weights))
    weights /= weights.sum()
    return np.tensordot(weights, np.array(s1), 1), weights @ np.array(s2)


@pytest.mark.parametrize("sampler", KERNELS)
def test_expectations_match_exact_enumeration(sampler):
    """Tiny model (V = 5, K = 2, documents of <= 5 tokens): the per-document estimates of
    Algorithm 2 (P = 20) averaged over 3000 independent chains equal the exact posterior
    expectations within 5 Monte Carlo standard errors, for either kernel."""
    beta = np.array([[0.5, 0.3, 0.1, 0.05, 0.05], [0.05, 0.1, 0.15, 0.3, 0.4]])
    alpha = np.array([0.3, 0.6])
    documents = [[0, 0, 4], [0, 1, 3, 4, 4], [2, 2, 1, 3]]
    copies = 3000
    counts = np.array([np.bincount(doc, minlength=5) for doc in documents for _ in range(copies)])
    batch = Minibatch.from_counts(sp.csr_matrix(counts))
    run = GibbsEstimator(passes=20, sampler=sampler).begin(batch, 2, seed=11, minibatch_index=0)
    run.advance(beta[:, batch.words].T, alpha, 20)
    entry = run.entry_expectations()
    log_theta = run.doc_log_theta / run.n_recorded
    for i, doc in enumerate(documents):
        rows = range(i * copies, (i + 1) * copies)
        per_doc_s1 = np.zeros((copies, 2, 5))
        for c, d in enumerate(rows):
            for j in range(batch.doc_ptr[d], batch.doc_ptr[d + 1]):
                per_doc_s1[c, :, batch.words[batch.entry_word[j]]] = entry[j]
        exact_s1, exact_s2 = exact_expectations(beta, alpha, np.array(doc))
        for estimates, exact in ((per_doc_s1, exact_s1), (log_theta[list(rows)], exact_s2)):
            error = np.abs(estimates.mean(axis=0) - exact)
            standard_error = estimates.std(axis=0) / np.sqrt(copies)
            assert np.all(error <= 5 * standard_error + 1e-9), (doc, error, standard_error)
        # s1 rows sum to each word's count: nothing lost
        np.testing.assert_allclose(per_doc_s1.sum(axis=1), np.tile(np.bincount(doc, minlength=5), (copies, 1)))


@pytest.mark.parametrize("sampler", KERNELS)
def test_corner_cases_empty_document_single_word_unseen_word(sampler):
    batch = Minibatch.from_counts(sp.csr_matrix(np.array([[0], [3], [0]])))
    run = GibbsEstimator(passes=4, sampler=sampler).begin(batch, 3, seed=0, minibatch_index=0)
    alpha = np.array([0.1, 0.2, 0.3])
    run.advance(np.zeros((1, 3)), alpha, 4)  # an all-zero word column is weighted uniformly
    stats = run.statistics()
    assert stats.word_topic.shape == (1, 3) and np.isclose(stats.word_topic.sum(), 3.0)
    prior_log_theta = digamma(alpha) - digamma(alpha.sum())
    np.testing.assert_allclose(run.doc_log_theta[0] / run.n_recorded, prior_log_theta, rtol=1e-12)
    np.testing.assert_allclose(run.doc_topic()[0], alpha / alpha.sum())
    np.testing.assert_allclose(run.doc_topic().sum(axis=1), 1.0)


@pytest.mark.parametrize("kernel", ["dense", "sparse", "mh", "masked"])
@pytest.mark.parametrize("mode", [RECORD_CONDITIONALS, RECORD_SAMPLE])
def test_clear_rows_gives_the_call_on_zeroed_rows(kernel, mode):
    """`gibbs_sweeps` with ``clear_rows`` on an ``entry_topic`` of garbage (NaN) returns, bit for
    bit, every output of the same call on zeros: what lets `GibbsRun` allocate it with np.empty.
    Each kernel, every document masked (the restricted path), both record modes."""
    rng = np.random.default_rng(11)
    n_topics = 9
    batch = random_minibatch(rng, n_docs=8, n_words=12, mean_length=10)
    weights = rng.random((batch.words.size, n_topics))
    alpha = rng.uniform(0.05, 0.8, n_topics)
    mask = EVERY_TOPIC
    if kernel == "masked":
        lists = [np.sort(rng.choice(n_topics, rng.integers(1, 5), replace=False))
                 for _ in range(batch.n_documents)]
        mask = AllowedTopics(*kernel_mask(TopicMask.from_lists(lists, n_topics),
                                          batch.n_documents, n_topics),
                             digamma(np.array([alpha[topics].sum() for topics in lists])))
    sampler = {"dense": Sampler(DENSE), "mh": Sampler(MH, 2)}.get(kernel, Sampler(SPARSE))
    results = []
    for fill, clear_rows in ((0.0, False), (np.nan, True)):
        chain = new_chain(batch, n_topics)
        recording = Recording(np.full((batch.n_entries, n_topics), fill),
                              np.zeros((batch.n_documents, n_topics)), clear_rows=clear_rows)
        gibbs_sweeps(batch.layout, parameters(weights, alpha), StreamKey(7, 3, 0),
                     PassPlan(0, 8, 5, mode), chain, recording, mask, sampler, 1)
        results.append([*chain, recording.entry_topic, recording.doc_log_theta])
    assert not np.isnan(results[1][3]).any()
    for zeroed, cleared in zip(*results):
        np.testing.assert_array_equal(zeroed, cleared)
