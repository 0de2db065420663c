"""The corpora experiments run on: a corpus directory, or a synthetic corpus with known truth.

Splits follow Dupuy & Bach (2016, section 5.1), who repeat every experiment on several train/test
splits: split 0 is the corpus' own (a directory's ``train``/``test`` files; the first
``n_train`` generated documents of a synthetic corpus, then the next ``n_test``), split s >= 1 a
random reshuffle of train + test by seed s with the same test size. The first ``n_train`` and
``n_test`` documents of each part are then kept.

Held-out tokens of words that never occur in the training part are removed (and documents left
empty dropped), for every method alike: a frequentist point estimate gives such words
probability 0 (s_0 is discarded by the first step rho_1 = 1), hence a held-out log-likelihood
of -inf, which measures the vocabulary of the training sample, not the method. How many tokens
and documents were removed is part of each split's description.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from ..corpus.corpus import Corpus, occurring_words, restrict_to_words
from ..corpus.readers import read_corpus_dir
from ..corpus.synthetic import generate_synthetic
from ..errors import InputError


@dataclass(frozen=True)
class SyntheticSpec:
    """The synthetic corpus of the paper (section 5.1): K topics over V words drawn from a
    symmetric Dirichlet(topic_concentration), theta_d ~ Dirichlet(alpha), lengths ~
    Poisson(mean_length); ``n_train + n_test`` documents from ``seed``."""

    n_topics: int = 10
    n_words: int = 1000
    n_train: int = 20_000
    n_test: int = 1_000
    mean_length: float = 60.0
    alpha: float = 0.1
    topic_concentration: float = 0.1
    seed: int = 0

    def identity(self) -> str:
        return (f"synthetic(K={self.n_topics},V={self.n_words},train={self.n_train},"
                f"test={self.n_test},length={self.mean_length:g},alpha={self.alpha:g},"
                f"concentration={self.topic_concentration:g},seed={self.seed})")


@dataclass
class ExperimentSplit:
    """One train/test split ready for training: the held-out part already restricted to the
    training vocabulary. ``true_alpha``/``true_beta``: the generating parameters (synthetic)."""

    train: Corpus
    test: Corpus
    true_alpha: np.ndarray | None = None
    true_beta: np.ndarray | None = None
    description: dict = field(default_factory=dict)


class CorpusSource:
    """Where the documents come from: ``CorpusSource.synthetic(spec)`` or
    ``CorpusSource.directory(path)``. Splits are made once and cached."""

    def __init__(self, identity: str, load, synthetic: SyntheticSpec | None = None):
        self.identity = identity
        self.synthetic_spec = synthetic
        self._load = load
        self._parts = None
        self._splits: dict[tuple, ExperimentSplit] = {}

    @classmethod
    def synthetic(cls, spec: SyntheticSpec) -> "CorpusSource":
        def load():
            corpus, truth = generate_synthetic(spec.n_topics, spec.n_words,
                                               spec.n_train + spec.n_test, spec.mean_length,
                                               spec.alpha, spec.topic_concentration,
                                               seed=spec.seed)
            return corpus[:spec.n_train], corpus[spec.n_train:], truth
        return cls(spec.identity(), load, synthetic=spec)

    @classmethod
    def directory(cls, path) -> "CorpusSource":
        directory = Path(path)
        if not directory.is_dir():
            raise InputError("not a corpus directory (expected train/test splits, or the word "
                             "'synthetic')", directory)

        def load():
            return read_corpus_dir(directory, "train"), read_corpus_dir(directory, "test"), None
        return cls(str(directory.resolve()), load)

    @property
    def true_n_topics(self) -> int | None:
        return None if self.synthetic_spec is None else self.synthetic_spec.n_topics

    def split(self, index: int, n_train: int | None = None,
              n_test: int | None = None) -> ExperimentSplit:
        """Split ``index`` (see the module docstring), cached."""
        key = (index, n_train, n_test)
        if key not in self._splits:
            self._splits[key] = self._make_split(index, n_train, n_test)
        return self._splits[key]

    def _make_split(self, index: int, n_train, n_test) -> ExperimentSplit:
        if self._parts is None:
            self._parts = self._load()
        train, test, truth = self._parts
        if index < 0:
            raise InputError(f"split indices must be >= 0, got {index}")
        if index > 0:
            train, test = reshuffle(train, test, seed=index)
        train = train if n_train is None else train[:n_train]
        test = test if n_test is None else test[:n_test]
        if train.n_tokens == 0:
            raise InputError(f"split {index}: the training part has no tokens")
        held_out, dropped_tokens, dropped_documents = restrict_to_words(
            test, occurring_words(train.counts))
        if held_out.n_documents == 0:
            raise InputError(f"split {index}: no held-out document has a word seen in training")
        description = {"split": index, "train_documents": train.n_documents,
                       "train_tokens": train.n_tokens, "test_documents": held_out.n_documents,
                       "test_tokens": held_out.n_tokens,
                       "test_tokens_dropped_unseen_words": dropped_tokens,
                       "test_documents_dropped_empty": dropped_documents,
                       "vocabulary": train.n_words}
        return ExperimentSplit(train, held_out,
                               None if truth is None else truth.alpha,
                               None if truth is None else truth.beta, description)


def concatenate(first: Corpus, second: Corpus) -> Corpus:
    """The documents of ``first`` then ``second`` (same vocabulary); token order kept when both
    have it."""
    tokens = (first.tokens + second.tokens
              if first.tokens is not None and second.tokens is not None else None)
    return Corpus(sp.vstack([first.counts, second.counts], format="csr"), first.vocabulary,
                  tokens=tokens)


def reshuffle(train: Corpus, test: Corpus, seed: int) -> tuple[Corpus, Corpus]:
    """A random train/test split of train + test with the same test size, drawn from ``seed``."""
    union = concatenate(train, test)
    order = np.random.default_rng(seed).permutation(union.n_documents)
    return union[np.sort(order[test.n_documents:])], union[np.sort(order[:test.n_documents])]
