"""The dense per-document kernel of the local Gibbs E-step, O(K) per token (Dupuy & Bach 2016,
Algorithm 2 and appendix A.3): the reference the sparse and Metropolis-Hastings kernels are
measured against, the path of documents restricted by a topic mask, and the recording helpers
all the kernels share.

Per document and pass t (0-based, ``first_pass <= t < first_pass + n_passes``):

* t == 0 starts from the initial sample z^0 (`draws.initial_sample`, drawn for a whole
  minibatch word by word before the documents' passes: `driver.initial_samples`);
* a sweep visits the tokens in a fresh uniform permutation sigma^t and samples each z_n from
  equation 5/15, p(z_n = k | z_-n) proportional to beta_{x_n k} (N_{-n,k} + alpha_k) (the
  denominator (N - 1 + sum alpha) is the same for every k and cancels), by `draws.sample_topic`;
* if t >= record_from the sweep is *recorded*: what is added to ``entry_topic[j]`` depends on
  ``record_mode``: RECORD_CONDITIONALS (Algorithm 2, final loop), for every token the full
  conditional given the complete sample z^t of the other tokens, p(z_n = k | z^t_-n);
  RECORD_DENSE, the same computed token by token (the dense reference); RECORD_SAMPLE, the
  sample itself, 1 for the topic z_n^t (hard counts, as streaming Gibbs sampling uses its last
  sample, Gao et al. 2016). In every mode digamma(alpha_k + n_dk^t) - digamma(sum alpha + N_d) is
  added to ``log_theta`` (appendix A.3).

Topic masks (Labeled LDA; `kernels.topic_mask`): a document restricted to M allowed topics runs
the same passes on its view over those topics (`restricted_document_passes`), i.e. equation 5 /
15 renormalised over the allowed topics, O(M) per token; an unrestricted document runs
`document_passes` on the full arrays, the code path and arithmetic of the kernel without masks.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..random import advance, permute, uniform_step
from .bundles import RECORD_DENSE, RECORD_SAMPLE
from .draws import CHUNK, chunk_sums_row, initial_sample, sample_topic


@njit(cache=True, fastmath={"reassoc", "contract"})
def record_factorised(first_entry, last_entry, first_token, entry_word, entry_count,
                      word_topic_weights, alpha, doc_counts, token_topic, entry_topic):
    """Add p(z_n = k | z^t_-n) for every token of one document to ``entry_topic``.

    With m_k = n_dk^t + alpha_k and c_w = sum_k beta_wk m_k, the conditional of token n (word w,
    topic z_n) is beta_wk (m_k - [z_n = k]) / Z_n with Z_n = c_w - beta_{w z_n}. Summed over the
    tokens of an entry: beta_wk m_k sum_n 1/Z_n - sum_n [z_n = k] beta_wk / Z_n, i.e. one dense
    K-vector update per distinct word plus one scalar per token (docs/performance.md).
    """
    n_topics = alpha.size
    token = first_token
    for j in range(first_entry, last_entry):
        w = entry_word[j]
        weights = word_topic_weights[w]
        norm = 0.0
        for k in range(n_topics):
            norm += weights[k] * (doc_counts[k] + alpha[k])
        inverse_sum = 0.0
        row = entry_topic[j]
        for _ in range(entry_count[j]):
            k = token_topic[token]
            inverse = 1.0 / (norm - weights[k])
            inverse_sum += inverse
            row[k] -= weights[k] * inverse
            token += 1
        for k in range(n_topics):
            row[k] += inverse_sum * weights[k] * (doc_counts[k] + alpha[k])


@njit(cache=True)
def _record_dense(first_entry, last_entry, first_token, entry_word, entry_count,
                  word_topic_weights, alpha, doc_counts, token_topic, entry_topic, conditional):
    """Dense reference for `record_factorised`: one normalised K-vector per token."""
    n_topics = alpha.size
    token = first_token
    for j in range(first_entry, last_entry):
        weights = word_topic_weights[entry_word[j]]
        row = entry_topic[j]
        for _ in range(entry_count[j]):
            own = token_topic[token]
            norm = 0.0
            for k in range(n_topics):
                conditional[k] = weights[k] * (doc_counts[k] - (1.0 if k == own else 0.0) + alpha[k])
                norm += conditional[k]
            for k in range(n_topics):
                row[k] += conditional[k] / norm
            token += 1


@njit(cache=True)
def record_sample(first_entry, last_entry, first_token, entry_count, token_topic, entry_topic):
    """Add the sample itself, one count at (entry of token n, z_n), for every token of one document."""
    token = first_token
    for j in range(first_entry, last_entry):
        row = entry_topic[j]
        for _ in range(entry_count[j]):
            row[token_topic[token]] += 1.0
            token += 1


@njit(cache=True, inline="always")
def length_term(digamma_alpha_sum, alpha_sum, n_tokens):
    """digamma(sum alpha + N_d) from ``digamma_alpha_sum`` = digamma(sum alpha) by the exact
    recurrence digamma(a + 1) = digamma(a) + 1/a, O(N_d)."""
    value = digamma_alpha_sum
    for i in range(n_tokens):
        value += 1.0 / (alpha_sum + i)
    return value


@njit(cache=True, inline="always")
def add_log_theta(log_theta, counts, alpha, digamma_alpha, length, n_topics):
    """Add digamma(alpha_k + n_dk) - ``length`` (digamma(sum alpha + N_d), `length_term`) to
    ``log_theta[k]`` for k < ``n_topics``: one recorded sample's s2 (appendix A.3), the first
    term by the same recurrence from ``digamma_alpha[k]``."""
    for k in range(n_topics):
        value = digamma_alpha[k] - length
        for i in range(int(counts[k])):
            value += 1.0 / (alpha[k] + i)
        log_theta[k] += value


@njit(cache=True, inline="always")
def token_words(entry_word, entry_count, n_tokens):
    """The word of each of a document's ``n_tokens`` tokens, in layout order."""
    token_word = np.empty(n_tokens, dtype=np.int64)
    n = 0
    for j in range(entry_word.size):
        for _ in range(entry_count[j]):
            token_word[n] = entry_word[j]
            n += 1
    return token_word


