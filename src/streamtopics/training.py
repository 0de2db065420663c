"""Training over a stream that never loses work: bounded memory, checkpoints, exact resume.

`train_stream(model, source, ...)` runs an online estimator (`OnlineLDA`) over a source read a
minibatch at a time (a UCI docword file, a corpus directory, raw text or JSON lines, stdin, or any
iterable of minibatches), so memory depends on the minibatch and the model, never on the length
of the stream (Dupuy & Bach 2016, Algorithm 1 sees each document once per pass).

With ``checkpoint=PATH`` it writes, every ``checkpoint_every`` documents and at the end, the
complete training state as one safe model file (`persistence.save_model`: temporary file, fsync,
rename, so a crash at any moment leaves the previous checkpoint or the new one, never a torn
file): the model file's arrays (sufficient statistics, current alpha, averaging state), its
metadata (parameters, method, engine seed, step counter) and a ``checkpoint`` entry with the
position in the stream (pass, documents consumed), the batch size and the source's identity. No
random generator state is needed: the local estimators' random streams derive from (seed, step
index, document index), so the step counter is the only random state.

``resume=True`` loads the checkpoint, checks that the run is the same one (estimator parameters,
batch size, source), skips the documents already consumed and continues; checkpoints are written
only at minibatch boundaries, so the minibatches after a resume are those of an uninterrupted
run and the final model is bit-identical to it. A checkpoint is also a model file:
``OnlineLDA.load(checkpoint)`` works.
"""

from __future__ import annotations

import copy
import hashlib
import io
import os
import sys
import time
import warnings
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from . import persistence
from .corpus.corpus import Corpus, ReadReport
from .corpus.preprocess import VocabularyMapper
from .corpus.readers import (LINE_FORMATS, TEXT_FORMATS, RawDocument, corpus_dir_files,
                             detect_format, detect_line_format, iter_raw_documents,
                             iter_raw_lines, resolve_vocabulary)
from .corpus.streaming import stream_minibatches
from .errors import InputError, ModelFileError
from .inference.presets import resolve_method

CHECKPOINT_FORMAT = 1
PREFIX_BYTES = 1 << 20
"""Bytes at the start of a source whose SHA-256 identifies it (with its size, for a file)."""

STDIN = "-"


@dataclass(frozen=True)
class StreamPosition:
    """Where training stands: ``pass_index`` passes over the source are complete, and
    ``documents`` documents of the next pass have been trained on; ``documents_total`` counts
    every document trained on since the run began (over passes and resumes)."""

    pass_index: int = 0
    documents: int = 0
    documents_total: int = 0


@dataclass(frozen=True)
class Checkpoint:
    """The ``checkpoint`` entry of a checkpoint file (see `read_checkpoint`)."""

    position: StreamPosition
    batch_size: int | None
    n_passes: int
    finished: bool
    source: dict


@dataclass
class TrainingResult:
    """What `train_stream` did. ``resumed_from``: the checkpoint's position, or None for a fresh
    start; ``documents``/``steps``: trained by this call; ``report``: the source's `ReadReport`
    (latest pass), None for an iterable of minibatches."""

    model: object
    position: StreamPosition
    resumed_from: StreamPosition | None
    documents: int
    steps: int
    checkpoints_written: int
    seconds: float
    report: ReadReport | None


# --- sources ------------------------------------------------------------------------------------
def _n_documents(batch) -> int:
    if isinstance(batch, list):  # raw documents, for a growing vocabulary
        return len(batch)
    return batch.n_documents if isinstance(batch, Corpus) else int(batch.shape[0])


def _skip_batches(batches: Iterator, n_documents: int, description: str) -> Iterator:
    """``batches`` after its first ``n_documents`` documents, which must end on a minibatch
    boundary (they do when the batch size is the checkpoint's)."""
    skipped = 0
    while skipped < n_documents:
        batch = next(batches, None)
        if batch is None:
            raise InputError(f"{description} ended after {skipped} documents, but the checkpoint "
                             f"had consumed {n_documents} of this pass: not the same source")
        skipped += _n_documents(batch)
        if skipped > n_documents:
            raise InputError(f"{description}: the checkpoint stopped after {n_documents} "
                             f"documents, inside a minibatch ending at {skipped}: the minibatches "
                             f"are not those of the checkpointed run")
    return batches


