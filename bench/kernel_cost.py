"""What does G-OEM's local Gibbs step cost per token and pass, for each sampler, and what share
of a fit is it?

1. In real fits: per corpus (the first ``--train-documents`` training documents) and K, one
   pass of ``OnlineLDA(K, method="g-oem", n_passes=1, local_sampler=S)`` (minibatches of 100,
   P = 20) for each sampler S of "dense" (O(K) per token, the reference), "sparse" (O(topics in
   the document), what "auto" runs) and "mh" (Metropolis-Hastings, O(1) per step), the fits
   by turns, ``--repeats`` times, the best counting. Timed in CPU seconds of this thread: the
   local step (`GibbsRun.advance`, the chain) in nanoseconds per token-pass (its time /
   (tokens x P)), its statistics (`GibbsRun.statistics`) and their shares of the fit (the
   rest: minibatches, the M-step, alpha; what more threads cannot shorten). Each model is
   scored by left-to-right on the first ``--test-documents`` test documents (R = 10) with the
   paired difference to the dense sampler's: a kernel must not change the answer beyond noise.
2. Against the topics present in a document: the sparse sampler through the inference layer
   (``GibbsEstimator(passes=20, sampler="sparse").begin(batch, K, seed, index)`` then
   ``run.advance(weights, alpha, 20)``) on synthetic minibatches whose documents can only use
   m topics (each word's weight sits on the same m topics), K = 100: the cost of a draw grows
   with the topics present, not with K.

``--quick``: a small planted corpus and small minibatches.

Usage: python bench/kernel_cost.py [--corpora debian newsarticles] [--topics 10 100]
           [--train-documents 6000] [--test-documents 300] [--present 2 4 8 16 32 64]
           [--repeats 2] [--quick]
"""

from __future__ import annotations

import time
from functools import partial

from measuring import (arguments, held_out, interleaved, method_clock, paired, parse, planted,
                       read_split, seen_in, write_results)

import numpy as np  # noqa: E402

from streamtopics.estimators import OnlineLDA  # noqa: E402
from streamtopics.inference.gibbs_estep import GibbsEstimator, GibbsRun  # noqa: E402
from streamtopics.inference.minibatch import Minibatch  # noqa: E402

SAMPLERS = ("dense", "sparse", "mh")
PASSES = 20


def timed_fit(train, n_topics, sampler):
    """One pass of G-OEM with ``sampler``: (CPU seconds, (model, seconds in the chain, in the
    statistics))."""
    model = OnlineLDA(n_topics, method="g-oem", n_passes=1, local_sampler=sampler,
                      random_state=0)
    with method_clock(GibbsRun, "advance", time.thread_time) as chain, \
            method_clock(GibbsRun, "statistics", time.thread_time) as statistics:
        started = time.thread_time()
        model.fit(train)
        seconds = time.thread_time() - started
    return seconds, (model, chain[0], statistics[0])


def in_fits(corpus_name, train, test, n_topics, args) -> list[dict]:
    timings = interleaved({sampler: partial(timed_fit, train, n_topics, sampler)
                           for sampler in SAMPLERS}, args.repeats)
    scores = {sampler: held_out(timing.result[0].components_,
                                timing.result[0].doc_topic_prior_, test, particles=10)
              for sampler, timing in timings.items()}
    rows = []
    for sampler, timing in timings.items():
        _, chain, statistics = timing.result
        worse_by, se = paired(scores["dense"], scores[sampler])
        rows.append({"corpus": corpus_name, "K": n_topics, "sampler": sampler,
                     "tokens": train.n_tokens, "fit_seconds": timing.best,
                     "chain_seconds": chain, "statistics_seconds": statistics,
                     "ns_per_token_pass": chain / (train.n_tokens * PASSES) * 1e9,
                     "chain_share": chain / timing.best,
                     "statistics_share": statistics / timing.best,
                     "speed_vs_dense": timings["dense"].result[1] / chain,
                     "log_perplexity": float(-scores[sampler].mean()),
                     "worse_than_dense_by": worse_by, "paired_se": se})
        print(f"{corpus_name:12} K={n_topics:<4} {sampler:6} "
              f"{rows[-1]['ns_per_token_pass']:8.1f} ns / token-pass", flush=True)
    return rows


