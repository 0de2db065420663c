"""A self-contained HTML page to look at a topic model (``streamtopics report``).

One file, nothing fetched when it opens: CSS, SVG figures and a few lines of JavaScript are
inline. It shows each topic's top words with their probabilities, its alpha_k and prevalence,
the topics' 2-D similarity map (`reporting.topic_map`), per-topic coherence (c_v, NPMI and
UMass on the given corpus, `evaluation.coherence`), the topics' diversity, the training curve
of ``MODEL.eval.jsonl`` when there is one, and each topic's example documents (the largest
proportions of it: id, fields, a snippet of raw text where the corpus is raw text, else words).

    report = build_report(beta, alpha, vocabulary, corpus=corpus, doc_topic=theta)
    write_report("report.html", report)

Every number shown is also an attribute (``data-weight``, ``data-npmi``, ...) so that a program
can read the page back (the tests do). Clicking a topic on the map or in the table selects it
everywhere; the table sorts by any numeric column (header click, or ``#sort=npmi`` in the URL).
"""

from __future__ import annotations

import html
import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..atomic import atomic_write
from ..corpus.corpus import Corpus
from ..errors import InputError
from ..evaluation.coherence import (cv_coherence, npmi_coherence, top_word_ids, topic_diversity,
                                   umass_coherence)
from .examples import ExampleDocument, representative_documents
from .topic_map import separated_circles, topic_map



@dataclass(frozen=True)
class TopicEntry:
    topic: int
    alpha: float
    prevalence: float
    words: list[str]
    weights: list[float]
    x: float
    y: float
    npmi: float | None = None
    umass: float | None = None
    cv: float | None = None
    examples: list[ExampleDocument] = field(default_factory=list)
    name: str = ""


@dataclass(frozen=True)
class CurvePoint:
    """One line of ``MODEL.eval.jsonl``: held-out log-perplexity per document (None when it was
    not finite) after ``documents_seen`` training documents."""

    documents_seen: int
    log_perplexity: float | None
    standard_error: float | None = None


@dataclass(frozen=True)
class ModelReport:
    """What the page shows; ``sections``: further sections as HTML made by the library (e.g.
    `streamtopics.timeline.outputs.timeline_section`), shown after the topics."""

    title: str
    facts: dict[str, str]
    topics: list[TopicEntry]
    curve: list[CurvePoint]
    prevalence_source: str
    coherence_source: str | None
    sections: tuple[str, ...] = ()
    diversity: float | None = None


def read_training_curve(path) -> list[CurvePoint]:
    """The records of a ``MODEL.eval.jsonl`` written by ``streamtopics fit --eval-every``; a
    line that is not such a record is an `InputError` naming the file and line."""
    points = []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
                seen = record["documents_seen"]
                value = record["log_perplexity_per_document"]
                error = record.get("log_perplexity_per_document_se")
            except (ValueError, KeyError, TypeError, AttributeError):
                raise InputError("not an evaluation record (need documents_seen and "
                                 "log_perplexity_per_document)", path, number) from None
            if not isinstance(seen, int) or isinstance(seen, bool) or not (
                    value is None or isinstance(value, (int, float))):
                raise InputError("documents_seen must be an integer and "
                                 "log_perplexity_per_document a number or null", path, number)
            points.append(CurvePoint(seen, None if value is None else float(value),
                                     None if not isinstance(error, (int, float)) else float(error)))
    return points


