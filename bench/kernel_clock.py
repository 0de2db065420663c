"""`KernelClock`: the time a benchmark spends inside chosen kernels, added up across calls.

Each (module, name) is replaced by a timing wrapper where the estimator looks the kernel up, so
what the clock reads is kernel time alone, beside the wall time of the whole fit. Shared by the
bench scripts (run as ``python bench/NAME.py``, which puts this folder on the path)."""

from __future__ import annotations

import time


class KernelClock:
    """Wraps ``getattr(module, name)`` for each (module, name) of ``targets``; ``seconds`` adds
    up the time spent inside them."""

    def __init__(self, targets):
        self.seconds = 0.0
        for module, name in targets:
            setattr(module, name, self._timed(getattr(module, name)))

    def _timed(self, kernel):
        def timed(*args):
            started = time.perf_counter()
            kernel(*args)
            self.seconds += time.perf_counter() - started
        return timed
