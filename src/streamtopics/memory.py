"""Memory said before it is spent: the peak bytes of the dominant arrays of a fit, a transform
or an evaluation, the memory the machine has left, and the check the estimators run before
they allocate.

An estimate counts the arrays whose size grows with the number of topics K: the K x V topic-word
statistics and parameters (with the copies and temporaries alive at the same time), the
per-minibatch U x K word tables and entries x K accumulators, the D x K document-topic outputs,
and the per-token arrays of collapsed Gibbs sampling. It leaves out what does not grow with K
(the corpus itself, the interpreter, compiled kernels: a few hundred MB), so it answers "can K
topics fit", not "how much memory will the process use". Compared with the measured peak (peak
resident memory above the resident memory before the call, and `tracemalloc`'s peak) of online
fits (G-OEM, V-OEM and their ++, OLDA, batch VB, averaging, Langevin dynamics, a truncated HDP),
collapsed Gibbs and CVB0 fits, transforms and left-to-right evaluation on synthetic and debian
corpora at K = 300 to 3,000, every estimate is within 1.5x of the measured peak, above or below.
An HDP's estimate is for ``max_topics`` topics, so it exceeds the peak of a run that opens fewer.

`check_memory` refuses (`ResourceError`) an operation whose estimate exceeds the available
memory, and warns (`MemoryWarning`) past `WARN_SHARE` of it. ``STREAMTOPICS_MEMORY_LIMIT``
replaces the available memory the check plans with (a number of bytes with an optional K, M, G
or T suffix, e.g. ``8G``), or turns the check off (``off``); estimates under `UNCHECKED_BELOW`
are not checked at all, so small calls never read the system's files.

`keep_freed_arrays` runs when the package is imported: it asks glibc's allocator to serve
arrays up to `HEAP_ARRAYS` from its heap and to keep up to `KEPT_FREE` of freed memory there,
unless the user has set glibc's own variables for them. An online step allocates its
U x K word tables and entries x K accumulators afresh; by default glibc maps arrays above a
threshold (at most 32 MB) straight from the system and hands them back when they are freed,
and trims the top of its heap past twice that threshold, so each step's arrays arrive as new
pages, each a page fault and a page of zeros. At a 100,000-word vocabulary this was about a
quarter of a G-OEM fit (`docs/performance.md`, "Large vocabularies and long documents").
Where the C library is not glibc, nothing changes.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .errors import InputError, MemoryWarning, ResourceError, warn

FLOAT = 8  # float64 and int64 items
INT32 = 4
GIB = 2.0 ** 30

WARN_SHARE = 0.5
"""An estimate above this share of the available memory warns: the rest of the process (the
corpus, the interpreter) and the machine's other programs need the remainder."""

UNCHECKED_BELOW = 2 ** 26
"""Estimates under 64 MiB are not checked: reading the system's memory would cost more than
they risk."""

LIMIT_VARIABLE = "STREAMTOPICS_MEMORY_LIMIT"

# What makes each kind of array smaller, for the messages.
FEWER_TOPICS_OR_WORDS = "fewer topics (K) or a smaller vocabulary (V)"
SMALLER_MINIBATCHES = "fewer topics (K) or smaller minibatches (batch_size)"
FEWER_DOCUMENTS = "fewer topics (K) or fewer documents per call"


@dataclass(frozen=True)
class Allocation:
    """``count`` arrays of ``shape`` alive at once, of ``itemsize`` bytes an item; ``what`` they
    are and what makes them smaller (``remedy``)."""

    what: str
    shape: tuple[int, ...]
    count: float = 1.0
    itemsize: int = FLOAT
    remedy: str = FEWER_TOPICS_OR_WORDS

    @property
    def nbytes(self) -> int:
        return int(self.count * self.itemsize * np.prod(self.shape, dtype=np.float64))

    def __str__(self) -> str:
        shape = " x ".join(f"{n:,}" for n in self.shape)
        if self.count == 1:
            return f"{self.what} of {shape} ({gib(self.nbytes)})"
        return f"{self.count:g} {self.what} of {shape}, {gib(self.nbytes / self.count)} each"