def build_report(beta, alpha, vocabulary, *, corpus: Corpus | None = None, doc_topic=None,
                 curve: list[CurvePoint] | None = None, n_words: int = 10, n_examples: int = 3,
                 title: str = "Topic model", facts: dict | None = None,
                 texts=None, topic_names=None) -> ModelReport:
    """Everything the page shows, computed from the topics ``beta`` (K x V), ``alpha`` (K), the
    ``vocabulary`` (V words) and optionally a ``corpus`` over the same vocabulary with its
    ``doc_topic`` proportions (D x K) and its documents' raw ``texts`` (D strings or Nones,
    shown in the examples instead of their words); ``topic_names``: K names ("" for none).

    With a corpus: coherence uses it as reference corpus (Mimno et al. intend the training
    corpus), topic prevalence is the share of its tokens, sum_d N_d theta_dk / sum_d N_d (as
    LDAvis), and each topic gets its ``n_examples`` most typical documents. Without one:
    prevalence is alpha_k / sum(alpha), the expected proportion under the prior."""
    beta = np.asarray(beta, dtype=np.float64)
    alpha = np.asarray(alpha, dtype=np.float64)
    vocabulary = np.asarray(vocabulary, dtype=str)
    n_topics, n_vocabulary = beta.shape
    if alpha.shape != (n_topics,) or vocabulary.shape != (n_vocabulary,):
        raise InputError(f"beta is {n_topics} x {n_vocabulary} but alpha has {alpha.size} entries "
                         f"and the vocabulary {vocabulary.size} words")
    n_words = max(1, min(int(n_words), n_vocabulary))
    top = top_word_ids(beta, n_words)
    points = topic_map(beta)
    npmi = umass = cv = examples = None
    prevalence = alpha / alpha.sum()
    prevalence_source = "alpha_k / sum(alpha) (no corpus given)"
    if corpus is not None:
        if corpus.n_words != n_vocabulary:
            raise InputError(f"the corpus has {corpus.n_words} words but the model {n_vocabulary}")
        npmi = npmi_coherence(beta, corpus, n_words)
        umass = umass_coherence(beta, corpus, n_words)
        cv = cv_coherence(beta, corpus, n_words)
        if doc_topic is not None:
            doc_topic = np.asarray(doc_topic, dtype=np.float64)
            if doc_topic.shape != (corpus.n_documents, n_topics):
                raise InputError(f"doc_topic must be {corpus.n_documents} x {n_topics}, "
                                 f"got {doc_topic.shape}")
            lengths = corpus.document_lengths.astype(np.float64)
            if lengths.sum() > 0:
                prevalence = lengths @ doc_topic / lengths.sum()
                prevalence_source = "share of the corpus' tokens, sum_d N_d theta_dk / sum_d N_d"
            examples = representative_documents(corpus, doc_topic, n_examples, texts)
    topics = [TopicEntry(topic=k, alpha=float(alpha[k]), prevalence=float(prevalence[k]),
                         words=[str(vocabulary[w]) for w in top[k]],
                         weights=[float(beta[k, w]) for w in top[k]],
                         x=float(points[k, 0]), y=float(points[k, 1]),
                         npmi=None if npmi is None else float(npmi[k]),
                         umass=None if umass is None else float(umass[k]),
                         cv=None if cv is None else float(cv[k]),
                         examples=[] if examples is None else examples[k],
                         name="" if topic_names is None else str(topic_names[k]))
              for k in range(n_topics)]
    return ModelReport(title=title, facts={str(k): str(v) for k, v in (facts or {}).items()},
                       topics=topics, curve=list(curve or []), prevalence_source=prevalence_source,
                       diversity=topic_diversity(beta)[0],
                       coherence_source=None if corpus is None else f"{corpus.n_documents} "
                       f"documents of the corpus, top {n_words} words")


