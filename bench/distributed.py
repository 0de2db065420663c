"""How fast does the Dask backend train, against the serial one, and how would it scale?

Documents/s of the serial backend and of Dask with 1 and 2 local workers (one process, one
thread each; numba threads = 1 everywhere), side by side in one run, on two streams trained
online by G-OEM (P = 20, one pass):

- debian (train split, V = 10,000), K = 100, minibatches of ``--debian-batch`` documents;
- a synthetic stream of ``--documents`` (400,000) documents made a minibatch at a time from
  planted topics (K* = K = ``--topics``, V = ``--words``, lengths ~ Poisson(``--length``)),
  minibatches of ``--batch-size``; ``--measure`` documents of it per configuration (the whole
  stream by default; the rate is steady after the first step).

Per configuration and stream: documents/s, seconds per step split into the E-step map (tasks
built, sent, run, merged on the workers, the result gathered) and the client's rest (minibatch,
word weights, M-step), and for Dask the chunks, bytes sent and received per step. The models
must be bit-identical across backends (checked). The configurations alternate (serial, dask 1,
dask 2, then again) and each keeps its best repetition, so a burst of load on the shared
machine shows as a gap between repetitions, not as a speed-up.

The shared 2-CPU host runs other jobs, so besides wall-clock documents/s each run reports CPU
times: the client's own CPU per step (its main thread), the CPU of the client process' other
threads (Dask's communication and the scheduler, which a LocalCluster runs in the client's
process) and the tasks' compute time by worker (Dask's task stream), whence a "CPU-bound" rate,
documents / (client CPU + the busiest worker's time) per step. Only the configuration timed has
processes: each Dask cluster is started (and its workers compile the kernels) before its run and
closed after it.

What two workers can reach on this host at all is measured too (`two_process_ceiling`): the
first chunk of a 2-worker step run by one plain process alone and by two at once, beside a
loop of arithmetic in registers run the same way.

From the synthetic stream's measured costs the script projects the throughput of W = 2, 8, 32,
128 workers: t_step(W, B) = client(B) + e B / W + levels(W) U_c (K + 1) (m + 8 / bandwidth),
with e the E-step CPU per document (serial), client(B) the client's CPU per document of its own
(serial run) and for serialising and moving data (dask-2 minus serial) times B plus the bytes
at 1 GB/s, levels(W) the depth of the merge tree over the 2W chunks (run on the workers),
U_c a chunk's distinct words and m the merge's CPU per entry (measured); and for each W the
smallest minibatch (12,800 x 2^j) at which the client takes at most 20 % of a step.

``--quick``: a stream of 2,000 documents in minibatches of 1,000, the serial backend and two
workers, no ceiling, a projection from small minibatches.

Usage: ``python bench/distributed.py [--documents 400000] [--measure N] [--batch-size 25600]
[--repeats 2] [--quick]``.
"""

from __future__ import annotations

import os

os.environ["NUMBA_NUM_THREADS"] = "1"  # before numba loads, here and in the worker processes

import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

BENCH = Path(__file__).resolve().parent
# This file's name would hide the `distributed` package: src/ and site-packages first, this
# folder (`measuring`) last, here and in the worker processes (which import this file again).
sys.path[:] = [str(BENCH.parent / "src")] + [p for p in sys.path
                                             if Path(p or ".").resolve() != BENCH] + [str(BENCH)]

from measuring import CORPORA, arguments, parse, write_results  # noqa: E402

import numpy as np  # noqa: E402
import scipy.sparse as sp  # noqa: E402

from streamtopics.corpus.readers import read_corpus_dir  # noqa: E402
from streamtopics.corpus.synthetic import iter_synthetic_documents, make_topics  # noqa: E402
from streamtopics.estimators import OnlineLDA  # noqa: E402
from streamtopics.inference.backends import (BACKEND_CHUNKS_PER_WORKER, DaskBackend,  # noqa: E402
                                             SerialBackend)
from streamtopics.inference.estep_chunks import chunk_bounds  # noqa: E402

DEBIAN = CORPORA / "debian"
BANDWIDTH = 1.0e9  # bytes/s a client's network moves (10 GbE, about 1.2e9 at best)
CLIENT_SHARE = 0.2