@dataclass(frozen=True)
class MemoryEstimate:
    """The peak bytes of ``operation``'s dominant arrays, the sum of its ``allocations``."""

    operation: str
    allocations: tuple[Allocation, ...]

    @property
    def nbytes(self) -> int:
        return sum(allocation.nbytes for allocation in self.allocations)

    @property
    def largest(self) -> Allocation:
        return max(self.allocations, key=lambda allocation: allocation.nbytes)

    def __str__(self) -> str:
        return (f"{self.operation} would allocate about {gib(self.nbytes)} (the largest part: "
                f"{self.largest})")


def gib(nbytes: float) -> str:
    return f"{nbytes / GIB:.3g} GiB"


@dataclass(frozen=True)
class Minibatches:
    """The largest minibatch of an online fit: documents B, entries E (distinct words of each
    document, summed) and tokens N."""

    documents: int
    entries: int
    tokens: int

    @classmethod
    def largest(cls, counts, rows: int) -> "Minibatches":
        """Of consecutive blocks of ``rows`` documents of a CSR count matrix (O(entries))."""
        n_documents, rows = counts.shape[0], max(int(rows), 1)
        if n_documents == 0:
            return cls(0, 0, 0)
        starts = np.arange(0, n_documents, rows)
        entries = counts.indptr[np.minimum(starts + rows, n_documents)] - counts.indptr[starts]
        tokens = np.add.reduceat(np.asarray(counts.sum(axis=1)).ravel(), starts)
        return cls(min(rows, n_documents), int(entries.max()), int(tokens.max()))


def _peak(operation: str, *phases: list[Allocation]) -> MemoryEstimate:
    """The estimate of the phase (arrays alive together) that needs the most."""
    largest = max(phases, key=lambda phase: sum(allocation.nbytes for allocation in phase))
    return MemoryEstimate(operation, tuple(largest))


def online_training(n_topics: int, n_words: int, batch: Minibatches, method, *,
                    averaging: bool = False, restarts: int = 1, growing: bool = False,
                    operation: str = "training") -> MemoryEstimate:
    """Online EM (`engine.OnlineEM`) with ``method`` (an `inference.presets.Method`: its
    ``local``, ``parameters``, ``boosted`` and ``full_batch`` are read) on minibatches no larger
    than ``batch``; ``growing``: topics open up to ``n_topics`` (HDP); ``restarts`` > 1 keeps
    the best run's statistics beside the current one. The peak of three phases:

    * starting: beta_0, a transposed temporary and s_0 (lambda_0 too for Bayesian topics; with
      averaging beta_0, s_0 and the average's two sums): three or four K x V arrays;
    * reporting the topics (``components_``, an evaluation of automatic passes): s, the topics
      and a temporary or word-major copy, and the average's sums: three K x V arrays, five
      with averaging;
    * a step: s (and the average's sums), six more K x V for Langevin dynamics (the dense
      statistics, gradient and noise with their temporaries), two more for a full-batch step (its V x K sums), one more when topics open (the
      padded copy); and the minibatch's (U = min(V, E) words): U x K word weights and
      statistics (three, six when boosted), B x K document arrays, for a Gibbs step the E x K
      recorded conditionals (an HDP's for the topics it may open too) and N token topics.
    """
    kept = (restarts > 1) * (1 + 2 * averaging)
    starting = max(4 if method.parameters == "dirichlet" else 3, 2 + 2 * averaging)
    step = (1 + 2 * averaging + 6 * (method.parameters == "langevin")
            + 2 * bool(method.full_batch) + bool(growing))
    gibbs = method.local.startswith("gibbs") or growing
    mode = SMALLER_MINIBATCHES
    minibatch = [
        Allocation("minibatch word tables (U x K)", (min(n_words, batch.entries), n_topics),
                   3 + 3 * method.boosted, remedy=mode),
        Allocation("minibatch document arrays (B x K)", (batch.documents, n_topics),
                   2 + (not gibbs) + 5 * growing, remedy=mode)]
    if gibbs:
        minibatch += [Allocation("recorded conditionals (entries x K)", (batch.entries, n_topics),
                                 1 + 2 * growing, remedy=mode),
                      Allocation("token topics", (batch.tokens,), remedy=mode)]
    topics = (n_topics, n_words)
    name = "topic-word arrays (K x V)"
    return _peak(operation, [Allocation(name, topics, starting + kept)],
                 [Allocation(name, topics, 3 + 2 * averaging + kept)],
                 [Allocation(name, topics, step + kept), *minibatch])


