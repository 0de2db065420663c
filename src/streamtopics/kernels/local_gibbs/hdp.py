"""The local Gibbs kernel of HDP G-OEM: documents that may open topics (Dupuy 2017, section
3.4.2).

The dense sweeps of `dense` (Algorithm 2) with one more choice per token. With T
instantiated topics, a = (a_1, ..., a_T, a_*) = b (pi_1, ..., pi_T, pi_*) (the rest-of-stick
component * aggregates every uninstantiated stick; specs/components.md G1) and ``weights``
(U words x (T + 1): beta_wk for k < T, column T the weight of word w under a topic not yet
instantiated), token n of word w is resampled from

    p(z_n = k)        proportional to (N_k^-n + a_k) beta_wk              k < T (thesis p. 60)
    p(z_n = opened m) proportional to (N_m^-n + c_m) (n_mw^-n + eta) / (n_m^-n + V eta)
    p(z_n = new)      proportional to a_* weights[w, T]            (thesis: b (1 - sum pi) / V)

An "opened" topic m is one a document of this minibatch opened; its words are scored by the
collapsed predictive of Dirichlet(eta) given the tokens the minibatch's documents have in it
(n_mw, n_m: every document's current assignments, so the topic is shared; spec G2, 1/V for its
first token, the thesis' 1/V). Opening a topic draws pibar ~ Beta(1, alpha) (the stick
concentration) and splits the rest, c_m = pibar a_*, a_* <- (1 - pibar) a_* (thesis p. 60:
pi_{T+1} = pibar_{T+1} prod_t (1 - pibar_t), and prod_t (1 - pibar_t) = pi_*). At most
``capacity`` topics are opened per minibatch (0: no growth, e.g. at the cap ``max_topics``).

Each pass visits every document of the minibatch in turn (not in parallel as LDA's), so a
topic one document opens can take the tokens of the others in the same and later passes: the
opened topics are sampled by a collapsed Gibbs sampler over the whole minibatch. (With a private
copy per document, spec G3, every document of a first minibatch, whose topics beta_0 are random,
opened topics of its own: hundreds per minibatch, one document's words each.) Each document
keeps its own random stream (seed, minibatch, first_document + d) across passes, so the result
does not depend on threads.

Without a rest component (``alpha.size == T``: a truncated HDP, an LDA with alpha = b pi) the
sweeps, random draws and records of each document are those of `dense.document_passes`
exactly, so HDP G-OEM with growth off is LDA G-OEM bit for bit (tests/test_hdp.py).

Recorded passes (the last R, as Algorithm 2) add, per token, the conditional renormalised over the
topics that exist (global and opened; the mass on "new" is dropped, spec G5) to ``entry_topic``
(global topics) and ``entry_new`` (opened ones); while no topic is opened the record is LDA's
`record_factorised`. ``doc_log_theta`` gets digamma(a_k + n_dk^t) - digamma(sum a + N_d) for
the T global topics (the rest's and the opened topics' s2 are computed by the caller, once
their weights a' are known); every topic's count in each recorded pass goes to ``doc_counts``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..random import next_uniform, random_permutation
from .bundles import plain
from .dense import add_log_theta, length_term, record_factorised
from .driver import document_stream
from .draws import CHUNK, sample_topic, sample_word_topic, word_chunk_sums


@njit(cache=True)
def _record_opened(entries, weights, alpha, growth, opened, n_opened, counts, z, entry_topic,
                   entry_new, conditional):
    """Add p(z_n = k | z^t_-n) over the T global and ``n_opened`` opened topics for every token
    of one document (dense, one vector per token)."""
    entry_word, entry_count = entries
    n_topics, eta, n_words, _, _ = growth
    _, opened_alpha, opened_word_counts, opened_totals = opened
    token = 0
    for j in range(entry_word.size):
        w = entry_word[j]
        for _ in range(entry_count[j]):
            own = z[token]
            norm = 0.0
            for k in range(n_topics):
                conditional[k] = weights[w, k] * (counts[k] - (1.0 if k == own else 0.0) + alpha[k])
                norm += conditional[k]
            for m in range(n_opened):
                mine = 1.0 if own == n_topics + m else 0.0
                conditional[n_topics + m] = (
                    (opened_word_counts[w, m] - mine + eta)
                    / (opened_totals[m] - mine + n_words * eta)
                    * (counts[n_topics + m] - mine + opened_alpha[m]))
                norm += conditional[n_topics + m]
            for k in range(n_topics):
                entry_topic[j, k] += conditional[k] / norm
            for m in range(n_opened):
                entry_new[j, m] += conditional[n_topics + m] / norm
            token += 1


@njit(cache=True)
def _initialise_document(entry_word, token_entry, weights, word_chunks, n_topics, state, z,
                         counts):
    """Algorithm 2's initialisation of one document, over the global topics (``word_chunks``:
    `draws.word_chunk_sums` of their weights, so the draws are `sample_topic`'s)."""
    for n in range(z.size):
        w = entry_word[token_entry[n]]
        k = sample_word_topic(weights[w], n_topics, word_chunks[w], next_uniform(state))
        z[n] = k
        counts[k] += 1.0


