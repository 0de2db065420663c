"""Left-to-right evaluation with the sparse against the dense sampler, same run (issue 12,
item 5): seconds per 1,000 held-out documents and the ratio, with the paired difference of the
per-document estimates (the sampler must not change the answer beyond Monte Carlo noise).

The topics are those of a real fit, so each particle's present topics are as sparse as in use:
``OnlineLDA(K, method="g-oem", n_passes=1, random_state=0)`` on the corpus' training split;
then R = ``--particles`` (20) particles, Algorithm 3 (no resampling), seed 0, on the first
``--documents`` test documents, one thread. Compilation is excluded; each time is the best of
``--repeats`` runs in CPU seconds (process time), the two samplers interleaved (the machine may
be shared).

Usage: python bench/left_to_right_sparse.py [--corpus newsarticles] [--topics 10 100]
           [--documents 60] [--particles 20] [--repeats 3]
Writes bench/results/left_to_right_sparse.{json,md} and prints the table.
"""

from __future__ import annotations

import os

for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import argparse  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

from measuring import CORPORA, command_line, write_results  # noqa: E402
from streamtopics import read_corpus_dir  # noqa: E402
from streamtopics.estimators import OnlineLDA  # noqa: E402
from streamtopics.evaluation import left_to_right  # noqa: E402
from streamtopics.evaluation.left_to_right import SPARSE_MIN_TOPICS  # noqa: E402



def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", default="newsarticles")
    parser.add_argument("--topics", type=int, nargs="+", default=[10, 100])
    parser.add_argument("--documents", type=int, default=60)
    parser.add_argument("--particles", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    train = read_corpus_dir(CORPORA / args.corpus, "train")
    test = read_corpus_dir(CORPORA / args.corpus, "test")[:args.documents]
    rows = []
    for n_topics in args.topics:
        model = OnlineLDA(n_topics, method="g-oem", n_passes=1, random_state=0).fit(train)
        beta, alpha = model.components_, model.doc_topic_prior_
        seconds, scores = {"dense": float("inf"), "sparse": float("inf")}, {}
        for sampler in seconds:
            left_to_right(beta, alpha, test[:2], n_particles=2, sampler=sampler)  # compile
        for _ in range(args.repeats):
            for sampler in seconds:
                started = time.process_time()
                scores[sampler] = left_to_right(beta, alpha, test, n_particles=args.particles,
                                                sampler=sampler).log_likelihoods
                seconds[sampler] = min(seconds[sampler], time.process_time() - started)
        difference = scores["dense"] - scores["sparse"]
        row = {"corpus": args.corpus, "K": n_topics, "documents": test.n_documents,
               "tokens": test.n_tokens, "particles": args.particles,
               "dense_seconds_per_1000_documents": seconds["dense"] / test.n_documents * 1e3,
               "sparse_seconds_per_1000_documents": seconds["sparse"] / test.n_documents * 1e3,
               "speed_up": seconds["dense"] / seconds["sparse"],
               "auto_picks": "sparse" if n_topics >= SPARSE_MIN_TOPICS else "dense",
               "dense_mean_log_likelihood": float(scores["dense"].mean()),
               "sparse_mean_log_likelihood": float(scores["sparse"].mean()),
               "dense_minus_sparse": float(difference.mean()),
               "paired_se": float(difference.std(ddof=1) / np.sqrt(difference.size))}
        rows.append(row)
        print(f"K={n_topics:<4} dense {row['dense_seconds_per_1000_documents']:7.1f} s/1000 docs  "
              f"sparse {row['sparse_seconds_per_1000_documents']:7.1f}  x{row['speed_up']:.2f}  "
              f"dense - sparse {row['dense_minus_sparse']:+.2f} ± {row['paired_se']:.2f}",
              flush=True)
    lines = ["| corpus | K | test docs | R | dense s / 1000 docs | sparse s / 1000 docs | speed-up "
             "| auto picks | log p(w_d) dense | sparse | dense - sparse (± paired SE) |",
             "|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|"]
    lines += [f"| {r['corpus']} | {r['K']} | {r['documents']} | {r['particles']} | "
              f"{r['dense_seconds_per_1000_documents']:.1f} | "
              f"{r['sparse_seconds_per_1000_documents']:.1f} | {r['speed_up']:.2f} | "
              f"{r['auto_picks']} | "
              f"{r['dense_mean_log_likelihood']:.2f} | {r['sparse_mean_log_likelihood']:.2f} | "
              f"{r['dense_minus_sparse']:+.2f} ± {r['paired_se']:.2f} |" for r in rows]
    write_results("left_to_right_sparse", {"settings": vars(args), "threads": 1, "rows": rows},
                  "Left-to-right (Algorithm 3): sparse vs dense sampler, one thread, same run",
                  command_line(), lines)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
