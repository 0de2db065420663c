"""How many tokens per second does batch collapsed Gibbs sampling sweep, against tomotopy and
the lda package?

streamtopics' `GibbsState` (SparseLDA and dense kernels) next to tomotopy (`LDAModel`, one
worker) and the `lda` package, measured in the same run.

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

Peers not installed are skipped with a line saying so. ``--quick``: a small planted corpus.

Usage: python bench/cgs_throughput.py [--corpus debian] [--documents 5000] [--iterations 50]
       [--topics 10 100 500] [--samplers sparse dense] [--repeats 2] [--no-lda] [--quick]
"""

from __future__ import annotations

import time

from engines import missing  # first: `measuring` pins BLAS and numba to one thread
from measuring import arguments, parse, planted, read_split, write_results

import numpy as np  # noqa: E402

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
    parser = arguments(__doc__)
    parser.add_argument("--corpus", default="debian")
    parser.add_argument("--documents", type=int, default=5000)
    parser.add_argument("--iterations", type=int, default=50)
    parser.add_argument("--late", type=int, default=10, help="last sweeps for the late sweep cost")
    parser.add_argument("--topics", type=int, nargs="+", default=[10, 100, 500])
    parser.add_argument("--samplers", nargs="+", default=["sparse", "dense"], choices=SAMPLERS)
    parser.add_argument("--no-lda", action="store_true",
                        help="skip the lda package (slow at K = 500)")
    args = parse(parser, argv)
    if args.quick:
        corpus, _, _ = planted()
        args.corpus, args.topics, args.iterations, args.late = "planted", [5, 20], 10, 5
    else:
        corpus = read_split(args.corpus, "train", args.documents)
    tokens, offsets = corpus.document_tokens()
    tokens = tokens.astype(np.int32)
    n_tokens = tokens.size
    for sampler in args.samplers:  # compile outside the timing
        warm = GibbsState.random(tokens[:offsets[2]], offsets[:3], 3, corpus.n_words, SEED)
        warm.sweep(np.full(3, ALPHA), ETA, SEED, 1, sampler)
        warm.estimate(np.full(3, ALPHA), ETA, "p")

    peers = [peer for peer in ("tomotopy", "lda") if not (peer == "lda" and args.no_lda)]
    skipped = {peer: reason for peer in peers if (reason := missing(peer))}
    for peer, reason in skipped.items():
        print(f"skipped {peer}: {reason}", flush=True)
    peers = [peer for peer in peers if peer not in skipped]
    rows = [measure(tokens, offsets, corpus, n_topics, peers, args) for n_topics in args.topics]
    table = markdown(rows, corpus, n_tokens, args, peers)
    table += [f"Skipped {peer}: {reason}." for peer, reason in skipped.items()]
    first = args.samplers[0]
    headline = [f"K = {row['K']}: {first} {row[first] / 1e6:.2f} M tokens/s"
                + "".join(f", {row[first] / row[peer]:.2f}x {peer}" for peer in peers)
                for row in rows]
    write_results(args, {"documents": corpus.n_documents, "tokens": n_tokens, "skipped": skipped,
                         "rows": rows},
                  "Collapsed Gibbs sampling throughput (one thread, CPU seconds)", table, headline)


def measure(tokens, offsets, corpus, n_topics, peers, args) -> dict:
    """One K: every sampler and peer ``args.repeats`` times by turns; tokens/s of the best run
    of each, and the CGS_p costs of each sampler."""
    rate = (lambda seconds: tokens.size * args.iterations / seconds)
    row, best, tomotopy_runs = {"K": n_topics}, {}, []
    for _ in range(args.repeats):
        for sampler in args.samplers:
            run = time_streamtopics(tokens, offsets, corpus.n_words, n_topics,
                                    args.iterations, sampler)
            earlier = best.get(sampler, run)
            best[sampler] = (min(earlier[0], run[0], key=np.sum), min(earlier[1], run[1]),
                             min(earlier[2], run[2]), run[3])
        if "tomotopy" in peers:
            tomotopy_runs.append(time_tomotopy(tokens, offsets, corpus.vocabulary, n_topics,
                                               args.iterations))
    for sampler, (sweeps, pass_seconds, extra, log_joint) in best.items():
        row[sampler] = float(rate(sweeps.sum()))
        row[f"{sampler}_log_joint_per_token"] = log_joint
        row[f"{sampler}_sweep_seconds"] = float(sweeps.mean())
        row[f"{sampler}_late_sweep_seconds"] = float(sweeps[-args.late:].mean())
        row[f"{sampler}_cgsp_pass_seconds"] = pass_seconds
        row[f"{sampler}_cgsp_extra_estimate_seconds"] = extra
    if tomotopy_runs:
        seconds, row["tomotopy_ll_per_word"] = min(tomotopy_runs)
        row["tomotopy"] = rate(seconds)
    if "lda" in peers:
        row["lda"] = rate(time_lda_package(corpus.counts, n_topics, args.iterations))
    print(row, flush=True)
    return row


def markdown(rows, corpus, n_tokens, args, peers) -> list[str]:
    first = args.samplers[0]
    columns = [f"streamtopics {s}" for s in args.samplers] + [
        {"tomotopy": "tomotopy (1 worker)", "lda": "lda package"}[peer] for peer in peers]
    ratios = [f"{s} / {peer}" for s in args.samplers for peer in peers]
    table = [
        f"Million tokens/s per iteration ({args.corpus}: {corpus.n_documents} training "
        f"documents, {n_tokens} tokens, V = {corpus.n_words}; {args.iterations} sweeps from a "
        f"random start; one thread; CPU time, best of {args.repeats} runs by turns; the lda "
        f"package runs once). CGS_p pass in {first} sweeps: over the run's mean sweep / over "
        f"its last {args.late} sweeps; extra: CGS_p estimate minus standard estimate, in late "
        f"sweeps.", "",
        "| K | " + " | ".join(columns + ratios) + " | CGS_p pass (mean / late) | CGS_p extra |",
        "|" + "---:|" * (len(columns) + len(ratios) + 3)]
    for row in rows:
        late = row[f"{first}_late_sweep_seconds"]
        cells = [f"{row[name] / 1e6:.2f}" for name in args.samplers + peers]
        cells += [f"{row[s] / row[peer]:.2f}" for s in args.samplers for peer in peers]
        cells.append(f"{row[f'{first}_cgsp_pass_seconds'] / row[f'{first}_sweep_seconds']:.1f} / "
                     f"{row[f'{first}_cgsp_pass_seconds'] / late:.1f}")
        cells.append(f"{row[f'{first}_cgsp_extra_estimate_seconds'] / late:.1f}")
        table.append(f"| {row['K']} | " + " | ".join(cells) + " |")
    return table


if __name__ == "__main__":
    main()
