"""What boosting costs (issue 12, item 2): one pass of g-oem, g-oem++, v-oem and v-oem++ on the
same documents, same run, one thread, and the ratio of each ++ method's training time to its
plain method's (the issue asks for at most 1.5x).

Each fit: ``OnlineLDA(K, method=..., batch_size=100, local_passes=20, n_passes=1,
random_state=0)`` on the first ``--documents`` training documents; the timing is the best of
``--repeats`` fits, methods interleaved, in CPU seconds of this process (one numba thread: its
compute time; on a shared machine other jobs inflate wall time, not this); numba compilation is
done beforehand. ``--name`` names the results (e.g. to keep a run of an older checkout beside).

``--split``: instead, one fit per method under cProfile (CPU clock; the profiler adds its own
cost to the Python part), its time split into `PARTS` by the functions' own time: the local
E-step kernel, the word statistics a pass reports, the M-step's U x K rows (blend, word
weights, copies and zero-filled arrays), alpha's fixed point, and the rest (Python, small
arrays). Run from another checkout (``cd OLD && PYTHONPATH=src python NEW/bench/...``) to
split its time the same way.

Usage: python bench/boosted_cost.py [--corpora debian newsarticles] [--topics 100]
           [--documents 3000] [--repeats 2] [--name boosted_cost] [--split]
Writes bench/results/NAME.{json,md} and prints the table.
"""

from __future__ import annotations

import os

for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import argparse  # noqa: E402
import cProfile  # noqa: E402
import pstats  # noqa: E402
import time  # noqa: E402

from measuring import CORPORA, command_line, write_results  # noqa: E402
from streamtopics import read_corpus_dir  # noqa: E402
from streamtopics.estimators import OnlineLDA  # noqa: E402

PAIRS = (("g-oem", "g-oem++"), ("v-oem", "v-oem++"))
# --split: the parts, by function name (or file, for alpha); "rest" is what none takes.
PARTS = {
    "E-step kernel": ("gibbs_sweeps", "variational_passes"),
    "word statistics": ("group_sums", "clear_sets", "column_sets", "scaled_rows",
                        "add_scaled_rows", "entry_topic_sums", "tree_block_totals", "bincount"),
    "M-step rows": ("blend_rows", "affine_rows", "set_rows", "has_empty_row",
                    "<method 'copy' of 'numpy.ndarray' objects>",
                    "<built-in method numpy.zeros>"),
    "alpha": ("alpha_updates.py", "dirichlet.py"),
}


def fit_seconds(documents, n_topics, method):
    model = OnlineLDA(n_topics, method=method, batch_size=100, local_passes=20, n_passes=1,
                      random_state=0)
    started = time.process_time()
    model.fit(documents)
    return time.process_time() - started


def split_seconds(documents, n_topics, method) -> dict:
    """One fit under cProfile: CPU seconds per part of `PARTS`, the rest and the total."""
    profile = cProfile.Profile(time.process_time)
    profile.runcall(fit_seconds, documents, n_topics, method)
    parts = dict.fromkeys(PARTS, 0.0)
    total = 0.0
    for (path, _, function), (_, _, own, _, _) in pstats.Stats(profile).stats.items():
        total += own
        part = next((name for name, keys in PARTS.items()
                     if function in keys or os.path.basename(path) in keys), None)
        if part is not None:
            parts[part] += own
    return {**parts, "rest": total - sum(parts.values()), "total": total}


def split_table(documents_by_corpus, n_topics_list, methods) -> tuple[list, list[str]]:
    rows = []
    for corpus_name, documents in documents_by_corpus:
        for n_topics in n_topics_list:
            for method in methods:
                fit_seconds(documents[:200], n_topics, method)
                rows.append({"corpus": corpus_name, "K": n_topics, "method": method,
                             **split_seconds(documents, n_topics, method)})
                print(rows[-1], flush=True)
    names = [*PARTS, "rest"]
    lines = ["| corpus | K | method | " + " | ".join(names) + " | total |",
             "|---|---:|---|" + "---:|" * (len(names) + 1)]
    lines += [f"| {r['corpus']} | {r['K']} | {r['method']} | "
              + " | ".join(f"{r[name]:.2f}" for name in names) + f" | {r['total']:.2f} |"
              for r in rows]
    return rows, lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpora", nargs="+", default=["debian", "newsarticles"])
    parser.add_argument("--topics", type=int, nargs="+", default=[100])
    parser.add_argument("--documents", type=int, default=3000)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--name", default="boosted_cost")
    parser.add_argument("--split", action="store_true")
    args = parser.parse_args()
    methods = [method for pair in PAIRS for method in pair]
    if args.split:
        documents_by_corpus = [(name, read_corpus_dir(CORPORA / name, "train")[:args.documents])
                               for name in args.corpora]
        rows, lines = split_table(documents_by_corpus, args.topics, methods)
        write_results(args.name, {"settings": vars(args), "threads": 1,
                                  "clock": "process CPU time, cProfile", "rows": rows},
                      "Where a fit's time goes, plain and boosted (one thread, one pass, P = 20, "
                      "minibatches of 100, CPU seconds under cProfile)", command_line(), lines)
        print("\n".join(lines))
        return
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
