"""A minibatch in the layout the E-step kernels take: documents -> entries (distinct words) -> tokens.

Built once per minibatch from a CSR slice of document-word counts. The minibatch's vocabulary
is reduced to the U distinct words it contains (``words``, sorted global ids), so an E-step
touches only those U columns of the topic-word statistics.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import scipy.sparse as sp
from numba import njit

from ..kernels.local_gibbs import NO_KEYS, MinibatchLayout, StreamKey
from ..kernels.statistics import ALL_COLUMNS, group_sums, grouped
from .topic_mask import TopicMask


@dataclass(frozen=True)
class Minibatch:
    """B documents of a V-word vocabulary.

    ``doc_ptr`` (B+1): entries of document d are ``doc_ptr[d]:doc_ptr[d+1]``; ``entry_word``:
    each entry's local word id (index into ``words``); ``entry_count``: its count;
    ``token_ptr`` (B+1): token offsets (documents' lengths accumulated); ``words``: the U
    distinct global word ids, ascending; ``first_document``: index of the first document in
    its stream (so a split minibatch draws the same per-document random streams);
    ``topic_mask``: the topics each document may use (Labeled LDA), None for all;
    ``stream_keys`` (B, int64): each document's own stream key, None for the minibatch's
    (`kernels.local_gibbs.StreamKey`: `transform` keys a document by its content).
    """

    doc_ptr: np.ndarray
    entry_word: np.ndarray
    entry_count: np.ndarray
    token_ptr: np.ndarray
    words: np.ndarray
    n_words: int
    first_document: int = 0
    topic_mask: TopicMask | None = None
    stream_keys: np.ndarray | None = None

    @classmethod
    def from_counts(cls, counts, first_document: int = 0,
                    topic_mask: TopicMask | None = None) -> "Minibatch":
        """From a (B, V) sparse or dense matrix of non-negative integer counts (and the B
        documents' ``topic_mask``)."""
        counts = sp.csr_matrix(counts)
        return cls.from_rows(counts, 0, counts.shape[0], first_document, topic_mask)

    @classmethod
    def from_rows(cls, counts: sp.csr_matrix, start: int, stop: int, first_document: int = 0,
                  topic_mask: TopicMask | None = None) -> "Minibatch":
        """From rows ``start:stop`` of a CSR matrix of non-negative integer counts (and those
        documents' ``topic_mask``): `from_counts` of ``counts[start:stop]`` without the slice,
        one kernel pass (`csr_layout`) when the rows have sorted, distinct words and no
        explicit zero (a `Corpus`'s counts), else through a canonical copy of them. ``stop``
        past the last row means the last row, as in a slice."""
        stop = min(stop, counts.shape[0])
        canonical, *layout = csr_layout(counts.indptr, counts.indices, counts.data, start, stop,
                                        counts.shape[1])
        if not canonical:
            rows = counts[start:stop].copy()  # never modify the caller's matrix
            rows.sum_duplicates()
            rows.eliminate_zeros()
            _, *layout = csr_layout(rows.indptr, rows.indices, rows.data, 0, rows.shape[0],
                                    rows.shape[1])
        doc_ptr, entry_word, entry_count, token_ptr, words = layout
        return cls(doc_ptr=doc_ptr, entry_word=entry_word, entry_count=entry_count,
                   token_ptr=token_ptr, words=words, n_words=counts.shape[1],
                   first_document=int(first_document), topic_mask=topic_mask)

    def documents(self, start: int, stop: int) -> "Minibatch":
        """Documents ``start:stop`` as a minibatch of their own: the same entries in the same
        order (so the same arithmetic), their words renumbered, ``first_document`` advanced by
        ``start`` (so the same random streams) and the mask's rows; a chunk of a distributed
        E-step (`inference.estep_chunks`)."""
        if start == 0 and stop == self.n_documents:
            return self
        entries = slice(self.doc_ptr[start], self.doc_ptr[stop])
        local = self.entry_word[entries]
        present = np.zeros(self.words.size, dtype=bool)  # O(entries + U): no sort
        present[local] = True
        renumber = np.cumsum(present) - 1
        return Minibatch(doc_ptr=self.doc_ptr[start:stop + 1] - self.doc_ptr[start],
                         entry_word=renumber[local],
                         entry_count=self.entry_count[entries],
                         token_ptr=self.token_ptr[start:stop + 1] - self.token_ptr[start],
                         words=self.words[present], n_words=self.n_words,
                         first_document=self.first_document + start,
                         topic_mask=None if self.topic_mask is None
                         else self.topic_mask.rows(start, stop),
                         stream_keys=None if self.stream_keys is None
                         else self.stream_keys[start:stop])

    @property
    def n_documents(self) -> int:
        return self.doc_ptr.size - 1

    @property
    def n_entries(self) -> int:
        return self.entry_word.size

    @property
    def n_tokens(self) -> int:
        return int(self.token_ptr[-1])

    def stream_key(self, seed: int, minibatch_index: int) -> StreamKey:
        """What seeds each document's random stream in step ``minibatch_index`` of ``seed``:
        (seed, minibatch_index, first_document + d), or the document's own ``stream_keys``."""
        keys = NO_KEYS if self.stream_keys is None else self.stream_keys
        return StreamKey(int(seed), int(minibatch_index), self.first_document, keys)

    @property
    def layout(self) -> MinibatchLayout:
        """Where each document's entries and tokens are, as the local Gibbs kernels take it."""
        return MinibatchLayout(self.doc_ptr, self.entry_word, self.entry_count, self.token_ptr)

    @property
    def document_lengths(self) -> np.ndarray:
        return np.diff(self.token_ptr)

    def word_totals(self, entry_topic: np.ndarray, divisor: float = 1.0,
                    start: np.ndarray | None = None) -> np.ndarray:
        """Sum an (entries x K) array over the entries of each local word, in entry order, onto
        ``start`` (U x K, not modified; zeros if None), and divide by ``divisor``: (U x K)."""
        out = (np.zeros((self.words.size, entry_topic.shape[1])) if start is None
               else np.array(start, dtype=np.float64))
        return group_sums(entry_topic, self.entry_word, out, float(divisor), ALL_COLUMNS,
                          ALL_COLUMNS, ALL_COLUMNS)

    def document_totals(self, entry_topic: np.ndarray) -> np.ndarray:
        """Sum an (entries x K) array over the entries of each document: (B x K)."""
        return group_sums(entry_topic, self.entry_document,
                          np.zeros((self.n_documents, entry_topic.shape[1])), 1.0, ALL_COLUMNS,
                          ALL_COLUMNS, ALL_COLUMNS)

    @cached_property
    def word_entries(self) -> tuple[np.ndarray, np.ndarray]:
        """The entries of each local word, ascending: (ptr U + 1, entries), word u's being
        ``entries[ptr[u]:ptr[u + 1]]`` (`kernels.statistics.grouped`)."""
        return grouped(self.entry_word, self.words.size)

    @cached_property
    def entry_document(self) -> np.ndarray:
        """The document of each entry."""
        return np.repeat(np.arange(self.n_documents, dtype=np.int64), np.diff(self.doc_ptr))


@njit(cache=True)
def csr_layout(indptr, indices, data, start, stop, n_words):
    """(canonical, doc_ptr, entry_word, entry_count, token_ptr, words) of rows ``start:stop``
    of a CSR matrix (see `Minibatch`), in O(entries + V) without a sort; ``canonical`` is
    False when a row's words are not strictly increasing or a count is not positive (then the
    caller makes them so and calls again)."""
    first, last = indptr[start], indptr[stop]
    doc_ptr = np.empty(stop - start + 1, dtype=np.int64)
    token_ptr = np.zeros(stop - start + 1, dtype=np.int64)
    entry_count = np.empty(last - first, dtype=np.int64)
    local = np.zeros(n_words, dtype=np.int64)  # 1 + the local id of each present word
    canonical = True
    for d in range(stop - start):
        doc_ptr[d] = indptr[start + d] - first
        tokens = 0
        for e in range(indptr[start + d], indptr[start + d + 1]):
            canonical = canonical and data[e] > 0 and (
                e == indptr[start + d] or indices[e] > indices[e - 1])
            entry_count[e - first] = data[e]
            tokens += entry_count[e - first]
            local[indices[e]] = 1
        token_ptr[d + 1] = token_ptr[d] + tokens
    doc_ptr[stop - start] = last - first
    n_present = 0
    for v in range(n_words):
        if local[v]:
            n_present += 1
            local[v] = n_present
    words = np.empty(n_present, dtype=np.int64)
    entry_word = np.empty(last - first, dtype=np.int64)
    for e in range(first, last):
        entry_word[e - first] = local[indices[e]] - 1
        words[entry_word[e - first]] = indices[e]
    return canonical, doc_ptr, entry_word, entry_count, token_ptr, words
