"""Training over a stream that never loses work: bounded memory, checkpoints, exact resume.

`train_stream(model, source, ...)` runs an online estimator (`OnlineLDA`) over a source read a
minibatch at a time (a UCI docword file, a corpus directory, raw text or JSON lines, stdin, or any
iterable of minibatches), so memory depends on the minibatch and the model, never on the length
of the stream (Dupuy & Bach 2016, Algorithm 1 sees each document once per pass).

The source is read through one interface, `corpus.sources.MinibatchSource` (`open_source`
turns a path, ``"-"``, a binary stream or an iterable of minibatches into one). With
``checkpoint=PATH`` it writes, every ``checkpoint_every`` documents and at the end, the complete
training state as one checkpoint file (`streamtopics.checkpoint`: a safe model file with the
position in the stream, the batch size and the source's identity).

``resume=True`` loads the checkpoint, checks that the run is the same one (estimator parameters,
batch size, source), skips the documents already consumed and continues; checkpoints are written
only at minibatch boundaries, so the minibatches after a resume are those of an uninterrupted
run and the final model is bit-identical to it. A checkpoint is also a model file:
``OnlineLDA.load(checkpoint)`` works.

`fit_with_checkpoints(model, corpus, checkpoint)` is ``model.fit(corpus)`` over a corpus in
memory with the same checkpoints, for any ``n_passes`` ("auto" included: the held-out rows,
the scores so far and the best pass go into the checkpoint), resuming mid-pass: checkpoints
never change the model.
"""

from __future__ import annotations

import copy
import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .checkpoint import (Checkpoint, ScheduleState, StreamPosition, read_checkpoint,
                         remove_stale_temporaries, schedule_state, source_differences,
                         write_checkpoint)
from .corpus.corpus import Corpus, ReadReport
from .corpus.files import resolve_vocabulary
from .corpus.raw_text import DEFAULT_TEXT_FIELD
from .corpus.sources import MinibatchSource, has_own_vocabulary, open_source
from ._version import __version__
from .errors import InputError, ModelFileError
from .estimators import ESTIMATORS, auto_passes
from .persistence import is_topics_only, load_model, topic_parameters
from .inference.presets import resolve_method

__all__ = ["train_stream", "fit_with_checkpoints", "load_trainable", "TrainingResult"]


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


# --- continuing a saved model -------------------------------------------------------------------
def load_trainable(path):
    """The online estimator of the model file ``path``, whose training can go on (`train_stream`,
    ``partial_fit``) exactly as if it had never stopped; `ModelFileError` saying what to do
    otherwise. A model file of `OnlineLDA`, `OnlineHDP` or `LabeledOnlineLDA` holds its
    complete training state (statistics, alpha, step count, random seed, the averaging and
    growing-vocabulary state). Refused: a file written by another library version (its state
    may not continue identically), topics without a training state (`streamtopics export`, or
    another tool's), and the batch models, which have no online state to continue."""
    if is_topics_only(path):
        raise ModelFileError(f"{path}: holds topics without a training state (an export, or "
                             f"another tool's file): training continues from a model file "
                             f"written by fit, update or save")
    arrays, metadata = load_model(path)
    written_by = metadata.get("library_version")
    if written_by != __version__:
        raise ModelFileError(f"{path}: written by streamtopics {written_by}, this is "
                             f"{__version__}: its training state is not guaranteed to continue "
                             f"identically. Train afresh with this version (or load it in "
                             f"Python and call partial_fit, knowing that)")
    estimator = ESTIMATORS.get(metadata.get("estimator"))
    if estimator is None or not hasattr(estimator, "partial_fit"):
        name = metadata.get("estimator")
        raise ModelFileError(f"{path}: a {name} model is fitted by batch sweeps over the whole "
                             f"corpus and has no online state to continue: fit it again on the "
                             f"old and new documents together, or train an online model "
                             f"(fit --method g-oem) that update can continue")
    return estimator._from_model_file(path, arrays, metadata)


