"""Where the E-step's chunks run: here (serial), on threads, or on a Dask cluster.

A backend is an `EStepMap` (``backend(function, chunks)`` yields ``function(chunk)`` for every
chunk, in order) that also says how finely to cut a minibatch (`parts.Backend`): ``workers``
(how many chunks it can run at once) and ``chunk_documents`` (None:
`BACKEND_CHUNKS_PER_WORKER` chunks per worker; else a fixed size, `BLOCK_DOCUMENTS` times a
power of two). The chunks' statistics are merged
along a tree fixed by the minibatch alone (`inference.estep_chunks`), so every backend, worker
count and chunk size trains the same model, bit for bit.

Dask (`dask.distributed`, the optional ``dask`` extra) is imported only when a Dask backend is
made. Workers receive a `ChunkTask` (the chunk's documents, alpha, seed, step; the word weights
of the minibatch's words, sent once per step and copied to each worker, shared by its chunks
there), each worker a run of consecutive chunks (`plan_placement`), merge the chunks'
`MinibatchStats` among themselves along the fixed tree, and the client receives one; the M-step
stays on the client. A worker that dies mid-step has its tasks rerun elsewhere by the scheduler;
the rerun draws the same random streams (seed, step, document), so the step's result does not
change.

GibbsLDA's collapsed sweeps (`inference.cgs`) do not split this way: each token's conditional
reads counts that every other token of the corpus updates, so documents are not independent
within a sweep (AD-LDA's approximation, Newman et al. 2009, gives up exactness).
"""

from __future__ import annotations

import threading
import warnings
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Callable, Iterable, Iterator

from .estep_chunks import (BLOCK_DOCUMENTS, chunk_bounds, fixed_chunk_bounds, run_with_shared,
                           tree_merge)
from .parts import Backend, independent_documents

BACKENDS = ("serial", "threads", "dask")
"""The names ``OnlineLDA(backend=...)`` takes (or a `distributed.Client`, or a backend)."""

BACKEND_CHUNKS_PER_WORKER = 2
"""Chunks per worker when the chunk size is not fixed: two, so that a fast worker takes more
of them (chunks are whole runs of blocks and need not divide the minibatch evenly), and not
more, since every chunk's statistics (its words x K) are merged on the workers and neighbouring
chunks share most of their words (the bytes moved per step grow with the chunks)."""


LOCAL_CLUSTER_CONFIG = {
    "distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None,
    "distributed.worker.profile.enabled": False,
    "distributed.worker.memory.monitor-interval": "1s",
    "distributed.admin.system-monitor.interval": "2s",
    "distributed.admin.tick.interval": "200ms",
}
"""Dask configuration of the LocalCluster `DaskBackend.start` makes (a user's own cluster keeps
its own; docs/distributed.md says what to set there).

- MALLOC_TRIM_THRESHOLD_ unset in the worker processes: Dask sets it to 65536 by default, which
  also turns off glibc's adaptive mmap threshold: every array over 128 kB is then a fresh mmap,
  touched page by page and unmapped on free. The E-step allocates and frees such arrays per
  block, so a worker would spend much of a chunk in page faults that the client process does
  not take. Unset, glibc keeps freed memory for reuse.
- The housekeeping every worker, nanny and the scheduler run beside the tasks, made rarer: the
  workers' statistical profiler (a stack sample every 10 ms), the memory monitor (every
  100 ms), the system monitor (500 ms) and the event loops' tick monitor (20 ms). On a few
  cores shared by the client, the scheduler and the workers, their default rates take CPU
  from the steps and from the client. Lost with them: the dashboard's profile page and a
  slower reaction to a worker over its memory limit (1 s)."""


@dataclass
class Transfer:
    """Bytes a backend sent to workers (chunk tasks) and received (their statistics), how many
    steps and chunks, and the workers of the last step; for benchmarks and the CLI's report."""

    workers: int = 0
    steps: int = 0
    chunks: int = 0
    sent: int = 0
    received: int = 0


class SerialBackend:
    """Every chunk here, in order, one after the other (one chunk per minibatch by default)."""

    name = "serial"
    workers = 1

    def __init__(self, chunk_documents: int | None = None):
        self.chunk_documents = chunk_documents

    def __call__(self, function: Callable, chunks: Iterable) -> Iterator:
        return map(function, chunks)