@njit(cache=True)
def _document_pass(entry_word, token_entry, weights, alpha, growth, state, z, counts, order,
                   shared, opened_alpha, opened_word_counts, opened_totals, probabilities,
                   chunk_sums):
    """One Gibbs pass over the tokens of one document (module docstring). ``shared`` = [topics
    opened so far in the minibatch, the rest a_*], updated in place with the opened topics'
    ``opened_alpha`` and word counts; ``probabilities`` and ``chunk_sums``: `sample_topic`'s
    scratch. Arrays as arguments of their own, not in bundles: where they come out of bundles,
    the token loop compiles to slower code."""
    n_topics, eta, n_words, stick_concentration, capacity = growth
    n_tokens = z.size
    has_rest = alpha.size > n_topics
    random_permutation(state, n_tokens, order)
    for i in range(n_tokens):
        n = order[i]
        w = entry_word[token_entry[n]]
        old = z[n]
        counts[old] -= 1.0
        if old >= n_topics:
            opened_word_counts[w, old - n_topics] -= 1.0
            opened_totals[old - n_topics] -= 1.0
        for k in range(n_topics):
            probabilities[k] = weights[w, k] * (counts[k] + alpha[k])
        n_opened = int(shared[0])
        for m in range(n_opened):
            probabilities[n_topics + m] = (
                (opened_word_counts[w, m] + eta) / (opened_totals[m] + n_words * eta)
                * (counts[n_topics + m] + opened_alpha[m]))
        used = n_topics + n_opened
        if has_rest and n_opened < capacity:
            probabilities[used] = shared[1] * weights[w, n_topics]
            used += 1
        k = sample_topic(probabilities, chunk_sums, (used + CHUNK - 1) // CHUNK,
                         next_uniform(state))
        if k == n_topics + n_opened:  # a new topic: split the rest of the stick
            stick = 1.0 - (1.0 - next_uniform(state)) ** (1.0 / stick_concentration)
            opened_alpha[n_opened] = stick * shared[1]
            shared[1] *= 1.0 - stick
            shared[0] += 1.0
        z[n] = k
        counts[k] += 1.0
        if k >= n_topics:
            opened_word_counts[w, k - n_topics] += 1.0
            opened_totals[k - n_topics] += 1.0


@njit(cache=True)
def _record_document(entries, parameters, alpha_sum, growth, opened, chain, accumulators,
                     conditional):
    """What a recorded pass adds for one document (``chain``: its tokens' topics and its
    counts): its tokens' conditionals, s2 of the global topics, and its counts of every topic
    (``accumulators``: entry_topic, entry_new, log_theta, recorded_counts)."""
    entry_word, entry_count = entries
    weights, alpha, digamma_alpha, digamma_alpha_sum = parameters
    n_topics = growth[0]
    n_opened = int(opened[0][0])
    z, counts = chain
    entry_topic, entry_new, log_theta, recorded_counts = accumulators
    if n_opened == 0:
        record_factorised(0, entry_word.size, 0, entry_word, entry_count, weights,
                          np.ascontiguousarray(alpha[:n_topics]), counts, z, entry_topic)
    else:
        _record_opened(entries, weights, alpha, growth, opened, n_opened, counts, z,
                       entry_topic, entry_new, conditional)
    add_log_theta(log_theta, counts, alpha, digamma_alpha,
                  length_term(digamma_alpha_sum, alpha_sum, z.size), n_topics)
    for k in range(n_topics + n_opened):
        recorded_counts[k] = counts[k]


