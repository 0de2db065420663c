"""Numba kernels for CVB0, collapsed variational Bayes with zero-order information
(Asuncion et al. 2009; Papanikolaou et al. 2017, equation 6).

Each (document, word) entry j of the bag of words, with count c_j, holds one distribution
gamma_j over topics shared by its c_j tokens (they receive identical updates). Soft counts:
n'_dk = sum_j c_j gamma_jk over the entries of d, n'_kv = sum over entries of word v, n'_k.
The update of equation 6 excludes one token of the entry (subtracts gamma_j once):

    gamma_jk proportional to (n'_kv - gamma_jk + eta) (n'_dk - gamma_jk + alpha_k)
                             / (n'_k - gamma_jk + V eta).

Memory is O(non-zeros x K): the price of CVB0's dense per-token state (paper, Table 1).

Topic masks (Labeled LDA; equation 6 masked as equation 5): the start and the sweep take a
per-document allowed-topic mask (``mask_ptr``, ``mask_topics``; `kernels.topic_mask`); a
masked document's gamma is zero outside its allowed topics and only those are updated. A
document that may use every topic loops over 0..K-1 as before (the same arithmetic).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from .random import next_uniform, stream_seed
from .topic_mask import NO_MASK_PTR, NO_MASK_TOPICS, allowed_topics


@njit(cache=True)
def cvb0_initialize(doc_offsets, words, counts, n_words, seed, stream, gamma,
                    mask_ptr=NO_MASK_PTR, mask_topics=NO_MASK_TOPICS):
    """Fill ``gamma`` (entries x K) with random normalised distributions over each document's
    allowed topics (one stream per document) and return the soft counts (doc_topic D x K,
    word_topic V x K, topic K)."""
    n_docs = doc_offsets.size - 1
    n_topics = gamma.shape[1]
    every_topic = np.arange(n_topics)
    doc_topic = np.zeros((n_docs, n_topics))
    word_topic = np.zeros((n_words, n_topics))
    topic = np.zeros(n_topics)
    state = np.empty(1, dtype=np.uint64)
    for d in range(n_docs):
        state[0] = stream_seed(seed, stream, d)
        topics = allowed_topics(d, mask_ptr, mask_topics, n_topics)
        if topics.size == 0:
            topics = every_topic
        for j in range(doc_offsets[d], doc_offsets[d + 1]):
            gamma[j, :] = 0.0
            total = 0.0
            for k in topics:
                gamma[j, k] = next_uniform(state) + 1e-3
                total += gamma[j, k]
            for k in topics:
                gamma[j, k] /= total
                mass = counts[j] * gamma[j, k]
                doc_topic[d, k] += mass
                word_topic[words[j], k] += mass
                topic[k] += mass
    return doc_topic, word_topic, topic


@njit(cache=True)
def cvb0_sweep(doc_offsets, words, counts, gamma, doc_topic, word_topic, topic, alpha, eta,
               mask_ptr=NO_MASK_PTR, mask_topics=NO_MASK_TOPICS):
    """One CVB0 pass over all entries in order (equation 6; under a mask, over each document's
    allowed topics only), updating gamma and the soft counts in place. Returns the mean
    absolute change of gamma per token (a convergence measure). Equivalent to
    ``naive.cvb0_sweep``."""
    n_topics = alpha.size
    every_topic = np.arange(n_topics)
    eta_sum = eta * word_topic.shape[0]
    update = np.empty(n_topics)
    change = 0.0
    n_tokens = 0
    for d in range(doc_offsets.size - 1):
        topics = allowed_topics(d, mask_ptr, mask_topics, n_topics)
        if topics.size == 0:
            topics = every_topic
        for j in range(doc_offsets[d], doc_offsets[d + 1]):
            w = words[j]
            total = 0.0
            for k in topics:
                g = gamma[j, k]
                update[k] = (max(word_topic[w, k] - g, 0.0) + eta) \
                    * (max(doc_topic[d, k] - g, 0.0) + alpha[k]) \
                    / (max(topic[k] - g, 0.0) + eta_sum)
                total += update[k]
            for k in topics:
                new = update[k] / total
                delta = counts[j] * (new - gamma[j, k])
                change += abs(delta)
                doc_topic[d, k] += delta
                word_topic[w, k] += delta
                topic[k] += delta
                gamma[j, k] = new
            n_tokens += counts[j]
    return change / max(n_tokens, 1)


@njit(cache=True, parallel=True)
def cvb0_predict(doc_offsets, words, counts, phi_word, alpha, iterations, doc_topic):
    """CVB0 for new documents with phi fixed: gamma_jk proportional to
    phi_kv (n'_dk - gamma_jk + alpha_k), ``iterations`` passes per document, started from
    gamma_jk proportional to phi_kv alpha_k. Writes the soft counts n'_dk into ``doc_topic``
    (D x K). ``phi_word`` is phi transposed (V x K). Equivalent to ``naive.cvb0_predict``."""
    n_topics = alpha.size
    for d in prange(doc_offsets.size - 1):
        start, stop = doc_offsets[d], doc_offsets[d + 1]
        gamma = np.empty((stop - start, n_topics))
        counts_d = doc_topic[d]
        counts_d[:] = 0.0
        for j in range(start, stop):
            total = 0.0
            for k in range(n_topics):
                gamma[j - start, k] = phi_word[words[j], k] * alpha[k]
                total += gamma[j - start, k]
            for k in range(n_topics):
                gamma[j - start, k] /= total
                counts_d[k] += counts[j] * gamma[j - start, k]
        update = np.empty(n_topics)
        for _ in range(iterations):
            for j in range(start, stop):
                total = 0.0
                for k in range(n_topics):
                    g = gamma[j - start, k]
                    update[k] = phi_word[words[j], k] * (max(counts_d[k] - g, 0.0) + alpha[k])
                    total += update[k]
                for k in range(n_topics):
                    new = update[k] / total
                    counts_d[k] += counts[j] * (new - gamma[j - start, k])
                    gamma[j - start, k] = new
