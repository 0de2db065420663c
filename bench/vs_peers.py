"""How fast and how good is streamtopics against the online LDA a user would otherwise pick?

Per corpus (the training split; the first ``--test-documents`` of the test split, restricted
to the words seen in training, the same for every engine) and K, side by side in one run, one
thread everywhere:

* ``G-OEM, one pass``: ``OnlineLDA(K, n_passes=1)`` (minibatches of 100, P = 20);
* ``G-OEM, default fit``: ``OnlineLDA(K)`` with nothing else set (what a new user gets: the
  number of passes chosen on held-out training documents);
* one pass of each peer (`engines`): gensim ``LdaModel`` at its defaults and with offset 64,
  scikit-learn's online LDA at its defaults, Vowpal Wabbit's ``--lda`` and BigARTM with LDA's
  smoothing regularisers, updating phi every 1, 2, 4, 8 and 16 batches of 250 documents (which
  one scores best depends on the corpus; the summary quotes each peer at its best);

each scored by this library's left-to-right (R = 20 particles, the same evaluation seed for
every model, so differences are paired over documents). Reported: the held-out log-perplexity
per document (-mean log p(w_d), nats, lower is better), the difference to G-OEM's one pass with
its paired standard error, and the CPU seconds of training and their ratio to G-OEM's one pass
(every fit ``--repeats`` times by turns, the best counts; numba compilation done before).
Engines not installed are skipped with a line saying so. ``--quick``: a small planted corpus,
where the true model is scored too.

Usage: python bench/vs_peers.py [--corpora debian newsarticles] [--topics 100]
           [--test-documents 1000] [--repeats 2] [--bigartm-update-every 1 2 4 8 16]
           [--skip NAME ...] [--quick]
"""

from __future__ import annotations

from functools import partial

import engines
from measuring import (arguments, corpora_and_topics, held_out, interleaved, paired, parse,
                       seen_in, write_results)

REFERENCE = "G-OEM, one pass"
BIGARTM = "BigARTM, update every {}"


def engine_table(args) -> dict:
    """name -> (the engine `engines.missing` checks, fit(train, K) -> `engines.Fitted`); one
    BigARTM row per ``--bigartm-update-every`` (its best one is the one to quote: the summary
    takes it)."""
    table = {
        REFERENCE: ("streamtopics", partial(engines.goem, n_passes=1)),
        "G-OEM, default fit": ("streamtopics", engines.goem),
        "gensim (defaults)": ("gensim", engines.gensim_lda),
        "gensim (offset 64)": ("gensim", partial(engines.gensim_lda, offset=64.0)),
        "scikit-learn (defaults)": ("scikit-learn", engines.sklearn_lda),
        "Vowpal Wabbit": ("vowpalwabbit", engines.vowpal_wabbit),
    }
    table.update({BIGARTM.format(every): ("bigartm", partial(engines.bigartm, update_every=every))
                  for every in args.bigartm_update_every})
    return table


def runnable(table: dict, skip) -> tuple[dict, dict]:
    """The fits of ``table`` (`engine_table`) whose engine is installed and not in ``skip``, and
    why each other one is skipped (said on a line each)."""
    skipped = {name: reason for name, (engine, _) in table.items()
               if engine != "streamtopics" and (reason := engines.missing(engine))}
    skipped.update({name: "--skip" for name in skip})
    for name, reason in skipped.items():
        print(f"skipped {name}: {reason}", flush=True)
    return {name: fit for name, (_, fit) in table.items() if name not in skipped}, skipped


def notes(args, skipped: dict) -> list[str]:
    """The lines under the table: how the engines ran and were scored, which were skipped."""
    lines = [f"One thread; CPU seconds of training, best of {args.repeats} fits by turns; "
             "held-out: left-to-right, R = 20, evaluation seed 0 for every model, on the test "
             "documents restricted to the words seen in training. Vowpal Wabbit: "
             f"{engines.VOWPAL_WABBIT}; BigARTM: {engines.BIGARTM} but update_every as named."]
    return lines + [f"Skipped {name}: {reason}." for name, reason in skipped.items()]


def timed(fit, train, n_topics):
    """``fit(train, n_topics)`` as `measuring.interleaved` takes it: (seconds, fitted)."""
    fitted = fit(train, n_topics)
    return fitted.seconds, fitted


