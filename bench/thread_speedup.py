"""1 against 2 numba threads (issue 12, item 4): the same fit with each thread count in one
process, the speed-up, whether the model is the same bit for bit (it must be: every document
draws from its own counter-based stream), and the share of the one-thread time spent in the
kernels that run in parallel (Amdahl: the rest bounds the speed-up).

Fits on the first ``--documents`` training documents (0: all of them):

* G-OEM one pass, ``OnlineLDA(K, method="g-oem", n_passes=1, batch_size=B, random_state=0)``
  for each ``--batch-sizes`` B; its parallel part is the local Gibbs E-step kernel (documents
  in parallel); the rest of a step (building the minibatch, the M-step over its words, alpha's
  fixed point, Python) runs on one thread.
* ``GibbsLDA(K, n_passes=P, burn_in=P // 2, lag=5, n_samples=2, random_state=0)``, P =
  ``--gibbs-passes``: exact collapsed Gibbs sweeps are sequential; the share reported is that
  of the sweeps. With ``parallel_blocks=B`` for each ``--gibbs-blocks`` B: the approximate
  AD-LDA sweeps (`kernels.cgs_blocks`), blocks in parallel; the share is theirs.
  ``--gibbs-passes 0``: no GibbsLDA rows.

Each time is the median (and the best) of ``--repeats`` fits, wall clock, the thread counts
interleaved; compilation is excluded; BLAS stays at one thread. Wall time means something only
on an otherwise idle machine (run it through a quiet wrapper on a shared one): the JSON records
the load average. The shares are measured in a separate one-thread fit with the kernels timed.

Usage: python bench/thread_speedup.py [--corpus debian] [--topics 100] [--documents 0]
           [--batch-sizes 100 1000] [--gibbs-passes 20] [--gibbs-blocks 2 4] [--repeats 3]
           [--name thread_speedup]
Writes bench/results/NAME.{json,md} and prints the table.
"""

from __future__ import annotations

import os

for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import argparse  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402
from contextlib import contextmanager  # noqa: E402

import numba  # noqa: E402
import numpy as np  # noqa: E402

from measuring import CORPORA, command_line, write_results  # noqa: E402
from streamtopics import read_corpus_dir  # noqa: E402
from streamtopics.estimators import GibbsLDA, OnlineLDA  # noqa: E402
from streamtopics.inference import cgs, gibbs_estep  # noqa: E402


def models(n_topics, batch_sizes, gibbs_passes, gibbs_blocks):
    """name -> (make the model, (module, kernel name) of its parallel or dominant part)."""
    chosen = {f"G-OEM (1 pass, minibatches of {size})": (
        lambda size=size: OnlineLDA(n_topics, method="g-oem", n_passes=1, batch_size=size,
                                    random_state=0),
        (gibbs_estep, "gibbs_sweeps")) for size in batch_sizes}
    for blocks in (0, *gibbs_blocks) if gibbs_passes else ():
        chosen[f"GibbsLDA ({gibbs_passes} passes, "
               + ("exact)" if blocks == 0 else f"AD-LDA {blocks} blocks)")] = (
            lambda blocks=blocks: GibbsLDA(n_topics, n_passes=gibbs_passes,
                                           burn_in=gibbs_passes // 2, lag=5, n_samples=2,
                                           random_state=0,
                                           **({"parallel_blocks": blocks} if blocks else {})),
            (cgs.kernels, "sweep_sparse") if blocks == 0 else (cgs.block_kernels, "sweep_blocks"))
    return chosen


def timed_fit(make, documents, threads):
    numba.set_num_threads(threads)
    model = make()
    started = time.perf_counter()
    model.fit(documents)
    return time.perf_counter() - started, model.components_


@contextmanager
def kernel_clock(module, name, clock):
    """``module.name`` timed (wall clock, added to ``clock[0]``) while inside."""
    kernel = getattr(module, name)

    def timed(*args):
        started = time.perf_counter()
        result = kernel(*args)
        clock[0] += time.perf_counter() - started
        return result

    setattr(module, name, timed)
    try:
        yield
    finally:
        setattr(module, name, kernel)


def kernel_share(make, documents, target) -> float:
    """The share of a one-thread fit's wall time spent inside ``target``."""
    clock = [0.0]
    with kernel_clock(*target, clock):
        seconds, _ = timed_fit(make, documents, 1)
    return clock[0] / seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", default="debian")
    parser.add_argument("--topics", type=int, default=100)
    parser.add_argument("--documents", type=int, default=0)
    parser.add_argument("--batch-sizes", type=int, nargs="+", default=[100, 1000])
    parser.add_argument("--gibbs-passes", type=int, default=20)
    parser.add_argument("--gibbs-blocks", type=int, nargs="*", default=[2, 4])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--name", default="thread_speedup")
    args = parser.parse_args()
    if numba.config.NUMBA_NUM_THREADS < 2:
        raise SystemExit("needs NUMBA_NUM_THREADS >= 2")
    documents = read_corpus_dir(CORPORA / args.corpus, "train")
    if args.documents:
        documents = documents[:args.documents]
    rows = []
    for name, (make, target) in models(args.topics, args.batch_sizes, args.gibbs_passes,
                                          args.gibbs_blocks).items():
        for threads in (1, 2):
            timed_fit(make, documents[:200], threads)  # compile
        seconds, same = {1: [], 2: []}, True
        reference = None
        for _ in range(args.repeats):
            for threads in (1, 2):
                elapsed, components = timed_fit(make, documents, threads)
                seconds[threads].append(elapsed)
                reference = components if reference is None else reference
                same = same and bool(np.array_equal(components, reference))
        one, two = statistics.median(seconds[1]), statistics.median(seconds[2])
        rows.append({"model": name, "corpus": args.corpus, "K": args.topics,
                     "documents": documents.n_documents, "one_thread_seconds": one,
                     "two_threads_seconds": two, "speed_up": one / two,
                     "best_speed_up": min(seconds[1]) / min(seconds[2]),
                     "seconds": seconds, "kernel": target[1],
                     "kernel_share": kernel_share(make, documents, target), "same_model": same,
                     "load_average": os.getloadavg()[0]})
        print({key: value for key, value in rows[-1].items() if key != "seconds"}, flush=True)
    lines = ["| model | corpus | K | documents | 1 thread s | 2 threads s | speed-up (median) "
             "| speed-up (best) | kernel share of 1 thread | same model | load average |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---|---:|"]
    lines += [f"| {r['model']} | {r['corpus']} | {r['K']} | {r['documents']} | "
              f"{r['one_thread_seconds']:.2f} | {r['two_threads_seconds']:.2f} | "
              f"{r['speed_up']:.2f} | {r['best_speed_up']:.2f} | "
              f"{r['kernel_share']:.1%} ({r['kernel']}) | {'yes' if r['same_model'] else 'NO'} | "
              f"{r['load_average']:.1f} |" for r in rows]
    lines += ["", f"Medians (best) of {args.repeats} fits per thread count, wall clock, thread "
              "counts interleaved in one process. Kernel share: the one-thread time spent in the "
              "named kernel (G-OEM: the parallel E-step; GibbsLDA: the sequential sweeps, or "
              "AD-LDA's parallel ones)."]
    write_results(args.name, {"settings": vars(args), "rows": rows},
                  "1 vs 2 numba threads, same run", command_line(), lines)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
