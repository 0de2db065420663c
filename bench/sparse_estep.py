"""Sparse, dense and Metropolis-Hastings local Gibbs E-steps of G-OEM, next to gensim's LdaModel,
same run (issue 12).

For every corpus (train split, first ``--train-documents``; test split, first
``--test-documents``) and K, one pass of

* ``G-OEM dense``: ``OnlineLDA(K, method="g-oem", batch_size=100, local_passes=20, n_passes=1,
  local_sampler="dense")``, the O(K)-per-token reference kernel;
* ``G-OEM sparse``: the same with ``local_sampler="sparse"`` (O(topics in the document) per
  token; what ``"auto"`` runs, at every K);
* ``G-OEM mh``: the same with ``local_sampler="mh"`` (2 Metropolis-Hastings cycles per token
  and pass, O(1) each), and with P = each of ``--mh-passes`` (how many passes its chain needs
  to score as the sparse kernel does at P = 20);
* ``gensim LdaModel``: one pass at its defaults (chunksize 2000, iterations 50, offset 1), and
  with chunksize 256;

reporting training documents/s, the ratio to each gensim run, the time inside the Gibbs kernel
per token x local pass (and per token x pass x topic), and the held-out log-perplexity per
document (left-to-right, 10 particles, the same seed for every model so differences are paired)
with the paired standard error of the difference to the dense and to the sparse kernel: a
kernel must not change the answer beyond noise. One thread (numba, BLAS); times are CPU
seconds of the process (the machine may be shared); every fit, gensim's too, runs ``--repeats``
times, the fits interleaved, and each timing is its best (the JSON keeps every repeat and the
ratios to gensim repeat by repeat); numba compilation is done beforehand.

Usage: python bench/sparse_estep.py [--corpora debian newsarticles] [--topics 10 100]
           [--train-documents 6000] [--test-documents 300] [--repeats 2] [--mh-passes 40]
           [--no-gensim] [--name sparse_estep]
Writes bench/results/NAME.{json,md} and prints the table.
"""

from __future__ import annotations

import os

for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import argparse  # noqa: E402
import platform  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

import streamtopics.inference.gibbs_estep as gibbs_estep  # noqa: E402
from streamtopics import read_corpus_dir  # noqa: E402
from streamtopics.estimators import OnlineLDA  # noqa: E402
from streamtopics.evaluation import left_to_right  # noqa: E402

from measuring import CORPORA, KernelClock, command_line, write_results  # noqa: E402

LOCAL_PASSES = 20
# gensim LdaModel's runs: name -> chunksize (its default, and minibatches nearer ours)
GENSIM = {"gensim LdaModel (defaults: chunksize 2000)": 2000,
          "gensim LdaModel (chunksize 256)": 256}


def fit_goem(train, n_topics, sampler, clock, passes=LOCAL_PASSES, seed=0, method="g-oem"):
    """One pass of ``method`` (G-OEM) in minibatches of 100: (CPU seconds, seconds inside the
    kernels ``clock`` wraps, beta, alpha, P)."""
    model = OnlineLDA(n_topics, method=method, batch_size=100, local_passes=passes,
                      n_passes=1, random_state=seed, local_sampler=sampler)
    clock.seconds = 0.0
    started = time.process_time()
    model.fit(train)
    return (time.process_time() - started, clock.seconds, model.components_,
            model.doc_topic_prior_, passes)


def fit_gensim(train, n_topics, chunksize, seed=0):
    """One pass of gensim's LdaModel at its defaults but ``chunksize``: the same tuple as
    `fit_goem` (no kernel time, no P)."""
    from gensim.models import LdaModel
    counts = train.counts
    bow = [list(zip(counts.indices[counts.indptr[d]:counts.indptr[d + 1]].tolist(),
                    counts.data[counts.indptr[d]:counts.indptr[d + 1]].tolist()))
           for d in range(counts.shape[0])]
    id2word = {i: str(w) for i, w in enumerate(train.vocabulary)}
    started = time.process_time()
    model = LdaModel(bow, num_topics=n_topics, id2word=id2word, passes=1, chunksize=chunksize,
                     eval_every=None, random_state=seed)
    seconds = time.process_time() - started
    return seconds, None, model.get_topics(), np.asarray(model.alpha, dtype=np.float64), None


