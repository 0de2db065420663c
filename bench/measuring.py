"""What the bench scripts measure the same way (run as ``python bench/NAME.py``, which puts this
folder on the path): `KernelClock`, the time spent inside chosen kernels, and `peak_mb`, the
peak resident memory of the process (of a fresh child process: `run_child`); where they read
corpora (`CORPORA`) and write results (`write_results`).
"""

from __future__ import annotations

import json
import os
import resource
import shlex
import subprocess
import sys
import time
from pathlib import Path

RESULTS = Path(__file__).parent / "results"
# The shared corpora: the first shared/corpora above this folder (from a worktree or the checkout).
CORPORA = next((parent / "shared" / "corpora" for parent in Path(__file__).resolve().parents
                if (parent / "shared" / "corpora").is_dir()), Path("shared") / "corpora")


def command_line() -> str:
    """How this script was run, to reproduce its results: ``python bench/NAME.py ARGS``."""
    return "python " + shlex.join([f"bench/{Path(sys.argv[0]).name}", *sys.argv[1:]])


def write_results(name: str, payload: dict, heading: str, command: str, table: list[str]) -> None:
    """bench/results/NAME.json (``payload``) and NAME.md: the heading, the command that made it
    (`command_line` for the one running) and the markdown ``table`` (one string a line, notes
    included)."""
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"{name}.json").write_text(json.dumps(payload, indent=2, default=str) + "\n")
    (RESULTS / f"{name}.md").write_text(f"# {heading}\n\nCommand: {command}\n\n"
                                        + "\n".join(table) + "\n")


def run_child(script, *args, stdin=None) -> dict:
    """Run ``python SCRIPT --child ARGS`` in a fresh process (numba threads = 1), so that its
    peak memory and time are its own, and return the JSON object it prints last."""
    output = subprocess.run([sys.executable, str(script), "--child", *map(str, args)],
                            stdin=stdin, check=True, capture_output=True, text=True,
                            env=dict(os.environ, NUMBA_NUM_THREADS="1")).stdout
    return json.loads(output.strip().splitlines()[-1])


def peak_mb() -> float:
    """Peak resident memory of this process so far (VmHWM; ru_maxrss where /proc is absent)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class KernelClock:
    """The time spent inside kernels, added up across calls: each (module, name) is replaced by a
    timing wrapper where the estimator looks the kernel up, so the clock reads kernel time alone,
    beside the wall time of the whole fit.

    Wraps ``getattr(module, name)`` for each (module, name) of ``targets``; ``seconds`` adds
    up the time spent inside them, read by ``clock`` (wall time by default; `time.process_time`
    for CPU seconds of a one-thread run on a shared machine)."""

    def __init__(self, targets, clock=time.perf_counter):
        self.seconds = 0.0
        self.clock = clock
        for module, name in targets:
            setattr(module, name, self._timed(getattr(module, name)))

    def _timed(self, kernel):
        def timed(*args):
            started = self.clock()
            kernel(*args)
            self.seconds += self.clock() - started
        return timed