class ThreadBackend:
    """The chunks on a pool of ``workers`` threads (default: one per CPU), each running the
    numba kernels with one thread of its own (numba releases the GIL in them). Needs a
    thread-safe numba threading layer (omp or tbb; the workqueue layer aborts on concurrent
    parallel calls)."""

    name = "threads"

    def __init__(self, workers: int | None = None, chunk_documents: int | None = None):
        import os
        self.workers = int(workers or os.cpu_count() or 1)
        self.chunk_documents = chunk_documents
        self._pool: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()

    def __call__(self, function: Callable, chunks: Iterable) -> Iterator:
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self.workers, initializer=_one_numba_thread)
        return self._pool.map(function, chunks)


def _value(value):
    """``value`` itself: data made a task of the graph (recomputable, unlike scattered data)."""
    return value


def _one_numba_thread() -> None:
    import numba
    numba.set_num_threads(1)


@dataclass
class DaskBackend:
    """The chunks on a `distributed.Client`'s workers: each minibatch's tasks are submitted at
    once (``client.map``, not hashed: ``pure=False``), gathered in order, and released.
    ``workers`` is the cluster's thread count when the step starts. ``owns_client``: `close`
    also closes the client (and its LocalCluster)."""

    client: object
    chunk_documents: int | None = None
    owns_client: bool = False
    transfer: Transfer = field(default_factory=Transfer)

    name = "dask"

    @classmethod
    def start(cls, address: str | None = None, n_workers: int | None = None,
              threads_per_worker: int = 1, chunk_documents: int | None = None,
              processes: bool = True) -> "DaskBackend":
        """Connect to the scheduler at ``address``, or start a `LocalCluster` of ``n_workers``
        worker processes (default: one per CPU) of ``threads_per_worker`` threads."""
        import dask
        from distributed import Client, LocalCluster
        if address is not None:
            return cls(Client(address), chunk_documents, owns_client=True)
        # numba in each worker process: as many threads as the worker has (else every worker
        # starts one per core); and `LOCAL_CLUSTER_CONFIG`
        env = {"NUMBA_NUM_THREADS": str(threads_per_worker)} if processes else {}
        with dask.config.set(LOCAL_CLUSTER_CONFIG):
            cluster = LocalCluster(n_workers=n_workers, threads_per_worker=threads_per_worker,
                                   processes=processes, dashboard_address=":0", env=env)
        return cls(Client(cluster), chunk_documents, owns_client=True)

    @property
    def workers(self) -> int:
        return max(1, sum(self.client.nthreads().values()))

    def __call__(self, function: Callable, chunks: Iterable) -> Iterator:
        chunks = list(chunks)
        self.transfer.workers = self.workers
        with warnings.catch_warnings():  # the chunks travel inside the tasks on purpose: a
            # task whose worker died is rerun from them (scattered data would be lost with it)
            warnings.filterwarnings("ignore", "Sending large graph", UserWarning)
            futures = self.client.map(function, chunks, pure=False)
        try:
            results = self.client.gather(futures)
        finally:
            for future in futures:
                future.release()
        self.transfer.steps += 1
        self.transfer.chunks += len(chunks)
        self.transfer.sent += sum(getattr(chunk, "nbytes", 0) for chunk in chunks)
        self.transfer.received += sum(getattr(result, "nbytes", 0) for result in results)
        return iter(results)

    def map_reduce(self, function: Callable, chunks: Iterable, merge: Callable):
        """``merge`` of ``function(chunk)`` over the chunks along the fixed tree
        (`estep_chunks.tree_merge`), all on the workers: the client sends each chunk's
        documents and the weights the chunks share once (`ChunkTask.without_shared`; a task on
        each worker copies them there), and gets back one merged result; the merge tasks move
        statistics between workers, not through the client. The shared weights travel inside
        the graph as tasks of their own, so a worker lost mid-step is recomputed from them like
        any other task.

        Placement (`plan_placement`): consecutive chunks go to the same worker, each worker
        a share of them by its threads, so the tree's lowest merges need no transfer and the
        workers get equal work. Left to itself, Dask puts every chunk where the weights they
        depend on were computed, and work stealing moves only some of them away: one worker
        of two often runs three chunks of four. The pins are loose
        (``allow_other_workers``): a lost worker's chunks run elsewhere."""
        chunks = list(chunks)
        client, futures = self.client, []
        placement = plan_placement(client.nthreads(), len(chunks))
        self.transfer.workers = self.workers

        def submit(*args, worker=None):
            future = client.submit(*args, pure=False, workers=worker,
                                   allow_other_workers=worker is not None)
            futures.append(future)
            return future

        shared: dict[tuple[int, str | None], object] = {}

        def share(array, worker):
            """The array as a task (sent once), and a copy of it made on ``worker`` (moved
            worker to worker) that the worker's chunks depend on."""
            if (id(array), None) not in shared:
                shared[id(array), None] = submit(_value, array)
                self.transfer.sent += array.nbytes
            if (id(array), worker) not in shared:
                shared[id(array), worker] = submit(_value, shared[id(array), None],
                                                   worker=worker)
            return shared[id(array), worker]

        with warnings.catch_warnings():  # the data travels inside the tasks on purpose (above)
            warnings.filterwarnings("ignore", "Sending large graph", UserWarning)
            stand_ins = []
            for chunk, worker in zip(chunks, placement):
                light, arrays = chunk.without_shared()
                stand_ins.append(submit(run_with_shared, function, light,
                                        *(share(array, worker) for array in arrays),
                                        worker=worker))
                self.transfer.sent += light.nbytes
            root = tree_merge(stand_ins, lambda left, right: submit(merge, left, right))
        try:
            result = root.result()
        finally:
            for future in futures:
                future.release()
        self.transfer.steps += 1
        self.transfer.chunks += len(chunks)
        self.transfer.received += getattr(result, "nbytes", 0)
        return result

    def close(self) -> None:
        """Close the client and cluster `start` made (once); a user's client stays open."""
        if self.owns_client:
            self.owns_client = False
            cluster = getattr(self.client, "cluster", None)
            self.client.close()
            if cluster is not None:
                cluster.close()