def hdp_gibbs_sweeps(layout, parameters, growth, streams, n_passes, record_from, outputs):
    """``n_passes`` passes over the minibatch (`MinibatchLayout`), each a pass over every
    document in turn (a collapsed Gibbs sampler of the opened topics over the whole
    minibatch), every document with its random stream (``streams``, a `StreamKey`) as
    `driver.gibbs_sweeps`, the passes from ``record_from`` on recorded; returns M, the number
    of topics opened.

    ``parameters`` (`GlobalParameters`): weights U x (T + 1) (column T: the new-topic weight
    of each word; unused without a rest), alpha T + 1 (or T: no rest, no growth), their
    digammas. ``growth`` (`TopicGrowth`): T, the opened topics' eta, V, the stick
    concentration, and the capacity (the most topics the minibatch may open). ``outputs``
    (`HDPOutputs`): ``token_topic`` (tokens; opened topics numbered T, T + 1, ... in order of
    opening), ``entry_topic`` (entries x T), ``entry_new`` (entries x capacity),
    ``doc_log_theta`` (B x T), ``doc_counts`` (B x R x (T + capacity): n_dk^t of every topic in
    each recorded pass), ``opened_alpha`` (capacity: the stick split at each opening)."""
    return _hdp_gibbs_sweeps(*plain(layout, parameters, growth, streams), n_passes, record_from,
                             *plain(outputs))


@njit(cache=True)
def _hdp_gibbs_sweeps(layout, parameters, growth, streams, n_passes, record_from, outputs):
    """`hdp_gibbs_sweeps`, its bundles plain tuples."""
    doc_ptr, entry_word, entry_count, token_ptr = layout
    weights, alpha, _, _ = parameters
    n_topics, _, _, _, capacity = growth
    seed, minibatch, first_document, document_keys = streams
    token_topic, entry_topic, entry_new, doc_log_theta, doc_counts, opened_alpha = outputs
    n_docs = doc_ptr.size - 1
    alpha_sum = 0.0  # a plain loop, as gibbs_sweeps
    for k in range(alpha.size):
        alpha_sum += alpha[k]
    opened_word_counts = np.zeros((weights.shape[0], capacity))
    opened_totals = np.zeros(capacity)
    shared = np.zeros(2)
    shared[1] = alpha[n_topics] if alpha.size > n_topics else 0.0
    opened = (shared, opened_alpha, opened_word_counts, opened_totals)
    slots = n_topics + capacity + 1
    probabilities = np.zeros(((slots + CHUNK - 1) // CHUNK) * CHUNK)
    chunk_sums = np.empty((slots + CHUNK - 1) // CHUNK)
    conditional = np.empty(n_topics + capacity)
    counts = np.zeros((n_docs, n_topics + capacity))
    word_chunks = word_chunk_sums(weights, n_topics)
    states = np.empty((n_docs, 1), dtype=np.uint64)
    token_entry = np.empty(token_topic.size, dtype=np.int64)
    order = np.empty(token_topic.size, dtype=np.int64)
    for d in range(n_docs):
        first_token = token_ptr[d]
        for j in range(doc_ptr[d], doc_ptr[d + 1]):
            for _ in range(entry_count[j]):
                token_entry[first_token] = j - doc_ptr[d]
                first_token += 1
        states[d, 0] = document_stream(seed, minibatch, first_document, document_keys, d)
        _initialise_document(entry_word[doc_ptr[d]:doc_ptr[d + 1]],
                             token_entry[token_ptr[d]:token_ptr[d + 1]], weights, word_chunks,
                             n_topics, states[d], token_topic[token_ptr[d]:token_ptr[d + 1]],
                             counts[d])
    for t in range(n_passes):
        for d in range(n_docs):
            entries = entry_word[doc_ptr[d]:doc_ptr[d + 1]]
            tokens = slice(token_ptr[d], token_ptr[d + 1])
            _document_pass(entries, token_entry[tokens], weights, alpha, growth, states[d],
                           token_topic[tokens], counts[d], order[tokens], shared, opened_alpha,
                           opened_word_counts, opened_totals, probabilities, chunk_sums)
        if t < record_from:
            continue
        for d in range(n_docs):
            first_entry, last_entry = doc_ptr[d], doc_ptr[d + 1]
            tokens = slice(token_ptr[d], token_ptr[d + 1])
            _record_document((entry_word[first_entry:last_entry],
                              entry_count[first_entry:last_entry]),
                             parameters, alpha_sum, growth, opened,
                             (token_topic[tokens], counts[d]),
                             (entry_topic[first_entry:last_entry],
                              entry_new[first_entry:last_entry], doc_log_theta[d],
                              doc_counts[d, t - record_from]),
                             conditional)
    return int(shared[0])
