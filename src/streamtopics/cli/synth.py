"""`streamtopics synth -o DIR`: a synthetic LDA corpus with known truth (Dupuy & Bach 2016,
section 5), streamed to a corpus directory plus ``truth.npz`` (beta K x V, alpha K, theta)."""

from __future__ import annotations

from ..corpus.writer import write_synthetic_corpus
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
    with progress(total=args.documents + args.test, desc="synth") as bar:
        summary = write_synthetic_corpus(
            args.output, n_topics=args.topics, n_words=args.words, n_documents=args.documents,
            n_test=args.test, mean_length=args.mean_length, alpha=args.alpha,
            topic_concentration=args.topic_concentration, seed=args.seed, progress=bar.update)
    tokens = summary["n_tokens"]
    emit(args, summary, f"wrote {args.output}: {args.documents} train + {args.test} test documents, "
                        f"K={args.topics}, V={args.words}, {sum(tokens.values())} tokens; truth.npz")
    return 0
