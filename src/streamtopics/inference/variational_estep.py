"""The local variational estimator of V-OEM (Dupuy & Bach 2016, appendix A.2, equations 11-14).

Each document starts from gamma_k = alpha_k + N_d / K (Blei et al. 2003) and runs P passes of
(11)-(12); the expected statistics (14) are those of the last pass: s1 from zeta, s2_k =
digamma(gamma_k) - digamma(sum gamma). ``random_start=True`` starts gamma from Gamma(100, 1/100)
draws instead, as Hoffman's onlineldavb.py, gensim and scikit-learn do (to compare with them:
with near-uniform topics that random start decides how the first documents spread over topics),
drawn from the document's own stream (seed, minibatch, document index). Document-topic proportions are E_q[theta_d] =
gamma / sum gamma. Boosted use (V-OEM++) advances one pass at a time; each pass's (14) is the
current estimate.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..kernels.variational_estep import (blend_entry_topic_sums, entry_topic_sums, log_theta_rows,
                                         variational_passes)
from .gibbs_estep import local_word_weights
from .minibatch import Minibatch
from .stats import MinibatchStats

NO_ENTRY_TOPIC = np.zeros((0, 0))  # the kernel writes the factors instead
NO_LOG_THETA = np.zeros((0, 0))  # s2 from the final gamma when asked for (`log_theta_rows`)


@dataclass(frozen=True)
class VariationalEstimator:
    """Equations 11-12 with ``passes`` passes per document (P, default 20, as in the paper);
    ``random_start``: gamma starts from Gamma(100, 1/100) draws (see the module docstring)."""

    passes: int = 20
    random_start: bool = False

    name = "variational"

    def begin(self, batch: Minibatch, n_topics: int, seed: int = 0,
              minibatch_index: int = 0) -> "VariationalRun":
        return VariationalRun(self, batch, n_topics, seed, minibatch_index)


class VariationalRun:
    """The per-document variational parameters gamma of one minibatch, advanced pass by pass."""

    def __init__(self, estimator: VariationalEstimator, batch: Minibatch, n_topics: int,
                 seed: int = 0, minibatch_index: int = 0):
        self.estimator = estimator
        self.batch = batch
        self.seed = int(seed)
        self.minibatch_index = int(minibatch_index)
        self.passes_done = 0
        self.doc_gamma = np.zeros((batch.n_documents, n_topics))
        self.log_theta_rows = np.zeros((batch.n_documents, n_topics))
        # The last pass's expectations (14) in factors (`kernels.variational_estep`):
        # entry_topic[j, k] = entry_ratio[j] * weights[w_j, k] * doc_weights[d, k].
        self.entry_ratio = np.zeros(batch.n_entries)
        self.doc_weights = np.zeros((batch.n_documents, n_topics))
        self.weights = np.zeros((batch.words.size, n_topics))

    def advance(self, weights: np.ndarray, alpha: np.ndarray, n_passes: int) -> None:
        last = self.passes_done + n_passes
        if n_passes < 1 or last > self.estimator.passes:
            raise ValueError(f"cannot run passes {self.passes_done}..{last - 1} of "
                             f"{self.estimator.passes}")
        alpha = np.ascontiguousarray(alpha, dtype=np.float64)
        if self.passes_done == 0:
            self._start_gamma(alpha)
        batch = self.batch
        self.weights = local_word_weights(weights)
        variational_passes(batch.doc_ptr, batch.entry_word, batch.entry_count, self.weights,
                           alpha, n_passes, self.doc_gamma, NO_ENTRY_TOPIC, NO_LOG_THETA,
                           self.entry_ratio, self.doc_weights)
        self.passes_done = last

    @property
    def doc_log_theta(self) -> np.ndarray:
        """s2 of (14) per document, B x K, from the current gamma (computed when asked for:
        a boosted step needs it after its last pass only)."""
        return log_theta_rows(self.doc_gamma, self.log_theta_rows)

    @property
    def entry_topic(self) -> np.ndarray:
        """count_j zeta_jk of the last pass per entry (entries x K), from its factors."""
        batch = self.batch
        return (self.entry_ratio[:, None] * self.weights[batch.entry_word]
                * self.doc_weights[batch.entry_document])

    def _start_gamma(self, alpha: np.ndarray) -> None:
        if not self.estimator.random_start:
            self.doc_gamma[:] = alpha + (self.batch.document_lengths / alpha.size)[:, None]
            return
        first = self.batch.first_document
        for d in range(self.batch.n_documents):
            stream = np.random.default_rng([self.seed, self.minibatch_index, first + d])
            self.doc_gamma[d] = stream.gamma(100.0, 1.0 / 100.0, alpha.size)

    def entry_expectations(self) -> np.ndarray:
        return self.entry_topic

    def statistics(self) -> MinibatchStats:
        batch = self.batch
        return MinibatchStats(batch.words, entry_topic_sums(*self._factors()),
                              self.doc_log_theta.sum(axis=0), batch.n_documents, batch.n_words)

    def word_statistics(self) -> "FactoredStats":
        """`statistics` with s1 alone (s2 NaN), its rows summed when read or blended
        (`FactoredStats`, valid until the next `advance`): what a boosted step's passes before
        its last one blend (`engine.OnlineEM`), skipping B x (K + 1) digammas per pass and
        the U x K rows written and read back."""
        batch = self.batch
        return FactoredStats(batch.words, None, np.full(self.doc_gamma.shape[1], np.nan),
                             batch.n_documents, batch.n_words, factors=self._factors())

    def _factors(self) -> tuple:
        """The arguments of `kernels.variational_estep.entry_topic_sums`."""
        batch = self.batch
        return (*batch.word_entries, batch.entry_document, self.entry_ratio, self.weights,
                self.doc_weights)

    def doc_topic(self) -> np.ndarray:
        return self.doc_gamma / self.doc_gamma.sum(axis=1, keepdims=True)


class FactoredStats(MinibatchStats):
    """`MinibatchStats` whose word rows are kept in the factors of a run's last pass's
    expectations (14) (`kernels.variational_estep.entry_topic_sums`' arguments, the run's own
    arrays: valid until it advances) and summed when read; a blend sums and blends each row at
    once (`blend_entry_topic_sums`, the same doubles), so a boosted step's passes never write
    the U x K statistics."""

    def __init__(self, *args, factors: tuple, **kwargs):
        self.factors = factors
        super().__init__(*args, **kwargs)

    @property
    def word_topic(self) -> np.ndarray:
        if self._word_topic is None:
            self._word_topic = entry_topic_sums(*self.factors)
        return self._word_topic

    @word_topic.setter
    def word_topic(self, value: np.ndarray | None) -> None:
        self._word_topic = value

    def blend_rows(self, raw, source, rows, coefficient, column_sums) -> None:
        if self._word_topic is not None:
            super().blend_rows(raw, source, rows, coefficient, column_sums)
            return
        blend_entry_topic_sums(raw, source, rows, *self.factors, float(self.n_documents),
                               coefficient, column_sums)
