"""The corpus-level sticks of HDP G-OEM (Dupuy 2017, section 3.4): start, word weights, pruning.

HDP's global parameters are (beta, pi) (eq. 17: phi1_k = b pi_k, phi2_kv = log beta_kv). The
engine keeps a = b (pi_1, ..., pi_T, pi_*) as its "alpha": T instantiated topics plus the rest of
the stick * = every topic not yet instantiated, which the Dirichlet aggregation property makes
exact, (nu_1, ..., nu_T, sum_{k>T} nu_k) ~ Dirichlet(a) (specs/components.md G1). So:

* the M-step of the box after eq. 17, digamma(b pi_k) - digamma(b sum pi) = s1_k, is Minka's fixed
  point (`alpha_updates.MinkaFixedPoint`) over the T + 1 components, with s1_* = E[log nu_*]: the
  concentration b_eff = sum a is learnt with pi (the thesis' unconstrained fixed point), and
  pi = a / sum a stays a distribution with pi_* >= 0, so the growth term b (1 - sum pi) of
  section 3.4 never turns negative;
* beta is the smoothed point estimate of LDA G-OEM (`PointEstimate`, eta > 0 the posterior mean);
* a truncated HDP (T = ``max_topics``) has no rest: a has T entries, no topic opens, and the
  model is LDA with alpha = b pi.

`initial_sticks` draws the start (T = 2 topics, thesis p. 59), `StickPointEstimate` gives the
local step its word weights (one more column: the weight of a word under a new topic), and
`StickSelection` prunes after each M-step.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .global_parameters import PointEstimate
from .gibbs_estep import local_word_weights
from .stats import SufficientStats

UNSEEN_WORDS = ("uniform", "new-topic")


def initial_sticks(n_topics: int, rng: np.random.Generator, stick_concentration: float,
                   doc_concentration: float, truncated: bool) -> np.ndarray:
    """a_0 = b (pi_1, ..., pi_T, pi_*): pibar_k ~ Beta(1, alpha), pi_k = pibar_k prod_{j<k}(1 -
    pibar_j) (section 3.4, step 2), pi_* = prod_{j<=T}(1 - pibar_j); ``truncated`` (T is the
    cap): pibar_T = 1, so pi_T takes the rest and a has T entries summing to b."""
    pibar = rng.beta(1.0, stick_concentration, size=n_topics)
    if truncated:
        pibar[-1] = 1.0
    left = np.concatenate([[1.0], np.cumprod(1.0 - pibar)])
    pi = pibar * left[:-1]
    pi = pi if truncated else np.append(pi, left[-1])
    return doc_concentration * np.maximum(pi, np.finfo(float).tiny)


def has_rest(stats: SufficientStats) -> bool:
    """Whether the statistics carry the rest of the stick (s1 has T + 1 entries)."""
    return stats.log_theta.size > stats.n_topics


@dataclass(frozen=True)
class StickPointEstimate(PointEstimate):
    """`PointEstimate` topics, whose word weights get one more column while the stick has a
    rest: the weight of the word under a topic not yet instantiated, 1/V (the Dirichlet(eta)
    prior predictive; thesis p. 60, "b (1 - sum pi) / V").

    ``unseen_words``: a word no document has put in any topic (zero statistics) has under the
    point estimate a weight near 0 in every topic, so read literally ("new-topic") each such
    token would open a topic, early in a stream one per new word (spec G6). "uniform" (default)
    gives it under a new topic the mean of its weights in the existing ones instead: its
    conditional then follows the document's counts and a, and does not force growth."""

    unseen_words: str = "uniform"

    name = "sticks"

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
class StickSelection:
    """After each M-step (`OnlineEM`'s ``topic_selection``): drop every topic whose share of
    the expected tokens sum_v s1_kv / sum_kv s1_kv is below ``prune_share`` (the thesis never
    prunes; spec G6); a dropped topic's a_k joins the rest (a_* += a_k; without a rest, a
    truncated HDP, it is dropped). The largest topic is always kept. Returns None when nothing
    changes, else (keep mask, new a)."""

    prune_share: float = 1e-4

    def __call__(self, stats: SufficientStats, alpha: np.ndarray):
        n_topics = stats.n_topics
        totals = stats.topic_totals
        if not self.prune_share > 0 or not totals.sum() > 0:
            return None
        keep = totals >= self.prune_share * totals.sum()
        keep[np.argmax(totals)] = True
        if keep.all():
            return None
        kept = alpha[:n_topics][keep]
        if not has_rest(stats):
            return keep, kept
        return keep, np.append(kept, alpha[:n_topics][~keep].sum() + alpha[n_topics])
