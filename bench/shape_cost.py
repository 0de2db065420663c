"""What does a token-pass of G-OEM cost against the vocabulary size, the document length and K,
and where does the time go on Wikipedia-shaped streams?

Synthetic corpora of the shape of BigARTM's English Wikipedia run (`generate_synthetic`: K
topics drawn from a Dirichlet(0.1) over V words, a Dirichlet(0.05) topic mix per document,
Poisson(L) tokens), one thread, CPU seconds:

1. The local step at the generating model, against V, L and K: per cell, ``--minibatches``
   minibatches of 100 documents, each run through the inference layer with the true topics
   and alpha (``GibbsEstimator(passes=20).begin(batch, K, 0, i)``, ``run.advance(beta rows,
   alpha, 20)`` then ``run.statistics()``), the best of ``--repeats`` rounds: nanoseconds per
   token-pass of the chain and of the statistics, the distinct words U and entries of a
   minibatch and the topics present per document at the chain's end. The grid: V in
   ``--words`` at L = 300 and K = 100; L in ``--lengths`` at the smallest and the Wikipedia V;
   K in ``--topics`` at L = 300 and those two V.
2. In one pass of ``OnlineLDA(100, method="g-oem", n_passes=1)`` over ``--documents``
   documents of 300 tokens, at the smallest and the Wikipedia V, for the default topic-word
   prior eta and each of ``--etas``, the fits by turns, the best counting: nanoseconds per
   token-pass of the fit, of its chain (`GibbsRun.advance`) and its statistics
   (`GibbsRun.statistics`), the topics present per document at the chain's end over the last
   tenth of the minibatches, alpha's total at the end, and the held-out score (left-to-right,
   R = 10, on ``--test-documents`` documents of the same corpus) with its paired difference to
   the default eta's and to the generating model's. In a fit the chain costs what the
   documents hold: a model whose documents spread over many topics pays for them at every
   token.

``--quick``: small vocabularies, short documents, a few hundred documents.

Usage: python bench/shape_cost.py [--words 10000 30000 100000 300000] [--lengths 50 300 1000]
           [--topics 100 1000] [--minibatches 3] [--documents 10000] [--test-documents 200]
           [--etas 0.3 1.0] [--repeats 2] [--quick]
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from functools import partial

from measuring import arguments, held_out, interleaved, method_clock, paired, parse, write_results

import numpy as np  # noqa: E402

from streamtopics import generate_synthetic  # noqa: E402
from streamtopics.estimators import OnlineLDA  # noqa: E402
from streamtopics.inference.gibbs_estep import GibbsEstimator, GibbsRun  # noqa: E402
from streamtopics.inference.minibatch import Minibatch  # noqa: E402
from streamtopics.inference.presets import default_topic_word_prior  # noqa: E402

PASSES = 20
BATCH = 100
ALPHA = 0.05
TOPIC_CONCENTRATION = 0.1


def synthetic(n_topics, n_words, n_documents, length, seed=1):
    """A Wikipedia-shaped corpus and its generating model (module docstring)."""
    return generate_synthetic(n_topics=n_topics, n_words=n_words, n_documents=n_documents,
                              mean_length=length, alpha=ALPHA,
                              topic_concentration=TOPIC_CONCENTRATION, seed=seed)


def present_topics(run: GibbsRun) -> float:
    """The mean number of topics present per document in the chain's current sample."""
    return float((run.doc_topic_counts > 0).sum(axis=1).mean())


def at_truth(n_words, length, n_topics, args) -> dict:
    """Section 1's cell (V, L, K)."""
    corpus, truth = synthetic(n_topics, n_words, BATCH * args.minibatches, length)
    batches = [Minibatch.from_rows(corpus.counts, start, start + BATCH)
               for start in range(0, corpus.n_documents, BATCH)]
    weights = [np.ascontiguousarray(truth.beta[:, batch.words].T) for batch in batches]
    chain = statistics = np.inf
    for _ in range(args.repeats):
        chain_round = statistics_round = 0.0
        present = []
        for index, (batch, rows) in enumerate(zip(batches, weights)):
            run = GibbsEstimator(passes=PASSES).begin(batch, n_topics, 0, index)
            started = time.thread_time()
            run.advance(rows, truth.alpha, PASSES)
            advanced = time.thread_time()
            run.statistics()
            chain_round += advanced - started
            statistics_round += time.thread_time() - advanced
            present.append(present_topics(run))
        chain, statistics = min(chain, chain_round), min(statistics, statistics_round)
    token_passes = corpus.n_tokens * PASSES
    row = {"V": n_words, "L": length, "K": n_topics,
           "words_per_minibatch": float(np.mean([batch.words.size for batch in batches])),
           "entries_per_minibatch": float(np.mean([batch.n_entries for batch in batches])),
           "present": float(np.mean(present)),
           "chain_ns": chain / token_passes * 1e9,
           "statistics_ns": statistics / token_passes * 1e9}
    print(f"V={n_words:<7} L={length:<5} K={n_topics:<5} chain {row['chain_ns']:6.1f} ns, "
          f"statistics {row['statistics_ns']:5.1f} ns / token-pass", flush=True)
    return row


