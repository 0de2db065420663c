"""Point-estimated topics under a per-topic-word prior: seed words (guided topics) for the
frequentist presets (G-OEM, V-OEM, their boosted variants, SPLDA).

With seed words the Dirichlet prior of topic k is eta_k. = eta + lambda s_k., s_kv = 1 for the
seed words of topic k (`estimators.seed_words`), and the M-step of `PointEstimate` becomes

    beta_kv = (eta_kv + N s1_kv) / (sum_w eta_kw + N sum_w s1_kw)
            = offset_k + factor_k s1_kv + lambda s_kv / total_k,
    total_k = V eta + lambda sum_w s_kw + N sum_w s1_kw,

the posterior mean of beta_k given the expected counts N s1 of the N documents seen (the
`PointEstimate` docstring, with the symmetric eta replaced by the matrix). The row-affine part
is what `PointEstimate.row_affine` gives with the seed totals in the denominator; the seed
term is sparse (only the seed words), added to the E-step's word weights and to the reported
topics. Before any document, N = 1: s_0 = L beta_0 weighs as one document per topic
(`SufficientStats.from_parameters`) against the seeds, so they steer the first E-step. The
Polyak-Ruppert average, which keeps only the row-affine part, is not offered with seeds.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..kernels.statistics import affine_rows
from .global_parameters import PointEstimate, components_from_affine
from .stats import SufficientStats


@dataclass(frozen=True, eq=False)
class SeededPointEstimate(PointEstimate):
    """`PointEstimate` with ``seed_prior`` (V x K, lambda s_kv) added to eta."""

    seed_prior: np.ndarray = None

    def _totals(self, stats: SufficientStats) -> np.ndarray:
        """total_k = V eta + lambda sum_w s_kw + N sum_w s1_kw."""
        return (stats.n_words * self.topic_word_prior + self.seed_prior.sum(axis=0)
                + _weight(stats) * stats.topic_totals)

    def row_affine(self, stats: SufficientStats) -> tuple[np.ndarray, np.ndarray]:
        totals = self._totals(stats)
        return self.topic_word_prior / totals, _weight(stats) * stats.scale / totals

    def word_weights(self, stats: SufficientStats, words: np.ndarray,
                     out: np.ndarray | None = None) -> np.ndarray:
        words = np.asarray(words, dtype=np.int64)
        if out is None:
            out = np.empty((words.size, stats.n_topics))
        offset, factor = self.row_affine(stats)
        affine_rows(stats.raw, words, factor, offset, out)
        out += self.seed_prior[words] / self._totals(stats)
        return out

    def components(self, stats: SufficientStats) -> np.ndarray:
        topics = components_from_affine(stats, *self.row_affine(stats))
        topics += self.seed_prior.T / self._totals(stats)[:, None]
        return topics

    def after_step(self, stats: SufficientStats, rho: float) -> "SeededPointEstimate":
        return self

    def with_state(self, arrays: dict[str, np.ndarray]) -> "SeededPointEstimate":
        return self


def _weight(stats: SufficientStats) -> float:
    """N, the documents blended so far; 1 before the first (s_0 weighs one document per topic,
    `SufficientStats.from_parameters`), so the seeds steer the first E-step too."""
    return max(stats.n_documents, 1.0)
