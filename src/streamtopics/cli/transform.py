"""`streamtopics transform MODEL DOCS`: document-topic proportions of new documents.

DOCS is a corpus directory (``--split``, default test), a bag-of-words file or raw text (mapped
onto the model's vocabulary; unknown words are dropped and counted). Uses the model's own local
estimator with the model fixed (`OnlineLDA.transform`).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from ..corpus.corpus import aligned_counts
from ..corpus.readers import load_corpus
from ..errors import InputError
from ..estimators import load_estimator
from ..persistence import atomic_write
from .common import add_json_flag, emit, report_reading


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "transform", help="document-topic proportions of documents under a model",
        description="Infer the topic proportions of each document of DOCS with the model fixed.")
    parser.add_argument("model", metavar="MODEL", help="model file written by 'streamtopics fit'")
    parser.add_argument("documents", metavar="DOCS", help="corpus directory or input file")
    parser.add_argument("--split", default="test", help="split of a corpus directory (default: test)")
    parser.add_argument("--top", type=int, default=3, help="topics shown per document (default: 3)")
    parser.add_argument("-o", "--output", metavar="FILE",
                        help="also write the D x K proportions to FILE (.npy or .csv)")
    add_json_flag(parser)
    parser.set_defaults(run=run)


def run(args) -> int:
    model = load_estimator(args.model)
    corpus = load_corpus(args.documents, vocabulary=list(model.vocabulary_), split=args.split)
    report_reading(corpus.report)
    counts, dropped = aligned_counts(corpus, np.asarray(model.vocabulary_))
    if dropped:
        print(f"{dropped} tokens of words unknown to the model dropped", file=sys.stderr)
    if counts.shape[0] == 0:
        raise InputError("no documents to transform", args.documents)
    proportions = model.transform(counts)
    if args.output:
        path = Path(args.output)
        if path.suffix == ".npy":
            atomic_write(path, lambda handle: np.save(handle, proportions))
        elif path.suffix == ".csv":
            atomic_write(path, lambda handle: np.savetxt(handle, proportions, delimiter=",", fmt="%.6g"))
        else:
            raise InputError("--output must end in .npy or .csv", path)
    top = max(1, min(args.top, proportions.shape[1]))
    lines = []
    for d, row in enumerate(proportions):
        best = np.argsort(-row, kind="stable")[:top]
        lines.append(f"{d}\t" + "  ".join(f"topic {k}: {row[k]:.3f}" for k in best))
    emit(args, {"model": str(args.model), "documents": int(proportions.shape[0]),
                "tokens_dropped": dropped, "doc_topic": proportions.tolist()}, "\n".join(lines))
    return 0
