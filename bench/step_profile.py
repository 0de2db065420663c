"""Where one G-OEM step's time goes (issue 12, item 4): the E-step kernel, which runs the
minibatch's documents in parallel, and the rest of the step, which bounds the speed-up of more
threads (Amdahl). ``OnlineLDA(K, method="g-oem", n_passes=1, batch_size=B, random_state=0)`` on
the training set, each part's time added up over the steps by a wrapper where the code looks
it up, reported in ms per step (the best of ``--repeats`` fits):

* minibatch: making it from the corpus rows (`Minibatch.from_rows`);
* word weights: the minibatch words' beta rows (`PointEstimate.word_weights`);
* E-step kernel: `kernels.local_gibbs.gibbs_sweeps` (parallel over documents);
* E-step statistics: the run's word rows and s2 (`GibbsRun.statistics`; parallel over words);
* E-step rest: the run's arrays, the kernel's arguments, the chunk and tree (Python);
* blend: eq. 3 on the minibatch's rows (`PointEstimate.blend`);
* alpha: the fixed point (`MinkaFixedPoint`);
* step rest: the engine (step size, report) and the fit loop around the steps.

``--threads 1`` (default) reads CPU seconds of the main thread (`time.thread_time`; fair on a
shared machine); more threads read wall time (run it on a quiet machine).

Usage: python bench/step_profile.py [--corpus debian] [--topics 100] [--batch-size 100]
           [--threads 1] [--repeats 3] [--name step_profile]
Writes bench/results/NAME.{json,md} and prints the table.
"""

from __future__ import annotations

import os

for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import argparse  # noqa: E402
import inspect  # noqa: E402
import time  # noqa: E402

import numba  # noqa: E402

from measuring import CORPORA, command_line, write_results  # noqa: E402
from streamtopics import read_corpus_dir  # noqa: E402
from streamtopics.estimators import OnlineLDA  # noqa: E402
from streamtopics.inference import alpha_updates, gibbs_estep, global_parameters  # noqa: E402
from streamtopics.inference.minibatch import Minibatch  # noqa: E402

# part -> (owner, attribute) timed there; "E-step rest" and "step rest" are what is left.
# (Checkouts before Minibatch.from_rows sliced the rows in the fit loop: "step rest" there.)
PARTS = {"minibatch": (Minibatch, "from_rows" if hasattr(Minibatch, "from_rows")
                       else "from_counts"),
         "word weights": (global_parameters.PointEstimate, "word_weights"),
         "E-step kernel": (gibbs_estep, "gibbs_sweeps"),
         "E-step statistics": (gibbs_estep.GibbsRun, "statistics"),
         "blend": (global_parameters.PointEstimate, "blend"),
         "alpha": (alpha_updates.MinkaFixedPoint, "__call__")}


def timed(function, clock, seconds, part):
    def wrapper(*args, **kwargs):
        started = clock()
        result = function(*args, **kwargs)
        seconds[part] += clock() - started
        return result
    return wrapper


def install(clock, seconds):
    """Wrap every part of `PARTS` and the E-step as a whole; returns how to undo it."""
    from streamtopics import engine
    targets = {**PARTS, "E-step": (engine.OnlineEM, "_minibatch_statistics")}
    originals = {part: owner.__dict__.get(name) for part, (owner, name) in targets.items()}
    for part, (owner, name) in targets.items():
        function = inspect.getattr_static(owner, name)
        if isinstance(function, classmethod):
            setattr(owner, name, classmethod(timed(function.__func__, clock, seconds, part)))
        else:
            setattr(owner, name, timed(function, clock, seconds, part))

    def undo():
        for part, function in originals.items():
            owner, name = targets[part]
            if function is None:  # inherited: remove the wrapper
                delattr(owner, name)
            else:
                setattr(owner, name, function)
    return undo


def profile(documents, topics, batch_size, clock, repeats):
    """Per part, ms per step of the fastest of ``repeats`` fits (and its total)."""
    best = None
    for _ in range(repeats):
        seconds = dict.fromkeys([*PARTS, "E-step"], 0.0)
        undo = install(clock, seconds)
        try:
            model = OnlineLDA(topics, method="g-oem", n_passes=1, batch_size=batch_size,
                              random_state=0)
            started = clock()
            model.fit(documents)
            total = clock() - started
        finally:
            undo()
        if best is None or total < best[0]:
            best = (total, seconds)
    total, seconds = best
    inner = ("word weights", "E-step kernel", "E-step statistics")
    seconds["E-step rest"] = seconds.pop("E-step") - sum(seconds[part] for part in inner)
    seconds["step rest"] = total - sum(seconds.values())
    steps = -(-documents.n_documents // batch_size)
    return {part: 1e3 * value / steps for part, value in seconds.items()}, 1e3 * total / steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", default="debian")
    parser.add_argument("--topics", type=int, default=100)
    parser.add_argument("--batch-size", type=int, default=100)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--name", default="step_profile")
    args = parser.parse_args()
    documents = read_corpus_dir(CORPORA / args.corpus, "train")
    numba.set_num_threads(args.threads)
    clock = time.thread_time if args.threads == 1 else time.perf_counter
    OnlineLDA(args.topics, method="g-oem", n_passes=1, batch_size=args.batch_size,
              random_state=0).fit(documents[:300])  # compile
    parts, total = profile(documents, args.topics, args.batch_size, clock, args.repeats)
    serial = total - parts["E-step kernel"]
    print({"ms per step": total, **parts}, flush=True)
    lines = ["| part | ms per step | share |", "|---|---:|---:|"]
    lines += [f"| {part} | {value:.3f} | {value / total:.1%} |" for part, value in parts.items()]
    lines += [f"| **step** | **{total:.3f}** | 100% |", "",
              f"{args.corpus}, K = {args.topics}, minibatches of {args.batch_size}, "
              f"{args.threads} thread(s), {'CPU' if args.threads == 1 else 'wall'} time, best "
              f"of {args.repeats} fits; everything but the E-step kernel: {serial:.3f} ms "
              f"({serial / total:.1%})."]
    write_results(args.name, {"settings": vars(args), "ms_per_step": parts, "total": total},
                  "Where a G-OEM step's time goes", command_line(), lines)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
