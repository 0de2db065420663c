"""`streamtopics topics MODEL [-n 10]`: the most probable words of each topic of a model file."""

from __future__ import annotations

import numpy as np

from ..estimators.base import TopicModelEstimator
from ..persistence import load_topic_parameters
from .common import add_json_flag, default_of, emit, positive_int


def register(subparsers) -> None:
    parser = subparsers.add_parser("topics", help="show the top words of each topic of a model",
                                   description="Print the most probable words of every topic "
                                               "of a model file (any method), with alpha_k.")
    parser.add_argument("model", metavar="MODEL", help="model file")
    parser.add_argument("-n", "--words", type=positive_int,
                        default=default_of(TopicModelEstimator.top_words, "n"),
                        help="words per topic (default: %(default)s)")
    add_json_flag(parser)
    parser.set_defaults(run=run)


def run(args) -> int:
    beta, alpha, vocabulary = load_topic_parameters(args.model)
    if vocabulary is None:
        vocabulary = np.array([f"w{i}" for i in range(beta.shape[1])])
    n = max(1, min(args.words, beta.shape[1]))
    order = np.argsort(-beta, axis=1, kind="stable")[:, :n]
    topics = [{"topic": k, "alpha": float(alpha[k]),
               "words": [str(vocabulary[w]) for w in order[k]],
               "probabilities": [float(beta[k, w]) for w in order[k]]} for k in range(beta.shape[0])]
    width = len(str(beta.shape[0] - 1))
    human = "\n".join(f"{t['topic']:>{width}}  alpha={t['alpha']:.3g}  {' '.join(t['words'])}"
                      for t in topics)
    emit(args, {"model": str(args.model), "n_topics": beta.shape[0], "topics": topics}, human)
    return 0
