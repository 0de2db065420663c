"""Does memory stay flat over a long stream, and how fast is it read and trained on?

A synthetic stream of ``--documents`` (500,000) documents (K* = 10 planted topics over V =
1,000 words, lengths ~ Poisson(60)), each step in a fresh child process (numba threads = 1)
that notes its peak resident memory (VmHWM) once ``--at`` (100,000) documents are done and at
the end (the two must differ by less than 10%) and its documents per second:

1. write it as a UCI docword file with the streaming `DocwordWriter`;
2. read it in minibatches of 100 (`DocwordStream`);
3. train G-OEM on it (P = 20, minibatches of 100, a checkpoint every 100,000 documents) with
   `training.train_stream`, at K = 10 and K = 100;
4. train G-OEM at K = 10 on JSON lines piped in on stdin by another process (no file), as
   ``streamtopics fit -`` reads them;
5. for contrast, read the first ``--at`` documents whole (`read_uci`): memory that grows with
   the corpus.

``--quick``: 3,000 documents, steps 1 to 3 at K = 10.

Usage: python bench/long_stream.py [--documents 500000] [--at 100000] [--workdir DIR]
           [--keep] [--quick]
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

from measuring import (arguments, child_options, child_step, parse, peak_mb, run_child,
                       write_results)

N_WORDS, TRUE_TOPICS, MEAN_LENGTH = 1000, 10, 60.0
MAX_GROWTH = 1.10


def word(i: int) -> str:
    """Letter-only word names (the tokenizer splits on digits)."""
    return "".join(chr(97 + i // 26 ** p % 26) for p in (2, 1, 0))


def chunks(n_documents: int, seed: int):
    """The stream's documents (lists of word id arrays), 5,000 at a time."""
    import numpy as np

    from streamtopics.corpus import iter_synthetic_documents, make_topics
    rng = np.random.default_rng(seed)
    beta = make_topics(TRUE_TOPICS, N_WORDS, 0.1, seed=rng)
    for tokens, _ in iter_synthetic_documents(beta, np.full(TRUE_TOPICS, 0.1), n_documents,
                                              MEAN_LENGTH, seed=rng, chunk_size=5_000):
        yield tokens


def child_write(path: str, n_documents: int) -> dict:
    from streamtopics.corpus import DocwordWriter
    started = time.perf_counter()
    with DocwordWriter(path, n_words=N_WORDS) as writer:
        for chunk in chunks(n_documents, 0):
            writer.write_tokens(chunk)
    return {"documents": writer.n_documents, "seconds": time.perf_counter() - started,
            "peak_mb_at": None, "peak_mb": peak_mb(),
            "file_mb": Path(path).stat().st_size / 2**20}


def child_read(path: str, at: int) -> dict:
    """Minibatches of 100 of the file; the peak once ``at`` documents are read and at the end."""
    from streamtopics.corpus import DocwordStream
    started = time.perf_counter()
    count, at_mark = 0, None
    for batch in DocwordStream(path, batch_size=100):
        count += batch.n_documents
        if at_mark is None and count >= at:
            at_mark = peak_mb()
    return {"documents": count, "seconds": time.perf_counter() - started,
            "peak_mb_at": at_mark, "peak_mb": peak_mb()}


def child_train(source: str, n_topics: int, at: int, checkpoint: str) -> dict:
    from streamtopics import OnlineLDA
    from streamtopics.training import train_stream
    marks = {}

    def note(position):
        if "at" not in marks and position.documents_total >= at:
            marks["at"] = peak_mb()

    model = OnlineLDA(n_topics=n_topics, method="g-oem", batch_size=100, local_passes=20,
                      random_state=0)
    vocabulary = [word(i) for i in range(N_WORDS)] if source == "-" else None
    started = time.perf_counter()
    result = train_stream(model, source, vocabulary=vocabulary, checkpoint=checkpoint,
                          checkpoint_every=100_000, progress=note)
    return {"documents": result.documents, "seconds": time.perf_counter() - started,
            "peak_mb_at": marks["at"], "peak_mb": peak_mb()}


def child_whole(path: str, at: int) -> dict:
    """The first ``at`` documents read whole (`read_uci` of a file of them)."""
    from streamtopics.corpus import DocwordWriter, read_uci
    first = Path(path).with_suffix(".first.txt")
    with DocwordWriter(first, n_words=N_WORDS) as writer:
        for chunk in chunks(at, 0):
            writer.write_tokens(chunk)
    started = time.perf_counter()
    corpus = read_uci(first)
    return {"documents": corpus.n_documents, "seconds": time.perf_counter() - started,
            "peak_mb_at": None, "peak_mb": peak_mb()}


