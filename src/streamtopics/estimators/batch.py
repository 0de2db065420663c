"""What the batch estimators share (`GibbsLDA`, `CVB0LDA`, the Labeled LDA family): input
conversion (a `Corpus`, a D x V count matrix, scipy sparse or dense, or a list of token-id
sequences), the fitted vocabulary and the mapping of new documents onto it, the seed of a fit,
the constraints of their priors, and seed words (`GibbsLDA`, `CVB0LDA`).
"""

from __future__ import annotations

import numpy as np

from .. import memory
from ..corpus.corpus import Corpus
from ..errors import InputError
from ..validation import (InstanceOf, Integral, Interval, PositiveVector, Real,
                          validate_parameters, warn_topic_count)
from .base import RANDOM_STATE, TopicModelEstimator
from .seed_words import resolve_seed_words, seed_words_from_json, seed_words_json

_SEED_BOUND = 2**63 - 1


def as_corpus(X, n_words: int | None = None) -> Corpus:
    """``X`` (a `Corpus`, a D x V count matrix or token-id sequences over ``n_words`` words) as a
    `Corpus`; anything else is an `InputError`."""
    if isinstance(X, Corpus):
        return X
    if hasattr(X, "shape") and len(X.shape) == 2:
        return Corpus(X)
    try:
        return Corpus.from_token_lists(list(X), n_words=n_words)
    except TypeError:
        raise InputError("documents must be a Corpus, a D x V count matrix or a list of "
                         "token-id sequences") from None


# Constraints shared by the batch estimators (`validation`).
BATCH_PRIORS = {
    "n_topics": [Interval(Integral, 1, None)],
    "doc_topic_prior": [Interval(Real, 0, None, "neither"), PositiveVector("n_topics")],
    "topic_word_prior": [Interval(Real, 0, None, "neither")],
    "random_state": RANDOM_STATE,
}


# Constraints of the seed-word parameters (`estimators.seed_words`).
SEED_WORDS = {
    "seed_words": [None, InstanceOf(dict, "a dict of name -> list of words")],
    "seed_strength": [Interval(Integral, 1, None)],
}


def prior_vector(value, size: int) -> np.ndarray:
    """A validated prior (a positive number or ``size`` of them) as ``size`` float64 values."""
    return np.broadcast_to(np.asarray(value, dtype=np.float64), (size,)).copy()


class BatchTopicModel(TopicModelEstimator):
    """What the batch estimators share: input conversion, fitted vocabulary, seeds."""

    def _training_corpus(self, X, feature_names=None) -> Corpus:
        corpus = as_corpus(self._check_documents(X, reset=True, feature_names=feature_names))
        if corpus.n_tokens == 0:
            raise InputError("cannot fit a topic model on documents without any tokens")
        validate_parameters(self)
        return corpus

    def _check_training(self, corpus: Corpus, estimate: memory.MemoryEstimate) -> None:
        """Before a fit allocates: warn of a K out of proportion with ``corpus``
        (`validation.warn_topic_count`), refuse what would not fit in memory
        (`memory.check_memory` of ``estimate``)."""
        warn_topic_count(self.n_topics, corpus.n_words, corpus.n_documents,
                         type(self).__name__)
        memory.check_memory(estimate)

    def _operation(self, name: str, corpus: Corpus) -> str:
        """What an estimate's message calls the call ``name`` on ``corpus``."""
        return (f"{type(self).__name__}.{name} with {self.n_topics:,} topics on "
                f"{corpus.n_documents:,} documents of {corpus.n_words:,} words")

    def _fit_seed(self) -> int:
        return int(np.random.default_rng(self.random_state).integers(_SEED_BOUND))

    def _new_documents(self, X) -> Corpus:
        """``X`` as a corpus over the model's vocabulary: a `Corpus` with another vocabulary is
        mapped word by word (unknown words dropped); matrices must have V columns."""
        self._check_fitted()
        n_words = self.components_.shape[1]
        corpus = as_corpus(self._check_documents(X, reset=False), n_words)
        if np.array_equal(corpus.vocabulary, self.vocabulary_):
            return corpus
        if not isinstance(X, Corpus):
            if corpus.n_words != n_words:
                raise InputError(f"documents have {corpus.n_words} word columns but the model "
                                 f"has {n_words} words")
            return corpus
        index = {word: i for i, word in enumerate(self.vocabulary_)}
        column = np.asarray([index.get(word, -1) for word in corpus.vocabulary], dtype=np.int64)
        word_ids, offsets = corpus.document_tokens()
        mapped = column[word_ids]
        known = mapped >= 0
        doc_of_token = np.repeat(np.arange(corpus.n_documents), np.diff(offsets))
        lengths = np.bincount(doc_of_token[known], minlength=corpus.n_documents)
        tokens = np.split(mapped[known], np.cumsum(lengths)[:-1])
        return Corpus.from_token_lists(tokens, self.vocabulary_)

    # --- seed words (estimators with ``seed_words`` and ``seed_strength``) ---------------------
    def _seed_prior_counts(self, corpus: Corpus) -> np.ndarray | None:
        """The seed words' phantom counts (V x K int32, lambda [v in seeds of topic k]),
        ``seeded_topics_`` and ``unknown_seed_words_`` set; None without seed words."""
        self.seeded_topics_, self.unknown_seed_words_ = {}, {}
        if self.seed_words is None:
            return None
        seeds = resolve_seed_words(self.seed_words, corpus.vocabulary, corpus.n_words,
                                   self.n_topics, type(self).__name__)
        self.seeded_topics_, self.unknown_seed_words_ = seeds.topics, seeds.unknown
        return seeds.prior_counts(corpus.n_words, self.n_topics, self.seed_strength)

    def _seed_metadata(self) -> dict:
        """What a model file keeps of the seed words (nothing without them)."""
        if self.seed_words is None:
            return {}
        return {"seed_words": seed_words_json(self.seed_words),
                "seeded_topics": self.seeded_topics_,
                "unknown_seed_words": self.unknown_seed_words_}

    def _restore_seeds(self, fitted: dict) -> None:
        self.seed_words = seed_words_from_json(fitted.get("seed_words"))
        self.seeded_topics_ = fitted.get("seeded_topics", {})
        self.unknown_seed_words_ = fitted.get("unknown_seed_words", {})
