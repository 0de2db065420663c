"""Local Gibbs sampling E-step of G-OEM (Dupuy & Bach 2016, Algorithm 2 and appendix A.3).

One call runs ``n_passes`` Gibbs sweeps over every document of a minibatch, in parallel over
documents (``prange``). Each document owns a counter-based random stream seeded from
(seed, minibatch index, document index) (`streamtopics.kernels.random`), so the result is
bit-identical for any number of threads.

Layout of a minibatch (all int64, ``d`` a document, ``j`` an entry = a distinct word of a
document): ``doc_ptr`` (B+1) delimits the entries of each document; ``entry_word[j]`` is the
entry's *local* word id (a row of ``word_topic_weights``, U x K) and ``entry_count[j]`` its count;
``token_ptr`` (B+1) delimits each document's tokens, laid out entry by entry (bag-of-words order:
LDA is exchangeable and every sweep visits the tokens in a fresh random order anyway).

Per document and pass t (0-based, ``first_pass <= t < first_pass + n_passes``):

* t == 0 first draws z_n^0 ~ Mult(beta_{x_n} / sum_k beta_{x_n k}) (Algorithm 2, initialisation);
* a sweep visits the tokens in a fresh uniform permutation sigma^t and samples each z_n from
  equation 5/15, p(z_n = k | z_-n) proportional to beta_{x_n k} (N_{-n,k} + alpha_k) (the
  denominator (N - 1 + sum alpha) is the same for every k and cancels);
* if t >= record_from the sweep is *recorded*: what is added to ``entry_topic[j]`` depends on
  ``record_mode``: RECORD_CONDITIONALS (Algorithm 2, final loop), for every token the full
  conditional given the complete sample z^t of the other tokens, p(z_n = k | z^t_-n);
  RECORD_DENSE, the same computed token by token (the dense reference); RECORD_SAMPLE, the
  sample itself, 1 for the topic z_n^t (hard counts, as streaming Gibbs sampling uses its last
  sample, Gao et al. 2016). In every mode digamma(alpha_k + n_dk^t) - digamma(sum alpha + N_d) is
  added to ``doc_log_theta[d]`` (appendix A.3).

The caller divides both accumulators by the number of recorded passes. A sample z^t is drawn by
inverse CDF over the topics in index order with a fixed summation order (8-topic pairwise chunk
sums, chunks summed sequentially), written out in `_sample_topic` and mirrored exactly by the
NumPy twin in tests/naive.py, so kernel and twin draw the same samples.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from .random import next_uniform, random_permutation, stream_seed

CHUNK = 8

# What a recorded sweep adds to the per-entry accumulator (``record_mode`` of `gibbs_sweeps`).
RECORD_CONDITIONALS = 0
RECORD_DENSE = 1
RECORD_SAMPLE = 2


@njit(cache=True, inline="always")
def _last_positive(probabilities, stop):
    for k in range(stop - 1, -1, -1):
        if probabilities[k] > 0.0:
            return k
    return 0


@njit(cache=True, inline="always")
def _sample_topic(probabilities, chunk_sums, n_chunks, u):
    """Draw k with probability proportional to ``probabilities[k]`` from the uniform ``u``.

    ``probabilities`` holds ``n_chunks * 8`` non-negative weights (zero padding past K). The
    total is the sequential sum of pairwise-summed 8-topic chunks; the search walks the chunk
    sums, then the topics of the chunk that crosses ``u * total``. If rounding makes the
    in-chunk walk fall short, the last positive topic of that chunk is returned.
    """
    total = 0.0
    for c in range(n_chunks):
        b = CHUNK * c
        s = (((probabilities[b] + probabilities[b + 1]) + (probabilities[b + 2] + probabilities[b + 3]))
             + ((probabilities[b + 4] + probabilities[b + 5])
                + (probabilities[b + 6] + probabilities[b + 7])))
        chunk_sums[c] = s
        total += s
    target = u * total
    cumulative = 0.0
    for c in range(n_chunks):
        s = chunk_sums[c]
        if cumulative + s > target:
            b = CHUNK * c
            for k in range(b, b + CHUNK):
                cumulative += probabilities[k]
                if cumulative > target:
                    return k
            return _last_positive(probabilities, b + CHUNK)
        cumulative += s
    return _last_positive(probabilities, n_chunks * CHUNK)


@njit(cache=True, fastmath={"reassoc", "contract"})
def _record_factorised(first_entry, last_entry, first_token, entry_word, entry_count,
                       word_topic_weights, alpha, doc_counts, token_topic, entry_topic):
    """Add p(z_n = k | z^t_-n) for every token of one document to ``entry_topic``.

    With m_k = n_dk^t + alpha_k and c_w = sum_k beta_wk m_k, the conditional of token n (word w,
    topic z_n) is beta_wk (m_k - [z_n = k]) / Z_n with Z_n = c_w - beta_{w z_n}. Summed over the
    tokens of an entry: beta_wk m_k sum_n 1/Z_n - sum_n [z_n = k] beta_wk / Z_n, i.e. one dense
    K-vector update per distinct word plus one scalar per token (DESIGN.md, performance notes).
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
    """Dense reference for `_record_factorised`: one normalised K-vector per token."""
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
def _record_sample(first_entry, last_entry, first_token, entry_count, token_topic, entry_topic):
    """Add the sample itself, one count at (entry of token n, z_n), for every token of one document."""
    token = first_token
    for j in range(first_entry, last_entry):
        row = entry_topic[j]
        for _ in range(entry_count[j]):
            row[token_topic[token]] += 1.0
            token += 1


