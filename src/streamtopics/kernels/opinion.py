"""Numba kernel of left-to-right evaluation for LDA-R (Dupuy's thesis, section 2.2: "an adapted
left-to-right" for a test review whose theta^d is unknown).

The review's tokens are either qualitative (drawn from the opinion topic Psi) or descriptive
(topic z ~ theta, word from phi^z), with theta ~ Dirichlet(alpha) and the descriptive share
q ~ Beta(omega_1, omega_2) both integrated out. A particle holds each earlier token's
assignment (-1 = qualitative, k = descriptive topic k); with the counts of the other tokens,
the collapsed conditional of one token of word w is (Polya urns for q and theta)
  descriptive, topic k: (n_desc + omega_1) / (n + omega_1 + omega_2)
                        * (n_k + alpha_k) / (n_desc + sum alpha) * phi_{k,w}
  qualitative:          (n_qual + omega_2) / (n + omega_1 + omega_2) * Psi_w,
and its total is the predictive probability p(w | the other assignments). The scheme is
Wallach et al. (2009) Algorithm 3, as `kernels.evaluation.left_to_right_document` runs it for
LDA. Its NumPy twin is ``opinion_left_to_right_document`` in tests/naive.py.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from .evaluation import draw_cumulative, empty_particles
from .random import new_stream, next_uniform


@njit(cache=True, inline="always")
def _opinion_conditional(phi_weights, psi_weight, alpha, alpha_sum, omega, topic_counts,
                         n_qualitative, cumulative):
    """Fill ``cumulative`` (K + 1: topics, then the opinion topic) with the running sums of the
    collapsed conditional above; return its total, p(w | the other assignments)."""
    n_descriptive = topic_counts.sum()
    n_other = n_descriptive + n_qualitative
    scale = 1.0 / (n_other + omega[0] + omega[1])
    descriptive = (n_descriptive + omega[0]) * scale / (n_descriptive + alpha_sum)
    total = 0.0
    for k in range(alpha.size):
        total += descriptive * (topic_counts[k] + alpha[k]) * phi_weights[k]
        cumulative[k] = total
    total += (n_qualitative + omega[1]) * scale * psi_weight
    cumulative[alpha.size] = total
    return total


@njit(cache=True)
def opinion_left_to_right_document(phi_by_word, psi, alpha, omega, words, n_particles, state):
    """log p(w_d) of one review under LDA-R with fixed phi, Psi (of the review's sign), alpha
    and omega, estimated by left-to-right with ``n_particles`` particles. O(N^2 R K)."""
    n_tokens = words.size
    n_topics = alpha.size
    alpha_sum = alpha.sum()
    assignments, topic_counts = empty_particles(n_particles, n_tokens, n_topics)
    n_qualitative = np.zeros(n_particles)
    cumulative = np.empty(n_topics + 1)
    log_likelihood = 0.0
    for n in range(n_tokens):
        predictive = 0.0
        for r in range(n_particles):
            for m in range(n + 1):
                word = words[m]
                if m < n:  # remove token m before resampling it
                    old = assignments[r, m]
                    if old < 0:
                        n_qualitative[r] -= 1.0
                    else:
                        topic_counts[r, old] -= 1.0
                total = _opinion_conditional(phi_by_word[word], psi[word], alpha, alpha_sum,
                                             omega, topic_counts[r], n_qualitative[r],
                                             cumulative)
                if m == n:
                    if total <= 0.0:
                        return -np.inf
                    predictive += total
                new = draw_cumulative(cumulative, total, next_uniform(state))
                if new == n_topics:
                    assignments[r, m] = -1
                    n_qualitative[r] += 1.0
                else:
                    assignments[r, m] = new
                    topic_counts[r, new] += 1.0
        log_likelihood += math.log(predictive / n_particles)
    return log_likelihood


@njit(cache=True, parallel=True)
def opinion_left_to_right_kernel(phi_by_word, psi, alpha, omega, word_ids, offsets,
                                 n_particles, seed, first_document):
    """Per-review left-to-right log-likelihoods, parallel over reviews; review d draws from the
    stream (seed, 0, first_document + d), so any thread count gives the same numbers."""
    n_documents = offsets.size - 1
    log_likelihoods = np.zeros(n_documents)
    for d in prange(n_documents):
        state = new_stream(seed, 0, first_document + d)
        log_likelihoods[d] = opinion_left_to_right_document(
            phi_by_word, psi, alpha, omega, word_ids[offsets[d]:offsets[d + 1]], n_particles,
            state)
    return log_likelihoods
