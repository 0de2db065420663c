"""Seed words (guided topics): named lists of words that steer chosen topics through a
per-topic-word prior.

``seed_words={"sport": ["match", "team"], "music": ["band", "song"]}`` reserves topics 0, 1, ...
for the named sets in the dict's order; the other topics stay free. Each seed set raises the
topic-word prior of its words in its topic,

    eta_kv = eta + lambda [v in seeds of topic k],

``lambda`` the seed strength, a number of pseudo-counts (tomotopy's ``set_word_prior`` and a
per-topic eta matrix in gensim are the same device). Words are strings matched against the
vocabulary, or integer word ids (a count matrix without feature names). Unknown words are reported (a
`SeedWordWarning` and ``unknown_seed_words_``), never silently dropped; a set without any
known word is an error.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import InputError, StreamtopicsWarning, warn


class SeedWordWarning(StreamtopicsWarning):
    """Seed words that are not in the vocabulary (they steer nothing)."""


@dataclass(frozen=True)
class SeedTopics:
    """Resolved seed sets: ``topics`` maps each name to its topic (0..S-1, the dict's order),
    ``word_ids`` each name to its known word ids, ``unknown`` each name to its unknown words."""

    topics: dict[str, int]
    word_ids: dict[str, np.ndarray]
    unknown: dict[str, list]

    def prior_counts(self, n_words: int, n_topics: int, strength: int) -> np.ndarray:
        """lambda [v in seeds of topic k] as a V x K int32 matrix (word-major, as the Gibbs
        counts are stored)."""
        counts = np.zeros((n_words, n_topics), dtype=np.int32)
        for name, topic in self.topics.items():
            counts[self.word_ids[name], topic] = strength
        return counts


def resolve_seed_words(seed_words: dict, vocabulary, n_words: int, n_topics: int,
                       owner: str, report: bool = True) -> SeedTopics:
    """Match ``seed_words`` (name -> words: strings looked up in ``vocabulary``, integers
    taken as word ids in [0, ``n_words``)); warn about unknown words (unless ``report`` is
    False: a model read from its file), refuse more sets than topics and sets without a
    known word."""
    if len(seed_words) > n_topics:
        raise InputError(f"{owner}: {len(seed_words)} seed sets for {n_topics} topics")
    index = None if vocabulary is None else {str(w): i for i, w in enumerate(vocabulary)}
    topics, word_ids, unknown = {}, {}, {}
    for topic, (name, words) in enumerate(seed_words.items()):
        if isinstance(words, (str, bytes)):
            raise InputError(f"{owner}: seed set {name!r} must be a list of words, not a string")
        known, missing = [], []
        for word in words:
            if _is_integer(word):
                position = int(word) if 0 <= word < n_words else None
            else:
                position = None if index is None else index.get(str(word))
            if position is None:
                missing.append(_json_word(word))
            else:
                known.append(position)
        if not known:
            raise InputError(f"{owner}: no word of seed set {name!r} is in the vocabulary "
                             f"({', '.join(map(str, missing)) or 'the set is empty'})")
        topics[str(name)] = topic
        word_ids[str(name)] = np.unique(np.asarray(known, dtype=np.int64))
        if missing:
            unknown[str(name)] = missing
    if unknown and report:
        listed = "; ".join(f"{name}: {', '.join(map(str, words))}"
                           for name, words in unknown.items())
        warn(f"{owner}: seed words not in the vocabulary, ignored: {listed}", SeedWordWarning)
    return SeedTopics(topics, word_ids, unknown)


def seed_words_json(seed_words: dict | None) -> list | None:
    """``seed_words`` as JSON for a model file: [name, words] pairs in the dict's order (the
    topics' order; a JSON object's keys may be sorted), words as strings or ints."""
    if seed_words is None:
        return None
    return [[str(name), [_json_word(word) for word in words]] for name, words in seed_words.items()]


def seed_words_from_json(pairs: list | None) -> dict | None:
    """The ``seed_words`` dict that `seed_words_json` wrote."""
    return None if pairs is None else {name: list(words) for name, words in pairs}


def _json_word(word):
    return int(word) if _is_integer(word) else str(word)


def _is_integer(word) -> bool:
    return isinstance(word, (int, np.integer)) and not isinstance(word, (bool, np.bool_))
