"""Cost of the topic-mask path (issue 18): the unmasked kernels before and after masks existed,
side by side in one run, and what a Labeled-LDA-sized mask costs.

The "before" code is a source tree given by ``--baseline`` (e.g. ``git archive <commit> src``
unpacked somewhere); each measurement runs in a fresh subprocess with NUMBA_NUM_THREADS=1 and
PYTHONPATH set to one tree, alternating before/after ``--repeats`` times, and keeps the fastest
run of each (compilation excluded: every timed kernel runs once before the clock starts).

Timed, on the first ``--documents`` debian training documents at K = ``--topics``:
- ``gibbs_estep``: the G-OEM local E-step (Algorithm 2), P = 20 passes, minibatches of 100
  with random Dirichlet word weights;
- ``cgs_sparse`` / ``cgs_dense``: 10 CGS sweeps (SparseLDA, dense);
- ``soft_counts``: one CGS_p soft-count pass (sparse).
"After" additionally times each with a random mask of 3 allowed topics per document.

Usage: python bench/topic_mask_overhead.py --baseline /tmp/mask_baseline/src
       [--documents 3000] [--topics 100] [--repeats 3]
Writes bench/results/topic_mask_overhead.{json,md}.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
from pathlib import Path

from measuring import CORPORA, command_line, write_results

CORPUS = CORPORA / "debian"
CURRENT = Path(__file__).resolve().parents[1] / "src"

# Runs inside the subprocess: prints {"kernel": seconds} as JSON.
WORKER = r'''
import json, sys, time
import numpy as np
from streamtopics.corpus.readers import read_corpus_dir
from streamtopics.inference.cgs import GibbsState
from streamtopics.inference.gibbs_estep import GibbsEstimator
from streamtopics.inference.minibatch import Minibatch
corpus_dir, n_docs, n_topics, masked = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "1"
corpus = read_corpus_dir(corpus_dir, "train")[:n_docs]
rng = np.random.default_rng(0)
mask = None
if masked:
    from streamtopics.inference.topic_mask import TopicMask
    mask = TopicMask.from_lists([rng.choice(n_topics, 3, replace=False) for _ in range(n_docs)], n_topics)
alpha = np.full(n_topics, 0.1)
flat, offsets = corpus.document_tokens()
kwargs = {} if mask is None else {"mask": mask}
def cgs_time(sampler, sweeps=10):
    warm = GibbsState.random(flat, offsets, n_topics, corpus.n_words, 1, **kwargs)
    warm.sweep(alpha, 0.01, 1, 1, sampler); warm.soft_counts(alpha, 0.01)
    state = GibbsState.random(flat, offsets, n_topics, corpus.n_words, 1, **kwargs)
    start = time.perf_counter()
    for sweep in range(1, sweeps + 1):
        state.sweep(alpha, 0.01, 1, sweep, sampler)
    seconds = time.perf_counter() - start
    start = time.perf_counter()
    state.soft_counts(alpha, 0.01)
    return seconds, time.perf_counter() - start
weights = rng.dirichlet(np.full(corpus.n_words, 0.1), n_topics).T
counts = corpus.counts
def batches():
    for s in range(0, n_docs, 100):
        extra = {} if mask is None else {"topic_mask": mask.rows(s, min(s + 100, n_docs))}
        yield Minibatch.from_counts(counts[s:s + 100], first_document=s, **extra)
all_batches = list(batches())
def estep():
    for i, batch in enumerate(all_batches):
        run = GibbsEstimator(passes=20).begin(batch, n_topics, 3, i)
        run.advance(weights[batch.words], alpha, 20)
estep()
start = time.perf_counter(); estep(); gibbs = time.perf_counter() - start
sparse, soft = cgs_time("sparse")
dense, _ = cgs_time("dense")
print(json.dumps({"gibbs_estep": gibbs, "cgs_sparse": sparse, "cgs_dense": dense, "soft_counts": soft}))
'''


def measure(source: Path, args, masked: bool) -> dict:
    env = dict(os.environ, NUMBA_NUM_THREADS="1", PYTHONPATH=str(source))
    done = subprocess.run([sys.executable, "-c", WORKER, str(args.corpus), str(args.documents),
                           str(args.topics), "1" if masked else "0"], env=env,
                          capture_output=True, text=True)
    if done.returncode:
        sys.exit(f"worker failed with {source}:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--baseline", type=Path, required=True, help="src/ of the code before masks")
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--documents", type=int, default=3000)
    parser.add_argument("--topics", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    runs = {"before": [], "after": [], "after_masked": []}
    for _ in range(args.repeats):
        runs["before"].append(measure(args.baseline, args, False))
        runs["after"].append(measure(CURRENT, args, False))
        runs["after_masked"].append(measure(CURRENT, args, True))
    best = {name: {k: min(r[k] for r in rs) for k in rs[0]} for name, rs in runs.items()}
    kernels = list(best["before"])
    ratio = {k: best["after"][k] / best["before"][k] for k in kernels}
    masked_ratio = {k: best["after_masked"][k] / best["after"][k] for k in kernels}
    result = {"documents": args.documents, "topics": args.topics, "repeats": args.repeats,
              "threads": 1, "machine": platform.platform(), "baseline": str(args.baseline),
              "seconds": best, "after_over_before": ratio, "masked_over_unmasked": masked_ratio,
              "runs": runs}
    lines = [f"Topic-mask path, debian first {args.documents} documents, K = {args.topics}, "
             f"1 thread, best of {args.repeats} (seconds)", "",
             "| kernel | before masks | after, no mask | after / before | after, 3-topic mask "
             "| masked / unmasked |", "|---|---:|---:|---:|---:|---:|"]
    for k in kernels:
        lines.append(f"| {k} | {best['before'][k]:.3f} | {best['after'][k]:.3f} | {ratio[k]:.3f} "
                     f"| {best['after_masked'][k]:.3f} | {masked_ratio[k]:.3f} |")
    write_results("topic_mask_overhead", result, "Overhead of the topic-mask path",
                  command_line(), lines)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
