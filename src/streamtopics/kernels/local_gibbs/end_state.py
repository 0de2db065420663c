"""One recorded Gibbs pass computed after it, word by word, from the state it leaves (Dupuy &
Bach 2016, Algorithm 2's final loop and appendix A.3; a boosted step's burn-in passes,
section 3.3).

Before the recorded window, a boosted G-OEM++ step records each pass alone (R = 1) and needs
only its per-WORD statistics, right after the pass, for the M-step that follows. Everything a
recorded pass reads is in the state the pass leaves: the sample z^t (``token_topic``), the
counts N_dk^t (``doc_topic_counts``, whose positive topics are the sparse kernel's present
list, ascending) and the pass's weights and alpha. Recording inside the sparse kernel would
write each entry's conditionals into the entries x K accumulator (touched on every present
topic), which the statistics would then gather by word, clear and top with U x K smoothing
rows; here each word's row is built in place from its entries, which the documents' count rows
(B x K) and the word's weights (K) serve from cache.

The arithmetic is that of `sparse.record_present_part` and
`inference.gibbs_estep.GibbsRun`'s statistics of one recorded pass, operation for operation
and in the same order, so the results are the same doubles (tests/test_end_state.py): with
Z_n = s_w + sum_k beta_wk N_dk - beta_{w z_n} (present topics ascending, s_w the pass's
own smoothing totals, which `driver.gibbs_sweeps` hands out), S_j = sum_n 1 / Z_n
over the entry's tokens in layout order and S_w the sum of S_j over the word's entries in
entry order, word w's row is

    0 + S_w beta_wk alpha_k, then, entry after entry, on each present topic k of its document,
    + ((0 - sum_{n: z_n = k} beta_wk / Z_n) + S_j beta_wk N_dk).

s2 per document: (0 + sum_{m < N_dk} 1 / (alpha_k + m)) on its present topics, then +
(digamma(alpha_k) - digamma(sum alpha + N_d)) on every topic.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ..statistics import column_sets
from .bundles import NO_VALUES, plain
from .dense import length_term

NO_ENTRY_ROWS = np.zeros((0, 0))


@njit(cache=True, inline="always")
def _log_theta(row, counts, present, alpha, digamma_alpha, digamma_alpha_sum, alpha_sum,
               n_tokens):
    """One document's s2 into ``row`` (module docstring)."""
    row[:] = 0.0
    for k in present:
        value = 0.0
        for m in range(int(counts[k])):
            value += 1.0 / (alpha[k] + m)
        row[k] += value
    length = length_term(digamma_alpha_sum, alpha_sum, n_tokens)
    for k in range(row.size):
        row[k] += digamma_alpha[k] - length


def end_state_statistics(layout, chain, parameters, smoothing_total, out, log_theta,
                         entry_rows=NO_ENTRY_ROWS, entry_inverse=NO_VALUES):
    """The word rows (U x K, into ``out``, returned) and s2 per document (B x K, into
    ``log_theta``, unless it has no rows) of one pass recorded from the state it left
    (``chain``, a `ChainState`, of a minibatch laid out as ``layout``, a `MinibatchLayout`),
    run with ``parameters`` (`GlobalParameters`) and the smoothing totals s_w
    ``smoothing_total`` (U) (module docstring). With ``entry_rows`` (entries x K, zero on the
    present topics) and ``entry_inverse`` (entries, zeros) given, also what the sparse kernel
    would have recorded there: each entry's present part and S_j.

    Entry by entry in layout order, as the kernel records: first every entry's Z_n and S_j
    (in parallel over documents, with s2), then S_w and the smoothing rows, then the entries'
    present parts added to their words' rows in entry order (serial). The same result for any
    thread count. In a document with one topic present (after a few passes, most of them),
    every token is of that topic, so an entry's part there is one number, sum_n
    -beta_{w z_n} / Z_n, summed in token order with its S_j (the kernel's order): the entries
    of such a document then add one value each, with no loop over their tokens."""
    return _end_state_statistics(*plain(layout, chain, parameters), smoothing_total, out,
                                 log_theta, entry_rows, entry_inverse)


