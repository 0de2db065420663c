"""Where the local Gibbs E-step's time goes (issue 12): the kernel's cost per token x pass split
into its parts, on real minibatches at K = 10 and K = 100, for the kernel ``"auto"`` runs (the
sparse one at every K since issue 12; the dense one below 32 topics before).

Set-up per corpus and K: G-OEM one pass (batch_size=100, local_passes=20, the sampler ``"auto"``
picks) on the first ``--documents`` training documents gives beta and alpha; the same documents
in minibatches of 100 are then run through `kernels.local_gibbs.gibbs_sweeps` with those
parameters, P = 20 passes, the last quarter recorded, as G-OEM runs them. Times are CPU seconds
of this thread (best of ``--repeats``), summed over the minibatches, and differenced:

* ``per call``: a call of one unrecorded pass less one pass, in two parts: ``set-up``, a call
  of no pass (the initial sample and the sparse kernel's per-word smoothing totals, the
  document's arrays, the call's own arrays as `GibbsRun` makes them per minibatch), and ``first
  pass``, the rest: what the first pass costs beyond an average later one (the present lists
  the initial sample leaves are long: the sparse kernel's draw is O(topics present), and the
  first pass's caches are cold; the next few passes' excess is inside ``pass``);
* ``pass``: (20 unrecorded passes - 1 unrecorded pass) / 19, split into the random numbers the
  pass draws (timed by a kernel drawing the same numbers and nothing else: ``uniforms`` and the
  ``scan order``) and the rest, ``draw`` (the conditional, the search and, sparse, the
  present-list upkeep);
* ``recording``: 20 passes with the last 5 recorded less 20 unrecorded, split into the
  once-per-call ``smoothing part`` (entries x K, sparse: the kernel's own less deferred to the
  driver's per-word O(U K)) and the per-recorded-pass rest (conditionals' present part, s2).

Every part is given in ns per token x pass (its total over the P passes of every token) and as
a share of the call. Also: the mean number of topics present in a document (per token).

Usage: python bench/estep_profile.py [--corpora debian newsarticles] [--topics 10 100]
           [--documents 6000] [--repeats 3] [--output estep_profile]
Writes bench/results/OUTPUT.{json,md} (``--output``, default estep_profile).
"""

from __future__ import annotations

import os

for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import argparse  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
from numba import njit  # noqa: E402
from scipy.special import digamma  # noqa: E402

from measuring import CORPORA, command_line, write_results  # noqa: E402
from streamtopics import read_corpus_dir  # noqa: E402
from streamtopics.estimators import OnlineLDA  # noqa: E402
from streamtopics.inference.gibbs_estep import GibbsEstimator  # noqa: E402
from streamtopics.inference.minibatch import Minibatch  # noqa: E402
from streamtopics.kernels.gibbs_estep import NO_MASK_VALUES, RECORD_CONDITIONALS  # noqa: E402
from streamtopics.kernels.local_gibbs import gibbs_sweeps  # noqa: E402
from streamtopics.kernels.random import next_uniform, random_permutation  # noqa: E402
from streamtopics.kernels.topic_mask import NO_MASK_PTR, NO_MASK_TOPICS  # noqa: E402

PASSES = 20
RECORD_FROM = PASSES - PASSES // 4


@njit(cache=True)
def _random_numbers(token_ptr, n_passes, scan_uniforms, with_draws):
    """The random numbers a call of ``n_passes`` passes draws per document: the scan order's
    (``scan_uniforms`` per token and pass, by `random_permutation` when 1) and, if
    ``with_draws``, one uniform per token for the initial sample and per token and pass."""
    state = np.zeros(1, dtype=np.uint64)
    order = np.empty(np.max(token_ptr[1:] - token_ptr[:-1]) + 1, dtype=np.int64)
    sink = 0.0
    for d in range(token_ptr.size - 1):
        n_tokens = token_ptr[d + 1] - token_ptr[d]
        state[0] = d
        if with_draws:
            for _ in range(n_tokens * (n_passes + 1)):
                sink += next_uniform(state)
        for _ in range(n_passes):
            if scan_uniforms == 1:
                random_permutation(state, n_tokens, order)
                sink += order[0]
    return sink


def _call(batch, weights, alpha, sparse, n_passes, record_from, deferred):
    n_topics = alpha.size
    inverse = np.zeros(batch.n_entries) if deferred else NO_MASK_VALUES
    gibbs_sweeps(batch.doc_ptr, batch.entry_word, batch.entry_count, batch.token_ptr, weights,
                 alpha, digamma(alpha), float(digamma(alpha.sum())), 0, 1, batch.first_document,
                 0, n_passes, record_from, RECORD_CONDITIONALS,
                 np.zeros(batch.n_tokens, dtype=np.int64),
                 np.zeros((batch.n_documents, n_topics)),
                 np.zeros(batch.n_documents, dtype=np.uint64),
                 np.zeros((batch.n_entries, n_topics)), np.zeros((batch.n_documents, n_topics)),
                 NO_MASK_PTR, NO_MASK_TOPICS, NO_MASK_VALUES, sparse, inverse)


def _seconds(function, repeats):
    best = np.inf
    for _ in range(repeats):
        started = time.thread_time()
        function()
        best = min(best, time.thread_time() - started)
    return best


