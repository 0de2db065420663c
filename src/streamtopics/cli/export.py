"""``streamtopics export MODEL -o OUT.npz``: plain arrays any other tool can read.

The output holds ``beta`` (K x V, rows sum to 1), ``alpha`` (K) and, when known, ``vocabulary``
(a string array): no streamtopics metadata, so gensim, R or MATLAB users can load it directly.
"""

from __future__ import annotations

import numpy as np

from ..persistence import atomic_write, load_topic_parameters
from .common import add_json_flag, emit


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "export", help="write a model's beta (K x V) and alpha (K) as a plain .npz",
        description="Write beta (K x V, rows sum to 1), alpha (K) and the vocabulary as plain "
                    "arrays in an .npz file that any tool can read with numpy.load.")
    parser.add_argument("model", help="a streamtopics model file")
    parser.add_argument("-o", "--output", required=True, help="output .npz path")
    add_json_flag(parser)
    parser.set_defaults(run=run)


def run(args) -> int:
    beta, alpha, vocabulary = load_topic_parameters(args.model)
    arrays = {"beta": beta, "alpha": alpha}
    if vocabulary is not None:
        arrays["vocabulary"] = np.asarray(vocabulary, dtype=str)
    atomic_write(args.output, lambda handle: np.savez(handle, **arrays))
    n_topics, n_words = beta.shape
    emit(args, {"output": str(args.output), "n_topics": n_topics, "n_words": n_words},
         f"wrote {args.output}: beta {n_topics} x {n_words}, alpha {n_topics}")
    return 0
