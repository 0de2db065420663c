"""``streamtopics evaluate MODEL CORPUS_DIR``: score held-out documents with a trained model.

MODEL is a streamtopics model file or a plain ``.npz`` with ``beta`` (K x V) and ``alpha`` (K),
so models from other libraries are scored the same way. CORPUS is a corpus directory
(``vocab.txt``, ``{split}.docword.txt``, ``{split}.tokens.jsonl`` for token order), any other
bag-of-words input `load_corpus` reads, or raw text (a text, JSON-lines or CSV file, a folder of
``.txt`` files) mapped onto the model's vocabulary in token order (unknown words are dropped
and counted).
"""

from __future__ import annotations

import sys
from dataclasses import replace

import numpy as np

from ..errors import InputError
from ..evaluation import (cv_coherence, document_completion, elbo, left_to_right,
                          npmi_coherence, top_word_ids, top_words_table, topic_diversity,
                          umass_coherence)
from ..persistence import scored_topic_parameters
from ..corpus.readers import TEXT_FORMATS, detect_format, load_corpus
from .common import (add_json_flag, add_text_options, add_threads_option, default_of, emit,
                     positive_int, progress, recorded_pipeline, report_reading, text_options)

METRICS = ("left-to-right", "left-to-right-smc", "completion", "elbo", "coherence")


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "evaluate", help="held-out log-likelihood (left-to-right, completion), ELBO or coherence",
        description="Score the documents of CORPUS_DIR's split with a model. left-to-right "
                    "(Wallach et al. 2009) estimates log p(w_d | beta, alpha) per document, "
                    "left-to-right-smc is its unbiased resampling variant, completion scores "
                    "each document's second half given its first, elbo is a variational lower "
                    "bound (Hoffman et al. 2010; never a perplexity), coherence scores each "
                    "topic's top words (UMass, NPMI, c_v with gensim's sliding window of 110 "
                    "tokens) on the split as reference corpus, with the topics' diversity "
                    "(unique share of the top 25 words). "
                    "Left-to-right costs O(N^2 R K) per document of N tokens: use --max-tokens "
                    "or --max-docs on long documents.")
    parser.add_argument("model", help="a streamtopics model file, or an .npz with beta and alpha")
    parser.add_argument("corpus_dir", metavar="CORPUS",
                        help="a corpus directory (vocab.txt, {split}.docword.txt), another "
                             "bag-of-words file, or raw text mapped onto the model's vocabulary")
    parser.add_argument("--split", default="test", help="which split to score (default: test)")
    parser.add_argument("--metric", choices=METRICS, default="left-to-right",
                        help="what to compute (default: left-to-right)")
    parser.add_argument("--particles", type=positive_int,
                        default=default_of(left_to_right, "n_particles"),
                        help="left-to-right particles R (default: %(default)s)")
    parser.add_argument("--max-tokens", type=positive_int, default=None,
                        help="left-to-right: score only the first N tokens of each document")
    parser.add_argument("--max-docs", type=positive_int, default=None,
                        help="score only the first N documents of the split")
    parser.add_argument("--estimator", choices=("standard", "p"),
                        default=default_of(document_completion, "estimator"),
                        help="completion: theta estimator, hard counts or theta^p soft counts "
                             "(default: %(default)s)")
    parser.add_argument("--burn-in", type=int, default=default_of(document_completion, "burn_in"),
                        help="completion: burn-in sweeps (default: %(default)s)")
    parser.add_argument("--samples", type=positive_int,
                        default=default_of(document_completion, "n_samples"),
                        help="completion: samples of theta averaged (default: %(default)s)")
    parser.add_argument("--lag", type=positive_int, default=default_of(document_completion, "lag"),
                        help="completion: sweeps between samples (default: %(default)s)")
    parser.add_argument("--top-words", type=positive_int,
                        default=default_of(npmi_coherence, "n_top"),
                        help="coherence: top words per topic (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=default_of(left_to_right, "seed"),
                        help="random seed (default: %(default)s)")
    add_threads_option(parser)
    add_text_options(parser)
    add_json_flag(parser)
    parser.set_defaults(run=run)


def read_documents(args, model_vocabulary):
    """The documents to score: raw text is mapped onto the model's vocabulary (which a plain
    ``.npz`` without one cannot offer); any other input is read as it is."""
    if detect_format(args.corpus_dir) not in TEXT_FORMATS:
        return load_corpus(args.corpus_dir, split=args.split)
    if model_vocabulary is None:
        raise InputError("raw text is scored on the model's vocabulary, and this model file "
                         "has none: give a corpus directory or bag-of-words file", args.model)
    return load_corpus(args.corpus_dir, vocabulary=list(model_vocabulary),
                       tokenizer=recorded_pipeline(args.model), **text_options(args))


