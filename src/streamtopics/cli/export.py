"""``streamtopics export MODEL -o OUT``: a model in a form other tools read.

``--format npz`` (the default): ``beta`` (K x V, rows sum to 1), ``alpha`` (K) and, when known,
``vocabulary`` (a string array): no streamtopics metadata, so gensim, R or MATLAB users can
load it directly. ``--format pyldavis --corpus CORPUS``: the arguments of ``pyLDAvis.prepare``
as one JSON object (`streamtopics.interop.to_pyldavis`), the documents' proportions from the
model's own ``transform``: ``pyLDAvis.prepare(**json.load(open(OUT)))``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from ..corpus.readers import load_corpus
from ..errors import InputError
from ..estimators import load_estimator
from ..interop.pyldavis import to_pyldavis, write_pyldavis_json
from ..persistence import atomic_write, load_topic_parameters
from .common import (add_json_flag, add_text_options, emit, existing_parent, report_reading,
                     text_options)

FORMATS = ("npz", "pyldavis")


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "export", help="write a model as plain arrays (.npz) or pyLDAvis input (.json)",
        description="Write beta (K x V, rows sum to 1), alpha (K) and the vocabulary as plain "
                    "arrays in an .npz file that any tool can read with numpy.load, or "
                    "(--format pyldavis --corpus CORPUS) the arguments of pyLDAvis.prepare "
                    "as JSON.")
    parser.add_argument("model", help="a streamtopics model file")
    parser.add_argument("-o", "--output", required=True, help="output path")
    parser.add_argument("--format", choices=FORMATS, default="npz",
                        help="npz (default) or pyldavis (JSON, needs --corpus)")
    parser.add_argument("--corpus", help="pyldavis: the documents (corpus directory or input file)")
    parser.add_argument("--split", default="train", help="split of a corpus directory (default: train)")
    add_text_options(parser)
    add_json_flag(parser)
    parser.set_defaults(run=run)


def run(args) -> int:
    output = existing_parent(args.output)
    if args.format == "pyldavis":
        return _pyldavis(args, output)
    if args.corpus is not None:
        raise InputError("--corpus is only used with --format pyldavis")
    beta, alpha, vocabulary = load_topic_parameters(args.model)
    arrays = {"beta": beta, "alpha": alpha}
    if vocabulary is not None:
        arrays["vocabulary"] = np.asarray(vocabulary, dtype=str)
    atomic_write(output, lambda handle: np.savez(handle, **arrays))
    n_topics, n_words = beta.shape
    emit(args, {"output": str(output), "n_topics": n_topics, "n_words": n_words},
         f"wrote {output}: beta {n_topics} x {n_words}, alpha {n_topics}")
    return 0


def _pyldavis(args, output: Path) -> int:
    if args.corpus is None:
        raise InputError("--format pyldavis needs --corpus CORPUS (document lengths, term "
                         "frequencies and topic proportions come from it)")
    model = load_estimator(args.model)
    corpus = load_corpus(args.corpus, vocabulary=list(model.vocabulary_), split=args.split,
                         tokenizer=model.text_pipeline_, **text_options(args))
    report_reading(corpus.report)
    arguments = to_pyldavis(model, corpus)
    dropped = corpus.n_tokens - int(arguments["doc_lengths"].sum())
    if dropped:
        print(f"{dropped} tokens of words unknown to the model dropped", file=sys.stderr)
    write_pyldavis_json(output, arguments)
    n_documents, n_topics = arguments["doc_topic_dists"].shape
    emit(args, {"output": str(output), "n_topics": n_topics, "n_documents": n_documents,
                "n_words": len(arguments["vocab"])},
         f"wrote {output}: pyLDAvis.prepare arguments, {n_topics} topics, {n_documents} documents")
    return 0
