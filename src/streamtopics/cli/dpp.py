"""`streamtopics fit-dpp RAW -o MODEL` and `streamtopics summarize MODEL RAW -l 5`.

The low-rank DPP over sentences of the thesis' chapter 4: documents are split into sentences, each
sentence becomes the set of its words among the V most frequent, and a DPP on {0,1}^V is learned
(`streamtopics.dpp.LowRankDPP`). `summarize` picks l sentences per document by greedy MAP.
"""

from __future__ import annotations

import sys

import numpy as np

from ..corpus.corpus import ReadReport
from ..corpus.pipeline import load_stopwords
from ..corpus.readers import TEXT_FORMATS, iter_raw_documents
from ..dpp.likelihood import evaluate
from ..dpp.model import OPTIMIZERS, LowRankDPP
from ..dpp.summaries import marked_text
from ..dpp.text import SentencePreprocessor
from ..errors import InputError
from .common import (add_json_flag, add_text_options, default_of, emit, positive_int, progress,
                     text_options)


def _dpp(name: str):
    """`LowRankDPP`'s default of ``name``, the option's."""
    return default_of(LowRankDPP, name)


def _add_input(parser) -> None:
    parser.add_argument("--format", choices=TEXT_FORMATS, default=None,
                        help="input format (default: from the file name)")
    add_text_options(parser)


def register(subparsers) -> None:
    fit = subparsers.add_parser(
        "fit-dpp", help="learn a low-rank DPP over sentences (thesis ch. 4)",
        description="Split raw documents into sentences, keep the V most frequent words and learn "
                    "the low-rank DPP L = Diag(p)^1/2 S (gamma I + U Diag(theta) U^T) S^T "
                    "Diag(p)^1/2 by alternating L-BFGS (Dupuy 2017, chapter 4).")
    fit.add_argument("raw", metavar="RAW", help="raw documents (jsonl, text, csv; .gz allowed)")
    fit.add_argument("-o", "--output", required=True, help="model file to write")
    _add_input(fit)
    fit.add_argument("--vocab-size", type=int, default=default_of(SentencePreprocessor, "n_words"),
                     help="V, words kept (default: %(default)s)")
    fit.add_argument("--rank", type=int, default=_dpp("rank"),
                     help="r, columns of U (default: %(default)s)")
    fit.add_argument("--penalty", type=float, default=_dpp("penalty"),
                     help="lambda (default: %(default)s)")
    fit.add_argument("--max-outer", type=int, default=_dpp("max_outer"),
                     help="U/theta alternations (default: %(default)s)")
    fit.add_argument("--inner-iter", type=int, default=_dpp("inner_iter"),
                     help="L-BFGS iterations per step (default: %(default)s)")
    fit.add_argument("--optimizer", choices=OPTIMIZERS, default=_dpp("optimizer"),
                     help="U step (default: %(default)s)")
    fit.add_argument("--test-size", type=float, default=0.1,
                     help="fraction of documents held out for the log-likelihood report (default: 0.1)")
    fit.add_argument("--stopwords", default=None, help="stop-word file (default: the bundled list)")
    fit.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")
    add_json_flag(fit)
    fit.set_defaults(run=run_fit)

    summarize = subparsers.add_parser(
        "summarize", help="extract a diverse summary of each document with a DPP model",
        description="Print each document with the l sentences of its greedy-MAP DPP summary "
                    "between [[ and ]].")
    summarize.add_argument("model", metavar="MODEL", help="model file written by fit-dpp")
    summarize.add_argument("raw", metavar="RAW", help="raw documents")
    _add_input(summarize)
    summarize.add_argument("-l", "--sentences", type=positive_int,
                           default=default_of(LowRankDPP.summarize, "n_sentences"),
                           help="summary length (default: %(default)s)")
    summarize.add_argument("--limit", type=int, default=None, help="summarise only the first N documents")
    summarize.add_argument("--no-quality", action="store_true",
                           help="leave the sentence masses p(x) out of L (diversity only)")
    add_json_flag(summarize)
    summarize.set_defaults(run=run_summarize)


