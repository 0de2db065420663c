"""Small helpers shared by the subcommands: JSON/human output, progress bars, read reports."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tqdm.auto import tqdm

from ..errors import InputError
from ..reporting.strict_json import finite_json


def positive_int(text: str) -> int:
    """An argparse type: an integer >= 1 (argparse reports anything else as invalid)."""
    value = int(text)
    if value < 1:
        raise ValueError(text)
    return value


def existing_parent(path) -> Path:
    """``path`` as a Path whose directory exists, else an `InputError` naming the directory
    (checked before any work, so a typo does not cost a whole run)."""
    path = Path(path)
    if not path.parent.is_dir():
        raise InputError("the output's directory does not exist", path.parent)
    return path


def add_json_flag(parser) -> None:
    parser.add_argument("--json", action="store_true", help="print a JSON result on stdout")


def emit(args, result: dict, human: str) -> None:
    """Print ``result`` as JSON when ``--json`` was given, else the human text. Non-finite
    numbers become null and ``non_finite`` lists them (strict JSON, as ``jq`` expects)."""
    if getattr(args, "json", False):
        nulled: list[str] = []
        result = finite_json(result, nulled=nulled)
        if nulled:
            result["non_finite"] = {"fields": nulled[:20],
                                    "reason": result.get("non_finite_reason",
                                                         "the value is infinite or not a number")}
        json.dump(result, sys.stdout, indent=2, sort_keys=True, default=float, allow_nan=False)
        sys.stdout.write("\n")
    else:
        print(human)


def progress(total=None, desc: str = "", unit: str = "doc", disable: bool | None = None):
    """A tqdm bar on stderr; hidden automatically when it would last under a second."""
    return tqdm(total=total, desc=desc, unit=unit, file=sys.stderr, mininterval=0.5,
                delay=1.0, disable=disable, dynamic_ncols=True)


def report_reading(report) -> None:
    """Tell the user on stderr what a reader kept and skipped (nothing is dropped silently)."""
    if report is not None:
        print(report.summary(), file=sys.stderr)
