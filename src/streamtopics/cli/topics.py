"""`streamtopics topics MODEL [CORPUS] [-n 10]`: the most probable words of each topic of a model
file, the topics' diversity, and with CORPUS each topic's coherence (c_v, NPMI, UMass) on it."""

from __future__ import annotations

import numpy as np

from ..corpus.corpus import Corpus
from ..errors import InputError
from ..estimators.base import TopicModelEstimator
from ..evaluation import cv_coherence, npmi_coherence, topic_diversity, umass_coherence
from ..persistence import load_topic_parameters
from .common import (add_json_flag, add_text_options, default_of, emit, positive_int,
                     read_onto_vocabulary)

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
    add_text_options(parser)
    add_json_flag(parser)
    parser.set_defaults(run=run)


def _reference(args, vocabulary) -> Corpus:
    """CORPUS on the model's vocabulary, in token order when the vocabularies are one."""
    read, counts, _ = read_onto_vocabulary(args, args.corpus, vocabulary)
    if counts.shape[0] == 0 or counts.nnz == 0:
        raise InputError("no document with a word of the model's vocabulary", args.corpus)
    same = np.array_equal(read.vocabulary, vocabulary)
    return Corpus(counts, vocabulary, tokens=read.tokens if same else None)


def run(args) -> int:
    beta, alpha, vocabulary = load_topic_parameters(args.model)
    if vocabulary is None:
        vocabulary = np.array([f"w{i}" for i in range(beta.shape[1])])
    n = max(1, min(args.words, beta.shape[1]))
    order = np.argsort(-beta, axis=1, kind="stable")[:, :n]
    diversity, exclusive = topic_diversity(beta)
    topics = [{"topic": k, "alpha": float(alpha[k]),
               "words": [str(vocabulary[w]) for w in order[k]],
               "probabilities": [float(beta[k, w]) for w in order[k]],
               "unique_top_words": float(exclusive[k])} for k in range(beta.shape[0])]
    result = {"model": str(args.model), "n_topics": beta.shape[0], "topics": topics,
              "topic_diversity": diversity}
    scores = {}
    if args.corpus is not None:
        reference = _reference(args, np.asarray(vocabulary, dtype=str))
        scores = {name: measure(beta, reference, n) for name, measure in COHERENCES.items()}
        for name, values in scores.items():
            result[f"mean_{name}"] = float(values.mean())
            for topic, value in zip(topics, values):
                topic[name] = float(value)
        result.update(reference_documents=reference.n_documents,
                      reference_token_order=reference.tokens is not None)
    width = len(str(beta.shape[0] - 1))
    lines = [f"{t['topic']:>{width}}  alpha={t['alpha']:.3g}"
             + "".join(f"  {name}={t[name]:.3f}" for name in scores)
             + f"  {' '.join(t['words'])}" for t in topics]
    lines.append(f"topic diversity {diversity:.3f}" + "".join(
        f", mean {name} {values.mean():.4f}" for name, values in scores.items())
        + (f" ({n} top words on {result['reference_documents']} documents)" if scores else ""))
    emit(args, result, "\n".join(lines))
    return 0
