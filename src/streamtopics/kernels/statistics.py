"""Row kernels of the online EM statistics: the O(U K) work of a step on the U words of a
minibatch (Dupuy & Bach 2016, eq. 3 and the M-step of appendix A.1), one pass over the rows
without NumPy's temporaries.

A boosted (++) step runs them after every local pass (section 3.3), so their constant matters
as much as the local E-step's. Each does exactly the floating-point operations of the NumPy
expression in its docstring, in the same order (column sums accumulate row after row, as NumPy
reduces axis 0 of a C-order array), so the results are bit-identical to it; the twins are those
expressions (tests/naive.py).
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def blend_rows(raw, words, word_topic, n_documents, coefficient, column_sums):
    """``mean = word_topic / n_documents; raw[words] += coefficient * mean;
    column_sums[:] = mean.sum(axis=0)`` (``words`` distinct)."""
    n_topics = word_topic.shape[1]
    column_sums[:] = 0.0
    for u in range(words.size):
        row = raw[words[u]]
        for k in range(n_topics):
            mean = word_topic[u, k] / n_documents
            row[k] += coefficient * mean
            column_sums[k] += mean


@njit(cache=True)
def affine_rows(raw, words, factor, offset):
    """``raw[words] * factor + offset`` (U x K): the word weights of a row-affine
    parameterisation."""
    n_topics = raw.shape[1]
    out = np.empty((words.size, n_topics))
    for u in range(words.size):
        row = raw[words[u]]
        for k in range(n_topics):
            out[u, k] = row[k] * factor[k] + offset[k]
    return out


@njit(cache=True)
def set_rows(raw, words, rows):
    """``raw[words] = rows``."""
    for u in range(words.size):
        row = raw[words[u]]
        for k in range(rows.shape[1]):
            row[k] = rows[u, k]


@njit(cache=True)
def group_sums(values, group, out, divisor):
    """Add the rows of ``values`` (n x K) to the rows ``group`` (n ids) of ``out``, in order of
    the rows, then divide ``out`` by ``divisor``, in place: ``out[:] = (out + indicator @
    values) / divisor`` with the 0/1 CSR indicator of the groups (rows of each group in
    ascending order); returns ``out``."""
    n_topics = values.shape[1]
    for j in range(group.size):
        target = out[group[j]]
        row = values[j]
        for k in range(n_topics):
            target[k] += row[k]
    if divisor != 1.0:
        for g in range(out.shape[0]):
            for k in range(n_topics):
                out[g, k] /= divisor
    return out


@njit(cache=True)
def has_empty_row(weights):
    """Whether some row of ``weights`` (non-negative) sums to 0:
    ``(weights.sum(axis=1) <= 0).any()``, stopping at each row's first positive (or NaN) value."""
    for u in range(weights.shape[0]):
        empty = True
        for k in range(weights.shape[1]):
            if not weights[u, k] <= 0.0:
                empty = False
                break
        if empty:
            return True
    return False


@njit(cache=True)
def merge_sorted_rows(words_a, rows_a, words_b, rows_b):
    """(words, rows) of the union of two row-sparse matrices with ascending, distinct keys
    ``words_a`` and ``words_b``: a row present in both is ``rows_a[i] + rows_b[j]``, any other
    is copied. One linear pass (two pointers), no sort and no search."""
    n_a, n_b, width = words_a.size, words_b.size, rows_a.shape[1]
    union = 0
    i = j = 0
    while i < n_a or j < n_b:
        if j == n_b or (i < n_a and words_a[i] < words_b[j]):
            i += 1
        elif i == n_a or words_b[j] < words_a[i]:
            j += 1
        else:
            i += 1
            j += 1
        union += 1
    words = np.empty(union, dtype=words_a.dtype)
    rows = np.empty((union, width), dtype=rows_a.dtype)
    i = j = 0
    for r in range(union):
        if j == n_b or (i < n_a and words_a[i] < words_b[j]):
            words[r] = words_a[i]
            rows[r] = rows_a[i]
            i += 1
        elif i == n_a or words_b[j] < words_a[i]:
            words[r] = words_b[j]
            rows[r] = rows_b[j]
            j += 1
        else:
            words[r] = words_a[i]
            for k in range(width):
                rows[r, k] = rows_a[i, k] + rows_b[j, k]
            i += 1
            j += 1
    return words, rows


@njit(cache=True)
def add_scaled_rows(out, scale, weights, alpha):
    """``out += scale[:, None] * weights * alpha`` (U x K, in place)."""
    for u in range(weights.shape[0]):
        for k in range(weights.shape[1]):
            out[u, k] += scale[u] * weights[u, k] * alpha[k]
