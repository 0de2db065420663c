"""`streamtopics preprocess INPUT -o CORPUS_DIR`: raw text to a corpus directory.

Tokenise, drop duplicates and stop words, prune the vocabulary, split into train and test
(`streamtopics.corpus.preprocess` describes each step), then write ``vocab.txt``,
``{train,test}.{docword.txt,tokens.jsonl,meta.jsonl}``, ``stats.json`` and ``pipeline.json``
(how the text was tokenised: `corpus.pipeline`, which models fitted on the directory keep). With
``--time-field``, each split is written in time order (unless ``--time-order`` says otherwise)
with the documents' times in the ``time`` column of its ``meta.jsonl`` (`corpus.time`).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from ..corpus.corpus import ReadReport
from ..corpus.pipeline import write_pipeline
from ..corpus.preprocess import DUPLICATE, EMPTY_AFTER, preprocess_documents, shuffle_split
from ..corpus.readers import TEXT_FORMATS, detect_format, iter_raw_documents
from ..corpus.time import TimeField, document_times, iso, sort_by_time
from ..corpus.writer import AtomicFile, write_corpus_dir
from ..errors import InputError
from .common import (add_json_flag, add_text_options, default_of, emit, progress,
                     report_reading, text_options)
from .text_pipeline import (add_pipeline_options, add_pruning_options, pipeline_options,
                            pipeline_parameters, pruning_options)


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "preprocess", help="tokenise raw text into a corpus directory",
        description="Tokenise raw text (one document per line, JSONL, CSV, or a directory of "
                    ".txt files; .gz accepted), drop duplicate documents and stop words, prune "
                    "the vocabulary (on all documents, before the split), split into train and "
                    "test, and write a corpus directory.")
    parser.add_argument("input", metavar="INPUT", help="raw text file or directory of .txt files")
    parser.add_argument("-o", "--output", required=True, metavar="CORPUS_DIR",
                        help="corpus directory to write")
    parser.add_argument("--format", choices=TEXT_FORMATS, default=None,
                        help="input format (default: from the name)")
    add_text_options(parser)
    parser.add_argument("--label-field", default=_default("label_field"),
                        help="field/column holding a label kept in meta.jsonl (default: "
                             "%(default)s)")
    add_pruning_options(parser)
    add_pipeline_options(parser)
    parser.add_argument("--test-size", type=float, default=default_of(shuffle_split, "test_size"),
                        help="fraction of documents in the test split (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=default_of(shuffle_split, "seed"),
                        help="seed of the split (default: %(default)s)")
    add_json_flag(parser)
    parser.set_defaults(run=run)


def _default(name: str):
    """`preprocess_documents`' default of ``name``, the option's."""
    return default_of(preprocess_documents, name)


def _documents_with_progress(documents):
    with progress(desc="reading", unit="doc") as bar:
        for document in documents:
            bar.update()
            yield document


def run(args) -> int:
    source = Path(args.input)
    fmt = args.format or detect_format(source)
    if fmt not in TEXT_FORMATS:
        raise InputError(f"preprocess reads raw text ({', '.join(TEXT_FORMATS)}); this looks "
                         f"like a {fmt} corpus, which is already a bag of words", source)
    pruning = pruning_options(args)
    if not 0 <= args.test_size < 1:
        raise InputError(f"--test-size {args.test_size} is out of range")
    report = ReadReport(source=str(source))
    documents = iter_raw_documents(source, fmt, report=report, **text_options(args))
    corpus = preprocess_documents(_documents_with_progress(documents), **pruning,
                                  label_field=args.label_field, report=report,
                                  **pipeline_options(args))
    train, test = shuffle_split(corpus, args.test_size, args.seed)
    if args.time_field is not None and args.time_order in (None, TimeField.order):
        train, test = sort_by_time(train), sort_by_time(test)
    if train.n_documents == 0:  # refused before anything is written
        raise InputError(f"the training split would be empty: {corpus.n_documents} document(s) "
                         f"left after preprocessing ({report.documents_read} read), "
                         f"{test.n_documents} for --test-size {args.test_size}; give more "
                         f"documents or a smaller --test-size", source)
    # The vocabulary is pruned on all documents before the split (as the shared corpora were
    # made, so they are reproduced exactly): words of the test split only are in it. Say so.
    test_only_words = int(np.count_nonzero(np.asarray(train.counts.sum(axis=0)).ravel() == 0))
    output = Path(args.output)
    write_corpus_dir(train, output, "train")
    if test.n_documents:
        write_corpus_dir(test, output, "test")
    write_pipeline(output, corpus.pipeline)
    stats = {
        "input": str(source), "output": str(output),
        "raw_docs": report.documents_read,
        "duplicates_dropped": report.documents_skipped.get(DUPLICATE, 0),
        "empty_dropped": report.documents_skipped.get(EMPTY_AFTER, 0),
        "D_train": train.n_documents, "D_test": test.n_documents, "V": corpus.n_words,
        "tokens_train": train.n_tokens, "tokens_test": test.n_tokens,
        "vocabulary_from": "all documents (train and test), before the split",
        "words_without_training_occurrence": test_only_words,
        "parameters": {"stopwords": args.stopwords or "bundled", "max_df": args.max_df,
                       "min_count": args.min_count, "max_vocab": args.max_vocab,
                       "test_size": args.test_size, "seed": args.seed,
                       **pipeline_parameters(args, corpus.pipeline)},
        "report": report.as_dict(),
    }
    times = document_times(corpus)
    if times is not None:
        stats["time"] = {"field": args.time_field, "first": iso(times.min()),
                         "last": iso(times.max())}
    with AtomicFile(output / "stats.json") as out:
        out.write((json.dumps(stats, indent=2) + "\n").encode())
    report_reading(report)
    emit(args, stats, f"wrote {output}: {train.n_documents} train + {test.n_documents} test "
                      f"documents, {corpus.n_words} words, {train.n_tokens + test.n_tokens} tokens"
                      f"\nnote: the vocabulary was built from all documents before the split "
                      f"(train and test), as the shared corpora were; {test_only_words} of its "
                      f"words never occur in the training split")
    return 0
