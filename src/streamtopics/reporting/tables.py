"""Summaries over replicates and their markdown tables, as the papers present results.

Dupuy & Bach (2016, section 5.1 and appendices D-E) run every setting on several train/test
splits and show the median as a line and the band between the third and the seventh decile.
`summarize` computes exactly those three numbers (NumPy's default linear interpolation between
order statistics) for every group of points; `markdown_table` prints them as
``median [3rd decile, 7th decile]``.

A point is a plain dict with the keys ``panel``, ``series``, ``x``, ``value_name`` and ``value``
(one replicate's number); a summary entry replaces ``value`` by ``n``, ``median``,
``decile_3`` and ``decile_7``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import numpy as np

GROUP_KEYS = ("panel", "series", "x", "value_name")


def _quantile(ordered: np.ndarray, q: float) -> float:
    """NumPy's default (linear) quantile of sorted values, exact with infinities (where
    ``a + t (inf - a)`` would be NaN for t = 0)."""
    position = q * (ordered.size - 1)
    index = int(math.floor(position))
    low, high = ordered[index], ordered[min(index + 1, ordered.size - 1)]
    fraction = position - index
    return float(low if fraction == 0 or low == high else low + fraction * (high - low))


def decile_summary(values: Sequence[float]) -> dict:
    """n, median, 3rd and 7th decile of ``values`` (an infinite value counts as the largest or
    smallest; a NaN makes every figure NaN)."""
    array = np.asarray(values, dtype=np.float64)
    if array.size == 0:
        raise ValueError("no values to summarise")
    if np.any(np.isnan(array)):
        return {"n": int(array.size), "median": math.nan, "decile_3": math.nan,
                "decile_7": math.nan}
    ordered = np.sort(array)
    return {"n": int(array.size), "median": _quantile(ordered, 0.5),
            "decile_3": _quantile(ordered, 0.3), "decile_7": _quantile(ordered, 0.7)}


def summarize(points: Iterable[dict]) -> list[dict]:
    """One entry per (panel, series, x, value_name) group, in order of first appearance."""
    groups: dict[tuple, list[float]] = {}
    for point in points:
        groups.setdefault(tuple(point[key] for key in GROUP_KEYS), []).append(point["value"])
    return [{**dict(zip(GROUP_KEYS, key)), **decile_summary(values)}
            for key, values in groups.items()]


def format_spread(entry: dict, digits: int = 2) -> str:
    """``median [d3, d7]`` with ``digits`` decimals."""
    return (f"{_number(entry['median'], digits)} "
            f"[{_number(entry['decile_3'], digits)}, {_number(entry['decile_7'], digits)}]")


def _number(value: float, digits: int) -> str:
    return f"{value:.{digits}f}" if math.isfinite(value) else str(value)


def _label(value) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def markdown_table(entries: Sequence[dict], row_key: str = "series", column_key: str = "x",
                   row_title: str = "", column_title: str = "", digits: int = 2) -> str:
    """A markdown table of ``median [d3, d7]``: rows are the distinct values of ``row_key``,
    columns those of ``column_key`` (both in order of first appearance); a missing combination
    is left empty. ``entries`` should share one panel and one value_name."""
    rows = list(dict.fromkeys(entry[row_key] for entry in entries))
    columns = list(dict.fromkeys(entry[column_key] for entry in entries))
    cells = {(entry[row_key], entry[column_key]): format_spread(entry, digits) for entry in entries}
    corner = f"{row_title} \\ {column_title}" if row_title and column_title else row_title
    header = [corner] + [_label(column) for column in columns]
    lines = ["| " + " | ".join(header) + " |",
             "|" + "|".join(["---"] + ["---:"] * len(columns)) + "|"]
    for row in rows:
        values = [cells.get((row, column), "") for column in columns]
        lines.append("| " + " | ".join([_label(row)] + values) + " |")
    return "\n".join(lines)
