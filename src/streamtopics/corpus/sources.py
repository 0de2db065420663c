"""Minibatch sources: what training over a stream reads, behind one interface.

`training.train_stream` reads every kind of input through `MinibatchSource` (below) and never
asks which kind it holds; `open_source` is the one place that turns what a user passed (a path,
``"-"`` for stdin, an open binary stream, an iterable of minibatches) into a source:

- `FileSource`: a UCI docword file, a corpus directory, or raw text mapped through a fixed
  vocabulary (`stream_minibatches`); re-iterable.
- `RawTextFile`: raw text as lists of `RawDocument`s, unmapped, for a growing vocabulary
  (`OnlineLDA.partial_fit_text`); re-iterable.
- `LineStream`: text or JSON lines read once from a binary handle (stdin), mapped or raw.
- `IterableSource`: any iterable of minibatches (`Corpus`, count matrices), taken as they come.

A source's ``identity()`` lets a checkpoint recognise it on resume (`checkpoint`): a file's size
and the SHA-256 of its first `PREFIX_BYTES` bytes; a stream's digest of the bytes read so far.
"""

from __future__ import annotations

import hashlib
import io
import os
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np
import scipy.sparse as sp

from ..errors import InputError
from .corpus import Corpus, ReadReport
from .pipeline import read_pipeline
from .preprocess import VocabularyMapper
from .corpus_dir import corpus_dir_files
from .files import TEXT_FORMATS, detect_format, resolve_vocabulary
from .raw_text import (DEFAULT_TEXT_FIELD, LINE_FORMATS, RawDocument, check_text_field,
                       detect_line_format, iter_raw_documents, iter_raw_lines)
from .streaming import DEFAULT_BATCH_SIZE, stream_minibatches

PREFIX_BYTES = 1 << 20
"""Bytes at the start of a source whose SHA-256 identifies it (with its size, for a file)."""

STDIN = "-"


@runtime_checkable
class MinibatchSource(Protocol):
    """A source of minibatches for training over a stream.

    ``description``: its name in messages. ``repeatable``: each `batches` call is a new pass
    (False: one pass only). ``raw``: minibatches are lists of `RawDocument`s (a growing
    vocabulary maps them), else counts (`Corpus` or matrices). ``vocabulary``: the words of the
    columns, or None (raw, or not known). ``batch_size``: documents per minibatch, or None when
    the minibatches come as given (then a checkpoint cannot check it). ``report``: the latest
    pass's `ReadReport`, or None. ``identity_after_reading``: `identity` covers only the
    documents read so far (a stream), so a resume checks it after skipping them.

    >>> import scipy.sparse as sp
    >>> source = open_source([sp.csr_matrix([[1, 0], [0, 2]]), sp.csr_matrix([[3, 1]])], 2, None)
    >>> [n for _, n in source.batches(skip_documents=2)], source.repeatable, source.batch_size
    ([1], True, None)
    """

    description: str
    repeatable: bool
    raw: bool
    vocabulary: np.ndarray | None
    batch_size: int | None
    report: ReadReport | None
    identity_after_reading: bool

    def identity(self) -> dict:
        """What a checkpoint records to recognise the source (``kind`` and digests)."""

    def batches(self, skip_documents: int) -> Iterator[tuple[object, int]]:
        """(minibatch, its documents) of one pass, after its first ``skip_documents`` documents,
        which must end on a minibatch boundary (`InputError` otherwise)."""


def _skip_batches(batches: Iterator[tuple[object, int]], n_documents: int,
                  description: str) -> Iterator[tuple[object, int]]:
    """``batches`` after its first ``n_documents`` documents, which must end on a minibatch
    boundary (they do when the batch size is the checkpoint's)."""
    skipped = 0
    while skipped < n_documents:
        batch = next(batches, None)
        if batch is None:
            raise InputError(f"{description} ended after {skipped} documents, but the checkpoint "
                             f"had consumed {n_documents} of this pass: not the same source")
        skipped += batch[1]
        if skipped > n_documents:
            raise InputError(f"{description}: the checkpoint stopped after {n_documents} "
                             f"documents, inside a minibatch ending at {skipped}: the minibatches "
                             f"are not those of the checkpointed run")
    return batches


