"""Approximate distributed collapsed Gibbs sweeps: AD-LDA (Newman, Asuncion, Smyth & Welling
2009, "Distributed algorithms for topic models", JMLR 10), an opt-in
approximation of the exact sweeps of `kernels.cgs`.

The documents are cut into a fixed number of blocks of consecutive documents with about equal
tokens (`block_bounds`: a function of the corpus and the number of blocks alone, never of the
threads). In a sweep each block resamples its documents exactly as `kernels.cgs.sweep_sparse`
(or `sweep_dense`) does, but against its own copy of the word-topic counts n_kv and the topic
totals n_k, taken at the start of the sweep and updated only by the block's own moves: the
other blocks' moves of this sweep are not seen (stale counts; the approximation). After the
sweep the copies are merged, n_kv <- n_kv + sum_b (n_kv^b - n_kv), which counts every move
once, so the counts are again exactly those of the assignments. The document-topic counts and
the assignments of a document belong to its block alone.

Blocks run in parallel. Every document keeps its own random stream (seed, stream, document),
each block's sweep is sequential and the merge adds integers, so a seed and a number of blocks
fix the chain whatever the number of threads. One block samples the exact conditionals (its
copy sees all its moves): the dense sampler's very chain; the sparse sampler rebuilds its
word-topic lists every sweep, so their order, hence which topic a uniform picks, may differ.
Memory: a copy of the V x K int32 counts per block.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from .cgs import CountMatrices, build_word_topic_lists, sweep_dense, sweep_sparse


@njit(cache=True)
def block_bounds(offsets, n_blocks):
    """Document boundaries (n_blocks + 1) of ``n_blocks`` runs of consecutive documents with
    about equal tokens: block b starts at the first document whose first token is at or past
    b / n_blocks of the corpus's tokens (a block may be empty)."""
    n_docs = offsets.size - 1
    bounds = np.empty(n_blocks + 1, dtype=np.int64)
    bounds[0] = 0
    d = 0
    for b in range(1, n_blocks):
        target = offsets[n_docs] * b // n_blocks
        while d < n_docs and offsets[d] < target:
            d += 1
        bounds[b] = d
    bounds[n_blocks] = n_docs
    return bounds


@njit(cache=True, parallel=True)
def sweep_blocks(tokens, offsets, bounds, assignments, counts, alpha, eta, seed, stream, sparse,
                 mask_ptr, mask_topics):
    """One AD-LDA sweep (module docstring): block b (documents ``bounds[b]:bounds[b + 1]``)
    sweeps with `sweep_sparse` if ``sparse`` else `sweep_dense` on its copy of the counts,
    blocks in parallel; then the copies are merged into the word-topic and topic counts of the
    `CountMatrices` ``counts``. Assignments and document-topic counts are updated in place."""
    doc_topic_counts, word_topic_counts, topic_counts = counts
    n_blocks = bounds.size - 1
    n_words, n_topics = word_topic_counts.shape
    copies = np.empty((n_blocks, n_words, n_topics), dtype=word_topic_counts.dtype)
    totals = np.empty((n_blocks, n_topics), dtype=topic_counts.dtype)
    for b in prange(n_blocks):
        block_words = copies[b]
        block_words[:] = word_topic_counts
        block_totals = totals[b]
        block_totals[:] = topic_counts
        documents = np.arange(bounds[b], bounds[b + 1])
        block_counts = CountMatrices(doc_topic_counts, block_words, block_totals)
        if sparse:
            sweep_sparse(tokens, offsets, documents, assignments, block_counts,
                         build_word_topic_lists(block_words), alpha, eta, seed, stream, mask_ptr,
                         mask_topics)
        else:
            sweep_dense(tokens, offsets, documents, assignments, block_counts, alpha, eta, seed,
                        stream, mask_ptr, mask_topics)
    for w in prange(n_words):
        for k in range(n_topics):
            before = word_topic_counts[w, k]
            total = before
            for b in range(n_blocks):
                total += copies[b, w, k] - before
            word_topic_counts[w, k] = total
    for k in range(n_topics):
        before = topic_counts[k]
        total = before
        for b in range(n_blocks):
            total += totals[b, k] - before
        topic_counts[k] = total
