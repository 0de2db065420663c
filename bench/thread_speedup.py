"""1 against 2 numba threads (issue 12, item 4): the same fit with each thread count, same run,
the speed-up, and whether the model is the same bit for bit (it must be: every document draws
from its own counter-based stream).

Fits: G-OEM one pass (``OnlineLDA(K, method="g-oem", n_passes=1, random_state=0)``) and
``GibbsLDA(K, n_passes=--gibbs-passes, burn_in=..., random_state=0)`` on the first
``--documents`` training documents. Each time is the best of ``--repeats`` fits, the thread
counts interleaved; compilation is excluded. BLAS stays at one thread. A speed-up measured on a
machine whose cores are busy with other work says little: the JSON records the load average.

Usage: python bench/thread_speedup.py [--corpus debian] [--topics 100] [--documents 6000]
           [--gibbs-passes 40] [--repeats 2]
Writes bench/results/thread_speedup.{json,md} and prints the table.
"""

from __future__ import annotations

import os

for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import argparse  # noqa: E402
import time  # noqa: E402

import numba  # noqa: E402
import numpy as np  # noqa: E402

from measuring import CORPORA, command_line, write_results  # noqa: E402
from streamtopics import read_corpus_dir  # noqa: E402
from streamtopics.estimators import GibbsLDA, OnlineLDA  # noqa: E402



def models(n_topics, gibbs_passes):
    return {"G-OEM (1 pass)": lambda: OnlineLDA(n_topics, method="g-oem", n_passes=1,
                                                random_state=0),
            f"GibbsLDA ({gibbs_passes} passes)": lambda: GibbsLDA(
                n_topics, n_passes=gibbs_passes, burn_in=gibbs_passes // 2, lag=5, n_samples=2,
                random_state=0)}


def timed_fit(make, documents, threads):
    numba.set_num_threads(threads)
    model = make()
    started = time.perf_counter()
    model.fit(documents)
    return time.perf_counter() - started, model.components_


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", default="debian")
    parser.add_argument("--topics", type=int, default=100)
    parser.add_argument("--documents", type=int, default=6000)
    parser.add_argument("--gibbs-passes", type=int, default=40)
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    if numba.config.NUMBA_NUM_THREADS < 2:
        raise SystemExit("needs NUMBA_NUM_THREADS >= 2")
    documents = read_corpus_dir(CORPORA / args.corpus, "train")[:args.documents]
    rows = []
    for name, make in models(args.topics, args.gibbs_passes).items():
        for threads in (1, 2):
            timed_fit(make, documents[:100], threads)  # compile
        seconds, components = {1: float("inf"), 2: float("inf")}, {}
        for _ in range(args.repeats):
            for threads in (1, 2):
                elapsed, components[threads] = timed_fit(make, documents, threads)
                seconds[threads] = min(seconds[threads], elapsed)
        rows.append({"model": name, "corpus": args.corpus, "K": args.topics,
                     "documents": documents.n_documents, "one_thread_seconds": seconds[1],
                     "two_threads_seconds": seconds[2], "speed_up": seconds[1] / seconds[2],
                     "same_model": bool(np.array_equal(components[1], components[2])),
                     "load_average": os.getloadavg()[0]})
        print(rows[-1], flush=True)
    lines = ["| model | corpus | K | documents | 1 thread s | 2 threads s | speed-up | same model "
             "| load average |", "|---|---|---:|---:|---:|---:|---:|---|---:|"]
    lines += [f"| {r['model']} | {r['corpus']} | {r['K']} | {r['documents']} | "
              f"{r['one_thread_seconds']:.2f} | {r['two_threads_seconds']:.2f} | "
              f"{r['speed_up']:.2f} | {'yes' if r['same_model'] else 'NO'} | "
              f"{r['load_average']:.1f} |" for r in rows]
    write_results("thread_speedup", {"settings": vars(args), "rows": rows},
                  "1 vs 2 numba threads, same run", command_line(), lines)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
