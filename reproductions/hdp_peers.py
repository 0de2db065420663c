"""HDP by G-OEM against VarGibbs-HDP, LDA G-OEM at fixed K, tomotopy HDPModel and gensim
HdpModel on the same splits and held-out documents (thesis section 3.4 and 3.5.5, Figure 10:
"for both LDA and HDP, G-OEM outperforms the Bayesian method VarGibbs", no number printed).

Every model is trained on the same training documents (one pass, in corpus order, for the
online methods) and scored by the same left-to-right evaluation (Wallach et al. 2009, 20
particles, seed 0) of the same held-out documents, restricted to words seen in training (as the
LDA experiments do; an LDA point estimate gives unseen words no mass):

* streamtopics ``OnlineHDP(method="g-oem")`` and ``(method="vargibbs")``, defaults (T_0 = 2,
  b = 1, stick concentration alpha learnt by empirical Bayes from 20, minibatch 100, P = 20,
  rho_i = 1/sqrt(i)), and G-OEM with alpha fixed at 5 (the former default) and at 20, scored as
  the (T + 1)-topic LDA of `OnlineHDP.to_lda` (the rest of the stick as one uniform topic, spec
  G8);
* streamtopics ``OnlineLDA(K, method="g-oem")``, the same minibatches and P;
* tomotopy ``HDPModel`` (batch collapsed Gibbs, ``--tomotopy-iterations`` sweeps, initial_k = 2,
  alpha = gamma = 1, eta = 0.01), scored as the LDA of ``convert_to_lda`` (live topics, their
  alpha);
* gensim ``HdpModel`` (online variational, one pass, its defaults: T = 150, K = 15, chunksize
  256, kappa 1, tau 64, alpha = gamma = 1, eta = 0.01), scored as the LDA of ``hdp_to_lda``.

Corpora: a synthetic corpus (K* = 10 topics of Dirichlet(0.1) over V = 1,000
words, unequal alpha = 5 pi with pi proportional to 0.8^k, Poisson(60) lengths, 20,000 training
and 1,000 test documents), debian and newsarticles (their train/test splits). Reported: held-out
log-perplexity per document (lower is better) and its ratio to HDP G-OEM's, topics in use (of
weight > 1%) and training seconds, one thread (NUMBA_NUM_THREADS=1), all in one run; on the
synthetic corpus also the mean total-variation distance of the true topics to their
Hungarian-matched learned topics of weight > 1%.

Usage: NUMBA_NUM_THREADS=1 python reproductions/hdp_peers.py
       [--corpora synthetic,debian,newsarticles] [--seeds 1] [--test-docs 300] [--max-tokens 200] [--tomotopy-iterations 100] [--quick]
Writes reproductions/results/hdp_peers.{json,md}.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time

import numpy as np

from streamtopics import generate_synthetic, read_corpus_dir
from streamtopics.corpus.corpus import occurring_words, restrict_to_words
from streamtopics.estimators import OnlineHDP, OnlineLDA
from streamtopics.evaluation import left_to_right
from streamtopics.evaluation.matching import distance_to_truth

from results_files import CORPORA, command_line, write_results

LDA_TOPICS = {"synthetic": (10,), "debian": (16, 32, 64, 128), "newsarticles": (16, 32, 64, 128)}


def synthetic(n_train: int):
    weights = 0.8 ** np.arange(10)
    corpus, truth = generate_synthetic(n_topics=10, n_words=1000, n_documents=n_train + 1000,
                                       mean_length=60, alpha=5 * weights / weights.sum(),
                                       topic_concentration=0.1, seed=2026)
    return corpus[:n_train], corpus[n_train:], truth.beta


def load(name: str, quick: bool):
    if name == "synthetic":
        return synthetic(4000 if quick else 20000)
    directory = CORPORA / name
    train, test = read_corpus_dir(directory, "train"), read_corpus_dir(directory, "test")
    return (train[:3000] if quick else train), test, None


def token_lists(corpus):
    counts = corpus.counts
    return [np.repeat(counts.indices[counts.indptr[d]:counts.indptr[d + 1]],
                      counts.data[counts.indptr[d]:counts.indptr[d + 1]].astype(int))
            for d in range(corpus.n_documents)]


def train_hdp(method, **settings):
    def train(corpus, seed, args):
        model = OnlineHDP(method=method, random_state=seed, **settings).fit(corpus)
        beta, alpha = model.to_lda()
        return (beta, alpha, model.topic_weights_, model.components_,
                {"stick_concentration": model.stick_concentration_})
    return train


def train_lda(n_topics):
    def train(corpus, seed, args):
        model = OnlineLDA(n_topics, method="g-oem", n_passes=1, random_state=seed).fit(corpus)
        alpha = model.doc_topic_prior_
        return model.components_, alpha, alpha / alpha.sum(), model.components_
    return train


def train_tomotopy(corpus, seed, args):
    import tomotopy as tp
    model = tp.HDPModel(initial_k=2, alpha=1.0, eta=0.01, gamma=1.0, seed=seed)
    for tokens in token_lists(corpus):
        model.add_doc([str(w) for w in tokens])
    model.train(args.tomotopy_iterations, workers=1)
    lda, _ = model.convert_to_lda(topic_threshold=0.0)
    ids = np.array([int(word) for word in lda.used_vocabs])
    beta = np.full((lda.k, corpus.n_words), 1e-300)
    for k in range(lda.k):
        beta[k, ids] = lda.get_topic_word_dist(k, normalize=True)
    beta /= beta.sum(axis=1, keepdims=True)
    alpha = np.asarray(lda.alpha, dtype=np.float64)
    return beta, alpha, alpha / alpha.sum(), beta


def train_gensim(corpus, seed, args):
    from gensim.models import HdpModel
    counts = corpus.counts
    bow = [list(zip(counts.indices[counts.indptr[d]:counts.indptr[d + 1]].tolist(),
                    counts.data[counts.indptr[d]:counts.indptr[d + 1]].astype(int).tolist()))
           for d in range(corpus.n_documents)]
    model = HdpModel(bow, id2word={i: str(i) for i in range(corpus.n_words)}, random_state=seed)
    alpha, beta = model.hdp_to_lda()
    beta = np.asarray(beta, dtype=np.float64)
    beta /= beta.sum(axis=1, keepdims=True)
    alpha = np.asarray(alpha, dtype=np.float64)
    return beta, alpha, alpha / alpha.sum(), beta


def methods(corpus_name: str, args):
    table = {"HDP G-OEM": train_hdp("g-oem"), "HDP VarGibbs": train_hdp("vargibbs"),
             "HDP G-OEM, alpha = 5 fixed": train_hdp("g-oem", stick_concentration=5.0,
                                                     stick_update="fixed"),
             "HDP G-OEM, alpha = 20 fixed": train_hdp("g-oem", stick_concentration=20.0,
                                                      stick_update="fixed")}
    for k in LDA_TOPICS[corpus_name]:
        table[f"LDA G-OEM K={k}"] = train_lda(k)
    table["tomotopy HDPModel"] = train_tomotopy
    table["gensim HdpModel"] = train_gensim
    return table


def warm_up(args) -> None:
    """Every trainer once on 300 small documents, so that no timing includes numba's
    compilation (or a cache load)."""
    tiny, _, _ = synthetic(300)
    for trainer in methods("synthetic", args).values():
        trainer(tiny, 0, args)


def run_corpus(name: str, args) -> list[dict]:
    train, test, truth = load(name, args.quick)
    held_out, _, _ = restrict_to_words(test[:args.test_docs], occurring_words(train.counts))
    rows = []
    for seed in range(args.seeds):
        for method, trainer in methods(name, args).items():
            started = time.perf_counter()
            beta, alpha, weights, topics, *extra = trainer(train, seed, args)
            extra = extra[0] if extra else {}
            seconds = time.perf_counter() - started
            score = left_to_right(beta, alpha, held_out, n_particles=20, seed=0,
                                  max_tokens=args.max_tokens)
            row = {"corpus": name, "method": method, "seed": seed, "train_seconds": seconds,
                   "stick_concentration": extra.get("stick_concentration"),
                   "log_perplexity_per_document": -score.mean_log_likelihood_per_document,
                   "topics": int(topics.shape[0]), "topics_over_1pct": int(np.sum(weights > 0.01))}
            if truth is not None:
                big = np.asarray(topics)[weights > 0.01]
                row["true_topic_matched_tv"] = float(distance_to_truth(big, truth))
            print(json.dumps(row), flush=True)
            rows.append(row)
    return rows


def table(rows: list[dict]) -> str:
    lines = ["| corpus | method | log-perplexity / doc | ratio to HDP G-OEM | topics (> 1%) | "
             "true-topic TV | stick alpha at the end | train s |",
             "|---|---|---|---|---|---|---|---|"]
    for corpus in dict.fromkeys(row["corpus"] for row in rows):
        mine = [r for r in rows if r["corpus"] == corpus]
        reference = np.mean([r["log_perplexity_per_document"] for r in mine
                             if r["method"] == "HDP G-OEM"])
        for method in dict.fromkeys(r["method"] for r in mine):
            group = [r for r in mine if r["method"] == method]
            score = np.array([r["log_perplexity_per_document"] for r in group])
            spread = f" ± {score.std(ddof=1):.1f}" if score.size > 1 else ""
            tv = ([r["true_topic_matched_tv"] for r in group]
                  if "true_topic_matched_tv" in group[0] else None)
            sticks = [r.get("stick_concentration") for r in group]
            sticks = "" if sticks[0] is None else f"{np.mean(sticks):.1f}"
            lines.append(
                f"| {corpus} | {method} | {score.mean():.1f}{spread} | "
                f"{score.mean() / reference:.4f} | "
                f"{np.mean([r['topics'] for r in group]):.0f} "
                f"({np.mean([r['topics_over_1pct'] for r in group]):.1f}) | "
                f"{'' if tv is None else f'{np.mean(tv):.3f}'} | "
                f"{sticks} | "
                f"{np.mean([r['train_seconds'] for r in group]):.1f} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpora", default="synthetic,debian,newsarticles")
    parser.add_argument("--seeds", type=int, default=1)
    parser.add_argument("--test-docs", type=int, default=300)
    parser.add_argument("--max-tokens", type=int, default=200,
                        help="left-to-right scores the first N tokens of each document")
    parser.add_argument("--tomotopy-iterations", type=int, default=100)
    parser.add_argument("--quick", action="store_true", help="3,000-4,000 training documents")
    parser.add_argument("--output", default="hdp_peers")
    args = parser.parse_args()
    warm_up(args)
    rows = []
    for name in args.corpora.split(","):
        rows += run_corpus(name, args)
    settings = {**vars(args), "numba_threads": os.environ.get("NUMBA_NUM_THREADS"),
                "machine": platform.platform(), "cpu": platform.processor()}
    markdown = table(rows)
    write_results(args.output, {"settings": settings, "rows": rows},
                  "HDP: G-OEM vs VarGibbs, LDA G-OEM, tomotopy, gensim", command_line(),
                  [f"`{json.dumps(settings)}`", "", markdown])
    print(markdown)


if __name__ == "__main__":
    main()