# --- rendering -------------------------------------------------------------------------------------
_STYLE = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;margin:0;
color:#1d2430;background:#f6f7f9}
header{background:#24364f;color:#fff;padding:14px 24px}header h1{margin:0;font-size:20px}
header dl{display:flex;flex-wrap:wrap;gap:4px 18px;margin:6px 0 0}header dt{opacity:.7}
header dd{margin:0 0 0 4px;font-weight:600}header div{display:flex}
main{padding:16px 24px;display:grid;grid-template-columns:minmax(320px,1fr) minmax(320px,1fr);gap:16px}
section{background:#fff;border:1px solid #dde1e7;border-radius:6px;padding:12px 16px;min-width:0}
section.wide{grid-column:1/-1}h2{font-size:16px;margin:0 0 8px}
p.note{color:#5b6575;font-size:12px;margin:4px 0}
svg{width:100%;height:auto;display:block}svg text{font-size:11px;fill:#1d2430}
circle.topic{fill:#4a78b5;fill-opacity:.55;stroke:#24364f;cursor:pointer}
circle.topic.selected{fill:#e0762b;fill-opacity:.85}
table{border-collapse:collapse;width:100%}th,td{padding:4px 6px;border-bottom:1px solid #e6e9ee;
text-align:left;vertical-align:top}th[data-sort]{cursor:pointer;white-space:nowrap}
th[data-sort]:after{content:" \\2195";opacity:.4}td.num{text-align:right;font-variant-numeric:tabular-nums}
tr.topic{cursor:pointer}tr.topic.selected{background:#fdf0e6}
span.word{display:inline-block;margin:1px 6px 1px 0;padding:0 3px;border-radius:3px;
background:linear-gradient(90deg,#cfe0f5 var(--w),transparent var(--w))}
div.examples{display:grid;grid-template-columns:repeat(auto-fill,minmax(300px,1fr));gap:10px}
article.topic{border:1px solid #e6e9ee;border-radius:4px;padding:6px 10px}
article.topic.selected{border-color:#e0762b}article h3{font-size:14px;margin:0 0 4px}
blockquote{margin:4px 0;padding:2px 8px;border-left:3px solid #cfe0f5;color:#3a4556;font-size:12px}
"""

_SCRIPT = """
(function () {
  function select(topic) {
    document.querySelectorAll('.selected').forEach(function (e) { e.classList.remove('selected'); });
    document.querySelectorAll('[data-topic="' + topic + '"]').forEach(function (e) {
      e.classList.add('selected'); });
  }
  document.querySelectorAll('[data-topic]').forEach(function (e) {
    e.addEventListener('click', function () { select(e.getAttribute('data-topic')); });
  });
  var body = document.querySelector('table.topics tbody');
  function sortBy(key, descending) {
    var rows = Array.prototype.slice.call(body.querySelectorAll('tr.topic'));
    rows.sort(function (a, b) {
      var x = parseFloat(a.getAttribute('data-' + key)), y = parseFloat(b.getAttribute('data-' + key));
      x = isNaN(x) ? -Infinity : x; y = isNaN(y) ? -Infinity : y;
      return descending ? y - x || a.rowIndex - b.rowIndex : x - y || a.rowIndex - b.rowIndex;
    });
    rows.forEach(function (row) { body.appendChild(row); });
    document.documentElement.setAttribute('data-sorted', key);
  }
  document.querySelectorAll('th[data-sort]').forEach(function (th) {
    th.addEventListener('click', function () {
      var key = th.getAttribute('data-sort');
      var descending = document.documentElement.getAttribute('data-sorted') !== key + ':desc';
      sortBy(key, descending);
      document.documentElement.setAttribute('data-sorted', key + (descending ? ':desc' : ''));
    });
  });
  var match = /^#sort=([a-z]+)$/.exec(window.location.hash);
  if (match && document.querySelector('th[data-sort="' + match[1] + '"]')) {
    sortBy(match[1], true);
  }
  document.documentElement.setAttribute('data-ready', 'yes');
})();
"""


def _number(value: float | None, digits: int = 4) -> str:
    return "n/a" if value is None or not math.isfinite(value) else f"{value:.{digits}g}"


def _attribute(value: float | None) -> str:
    return "" if value is None or not math.isfinite(value) else repr(float(value))


def _map_svg(topics: list[TopicEntry]) -> str:
    """Circles at the topics' MDS coordinates, area proportional to prevalence, nudged apart
    where they would overlap (`_separated`)."""
    width, height, pad = 480.0, 360.0, 46.0
    xs = np.array([t.x for t in topics])
    ys = np.array([t.y for t in topics])
    span = max(np.ptp(xs), np.ptp(ys), 1e-12)
    scale = min(width - 2 * pad, height - 2 * pad) / span
    largest = max(t.prevalence for t in topics) or 1.0
    radii = np.array([5.0 + 30.0 * math.sqrt(max(t.prevalence, 0.0) / largest) for t in topics])
    # A map crowded with topics shrinks its circles so that they fit beside each other.
    radii *= min(1.0, math.sqrt(0.35 * width * height / (math.pi * float(np.sum(radii ** 2)))))
    centres = np.column_stack([width / 2 + (xs - (xs.max() + xs.min()) / 2) * scale,
                               height / 2 - (ys - (ys.max() + ys.min()) / 2) * scale])
    centres = separated_circles(centres, radii, (width, height))
    parts = [f'<svg class="map" viewBox="0 0 {width:g} {height:g}" role="img" '
             f'aria-label="topic similarity map">',
             f'<rect x="0" y="0" width="{width:g}" height="{height:g}" fill="#fbfcfd"/>']
    for i in sorted(range(len(topics)), key=lambda i: -topics[i].prevalence):  # small on top
        t, (cx, cy), radius = topics[i], centres[i], radii[i]
        label = html.escape(f"topic {t.topic}{f' ({t.name})' if t.name else ''}: "
                            f"{' '.join(t.words[:5])} "
                            f"(prevalence {_number(t.prevalence, 3)})")
        parts.append(f'<circle class="topic" data-topic="{t.topic}" cx="{cx:.2f}" cy="{cy:.2f}" '
                     f'r="{radius:.2f}"><title>{label}</title></circle>'
                     f'<text x="{cx:.2f}" y="{cy + 4:.2f}" text-anchor="middle" '
                     f'pointer-events="none">{t.topic}</text>')
    parts.append("</svg>")
    return "".join(parts)


def _curve_svg(curve: list[CurvePoint]) -> str:
    """Held-out log-perplexity per document against documents seen (points and a line)."""
    finite = [p for p in curve if p.log_perplexity is not None and math.isfinite(p.log_perplexity)]
    if not finite:
        return '<p class="note">no finite evaluation in the training curve</p>'
    width, height, left, right, top, bottom = 480.0, 300.0, 64.0, 16.0, 14.0, 40.0
    xs = np.array([p.documents_seen for p in finite], dtype=np.float64)
    ys = np.array([p.log_perplexity for p in finite])
    x_low, x_high = xs.min(), max(xs.max(), xs.min() + 1)
    y_low, y_high = ys.min(), max(ys.max(), ys.min() + 1e-9)
    y_pad = 0.05 * (y_high - y_low) or 1.0
    y_low, y_high = y_low - y_pad, y_high + y_pad

    def position(x, y):
        return (left + (x - x_low) / (x_high - x_low) * (width - left - right),
                top + (y_high - y) / (y_high - y_low) * (height - top - bottom))

    coordinates = [position(x, y) for x, y in zip(xs, ys)]
    parts = [f'<svg class="curve" viewBox="0 0 {width:g} {height:g}" role="img" '
             f'aria-label="training curve">',
             f'<line x1="{left}" y1="{height - bottom}" x2="{width - right}" y2="{height - bottom}" '
             f'stroke="#889"/><line x1="{left}" y1="{top}" x2="{left}" y2="{height - bottom}" '
             f'stroke="#889"/>',
             f'<polyline fill="none" stroke="#4a78b5" stroke-width="2" points="'
             + " ".join(f"{x:.2f},{y:.2f}" for x, y in coordinates) + '"/>']
    for (cx, cy), point in zip(coordinates, finite):
        parts.append(f'<circle class="point" data-documents="{point.documents_seen}" '
                     f'data-value="{point.log_perplexity!r}" cx="{cx:.2f}" cy="{cy:.2f}" r="3" '
                     f'fill="#24364f"><title>{point.documents_seen} documents: '
                     f'{_number(point.log_perplexity, 6)}</title></circle>')
    for value in (y_low + y_pad, y_high - y_pad):
        _, y = position(x_low, value)
        parts.append(f'<text x="{left - 6}" y="{y + 4:.2f}" text-anchor="end">{_number(value, 5)}</text>')
    for value in (x_low, x_high):
        x, _ = position(value, y_low)
        parts.append(f'<text x="{x:.2f}" y="{height - bottom + 16}" text-anchor="middle">'
                     f'{int(value)}</text>')
    parts.append(f'<text x="{(left + width - right) / 2}" y="{height - 6}" text-anchor="middle">'
                 f'training documents seen</text>')
    parts.append(f'<text transform="translate(14 {(top + height - bottom) / 2}) rotate(-90)" '
                 f'text-anchor="middle">log-perplexity per document (lower is better)</text>')
    parts.append("</svg>")
    return "".join(parts)


def _topic_rows(report: ModelReport) -> str:
    rows = []
    for t in report.topics:
        largest = max(t.weights) or 1.0
        words = "".join(f'<span class="word" data-weight="{w!r}" style="--w:{100 * w / largest:.1f}%" '
                        f'title="{w:.4g}">{html.escape(word)}</span>'
                        for word, w in zip(t.words, t.weights))
        rows.append(
            f'<tr class="topic" id="topic-{t.topic}" data-topic="{t.topic}" '
            f'data-alpha="{_attribute(t.alpha)}" data-prevalence="{_attribute(t.prevalence)}" '
            f'data-npmi="{_attribute(t.npmi)}" data-umass="{_attribute(t.umass)}" '
            f'data-cv="{_attribute(t.cv)}">'
            f'<td class="num">{t.topic}</td><td class="num">{_number(t.prevalence, 3)}</td>'
            f'<td class="num">{_number(t.alpha, 3)}</td><td class="num">{_number(t.cv, 3)}</td>'
            f'<td class="num">{_number(t.npmi, 3)}</td>'
            f'<td class="num">{_number(t.umass, 4)}</td><td>'
            + (f'<b class="name">{html.escape(t.name)}</b> ' if t.name else "")
            + f'{words}</td></tr>')
    return "".join(rows)


def _fields_html(fields: dict) -> str:
    """A document's metadata fields after its id: `` · id e83c5163 · date 2005-04-07``."""
    return "".join(f' &middot; <span class="field" data-field="{html.escape(str(name))}">'
                   f'{html.escape(str(name))} {html.escape(str(value))}</span>'
                   for name, value in fields.items())


def _examples_html(report: ModelReport) -> str:
    cards = []
    for t in report.topics:
        quotes = "".join(f'<blockquote class="example" data-document="{html.escape(e.document_id)}" '
                         f'data-proportion="{e.proportion!r}"><b>document '
                         f'{html.escape(e.document_id)}</b>{_fields_html(e.fields)} '
                         f'({100 * e.proportion:.0f}%): '
                         f'{html.escape(e.text)}</blockquote>' for e in t.examples)
        cards.append(f'<article class="topic" data-topic="{t.topic}"><h3>topic {t.topic}'
                     f'{html.escape(f" ({t.name})" if t.name else "")}: '
                     f'{html.escape(" ".join(t.words[:5]))}</h3>'
                     f'{quotes}</article>')
    return "".join(cards)


def render_html(report: ModelReport) -> str:
    """The page as one string (UTF-8 text; no external resource)."""
    facts = "".join(f"<div><dt>{html.escape(k)}</dt><dd>{html.escape(v)}</dd></div>"
                    for k, v in report.facts.items())
    coherence_note = (f"Coherence on {html.escape(report.coherence_source)}: c_v in [-1, 1] "
                      f"(R&ouml;der et al. 2015, sliding windows of 110 tokens, as gensim), "
                      f"NPMI in [-1, 1] (Bouma 2009), UMass &le; 0 (Mimno et al. 2011); higher "
                      f"is better." if report.coherence_source else
                      "No corpus given: coherence and example documents need one.")
    coherence_note += (f" Topic diversity: {report.diversity:.3f} (share of unique words among "
                       f"the top 25 of every topic, Dieng et al. 2020)."
                       if report.diversity is not None else "")
    sections = [
        '<section><h2>Topic similarity map</h2>' + _map_svg(report.topics)
        + '<p class="note">Classical MDS of the Jensen-Shannon distances between topics; circle '
          f'area: prevalence ({html.escape(report.prevalence_source)}). Click a topic.</p></section>',
        '<section><h2>Training curve</h2>'
        + (_curve_svg(report.curve) if report.curve else
           '<p class="note">No training curve: train with <code>streamtopics fit --eval-every N'
           '</code> to write MODEL.eval.jsonl.</p>') + '</section>',
        '<section class="wide"><h2>Topics</h2><table class="topics"><thead><tr>'
        '<th data-sort="topic">topic</th><th data-sort="prevalence">prevalence</th>'
        '<th data-sort="alpha">alpha</th><th data-sort="cv">c_v</th><th data-sort="npmi">NPMI</th>'
        '<th data-sort="umass">UMass</th><th>top words (bar: probability relative to the '
        'first)</th></tr></thead><tbody>' + _topic_rows(report) + '</tbody></table>'
        f'<p class="note">{coherence_note}</p></section>',
        *report.sections,
    ]
    if any(t.examples for t in report.topics):
        sections.append('<section class="wide"><h2>Example documents</h2><p class="note">The '
                        'documents with the largest proportion of each topic.</p>'
                        '<div class="examples">' + _examples_html(report) + '</div></section>')
    title = html.escape(report.title)
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{title}</title><style>{_STYLE}</style></head><body>"
            f"<header><h1>{title}</h1><dl>{facts}</dl></header><main>{''.join(sections)}</main>"
            f"<script>{_SCRIPT}</script></body></html>\n")


def write_report(path, report: ModelReport) -> Path:
    """Write the page to ``path`` atomically; returns the path."""
    page = render_html(report).encode("utf-8")
    atomic_write(path, lambda handle: handle.write(page))
    return Path(path)
