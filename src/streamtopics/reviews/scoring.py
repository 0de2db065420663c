"""Held-out review word prediction (Dupuy's thesis, section 2.2): the log-likelihood of a test
review's words given its (user, item) pair, reported per word.

- LDA-C and LDA-U are scored "pointwise" with the item's or user's known theta:
  log p(w) = sum_n log sum_k theta_k phi_{k, w_n} (`pointwise_log_likelihood`).
- LDA-R-C and LDA-R-U also know theta; the tokens are coupled only through the review's
  word-type proportion q ~ Beta(omega_1, omega_2) and its unknown reduced rating s, so the exact
  likelihood is a one-dimensional integral (components.md section 5.3):
  p(w) = sum_s P(s) int_0^1 prod_n [q A_n + (1 - q) B^s_n] Beta(q; omega) dq, with
  A_n = sum_k theta_k phi_{k, w_n}, B^s_n = Psi^s_{w_n}; computed by Gauss-Jacobi quadrature in
  log space (`opinion_log_likelihood`), cheaper and exact where the thesis uses left-to-right.
- LDA-R (theta^d unknown) is scored by a left-to-right adapted to its two latent proportions
  (`opinion_left_to_right`, kernel in `kernels.opinion`), mixed over the reduced rating.
- LDA-0 (theta unknown) is scored by left-to-right (`streamtopics.evaluation.left_to_right`).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.special import betaincinv, logsumexp, roots_jacobi, roots_legendre

from ..corpus.corpus import Corpus, as_counts
from ..validation import check_count, check_seed
from ..kernels.opinion import opinion_left_to_right_kernel


def group_documents(X, groups) -> tuple[sp.csr_matrix, np.ndarray, np.ndarray]:
    """Concatenate the reviews of each group (item for LDA-C, user for LDA-U): returns the
    grouped counts (one row per distinct group, sorted), the group ids and each review's row."""
    counts = as_counts(X)
    groups = np.asarray(groups)
    if groups.shape != (counts.shape[0],):
        raise ValueError(f"groups must hold one id per review ({counts.shape[0]}), got "
                         f"shape {groups.shape}")
    ids, rows = np.unique(groups, return_inverse=True)
    membership = sp.csr_matrix((np.ones(len(rows)), (rows, np.arange(len(rows)))),
                               shape=(len(ids), len(rows)))
    grouped = (membership @ counts).tocsr()
    grouped.data = np.rint(grouped.data)
    return grouped.astype(np.int64), ids, rows


def _entries(X, doc_topic, topics):
    counts = as_counts(X)
    doc = np.repeat(np.arange(counts.shape[0]), np.diff(counts.indptr))
    word = counts.indices
    descriptive = np.einsum("nk,kn->n", np.asarray(doc_topic, float)[doc], topics[:, word])
    return counts, doc, word, counts.data.astype(np.float64), descriptive


def pointwise_log_likelihood(X, doc_topic, topics) -> np.ndarray:
    """log p(w_d) = sum_n log sum_k theta_{d,k} phi_{k, w_n} per review, theta known (LDA-C,
    LDA-U: row d of ``doc_topic`` is the item's or user's theta)."""
    counts, doc, _, weight, descriptive = _entries(X, doc_topic, np.asarray(topics, float))
    return np.bincount(doc, weights=weight * np.log(descriptive), minlength=counts.shape[0])


def _beta_quadrature(omega: np.ndarray, n_nodes: int) -> tuple[np.ndarray, np.ndarray]:
    """Nodes q and log weights with sum_i w_i f(q_i) ~ E[f(q)], q ~ Beta(omega_1, omega_2).

    Gauss-Jacobi: the weight (1 - x)^a (1 + x)^b on [-1, 1] with q = (1 + x) / 2 is the Beta
    density for a = omega_2 - 1, b = omega_1 - 1 (exact for polynomials of degree < 2n). Its
    normaliser 2^(a + b + 1) overflows for a concentrated Beta (omega_1 + omega_2 > 500, which a
    learnt omega can reach): there, Gauss-Legendre on the Beta's quantile function instead,
    E[f(q)] = int_0^1 f(F^-1(u)) du, smooth because the density is."""
    if omega.sum() <= 500:
        nodes, weights = roots_jacobi(n_nodes, omega[1] - 1, omega[0] - 1)
        return (1 + nodes) / 2, np.log(weights / weights.sum())
    nodes, weights = roots_legendre(n_nodes)
    return betaincinv(omega[0], omega[1], (1 + nodes) / 2), np.log(weights / 2)


