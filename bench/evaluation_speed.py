"""What does held-out evaluation cost, per method and sampler, and how does it grow with the
length of a document?

On the first ``--documents`` test documents of a corpus of long documents (newsarticles), with
the topics of a real fit (``OnlineLDA(K, method="g-oem", n_passes=1, random_state=0)`` on its
training split, so that a particle's topics are as sparse as in use), K = 10 and 100, side by
side in one run, one thread, CPU seconds, the methods by turns ``--repeats`` times, the best
counting:

* left-to-right (Wallach et al. 2009, Algorithm 3; R = ``--particles``) with the dense sampler
  (O(K) per update) and the sparse one (O(topics present in the particle)), with the paired
  difference of their estimates (a sampler must not change the answer beyond Monte Carlo
  noise) and the sparse one's speed-up (``sampler="auto"`` picks it from
  `SPARSE_MIN_TOPICS` topics on);
* its sequential Monte Carlo variant (resampling), document completion and the ELBO.

Left-to-right resamples every earlier token at every position: a document of N tokens costs
about N^2 R K / 2 topic updates, so the table gives seconds per 1,000 documents and the dense
sampler's nanoseconds per such update; and the first n tokens of the longest documents are
timed for n in ``--lengths``, whose log-log slope should be near 2. ``--quick``: a small
planted corpus.

Usage: python bench/evaluation_speed.py [--corpus newsarticles] [--documents 100]
           [--particles 20] [--topics 10 100] [--repeats 2] [--quick]
"""

from __future__ import annotations

from functools import partial

from measuring import (arguments, cpu_seconds, interleaved, paired, parse, planted, read_split,
                       write_results)

import numpy as np  # noqa: E402

from streamtopics.estimators import OnlineLDA  # noqa: E402
from streamtopics.evaluation import document_completion, elbo, left_to_right  # noqa: E402
from streamtopics.evaluation.left_to_right import SPARSE_MIN_TOPICS  # noqa: E402


def methods(beta, alpha, test, particles) -> dict:
    """name -> callable returning (CPU seconds, per-document estimates)."""
    def run(function, **options):
        seconds, result = cpu_seconds(function, beta, alpha, test, **options)
        estimates = result.bounds if function is elbo else result.log_likelihoods
        return seconds, np.asarray(estimates)
    return {"left-to-right, dense": partial(run, left_to_right, n_particles=particles,
                                            sampler="dense"),
            "left-to-right, sparse": partial(run, left_to_right, n_particles=particles,
                                             sampler="sparse"),
            "left-to-right SMC": partial(run, left_to_right, n_particles=particles,
                                         resample=True),
            "completion (50 + 10 x 5 sweeps)": partial(run, document_completion),
            "ELBO": partial(run, elbo)}


def measure(train, test, n_topics, args) -> list[dict]:
    model = OnlineLDA(n_topics, method="g-oem", n_passes=1, random_state=0).fit(train)
    beta, alpha = model.components_, model.doc_topic_prior_
    runs = methods(beta, alpha, test, args.particles)
    for run in methods(beta, alpha, test[:2], 2).values():  # compile outside the timing
        run()
    timings = interleaved(runs, args.repeats)
    updates = float(np.sum(test.document_lengths.astype(float) ** 2) / 2)
    dense = timings["left-to-right, dense"]
    difference, se = paired(dense.result, timings["left-to-right, sparse"].result)
    rows = []
    for name, timing in timings.items():
        row = {"K": n_topics, "method": name, "documents": test.n_documents,
               "seconds": timing.best, "seconds_per_1000_documents":
               timing.best / test.n_documents * 1e3, "vs_dense": timing.best / dense.best}
        if name == "left-to-right, dense":
            row["ns_per_update"] = timing.best / (updates * args.particles * n_topics) * 1e9
        if name == "left-to-right, sparse":
            row.update(dense_minus_sparse=difference, paired_se=se,
                       auto_picks="sparse" if n_topics >= SPARSE_MIN_TOPICS else "dense")
        rows.append(row)
        print(f"K={n_topics:<4} {name:32} {timing.best:8.2f} s", flush=True)
    return rows


