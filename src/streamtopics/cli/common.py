"""Small helpers shared by the subcommands: JSON/human output, progress bars, read reports."""

from __future__ import annotations

import argparse
import inspect
import json
import sys
from pathlib import Path

import numpy as np
from tqdm.auto import tqdm

from ..corpus.corpus import aligned_counts
from ..corpus.pipeline import TextPipeline
from ..corpus.raw_text import iter_raw_documents
from ..corpus.readers import DECODING_ERRORS, TextDecoding, load_corpus
from ..corpus.sources import is_raw_text_file
from ..corpus.time import CALENDAR_PERIODS, TIME_ORDERS, TimeField
from ..errors import InputError, ModelFileError
from ..estimators.online_lda import OnlineLDA
from ..inference.cvb0 import predict_cvb0
from ..persistence import is_topics_only, load_model
from ..reporting.strict_json import finite_json


def positive_int(text: str) -> int:
    """An argparse type: an integer >= 1 (argparse reports anything else as invalid)."""
    value = int(text)
    if value < 1:
        raise ValueError(text)
    return value


def period_spec(text: str) -> str:
    """An argparse type: a calendar period of `corpus.time` or a number N >= 1 of equal-count
    periods."""
    if text not in CALENDAR_PERIODS and not (text.isdigit() and int(text) >= 1):
        raise ValueError(text)
    return text


def default_of(owner, name: str):
    """The default of parameter ``name`` of ``owner`` (an estimator class, a function or a
    dataclass): what an option left out means. Options default to None, "not given", and
    `given` passes only those given, so every default has one owner and ``--help`` reads it
    from there instead of repeating it."""
    return inspect.signature(owner).parameters[name].default


def given(**options) -> dict:
    """The keyword arguments of the options given (those that are not None)."""
    return {name: value for name, value in options.items() if value is not None}


def existing_parent(path) -> Path:
    """``path`` as a Path whose directory exists, else an `InputError` naming the directory
    (checked before any work, so a typo does not cost a whole run)."""
    path = Path(path)
    if not path.parent.is_dir():
        raise InputError("the output's directory does not exist", path.parent)
    return path


def thread_count(text: str) -> int:
    """An argparse type: ``n_jobs`` as `streamtopics.threads` reads it, an integer other than 0
    (argparse reports anything else as invalid)."""
    value = int(text)
    if value == 0:
        raise ValueError(text)
    return value


def add_threads_option(parser) -> None:
    """``--threads N``, the same on every command that computes: `cli.main` runs the command
    `using_threads` of it."""
    parser.add_argument("--threads", type=thread_count, default=None, metavar="N",
                        help="threads of the compiled kernels: N, or -1 for every core (default: "
                             "1, which a busy machine never slows; the results are the same for "
                             "any N)")


def add_growth_options(parser) -> None:
    """``--grow-vocabulary``, ``--min-word-count`` and ``--max-vocabulary`` of `fit` and
    `update`: the estimators' ``grow_vocabulary``, ``min_word_count``, ``max_vocabulary``."""
    parser.add_argument("--grow-vocabulary", action="store_true", default=None,
                        help="words first seen during training join the vocabulary once seen "
                             "--min-word-count times (old topics unchanged; docs/streaming.md); "
                             "fit: raw text input, streamed, --vocabulary optional (the "
                             "initial vocabulary)")
    parser.add_argument("--min-word-count", type=positive_int, default=None, metavar="N",
                        help=f"with --grow-vocabulary: the occurrences a new word needs before "
                             f"it joins; until then its tokens are dropped and counted (default: "
                             f"{default_of(OnlineLDA, 'min_word_count')}, as preprocess "
                             f"--min-count)")
    parser.add_argument("--max-vocabulary", type=int, default=None, metavar="N",
                        help="with --grow-vocabulary: the most words the vocabulary may hold; "
                             "new words beyond it are dropped and counted (default: no cap)")


