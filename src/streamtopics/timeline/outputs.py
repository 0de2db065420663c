"""A timeline's files: ``prevalence.csv``, ``topics.jsonl``, the model file with its periods, and
the figures (an inline-SVG stacked area of the prevalence and each topic's top words through
time) as a self-contained HTML page or a section of ``streamtopics report``.

- ``prevalence.csv``: a header row, one row per period: the period's label, ``documents``,
  then ``topic_0`` .. ``topic_{K-1}`` (the prevalence pi_tk).
- ``topics.jsonl``: one line per period and topic: ``period``, ``topic``, ``prevalence``,
  ``tokens`` (n_tk), ``distance`` (Hellinger from the topic as a whole), ``words`` and
  ``weights`` (the top words of the topic as the period uses it).
- The model file (`save_timeline_model`): the fitted model as ``streamtopics fit`` writes it
  (any command reads it), plus the metadata entry ``timeline`` (``time_field``, ``period``,
  ``periods``: label, documents, first and last time of each, ``prior_tokens``) and the arrays
  ``timeline_prevalence`` and ``timeline_tokens`` (P x K). A tracking run (`tracking`) adds its
  topics at the periods' ends, ``timeline_snapshots`` (P x K x V) and their alphas
  ``timeline_snapshot_alphas`` (P x K), the entry's ``snapshots`` listing their periods and
  ``step_floor`` its floor (``snapshots`` is empty for a model fitted once).
"""

from __future__ import annotations

import csv
import html
import io
import json

import numpy as np

from ..atomic import atomic_write
from ..corpus.time import iso
from ..persistence import load_model, save_model
from .over_time import TopicsOverTime
from .tracking import TrackedTopics

PALETTE = ("#4a78b5", "#e0762b", "#5aa469", "#c8504b", "#8b6bb8", "#8c6d4f", "#d57fbf",
           "#7f7f7f", "#b5b53a", "#3fb2c4")


def write_prevalence_csv(path, result: TopicsOverTime) -> None:
    """``prevalence.csv`` (module docstring)."""
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    n_topics = result.prevalence.shape[1]
    writer.writerow(["period", "documents"] + [f"topic_{k}" for k in range(n_topics)])
    for t, label in enumerate(result.labels):
        writer.writerow([label, int(result.periods.counts[t])]
                        + [f"{p:.6g}" for p in result.prevalence[t]])
    data = text.getvalue().encode("utf-8")
    atomic_write(path, lambda handle: handle.write(data))


def write_topics_jsonl(path, result: TopicsOverTime, n_words: int = 10) -> None:
    """``topics.jsonl`` (module docstring)."""
    data = "".join(json.dumps(row) + "\n" for row in result.topic_rows(n_words)).encode("utf-8")
    atomic_write(path, lambda handle: handle.write(data))


def timeline_metadata(result: TopicsOverTime, times, time_field: str | None,
                      tracked: TrackedTopics | None = None) -> dict:
    """The model file's ``timeline`` entry for ``result`` over documents dated ``times``."""
    periods = []
    for t, label in enumerate(result.labels):
        inside = times[result.periods.index == t]
        periods.append({"label": label, "documents": int(result.periods.counts[t]),
                        "first": iso(inside.min()), "last": iso(inside.max())})
    entry = {"time_field": time_field, "period": result.periods.spec, "periods": periods,
             "prior_tokens": result.prior_tokens, "snapshots": []}
    if tracked is not None:
        entry.update(snapshots=list(tracked.labels), step_floor=tracked.step_floor)
    return entry


def save_timeline_model(path, model, result: TopicsOverTime, times,
                        time_field: str | None = None,
                        tracked: TrackedTopics | None = None) -> None:
    """Write ``model`` with its timeline (module docstring) to ``path``; with ``tracked``, its
    snapshots too."""
    arrays, metadata = model.model_file_contents()
    arrays.update(timeline_prevalence=result.prevalence, timeline_tokens=result.tokens)
    if tracked is not None:
        arrays.update(timeline_snapshots=tracked.snapshots,
                      timeline_snapshot_alphas=tracked.alphas)
    metadata["timeline"] = timeline_metadata(result, times, time_field, tracked)
    save_model(path, arrays, metadata)


def read_timeline(path) -> tuple[dict, dict[str, np.ndarray]] | None:
    """The ``timeline`` entry and arrays of a model file, or None when it has none."""
    arrays, metadata = load_model(path)
    if "timeline" not in metadata:
        return None
    return metadata["timeline"], {name: array for name, array in arrays.items()
                                  if name.startswith("timeline_")}


# --- figures --------------------------------------------------------------------------------------
def _colour(topic: int) -> str:
    return PALETTE[topic % len(PALETTE)]


