"""Training throughput of G-OEM and V-OEM next to gensim and scikit-learn online VB, same run.

Every method makes one pass over the same documents in the same order, minibatches of 100,
P = 20 local passes per document:

* streamtopics ``OnlineLDA(method="g-oem" | "v-oem", batch_size=100, local_passes=20)``;
* gensim ``LdaModel`` (online VB, Hoffman et al. 2010): chunksize=100, passes=1, update_every=1,
  iterations=20 with gamma_threshold=0 (exactly 20 local iterations per document, matched), and
  once more with its default gamma_threshold=0.001 (early stopping, gensim's usual speed);
* scikit-learn ``LatentDirichletAllocation(learning_method="online")``: batch_size=100,
  max_iter=1, max_doc_update_iter=20 with mean_change_tol=0 (matched), n_jobs=1.

Reported: documents/s and tokens/s of training (model construction and data conversion outside
the timing; numba compilation done beforehand on a few documents), the ratio to gensim (matched),
and the E-step kernel's cost in nanoseconds per (token x pass x topic) for streamtopics (time
inside the numba kernel / (tokens x P x K)). Run with one numba thread for the one-core
comparison (``--threads 1``, default). Each timing is the best of ``--repeats`` runs (the machine
may be shared).

Usage: python bench/throughput.py [--corpus DIR] [--documents 5000] [--topics 10 100]
       [--passes 20] [--threads 1] [--repeats 2] [--no-peers]
Writes bench/results/throughput.{json,md} and prints the table.
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from pathlib import Path

import numba
import numpy as np

import streamtopics.inference.gibbs_estep as gibbs_estep
import streamtopics.inference.variational_estep as variational_estep
from streamtopics.corpus.readers import read_corpus_dir
from streamtopics.corpus.synthetic import generate_synthetic
from streamtopics.estimators import OnlineLDA

from measuring import CORPORA, KernelClock, command_line, write_results



def best_of(repeats, run):
    """Best (shortest) of ``repeats`` runs of ``run() -> (seconds, extra)``."""
    return min((run() for _ in range(repeats)), key=lambda result: result[0])


def time_streamtopics(corpus, method, n_topics, passes, clock):
    model = OnlineLDA(n_topics, method=method, batch_size=100, local_passes=passes, n_passes=1,
                      random_state=0)
    clock.seconds = 0.0
    started = time.perf_counter()
    model.fit(corpus)
    return time.perf_counter() - started, clock.seconds


def time_gensim(bow, id2word, n_topics, passes, gamma_threshold):
    from gensim.models import LdaModel
    model = LdaModel(id2word=id2word, num_topics=n_topics, chunksize=100, passes=1, update_every=1,
                     iterations=passes, gamma_threshold=gamma_threshold, eval_every=None,
                     random_state=0, dtype=np.float64)
    started = time.perf_counter()
    model.update(bow, chunksize=100, passes=1, update_every=1, eval_every=None)
    return time.perf_counter() - started, None


def time_sklearn(counts, n_topics, passes):
    from sklearn.decomposition import LatentDirichletAllocation
    model = LatentDirichletAllocation(n_components=n_topics, learning_method="online", batch_size=100,
                                      max_iter=1, max_doc_update_iter=passes, mean_change_tol=0.0,
                                      total_samples=counts.shape[0], evaluate_every=-1, n_jobs=1,
                                      random_state=0)
    started = time.perf_counter()
    model.fit(counts)
    return time.perf_counter() - started, None


def load_debian(directory: Path, n_documents: int):
    return read_corpus_dir(directory, "train")[:n_documents]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", type=Path, default=CORPORA / "debian")
    parser.add_argument("--documents", type=int, default=5000)
    parser.add_argument("--topics", type=int, nargs="+", default=[10, 100])
    parser.add_argument("--passes", type=int, default=20)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--no-peers", action="store_true", help="streamtopics only")
    args = parser.parse_args()
    numba.set_num_threads(args.threads)
    clock = KernelClock([(gibbs_estep, "gibbs_sweeps"), (variational_estep, "variational_passes")])

    synthetic, _ = generate_synthetic(n_topics=10, n_words=1000, n_documents=args.documents, seed=0)
    datasets = {"synthetic (K*=10, V=1000, Poisson(60))": synthetic,
                f"debian (first {args.documents} training documents)": load_debian(args.corpus, args.documents)}
    for method in ("g-oem", "v-oem"):  # compile outside the timing
        OnlineLDA(3, method=method, local_passes=4, n_passes=1, random_state=0).fit(synthetic[:50])

    rows = []
    for dataset, corpus in datasets.items():
        n_docs, n_tokens = corpus.n_documents, corpus.n_tokens
        bow = id2word = None
        if not args.no_peers:
            counts = corpus.counts
            bow = [list(zip(counts.indices[counts.indptr[d]:counts.indptr[d + 1]].tolist(),
                            counts.data[counts.indptr[d]:counts.indptr[d + 1]].tolist()))
                   for d in range(n_docs)]
            id2word = {i: str(w) for i, w in enumerate(corpus.vocabulary)}
        for n_topics in args.topics:
            timings = {}
            for method in ("g-oem", "v-oem"):
                seconds, kernel = best_of(args.repeats, lambda: time_streamtopics(
                    corpus, method, n_topics, args.passes, clock))
                timings[f"streamtopics {method.upper()}"] = (seconds, kernel)
            if not args.no_peers:
                timings["gensim LdaModel (20 iterations)"] = best_of(
                    args.repeats, lambda: time_gensim(bow, id2word, n_topics, args.passes, 0.0))
                timings["gensim LdaModel (default early stop)"] = best_of(
                    args.repeats, lambda: time_gensim(bow, id2word, n_topics, args.passes, 0.001))
                timings["scikit-learn LDA online"] = best_of(
                    args.repeats, lambda: time_sklearn(corpus.counts, n_topics, args.passes))
            reference = timings.get("gensim LdaModel (20 iterations)", (None,))[0]
            for name, (seconds, kernel) in timings.items():
                rows.append({
                    "dataset": dataset, "documents": n_docs, "tokens": n_tokens, "K": n_topics,
                    "method": name, "seconds": seconds, "documents_per_second": n_docs / seconds,
                    "tokens_per_second": n_tokens / seconds,
                    "ratio_to_gensim": None if reference is None else reference / seconds,
                    "kernel_seconds": kernel,
                    "kernel_ns_per_token_pass_topic": (None if kernel is None else
                                                       kernel / (n_tokens * args.passes * n_topics) * 1e9),
                })
                print(f"{dataset[:24]:24} K={n_topics:<4} {name:38} {n_docs / seconds:10.0f} docs/s", flush=True)

    header = ("| data | K | method | docs/s | tokens/s | x gensim (20 it.) | kernel ns/(token·pass·topic) |\n"
              "|---|---:|---|---:|---:|---:|---:|")
    table = [header] + [
        f"| {r['dataset']} | {r['K']} | {r['method']} | {r['documents_per_second']:,.0f} | "
        f"{r['tokens_per_second']:,.0f} | "
        f"{'' if r['ratio_to_gensim'] is None else format(r['ratio_to_gensim'], '.2f')} | "
        f"{'' if r['kernel_ns_per_token_pass_topic'] is None else format(r['kernel_ns_per_token_pass_topic'], '.2f')} |"
        for r in rows]
    settings = (f"One pass, minibatch 100, P = {args.passes} local passes, numba threads = {args.threads}, "
                f"best of {args.repeats}; {platform.processor() or platform.machine()}, "
                f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} at the end.")
    write_results("throughput", {"settings": vars(args), "note": settings, "rows": rows},
                  "Training throughput", command_line(), [settings, "", *table])
    print("\n".join(table))


if __name__ == "__main__":
    main()
