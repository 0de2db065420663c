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
from numba import njit, prange

from .prefetch import prefetch

# Rows a gathering row kernel asks for ahead of the one it computes (`kernels.prefetch`).
ROWS_AHEAD = 4


@njit(cache=True, parallel=True)
def blend_rows(raw, source, words, word_topic, n_documents, coefficient, column_sums,
               n_threads=1):
    """``mean = word_topic / n_documents; raw[words] = source[words] + coefficient * mean;
    column_sums[:] = mean.sum(axis=0)`` (``words`` distinct; ``source`` is ``raw`` for the
    blend in place, or the rows to blend from, left unchanged; ``raw`` may be ``word_topic``
    itself, ``words`` then 0 .. U - 1: the statistics' own rows blended from ``source``, a
    boosted pass's, `engine.OnlineEM`). In parallel over ``n_threads``
    ranges of topics (whole cache lines of 8 topics), each thread one pass over the rows, each
    column summed row after row as on one thread: the same result for any thread count.

    In place (``source`` is ``raw``, a plain step's blend) a row is read and written through
    one view: through two, LLVM's run-time overlap check fails (they are the same memory) and
    the loop runs unvectorised. In place, the rows of the words
    ``ROWS_AHEAD`` ahead are prefetched (`kernels.prefetch`): in a fit they come cold from
    memory. (From other rows, a boosted pass's, both are the minibatch's own contiguous rows,
    read in order.)"""
    n_topics = word_topic.shape[1]
    lines = (n_topics + 7) // 8
    n_parts = max(1, min(n_threads, lines))
    in_place = raw.ctypes.data == source.ctypes.data
    own_rows = raw.ctypes.data == word_topic.ctypes.data
    for part in prange(n_parts):
        first = min(n_topics, 8 * (lines * part // n_parts))
        last = min(n_topics, 8 * (lines * (part + 1) // n_parts))
        sums = column_sums[first:last]  # slices: indices from 0, no wraparound checks
        sums[:] = 0.0
        for u in range(words.size):
            if in_place and u + ROWS_AHEAD < words.size:
                prefetch(raw[words[u + ROWS_AHEAD], first:last])
            row = raw[words[u], first:last]
            values = word_topic[u, first:last]
            if in_place:
                for k in range(sums.size):
                    mean = values[k] / n_documents
                    row[k] = row[k] + coefficient * mean
                    sums[k] += mean
            elif own_rows:  # the row is its own values: one view, vectorised (above)
                blend_row(row, source[words[u], first:last], row, n_documents, coefficient,
                          sums)
            else:
                blend_row(row, source[words[u], first:last], values, n_documents, coefficient,
                          sums)


@njit(cache=True, inline="always")
def blend_row(row, base, values, n_documents, coefficient, sums):
    """One row of `blend_rows` from other rows: ``mean = values / n_documents; row = base +
    coefficient * mean; sums += mean``."""
    for k in range(sums.size):
        mean = values[k] / n_documents
        row[k] = base[k] + coefficient * mean
        sums[k] += mean


@njit(cache=True, parallel=True)
def affine_rows(raw, words, factor, offset, out):
    """``out[:] = raw[words] * factor + offset`` (U x K), returned: the word weights of a
    row-affine parameterisation, in parallel over the rows, the row ``ROWS_AHEAD`` ahead
    prefetched unless the rows run consecutively (`blend_rows`; a boosted pass's own rows are
    read in order)."""
    n_topics = raw.shape[1]
    for u in prange(words.size):
        if u + ROWS_AHEAD < words.size and words[u + ROWS_AHEAD] != words[u] + ROWS_AHEAD:
            prefetch(raw[words[u + ROWS_AHEAD]])
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


# "Every column" for `group_sums` and `clear_sets`: no column sets given.
ALL_COLUMNS = np.zeros(0, dtype=np.int64)


@njit(cache=True)
def group_sums(values, group, out, divisor, row_set, set_ptr, set_items):
    """Add the rows of ``values`` (n x K) to the rows ``group`` (n ids) of ``out``, in order of
    the rows, then divide ``out`` by ``divisor``, in place: ``out[:] = (out + indicator @
    values) / divisor`` with the 0/1 CSR indicator of the groups (rows of each group in
    ascending order); returns ``out``.

    With column sets (``set_ptr`` not empty), row j adds only the columns
    ``set_items[set_ptr[s]:set_ptr[s + 1]]``, s = ``row_set[j]``; its other values must be
    exactly 0 (+0.0 added to a sum that is not -0.0 leaves it unchanged), and the result is the
    same bit for bit: a boosted Gibbs pass's recorded conditionals are non-zero only on the
    topics present in the entry's document (`inference.gibbs_estep.GibbsRun`)."""
    n_topics = values.shape[1]
    for j in range(group.size):
        target = out[group[j]]
        row = values[j]
        if set_ptr.size:
            s = row_set[j]
            for i in range(set_ptr[s], set_ptr[s + 1]):
                k = set_items[i]
                target[k] += row[k]
        else:
            for k in range(n_topics):
                target[k] += row[k]
    if divisor != 1.0:
        for g in range(out.shape[0]):
            for k in range(n_topics):
                out[g, k] /= divisor
    return out


@njit(cache=True)
def column_sets(mask):
    """The columns where each row of ``mask`` (n x K booleans) is True, ascending, as the
    column sets of `group_sums`: (set_ptr n + 1, set_items)."""
    n_rows, width = mask.shape
    set_ptr = np.zeros(n_rows + 1, dtype=np.int64)
    for i in range(n_rows):
        set_ptr[i + 1] = set_ptr[i] + mask[i].sum()
    set_items = np.empty(set_ptr[n_rows], dtype=np.int64)
    for i in range(n_rows):
        q = set_ptr[i]
        for k in range(width):
            if mask[i, k]:
                set_items[q] = k
                q += 1
    return set_ptr, set_items


@njit(cache=True)
def clear_sets(values, row_set, set_ptr, set_items):
    """``values[j, k] = 0`` for the columns k of row j's set (as in `group_sums`): the rows
    cleared in O(set sizes) when nothing else in them is non-zero."""
    for j in range(row_set.size):
        row = values[j]
        s = row_set[j]
        for i in range(set_ptr[s], set_ptr[s + 1]):
            row[set_items[i]] = 0.0


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


@njit(cache=True)
def scaled_rows(scale, weights, alpha):
    """`add_scaled_rows` onto zeros, into a new array (U x K) without filling it with zeros
    first: ``0.0 + scale[:, None] * weights * alpha``."""
    out = np.empty(weights.shape)
    for u in range(weights.shape[0]):
        for k in range(weights.shape[1]):
            out[u, k] = 0.0 + scale[u] * weights[u, k] * alpha[k]
    return out


@njit(cache=True)
def grouped(keys, n_groups):
    """The items ``0 .. keys.size - 1`` grouped by key (a counting sort): (ptr n_groups + 1,
    items), group g being ``items[ptr[g]:ptr[g + 1]]``, ascending."""
    ptr = np.zeros(n_groups + 1, dtype=np.int64)
    for i in range(keys.size):
        ptr[keys[i] + 1] += 1
    for g in range(n_groups):
        ptr[g + 1] += ptr[g]
    filled = ptr[:n_groups].copy()
    items = np.empty(keys.size, dtype=np.int64)
    for i in range(keys.size):
        items[filled[keys[i]]] = i
        filled[keys[i]] += 1
    return ptr, items


@njit(cache=True, inline="always")
def _merge_levels(stack, present, left, right):
    """``stack[left] = stack[left] + stack[right]`` as `merge_sorted_rows` merges one word's
    rows (a row absent from one side is copied from the other)."""
    if present[left] and present[right]:
        for k in range(stack.shape[1]):
            stack[left, k] = stack[left, k] + stack[right, k]
    elif present[right]:
        stack[left] = stack[right]
        present[left] = True


@njit(cache=True, parallel=True)
def tree_block_totals(entry_word, entry_topic, block_entry_ptr, n_words, inverse, weights, alpha,
                      divisor):
    """The U x K word statistics of consecutive blocks of entries (block b: entries
    ``block_entry_ptr[b]:block_entry_ptr[b + 1]``), each block's rows summed as a local run of
    its own sums them, the blocks' rows then merged along the tree of
    `inference.estep_chunks.tree_merge`; bit for bit what merging the blocks' own statistics
    gives, without a block's statistics ever being built.

    Block b's row of word w: ``(0 + S_bw beta_w alpha + the entry rows of w in block b, in
    order) / divisor``, S_bw the sum of ``inverse`` over those entries, in order (the smoothing
    part of `inference.gibbs_estep.GibbsRun`; left out when ``inverse`` is empty): what
    ``np.bincount``, `add_scaled_rows` and `group_sums` compute for the block. The tree: the
    leaves (blocks, in order) are combined as a binary counter (two partial sums of 2^j blocks
    each make one of 2^(j+1)), and the partial sums left at the end (the binary digits of the
    number of blocks, largest first) right-nested, first + (second + (...)): the shape of
    `tree_merge`, whose left part is always the largest power of two below the total. A word
    missing from a block is absent there, not zero (`_merge_levels`). Words run in parallel,
    each with its own arithmetic: the result does not depend on the threads."""
    n_topics = entry_topic.shape[1]
    n_blocks = block_entry_ptr.size - 1
    word_ptr, word_entries = grouped(entry_word, n_words)
    depth = 2
    while (1 << (depth - 2)) < n_blocks:
        depth += 1
    out = np.empty((n_words, n_topics))
    n_ranges = (n_words + 63) // 64
    if n_blocks == 1:  # the result is the block's rows: each summed in place, the entry
        # rows of the word ROWS_AHEAD ahead prefetched (scattered: `kernels.prefetch`)
        for r in prange(n_ranges):
            for w in range(64 * r, min(n_words, 64 * r + 64)):
                if w + ROWS_AHEAD < n_words:
                    for i in range(word_ptr[w + ROWS_AHEAD], word_ptr[w + ROWS_AHEAD + 1]):
                        prefetch(entry_topic[word_entries[i]])
                _block_row(out[w], word_entries, word_ptr[w], word_ptr[w + 1], entry_topic,
                           inverse, weights[w], alpha, divisor)
        return out
    for r in prange(n_ranges):
        stack = np.empty((depth, n_topics))
        level = np.empty(depth, dtype=np.int64)
        present = np.empty(depth, dtype=np.bool_)
        for w in range(64 * r, min(n_words, 64 * r + 64)):
            top = 0
            m, last = word_ptr[w], word_ptr[w + 1]
            for b in range(n_blocks):
                stop = m
                while stop < last and word_entries[stop] < block_entry_ptr[b + 1]:
                    stop += 1
                present[top] = stop > m
                level[top] = 0
                if present[top]:
                    _block_row(stack[top], word_entries, m, stop, entry_topic, inverse,
                               weights[w], alpha, divisor)
                    m = stop
                top += 1
                while top >= 2 and level[top - 1] == level[top - 2]:
                    _merge_levels(stack, present, top - 2, top - 1)
                    level[top - 2] += 1
                    top -= 1
            while top >= 2:
                _merge_levels(stack, present, top - 2, top - 1)
                top -= 1
            out[w] = stack[0]
    return out


@njit(cache=True, inline="always")
def _block_row(row, entries, first, stop, entry_topic, inverse, weights, alpha, divisor):
    """One block's row of a word into ``row``: ``(0 + S beta_w alpha + the rows of
    ``entries[first:stop]``, in order) / divisor`` with S the sum of ``inverse`` over those
    entries (left out when ``inverse`` is empty; at least one entry), each loop over the topics
    on its own (`tree_block_totals`), the division in the last entry's loop (the same operations
    in the same order: one pass over the row less; x / 1 is x)."""
    last = stop - 1
    if inverse.size:
        scale = 0.0
        for i in range(first, stop):
            scale += inverse[entries[i]]
        for k in range(row.size):
            row[k] = 0.0 + scale * weights[k] * alpha[k]
    else:
        row[:] = 0.0
    for i in range(first, last):
        values = entry_topic[entries[i]]
        for k in range(row.size):
            row[k] += values[k]
    values = entry_topic[entries[last]]
    for k in range(row.size):
        row[k] = (row[k] + values[k]) / divisor
