"""Updates of the Dirichlet prior alpha on topic proportions: the fourth axis of the engine.

Every update is called once per M-step (once per local pass for boosted ++ methods) as

    update(alpha_previous, stats, minibatch, rho) -> alpha

with ``alpha_previous`` = alpha_{i-1} (the value before the minibatch, also during boosted
passes), ``stats`` the blended statistics s_i (`SufficientStats`; s2 is ``stats.log_theta``),
``minibatch`` the minibatch's own summed expectations (`MinibatchStats`) and ``rho`` the step
size. That is enough for the frequentist fixed point below, for a Gamma prior (a MAP version
weighted by ``stats.n_documents``) and for the stochastic Newton step of online LDA (Hoffman et
al. 2010, which steps alpha_{i-1} by rho times a Newton direction computed from the minibatch);
the latter two belong to the baselines (issue 5).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import digamma, zeta

# The largest total concentration sum(alpha) the fixed point returns: when sum_k exp(s2_k) >= 1
# (possible only through rounding) the likelihood grows without bound as alpha grows.
MAX_CONCENTRATION = 1e12
_EULER = 0.5772156649015329


def _trigamma(x):
    return zeta(2.0, x)


def inverse_digamma(y, tolerance: float = 1e-15, max_iterations: int = 60, start=None) -> np.ndarray:
    """x > 0 with digamma(x) = y, elementwise, by Newton's method.

    Starting point: ``start`` (positive, e.g. a nearby earlier solution) or that of Minka (2000,
    appendix C), exp(y) + 1/2 for y >= -2.22, else -1/(y + gamma). digamma is increasing and
    concave, so a Newton step from the right of the root lands left of it, and from there the
    steps increase monotonically to it; a step that would leave (0, inf) halves x instead.
    """
    y = np.asarray(y, dtype=np.float64)
    if start is None:
        x = np.where(y >= -2.22, np.exp(np.minimum(y, 700.0)) + 0.5,
                     -1.0 / (np.minimum(y, -2.22) + _EULER))
    else:
        x = np.array(start, dtype=np.float64)
    for _ in range(max_iterations):
        step = (digamma(x) - y) / _trigamma(x)
        new = np.where(step >= x, 0.5 * x, x - step)
        if np.all(np.abs(new - x) <= tolerance * new):
            return new
        x = new
    return x


def _implied_alpha(total: float, log_theta: np.ndarray, start=None) -> np.ndarray:
    return np.maximum(inverse_digamma(digamma(total) + log_theta, start=start), np.finfo(float).tiny)


def fixed_point_alpha(log_theta: np.ndarray, start: float = 1.0, tolerance: float = 1e-13,
                      max_iterations: int = 200, alpha_start=None) -> np.ndarray:
    """alpha solving digamma(alpha_k) - digamma(sum_j alpha_j) = s2_k for every k (appendix A.1).

    Minka's fixed point alpha_k <- digamma^-1(digamma(sum alpha) + s2_k) changes alpha only
    through a = sum alpha: it is the scalar iteration a <- g(a) = sum_k digamma^-1(digamma(a) +
    s2_k). Its fixed point is unique (the objective is concave in alpha), with g(a) > a below it
    and g(a) < a above (for K >= 2 and sum_k exp(s2_k) < 1, which holds for any average of
    expectations of log theta, by Jensen). We find it by Newton's method on log a, safeguarded by
    bisection inside a bracket, until |digamma(a) - digamma(g(a))| (the residual of every
    equation) is below ``tolerance``; then alpha_k = digamma^-1(digamma(a) + s2_k) > 0.
    ``start`` is the initial guess for a (the previous sum of alpha), ``alpha_start`` an optional
    initial guess for alpha (inverse digamma warm start; each iterate warm-starts the next).
    """
    log_theta = np.asarray(log_theta, dtype=np.float64)
    if log_theta.size == 1:
        raise ValueError("alpha is not identifiable with a single topic (s2 = 0 for every alpha)")
    if not np.all(np.isfinite(log_theta)):
        raise ValueError("s2 (expected log topic proportions) must be finite")

    guess = [None if alpha_start is None else np.array(alpha_start, dtype=np.float64)]

    def excess(u):
        total = np.exp(u)
        alpha = _implied_alpha(total, log_theta, guess[0])
        guess[0] = alpha
        return alpha.sum() - total, alpha, total

    u = float(np.log(start)) if np.isfinite(start) and start > 0 else 0.0
    low, high = -np.inf, np.inf
    u_max = np.log(MAX_CONCENTRATION)
    for _ in range(max_iterations):
        value, alpha, total = excess(u)
        if abs(digamma(total) - digamma(alpha.sum())) <= tolerance:
            return alpha
        if value > 0:
            low = u
        else:
            high = u
        if low >= u_max:
            return _implied_alpha(MAX_CONCENTRATION, log_theta)
        slope = total * (_trigamma(total) * np.sum(1.0 / _trigamma(alpha)) - 1.0)
        candidate = u - value / slope if slope < 0 else np.nan
        if not low < candidate < min(high, u_max):
            if np.isfinite(low) and np.isfinite(high):
                candidate = 0.5 * (low + high)
            else:
                candidate = min(u + 2.0, 0.5 * (u + u_max)) if value > 0 else u - 2.0
        u = candidate
    return alpha


@dataclass(frozen=True)
class MinkaFixedPoint:
    """alpha = alpha*(s): the exact M-step for alpha (appendix A.1) by `fixed_point_alpha`.
    With a single topic alpha is not identifiable and stays as it is."""

    tolerance: float = 1e-13

    def __call__(self, alpha_previous, stats, minibatch=None, rho=None) -> np.ndarray:
        if np.size(alpha_previous) == 1:
            return np.array(alpha_previous, dtype=np.float64)
        return fixed_point_alpha(stats.log_theta, start=float(np.sum(alpha_previous)),
                                 tolerance=self.tolerance, alpha_start=alpha_previous)


@dataclass(frozen=True)
class Fixed:
    """alpha never changes (SGS, VarGibbs; thesis Table 4)."""

    def __call__(self, alpha_previous, stats=None, minibatch=None, rho=None) -> np.ndarray:
        return np.array(alpha_previous, dtype=np.float64)