def child_generate(n_documents: int) -> None:
    """The stream as JSON lines on stdout."""
    words = [word(i) for i in range(N_WORDS)]
    for chunk in chunks(n_documents, 0):
        sys.stdout.write("".join(json.dumps({"text": " ".join(words[w] for w in document)})
                                 + "\n" for document in chunk))
    sys.stdout.flush()


CHILDREN = {"write": child_write, "read": child_read, "train": child_train,
            "whole": child_whole, "generate": child_generate}


def steps(args, workdir: Path) -> list[tuple[str, dict]]:
    docword = workdir / "docword.stream.txt"
    done = [("write (DocwordWriter)", run_child(__file__, "write", docword, args.documents)),
            ("read in minibatches (DocwordStream)", run_child(__file__, "read", docword,
                                                              args.at))]
    for n_topics in args.topics:
        done.append((f"train G-OEM K = {n_topics} on the file", run_child(
            __file__, "train", docword, n_topics, args.at, workdir / f"{n_topics}.ckpt")))
    if not args.quick:
        generator = subprocess.Popen([sys.executable, __file__, "--child", "generate",
                                      str(args.documents)], stdout=subprocess.PIPE)
        done.append(("train G-OEM K = 10 on stdin (JSON lines)", run_child(
            __file__, "train", "-", 10, args.at, workdir / "stdin.ckpt",
            stdin=generator.stdout)))
        generator.stdout.close()
        if generator.wait() != 0:
            raise RuntimeError("the generator failed")
        done.append((f"read the first {args.at:,} whole (read_uci), for contrast",
                     run_child(__file__, "whole", docword, args.at)))
    return done


def main() -> int:
    parser = arguments(__doc__, repeats=1)
    parser.add_argument("--documents", type=int, default=500_000)
    parser.add_argument("--at", type=int, default=100_000, help="first measuring point")
    parser.add_argument("--topics", type=int, nargs="+", default=[10, 100])
    child_options(parser, "/tmp/streamtopics-long-stream")
    args = parse(parser)
    if child_step(args, CHILDREN):
        return 0
    if args.quick:
        args.documents, args.at, args.topics = 3_000, 1_000, [10]
    args.workdir.mkdir(parents=True, exist_ok=True)
    try:
        done = steps(args, args.workdir)
    finally:
        if not args.keep:
            shutil.rmtree(args.workdir, ignore_errors=True)
    rows = [{"step": name, **result,
             "documents_per_second": result["documents"] / result["seconds"],
             "growth": (None if not result.get("peak_mb_at")
                        else result["peak_mb"] / result["peak_mb_at"])} for name, result in done]
    flat = all(row["growth"] is None or row["growth"] < MAX_GROWTH for row in rows)
    lines = [f"| step | documents | seconds | documents/s | peak RSS after {args.at:,} (MB) | "
             "at the end (MB) | growth |", "|---|---:|---:|---:|---:|---:|---:|"]
    lines += [f"| {r['step']} | {r['documents']:,} | {r['seconds']:.1f} | "
              f"{r['documents_per_second']:,.0f} | "
              f"{'' if r['peak_mb_at'] is None else format(r['peak_mb_at'], '.0f')} | "
              f"{r['peak_mb']:.0f} | {'' if r['growth'] is None else format(r['growth'], '.3f')} |"
              for r in rows]
    lines += ["", f"Synthetic stream: V = {N_WORDS}, K* = {TRUE_TOPICS}, Poisson({MEAN_LENGTH:g}) "
              f"lengths, docword file {done[0][1]['file_mb']:.0f} MB; G-OEM: P = 20, minibatches "
              f"of 100, a checkpoint every 100,000 documents, one thread. Peak RSS = VmHWM of "
              f"each step's own process. Every growth below {MAX_GROWTH}: "
              f"{'yes' if flat else 'NO'}."]
    headline = [f"{r['step']}: {r['documents_per_second']:,.0f} documents/s, peak "
                f"{r['peak_mb']:.0f} MB (growth {r['growth']:.2f})" for r in rows
                if r["growth"] is not None and r["step"].startswith("train")]
    write_results(args, {"rows": rows, "max_growth": MAX_GROWTH, "flat": flat},
                  "Memory and throughput of a long stream", lines, headline)
    return 0 if flat else 1


if __name__ == "__main__":
    sys.exit(main())
