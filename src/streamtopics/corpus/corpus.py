"""The `Corpus` value: document-word counts plus vocabulary, optional token order, labels, metadata.

A corpus is immutable in spirit: every operation (``split``, ``minibatches``, indexing) returns a
new `Corpus` sharing no mutable state with the original.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator, Sequence

import numpy as np
import scipy.sparse as sp

from ..errors import InputError


@dataclass
class ReadReport:
    """What a reader did: nothing is dropped silently.

    ``documents_skipped`` maps a reason ("empty after preprocessing", "duplicate", ...) to a
    count; ``tokens_dropped`` counts tokens read but not kept (stop words, unknown words, ...);
    ``warnings`` keeps the first `MAX_WARNINGS` located notes ("file, line 7: 2 undecodable
    bytes replaced") and ``warnings_total`` counts all of them; ``words_removed`` counts the
    word types a vocabulary pruning removed, by reason.
    """

    MAX_WARNINGS = 20  # a class constant, not a field

    source: str = ""
    documents_read: int = 0
    documents_kept: int = 0
    documents_skipped: dict[str, int] = field(default_factory=dict)
    tokens_kept: int = 0
    tokens_dropped: dict[str, int] = field(default_factory=dict)
    decode_replacements: int = 0
    warnings: list[str] = field(default_factory=list)
    warnings_total: int = 0
    words_removed: dict[str, int] = field(default_factory=dict)

    def warn(self, message: str) -> None:
        self.warnings_total += 1
        if len(self.warnings) < self.MAX_WARNINGS:
            self.warnings.append(message)

    def skip(self, reason: str, n: int = 1) -> None:
        self.documents_skipped[reason] = self.documents_skipped.get(reason, 0) + n

    def drop_tokens(self, reason: str, n: int) -> None:
        if n:
            self.tokens_dropped[reason] = self.tokens_dropped.get(reason, 0) + n

    def as_dict(self) -> dict:
        return {
            "source": self.source,
            "documents_read": self.documents_read,
            "documents_kept": self.documents_kept,
            "documents_skipped": dict(self.documents_skipped),
            "tokens_kept": self.tokens_kept,
            "tokens_dropped": dict(self.tokens_dropped),
            "decode_replacements": self.decode_replacements,
            "warnings": list(self.warnings),
            "warnings_total": self.warnings_total,
            "words_removed": dict(self.words_removed),
        }

    def summary(self) -> str:
        """One human line, e.g. for the CLI's stderr."""
        parts = [f"{self.source}: read {self.documents_read} documents, kept {self.documents_kept}"]
        for reason, n in sorted(self.documents_skipped.items()):
            parts.append(f"skipped {n} ({reason})")
        parts.append(f"{self.tokens_kept} tokens kept")
        for reason, n in sorted(self.tokens_dropped.items()):
            parts.append(f"{n} tokens dropped ({reason})")
        for reason, n in sorted(self.words_removed.items()):
            parts.append(f"{n} word types removed ({reason})")
        if self.decode_replacements:
            parts.append(f"{self.decode_replacements} undecodable bytes replaced")
        if self.warnings_total:
            parts.append(f"{self.warnings_total} warning(s), first: {self.warnings[0]}")
        return ", ".join(parts)


def as_counts(counts) -> sp.csr_matrix:
    """``counts`` (a D x V matrix, scipy sparse or dense) as sorted int64 CSR document-word
    counts; InputError for counts that are not whole non-negative numbers below 2^62."""
    matrix = sp.csr_matrix(counts)
    matrix.sum_duplicates()
    matrix.sort_indices()
    if matrix.nnz and not np.issubdtype(matrix.dtype, np.integer):
        rounded = np.rint(matrix.data)
        if not np.array_equal(rounded, matrix.data):
            raise InputError("document-word counts must be whole numbers")
        if np.abs(rounded).max() >= 2.0**62:
            raise InputError("document-word counts must be below 2^62")
        matrix.data = rounded
    matrix.data = matrix.data.astype(np.int64, copy=False)
    if matrix.nnz and matrix.data.min() < 0:
        raise InputError("document-word counts must be non-negative")
    matrix.eliminate_zeros()
    return matrix


class Corpus:
    """Documents as a D x V CSR matrix of word counts, with the vocabulary (V words).

    Parameters
    ----------
    counts : sparse or dense (D, V) matrix of non-negative integer counts.
    vocabulary : sequence of V distinct words (strings); defaults to "w0", "w1", ...
    tokens : optional list of D integer arrays, each document's word ids in reading order. Some
        evaluators (left-to-right) depend on token order; when absent, ``document_tokens`` uses
        the fixed bag-of-words order (word ids ascending, each repeated by its count).
    labels : optional sequence of D labels (a label, a list of labels, or None per document).
    metadata : optional list of D dicts.
    report : the `ReadReport` of the reader that produced the corpus, if any.
    pipeline : how its text was tokenised (a `corpus.pipeline.TextPipeline`), if it was read
        from raw text or a corpus directory that records it; a model fitted on the corpus keeps
        it (``text_pipeline_``) to tokenise new text alike.
    """

    def __init__(self, counts, vocabulary: Sequence[str] | None = None, tokens=None,
                 labels=None, metadata=None, report: ReadReport | None = None, pipeline=None):
        self.counts = as_counts(counts)
        n_docs, n_words = self.counts.shape
        if vocabulary is None:
            vocabulary = [f"w{i}" for i in range(n_words)]
        if isinstance(vocabulary, np.ndarray) and vocabulary.dtype.kind == "U":
            self.vocabulary = vocabulary  # shared, not copied: minibatches of a large corpus
        else:
            self.vocabulary = np.asarray(list(vocabulary), dtype=str)
        if self.vocabulary.shape != (n_words,):
            raise InputError(
                f"vocabulary has {self.vocabulary.size} words but the counts have {n_words} columns")
        if tokens is not None:
            tokens = [np.asarray(t, dtype=np.int64) for t in tokens]
            if len(tokens) != n_docs:
                raise InputError(f"{len(tokens)} token sequences for {n_docs} documents")
            lengths = np.asarray(self.counts.sum(axis=1)).ravel()
            for d, t in enumerate(tokens):
                if t.size != lengths[d]:
                    raise InputError(
                        f"document {d}: token sequence has {t.size} tokens, counts sum to {lengths[d]}")
        self.tokens = tokens
        for name, values in (("labels", labels), ("metadata", metadata)):
            if values is not None and len(values) != n_docs:
                raise InputError(f"{len(values)} {name} for {n_docs} documents")
        self.labels = None if labels is None else list(labels)
        self.metadata = None if metadata is None else list(metadata)
        self.report = report
        self.pipeline = pipeline

    # --- constructors -------------------------------------------------------------------------
    @classmethod
    def from_token_lists(cls, token_lists, vocabulary: Sequence[str] | None = None,
                         n_words: int | None = None, **kwargs) -> "Corpus":
        """Build a corpus from per-document sequences of integer word ids (order kept)."""
        token_lists = [np.asarray(t, dtype=np.int64).ravel() for t in token_lists]
        if n_words is None:
            n_words = len(vocabulary) if vocabulary is not None else (
                1 + max((int(t.max()) for t in token_lists if t.size), default=-1))
        indptr = np.zeros(len(token_lists) + 1, dtype=np.int64)
        indptr[1:] = np.cumsum([t.size for t in token_lists])
        flat = np.concatenate(token_lists) if token_lists else np.zeros(0, dtype=np.int64)
        if flat.size and (flat.min() < 0 or flat.max() >= n_words):
            raise InputError(f"word ids must lie in [0, {n_words})")
        counts = sp.csr_matrix((np.ones(flat.size, dtype=np.int64), flat, indptr),
                               shape=(len(token_lists), n_words))
        return cls(counts, vocabulary, tokens=token_lists, **kwargs)

    # --- sizes --------------------------------------------------------------------------------
    @property
    def n_documents(self) -> int:
        return self.counts.shape[0]

    @property
    def n_words(self) -> int:
        """Vocabulary size V."""
        return self.counts.shape[1]

    @property
    def n_tokens(self) -> int:
        return int(self.counts.data.sum())

    @property
    def document_lengths(self) -> np.ndarray:
        return np.asarray(self.counts.sum(axis=1)).ravel()

    def __len__(self) -> int:
        return self.n_documents

    def __repr__(self) -> str:
        order = "token order" if self.tokens is not None else "bag of words"
        return (f"Corpus({self.n_documents} documents, {self.n_words} words, "
                f"{self.n_tokens} tokens, {order})")

    # --- views --------------------------------------------------------------------------------
    def __getitem__(self, index) -> "Corpus":
        """A sub-corpus: ``corpus[10:20]``, ``corpus[[3, 1, 4]]`` or a boolean mask."""
        rows = np.arange(self.n_documents)[index]
        rows = np.atleast_1d(rows)
        pick = (lambda values: None if values is None else [values[i] for i in rows])
        return Corpus(self.counts[rows], self.vocabulary, tokens=pick(self.tokens),
                      labels=pick(self.labels), metadata=pick(self.metadata),
                      pipeline=self.pipeline)

    def document_tokens(self) -> tuple[np.ndarray, np.ndarray]:
        """All documents' tokens as one flat int64 array of word ids plus D+1 offsets.

        Document d is ``flat[offsets[d]:offsets[d+1]]``, in reading order when the corpus has
        token sequences, otherwise in the fixed bag-of-words order (word ids ascending, each
        repeated by its count). This ragged form is what the numba kernels take.
        """
        if self.tokens is not None:
            offsets = np.zeros(self.n_documents + 1, dtype=np.int64)
            offsets[1:] = np.cumsum([t.size for t in self.tokens])
            flat = (np.concatenate(self.tokens) if self.tokens
                    else np.zeros(0, dtype=np.int64))
            return flat.astype(np.int64, copy=False), offsets
        counts = self.counts
        flat = np.repeat(counts.indices.astype(np.int64), counts.data)
        offsets = np.zeros(self.n_documents + 1, dtype=np.int64)
        offsets[1:] = np.cumsum(np.asarray(counts.sum(axis=1)).ravel())
        return flat, offsets

    def split(self, test_size: float | int = 0.1, seed=None) -> tuple["Corpus", "Corpus"]:
        """Random train/test split of the documents; ``test_size`` is a fraction or a count."""
        n = self.n_documents
        n_test = int(round(test_size * n)) if isinstance(test_size, float) else int(test_size)
        if not 0 <= n_test <= n:
            raise ValueError(f"test_size={test_size!r} does not fit {n} documents")
        order = np.random.default_rng(seed).permutation(n)
        return self[np.sort(order[n_test:])], self[np.sort(order[:n_test])]

    def minibatches(self, size: int, shuffle: bool = False, seed=None) -> Iterator["Corpus"]:
        """Consecutive minibatches of ``size`` documents (the last may be smaller)."""
        if size < 1:
            raise ValueError(f"minibatch size must be >= 1, got {size}")
        order = (np.random.default_rng(seed).permutation(self.n_documents) if shuffle
                 else np.arange(self.n_documents))
        for start in range(0, self.n_documents, size):
            yield self[order[start:start + size]]


def aligned_counts(corpus, vocabulary: np.ndarray) -> tuple[sp.csr_matrix, int]:
    """The corpus' counts with columns in the model's vocabulary order, and the number of
    tokens whose word the model does not know (dropped)."""
    vocabulary = np.asarray(vocabulary, dtype=str)
    if np.array_equal(corpus.vocabulary, vocabulary):
        return corpus.counts, 0
    position = {word: i for i, word in enumerate(vocabulary)}
    columns = np.array([position.get(word, -1) for word in corpus.vocabulary], dtype=np.int64)
    counts = corpus.counts.tocoo()
    known = columns[counts.col] >= 0
    mapped = sp.csr_matrix((counts.data[known], (counts.row[known], columns[counts.col[known]])),
                           shape=(corpus.n_documents, vocabulary.size))
    return mapped, int(counts.data[~known].sum())


def occurring_words(counts: sp.spmatrix) -> np.ndarray:
    """V booleans: the words with at least one token in ``counts`` (D x V), e.g. the words a
    model was trained on, to score held-out documents only on them (`restrict_to_words`)."""
    return np.asarray(counts.sum(axis=0)).ravel() > 0


def restrict_to_words(corpus: Corpus, keep: np.ndarray) -> tuple[Corpus, int, int]:
    """``corpus`` without the tokens of words where ``keep`` (V booleans) is False and without
    the documents left empty; returns it with the numbers of tokens and documents removed.

    Held-out documents are restricted to the words seen in training (`occurring_words`) by every
    evaluation path alike: a frequentist point estimate gives an unseen word probability 0,
    hence a held-out log-likelihood of -inf that would measure the training sample's
    vocabulary, not the method."""
    counts = corpus.counts.multiply(keep[None, :].astype(np.int64)).tocsr()
    counts.eliminate_zeros()
    tokens = (None if corpus.tokens is None
              else [document[keep[document]] for document in corpus.tokens])
    lengths = np.asarray(counts.sum(axis=1)).ravel()
    rows = np.flatnonzero(lengths > 0)
    restricted = Corpus(counts[rows], corpus.vocabulary,
                        tokens=None if tokens is None else [tokens[d] for d in rows])
    return (restricted, int(corpus.n_tokens - restricted.n_tokens),
            int(corpus.n_documents - rows.size))


def document_ids(corpus: Corpus) -> list:
    """Each document's own id: the ``doc`` field of its metadata (the 1-based ids of a corpus
    directory's meta file), else ``orig_id`` (a raw text file's 1-based line, a text folder's
    file name), else its 1-based position."""
    ids: list = list(range(1, corpus.n_documents + 1))
    for d, metadata in enumerate(corpus.metadata or []):
        if isinstance(metadata, dict):
            for key in ("doc", "orig_id"):
                if metadata.get(key) is not None:
                    ids[d] = metadata[key]
                    break
    return ids


POSITION_FIELDS = ("doc", "orig_id")
"""Metadata fields that say where a document sits (`document_ids` reads them), not what it is."""


def document_fields(corpus: Corpus, exclude=()) -> dict[str, list]:
    """The documents' own metadata fields that every per-document output carries beside their
    id (`document_ids`): the user's ``id``, ``date``, ``time``, ``label``, ... . Only fields
    whose values are all scalars (strings, numbers, booleans, None) are kept, in the order
    first met; a document without a field gets None there. ``exclude``: names taken already
    (an output's own columns)."""
    names: dict[str, None] = {}
    for metadata in corpus.metadata or []:
        if isinstance(metadata, dict):
            names.update(dict.fromkeys(metadata))
    fields = {}
    for name in names:
        if name in POSITION_FIELDS or name in exclude:
            continue
        values = [m.get(name) if isinstance(m, dict) else None for m in corpus.metadata]
        if all(v is None or isinstance(v, (str, int, float, bool)) for v in values):
            fields[name] = values
    return fields
