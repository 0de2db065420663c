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
`StickSelection` prunes after each M-step, and `StickConcentration` gives the stick
concentration alpha of Beta(1, alpha), fixed or learnt by empirical Bayes from the expected
number of tables (`empirical_bayes_concentration`).

VarGibbs (Wang & Blei 2012; thesis eq. 18) keeps Bayesian sticks instead: q(pibar_k) =
Beta(a_k, b_k) from the expected table counts (`StickPosteriorMean`, the local step's
"tables" statistic) and q(beta_k) = Dirichlet(lambda_k) topics (`StickDirichlet`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from scipy.optimize import brentq
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

    def word_weights(self, stats: SufficientStats, words: np.ndarray,
                     out: np.ndarray | None = None) -> np.ndarray:
        weights = local_word_weights(super().word_weights(stats, words, out))
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


def expected_topics(concentration: float, n_tables: float) -> float:
    """E[K | alpha, m] = alpha (digamma(alpha + m) - digamma(alpha)) = sum_{i<m} alpha / (alpha
    + i): the expected number of distinct topics (dishes) among m tables of a Dirichlet process of
    concentration alpha (Antoniak 1974), increasing in alpha from 1 (alpha -> 0) to m."""
    return concentration * (digamma(concentration + n_tables) - digamma(concentration))


def empirical_bayes_concentration(n_topics: float, n_tables: float) -> float:
    """The alpha maximising p(K | alpha, m) = S(m, K) alpha^K Gamma(alpha) / Gamma(alpha + m),
    the law of the number K of topics among m tables under the corpus-level DP of the HDP
    (Antoniak 1974; Escobar & West 1995, eq. 13; Teh et al. 2006, section 5.3 and appendix A,
    whose auxiliary-variable sampler draws alpha from this likelihood times a Gamma prior). Its
    log-derivative K / alpha + digamma(alpha) - digamma(alpha + m) vanishes where K =
    `expected_topics`(alpha, m), one root for 1 < K < m (``ValueError`` otherwise). The stick
    likelihood T log alpha + (alpha - 1) sum_k log(1 - pibar_k) is no use here: the sum is
    log pi_* (the product of the (1 - pibar_k) is the rest), and the rest of G-OEM's sticks is
    split by alpha itself, so its maximiser T / (-log pi_*) returns the alpha the model was run
    with (docs/hdp.md)."""
    if not 1.0 < n_topics < n_tables:
        raise ValueError(f"the concentration is identifiable for 1 < K < m only, got K = "
                         f"{n_topics}, m = {n_tables}")
    high = 1.0
    while expected_topics(high, n_tables) < n_topics:
        high *= 2.0
    return float(brentq(lambda alpha: expected_topics(alpha, n_tables) - n_topics,
                        1e-12, high, xtol=1e-12, rtol=1e-14))


@dataclass(frozen=True)
class StickConcentration:
    """alpha of the sticks pibar_k ~ Beta(1, alpha): ``initial`` until the statistics carry
    expected tables, then, if ``learnt``, the empirical-Bayes value
    (`empirical_bayes_concentration`) with K = T, the topics in use after pruning, and
    m = D t, t the expected tables per document blended by eq. 3 (`SufficientStats.tables`)
    and D the documents seen: the number of tables of the documents seen so far if every one
    were drawn under the current parameters. A pure function of s_i, so a model file resumes
    exactly. As the engine's ``local_update`` it gives the local step its concentration."""

    initial: float
    learnt: bool = True

    def value(self, stats: SufficientStats) -> float:
        if not self.learnt or not stats.tables:
            return self.initial
        n_tables = stats.n_documents * stats.tables
        if not 1 < stats.n_topics < n_tables:
            return self.initial
        return empirical_bayes_concentration(stats.n_topics, n_tables)

    def __call__(self, local, stats: SufficientStats):
        return replace(local, stick_concentration=self.value(stats))


@dataclass(frozen=True)
class StickPosteriorMean:
    """VarGibbs' sticks (thesis eq. 18), as an `AlphaUpdate`: q(pibar_k) = Beta(a_k, b_k) with

        a_k = 1 + D t_k,    b_k = alpha + D sum_{j>k} t_j,

    alpha from ``concentration`` (`StickConcentration`), t = s2, the blended expected tables per
    document (the blend (1 - rho)(a, b) + rho (a-hat, b-hat) of eq. 18 is this with t blended by
    eq. 3, as lambda with s1). The local step's
    alpha is b E_q[pi]: E_q[pibar] = a / (a + b) through `stick_weights` (the mean of the
    product of independent breaks), the rest last. The thesis writes b_k - alpha in the
    exponent of pibar's conditional (line 1410), a typo for b_k - 1 (spec 1.6)."""

    corpus_size: float
    concentration: StickConcentration
    doc_concentration: float

    def beta_parameters(self, stats: SufficientStats) -> tuple[np.ndarray, np.ndarray]:
        tables = stats.log_theta[:stats.n_topics]
        later = np.cumsum(tables[::-1])[::-1] - tables
        return (1.0 + self.corpus_size * tables,
                self.concentration.value(stats) + self.corpus_size * later)

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
