"""Local variational E-step of V-OEM (Dupuy & Bach 2016, appendix A.2, equations 11-12 and 14).

For each document (in parallel over documents), ``n_passes`` rounds of block coordinate ascent on
the mean-field posterior q(theta, Z) = Dirichlet(theta | gamma) prod_n Mult(z_n | zeta_n):

    zeta_nk  proportional to  beta_{x_n k} exp(digamma(gamma_k))        (11)
    gamma_k  = alpha_k + sum_n zeta_nk                                   (12)

Tokens of the same word share zeta, so a pass costs O(distinct words x K). After the last pass
the expected sufficient statistics are (14): ``entry_topic[j, k]`` = count_j zeta_jk (the zeta of
the last pass, from which the final gamma was computed) and ``doc_log_theta[d, k]`` =
digamma(gamma_k) - digamma(sum gamma). Same minibatch layout as `kernels.local_gibbs`.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from .special import digamma
from .statistics import blend_row

_FAST = {"reassoc", "contract"}


NO_ENTRY_RATIO = np.zeros(0)
NO_DOC_WEIGHTS = np.zeros((0, 0))


@njit(cache=True, parallel=True, fastmath=_FAST)
def variational_passes(doc_ptr, entry_word, entry_count, word_topic_weights, alpha, n_passes,
                       doc_gamma, entry_topic, doc_log_theta, entry_ratio=NO_ENTRY_RATIO,
                       doc_weights=NO_DOC_WEIGHTS):
    """Run ``n_passes`` passes of (11)-(12) on every document from its current ``doc_gamma``.

    ``doc_gamma`` (B x K) is updated in place (state carried between calls, so boosted V-OEM++
    can change beta and alpha between passes); ``entry_topic`` (entries x K) and
    ``doc_log_theta`` (B x K) are overwritten with the expectations (14) of the last pass
    (``doc_log_theta`` without rows: s2 is left to `log_theta_rows`, from the final gamma
    when it is needed; a boosted step needs it after its last pass only).
    exp(digamma(gamma_k)) is taken relative to its largest value (it cancels in (11)) so tiny
    alpha cannot underflow every topic; a word whose normaliser still underflows is skipped.

    With ``entry_ratio`` (entries) and ``doc_weights`` (B x K) given, ``entry_topic`` is left
    alone and the last pass writes its factors instead: entry_topic[j, k] = entry_ratio[j] *
    beta_wk * doc_weights[d, k] (count_j / normaliser, and the document's exp(digamma(gamma)));
    `entry_topic_sums` sums them by word without the entries x K array (a boosted step needs
    the word statistics after every pass).
    """
    n_docs = doc_ptr.size - 1
    n_topics = alpha.size
    factored = entry_ratio.size > 0
    for d in prange(n_docs):
        first_entry, last_entry = doc_ptr[d], doc_ptr[d + 1]
        gamma = doc_gamma[d]
        exp_log_theta = np.empty(n_topics)
        weighted = np.empty(n_topics)
        for t in range(n_passes):
            top = -np.inf
            for k in range(n_topics):
                exp_log_theta[k] = digamma(gamma[k])
                top = max(top, exp_log_theta[k])
            for k in range(n_topics):
                exp_log_theta[k] = math.exp(exp_log_theta[k] - top)
                weighted[k] = 0.0
            last = t == n_passes - 1
            for j in range(first_entry, last_entry):
                weights = word_topic_weights[entry_word[j]]
                norm = 0.0
                for k in range(n_topics):
                    norm += weights[k] * exp_log_theta[k]
                if norm <= 0.0:
                    if last and factored:
                        entry_ratio[j] = 0.0
                    elif last:
                        entry_topic[j, :] = 0.0
                    continue
                ratio = entry_count[j] / norm
                for k in range(n_topics):
                    weighted[k] += ratio * weights[k]
                if last and factored:
                    entry_ratio[j] = ratio
                elif last:
                    row = entry_topic[j]
                    for k in range(n_topics):
                        row[k] = ratio * weights[k] * exp_log_theta[k]
            if last and factored:
                doc_weights[d, :] = exp_log_theta
            for k in range(n_topics):
                gamma[k] = alpha[k] + exp_log_theta[k] * weighted[k]
        if doc_log_theta.shape[0]:
            _log_theta(gamma, doc_log_theta[d])


@njit(cache=True, inline="always", fastmath=_FAST)
def _log_theta(gamma, out):
    """``out[k] = digamma(gamma_k) - digamma(sum gamma)``: E[log theta_k] under
    Dirichlet(gamma), s2 of (14)."""
    gamma_sum = 0.0
    for k in range(gamma.size):
        gamma_sum += gamma[k]
    total = digamma(gamma_sum)
    for k in range(gamma.size):
        out[k] = digamma(gamma[k]) - total


@njit(cache=True, parallel=True, fastmath=_FAST)
def log_theta_rows(doc_gamma, out):
    """s2 of (14) per document from ``doc_gamma`` (B x K) into ``out``, as
    `variational_passes` computes it after its last pass; returned."""
    for d in prange(doc_gamma.shape[0]):
        _log_theta(doc_gamma[d], out[d])
    return out


@njit(cache=True, inline="always")  # no contraction: the product is rounded before the sum
def _word_row(target, w, word_ptr, word_entries, entry_document, entry_ratio,
              word_topic_weights, doc_weights):
    """Word ``w``'s row of `entry_topic_sums` into ``target`` (K)."""
    weights = word_topic_weights[w]
    target[:] = 0.0
    for m in range(word_ptr[w], word_ptr[w + 1]):
        j = word_entries[m]
        factors = doc_weights[entry_document[j]]
        ratio = entry_ratio[j]
        for k in range(target.size):
            target[k] += ratio * weights[k] * factors[k]


@njit(cache=True)  # no contraction: the product is rounded before the sum
def entry_topic_sums(word_ptr, word_entries, entry_document, entry_ratio, word_topic_weights,
                     doc_weights):
    """The factored expectations of `variational_passes` (entry_ratio[j] * beta_wk *
    doc_weights[d, k], the arithmetic of its entry_topic) summed over the entries of each word
    in entry order: the word statistics (14) without the entries x K array. Word by word
    (``word_entries[word_ptr[w]:word_ptr[w + 1]]``, ascending: `Minibatch.word_entries`):
    each row and beta_w read and written once."""
    n_words, n_topics = word_topic_weights.shape
    out = np.empty((n_words, n_topics))
    for w in range(n_words):
        _word_row(out[w], w, word_ptr, word_entries, entry_document, entry_ratio,
                  word_topic_weights, doc_weights)
    return out


@njit(cache=True)  # no contraction, as `entry_topic_sums` and `statistics.blend_rows`
def blend_entry_topic_sums(raw, source, rows, word_ptr, word_entries, entry_document,
                           entry_ratio, word_topic_weights, doc_weights, n_documents,
                           coefficient, column_sums):
    """`statistics.blend_rows` of the rows `entry_topic_sums` would return, each row blended as
    soon as it is summed, in a scratch row: ``mean = (its row) / n_documents; raw[rows] =
    source[rows] + coefficient * mean; column_sums[:] = mean.sum(axis=0)`` (row after row),
    the same doubles, without the U x K statistics written and read back (a boosted V-OEM++
    step's passes)."""
    column_sums[:] = 0.0
    values = np.empty(column_sums.size)
    for w in range(rows.size):
        _word_row(values, w, word_ptr, word_entries, entry_document, entry_ratio,
                  word_topic_weights, doc_weights)
        blend_row(raw[rows[w]], source[rows[w]], values, n_documents, coefficient, column_sums)
