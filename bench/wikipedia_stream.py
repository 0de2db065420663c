"""How long does one pass of G-OEM take over a Wikipedia-sized stream read from a file, in how
much memory, and how good is the model?

A synthetic stream of ``--documents`` (1,000,000) documents of the shape of BigARTM's English
Wikipedia run (K* = 100 topics drawn from a Dirichlet(0.1) over V = ``--words`` (100,000)
words, a Dirichlet(0.05) topic mix per document, Poisson(300) tokens), each step in a fresh
child process (numba threads = 1):

1. write it as a UCI docword file with the streaming `DocwordWriter`, with ``--test-documents``
   test documents from the same topics in a file of their own;
2. train ``OnlineLDA(100, method="g-oem", n_passes=1)`` (minibatches of 100, P = 20, the
   topic-word prior ``--eta``, default the estimator's) on the file with
   `training.train_stream`: wall and CPU seconds, peak resident memory (VmHWM), documents and
   tokens per second, and the held-out score of the model and of the generating model
   (left-to-right, R = 10, on the test documents; not timed);
3. the time of BigARTM's 3.7M-document run projected from the measured rate (tokens per CPU
   second: the cost of a step grows with its tokens);
4. ``transform`` of the test documents by the trained model, in one call: documents per CPU
   second, and the peak resident memory after it.

``--quick``: 2,000 documents of 60 tokens, V = 1,000, K = 10.

Usage: python bench/wikipedia_stream.py [--documents 1000000] [--words 100000]
           [--test-documents 200] [--eta E] [--workdir DIR] [--keep] [--quick]
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

from measuring import (arguments, child_options, child_step, held_out, parse, peak_mb,
                       run_child, write_results)

WIKIPEDIA_DOCUMENTS = 3_700_000
ALPHA, TOPIC_CONCENTRATION = 0.05, 0.1


def child_write(workdir: str, n_documents: int, n_words: int, n_topics: int, length: int,
                n_test: int) -> dict:
    """The training stream (``docword.train.txt``), the test documents
    (``docword.test.txt``) and the generating model (``truth.npz``)."""
    import numpy as np

    from streamtopics.corpus import DocwordWriter, iter_synthetic_documents, make_topics
    rng = np.random.default_rng(1)
    beta = make_topics(n_topics, n_words, TOPIC_CONCENTRATION, seed=rng)
    alpha = np.full(n_topics, ALPHA)
    np.savez(Path(workdir) / "truth.npz", beta=beta, alpha=alpha)
    started = time.perf_counter()
    n_tokens = 0
    for name, count in (("test", n_test), ("train", n_documents)):
        with DocwordWriter(Path(workdir) / f"docword.{name}.txt", n_words=n_words) as writer:
            for tokens, _ in iter_synthetic_documents(beta, alpha, count, length, seed=rng,
                                                      chunk_size=5_000):
                writer.write_tokens(tokens)
                n_tokens += sum(map(len, tokens)) if name == "train" else 0
    return {"seconds": time.perf_counter() - started, "peak_mb": peak_mb(), "tokens": n_tokens,
            "file_mb": (Path(workdir) / "docword.train.txt").stat().st_size / 2**20}


def child_train(workdir: str, n_topics: int, eta: str) -> dict:
    """One pass of G-OEM over ``docword.train.txt``, then both models scored on
    ``docword.test.txt``."""
    import numpy as np

    from streamtopics import OnlineLDA
    from streamtopics.corpus import read_uci
    from streamtopics.training import train_stream
    model = OnlineLDA(n_topics, method="g-oem", n_passes=1, random_state=0,
                      topic_word_prior=None if eta == "default" else float(eta))
    wall, cpu = time.perf_counter(), time.process_time()
    result = train_stream(model, str(Path(workdir) / "docword.train.txt"))
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    peak = peak_mb()
    test = read_uci(Path(workdir) / "docword.test.txt")
    truth = np.load(Path(workdir) / "truth.npz")
    transform = time.process_time()
    model.transform(test)
    transform = time.process_time() - transform
    return {"documents": result.documents, "wall_seconds": wall,
            "cpu_seconds": cpu, "peak_mb": peak, "eta": model.topic_word_prior_,
            "transform_documents_per_second": test.n_documents / transform,
            "transform_peak_mb": peak_mb(),
            "log_perplexity": float(-held_out(model.components_, model.doc_topic_prior_, test,
                                              particles=10).mean()),
            "true_log_perplexity": float(-held_out(truth["beta"], truth["alpha"], test,
                                                   particles=10).mean())}


CHILDREN = {"write": child_write, "train": child_train}


def main() -> None:
    parser = arguments(__doc__, repeats=1)
    parser.add_argument("--documents", type=int, default=1_000_000)
    parser.add_argument("--words", type=int, default=100_000)
    parser.add_argument("--test-documents", type=int, default=200)
    parser.add_argument("--eta", default="default", help="topic-word prior (default: G-OEM's)")
    child_options(parser, "/tmp/streamtopics-wikipedia")
    args = parse(parser)
    if child_step(args, CHILDREN):
        return
    n_topics, length = 100, 300
    if args.quick:
        args.documents, args.words, args.test_documents = 2_000, 1_000, 40
        n_topics, length = 10, 60
    args.workdir.mkdir(parents=True, exist_ok=True)
    try:
        written = run_child(__file__, "write", args.workdir, args.documents, args.words,
                            n_topics, length, args.test_documents)
        trained = run_child(__file__, "train", args.workdir, n_topics, args.eta)
    finally:
        if not args.keep:
            shutil.rmtree(args.workdir, ignore_errors=True)
    tokens_per_second = written["tokens"] / trained["cpu_seconds"]
    projected = WIKIPEDIA_DOCUMENTS * length / tokens_per_second
    row = {**trained, "written": written, "V": args.words, "K": n_topics, "length": length,
           "documents_per_second": trained["documents"] / trained["cpu_seconds"],
           "tokens_per_second": tokens_per_second, "projected_wikipedia_seconds": projected}
    lines = ["| documents | V | K | eta | wall s | CPU s | documents / CPU s | tokens / CPU s | "
             "peak RSS (MB) | held-out log-perplexity / doc (true model) | projected CPU time "
             f"for {WIKIPEDIA_DOCUMENTS:,} documents | transform: documents / CPU s | peak RSS "
             "after it (MB) |", "|---:|---:|---:|---:|" + "---:|" * 9,
             f"| {row['documents']:,} | {args.words:,} | {n_topics} | {row['eta']:g} | "
             f"{row['wall_seconds']:.1f} | {row['cpu_seconds']:.1f} | "
             f"{row['documents_per_second']:,.0f} | {row['tokens_per_second']:,.0f} | "
             f"{row['peak_mb']:.0f} | {row['log_perplexity']:.1f} "
             f"({row['true_log_perplexity']:.1f}) | {projected / 60:.0f} min | "
             f"{row['transform_documents_per_second']:,.0f} | {row['transform_peak_mb']:.0f} |",
             "",
             f"Synthetic stream of Poisson({length}) tokens, docword file "
             f"{written['file_mb']:.0f} MB; G-OEM one pass, P = 20, minibatches of 100, one "
             "thread, from the file with `train_stream`; held-out: left-to-right, R = 10, "
             f"{args.test_documents} test documents. The projection assumes the measured "
             "tokens per CPU second."]
    headline = [f"{row['documents']:,} documents, V = {args.words:,}, K = {n_topics}: "
                f"{row['documents_per_second']:,.0f} documents / CPU s, peak "
                f"{row['peak_mb']:.0f} MB, held-out {row['log_perplexity']:.1f} (true model "
                f"{row['true_log_perplexity']:.1f}); {WIKIPEDIA_DOCUMENTS:,} documents "
                f"projected at {projected / 60:.0f} CPU min; transform "
                f"{row['transform_documents_per_second']:,.0f} documents / CPU s"]
    write_results(args, {"rows": [row]}, "One pass over a Wikipedia-sized stream from a file",
                  lines, headline)


if __name__ == "__main__":
    main()
