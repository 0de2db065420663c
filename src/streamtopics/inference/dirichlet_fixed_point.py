"""Dirichlet hyperparameters of collapsed Gibbs samplers by Minka's fixed point (Minka 2000),
evaluated on histograms of the counts (Wallach 2008), as MALLET and tomotopy do: an asymmetric
document-topic alpha and a symmetric topic-word eta."""

from __future__ import annotations

import numpy as np
from scipy.special import digamma


def optimize_alpha(doc_topic_counts: np.ndarray, alpha: np.ndarray, iterations: int = 50,
                   tolerance: float = 1e-6, minimum: float = 1e-6) -> np.ndarray:
    """Asymmetric Dirichlet alpha maximising prod_d DirMult(n_d | alpha), Minka's fixed point

        alpha_k <- alpha_k sum_d [psi(n_dk + alpha_k) - psi(alpha_k)]
                           / sum_d [psi(N_d + alpha_0) - psi(alpha_0)],

    evaluated on histograms of the counts (as MALLET and tomotopy do), floored at ``minimum``.
    """
    alpha = np.asarray(alpha, dtype=np.float64).copy()
    docs, topics = np.nonzero(doc_topic_counts)
    if docs.size == 0:
        return alpha
    values = doc_topic_counts[docs, topics].astype(np.int64)
    width = int(values.max()) + 1
    pairs, pair_counts = np.unique(topics * width + values, return_counts=True)
    pair_topics, pair_values = pairs // width, pairs % width
    lengths = doc_topic_counts.sum(axis=1, dtype=np.int64)
    length_values, length_counts = np.unique(lengths[lengths > 0], return_counts=True)
    for _ in range(iterations):
        alpha_sum = alpha.sum()
        denominator = np.sum(length_counts * (digamma(length_values + alpha_sum) - digamma(alpha_sum)))
        numerator = np.bincount(pair_topics, minlength=alpha.size, weights=pair_counts * (
            digamma(pair_values + alpha[pair_topics]) - digamma(alpha[pair_topics])))
        updated = np.maximum(alpha * numerator / denominator, minimum)
        converged = np.max(np.abs(updated - alpha) / alpha) < tolerance
        alpha = updated
        if converged:
            break
    return alpha


def optimize_eta(word_topic_counts: np.ndarray, eta: float, iterations: int = 50,
                 tolerance: float = 1e-6, minimum: float = 1e-8) -> float:
    """Symmetric Dirichlet eta maximising prod_k DirMult(n_k. | eta), Minka's fixed point

        eta <- eta sum_{k,v} [psi(n_kv + eta) - psi(eta)] / (V sum_k [psi(n_k + V eta) - psi(V eta)]).
    """
    n_words = word_topic_counts.shape[0]
    values, value_counts = np.unique(word_topic_counts[word_topic_counts > 0], return_counts=True)
    topic_totals = word_topic_counts.sum(axis=0, dtype=np.int64)
    eta = float(eta)
    if values.size == 0:
        return eta
    for _ in range(iterations):
        numerator = np.sum(value_counts * (digamma(values + eta) - digamma(eta)))
        denominator = n_words * np.sum(digamma(topic_totals + n_words * eta) - digamma(n_words * eta))
        updated = max(eta * numerator / denominator, minimum)
        converged = abs(updated - eta) / eta < tolerance
        eta = updated
        if converged:
            break
    return eta