def add_step_floor_option(parser) -> None:
    """``--step-floor`` of `fit` and `update`: the estimators' ``step_floor``."""
    parser.add_argument("--step-floor", type=float, default=None, metavar="RHO",
                        help=f"the least step size rho_i, in [0, 1): new documents keep at "
                             f"least this weight, so the topics follow a drifting stream with a "
                             f"memory of about 1/RHO minibatches (0: the schedule, which "
                             f"converges) (default: {default_of(OnlineLDA, 'step_floor')})")


def add_text_options(parser) -> None:
    """``--text-field`` (the JSON field or CSV column holding the text), ``--encoding`` and
    ``--errors`` of raw text input, and the time options (`corpus.time`): ``--time-field``,
    ``--skip-undated``, ``--time-order``; read back by `text_options`."""
    parser.add_argument("--text-field", default=None, metavar="FIELD",
                        help=f"raw JSON-lines or CSV input: the field (column) holding the text; "
                             f"one the input does not have is an error (default: "
                             f"{default_of(load_corpus, 'text_field')})")
    parser.add_argument("--encoding", type=_encoding, default=None,
                        help=f"encoding of raw text input (default: "
                             f"{default_of(load_corpus, 'encoding')}; e.g. latin-1, cp1252)")
    parser.add_argument("--errors", choices=DECODING_ERRORS, default=None,
                        help=f"undecodable bytes in raw text: strict = stop, naming the file and "
                             f"line (exit 2); replace = U+FFFD, counted (default: "
                             f"{default_of(load_corpus, 'errors')})")
    parser.add_argument("--time-field", default=None, metavar="FIELD",
                        help="the JSON field, CSV column or corpus directory meta field holding "
                             "each document's time (ISO date, YYYY/M/D or epoch seconds); a "
                             "bad or missing one is an error naming the file, line and value "
                             "(default: a corpus directory's time column, when it has one)")
    parser.add_argument("--skip-undated", action="store_true", default=None,
                        help="skip (and count) documents without a valid time instead")
    parser.add_argument("--time-order", choices=TIME_ORDERS, default=None,
                        help=f"documents earlier than one before them: sort (by time, stably), "
                             f"warn (keep the order read, count them) or refuse (default: "
                             f"{TimeField.order})")


def _encoding(name: str) -> str:
    """An argparse type: an encoding raw text can be read in (`TextDecoding`)."""
    try:
        TextDecoding(name)
    except InputError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return name


def text_options(args) -> dict:
    """The keyword arguments of `load_corpus` / `iter_raw_documents` that `add_text_options`
    set, those given."""
    return given(text_field=args.text_field, encoding=args.encoding, errors=args.errors,
                 time_field=time_field(args))


def time_field(args) -> TimeField | None:
    """The `TimeField` of ``--time-field``, ``--skip-undated`` and ``--time-order`` (without
    ``--time-field``, the others apply to a corpus directory's ``time`` column), or None."""
    if args.time_field is None and args.skip_undated is None and args.time_order is None:
        return None
    return TimeField(**given(name=args.time_field, skip_undated=args.skip_undated,
                             order=args.time_order))


def read_training_corpus(args):
    """``args.corpus`` (its ``args.split`` for a corpus directory) read with the text options,
    reported on stderr; refused when it holds no token, naming the user's input (not an
    internal file of it)."""
    corpus = load_corpus(args.corpus, split=args.split, **text_options(args))
    report_reading(corpus.report)
    if corpus.n_tokens == 0:
        where = f"its {args.split} split" if Path(args.corpus).is_dir() else "it"
        raise InputError(f"nothing to train on: {where} holds {corpus.n_documents} document(s) "
                         f"and no token", args.corpus)
    return corpus


