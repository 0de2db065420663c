"""The inner work of the alpha M-step (`inference.alpha_updates`, Dupuy & Bach 2016,
appendix A.1) as one kernel call per value of sum(alpha): the K inverse digammas by Newton's
method, their sum, the residual and the slope of the outer iteration.

The arithmetic is that of the NumPy form it replaces, operation for operation: SciPy's digamma
and trigamma (`kernels.special.scipy_digamma`, `scipy_zeta`), NumPy's pairwise sums
(`pairwise_sum`), elementwise steps in the same order, the same stopping rule over all K
values; so alpha is the same double for double. ``order`` is always 2.0 (the trigamma
function is zeta(2, x)), passed at run time for `scipy_zeta`'s sake.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .special import pairwise_sum, scipy_digamma, scipy_zeta

TINY = np.finfo(np.float64).tiny


@njit(cache=True)
def inverse_digamma_newton(y, start, pole, order, tolerance, max_iterations, pole_iterations):
    """x > 0 with digamma(x) - pole / x = y, elementwise, by Newton's method from ``start``:
    first on digamma(x) = y (a step that would leave (0, inf) halves x instead), at most
    ``max_iterations`` steps, then with the pole (``pole`` > 0 only), at most
    ``pole_iterations``; each stops at the first step where every x moved by at most
    ``tolerance`` relative to its new value."""
    n = y.size
    x = start.copy()
    new = np.empty(n)
    for _ in range(max_iterations):
        done = True
        for k in range(n):
            step = (scipy_digamma(x[k]) - y[k]) / scipy_zeta(order, x[k])
            new[k] = 0.5 * x[k] if step >= x[k] else x[k] - step
            done = done and abs(new[k] - x[k]) <= tolerance * new[k]
        x, new = new, x
        if done:
            break
    if pole == 0.0:
        return x
    for _ in range(pole_iterations):
        done = True
        for k in range(n):
            value = x[k]
            step = ((scipy_digamma(value) - pole / value - y[k])
                    / (scipy_zeta(order, value) + pole / (value * value)))
            new[k] = value - step
            done = done and abs(new[k] - value) <= tolerance * new[k]
        x, new = new, x
        if done:
            break
    return x


@njit(cache=True)
def implied_alpha(total, log_theta, start, pole, order):
    """For a = ``total``: alpha_k(a) = max(x_k, tiny) with digamma(x_k) - pole / x_k =
    digamma(a) + s2_k (Newton from ``start``); returns (alpha, sum(alpha), the residual
    |digamma(a) - digamma(sum alpha)|, the slope a (psi'(a) sum_k 1 / (psi'(alpha_k) +
    pole / alpha_k^2) - 1) of the outer Newton step on log a)."""
    digamma_total = scipy_digamma(total)
    y = np.empty(log_theta.size)
    for k in range(y.size):
        y[k] = digamma_total + log_theta[k]
    alpha = inverse_digamma_newton(y, start, pole, order, 1e-15, 60, 100)
    inverses = np.empty(alpha.size)
    for k in range(alpha.size):
        if alpha[k] < TINY:
            alpha[k] = TINY
        inverses[k] = 1.0 / (scipy_zeta(order, alpha[k]) + pole / (alpha[k] * alpha[k]))
    alpha_sum = pairwise_sum(alpha)
    residual = abs(digamma_total - scipy_digamma(alpha_sum))
    slope = total * (scipy_zeta(order, total) * pairwise_sum(inverses) - 1.0)
    return alpha, alpha_sum, residual, slope