def online_transform(n_topics: int, n_documents: int, minibatch_entries: int,
                     operation: str = "transform") -> MemoryEstimate:
    """An online model's transform: the D x K proportions, and the local step of one minibatch
    of at most ``minibatch_entries`` entries (its entries x K recorded conditionals with their
    totals and the temporaries of the smoothing part added to them, four such arrays, and three
    B x K document arrays, B at most its entries)."""
    rows = min(n_documents, minibatch_entries)
    return MemoryEstimate(operation, (
        Allocation("document-topic proportions (D x K)", (n_documents, n_topics),
                   remedy=FEWER_DOCUMENTS),
        Allocation("minibatch recorded conditionals (entries x K)",
                   (minibatch_entries, n_topics), count=4, remedy=FEWER_DOCUMENTS),
        Allocation("minibatch document arrays (B x K)", (rows, n_topics), count=3,
                   remedy=FEWER_DOCUMENTS)))


def collapsed_gibbs_training(n_topics: int, n_words: int, n_documents: int, n_tokens: int, *,
                             soft: bool = True, chains_kept: int = 1, blocks: int = 0,
                             masked: bool = False,
                             operation: str = "training") -> MemoryEstimate:
    """One chain of collapsed Gibbs sampling (`inference.cgs.run_chain`) and the estimates of
    its kept samples, with ``chains_kept`` chains' results alive at the end.

    Int32 counts (D x K, V x K, and one V x K copy per AD-LDA block); at a kept sample the
    estimates: phi^p and phi with their temporaries, their running sums, the first sample the
    others are aligned to and the soft counts (seven K x V float64 arrays, six without
    ``soft``), four D x K, and two of each per further chain kept; per token the word ids,
    assignments and sparse word lists. A mask (Labeled LDA) adds its D x K indicator and
    per-document alpha."""
    return MemoryEstimate(operation, (
        Allocation("topic-word estimates (K x V)", (n_topics, n_words),
                   (7 if soft else 6) + 3 * (chains_kept - 1)),
        Allocation("topic-word counts (V x K, int32)", (n_words, n_topics), 1 + max(blocks, 0),
                   itemsize=INT32),
        Allocation("document-topic arrays (D x K)", (n_documents, n_topics),
                   4 + (chains_kept - 1), remedy=FEWER_DOCUMENTS),
        Allocation("document-topic counts (D x K, int32)", (n_documents, n_topics),
                   itemsize=INT32, remedy=FEWER_DOCUMENTS),
        Allocation("token arrays", (n_tokens,), 3, remedy="fewer tokens"),
        *_mask(n_documents, n_topics, masked)))


def collapsed_gibbs_prediction(n_topics: int, n_words: int, n_documents: int, n_tokens: int,
                               slots: int = 1, operation: str = "transform") -> MemoryEstimate:
    """Gibbs sampling of new documents with the topics fixed (`inference.cgs.predict_doc_topics`):
    the topics of the U words used (rows and cumulative sums, and the temporary of their
    selection), the hard and soft sums (D x slots x K each) and both estimates with their
    temporaries, and the per-token arrays."""
    return MemoryEstimate(operation, (
        Allocation("topics of the words used (U x K)", (min(n_words, n_tokens), n_topics), 3),
        Allocation("document-topic sums (D x K)", (n_documents, n_topics), 2 * slots + 3,
                   remedy=FEWER_DOCUMENTS),
        Allocation("token arrays", (n_tokens,), 8, remedy="fewer tokens")))


def cvb0_training(n_topics: int, n_words: int, n_documents: int, n_entries: int, *,
                  chains_kept: int = 1, masked: bool = False,
                  operation: str = "training") -> MemoryEstimate:
    """CVB0 (`inference.cvb0.fit_cvb0`): gamma (entries x K), the soft counts (D x K, V x K)
    and the estimates made from them with their temporaries (three of each shape), the
    topics of ``chains_kept`` chains; a mask adds its D x K indicator and per-document alpha."""
    return MemoryEstimate(operation, (
        Allocation("responsibilities gamma (entries x K)", (n_entries, n_topics),
                   remedy="fewer topics (K) or fewer documents"),
        Allocation("topic-word arrays (K x V)", (n_topics, n_words), 3 + (chains_kept - 1)),
        Allocation("document-topic arrays (D x K)", (n_documents, n_topics), 3,
                   remedy=FEWER_DOCUMENTS),
        *_mask(n_documents, n_topics, masked)))