def opinion_log_likelihood(X, doc_topic, p_positive, topics, opinion_topics, omega,
                           n_nodes: int = 64) -> np.ndarray:
    """Exact log p(w_d) per review of LDA-R-C / LDA-R-U (theta known) by ``n_nodes``-point
    Gauss-Jacobi quadrature over q = P(descriptive word) ~ Beta(omega_1, omega_2), mixed over
    the reduced rating with P(+1) = ``p_positive`` (a number or one per review).
    ``opinion_topics`` rows: Psi^{-1}, Psi^{+1}."""
    topics = np.asarray(topics, float)
    opinion_topics = np.asarray(opinion_topics, float)
    omega = np.asarray(omega, float)
    counts, doc, word, weight, descriptive = _entries(X, doc_topic, topics)
    n_docs = counts.shape[0]
    p_positive = np.broadcast_to(np.asarray(p_positive, float), (n_docs,))
    q, log_weights = _beta_quadrature(omega, n_nodes)
    by_sign = []
    for side in (0, 1):
        mixture = (q[None, :] * descriptive[:, None]
                   + (1 - q[None, :]) * opinion_topics[side, word][:, None])
        per_node = np.column_stack([
            np.bincount(doc, weights=weight * np.log(mixture[:, j]), minlength=n_docs)
            for j in range(n_nodes)])
        by_sign.append(logsumexp(per_node + log_weights, axis=1))
    with np.errstate(divide="ignore"):
        return np.logaddexp(np.log1p(-p_positive) + by_sign[0], np.log(p_positive) + by_sign[1])


def opinion_left_to_right(X, alpha, p_positive, topics, opinion_topics, omega,
                          n_particles: int = 20, seed: int = 0) -> np.ndarray:
    """Estimated log p(w_d) per review of LDA-R, whose theta^d ~ Dirichlet(``alpha``) (the
    LDA-0 prior) and descriptive share q ~ Beta(``omega``) are unknown at test time: the
    left-to-right algorithm adapted to both (kernel `opinion_left_to_right_document`), run for
    each sign s and mixed as P(+1) = ``p_positive``. Review d uses the stream (seed, 0, d)."""
    topics = np.ascontiguousarray(np.asarray(topics, float).T)
    opinion_topics = np.asarray(opinion_topics, float)
    alpha = np.broadcast_to(np.asarray(alpha, float), (topics.shape[1],)).copy()
    omega = np.asarray(omega, float)
    n_particles = check_count(n_particles, "n_particles", 1)
    seed = check_seed(seed)
    word_ids, offsets = Corpus(X).document_tokens()
    n_docs = offsets.size - 1
    p_positive = np.broadcast_to(np.asarray(p_positive, float), (n_docs,))
    by_sign = [opinion_left_to_right_kernel(topics, np.ascontiguousarray(opinion_topics[side]),
                                            alpha, omega, word_ids, offsets, n_particles, seed, 0)
               for side in (0, 1)]
    with np.errstate(divide="ignore"):
        return np.logaddexp(np.log1p(-p_positive) + by_sign[0], np.log(p_positive) + by_sign[1])


def per_word_log_perplexity(log_likelihoods, X) -> float:
    """-(sum of log-likelihoods) / (number of tokens): the thesis' Figure 4 unit, nats/word."""
    return float(-np.sum(log_likelihoods) / as_counts(X).sum())