def compare(corpus_name, train, test, n_topics, fits, args, truth=None) -> list[dict]:
    """Every engine of ``fits`` (name -> fit) on one corpus and K: its row (see the module
    docstring)."""
    timings = interleaved({name: partial(timed, fit, train, n_topics)
                           for name, fit in fits.items()}, args.repeats)
    scores = {name: held_out(timing.result.beta, timing.result.alpha, test)
              for name, timing in timings.items()}
    if truth is not None:
        scores["true model"] = held_out(truth.beta, truth.alpha, test)
    reference = timings[REFERENCE].best
    rows = []
    for name, score in scores.items():
        better_by, se = paired(scores[REFERENCE], score)
        row = {"corpus": corpus_name, "K": n_topics, "engine": name,
               "log_perplexity": float(-score.mean()), "goem_better_by": better_by,
               "paired_se": se, "test_documents": test.n_documents}
        if name in timings:
            timing = timings[name]
            row.update(seconds=timing.best, seconds_by_repeat=timing.seconds,
                       cpu_ratio=timing.best / reference, passes=timing.result.passes)
        rows.append(row)
        print(f"{corpus_name:12} K={n_topics:<4} {name:26} {row['log_perplexity']:10.2f} "
              f"{row.get('seconds', float('nan')):7.2f} s", flush=True)
    return rows


def markdown(rows) -> list[str]:
    lines = ["| corpus | K | engine | held-out log-perplexity / doc | G-OEM one pass better by "
             "(± paired SE) | CPU s | CPU s / G-OEM one pass |",
             "|---|---:|---|---:|---:|---:|---:|"]
    for row in rows:
        versus = ("" if row["engine"] == REFERENCE else
                  f"{row['goem_better_by']:+.2f} ± {row['paired_se']:.2f}")
        seconds = ("" if "seconds" not in row else f"{row['seconds']:.2f}")
        ratio = ("" if "seconds" not in row else f"{row['cpu_ratio']:.2f}")
        engine = row["engine"] + (f" ({row['passes']} passes)" if row.get("passes", 1) > 1
                                  else "")
        lines.append(f"| {row['corpus']} | {row['K']} | {engine} | {row['log_perplexity']:.2f} "
                     f"| {versus} | {seconds} | {ratio} |")
    return lines


def family(engine: str) -> str:
    """The engine without its variant: "gensim (offset 64)" -> "gensim"; G-OEM's two fits stay
    apart."""
    return engine if engine.startswith("G-OEM") else engine.split(" (")[0].split(",")[0]


def best_rows(rows) -> list[dict]:
    """Per corpus, K and engine family, the row of the best held-out score (the one to quote:
    a peer at its best setting of those run), in the order of the rows; no true model."""
    best = {}
    for row in rows:
        if "seconds" in row:
            key = (row["corpus"], row["K"], family(row["engine"]))
            if key not in best or row["log_perplexity"] < best[key]["log_perplexity"]:
                best[key] = row
    return [{**row, "family": key[2]} for key, row in best.items()]


def headline(best) -> list[str]:
    """A line per corpus and K: G-OEM's one pass, then each other family's best score and
    time ratio."""
    lines = []
    for reference in (row for row in best if row["engine"] == REFERENCE):
        others = [row for row in best if row["engine"] != REFERENCE
                  and (row["corpus"], row["K"]) == (reference["corpus"], reference["K"])]
        lines.append(f"{reference['corpus']}, K = {reference['K']}: G-OEM one pass "
                     f"{reference['log_perplexity']:.1f} in {reference['seconds']:.1f} CPU s; "
                     + "; ".join(f"{row['family']} {row['log_perplexity']:.1f} "
                                 f"({row['cpu_ratio']:.1f}x the time)" for row in others))
    return lines


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument("--corpora", nargs="+", default=["debian", "newsarticles"])
    parser.add_argument("--topics", type=int, nargs="+", default=[100])
    parser.add_argument("--test-documents", type=int, default=1000)
    parser.add_argument("--bigartm-update-every", type=int, nargs="+", default=[1, 2, 4, 8, 16],
                        help="BigARTM runs with each (batches between two updates of phi)")
    parser.add_argument("--skip", nargs="*", default=[], help="engines not to run (names)")
    args = parse(parser)
    fits, skipped = runnable(engine_table(args), args.skip)
    data, topic_counts = corpora_and_topics(args, args.test_documents)
    for passes in (1, "auto"):  # compile outside the timing
        engines.goem(data[0][1][:200], 10, n_passes=passes)
    rows = [row for name, train, test, truth in data for n_topics in topic_counts
            for row in compare(name, train, seen_in(train, test), n_topics, fits, args, truth)]
    best = best_rows(rows)
    write_results(args, {"skipped": skipped, "vowpal_wabbit": engines.VOWPAL_WABBIT,
                         "bigartm": engines.BIGARTM, "rows": rows, "best": best},
                  "streamtopics against the online LDA peers, one thread, side by side",
                  [*markdown(rows), "", *notes(args, skipped)], headline(best))


if __name__ == "__main__":
    main()
