"""Multi-label classification measures (Papanikolaou et al. 2017, section 6.2; Tsoumakas et al.
2010): micro-F1, macro-F1 and example-based F1 of predicted label sets against true ones.

For labels l and documents d with true sets Y_d and predicted sets P_d:
- micro-F1 = 2 sum_l TP_l / (2 sum_l TP_l + sum_l FP_l + sum_l FN_l);
- macro-F1 = mean over labels of 2 TP_l / (2 TP_l + FP_l + FN_l);
- example-based F1 = mean over documents of 2 |Y_d and P_d| / (|Y_d| + |P_d|).
A 0/0 ratio counts as ``zero_division`` (0, as scikit-learn's ``zero_division=0``). The paper
does not say which labels macro-F1 averages over: ``macro_labels="present"`` (the default)
averages over the labels present in the true sets, so a label absent from the test documents
cannot count; ``"all"`` averages over every column, as scikit-learn's ``average="macro"``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

MACRO_LABELS = ("present", "all")


@dataclass(frozen=True)
class MultilabelF1:
    """The three F1 measures, and the conventions they were computed with."""

    micro: float
    macro: float
    example: float
    macro_labels: str
    n_documents: int
    n_labels_averaged: int

    def as_dict(self) -> dict:
        return {"micro_f1": self.micro, "macro_f1": self.macro, "example_f1": self.example,
                "macro_labels": self.macro_labels, "n_documents": self.n_documents,
                "n_labels_averaged": self.n_labels_averaged}


def _indicator(matrix) -> sp.csr_matrix:
    indicator = sp.csr_matrix(matrix)
    indicator.eliminate_zeros()
    return sp.csr_matrix((np.ones(indicator.nnz, dtype=np.int64), indicator.indices,
                          indicator.indptr), shape=indicator.shape)


def _ratio(numerator, denominator, zero_division: float):
    numerator = np.asarray(numerator, dtype=np.float64)
    denominator = np.asarray(denominator, dtype=np.float64)
    safe = np.where(denominator > 0, denominator, 1.0)
    return np.where(denominator > 0, numerator / safe, zero_division)


def multilabel_f1(y_true, y_pred, macro_labels: str = "present",
                  zero_division: float = 0.0) -> MultilabelF1:
    """Micro-, macro- and example-based F1 of the D x L 0/1 matrices (scipy sparse or dense)
    ``y_true`` and ``y_pred`` (the same label columns)."""
    if macro_labels not in MACRO_LABELS:
        raise ValueError(f"macro_labels must be one of {MACRO_LABELS}, got {macro_labels!r}")
    true, pred = _indicator(y_true), _indicator(y_pred)
    if true.shape != pred.shape:
        raise ValueError(f"true labels are {true.shape[0]} x {true.shape[1]}, predicted "
                         f"{pred.shape[0]} x {pred.shape[1]}")
    hits = true.multiply(pred)
    tp_label = np.asarray(hits.sum(axis=0)).ravel()
    true_label = np.asarray(true.sum(axis=0)).ravel()
    pred_label = np.asarray(pred.sum(axis=0)).ravel()
    micro = float(_ratio(2 * tp_label.sum(), true_label.sum() + pred_label.sum(), zero_division))
    per_label = _ratio(2 * tp_label, true_label + pred_label, zero_division)
    averaged = true_label > 0 if macro_labels == "present" else np.ones(per_label.size, bool)
    macro = float(per_label[averaged].mean()) if averaged.any() else float(zero_division)
    tp_doc = np.asarray(hits.sum(axis=1)).ravel()
    size_doc = np.asarray(true.sum(axis=1)).ravel() + np.asarray(pred.sum(axis=1)).ravel()
    per_doc = _ratio(2 * tp_doc, size_doc, zero_division)
    example = float(per_doc.mean()) if per_doc.size else float(zero_division)
    return MultilabelF1(micro=micro, macro=macro, example=example, macro_labels=macro_labels,
                        n_documents=true.shape[0], n_labels_averaged=int(averaged.sum()))
