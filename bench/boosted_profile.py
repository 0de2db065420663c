"""Where a boosted step's time goes against a plain step (issue 12, item 2): per part, ms per
minibatch, for g-oem, g-oem++, v-oem and v-oem++ on the same documents, one thread.

Each fit: ``OnlineLDA(K, method=..., batch_size=100, local_passes=20, n_passes=1,
random_state=0)`` on the first ``--documents`` training documents; every function of `PARTS`
is wrapped where the code looks it up, and each part gets its functions' *own* time (a
wrapper's time less that of the wrapped functions it calls; V-OEM++'s passes blend as they
sum, `blend_entry_topic_sums`, counted in "word statistics"), in CPU seconds of this thread
(`time.thread_time`), the best of ``--repeats`` fits; "outside" is the fit's time that no
wrapper takes (minibatches, the fit loop). Unlike ``boosted_cost.py --split`` (cProfile) the
Python parts carry only a wrapper's cost, about a microsecond per call. Functions a checkout
does not have are left out, so ``cd OLD && PYTHONPATH=src python NEW/bench/boosted_profile.py``
splits an older checkout the same way.

Usage: python bench/boosted_profile.py [--corpora debian newsarticles] [--topics 100]
           [--documents 3000] [--repeats 2] [--name boosted_profile]
Writes bench/results/NAME.{json,md} and prints the table.
"""

from __future__ import annotations

import os

for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import argparse  # noqa: E402
import inspect  # noqa: E402
import time  # noqa: E402

from measuring import CORPORA, command_line, write_results  # noqa: E402
from streamtopics import engine, read_corpus_dir  # noqa: E402
from streamtopics.estimators import OnlineLDA  # noqa: E402
from streamtopics.inference import (alpha_updates, gibbs_estep, global_parameters,  # noqa: E402
                                    stats, variational_estep)

METHODS = ("g-oem", "g-oem++", "v-oem", "v-oem++")
# part -> the (owner, attribute) it times.
PARTS = {
    "E-step kernel": [(gibbs_estep, "gibbs_sweeps"), (variational_estep, "variational_passes")],
    "word statistics": [(gibbs_estep, name) for name in (
        "end_state_statistics", "group_sums", "clear_sets", "column_sets", "scaled_rows",
        "add_scaled_rows", "tree_block_totals")] + [
        (variational_estep, "entry_topic_sums"), (variational_estep, "log_theta_rows"),
        (variational_estep, "blend_entry_topic_sums")],
    "blend rows": [(stats, "blend_rows")],
    "word weights rows": [(global_parameters, "affine_rows")],
    "rows copy": [(stats.SufficientStats, "word_rows"), (stats.SufficientStats, "set_word_rows"),
                  (stats.WordRows, "copy")],
    "alpha": [(alpha_updates.MinkaFixedPoint, "__call__")],
    "local run (Python)": [(gibbs_estep.GibbsRun, name) for name in (
        "advance", "statistics", "word_statistics")] + [
        (variational_estep.VariationalRun, name) for name in (
            "advance", "statistics", "word_statistics")],
    "M-step (Python)": [(stats.SufficientStats, "blend"),
                        (global_parameters.PointEstimate, "word_weights")],
    "engine (Python)": [(engine.OnlineEM, "partial_fit")],
}


def wrap(function, part, seconds, stack):
    def wrapper(*args, **kwargs):
        stack.append(0.0)
        started = time.thread_time()
        try:
            return function(*args, **kwargs)
        finally:
            elapsed = time.thread_time() - started
            inner = stack.pop()
            seconds[part] += elapsed - inner
            if stack:
                stack[-1] += elapsed
    return wrapper


def install(seconds, stack):
    """Wrap every function of `PARTS` the checkout has; returns how to undo it."""
    originals = []
    for part, targets in PARTS.items():
        for owner, name in targets:
            if name not in vars(owner):
                continue
            originals.append((owner, name, vars(owner)[name]))
            setattr(owner, name, wrap(inspect.getattr_static(owner, name), part, seconds, stack))

    def undo():
        for owner, name, function in originals:
            setattr(owner, name, function)
    return undo


def profile(documents, n_topics, method, repeats) -> tuple[dict, float]:
    """ms per minibatch of each part (and the total) of the fastest of ``repeats`` fits."""
    best = None
    for _ in range(repeats):
        seconds, stack = dict.fromkeys(PARTS, 0.0), []
        undo = install(seconds, stack)
        try:
            model = OnlineLDA(n_topics, method=method, batch_size=100, local_passes=20,
                              n_passes=1, random_state=0)
            started = time.thread_time()
            model.fit(documents)
            total = time.thread_time() - started
        finally:
            undo()
        if best is None or total < best[1]:
            best = (seconds, total)
    seconds, total = best
    seconds["outside"] = total - sum(seconds.values())
    steps = -(-documents.n_documents // 100)
    return {part: 1e3 * value / steps for part, value in seconds.items()}, 1e3 * total / steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpora", nargs="+", default=["debian", "newsarticles"])
    parser.add_argument("--topics", type=int, default=100)
    parser.add_argument("--documents", type=int, default=3000)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--name", default="boosted_profile")
    args = parser.parse_args()
    rows = []
    for corpus_name in args.corpora:
        documents = read_corpus_dir(CORPORA / corpus_name, "train")[:args.documents]
        for method in METHODS:  # compile outside the timing
            OnlineLDA(args.topics, method=method, batch_size=100, n_passes=1,
                      random_state=0).fit(documents[:200])
        for method in METHODS:
            parts, total = profile(documents, args.topics, method, args.repeats)
            rows.append({"corpus": corpus_name, "method": method, "total": total, **parts})
            print(rows[-1], flush=True)
    names = [*PARTS, "outside"]
    lines = ["| corpus | method | " + " | ".join(names) + " | **step** |",
             "|---|---|" + "---:|" * (len(names) + 1)]
    lines += [f"| {r['corpus']} | {r['method']} | " + " | ".join(f"{r[n]:.2f}" for n in names)
              + f" | **{r['total']:.2f}** |" for r in rows]
    lines += ["", f"K = {args.topics}, the first {args.documents} training documents, "
              "minibatches of 100, P = 20, one pass, one thread, CPU ms per minibatch (own time "
              f"of each part's functions), best of {args.repeats} fits."]
    write_results(args.name, {"settings": vars(args), "threads": 1, "clock": "thread CPU time",
                              "rows": rows},
                  "Where a plain and a boosted step's time goes (ms per minibatch)",
                  command_line(), lines)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
