"""`streamtopics reviews CORPUS -k K`: the review-model comparison of Dupuy's thesis, section
2.2, on a corpus directory whose ``{split}.meta.jsonl`` carries each review's fields.

Text only gives LDA-0; ``--opinion-field F --positive VALUE`` (a binary score, e.g.
finefoods' ``label`` = ``great``) adds LDA-R; ``--rating-field`` with ``--user-field`` and
``--item-field`` runs the rating reduction and every model (LDA-0, -C, -U, -R, -R-C, -R-U).
"""

from __future__ import annotations

import numpy as np

from ..corpus.readers import read_corpus_dir
from ..errors import InputError
from ..reviews import ReviewSide, compare_review_models
from .common import add_json_flag, add_threads_option, default_of, emit


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "reviews", help="compare review models with ratings (thesis chapter 2)",
        description="Fit LDA-0 / LDA-C / LDA-U and the opinion models LDA-R / LDA-R-C / LDA-R-U "
                    "on the train split and report per-word log-perplexity of the test "
                    "reviews (lower is better) and the share of opinion words.")
    parser.add_argument("corpus", metavar="CORPUS", help="corpus directory (train and test "
                        "splits with meta.jsonl)")
    parser.add_argument("-k", "--topics", type=int, default=16, help="descriptive topics K")
    parser.add_argument("--user-field", help="meta.jsonl field holding the user id")
    parser.add_argument("--item-field", help="meta.jsonl field holding the item id")
    parser.add_argument("--rating-field", help="meta.jsonl field holding a numeric rating "
                        "(needs --user-field and --item-field: the rating reduction)")
    parser.add_argument("--opinion-field", help="meta.jsonl field holding a binary opinion")
    parser.add_argument("--positive", help="the --opinion-field value that means positive")
    parser.add_argument("--oracle", action="store_true", help="also score LDA-R told the test "
                        "reviews' opinions (an upper bound)")
    parser.add_argument("--passes", type=int,
                        default=default_of(compare_review_models, "n_passes"),
                        help="Gibbs sweeps of the LDA models (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=default_of(compare_review_models, "seed"),
                        help="random seed (default: %(default)s)")
    add_threads_option(parser)
    add_json_flag(parser)
    parser.set_defaults(run=run)


def _field(corpus, path: str, name: str, numeric: bool = False) -> np.ndarray:
    """The ``name`` field of every document's metadata; a clear error on the first review
    without it (file and line)."""
    values = []
    for line, meta in enumerate(corpus.metadata or [], start=1):
        if not isinstance(meta, dict) or meta.get(name) is None:
            raise InputError(f"review has no field {name!r}", path=path, line=line)
        value = meta[name]
        if numeric:
            try:
                value = float(value)
            except (TypeError, ValueError):
                raise InputError(f"field {name!r} is not a number: {value!r}",
                                 path=path, line=line) from None
        values.append(value if numeric else str(value))
    if not values:
        raise InputError(f"no metadata (meta.jsonl) to read {name!r} from", path=path)
    return np.asarray(values)


def _side(args, split: str) -> ReviewSide:
    corpus = read_corpus_dir(args.corpus, split)
    path = f"{args.corpus}/{split}.meta.jsonl"
    side = ReviewSide(corpus.counts)
    if args.user_field:
        side.users = _field(corpus, path, args.user_field)
    if args.item_field:
        side.items = _field(corpus, path, args.item_field)
    if args.rating_field:
        side.ratings = _field(corpus, path, args.rating_field, numeric=True)
    if args.opinion_field:
        side.opinions = np.where(_field(corpus, path, args.opinion_field) == args.positive,
                                 1, -1)
    return side, corpus.vocabulary


def run(args) -> int:
    if args.rating_field and not (args.user_field and args.item_field):
        raise InputError("--rating-field needs --user-field and --item-field (the rating "
                         "reduction fits user and item effects)")
    if bool(args.opinion_field) != bool(args.positive):
        raise InputError("--opinion-field and --positive go together")
    (train, vocabulary), (test, _) = _side(args, "train"), _side(args, "test")
    result = compare_review_models(train, test, args.topics, args.seed, args.passes,
                                   oracle_opinions=args.oracle)
    top = {sign: [str(vocabulary[w]) for w in ids]
           for sign, ids in result.opinion_top_words.items()}
    lines = [f"test reviews scored: {result.n_test_reviews}",
             "per-word log-perplexity (nats, lower is better):"]
    lines += [f"  {name:<13}{value:.4f}" for name, value in result.log_perplexity.items()]
    lines += [f"opinion share {name}: {value:.3f}" for name, value in
              result.opinion_share.items()]
    lines += [f"{sign} opinion topic: {' '.join(words)}" for sign, words in top.items()]
    emit(args, {"corpus": str(args.corpus), "n_topics": args.topics,
                "n_test_reviews": result.n_test_reviews,
                "log_perplexity": result.log_perplexity, "opinion_share": result.opinion_share,
                "opinion_top_words": top}, "\n".join(lines))
    return 0