@njit(cache=True, inline="always")
def start_chain(initial_seed, z, counts):
    """The chain of one document after Algorithm 2's initialisation, whose draws z^0 are in
    ``z`` (`initial_samples`): their counts into ``counts`` (zeroed first), and the stream
    state after their one uniform per token (returned)."""
    counts[:] = 0.0
    for n in range(z.size):
        counts[z[n]] += 1.0
    return advance(initial_seed, z.size)


@njit(cache=True, inline="always")
def _pass(order, token_word, word_topic_weights, alpha, z, counts, probabilities, chunk_sums,
          stream):
    """One pass over a document's tokens in ``order`` (``token_word``: the word of each),
    resampling each z_n from equation 5 / 15 with one uniform of the stream state ``stream``
    (returned advanced); ``probabilities`` and ``chunk_sums`` are `sample_topic`'s scratch.
    Inlined, its arguments arrays and numbers: where they come out of the bundles of
    `document_passes`, the token loop compiles to slower code."""
    n_topics = alpha.size
    n_chunks = chunk_sums.size
    new = -1
    for i in range(order.size):
        n = order[i]
        weights = word_topic_weights[token_word[n]]
        old = z[n]
        # The previous token's counts[new] += 1 and this one's counts[old] -= 1 (exact
        # integers, so the same doubles) in one pass over every k: stores at fixed addresses
        # the next loads can forward from, instead of two at drawn ones.
        for k in range(n_topics):
            count = counts[k] + ((k == new) - (k == old))
            counts[k] = count
            probabilities[k] = weights[k] * (count + alpha[k])
        stream, u = uniform_step(stream)
        new = sample_topic(probabilities, chunk_sums, n_chunks, u)
        z[n] = new
    if new >= 0:
        counts[new] += 1.0
    return stream