def measure(corpus_name, n_topics, args, clock):
    train = read_corpus_dir(CORPORA / corpus_name, "train")[:args.train_documents]
    test = read_corpus_dir(CORPORA / corpus_name, "test")[:args.test_documents]
    n_docs, n_tokens = train.n_documents, train.n_tokens
    runs = {}
    samplers = [(f"G-OEM {sampler}", sampler, LOCAL_PASSES)
                for sampler in ("dense", "sparse", "mh")]
    samplers += [(f"G-OEM mh, P = {passes}", "mh", passes) for passes in args.mh_passes]
    fits = {name: (lambda sampler=sampler, passes=passes:
                   fit_goem(train, n_topics, sampler, clock, passes))
            for name, sampler, passes in samplers}
    if not args.no_gensim:
        fits.update({name: (lambda chunksize=chunksize: fit_gensim(train, n_topics, chunksize))
                     for name, chunksize in GENSIM.items()})
    # every fit --repeats times, interleaved (a slow spell of the shared machine falls on all
    # of them alike); each keeps its best time, and gensim is timed as streamtopics is
    seconds_by_repeat = {name: [] for name in fits}
    for _ in range(args.repeats):
        for name, fit in fits.items():
            run = fit()
            seconds_by_repeat[name].append(run[0])
            if name not in runs or run[0] < runs[name][0]:
                runs[name] = run
    scores = {name: np.asarray(left_to_right(beta, alpha, test, n_particles=10, seed=0)
                               .log_likelihoods) for name, (_, _, beta, alpha, _) in runs.items()}
    rows = []
    for name, (seconds, kernel, _, _, passes) in runs.items():
        row = {"corpus": corpus_name, "K": n_topics, "method": name, "documents": n_docs,
               "tokens": n_tokens, "seconds": seconds, "documents_per_second": n_docs / seconds,
               "log_perplexity_per_document": float(-scores[name].mean())}
        for reference in ("dense", "sparse"):
            difference = scores[f"G-OEM {reference}"] - scores[name]
            row[f"{reference}_better_by"] = float(difference.mean())
            row[f"{reference}_paired_se"] = float(difference.std(ddof=1) / np.sqrt(difference.size))
        if kernel is not None:
            token_passes = n_tokens * passes
            row["kernel_seconds"] = kernel
            row["kernel_ns_per_token_pass"] = kernel / token_passes * 1e9
            row["kernel_ns_per_token_pass_topic"] = kernel / token_passes / n_topics * 1e9
        row["seconds_by_repeat"] = seconds_by_repeat[name]
        for reference in runs:
            if reference.startswith("gensim"):
                row[f"speed vs {reference}"] = runs[reference][0] / seconds
                # the same ratio repeat by repeat (fits run side by side): its spread
                row[f"speed vs {reference} by repeat"] = [
                    theirs / ours for theirs, ours in zip(seconds_by_repeat[reference],
                                                          seconds_by_repeat[name])]
        row["speed vs G-OEM dense"] = runs["G-OEM dense"][0] / seconds
        rows.append(row)
        print(f"{corpus_name:12} K={n_topics:<4} {name:44} {seconds:7.2f} s "
              f"{row['log_perplexity_per_document']:10.2f} "
              f"(sparse better by {row['sparse_better_by']:+.2f} ± {row['sparse_paired_se']:.2f})",
              flush=True)
    return rows


def number(value, digits=2):
    """A table cell: ``value`` to ``digits`` decimals, empty for None."""
    return "" if value is None else f"{value:.{digits}f}"


