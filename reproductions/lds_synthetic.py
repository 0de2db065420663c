"""LDS (SGRLD, Patterson & Teh 2013) next to G-OEM on the synthetic corpus at K = 10 and 20
(thesis section 3.5.3: "LDS performs very poorly on this dataset, for any value of K the
log-perplexity is around 400", against 60 ln 1000 = 414.5 nats for the uniform model).

The synthetic corpus of reproductions/hdp_peers.py (K* = 10 over V = 1,000 words, Poisson(60)
lengths, unequal alpha), one pass in corpus order, minibatches of 100, alpha fixed at 1/K for
LDS (the preset's) and learnt by G-OEM; LDS with the thesis' P = 200 local passes and with
G-OEM's P = 20.
Scored by left-to-right (20 particles, seed 0) on the same 300 held-out documents (first 100
tokens each); one thread.

Usage: NUMBA_NUM_THREADS=1 python reproductions/lds_synthetic.py [--documents 10000] [--seeds 1]
Writes reproductions/results/lds_synthetic.{json,md}.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time

import numpy as np

from hdp_peers import synthetic
from results_files import command_line, write_results
from streamtopics.estimators import OnlineLDA
from streamtopics.evaluation import left_to_right
from streamtopics.evaluation.matching import distance_to_truth

RUNS = {"G-OEM (P = 20)": ("g-oem", 20), "LDS (P = 200)": ("lds", 200), "LDS (P = 20)": ("lds", 20)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--documents", type=int, default=10000)
    parser.add_argument("--seeds", type=int, default=1)
    parser.add_argument("--topics", default="10,20")
    args = parser.parse_args()
    tiny, _, _ = synthetic(300)
    for method, passes in RUNS.values():  # no timing includes numba's compilation
        OnlineLDA(10, method=method, local_passes=passes).fit(tiny)
    train, test, truth = synthetic(args.documents)
    held_out = test[:300]
    uniform = float(np.mean([min(n, 100) for n in held_out.document_lengths]) * np.log(1000))
    rows = []
    for n_topics in (int(k) for k in args.topics.split(",")):
        for seed in range(args.seeds):
            for label, (method, passes) in RUNS.items():
                started = time.perf_counter()
                model = OnlineLDA(n_topics, method=method, local_passes=passes,
                                  random_state=seed).fit(train)
                seconds = time.perf_counter() - started
                score = left_to_right(model.components_, model.doc_topic_prior_, held_out,
                                      n_particles=20, seed=0, max_tokens=100)
                row = {"K": n_topics, "method": label, "seed": seed, "train_seconds": seconds,
                       "log_perplexity_per_document": -score.mean_log_likelihood_per_document,
                       "true_topic_matched_tv": float(distance_to_truth(model.components_, truth))}
                print(json.dumps(row), flush=True)
                rows.append(row)
    lines = [f"uniform model: {uniform:.1f} nats per document (first 100 tokens)", "",
             "| K | method | log-perplexity / doc | ratio to G-OEM | ratio to uniform | "
             "true-topic TV | train s |", "|---|---|---|---|---|---|---|"]
    for n_topics in dict.fromkeys(row["K"] for row in rows):
        mine = [r for r in rows if r["K"] == n_topics]
        reference = np.mean([r["log_perplexity_per_document"] for r in mine
                             if r["method"] == "G-OEM (P = 20)"])
        for label in RUNS:
            group = [r for r in mine if r["method"] == label]
            score = np.mean([r["log_perplexity_per_document"] for r in group])
            lines.append(f"| {n_topics} | {label} | {score:.1f} | {score / reference:.4f} | "
                         f"{score / uniform:.4f} | "
                         f"{np.mean([r['true_topic_matched_tv'] for r in group]):.3f} | "
                         f"{np.mean([r['train_seconds'] for r in group]):.1f} |")
    settings = {**vars(args), "numba_threads": os.environ.get("NUMBA_NUM_THREADS"),
                "machine": platform.platform(), "uniform": uniform}
    write_results("lds_synthetic", {"settings": settings, "rows": rows},
                  "LDS (SGRLD) vs G-OEM, synthetic corpus", command_line(),
                  [f"`{json.dumps(settings)}`", "", *lines])
    print("\n".join(lines))


if __name__ == "__main__":
    main()
