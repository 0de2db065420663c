"""Collapsed Gibbs sampling throughput: streamtopics (SparseLDA and dense kernels) next to tomotopy
(`LDAModel`, one worker) and the `lda` package, measured in the same run (issue 12, item 3).

Tokens per second per iteration = tokens x iterations / seconds of sampling, every sampler
starting from a random assignment and running the same number of sweeps (alpha = 0.1,
eta = 0.01, no hyperparameter optimisation), tokens in reading order (``train.tokens.jsonl``).
Seconds are CPU seconds of this process (`time.process_time`: the machine is shared, and CPU
time does not count the time another process holds the core), the best of ``--repeats`` runs,
run by turns (streamtopics, tomotopy, streamtopics, ...) so that a busy spell hits all alike.
Initialisation is excluded where the library allows it (streamtopics, tomotopy); the `lda`
package (run once) includes its cheap random initialisation and one log-likelihood evaluation.

Also timed, on the state after the last sweep: one CGS_p estimator pass (the phi^p and theta^p
soft counts of Papanikolaou et al. 2017, Algorithm 1: `GibbsState.soft_counts`, output
allocation included), reported in sweeps twice: over the mean sweep of the run and over the
mean of its last ``--late`` sweeps (a sparse sweep gets cheaper as the chain concentrates, so the
second is the stricter), and the extra cost of the CGS_p estimate over the standard one
(`GibbsState.estimate`, both materialising phi K x V and theta D x K).

Usage: python bench/cgs_throughput.py [--corpus DIR] [--documents 5000] [--iterations 50]
       [--topics 10 20 100 500] [--samplers sparse dense] [--repeats 3] [--no-lda]
       [--output cgs_throughput]
Writes bench/results/OUTPUT.{json,md} (``--output``, default cgs_throughput; another name to
keep a run of another checkout side by side) and prints the table.
"""

from __future__ import annotations

import os

for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import argparse  # noqa: E402
import platform  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

from measuring import CORPORA, command_line, write_results  # noqa: E402
from streamtopics import read_corpus_dir  # noqa: E402
from streamtopics.inference.cgs import SAMPLERS, GibbsState  # noqa: E402

ALPHA, ETA, SEED = 0.1, 0.01, 1


def time_streamtopics(tokens, offsets, n_words, n_topics, iterations, sampler):
    """(sweep CPU seconds, one per sweep; CGS_p pass seconds; CGS_p minus standard estimate
    seconds; log p(w, z) per token at the end)."""
    alpha = np.full(n_topics, ALPHA)
    state = GibbsState.random(tokens, offsets, n_topics, n_words, SEED)
    sweeps = []
    for sweep in range(1, iterations + 1):
        start = time.process_time()
        state.sweep(alpha, ETA, SEED, sweep, sampler)
        sweeps.append(time.process_time() - start)
    pass_seconds = best_of(lambda: state.soft_counts(alpha, ETA))
    extra = (best_of(lambda: state.estimate(alpha, ETA, "p"))
             - best_of(lambda: state.estimate(alpha, ETA, "standard")))
    return np.asarray(sweeps), pass_seconds, extra, state.log_joint(alpha, ETA) / tokens.size


def best_of(call, times=3):
    """The least CPU seconds of ``times`` calls."""
    seconds = []
    for _ in range(times):
        start = time.process_time()
        call()
        seconds.append(time.process_time() - start)
    return min(seconds)


def time_tomotopy(tokens, offsets, vocabulary, n_topics, iterations):
    import tomotopy as tp
    model = tp.LDAModel(k=n_topics, alpha=ALPHA, eta=ETA, seed=SEED)
    model.optim_interval = 0
    for d in range(offsets.size - 1):
        model.add_doc([str(vocabulary[w]) for w in tokens[offsets[d]:offsets[d + 1]]])
    model.train(0, workers=1)
    start = time.process_time()
    model.train(iterations, workers=1)
    return time.process_time() - start, float(model.ll_per_word)


