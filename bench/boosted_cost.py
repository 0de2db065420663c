"""What does boosting (G-OEM++, V-OEM++) cost against the plain methods, and what does it buy?

One pass of g-oem, g-oem++, v-oem and v-oem++ on the same documents, side by side in one run,
one thread: ``OnlineLDA(K, method=..., batch_size=100, local_passes=20, n_passes=1,
random_state=0)`` on the first ``--documents`` training documents, the methods by turns,
``--repeats`` times, the best counting, in CPU seconds; the ratio of each ++ method's time to
its plain method's (a boosted step updates the parameters after every local pass, Dupuy & Bach
2016, section 3.3) and each model's held-out log-perplexity on the first ``--test-documents``
test documents (left-to-right, R = 10, paired differences). ``--quick``: a small planted
corpus.

Usage: python bench/boosted_cost.py [--corpora debian newsarticles] [--topics 100]
           [--documents 3000] [--test-documents 300] [--repeats 2] [--quick]
"""

from __future__ import annotations

from functools import partial

from measuring import (arguments, better_or_worse, cpu_seconds, held_out, interleaved, paired,
                       parse, planted, read_split, seen_in, write_results)

from streamtopics.estimators import OnlineLDA  # noqa: E402

PAIRS = (("g-oem", "g-oem++"), ("v-oem", "v-oem++"))


def fit(documents, n_topics, method):
    return cpu_seconds(OnlineLDA(n_topics, method=method, batch_size=100, local_passes=20,
                                 n_passes=1, random_state=0).fit, documents)


def compare(corpus_name, train, test, n_topics, args) -> list[dict]:
    methods = [method for pair in PAIRS for method in pair]
    timings = interleaved({method: partial(fit, train, n_topics, method) for method in methods},
                          args.repeats)
    scores = {method: held_out(timing.result.components_, timing.result.doc_topic_prior_, test,
                               particles=10) for method, timing in timings.items()}
    rows = []
    for plain, boosted in PAIRS:
        better_by, se = paired(scores[boosted], scores[plain])
        rows.append({"corpus": corpus_name, "K": n_topics, "documents": train.n_documents,
                     "plain": plain, "plain_seconds": timings[plain].best, "boosted": boosted,
                     "boosted_seconds": timings[boosted].best,
                     "ratio": timings[boosted].best / timings[plain].best,
                     "plain_log_perplexity": float(-scores[plain].mean()),
                     "boosted_log_perplexity": float(-scores[boosted].mean()),
                     "boosted_better_by": better_by, "paired_se": se})
        print(f"{corpus_name:12} K={n_topics:<4} {plain:6} {timings[plain].best:6.2f} s  "
              f"{boosted:8} {timings[boosted].best:6.2f} s  x{rows[-1]['ratio']:.2f}", flush=True)
    return rows


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument("--corpora", nargs="+", default=["debian", "newsarticles"])
    parser.add_argument("--topics", type=int, nargs="+", default=[100])
    parser.add_argument("--documents", type=int, default=3000)
    parser.add_argument("--test-documents", type=int, default=300)
    args = parse(parser)
    if args.quick:
        train, test, truth = planted()
        data, args.topics = [("planted", train, test)], [truth.beta.shape[0]]
    else:
        data = [(name, read_split(name, "train", args.documents),
                 read_split(name, "test", args.test_documents)) for name in args.corpora]
    for method in (method for pair in PAIRS for method in pair):  # compile outside the timing
        fit(data[0][1][:200], 10, method)
    rows = [row for name, train, test in data for n_topics in args.topics
            for row in compare(name, train, seen_in(train, test), n_topics, args)]
    lines = ["| corpus | K | documents | plain | CPU s | ++ | CPU s | ++ / plain | held-out "
             "plain | ++ | ++ better by (± paired SE) |",
             "|---|---:|---:|---|---:|---|---:|---:|---:|---:|---:|"]
    lines += [f"| {r['corpus']} | {r['K']} | {r['documents']} | {r['plain']} | "
              f"{r['plain_seconds']:.2f} | {r['boosted']} | {r['boosted_seconds']:.2f} | "
              f"{r['ratio']:.2f} | {r['plain_log_perplexity']:.2f} | "
              f"{r['boosted_log_perplexity']:.2f} | {r['boosted_better_by']:+.2f} ± "
              f"{r['paired_se']:.2f} |" for r in rows]
    lines += ["", f"One pass, minibatches of 100, P = 20, one thread, CPU seconds, best of "
              f"{args.repeats} fits by turns; held-out: left-to-right, R = 10, on the test "
              "documents restricted to the words seen in training."]
    headline = [f"{r['corpus']}, K = {r['K']}: {r['boosted']} {r['ratio']:.2f}x {r['plain']}'s "
                f"time, held-out {better_or_worse(r['boosted_better_by'], r['paired_se'])}"
                for r in rows]
    write_results(args, {"rows": rows},
                  "Boosted (++) against plain methods (one thread, one pass, CPU seconds)",
                  lines, headline)


if __name__ == "__main__":
    main()