@njit(cache=True, inline="always")
def document_passes(entries, parameters, alpha_sum, initial_seed, plan, chain, accumulators):
    """The passes of ``plan`` (`PassPlan`) on one document, whose ``entries`` are (entry_word,
    entry_count) (rows of the weights of ``parameters``, a `GlobalParameters`; ``alpha_sum``
    the sum of its alpha); ``chain`` (z, counts, state): its tokens (at pass 0 the initial
    sample, `driver.initial_samples`), counts (K) and random stream (seeded from
    ``initial_seed`` at pass 0); ``accumulators`` (entry_topic, log_theta): entries x K and
    K."""
    entry_word, entry_count = entries
    word_topic_weights, alpha, digamma_alpha, digamma_alpha_sum = parameters
    first_pass, n_passes, record_from, record_mode = plan
    z, counts, state = chain
    entry_topic, log_theta = accumulators
    n_entries = entry_word.size
    n_tokens = z.size
    n_topics = alpha.size
    n_chunks = (n_topics + CHUNK - 1) // CHUNK
    probabilities = np.zeros(n_chunks * CHUNK)
    chunk_sums = np.empty(n_chunks)
    stream = start_chain(initial_seed, z, counts) if first_pass == 0 else state[0]
    token_word = token_words(entry_word, entry_count, n_tokens)
    order = np.empty(n_tokens, dtype=np.int64)
    conditional = np.empty(n_topics)
    for t in range(first_pass, first_pass + n_passes):
        stream = permute(stream, n_tokens, order)
        stream = _pass(order, token_word, word_topic_weights, alpha, z, counts, probabilities,
                       chunk_sums, stream)
        if t < record_from:
            continue
        if record_mode == RECORD_SAMPLE:
            record_sample(0, n_entries, 0, entry_count, z, entry_topic)
        elif record_mode == RECORD_DENSE:
            _record_dense(0, n_entries, 0, entry_word, entry_count, word_topic_weights, alpha,
                          counts, z, entry_topic, conditional)
        else:
            record_factorised(0, n_entries, 0, entry_word, entry_count, word_topic_weights,
                              alpha, counts, z, entry_topic)
        add_log_theta(log_theta, counts, alpha, digamma_alpha,
                      length_term(digamma_alpha_sum, alpha_sum, n_tokens), n_topics)
    state[0] = stream


@njit(cache=True)
def restricted_document_passes(topics, entries, parameters, initial_seed, plan, chain,
                               accumulators):
    """`document_passes` of a document restricted to the allowed ``topics`` (M of them): it
    gathers the document's view over those topics (weights entries x M, alpha, counts, z as
    positions in ``topics``), runs the same passes on it, and scatters the result back; the
    forbidden topics get no count, no conditional mass and nothing in ``log_theta``. The
    digamma(sum alpha) of ``parameters`` is that of the allowed topics' alpha sum (theta_d is
    a Dirichlet over them)."""
    entry_word, entry_count = entries
    word_topic_weights, alpha, digamma_alpha, digamma_alpha_sum = parameters
    first_pass, _, _, _ = plan
    z, counts, state = chain
    entry_topic, log_theta = accumulators
    n_entries = entry_word.size
    n_allowed = topics.size
    local_weights = np.empty((n_entries, n_allowed))
    for j in range(n_entries):
        for m in range(n_allowed):
            local_weights[j, m] = word_topic_weights[entry_word[j], topics[m]]
    local_alpha = np.empty(n_allowed)
    local_digamma = np.empty(n_allowed)
    local_counts = np.empty(n_allowed)
    alpha_sum = 0.0
    for m in range(n_allowed):
        local_alpha[m] = alpha[topics[m]]
        local_digamma[m] = digamma_alpha[topics[m]]
        local_counts[m] = counts[topics[m]]
        alpha_sum += local_alpha[m]
    local_z = np.searchsorted(topics, z) if first_pass > 0 else np.empty(z.size, dtype=np.int64)
    local_entry_topic = np.zeros((n_entries, n_allowed))
    local_log_theta = np.zeros(n_allowed)
    local_entries = np.arange(n_entries)
    if first_pass == 0:
        local_chunks = np.empty((n_entries, (n_allowed + CHUNK - 1) // CHUNK))
        for j in range(n_entries):
            chunk_sums_row(local_weights[j], n_allowed, local_chunks[j])
        initial_sample(local_entries, entry_count, local_weights, local_chunks, initial_seed,
                       local_z)
    document_passes((local_entries, entry_count),
                    (local_weights, local_alpha, local_digamma, digamma_alpha_sum), alpha_sum,
                    initial_seed, plan, (local_z, local_counts, state),
                    (local_entry_topic, local_log_theta))
    for n in range(z.size):
        z[n] = topics[local_z[n]]
    for m in range(n_allowed):
        k = topics[m]
        counts[k] = local_counts[m]
        log_theta[k] += local_log_theta[m]
        for j in range(n_entries):
            entry_topic[j, k] += local_entry_topic[j, m]
