"""`streamtopics report MODEL [CORPUS] -o report.html`: one self-contained HTML page about a model.

See `streamtopics.reporting.html` for what the page shows. With CORPUS (a corpus directory, its
``--split``, default train, or any input `load_corpus` reads, mapped onto the model's
vocabulary) the page adds coherence, prevalence by tokens and example documents; the documents'
topic proportions come from the model's own ``transform`` (a plain ``.npz`` of beta and alpha:
CVB0 with the topics fixed). ``MODEL.eval.jsonl``, written by ``fit --eval-every``, gives the
training curve when it exists. With ``--period`` and a dated CORPUS (``--time-field``, or a
corpus directory with a time column) the page adds the timeline section of
`streamtopics.timeline` over all of CORPUS's documents.
"""

from __future__ import annotations

import sys

from dataclasses import replace
from pathlib import Path

import numpy as np

from ..corpus.corpus import Corpus
from ..corpus.time import CALENDAR_PERIODS
from ..errors import InputError, ModelFileError
from ..estimators import load_estimator
from ..persistence import load_named_topics
from ..reporting.html import build_report, read_training_curve, write_report
from ..timeline import topics_over_time
from ..timeline.outputs import timeline_section
from .common import (add_json_flag, add_text_options, add_threads_option, default_of, emit,
                     doc_topic_of, existing_parent, period_spec, positive_int, raw_texts,
                     read_onto_vocabulary, spread_rows)


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "report", help="write a self-contained HTML page about a model",
        description="Write one HTML file (no network needed to open it) with each topic's top "
                    "words, alpha and prevalence, a 2-D similarity map of the topics, NPMI and "
                    "UMass coherence and example documents from CORPUS, and the training curve "
                    "of MODEL.eval.jsonl when present.")
    parser.add_argument("model", metavar="MODEL", help="model file (or a plain .npz with beta and alpha)")
    parser.add_argument("corpus", metavar="CORPUS", nargs="?",
                        help="corpus directory or input file for coherence and example documents")
    parser.add_argument("-o", "--output", required=True, help="output .html path")
    parser.add_argument("--split", default="train", help="split of a corpus directory (default: train)")
    parser.add_argument("--words", type=positive_int, default=default_of(build_report, "n_words"),
                        help="top words per topic (default: %(default)s)")
    parser.add_argument("--examples", type=positive_int,
                        default=default_of(build_report, "n_examples"),
                        help="example documents per topic (default: %(default)s)")
    parser.add_argument("--max-docs", type=positive_int, default=5000,
                        help="coherence and examples from N documents of CORPUS spread evenly "
                             "over it, from its first to its last, when it has more (said on "
                             "stderr) (default: 5000)")
    parser.add_argument("--curve", metavar="JSONL",
                        help="training curve (default: MODEL.eval.jsonl when it exists)")
    parser.add_argument("--title", help="page title (default: the model file's name)")
    parser.add_argument("--period", type=period_spec, default=None, metavar="PERIOD",
                        help=f"add the topics through time of a dated CORPUS, over all its "
                             f"documents: {'|'.join(CALENDAR_PERIODS)} or N equal-count periods")
    add_text_options(parser)
    add_threads_option(parser)
    add_json_flag(parser)
    parser.set_defaults(run=run)


def run(args) -> int:
    output = existing_parent(args.output)
    beta, alpha, vocabulary, names = load_named_topics(args.model)
    try:
        model = load_estimator(args.model)
    except ModelFileError:  # a plain .npz (already checked by load_named_topics)
        model = None
    if vocabulary is None:
        vocabulary = np.asarray([f"w{i}" for i in range(beta.shape[1])], dtype=str)
    facts = {"model": Path(args.model).name,
             "estimator": type(model).__name__ if model is not None else "plain beta/alpha",
             "topics": str(beta.shape[0]), "words": str(beta.shape[1])}
    method = getattr(model, "method_", None)
    if method is not None:
        facts["method"] = method.name
    corpus = doc_topic = texts = None
    sections = ()
    if args.period is not None and (args.corpus is None or model is None):
        raise InputError("--period needs a fitted model file and a dated CORPUS")
    if args.corpus is not None:
        read, counts, _ = read_onto_vocabulary(args, args.corpus, vocabulary, None,
                                               getattr(model, "text_pipeline_", None))
        if args.period is not None:
            sections = (timeline_section(topics_over_time(model, read, args.period)),)
        if read.n_documents > args.max_docs:
            rows = spread_rows(read.n_documents, args.max_docs)
            print(f"report: coherence and examples from {args.max_docs:,} of the "
                  f"{read.n_documents:,} documents, spread evenly from the first to the last "
                  f"(--max-docs)", file=sys.stderr)
            read, counts = read[rows], counts[rows]
        if counts.shape[0] == 0 or counts.nnz == 0:
            raise InputError("no document with a word of the model's vocabulary", args.corpus)
        same = np.array_equal(read.vocabulary, vocabulary)
        corpus = Corpus(counts, vocabulary, tokens=read.tokens if same else None,
                        metadata=read.metadata)
        texts = raw_texts(args, read)
        doc_topic = doc_topic_of(model, beta, alpha, counts)
        facts["corpus"] = f"{Path(args.corpus).name} ({corpus.n_documents} documents)"
    curve_path = Path(args.curve) if args.curve else Path(f"{args.model}.eval.jsonl")
    if args.curve and not curve_path.is_file():
        raise InputError("no such training curve file", curve_path)
    curve = read_training_curve(curve_path) if curve_path.is_file() else []
    report = build_report(beta, alpha, vocabulary, corpus=corpus, doc_topic=doc_topic,
                          curve=curve, n_words=args.words, n_examples=args.examples,
                          title=args.title or f"streamtopics report: {Path(args.model).name}",
                          facts=facts, texts=texts,
                          topic_names=names)
    write_report(output, replace(report, sections=sections))
    emit(args, {"output": str(output), "n_topics": len(report.topics),
                "coherence": corpus is not None, "curve_points": len(curve),
                **({"timeline": True} if sections else {})},
         f"wrote {output}: {len(report.topics)} topics"
         + (f", coherence and examples from {corpus.n_documents} documents" if corpus else "")
         + (f", training curve of {len(curve)} points" if curve else ""))
    return 0