def read_onto_vocabulary(args, path, vocabulary, max_documents: int | None = None,
                         pipeline=None):
    """The documents of ``path`` (its ``args.split`` for a corpus directory; the first
    ``max_documents`` of them if given) read with the text options onto a model's
    ``vocabulary``, raw text tokenised by ``pipeline`` (the model's ``text_pipeline_``, if
    any), the reading reported on stderr; returns the corpus read and its counts in
    the vocabulary's column order. Tokens of words the model does not know are dropped and
    their number said on stderr (nothing is dropped silently)."""
    corpus = load_corpus(path, vocabulary=list(vocabulary), split=args.split, tokenizer=pipeline,
                         **text_options(args))
    report_reading(corpus.report)
    if max_documents is not None:
        corpus = corpus[:max_documents]
    counts, dropped = aligned_counts(corpus, np.asarray(vocabulary))
    if dropped:
        print(f"{dropped} tokens of words unknown to the model dropped", file=sys.stderr)
    return corpus, counts, dropped


def recorded_pipeline(model_path) -> TextPipeline | None:
    """The text pipeline the model file ``model_path`` records (`corpus.pipeline`), for
    commands that read its topics without an estimator; None for a file without one (a plain
    ``.npz``, a model fitted on a bare matrix)."""
    if is_topics_only(model_path):
        return None
    record = load_model(model_path)[1].get("text_pipeline")
    try:
        return None if record is None else TextPipeline.from_dict(record)
    except (KeyError, TypeError, ValueError) as error:
        raise ModelFileError(f"{model_path}: malformed text pipeline ({error})") from None


def add_json_flag(parser) -> None:
    parser.add_argument("--json", action="store_true", help="print a JSON result on stdout")


def emit(args, result: dict, human: str) -> None:
    """Print ``result`` as JSON when ``--json`` was given, else the human text. Non-finite
    numbers become null and ``non_finite`` lists them (strict JSON, as ``jq`` expects)."""
    if getattr(args, "json", False):
        nulled: list[str] = []
        result = finite_json(result, nulled=nulled)
        if nulled:
            result["non_finite"] = {"fields": nulled[:20],
                                    "reason": result.get("non_finite_reason",
                                                         "the value is infinite or not a number")}
        json.dump(result, sys.stdout, indent=2, sort_keys=True, default=float, allow_nan=False)
        sys.stdout.write("\n")
    else:
        print(human)


def progress(total=None, desc: str = "", unit: str = "doc", disable: bool | None = None):
    """A tqdm bar on stderr; hidden automatically when it would last under a second."""
    return tqdm(total=total, desc=desc, unit=unit, file=sys.stderr, mininterval=0.5,
                delay=1.0, disable=disable, dynamic_ncols=True)


def report_reading(report) -> None:
    """Tell the user on stderr what a reader kept and skipped (nothing is dropped silently)."""
    if report is not None:
        print(report.summary(), file=sys.stderr)


def spread_rows(n_documents: int, n_rows: int) -> np.ndarray:
    """``n_rows`` < ``n_documents`` row numbers spread evenly from the first document to the
    last (a newest-first or oldest-first file is seen whole, not its head)."""
    return np.unique(np.linspace(0, n_documents - 1, n_rows).round().astype(np.int64))


def raw_texts(args, read) -> list[str | None] | None:
    """Each document of ``read`` (read from raw text: its metadata's ``orig_id`` is where it
    came from) by its raw text, read again from ``args.corpus``; None for a corpus directory
    or docword file, which keep no raw text."""
    if not is_raw_text_file(args.corpus, None):
        return None
    options = {name: value for name, value in text_options(args).items() if name != "time_field"}
    wanted = {meta.get("orig_id") for meta in read.metadata or []}
    found = {document.source_id: document.text
             for document in iter_raw_documents(args.corpus, **options)
             if document.source_id in wanted}
    return [found.get(meta.get("orig_id")) for meta in read.metadata or [{}] * read.n_documents]


def doc_topic_of(model, beta, alpha, counts) -> np.ndarray:
    """Topic proportions of the corpus' documents by the model's own estimator, or CVB0 with
    the topics fixed for a plain archive of beta and alpha."""
    if model is not None:
        return model.transform(counts)
    return predict_cvb0(beta, alpha, counts)