def prevalence_svg(result: TopicsOverTime, n_words: int = 3) -> str:
    """The prevalence as a stacked area: periods across, topics stacked (topic 0 at the
    bottom), each area titled with its topic's top words."""
    width, height, left, bottom, top = 760, 300, 40, 40, 10
    n_periods, n_topics = result.prevalence.shape
    xs = (left + (width - left - 10) * (np.arange(n_periods) / max(n_periods - 1, 1))
          if n_periods > 1 else np.array([left, width - 10.0]))
    shares = result.prevalence if n_periods > 1 else np.repeat(result.prevalence, 2, axis=0)
    stacked = np.vstack([np.zeros(shares.shape[0]), np.cumsum(shares, axis=1).T])

    def y(value):
        return top + (height - top - bottom) * (1 - value)

    parts = [f'<svg class="timeline" viewBox="0 0 {width} {height}" role="img" '
             f'aria-label="topic prevalence through time">']
    for k in range(n_topics):
        upper = " ".join(f"{x:.1f},{y(v):.1f}" for x, v in zip(xs, stacked[k + 1]))
        lower = " ".join(f"{x:.1f},{y(v):.1f}" for x, v in zip(xs[::-1], stacked[k][::-1]))
        words = " ".join(html.escape(str(w))
                         for w in result.vocabulary[np.argsort(-result.topics[k])[:n_words]])
        parts.append(f'<polygon class="area" data-topic="{k}" points="{upper} {lower}" '
                     f'fill="{_colour(k)}" fill-opacity="0.8" stroke="#fff" stroke-width="0.5">'
                     f'<title>topic {k}: {words}</title></polygon>')
    step = max(1, n_periods // 12)
    for t in range(0, n_periods, step):
        x = xs[t] if n_periods > 1 else (xs[0] + xs[1]) / 2
        parts.append(f'<text x="{x:.1f}" y="{height - bottom + 16}" text-anchor="middle">'
                     f'{html.escape(result.labels[t])}</text>')
    for value in (0.0, 0.5, 1.0):
        parts.append(f'<text x="{left - 4}" y="{y(value) + 4:.1f}" text-anchor="end">'
                     f'{value:g}</text>')
    parts.append("</svg>")
    return "".join(parts)


def words_through_time_html(result: TopicsOverTime, n_words: int = 5) -> str:
    """A table, one row per topic and one column per period, each cell the top ``n_words``
    of the topic as the period uses it; words outside the topic's overall top 10 in bold."""
    n_topics = result.topics.shape[0]
    head = "".join(f"<th>{html.escape(label)}</th>" for label in result.labels)
    rows = []
    for k in range(n_topics):
        overall = set(result.vocabulary[np.argsort(-result.topics[k])[:10]].tolist())
        cells = []
        for t in range(len(result.labels)):
            words = " ".join((f"<b>{html.escape(w)}</b>" if w not in overall else html.escape(w))
                             for w, _ in result.top_words(t, k, n_words))
            cells.append(f'<td data-period="{html.escape(result.labels[t])}" '
                         f'data-prevalence="{result.prevalence[t, k]!r}">{words}</td>')
        rows.append(f'<tr data-topic="{k}"><th style="border-left:6px solid {_colour(k)}">'
                    f'{k}</th>{"".join(cells)}</tr>')
    return (f'<div style="overflow-x:auto"><table class="timeline-words"><thead><tr><th>topic'
            f'</th>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table></div>')


def timeline_section(result: TopicsOverTime) -> str:
    """The timeline as one HTML ``section`` (the report's and the timeline page's)."""
    return ('<section class="wide timeline"><h2>Topics through time</h2>'
            + prevalence_svg(result)
            + f'<p class="note">Prevalence: the mean of each period\'s documents\' topic '
              f'proportions ({len(result.labels)} periods, {result.periods.spec}). Below: each '
              f'topic\'s top words as the period uses it (its share of the E-step statistics, '
              f'smoothed by {result.prior_tokens:g} pseudo-tokens of the topic); bold: words '
              f'outside the topic\'s overall top 10.</p>'
            + words_through_time_html(result) + "</section>")


def write_timeline_page(path, result: TopicsOverTime, title: str = "Topics through time") -> None:
    """``timeline.html``: the `timeline_section` as a self-contained page."""
    page = ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{html.escape(title)}</title><style>body{{font:14px/1.45 system-ui,sans-serif;"
            "margin:16px 24px;color:#1d2430}svg{width:100%;max-width:900px;height:auto}"
            "svg text{font-size:11px}table{border-collapse:collapse}td,th{padding:3px 6px;"
            "border-bottom:1px solid #e6e9ee;text-align:left;vertical-align:top;font-size:12px}"
            "p.note{color:#5b6575;font-size:12px}</style></head><body>"
            f"<h1>{html.escape(title)}</h1>{timeline_section(result)}</body></html>\n")
    data = page.encode("utf-8")
    atomic_write(path, lambda handle: handle.write(data))
