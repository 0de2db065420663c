"""A growing vocabulary: minibatches of named words mapped onto a vocabulary new words may join.

The word side of `OnlineLDA.partial_fit_text` (raw text), of `OnlineLDA.partial_fit` given a
`Corpus` over another vocabulary (a corpus directory preprocessed on its own, as `streamtopics
update` reads it) and of `training.train_stream` with ``grow_vocabulary``: tokenising a
minibatch, choosing which unknown words join the vocabulary, and the minibatch's counts over the
old words followed by the admitted ones. The estimator only adds the admitted words' columns to
its statistics (`OnlineEM.add_words`) and takes the step.

The admission rule (``min_word_count``, ``max_vocabulary``):

- a new word joins once it has been seen ``min_word_count`` times in the stream (the minibatch
  that brings it to that count included: its tokens there are trained on). Until then its
  occurrences are counted in `PendingWords`, which the model file keeps, and its tokens are
  dropped and counted under `RARE_NEW_WORD`. The default, `DEFAULT_MIN_COUNT`, is the one
  `streamtopics preprocess` applies to a vocabulary built in one go, so a stream read in pieces
  keeps the rare words (names, typos) out as a whole corpus would;
- nothing already in the vocabulary is ever evicted (that would change the old topics); when
  more words are ready than ``max_vocabulary`` leaves room for, they are admitted by decreasing
  count, ties by first appearance, and the others are dropped and counted under
  `VOCABULARY_FULL`;
- the same rule picks the first vocabulary when a growing model starts from raw text.

>>> from streamtopics.corpus import ReadReport
>>> report = ReadReport()
>>> pipeline = TextPipeline(stopwords=frozenset({"the"}))
>>> tokens = content_tokens(["the cat sat", "cat dog cat"], pipeline, report)
>>> counts, words = token_counts(tokens)
>>> words, counts.toarray()
(['cat', 'sat', 'dog'], array([[1, 1, 0],
       [2, 0, 1]]))
>>> pending = PendingWords()
>>> mapped, new = grown_counts(counts, words, {"sat": 0}, Growth(pending, 2, 2), report)
>>> new, mapped.toarray(), pending.counts
(['cat'], array([[1, 1],
       [0, 2]]), {'dog': 1})
>>> report.tokens_dropped
{'stop word': 1, 'new word, seen fewer than min_word_count times so far': 1}
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from .corpus import ReadReport
from .pipeline import TextPipeline
from .preprocess import DEFAULT_MIN_COUNT, UNKNOWN, document_parts

__all__ = ["DEFAULT_MIN_COUNT", "VOCABULARY_FULL", "RARE_NEW_WORD", "PENDING_LIMIT",
           "PendingWords", "Growth", "content_tokens", "token_counts", "grown_counts",
           "initial_index", "checked_new_words"]

VOCABULARY_FULL = "new word, vocabulary full (max_vocabulary)"
"""Reason, in a `ReadReport`'s ``tokens_dropped``, for new words refused because the vocabulary
is full (``max_vocabulary``)."""

RARE_NEW_WORD = "new word, seen fewer than min_word_count times so far"
"""Reason, in a `ReadReport`'s ``tokens_dropped``, for the tokens of a new word not yet seen
``min_word_count`` times (it joins once it has been)."""

PENDING_LIMIT = 200_000
"""The most words `PendingWords` counts. Beyond it the least seen are forgotten (ties: the
latest first seen), so a stream of ever new names cannot exhaust memory; a forgotten word
counts again from zero when it comes back."""


@dataclass
class PendingWords:
    """Occurrences of the words seen but not (yet) admitted, in order of first appearance: the
    state of a growing vocabulary between minibatches, saved in model files (`as_arrays`)."""

    counts: dict[str, int] = field(default_factory=dict)

    def add(self, words, totals) -> None:
        for word, total in zip(words, totals):
            self.counts[word] = self.counts.get(word, 0) + int(total)
        if len(self.counts) > PENDING_LIMIT:
            kept = sorted(self.counts, key=lambda word: -self.counts[word])[:PENDING_LIMIT]
            kept_set = set(kept)
            self.counts = {word: n for word, n in self.counts.items() if word in kept_set}

    def ready(self, min_count: int, room: int | None) -> tuple[list[str], list[str]]:
        """(admitted, refused): the words seen ``min_count`` times or more, by decreasing
        count (ties by first appearance), the first ``room`` admitted (None: all) and the
        others refused for want of room; both leave the pending counts."""
        ranked = sorted((word for word, n in self.counts.items() if n >= min_count),
                        key=lambda word: -self.counts[word])
        for word in ranked:
            del self.counts[word]
        cut = len(ranked) if room is None else max(room, 0)
        return ranked[:cut], ranked[cut:]

    def as_arrays(self) -> dict[str, np.ndarray]:
        return {"pending_words": np.asarray(list(self.counts), dtype=str),
                "pending_counts": np.asarray(list(self.counts.values()), dtype=np.int64)}

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray]) -> "PendingWords":
        words = arrays.get("pending_words", np.zeros(0, dtype=str))
        counts = arrays.get("pending_counts", np.zeros(0, dtype=np.int64))
        if len(words) != len(counts):
            raise ValueError("pending_words and pending_counts differ in length")
        return cls(dict(zip(words.tolist(), (int(n) for n in counts))))


@dataclass(frozen=True)
class Growth:
    """How new words are admitted: their `PendingWords`, ``min_count`` (a model's
    ``min_word_count``) and ``max_vocabulary`` (None: no cap)."""

    pending: PendingWords
    min_count: int = DEFAULT_MIN_COUNT
    max_vocabulary: int | None = None


def content_tokens(documents, pipeline: TextPipeline, report: ReadReport) -> list[list[str]]:
    """The content tokens of each document (a string or a `RawDocument`) by ``pipeline``
    (`TextPipeline.content`: stop words and words preprocessing found too frequent removed);
    the documents read and the tokens dropped are counted in ``report``."""
    token_lists = []
    for document in documents:
        text, source_id, _ = document_parts(document)
        report.documents_read += 1
        token_lists.append(pipeline.content(pipeline.tokens(text, source_id, report), report))
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


def token_counts(token_lists: list[list[str]]) -> tuple[sp.csr_matrix, list[str]]:
    """(D x W int64 counts, the W distinct words in order of first appearance) of tokenised
    documents."""
    columns: dict[str, int] = {}
    ids = [[columns.setdefault(token, len(columns)) for token in tokens] for tokens in token_lists]
    indptr = np.cumsum([0] + [len(row) for row in ids])
    indices = np.fromiter((i for row in ids for i in row), dtype=np.int64, count=int(indptr[-1]))
    counts = sp.csr_matrix((np.ones(indices.size, dtype=np.int64), indices, indptr),
                           shape=(len(token_lists), len(columns)))
    counts.sum_duplicates()
    return counts, list(columns)


def grown_counts(counts: sp.csr_matrix, words, index: dict[str, int], growth: Growth | None,
                 report: ReadReport) -> tuple[sp.csr_matrix, list[str]]:
    """(the minibatch ``counts`` (D x W over ``words``) as D x (V + M) counts over the known
    words ``index`` (V) followed by the M words admitted now, those M words). Without
    ``growth`` unknown words are dropped (`UNKNOWN`); with it they are counted in its pending
    words and admitted by the rule above, the others dropped (`RARE_NEW_WORD`,
    `VOCABULARY_FULL`). Tokens dropped and kept and documents kept are counted in ``report``."""
    words = [str(word) for word in words]
    columns = np.fromiter((index.get(word, -1) for word in words), dtype=np.int64,
                          count=len(words))
    totals = np.asarray(counts.sum(axis=0)).ravel()
    unknown = np.flatnonzero((columns < 0) & (totals > 0))
    new_words: list[str] = []
    dropped = dict.fromkeys((UNKNOWN, RARE_NEW_WORD, VOCABULARY_FULL), 0)
    if growth is None:
        dropped[UNKNOWN] = int(totals[unknown].sum())
    else:
        growth.pending.add((words[i] for i in unknown), totals[unknown])
        room = None if growth.max_vocabulary is None else growth.max_vocabulary - len(index)
        new_words, refused = growth.pending.ready(growth.min_count, room)
        position = {words[i]: i for i in unknown}
        for rank, word in enumerate(new_words):
            columns[position[word]] = len(index) + rank
        dropped[VOCABULARY_FULL] = int(sum(totals[position[word]] for word in refused))
        dropped[RARE_NEW_WORD] = int(totals[unknown].sum()) - dropped[VOCABULARY_FULL] - int(
            sum(totals[position[word]] for word in new_words))
    for reason, n in dropped.items():
        if n:
            report.drop_tokens(reason, n)
    mapped = columns[counts.indices]
    keep = mapped >= 0
    rows = np.repeat(np.arange(counts.shape[0]), np.diff(counts.indptr))
    indptr = np.concatenate([[0], np.cumsum(np.bincount(rows[keep], minlength=counts.shape[0]))])
    result = sp.csr_matrix((counts.data[keep].astype(np.int64), mapped[keep], indptr),
                           shape=(counts.shape[0], len(index) + len(new_words)))
    result.sort_indices()
    report.documents_kept += counts.shape[0]
    report.tokens_kept += int(result.sum())
    return result, new_words
