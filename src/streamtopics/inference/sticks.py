"""The corpus-level sticks of HDP G-OEM (Dupuy 2017, section 3.4): start, word weights, pruning.

HDP's global parameters are (beta, pi) (eq. 17: phi1_k = b pi_k, phi2_kv = log beta_kv). The
engine keeps a = b (pi_1, ..., pi_T, pi_*) as its "alpha": T instantiated topics plus the rest of
the stick * = every topic not yet instantiated, which the Dirichlet aggregation property makes
exact, (nu_1, ..., nu_T, sum_{k>T} nu_k) ~ Dirichlet(a) (specs/components.md G1). So:

* the M-step of the box after eq. 17, digamma(b pi_k) - digamma(b sum pi) = S1_k (the thesis'
  S1 = E[log nu], the library's s2, ``log_theta``), is Minka's fixed point
  (`alpha_updates.MinkaFixedPoint`) over the T + 1 components, with S1_* = E[log nu_*]: the
  concentration b_eff = sum a is learnt with pi (the thesis' unconstrained fixed point), and
  pi = a / sum a stays a distribution with pi_* >= 0, so the growth term b (1 - sum pi) of
  section 3.4 never turns negative;
* beta is the smoothed point estimate of LDA G-OEM (`PointEstimate`, eta > 0 the posterior mean);
* a truncated HDP (T = ``max_topics``) has no rest: a has T entries, no topic opens, and the
  model is LDA with alpha = b pi.

`initial_sticks` draws the start (T = 2 topics, thesis p. 59), `StickPointEstimate` gives the
local step its word weights (one more column: the weight of a word under a new topic), and
`StickSelection` prunes after each M-step.

VarGibbs (Wang & Blei 2012; thesis eq. 18) keeps Bayesian sticks instead: q(pibar_k) =
Beta(a_k, b_k) from the expected table counts (`StickPosteriorMean`, the local step's
"tables" statistic) and q(beta_k) = Dirichlet(lambda_k) topics (`StickDirichlet`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import digamma

from .gibbs_estep import local_word_weights
from .global_parameters import PointEstimate, VariationalDirichlet
from .stats import SufficientStats

UNSEEN_WORDS = ("uniform", "new-topic")


def stick_weights(breaks: np.ndarray, truncated: bool) -> np.ndarray:
    """pi_k = pibar_k prod_{j<k}(1 - pibar_j) (section 3.4, step 2) and the rest pi_* =
    prod_{j<=T}(1 - pibar_j) last; ``truncated``: pibar_T = 1, pi_T takes the rest (T entries)."""
    breaks = np.array(breaks, dtype=np.float64)
    if truncated:
        breaks[-1] = 1.0
    left = np.concatenate([[1.0], np.cumprod(1.0 - breaks)])
    pi = breaks * left[:-1]
    return pi if truncated else np.append(pi, left[-1])


def initial_sticks(n_topics: int, rng: np.random.Generator, stick_concentration: float,
                   doc_concentration: float, truncated: bool) -> np.ndarray:
    """a_0 = b (pi_1, ..., pi_T, pi_*) with pibar_k ~ Beta(1, alpha) (`stick_weights`)."""
    pi = stick_weights(rng.beta(1.0, stick_concentration, size=n_topics), truncated)
    return doc_concentration * np.maximum(pi, np.finfo(float).tiny)


def has_rest(stats: SufficientStats) -> bool:
    """Whether the statistics carry the rest of the stick (s2 has T + 1 entries)."""
    return stats.log_theta.size > stats.n_topics


class NewTopicColumn:
    """Mixin of a `Parameterisation`: word weights get one more column while the stick has a
    rest, the weight of the word under a topic not yet instantiated, 1/V (the Dirichlet(eta)
    prior predictive; thesis p. 60, "b (1 - sum pi) / V").

    ``unseen_words``: a word no document has put in any topic (zero statistics) has a weight
    near 0 in every topic, so read literally ("new-topic") each such token would open a topic,
    early in a stream one per new word (spec G6). "uniform" (default) gives it under a new topic
    the mean of its weights in the existing ones instead: its conditional then follows the
    document's counts and a, and does not force growth."""

    def word_weights(self, stats: SufficientStats, words: np.ndarray) -> np.ndarray:
        weights = local_word_weights(super().word_weights(stats, words))
        if not has_rest(stats):
            return weights
        new_topic = np.full(words.size, 1.0 / stats.n_words)
        if self.unseen_words == "uniform":
            unseen = ~np.any(stats.raw[words] > 0, axis=1)
            new_topic[unseen] = weights[unseen].mean(axis=1)
        return np.column_stack([weights, new_topic])


