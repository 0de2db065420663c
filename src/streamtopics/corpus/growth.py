"""A growing vocabulary: raw-text minibatches mapped onto a vocabulary that new words may join.

The word side of `OnlineLDA.partial_fit_text` (and of `training.train_stream` with
``grow_vocabulary``): tokenising a minibatch, choosing which unknown words join the vocabulary,
and the minibatch's counts over the old words followed by the admitted ones. The estimator only
adds the admitted words' columns to its statistics (`OnlineEM.add_words`) and takes the step.

The pruning rule (``max_vocabulary``): nothing already in the vocabulary is ever evicted (that
would change the old topics); when a minibatch brings more new words than there is room for,
they are admitted by decreasing count in that minibatch, ties by first appearance, and the
others are dropped and counted under `VOCABULARY_FULL`. The same rule picks the first
vocabulary when a model starts from raw text.

>>> from streamtopics.corpus import ReadReport
>>> report = ReadReport()
>>> tokens = content_tokens(["the cat sat", "cat dog cat"], {"the"}, report)
>>> admitted_words(tokens, {"sat": 0}, max_vocabulary=2)
['cat']
>>> minibatch_counts(tokens, {"sat": 0}, ["cat"], report, VOCABULARY_FULL).toarray()
array([[1, 1],
       [0, 2]])
>>> report.tokens_dropped
{'stop word': 1, 'new word, vocabulary full (max_vocabulary)': 1}
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import scipy.sparse as sp

from .corpus import ReadReport
from .preprocess import STOP_WORD, document_parts, tokenize

VOCABULARY_FULL = "new word, vocabulary full (max_vocabulary)"
"""Reason, in a `ReadReport`'s ``tokens_dropped``, for new words refused because the vocabulary
is full (``max_vocabulary``)."""


def content_tokens(documents, stopwords, report: ReadReport) -> list[list[str]]:
    """The tokens (`tokenize`) of each document (a string or a `RawDocument`) that are not in
    ``stopwords``; the documents read and the stop words dropped are counted in ``report``."""
    token_lists = []
    for document in documents:
        tokens = tokenize(document_parts(document)[0])
        content = [token for token in tokens if token not in stopwords]
        report.documents_read += 1
        report.drop_tokens(STOP_WORD, len(tokens) - len(content))
        token_lists.append(content)
    return token_lists


def initial_index(vocabulary, max_vocabulary: int | None) -> dict[str, int]:
    """word -> column of an initial vocabulary (distinct words, at most ``max_vocabulary``)."""
    words = [str(word) for word in vocabulary]
    index = {word: i for i, word in enumerate(words)}
    if len(index) != len(words):
        raise ValueError("the initial vocabulary repeats a word")
    if max_vocabulary is not None and len(words) > max_vocabulary:
        raise ValueError(f"the initial vocabulary has {len(words)} words, more than "
                         f"max_vocabulary={max_vocabulary}")
    return index


def checked_new_words(words, index: dict[str, int], max_vocabulary: int | None) -> list[str]:
    """``words`` as strings, checked to be new (not in ``index``), distinct, and to fit within
    ``max_vocabulary`` beside the ``len(index)`` words already known (ValueError otherwise)."""
    words = [str(word) for word in words]
    seen: set[str] = set()
    known_or_repeated = set()
    for word in words:
        if word in index or word in seen:
            known_or_repeated.add(word)
        seen.add(word)
    if known_or_repeated:
        raise ValueError(f"add_words takes new, distinct words; already known or repeated: "
                         f"{sorted(known_or_repeated)[:5]}")
    n_words = len(index) + len(words)
    if words and max_vocabulary is not None and n_words > max_vocabulary:
        raise ValueError(f"adding {len(words)} words would make {n_words}, more than "
                         f"max_vocabulary={max_vocabulary}")
    return words


def admitted_words(token_lists: list[list[str]], index: dict[str, int],
                   max_vocabulary: int | None) -> list[str]:
    """The unknown words of a minibatch that join the vocabulary (the pruning rule above): by
    decreasing count in the minibatch, ties by first appearance, as many as ``max_vocabulary``
    leaves room for beside the ``len(index)`` known words."""
    counts = Counter(token for content in token_lists for token in content
                     if token not in index)
    ranked = sorted(counts, key=lambda word: -counts[word])  # stable: first appearance
    room = len(ranked) if max_vocabulary is None else max_vocabulary - len(index)
    return ranked[:max(room, 0)]


def minibatch_counts(token_lists: list[list[str]], index: dict[str, int], new_words: list[str],
                     report: ReadReport, dropped_reason: str) -> sp.csr_matrix:
    """The minibatch's D x (V + M) int64 counts over the known words (``index``, V) followed by
    the ``new_words`` (M); the other tokens are dropped and counted in ``report`` under
    ``dropped_reason``, the documents and tokens kept counted too. A document left without a
    word stays as an empty row."""
    n_old = len(index)
    new_index = {word: n_old + i for i, word in enumerate(new_words)}
    rows, columns = [], []
    for row, content in enumerate(token_lists):
        ids = [index[token] if token in index else new_index[token]
               for token in content if token in index or token in new_index]
        if len(content) > len(ids):
            report.drop_tokens(dropped_reason, len(content) - len(ids))
        rows.extend([row] * len(ids))
        columns.extend(ids)
    counts = sp.csr_matrix((np.ones(len(columns), dtype=np.int64), (rows, columns)),
                           shape=(len(token_lists), n_old + len(new_words)))
    counts.sum_duplicates()
    report.documents_kept += len(token_lists)
    report.tokens_kept += int(counts.sum())
    return counts
