"""Documents given to a bridge, as counts over a fitted model's vocabulary."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..corpus.corpus import Corpus, aligned_counts, document_ids
from ..errors import InputError


def model_counts(model, documents) -> tuple[sp.csr_matrix, list]:
    """(D x V counts in the column order of ``model.vocabulary_``, document ids) of
    ``documents``: a `Corpus` (mapped word by word, unknown words dropped; ids from its
    metadata, `document_ids`) or a count matrix with the model's V columns (ids 1..D)."""
    vocabulary = np.asarray(model.vocabulary_, dtype=str)
    corpus = documents if isinstance(documents, Corpus) else Corpus(documents)
    if not isinstance(documents, Corpus) and corpus.n_words != vocabulary.size:
        raise InputError(f"the documents have {corpus.n_words} word columns but the model has "
                         f"{vocabulary.size} words")
    counts = corpus.counts if not isinstance(documents, Corpus) else \
        aligned_counts(corpus, vocabulary)[0]
    return counts, document_ids(corpus)
