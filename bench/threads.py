"""How much faster is a fit on two threads than on one, and is the model the same?

The same fit with 1 and 2 numba threads in one process (run with ``NUMBA_NUM_THREADS=2``), the
thread counts by turns, ``--repeats`` times; the speed-up (medians and bests, wall clock: it
means something only on an otherwise idle machine, so the load average is recorded), whether
the model is bit-identical (it must be: every document draws from its own counter-based
stream), and the share of the one-thread fit spent in the part that runs in parallel (Amdahl:
the rest bounds the speed-up), timed where the inference layer calls it:

* G-OEM one pass, ``OnlineLDA(K, method="g-oem", n_passes=1, batch_size=B, random_state=0)``
  for each B of ``--batch-sizes``; its parallel part is the local step (`GibbsRun.advance`,
  documents in parallel); building the minibatch, the M-step and alpha run on one thread;
* ``GibbsLDA(K, n_passes=P, burn_in=P // 2, lag=5, n_samples=2, random_state=0)``, P =
  ``--gibbs-passes``: exact collapsed Gibbs sweeps are sequential, and with
  ``parallel_blocks=B`` for each B of ``--gibbs-blocks`` the approximate AD-LDA sweeps run
  blocks in parallel; the share is that of the sweeps (`GibbsState.sweep`).

BLAS stays at one thread. ``--quick``: a small planted corpus.

Usage: NUMBA_NUM_THREADS=2 python bench/threads.py [--corpus debian] [--topics 100]
           [--documents 0] [--batch-sizes 100 1000] [--gibbs-passes 20] [--gibbs-blocks 2 4]
           [--repeats 3] [--quick]
"""

from __future__ import annotations

import os
import statistics
import time

from measuring import arguments, method_clock, parse, planted, read_split, write_results

import numba  # noqa: E402
import numpy as np  # noqa: E402

from streamtopics.estimators import GibbsLDA, OnlineLDA  # noqa: E402
from streamtopics.inference.cgs import GibbsState  # noqa: E402
from streamtopics.inference.gibbs_estep import GibbsRun  # noqa: E402


def models(n_topics, args) -> dict:
    """name -> (make the model, (class, method) of its parallel or dominant part)."""
    chosen = {f"G-OEM (1 pass, minibatches of {size})": (
        lambda size=size: OnlineLDA(n_topics, method="g-oem", n_passes=1, batch_size=size,
                                    random_state=0), (GibbsRun, "advance"))
        for size in args.batch_sizes}
    for blocks in (0, *args.gibbs_blocks) if args.gibbs_passes else ():
        chosen[f"GibbsLDA ({args.gibbs_passes} passes, "
               + ("exact)" if blocks == 0 else f"AD-LDA {blocks} blocks)")] = (
            lambda blocks=blocks: GibbsLDA(n_topics, n_passes=args.gibbs_passes,
                                           burn_in=args.gibbs_passes // 2, lag=5, n_samples=2,
                                           random_state=0,
                                           **({"parallel_blocks": blocks} if blocks else {})),
            (GibbsState, "sweep"))
    return chosen


def timed_fit(make, documents, threads):
    numba.set_num_threads(threads)
    model = make()
    started = time.perf_counter()
    model.fit(documents)
    return time.perf_counter() - started, model.components_


def kernel_share(make, documents, target) -> float:
    """The share of a one-thread fit's wall time spent inside ``target``."""
    with method_clock(*target, time.perf_counter) as inside:
        seconds, _ = timed_fit(make, documents, 1)
    return inside[0] / seconds


def measure(name, make, target, documents, args) -> dict:
    for threads in (1, 2):
        timed_fit(make, documents[:200], threads)  # compile outside the timing
    seconds, reference, same = {1: [], 2: []}, None, True
    for _ in range(args.repeats):
        for threads in (1, 2):
            elapsed, components = timed_fit(make, documents, threads)
            seconds[threads].append(elapsed)
            reference = components if reference is None else reference
            same = same and bool(np.array_equal(components, reference))
    one, two = statistics.median(seconds[1]), statistics.median(seconds[2])
    row = {"model": name, "documents": documents.n_documents, "one_thread_seconds": one,
           "two_threads_seconds": two, "speed_up": one / two,
           "best_speed_up": min(seconds[1]) / min(seconds[2]), "seconds": seconds,
           "parallel_part": f"{target[0].__name__}.{target[1]}",
           "parallel_share": kernel_share(make, documents, target), "same_model": same,
           "load_average": os.getloadavg()[0]}
    print({key: value for key, value in row.items() if key != "seconds"}, flush=True)
    return row


def main() -> None:
    parser = arguments(__doc__, repeats=3)
    parser.add_argument("--corpus", default="debian")
    parser.add_argument("--topics", type=int, default=100)
    parser.add_argument("--documents", type=int, default=0, help="0: all")
    parser.add_argument("--batch-sizes", type=int, nargs="+", default=[100, 1000])
    parser.add_argument("--gibbs-passes", type=int, default=20, help="0: no GibbsLDA")
    parser.add_argument("--gibbs-blocks", type=int, nargs="*", default=[2, 4])
    args = parse(parser)
    if numba.config.NUMBA_NUM_THREADS < 2:
        raise SystemExit("needs NUMBA_NUM_THREADS >= 2")
    if args.quick:
        documents, _, truth = planted()
        args.corpus, args.topics = "planted", truth.beta.shape[0]
        args.batch_sizes, args.gibbs_passes, args.gibbs_blocks = [100], 4, [2]
    else:
        documents = read_split(args.corpus, "train", args.documents or None)
    rows = [measure(name, make, target, documents, args)
            for name, (make, target) in models(args.topics, args).items()]
    lines = ["| model | documents | 1 thread s | 2 threads s | speed-up (median) | speed-up "
             "(best) | parallel part's share of 1 thread | same model | load average |",
             "|---|---:|---:|---:|---:|---:|---:|---|---:|"]
    lines += [f"| {r['model']} | {r['documents']} | {r['one_thread_seconds']:.2f} | "
              f"{r['two_threads_seconds']:.2f} | {r['speed_up']:.2f} | {r['best_speed_up']:.2f} "
              f"| {r['parallel_share']:.0%} ({r['parallel_part']}) | "
              f"{'yes' if r['same_model'] else 'NO'} | {r['load_average']:.1f} |" for r in rows]
    lines += ["", f"{args.corpus}, K = {args.topics}; medians (best) of {args.repeats} fits per "
              "thread count, wall clock, thread counts by turns in one process. Parallel part's "
              "share: the one-thread time inside the named method (G-OEM: the local step, "
              "parallel over documents; GibbsLDA: the sweeps, sequential when exact)."]
    headline = [f"{r['model']}: {r['speed_up']:.2f}x on 2 threads"
                + ("" if r["same_model"] else " (models DIFFER)") for r in rows]
    write_results(args, {"rows": rows}, "1 against 2 numba threads, same run", lines, headline)


if __name__ == "__main__":
    main()