def _prefix_identity(kind: str, digest, n_bytes: int, **extra) -> dict:
    return {"kind": kind, **extra, "prefix_bytes": n_bytes, "prefix_sha256": digest.hexdigest()}


def _file_identity(path: Path) -> dict:
    with open(path, "rb") as handle:
        prefix = handle.read(PREFIX_BYTES)
    return _prefix_identity("file", hashlib.sha256(prefix), len(prefix),
                            path=str(path.resolve()), size=path.stat().st_size)


class _FileSource:
    """A file or corpus directory streamed with `stream_minibatches` (re-iterable: one pass per
    ``batches`` call). Resuming parses and discards the consumed minibatches."""

    repeatable = True

    def __init__(self, path, batch_size: int, vocabulary, format, text_field: str, split: str):
        path = Path(path)
        if path.is_dir() and detect_format(path) == "corpus-dir":
            docword, corpus_vocabulary = corpus_dir_files(path, split)
            vocabulary = corpus_vocabulary if vocabulary is None else vocabulary
            path, format = docword, "uci"
        format = detect_format(path) if format is None else format
        options = {"text_field": text_field} if format in TEXT_FORMATS else {}
        self.stream = stream_minibatches(path, batch_size, vocabulary, format, **options)
        self.vocabulary = self.stream.vocabulary
        self.description = str(path)
        self._identity = _file_identity(path)

    @property
    def report(self) -> ReadReport:
        return self.stream.report

    def identity(self) -> dict:
        """Size and SHA-256 of the first `PREFIX_BYTES` bytes (the path is informative only: a
        moved or copied file resumes)."""
        return self._identity

    def batches(self, skip_documents: int) -> Iterator:
        return _skip_batches(iter(self.stream), skip_documents, self.description)


class _RawTextFile:
    """A raw text file (or directory of ``.txt`` files) read as minibatches of `RawDocument`s
    (`iter_raw_documents`), not mapped onto a vocabulary: for `OnlineLDA.partial_fit_text` with
    a growing vocabulary. Re-iterable; identity as `_FileSource`'s."""

    repeatable = True
    vocabulary = None

    def __init__(self, path, batch_size: int, format, text_field: str):
        self.path = Path(path)
        self.batch_size = batch_size
        self.format = detect_format(self.path) if format is None else format
        self.text_field = text_field
        self.description = str(self.path)
        self.report = ReadReport(source=self.description)
        self._identity = _file_identity(self.path)

    def identity(self) -> dict:
        return self._identity

    def _batches(self) -> Iterator[list[RawDocument]]:
        self.report = ReadReport(source=self.description)
        documents = iter_raw_documents(self.path, self.format, self.text_field,
                                       report=self.report)
        yield from _raw_batches(documents, self.batch_size)
        if self.report.documents_read == sum(self.report.documents_skipped.values()):
            raise InputError("no documents", self.path)

    def batches(self, skip_documents: int) -> Iterator:
        return _skip_batches(self._batches(), skip_documents, self.description)


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