@dataclass(frozen=True)
class StickPointEstimate(NewTopicColumn, PointEstimate):
    """G-OEM's topics: `PointEstimate` with the new-topic column (`NewTopicColumn`)."""

    unseen_words: str = "uniform"

    name = "sticks"


@dataclass(frozen=True)
class StickDirichlet(NewTopicColumn, VariationalDirichlet):
    """VarGibbs' topics: q(beta_k) = Dirichlet(lambda_k), lambda = eta + D s1 (eq. 18: lambda-hat =
    eta + D times the minibatch's average counts, blended with rho), with the new-topic column;
    s2 starts at no tables (the sticks' Beta(1, alpha) prior)."""

    unseen_words: str = "uniform"

    name = "sticks-dirichlet"

    def initial_stats(self, beta: np.ndarray, alpha: np.ndarray,
                      document_length: float) -> SufficientStats:
        stats = super().initial_stats(beta, alpha, document_length)
        stats.log_theta[:] = 0.0
        return stats


@dataclass(frozen=True)
class StickPosteriorMean:
    """VarGibbs' sticks (thesis eq. 18), as an `AlphaUpdate`: q(pibar_k) = Beta(a_k, b_k) with

        a_k = 1 + D t_k,    b_k = alpha + D sum_{j>k} t_j,

    t = s2, the blended expected tables per document (the blend (1 - rho)(a, b) + rho (a-hat,
    b-hat) of eq. 18 is this with t blended by eq. 3, as lambda with s1). The local step's
    alpha is b E_q[pi]: E_q[pibar] = a / (a + b) through `stick_weights` (the mean of the
    product of independent breaks), the rest last. The thesis writes b_k - alpha in the
    exponent of pibar's conditional (line 1410), a typo for b_k - 1 (spec 1.6)."""

    corpus_size: float
    stick_concentration: float
    doc_concentration: float

    def beta_parameters(self, stats: SufficientStats) -> tuple[np.ndarray, np.ndarray]:
        tables = stats.log_theta[:stats.n_topics]
        later = np.cumsum(tables[::-1])[::-1] - tables
        return (1.0 + self.corpus_size * tables,
                self.stick_concentration + self.corpus_size * later)

    def sticks(self, stats: SufficientStats) -> np.ndarray:
        a, b = self.beta_parameters(stats)
        pi = stick_weights(a / (a + b), truncated=not has_rest(stats))
        return self.doc_concentration * np.maximum(pi, np.finfo(float).tiny)

    def __call__(self, alpha_previous, stats: SufficientStats, minibatch, rho) -> np.ndarray:
        return self.sticks(stats)


@dataclass(frozen=True)
class StickSelection:
    """After each M-step (`OnlineEM`'s ``topic_selection``): drop every topic whose share of
    the expected tokens sum_v s1_kv / sum_kv s1_kv is below ``prune_share`` (the thesis never
    prunes; spec G6); the largest topic is always kept. Returns the prior after it: G-OEM's
    a_k of a dropped topic joins the rest (a_* += a_k, s2_* = digamma(a_*) - digamma(sum a),
    G4 in reverse; without a rest, a truncated HDP, it is dropped); with ``sticks`` (VarGibbs)
    the tables of a dropped topic go and the sticks are recomputed."""

    prune_share: float = 1e-4
    sticks: StickPosteriorMean | None = None

    def __call__(self, stats: SufficientStats, alpha: np.ndarray) -> np.ndarray:
        n_topics = stats.n_topics
        totals = stats.topic_totals
        if not self.prune_share > 0 or not totals.sum() > 0:
            return alpha
        keep = totals >= self.prune_share * totals.sum()
        keep[np.argmax(totals)] = True
        if keep.all():
            return alpha
        if self.sticks is not None:
            stats.keep_topics(keep)
            return self.sticks.sticks(stats)
        kept = alpha[:n_topics][keep]
        if not has_rest(stats):
            stats.keep_topics(keep)
            return kept
        alpha = np.append(kept, alpha[:n_topics][~keep].sum() + alpha[n_topics])
        stats.keep_topics(keep, digamma(alpha[-1]) - digamma(alpha.sum()))
        return alpha
