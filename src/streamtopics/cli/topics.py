"""`streamtopics topics MODEL [CORPUS] [-n 10] [--docs N]`: the most probable words of each topic
of a model file with its name, the topics' diversity, and with CORPUS each topic's coherence
(c_v, NPMI, UMass) on it and, with ``--docs N``, its N representative documents (the largest
proportions of it: id, fields and a snippet of raw text, `reporting.examples`)."""

from __future__ import annotations

import sys

import numpy as np

from ..corpus.corpus import Corpus
from ..errors import InputError, ModelFileError
from ..estimators import load_estimator
from ..estimators.base import TopicModelEstimator
from ..evaluation import cv_coherence, npmi_coherence, topic_diversity, umass_coherence
from ..persistence import load_named_topics
from ..reporting.examples import representative_documents
from .common import (add_json_flag, add_text_options, default_of, doc_topic_of, emit,
                     positive_int, raw_texts, read_onto_vocabulary, recorded_pipeline,
                     spread_rows)

COHERENCES = {"cv": cv_coherence, "npmi": npmi_coherence, "umass": umass_coherence}


def register(subparsers) -> None:
    parser = subparsers.add_parser("topics", help="show the top words of each topic of a model",
                                   description="Print the most probable words of every topic "
                                               "of a model file (any method), with alpha_k, "
                                               "the topics' diversity (unique share of the "
                                               "top 25 words, Dieng et al. 2020) and, given "
                                               "CORPUS as reference, each topic's c_v "
                                               "(Röder et al. 2015, as gensim), NPMI and UMass "
                                               "coherence of its top words.")
    parser.add_argument("model", metavar="MODEL", help="model file")
    parser.add_argument("corpus", metavar="CORPUS", nargs="?",
                        help="reference corpus for coherence: a corpus directory (its --split) "
                             "or any input `load_corpus` reads, mapped onto the model's words")
    parser.add_argument("--split", default="train",
                        help="split of a corpus directory (default: train)")
    parser.add_argument("-n", "--words", type=positive_int,
                        default=default_of(TopicModelEstimator.top_words, "n"),
                        help="words per topic, and the top words scored (default: %(default)s)")
    parser.add_argument("--docs", type=positive_int, default=None, metavar="N",
                        help="with CORPUS: each topic's N representative documents (the largest "
                             "proportions of it), their ids and a snippet of their raw text")
    parser.add_argument("--max-docs", type=positive_int, default=20000,
                        help="with --docs: choose among N documents of CORPUS spread evenly "
                             "over it, when it has more (default: %(default)s)")
    add_text_options(parser)
    add_json_flag(parser)
    parser.set_defaults(run=run)


def _reference(args, vocabulary, pipeline) -> tuple[Corpus, object]:
    """(CORPUS on the model's vocabulary, in token order when the vocabularies are one, with
    its documents' metadata; the corpus as read)."""
    read, counts, _ = read_onto_vocabulary(args, args.corpus, vocabulary, pipeline=pipeline)
    if counts.shape[0] == 0 or counts.nnz == 0:
        raise InputError("no document with a word of the model's vocabulary", args.corpus)
    same = np.array_equal(read.vocabulary, vocabulary)
    return Corpus(counts, vocabulary, tokens=read.tokens if same else None,
                  metadata=read.metadata), read


def _representatives(args, reference: Corpus, read, beta, alpha) -> list[list]:
    """Each topic's ``--docs`` representative documents among ``--max-docs`` of CORPUS."""
    try:
        model = load_estimator(args.model)
    except ModelFileError:  # a plain .npz of beta and alpha: CVB0 with the topics fixed
        model = None
    if reference.n_documents > args.max_docs:
        rows = spread_rows(reference.n_documents, args.max_docs)
        print(f"topics: representative documents among {args.max_docs:,} of the "
              f"{reference.n_documents:,} documents, spread evenly (--max-docs)", file=sys.stderr)
        reference, read = reference[rows], read[rows]
    doc_topic = doc_topic_of(model, beta, alpha, reference.counts)
    return representative_documents(reference, doc_topic, args.docs, raw_texts(args, read))


def run(args) -> int:
    beta, alpha, vocabulary, names = load_named_topics(args.model)
    if vocabulary is None:
        vocabulary = np.array([f"w{i}" for i in range(beta.shape[1])])
    n = max(1, min(args.words, beta.shape[1]))
    order = np.argsort(-beta, axis=1, kind="stable")[:, :n]
    diversity, exclusive = topic_diversity(beta)
    topics = [{"topic": k, "name": names[k], "alpha": float(alpha[k]),
               "words": [str(vocabulary[w]) for w in order[k]],
               "probabilities": [float(beta[k, w]) for w in order[k]],
               "unique_top_words": float(exclusive[k])} for k in range(beta.shape[0])]
    result = {"model": str(args.model), "n_topics": beta.shape[0], "topics": topics,
              "topic_diversity": diversity}
    scores = {}
    if args.docs is not None and args.corpus is None:
        raise InputError("--docs needs CORPUS, the documents to choose from")
    if args.corpus is not None:
        reference, read = _reference(args, np.asarray(vocabulary, dtype=str),
                                     recorded_pipeline(args.model))
        scores = {name: measure(beta, reference, n) for name, measure in COHERENCES.items()}
        for name, values in scores.items():
            result[f"mean_{name}"] = float(values.mean())
            for topic, value in zip(topics, values):
                topic[name] = float(value)
        result.update(reference_documents=reference.n_documents,
                      reference_token_order=reference.tokens is not None)
        if args.docs is not None:
            for topic, documents in zip(topics, _representatives(args, reference, read, beta,
                                                                  alpha)):
                topic["documents"] = [{"document": e.document_id, "proportion": e.proportion,
                                       "fields": e.fields, "text": e.text} for e in documents]
    width = len(str(beta.shape[0] - 1))
    lines = [f"{t['topic']:>{width}}" + (f" ({t['name']})" if t["name"] else "")
             + f"  alpha={t['alpha']:.3g}"
             + "".join(f"  {name}={t[name]:.3f}" for name in scores)
             + f"  {' '.join(t['words'])}"
             + "".join(f"\n{'':>{width}}  {100 * d['proportion']:3.0f}%  document {d['document']}"
                       + "".join(f" {key}={value}" for key, value in d["fields"].items())
                       + f": {d['text']}" for d in t.get("documents", [])) for t in topics]
    lines.append(f"topic diversity {diversity:.3f}" + "".join(
        f", mean {name} {values.mean():.4f}" for name, values in scores.items())
        + (f" ({n} top words on {result['reference_documents']} documents)" if scores else ""))
    emit(args, result, "\n".join(lines))
    return 0