def cells(args) -> list[tuple[int, int, int]]:
    """Section 1's grid (module docstring), each cell once, in order."""
    ends = sorted({min(args.words), args.wikipedia_words})
    grid = [(n_words, args.length, args.base_topics) for n_words in args.words]
    grid += [(n_words, length, args.base_topics) for n_words in ends for length in args.lengths]
    grid += [(n_words, args.length, n_topics) for n_words in ends for n_topics in args.topics]
    return list(dict.fromkeys(grid))


@contextmanager
def chain_states():
    """The topics present per document after each `GibbsRun.advance` inside the block."""
    advance = GibbsRun.__dict__["advance"]
    present = []

    def recorded(run, *args, **kwargs):
        advance(run, *args, **kwargs)
        present.append(present_topics(run))

    GibbsRun.advance = recorded
    try:
        yield present
    finally:
        GibbsRun.advance = advance


def timed_fit(train, n_topics, eta):
    """One pass of G-OEM with topic-word prior ``eta``: (CPU seconds, (model, chain seconds,
    statistics seconds, topics present per minibatch))."""
    model = OnlineLDA(n_topics, method="g-oem", n_passes=1, topic_word_prior=eta,
                      random_state=0)
    with chain_states() as present, \
            method_clock(GibbsRun, "advance", time.thread_time) as chain, \
            method_clock(GibbsRun, "statistics", time.thread_time) as statistics:
        started = time.thread_time()
        model.fit(train)
        seconds = time.thread_time() - started
    return seconds, (model, chain[0], statistics[0], present)