def growth(test, lengths, particles) -> tuple[list[dict], float]:
    """Left-to-right on the first n tokens of the documents of at least max(lengths) tokens,
    for each n: CPU seconds, and the log-log slope."""
    rng = np.random.default_rng(0)
    beta, alpha = rng.dirichlet(np.full(test.n_words, 0.1), size=10), np.full(10, 0.1)
    long_documents = test[np.flatnonzero(test.document_lengths >= max(lengths))]
    left_to_right(beta, alpha, long_documents[:1], 2, max_tokens=min(lengths))  # compile
    points = [{"tokens": n, "seconds": cpu_seconds(left_to_right, beta, alpha, long_documents,
                                                   particles, max_tokens=n)[0]}
              for n in lengths]
    slope = float(np.polyfit(np.log(lengths), np.log([p["seconds"] for p in points]), 1)[0])
    return [{**point, "documents": long_documents.n_documents} for point in points], slope


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument("--corpus", default="newsarticles")
    parser.add_argument("--documents", type=int, default=100)
    parser.add_argument("--particles", type=int, default=20)
    parser.add_argument("--topics", type=int, nargs="+", default=[10, 100])
    parser.add_argument("--lengths", type=int, nargs="+", default=[50, 100, 200, 400])
    args = parse(parser)
    if args.quick:
        train, test, _ = planted(test=60, mean_length=80)
        args.corpus, args.topics, args.particles, args.lengths = "planted", [5, 40], 5, [20, 40, 80]
    else:
        train, test = read_split(args.corpus, "train"), read_split(args.corpus, "test")
    points, slope = growth(test, args.lengths, args.particles)
    test = test[:args.documents]
    rows = [row for n_topics in args.topics for row in measure(train, test, n_topics, args)]
    lines = [f"{args.corpus}: {test.n_documents} test documents (mean length "
             f"{test.document_lengths.mean():.0f}), R = {args.particles}, one thread, CPU "
             f"seconds, best of {args.repeats} by turns.", "",
             "| method | K | s / 1,000 docs | x dense left-to-right | ns / (N^2 R K / 2) update "
             "| dense - sparse estimate (± paired SE) |", "|---|---:|---:|---:|---:|---:|"]
    for r in rows:
        difference = ("" if "paired_se" not in r else
                      f"{r['dense_minus_sparse']:+.2f} ± {r['paired_se']:.2f}")
        update = f"{r['ns_per_update']:.2f}" if "ns_per_update" in r else ""
        lines.append(f"| {r['method']} | {r['K']} | {r['seconds_per_1000_documents']:.1f} | "
                     f"{r['vs_dense']:.2f} | {update} | {difference} |")
    lines += ["", f"Growth with length: left-to-right (K = 10, random topics) on the first n "
              f"tokens of the {points[0]['documents']} documents of at least "
              f"{max(args.lengths)} tokens; log-log slope {slope:.2f} (quadratic: 2).", "",
              "| tokens n | CPU s |", "|---:|---:|"]
    lines += [f"| {p['tokens']} | {p['seconds']:.3f} |" for p in points]
    headline = [f"K = {r['K']}: left-to-right {r['seconds_per_1000_documents']:.0f} s / 1,000 "
                f"{args.corpus} documents (R = {args.particles}), {1 / r['vs_dense']:.1f}x the speed "
                f"of the dense evaluator" for r in rows if r["method"] == "left-to-right, sparse"]
    headline.append(f"cost against length: slope {slope:.2f} (quadratic: 2)")
    write_results(args, {"rows": rows, "growth": points, "log_log_slope": slope},
                  "Held-out evaluation speed", lines, headline)


if __name__ == "__main__":
    main()