def cvb0_prediction(n_topics: int, n_words: int, n_documents: int,
                    operation: str = "transform") -> MemoryEstimate:
    """CVB0 with the topics fixed (`inference.cvb0.predict_cvb0`): a word-major copy of the
    topics beside the D x K soft counts while it runs, then the soft counts and the estimate
    made from them with its temporary (three D x K)."""
    outputs = "document-topic arrays (D x K)"
    return _peak(operation,
                 [Allocation("word-major topics (V x K)", (n_words, n_topics)),
                  Allocation(outputs, (n_documents, n_topics), remedy=FEWER_DOCUMENTS)],
                 [Allocation(outputs, (n_documents, n_topics), 3, remedy=FEWER_DOCUMENTS)])


def _mask(n_documents: int, n_topics: int, masked: bool) -> tuple[Allocation, ...]:
    """A topic mask's D x K indicator and per-document alpha (Labeled LDA), if ``masked``."""
    if not masked:
        return ()
    return (Allocation("per-document alpha (D x K)", (n_documents, n_topics),
                       remedy=FEWER_DOCUMENTS),
            Allocation("topic mask (D x K, bool)", (n_documents, n_topics), itemsize=1,
                       remedy=FEWER_DOCUMENTS))


def held_out_evaluation(n_topics: int, n_words: int, longest_document: int,
                        n_particles: int = 0, n_threads: int = 1,
                        operation: str = "evaluation", *,
                        copies_topics: bool = True) -> MemoryEstimate:
    """Left-to-right (``n_particles`` R > 0) or document completion (R = 0) of held-out
    documents: a word-major copy of the topics (``copies_topics``: unless they are one
    already), and on each of ``n_threads`` threads the state of its document (N the longest):
    R x N topics, R x K counts and lists (four), the N x K cumulative smoothing weights."""
    allocations = [Allocation("word-major topics (V x K)", (n_words, n_topics),
                              int(copies_topics))]
    if n_particles:
        remedy = "fewer topics (K), fewer particles or a cap on the tokens per document"
        allocations += [
            Allocation("particle topics (threads x R x N)",
                       (n_threads, n_particles, longest_document), remedy=remedy),
            Allocation("particle counts (threads x R x K)", (n_threads, n_particles, n_topics),
                       4, remedy=remedy),
            Allocation("smoothing weights (threads x N x K)",
                       (n_threads, longest_document, n_topics), remedy=remedy)]
    return MemoryEstimate(operation, tuple(allocations))


# --- the memory available -------------------------------------------------------------------
def meminfo_available(text: str) -> int | None:
    """MemAvailable of a /proc/meminfo text, in bytes (None if absent)."""
    found = re.search(r"^MemAvailable:\s+(\d+)\s*kB", text, re.M)
    return None if found is None else int(found.group(1)) * 1024


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None


def cgroup_headroom(cgroups: str, root: Path = Path("/sys/fs/cgroup")) -> int | None:
    """The smallest limit minus usage over this process's memory cgroup and its ancestors
    (``cgroups``: the text of /proc/self/cgroup; v2 ``memory.max``/``memory.current``, v1
    ``memory.limit_in_bytes``/``memory.usage_in_bytes``), None without a limit."""
    headrooms = []
    for line in cgroups.splitlines():
        number, controllers, path = (line.split(":", 2) + ["", ""])[:3]
        if number == "0" and controllers == "":
            base, files = root, ("memory.max", "memory.current")
        elif "memory" in controllers.split(","):
            base, files = root / "memory", ("memory.limit_in_bytes", "memory.usage_in_bytes")
        else:
            continue
        parts = [part for part in path.split("/") if part]
        for depth in range(len(parts), -1, -1):
            limit, usage = (_read(base.joinpath(*parts[:depth], name)) for name in files)
            if limit is not None and usage is not None and limit.isdigit() and usage.isdigit():
                if int(limit) < 2 ** 60:  # v1 writes "no limit" as a huge number, v2 as "max"
                    headrooms.append(max(int(limit) - int(usage), 0))
    return min(headrooms) if headrooms else None