class _IterableSource:
    """Any iterable of minibatches (`Corpus`, sparse or dense count matrices). Its identity
    cannot be checked; several passes need a re-iterable (not an iterator)."""

    report = vocabulary = None
    description = "the minibatches"

    def __init__(self, batches: Iterable):
        self.iterable = batches
        self.repeatable = iter(batches) is not batches

    def identity(self) -> dict:
        return {"kind": "minibatches"}

    def batches(self, skip_documents: int) -> Iterator:
        return _skip_batches(iter(self.iterable), skip_documents, self.description)


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
    `OnlineLDA.partial_fit_text` with a growing vocabulary.
    """

    repeatable = False

    def __init__(self, handle, vocabulary, batch_size: int = 100, format: str | None = None,
                 text_field: str = "text", label_field: str | None = "label",
                 skip_empty: bool = True, name: str = "<stdin>",
                 prefix_limit: int = PREFIX_BYTES, raw: bool = False):
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
        self.label_field = label_field
        self.skip_empty = skip_empty
        self.description = name
        self.mapper = (None if raw
                       else VocabularyMapper(resolve_vocabulary(vocabulary, None, name)))
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
            self.format, lines = detect_line_format(lines, self.report, self.description)
            if self.format is None:  # only blank lines: no document
                return
        yield from iter_raw_lines(lines, self.format, self.text_field, self.report,
                                  self.skip_empty, self.description)

    def _noted(self) -> Iterator[RawDocument]:
        """`_documents`, noting the prefix digest as each document is read."""
        for document in self._documents():
            self._at_document = (self._digest.copy(), self._hashed)
            yield document

    def batches(self, skip_documents: int = 0) -> Iterator[Corpus]:
        """The minibatches after the first ``skip_documents`` documents (read, not tokenised)."""
        if self._started:
            raise InputError("a stream can be read only once (one pass)", self.description)
        self._started = True
        documents = self._noted()
        for skipped in range(skip_documents):
            if next(documents, None) is None:
                raise InputError(f"{self.description} ended after {skipped} documents, but the "
                                 f"checkpoint had consumed {skip_documents}: not the same stream")
        return self._mapped(documents, skip_documents)

    def _mapped(self, documents: Iterator[RawDocument], skipped: int) -> Iterator[Corpus]:
        for batch in _raw_batches(documents, self.batch_size):
            yield batch if self.mapper is None else self.mapper.map(batch, self.label_field,
                                                                    self.report)
        skipped_empty = sum(self.report.documents_skipped.values())
        if skipped == 0 and self.report.documents_read == skipped_empty:
            raise InputError("no documents", self.description)

    def __iter__(self) -> Iterator[Corpus]:
        return self.batches()


def _is_raw_text_file(path, format) -> bool:
    """Whether ``path`` is raw text (not a docword file or a corpus directory)."""
    path = Path(path)
    if format is None and path.is_dir():
        return detect_format(path) == "txt-dir"
    return (detect_format(path) if format is None else format) in TEXT_FORMATS


def _open_source(source, batch_size: int, vocabulary, format, text_field: str, split: str,
                 grow: bool = False):
    """The source; with ``grow`` (a growing vocabulary), raw text comes as minibatches of
    `RawDocument`s for `OnlineLDA.partial_fit_text`."""
    name = "<stream>"
    if isinstance(source, (str, os.PathLike)) and str(source) == STDIN:
        source, name = sys.stdin, "<stdin>"
    if isinstance(source, (str, os.PathLike)):
        if grow and _is_raw_text_file(source, format):
            return _RawTextFile(source, batch_size, format, text_field)
        return _FileSource(source, batch_size, vocabulary, format, text_field, split)
    if hasattr(source, "readline"):
        if isinstance(source, io.TextIOBase):  # read the bytes under it, decoded as files are
            if not hasattr(source, "buffer"):
                raise InputError("the stream must be opened in binary mode", name)
            source = source.buffer
        return LineStream(source, vocabulary, batch_size, format, text_field, name=name,
                          raw=grow)
    if isinstance(source, (Corpus, np.ndarray)) or sp.issparse(source):
        raise InputError("source must be a path, '-' for stdin, an open binary stream or an "
                         "iterable of minibatches; for a whole corpus in memory use model.fit")
    if not isinstance(source, Iterable):
        raise InputError(f"source must be a path, '-', a binary stream or an iterable of "
                         f"minibatches, not {type(source).__name__}")
    return _IterableSource(source)


# --- checkpoint files ---------------------------------------------------------------------------
def write_checkpoint(path, model, position: StreamPosition, *, batch_size: int | None,
                     n_passes: int, source: dict, finished: bool = False) -> None:
    """Write ``model``'s complete state and the stream ``position`` to ``path`` atomically (one
    model file with a ``checkpoint`` metadata entry)."""
    arrays, metadata = model.model_file_contents()
    metadata["checkpoint"] = {"format": CHECKPOINT_FORMAT, "position": asdict(position),
                              "batch_size": batch_size, "n_passes": int(n_passes),
                              "finished": bool(finished), "source": source}
    persistence.save_model(path, arrays, metadata)


def _parse_checkpoint(path, metadata: dict) -> Checkpoint:
    entry = metadata.get("checkpoint")
    if not isinstance(entry, dict):
        raise ModelFileError(f"{path}: a model file, not a training checkpoint (no checkpoint "
                             f"entry)")
    try:
        if entry["format"] != CHECKPOINT_FORMAT:
            raise ModelFileError(f"{path}: checkpoint format {entry['format']!r} is not "
                                 f"{CHECKPOINT_FORMAT}")
        position = StreamPosition(**{name: int(value) for name, value in entry["position"].items()})
        batch_size = None if entry["batch_size"] is None else int(entry["batch_size"])
        return Checkpoint(position, batch_size, int(entry["n_passes"]), bool(entry["finished"]),
                          dict(entry["source"]))
    except (KeyError, TypeError, ValueError) as error:
        raise ModelFileError(f"{path}: corrupted checkpoint entry ({type(error).__name__}: "
                             f"{error})") from None


def read_checkpoint(path) -> tuple[Checkpoint, dict[str, np.ndarray], dict]:
    """(`Checkpoint`, model arrays, model metadata) of a checkpoint file; `ModelFileError` if it
    is missing, corrupt or not a checkpoint."""
    arrays, metadata = persistence.load_model(path)
    return _parse_checkpoint(path, metadata), arrays, metadata


def _serialisable_parameters(model) -> dict:
    return {name: value for name, value in model.get_params().items()
            if value is None or isinstance(value, (bool, int, float, str))}


def _check_same_run(path, model, checkpoint: Checkpoint, metadata: dict,
                    batch_size: int | None, source: dict) -> None:
    """Refuse a checkpoint of another run: other estimator, parameters (``n_passes`` may grow),
    batch size or source. An InputError says what differs."""
    problems = []
    if metadata.get("estimator") != type(model).__name__:
        problems.append(f"estimator {metadata.get('estimator')!r}, not {type(model).__name__!r}")
    stored = metadata.get("parameters", {})
    current = _serialisable_parameters(model)
    for name in sorted((set(stored) | set(current)) - {"n_passes"}):
        if stored.get(name, "<unset>") != current.get(name, "<unset>"):
            problems.append(f"{name} = {stored.get(name, '<unset>')!r} in the checkpoint, "
                            f"{current.get(name, '<unset>')!r} now")
    method = getattr(model, "method", None)
    fitted_method = metadata.get("fitted", {}).get("method")
    if method is not None and not isinstance(method, str) and fitted_method is not None \
            and resolve_method(method).as_dict() != fitted_method:
        problems.append("the method differs")
    if checkpoint.batch_size != batch_size:
        problems.append(f"batch size {checkpoint.batch_size} in the checkpoint, {batch_size} now")
    problems += _source_differences(checkpoint.source, source)
    if problems:
        raise InputError(f"the checkpoint is of another training run: {'; '.join(problems)} "
                         f"(delete it or use another path to start afresh)", path)


def _source_differences(stored: dict, current: dict) -> list[str]:
    if stored.get("kind") != current.get("kind"):
        return [f"it read {stored.get('kind')!r}, the source now is {current.get('kind')!r}"]
    differences = []
    if "size" in current and stored.get("size") != current["size"]:
        differences.append(f"the source has {current['size']} bytes, the checkpoint's "
                           f"{stored.get('path', '')} had {stored.get('size')}")
    if "prefix_sha256" in current and (stored.get("prefix_bytes"), stored.get("prefix_sha256")) \
            != (current["prefix_bytes"], current["prefix_sha256"]):
        differences.append(f"the first {current['prefix_bytes']} bytes of the source differ "
                           f"from those the checkpoint read")
    return differences


def _restore(path, model, arrays: dict, metadata: dict) -> None:
    """Put the checkpoint's fitted state into ``model`` (whose parameters were checked equal),
    with the checks of `TopicModelEstimator.load`."""
    persistence.topic_parameters(arrays, path)
    try:
        model._restore_state(arrays, metadata)
    except (KeyError, TypeError, ValueError) as error:
        raise ModelFileError(f"{path}: incomplete or inconsistent checkpoint "
                             f"({type(error).__name__}: {error})") from None


def _remove_stale_temporaries(path: Path) -> None:
    """Temporary files an atomic write left when its process was killed (`atomic.AtomicFile`
    names them ``.NAME.HEX.tmp``); one process trains per checkpoint."""
    for stale in path.parent.glob(f".{path.name}.*.tmp"):
        stale.unlink(missing_ok=True)


# --- the loop -----------------------------------------------------------------------------------
def train_stream(model, source, *, batch_size: int | None = None, n_passes: int | None = None,
                 vocabulary=None, format: str | None = None, text_field: str = "text",
                 split: str = "train", checkpoint=None, checkpoint_every: int = 10_000,
                 resume: bool = False,
                 progress: Callable[[StreamPosition], None] | None = None) -> TrainingResult:
    """Train ``model`` (an online estimator: ``partial_fit``, e.g. `OnlineLDA`) over ``source``
    with memory independent of the stream's length; optionally checkpoint and resume.

    source : a UCI docword file, a corpus directory (its ``split``.docword.txt and vocab.txt),
        a raw text or JSON-lines file (`stream_minibatches`), ``"-"`` for stdin or an open
        binary stream (text or JSON lines, `LineStream`; one pass), or any iterable of
        minibatches (`Corpus`, count matrices), taken as they come.
    n_passes : passes over the source; default the model's ``n_passes`` ("auto": one pass).
        A stream or an iterator allows one pass. Minibatches have the model's ``batch_size``
        (its one owner, saved with the model).
    batch_size : deprecated (FutureWarning), removed in the next release: sets the model's
        ``batch_size`` (``model.set_params(batch_size=...)``) so that the model file records
        the size it was trained at. Set it on the model instead.
    vocabulary : the vocabulary of raw text (a word list or vocab file; default the fitted
        model's), or of a docword file (default its ``vocab.*`` sibling).

        Growing vocabulary: when ``model.grow_vocabulary`` is set and the source is raw text (a
        text, JSON-lines, CSV file or ``.txt`` directory, ``"-"`` or a binary stream), the
        minibatches of raw documents go to ``model.partial_fit_text`` (bundled stop words),
        which adds new words within ``max_vocabulary``; ``vocabulary`` is then optional: the
        initial vocabulary (default: the first minibatch's words). ``result.report`` is (a
        copy of) the model's ``text_report_`` (tokens kept, tokens dropped by reason) with the
        reader's skipped documents. Checkpoints hold the grown vocabulary; a resume checks that
        it begins with ``vocabulary`` when one is given.
    format, text_field : the source's format (default: from the name; for a stream, from its
        first line) and the JSON field holding the text.
    checkpoint : path of the checkpoint file, written every ``checkpoint_every`` documents (at
        the end of the minibatch that reaches them) and when training ends. An existing file
        is never overwritten by a fresh start: pass ``resume=True`` or remove it.
    resume : continue from ``checkpoint`` if it exists (else start afresh). ``model`` must be
        unfitted with the checkpointed run's parameters (``n_passes`` may be larger, to train
        further); the source, batch size and parameters are checked (InputError if they
        differ). The result is bit-identical to an uninterrupted run. Resuming a finished run
        changes nothing.
    progress : called with the `StreamPosition` after every step.
    """
    started = time.perf_counter()
    if not hasattr(model, "partial_fit"):
        raise TypeError(f"{type(model).__name__} has no partial_fit: train_stream trains online "
                        f"estimators such as OnlineLDA")
    if batch_size is not None:
        warnings.warn("train_stream(batch_size=...) is deprecated and will be removed in the "
                      "next release: the model owns its batch size, set it there "
                      "(OnlineLDA(batch_size=...) or model.set_params(batch_size=...))",
                      FutureWarning, stacklevel=2)
        model.set_params(batch_size=batch_size)
    batch_size = int(model.batch_size)
    if n_passes is None:
        # "auto" (`OnlineLDA`'s default) holds documents out of a corpus in memory; a stream
        # gets one pass unless told otherwise.
        n_passes = 1 if model.n_passes == "auto" else model.n_passes
    n_passes = int(n_passes)
    if batch_size < 1 or n_passes < 1:
        raise ValueError(f"batch_size and n_passes must be >= 1, got {batch_size} and {n_passes}")
    if checkpoint is None and resume:
        raise ValueError("resume=True needs the checkpoint path (checkpoint=...)")
    if checkpoint_every < 1:
        raise ValueError(f"checkpoint_every must be >= 1 documents, got {checkpoint_every}")
    method = getattr(model, "method", None)
    if method is not None and getattr(resolve_method(method), "full_batch", False):
        raise ValueError("a full-batch method makes one step per pass over the whole corpus: "
                         "train it with fit, not over a stream")
    fitted = getattr(model, "_is_fitted", lambda: False)()
    stored = None
    if checkpoint is not None:
        checkpoint = Path(checkpoint)
        _remove_stale_temporaries(checkpoint)
        if checkpoint.exists() and not resume:
            raise InputError("a checkpoint exists here: resume it (resume=True, fit --resume) or "
                             "remove it to start afresh", checkpoint)
        if resume and checkpoint.exists():
            if fitted:
                raise ValueError("resume needs an unfitted model: its state comes from the "
                                 "checkpoint")
            stored, arrays, metadata = read_checkpoint(checkpoint)
    grow = bool(getattr(model, "grow_vocabulary", False))
    initial_vocabulary = vocabulary
    if vocabulary is None:
        vocabulary = model.vocabulary_ if fitted else None if stored is None else arrays["vocabulary"]
    source = _open_source(source, batch_size, vocabulary, format, text_field, split, grow)
    raw = isinstance(source, _RawTextFile) or (isinstance(source, LineStream)
                                                and source.mapper is None)
    if raw and initial_vocabulary is not None:
        initial_vocabulary = resolve_vocabulary(initial_vocabulary, None, source.description)
    if n_passes > 1 and not source.repeatable:
        raise ValueError(f"{source.description} can be read once: n_passes must be 1")
    recorded_batch_size = None if isinstance(source, _IterableSource) else batch_size

    position, resumed_from = StreamPosition(), None
    if stored is not None:
        # A stream's identity covers the documents consumed: it is checked once they are read.
        identity = {"kind": "stream"} if isinstance(source, LineStream) else source.identity()
        _check_same_run(checkpoint, model, stored, metadata, recorded_batch_size, identity)
        if source.vocabulary is not None and not np.array_equal(source.vocabulary,
                                                                arrays["vocabulary"]):
            raise InputError("the checkpoint is of another training run: its vocabulary differs "
                             "from the source's", checkpoint)
        if raw and initial_vocabulary is not None and not np.array_equal(
                arrays["vocabulary"][:len(initial_vocabulary)], initial_vocabulary):
            raise InputError("the checkpoint is of another training run: its vocabulary does "
                             "not begin with the initial vocabulary given", checkpoint)
        _restore(checkpoint, model, arrays, metadata)
        position = resumed_from = stored.position

    documents = steps = written = 0
    last_written = position.documents_total
    for pass_index in range(position.pass_index, n_passes):
        skip = position.documents if pass_index == position.pass_index else 0
        batches = source.batches(skip)
        if stored is not None and isinstance(source, LineStream):
            problems = _source_differences(stored.source, source.identity())
            if problems:
                raise InputError(f"the checkpoint is of another stream: {'; '.join(problems)}",
                                 checkpoint)
        position = StreamPosition(pass_index, skip, position.documents_total)
        for batch in batches:
            if not raw:
                model.partial_fit(batch)
            elif model._is_fitted():
                model.partial_fit_text(batch)
            else:
                model.partial_fit_text(batch, vocabulary=initial_vocabulary)
            n = _n_documents(batch)
            documents, steps = documents + n, steps + 1
            position = StreamPosition(pass_index, position.documents + n,
                                      position.documents_total + n)
            if checkpoint is not None and position.documents_total - last_written >= checkpoint_every:
                write_checkpoint(checkpoint, model, position, batch_size=recorded_batch_size,
                                 n_passes=n_passes, source=source.identity())
                written, last_written = written + 1, position.documents_total
            if progress is not None:
                progress(position)
        position = StreamPosition(pass_index + 1, 0, position.documents_total)
    if checkpoint is not None and (stored is None or steps or not stored.finished):
        if not getattr(model, "_is_fitted", lambda: True)():
            raise InputError(f"{source.description} holds no documents")
        write_checkpoint(checkpoint, model, position, batch_size=recorded_batch_size,
                         n_passes=n_passes, source=source.identity(), finished=True)
        written += 1
    return TrainingResult(model, position, resumed_from, documents, steps, written,
                          time.perf_counter() - started,
                          _text_report(model, source) if raw else source.report)


def _text_report(model, source) -> ReadReport:
    """The model's `text_report_` (tokens kept and dropped) with the reader's skipped
    documents, decoding replacements and warnings."""
    report = copy.deepcopy(getattr(model, "text_report_", None) or ReadReport())
    report.source = source.description
    reader = source.report
    for reason, n in reader.documents_skipped.items():
        report.skip(reason, n)
    report.documents_read += sum(reader.documents_skipped.values())
    report.decode_replacements += reader.decode_replacements
    for message in reader.warnings:
        report.warn(message)
    return report
