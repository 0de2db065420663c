"""Peak memory of streaming minibatches from a large UCI docword file (issue 2, "Done when").

Writes a synthetic docword file of 1,000,000 documents (K=10, V=1000, lengths ~ Poisson(60))
with the streaming `DocwordWriter`, then, each in a fresh child process so that peak RSS
(`measuring.peak_mb`) belongs to that step alone:

1. write the 1,000,000-document file (and a 100,000-document one for the in-memory baseline);
2. stream the large file in minibatches of 100, noting peak RSS after 100,000 documents and at
   the end: memory must not grow with the file's length and must stay under 300 MB;
3. read the 100,000-document file whole with `read_uci`, for contrast.

Usage: ``python bench/stream_memory.py [--documents 1000000] [--workdir DIR] [--keep]``.
Writes bench/results/stream_memory.json and .md and prints the table.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from pathlib import Path

from measuring import command_line, peak_mb, run_child, write_results

LIMIT_MB = 300
CHECKPOINT = 100_000


def child_write(path: str, n_documents: int, seed: int) -> dict:
    import numpy as np

    from streamtopics.corpus import DocwordWriter, iter_synthetic_documents, make_topics

    rng = np.random.default_rng(seed)
    beta = make_topics(10, 1000, 0.1, seed=rng)
    alpha = np.full(10, 0.1)
    start = time.perf_counter()
    with DocwordWriter(path, n_words=1000) as writer:
        for tokens, _ in iter_synthetic_documents(beta, alpha, n_documents, 60.0, seed=rng,
                                                  chunk_size=5_000):
            writer.write_tokens(tokens)
    return {"documents": writer.n_documents, "nonzero": writer.n_nonzero,
            "seconds": time.perf_counter() - start, "peak_mb": peak_mb(),
            "file_mb": Path(path).stat().st_size / 2**20}


def child_stream(path: str, batch_size: int) -> dict:
    from streamtopics.corpus import DocwordStream

    start = time.perf_counter()
    stream = DocwordStream(path, batch_size=batch_size)
    documents = tokens = 0
    at_checkpoint = None
    for batch in stream:
        documents += batch.n_documents
        tokens += batch.n_tokens
        if at_checkpoint is None and documents >= CHECKPOINT:
            at_checkpoint = peak_mb()
    return {"documents": documents, "tokens": tokens, "nonzero": int(stream.n_nonzero),
            "seconds": time.perf_counter() - start, "peak_mb_at_100k": at_checkpoint,
            "peak_mb": peak_mb()}


def child_read(path: str) -> dict:
    from streamtopics.corpus import read_uci

    start = time.perf_counter()
    corpus = read_uci(path)
    return {"documents": corpus.n_documents, "tokens": corpus.n_tokens,
            "seconds": time.perf_counter() - start, "peak_mb": peak_mb()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=1_000_000)
    parser.add_argument("--batch-size", type=int, default=100)
    parser.add_argument("--workdir", default="/tmp/streamtopics-stream-memory")
    parser.add_argument("--keep", action="store_true", help="keep the docword files")
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        kind, *rest = args.child
        result = {"write": lambda: child_write(rest[0], int(rest[1]), int(rest[2])),
                  "stream": lambda: child_stream(rest[0], int(rest[1])),
                  "read": lambda: child_read(rest[0])}[kind]()
        print(json.dumps(result))
        return 0

    workdir = Path(args.workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    large, small = workdir / "docword.large.txt", workdir / "docword.small.txt"
    try:
        write_large = run_child(__file__, "write", str(large), str(args.documents), "0")
        write_small = run_child(__file__, "write", str(small), str(CHECKPOINT), "1")
        stream_large = run_child(__file__, "stream", str(large), str(args.batch_size))
        read_small = run_child(__file__, "read", str(small))
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    assert stream_large["documents"] == write_large["documents"] == args.documents
    assert stream_large["nonzero"] == write_large["nonzero"]

    rows = [
        ("write (DocwordWriter)", f"{args.documents:,}", write_large["seconds"], write_large["peak_mb"]),
        (f"stream, batches of {args.batch_size}: after 100,000 docs", f"{CHECKPOINT:,}", None,
         stream_large["peak_mb_at_100k"]),
        (f"stream, batches of {args.batch_size}: whole file", f"{args.documents:,}",
         stream_large["seconds"], stream_large["peak_mb"]),
        ("read_uci in memory (for contrast)", f"{CHECKPOINT:,}", read_small["seconds"], read_small["peak_mb"]),
    ]
    growth = stream_large["peak_mb"] / stream_large["peak_mb_at_100k"]
    table = ["| step | documents | seconds | peak RSS (MB) |", "| --- | ---: | ---: | ---: |"]
    table += [f"| {name} | {docs} | {'' if secs is None else f'{secs:.1f}'} | {mb:.0f} |"
              for name, docs, secs, mb in rows]
    table.append("")
    table.append(f"File: {write_large['file_mb']:.0f} MB, {write_large['nonzero']:,} entries, "
                 f"{stream_large['tokens']:,} tokens. Peak RSS whole file / after 100,000 documents: "
                 f"{growth:.3f}. Limit: {LIMIT_MB} MB: "
                 f"{'PASS' if stream_large['peak_mb'] < LIMIT_MB else 'FAIL'}.")
    write_results("stream_memory", {
        "write_large": write_large, "write_small": write_small, "stream_large": stream_large,
        "read_small_in_memory": read_small, "growth_ratio": growth, "limit_mb": LIMIT_MB,
        "batch_size": args.batch_size}, "Peak memory of streaming a docword file", command_line(),
        table)
    print("\n".join(table))
    return 0 if stream_large["peak_mb"] < LIMIT_MB else 1


if __name__ == "__main__":
    sys.exit(main())
