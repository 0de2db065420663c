"""Numba kernels for collapsed Gibbs sampling in LDA and the CGS_p estimators.

Notation (Papanikolaou et al. 2017, Table 2): n_dk = doc_topic_counts[d, k], n_kv =
word_topic_counts[v, k] (stored word-major, V x K, so one word's counts are contiguous),
n_k = topic_counts[k], alpha_k the document-topic prior, eta (the paper's beta_v, symmetric) the
topic-word prior. A token's conditional (equation 1, the document-length denominator dropped
because it does not depend on k):

    p(z_i = k | z_-i, w) proportional to (n_kv + eta) (n_dk + alpha_k) / (n_k + V eta),

all counts excluding token i. Tokens are one flat array of word ids with D+1 document offsets.

Topic masks (Labeled LDA, equation 5): the sweeps, the random start and the soft counts take a
per-document allowed-topic mask (``mask_ptr``, ``mask_topics``; `kernels.topic_mask`). A
restricted document draws from equation 1 restricted to its allowed topics, by a dense loop over
them (O(|K_d|) per token, less than the SparseLDA buckets for a few labels); an unrestricted one
(no mask, or all K allowed) runs the unmasked code unchanged.

Randomness: before each document the kernel reseeds one stream from (seed, stream, document)
(`streamtopics.kernels.random`), so a sweep's draws depend only on those integers.

Arguments: the kernels take the three count matrices as one `CountMatrices`, SparseLDA's word
lists as one `WordTopicLists` and new documents as one `NewDocuments` (numba named tuples), and
unpack them once: the per-token helpers take the arrays themselves (read through a bundle in
a token loop, they cost instructions).

Kernels:
- `count_assignments`, `random_assignments`: counts from topic assignments; uniform start.
- `sweep_dense`: the reference O(K)-per-token sampler (twin: ``naive.sweep_dense``).
- `build_word_topic_lists`, `sweep_sparse`: SparseLDA (Yao, Mimno & McCallum 2009), the same
  conditional split into smoothing, document and topic-word buckets; per-token cost
  O(topics of the document + topics of the word), O(K) only in the rare smoothing bucket.
- `soft_counts_dense`: the CGS_p soft counts of a training sample, sum over tokens of the full
  conditional (numerators of equations 40 and 41; twin: ``naive.soft_counts_dense``);
  `soft_counts_sparse`: the same with the bucket split, O(topics of document + word) per token
  in two passes (documents, then words) that write each output row once, about 1.5 sweeps.
- `document_soft_counts`, `predict_documents`: prediction for new documents with phi fixed
  (equation 4), recording the standard counts (equation 3) and the soft counts (equation 33).

Over 450 lines because the samplers that must draw alike stay side by side: the dense and the
SparseLDA sweeps, their soft counts and prediction share the count layout and the inlined
updates and draws (`_remove`, `_add`, `_walk`, `_masked_draw`), and a masked document draws in
both sweeps by the same code (the same uniform gives the same topic).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit, prange

from .random import next_uniform, stream_seed, uniform_step
from .topic_mask import NO_MASK_PTR, NO_MASK_TOPICS, allowed_topics

# The counts of a sample: n_dk (D x K int32), n_kv (word-major, V x K int32), n_k (K int64).
CountMatrices = namedtuple("CountMatrices", "doc_topic word_topic topic")
# SparseLDA's topics with n_kv > 0 per word (`build_word_topic_lists`).
WordTopicLists = namedtuple("WordTopicLists", "start size topics")
# New documents laid out for `predict_documents`: per token its row of phi (``rows``) and its
# distinct word (``token_word``), per document its tokens (``offsets``), its distinct words'
# rows (``word_rows`` at ``word_offsets[d]:word_offsets[d + 1]``) and its stream key (``keys``).
NewDocuments = namedtuple("NewDocuments", "rows offsets token_word word_offsets word_rows keys")


# --- counts and initialisation ------------------------------------------------------------------
@njit(cache=True)
def count_assignments(tokens, offsets, assignments, n_topics, n_words):
    """The `CountMatrices` of a topic assignment."""
    n_docs = offsets.size - 1
    doc_topic_counts = np.zeros((n_docs, n_topics), dtype=np.int32)
    word_topic_counts = np.zeros((n_words, n_topics), dtype=np.int32)
    topic_counts = np.zeros(n_topics, dtype=np.int64)
    for d in range(n_docs):
        for i in range(offsets[d], offsets[d + 1]):
            k = assignments[i]
            doc_topic_counts[d, k] += 1
            word_topic_counts[tokens[i], k] += 1
            topic_counts[k] += 1
    return CountMatrices(doc_topic_counts, word_topic_counts, topic_counts)


@njit(cache=True)
def assignments_allowed(offsets, assignments, mask_ptr, mask_topics, n_topics):
    """Whether every token's topic is among its document's allowed topics."""
    for d in range(offsets.size - 1):
        topics = allowed_topics(d, mask_ptr, mask_topics, n_topics)
        if topics.size == 0:
            continue
        for i in range(offsets[d], offsets[d + 1]):
            m = np.searchsorted(topics, assignments[i])
            if m == topics.size or topics[m] != assignments[i]:
                return False
    return True


@njit(cache=True)
def random_assignments(offsets, n_topics, seed, stream, assignments, mask_ptr=NO_MASK_PTR,
                       mask_topics=NO_MASK_TOPICS):
    """Fill ``assignments`` with topics drawn uniformly (among a restricted document's allowed
    topics), one random stream per document."""
    state = np.empty(1, dtype=np.uint64)
    for d in range(offsets.size - 1):
        state[0] = stream_seed(seed, stream, d)
        topics = allowed_topics(d, mask_ptr, mask_topics, n_topics)
        for i in range(offsets[d], offsets[d + 1]):
            if topics.size:
                assignments[i] = topics[min(int(next_uniform(state) * topics.size),
                                            topics.size - 1)]
            else:
                assignments[i] = min(int(next_uniform(state) * n_topics), n_topics - 1)


@njit(cache=True, inline="always")
def _remove(d, w, k, doc_topic_counts, word_topic_counts, topic_counts, inv_denominator, eta_sum):
    doc_topic_counts[d, k] -= 1
    word_topic_counts[w, k] -= 1
    topic_counts[k] -= 1
    inv_denominator[k] = 1.0 / (topic_counts[k] + eta_sum)


@njit(cache=True, inline="always")
def _add(d, w, k, doc_topic_counts, word_topic_counts, topic_counts, inv_denominator, eta_sum):
    doc_topic_counts[d, k] += 1
    word_topic_counts[w, k] += 1
    topic_counts[k] += 1
    inv_denominator[k] = 1.0 / (topic_counts[k] + eta_sum)


@njit(cache=True)
def _dense_conditional(d, w, doc_topic_counts, word_topic_counts, inv_denominator, alpha, eta,
                       weights):
    """Unnormalised equation 1 for word ``w`` in document ``d`` into ``weights``; returns the
    sequential sum."""
    total = 0.0
    for k in range(alpha.size):
        weights[k] = (word_topic_counts[w, k] + eta) * (doc_topic_counts[d, k] + alpha[k]) \
            * inv_denominator[k]
        total += weights[k]
    return total


@njit(cache=True)
def _masked_conditional(d, w, topics, doc_topic_counts, word_topic_counts, inv_denominator,
                        alpha, eta, weights):
    """Equation 5: equation 1 for the allowed ``topics`` only; ``weights[m]`` is topic
    ``topics[m]``'s weight. Returns the sequential sum."""
    total = 0.0
    for m in range(topics.size):
        k = topics[m]
        weights[m] = (word_topic_counts[w, k] + eta) * (doc_topic_counts[d, k] + alpha[k]) \
            * inv_denominator[k]
        total += weights[m]
    return total


