"""How long does one pass of G-OEM take over a Wikipedia-sized stream read from a file, in how
much memory, and how good is the model?

A synthetic stream of ``--documents`` (1,000,000) documents of the shape of BigARTM's English
Wikipedia run (K* = 100 topics drawn from a Dirichlet(0.1) over V = ``--words`` (100,000)
words, a Dirichlet(0.05) topic mix per document, Poisson(300) tokens), each step in a fresh
child process (numba threads = 1):

1. write it as a UCI docword file with the streaming `DocwordWriter`, with ``--test-documents``
   test documents from the same topics in a file of their own;
2. train ``OnlineLDA(100, method="g-oem", n_passes=1)`` (at the estimator's defaults, or
   with the ``--eta``, ``--batch-size``, ``--step-decay`` and ``--local-passes`` given: the
   flat-topic setting of `wikipedia_shape` is ``--eta 0.3 --batch-size 1000 --step-decay 1
   --local-passes 5``) on the file with
   `training.train_stream`: wall and CPU seconds, peak resident memory (VmHWM), documents and
   tokens per second, and the held-out score of the model and of the generating model
   (left-to-right, R = 10, on the test documents; not timed);
3. the time of BigARTM's 3.7M-document run projected from the measured rate (tokens per CPU
   second: the cost of a step grows with its tokens);
4. ``transform`` of the test documents by the trained model, in one call (after a call on two
   of them, which loads its compiled kernels): documents per CPU second, and the peak resident
   memory after it.

``--keep`` leaves the files in ``--workdir``; a later run over the same stream (the same
documents, words and test documents) reads them instead of writing them again, and reports the
time of the run that wrote them.

``--quick``: 2,000 documents of 60 tokens, V = 1,000, K = 10.

Usage: python bench/wikipedia_stream.py [--documents 1000000] [--words 100000]
           [--test-documents 200] [--eta E] [--batch-size B] [--step-decay KAPPA]
           [--local-passes P] [--workdir DIR] [--keep] [--quick]
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

from measuring import (arguments, child_options, child_step, held_out, parse, peak_mb,
                       run_child, write_results)

WIKIPEDIA_DOCUMENTS = 3_700_000
ALPHA, TOPIC_CONCENTRATION = 0.05, 0.1
SETTINGS = {"eta": ("topic_word_prior", float), "batch_size": ("batch_size", int),
            "step_decay": ("step_decay", float), "local_passes": ("local_passes", int)}


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


def child_train(workdir: str, n_topics: int, settings: str) -> dict:
    """One pass of G-OEM with ``settings`` (JSON: the options of `SETTINGS` given) over
    ``docword.train.txt``, then both models scored on ``docword.test.txt``."""
    import numpy as np

    from streamtopics import OnlineLDA
    from streamtopics.corpus import read_uci
    from streamtopics.training import train_stream
    options = {SETTINGS[key][0]: value for key, value in json.loads(settings).items()}
    model = OnlineLDA(n_topics, method="g-oem", n_passes=1, random_state=0, **options)
    wall, cpu = time.perf_counter(), time.process_time()
    result = train_stream(model, str(Path(workdir) / "docword.train.txt"))
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    peak = peak_mb()
    test = read_uci(Path(workdir) / "docword.test.txt")
    truth = np.load(Path(workdir) / "truth.npz")
    model.transform(test[:2])  # its kernels loaded outside the timing
    transform = time.process_time()
    model.transform(test)
    transform = time.process_time() - transform
    return {"documents": result.documents, "wall_seconds": wall,
            "cpu_seconds": cpu, "peak_mb": peak, "eta": model.topic_word_prior_,
            "batch_size": model.batch_size, "step_decay": model.step_decay,
            "local_passes": model.local_passes,
            "transform_documents_per_second": test.n_documents / transform,
            "transform_peak_mb": peak_mb(),
            "log_perplexity": float(-held_out(model.components_, model.doc_topic_prior_, test,
                                              particles=10).mean()),
            "true_log_perplexity": float(-held_out(truth["beta"], truth["alpha"], test,
                                                   particles=10).mean())}


CHILDREN = {"write": child_write, "train": child_train}


def stream_files(args, n_topics: int, length: int) -> dict:
    """The stream's files in ``--workdir``: written by a child, or those a kept run wrote for
    the same stream (`child_write`'s result, recorded in ``written.json``)."""
    stream = [args.documents, args.words, n_topics, length, args.test_documents]
    record = args.workdir / "written.json"
    if record.exists():
        kept = json.loads(record.read_text())
        if kept["stream"] == stream:
            return kept["written"]
    written = run_child(__file__, "write", args.workdir, *stream)
    record.write_text(json.dumps({"stream": stream, "written": written}))
    return written


def main() -> None:
    parser = arguments(__doc__, repeats=1)
    parser.add_argument("--documents", type=int, default=1_000_000)
    parser.add_argument("--words", type=int, default=100_000)
    parser.add_argument("--test-documents", type=int, default=200)
    for key, (_, kind) in SETTINGS.items():
        parser.add_argument("--" + key.replace("_", "-"), type=kind,
                            help=f"G-OEM's {key} (default: the estimator's)")
    child_options(parser, "/tmp/streamtopics-wikipedia")
    args = parse(parser)
    if child_step(args, CHILDREN):
        return
    n_topics, length = 100, 300
    if args.quick:
        args.documents, args.words, args.test_documents = 2_000, 1_000, 40
        n_topics, length = 10, 60
    args.workdir.mkdir(parents=True, exist_ok=True)
    settings = {key: getattr(args, key) for key in SETTINGS if getattr(args, key) is not None}
    try:
        written = stream_files(args, n_topics, length)
        trained = run_child(__file__, "train", args.workdir, n_topics, json.dumps(settings))
    finally:
        if not args.keep:
            shutil.rmtree(args.workdir, ignore_errors=True)
    tokens_per_second = written["tokens"] / trained["cpu_seconds"]
    projected = WIKIPEDIA_DOCUMENTS * length / tokens_per_second
    row = {**trained, "written": written, "V": args.words, "K": n_topics, "length": length,
           "documents_per_second": trained["documents"] / trained["cpu_seconds"],
           "tokens_per_second": tokens_per_second, "projected_wikipedia_seconds": projected}
    lines = ["| documents | V | K | eta | minibatch | kappa | P | wall s | CPU s | documents / "
             "CPU s | tokens / CPU s | peak RSS (MB) | held-out log-perplexity / doc (true "
             f"model) | projected CPU time for {WIKIPEDIA_DOCUMENTS:,} documents | transform: "
             "documents / CPU s | peak RSS after it (MB) |", "|---:|---:|---:|---:|" + "---:|" * 12,
             f"| {row['documents']:,} | {args.words:,} | {n_topics} | {row['eta']:g} | "
             f"{row['batch_size']} | {row['step_decay']:g} | {row['local_passes']} | "
             f"{row['wall_seconds']:.1f} | {row['cpu_seconds']:.1f} | "
             f"{row['documents_per_second']:,.0f} | {row['tokens_per_second']:,.0f} | "
             f"{row['peak_mb']:.0f} | {row['log_perplexity']:.1f} "
             f"({row['true_log_perplexity']:.1f}) | {projected / 60:.0f} min | "
             f"{row['transform_documents_per_second']:,.0f} | {row['transform_peak_mb']:.0f} |",
             "",
             f"Synthetic stream of Poisson({length}) tokens, docword file "
             f"{written['file_mb']:.0f} MB, written in {written['seconds']:.0f} s; G-OEM one "
             "pass (rho_i = i^-kappa), one thread, from the file with `train_stream`; held-out: "
             "left-to-right, R = 10, "
             f"{args.test_documents} test documents. The projection assumes the measured "
             "tokens per CPU second."]
    headline = [f"{row['documents']:,} documents, V = {args.words:,}, K = {n_topics} (eta "
                f"{row['eta']:g}, minibatches of {row['batch_size']}, kappa "
                f"{row['step_decay']:g}, P = {row['local_passes']}): "
                f"{row['documents_per_second']:,.0f} documents / CPU s, peak "
                f"{row['peak_mb']:.0f} MB, held-out {row['log_perplexity']:.1f} (true model "
                f"{row['true_log_perplexity']:.1f}); {WIKIPEDIA_DOCUMENTS:,} documents "
                f"projected at {projected / 60:.0f} CPU min; transform "
                f"{row['transform_documents_per_second']:,.0f} documents / CPU s"]
    write_results(args, {"rows": [row]}, "One pass over a Wikipedia-sized stream from a file",
                  lines, headline)


if __name__ == "__main__":
    main()