def speed_cells(row) -> str:
    """The first cells of a table row: corpus, K, method, train seconds, documents/s and the
    speed ratios to the two `GENSIM` runs (empty where not run), up to the next cell."""
    ratios = " | ".join(number(row.get(f"speed vs {name}")) for name in GENSIM)
    return (f"| {row['corpus']} | {row['K']} | {row['method']} | {row['seconds']:.2f} | "
            f"{row['documents_per_second']:.0f} | {ratios} | ")


def repeat_ratios(row) -> str:
    """A line for ``row``: its speed ratio to each `GENSIM` run, repeat by repeat."""
    cells = ["defaults " if chunksize == 2000 else f"chunksize {chunksize} " for chunksize
             in GENSIM.values()]
    cells = [cell + ", ".join(f"{ratio:.2f}" for ratio in row[f"speed vs {name} by repeat"])
             for cell, name in zip(cells, GENSIM)]
    return (f"- {row['corpus']}, K = {row['K']}, {row['method']}: x gensim repeat by repeat: "
            + "; ".join(cells))


def markdown(rows, test_documents):
    lines = ["| corpus | K | method | train s | docs/s | x gensim defaults | x gensim 256 | "
             "x dense | kernel ns / token-pass | ns / token-pass-topic | held-out log-perplexity "
             f"/ doc ({test_documents} test docs) | dense better by (± paired SE) | "
             "sparse better by (± paired SE) |",
             "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]

    for row in rows:
        lines.append(
            f"{speed_cells(row)}{row['speed vs G-OEM dense']:.2f} | "
            f"{number(row.get('kernel_ns_per_token_pass'), 1)} | "
            f"{number(row.get('kernel_ns_per_token_pass_topic'), 3)} | "
            f"{row['log_perplexity_per_document']:.2f} | "
            f"{row['dense_better_by']:+.2f} ± {row['dense_paired_se']:.2f} | "
            f"{row['sparse_better_by']:+.2f} ± {row['sparse_paired_se']:.2f} |")
    spreads = [repeat_ratios(row) for row in rows
               if row["method"] == "G-OEM sparse"
               and f"speed vs {next(iter(GENSIM))} by repeat" in row]
    if spreads:
        lines += ["", "Ratios of fits run side by side, repeat by repeat "
                  "(the table: best against best):", *spreads]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpora", nargs="+", default=["debian", "newsarticles"])
    parser.add_argument("--topics", type=int, nargs="+", default=[10, 100])
    parser.add_argument("--train-documents", type=int, default=6000)
    parser.add_argument("--test-documents", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--mh-passes", type=int, nargs="*", default=[40],
                        help="more P values for the MH chain, beside P = 20")
    parser.add_argument("--no-gensim", action="store_true")
    parser.add_argument("--name", default="sparse_estep",
                        help="results file name under bench/results (default: sparse_estep)")
    args = parser.parse_args()
    # the Gibbs E-step kernel (dense, sparse or MH), wrapped where `GibbsRun.advance` looks it up
    clock = KernelClock([(gibbs_estep, "gibbs_sweeps")], time.process_time)
    warm_up = read_corpus_dir(CORPORA / args.corpora[0], "train")[:200]
    for sampler in ("dense", "sparse", "mh"):  # compile outside the timing
        fit_goem(warm_up, 40, sampler, clock)
    rows = [row for corpus in args.corpora for n_topics in args.topics
            for row in measure(corpus, n_topics, args, clock)]
    table = markdown(rows, args.test_documents)
    write_results(args.name, {"settings": vars(args), "threads": 1,
                                   "machine": platform.processor() or platform.machine(),
                                   "rows": rows},
                  f"Sparse, dense and MH local Gibbs E-steps (one thread, one pass, P = "
                  f"{LOCAL_PASSES} unless stated, minibatches of 100, CPU seconds)", command_line(),
                  table.split("\n"))
    print(table)


if __name__ == "__main__":
    main()
