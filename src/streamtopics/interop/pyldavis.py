"""`to_pyldavis`: the five arguments of ``pyLDAvis.prepare`` from a fitted model and a corpus.

    import pyLDAvis
    vis = pyLDAvis.prepare(**to_pyldavis(model, corpus))
    pyLDAvis.save_html(vis, "vis.html")

``streamtopics export MODEL --format pyldavis --corpus CORPUS -o vis.json`` writes the same
arguments as JSON: ``pyLDAvis.prepare(**json.load(open("vis.json")))``.
"""

from __future__ import annotations

import json

import numpy as np

from ..atomic import atomic_write
from .documents import model_counts


def to_pyldavis(model, documents, doc_topic=None) -> dict:
    """``topic_term_dists`` (K x V, the model's ``components_``, rows renormalised),
    ``doc_topic_dists`` (D x K: ``doc_topic`` if given, else ``model.transform``, rows
    renormalised), ``doc_lengths`` (D tokens), ``vocab`` (V words) and ``term_frequency`` (V
    corpus counts) for ``documents`` (a `Corpus` mapped onto the model's vocabulary, or a
    D x V count matrix)."""
    counts, _ = model_counts(model, documents)
    topics = np.asarray(model.components_, dtype=np.float64)
    proportions = model.transform(counts) if doc_topic is None else doc_topic
    proportions = np.asarray(proportions, dtype=np.float64)
    if proportions.shape != (counts.shape[0], topics.shape[0]):
        raise ValueError(f"doc_topic must be {counts.shape[0]} x {topics.shape[0]}, "
                         f"got {proportions.shape}")
    return {"topic_term_dists": topics / topics.sum(axis=1, keepdims=True),
            "doc_topic_dists": proportions / proportions.sum(axis=1, keepdims=True),
            "doc_lengths": np.asarray(counts.sum(axis=1)).ravel().astype(np.int64),
            "vocab": [str(word) for word in model.vocabulary_],
            "term_frequency": np.asarray(counts.sum(axis=0)).ravel().astype(np.int64)}


def write_pyldavis_json(path, arguments: dict) -> None:
    """Write `to_pyldavis`'s arguments as one JSON object (arrays as nested lists), atomically."""
    plain = {name: value.tolist() if isinstance(value, np.ndarray) else value
             for name, value in arguments.items()}
    text = json.dumps(plain, allow_nan=False).encode("utf-8")
    atomic_write(path, lambda handle: handle.write(text))
