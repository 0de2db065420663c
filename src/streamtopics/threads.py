"""How many threads the compiled kernels run on: ``n_jobs``, one meaning everywhere.

Every estimator takes ``n_jobs``, every function that runs kernels over documents takes it, and
every command that computes takes ``--threads``, all with scikit-learn's meaning:

- ``None`` (the default): one thread, unless an enclosing `using_threads` block says otherwise
  (a command's ``--threads``, or an estimator whose method calls a function): then its count;
- ``n >= 1``: n threads, at most the cores numba started with (``NUMBA_NUM_THREADS``; more
  never helps, so the count is capped there);
- ``-1``: every core, ``-2`` every core but one, and so on (joblib's cores + 1 + n_jobs).

One thread by default because threads only pay on a machine whose cores are free: a parallel
region ends when its slowest thread does, and a thread that shares its core with another job
finishes late, so on a busy machine two threads can lose to one (the contention table of
`docs/performance.md`, `bench/threads.py`). The user who knows the cores are free asks for them.

The results never depend on the count: every document has its own random stream and every sum
is taken in a fixed order (`tests/test_thread_determinism.py`).

`prefer_short_spins` runs when the package is imported: it asks the OpenMP runtime that numba's
parallel kernels run on (GNU libgomp) to let a waiting thread spin `SPIN_COUNT` times before it
sleeps, a hundredth of its default, unless the user has set ``GOMP_SPINCOUNT`` or
``OMP_WAIT_POLICY``. A thread that spins at the end of a region holds a core that the thread
the region waits for may need: on a machine with a busy core, the default spins made two
threads many times slower than one. Not spinning at all (``OMP_WAIT_POLICY=PASSIVE``) costs a
wake-up at each of a step's short regions and loses much of the speed-up on free cores; the
short spin keeps it (the contention table of `docs/performance.md`).
"""

from __future__ import annotations

import contextlib
import functools
import os
from contextvars import ContextVar
from .validation import Integral, Interval, check_parameter

N_JOBS = [None, Interval(Integral, 1, None), Interval(Integral, None, -1)]
"""What ``n_jobs`` accepts (`validation`): None, n >= 1, or n <= -1."""

_ENCLOSING: ContextVar[int | None] = ContextVar("streamtopics_threads", default=None)


SPIN_COUNT = 3000
"""Spins of a waiting OpenMP thread before it sleeps (libgomp's default: 300,000)."""


def prefer_short_spins() -> None:
    """Set ``GOMP_SPINCOUNT`` to `SPIN_COUNT` unless the user has set it or
    ``OMP_WAIT_POLICY`` (module docstring). libgomp reads it when numba first loads it, at the
    first parallel kernel; set later, it changes nothing."""
    if "GOMP_SPINCOUNT" not in os.environ and "OMP_WAIT_POLICY" not in os.environ:
        os.environ["GOMP_SPINCOUNT"] = str(SPIN_COUNT)


def available_threads() -> int:
    """The most threads numba can run: the ``NUMBA_NUM_THREADS`` it started with (by default,
    the cores this process may use)."""
    import numba
    return int(numba.config.NUMBA_NUM_THREADS)


def resolve_n_jobs(n_jobs, owner: str = "") -> int:
    """The thread count that ``n_jobs`` means (module docstring); a `validation.ParameterError`
    naming ``owner`` for anything but `N_JOBS`."""
    check_parameter("n_jobs", n_jobs, N_JOBS, owner)
    if n_jobs is None:
        enclosing = _ENCLOSING.get()
        return 1 if enclosing is None else enclosing
    cores = available_threads()
    count = int(n_jobs) if n_jobs > 0 else cores + 1 + int(n_jobs)
    return min(max(count, 1), cores)


@contextlib.contextmanager
def using_threads(n_jobs, owner: str = ""):
    """Run the enclosed kernels on the threads ``n_jobs`` means, then restore numba's setting.
    Inside the block, ``n_jobs=None`` means the block's count. ``owner`` names the caller in
    the error for a bad ``n_jobs``."""
    import numba
    count = resolve_n_jobs(n_jobs, owner)
    previous = numba.get_num_threads()
    token = _ENCLOSING.set(count)
    numba.set_num_threads(count)
    try:
        yield count
    finally:
        numba.set_num_threads(previous)
        _ENCLOSING.reset(token)


def runs_on_n_jobs(method):
    """Decorate an estimator's method so that it runs `using_threads` of the estimator's
    ``n_jobs``."""
    @functools.wraps(method)
    def threaded(self, *args, **kwargs):
        with using_threads(self.n_jobs, type(self).__name__):
            return method(self, *args, **kwargs)
    return threaded
