"""Reproduce Papanikolaou et al. (2017), section 5.3 / Figure 1: CGS against CGS_p estimators.

Protocol of the paper: one Markov chain of ``--iterations`` (200) collapsed Gibbs sweeps on the
training documents (alpha = 0.1, eta = 0.01); from its single final sample both phi (eq. 2) and
phi^p (eq. 41). Then document completion on the test documents (first half observed, second
half scored, `streamtopics.evaluation.document_completion`): Gibbs sampling with the topics
fixed, burn-in 50, lag 5, theta (eq. 3) or theta^p (eq. 33) averaged over S samples, for each S
in ``--samples``. With the same seed the completion chain is the same for every S and both
estimators, so the four curves phi+theta, phi+theta^p, phi^p+theta, phi^p+theta^p use the same
samples (as in the paper). Perplexity = exp(-held-out log-likelihood / held-out tokens)
(eq. 55-56), averaged over ``--runs`` runs (different seeds).

Usage: python reproductions/cgsp_figure1.py [--corpora newsarticles finefoods] [--topics 20 100]
       [--runs 1] [--iterations 200] [--samples 1 2 3 5 10 20] [--output reproductions/results]
Writes cgsp_figure1.json, cgsp_figure1.md (and cgsp_figure1.png with matplotlib) and prints the
table, including how much theta^p improves on theta at one sample.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from streamtopics.corpus.readers import read_corpus_dir
from streamtopics.evaluation import document_completion
from streamtopics.inference.cgs import ChainSchedule, run_chain

CORPORA = Path(__file__).resolve().parents[2] / "shared" / "corpora"
COMBINATIONS = (("phi", "standard"), ("phi", "p"), ("phi_p", "standard"), ("phi_p", "p"))
LABELS = {("phi", "standard"): "phi+theta", ("phi", "p"): "phi+theta^p",
          ("phi_p", "standard"): "phi^p+theta", ("phi_p", "p"): "phi^p+theta^p"}


def perplexities(corpus_dir: Path, n_topics: int, iterations: int, samples: list[int],
                 seed: int) -> dict:
    train, test = read_corpus_dir(corpus_dir, "train"), read_corpus_dir(corpus_dir, "test")
    tokens, offsets = train.document_tokens()
    started = time.perf_counter()
    schedule = ChainSchedule(iterations=iterations, burn_in=iterations - 1, n_samples=1)
    chain = run_chain(tokens, offsets, n_topics, train.n_words, 0.1, 0.01, schedule,
                      estimator="standard", seed=seed)
    topics = {"phi": chain.phi, "phi_p": chain.state.estimate(chain.alpha, 0.01, "p")[0]}
    result = {"training_seconds": time.perf_counter() - started, "curves": {}}
    for topic_name, estimator in COMBINATIONS:
        curve = []
        for n_samples in samples:
            held_out = document_completion(topics[topic_name], chain.alpha, test, burn_in=50,
                                           n_samples=n_samples, lag=5, estimator=estimator,
                                           seed=seed)
            curve.append(float(np.exp(-held_out.total_log_likelihood / held_out.n_tokens)))
        result["curves"][LABELS[topic_name, estimator]] = curve
    return result


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpora", nargs="+", default=["newsarticles", "finefoods"])
    parser.add_argument("--topics", type=int, nargs="+", default=[20, 100])
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--iterations", type=int, default=200)
    parser.add_argument("--samples", type=int, nargs="+", default=[1, 2, 3, 5, 10, 20])
    parser.add_argument("--output", type=Path, default=Path(__file__).parent / "results")
    args = parser.parse_args(argv)
    rows = []
    for name in args.corpora:
        for n_topics in args.topics:
            runs = [perplexities(CORPORA / name, n_topics, args.iterations, args.samples, seed)
                    for seed in range(args.runs)]
            curves = {label: np.mean([run["curves"][label] for run in runs], axis=0).tolist()
                      for label in LABELS.values()}
            rows.append({"corpus": name, "K": n_topics, "curves": curves, "runs": args.runs,
                         "training_seconds": [run["training_seconds"] for run in runs]})
            print(name, n_topics, {k: [round(x, 1) for x in v] for k, v in curves.items()},
                  flush=True)
    lines = [f"Perplexity of document completion against samples averaged (Papanikolaou et al. "
             f"2017, Figure 1 protocol; {args.iterations} training sweeps, burn-in 50, lag 5, "
             f"alpha 0.1, eta 0.01, mean of {args.runs} run(s))", "",
             "| corpus | K | estimators | " + " | ".join(f"S={s}" for s in args.samples) + " |",
             "| --- | ---: | --- | " + " | ".join("---:" for _ in args.samples) + " |"]
    for row in rows:
        for label, curve in row["curves"].items():
            lines.append(f"| {row['corpus']} | {row['K']} | {label} | "
                         + " | ".join(f"{x:.1f}" for x in curve) + " |")
    lines.append("")
    for row in rows:
        for phi in ("phi", "phi^p"):
            standard, soft = row["curves"][f"{phi}+theta"][0], row["curves"][f"{phi}+theta^p"][0]
            lines.append(f"- {row['corpus']}, K={row['K']}, {phi}: at one sample theta^p gives "
                         f"perplexity {soft:.1f} against {standard:.1f} for theta "
                         f"({100 * (standard - soft) / standard:.1f}% lower)")
    table = "\n".join(lines)
    print(table)
    args.output.mkdir(parents=True, exist_ok=True)
    (args.output / "cgsp_figure1.json").write_text(json.dumps(
        {"samples": args.samples, "iterations": args.iterations, "rows": rows}, indent=2))
    (args.output / "cgsp_figure1.md").write_text(table + "\n")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    figure, axes = plt.subplots(1, len(rows), figsize=(4 * len(rows), 3.5), squeeze=False)
    for axis, row in zip(axes[0], rows):
        for label, curve in row["curves"].items():
            axis.plot(args.samples, curve, marker="o", label=label)
        axis.set(title=f"{row['corpus']}, K={row['K']}", xlabel="samples averaged",
                 ylabel="perplexity", xscale="log")
    axes[0][0].legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(args.output / "cgsp_figure1.png", dpi=120)


if __name__ == "__main__":
    main()