@njit(cache=True, parallel=True)
def gibbs_sweeps(doc_ptr, entry_word, entry_count, token_ptr, word_topic_weights, alpha,
                 digamma_alpha, digamma_alpha_sum, seed, minibatch, first_document,
                 first_pass, n_passes, record_from, record_mode,
                 token_topic, doc_topic_counts, rng_state, entry_topic, doc_log_theta):
    """Run Gibbs passes ``first_pass .. first_pass + n_passes - 1`` on every document.

    State carried between calls (so boosted G-OEM++ can change beta and alpha between passes):
    ``token_topic`` (tokens), ``doc_topic_counts`` (B x K, float64 counts n_dk), ``rng_state``
    (B uint64 stream states, initialised when ``first_pass == 0`` from (seed, minibatch,
    first_document + d)). Accumulators: ``entry_topic`` (entries x K) and ``doc_log_theta``
    (B x K), see the module docstring. ``digamma_alpha`` = digamma(alpha) and
    ``digamma_alpha_sum`` = digamma(sum alpha); digamma(a + n) is then digamma(a) +
    sum_{i<n} 1/(a + i), exact recurrence, O(N_d) per document. ``record_mode``: one of
    RECORD_CONDITIONALS (factorised), RECORD_DENSE (the dense per-token reference, the same result
    up to rounding) and RECORD_SAMPLE (hard counts of the sample), see the module docstring.
    """
    n_docs = doc_ptr.size - 1
    n_topics = alpha.size
    n_chunks = (n_topics + CHUNK - 1) // CHUNK
    # A plain loop: numba would turn alpha.sum() here into a parallel reduction whose rounding
    # depends on the thread count, and the model would then depend on it too.
    alpha_sum = 0.0
    for k in range(n_topics):
        alpha_sum += alpha[k]
    for d in prange(n_docs):
        first_entry, last_entry = doc_ptr[d], doc_ptr[d + 1]
        first_token, last_token = token_ptr[d], token_ptr[d + 1]
        n_tokens = last_token - first_token
        state = rng_state[d:d + 1]
        counts = doc_topic_counts[d]
        z = token_topic[first_token:last_token]
        probabilities = np.zeros(n_chunks * CHUNK)
        chunk_sums = np.empty(n_chunks)
        token_word = np.empty(n_tokens, dtype=np.int64)
        n = 0
        for j in range(first_entry, last_entry):
            for _ in range(entry_count[j]):
                token_word[n] = entry_word[j]
                n += 1
        if first_pass == 0:
            state[0] = stream_seed(seed, minibatch, first_document + d)
            counts[:] = 0.0
            for n in range(n_tokens):
                weights = word_topic_weights[token_word[n]]
                for k in range(n_topics):
                    probabilities[k] = weights[k]
                k = _sample_topic(probabilities, chunk_sums, n_chunks, next_uniform(state))
                z[n] = k
                counts[k] += 1.0
        order = np.empty(n_tokens, dtype=np.int64)
        conditional = np.empty(n_topics)
        for t in range(first_pass, first_pass + n_passes):
            random_permutation(state, n_tokens, order)
            for i in range(n_tokens):
                n = order[i]
                weights = word_topic_weights[token_word[n]]
                counts[z[n]] -= 1.0
                for k in range(n_topics):
                    probabilities[k] = weights[k] * (counts[k] + alpha[k])
                k = _sample_topic(probabilities, chunk_sums, n_chunks, next_uniform(state))
                z[n] = k
                counts[k] += 1.0
            if t < record_from:
                continue
            if record_mode == RECORD_SAMPLE:
                _record_sample(first_entry, last_entry, first_token, entry_count, token_topic,
                               entry_topic)
            elif record_mode == RECORD_DENSE:
                _record_dense(first_entry, last_entry, first_token, entry_word, entry_count,
                              word_topic_weights, alpha, counts, token_topic, entry_topic,
                              conditional)
            else:
                _record_factorised(first_entry, last_entry, first_token, entry_word, entry_count,
                                   word_topic_weights, alpha, counts, token_topic, entry_topic)
            length_term = digamma_alpha_sum
            for i in range(n_tokens):
                length_term += 1.0 / (alpha_sum + i)
            log_theta = doc_log_theta[d]
            for k in range(n_topics):
                value = digamma_alpha[k] - length_term
                for i in range(int(counts[k])):
                    value += 1.0 / (alpha[k] + i)
                log_theta[k] += value
