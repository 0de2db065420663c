"""Peak memory of ``streamtopics fit FILE`` before and after streaming became the default (issue 18).

Before, ``fit`` loaded its input whole unless a streaming flag was given; now an online method
streams a file (`cli.fit_reading`). Each run is a fresh child process (numba threads = 1) that
notes its peak resident memory (VmHWM) and wall time, on a synthetic corpus written by
``streamtopics synth`` (V = 1000, K* = 10, lengths ~ Poisson(60)):

1. before: `load_corpus` then `OnlineLDA(n_passes=1).fit`, what ``fit FILE --passes 1`` did;
2. after: ``streamtopics fit FILE --passes 1`` (the CLI in the child), which streams;

for the docword file and for the corpus directory (which also holds tokens and metadata). Both
train G-OEM (P = 20, minibatches of 100, K = 10, seed 0); the topics must be bit-identical.

Usage: ``python bench/fit_streaming.py [--documents 300000] [--workdir DIR] [--keep]``.
Writes bench/results/fit_streaming.{json,md} and prints the table.
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

SETTINGS = dict(n_topics=10, method="g-oem", batch_size=100, local_passes=20, random_state=0)


def child(kind: str, source: str, output: str) -> dict:
    started = time.perf_counter()
    if kind == "before":
        from streamtopics import OnlineLDA
        from streamtopics.corpus.readers import load_corpus

        OnlineLDA(n_passes=1, **SETTINGS).fit(load_corpus(source)).save(output)
    else:
        from streamtopics.cli.main import main

        argv = ["fit", source, "-k", "10", "--method", "g-oem", "--batch-size", "100",
                "--local-passes", "20", "--seed", "0", "--passes", "1", "-o", output]
        if main(argv) != 0:
            raise RuntimeError("fit failed")
    return {"seconds": time.perf_counter() - started, "peak_mb": peak_mb()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=300_000)
    parser.add_argument("--workdir", default="/tmp/streamtopics-fit-streaming")
    parser.add_argument("--keep", action="store_true", help="keep the corpus")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(*args.child)))
        return 0

    import numpy as np

    from streamtopics.persistence import load_model

    workdir = Path(args.workdir)
    corpus = workdir / "corpus"
    runs = []
    try:
        if not (corpus / "train.docword.txt").exists():
            subprocess.run([sys.executable, "-m", "streamtopics.cli.main", "synth", "-o",
                            str(corpus), "-n", str(args.documents), "--test", "100", "-k", "10",
                            "-V", "1000", "--seed", "0"], check=True, capture_output=True)
        for name, source in (("docword file", corpus / "train.docword.txt"),
                             ("corpus directory", corpus)):
            pair = {kind: run_child(__file__, kind, source, workdir / f"{kind}.npz")
                    for kind in ("before", "after")}
            betas = [load_model(workdir / f"{kind}.npz")[0]["beta"] for kind in pair]
            runs.append({"input": name, **pair, "identical": bool(np.array_equal(*betas))})
            print(runs[-1], file=sys.stderr)
        file_mb = (corpus / "train.docword.txt").stat().st_size / 2**20
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)

    table = ["| input | before: peak RSS (MB) | s | after: peak RSS (MB) | s | RSS ratio "
             "before/after | same topics |", "| --- | ---: | ---: | ---: | ---: | ---: | --- |"]
    for run in runs:
        before, after = run["before"], run["after"]
        table.append(f"| {run['input']} | {before['peak_mb']:.0f} | {before['seconds']:.1f} | "
                     f"{after['peak_mb']:.0f} | {after['seconds']:.1f} | "
                     f"{before['peak_mb'] / after['peak_mb']:.1f} | {run['identical']} |")
    table += ["", f"`streamtopics fit FILE -k 10 --passes 1` (G-OEM, P = 20, minibatches of 100, "
                  f"numba threads = 1) on {args.documents:,} synthetic documents (docword file "
                  f"{file_mb:.0f} MB). Before: load then fit; after: the default, streamed."]
    write_results("fit_streaming", {"documents": args.documents, "docword_mb": file_mb,
                                    "runs": runs},
                  "Peak memory of streamtopics fit FILE, before and after streaming by default",
                  command_line(), table)
    print("\n".join(table))
    return 0 if all(run["identical"] for run in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