def plan_placement(threads: dict[str, int], n_chunks: int) -> list[str]:
    """The worker of each chunk: consecutive runs of chunks, worker by worker (sorted by
    address), each a share of the ``n_chunks`` proportional to its ``threads`` (largest
    remainders first), so that the subtrees of neighbouring chunks stay on one worker."""
    workers = sorted(threads)
    total = sum(threads.values())
    exact = [n_chunks * threads[worker] / total for worker in workers]
    counts = [int(share) for share in exact]
    by_remainder = sorted(range(len(workers)), key=lambda i: counts[i] - exact[i])
    for i in by_remainder[:n_chunks - sum(counts)]:
        counts[i] += 1
    return [worker for worker, count in zip(workers, counts) for _ in range(count)]


_SHARED_DASK: DaskBackend | None = None


def _dask_client_class():
    import sys
    module = sys.modules.get("distributed")  # a Client exists only if distributed was imported
    return None if module is None else module.Client


def is_dask_client(value) -> bool:
    client_class = _dask_client_class()
    return client_class is not None and isinstance(value, client_class)


@dataclass(frozen=True)
class BackendObject:
    """Validation constraint (`streamtopics.validation`): a `distributed.Client`, or a
    `parts.Backend` (those of this module, or a user's wrapper)."""

    def accepts(self, value, parameters) -> bool:
        return is_dask_client(value) or isinstance(value, Backend)

    def __str__(self) -> str:
        return ("a distributed.Client or a backend (an EStepMap with workers and "
                "chunk_documents: streamtopics.inference.parts.Backend)")


def resolve_backend(spec):
    """The backend of ``OnlineLDA(backend=spec)``: "serial", "threads", "dask" (the current
    `distributed` client, else a LocalCluster started once for this process), a
    `distributed.Client`, or a backend object itself."""
    global _SHARED_DASK
    if isinstance(spec, str):
        if spec == "serial":
            return SerialBackend()
        if spec == "threads":
            return ThreadBackend()
        if spec == "dask":
            from distributed import get_client
            try:
                return DaskBackend(get_client())
            except ValueError:  # no client yet
                if _SHARED_DASK is None:
                    _SHARED_DASK = DaskBackend.start()
                return _SHARED_DASK
        raise ValueError(f"unknown backend {spec!r}: one of {', '.join(BACKENDS)}")
    if is_dask_client(spec):
        return DaskBackend(spec)
    return spec


def plan_chunks(n_documents: int, backend, local) -> list[tuple[int, int]]:
    """(start, stop) of the chunks ``backend`` runs a minibatch of ``n_documents`` in: a
    `parts.Backend`'s fixed ``chunk_documents``, else `BACKEND_CHUNKS_PER_WORKER` per worker
    (one for a plain map, or when the ``local`` estimator's documents are not independent)."""
    if not independent_documents(local) or not isinstance(backend, Backend):
        return [(0, n_documents)]
    if backend.chunk_documents is not None:
        return fixed_chunk_bounds(n_documents, backend.chunk_documents)
    workers = backend.workers
    return chunk_bounds(n_documents, 1 if workers == 1 else BACKEND_CHUNKS_PER_WORKER * workers)


__all__ = ["BACKENDS", "BLOCK_DOCUMENTS", "BackendObject", "DaskBackend", "SerialBackend",
           "ThreadBackend", "Transfer", "is_dask_client", "plan_chunks", "plan_placement",
           "resolve_backend"]
