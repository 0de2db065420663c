"""How many local Gibbs passes P G-OEM needs: speed against held-out score, next to gensim's
LdaModel, same run.

For every corpus (train split, first ``--train-documents``; test split, first
``--test-documents``), K and training seed (``random_state``), one pass of

* ``G-OEM, P = p``: ``OnlineLDA(K, method="g-oem", batch_size=100, local_passes=p,
  n_passes=1)`` for each p of ``--passes`` (the default sampler: sparse at these K), which
  averages the conditionals of the last quarter of the P passes (at least one; Dupuy & Bach
  2016, Algorithm 2: "a short burn-in phase of three-quarters of the updates");
* ``G-OEM, P = p, last half``: the same recording the last half of the passes, for each p of
  ``--half-passes`` (the paper fixes the quarter; this row asks whether a shorter burn-in
  helps a short chain);
* ``gensim LdaModel``: one pass at its defaults (chunksize 2000, iterations 50, offset 1), and
  with chunksize 256, with the same seeds;

and the held-out log-perplexity per document of each (left-to-right, ``--particles``
particles, the same evaluation seed for every model, so differences are paired over the test
documents). "Within noise" is judged against the training seeds: for each configuration the
mean and standard deviation over seeds of its held-out score, and its difference to P = 20
(seed by seed) with the standard error over seeds; beside it the paired SE over test documents
of seed 0 alone, which ignores the seed's noise. One thread (numba, BLAS); times are CPU
seconds of the process (the machine may be shared), each configuration's the best over its
seeds (same work: one pass, the same P); numba compilation is done beforehand.

Usage: python reproductions/local_passes.py [--corpora debian newsarticles] [--topics 100]
           [--passes 3 5 8 10 14 20] [--half-passes 5 8 10] [--seeds 0 1 2 3 4]
           [--train-documents 6000] [--test-documents 300] [--particles 10] [--no-gensim]
           [--name local_passes]
Writes reproductions/results/NAME.{json,md} and prints the table.
"""

from __future__ import annotations

import os

for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import argparse  # noqa: E402
import platform  # noqa: E402
import time  # noqa: E402
from dataclasses import dataclass  # noqa: E402

import numpy as np  # noqa: E402

from streamtopics import read_corpus_dir  # noqa: E402
from streamtopics.estimators import OnlineLDA  # noqa: E402
from streamtopics.evaluation import left_to_right  # noqa: E402
from streamtopics.inference.gibbs_estep import GibbsEstimator, GibbsRun  # noqa: E402
from streamtopics.inference.presets import LOCAL_ESTIMATORS, PRESETS, Method  # noqa: E402

from results_files import CORPORA, command_line, write_results  # noqa: E402

REFERENCE = 20  # the paper's P and the library's default
# gensim LdaModel's runs: name -> chunksize (its default, and minibatches nearer ours)
GENSIM = {"gensim LdaModel (defaults: chunksize 2000)": 2000,
          "gensim LdaModel (chunksize 256)": 256}


def fit_goem(train, n_topics, passes, seed, method="g-oem"):
    """One pass of ``method`` in minibatches of 100 with P = ``passes``: (CPU seconds, CPU
    seconds inside the local step `GibbsRun.advance`, beta, alpha, P)."""
    advance, inside = GibbsRun.advance, [0.0]

    def timed(run, *args):
        started = time.process_time()
        advance(run, *args)
        inside[0] += time.process_time() - started

    model = OnlineLDA(n_topics, method=method, batch_size=100, local_passes=passes,
                      n_passes=1, random_state=seed)
    GibbsRun.advance = timed
    try:
        started = time.process_time()
        model.fit(train)
        seconds = time.process_time() - started
    finally:
        GibbsRun.advance = advance
    return seconds, inside[0], model.components_, model.doc_topic_prior_, passes


def fit_gensim(train, n_topics, chunksize, seed):
    """One pass of gensim's LdaModel at its defaults but ``chunksize``: `fit_goem`'s tuple
    (no local step's time, no P)."""
    from gensim.matutils import Sparse2Corpus
    from gensim.models import LdaModel
    documents = list(Sparse2Corpus(train.counts, documents_columns=False))
    started = time.process_time()
    model = LdaModel(documents, num_topics=n_topics, id2word=dict(enumerate(train.vocabulary)),
                     passes=1, chunksize=chunksize, eval_every=None, random_state=seed)
    seconds = time.process_time() - started
    return seconds, None, model.get_topics(), np.asarray(model.alpha, dtype=np.float64), None


