"""Synthetic DPP data as in the thesis' section 4.5.1: a random low-rank L, exact samples.

U* has N(0, 1/V) entries (unit-norm columns on average) and each theta* entry is exponential with
mean ``theta_scale``; the thesis only says "U and theta generated randomly", so these laws are
our choice. With ``per_set_theta`` every set gets its own theta (the second kind of data set in
section 4.5.1, where only U is common to all observations).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .kernel import BaseMeasure, explicit_features, low_rank_a
from .sampling import LowRankSampler


@dataclass
class SyntheticDPP:
    base: BaseMeasure
    U: np.ndarray          # V x r*
    theta: np.ndarray      # (n_sets, r*) or (1, r*)
    gamma: float
    alpha: float
    sets: list             # item ids per set (into the explicit ground set)

    def as_observed(self, ids=None) -> list:
        """The sets in `Observations` form: item ids, or lists of word ids for {0,1}^V."""
        chosen = self.sets if ids is None else [self.sets[i] for i in ids]
        if self.base.kind == "items":
            return [list(s) for s in chosen]
        Phi, _ = explicit_features(self.base)
        return [[np.flatnonzero(Phi[item]) for item in s] for s in chosen]


def generate(kind: str, n_words: int, rank: int, n_sets: int, per_set_theta: bool, seed: int,
             alpha: float = 1e-5, gamma: float | None = None, pi: float = 0.5,
             theta_scale: float = 2.0) -> SyntheticDPP:
    """Draw U*, theta* and ``n_sets`` exact samples (empty samples included, as the DPP makes them:
    redrawing them would condition on X != {} and bias every likelihood comparison)."""
    rng = np.random.default_rng(seed)
    base = BaseMeasure.items(n_words) if kind == "items" else BaseMeasure.binary(np.full(n_words, pi))
    if gamma is None:
        gamma = 0.0 if kind == "items" else 1.0 / n_words
    U = rng.normal(scale=1.0 / np.sqrt(n_words), size=(n_words, rank))
    theta = rng.exponential(theta_scale, size=(n_sets if per_set_theta else 1, rank))
    Phi, log_p = explicit_features(base)
    sampler = LowRankSampler(np.exp(0.5 * log_p)[:, None] * Phi, alpha)
    sets = []
    for i in range(n_sets):
        A = low_rank_a(U, theta[i if per_set_theta else 0], gamma)
        sets.append(sampler.sample(A, rng))
    return SyntheticDPP(base, U, theta, gamma, alpha, sets)