def _prefix_identity(kind: str, digest, n_bytes: int, **extra) -> dict:
    return {"kind": kind, **extra, "prefix_bytes": n_bytes, "prefix_sha256": digest.hexdigest()}


def _file_identity(path: Path) -> dict:
    """Size and SHA-256 of the first `PREFIX_BYTES` bytes (the path is informative only: a moved
    or copied file resumes)."""
    with open(path, "rb") as handle:
        prefix = handle.read(PREFIX_BYTES)
    return _prefix_identity("file", hashlib.sha256(prefix), len(prefix),
                            path=str(path.resolve()), size=path.stat().st_size)


def _raw_batches(documents: Iterator[RawDocument], batch_size: int
                 ) -> Iterator[list[RawDocument]]:
    batch = []
    for document in documents:
        batch.append(document)
        if len(batch) == batch_size:
            yield batch
            batch = []
    if batch:
        yield batch


class FileSource:
    """A file or corpus directory streamed with `stream_minibatches` (re-iterable: one pass per
    ``batches`` call). Resuming parses and discards the consumed minibatches. A corpus
    directory's minibatches carry its text pipeline (`read_pipeline`), which a model started on
    them keeps, as it would from the whole corpus."""

    repeatable, raw, identity_after_reading = True, False, False

    def __init__(self, path, batch_size: int, vocabulary, format, text: dict, split: str,
                 pipeline=None):
        path = described = Path(path)
        self.corpus_pipeline = None
        if path.is_dir() and detect_format(path) == "corpus-dir":
            self.corpus_pipeline = read_pipeline(path)
            docword, corpus_vocabulary = corpus_dir_files(path, split)
            vocabulary = corpus_vocabulary if vocabulary is None else vocabulary
            path, format, described = docword, "uci", f"{path} ({split} split)"
        format = detect_format(path) if format is None else format
        if format not in TEXT_FORMATS:  # a docword file: no decoding, and no text field
            check_text_field(format, text.get("text_field", DEFAULT_TEXT_FIELD), described)
            text = {}
        else:
            text = {**text, "pipeline": pipeline}
        self.stream = stream_minibatches(path, batch_size, vocabulary, format, **text)
        self.vocabulary = self.stream.vocabulary
        self.batch_size = batch_size
        self.description = str(described)  # what the user named, not a file inside it
        self._identity = _file_identity(path)

    @property
    def report(self) -> ReadReport:
        return self.stream.report

    def identity(self) -> dict:
        return self._identity

    def batches(self, skip_documents: int) -> Iterator[tuple[Corpus, int]]:
        return _skip_batches(((self._with_pipeline(batch), batch.n_documents)
                              for batch in self.stream), skip_documents, self.description)

    def _with_pipeline(self, batch: Corpus) -> Corpus:
        batch.pipeline = self.corpus_pipeline
        return batch


class RawTextFile:
    """A raw text file (or directory of ``.txt`` files) read as minibatches of `RawDocument`s
    (`iter_raw_documents`), not mapped onto a vocabulary: for `OnlineLDA.partial_fit_text` with
    a growing vocabulary. Re-iterable; identity as `FileSource`'s."""

    repeatable, raw, identity_after_reading = True, True, False
    vocabulary = None

    def __init__(self, path, batch_size: int, format, text: dict):
        self.path = Path(path)
        self.batch_size = batch_size
        self.format = detect_format(self.path) if format is None else format
        self.text = text
        self.description = str(self.path)
        self.report = ReadReport(source=self.description)
        self._identity = _file_identity(self.path)

    def identity(self) -> dict:
        return self._identity

    def _batches(self) -> Iterator[tuple[list[RawDocument], int]]:
        self.report = ReadReport(source=self.description)
        documents = iter_raw_documents(self.path, self.format, report=self.report, **self.text)
        yield from ((batch, len(batch)) for batch in _raw_batches(documents, self.batch_size))
        if self.report.documents_read == sum(self.report.documents_skipped.values()):
            raise InputError("no documents", self.path)

    def batches(self, skip_documents: int) -> Iterator[tuple[list[RawDocument], int]]:
        return _skip_batches(self._batches(), skip_documents, self.description)