def _read(args, limit=None) -> tuple[list[str], list, ReadReport]:
    report = ReadReport(source=str(args.raw))
    texts, ids = [], []
    for document in iter_raw_documents(args.raw, format=args.format, report=report,
                                       **text_options(args)):
        texts.append(document.text)
        ids.append(document.source_id)
        if limit is not None and len(texts) >= limit:
            break
    return texts, ids, report


def run_fit(args) -> int:
    if not 0 <= args.test_size < 1:
        raise InputError(f"--test-size must be in [0, 1), got {args.test_size}")
    texts, ids, report = _read(args)
    stopwords = load_stopwords(args.stopwords)
    preprocessor = SentencePreprocessor(args.vocab_size, stopwords).fit(texts)
    documents = preprocessor.transform(texts, ids)
    if len(documents) < 2:
        raise InputError(f"only {len(documents)} documents have 2 or more distinct sentences", args.raw)
    order = np.random.default_rng(args.seed).permutation(len(documents))
    n_test = int(round(args.test_size * len(documents)))
    test = [documents[i].rows for i in order[:n_test]]
    train = [documents[i].rows for i in order[n_test:]]
    model = LowRankDPP(rank=args.rank, penalty=args.penalty, max_outer=args.max_outer,
                       inner_iter=args.inner_iter, optimizer=args.optimizer,
                       init_scale=1.0 / np.sqrt(args.rank), random_state=args.seed,
                       progress=sys.stderr.isatty())
    model.fit(train, len(preprocessor.vocabulary_))
    model.vocabulary_, model.stopwords_ = preprocessor.vocabulary_, stopwords
    model.save(args.output)
    result = {"model": str(args.output), "documents_read": report.documents_read,
              "documents": len(documents), "train": len(train),
              "test": n_test, "vocabulary": len(preprocessor.vocabulary_), "rank": args.rank,
              "sentences_per_document": float(np.mean([len(d.rows) for d in documents])),
              "train_log_likelihood": model.trace_.log_likelihood[-1]}
    if test:
        obs = model.observations(test)
        zero = evaluate(obs, np.zeros((model.n_words_, 1)), np.zeros((1, 1)), gradients=False)
        result["test_log_likelihood"] = float(model.log_likelihood(test).mean())
        result["test_log_likelihood_gamma_identity"] = float(zero.per_set.mean())
    human = "\n".join(f"{key}: {value:.4f}" if isinstance(value, float) else f"{key}: {value}"
                      for key, value in result.items())
    emit(args, result, human)
    return 0


def run_summarize(args) -> int:
    model = LowRankDPP.load(args.model)
    if model.vocabulary_ is None or model.ground != "binary":
        raise InputError("not a sentence model (no vocabulary): write it with fit-dpp", args.model)
    preprocessor = SentencePreprocessor.from_vocabulary(model.vocabulary_, model.stopwords_ or frozenset())
    texts, ids, _ = _read(args, args.limit)
    results, lines, skipped = [], [], 0
    bar = progress(len(texts), desc="summarize")
    for text, source in zip(texts, ids):
        bar.update()
        document = preprocessor.document(text, source)
        if document is None:
            skipped += 1
            continue
        chosen = model.summarize(document.rows, args.sentences, quality=not args.no_quality)
        sentences = [document.sentences[i] for i in document.kept[chosen]]
        results.append({"id": source, "summary": sentences,
                        "positions": [int(i) for i in document.kept[chosen]]})
        lines.append(f"# {source}\n{marked_text(document, chosen)}\n")
    bar.close()
    if skipped:
        print(f"{skipped} documents with fewer than 2 distinct sentences left unsummarised",
              file=sys.stderr)
    emit(args, {"documents": results, "skipped": skipped}, "\n".join(lines))
    return 0