class Timed:
    """A backend whose E-step is timed: wall seconds of the map (tasks sent, run, merged,
    gathered), and per step the compute seconds of the tasks by worker: this thread's CPU for
    the serial backend, the workers' task compute times (Dask's task stream) for Dask."""

    def __init__(self, inner):
        self.inner, self.seconds = inner, 0.0
        self.workers = inner.workers
        self.chunk_documents = inner.chunk_documents
        self.name = inner.name
        self.task_cpu = 0.0        # all tasks
        self.critical_cpu = 0.0    # per step, the busiest worker's tasks
        if hasattr(inner, "map_reduce"):
            self.map_reduce = self._map_reduce

    def __call__(self, function, chunks):
        started, cpu = time.perf_counter(), time.thread_time()
        results = list(self.inner(function, chunks))
        self.seconds += time.perf_counter() - started
        cpu = time.thread_time() - cpu
        self.task_cpu += cpu
        self.critical_cpu += cpu  # one worker: this thread
        return iter(results)

    def _map_reduce(self, function, chunks, merge):
        from distributed import get_task_stream
        started = time.perf_counter()
        with get_task_stream(client=self.inner.client) as stream:
            result = self.inner.map_reduce(function, chunks, merge)
        self.seconds += time.perf_counter() - started
        by_worker: dict[str, float] = {}
        for task in stream.data:
            for span in task["startstops"]:
                if span["action"] == "compute":
                    by_worker[task["worker"]] = (by_worker.get(task["worker"], 0.0)
                                                 + span["stop"] - span["start"])
        self.task_cpu += sum(by_worker.values())
        self.critical_cpu += max(by_worker.values(), default=0.0)
        return result


def synthetic_stream(n_documents: int, batch_size: int, n_topics: int, n_words: int,
                     length: float, seed: int = 16):
    """CSR minibatches of a planted-topic stream, made as they are read."""
    beta = make_topics(n_topics, n_words, concentration=0.05, seed=seed)
    alpha = np.full(n_topics, 0.1)
    for tokens, _ in iter_synthetic_documents(beta, alpha, n_documents, length, seed=seed + 1,
                                              chunk_size=batch_size):
        rows = np.repeat(np.arange(len(tokens)), [t.size for t in tokens])
        counts = sp.csr_matrix((np.ones(rows.size), (rows, np.concatenate(tokens))),
                               shape=(len(tokens), n_words))
        counts.sum_duplicates()
        yield counts


def debian_stream(batch_size: int):
    counts = read_corpus_dir(DEBIAN).counts.tocsr()
    for start in range(0, counts.shape[0], batch_size):
        yield counts[start:start + batch_size]


def train(batches, n_topics: int, backend) -> dict:
    """One configuration over a stream: G-OEM, one pass; wall and CPU times per step. The
    client's CPU is split in its own work (this thread: minibatch, word weights, M-step; for
    the serial backend less the E-step it runs here) and the rest of its process (Dask's
    communication and scheduler threads: serialising, sending, receiving)."""
    timed = Timed(backend)
    model = OnlineLDA(n_topics, method="g-oem", batch_size=10**9, local_passes=20, n_passes=1,
                      random_state=0, backend=timed)
    documents = steps = 0
    seconds = process_cpu = thread_cpu = 0.0
    step_seconds = []
    for counts in batches:  # made between the timed steps (the stream's reading is not timed)
        started, process_started = time.perf_counter(), time.process_time()
        thread_started = time.thread_time()
        model.partial_fit(counts)
        step_seconds.append(time.perf_counter() - started)
        seconds += step_seconds[-1]
        thread_cpu += time.thread_time() - thread_started
        process_cpu += time.process_time() - process_started
        documents += counts.shape[0]
        steps += 1
    in_thread = timed.task_cpu if backend.name == "serial" else 0.0
    client_cpu = (thread_cpu - in_thread) / steps
    comm_cpu = (process_cpu - thread_cpu) / steps
    critical = client_cpu + comm_cpu + timed.critical_cpu / steps
    row = {"backend": backend.name, "workers": backend.workers, "documents": documents,
           "steps": steps, "seconds": seconds, "documents_per_second": documents / seconds,
           "estep_seconds_per_step": timed.seconds / steps,
           "client_seconds_per_step": (seconds - timed.seconds) / steps,
           "task_cpu_per_step": timed.task_cpu / steps, "client_cpu_per_step": client_cpu,
           "client_comm_cpu_per_step": comm_cpu,
           "busiest_worker_cpu_per_step": timed.critical_cpu / steps,
           "cpu_bound_documents_per_second": documents / steps / critical,
           "step_seconds": step_seconds, "components_sha": _digest(model.components_)}
    transfer = getattr(backend, "transfer", None)
    if transfer is not None:
        row.update(chunks_per_step=transfer.chunks / transfer.steps,
                   bytes_sent_per_step=transfer.sent / transfer.steps,
                   bytes_received_per_step=transfer.received / transfer.steps)
        transfer.steps = transfer.chunks = transfer.sent = transfer.received = 0
    return row


