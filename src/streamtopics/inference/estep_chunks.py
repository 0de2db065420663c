"""The E-step of one minibatch as independent chunks whose merged statistics do not depend on
the chunking: what a backend (`inference.backends`) maps over workers.

The E-step is a map-reduce (Dupuy & Bach 2016, eq. 6: E_i is a sum over the minibatch's
documents): each document's local estimate depends only on the parameters eta_{i-1} and on its
own random stream (seed, step, document index: `LocalEstimator`), so documents can run anywhere.
Only the *sum* needs care: floating-point addition is not associative, so summing the chunks'
statistics in another grouping gives other last bits. The grouping is therefore fixed by the
minibatch alone, never by the chunking or the number of workers:

1. **Blocks.** The minibatch's documents form blocks of `BLOCK_DOCUMENTS` consecutive documents;
   each block's statistics are those of one local run over it (`LocalRun.statistics`, the
   estimator's own sums in document order).
2. **A fixed tree.** The blocks' statistics are summed pairwise along the binary tree of their
   indices (`tree_merge`: the left subtree holds the largest power of two of blocks below the
   total), each node a `MinibatchStats.merge`.
3. **Chunks are subtrees.** A chunk is an aligned run of 2^m blocks (the last one may be
   shorter), which is a subtree of that tree, so a worker merges its blocks itself and sends one
   `MinibatchStats`; the client merges the chunks along the top of the same tree.

Any chunk size 2^m blocks therefore gives the same sums, bit for bit, in any order the chunks
finish; a minibatch of at most `BLOCK_DOCUMENTS` documents is one block, one local run: the
arithmetic of a plain `LocalRun` over the whole minibatch.

Every chunk of a minibatch refers to the same word weights (beta_wk, or exp(E_q[log beta_wk]))
of the minibatch's words, U x K (never the K x V topics), with alpha, the seed and the step; a
backend that ships chunks to other processes sends those weights once per step
(`ChunkTask.without_shared`), and may merge the chunks' statistics where they are
(`map_reduce`: Dask merges them on the workers along the same tree).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Iterable, Iterator

import numpy as np

from .minibatch import Minibatch
from .parts import (BlockStatistics, LocalEstimator, MapReduce, RunsBlocks, fallback,
                    independent_documents, runs_blocks_at_once)
from .stats import MinibatchStats

BLOCK_DOCUMENTS = 100
"""Documents per block, the unit of the fixed summation tree (and the finest chunk)."""
RUN_BLOCKS = 16
"""At most this many blocks in one local run, for estimators that run several at once: a
power of two (an aligned subtree), bounding a run's memory (its entries x K arrays)."""


def merge_statistics(left: MinibatchStats, right: MinibatchStats) -> MinibatchStats:
    """``left.merge(right)``, as a module-level function a worker process can run."""
    return left.merge(right)


def tree_merge(statistics: Iterable, merge: Callable = merge_statistics):
    """Sum of ``statistics`` (consecutive blocks, in document order) along the fixed binary
    tree: the first 2^j items (2^j the largest power of two below their number) and the rest
    are summed separately, then merged. Every aligned run of 2^m items is a subtree. ``merge``
    may also combine stand-ins for statistics (a backend's futures of them).

    The items are consumed as they come (a generator of blocks computed one by one is fine):
    two neighbouring complete subtrees of the same size are merged as soon as the second one
    is complete, as a binary counter carries, so at most log2(n) + 1 partial sums are held
    instead of all n items; the subtrees left at the end (sizes the binary digits of n, largest
    first) are merged from the right, which is the tree's own order for the last, incomplete
    subtrees. The sums are therefore the same, bit for bit, as merging the whole list."""
    stack: list[tuple[int, object]] = []  # (items, their sum), sizes strictly decreasing
    for item in statistics:
        size, total = 1, item
        while stack and stack[-1][0] == size:
            left_size, left = stack.pop()
            size, total = left_size + size, merge(left, total)
        stack.append((size, total))
    if not stack:
        raise ValueError("nothing to merge")
    total = stack.pop()[1]
    while stack:
        total = merge(stack.pop()[1], total)
    return total


@dataclass(frozen=True)
class ChunkTask:
    """The E-step of one chunk: documents of a minibatch, word weights (rows for the sorted
    ``weight_words``, a superset of the chunk's words: the minibatch's; None: the chunk's own
    ``batch.words``), alpha, K, and what fixes the random streams (the engine's seed and the
    index of the minibatch's step)."""

    local: LocalEstimator
    batch: Minibatch
    weights: np.ndarray | None
    alpha: np.ndarray
    n_topics: int
    seed: int
    step: int
    weight_words: np.ndarray | None = None

    @property
    def nbytes(self) -> int:
        """Bytes of the arrays the task carries (what a backend sends to a worker)."""
        b = self.batch
        shared = sum(array.nbytes for array in (self.weights, self.weight_words)
                     if array is not None)
        return int(shared + self.alpha.nbytes + b.doc_ptr.nbytes + b.entry_word.nbytes
                   + b.entry_count.nbytes + b.token_ptr.nbytes + b.words.nbytes)

    def without_shared(self) -> tuple["ChunkTask", tuple[np.ndarray, np.ndarray]]:
        """This task as it travels, and (weights, weight_words): what the chunks of a minibatch
        share, for a backend to send once (`run_with_shared` puts them back). The travelling
        task has no weights, and its integer arrays (entries' words and counts, the document
        and token offsets, the chunk's words) in the narrowest unsigned type that holds them:
        a word below 65,536 and a count below 256 make 3 bytes an entry instead of 16, the
        bulk of a step's traffic."""
        words = self.batch.words if self.weight_words is None else self.weight_words
        batch = replace(self.batch, **{name: _narrowed(getattr(self.batch, name))
                                       for name in _INDEX_ARRAYS})
        return replace(self, batch=batch, weights=None, weight_words=None), (self.weights, words)