def profile(corpus_name, n_topics, args):
    train = read_corpus_dir(CORPORA / corpus_name, "train")[:args.documents]
    model = OnlineLDA(n_topics, method="g-oem", batch_size=100, local_passes=PASSES, n_passes=1,
                      random_state=0).fit(train)
    beta = model.components_ / model.components_.sum(axis=1, keepdims=True)
    alpha = np.ascontiguousarray(model.doc_topic_prior_, dtype=np.float64)
    sparse = GibbsEstimator().uses_sparse
    batches = [Minibatch.from_counts(train.counts[start:start + 100], first_document=start)
               for start in range(0, train.n_documents, 100)]
    weights = [np.ascontiguousarray(beta[:, batch.words].T) for batch in batches]

    def over_batches(**call):
        def run():
            for batch, rows in zip(batches, weights):
                _call(batch, rows, alpha, sparse, **call)
        return run

    times = {
        "none": over_batches(n_passes=0, record_from=0, deferred=False),
        "one": over_batches(n_passes=1, record_from=1, deferred=False),
        "unrecorded": over_batches(n_passes=PASSES, record_from=PASSES, deferred=False),
        "recorded": over_batches(n_passes=PASSES, record_from=RECORD_FROM, deferred=False),
    }
    if sparse:
        times["deferred"] = over_batches(n_passes=PASSES, record_from=RECORD_FROM, deferred=True)
    token_ptrs = [batch.token_ptr for batch in batches]
    times["uniforms"] = lambda: [_random_numbers(ptr, PASSES, 0, True) for ptr in token_ptrs]
    times["scan order"] = lambda: [_random_numbers(ptr, PASSES, 1, False)
                                   for ptr in token_ptrs]
    seconds = {name: _seconds(function, args.repeats) for name, function in times.items()}
    n_tokens = train.n_tokens
    per_pass = (seconds["unrecorded"] - seconds["one"]) / (PASSES - 1)
    parts = {"per call: set-up (initial sample, smoothing totals, arrays)": seconds["none"],
             "per call: first pass beyond a later one (long present lists, cold caches)":
             seconds["one"] - seconds["none"] - per_pass}
    parts["passes: uniforms of the draws"] = seconds["uniforms"] * PASSES / (PASSES + 1)
    parts["passes: scan order"] = seconds["scan order"]
    parts["passes: draw (conditional, search, present list)"] = (
        PASSES * per_pass - parts["passes: uniforms of the draws"] - parts["passes: scan order"])
    recording = seconds["recorded"] - seconds["unrecorded"]
    if sparse:
        smoothing = seconds["recorded"] - seconds["deferred"]
        parts["recording: smoothing part (once per call, entries x K)"] = smoothing
        parts["recording: present part + s2 (per recorded pass)"] = recording - smoothing
    else:
        parts["recording: conditionals + s2 (per recorded pass)"] = recording
    total = seconds["recorded"]
    # mean number of present topics seen by a token: from one recorded run's final counts
    state_counts = []
    for batch, rows in zip(batches[:10], weights[:10]):
        counts = np.zeros((batch.n_documents, n_topics))
        gibbs_sweeps(batch.doc_ptr, batch.entry_word, batch.entry_count, batch.token_ptr, rows,
                     alpha, digamma(alpha), float(digamma(alpha.sum())), 0, 1, 0, 0, PASSES,
                     PASSES, RECORD_CONDITIONALS, np.zeros(batch.n_tokens, dtype=np.int64),
                     counts, np.zeros(batch.n_documents, dtype=np.uint64),
                     np.zeros((batch.n_entries, n_topics)),
                     np.zeros((batch.n_documents, n_topics)), NO_MASK_PTR, NO_MASK_TOPICS,
                     NO_MASK_VALUES, sparse, NO_MASK_VALUES)
        lengths = counts.sum(axis=1)
        state_counts.append(((counts > 0).sum(axis=1) * lengths, lengths))
    present = (sum(float(a.sum()) for a, _ in state_counts)
               / sum(float(b.sum()) for _, b in state_counts))
    rows = []
    for part, value in [*parts.items(), ("total (one call, 20 passes, 5 recorded)", total)]:
        rows.append({"corpus": corpus_name, "K": n_topics,
                     "kernel": "sparse" if sparse else "dense", "part": part, "seconds": value,
                     "ns_per_token_pass": value / (n_tokens * PASSES) * 1e9,
                     "share": value / total})
    print(f"{corpus_name} K={n_topics}: {total / (n_tokens * PASSES) * 1e9:.1f} ns / token-pass, "
          f"{present:.1f} topics present per token's document", flush=True)
    return rows, {"corpus": corpus_name, "K": n_topics, "tokens": n_tokens,
                  "present_topics_per_token": present}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpora", nargs="+", default=["debian", "newsarticles"])
    parser.add_argument("--topics", type=int, nargs="+", default=[10, 100])
    parser.add_argument("--documents", type=int, default=6000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--output", default="estep_profile",
                        help="results name under bench/results (to keep runs side by side)")
    args = parser.parse_args()
    rows, notes = [], []
    for corpus in args.corpora:
        for n_topics in args.topics:
            part_rows, note = profile(corpus, n_topics, args)
            rows += part_rows
            notes.append(note)
    table = ["| corpus | K | kernel | part | ns / token-pass | share |", "|---|---:|---|---|---:|---:|"]
    table += [f"| {r['corpus']} | {r['K']} | {r['kernel']} | {r['part']} | "
              f"{r['ns_per_token_pass']:.1f} | {r['share']:.0%} |" for r in rows]
    table += ["", "Topics present in a token's document (final sample, mean over tokens): "
              + "; ".join(f"{n['corpus']} K={n['K']}: {n['present_topics_per_token']:.1f}"
                          for n in notes)]
    write_results(args.output, {"settings": vars(args), "rows": rows, "notes": notes},
                  f"Where the local Gibbs E-step's time goes (one thread, P = {PASSES}, "
                  "minibatches of 100, CPU seconds)", command_line(), table)
    print("\n".join(table))


if __name__ == "__main__":
    main()
