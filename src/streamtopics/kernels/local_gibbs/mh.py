"""The Metropolis-Hastings per-document kernel of the local Gibbs E-step: Algorithm 2 (Dupuy &
Bach 2016) at O(1) per token and MH step, in the style of LightLDA (Yuan et al. 2015) and
WarpLDA's cycle proposals.

The chain of token n (word w, current topic s) targets equation 5 / 15,

    p(z_n = k | z_-n) proportional to beta_wk (N_-n,k + alpha_k),

with ``cycles`` cycles per token and pass, each cycle two MH steps:

* word proposal q_w(t) = beta_wt / sum_k beta_wk, drawn in O(1) from an alias table (Walker
  1977, Vose 1991) built once per distinct word of the minibatch per call. It does not depend on
  the state, so the acceptance ratio is p(t) q_w(s) / (p(s) q_w(t))
  = (N_-n,t + alpha_t) / (N_-n,s + alpha_s).
* document proposal q_d(t | s) proportional to N_t + alpha_t, with the counts N *including*
  token n at its current topic s (N_t = N_-n,t + [t = s]): with probability
  N_d / (N_d + sum alpha) the topic of a uniformly drawn token of the document (token n among
  them), else a draw from the alias table of alpha, O(1) either way. This proposal depends on
  s; with q_d(t | s) = (N_-n,t + alpha_t) / (N_d + sum alpha) and q_d(s | t) =
  (N_-n,s + alpha_s) / (N_d + sum alpha) for t != s, the ratio is p(t) q_d(s | t) /
  (p(s) q_d(t | s)) = beta_wt / beta_ws.

Both steps are accepted by comparing u * (denominator) < numerator (no division: a state of
zero target mass, possible only when beta changed between calls, is left at once). Each step
leaves p(z_n | z_-n) invariant, so the sweep does too: the chain's stationary distribution is
p(z | X, beta, alpha) (tests/test_gibbs_estep_mh.py enumerates it), but successive samples are
more correlated than the exact Gibbs draws of the dense and sparse kernels.

The initial sample z^0 ~ Mult(beta_w / sum_k beta_wk) (Algorithm 2) is a draw from the word's
alias table. Each pass visits the tokens in a fresh uniform permutation, as the other kernels
do; its word proposals are drawn before it (they do not depend on the state), so that their
reads, scattered over the U x K tables, are independent of each other and overlap.

The recorded passes (Algorithm 2, final loop) add the exact full conditionals, as the sparse
kernel does (`sparse.record_present_part` on the present topics each
recorded pass, the smoothing part beta_wk alpha_k S_j once per call or by the caller), so the
statistics' estimator is that of the other kernels; only the chain's moves differ. s2 adds
digamma(alpha_k + N_dk) - digamma(sum alpha + N_d) per recorded pass (`add_log_theta`).

Random numbers come from the document's counter-based stream (`kernels.random`): results are
bit-identical for any number of threads. The layout of the minibatch, the state carried between
calls and the accumulators are those of `driver.gibbs_sweeps`, which runs it.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ..random import next_uniform, random_permutation
from .bundles import RECORD_SAMPLE
from .dense import add_log_theta, length_term, record_sample
from .sparse import add_smoothing_part, record_present_part

DEFAULT_CYCLES = 2


@njit(cache=True, inline="always")
def build_alias(weights, table, small, large):
    """Vose's alias table of the non-negative ``weights`` (K, positive total) into ``table``
    (K x 2: the probability of keeping column i, and the alias taken otherwise, as a float so
    that a draw reads one cache line); ``small``/``large``: K-int work arrays."""
    n = weights.size
    total = 0.0
    for k in range(n):
        total += weights[k]
    scale = n / total
    n_small = 0
    n_large = 0
    for k in range(n):
        p = weights[k] * scale
        table[k, 0] = p
        table[k, 1] = k
        small[n_small] = k
        large[n_large] = k
        is_small = p < 1.0
        n_small += is_small
        n_large += not is_small
    # Each large column in turn fills the small ones (its probability kept in a register)
    # until it falls below 1 and becomes small itself.
    while n_large > 0:
        n_large -= 1
        g = large[n_large]
        p = table[g, 0]
        while n_small > 0 and p >= 1.0:
            n_small -= 1
            s = small[n_small]
            table[s, 1] = g
            p = (p + table[s, 0]) - 1.0
        if p >= 1.0:  # no small column left: the rest are full (to rounding)
            table[g, 0] = 1.0
            continue
        table[g, 0] = p
        small[n_small] = g
        n_small += 1
    for i in range(n_small):  # left over by rounding: full
        table[small[i], 0] = 1.0


@njit(cache=True, inline="always")
def alias_draw(tables, row, u):
    """A column of the alias table ``tables[row]`` (`build_alias`) from the uniform ``u``."""
    n = tables.shape[1]
    x = u * n
    i = min(int(x), n - 1)
    return i if x - i < tables[row, i, 0] else int(tables[row, i, 1])


@njit(cache=True, parallel=True)
def mh_tables(word_topic_weights, alpha):
    """Per call: the alias tables of beta_w (U x K x 2, `build_alias`) and of alpha
    (1 x K x 2)."""
    n_words, n_topics = word_topic_weights.shape
    word_tables = np.empty((n_words, n_topics, 2))
    for w in prange(n_words):
        build_alias(word_topic_weights[w], word_tables[w], np.empty(n_topics, dtype=np.int64),
                    np.empty(n_topics, dtype=np.int64))
    alpha_table = np.empty((1, n_topics, 2))
    build_alias(alpha, alpha_table[0], np.empty(n_topics, dtype=np.int64),
                np.empty(n_topics, dtype=np.int64))
    return word_tables, alpha_table


@njit(cache=True, inline="always")
def mh_token(weights, s, n, proposals, z, counts, alpha_table, alpha, alpha_sum, state):
    """The new topic of token n (word weights ``weights``, topic ``s``, already taken out of
    ``counts``) after one word-then-document MH cycle per word proposal in ``proposals``
    (module docstring); ``z[n]`` follows s."""
    n_tokens = z.size
    document_mass = n_tokens + alpha_sum
    for t in proposals:
        if next_uniform(state) * (counts[s] + alpha[s]) < counts[t] + alpha[t]:
            s = t
            z[n] = s
        x = next_uniform(state) * document_mass
        if x < n_tokens:
            t = z[min(int(x), n_tokens - 1)]
        else:
            t = alias_draw(alpha_table, 0, (x - n_tokens) / alpha_sum)
        if next_uniform(state) * weights[s] < weights[t]:
            s = t
            z[n] = s
    return s


@njit(cache=True)
def _pass(token_word, word_topic_weights, word_tables, alpha_table, alpha, alpha_sum, z, counts,
          state, order, proposals):
    """One pass of the chain over a document's tokens (``token_word``: the word of each), in a
    fresh permutation (into ``order``), ``proposals.shape[1]`` cycles per token. A compiled
    function of its own, its arguments arrays and numbers: where they come out of the bundles
    of `mh_document_passes`, the token loop compiles to slower code."""
    n_tokens = z.size
    cycles = proposals.shape[1]
    random_permutation(state, n_tokens, order)
    # The word proposals do not depend on the state: drawn for the whole pass first, their
    # table reads (scattered over U x K) are independent and overlap.
    for n in range(n_tokens):
        for c in range(cycles):
            proposals[n, c] = alias_draw(word_tables, token_word[n], next_uniform(state))
    for i in range(n_tokens):
        n = order[i]
        s = z[n]
        counts[s] -= 1.0
        s = mh_token(word_topic_weights[token_word[n]], s, n, proposals[n], z, counts,
                     alpha_table, alpha, alpha_sum, state)
        counts[s] += 1.0


@njit(cache=True)
def mh_document_passes(entries, parameters, alpha_sum, smoothing_total, tables, cycles,
                       initial_seed, plan, chain, accumulators, inverse_sums, add_smoothing):
    """`sparse.sparse_document_passes` (the same arguments, state and accumulators) with
    ``cycles`` MH cycles per token instead of an exact draw, and the alias tables (word
    tables, alpha table) of `mh_tables`."""
    entry_word, entry_count = entries
    word_topic_weights, alpha, digamma_alpha, digamma_alpha_sum = parameters
    word_tables, alpha_table = tables
    first_pass, n_passes, record_from, record_mode = plan
    z, counts, state = chain
    entry_topic, log_theta = accumulators
    n_entries = entry_word.size
    n_tokens = z.size
    n_topics = alpha.size
    token_word = np.repeat(entry_word, entry_count)
    if first_pass == 0:
        state[0] = initial_seed
        counts[:] = 0.0
        for n in range(n_tokens):
            k = alias_draw(word_tables, token_word[n], next_uniform(state))
            z[n] = k
            counts[k] += 1.0
    order = np.empty(n_tokens, dtype=np.int64)
    proposals = np.empty((n_tokens, cycles), dtype=np.int64)
    present = np.empty(n_topics, dtype=np.int64)
    present_counts = np.empty(n_topics)
    length = length_term(digamma_alpha_sum, alpha_sum, n_tokens)
    n_recorded = 0
    for t in range(first_pass, first_pass + n_passes):
        _pass(token_word, word_topic_weights, word_tables, alpha_table, alpha, alpha_sum, z,
              counts, state, order, proposals)
        if t < record_from:
            continue
        n_recorded += 1
        if record_mode != RECORD_SAMPLE:
            n_present = 0
            for k in range(n_topics):
                if counts[k] > 0.0:
                    present[n_present] = k
                    present_counts[n_present] = counts[k]
                    n_present += 1
            record_present_part(entry_word, entry_count, word_topic_weights, smoothing_total,
                                 present, present_counts, n_present, z, entry_topic,
                                 inverse_sums)
        else:
            record_sample(0, n_entries, 0, entry_count, z, entry_topic)
        add_log_theta(log_theta, counts, alpha, digamma_alpha, length, n_topics)
    if n_recorded > 0 and record_mode != RECORD_SAMPLE and add_smoothing:
        add_smoothing_part(entry_word, word_topic_weights, alpha, inverse_sums, entry_topic)
