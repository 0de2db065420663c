"""`doc_topic_frame`: a pandas DataFrame of documents' topic proportions."""

from __future__ import annotations

import numpy as np

from ..corpus.corpus import Corpus, document_fields
from .documents import model_counts


def doc_topic_frame(model, documents, doc_topic=None):
    """One row per document (index ``document``: the corpus' own ids, 1-based), columns the
    documents' own metadata fields of a `Corpus` (``id``, ``date``, ``time``, ...:
    `corpus.corpus.document_fields`), ``topic_0`` .. ``topic_{K-1}`` (proportions from
    ``model.transform`` unless ``doc_topic`` is given), ``dominant_topic`` (largest
    proportion; ties: lowest topic) and ``length`` (tokens of the document over the model's
    vocabulary). Needs pandas."""
    import pandas as pd

    counts, ids = model_counts(model, documents)
    proportions = np.asarray(model.transform(counts) if doc_topic is None else doc_topic,
                             dtype=np.float64)
    topics = [f"topic_{k}" for k in range(proportions.shape[1])]
    fields = (document_fields(documents, exclude={*topics, "dominant_topic", "length"})
              if isinstance(documents, Corpus) else {})
    frame = pd.DataFrame({**fields, **dict(zip(topics, proportions.T))},
                         index=pd.Index(ids, name="document"))
    frame["dominant_topic"] = np.argmax(proportions, axis=1)
    frame["length"] = np.asarray(counts.sum(axis=1)).ravel()
    return frame