def time_lda_package(counts, n_topics, iterations):
    import logging

    import lda
    logging.getLogger("lda").setLevel(logging.ERROR)
    model = lda.LDA(n_topics=n_topics, n_iter=iterations, alpha=ALPHA, eta=ETA,
                    random_state=SEED, refresh=iterations)
    start = time.process_time()
    model.fit(counts.astype(np.int64))
    return time.process_time() - start


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", type=Path, default=CORPORA / "debian")
    parser.add_argument("--documents", type=int, default=5000)
    parser.add_argument("--iterations", type=int, default=50)
    parser.add_argument("--late", type=int, default=10, help="last sweeps for the late sweep cost")
    parser.add_argument("--topics", type=int, nargs="+", default=[10, 20, 100, 500])
    parser.add_argument("--samplers", nargs="+", default=["sparse", "dense"], choices=SAMPLERS)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--no-lda", action="store_true", help="skip the lda package (slow at K = 500)")
    parser.add_argument("--output", default="cgs_throughput",
                        help="results name under bench/results (default cgs_throughput)")
    args = parser.parse_args(argv)
    corpus = read_corpus_dir(args.corpus, "train")[:args.documents]
    tokens, offsets = corpus.document_tokens()
    tokens = tokens.astype(np.int32)
    n_tokens = tokens.size
    for sampler in args.samplers:  # compile outside the timing
        warm = GibbsState.random(tokens[:offsets[2]], offsets[:3], 3, corpus.n_words, SEED)
        warm.sweep(np.full(3, ALPHA), ETA, SEED, 1, sampler)
        warm.estimate(np.full(3, ALPHA), ETA, "p")

    def rate(seconds):
        return n_tokens * args.iterations / seconds

    rows = []
    for n_topics in args.topics:
        row = {"K": n_topics}
        best = {}
        tomotopy_seconds = []
        for _ in range(args.repeats):
            for sampler in args.samplers:
                run = time_streamtopics(tokens, offsets, corpus.n_words, n_topics,
                                        args.iterations, sampler)
                if sampler not in best:
                    best[sampler] = run
                best[sampler] = (min(best[sampler][0], run[0], key=np.sum),
                                 min(best[sampler][1], run[1]), min(best[sampler][2], run[2]),
                                 run[3])
            try:
                tomotopy_seconds.append(time_tomotopy(tokens, offsets, corpus.vocabulary,
                                                      n_topics, args.iterations))
            except ImportError:
                pass
        for sampler, (sweeps, pass_seconds, extra, log_joint) in best.items():
            row[sampler] = float(rate(sweeps.sum()))
            row[f"{sampler}_log_joint_per_token"] = log_joint
            row[f"{sampler}_sweep_seconds"] = float(sweeps.mean())
            row[f"{sampler}_late_sweep_seconds"] = float(sweeps[-args.late:].mean())
            row[f"{sampler}_cgsp_pass_seconds"] = pass_seconds
            row[f"{sampler}_cgsp_extra_estimate_seconds"] = extra
        if tomotopy_seconds:
            seconds, row["tomotopy_ll_per_word"] = min(tomotopy_seconds)
            row["tomotopy"] = rate(seconds)
        if not args.no_lda:
            try:
                row["lda"] = rate(time_lda_package(corpus.counts, n_topics, args.iterations))
            except ImportError:
                pass
        rows.append(row)
        print(row, flush=True)

    def ratio(a, b):
        return f"{a / b:.2f}" if a and b else "n/a"

    def mtok(x):
        return f"{x / 1e6:.2f}" if x else "n/a"

    first = args.samplers[0]
    peers = ["tomotopy"] + ([] if args.no_lda else ["lda"])
    columns = [f"streamtopics {s}" for s in args.samplers] + ["tomotopy (1 worker)"] \
        + ([] if args.no_lda else ["lda package"])
    table = [
        f"Million tokens/s per iteration ({args.corpus.name}: first {corpus.n_documents} training "
        f"documents, {n_tokens} tokens, V = {corpus.n_words}; {args.iterations} sweeps from a random "
        f"start; one thread; CPU time, best of {args.repeats} runs by turns). CGS_p pass in {first} sweeps: over "
        f"the run's mean sweep / over its last {args.late} sweeps; extra: CGS_p estimate minus "
        f"standard estimate, in late sweeps.",
        "",
        "| K | " + " | ".join(columns) + " | " + " | ".join(f"{s} / tomotopy" for s in args.samplers)
        + " | CGS_p pass (mean / late) | CGS_p extra |",
        "| ---: " * (len(columns) + len(args.samplers) + 3) + "|",
    ]
    for row in rows:
        late = row[f"{first}_late_sweep_seconds"]
        cells = [mtok(row.get(s)) for s in args.samplers + peers]
        cells += [ratio(row.get(s), row.get("tomotopy")) for s in args.samplers]
        cells.append(f"{row[f'{first}_cgsp_pass_seconds'] / row[f'{first}_sweep_seconds']:.1f} / "
                     f"{row[f'{first}_cgsp_pass_seconds'] / late:.1f}")
        cells.append(f"{row[f'{first}_cgsp_extra_estimate_seconds'] / late:.1f}")
        table.append(f"| {row['K']} | " + " | ".join(cells) + " |")
    print("\n".join(table))
    payload = {"settings": {**vars(args), "corpus": str(args.corpus)}, "documents": corpus.n_documents,
               "tokens": n_tokens, "threads": 1, "timing": "process_time, best of repeats",
               "machine": platform.platform(), "processor": platform.processor(), "rows": rows}
    write_results(args.output, payload, "Collapsed Gibbs sampling throughput (issue 12, item 3)",
                  command_line(), table)


if __name__ == "__main__":
    main()
