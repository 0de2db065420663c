"""From labels to indicator matrices and from per-label scores to label sets (multi-label models).

- `label_indicator`: Y as a D x L 0/1 matrix (scipy sparse or dense) or one list of labels per
  document, to (label names, D x L CSR indicator).
- `MetaLabeler`: the number of labels of a document predicted by linear regression on its bag of
  words (Tang et al. 2009), as Papanikolaou et al. (2017, section 6.3) turn Prior-LDA's theta
  into label sets.
- `top_labels`: the rank cut-off, each document's ``n_d`` best-scored labels.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import lsqr

from ..errors import InputError


def label_indicator(Y, n_documents: int, classes=None) -> tuple[np.ndarray, sp.csr_matrix]:
    """(classes, indicator): ``indicator[d, l] = 1`` when document d has label ``classes[l]``.

    ``Y``: a D x L matrix whose nonzeros mark labels (classes = 0..L-1 unless ``classes`` names
    them), or D iterables of hashable labels (classes = their sorted union unless given; a label
    outside given ``classes`` is an error)."""
    if sp.issparse(Y) or (hasattr(Y, "shape") and len(np.shape(Y)) == 2):
        matrix = sp.csr_matrix(Y)
        if matrix.shape[0] != n_documents:
            raise InputError(f"labels for {matrix.shape[0]} documents, but {n_documents} documents")
        names = np.arange(matrix.shape[1]) if classes is None else np.asarray(classes)
        if names.size != matrix.shape[1]:
            raise InputError(f"{names.size} label names for {matrix.shape[1]} label columns")
        matrix = sp.csr_matrix((matrix != 0).astype(np.int8))
        matrix.sort_indices()
        return names, matrix
    rows = [list(labels) for labels in Y]
    if len(rows) != n_documents:
        raise InputError(f"labels for {len(rows)} documents, but {n_documents} documents")
    if classes is None:
        names = np.asarray(sorted({label for row in rows for label in row}))
    else:
        names = np.asarray(classes)
    column = {label: j for j, label in enumerate(names.tolist())}
    indices, indptr = [], [0]
    for d, row in enumerate(rows):
        try:
            indices.extend(sorted({column[label] for label in row}))
        except KeyError as error:
            raise InputError(f"document {d}: unknown label {error.args[0]!r}") from None
        indptr.append(len(indices))
    data = np.ones(len(indices), dtype=np.int8)
    return names, sp.csr_matrix((data, indices, indptr), shape=(n_documents, names.size))


def _normalised_features(counts) -> sp.csr_matrix:
    """L2-normalised bag-of-words rows with a constant 1 column appended (the intercept)."""
    counts = sp.csr_matrix(counts, dtype=np.float64)
    norms = np.sqrt(np.asarray(counts.multiply(counts).sum(axis=1)).ravel())
    scaled = sp.diags(1.0 / np.where(norms > 0, norms, 1.0)) @ counts
    return sp.hstack([scaled, np.ones((counts.shape[0], 1))], format="csr")


class MetaLabeler:
    """Predicts how many labels a document has (Tang et al. 2009; Papanikolaou et al. 2017,
    section 6.3: "a linear regression model to predict the number of labels per instance" on
    the same features as the topic model).

    Ridge regression of |K_d| on the L2-normalised word counts plus an intercept, minimising
    ||A w - y||^2 + ``ridge`` ||w||^2 by LSQR (the intercept is penalised too, which is
    negligible with thousands of documents); predictions are rounded and clipped to
    [1, the largest training count]. ``coef_`` (V + 1, intercept last), ``max_labels_``.
    """

    def __init__(self, ridge: float = 1.0):
        self.ridge = ridge

    def fit(self, counts, n_labels) -> "MetaLabeler":
        n_labels = np.asarray(n_labels, dtype=np.float64)
        features = _normalised_features(counts)
        self.coef_ = lsqr(features, n_labels, damp=np.sqrt(self.ridge), atol=1e-10,
                          btol=1e-10)[0]
        self.max_labels_ = int(n_labels.max())
        return self

    def predict_raw(self, counts) -> np.ndarray:
        """The regression's real-valued predictions."""
        features = _normalised_features(counts)
        if features.shape[1] != self.coef_.size:
            raise InputError(f"documents have {features.shape[1] - 1} word columns, the "
                             f"Meta-Labeler {self.coef_.size - 1}")
        return features @ self.coef_

    def predict_counts(self, counts) -> np.ndarray:
        """Number of labels per document: round(prediction) within [1, max_labels_]."""
        return np.clip(np.rint(self.predict_raw(counts)), 1, self.max_labels_).astype(np.int64)


def top_labels(scores: np.ndarray, n_labels, tie_break: np.ndarray | None = None) -> sp.csr_matrix:
    """D x L 0/1 CSR matrix keeping each document's ``n_labels`` highest ``scores`` (a number for
    every document or one per document); equal scores go to the larger ``tie_break`` value (e.g.
    label frequency), then to the lower label index."""
    scores = np.asarray(scores, dtype=np.float64)
    n_docs, n_classes = scores.shape
    counts = np.broadcast_to(np.asarray(n_labels, dtype=np.int64), (n_docs,))
    if counts.size and (counts.min() < 0 or counts.max() > n_classes):
        raise ValueError(f"label counts must lie in [0, {n_classes}]")
    secondary = np.zeros(n_classes) if tie_break is None else np.asarray(tie_break, dtype=float)
    rows, columns = [], []
    for d in range(n_docs):
        order = np.lexsort((np.arange(n_classes), -secondary, -scores[d]))[:counts[d]]
        rows.append(np.full(order.size, d))
        columns.append(np.sort(order))
    rows = np.concatenate(rows) if rows else np.zeros(0, dtype=np.int64)
    columns = np.concatenate(columns) if columns else np.zeros(0, dtype=np.int64)
    return sp.csr_matrix((np.ones(rows.size, dtype=np.int8), (rows, columns)),
                         shape=(n_docs, n_classes))
