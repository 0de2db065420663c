"""What boosting costs (issue 12, item 2): one pass of g-oem, g-oem++, v-oem and v-oem++ on the
same documents, same run, one thread, and the ratio of each ++ method's training time to its
plain method's (the issue asks for at most 1.5x).

Each fit: ``OnlineLDA(K, method=..., batch_size=100, local_passes=20, n_passes=1,
random_state=0)`` on the first ``--documents`` training documents; the timing is the best of
``--repeats`` fits, methods interleaved, in CPU seconds of this process (one numba thread: its
compute time; on a shared machine other jobs inflate wall time, not this); numba compilation is
done beforehand. ``--name`` names the results (e.g. to keep a run of an older checkout beside).

Usage: python bench/boosted_cost.py [--corpora debian newsarticles] [--topics 100]
           [--documents 3000] [--repeats 2] [--name boosted_cost]
Writes bench/results/NAME.{json,md} and prints the table.
"""

from __future__ import annotations

import os

for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import argparse  # noqa: E402
import time  # noqa: E402

from measuring import CORPORA, write_results  # noqa: E402
from streamtopics import read_corpus_dir  # noqa: E402
from streamtopics.estimators import OnlineLDA  # noqa: E402

PAIRS = (("g-oem", "g-oem++"), ("v-oem", "v-oem++"))


def fit_seconds(documents, n_topics, method):
    model = OnlineLDA(n_topics, method=method, batch_size=100, local_passes=20, n_passes=1,
                      random_state=0)
    started = time.process_time()
    model.fit(documents)
    return time.process_time() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpora", nargs="+", default=["debian", "newsarticles"])
    parser.add_argument("--topics", type=int, nargs="+", default=[100])
    parser.add_argument("--documents", type=int, default=3000)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--name", default="boosted_cost")
    args = parser.parse_args()
    methods = [method for pair in PAIRS for method in pair]
    rows = []
    for corpus_name in args.corpora:
        documents = read_corpus_dir(CORPORA / corpus_name, "train")[:args.documents]
        for n_topics in args.topics:
            for method in methods:  # compile outside the timing
                fit_seconds(documents[:200], n_topics, method)
            seconds = {method: float("inf") for method in methods}
            for _ in range(args.repeats):
                for method in methods:
                    seconds[method] = min(seconds[method],
                                          fit_seconds(documents, n_topics, method))
            for plain, boosted in PAIRS:
                rows.append({"corpus": corpus_name, "K": n_topics,
                             "documents": documents.n_documents, "plain": plain,
                             "plain_seconds": seconds[plain], "boosted": boosted,
                             "boosted_seconds": seconds[boosted],
                             "ratio": seconds[boosted] / seconds[plain]})
                print(f"{corpus_name:12} K={n_topics:<4} {plain:6} {seconds[plain]:6.2f} s  "
                      f"{boosted:8} {seconds[boosted]:6.2f} s  x{rows[-1]['ratio']:.2f}", flush=True)
    lines = ["| corpus | K | documents | plain | s | ++ | s | ++ / plain |",
             "|---|---:|---:|---|---:|---|---:|---:|"]
    lines += [f"| {r['corpus']} | {r['K']} | {r['documents']} | {r['plain']} | "
              f"{r['plain_seconds']:.2f} | {r['boosted']} | {r['boosted_seconds']:.2f} | "
              f"{r['ratio']:.2f} |" for r in rows]
    command = (f"python bench/boosted_cost.py --corpora {' '.join(args.corpora)} --topics "
               f"{' '.join(map(str, args.topics))} --documents {args.documents} "
               f"--repeats {args.repeats} --name {args.name}")
    write_results(args.name, {"settings": vars(args), "threads": 1, "clock": "process CPU time",
                              "rows": rows},
                  "Training time of boosted (++) against plain methods (one thread, one pass, "
                  "P = 20, minibatches of 100, CPU seconds)", command, lines)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
