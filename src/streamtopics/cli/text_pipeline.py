"""The options of `preprocess` that shape the text pipeline (`corpus.pipeline`): a tokeniser of
the user's, extra stop words, phrases. A corpus directory records the outcome in
``pipeline.json``; models fitted on it keep it, and `transform` and `update` tokenise raw text
by it, so these options are given once, to `preprocess`."""

from __future__ import annotations

import argparse

from ..corpus.phrases import DEFAULT_MIN_COUNT, DEFAULT_THRESHOLD
from ..corpus.pipeline import TextPipeline
from .common import positive_int


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
