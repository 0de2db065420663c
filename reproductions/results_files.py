"""Where the reproduction scripts read the shared corpora (`CORPORA`) and how they write their
results (`write_results`: ``reproductions/results/NAME.json`` and ``NAME.md``). Run a script as
``python reproductions/NAME.py``: Python puts this folder on the path.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
# The shared corpora: the first shared/corpora above this folder (from a worktree or a clone).
CORPORA = next((parent / "shared" / "corpora" for parent in HERE.parents
                if (parent / "shared" / "corpora").is_dir()), Path("shared") / "corpora")


def command_line() -> str:
    """How this script was run, to reproduce its results: ``python reproductions/NAME.py
    ARGS``."""
    return "python " + shlex.join([f"reproductions/{Path(sys.argv[0]).name}", *sys.argv[1:]])


def write_results(name: str, payload: dict, heading: str, command: str, table: list[str]) -> None:
    """``RESULTS/NAME.json`` (``payload``) and ``NAME.md``: the heading, the command that made
    it (`command_line` for the one running) and the markdown ``table`` (one string a line,
    notes included)."""
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"{name}.json").write_text(json.dumps(payload, indent=2, default=str) + "\n")
    (RESULTS / f"{name}.md").write_text(f"# {heading}\n\nCommand: {command}\n\n"
                                        + "\n".join(table) + "\n")
