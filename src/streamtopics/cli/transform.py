"""`streamtopics transform MODEL DOCS`: document-topic proportions of new documents.

DOCS is a corpus directory (``--split``, default test), a bag-of-words file or raw text (mapped
onto the model's vocabulary, tokenised as the model's training corpus was when its file records
how: `corpus.pipeline`; unknown words are dropped and counted). Uses the model's own local
estimator with the model fixed (`OnlineLDA.transform`). ``-o FILE`` writes every document's id,
dominant topic and proportions (all K, or the ``--top`` N largest) as CSV with a header, JSON
lines or ``.npz`` (`reporting.doc_topics`), each with the documents' own metadata fields (``id``,
``date``, ``time``, ...); ``.npy`` keeps the bare D x K matrix.
"""

from __future__ import annotations

import numpy as np

from ..corpus.corpus import document_fields, document_ids
from ..errors import InputError
from ..estimators import load_estimator
from ..persistence import atomic_write
from ..reporting.doc_topics import (FORMATS, OUTPUT_COLUMNS, output_format, ranked_topics,
                                    write_doc_topics)
from .common import (add_json_flag, add_text_options, add_threads_option, emit, existing_parent,
                     positive_int, read_onto_vocabulary)


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "transform", help="document-topic proportions of documents under a model",
        description="Infer the topic proportions of each document of DOCS with the model fixed.")
    parser.add_argument("model", metavar="MODEL", help="model file written by 'streamtopics fit'")
    parser.add_argument("documents", metavar="DOCS", help="corpus directory or input file")
    parser.add_argument("--split", default="test", help="split of a corpus directory (default: test)")
    parser.add_argument("--top", type=positive_int, default=None,
                        help="the N largest proportions per document (default: 3 on screen, "
                             "all K in the -o file)")
    parser.add_argument("-o", "--output", metavar="FILE",
                        help="write ids, dominant topic and proportions to FILE (.csv, .jsonl, "
                             ".npz; .npy: the bare D x K matrix)")
    parser.add_argument("--format", choices=FORMATS,
                        help="format of -o FILE (default: from its suffix)")
    add_text_options(parser)
    add_threads_option(parser)
    add_json_flag(parser)
    parser.set_defaults(run=run)


def run(args) -> int:
    path = None if args.output is None else existing_parent(args.output)
    bare = path is not None and args.format is None and path.suffix == ".npy"
    format = None if path is None or bare else output_format(path, args.format)
    model = load_estimator(args.model)
    corpus, counts, dropped = read_onto_vocabulary(args, args.documents, model.vocabulary_,
                                                   pipeline=model.text_pipeline_)
    if counts.shape[0] == 0:
        raise InputError("no documents to transform", args.documents)
    proportions = model.transform(counts)
    ids = document_ids(corpus)
    fields = document_fields(corpus, exclude=OUTPUT_COLUMNS)
    if bare:
        atomic_write(path, lambda handle: np.save(handle, proportions))
    elif path is not None:
        write_doc_topics(path, proportions, ids, format, args.top, fields)
    top = min(args.top or 3, proportions.shape[1])
    lines = [f"{document}\t" + "  ".join(f"topic {k}: {row[k]:.3f}" for k in best)
             for document, row, best in zip(ids, proportions, ranked_topics(proportions, top))]
    emit(args, {"model": str(args.model), "documents": int(proportions.shape[0]),
                "topic_names": model.topic_names_,
                "tokens_dropped": dropped, "document_ids": ids, "document_fields": fields,
                "doc_topic": proportions.tolist()}, "\n".join(lines))
    return 0
