"""Minibatches streamed from files too large to load: memory does not grow with the file.

Online methods (Dupuy & Bach 2016; Hoffman et al. 2010) see each document once per pass, a
minibatch at a time, so the corpus never needs to be in memory. Two sources:

- `DocwordStream`: a UCI docword file (plain or gzip), parsed a block of lines at a time. The
  body must be sorted by document id (as UCI files and `DocwordWriter` output are).
- `TextStream`: raw text (one document per line, JSONL, CSV, a directory of .txt files) mapped
  through a fixed vocabulary; unknown words are dropped and counted.

Both are re-iterable (each ``for`` is a new pass over the file) and yield `Corpus` minibatches
of ``batch_size`` documents (the last may be smaller); ``report`` describes the latest pass. A
stream checks the same things as the in-memory readers, except that problems found only at the
end of the file (an entry count that disagrees with the header) surface after the batches
before them have been yielded.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import numpy as np
import scipy.sparse as sp

from ..errors import InputError
from ..persistence import MAX_DEFLATE_RATIO
from .corpus import Corpus, ReadReport
from .preprocess import VocabularyMapper
from .bag_of_words import (UNUSED_ID_ALLOWANCE, check_declared_size, check_duplicate_entries,
                           check_entry_count, iter_docword_entries, read_docword_header,
                           sibling_vocabulary)
from .files import BLOCK_BYTES, TEXT_FORMATS, Reading, detect_format, resolve_vocabulary
from .raw_text import DEFAULT_TEXT_FIELD, check_text_field, iter_raw_documents

# Documents per minibatch, the paper's (Dupuy & Bach 2016, section 5.1): the one default of
# every minibatch size (these streams, `OnlineLDA` and the other online estimators, the
# experiments and the CLI).
DEFAULT_BATCH_SIZE = 100


def _check_batch_size(batch_size: int) -> int:
    if int(batch_size) < 1:
        raise ValueError(f"batch_size must be >= 1, got {batch_size}")
    return int(batch_size)


class DocwordStream:
    """Minibatches of a UCI docword file, read a block at a time (`BLOCK_BYTES`).

    ``vocabulary``: the vocab file's path, a word list, or None to look for ``vocab.*`` beside
    the file (``vocab.kos.txt`` for ``docword.kos.txt``, else ``vocab.txt``) and fall back to
    "w0", "w1", ... The header is read (and checked) on construction.
    """

    def __init__(self, path, vocabulary=None, batch_size: int = DEFAULT_BATCH_SIZE,
                 block_bytes: int = BLOCK_BYTES):
        self.path = Path(path)
        self.batch_size = _check_batch_size(batch_size)
        self.block_bytes = int(block_bytes)
        with Reading(self.path) as reading:
            self.n_documents, self.n_words, self.n_nonzero = read_docword_header(reading)
            compressed = reading.compressed
        if vocabulary is None:
            vocabulary = sibling_vocabulary(self.path)
        words = resolve_vocabulary(vocabulary, self.n_words, self.path, 2)
        if words is None:
            # The body uses at most NNZ words, and can hold at most one entry per 6 bytes
            # ("1 1 1\n") of its data, which gzip expands at most MAX_DEFLATE_RATIO-fold.
            data_bytes = self.path.stat().st_size * (MAX_DEFLATE_RATIO if compressed else 1)
            check_declared_size(self.n_words, min(self.n_nonzero, self.n_words, data_bytes // 6),
                                "words", self.path, 2)
            words = [f"w{i}" for i in range(self.n_words)]
        self.vocabulary = np.asarray(words, dtype=str)
        self.report = ReadReport(source=str(self.path))

    @property
    def n_batches(self) -> int:
        """Batches per pass, as the header declares (no ``__len__``: ``list(stream)`` would
        preallocate from an unverified header)."""
        return -(-self.n_documents // self.batch_size)

    def _batch(self, entries: np.ndarray, lines: np.ndarray, first_doc: int) -> Corpus:
        """Documents first_doc .. first_doc + batch_size - 1 (1-based) from their entries."""
        n_rows = min(self.batch_size, self.n_documents - first_doc + 1)
        check_duplicate_entries(entries, lines, self.path)
        counts = sp.csr_matrix((entries[:, 2], (entries[:, 0] - first_doc, entries[:, 1] - 1)),
                               shape=(n_rows, self.n_words), dtype=np.int64)
        self.report.documents_read += n_rows
        self.report.documents_kept += n_rows
        self.report.tokens_kept += int(entries[:, 2].sum())
        return Corpus(counts, self.vocabulary)

    def __iter__(self) -> Iterator[Corpus]:
        self.report = report = ReadReport(source=str(self.path))
        pending = np.zeros((0, 3), dtype=np.int64)
        pending_lines = np.zeros(0, dtype=np.int64)
        first_doc = 1  # first document id of the next batch
        last_doc = 0  # to check that document ids never decrease
        docs_used = 0
        n_entries = 0
        with Reading(self.path) as reading:
            read_docword_header(reading)
            for entries, lines in iter_docword_entries(reading, self.n_documents, self.n_words,
                                                       self.block_bytes):
                if not entries.size:
                    continue
                docs = entries[:, 0]
                step = np.diff(docs, prepend=last_doc)
                if (step < 0).any():
                    at = int(np.argmax(step < 0))
                    raise InputError(f"document id {docs[at]} after {last_doc if at == 0 else docs[at - 1]}: "
                                     f"streaming needs the entries sorted by document id",
                                     self.path, int(lines[at]))
                docs_used += int((step > 0).sum())
                last_doc = int(docs[-1])
                n_entries += len(entries)
                if last_doc - docs_used > max(docs_used, UNUSED_ID_ALLOWANCE):
                    check_declared_size(last_doc, docs_used, "documents", self.path, int(lines[-1]))
                pending = np.concatenate((pending, entries))
                pending_lines = np.concatenate((pending_lines, lines))
                # A batch is complete once an entry of a later document has been seen.
                while last_doc >= first_doc + self.batch_size:
                    cut = int(np.searchsorted(pending[:, 0], first_doc + self.batch_size))
                    yield self._batch(pending[:cut], pending_lines[:cut], first_doc)
                    pending, pending_lines = pending[cut:], pending_lines[cut:]
                    first_doc += self.batch_size
        check_entry_count(self.n_nonzero, n_entries, self.path)
        check_declared_size(self.n_documents, docs_used, "documents", self.path, 1)
        while first_doc <= self.n_documents:
            cut = int(np.searchsorted(pending[:, 0], first_doc + self.batch_size))
            yield self._batch(pending[:cut], pending_lines[:cut], first_doc)
            pending, pending_lines = pending[cut:], pending_lines[cut:]
            first_doc += self.batch_size
        if self.n_documents > docs_used:
            report.warn(f"{self.path}: {self.n_documents - docs_used} document(s) have no "
                        f"entries (kept as empty documents)")


class TextStream:
    """Minibatches of raw text mapped through a fixed vocabulary, one document read at a time.

    ``format``, ``text_field``, ``delimiter``, ``skip_empty``, ``encoding``, ``errors``: as in
    `iter_raw_documents`. ``vocabulary``: a word list or a vocab file. Documents keep their
    token order; those with no known word stay as empty documents (see `VocabularyMapper`,
    which tokenises them by ``pipeline``: a `TextPipeline`, or None for the built-in tokeniser).
    """

    def __init__(self, path, vocabulary, batch_size: int = DEFAULT_BATCH_SIZE,
                 format: str | None = None, text_field: str = DEFAULT_TEXT_FIELD,
                 delimiter: str | None = None, label_field: str | None = "label",
                 skip_empty: bool = True,
                 encoding: str = "utf-8", errors: str = "strict", pipeline=None):
        self.path = Path(path)
        self.batch_size = _check_batch_size(batch_size)
        self.format = detect_format(self.path) if format is None else format
        if self.format not in TEXT_FORMATS:
            raise InputError(f"format {self.format!r} is not raw text "
                             f"(one of {', '.join(TEXT_FORMATS)})", self.path)
        if vocabulary is None:
            raise InputError("streaming raw text needs a fixed vocabulary (vocabulary=...)",
                             self.path)
        self.mapper = VocabularyMapper(resolve_vocabulary(vocabulary, None, self.path), pipeline)
        self.vocabulary = self.mapper.vocabulary
        check_text_field(self.format, text_field, self.path)
        self.options = dict(text_field=text_field, delimiter=delimiter,
                            skip_empty=skip_empty, encoding=encoding, errors=errors)
        self.label_field = label_field
        self.report = ReadReport(source=str(self.path))

    def __iter__(self) -> Iterator[Corpus]:
        self.report = report = ReadReport(source=str(self.path))
        batch = []
        for document in iter_raw_documents(self.path, self.format, report=report, **self.options):
            batch.append(document)
            if len(batch) == self.batch_size:
                yield self.mapper.map(batch, self.label_field, report)
                batch = []
        if batch:
            yield self.mapper.map(batch, self.label_field, report)
        if report.documents_kept == 0:
            raise InputError("no documents", self.path)


def stream_minibatches(path, batch_size: int = DEFAULT_BATCH_SIZE, vocabulary=None,
                       format: str | None = None, **options) -> DocwordStream | TextStream:
    """The stream for ``path``: a `DocwordStream` for UCI docword files, a `TextStream` (which
    needs ``vocabulary``) for raw text. ``options`` go to the stream's constructor (a docword
    file has no ``text_field``: one named is an error, `check_text_field`)."""
    format = detect_format(path) if format is None else format
    if format == "uci":
        check_text_field(format, options.pop("text_field", DEFAULT_TEXT_FIELD), path)
        return DocwordStream(path, vocabulary, batch_size, **options)
    if format in TEXT_FORMATS:
        return TextStream(path, vocabulary, batch_size, format=format, **options)
    raise InputError(f"cannot stream format {format!r}: use a UCI docword file or raw text "
                     f"({', '.join(TEXT_FORMATS)}), or load it with load_corpus", path)
