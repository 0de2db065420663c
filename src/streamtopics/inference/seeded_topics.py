"""Topics under a per-topic-word prior: seed words (guided topics) for the frequentist presets
(G-OEM, V-OEM, their boosted variants, SPLDA) and the Bayesian ones (OLDA, SVB, VarGibbs,
batch VB).

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

Bayesian topics take the same matrix as the prior of q(beta_k) = Dirichlet(lambda_k) (Hoffman,
Blei & Bach 2010, with eta_kv in place of the symmetric eta):

    lambda_kv = eta + lambda s_kv + D s1_kv,

so the E-step weighs word w by exp(digamma(lambda_kw) - digamma(sum_v lambda_kv)) and the
reported topics are lambda_k / sum_v lambda_kv: the row-affine part of `VariationalDirichlet`
with the seed totals in the denominator, plus the seed term. lambda_0 weighs D documents, so
seeds of lambda = 50 pseudo-counts would vanish beside it: it starts at the topics of a seeded
point estimate's first E-step, scaled to D documents, so the seeds steer the first E-steps as
they do G-OEM's; after them, the data keep the seeded topics where the seeds put them. The
Newton update of a symmetric eta (``update_topic_word_prior``) does not apply to a matrix and
is not offered with seeds.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
from scipy.special import digamma

from ..kernels.statistics import affine_rows
from .global_parameters import PointEstimate, VariationalDirichlet, components_from_affine
from .stats import SufficientStats


class SeededTopics:
    """What a seeded parameterisation adds to its symmetric one: ``seed_prior`` (V x K, lambda
    s_kv) in eta, so its reported topics are the row-affine part plus the seed term over the
    topic totals (`_totals`)."""

    seed_prior: np.ndarray

    @cached_property
    def seed_totals(self) -> np.ndarray:
        """lambda sum_v s_kv (K): the seeds' share of each topic's prior mass, fixed."""
        return self.seed_prior.sum(axis=0)

    def _totals(self, stats: SufficientStats) -> np.ndarray:
        raise NotImplementedError

    def components(self, stats: SufficientStats) -> np.ndarray:
        topics = components_from_affine(stats, *self.row_affine(stats))
        topics += self.seed_prior.T / self._totals(stats)[:, None]
        return topics


@dataclass(frozen=True, eq=False)
class SeededPointEstimate(SeededTopics, PointEstimate):
    """`PointEstimate` with ``seed_prior`` (V x K, lambda s_kv) added to eta."""

    seed_prior: np.ndarray = None

    def _totals(self, stats: SufficientStats) -> np.ndarray:
        """total_k = V eta + lambda sum_w s_kw + N sum_w s1_kw."""
        return (stats.n_words * self.topic_word_prior + self.seed_totals
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

    def after_step(self, stats: SufficientStats, rho: float) -> "SeededPointEstimate":
        return self

    def with_state(self, arrays: dict[str, np.ndarray]) -> "SeededPointEstimate":
        return self


@dataclass(frozen=True, eq=False)
class SeededVariationalDirichlet(SeededTopics, VariationalDirichlet):
    """`VariationalDirichlet` with ``seed_prior`` (V x K, lambda s_kv) added to eta: lambda_kv
    = eta + lambda s_kv + D s1_kv (module docstring)."""

    seed_prior: np.ndarray = None

    def __post_init__(self):
        super().__post_init__()
        if self.update_prior:
            raise ValueError("seed words make eta a matrix: the Newton update of a symmetric "
                             "eta (update_topic_word_prior) cannot be combined with them")

    def initial_stats(self, beta: np.ndarray, alpha: np.ndarray,
                      document_length: float) -> SufficientStats:
        """s_0 whose E_q[beta_0] is the first E-step's topics of a seeded point estimate,
        (eta + lambda s_kv + L beta_0kv) / (V eta + lambda s_k + L), and whose lambda_0 sums to
        V eta + lambda s_k + D L (D documents of length L, as without seeds): the seeds steer
        the first E-step as they do G-OEM's, and D s1_0 >= 0."""
        beta = np.asarray(beta, dtype=np.float64)
        alpha = np.asarray(alpha, dtype=np.float64)
        seeds = self.seed_prior.T
        prior_totals = beta.shape[1] * self.topic_word_prior + self.seed_totals[:, None]
        initial_lambda = ((self.topic_word_prior + seeds + document_length * beta)
                          * (prior_totals + self.corpus_size * document_length)
                          / (prior_totals + document_length))
        raw = (initial_lambda - self.topic_word_prior - seeds).T / self.corpus_size
        return SufficientStats(raw, digamma(alpha) - digamma(alpha.sum()))

    def _lambda_totals(self, stats: SufficientStats) -> np.ndarray:
        """sum_v lambda_kv = V eta + lambda sum_v s_kv + D sum_v s1_kv, in E_q[beta]
        (`VariationalDirichlet.row_affine`), the E-step's weights and the seed term."""
        return super()._lambda_totals(stats) + self.seed_totals

    _totals = _lambda_totals

    def word_weights(self, stats: SufficientStats, words: np.ndarray,
                     out: np.ndarray | None = None) -> np.ndarray:
        """exp(E_q[log beta_kw]) for the given words, U x K."""
        words = np.asarray(words, dtype=np.int64)
        lam = (self.topic_word_prior + self.seed_prior[words]
               + self.corpus_size * stats.word_topic(words))
        return np.exp(digamma(lam) - digamma(self._lambda_totals(stats)), out=out)

    def topic_word_lambda(self, stats: SufficientStats) -> np.ndarray:
        """lambda, K x V (O(K V))."""
        return super().topic_word_lambda(stats) + self.seed_prior.T


def _weight(stats: SufficientStats) -> float:
    """N, the documents blended so far; 1 before the first (s_0 weighs one document per topic,
    `SufficientStats.from_parameters`), so the seeds steer the first E-step too."""
    return max(stats.n_documents, 1.0)


def with_seed_words(parameters, seed_prior: np.ndarray):
    """``parameters`` (`PointEstimate` or `VariationalDirichlet`) with ``seed_prior`` (V x K,
    lambda s_kv) added to its eta; ValueError for topics without a Dirichlet prior to add it to
    (the Langevin dynamics of lds) or with a Newton-updated eta."""
    if type(parameters) is PointEstimate:
        return SeededPointEstimate(parameters.topic_word_prior, seed_prior)
    if type(parameters) is VariationalDirichlet:
        return SeededVariationalDirichlet(parameters.corpus_size, parameters.topic_word_prior,
                                          parameters.update_prior, seed_prior=seed_prior)
    raise ValueError("seed words need topics with a Dirichlet prior (every preset but lds)")