def available_memory(meminfo: Path = Path("/proc/meminfo"),
                     cgroups: Path = Path("/proc/self/cgroup"),
                     cgroup_root: Path = Path("/sys/fs/cgroup")) -> int | None:
    """Bytes this process may still allocate: MemAvailable of /proc/meminfo, or the headroom of
    its memory cgroup (v2 or v1) when lower; without /proc, the free physical memory
    (`os.sysconf`); None when nothing says."""
    text = _read(meminfo)
    available = None if text is None else meminfo_available(text)
    if available is None:
        try:
            available = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        except (ValueError, OSError, AttributeError):
            available = None
    cgroup_text = _read(cgroups)
    headroom = None if cgroup_text is None else cgroup_headroom(cgroup_text, cgroup_root)
    if headroom is not None and (available is None or headroom < available):
        return headroom
    return available


_UNITS = {"": 1, "K": 2 ** 10, "M": 2 ** 20, "G": 2 ** 30, "T": 2 ** 40}


def memory_limit() -> int | None:
    """What the check plans with: ``STREAMTOPICS_MEMORY_LIMIT`` when set (0 for "off": no
    check), else `available_memory`."""
    value = os.environ.get(LIMIT_VARIABLE, "").strip()
    if not value:
        return available_memory()
    if value.lower() == "off":
        return 0
    found = re.fullmatch(r"(\d+(?:\.\d+)?)\s*([KMGT]?)(?:i?B)?", value, re.I)
    if found is None:
        raise InputError(f"{LIMIT_VARIABLE}={value!r}: expected a number of bytes with an "
                         f"optional K, M, G or T suffix (e.g. 8G), or off")
    return int(float(found.group(1)) * _UNITS[found.group(2).upper()])


def check_memory(estimate: MemoryEstimate, available: int | None = None) -> None:
    """Refuse ``estimate``'s operation (`ResourceError`) when it needs more than the memory
    available (``available``, default `memory_limit`), warn (`MemoryWarning`) when it needs more
    than `WARN_SHARE` of it. Nothing under `UNCHECKED_BELOW`, with the check off, or when the
    available memory is unknown."""
    needed = estimate.nbytes
    if needed < UNCHECKED_BELOW:
        return
    available = memory_limit() if available is None else available
    if not available:
        return
    remedy = (f"use {estimate.largest.remedy}, or set {LIMIT_VARIABLE} (e.g. 64G, or off) if "
              f"the estimate is wrong for this machine")
    if needed > available:
        raise ResourceError(f"{estimate} but {gib(available)} of memory is available: {remedy}")
    if needed > WARN_SHARE * available:
        warn(f"{estimate}, more than {WARN_SHARE:.0%} of the {gib(available)} of memory "
             f"available", MemoryWarning)


HEAP_ARRAYS = 2 ** 30
"""Allocations up to this size come from glibc's heap (`keep_freed_arrays`)."""

KEPT_FREE = 2 ** 30
"""Freed memory at the top of glibc's heap kept for the next allocations, at most (bytes)."""

_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3  # glibc's mallopt parameters
ALLOCATOR_VARIABLES = ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "MALLOC_TOP_PAD_",
                       "MALLOC_MMAP_MAX_")
"""glibc's variables for the same settings: a user who sets one (or a ``glibc.malloc``
tunable) keeps the allocator as they set it."""


def keep_freed_arrays() -> None:
    """Serve arrays up to `HEAP_ARRAYS` from glibc's heap and keep `KEPT_FREE` of freed memory
    (module docstring), unless the user has set `ALLOCATOR_VARIABLES` or a ``glibc.malloc``
    tunable, or the C library is not glibc.
    Only where memory comes from: every array holds the same values."""
    if any(name in os.environ for name in ALLOCATOR_VARIABLES) or (
            "glibc.malloc." in os.environ.get("GLIBC_TUNABLES", "")):
        return
    library = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(library) if library else None
    except OSError:
        libc = None
    if libc is None or not hasattr(libc, "gnu_get_libc_version"):
        return
    libc.mallopt(_M_MMAP_THRESHOLD, HEAP_ARRAYS)
    libc.mallopt(_M_TRIM_THRESHOLD, KEPT_FREE)