@njit(cache=True, inline="always")
def _walk(weights, n, u):
    """Index m < n where the running sum of ``weights`` first exceeds ``u`` (n - 1 if rounding
    leaves it short)."""
    for m in range(n):
        u -= weights[m]
        if u < 0.0:
            return m
    return n - 1


@njit(cache=True, inline="always")
def _masked_draw(d, w, topics, doc_topic_counts, word_topic_counts, inv_denominator, alpha, eta,
                 weights, state):
    """One draw from equation 5 for a restricted document (the same in both samplers)."""
    total = _masked_conditional(d, w, topics, doc_topic_counts, word_topic_counts,
                                inv_denominator, alpha, eta, weights)
    return topics[_walk(weights, topics.size, next_uniform(state) * total)]


# --- dense reference sampler --------------------------------------------------------------------
@njit(cache=True)
def sweep_dense(tokens, offsets, documents, assignments, counts, alpha, eta, seed, stream,
                mask_ptr=NO_MASK_PTR, mask_topics=NO_MASK_TOPICS):
    """One Gibbs sweep over ``documents`` (in that order), each token resampled from equation 1
    with an O(K) scan (equation 5 over a restricted document's allowed topics). Updates
    assignments and their `CountMatrices` ``counts`` in place.

    Equivalent to ``naive.sweep_dense``: the same uniforms mapped to topics the same way.
    """
    doc_topic_counts, word_topic_counts, topic_counts = counts
    n_topics = alpha.size
    eta_sum = eta * word_topic_counts.shape[0]
    inv_denominator = 1.0 / (topic_counts + eta_sum)
    weights = np.empty(n_topics)
    state = np.empty(1, dtype=np.uint64)
    for d in documents:
        state[0] = stream_seed(seed, stream, d)
        topics = allowed_topics(d, mask_ptr, mask_topics, n_topics)
        for i in range(offsets[d], offsets[d + 1]):
            w = tokens[i]
            _remove(d, w, assignments[i], doc_topic_counts, word_topic_counts, topic_counts,
                    inv_denominator, eta_sum)
            if topics.size:
                new = _masked_draw(d, w, topics, doc_topic_counts, word_topic_counts,
                                   inv_denominator, alpha, eta, weights, state)
            else:
                total = _dense_conditional(d, w, doc_topic_counts, word_topic_counts,
                                           inv_denominator, alpha, eta, weights)
                new = _walk(weights, n_topics, next_uniform(state) * total)
            assignments[i] = new
            _add(d, w, new, doc_topic_counts, word_topic_counts, topic_counts, inv_denominator,
                 eta_sum)