def run(args) -> int:
    beta, alpha, model_vocabulary = scored_topic_parameters(args.model)
    corpus = read_documents(args, model_vocabulary)
    report_reading(corpus.report)
    _check_vocabulary(beta, model_vocabulary, corpus, args)
    if args.max_docs is not None:
        corpus = corpus[:args.max_docs]
    if corpus.n_documents == 0:
        raise InputError(f"{args.corpus_dir}: the {args.split} split has no documents")
    source = {"model": str(args.model), "corpus": str(args.corpus_dir), "split": args.split}
    if args.metric == "coherence":
        return _coherence(args, beta, corpus, source)
    if args.metric == "elbo":
        result = elbo(beta, alpha, corpus)
    else:
        with progress(total=corpus.n_documents, desc=args.metric) as bar:
            if args.metric == "completion":
                result = document_completion(
                    beta, alpha, corpus, burn_in=args.burn_in, n_samples=args.samples,
                    lag=args.lag, estimator=args.estimator, seed=args.seed,
                    progress=bar.update)
            else:
                result = left_to_right(
                    beta, alpha, corpus, n_particles=args.particles,
                    resample=args.metric == "left-to-right-smc", max_tokens=args.max_tokens,
                    seed=args.seed, progress=bar.update)
    if args.metric == "elbo":
        emit(args, {**source, **result.as_dict()}, str(result))
        return 0
    return _emit_likelihood(args, beta, corpus, source, result)


def _emit_likelihood(args, beta, corpus, source, result) -> int:
    """Print a held-out likelihood. A model with zero-probability tokens (a word with beta 0 in
    every topic: a foreign model, or a point estimate trained with topic_word_prior=0) gives
    those documents -inf: say how many tokens and documents, score the rest, clearly labelled,
    and exit 1 (the headline is not finite)."""
    record = {**source, **result.as_dict()}
    finite = np.isfinite(result.log_likelihoods)
    if finite.all():
        emit(args, record, str(result))
        return 0
    impossible_words = beta.max(axis=0) == 0
    zero_tokens = int(corpus.counts[:, impossible_words].sum())
    zero_documents = int((~finite).sum())
    reason = (f"{zero_tokens} tokens in {zero_documents} of {result.n_documents} documents have "
              f"probability 0 under the model (words with beta 0 in every topic), so those "
              f"documents score -inf")
    rest = replace(result, log_likelihoods=result.log_likelihoods[finite],
                   document_lengths=result.document_lengths[finite])
    record.update({"non_finite_reason": reason, "zero_probability_tokens": zero_tokens,
                   "zero_probability_documents": zero_documents,
                   "excluding_zero_probability_documents": rest.as_dict()})
    human = (f"WARNING: {reason}; the score over all documents is -inf.\n"
             f"Score over the {rest.n_documents} other documents only (not comparable with "
             f"scores over all documents):\n{rest}")
    emit(args, record, human)
    return 1


def _check_vocabulary(beta, model_vocabulary, corpus, args) -> None:
    if corpus.n_words != beta.shape[1]:
        raise InputError(f"the model has {beta.shape[1]} words but {args.corpus_dir} has "
                         f"{corpus.n_words}: evaluate with the vocabulary the model was trained on")
    if model_vocabulary is not None and not np.array_equal(
            np.asarray(model_vocabulary, dtype=str), corpus.vocabulary):
        print("warning: the model's vocabulary and the corpus' have the same size but different "
              "words; scoring by word id", file=sys.stderr)


def _coherence(args, beta, corpus, source) -> int:
    umass = umass_coherence(beta, corpus, args.top_words)
    npmi = npmi_coherence(beta, corpus, args.top_words)
    cv = cv_coherence(beta, corpus, args.top_words)
    diversity, exclusive = topic_diversity(beta)
    top = top_word_ids(beta, args.top_words)
    result = {
        **source, "method": "coherence", "n_top_words": args.top_words,
        "reference_documents": corpus.n_documents, "reference_token_order": corpus.tokens is not None,
        "mean_umass": float(umass.mean()), "mean_npmi": float(npmi.mean()),
        "mean_cv": float(cv.mean()), "topic_diversity": diversity,
        "topics": [{"topic": k, "umass": float(umass[k]), "npmi": float(npmi[k]),
                    "cv": float(cv[k]), "unique_top_words": float(exclusive[k]),
                    "top_words": corpus.vocabulary[top[k]].tolist()}
                   for k in range(beta.shape[0])],
    }
    human = "\n".join([
        top_words_table(beta, corpus.vocabulary, args.top_words, scores=cv, score_name="c_v"),
        f"mean c_v {cv.mean():.4f}, mean NPMI {npmi.mean():.4f}, mean UMass {umass.mean():.4f}, "
        f"topic diversity {diversity:.3f} ({args.top_words} top words, reference: "
        f"{corpus.n_documents} documents of {args.split}"
        + ("" if corpus.tokens is not None else "; no token order: c_v windows are documents")
        + ")",
    ])
    emit(args, result, human)
    return 0