@njit(cache=True, parallel=True)
def _end_state_statistics(layout, chain, parameters, smoothing_total, out, log_theta,
                          entry_rows, entry_inverse):
    """`end_state_statistics`, its bundles plain tuples."""
    doc_ptr, entry_word, entry_count, token_ptr = layout
    token_topic, doc_topic_counts, _ = chain
    weights, alpha, digamma_alpha, digamma_alpha_sum = parameters
    n_words, n_topics = weights.shape
    n_docs = doc_ptr.size - 1
    present_ptr, present = column_sets(doc_topic_counts > 0.0)  # ascending per document
    alpha_sum = 0.0  # a plain loop, as `gibbs_sweeps` sums it
    for k in range(n_topics):
        alpha_sum += alpha[k]
    inverse = np.empty(token_topic.size)
    entry_sum = np.empty(entry_word.size)
    entry_part = np.empty(entry_word.size)  # sum_n -beta_{w z_n} / Z_n, in token order
    for d in prange(n_docs):
        first, last = present_ptr[d], present_ptr[d + 1]
        start, stop = doc_ptr[d], doc_ptr[d + 1]
        # Each Z_n's normaliser is a serial chain of additions over the present topics (the
        # kernel's order): four entries' chains run side by side, each in its own order.
        for j in range(start, stop - 3, 4):
            u0, u1, u2, u3 = entry_word[j], entry_word[j + 1], entry_word[j + 2], entry_word[j + 3]
            norm0, norm1 = smoothing_total[u0], smoothing_total[u1]
            norm2, norm3 = smoothing_total[u2], smoothing_total[u3]
            for i in range(first, last):
                k = present[i]
                count = doc_topic_counts[d, k]
                norm0 += weights[u0, k] * count
                norm1 += weights[u1, k] * count
                norm2 += weights[u2, k] * count
                norm3 += weights[u3, k] * count
            entry_sum[j], entry_sum[j + 1] = norm0, norm1
            entry_sum[j + 2], entry_sum[j + 3] = norm2, norm3
        for j in range(start + (stop - start) // 4 * 4, stop):
            u = entry_word[j]
            norm = smoothing_total[u]
            for i in range(first, last):
                k = present[i]
                norm += weights[u, k] * doc_topic_counts[d, k]
            entry_sum[j] = norm
        token = token_ptr[d]
        for j in range(start, stop):
            u = entry_word[j]
            norm = entry_sum[j]
            total = part = 0.0
            for n in range(token, token + entry_count[j]):
                weight = weights[u, token_topic[n]]
                value = 1.0 / (norm - weight)
                inverse[n] = value
                total += value
                part -= weight * value
            entry_sum[j] = total
            entry_part[j] = part
            token += entry_count[j]
        if log_theta.shape[0]:
            _log_theta(log_theta[d], doc_topic_counts[d], present[first:last], alpha,
                       digamma_alpha, digamma_alpha_sum, alpha_sum,
                       token_ptr[d + 1] - token_ptr[d])
    word_sum = np.zeros(n_words)  # np.bincount's order
    for j in range(entry_word.size):
        word_sum[entry_word[j]] += entry_sum[j]
    for u in prange(n_words):
        for k in range(n_topics):
            out[u, k] = 0.0 + word_sum[u] * weights[u, k] * alpha[k]
    record_entries = entry_rows.shape[0] > 0
    tokens = np.zeros(n_topics)  # zero between entries
    for d in range(n_docs):
        first, last = present_ptr[d], present_ptr[d + 1]
        if last - first == 1:  # one topic (most documents after a few passes): its tokens'
            k = present[first]  # part is the entry's, summed in token order above
            count = doc_topic_counts[d, k]
            for j in range(doc_ptr[d], doc_ptr[d + 1]):
                u = entry_word[j]
                value = entry_part[j] + entry_sum[j] * weights[u, k] * count
                out[u, k] += value
                if record_entries:
                    entry_rows[j, k] = value
                    entry_inverse[j] = entry_sum[j]
            continue
        # Over every topic when a quarter or more are present (the first passes): an absent
        # topic adds 0 + S_j beta_wk 0 = +0.0 to a row that is not -0.0, and the loop over K
        # vectorises, where the present list's gathers do not.
        dense = not record_entries and 4 * (last - first) >= n_topics
        token = token_ptr[d]
        for j in range(doc_ptr[d], doc_ptr[d + 1]):
            u = entry_word[j]
            for n in range(token, token + entry_count[j]):
                k = token_topic[n]
                tokens[k] -= weights[u, k] * inverse[n]
            total = entry_sum[j]
            if dense:
                for k in range(n_topics):
                    out[u, k] += tokens[k] + total * weights[u, k] * doc_topic_counts[d, k]
            else:
                for i in range(first, last):
                    k = present[i]
                    value = tokens[k] + total * weights[u, k] * doc_topic_counts[d, k]
                    out[u, k] += value
                    if record_entries:
                        entry_rows[j, k] = value
            if record_entries:
                entry_inverse[j] = total
            for n in range(token, token + entry_count[j]):
                tokens[token_topic[n]] = 0.0
            token += entry_count[j]
    return out