class IterableSource:
    """Any iterable of minibatches (`Corpus`, sparse or dense count matrices). Its identity
    cannot be checked; several passes need a re-iterable (not an iterator)."""

    raw, identity_after_reading = False, False
    report = vocabulary = batch_size = None
    description = "the minibatches"

    def __init__(self, batches: Iterable):
        self.iterable = batches
        self.repeatable = iter(batches) is not batches

    def identity(self) -> dict:
        return {"kind": "minibatches"}

    def batches(self, skip_documents: int) -> Iterator[tuple[object, int]]:
        counted = ((batch, batch.n_documents if isinstance(batch, Corpus) else int(batch.shape[0]))
                   for batch in self.iterable)
        return _skip_batches(counted, skip_documents, self.description)


class LineStream:
    """Minibatches of raw text read once, a line at a time, from a binary handle such as stdin:
    one document per line (``format="text"``) or JSON lines (``"jsonl"``, the text in
    ``text_field``, the other fields kept); None decides by the first non-blank line (a JSON
    object: jsonl). Documents are mapped through the fixed ``vocabulary`` exactly as
    `TextStream` maps a file, so the same bytes give the same minibatches.

    Memory is one line plus one minibatch. The stream can be iterated once (``batches``);
    skipping documents (to resume) parses lines without tokenising them. ``identity()`` is the
    SHA-256 of the first ``prefix_limit`` bytes up to the end of the last document read: lines
    are read one at a time, so after the same documents it covers the same bytes, which is how a
    resume from stdin checks that it is fed the same stream.

    ``raw=True``: minibatches are lists of `RawDocument`s, not mapped (no ``vocabulary``), for
    `OnlineLDA.partial_fit_text` with a growing vocabulary. ``pipeline``: how mapped text is
    tokenised (`VocabularyMapper`).
    """

    repeatable, identity_after_reading = False, True

    def __init__(self, handle, vocabulary, batch_size: int = DEFAULT_BATCH_SIZE,
                 format: str | None = None, text_field: str = DEFAULT_TEXT_FIELD,
                 label_field: str | None = "label", skip_empty: bool = True, name: str = "<stdin>",
                 prefix_limit: int = PREFIX_BYTES, raw: bool = False, encoding: str = "utf-8",
                 errors: str = "strict", pipeline=None):
        if format not in (None, *LINE_FORMATS):
            raise InputError(f"format {format!r} cannot be read from a stream: use text or jsonl",
                             name)
        if vocabulary is None and not raw:
            raise InputError("streaming raw text needs a fixed vocabulary (vocabulary=...)", name)
        if int(batch_size) < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        self.handle = handle
        self.batch_size = int(batch_size)
        self.format = format
        self.text_field = text_field
        self.decoding = {"encoding": encoding, "errors": errors}
        self.label_field = label_field
        self.skip_empty = skip_empty
        self.description = name
        self.raw = raw
        self.mapper = (None if raw
                       else VocabularyMapper(resolve_vocabulary(vocabulary, None, name), pipeline))
        self.vocabulary = None if raw else self.mapper.vocabulary
        self.report = ReadReport(source=name)
        self.prefix_limit = int(prefix_limit)
        self._digest = hashlib.sha256()
        self._hashed = 0
        self._at_document = (self._digest.copy(), 0)  # the prefix through the last document
        self._started = False

    def identity(self) -> dict:
        return _prefix_identity("stream", *self._at_document)

    def _raw_lines(self) -> Iterator[tuple[int, bytes]]:
        """(line number, raw line) of the handle; the prefix is hashed on the way."""
        for number, raw in enumerate(iter(self.handle.readline, b""), start=1):
            if self._hashed < self.prefix_limit:
                piece = raw[:self.prefix_limit - self._hashed]
                self._digest.update(piece)
                self._hashed += len(piece)
            yield number, raw

    def _documents(self) -> Iterator[RawDocument]:
        """The raw documents, read by `iter_raw_lines` (the checks and counts of
        `iter_raw_documents` for text and JSON-lines files) once the format is known."""
        lines = self._raw_lines()
        if self.format is None:
            self.format, lines = detect_line_format(lines, self.report, self.description,
                                                    **self.decoding)
            if self.format is None:  # only blank lines: no document
                return
        yield from iter_raw_lines(lines, self.format, self.text_field, self.report,
                                  self.skip_empty, self.description, **self.decoding)

    def _noted(self) -> Iterator[RawDocument]:
        """`_documents`, noting the prefix digest as each document is read."""
        for document in self._documents():
            self._at_document = (self._digest.copy(), self._hashed)
            yield document

    def batches(self, skip_documents: int = 0) -> Iterator[tuple[object, int]]:
        """(minibatch, documents) after the first ``skip_documents`` documents (read, not
        tokenised)."""
        if self._started:
            raise InputError("a stream can be read only once (one pass)", self.description)
        self._started = True
        documents = self._noted()
        for skipped in range(skip_documents):
            if next(documents, None) is None:
                raise InputError(f"{self.description} ended after {skipped} documents, but the "
                                 f"checkpoint had consumed {skip_documents}: not the same stream")
        return self._mapped(documents, skip_documents)

    def _mapped(self, documents: Iterator[RawDocument], skipped: int
                ) -> Iterator[tuple[object, int]]:
        for batch in _raw_batches(documents, self.batch_size):
            yield (batch if self.mapper is None
                   else self.mapper.map(batch, self.label_field, self.report)), len(batch)
        skipped_empty = sum(self.report.documents_skipped.values())
        if skipped == 0 and self.report.documents_read == skipped_empty:
            raise InputError("no documents", self.description)

    def __iter__(self) -> Iterator:
        return (batch for batch, _ in self.batches())


