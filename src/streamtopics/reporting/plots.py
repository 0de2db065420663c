"""PNG figures of summaries (`reporting.tables.summarize`): medians as lines, 3rd-7th decile bands.

matplotlib is optional (the ``plot`` extra): `plot_summary` returns None when it is missing and
the caller says so. Figures are drawn with `matplotlib.figure.Figure` directly, never pyplot, so
no global backend or state is touched.
"""

from __future__ import annotations

import math
from pathlib import Path
from collections.abc import Sequence

MISSING_MATPLOTLIB = ("matplotlib is not installed: tables only, no plots "
                      "(install the plot extra: pip install 'streamtopics[plot]')")


def _figure_class():
    """matplotlib's Figure, or None when matplotlib is not importable."""
    try:
        from matplotlib.figure import Figure
    except ImportError:
        return None
    return Figure


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _colors(series: Sequence) -> dict:
    """Numeric series (e.g. K) from light to dark on one hue (the paper's Figures 6-7);
    named series (methods) in distinct colours."""
    from matplotlib import colormaps

    if series and all(_is_number(name) for name in series):
        ordered = sorted(series)
        cmap = colormaps["Blues"]
        span = max(len(ordered) - 1, 1)
        return {name: cmap(0.35 + 0.65 * i / span) for i, name in enumerate(ordered)}
    cmap = colormaps["tab10"]
    return {name: cmap(i % 10) for i, name in enumerate(series)}


def plot_summary(entries: Sequence[dict], path, *, value_name: str, x_label: str, y_label: str,
                 title: str = "", x_log: bool = False, kind: str = "line",
                 series_label: str = "", reference: float | None = None) -> Path | None:
    """Draw the entries of ``value_name``, one subplot per panel, and write a PNG to ``path``.

    ``kind="line"``: for each series the median against x (markers, log x-axis if ``x_log``)
    with a shaded band between the 3rd and the 7th decile; points whose median is not finite
    are left out and listed under the plot. ``kind="bar"``: one bar per series (its median)
    with the 3rd-7th decile as an error bar. ``reference``: a horizontal dashed line (e.g. the
    true model's score on synthetic data). Returns the path, or None without matplotlib.
    """
    Figure = _figure_class()
    if Figure is None:
        return None
    selected = [entry for entry in entries if entry["value_name"] == value_name]
    if not selected:
        raise ValueError(f"no summary entries for {value_name!r}")
    panels = list(dict.fromkeys(entry["panel"] for entry in selected))
    series = list(dict.fromkeys(entry["series"] for entry in selected))
    colors = _colors(series)
    figure = Figure(figsize=(5.2 * len(panels), 4.0), layout="constrained")
    axes = figure.subplots(1, len(panels), squeeze=False)[0]
    left_out = []
    for axis, panel in zip(axes, panels):
        in_panel = [entry for entry in selected if entry["panel"] == panel]
        if kind == "bar":
            _bars(axis, in_panel, series, colors)
        else:
            if reference is not None and math.isfinite(reference):
                axis.axhline(reference, color="gray", linestyle="--", linewidth=1,
                             label="true model")
            left_out += _lines(axis, in_panel, series, colors, panel, series_label)
            if x_log:
                axis.set_xscale("log")
                positions = sorted({entry["x"] for entry in in_panel})
                if len(positions) <= 8:  # label the values themselves (K = 8, 16, 32)
                    axis.set_xticks(positions, [f"{x:g}" for x in positions])
                    axis.minorticks_off()
            axis.set_xlabel(x_label)
        axis.set_ylabel(y_label)
        axis.set_title(str(panel), fontsize=10)
        axis.grid(True, alpha=0.3)
    if title:
        figure.suptitle(title, fontsize=11)
    if left_out:
        # Room at the bottom for the footnote (the constrained layout keeps the rest tidy).
        figure.get_layout_engine().set(rect=(0, 0.07, 1, 0.93))
        figure.text(0.01, 0.01, "not finite (a held-out log-likelihood of -inf), not drawn: "
                    + "; ".join(left_out), fontsize=7, va="bottom", wrap=True)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=90)
    return path


def _lines(axis, entries, series, colors, panel, series_label) -> list[str]:
    left_out = []
    for name in series:
        points = sorted((entry for entry in entries if entry["series"] == name),
                        key=lambda entry: entry["x"])
        if not points:
            continue
        finite = [p for p in points if math.isfinite(p["median"])]
        missing = [p["x"] for p in points if not math.isfinite(p["median"])]
        if missing:
            where = f"x = {missing[0]:g}" if len(missing) == 1 else \
                f"{len(missing)} points, x = {min(missing):g} to {max(missing):g}"
            left_out.append(f"{panel + ', ' if panel else ''}{name}: {where}")
        if not finite:
            continue
        xs = [p["x"] for p in finite]
        label = f"{series_label} = {name}" if series_label else str(name)
        axis.plot(xs, [p["median"] for p in finite], marker="o", markersize=3.5,
                  color=colors[name], label=label)
        low = [p["decile_3"] for p in finite]
        high = [p["decile_7"] for p in finite]
        if all(math.isfinite(v) for v in low + high):
            axis.fill_between(xs, low, high, color=colors[name], alpha=0.2, linewidth=0)
    if axis.get_legend_handles_labels()[0]:
        axis.legend(fontsize=8)
    return left_out


def _bars(axis, entries, series, colors) -> None:
    names = [name for name in series if any(entry["series"] == name for entry in entries)]
    for position, name in enumerate(names):
        entry = next(entry for entry in entries if entry["series"] == name)
        median = entry["median"]
        axis.bar(position, median, color=colors[name])
        if all(math.isfinite(v) for v in (median, entry["decile_3"], entry["decile_7"])):
            axis.errorbar(position, median, yerr=[[median - entry["decile_3"]],
                                                  [entry["decile_7"] - median]],
                          color="black", capsize=4)
    axis.set_xticks(range(len(names)), [str(name) for name in names], rotation=20)