# --- SparseLDA sampler --------------------------------------------------------------------------
@njit(cache=True)
def build_word_topic_lists(word_topic_counts):
    """For each word the topics with n_kv > 0, as `WordTopicLists` (start V+1 int64, size V
    int32, topics int32).

    Word v's slots are ``topics[start[v]:start[v+1]]``, of which the first ``size[v]`` are used;
    the capacity min(K, frequency of v) can never be exceeded since a word's frequency is fixed.
    """
    n_words, n_topics = word_topic_counts.shape
    start = np.zeros(n_words + 1, dtype=np.int64)
    for w in range(n_words):
        frequency = 0
        for k in range(n_topics):
            frequency += word_topic_counts[w, k]
        start[w + 1] = start[w] + min(n_topics, frequency)
    size = np.zeros(n_words, dtype=np.int32)
    topics = np.empty(start[n_words], dtype=np.int32)
    for w in range(n_words):
        for k in range(n_topics):
            if word_topic_counts[w, k] > 0:
                topics[start[w] + size[w]] = k
                size[w] += 1
    return WordTopicLists(start, size, topics)


@njit(cache=True)
def sweep_sparse(tokens, offsets, documents, assignments, counts, word_lists, alpha, eta, seed,
                 stream, mask_ptr=NO_MASK_PTR, mask_topics=NO_MASK_TOPICS):
    """One Gibbs sweep drawing from exactly the conditional of `sweep_dense`, SparseLDA style.

    Equation 1 splits into three buckets (Yao, Mimno & McCallum 2009, section 3):
        alpha_k eta / (n_k + V eta)                    smoothing  s (all K topics)
      + n_dk eta / (n_k + V eta)                       document   r (topics of the document)
      + n_kv (n_dk + alpha_k) / (n_k + V eta)          topic-word q (topics of the word)
    s is kept up to date incrementally, r is rebuilt per document, and the coefficients
    (n_dk + alpha_k) / (n_k + V eta) are cached per topic; a uniform on [0, s + r + q) picks the
    bucket and then the topic. The word-topic lists ``word_lists`` (`build_word_topic_lists`)
    are kept in step with the `CountMatrices` ``counts``.
    A restricted document draws as `sweep_dense` does (the same uniform gives the same topic);
    the buckets and lists are kept in step all the same.

    Written for speed without changing a draw (bench/results/cgs_throughput_k20*): the
    document, word, topic and token indices are unsigned (``np.uint64``), so numba emits no
    negative-index wraparound (a sign test, a mask and an add per array access, and the
    registers they hold: 1.15-1.2x at K = 10 to 500 alone); the stream state is a local
    (`uniform_step`), not an array element; and the topic-word pick counts the running
    remainders u - q_1 - ... - q_j that stay >= 0 instead of leaving the walk at the first
    negative one: the remainders never increase, so the count is the walk's index, without
    its mispredicted exit.
    """
    doc_topic_counts, word_topic_counts, topic_counts = counts
    word_list_start, word_list_size, word_list_topics = word_lists
    n_topics = alpha.size
    eta_sum = eta * word_topic_counts.shape[0]
    inv_denominator = 1.0 / (topic_counts + eta_sum)
    coefficient = alpha * inv_denominator
    smoothing_mass = 0.0
    for k in range(n_topics):
        smoothing_mass += alpha[k] * eta * inv_denominator[k]
    doc_topics = np.empty(n_topics, dtype=np.int32)
    doc_position = np.full(n_topics, -1, dtype=np.int32)
    word_weights = np.empty(n_topics)
    state = np.empty(1, dtype=np.uint64)
    for document in documents:
        d = np.uint64(document)
        rng = stream_seed(seed, stream, d)
        topics = allowed_topics(document, mask_ptr, mask_topics, n_topics)
        n_doc_topics = 0
        doc_mass = 0.0
        first, stop = np.uint64(offsets[d]), np.uint64(offsets[d + np.uint64(1)])
        for i in range(first, stop):
            k = np.uint64(assignments[i])
            if doc_position[k] < 0:
                doc_position[k] = n_doc_topics
                doc_topics[n_doc_topics] = k
                n_doc_topics += 1
                doc_mass += eta * doc_topic_counts[d, k] * inv_denominator[k]
                coefficient[k] = (doc_topic_counts[d, k] + alpha[k]) * inv_denominator[k]
        for i in range(first, stop):
            w = np.uint64(tokens[i])
            base = np.uint64(word_list_start[w])
            # --- take token i out of the counts and the buckets
            k = np.uint64(assignments[i])
            smoothing_mass -= alpha[k] * eta * inv_denominator[k]
            doc_mass -= eta * doc_topic_counts[d, k] * inv_denominator[k]
            _remove(d, w, k, doc_topic_counts, word_topic_counts, topic_counts, inv_denominator,
                    eta_sum)
            smoothing_mass += alpha[k] * eta * inv_denominator[k]
            doc_mass += eta * doc_topic_counts[d, k] * inv_denominator[k]
            coefficient[k] = (doc_topic_counts[d, k] + alpha[k]) * inv_denominator[k]
            if doc_topic_counts[d, k] == 0:
                n_doc_topics -= 1
                last = doc_topics[n_doc_topics]
                doc_topics[doc_position[k]] = last
                doc_position[last] = doc_position[k]
                doc_position[k] = -1
            if word_topic_counts[w, k] == 0:
                word_list_size[w] -= 1
                end = base + np.uint64(word_list_size[w])
                for slot in range(base, end):
                    if np.uint64(word_list_topics[slot]) == k:
                        word_list_topics[slot] = word_list_topics[end]
                        break
            if topics.size:
                state[0] = rng
                new = np.uint64(_masked_draw(d, w, topics, doc_topic_counts, word_topic_counts,
                                             inv_denominator, alpha, eta, word_weights, state))
                rng = state[0]
            else:
                # --- topic-word bucket
                n_word_topics = word_list_size[w]
                word_mass = 0.0
                for j in range(n_word_topics):
                    t = np.uint64(word_list_topics[base + np.uint64(j)])
                    word_weights[j] = word_topic_counts[w, t] * coefficient[t]
                    word_mass += word_weights[j]
                # --- draw
                rng, uniform = uniform_step(rng)
                u = uniform * (smoothing_mass + doc_mass + word_mass)
                if u < word_mass:
                    m = 0
                    for j in range(n_word_topics):
                        u -= word_weights[j]
                        m += u >= 0.0
                    new = np.uint64(word_list_topics[base + np.uint64(min(m, n_word_topics - 1))])
                elif n_doc_topics > 0 and u - word_mass < doc_mass:
                    u -= word_mass
                    new = np.uint64(doc_topics[n_doc_topics - 1])
                    for j in range(n_doc_topics):
                        t = np.uint64(doc_topics[j])
                        u -= eta * doc_topic_counts[d, t] * inv_denominator[t]
                        if u < 0.0:
                            new = t
                            break
                else:
                    u -= word_mass + doc_mass
                    new = np.uint64(n_topics - 1)
                    for t in range(n_topics):
                        u -= alpha[t] * eta * inv_denominator[t]
                        if u < 0.0:
                            new = np.uint64(t)
                            break
            # --- put token i back with its new topic
            assignments[i] = new
            smoothing_mass -= alpha[new] * eta * inv_denominator[new]
            doc_mass -= eta * doc_topic_counts[d, new] * inv_denominator[new]
            _add(d, w, new, doc_topic_counts, word_topic_counts, topic_counts, inv_denominator,
                 eta_sum)
            smoothing_mass += alpha[new] * eta * inv_denominator[new]
            doc_mass += eta * doc_topic_counts[d, new] * inv_denominator[new]
            coefficient[new] = (doc_topic_counts[d, new] + alpha[new]) * inv_denominator[new]
            if doc_position[new] < 0:
                doc_position[new] = n_doc_topics
                doc_topics[n_doc_topics] = new
                n_doc_topics += 1
            if word_topic_counts[w, new] == 1:
                word_list_topics[base + np.uint64(word_list_size[w])] = new
                word_list_size[w] += 1
        for j in range(n_doc_topics):
            t = doc_topics[j]
            coefficient[t] = alpha[t] * inv_denominator[t]
            doc_position[t] = -1


