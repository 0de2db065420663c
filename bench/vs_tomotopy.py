"""Do a few passes of G-OEM reach the held-out score of converged collapsed Gibbs sampling, and
in what share of its time?

Side by side in one run, one thread, on the training split (the first ``--test-documents``
test documents, restricted to the words seen in training, scored by every model):

* tomotopy ``LDAModel(k=K, alpha=0.1, eta=0.01)``, ``--iterations`` (1,000) sweeps with alpha
  optimised every 10 (its default), one worker (`engines.tomotopy_lda`);
* ``OnlineLDA(K, method="g-oem", n_passes=p)``, its defaults otherwise, for each p of
  ``--passes``.

Held-out: left-to-right, R = 20 particles, evaluation seed 0 for every model, so differences
are paired; log-perplexity per document (lower is better) with the paired standard error of
each model's difference to tomotopy, and each model's CPU seconds as a share of tomotopy's.
Without tomotopy installed its row is skipped with a line saying so. ``--quick``: a small
planted corpus, where the true model is scored too.

Usage: python bench/vs_tomotopy.py [--corpora newsarticles debian] [--topics 100]
           [--iterations 1000] [--passes 5 10] [--test-documents 300] [--quick]
"""

from __future__ import annotations

import engines
from measuring import (arguments, better_or_worse, held_out, number, paired, parse, planted,
                       read_split, seen_in, write_results)

TOMOTOPY = "tomotopy CGS"


def compare(corpus_name, train, test, n_topics, args, truth=None) -> list[dict]:
    """tomotopy and G-OEM at every number of passes on one corpus: their rows."""
    fits = {}
    if not engines.missing("tomotopy"):
        fits[f"{TOMOTOPY}, {args.iterations} iterations"] = engines.tomotopy_lda(
            train, n_topics, args.iterations)
    for passes in args.passes:
        fits[f"G-OEM, {passes} pass{'es' if passes > 1 else ''}"] = engines.goem(
            train, n_topics, n_passes=passes)
    scores = {name: held_out(fit.beta, fit.alpha, test) for name, fit in fits.items()}
    if truth is not None:
        scores["true model"] = held_out(truth.beta, truth.alpha, test)
    reference = next(iter(fits))
    rows = []
    for name, score in scores.items():
        better_by, se = paired(scores[reference], score)
        row = {"corpus": corpus_name, "K": n_topics, "model": name,
               "log_perplexity": float(-score.mean()), "reference": reference,
               "reference_better_by": better_by, "paired_se": se}
        if name in fits:
            row.update(seconds=fits[name].seconds,
                       time_share=fits[name].seconds / fits[reference].seconds)
        rows.append(row)
        print(f"{corpus_name:12} K={n_topics:<4} {name:36} {row['log_perplexity']:10.2f}",
              flush=True)
    return rows


def main() -> None:
    parser = arguments(__doc__, repeats=1)
    parser.add_argument("--corpora", nargs="+", default=["newsarticles", "debian"])
    parser.add_argument("--topics", type=int, default=100)
    parser.add_argument("--iterations", type=int, default=1000)
    parser.add_argument("--passes", type=int, nargs="+", default=[5, 10])
    parser.add_argument("--test-documents", type=int, default=300)
    args = parse(parser)
    reason = engines.missing("tomotopy")
    if reason:
        print(f"skipped {TOMOTOPY}: {reason}", flush=True)
    if args.quick:
        train, test, truth = planted()
        data, n_topics = [("planted", train, test, truth)], truth.beta.shape[0]
        args.iterations, args.passes = 100, [1, 3]
    else:
        data = [(name, read_split(name, "train"), read_split(name, "test", args.test_documents),
                 None) for name in args.corpora]
        n_topics = args.topics
    engines.goem(data[0][1][:200], n_topics, n_passes=1)  # compile outside the timing
    rows = [row for name, train, test, truth in data
            for row in compare(name, train, seen_in(train, test), n_topics, args, truth)]
    lines = ["| corpus | K | model | CPU s | share of the reference's time | held-out "
             "log-perplexity / doc | reference better by (± paired SE) |",
             "|---|---:|---|---:|---:|---:|---:|"]
    lines += [f"| {r['corpus']} | {r['K']} | {r['model']} | {number(r.get('seconds'), 1)} | "
              f"{number(r.get('time_share'))} | {r['log_perplexity']:.2f} | "
              f"{r['reference_better_by']:+.2f} ± {r['paired_se']:.2f} |" for r in rows]
    lines += ["", "One thread, CPU seconds of training; the reference is the first model of "
              "each corpus (tomotopy where installed); held-out: left-to-right, R = 20, on the "
              "test documents restricted to the words seen in training."]
    if reason:
        lines.append(f"Skipped {TOMOTOPY}: {reason}.")
    headline = [f"{r['corpus']}, K = {r['K']}: {r['model']} {r['log_perplexity']:.1f} in "
                f"{r['time_share']:.0%} of the time of {r['reference']} "
                f"({r['log_perplexity'] - r['reference_better_by']:.1f}; G-OEM "
                f"{better_or_worse(-r['reference_better_by'], r['paired_se'])})"
                for r in rows if r["model"].startswith("G-OEM") and r["model"] != r["reference"]]
    write_results(args, {"skipped": reason, "rows": rows},
                  "Multi-pass G-OEM against tomotopy's converged collapsed Gibbs sampling",
                  lines, headline)


if __name__ == "__main__":
    main()
