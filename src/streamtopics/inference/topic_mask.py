"""`TopicMask`: which topics each document may use (Labeled LDA's label sets as topics).

Labeled LDA (Ramage et al. 2009; Papanikolaou et al. 2017, section 2.4, equation 5) is LDA in
which the tokens of training document d may only take topics in its label set K_d. The mask is
stored CSR-like, ``ptr`` (D+1) and ``topics`` (each row ascending), not as a D x K boolean
array, because every masked kernel *iterates* a document's allowed topics: from the list that
costs O(|K_d|) per token (a few labels out of hundreds), from a boolean row O(K) per token, and
the list takes O(sum_d |K_d|) memory instead of O(D K). Membership tests are never needed: a
masked document's counts can only hold allowed topics.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ..errors import InputError
from ..kernels.topic_mask import NO_MASK_PTR, NO_MASK_TOPICS


@dataclass(frozen=True)
class TopicMask:
    """Allowed topics of D documents among ``n_topics``: document d may use
    ``topics[ptr[d]:ptr[d+1]]`` (ascending, never empty)."""

    ptr: np.ndarray
    topics: np.ndarray
    n_topics: int

    def __post_init__(self):
        ptr = np.ascontiguousarray(self.ptr, dtype=np.int64)
        topics = np.ascontiguousarray(self.topics, dtype=np.int64)
        object.__setattr__(self, "ptr", ptr)
        object.__setattr__(self, "topics", topics)
        if ptr.ndim != 1 or ptr.size < 1 or ptr[0] != 0 or ptr[-1] != topics.size \
                or np.any(np.diff(ptr) < 0):
            raise ValueError("mask pointers must rise from 0 to the number of topic entries")
        empty = np.flatnonzero(np.diff(ptr) == 0)
        if empty.size:
            raise InputError(f"document {int(empty[0])} has no allowed topic (no label): "
                             f"drop it or give it labels")
        if topics.size and (topics.min() < 0 or topics.max() >= self.n_topics):
            raise InputError(f"allowed topics must lie in [0, {self.n_topics})")
        rising = np.diff(topics) > 0
        rising[ptr[1:-1] - 1] = True  # a new row may start lower
        if not np.all(rising):
            raise ValueError("each document's allowed topics must be strictly ascending")

    @classmethod
    def from_indicator(cls, indicator) -> "TopicMask":
        """From a D x K 0/1 matrix (scipy sparse or dense): topic k allowed where nonzero."""
        matrix = sp.csr_matrix(indicator)
        matrix.eliminate_zeros()
        matrix.sum_duplicates()
        matrix.sort_indices()
        return cls(matrix.indptr, matrix.indices, matrix.shape[1])

    @classmethod
    def from_lists(cls, allowed, n_topics: int) -> "TopicMask":
        """From one iterable of topic ids per document (duplicates and order ignored)."""
        rows = [np.unique(np.asarray(list(row), dtype=np.int64)) for row in allowed]
        ptr = np.zeros(len(rows) + 1, dtype=np.int64)
        np.cumsum([row.size for row in rows], out=ptr[1:])
        topics = np.concatenate(rows) if rows else np.zeros(0, dtype=np.int64)
        return cls(ptr, topics, int(n_topics))

    @property
    def n_documents(self) -> int:
        return self.ptr.size - 1

    def rows(self, start: int, stop: int) -> "TopicMask":
        """The mask of documents ``start:stop``."""
        first, last = self.ptr[start], self.ptr[stop]
        return TopicMask(self.ptr[start:stop + 1] - first, self.topics[first:last], self.n_topics)

    def indicator(self) -> np.ndarray:
        """D x K boolean array (dense: for estimates and tests)."""
        dense = np.zeros((self.n_documents, self.n_topics), dtype=bool)
        dense[np.repeat(np.arange(self.n_documents), np.diff(self.ptr)), self.topics] = True
        return dense


def kernel_mask(mask: TopicMask | None, n_documents: int, n_topics: int):
    """(ptr, topics) for the kernels: two empty arrays when ``mask`` is None."""
    if mask is None:
        return NO_MASK_PTR, NO_MASK_TOPICS
    if mask.n_documents != n_documents or mask.n_topics != n_topics:
        raise ValueError(f"the topic mask is {mask.n_documents} documents x {mask.n_topics} "
                         f"topics, the data {n_documents} documents x {n_topics} topics")
    return mask.ptr, mask.topics
