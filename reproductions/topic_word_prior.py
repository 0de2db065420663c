"""Choose the default topic-word prior eta of the frequentist presets by held-out likelihood.

The frequentist presets' M-step is the posterior mean of the topics given the expected counts of
the N documents seen, beta_kv = (eta + N s1_kv) / (V eta + N sum_j s1_kj)
(`streamtopics.inference.global_parameters.PointEstimate`); eta = 0 is the paper's maximum
likelihood M-step. This script trains G-OEM (one pass, minibatch 100, P = 20, the paper's
settings) for every eta of a small grid on subsets of shared corpora at K = 20 and K = 100, and
scores each model on the test split by left-to-right (Wallach et al. 2009, R = 20 particles,
the first ``--max-tokens`` tokens of each document), mean log-likelihood per document in nats,
higher is better. eta = 0 gives test tokens of words without expected counts probability 0: the
table then counts the documents scored -inf and gives the mean over the others (not comparable).

Usage: NUMBA_NUM_THREADS=1 python reproductions/topic_word_prior.py [--corpora debian newsarticles]
       [--topics 20 100] [--etas 0 0.001 0.01 0.05 0.1] [--train-docs 5000] [--test-docs 300]
Writes reproductions/results/topic_word_prior.{json,md} and prints the table.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path

import numpy as np

from streamtopics import OnlineLDA
from streamtopics.corpus.readers import read_corpus_dir
from streamtopics.evaluation import left_to_right

from results_files import CORPORA, command_line, write_results



def score(model, test, args) -> dict:
    result = left_to_right(model.components_, model.doc_topic_prior_, test,
                           n_particles=args.particles, max_tokens=args.max_tokens, seed=0)
    values = result.log_likelihoods
    finite = np.isfinite(values)
    mean = float(values[finite].mean()) if finite.any() else math.nan
    se = float(values[finite].std(ddof=1) / math.sqrt(finite.sum())) if finite.sum() > 1 else math.nan
    return {"mean_log_likelihood": mean, "se": se, "documents": int(values.size),
            "documents_minus_inf": int((~finite).sum())}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpora", nargs="+", default=["debian", "newsarticles"])
    parser.add_argument("--corpus-root", type=Path, default=CORPORA)
    parser.add_argument("--topics", nargs="+", type=int, default=[20, 100])
    parser.add_argument("--etas", nargs="+", type=float, default=[0.0, 0.001, 0.01, 0.05, 0.1])
    parser.add_argument("--method", default="g-oem")
    parser.add_argument("--train-docs", type=int, default=5000)
    parser.add_argument("--test-docs", type=int, default=300)
    parser.add_argument("--max-tokens", type=int, default=100)
    parser.add_argument("--particles", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rows = []
    for name in args.corpora:
        train = read_corpus_dir(args.corpus_root / name, "train")[:args.train_docs]
        test = read_corpus_dir(args.corpus_root / name, "test")[:args.test_docs]
        for n_topics in args.topics:
            for eta in args.etas:
                started = time.perf_counter()
                model = OnlineLDA(n_topics=n_topics, method=args.method, batch_size=100,
                                  local_passes=20, topic_word_prior=eta,
                                  random_state=args.seed).fit(train)
                seconds = time.perf_counter() - started
                row = {"corpus": name, "train_documents": train.n_documents, "K": n_topics,
                       "eta": eta, "method": args.method, "train_seconds": seconds,
                       **score(model, test, args)}
                rows.append(row)
                print(json.dumps(row), flush=True)
    lines = ["| corpus (train docs) | K | " + " | ".join(f"eta = {eta:g}" for eta in args.etas) + " |",
             "|---|---:|" + "---:|" * len(args.etas)]
    for name in args.corpora:
        for n_topics in args.topics:
            cells = [row for row in rows if row["corpus"] == name and row["K"] == n_topics]
            best = max((row["mean_log_likelihood"] for row in cells if not row["documents_minus_inf"]),
                       default=math.nan)
            texts = []
            for row in cells:
                text = f"{row['mean_log_likelihood']:.2f} ± {row['se']:.2f}"
                if row["documents_minus_inf"]:
                    text = (f"-inf ({row['documents_minus_inf']} of {row['documents']} docs; "
                            f"others {row['mean_log_likelihood']:.2f})")
                elif row["mean_log_likelihood"] == best:
                    text = f"**{text}**"
                texts.append(text)
            lines.append(f"| {name} ({cells[0]['train_documents']}) | {n_topics} | "
                         + " | ".join(texts) + " |")
    write_results("topic_word_prior", {"settings": vars(args), "rows": rows},
                  "Held-out log-likelihood per document by topic-word prior eta", command_line(),
                  lines)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
