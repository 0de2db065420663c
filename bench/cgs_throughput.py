"""Collapsed Gibbs sampling throughput: streamtopics (SparseLDA and dense kernels) next to tomotopy
(`LDAModel`, one worker) and the `lda` package, measured in the same run.

Tokens per second per iteration = tokens x iterations / seconds of sampling, every sampler
starting from a random assignment and running the same number of sweeps (alpha = 0.1,
eta = 0.01, no hyperparameter optimisation). Tokens in reading order (``train.tokens.jsonl``). Initialisation is excluded where the library
allows it (streamtopics, tomotopy); the `lda` package's ``fit`` includes its (cheap) random
initialisation and one log-likelihood evaluation. Also timed: one CGS_p estimator pass
(phi^p and theta^p soft counts, Papanikolaou et al. 2017 Algorithm 1), which costs about one
dense sweep (their section 5.8).

Usage: python bench/cgs_throughput.py [--corpus DIR] [--documents 5000] [--iterations 50]
       [--topics 20 100 500] [--no-dense]
Writes bench/results/cgs_throughput.{json,md} and prints the table.
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from streamtopics import Corpus
from streamtopics.inference.cgs import GibbsState

RESULTS = Path(__file__).parent / "results"
DEFAULT_CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "debian"


def load_documents(directory: Path, n_documents: int) -> Corpus:
    """The first ``n_documents`` training documents of a corpus folder (reading order where
    ``train.tokens.jsonl`` exists), with `read_corpus_dir`, else a plain UCI parser."""
    try:
        from streamtopics.corpus.readers import read_corpus_dir
    except ImportError:
        lines = (directory / "train.docword.txt").read_text().split("\n")
        entries = np.loadtxt(lines[3:], dtype=np.int64, ndmin=2)
        counts = sp.csr_matrix((entries[:, 2], (entries[:, 0] - 1, entries[:, 1] - 1)),
                               shape=(int(lines[0]), int(lines[1])))
        words = (directory / "vocab.txt").read_text(encoding="utf-8").split()
        return Corpus(counts[:n_documents], words)
    return read_corpus_dir(directory, "train")[:n_documents]


def time_streamtopics(corpus, n_topics, iterations, sampler, seed=1):
    flat, offsets = corpus.document_tokens()
    alpha = np.full(n_topics, 0.1)
    warm = GibbsState.random(flat[:offsets[2]], offsets[:3], n_topics, corpus.n_words, seed)
    warm.sweep(alpha, 0.01, seed, 1, sampler)  # compile outside the timing
    warm.soft_counts(alpha, 0.01)
    state = GibbsState.random(flat, offsets, n_topics, corpus.n_words, seed)
    start = time.perf_counter()
    for sweep in range(1, iterations + 1):
        state.sweep(alpha, 0.01, seed, sweep, sampler)
    seconds = time.perf_counter() - start
    start = time.perf_counter()
    state.soft_counts(alpha, 0.01)
    estimator_seconds = time.perf_counter() - start
    return seconds, estimator_seconds, state.log_joint(alpha, 0.01)


def time_tomotopy(corpus, n_topics, iterations, seed=1):
    import tomotopy as tp
    model = tp.LDAModel(k=n_topics, alpha=0.1, eta=0.01, seed=seed)
    model.optim_interval = 0
    flat, offsets = corpus.document_tokens()
    words = corpus.vocabulary
    for d in range(corpus.n_documents):
        model.add_doc([str(words[w]) for w in flat[offsets[d]:offsets[d + 1]]])
    model.train(0, workers=1)
    start = time.perf_counter()
    model.train(iterations, workers=1)
    return time.perf_counter() - start, float(model.ll_per_word)


def time_lda_package(corpus, n_topics, iterations, seed=1):
    import lda
    import logging
    logging.getLogger("lda").setLevel(logging.WARNING)
    model = lda.LDA(n_topics=n_topics, n_iter=iterations, alpha=0.1, eta=0.01,
                    random_state=seed, refresh=iterations)
    start = time.perf_counter()
    model.fit(corpus.counts.astype(np.int64))
    return time.perf_counter() - start, float(model.loglikelihood())


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--documents", type=int, default=5000)
    parser.add_argument("--iterations", type=int, default=50)
    parser.add_argument("--topics", type=int, nargs="+", default=[20, 100, 500])
    parser.add_argument("--no-dense", action="store_true", help="skip the dense reference sampler")
    args = parser.parse_args(argv)
    corpus = load_documents(args.corpus, args.documents)
    n_tokens = corpus.n_tokens
    rows = []
    for n_topics in args.topics:
        row = {"K": n_topics}
        seconds, estimator_seconds, log_joint = time_streamtopics(corpus, n_topics,
                                                                  args.iterations, "sparse")
        row["sparse"] = n_tokens * args.iterations / seconds
        row["sparse_log_joint_per_token"] = log_joint / n_tokens
        row["cgsp_pass_seconds"] = estimator_seconds
        row["sweep_seconds"] = seconds / args.iterations
        if not args.no_dense:
            seconds, _, _ = time_streamtopics(corpus, n_topics, args.iterations, "dense")
            row["dense"] = n_tokens * args.iterations / seconds
        try:
            seconds, row["tomotopy_ll_per_word"] = time_tomotopy(corpus, n_topics,
                                                                 args.iterations)
            row["tomotopy"] = n_tokens * args.iterations / seconds
        except ImportError:
            row["tomotopy"] = None
        try:
            seconds, _ = time_lda_package(corpus, n_topics, args.iterations)
            row["lda"] = n_tokens * args.iterations / seconds
        except ImportError:
            row["lda"] = None
        rows.append(row)
        print(row, flush=True)

    def ratio(a, b):
        return f"{a / b:.2f}" if a and b else "n/a"

    def rate(x):
        return f"{x / 1e6:.2f}" if x else "n/a"

    lines = [
        f"Collapsed Gibbs sampling throughput, million tokens/s per iteration "
        f"({args.corpus.name}: first {corpus.n_documents} training documents, {n_tokens} tokens, "
        f"V = {corpus.n_words}; {args.iterations} sweeps from a random start; one thread)",
        "",
        "| K | streamtopics sparse | streamtopics dense | tomotopy (1 worker) | lda package "
        "| sparse / tomotopy | sparse / lda | CGS_p pass / sparse sweep |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for row in rows:
        lines.append(
            f"| {row['K']} | {rate(row['sparse'])} | {rate(row.get('dense'))} "
            f"| {rate(row['tomotopy'])} | {rate(row['lda'])} | {ratio(row['sparse'], row['tomotopy'])} "
            f"| {ratio(row['sparse'], row['lda'])} "
            f"| {row['cgsp_pass_seconds'] / row['sweep_seconds']:.1f} |")
    table = "\n".join(lines)
    print(table)
    RESULTS.mkdir(parents=True, exist_ok=True)
    meta = {"corpus": str(args.corpus), "documents": corpus.n_documents, "tokens": n_tokens,
            "iterations": args.iterations, "machine": platform.platform(),
            "processor": platform.processor(), "rows": rows}
    (RESULTS / "cgs_throughput.json").write_text(json.dumps(meta, indent=2))
    (RESULTS / "cgs_throughput.md").write_text(table + "\n")


if __name__ == "__main__":
    main()
