"""Phrases: adjacent word pairs that occur together far more than chance, joined into one token.

"new york" is one thing, not "new" and "york": a topic model that sees the two words apart
spreads their meaning over both. The detector is gensim's `Phrases` with its ``"npmi"`` scoring
(Bouma 2009, "Normalized (pointwise) mutual information in collocation extraction"), learnt
once on the training documents and then applied, unchanged, to every text read later:

- counts: over the content tokens of every document (stop words removed), c(a) the occurrences
  of word a, c(a, b) those of a immediately followed by b, N the number of content tokens. A
  stop word breaks the sequence: a pair is two content words adjacent in the text, so "bank of
  america" never makes "bank_america";
- score: NPMI(a, b) = ln(c(a, b) N / (c(a) c(b))) / -ln(c(a, b) / N), in [-1, 1]: 1 when a and
  b only ever occur together, 0 when independent, -1 when they never meet;
- a pair is a phrase when c(a, b) >= ``min_count`` and NPMI(a, b) > ``threshold``;
- applying: left to right, a token and the next one that form a phrase become ``a_b`` and the
  scan goes on after them (so with phrases "a b" and "b c", "a b c" gives ``a_b c``).

This is gensim's `Phrases(sentences, min_count=m, threshold=t, scoring="npmi",
connector_words=())` fed the runs of content words between stop words, with the same pairs and
the same greedy application (`tests/test_phrases.py` cross-checks it). Pairs only: run the
detector again on joined text for longer phrases, as gensim does.

>>> documents = [["new", "york", "city"], ["new", "york", "state"], ["old", "city"]] * 3
>>> phrases = Phrases.learn(documents, stopwords=set(), threshold=0.7, min_count=3)
>>> sorted(phrases.bigrams)
[('new', 'york')]
>>> phrases.join(["in", "new", "york", "today"], {"in"})
['in', 'new_york', 'today']
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from typing import Iterable, Sequence

DELIMITER = "_"
"""What joins the two words of a phrase into one token (gensim's default)."""

DEFAULT_THRESHOLD = 0.5
"""NPMI a pair must exceed to be a phrase: co-occurring far above chance (0 is independence)."""

DEFAULT_MIN_COUNT = 5
"""Occurrences a pair needs to be a phrase (gensim's default)."""


def _runs(tokens: Sequence[str], stopwords) -> Iterable[list[str]]:
    """The runs of consecutive tokens that are not stop words."""
    run: list[str] = []
    for token in tokens:
        if token in stopwords:
            if run:
                yield run
            run = []
        else:
            run.append(token)
    if run:
        yield run


def phrase_scores(token_lists: Iterable[Sequence[str]], stopwords, min_count: int
                  ) -> dict[tuple[str, str], float]:
    """NPMI of every adjacent pair of content words seen at least ``min_count`` times (see the
    module docstring), over documents given as token lists (stop words included, as breaks)."""
    words: Counter = Counter()
    pairs: Counter = Counter()
    for tokens in token_lists:
        for run in _runs(tokens, stopwords):
            words.update(run)
            pairs.update(zip(run, run[1:]))
    total = sum(words.values())
    scores = {}
    for (a, b), together in pairs.items():
        if together >= min_count:
            joint = together / total
            if joint < 1:  # a pair that is the whole corpus has no -ln p(a, b) to normalise by
                scores[a, b] = math.log(joint / (words[a] / total * words[b] / total)) / -math.log(joint)
    return scores


@dataclass(frozen=True)
class Phrases:
    """Learnt phrases (``bigrams``: the word pairs to join) with the settings that chose them."""

    bigrams: frozenset
    threshold: float = DEFAULT_THRESHOLD
    min_count: int = DEFAULT_MIN_COUNT

    @classmethod
    def learn(cls, token_lists: Iterable[Sequence[str]], stopwords,
              threshold: float = DEFAULT_THRESHOLD, min_count: int = DEFAULT_MIN_COUNT) -> "Phrases":
        """The pairs of ``token_lists`` (stop words included, as breaks) scoring above
        ``threshold`` with ``min_count`` occurrences or more."""
        check_settings(threshold, min_count)
        scores = phrase_scores(token_lists, stopwords, min_count)
        return cls(frozenset(pair for pair, score in scores.items() if score > threshold),
                   float(threshold), int(min_count))

    def join(self, tokens: Sequence[str], stopwords) -> list[str]:
        """``tokens`` with every phrase joined (left to right, greedy; stop words never join)."""
        if not self.bigrams:
            return list(tokens)
        joined, i, n = [], 0, len(tokens)
        while i < n:
            if (i + 1 < n and (tokens[i], tokens[i + 1]) in self.bigrams
                    and tokens[i] not in stopwords and tokens[i + 1] not in stopwords):
                joined.append(tokens[i] + DELIMITER + tokens[i + 1])
                i += 2
            else:
                joined.append(tokens[i])
                i += 1
        return joined

    def as_dict(self) -> dict:
        return {"scoring": "npmi", "threshold": self.threshold, "min_count": self.min_count,
                "bigrams": sorted([a, b] for a, b in self.bigrams)}

    @classmethod
    def from_dict(cls, record: dict) -> "Phrases":
        """The phrases of a record written by `as_dict` (ValueError when malformed)."""
        if record.get("scoring") != "npmi":
            raise ValueError(f"phrases scored by {record.get('scoring')!r}, not 'npmi'")
        bigrams = record.get("bigrams")
        if not isinstance(bigrams, list) or not all(
                isinstance(pair, list) and len(pair) == 2 and all(isinstance(w, str) for w in pair)
                for pair in bigrams):
            raise ValueError("phrases: 'bigrams' must be a list of pairs of words")
        threshold, min_count = record.get("threshold"), record.get("min_count")
        if (type(threshold) not in (int, float)) or type(min_count) is not int:
            raise ValueError("phrases: 'threshold' must be a number and 'min_count' an integer")
        check_settings(threshold, min_count)
        return cls(frozenset(tuple(pair) for pair in bigrams), float(threshold), min_count)


def check_settings(threshold: float, min_count: int) -> None:
    """ValueError unless -1 <= ``threshold`` < 1 (NPMI's range) and ``min_count`` >= 1."""
    if not -1 <= threshold < 1:
        raise ValueError(f"the phrase threshold is an NPMI in [-1, 1), got {threshold}")
    if min_count < 1:
        raise ValueError(f"the phrase min_count must be >= 1, got {min_count}")
