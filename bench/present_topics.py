"""What a sparse Gibbs draw costs against the number of topics present in its document (issue
12): the sparse local kernel of G-OEM (`kernels.local_gibbs.gibbs_sweeps`, ``sparse=True``) on
synthetic minibatches where every document keeps about m present topics.

Set-up per m of ``--present``: K = ``--topics``, a vocabulary of 2,000 words whose beta rows are
positive on the same m topics only (each word puts 0.9 on one of them, in turn, and spreads
0.1 over the m at random), alpha_k = 0.01, and 200 documents of ``--length`` words drawn
uniformly, so that a document's chain keeps about m topics present (fewer when m nears the
length). The cost of a pass is (a call of 21 unrecorded passes - a call of 1) / 20, in CPU
seconds of this thread, each call the best of ``--repeats``, in ns per token-pass; beside it
the mean number of topics present in a document at the end. It separates the per-token part
of a draw from its per-present-topic part (on real corpora the present lists are long in the
first passes and short later).

Usage: python bench/present_topics.py [--present 2 4 8 12 16 24 32 48] [--topics 100]
           [--length 200] [--repeats 3] [--name present_topics]
Writes bench/results/NAME.{json,md} and prints the table.
"""

from __future__ import annotations

import os

for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import argparse  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
from scipy.special import digamma  # noqa: E402

from measuring import command_line, write_results  # noqa: E402
from streamtopics.kernels.gibbs_estep import RECORD_CONDITIONALS  # noqa: E402
from streamtopics.kernels.local_gibbs import gibbs_sweeps  # noqa: E402

VOCABULARY = 2000
DOCUMENTS = 200
PASSES = 21


def minibatch(n_topics, n_present, length, rng):
    """(doc_ptr, entry_word, entry_count, token_ptr, word rows, alpha) of the synthetic set-up."""
    topics = np.sort(rng.choice(n_topics, size=n_present, replace=False))
    beta = np.zeros((VOCABULARY, n_topics))
    beta[:, topics] = 0.1 / n_present * rng.random((VOCABULARY, n_present))
    beta[np.arange(VOCABULARY), topics[np.arange(VOCABULARY) % n_present]] += 0.9
    doc_ptr, entry_word, entry_count = [0], [], []
    for _ in range(DOCUMENTS):
        words, counts = np.unique(rng.integers(0, VOCABULARY, size=length), return_counts=True)
        entry_word += list(words)
        entry_count += list(counts)
        doc_ptr.append(len(entry_word))
    used, local = np.unique(entry_word, return_inverse=True)
    return (np.array(doc_ptr), local.astype(np.int64), np.array(entry_count, dtype=np.int64),
            np.arange(DOCUMENTS + 1, dtype=np.int64) * length, np.ascontiguousarray(beta[used]),
            np.full(n_topics, 0.01))


def call(batch, n_passes):
    """One `gibbs_sweeps` call of ``n_passes`` unrecorded passes: (CPU seconds, final counts)."""
    doc_ptr, entry_word, entry_count, token_ptr, rows, alpha = batch
    n_topics = alpha.size
    counts = np.zeros((DOCUMENTS, n_topics))
    started = time.thread_time()
    gibbs_sweeps(doc_ptr, entry_word, entry_count, token_ptr, rows, alpha, digamma(alpha),
                 float(digamma(alpha.sum())), 0, 0, 0, 0, n_passes, n_passes,
                 RECORD_CONDITIONALS, np.zeros(token_ptr[-1], dtype=np.int64), counts,
                 np.zeros(DOCUMENTS, dtype=np.uint64), np.zeros((entry_word.size, n_topics)),
                 np.zeros((DOCUMENTS, n_topics)), sparse=True)
    return time.thread_time() - started, counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--present", type=int, nargs="+", default=[2, 4, 8, 12, 16, 24, 32, 48])
    parser.add_argument("--topics", type=int, default=100)
    parser.add_argument("--length", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--name", default="present_topics")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    rows = []
    for n_present in args.present:
        batch = minibatch(args.topics, n_present, args.length, rng)
        for _ in range(2):  # compile, then warm (the second call of a new set-up is slow too)
            call(batch, 1)
            call(batch, PASSES)
        full = one = np.inf
        for _ in range(args.repeats):
            seconds, counts = call(batch, PASSES)
            full = min(full, seconds)
            one = min(one, call(batch, 1)[0])
        row = {"m": n_present, "present": float((counts > 0).sum(axis=1).mean()),
               "ns_per_token_pass": (full - one) / (PASSES - 1) / (DOCUMENTS * args.length) * 1e9}
        rows.append(row)
        print(f"m = {n_present}: {row['present']:.1f} present, "
              f"{row['ns_per_token_pass']:.2f} ns / token-pass", flush=True)
    table = ["| m | topics present per document | ns / token-pass |", "|---:|---:|---:|"]
    table += [f"| {r['m']} | {r['present']:.1f} | {r['ns_per_token_pass']:.2f} |" for r in rows]
    write_results(args.name, {"settings": vars(args), "rows": rows},
                  f"Sparse Gibbs pass cost against topics present (K = {args.topics}, "
                  f"{DOCUMENTS} documents of {args.length} tokens, one thread, CPU seconds)",
                  command_line(), table)
    print("\n".join(table))


if __name__ == "__main__":
    main()
