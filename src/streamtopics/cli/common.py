"""Small helpers shared by the subcommands: JSON/human output, progress bars, read reports."""

from __future__ import annotations

import json
import sys

import numpy as np
from tqdm.auto import tqdm


def add_json_flag(parser) -> None:
    parser.add_argument("--json", action="store_true", help="print a JSON result on stdout")


def finite_json(value, path: str = "", nulled: list | None = None):
    """``value`` with every non-finite float (inf, nan, which JSON cannot hold: ``Infinity`` is
    not JSON) replaced by None; the dotted paths replaced are appended to ``nulled``."""
    if isinstance(value, dict):
        return {key: finite_json(item, f"{path}.{key}" if path else str(key), nulled)
                for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite_json(item, f"{path}[{i}]", nulled) for i, item in enumerate(value)]
    if isinstance(value, (float, np.floating)) and not np.isfinite(value):
        if nulled is not None:
            nulled.append(path)
        return None
    return value


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
