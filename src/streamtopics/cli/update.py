"""`streamtopics update MODEL INPUT -o NEW_MODEL`: continue training a saved model on new documents.

MODEL is a model file of an online model (`OnlineLDA` presets, ``--model hdp``,
``labeled-g-oem``) written by ``fit``, ``update`` or ``save`` with this library version
(`training.load_trainable` refuses the others and says what to do). INPUT is anything ``fit``
streams: a corpus directory (its ``--split``, default train) or docword file, whose words are
mapped onto the model's by name, or raw text mapped onto the model's vocabulary. One pass over
INPUT in minibatches of the model's batch size: the new model is the one a single run over the
old documents and then these would have trained, bit for bit when the old documents ended on a
minibatch boundary (docs/streaming.md, "Keep learning"). ``--passes N`` reads INPUT N times (a
file, not stdin), as a stream that brings these documents N times over: the same as N one-pass
updates in a row.

With ``--grow-vocabulary`` new words join once seen ``--min-word-count`` times (the counting goes
on across updates: the model file keeps it); without it their tokens are dropped and counted.
``--step-floor RHO`` keeps every new minibatch's weight at RHO or more, so a model trained long
ago follows topics that drifted since. The report says what was read, kept and dropped, how the
vocabulary grew, and how far each topic moved (total-variation distance to itself); with
several passes, what one reading of INPUT holds (the last pass, under the vocabulary it found).
"""

from __future__ import annotations

import sys
import time

import numpy as np

from ..corpus.corpus import ReadReport
from ..corpus.labels import read_label_file, restrict_labels, split_label_file
from ..errors import InputError
from ..estimators.labeled_online import LabeledOnlineLDA
from ..estimators.online_lda import MAPPED_BY_NAME
from ..evaluation.matching import topic_movement
from ..training import load_trainable, train_stream
from .common import (add_growth_options, add_json_flag, add_step_floor_option, add_text_options,
                     add_threads_option, emit, existing_parent, given, positive_int, progress,
                     read_onto_vocabulary, report_reading, text_options)


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "update", help="continue training a saved online model on new documents",
        description="Train a saved online model further on the documents of INPUT and write the "
                    "result; with one pass, the same as one run over the old documents and then "
                    "these.")
    parser.add_argument("model", metavar="MODEL", help="model file written by fit or update")
    parser.add_argument("input", metavar="INPUT", help="corpus directory, docword file or raw "
                                                       "text (- for stdin)")
    parser.add_argument("--split", default="train",
                        help="split of a corpus directory (default: train)")
    parser.add_argument("--passes", type=positive_int, default=1, metavar="N",
                        help="passes over INPUT (default 1; more read a file N times: the same "
                             "as N updates in a row)")
    parser.add_argument("--vocabulary", default=None, metavar="FILE",
                        help="vocabulary of a docword INPUT without a vocab file beside it")
    parser.add_argument("--format", choices=("text", "jsonl"), default=None,
                        help="format of raw text input (default: from the name, or stdin's "
                             "first line)")
    add_text_options(parser)
    add_growth_options(parser)
    add_step_floor_option(parser)
    parser.add_argument("--labels", default=None, metavar="FILE",
                        help="labeled-g-oem models: the new documents' labels, one JSON list "
                             "a line (default: INPUT/{split}.labels.jsonl)")
    add_threads_option(parser)
    parser.add_argument("-o", "--output", required=True, metavar="NEW_MODEL",
                        help="model file to write (may be MODEL itself: written atomically)")
    add_json_flag(parser)
    parser.set_defaults(run=run)


def run(args) -> int:
    output = existing_parent(args.output)
    if "time_field" in text_options(args):
        raise InputError("update trains on INPUT in the order it is read, as a stream: "
                         "--time-field cannot sort it (preprocess --time-field writes a corpus "
                         "directory in time order)")
    if args.passes > 1 and args.input == "-":
        raise InputError("standard input can be read once: --passes must be 1 (save it to a "
                         "file to make several passes)")
    model = load_trainable(args.model)
    before = np.array(model.components_)
    vocabulary_before = int(model.vocabulary_.size)
    started = time.perf_counter()
    if isinstance(model, LabeledOnlineLDA):
        report, documents = _update_labeled(model, args)
    else:
        report, documents = _update_online(model, args)
    seconds = time.perf_counter() - started
    model.save(output)
    after = np.array(model.components_)
    result = {"model": str(output), "updated": str(args.model),
              "estimator": type(model).__name__, "passes": args.passes,
              "documents_read": report.documents_read,
              "documents_trained": documents, "documents_skipped": report.documents_skipped,
              "tokens_kept": report.tokens_kept, "tokens_dropped": report.tokens_dropped,
              "vocabulary": {"before": vocabulary_before, "after": int(model.vocabulary_.size),
                             "waiting": _waiting_words(model)},
              "topics": {"before": before.shape[0], "after": after.shape[0]},
              "seconds": seconds}
    passes = f" {args.passes} times" if args.passes > 1 else ""
    human = (f"{args.model} -> {output}: {documents} of {report.documents_read} documents "
             f"trained{passes} in {seconds:.1f} s; vocabulary {vocabulary_before} -> "
             f"{model.vocabulary_.size} words")
    if before.shape[0] == after.shape[0]:
        movement = topic_movement(before, after)
        result["movement"] = {"mean_tv": float(movement.mean()), "max_tv": float(movement.max()),
                              "per_topic_tv": movement.tolist()}
        human += (f"; topics moved by a mean total-variation distance of {movement.mean():.3f} "
                  f"(largest {movement.max():.3f}, topic {int(movement.argmax())})")
    else:
        human += f"; topics {before.shape[0]} -> {after.shape[0]}"
    emit(args, result, human)
    return 0


