"""The options of `preprocess` that shape the text pipeline (`corpus.pipeline`): a tokeniser of
the user's, extra stop words, phrases. A corpus directory records the outcome in
``pipeline.json``; models fitted on it keep it, and `transform` and `update` tokenise raw text
by it, so these options are given once, to `preprocess`. The vocabulary's pruning options
(``--stopwords``, ``--max-df``, ``--min-count``, ``--max-vocab``) are also `timeline`'s, which
preprocesses raw text itself."""

from __future__ import annotations

import argparse

from ..corpus.phrases import DEFAULT_MIN_COUNT, DEFAULT_THRESHOLD
from ..corpus.pipeline import TextPipeline
from ..corpus.preprocess import preprocess_documents
from ..errors import InputError
from .common import default_of, positive_int


def add_pruning_options(parser) -> None:
    """``--stopwords``, ``--max-df``, ``--min-count`` and ``--max-vocab``, at the defaults of
    `preprocess_documents`; read back, checked, by `pruning_options`."""
    parser.add_argument("--stopwords", metavar="FILE", default=None,
                        help="stop-word file, one per line, replacing the bundled English list")
    parser.add_argument("--max-df", type=float, default=_pruning_default("max_df"),
                        help="drop words in more than this fraction of documents (default: "
                             "%(default)s)")
    parser.add_argument("--min-count", type=int, default=_pruning_default("min_count"),
                        help="drop words with fewer occurrences (default: %(default)s)")
    parser.add_argument("--max-vocab", type=int, default=_pruning_default("max_vocab"),
                        help="keep at most this many most frequent words (default: %(default)s)")


def _pruning_default(name: str):
    return default_of(preprocess_documents, name)


def pruning_options(args) -> dict:
    """The keyword arguments of `preprocess_documents` / `load_corpus` that
    `add_pruning_options` set, each checked to be in range (`InputError` naming the option)."""
    for name, value, valid in (("--max-df", args.max_df, 0 < args.max_df <= 1),
                               ("--min-count", args.min_count, args.min_count >= 1),
                               ("--max-vocab", args.max_vocab, args.max_vocab >= 1)):
        if not valid:
            raise InputError(f"{name} {value} is out of range")
    return {"stopwords": args.stopwords, "max_df": args.max_df, "min_count": args.min_count,
            "max_vocab": args.max_vocab}


def _threshold(text: str) -> float:
    """An argparse type: an NPMI threshold in [-1, 1)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a threshold: give one (--phrases 0.5) or put --phrases after "
            f"INPUT") from None
    if not -1 <= value < 1:
        raise argparse.ArgumentTypeError(f"{text}: an NPMI threshold lies in [-1, 1)")
    return value


def add_pipeline_options(parser) -> None:
    """``--extra-stopwords``, ``--tokenizer``, ``--phrases`` and ``--phrase-min-count``."""
    parser.add_argument("--extra-stopwords", metavar="FILE", default=None,
                        help="more stop words, one per line, removed beside the list in use "
                             "(the bundled one, or --stopwords)")
    parser.add_argument("--tokenizer", metavar="MODULE:FUNCTION", default=None,
                        help="a function from a document's text to its list of tokens, in place "
                             "of the built-in tokeniser; its tokens are then lowercased and "
                             "NFKC-normalised. MODULE is imported from the installed packages "
                             "or the current directory (default: runs of letters)")
    parser.add_argument("--phrases", metavar="THRESHOLD", nargs="?", type=_threshold,
                        const=DEFAULT_THRESHOLD, default=None,
                        help=f"join word pairs that occur together far above chance into one "
                             f"token (new_york): pairs of adjacent content words whose NPMI "
                             f"exceeds THRESHOLD (default {DEFAULT_THRESHOLD}; gensim's "
                             f"Phrases with scoring='npmi')")
    parser.add_argument("--phrase-min-count", type=positive_int, default=DEFAULT_MIN_COUNT,
                        metavar="N", help="with --phrases: occurrences a pair needs (default: "
                                          "%(default)s)")


def pipeline_options(args) -> dict:
    """`preprocess_documents`' keyword arguments of the options."""
    return {"tokenizer": args.tokenizer, "extra_stopwords": args.extra_stopwords,
            "phrases": args.phrases, "phrase_min_count": args.phrase_min_count}


def pipeline_parameters(args, pipeline: TextPipeline) -> dict:
    """The options as ``stats.json`` lists them, with what the pipeline learnt."""
    return {"tokenizer": args.tokenizer or "built-in", "extra_stopwords": args.extra_stopwords,
            "phrases": args.phrases, "phrase_min_count": args.phrase_min_count,
            "phrases_learnt": 0 if pipeline.phrases is None else len(pipeline.phrases.bigrams),
            "frequent_words_removed": len(pipeline.frequent)}
