"""`streamtopics synth -o DIR`: a synthetic LDA corpus with known truth (Dupuy & Bach 2016,
section 5), streamed to a corpus directory plus ``truth.npz`` (beta K x V, alpha K, theta).

``--drift D --periods P``: a dated corpus whose topics and prevalences move over P yearly
periods (`corpus.synthetic.generate_drifting`, made in memory), its train split in time order
with a ``time`` column, and ``truth.npz`` with ``topic_word`` (P x K x V), ``alpha`` and
``prevalence`` (P x K), ``period`` and ``theta`` per document: planted data for
``streamtopics timeline``."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..atomic import atomic_write
from ..corpus.synthetic import generate_drifting
from ..corpus.writer import write_corpus_dir, write_synthetic_corpus
from ..errors import InputError
from .common import add_json_flag, default_of, emit, progress


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "synth", help="write a synthetic corpus with known topics",
        description="Draw K topics over V words from a Dirichlet, a Dirichlet(alpha) topic mix "
                    "per document and Poisson(mean length) tokens, and write a corpus directory "
                    "plus truth.npz (beta K x V, alpha K, theta, theta_test). Streams in chunks: "
                    "memory does not grow with -n.")
    parser.add_argument("-k", "--topics", type=int, default=_default("n_topics"),
                        help="number of topics K (default: %(default)s)")
    parser.add_argument("-V", "--words", type=int, default=_default("n_words"),
                        help="vocabulary size V (default: %(default)s)")
    parser.add_argument("-n", "--documents", type=int, default=_default("n_documents"),
                        help="training documents (default: %(default)s)")
    parser.add_argument("--test", type=int, default=5000, help="test documents (default: 5000)")
    parser.add_argument("--alpha", type=float, default=_default("alpha"),
                        help="symmetric Dirichlet prior of each document's topics (default: "
                             "%(default)s)")
    parser.add_argument("--topic-concentration", type=float,
                        default=_default("topic_concentration"),
                        help="symmetric Dirichlet parameter of the topics (default: %(default)s)")
    parser.add_argument("--mean-length", type=float, default=_default("mean_length"),
                        help="mean document length, Poisson (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")
    parser.add_argument("--drift", type=float, default=None, metavar="D",
                        help="dated corpus whose topics move D of the way (0 to 1) to other "
                             "topics over --periods yearly periods, prevalences moving too "
                             "(train split only; -n documents in all)")
    parser.add_argument("--periods", type=int, default=default_of(generate_drifting, "n_periods"),
                        help="--drift: number of yearly periods (default: %(default)s)")
    parser.add_argument("-o", "--output", required=True, metavar="DIR", help="corpus directory to write")
    add_json_flag(parser)
    parser.set_defaults(run=run)


def _default(name: str):
    """`write_synthetic_corpus`' default of ``name``, the option's."""
    return default_of(write_synthetic_corpus, name)


def run(args) -> int:
    for name, valid in (("-k", args.topics >= 1), ("-V", args.words >= 1), ("-n", args.documents >= 1),
                        ("--test", args.test >= 0), ("--alpha", args.alpha > 0),
                        ("--topic-concentration", args.topic_concentration > 0),
                        ("--mean-length", args.mean_length > 0)):
        if not valid:
            raise InputError(f"{name} is out of range")
    if args.drift is not None:
        return _drifting(args)
    with progress(total=args.documents + args.test, desc="synth") as bar:
        summary = write_synthetic_corpus(
            args.output, n_topics=args.topics, n_words=args.words, n_documents=args.documents,
            n_test=args.test, mean_length=args.mean_length, alpha=args.alpha,
            topic_concentration=args.topic_concentration, seed=args.seed, progress=bar.update)
    tokens = summary["n_tokens"]
    emit(args, summary, f"wrote {args.output}: {args.documents} train + {args.test} test documents, "
                        f"K={args.topics}, V={args.words}, {sum(tokens.values())} tokens; truth.npz")
    return 0


def _drifting(args) -> int:
    if not 0 <= args.drift <= 1 or not 1 <= args.periods <= args.documents:
        raise InputError("--drift must lie in [0, 1] and --periods in [1, -n]")
    corpus, truth = generate_drifting(
        n_topics=args.topics, n_words=args.words, n_periods=args.periods,
        documents_per_period=args.documents // args.periods, drift=args.drift,
        mean_length=args.mean_length, alpha_total=args.alpha * args.topics,
        topic_concentration=args.topic_concentration, seed=args.seed)
    output = write_corpus_dir(corpus, Path(args.output))
    arrays = {name: getattr(truth, name)
              for name in ("topic_word", "alpha", "prevalence", "period", "theta")}
    atomic_write(output / "truth.npz", lambda handle: np.savez(handle, **arrays,
                                                               vocabulary=corpus.vocabulary))
    summary = {"directory": str(output), "n_topics": args.topics, "n_words": args.words,
               "n_documents": corpus.n_documents, "n_periods": args.periods,
               "drift": args.drift, "n_tokens": {"train": corpus.n_tokens}, "seed": args.seed}
    emit(args, summary, f"wrote {output}: {corpus.n_documents} documents over {args.periods} "
                        f"years, K={args.topics}, V={args.words}, drift {args.drift}; truth.npz")
    return 0