# --- CGS_p soft counts of a training sample -----------------------------------------------------
@njit(cache=True)
def _token_soft_counts(d, i, tokens, assignments, topics, doc_topic_counts, word_topic_counts,
                       topic_counts, inv_denominator, eta_sum, alpha, eta, weights, doc_soft,
                       word_soft):
    """Add token i's normalised conditional (equation 1, or 5 over the allowed ``topics`` when
    not empty) to its document's and its word's soft counts; the counts are restored."""
    w = tokens[i]
    k = assignments[i]
    _remove(d, w, k, doc_topic_counts, word_topic_counts, topic_counts, inv_denominator, eta_sum)
    if topics.size:
        scale = 1.0 / _masked_conditional(d, w, topics, doc_topic_counts, word_topic_counts,
                                          inv_denominator, alpha, eta, weights)
        for m in range(topics.size):
            p = weights[m] * scale
            doc_soft[d, topics[m]] += p
            word_soft[w, topics[m]] += p
    else:
        scale = 1.0 / _dense_conditional(d, w, doc_topic_counts, word_topic_counts,
                                         inv_denominator, alpha, eta, weights)
        for t in range(alpha.size):
            p = weights[t] * scale
            doc_soft[d, t] += p
            word_soft[w, t] += p
    _add(d, w, k, doc_topic_counts, word_topic_counts, topic_counts, inv_denominator, eta_sum)


