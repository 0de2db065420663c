"""Peak memory of training over a stream does not grow with its length (issue 8, item 1).

G-OEM (P = 20 local passes, minibatches of 100, a checkpoint every 100,000 documents) trains
with `streamtopics.training.train_stream` over 1,000,000 synthetic documents (V = 1000, K* = 10
topics, lengths ~ Poisson(60)), each run in a fresh child process that notes its peak resident
memory (VmHWM of /proc/self/status) once 100,000 documents are trained on and at the end:

1. a UCI docword file (written by bench/stream_memory.py's child), at K = 10 and K = 100;
2. stdin: JSON lines generated on the fly by another process and piped in (no file), at K = 10,
   as ``streamtopics fit - ...`` reads them.

The two peaks of each run must differ by less than 10%. Usage:
``python bench/fit_memory.py [--documents 1000000] [--at 100000] [--workdir DIR] [--keep]``.
Writes bench/results/fit_memory.json and .md and prints the table.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

from measuring import command_line, peak_mb, run_child, write_results

BENCH = Path(__file__).resolve().parent
MAX_GROWTH = 1.10
N_WORDS, TRUE_TOPICS, MEAN_LENGTH = 1000, 10, 60.0


def word(i: int) -> str:
    """Letter-only word names (the tokenizer splits on digits)."""
    return "".join(chr(97 + i // 26 ** p % 26) for p in (2, 1, 0))


def child_generate(n_documents: int, seed: int) -> None:
    """JSON lines of synthetic documents on stdout, a chunk at a time."""
    import numpy as np

    from streamtopics.corpus import iter_synthetic_documents, make_topics

    rng = np.random.default_rng(seed)
    beta = make_topics(TRUE_TOPICS, N_WORDS, 0.1, seed=rng)
    words = [word(i) for i in range(N_WORDS)]
    out = sys.stdout
    for tokens, _ in iter_synthetic_documents(beta, np.full(TRUE_TOPICS, 0.1), n_documents,
                                              MEAN_LENGTH, seed=rng, chunk_size=5_000):
        out.write("".join(json.dumps({"text": " ".join([words[w] for w in document])}) + "\n"
                          for document in tokens))
    out.flush()


def child_train(source: str, n_topics: int, at: int, checkpoint: str) -> dict:
    from streamtopics import OnlineLDA
    from streamtopics.training import train_stream

    marks = {}

    def note(position):
        if "at" not in marks and position.documents_total >= at:
            marks["at"], marks["documents_at"] = peak_mb(), position.documents_total

    model = OnlineLDA(n_topics=n_topics, method="g-oem", batch_size=100, local_passes=20,
                      random_state=0)
    vocabulary = [word(i) for i in range(N_WORDS)] if source == "-" else None
    started = time.perf_counter()
    result = train_stream(model, source, vocabulary=vocabulary, checkpoint=checkpoint,
                          checkpoint_every=100_000, progress=note)
    return {"documents": result.documents, "tokens": result.report.tokens_kept,
            "steps": result.steps, "checkpoints": result.checkpoints_written,
            "seconds": time.perf_counter() - started, "peak_mb_at": marks["at"],
            "documents_at": marks["documents_at"], "peak_mb_end": peak_mb()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=1_000_000)
    parser.add_argument("--at", type=int, default=100_000, help="first measuring point")
    parser.add_argument("--workdir", default="/tmp/streamtopics-fit-memory")
    parser.add_argument("--keep", action="store_true", help="keep the docword file")
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        kind, *rest = args.child
        if kind == "generate":
            child_generate(int(rest[0]), int(rest[1]))
        else:
            print(json.dumps(child_train(rest[0], int(rest[1]), int(rest[2]), rest[3])))
        return 0

    workdir = Path(args.workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    docword = workdir / "docword.stream.txt"
    runs = []
    try:
        written = run_child(BENCH / "stream_memory.py", "write", docword, args.documents, 0)
        for n_topics in (10, 100):
            checkpoint = workdir / f"docword-{n_topics}.ckpt"
            runs.append(("docword file", n_topics,
                         run_child(__file__, "train", docword, n_topics, args.at, checkpoint)))
            print(runs[-1], file=sys.stderr)
        generator = subprocess.Popen([sys.executable, __file__, "--child", "generate",
                                      str(args.documents), "1"], stdout=subprocess.PIPE)
        runs.append(("stdin, JSON lines", 10, run_child(__file__, "train", "-", 10, args.at,
                                                        workdir / "stdin.ckpt",
                                                        stdin=generator.stdout)))
        generator.stdout.close()
        if generator.wait() != 0:
            raise RuntimeError("the generator failed")
        print(runs[-1], file=sys.stderr)
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)

    header = (f"| source | K | documents | seconds | documents/s | peak RSS after {args.at:,} "
              f"documents (MB) | after {args.documents:,} (MB) | ratio |")
    table = [header, "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    ok = True
    for name, n_topics, run in runs:
        assert run["documents"] == args.documents, run
        ratio = run["peak_mb_end"] / run["peak_mb_at"]
        ok &= ratio < MAX_GROWTH
        run["ratio"] = ratio
        table.append(f"| {name} | {n_topics} | {run['documents']:,} | {run['seconds']:.0f} | "
                     f"{run['documents'] / run['seconds']:,.0f} | {run['peak_mb_at']:.0f} | "
                     f"{run['peak_mb_end']:.0f} | {ratio:.3f} |")
    table.append("")
    table.append(f"G-OEM, P = 20, minibatches of 100, a checkpoint every 100,000 documents, numba "
                 f"threads = 1; synthetic V = {N_WORDS}, K* = {TRUE_TOPICS}, Poisson({MEAN_LENGTH:g}) "
                 f"lengths; docword file {written['file_mb']:.0f} MB. Peak RSS = VmHWM. Every "
                 f"ratio below {MAX_GROWTH}: {'PASS' if ok else 'FAIL'}.")
    write_results("fit_memory", {
        "documents": args.documents, "at": args.at, "write": written,
        "runs": [{"source": name, "n_topics": k, **run} for name, k, run in runs],
        "max_growth": MAX_GROWTH, "pass": ok}, "Peak memory of streamed training", command_line(),
        table)
    print("\n".join(table))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
