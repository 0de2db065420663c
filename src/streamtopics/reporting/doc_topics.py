"""Per-document topic proportions as files: CSV, JSON lines or ``.npz`` (``streamtopics
transform -o``).

Every format carries the document ids (`corpus.corpus.document_ids`: the corpus' own 1-based
ids), the documents' own metadata fields (`corpus.corpus.document_fields`: the user's ``id``,
``date``, ``time``, ``label``, ... as columns after ``document``), the dominant topic (largest
proportion; ties: lowest topic) and either all K proportions or, with ``top``, the ``top``
largest as (topic, proportion) pairs, largest first.

- CSV: a header line, then one row per document:
  ``document,id,date,...,dominant_topic,topic_0,...`` or
  ``document,...,dominant_topic,top1_topic,top1_proportion,...`` (a missing field is empty).
- JSON lines: ``{"document": ..., "id": ..., "dominant_topic": k, "proportions": [...]}`` or
  ``"top": [[k, p], ...]``.
- ``.npz``: ``document`` (ids as strings), each field (as strings, missing ones empty),
  ``dominant_topic`` (D), ``proportions`` (D x K) or ``top_topics`` and ``top_proportions``
  (D x top); no pickle.
"""

from __future__ import annotations

import csv
import io
import json

import numpy as np

from ..atomic import atomic_write
from ..errors import InputError

FORMATS = ("csv", "jsonl", "npz")
OUTPUT_COLUMNS = ("document", "dominant_topic", "proportions", "top", "top_topics",
                  "top_proportions")
"""Names the outputs use themselves: a metadata field of one of these names is not carried."""
SUFFIXES = {".csv": "csv", ".jsonl": "jsonl", ".npz": "npz"}


def output_format(path, chosen: str | None) -> str:
    """``chosen``, or the format the suffix of ``path`` names; else an `InputError`."""
    if chosen is not None:
        return chosen
    suffix = "".join(path.suffixes[-1:]).lower()
    if suffix not in SUFFIXES:
        raise InputError(f"cannot tell the format from the suffix {suffix or '(none)'!r}: use "
                         f"--format {'|'.join(FORMATS)} or a .csv, .jsonl or .npz name", path)
    return SUFFIXES[suffix]


def ranked_topics(proportions: np.ndarray, top: int) -> np.ndarray:
    """(D, top) topic ids by decreasing proportion (ties: lower topic first)."""
    return np.argsort(-proportions, axis=1, kind="stable")[:, :top]


def write_doc_topics(path, proportions, ids, format: str, top: int | None = None,
                     fields: dict[str, list] | None = None) -> None:
    """Write ``proportions`` (D x K) of the documents ``ids`` to ``path`` in ``format``, with
    their metadata ``fields`` (name -> D values, `corpus.corpus.document_fields`)."""
    fields = {name: values for name, values in (fields or {}).items()
              if name not in OUTPUT_COLUMNS}
    proportions = np.asarray(proportions, dtype=np.float64)
    n_topics = proportions.shape[1]
    dominant = ranked_topics(proportions, 1)[:, 0]
    order = None if top is None else ranked_topics(proportions, min(top, n_topics))
    if format == "npz":
        arrays = {"document": np.asarray([str(i) for i in ids], dtype=str),
                  **{name: np.asarray(["" if v is None else str(v) for v in values], dtype=str)
                     for name, values in fields.items()},
                  "dominant_topic": dominant}
        if order is None:
            arrays["proportions"] = proportions
        else:
            arrays["top_topics"] = order
            arrays["top_proportions"] = np.take_along_axis(proportions, order, axis=1)
        atomic_write(path, lambda handle: np.savez(handle, **arrays))
        return
    text = io.StringIO()
    if format == "csv":
        writer = csv.writer(text, lineterminator="\n")
        if order is None:
            writer.writerow(["document", *fields, "dominant_topic"]
                            + [f"topic_{k}" for k in range(n_topics)])
        else:
            writer.writerow(["document", *fields, "dominant_topic"] + [
                f"top{r}_{what}" for r in range(1, order.shape[1] + 1) for what in ("topic", "proportion")])
        for d, document in enumerate(ids):
            values = ([f"{p:.6g}" for p in proportions[d]] if order is None else
                      [v for k in order[d] for v in (str(k), f"{proportions[d, k]:.6g}")])
            own = ["" if column[d] is None else column[d] for column in fields.values()]
            writer.writerow([document, *own, int(dominant[d])] + values)
    elif format == "jsonl":
        for d, document in enumerate(ids):
            record = {"document": document,
                      **{name: values[d] for name, values in fields.items()},
                      "dominant_topic": int(dominant[d])}
            if order is None:
                record["proportions"] = [float(p) for p in proportions[d]]
            else:
                record["top"] = [[int(k), float(proportions[d, k])] for k in order[d]]
            text.write(json.dumps(record) + "\n")
    else:
        raise InputError(f"unknown format {format!r} (one of {', '.join(FORMATS)})")
    data = text.getvalue().encode("utf-8")
    atomic_write(path, lambda handle: handle.write(data))