_INDEX_ARRAYS = ("doc_ptr", "entry_word", "entry_count", "token_ptr", "words")
"""The integer arrays of a `Minibatch` (int64, non-negative) that a travelling task narrows."""


def _narrowed(array: np.ndarray) -> np.ndarray:
    """``array`` (non-negative integers) in the first of uint8, uint16, uint32 and uint64 that
    holds its largest value (unchanged when empty)."""
    if array.size == 0:
        return array
    return array.astype(np.min_scalar_type(int(array.max())), copy=False)


def run_with_shared(function: Callable[[ChunkTask], MinibatchStats], task: ChunkTask,
                    weights: np.ndarray, weight_words: np.ndarray) -> MinibatchStats:
    """``function`` of ``task`` with what `ChunkTask.without_shared` took out put back (its
    weights, int64 index arrays)."""
    batch = replace(task.batch, **{name: getattr(task.batch, name).astype(np.int64, copy=False)
                                   for name in _INDEX_ARRAYS})
    return function(replace(task, batch=batch, weights=weights, weight_words=weight_words))


def run_chunk(task: ChunkTask) -> MinibatchStats:
    """The statistics of a chunk: one local run per block, merged along the fixed tree as the
    blocks finish (`tree_merge`: a few partial sums alive, not every block's). A module-level
    function of its argument alone, so any worker process can run it.

    A local estimator whose runs can sum their documents block by block themselves
    (`parts.RunsBlocks`, the Gibbs estimator's) runs up to `RUN_BLOCKS` blocks at once, an
    aligned subtree of the tree, so the sums are the same: one kernel call deals their documents
    over all the threads, and no block's statistics are built. A minibatch whose documents
    share state (`parts.SharedDocumentState`) is one block."""
    batch, local = task.batch, task.local
    words = batch.words if task.weight_words is None else task.weight_words
    size = BLOCK_DOCUMENTS if independent_documents(local) else batch.n_documents
    together = RUN_BLOCKS if runs_blocks_at_once(local) else 1
    if together == 1 and batch.n_documents > size:
        fallback(local, RunsBlocks, f"a run per block of {size} documents")

    def runs():
        for start in range(0, batch.n_documents, together * size):
            part = batch.documents(start, min(start + together * size, batch.n_documents))
            rows = task.weights if part.words is words else task.weights[
                np.searchsorted(words, part.words)]
            run = local.begin(part, task.n_topics, task.seed, task.step)
            run.advance(rows, task.alpha, local.passes)
            if part.n_documents <= size:
                yield run.statistics()
            elif isinstance(run, BlockStatistics):
                yield run.block_statistics(size, tree_merge)
            else:
                raise TypeError(f"{type(local).__name__} declares runs_blocks_at_once, but its "
                                f"run {type(run).__name__} has no block_statistics(size, tree) "
                                f"(parts.BlockStatistics)")

    return tree_merge(runs())


def chunk_bounds(n_documents: int, n_chunks: int, first_block: int = 0) -> list[tuple[int, int]]:
    """(start, stop) documents of chunks of 2^m blocks, m the largest with at least
    ``n_chunks`` chunks (one chunk when the minibatch has fewer blocks)."""
    n_blocks = -(-n_documents // BLOCK_DOCUMENTS)
    size = 1
    while size < n_blocks and -(-n_blocks // (2 * size)) >= n_chunks:
        size *= 2
    step = size * BLOCK_DOCUMENTS
    return [(start, min(start + step, n_documents)) for start in range(0, n_documents, step)]


def fixed_chunk_bounds(n_documents: int, chunk_documents: int) -> list[tuple[int, int]]:
    """(start, stop) of chunks of ``chunk_documents`` documents, which must be
    `BLOCK_DOCUMENTS` times a power of two (so that every chunk is a subtree)."""
    blocks, remainder = divmod(chunk_documents, BLOCK_DOCUMENTS)
    if remainder or blocks < 1 or blocks & (blocks - 1):
        raise ValueError(f"chunk_documents must be {BLOCK_DOCUMENTS} times a power of two "
                         f"(100, 200, 400, ...), not {chunk_documents}")
    return [(start, min(start + chunk_documents, n_documents))
            for start in range(0, n_documents, chunk_documents)]


def chunk_tasks(local: LocalEstimator, batch: Minibatch, weights: np.ndarray, alpha: np.ndarray,
                n_topics: int, seed: int, step: int,
                bounds: list[tuple[int, int]]) -> Iterator[ChunkTask]:
    """The tasks of ``batch`` cut at ``bounds``, all with the same ``weights`` (U x K, the
    minibatch's words)."""
    for start, stop in bounds:
        yield ChunkTask(local, batch.documents(start, stop), weights, alpha, n_topics, seed, step,
                        weight_words=batch.words)


EStepMapper = Callable[[Callable[[ChunkTask], MinibatchStats], Iterable[ChunkTask]],
                       Iterable[MinibatchStats]]


def minibatch_statistics(tasks: list[ChunkTask], estep_map: EStepMapper) -> MinibatchStats:
    """The minibatch's statistics from its chunks' (aligned runs of blocks, in order), mapped by
    ``estep_map`` and merged along the top of the fixed tree: by the backend's own
    ``map_reduce`` when it is a `parts.MapReduce` (Dask: merged on the workers), else here."""
    if isinstance(estep_map, MapReduce):
        return estep_map.map_reduce(run_chunk, tasks, merge_statistics)
    return tree_merge(list(estep_map(run_chunk, tasks)))
