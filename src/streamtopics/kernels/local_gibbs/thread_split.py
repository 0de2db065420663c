"""How the local Gibbs driver shares a minibatch's documents among threads: parts of about
equal work.

numba's ``prange`` cuts its range into one contiguous run of iterations per thread. Document
lengths are skewed (debian: mean 47 tokens, longest 9,288), so in a minibatch of 100 documents
one thread often gets much more work than another, which then waits for nothing.
`balanced_parts` deals the documents to one part per thread, longest first, each to the part
with the least work so far (the LPT rule; Graham 1969); a kernel then runs ``prange`` over the
parts. The number of threads is an argument of the kernel (``n_threads``, the caller's
``numba.get_num_threads()``): asked inside a kernel, it would keep numba from caching the
compiled kernel.

The parts change only which thread runs a document, never what it computes: each document
works on its own slices with its own random stream, so the results stay the same for any
number of threads (tests/test_thread_determinism.py).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..statistics import grouped

# The fixed work of a document in tokens (its set-up, its per-document sums), added to its
# length when the parts are dealt.
DOCUMENT_COST = 8


@njit(cache=True)
def balanced_parts(ptr, n_parts, per_document=DOCUMENT_COST):
    """Documents ``0 .. ptr.size - 2`` in ``n_parts`` parts: (part_ptr n_parts + 1, documents),
    part p being ``documents[part_ptr[p]:part_ptr[p + 1]]`` in ascending order. Document d's
    work is ``ptr[d + 1] - ptr[d] + per_document`` (tokens, or entries, plus a fixed cost).
    ``n_parts`` < 1: one part per document, in order (numba's own split of the documents; the
    kernels' default, for callers that do not say how many threads run them)."""
    n_docs = ptr.size - 1
    if n_parts < 1:
        return np.arange(n_docs + 1), np.arange(n_docs)
    work = np.empty(n_docs)
    for d in range(n_docs):
        work[d] = ptr[d + 1] - ptr[d] + per_document
    part_of = np.empty(n_docs, dtype=np.int64)
    load = np.zeros(n_parts)
    for d in np.argsort(-work, kind="mergesort"):
        lightest = 0
        for p in range(1, n_parts):
            if load[p] < load[lightest]:
                lightest = p
        part_of[d] = lightest
        load[lightest] += work[d]
    return grouped(part_of, n_parts)