# --- resuming ---------------------------------------------------------------------------------
def _serialisable_parameters(model) -> dict:
    return {name: value for name, value in model.get_params().items()
            if (value is None or isinstance(value, (bool, int, float, str)))
            and name not in getattr(model, "_execution_parameters", ())}


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
    fitted_method = metadata.get("fitted", {}).get("method")
    if not isinstance(model.method, str) and fitted_method is not None \
            and resolve_method(model.method).as_dict() != fitted_method:
        problems.append("the method differs")
    if checkpoint.batch_size != batch_size:
        problems.append(f"batch size {checkpoint.batch_size} in the checkpoint, {batch_size} now")
    problems += source_differences(checkpoint.source, source)
    if problems:
        raise InputError(f"the checkpoint is of another training run: {'; '.join(problems)} "
                         f"(delete it or use another path to start afresh)", path)


def _restore(path, model, arrays: dict, metadata: dict) -> None:
    """Put the checkpoint's fitted state into ``model`` (whose parameters were checked equal),
    with the checks of `TopicModelEstimator.load`."""
    topic_parameters(arrays, path)
    try:
        model.set_model_file_contents(arrays, metadata)
    except (KeyError, TypeError, ValueError) as error:
        raise ModelFileError(f"{path}: incomplete or inconsistent checkpoint "
                             f"({type(error).__name__}: {error})") from None


