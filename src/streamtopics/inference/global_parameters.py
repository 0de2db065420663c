"""How the statistics s map to the global topic parameters: the second axis of the engine.

A parameterisation gives ``initial_stats(beta_0, alpha_0, document_length)`` (the s_0 it maps
back to the shared initial parameters) and, from the running `SufficientStats`:

* ``word_weights(stats, words)`` (U x K): the weights of the minibatch's words in the local
  E-step, the beta_{wk} of equations 11 and 15 (a Bayesian one gives exp(E_q[log beta_{wk}])
  there, thesis section 3.3.4);
* ``row_affine(stats)`` -> (offset K, factor K) such that the reported topic-word distribution is
  component[k, v] = offset_k + factor_k * stats.raw[v, k], which is what `components` returns
  and what the lazy Polyak-Ruppert average needs.

Only the frequentist point estimate lives here; the variational Dirichlet (lambda = eta + D s1,
E_q[log beta]) of the Bayesian baselines plugs in the same way (issue 5).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .stats import SufficientStats


def components_from_affine(stats: SufficientStats, offset: np.ndarray, factor: np.ndarray) -> np.ndarray:
    return offset[:, None] + factor[:, None] * stats.raw.T


@dataclass(frozen=True)
class PointEstimate:
    """beta = beta*(s): row-normalised s1, beta_kv = s1_kv / sum_j s1_kj (appendix A.1).

    A topic whose statistics are all zero (possible only when a first minibatch without tokens
    discards s_0) is reported as the uniform distribution 1/V.
    """

    name = "point"

    def initial_stats(self, beta: np.ndarray, alpha: np.ndarray, document_length: float) -> SufficientStats:
        """s_0 that maps back to (beta_0, alpha_0) (`SufficientStats.from_parameters`)."""
        return SufficientStats.from_parameters(beta, alpha, document_length)

    def row_affine(self, stats: SufficientStats) -> tuple[np.ndarray, np.ndarray]:
        totals = stats.topic_totals
        alive = totals > 0
        factor = np.where(alive, stats.scale / np.where(alive, totals, 1.0), 0.0)
        offset = np.where(alive, 0.0, 1.0 / stats.n_words)
        return offset, factor

    def word_weights(self, stats: SufficientStats, words: np.ndarray) -> np.ndarray:
        offset, factor = self.row_affine(stats)
        return stats.raw[words] * factor + offset

    def components(self, stats: SufficientStats) -> np.ndarray:
        return components_from_affine(stats, *self.row_affine(stats))