def in_fits(n_words, args) -> list[dict]:
    """Section 2 at vocabulary ``n_words``."""
    n_topics = args.base_topics
    corpus, truth = synthetic(n_topics, n_words, args.documents + args.test_documents,
                              args.length)
    train, test = corpus[:args.documents], corpus[args.documents:]
    default = default_topic_word_prior("g-oem", n_topics)
    etas = list(dict.fromkeys([default, *args.etas]))
    timings = interleaved({eta: partial(timed_fit, train, n_topics, eta) for eta in etas},
                          args.repeats)
    truth_scores = held_out(truth.beta, truth.alpha, test, particles=10)
    scores = {eta: held_out(timing.result[0].components_, timing.result[0].doc_topic_prior_,
                            test, particles=10) for eta, timing in timings.items()}
    token_passes = train.n_tokens * PASSES
    rows = []
    for eta, timing in timings.items():
        model, chain, statistics, present = timing.result
        better_by, se = paired(scores[default], scores[eta])
        behind_truth, truth_se = paired(truth_scores, scores[eta])
        rows.append({"V": n_words, "L": args.length, "K": n_topics,
                     "documents": train.n_documents, "eta": eta, "default_eta": eta == default,
                     "fit_ns": timing.best / token_passes * 1e9,
                     "chain_ns": chain / token_passes * 1e9,
                     "statistics_ns": statistics / token_passes * 1e9,
                     "present_late": float(np.mean(present[-max(1, len(present) // 10):])),
                     "alpha_sum": float(model.doc_topic_prior_.sum()),
                     "true_alpha_sum": float(truth.alpha.sum()),
                     "log_perplexity": float(-scores[eta].mean()),
                     "better_than_default_by": -better_by, "paired_se": se,
                     "behind_truth_by": behind_truth, "truth_se": truth_se})
        print(f"V={n_words:<7} eta={eta:<6g} fit {rows[-1]['fit_ns']:6.1f} ns / token-pass, "
              f"held-out {rows[-1]['log_perplexity']:.1f}", flush=True)
    return rows


def against_default(row) -> str:
    """A fit's held-out difference to the default eta's, empty for the default itself."""
    if row["default_eta"]:
        return ""
    return f"{row['better_than_default_by']:+.1f} ± {row['paired_se']:.1f}"


def markdown(truth_rows, fit_rows, args) -> list[str]:
    lines = ["| V | L | K | words U / minibatch | entries / minibatch | topics present / doc | "
             "chain ns / token-pass | statistics ns / token-pass |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|"]
    lines += [f"| {r['V']:,} | {r['L']} | {r['K']} | {r['words_per_minibatch']:,.0f} | "
              f"{r['entries_per_minibatch']:,.0f} | {r['present']:.1f} | {r['chain_ns']:.1f} | "
              f"{r['statistics_ns']:.1f} |" for r in truth_rows]
    lines += ["", f"At the generating model (topics Dirichlet({TOPIC_CONCENTRATION}), alpha = "
              f"{ALPHA}): {args.minibatches} minibatches of {BATCH} documents per cell, P = "
              f"{PASSES}, one thread, CPU seconds, best of {args.repeats} rounds.", "",
              "| V | K | documents | eta | fit ns / token-pass | chain | statistics | topics "
              "present / doc, last tenth | alpha total (true) | held-out log-perplexity / doc "
              "| better than default eta by (± paired SE) | behind the true model by |",
              "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    lines += [f"| {r['V']:,} | {r['K']} | {r['documents']:,} | {r['eta']:g}"
              f"{' (default)' if r['default_eta'] else ''} | {r['fit_ns']:.1f} | "
              f"{r['chain_ns']:.1f} | {r['statistics_ns']:.1f} | {r['present_late']:.1f} | "
              f"{r['alpha_sum']:.2f} ({r['true_alpha_sum']:.2f}) | {r['log_perplexity']:.1f} | "
              f"{against_default(r)} | "
              f"{r['behind_truth_by']:.1f} ± {r['truth_se']:.1f} |" for r in fit_rows]
    lines += ["", f"One pass of G-OEM, documents of {args.length} tokens, minibatches of "
              f"{BATCH}, P = {PASSES}, one thread, CPU seconds, best of {args.repeats} fits by "
              f"turns; held-out: left-to-right, R = 10, {args.test_documents} documents."]
    return lines


def headline(truth_rows, fit_rows, args) -> list[str]:
    """The chain at the generating model against V, and each fit's cost and score."""
    curve = [r for r in truth_rows if r["L"] == args.length and r["K"] == args.base_topics]
    lines = [f"at the generating model, L = {args.length}, K = {args.base_topics}: chain "
             + ", ".join(
        f"{r['chain_ns']:.0f} ns" for r in curve) + " / token-pass at V = " + ", ".join(
        f"{r['V']:,}" for r in curve)]
    lines += [f"one pass, V = {r['V']:,}, eta {r['eta']:g}: {r['fit_ns']:.0f} ns / token-pass, "
              f"{r['present_late']:.0f} topics per document, held-out {r['log_perplexity']:.1f}"
              for r in fit_rows]
    return lines


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument("--words", type=int, nargs="+", default=[10000, 30000, 100000, 300000])
    parser.add_argument("--wikipedia-words", type=int, default=100000)
    parser.add_argument("--lengths", type=int, nargs="+", default=[50, 300, 1000])
    parser.add_argument("--topics", type=int, nargs="+", default=[100, 1000])
    parser.add_argument("--minibatches", type=int, default=3)
    parser.add_argument("--documents", type=int, default=10000)
    parser.add_argument("--test-documents", type=int, default=200)
    parser.add_argument("--etas", type=float, nargs="+", default=[0.3, 1.0])
    args = parse(parser)
    args.length, args.base_topics = 300, 100
    if args.quick:
        args.words, args.wikipedia_words, args.lengths = [300, 1000], 1000, [20, 100]
        args.topics, args.minibatches, args.documents = [5, 20], 2, 400
        args.test_documents, args.etas, args.length, args.base_topics = 40, [0.3], 60, 10
    timed_fit(synthetic(10, 300, 200, 20)[0], 10, 0.03)  # compiled outside the timing
    grid = cells(args)
    at_truth(*grid[0], args)  # the first cell measured runs slow (first calls): not kept
    truth_rows = [at_truth(*cell, args) for cell in grid]
    fit_rows = [row for n_words in sorted({min(args.words), args.wikipedia_words})
                for row in in_fits(n_words, args)]
    write_results(args, {"truth": truth_rows, "fits": fit_rows},
                  "The cost of a G-OEM token-pass against V, document length and K",
                  markdown(truth_rows, fit_rows, args), headline(truth_rows, fit_rows, args))


if __name__ == "__main__":
    main()