def number(value, digits=2):
    """A table cell: ``value`` to ``digits`` decimals, empty for None."""
    return "" if value is None else f"{value:.{digits}f}"


def speed_cells(row) -> str:
    """The first cells of a table row: corpus, K, method, train seconds, documents/s and the
    speed ratios to the two `GENSIM` runs (empty where not run), up to the next cell."""
    ratios = " | ".join(number(row.get(f"speed vs {name}")) for name in GENSIM)
    return (f"| {row['corpus']} | {row['K']} | {row['method']} | {row['seconds']:.2f} | "
            f"{row['documents_per_second']:.0f} | {ratios} | ")


@dataclass(frozen=True)
class LastHalf(GibbsEstimator):
    """Algorithm 2 averaging the conditionals of the last half of the passes (at least one)
    instead of the last quarter: a bench-only variant, registered as local estimator
    "gibbs-last-half" below."""

    @property
    def recorded_passes(self) -> int:
        return max(1, self.passes // 2)


LOCAL_ESTIMATORS["gibbs-last-half"] = lambda settings: LastHalf(
    passes=settings.local_passes, sampler=settings.local_sampler)
LAST_HALF = Method("gibbs-last-half", *[getattr(PRESETS["g-oem"], axis) for axis in
                                        ("parameters", "step_size", "alpha_update")],
                   name="g-oem, last half recorded")


def configurations(args):
    """(row name, fit(train, K, seed) -> `fit_goem`'s tuple) of every configuration."""
    rows = [(f"G-OEM, P = {p}", lambda train, k, seed, p=p: fit_goem(train, k, p, seed))
            for p in args.passes]
    rows += [(f"G-OEM, P = {p}, last half", lambda train, k, seed, p=p:
              fit_goem(train, k, p, seed, LAST_HALF)) for p in args.half_passes]
    if not args.no_gensim:
        rows += [(name, lambda train, k, seed, chunk=chunk: fit_gensim(train, k, chunk, seed))
                 for name, chunk in GENSIM.items()]
    return rows


def measure(corpus_name, n_topics, args):
    train = read_corpus_dir(CORPORA / corpus_name, "train")[:args.train_documents]
    test = read_corpus_dir(CORPORA / corpus_name, "test")[:args.test_documents]
    runs = {}  # name -> per seed: (seconds, kernel seconds, P, per-document log-likelihoods)
    for name, fit in configurations(args):
        runs[name] = []
        for seed in args.seeds:
            seconds, kernel, beta, alpha, passes = fit(train, n_topics, seed)
            scores = np.asarray(left_to_right(beta, alpha, test, n_particles=args.particles,
                                              seed=0).log_likelihoods)
            runs[name].append((seconds, kernel, passes, scores))
            print(f"{corpus_name:12} K={n_topics:<4} {name:44} seed {seed}: {seconds:6.2f} s "
                  f"{-scores.mean():9.2f}", flush=True)
    reference = runs[f"G-OEM, P = {REFERENCE}"]
    reference_spread = float(np.std([-run[3].mean() for run in reference], ddof=1))
    best = {name: min(run[0] for run in seeds) for name, seeds in runs.items()}
    rows = []
    for name, seeds in runs.items():
        held_out = np.array([-run[3].mean() for run in seeds])
        # positive: worse (higher log-perplexity) than P = 20 with the same training seed
        worse = held_out - np.array([-run[3].mean() for run in reference])
        paired = reference[0][3] - seeds[0][3]
        fastest = min(seeds, key=lambda run: run[0])
        row = {"corpus": corpus_name, "K": n_topics, "method": name, "seeds": list(args.seeds),
               "documents": train.n_documents, "tokens": train.n_tokens,
               "seconds": best[name], "seconds_per_seed": [run[0] for run in seeds],
               "documents_per_second": train.n_documents / best[name],
               "log_perplexity_per_document": float(held_out.mean()),
               "log_perplexity_per_seed": held_out.tolist(),
               "seed_sd": float(held_out.std(ddof=1)),
               "worse_than_p20_by": float(worse.mean()),
               "worse_than_p20_se_over_seeds": float(worse.std(ddof=1) / np.sqrt(worse.size)),
               "p20_seed_sd": reference_spread,
               "within_p20_seed_sd": bool(worse.mean() <= reference_spread),
               "seed0_worse_than_p20_by": float(paired.mean()),
               "seed0_paired_se": float(paired.std(ddof=1) / np.sqrt(paired.size))}
        if fastest[1] is not None:
            row["kernel_share"] = fastest[1] / fastest[0]
            row["kernel_ns_per_token_pass"] = fastest[1] / (train.n_tokens * fastest[2]) * 1e9
        for reference_name in GENSIM:
            if reference_name in best:
                row[f"speed vs {reference_name}"] = best[reference_name] / best[name]
        row["speed vs P = 20"] = best[f"G-OEM, P = {REFERENCE}"] / best[name]
        rows.append(row)
    return rows


def markdown(rows, args):
    lines = ["| corpus | K | method | train s (best of seeds) | docs/s | x gensim defaults | "
             "x gensim 256 | x P = 20 | kernel share | held-out log-perplexity / doc (mean of "
             "seeds ± SD) | worse than P = 20 by (± SE over seeds) | within P = 20's seed SD | "
             "seed 0: worse than P = 20 by (± paired SE) |",
             "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|:---:|---:|"]

    for row in rows:
        lines.append(
            f"{speed_cells(row)}{row['speed vs P = 20']:.2f} | {number(row.get('kernel_share'))} | "
            f"{row['log_perplexity_per_document']:.2f} ± {row['seed_sd']:.2f} | "
            f"{row['worse_than_p20_by']:+.2f} ± {row['worse_than_p20_se_over_seeds']:.2f} | "
            f"{'yes' if row['within_p20_seed_sd'] else 'no'} | "
            f"{row['seed0_worse_than_p20_by']:+.2f} ± {row['seed0_paired_se']:.2f} |")
    lines += ["", f"Seeds {', '.join(map(str, args.seeds))} for every row (training "
              f"random_state; the evaluation seed is 0 for all); {args.test_documents} test "
              f"documents, left-to-right with {args.particles} particles. \"Within P = 20's seed "
              "SD\": the mean over seeds of (held-out - P = 20's with the same seed) is at most "
              "the standard deviation over seeds of P = 20's held-out score. Kernel share: the "
              "Gibbs kernel's part of the fit's CPU time (the rest: minibatches, per-word "
              "tables, M-step, alpha)."]
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpora", nargs="+", default=["debian", "newsarticles"])
    parser.add_argument("--topics", type=int, nargs="+", default=[100])
    parser.add_argument("--passes", type=int, nargs="+", default=[3, 5, 8, 10, 14, 20])
    parser.add_argument("--half-passes", type=int, nargs="*", default=[5, 8, 10],
                        help="P values also run recording the last half of the passes")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    parser.add_argument("--train-documents", type=int, default=6000)
    parser.add_argument("--test-documents", type=int, default=300)
    parser.add_argument("--particles", type=int, default=10)
    parser.add_argument("--no-gensim", action="store_true")
    parser.add_argument("--name", default="local_passes",
                        help="results name under reproductions/results (default: local_passes)")
    args = parser.parse_args()
    if REFERENCE not in args.passes or len(args.seeds) < 2:
        parser.error(f"--passes must include {REFERENCE} and --seeds at least two seeds")
    warm_up = read_corpus_dir(CORPORA / args.corpora[0], "train")[:200]
    for _, fit in configurations(args)[:1]:  # compile outside the timing
        fit(warm_up, 40, 0)
    rows = [row for corpus in args.corpora for n_topics in args.topics
            for row in measure(corpus, n_topics, args)]
    table = markdown(rows, args)
    write_results(args.name, {"settings": vars(args), "threads": 1,
                              "machine": platform.processor() or platform.machine(),
                              "rows": rows},
                  "G-OEM's local passes P: speed and held-out score against gensim LdaModel "
                  "(one thread, one pass, minibatches of 100, CPU seconds)", command_line(),
                  table)
    print("\n".join(table))


if __name__ == "__main__":
    main()
