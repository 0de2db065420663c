"""Do threads pay, and does the default ever lose to one thread, on an idle machine and with a
busy core?

What each command computes, in one process, at ``n_jobs=None`` (the default: one thread), 1
and 2, by turns, ``--repeats`` times (wall clock, the best counting): first on the machine as it
is (idle, if nothing else runs: the load average is recorded), then with one core kept busy by
another process spinning (what a shared machine, a notebook beside a browser or a CI runner
does). Each cell is a speed ratio against one thread in the same condition: the default must
never fall below 0.9x, and two threads should pay on an idle machine. Every setting must give
the same numbers (every document draws from its own stream), and that is checked.

* fit: ``OnlineLDA(K, method="g-oem", n_passes=1)`` (minibatches of 100, P = 20) on the
  training documents; ``GibbsLDA(K, n_passes=20, parallel_blocks=2)`` (AD-LDA, two blocks
  sampled in parallel) on the first ``--gibbs-documents``;
* transform: that OnlineLDA's ``transform`` of the test documents (what a deployed model
  runs);
* evaluate: its ``score``, left-to-right with 20 particles, on the first ``--test-documents``
  test documents.

BLAS stays at one thread. ``--quick``: a small planted corpus.

Usage: NUMBA_NUM_THREADS=2 python bench/threads.py [--corpus debian] [--topics 100]
           [--gibbs-documents 5000] [--test-documents 300] [--repeats 3] [--quick]
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time

from measuring import arguments, interleaved, parse, planted, read_split, write_results

import numba  # noqa: E402
import numpy as np  # noqa: E402

from streamtopics.estimators import GibbsLDA, OnlineLDA  # noqa: E402

SETTINGS = {"default": None, "1 thread": 1, "2 threads": 2}
CONDITIONS = ("idle", "one core busy")


@contextlib.contextmanager
def busy_core(condition: str):
    """With "one core busy", another process spins on a core while the block runs."""
    if condition == "idle":
        yield
        return
    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        time.sleep(0.5)  # let it take its core
        yield
    finally:
        spinner.kill()
        spinner.wait()


def workloads(train, test, args) -> dict:
    """name -> (n_jobs -> (seconds, numbers))."""
    model = OnlineLDA(args.topics, method="g-oem", n_passes=1, random_state=0).fit(train)
    held_out = test[:args.test_documents]

    def timed(compute):
        def run(n_jobs):
            started = time.perf_counter()
            numbers = compute(n_jobs)
            return time.perf_counter() - started, numbers
        return run

    def fit_online(n_jobs):
        return OnlineLDA(args.topics, method="g-oem", n_passes=1, random_state=0,
                         n_jobs=n_jobs).fit(train).components_

    def fit_gibbs(n_jobs):
        return GibbsLDA(args.topics, n_passes=20, burn_in=10, lag=5, n_samples=2,
                        parallel_blocks=2, random_state=0,
                        n_jobs=n_jobs).fit(train[:args.gibbs_documents]).components_

    def transform(n_jobs):
        return model.set_params(n_jobs=n_jobs).transform(test)

    def evaluate(n_jobs):
        return np.array(model.set_params(n_jobs=n_jobs).score(held_out))

    return {"fit: G-OEM, one pass": timed(fit_online),
            "fit: GibbsLDA AD-LDA, 2 blocks": timed(fit_gibbs),
            "transform: OnlineLDA": timed(transform),
            "evaluate: left-to-right": timed(evaluate)}


def measure(name, run, condition, args) -> dict:
    run(1)  # compiled outside the timing
    with busy_core(condition):
        load = os.getloadavg()[0]
        timings = interleaved({label: (lambda n_jobs=n_jobs: run(n_jobs))
                               for label, n_jobs in SETTINGS.items()}, args.repeats)
    reference = timings["1 thread"].result
    row = {"command": name, "condition": condition, "load_average": load,
           "seconds": {label: timing.seconds for label, timing in timings.items()},
           "speed": {label: timings["1 thread"].best / timing.best
                     for label, timing in timings.items()},
           "same_numbers": all(np.array_equal(timing.result, reference)
                               for timing in timings.values())}
    print({key: value for key, value in row.items() if key != "seconds"}, flush=True)
    return row


def main() -> None:
    parser = arguments(__doc__, repeats=3)
    parser.add_argument("--corpus", default="debian")
    parser.add_argument("--topics", type=int, default=100)
    parser.add_argument("--gibbs-documents", type=int, default=5000)
    parser.add_argument("--test-documents", type=int, default=300)
    args = parse(parser)
    if numba.config.NUMBA_NUM_THREADS < 2:
        raise SystemExit("needs NUMBA_NUM_THREADS >= 2")
    if args.quick:
        train, test, truth = planted()
        args.corpus, args.topics = "planted", truth.beta.shape[0]
    else:
        train, test = read_split(args.corpus, "train"), read_split(args.corpus, "test")
    runs = workloads(train, test, args)
    rows = [measure(name, run, condition, args)
            for condition in CONDITIONS for name, run in runs.items()]
    lines = ["| command | condition | load average | default | 1 thread | 2 threads | same "
             "numbers |", "|---|---|---:|---:|---:|---:|---|"]
    lines += [f"| {r['command']} | {r['condition']} | {r['load_average']:.1f} | "
              + " | ".join(f"{r['speed'][label]:.2f}x" for label in SETTINGS)
              + f" | {'yes' if r['same_numbers'] else 'NO'} |" for r in rows]
    lines += ["", f"{args.corpus}, K = {args.topics}: speed against one thread in the same "
              f"condition (its best time over the setting's), best of {args.repeats} runs by "
              "turns, wall clock. One core busy: another process spins on it. The default is "
              "n_jobs=None, one thread."]
    worst_default = min(r["speed"]["default"] for r in rows)
    idle_two = [r["speed"]["2 threads"] for r in rows if r["condition"] == "idle"]
    busy_two = [r["speed"]["2 threads"] for r in rows if r["condition"] != "idle"]
    headline = [f"default against one thread, every cell: at least {worst_default:.2f}x",
                f"2 threads, idle: {min(idle_two):.2f}-{max(idle_two):.2f}x; one core busy: "
                f"{min(busy_two):.2f}-{max(busy_two):.2f}x"
                + ("" if all(r["same_numbers"] for r in rows) else " (numbers DIFFER)")]
    write_results(args, {"rows": rows}, "Threads against one thread, idle and with a busy core",
                  lines, headline)


if __name__ == "__main__":
    main()