@njit(cache=True)
def soft_counts_dense(tokens, offsets, assignments, counts, alpha, eta, doc_soft, word_soft,
                      mask_ptr=NO_MASK_PTR, mask_topics=NO_MASK_TOPICS):
    """Add each token's full conditional T(z_j = k | z_-j) (equation 1, normalised; equation 5
    in a restricted document) to ``doc_soft[d, k]`` (D x K) and ``word_soft[v, k]`` (V x K):
    the soft counts of equations 40 (theta^p) and 41 (phi^p), Algorithm 1. The sample itself is
    left unchanged (its `CountMatrices` ``counts`` are restored after each token). Equivalent
    to ``naive.soft_counts_dense``.
    """
    doc_topic_counts, word_topic_counts, topic_counts = counts
    n_topics = alpha.size
    eta_sum = eta * word_topic_counts.shape[0]
    inv_denominator = 1.0 / (topic_counts + eta_sum)
    weights = np.empty(n_topics)
    for d in range(offsets.size - 1):
        topics = allowed_topics(d, mask_ptr, mask_topics, n_topics)
        for i in range(offsets[d], offsets[d + 1]):
            _token_soft_counts(d, i, tokens, assignments, topics, doc_topic_counts,
                               word_topic_counts, topic_counts, inv_denominator, eta_sum, alpha,
                               eta, weights, doc_soft, word_soft)