# --- the loop -----------------------------------------------------------------------------------
def train_stream(model, source, *, n_passes: int | None = None, vocabulary=None,
                 format: str | None = None, text_field: str = DEFAULT_TEXT_FIELD, encoding: str = "utf-8",
                 errors: str = "strict", split: str = "train", checkpoint=None,
                 checkpoint_every: int = 10_000, resume: bool = False,
                 progress: Callable[[StreamPosition], None] | None = None) -> TrainingResult:
    """Train ``model`` (an online estimator such as `OnlineLDA`: ``partial_fit``,
    ``partial_fit_text``, ``is_fitted()``, ``batch_size``, ``n_passes``, ``method``,
    ``grow_vocabulary``) over ``source`` with memory independent of the stream's length;
    optionally checkpoint and resume.

    source : a UCI docword file, a corpus directory (its ``split``.docword.txt and vocab.txt),
        a raw text or JSON-lines file (`stream_minibatches`), ``"-"`` for stdin or an open
        binary stream (text or JSON lines, `LineStream`; one pass), or any iterable of
        minibatches (`Corpus`, count matrices), taken as they come.
    n_passes : passes over the source; default the model's ``n_passes`` ("auto": one pass).
        A stream or an iterator allows one pass. Minibatches have the model's ``batch_size``
        (its one owner, saved with the model).
    vocabulary : the vocabulary of raw text (a word list or vocab file; default the fitted
        model's), or of a docword file (default its ``vocab.*`` sibling). Raw text is tokenised
        by the model's ``text_pipeline_`` when it has one (`corpus.pipeline`).

        A fitted ``model`` (one read by `load_trainable`) continues its training: a
        docword file's words are mapped onto the model's by word (`OnlineLDA.partial_fit` of a
        `Corpus` over another vocabulary), and the result is the model of one run over its
        old documents and then these (exactly, when the old ones ended on a minibatch boundary).

        Growing vocabulary: when ``model.grow_vocabulary`` is set and the source is raw text (a
        text, JSON-lines, CSV file or ``.txt`` directory, ``"-"`` or a binary stream), the
        minibatches of raw documents go to ``model.partial_fit_text`` (its text pipeline),
        which adds new words within ``max_vocabulary``; ``vocabulary`` is then optional: the
        initial vocabulary (default: the first minibatch's words). ``result.report`` is (a
        copy of) the model's ``text_report_`` (tokens kept, tokens dropped by reason) with the
        reader's skipped documents. Checkpoints hold the grown vocabulary; a resume checks that
        it begins with ``vocabulary`` when one is given.
    format, text_field : the source's format (default: from the name; for a stream, from its
        first line) and the JSON field or CSV column holding the text (one the documents do
        not have is an InputError, for every format).
    encoding, errors : how raw text's bytes become text (`corpus.files.TextDecoding`).
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
    n_passes = _checked_arguments(model, n_passes, checkpoint, resume, checkpoint_every)
    stored = arrays = metadata = None
    if checkpoint is not None:
        checkpoint = Path(checkpoint)
        stored, arrays, metadata = _existing_checkpoint(checkpoint, model, resume)
    initial_vocabulary = vocabulary
    if vocabulary is None and not has_own_vocabulary(source, format):
        # Raw text is mapped onto the model's words; a docword file keeps its own, which
        # `partial_fit` maps onto the model's by word.
        vocabulary = (model.vocabulary_ if model.is_fitted()
                      else None if stored is None else arrays["vocabulary"])
    text = {"text_field": text_field, "encoding": encoding, "errors": errors}
    source = open_source(source, int(model.batch_size), vocabulary, format, text, split,
                         raw=bool(model.grow_vocabulary),
                         pipeline=getattr(model, "text_pipeline_", None))
    if source.raw and initial_vocabulary is not None:
        initial_vocabulary = resolve_vocabulary(initial_vocabulary, None, source.description)
    if n_passes > 1 and not source.repeatable:
        raise ValueError(f"{source.description} can be read once: n_passes must be 1")

    position, resumed_from = StreamPosition(), None
    if stored is not None:
        _resume(checkpoint, model, stored, arrays, metadata, source, initial_vocabulary)
        position = resumed_from = stored.position

    documents = steps = written = 0
    last_written = position.documents_total
    for pass_index in range(position.pass_index, n_passes):
        skip = position.documents if pass_index == position.pass_index else 0
        batches = source.batches(skip)
        if stored is not None and source.identity_after_reading:
            problems = source_differences(stored.source, source.identity())
            if problems:
                raise InputError(f"the checkpoint is of another stream: {'; '.join(problems)}",
                                 checkpoint)
        position = StreamPosition(pass_index, skip, position.documents_total)
        for batch, n in batches:
            if source.raw:  # the initial vocabulary is read by the first call only
                model.partial_fit_text(batch, vocabulary=initial_vocabulary)
            else:
                model.partial_fit(batch)
            documents, steps = documents + n, steps + 1
            position = StreamPosition(pass_index, position.documents + n,
                                      position.documents_total + n)
            if checkpoint is not None and position.documents_total - last_written >= checkpoint_every:
                write_checkpoint(checkpoint, model, position, batch_size=source.batch_size,
                                 n_passes=n_passes, source=source.identity())
                written, last_written = written + 1, position.documents_total
            if progress is not None:
                progress(position)
        position = StreamPosition(pass_index + 1, 0, position.documents_total)
    if not model.is_fitted():
        raise InputError(f"{source.description} holds no documents")
    if checkpoint is not None and (stored is None or steps or not stored.finished):
        write_checkpoint(checkpoint, model, position, batch_size=source.batch_size,
                         n_passes=n_passes, source=source.identity(), finished=True)
        written += 1
    return TrainingResult(model, position, resumed_from, documents, steps, written,
                          time.perf_counter() - started,
                          _text_report(model, source) if source.raw else source.report)


def _existing_checkpoint(path: Path, model, resume: bool):
    """(`Checkpoint`, arrays, metadata) of the checkpoint to resume, or Nones for a fresh
    start; an existing checkpoint is never overwritten by a fresh start."""
    remove_stale_temporaries(path)
    if path.exists() and not resume:
        raise InputError("a checkpoint exists here: resume it (resume=True, fit --resume) or "
                         "remove it to start afresh", path)
    if not (resume and path.exists()):
        return None, None, None
    if model.is_fitted():
        raise ValueError("resume needs an unfitted model: its state comes from the checkpoint")
    return read_checkpoint(path)


# --- fit over a corpus in memory ----------------------------------------------------------------
CORPUS_KIND = "corpus"
"""The source kind of checkpoints of `fit_with_checkpoints` (`corpus_identity`)."""


def corpus_identity(corpus: Corpus, topic_mask=None) -> dict:
    """The identity a checkpoint of `fit_with_checkpoints` records: the corpus' shape and a
    SHA-256 digest of its counts (CSR arrays) and of the documents' allowed topics
    (``topic_mask``, a `TopicMask`: the labels of a labeled model)."""
    counts = corpus.counts
    digest = hashlib.sha256()
    arrays = [counts.indptr, counts.indices, counts.data]
    if topic_mask is not None:
        arrays += [topic_mask.ptr, topic_mask.topics, [topic_mask.n_topics]]
    for array in arrays:
        digest.update(np.ascontiguousarray(array, dtype=np.int64).tobytes())
    return {"kind": CORPUS_KIND, "documents": int(counts.shape[0]), "words": int(counts.shape[1]),
            "sha256": digest.hexdigest()}


def fit_with_checkpoints(model, corpus: Corpus, checkpoint, *, checkpoint_every: int = 10_000,
                         resume: bool = False, callback=None,
                         topic_mask=None) -> TrainingResult:
    """``model.fit(corpus, callback=callback, topic_mask=topic_mask)`` (`OnlineLDA` or
    `OnlineHDP`, any ``n_passes``, "auto" included; a ``topic_mask``: `LabeledOnlineLDA`'s
    model) writing the complete training state to ``checkpoint`` every
    ``checkpoint_every`` training documents (at the end of the minibatch that reaches them) and
    at the end: the model file, the pass and the documents of it trained on
    (`auto_passes.FitProgress`) and, with automatic passes, the held-out rows, the scores so
    far and the best pass's state. ``resume=True`` continues from the checkpoint if it exists
    (``model`` unfitted, with the checkpointed run's parameters; the corpus is recognised by
    its digest, `corpus_identity`). Checkpoints never change the model: it is `fit`'s, bit
    for bit, interrupted and resumed or not. Multi-pass training resumes mid-pass."""
    started = time.perf_counter()
    if checkpoint_every < 1:
        raise ValueError(f"checkpoint_every must be >= 1 documents, got {checkpoint_every}")
    if model.n_init != 1:
        raise ValueError("a checkpointed fit is one run: n_init must be 1")
    checkpoint = Path(checkpoint)
    stored, arrays, metadata = _existing_checkpoint(checkpoint, model, resume)
    identity = corpus_identity(corpus, topic_mask)
    automatic = model.n_passes == auto_passes.AUTO
    validation_rows = auto_passes.validation_split(corpus.n_documents).validation_rows
    progress, position = None, StreamPosition()
    if stored is not None:
        progress = _resumed_progress(checkpoint, model, stored, arrays, metadata, identity,
                                     validation_rows if automatic else None)
        position = stored.position
        if stored.finished:
            model.n_passes_ = position.pass_index
            model.validation_scores_ = progress.schedule.scores if automatic else None
            return TrainingResult(model, position, position, 0, 0, 0,
                                  time.perf_counter() - started, None)
    counters = {"documents": 0, "steps": 0, "written": 0,
                "total": position.documents_total, "last_written": position.documents_total}

    def write(finished: bool = False) -> StreamPosition:
        now = (model.fit_progress_ if not finished
               else auto_passes.FitProgress(model.n_passes_, 0))
        at = StreamPosition(now.passes, now.documents, counters["total"])
        schedule = None
        if automatic:
            scores, best = ((model.validation_scores_, None) if finished else
                            (now.schedule.scores, now.schedule.best_state))
            schedule = ScheduleState(scores, validation_rows, *(best or (None, None)))
        write_checkpoint(checkpoint, model, at, batch_size=int(model.batch_size),
                         n_passes=model.n_passes, source=identity, finished=finished,
                         schedule=schedule)
        counters["written"], counters["last_written"] = counters["written"] + 1, at.documents_total
        return at

    def after_step(fitted, report):
        counters["documents"] += report.n_documents
        counters["steps"] += 1
        counters["total"] += report.n_documents
        if counters["total"] - counters["last_written"] >= checkpoint_every:
            write()
        if callback is not None:
            callback(fitted, report)

    labels = {} if topic_mask is None else {"topic_mask": topic_mask}  # OnlineHDP has none
    model.fit(corpus, callback=after_step, resume=progress, **labels)
    position = write(finished=True)
    return TrainingResult(model, position, None if stored is None else stored.position,
                          counters["documents"], counters["steps"], counters["written"],
                          time.perf_counter() - started, None)


def _resumed_progress(path, model, stored: Checkpoint, arrays: dict, metadata: dict,
                      identity: dict, validation_rows) -> auto_passes.FitProgress:
    """Check that the checkpoint is of this fit (parameters, ``n_passes`` "auto" or not,
    batch size, corpus, held-out rows), restore its state into ``model``; its `FitProgress`."""
    _check_same_run(path, model, stored, metadata, int(model.batch_size), identity)
    schedule = schedule_state(stored, arrays)
    if (schedule is None) != (validation_rows is None):
        raise InputError(f"the checkpoint is of another training run: n_passes = "
                         f"{stored.n_passes!r} in the checkpoint, {model.n_passes!r} now", path)
    if schedule is not None and not np.array_equal(schedule.validation_rows, validation_rows):
        raise InputError("the checkpoint is of another training run: its held-out rows "
                         "differ", path)
    _restore(path, model, arrays, metadata)
    return auto_passes.FitProgress(
        stored.position.pass_index, stored.position.documents,
        None if schedule is None else auto_passes.PassSchedule(
            None, schedule.scores,
            None if schedule.best_arrays is None else (schedule.best_arrays, schedule.best_step)))


def _checked_arguments(model, n_passes, checkpoint, resume, checkpoint_every: int) -> int:
    """Check what `train_stream` was given; the number of passes to run."""
    if not hasattr(model, "partial_fit"):
        raise TypeError(f"{type(model).__name__} has no partial_fit: train_stream trains online "
                        f"estimators such as OnlineLDA")
    if n_passes is None:
        # "auto" (`OnlineLDA`'s default) holds documents out of a corpus in memory; a stream
        # gets one pass unless told otherwise.
        n_passes = 1 if model.n_passes == "auto" else model.n_passes
    n_passes = int(n_passes)
    if int(model.batch_size) < 1 or n_passes < 1:
        raise ValueError(f"batch_size and n_passes must be >= 1, got {model.batch_size} and "
                         f"{n_passes}")
    if checkpoint is None and resume:
        raise ValueError("resume=True needs the checkpoint path (checkpoint=...)")
    if checkpoint_every < 1:
        raise ValueError(f"checkpoint_every must be >= 1 documents, got {checkpoint_every}")
    if resolve_method(model.method).full_batch:
        raise ValueError("a full-batch method makes one step per pass over the whole corpus: "
                         "train it with fit, not over a stream")
    return n_passes


def _resume(path, model, stored: Checkpoint, arrays: dict, metadata: dict,
            source: MinibatchSource, initial_vocabulary) -> None:
    """Check that the checkpoint is of this run and restore its state into ``model``. A
    stream's identity covers the documents consumed: it is checked once they are read."""
    identity = {"kind": "stream"} if source.identity_after_reading else source.identity()
    _check_same_run(path, model, stored, metadata, source.batch_size, identity)
    if source.vocabulary is not None and not np.array_equal(source.vocabulary,
                                                            arrays["vocabulary"]):
        raise InputError("the checkpoint is of another training run: its vocabulary differs "
                         "from the source's", path)
    if source.raw and initial_vocabulary is not None and not np.array_equal(
            arrays["vocabulary"][:len(initial_vocabulary)], initial_vocabulary):
        raise InputError("the checkpoint is of another training run: its vocabulary does "
                         "not begin with the initial vocabulary given", path)
    _restore(path, model, arrays, metadata)


def _text_report(model, source: MinibatchSource) -> ReadReport:
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