def _digest(array) -> str:
    import hashlib
    return hashlib.sha256(np.ascontiguousarray(array).tobytes()).hexdigest()[:16]


def warm_up(backend) -> None:
    """Compile (or load from numba's cache) the dense and the sparse kernels where ``backend``
    runs them (K = 4 and 40: either side of the sparse sampler's threshold), before timing, on
    minibatches of 3,200 documents: chunks of several blocks, so that the kernels that sum a
    run's blocks (`GibbsRun.block_statistics`) are loaded too."""
    for n_topics in (4, 40):
        train(synthetic_stream(3200, 3200, n_topics, 50, 20.0), n_topics, backend)


def start_cluster(n_workers: int, chunk_documents: int | None = None) -> DaskBackend:
    backend = DaskBackend.start(n_workers=n_workers, threads_per_worker=1)
    warm_up(backend)
    backend.chunk_documents = chunk_documents  # after the warm-up's small minibatches
    return backend


def compare(name: str, make_batches, n_topics: int, backends: dict, repeat: int) -> list[dict]:
    """Alternate the configurations ``repeat`` times; keep each one's fastest run. ``backends``
    maps a label to a function that starts the backend: a Dask cluster lives only during its
    own run (started and warmed up before the clock starts, closed after), so no idle worker,
    nanny or scheduler of another configuration runs beside the one timed."""
    best: dict[str, dict] = {}
    for round_ in range(repeat):
        for label, start in backends.items():
            backend = start()
            try:
                row = train(make_batches(), n_topics, backend)
            finally:
                getattr(backend, "close", lambda: None)()
            load = os.getloadavg()[0]
            print(f"{name} {label} round {round_ + 1}: {row['documents_per_second']:.0f} "
                  f"documents/s (load {load:.1f})", flush=True)
            row.update(stream=name, configuration=label, load_average=load)
            if label not in best or row["seconds"] < best[label]["seconds"]:
                best[label] = row
    digests = {row["components_sha"] for row in best.values()}
    if len(digests) != 1:
        raise SystemExit(f"{name}: the backends trained different models: {digests}")
    serial = best["serial"]
    for row in best.values():
        row["speedup"] = row["documents_per_second"] / serial["documents_per_second"]
        row["cpu_bound_speedup"] = (row["cpu_bound_documents_per_second"]
                                    / serial["cpu_bound_documents_per_second"])
    return list(best.values())


class _Capture:
    """A backend that keeps the chunk tasks of the last step (and runs them here)."""

    name, chunk_documents, tasks = "capture", None, []

    def __init__(self, workers: int):
        self.workers = workers

    def __call__(self, function, chunks):
        self.tasks = list(chunks)
        return map(function, self.tasks)


def _wall_seconds(call, repeat: int) -> list[float]:
    """Wall seconds of ``call()``, ``repeat`` times after one untimed call."""
    call()
    seconds = []
    for _ in range(repeat):
        started = time.perf_counter()
        call()
        seconds.append(time.perf_counter() - started)
    return seconds


def _time_chunks(task, repeat: int) -> list[float]:
    """Wall seconds of `run_chunk` on ``task`` (in a worker process of `two_process_ceiling`)."""
    from streamtopics.inference.estep_chunks import run_chunk
    return _wall_seconds(lambda: run_chunk(task), repeat)


def _time_arithmetic(iterations: int, repeat: int) -> list[float]:
    """Wall seconds of a register-only numba loop of ``iterations`` (no memory traffic)."""
    from numba import njit

    @njit(cache=False)
    def spin(n):
        x = 0.0
        for i in range(n):
            x = x * 0.999999 + (i % 7) * 1e-3
        return x

    spin(10)
    return _wall_seconds(lambda: spin(iterations), repeat)


def _ratio(pool, function, argument, repeat: int) -> tuple[float, float]:
    """Median seconds of ``function(argument, repeat)`` in one process alone and in each of
    two at once."""
    alone = pool.submit(function, argument, repeat).result()
    pair = [s for run in pool.map(function, [argument] * 2, [repeat] * 2) for s in run]
    return float(np.median(alone)), float(np.median(pair))