@njit(cache=True)
def soft_counts_sparse(tokens, offsets, assignments, counts, word_lists, alpha, eta, doc_soft,
                       word_soft, mask_ptr=NO_MASK_PTR, mask_topics=NO_MASK_TOPICS):
    """The soft counts of `soft_counts_dense` (same result up to rounding) at about the cost of
    a SparseLDA sweep, touching only the buckets of `sweep_sparse` and writing each output row
    once. Token j's conditional (equation 1 with j excluded) splits as

        alpha_k eta inv_k + eta n_dk inv_k + n_kv (n_dk + alpha_k) inv_k,   inv_k = 1/(n_k + V eta),

    and for its own topic z_j the counts n_dz, n_zv, n_z are one less (a correction per token).
    Pass 1 (document by document) finds Z_j with the topic-word bucket and the document's cached
    totals, adds the topic-word part to a dense K-row of the document (in cache) and keeps
    1 / Z_j; the smoothing and document parts are the same vector for every token of the
    document up to 1 / Z_j, so they are added once per document as
    (alpha_k + n_dk) eta inv_k sum_j 1 / Z_j. Pass 2 (word by word, tokens in word order)
    adds the document-topic part (n_kv + eta) n_dk inv_k sum_j 1 / Z_j over the topics of each
    document, once for all the document's tokens of the word, into a K-row of the word (in
    cache), and once per word the parts that depend on the word only,
    (eta alpha_k + n_kv alpha_k) inv_k sum_j 1 / Z_j. The own-topic correction (the actual
    weight of z_j minus its bulk weight, over Z_j) is the same for the document's and the
    word's row. Every document's and word's row is thus written once instead of scattered per
    token. Needs the word-topic lists ``word_lists`` of `build_word_topic_lists`; the
    `CountMatrices` ``counts`` are not modified (a restricted document's tokens go through
    `_token_soft_counts`, O(|K_d|) each, which restores them).
    """
    doc_topic_counts, word_topic_counts, topic_counts = counts
    word_list_start, word_list_size, word_list_topics = word_lists
    n_docs = offsets.size - 1
    n_words, n_topics = word_topic_counts.shape
    n_tokens = tokens.size
    eta_sum = eta * n_words
    inv_denominator = 1.0 / (topic_counts + eta_sum)
    smoothing = alpha * eta * inv_denominator
    smoothing_mass = 0.0
    for k in range(n_topics):
        smoothing_mass += smoothing[k]
    coefficient = alpha * inv_denominator
    inv_excluded = 1.0 / (np.maximum(topic_counts, 1) - 1 + eta_sum)  # n_k one less (own topic)
    # tokens in word order (a counting sort): token i's record goes to slot position[i]
    word_start = np.zeros(n_words + 1, dtype=np.int64)
    for i in range(n_tokens):
        word_start[tokens[i] + 1] += 1
    for w in range(n_words):
        word_start[w + 1] += word_start[w]
    position = word_start[:n_words].copy()
    record_scale = np.zeros(n_tokens)  # 1 / Z_j; stays 0 for a restricted document's tokens
    record_doc = np.empty(n_tokens, dtype=np.int32)
    record_topic = np.empty(n_tokens, dtype=np.int32)
    record_own = np.empty(n_tokens)  # own-topic correction: actual minus bulk weight, / Z_j
    doc_list_start = np.zeros(n_docs + 1, dtype=np.int64)
    doc_list_topics = np.empty(n_tokens, dtype=np.int32)
    doc_list_counts = np.empty(n_tokens, dtype=np.float64)
    seen = np.zeros(n_topics, dtype=np.bool_)
    row = np.zeros(n_topics)
    weights = np.empty(n_topics)
    n_listed = 0
    # --- pass 1: documents
    for d in range(n_docs):
        first = n_listed
        topics = allowed_topics(d, mask_ptr, mask_topics, n_topics)
        if topics.size:
            for i in range(offsets[d], offsets[d + 1]):
                record_doc[position[tokens[i]]] = d
                position[tokens[i]] += 1
                _token_soft_counts(d, i, tokens, assignments, topics, doc_topic_counts,
                                   word_topic_counts, topic_counts, inv_denominator, eta_sum,
                                   alpha, eta, weights, doc_soft, word_soft)
            doc_list_start[d + 1] = n_listed
            continue
        for i in range(offsets[d], offsets[d + 1]):
            k = assignments[i]
            if not seen[k]:
                seen[k] = True
                doc_list_topics[n_listed] = k
                doc_list_counts[n_listed] = doc_topic_counts[d, k]
                n_listed += 1
        doc_list_start[d + 1] = n_listed
        if n_listed == first:
            continue
        doc_mass = 0.0
        for m in range(first, n_listed):
            k = doc_list_topics[m]
            doc_mass += eta * doc_list_counts[m] * inv_denominator[k]
            coefficient[k] = (doc_list_counts[m] + alpha[k]) * inv_denominator[k]
        doc_inverse_mass = 0.0
        for i in range(np.uint64(offsets[d]), np.uint64(offsets[d + 1])):
            w = np.uint64(tokens[i])
            z = np.uint64(assignments[i])
            base = np.uint64(word_list_start[w])
            n_dz = doc_topic_counts[d, z]
            n_zw = word_topic_counts[w, z]
            inv_z = inv_excluded[z]
            own_word = (n_zw - 1) * (n_dz - 1 + alpha[z]) * inv_z - n_zw * coefficient[z]
            own_rest = eta * ((n_dz - 1 + alpha[z]) * inv_z - (n_dz + alpha[z]) * inv_denominator[z])
            word_mass = 0.0
            for j in range(word_list_size[w]):
                t = np.uint64(word_list_topics[base + np.uint64(j)])
                weights[j] = word_topic_counts[w, t] * coefficient[t]
                word_mass += weights[j]
            s = 1.0 / (smoothing_mass + doc_mass + word_mass + own_word + own_rest)
            slot = np.uint64(position[w])
            position[w] += 1
            record_scale[slot] = s
            record_doc[slot] = d
            record_topic[slot] = z
            record_own[slot] = (own_word + own_rest) * s
            for j in range(word_list_size[w]):
                row[np.uint64(word_list_topics[base + np.uint64(j)])] += weights[j] * s
            row[z] += record_own[slot]
            doc_inverse_mass += s
        for m in range(first, n_listed):
            k = doc_list_topics[m]
            row[k] += eta * doc_list_counts[m] * inv_denominator[k] * doc_inverse_mass
            coefficient[k] = alpha[k] * inv_denominator[k]
            seen[k] = False
        for k in range(n_topics):
            doc_soft[d, k] += row[k] + smoothing[k] * doc_inverse_mass
            row[k] = 0.0
    # --- pass 2: words, their tokens' records in order (a document's tokens of w adjacent)
    for w in range(n_words):
        word_inverse_mass = 0.0
        run_mass = 0.0
        stop = np.uint64(word_start[w + 1])
        for slot in range(np.uint64(word_start[w]), stop):
            s = record_scale[slot]
            if s == 0.0:
                continue
            d = record_doc[slot]
            run_mass += s
            row[np.uint64(record_topic[slot])] += record_own[slot]
            after = slot + np.uint64(1)
            if after < stop and record_doc[after] == d:
                continue
            # the document-topic part of d's tokens of w, (n_kv + eta) n_dk inv_k sum 1/Z_j
            for m in range(np.uint64(doc_list_start[d]), np.uint64(doc_list_start[d + 1])):
                k = np.uint64(doc_list_topics[m])
                row[k] += (word_topic_counts[w, k] + eta) * doc_list_counts[m] \
                    * inv_denominator[k] * run_mass
            word_inverse_mass += run_mass
            run_mass = 0.0
        if word_inverse_mass == 0.0:
            continue
        base = word_list_start[w]
        for j in range(word_list_size[w]):
            k = word_list_topics[base + j]
            row[k] += word_topic_counts[w, k] * coefficient[k] * word_inverse_mass
        for k in range(n_topics):
            word_soft[w, k] += row[k] + smoothing[k] * word_inverse_mass
            row[k] = 0.0


