"""Held-out evaluation speed: left-to-right (Wallach et al. 2009, Algorithm 3) with R = 20 particles
at K = 10 and K = 100 on the long news documents of ``newsarticles``, side by side with its SMC
variant, document completion and the ELBO, and the growth of its cost with document length.

Left-to-right resamples every earlier token at every position, so a document of N tokens costs
about N^2 R K / 2 topic updates: the table reports seconds per 1,000 test documents, the same
in nanoseconds per (N^2 R K / 2) update, and the time of the first n tokens of the longest
documents for n = 50, 100, 200, 400 (``max_tokens``), whose log-log slope should be near 2.
The model is random: topics ~ Dirichlet(0.1) over the corpus vocabulary, alpha = 0.1 (speed
does not depend on the fit). Compilation is excluded (a warm-up call on two documents first).

Usage: python bench/evaluation_speed.py [--corpus DIR] [--max-docs N] [--particles 20]
       [--topics 10 100]
Writes bench/results/evaluation_speed.{json,md} and prints the table. With --max-docs the
times per 1,000 documents are extrapolated from that many documents.
"""

from __future__ import annotations

import argparse
import platform
import time
from pathlib import Path

import numba
import numpy as np

from streamtopics.corpus.readers import read_corpus_dir
from streamtopics.evaluation import document_completion, elbo, left_to_right

from measuring import CORPORA, command_line, write_results

GROWTH_LENGTHS = (50, 100, 200, 400)


def timed(function, *args, **kwargs):
    start = time.perf_counter()
    result = function(*args, **kwargs)
    return time.perf_counter() - start, result


def random_model(n_topics: int, n_words: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    return rng.dirichlet(np.full(n_words, 0.1), size=n_topics), np.full(n_topics, 0.1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=CORPORA / "newsarticles")
    parser.add_argument("--max-docs", type=int, default=None)
    parser.add_argument("--particles", type=int, default=20)
    parser.add_argument("--topics", type=int, nargs="+", default=[10, 100])
    args = parser.parse_args()

    corpus = read_corpus_dir(args.corpus, "test")
    if args.max_docs is not None:
        corpus = corpus[:args.max_docs]
    lengths = corpus.document_lengths
    updates_per_particle_topic = float(np.sum(lengths.astype(float) ** 2) / 2)
    per_thousand = 1000.0 / corpus.n_documents
    rows = []
    for n_topics in args.topics:
        beta, alpha = random_model(n_topics, corpus.n_words)
        left_to_right(beta, alpha, corpus[:2], n_particles=2, resample=True)  # compile
        left_to_right(beta, alpha, corpus[:2], n_particles=2)
        document_completion(beta, alpha, corpus[:2], burn_in=1, n_samples=1)
        elbo(beta, alpha, corpus[:2])
        runs = {
            "left-to-right": lambda: left_to_right(beta, alpha, corpus, args.particles),
            "left-to-right-smc": lambda: left_to_right(beta, alpha, corpus, args.particles,
                                                       resample=True),
            "completion (50 + 10 x 5 sweeps)": lambda: document_completion(beta, alpha, corpus),
            "elbo": lambda: elbo(beta, alpha, corpus),
        }
        for name, run in runs.items():
            seconds, _ = timed(run)
            row = {"method": name, "n_topics": n_topics, "seconds": seconds,
                   "seconds_per_1000_documents": seconds * per_thousand}
            if name.startswith("left-to-right"):
                row["ns_per_topic_update"] = 1e9 * seconds / (
                    updates_per_particle_topic * args.particles * n_topics)
            rows.append(row)
            print(f"K={n_topics:4d} {name:32s} {seconds:8.2f} s", flush=True)

    # growth with length: the first n tokens of the documents that have at least 400
    beta, alpha = random_model(min(args.topics), corpus.n_words)
    long_documents = corpus[np.flatnonzero(lengths >= max(GROWTH_LENGTHS))]
    growth = []
    for n_tokens in GROWTH_LENGTHS:
        seconds, _ = timed(left_to_right, beta, alpha, long_documents, args.particles,
                           max_tokens=n_tokens)
        growth.append({"tokens": n_tokens, "seconds": seconds,
                       "seconds_per_document": seconds / long_documents.n_documents})
    slope = float(np.polyfit(np.log(GROWTH_LENGTHS), np.log([g["seconds"] for g in growth]), 1)[0])

    report = {
        "corpus": str(args.corpus), "split": "test", "n_documents": corpus.n_documents,
        "n_tokens": corpus.n_tokens, "mean_length": float(lengths.mean()),
        "max_length": int(lengths.max()), "mean_squared_length": float(np.mean(lengths ** 2.0)),
        "particles": args.particles, "threads": numba.get_num_threads(),
        "machine": platform.processor() or platform.machine(), "rows": rows,
        "growth": {"n_topics": min(args.topics), "n_documents": long_documents.n_documents,
                   "points": growth, "log_log_slope": slope},
    }
    table = markdown(report)
    write_results("evaluation_speed", report, "Evaluation speed", command_line(), table)
    print("\n".join(table))


def markdown(report: dict) -> list[str]:
    lines = [
        f"Evaluation speed on {report['corpus']} (test: {report['n_documents']} documents, "
        f"mean length {report['mean_length']:.1f}, max {report['max_length']}), "
        f"R = {report['particles']}, {report['threads']} numba threads",
        "",
        "| method | K | seconds | s / 1,000 docs | ns / (N^2 R K / 2) update | vs left-to-right |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    reference = {row["n_topics"]: row["seconds"] for row in report["rows"]
                 if row["method"] == "left-to-right"}
    for row in report["rows"]:
        update = row.get("ns_per_topic_update")
        lines.append(
            f"| {row['method']} | {row['n_topics']} | {row['seconds']:.2f} | "
            f"{row['seconds_per_1000_documents']:.1f} | "
            f"{'' if update is None else f'{update:.2f}'} | "
            f"{row['seconds'] / reference[row['n_topics']]:.3f} |")
    growth = report["growth"]
    lines += ["", f"Growth with length: left-to-right on the first n tokens of the "
              f"{growth['n_documents']} documents with >= {GROWTH_LENGTHS[-1]} tokens, "
              f"K = {growth['n_topics']} (log-log slope {growth['log_log_slope']:.2f}; "
              "quadratic = 2)", "",
              "| tokens n | seconds | s / document | ratio to previous |",
              "| ---: | ---: | ---: | ---: |"]
    previous = None
    for point in growth["points"]:
        ratio = "" if previous is None else f"{point['seconds'] / previous:.2f}"
        lines.append(f"| {point['tokens']} | {point['seconds']:.3f} | "
                     f"{point['seconds_per_document']:.4f} | {ratio} |")
        previous = point["seconds"]
    return lines


if __name__ == "__main__":
    main()