def crowded_minibatch(n_topics, n_present, documents, length, rng):
    """A minibatch whose documents can only use the same ``n_present`` of ``n_topics`` topics
    (each of 2,000 words puts 0.9 of its weight on one of them, the rest spread over them),
    with its word weights (U x K) and alpha."""
    n_words = 2000
    topics = np.sort(rng.choice(n_topics, size=n_present, replace=False))
    weights = np.zeros((n_words, n_topics))
    weights[:, topics] = 0.1 / n_present * rng.random((n_words, n_present))
    weights[np.arange(n_words), topics[np.arange(n_words) % n_present]] += 0.9
    counts = np.zeros((documents, n_words))
    for d in range(documents):
        np.add.at(counts[d], rng.integers(0, n_words, size=length), 1)
    batch = Minibatch.from_counts(counts)
    return batch, np.ascontiguousarray(weights[batch.words]), np.full(n_topics, 0.01)


def chain_seconds(batch, weights, alpha, repeats) -> float:
    """The fastest of ``repeats`` sparse chains of `PASSES` passes, CPU seconds."""
    best = np.inf
    for _ in range(repeats):
        run = GibbsEstimator(passes=PASSES, sampler="sparse").begin(batch, alpha.size, 0, 0)
        started = time.thread_time()
        run.advance(weights, alpha, PASSES)
        best = min(best, time.thread_time() - started)
    return best


def against_present(args) -> list[dict]:
    rng = np.random.default_rng(0)
    rows = []
    for n_present in args.present:
        batch, weights, alpha = crowded_minibatch(args.present_topics, n_present,
                                                  args.present_documents, args.length, rng)
        chain_seconds(batch, weights, alpha, 1)  # compiled, caches warm
        seconds = chain_seconds(batch, weights, alpha, max(args.repeats, 3))
        rows.append({"present": n_present, "K": args.present_topics,
                     "ns_per_token_pass": seconds / (batch.n_tokens * PASSES) * 1e9})
        print(f"m = {n_present:3}: {rows[-1]['ns_per_token_pass']:.1f} ns / token-pass",
              flush=True)
    return rows


def markdown(rows, present, args) -> list[str]:
    lines = ["| corpus | K | sampler | chain ns / token-pass | x dense | chain share of the fit "
             "| statistics share | held-out log-perplexity / doc | worse than dense by (± "
             "paired SE) |", "|---|---:|---|---:|---:|---:|---:|---:|---:|"]
    lines += [f"| {r['corpus']} | {r['K']} | {r['sampler']} | {r['ns_per_token_pass']:.1f} | "
              f"{r['speed_vs_dense']:.2f} | {r['chain_share']:.0%} | "
              f"{r['statistics_share']:.0%} | {r['log_perplexity']:.2f} | "
              f"{r['worse_than_dense_by']:+.2f} ± {r['paired_se']:.2f} |" for r in rows]
    lines += ["", f"One pass, minibatches of 100, P = {PASSES}, one thread, CPU seconds, best "
              f"of {args.repeats} fits by turns; held-out: left-to-right, R = 10.", "",
              f"The sparse chain against the topics a document can use (K = "
              f"{args.present_topics}, {args.present_documents} documents of {args.length} "
              f"tokens, P = {PASSES}):", "", "| topics usable m | ns / token-pass |",
              "|---:|---:|"]
    lines += [f"| {r['present']} | {r['ns_per_token_pass']:.1f} |" for r in present]
    return lines


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument("--corpora", nargs="+", default=["debian", "newsarticles"])
    parser.add_argument("--topics", type=int, nargs="+", default=[10, 100])
    parser.add_argument("--train-documents", type=int, default=6000)
    parser.add_argument("--test-documents", type=int, default=300)
    parser.add_argument("--present", type=int, nargs="+", default=[2, 4, 8, 16, 32, 64])
    parser.add_argument("--present-topics", type=int, default=100)
    parser.add_argument("--present-documents", type=int, default=200)
    parser.add_argument("--length", type=int, default=200)
    args = parse(parser)
    if args.quick:
        train, test, _ = planted()
        data, args.topics = [("planted", train, test)], [5, 20]
        args.present, args.present_documents, args.length = [2, 16], 40, 50
    else:
        data = [(name, read_split(name, "train", args.train_documents),
                 read_split(name, "test", args.test_documents)) for name in args.corpora]
    for sampler in SAMPLERS:  # compile outside the timing
        timed_fit(data[0][1][:200], 40, sampler)
    rows = [row for name, train, test in data for n_topics in args.topics
            for row in in_fits(name, train, seen_in(train, test), n_topics, args)]
    present = against_present(args)
    headline = [f"{r['corpus']}, K = {r['K']}: sparse {r['ns_per_token_pass']:.0f} ns / "
                f"token-pass ({r['speed_vs_dense']:.1f}x dense), {r['chain_share']:.0%} of a fit"
                for r in rows if r["sampler"] == "sparse"]
    write_results(args, {"rows": rows, "present": present},
                  "The local Gibbs step's cost per token-pass (one thread, CPU seconds)",
                  markdown(rows, present, args), headline)


if __name__ == "__main__":
    main()