# --- prediction with phi fixed (equation 4) -----------------------------------------------------
@njit(cache=True)
def document_soft_counts(rows, token_word, word_rows, assignments, doc_topic_counts, phi_rows,
                         smoothing_mass, alpha, out):
    """Add sum_j T(z_j = k | z_-j, phi) (equation 33's numerator) for one document to ``out``.

    T(z_j = k) = phi_kv (n_dk,-j + alpha_k) / Z_j (equation 4). The part phi_kv n_dk,-j is
    sparse over the document's topics; the part phi_kv alpha_k is summed per distinct word as
    alpha_k phi_kv sum_{j: w_j = v} 1 / Z_j, so the cost is O(N_d x topics in the document +
    distinct words x K) instead of O(N_d K). ``rows[j]`` is token j's row of ``phi_rows``
    (phi_kv for the words in play, rows x K); ``token_word[j]`` indexes the document's distinct
    words, whose rows are ``word_rows``; ``smoothing_mass[row] = sum_k phi_kv alpha_k``.
    """
    n_topics = alpha.size
    topics = np.empty(min(n_topics, rows.size), dtype=np.int32)
    seen = np.zeros(n_topics, dtype=np.bool_)
    n_doc_topics = 0
    for j in range(rows.size):
        if not seen[assignments[j]]:
            seen[assignments[j]] = True
            topics[n_doc_topics] = assignments[j]
            n_doc_topics += 1
    inverse_mass = np.zeros(word_rows.size)
    for j in range(rows.size):
        row = rows[j]
        z = assignments[j]
        doc_topic_counts[z] -= 1
        total = smoothing_mass[row]
        for m in range(n_doc_topics):
            t = topics[m]
            total += phi_rows[row, t] * doc_topic_counts[t]
        scale = 1.0 / total
        for m in range(n_doc_topics):
            t = topics[m]
            out[t] += phi_rows[row, t] * doc_topic_counts[t] * scale
        inverse_mass[token_word[j]] += scale
        doc_topic_counts[z] += 1
    for u in range(word_rows.size):
        row = word_rows[u]
        for k in range(n_topics):
            out[k] += alpha[k] * phi_rows[row, k] * inverse_mass[u]


