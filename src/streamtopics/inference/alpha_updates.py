"""Updates of the Dirichlet prior alpha on topic proportions: the fourth axis of the engine.

Every update is called once per M-step (once per local pass for boosted ++ methods) as

    update(alpha_previous, stats, minibatch, rho) -> alpha

with ``alpha_previous`` = alpha_{i-1} (the value before the minibatch, also during boosted
passes), ``stats`` the blended statistics s_i (`SufficientStats`; s2 is ``stats.log_theta``),
``minibatch`` the minibatch's own summed expectations (`MinibatchStats`) and ``rho`` the step
size. Four updates (thesis Table 4):

* `MinkaFixedPoint` (G-OEM, V-OEM): alpha = alpha*(s_i), the exact M-step (appendix A.1);
* `NewtonStep` (OLDA, SVB): alpha_i = alpha_{i-1} - rho_i H^-1 g, one damped Newton step on the
  minibatch's own objective (Hoffman, Blei & Bach 2010, eq. 9);
* `GammaPrior` (SPLDA): the MAP M-step under a Gamma(shape, rate) prior on each alpha_k, the data
  weighted by the documents seen (Sato, Kurihara & Nakagawa 2010; Dupuy & Bach 2016, appendix F);
* `Fixed` (SGS, VarGibbs): alpha never changes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np
from scipy.special import digamma, zeta

from ..kernels.dirichlet import implied_alpha, inverse_digamma_newton, new_memo

# The largest total concentration sum(alpha) the fixed point returns: when sum_k exp(s2_k) >= 1
# (possible only through rounding) the likelihood grows without bound as alpha grows.
MAX_CONCENTRATION = 1e12
_EULER = 0.5772156649015329


def _trigamma(x):
    return zeta(2.0, x)


def _minka_start(y: np.ndarray) -> np.ndarray:
    """Minka's (2000, appendix C) starting point for digamma(x) = y: exp(y) + 1/2 for
    y >= -2.22, else -1/(y + gamma)."""
    return np.where(y >= -2.22, np.exp(np.minimum(y, 700.0)) + 0.5,
                    -1.0 / (np.minimum(y, -2.22) + _EULER))


def inverse_digamma(y, tolerance: float = 1e-15, max_iterations: int = 60, start=None) -> np.ndarray:
    """x > 0 with digamma(x) = y, elementwise, by Newton's method (`kernels.dirichlet`).

    Starting point: ``start`` (positive, e.g. a nearby earlier solution) or `_minka_start`.
    digamma is increasing and concave, so a Newton step from the right of the root lands left
    of it, and from there the steps increase monotonically to it; a step that would leave
    (0, inf) halves x instead.
    """
    y = np.asarray(y, dtype=np.float64)
    x = _minka_start(y) if start is None else np.asarray(start, dtype=np.float64)
    x = inverse_digamma_newton(y.ravel(), np.broadcast_to(x, y.shape).ravel(), 0.0, tolerance,
                               max_iterations, 0, numba.get_num_threads(), new_memo(y.size))
    return x.reshape(y.shape)


def _implied_alpha(total, log_theta: np.ndarray, memo: np.ndarray, start=None, pole: float = 0.0):
    """`kernels.dirichlet.implied_alpha` for a = ``total``: (alpha(a), its sum, the residual,
    the slope); ``memo``: the digammas and trigammas of one fixed point (`new_memo`). Without
    ``start``, Newton starts from `_minka_start` (NumPy's exp: the kernel has only the C
    library's, which rounds differently)."""
    if start is None:
        start = _minka_start(digamma(total) + log_theta)
    return implied_alpha(float(total), log_theta, np.asarray(start, dtype=np.float64),
                         float(pole), numba.get_num_threads(), memo)


def fixed_point_alpha(log_theta: np.ndarray, start: float = 1.0, tolerance: float = 1e-13,
                      max_iterations: int = 200, alpha_start=None, pole: float = 0.0) -> np.ndarray:
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

    ``pole`` c >= 0 solves digamma(alpha_k) - c / alpha_k - digamma(sum alpha) = s2_k instead
    (the M-step under a Gamma prior, `gamma_prior_alpha`); the same scalar iteration applies, with
    alpha_k(a) from `kernels.dirichlet.inverse_digamma_newton`.

    Each value of a is one kernel call (`kernels.dirichlet.implied_alpha`: the K inverse
    digammas, the sum, the residual and the slope), the same doubles as this iteration written
    with NumPy, SciPy's digamma and `kernels.special.trigamma`; a and its exp and log stay here,
    in NumPy. The calls share one memo of
    digamma and trigamma per value (`kernels.dirichlet.memoised`): a value settled at one a
    starts the next from the same point.
    """
    log_theta = np.ascontiguousarray(log_theta, dtype=np.float64)
    if log_theta.size == 1:
        raise ValueError("alpha is not identifiable with a single topic (s2 = 0 for every alpha)")
    if not np.all(np.isfinite(log_theta)):
        raise ValueError("s2 (expected log topic proportions) must be finite")

    alpha = None if alpha_start is None else np.array(alpha_start, dtype=np.float64)
    memo = new_memo(log_theta.size)
    u = float(np.log(start)) if np.isfinite(start) and start > 0 else 0.0
    low, high = -np.inf, np.inf
    u_max = np.log(MAX_CONCENTRATION)
    for _ in range(max_iterations):
        total = np.exp(u)  # NumPy's exp, as ever: the C library's rounds differently
        alpha, alpha_sum, residual, slope = _implied_alpha(total, log_theta, memo, alpha, pole)
        if residual <= tolerance:
            return alpha
        value = alpha_sum - total
        if value > 0:
            low = u
        else:
            high = u
        if low >= u_max:
            return _implied_alpha(MAX_CONCENTRATION, log_theta, memo, pole=pole)[0]
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


def gamma_prior_alpha(log_theta: np.ndarray, n_documents: float, shape: float, rate: float,
                      start: float = 1.0, tolerance: float = 1e-13, alpha_start=None) -> np.ndarray:
    """The MAP alpha of N documents whose average expected log proportions are s2, under
    independent Gamma(shape, rate) priors on the alpha_k (shape >= 1, rate >= 0):

        max_alpha  N [log Gamma(sum alpha) - sum_k log Gamma(alpha_k) + sum_k alpha_k s2_k]
                   + sum_k [(shape - 1) log alpha_k - rate alpha_k],

    concave, so its maximiser is the unique solution of, for every k,

        digamma(alpha_k) - digamma(sum alpha) = s2_k + ((shape - 1) / alpha_k - rate) / N,

    found by `fixed_point_alpha` with s2 - rate / N and the pole (shape - 1) / N. As N grows the
    prior fades and this tends to Minka's fixed point."""
    if n_documents <= 0:
        raise ValueError(f"the Gamma-prior update needs a positive number of documents, got {n_documents}")
    log_theta = np.asarray(log_theta, dtype=np.float64)
    return fixed_point_alpha(log_theta - rate / n_documents, start=start, tolerance=tolerance,
                             alpha_start=alpha_start, pole=(shape - 1.0) / n_documents)


def newton_alpha_step(alpha: np.ndarray, log_theta: np.ndarray, rho: float = 1.0) -> np.ndarray:
    """alpha - rho H^-1 g for the Dirichlet log-likelihood of one document with expected log
    proportions s2 (Hoffman, Blei & Bach 2010, eq. 9; Blei et al. 2003, appendix A.4.2):
    g_k = digamma(sum alpha) - digamma(alpha_k) + s2_k, H = diag(-trigamma(alpha)) +
    trigamma(sum alpha) 1 1^T, inverted in O(K) (the count of documents scales g and H alike and
    cancels). At rho = 1 repeated steps converge quadratically to Minka's fixed point; a step
    that would leave alpha > 0 is halved until it does not (gensim's implementation skips it)."""
    alpha = np.asarray(alpha, dtype=np.float64)
    total = alpha.sum()
    gradient = digamma(total) - digamma(alpha) + np.asarray(log_theta, dtype=np.float64)
    diagonal = -_trigamma(alpha)
    coupling = _trigamma(total)
    offset = np.sum(gradient / diagonal) / (1.0 / coupling + np.sum(1.0 / diagonal))
    step = -rho * (gradient - offset) / diagonal
    for _ in range(60):
        updated = alpha + step
        if np.all(updated > 0) and np.all(np.isfinite(updated)):
            return updated
        step *= 0.5
    return alpha.copy()


@dataclass(frozen=True)
class NewtonStep:
    """alpha_i = alpha_{i-1} - rho_i H^-1 g on the minibatch's average s2 (OLDA eq. 9, SVB)."""

    def __call__(self, alpha_previous, stats, minibatch, rho) -> np.ndarray:
        if np.size(alpha_previous) == 1:
            return np.array(alpha_previous, dtype=np.float64)
        return newton_alpha_step(alpha_previous, minibatch.log_theta / minibatch.n_documents, rho)


@dataclass(frozen=True)
class GammaPrior:
    """alpha = the MAP M-step under Gamma(shape, rate) priors (`gamma_prior_alpha`), the data
    weighted by the N documents blended so far: with the step size 1/i, s_i is the average of
    their expectations and this is the MAP of incremental EM, SPLDA's update (Sato et al. 2010;
    Dupuy & Bach 2016, appendix F). Default Gamma(2, 1): weakly informative (mode 1), worth
    about one document, it keeps alpha away from 0 on the first minibatches."""

    shape: float = 2.0
    rate: float = 1.0
    tolerance: float = 1e-13

    def __post_init__(self):
        if not self.shape >= 1.0 or not self.rate >= 0.0:
            raise ValueError(f"the Gamma prior on alpha needs shape >= 1 and rate >= 0, got "
                             f"shape={self.shape!r}, rate={self.rate!r}")

    def __call__(self, alpha_previous, stats, minibatch=None, rho=None) -> np.ndarray:
        if np.size(alpha_previous) == 1:
            return np.array(alpha_previous, dtype=np.float64)
        return gamma_prior_alpha(stats.log_theta, stats.n_documents, self.shape, self.rate,
                                 start=float(np.sum(alpha_previous)), tolerance=self.tolerance,
                                 alpha_start=alpha_previous)
