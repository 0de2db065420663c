"""Batch CVB0 for LDA (Asuncion, Welling, Smyth & Teh 2009; Papanikolaou et al. 2017, eq. 6).

Deterministic given its random start: dense per-(document, word) distributions gamma instead of
sampled assignments. Point estimates use equations 2-3 on the soft counts. Kernels in
`streamtopics.kernels.cvb0`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
import scipy.sparse as sp

from ..kernels import cvb0 as kernels
from .cgs import doc_topic_estimate, topic_word_estimate
from .topic_mask import TopicMask, kernel_mask


def _bag_of_words(counts) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(document offsets, word ids, counts) of a D x V count matrix's non-zeros."""
    matrix = sp.csr_matrix(counts)
    matrix.sum_duplicates()
    return (matrix.indptr.astype(np.int64), matrix.indices.astype(np.int64),
            matrix.data.astype(np.float64))


@dataclass
class CVB0Result:
    """phi (K x V, equation 2 on soft counts), theta (D x K, equation 3), the soft word-topic
    counts n'_kv (V x K) and the mean change of gamma per token after each pass."""

    phi: np.ndarray
    theta: np.ndarray
    word_topic: np.ndarray
    changes: list[float]


def fit_cvb0(counts, n_topics: int, alpha, eta: float, *, iterations: int = 100,
             tolerance: float = 0.0, seed: int = 0, stream: int = 0,
             mask: TopicMask | None = None, prior_counts: np.ndarray | None = None,
             progress: Callable[[int], None] | None = None) -> CVB0Result:
    """Run CVB0 on the D x V count matrix ``counts`` for at most ``iterations`` passes, stopping
    early once the mean change of gamma per token falls below ``tolerance``. ``stream`` picks
    the random start's streams (independent chains); ``mask``: Labeled LDA, document d's
    tokens only on its allowed topics (equation 6 restricted as equation 5), and theta_d
    supported on them. ``prior_counts`` (V x K, seed words): phantom counts held in the soft
    counts n'_kv and n'_k throughout, so equation 6 and phi run on the per-topic-word prior
    eta_kv = eta + prior_counts[v, k], as `GibbsLDA`'s phantom counts do; ``word_topic`` is
    returned without them."""
    doc_offsets, words, values = _bag_of_words(counts)
    n_words = sp.csr_matrix(counts).shape[1]
    alpha = np.broadcast_to(np.asarray(alpha, dtype=np.float64), (n_topics,)).copy()
    masks = kernel_mask(mask, doc_offsets.size - 1, n_topics)
    gamma = np.empty((words.size, n_topics))
    doc_topic, word_topic, topic = kernels.cvb0_initialize(doc_offsets, words, values, n_words,
                                                           seed, stream, gamma, *masks)
    if prior_counts is not None:
        phantoms = np.asarray(prior_counts, dtype=np.float64)
        word_topic += phantoms
        topic += phantoms.sum(axis=0)
    changes = []
    for iteration in range(1, iterations + 1):
        changes.append(kernels.cvb0_sweep(doc_offsets, words, values, gamma, doc_topic,
                                          word_topic, topic, alpha, float(eta), *masks))
        if progress is not None:
            progress(iteration)
        if changes[-1] < tolerance:
            break
    doc_alpha = alpha if mask is None else alpha * mask.indicator()
    return CVB0Result(phi=topic_word_estimate(word_topic, eta),
                      theta=doc_topic_estimate(doc_topic, doc_alpha),
                      word_topic=word_topic if prior_counts is None else word_topic - phantoms,
                      changes=changes)


def predict_cvb0(phi: np.ndarray, alpha, counts, iterations: int = 50) -> np.ndarray:
    """theta (D x K, equation 3 on soft counts) of new documents by CVB0 with phi fixed."""
    phi = np.asarray(phi, dtype=np.float64)
    alpha = np.broadcast_to(np.asarray(alpha, dtype=np.float64), (phi.shape[0],)).copy()
    doc_offsets, words, values = _bag_of_words(counts)
    doc_topic = np.zeros((doc_offsets.size - 1, phi.shape[0]))
    kernels.cvb0_predict(doc_offsets, words, values, np.ascontiguousarray(phi.T), alpha,
                         int(iterations), doc_topic)
    return doc_topic_estimate(doc_topic, alpha)