def two_process_ceiling(counts, n_topics: int, repeat: int = 3) -> dict:
    """What two processes can do on this host: the first chunk of a 2-worker step run in one
    process alone, then in two processes at once (the same work each, plain processes, no
    Dask). The E-step is memory-bound enough that two at once run slower than one alone; the
    ceiling 2 t_alone / t_pair is the most any two workers can reach here."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    capture = _Capture(workers=2)
    OnlineLDA(n_topics, method="g-oem", batch_size=10**9, local_passes=20, n_passes=1,
              random_state=0, backend=capture).partial_fit(counts)
    task = capture.tasks[0]
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as pool:
        list(pool.map(_time_chunks, [task, task], [1, 1]))  # both processes compile
        alone, pair = _ratio(pool, _time_chunks, task, repeat)
        arithmetic = _ratio(pool, _time_arithmetic, 200_000_000, repeat)
    return {"chunk_documents": task.batch.n_documents, "seconds_alone": alone,
            "seconds_two_at_once": pair, "ceiling": 2 * alone / pair,
            "arithmetic_ceiling": 2 * arithmetic[0] / arithmetic[1]}


def step_plan(counts, n_topics: int, workers: int) -> dict:
    """One step of ``workers`` Dask workers on the minibatch ``counts``, from the chunk plan:
    chunks, the client's bytes (each chunk's documents in the narrowest unsigned types, as
    `ChunkTask.without_shared` sends them: per entry its local word and its count, per
    document its entry and token offsets, per distinct word of the chunk its id; the
    minibatch's U x K weights once; one U x K merged result back), the levels of the merge
    tree on the workers and the most distinct words of a chunk."""
    bounds = chunk_bounds(counts.shape[0], BACKEND_CHUNKS_PER_WORKER * workers)
    row = 8 * n_topics + 8
    words = np.unique(counts.indices).size
    size = (lambda largest: np.min_scalar_type(int(largest)).itemsize)
    chunk_words, sent = [], 0
    for start, stop in bounds:
        chunk = counts[start:stop]
        chunk_words.append(np.unique(chunk.indices).size)
        offsets = 2 * (chunk.shape[0] + 1) * size(max(chunk.nnz, chunk.sum()))
        sent += (chunk.nnz * (size(chunk_words[-1]) + size(chunk.data.max()))
                 + offsets + chunk_words[-1] * size(counts.shape[1]))
    return {"chunks": len(bounds), "levels": max(0, (len(bounds) - 1).bit_length()),
            "bytes_sent": sent + words * row,
            "bytes_received": words * row + 8 * n_topics, "chunk_words": max(chunk_words)}


def merge_seconds_per_entry(n_topics: int, words: int = 8000) -> float:
    """CPU seconds per (word, topic) entry of merging two chunks' statistics (the kernel of
    `MinibatchStats.merge`), on two overlapping random word sets."""
    from streamtopics.kernels.statistics import merge_sorted_rows
    rng = np.random.default_rng(0)
    keys = [np.sort(rng.choice(2 * words, words, replace=False)).astype(np.int64)
            for _ in range(2)]
    rows = [rng.random((words, n_topics)) for _ in range(2)]
    merge_sorted_rows(keys[0], rows[0], keys[1], rows[1])  # compiled
    started = time.thread_time()
    for _ in range(20):
        merge_sorted_rows(keys[0], rows[0], keys[1], rows[1])
    return (time.thread_time() - started) / 20 / (2 * words * n_topics)


def project(rows: list[dict], args) -> dict:
    """Throughput of W workers from the synthetic stream's measured costs (module docstring):
    t_step(W, B) = client(B) + e B / W + levels(W) (merge + transfer of a chunk's U_c x K),
    client(B) = (c_local + c_traffic) B / B0 + bytes(B) / bandwidth: the client's own CPU per
    step (serial run, its main thread: building the minibatch, word weights, M-step) and the
    Dask client's extra CPU (serialising, sending, receiving, scheduling: dask-2's main thread
    minus serial's, plus its communication threads), both linear in the documents."""
    serial, two = (next(r for r in rows if r["configuration"] == name)
                   for name in ("serial", "dask-2"))
    batch = args.batch_size
    per_document = serial["task_cpu_per_step"] / batch
    local = serial["client_cpu_per_step"] / batch
    traffic = (max(0.0, two["client_cpu_per_step"] - serial["client_cpu_per_step"])
               + two["client_comm_cpu_per_step"]) / batch
    merge = merge_seconds_per_entry(args.topics)
    sample = {size: next(synthetic_stream(size, size, args.topics, args.words, args.length))
              for size in args.projected_sizes}
    projection = {}
    for workers in (2, 8, 32, 128):
        by_size = {}
        for size, counts in sample.items():
            plan = step_plan(counts, args.topics, workers)
            client = (local + traffic) * size + (plan["bytes_sent"] + plan["bytes_received"]) \
                / BANDWIDTH
            tree = plan["levels"] * plan["chunk_words"] * (args.topics + 1) * (
                merge + 8 / BANDWIDTH)
            step = client + per_document * size / workers + tree
            by_size[size] = {**plan, "documents_per_second": size / step,
                             "client_share": client / step, "tree_seconds": tree,
                             "speedup_vs_serial": size / step
                             / serial["cpu_bound_documents_per_second"]}
        enough = [size for size, row in by_size.items() if row["client_share"] <= CLIENT_SHARE]
        projection[workers] = {"by_batch_size": by_size,
                               "smallest_batch_size_client_below_share": min(enough, default=None)}
    return {"estep_cpu_seconds_per_document": per_document,
            "client_cpu_seconds_per_document": local,
            "client_traffic_cpu_seconds_per_document": traffic,
            "merge_cpu_seconds_per_entry": merge,
            "bandwidth_bytes_per_second": BANDWIDTH, "client_share_limit": CLIENT_SHARE,
            "client_bound_documents_per_second": 1 / (local + traffic),
            "workers": projection}


def markdown(rows: list[dict], projection: dict, ceiling: dict | None, args) -> list[str]:
    lines = [f"G-OEM, P = 20, one pass; numba threads = 1; Dask workers: local processes of one "
             f"thread; host: {os.cpu_count()} CPUs shared with other jobs (load average noted). "
             f"Each configuration's best of {args.repeats} alternating runs; models bit-identical "
             f"across backends (sha256 of the topics checked). docs/s: wall clock; CPU-bound "
             f"docs/s: documents / (client CPU + the busiest worker's task compute time) per "
             f"step, what dedicated cores would give before transfer time.", "",
             "| stream | minibatch | configuration | documents | docs/s | speed-up | CPU-bound "
             "docs/s | CPU-bound speed-up | E-step s/step | client s/step | client CPU s/step "
             "| Dask threads CPU s/step | chunks/step | MB sent/step | MB back/step | load |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        mb = (lambda key: f"{r[key] / 1e6:.1f}" if key in r else "-")
        lines.append(f"| {r['stream']} | {r['batch_size']} | {r['configuration']} | "
                     f"{r['documents']} | {r['documents_per_second']:.0f} | {r['speedup']:.2f} | "
                     f"{r['cpu_bound_documents_per_second']:.0f} | "
                     f"{r['cpu_bound_speedup']:.2f} | "
                     f"{r['estep_seconds_per_step']:.2f} | {r['client_seconds_per_step']:.3f} | "
                     f"{r['client_cpu_per_step']:.3f} | {r['client_comm_cpu_per_step']:.3f} | "
                     f"{r.get('chunks_per_step', 1):.0f} | {mb('bytes_sent_per_step')} | "
                     f"{mb('bytes_received_per_step')} | {r['load_average']:.1f} |")
    c = ceiling
    lines += [] if c is None else [
              "", f"The host's ceiling for two workers: one chunk of {c['chunk_documents']} "
              f"documents takes {c['seconds_alone']:.2f} s in one process alone and "
              f"{c['seconds_two_at_once']:.2f} s in each of two processes at once (plain "
              f"processes, no Dask; medians): two processes do **{c['ceiling']:.2f}x** the work "
              f"of one here, against {c['arithmetic_ceiling']:.2f}x for a loop of arithmetic "
              f"in registers (the E-step's memory traffic is what two processes share)."]
    p = projection
    lines += ["", f"## Projection (synthetic stream, K = {args.topics}, V = {args.words})", "",
              f"Measured: E-step {p['estep_cpu_seconds_per_document'] * 1e6:.0f} CPU us/document "
              f"(serial); client {p['client_cpu_seconds_per_document'] * 1e6:.1f} CPU "
              f"us/document of its own (minibatch, weights, M-step) plus "
              f"{p['client_traffic_cpu_seconds_per_document'] * 1e6:.1f} us/document to "
              f"serialise, send and receive on Dask; merge "
              f"{p['merge_cpu_seconds_per_entry'] * 1e9:.2f} ns per (word, topic) entry; "
              f"network {p['bandwidth_bytes_per_second'] / 1e9:.0f} GB/s assumed. The client "
              f"alone caps a stream at {p['client_bound_documents_per_second']:.0f} documents/s "
              f"whatever the workers.", "",
              "| workers | minibatch | chunks | MB sent/step | MB back/step | merge levels "
              "| docs/s | vs serial | client share |", "|---|---|---|---|---|---|---|---|---|"]
    for workers, entry in p["workers"].items():
        for size, row in entry["by_batch_size"].items():
            lines.append(f"| {workers} | {size} | {row['chunks']} | {row['bytes_sent'] / 1e6:.1f} "
                         f"| {row['bytes_received'] / 1e6:.1f} | {row['levels']} | "
                         f"{row['documents_per_second']:.0f} | "
                         f"{row['speedup_vs_serial']:.1f} | {row['client_share']:.0%} |")
    lines += ["", "Smallest minibatch with the client at most "
              f"{p['client_share_limit']:.0%} of a step: " + ", ".join(
                  f"{w} workers: {e['smallest_batch_size_client_below_share'] or 'none tried'}"
                  for w, e in p["workers"].items())]
    return lines


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument("--documents", type=int, default=400_000)
    parser.add_argument("--measure", type=int, default=None,
                        help="documents of the synthetic stream trained per configuration")
    parser.add_argument("--batch-size", type=int, default=25_600)
    parser.add_argument("--topics", type=int, default=50)
    parser.add_argument("--words", type=int, default=10_000)
    parser.add_argument("--length", type=float, default=50.0)
    parser.add_argument("--debian-batch", type=int, default=6_400)
    parser.add_argument("--skip-debian", action="store_true")
    parser.add_argument("--chunk-documents", type=int, default=None,
                        help="also run 2 workers with chunks of this many documents (100 x 2^m)")
    args = parse(parser)
    args.projected_sizes = [12_800 * 2 ** j for j in range(6)]
    if args.quick:
        args.documents, args.batch_size, args.topics, args.words = 2_000, 1_000, 10, 500
        args.skip_debian, args.projected_sizes = True, [1_000, 2_000, 4_000]
    measure = min(args.measure or args.documents, args.documents)
    warm_up(SerialBackend())
    backends = {"serial": SerialBackend, "dask-1": lambda: start_cluster(1),
                "dask-2": lambda: start_cluster(2)}
    if args.quick:
        del backends["dask-1"]
    if args.chunk_documents:
        backends[f"dask-2, chunks of {args.chunk_documents}"] = lambda: start_cluster(
            2, args.chunk_documents)
    rows = []
    if not args.skip_debian and DEBIAN.exists():
        for row in compare("debian K=100", lambda: debian_stream(args.debian_batch), 100,
                           backends, args.repeats):
            rows.append({**row, "batch_size": args.debian_batch})
    synthetic = compare(
        f"synthetic {args.documents} documents, K={args.topics}",
        lambda: synthetic_stream(measure, args.batch_size, args.topics, args.words,
                                 args.length), args.topics, backends, args.repeats)
    rows += [{**row, "batch_size": args.batch_size} for row in synthetic]
    ceiling = None if args.quick else two_process_ceiling(
        next(synthetic_stream(args.batch_size, args.batch_size, args.topics, args.words,
                              args.length)), args.topics)
    projection = project(synthetic, args)
    headline = [f"{row['stream']}, minibatches of {row['batch_size']}: {row['configuration']} "
                f"{row['documents_per_second']:,.0f} documents/s ({row['speedup']:.2f}x serial; "
                f"CPU-bound {row['cpu_bound_speedup']:.2f}x)" for row in rows
                if row["configuration"] != "serial"]
    if ceiling is not None:
        headline.append(f"two processes on this host do {ceiling['ceiling']:.2f}x one's work")
    write_results(args, {"measured_documents": measure, "rows": rows,
                         "two_process_ceiling": ceiling, "projection": projection},
                  "The E-step on Dask", markdown(rows, projection, ceiling, args), headline)


if __name__ == "__main__":
    main()