def _update_online(model, args) -> tuple[ReadReport, int]:
    """``--passes`` one-pass calls of `train_stream` over INPUT; (the last pass's reading and
    mapping report, the documents it trained)."""
    model.set_params(**given(grow_vocabulary=args.grow_vocabulary,
                             min_word_count=args.min_word_count,
                             max_vocabulary=args.max_vocabulary, step_floor=args.step_floor))
    for option, value in (("--max-vocabulary", args.max_vocabulary),
                          ("--min-word-count", args.min_word_count)):
        if value is not None and not model.grow_vocabulary:
            raise InputError(f"{option} governs a growing vocabulary: add --grow-vocabulary")
    if model.method_.full_batch:
        raise InputError(f"{args.model}: a {model.method_.name} model makes each step over the "
                         f"whole corpus: fit it again on the old and new documents together")
    with progress(total=None, desc="update") as bar:
        for _ in range(args.passes):
            model.text_report_ = None  # this pass's mapping of words, if any
            before = bar.n
            result = train_stream(
                model, args.input, n_passes=1, vocabulary=args.vocabulary, format=args.format,
                **text_options(args), split=args.split,
                progress=lambda at: bar.update(before + at.documents_total - bar.n))
    report = _with_mapping(result.report, model.text_report_)
    report_reading(report)
    return report, result.documents


def _with_mapping(reading: ReadReport | None, mapping: ReadReport | None) -> ReadReport:
    """The reader's report with the words the model mapped by name (`OnlineLDA.partial_fit` of
    documents over another vocabulary, `MAPPED_BY_NAME`) counted in: tokens kept, and dropped
    by reason. Raw text's report already is the model's (`train_stream`)."""
    if reading is None or mapping is None or mapping.source != MAPPED_BY_NAME:
        return reading or mapping or ReadReport()
    reading.tokens_kept = mapping.tokens_kept
    for reason, n in mapping.tokens_dropped.items():
        reading.drop_tokens(reason, n)
    for message in mapping.warnings:
        reading.warn(message)
    return reading


def _update_labeled(model: LabeledOnlineLDA, args) -> tuple[ReadReport, int]:
    """Minibatches of the model's batch size of INPUT with their labels (those the model
    knows; documents left without one are skipped and counted), ``--passes`` times."""
    if any(value is not None for value in (args.grow_vocabulary, args.min_word_count,
                                           args.max_vocabulary, args.step_floor)):
        raise InputError("a labeled-g-oem model is updated with its own vocabulary and step "
                         "sizes: drop --grow-vocabulary, --min-word-count, --max-vocabulary "
                         "and --step-floor")
    corpus, counts, _ = read_onto_vocabulary(args, args.input, model.vocabulary_,
                                             pipeline=model.text_pipeline_)
    path = args.labels or split_label_file(args.input, args.split)
    if path is None:
        raise InputError(f"a labeled model needs the new documents' labels: give --labels FILE "
                         f"(or put {args.split}.labels.jsonl in the corpus directory)", args.input)
    labels = restrict_labels(read_label_file(path, corpus.n_documents), model.classes_.tolist())
    rows = [d for d, row in enumerate(labels) if row]
    report = corpus.report or ReadReport()
    if len(rows) < corpus.n_documents:
        report.skip("no label the model knows", corpus.n_documents - len(rows))
        print(f"{corpus.n_documents - len(rows)} documents without a label the model knows "
              f"skipped", file=sys.stderr)
    size = int(model.batch_size)
    with progress(total=len(rows) * args.passes, desc="update") as bar:
        for _ in range(args.passes):
            for start in range(0, len(rows), size):
                batch = rows[start:start + size]
                model.partial_fit(counts[batch], [labels[d] for d in batch])
                bar.update(len(batch))
    return report, len(rows)


def _waiting_words(model) -> int:
    """New words counted but not yet admitted to a growing vocabulary."""
    return len(getattr(model, "online_model_", model).pending_words_)