def is_raw_text_file(path, format) -> bool:
    """Whether ``path`` is raw text (not a docword file or a corpus directory)."""
    path = Path(path)
    if format is None and path.is_dir():
        return detect_format(path) == "txt-dir"
    return (detect_format(path) if format is None else format) in TEXT_FORMATS


def has_own_vocabulary(source, format) -> bool:
    """Whether ``source`` names its words itself: a docword file or corpus directory (its
    ``vocab.*``), not raw text, a stream of it or an iterable of minibatches."""
    return (isinstance(source, (str, os.PathLike)) and str(source) != STDIN
            and not is_raw_text_file(source, format))


def open_source(source, batch_size: int, vocabulary, format: str | None = None,
                text: dict | None = None, split: str = "train",
                raw: bool = False, pipeline=None) -> MinibatchSource:
    """The `MinibatchSource` of ``source``: a path (a UCI docword file, a corpus directory and its
    ``split``, raw text), ``"-"`` for stdin, an open binary stream (text or JSON lines), or an
    iterable of minibatches. ``vocabulary``: of raw text (required unless ``raw``) or of a
    docword file (default its ``vocab.*`` sibling). ``raw`` (a growing vocabulary): raw text
    comes as minibatches of `RawDocument`s. ``text``: ``text_field``, ``encoding``, ``errors``
    of raw text (`iter_raw_documents`; default theirs). ``pipeline``: how raw text mapped onto
    ``vocabulary`` is tokenised (a `TextPipeline`, e.g. the model's; None: built in)."""
    text = {} if text is None else text
    name = "<stream>"
    if isinstance(source, (str, os.PathLike)) and str(source) == STDIN:
        source, name = sys.stdin, "<stdin>"
    if isinstance(source, (str, os.PathLike)):
        if raw and is_raw_text_file(source, format):
            return RawTextFile(source, batch_size, format, text)
        return FileSource(source, batch_size, vocabulary, format, text, split, pipeline)
    if hasattr(source, "readline"):
        if isinstance(source, io.TextIOBase):  # read the bytes under it, decoded as files are
            if not hasattr(source, "buffer"):
                raise InputError("the stream must be opened in binary mode", name)
            source = source.buffer
        return LineStream(source, vocabulary, batch_size, format, name=name, raw=raw,
                          pipeline=pipeline, **text)
    if isinstance(source, (Corpus, np.ndarray)) or sp.issparse(source):
        raise InputError("source must be a path, '-' for stdin, an open binary stream or an "
                         "iterable of minibatches; for a whole corpus in memory use model.fit")
    if not isinstance(source, Iterable):
        raise InputError(f"source must be a path, '-', a binary stream or an iterable of "
                         f"minibatches, not {type(source).__name__}")
    return IterableSource(source)