@njit(cache=True)
def _predict_sweep(rows, assignments, doc_topic_counts, doc_topics, doc_position, n_doc_topics,
                   phi_rows, smoothing_cumulative, weights, state, initial):
    """Resample every token of one document from equation 4; with ``initial`` the tokens are
    added one by one to empty counts instead (sequential initialisation). Returns the number
    of topics in the document; ``doc_topics[:n]`` lists them."""
    n_topics = phi_rows.shape[1]
    for j in range(rows.size):
        row = rows[j]
        if not initial:
            k = assignments[j]
            doc_topic_counts[k] -= 1
            if doc_topic_counts[k] == 0:
                n_doc_topics -= 1
                last = doc_topics[n_doc_topics]
                doc_topics[doc_position[k]] = last
                doc_position[last] = doc_position[k]
                doc_position[k] = -1
        doc_mass = 0.0
        for m in range(n_doc_topics):
            t = doc_topics[m]
            weights[m] = phi_rows[row, t] * doc_topic_counts[t]
            doc_mass += weights[m]
        u = next_uniform(state) * (doc_mass + smoothing_cumulative[row, n_topics - 1])
        if n_doc_topics > 0 and u < doc_mass:
            new = doc_topics[n_doc_topics - 1]
            for m in range(n_doc_topics):
                u -= weights[m]
                if u < 0.0:
                    new = doc_topics[m]
                    break
        else:
            u -= doc_mass
            new = min(np.searchsorted(smoothing_cumulative[row], u, side="right"), n_topics - 1)
        assignments[j] = new
        doc_topic_counts[new] += 1
        if doc_position[new] < 0:
            doc_position[new] = n_doc_topics
            doc_topics[n_doc_topics] = new
            n_doc_topics += 1
    return n_doc_topics


@njit(cache=True, parallel=True)
def predict_documents(documents, phi_rows, smoothing_cumulative, alpha, burn_in, lag, n_samples,
                      n_chains, seed, stream_base, standard_counts, soft_counts):
    """Gibbs sampling of new ``documents`` (`NewDocuments`) with phi fixed (equation 4),
    documents in parallel.

    For each document and chain c (stream (seed, stream_base + c, keys[d]), the key a hash
    of the document's content, so its result does not depend on its row): sequential
    initialisation (sweep 0), then sweeps; the states after sweeps burn_in, burn_in + lag, ...
    (n_samples of them) are samples. For sample number r = c * n_samples + s, the hard counts
    n_dk are added to ``standard_counts[d, slot]`` and the soft counts of
    `document_soft_counts` to ``soft_counts[d, slot]``, where slot = r if the arrays have
    n_chains * n_samples slots, else 0 (summed). ``phi_rows`` holds phi_kv for the words in
    play (rows x K) and ``smoothing_cumulative[row]`` the cumulative sums over k of phi_kv
    alpha_k.
    """
    rows, offsets, token_word, doc_word_offsets, word_rows, doc_keys = documents
    n_topics = alpha.size
    keep_each = standard_counts.shape[1] > 1
    for d in prange(offsets.size - 1):
        start, stop = offsets[d], offsets[d + 1]
        doc_rows = rows[start:stop]
        doc_token_word = token_word[start:stop] - doc_word_offsets[d]
        doc_word_rows = word_rows[doc_word_offsets[d]:doc_word_offsets[d + 1]]
        smoothing_mass = smoothing_cumulative[:, n_topics - 1]
        assignments = np.empty(stop - start, dtype=np.int32)
        doc_topic_counts = np.zeros(n_topics, dtype=np.int32)
        doc_topics = np.empty(n_topics, dtype=np.int32)
        doc_position = np.full(n_topics, -1, dtype=np.int32)
        weights = np.empty(n_topics)
        state = np.empty(1, dtype=np.uint64)
        for c in range(n_chains):
            state[0] = stream_seed(seed, stream_base + c, doc_keys[d])
            doc_topic_counts[:] = 0
            doc_position[:] = -1
            n_doc_topics = _predict_sweep(doc_rows, assignments, doc_topic_counts, doc_topics,
                                          doc_position, 0, phi_rows, smoothing_cumulative,
                                          weights, state, True)
            for s in range(n_samples):
                n_sweeps = burn_in if s == 0 else lag
                for _ in range(n_sweeps):
                    n_doc_topics = _predict_sweep(doc_rows, assignments, doc_topic_counts,
                                                  doc_topics, doc_position, n_doc_topics,
                                                  phi_rows, smoothing_cumulative, weights,
                                                  state, False)
                slot = c * n_samples + s if keep_each else 0
                for m in range(n_doc_topics):
                    t = doc_topics[m]
                    standard_counts[d, slot, t] += doc_topic_counts[t]
                document_soft_counts(doc_rows, doc_token_word, doc_word_rows, assignments,
                                     doc_topic_counts, phi_rows, smoothing_mass, alpha,
                                     soft_counts[d, slot])
