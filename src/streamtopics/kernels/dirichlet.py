"""The inner work of the alpha M-step (`inference.alpha_updates`, Dupuy & Bach 2016,
appendix A.1) as one kernel call per value of sum(alpha): the K inverse digammas by Newton's
method, their sum, the residual and the slope of the outer iteration.

The arithmetic is that of a NumPy form, operation for operation (tests/test_alpha_updates.py):
SciPy's digamma (`kernels.special.scipy_digamma`), whose equations define alpha, the trigamma
of `kernels.special.trigamma` for Newton's derivatives (they only steer the steps; SciPy's
zeta(2, x) would be most of the M-step's work, and replacing it moves alpha by ulps), NumPy's
pairwise sums (`pairwise_sum`), elementwise steps in the same order, the same stopping rule
over all K values.

The K values run in parallel (``n_threads`` ranges of topics), each with its own Newton
iterates; only the stopping rule joins them: the NumPy form stops at the first iteration T at
which *every* value moved by at most the tolerance, and returns every value's iterate T, also
for values that were close earlier. So each value first iterates until it is close itself
(T is at least the latest of those), then every value is carried on to T, checked, and T moves
on while one is not close: the same T and the same iterates for any thread count.

digamma(x) and trigamma(x) of each value are memoised at the last x they were evaluated at
(``memo``, K x 3: x, digamma(x), trigamma(x); `memoised`), which the caller keeps across the
calls of one fixed point: a value that Newton's method has settled exactly (x_T = x_{T-1}, most
of them) needs neither again, not for the outer slope (psi'(alpha_k))
nor for the first step of the next value of sum(alpha), which starts from it. A pure function's
cache: the same doubles as evaluating them each time.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from .special import pairwise_sum, scipy_digamma, trigamma

TINY = np.finfo(np.float64).tiny


def new_memo(n):
    """An empty `memoised` cache of n values (no x equals NaN)."""
    return np.full((n, 3), np.nan)


@njit(cache=True, inline="always")
def memoised(memo, k, x):
    """(digamma(x), trigamma(x)) of value k, from ``memo[k]`` when x is its point, else
    evaluated and memoised there."""
    if memo[k, 0] != x:
        memo[k, 0] = x
        memo[k, 1] = scipy_digamma(x)
        memo[k, 2] = trigamma(x)
    return memo[k, 1], memo[k, 2]


@njit(cache=True, inline="always")
def _newton_step(x, y, pole, memo, k):
    """One Newton step for digamma(x) - pole / x = y (value k of ``memo``); without a pole, a
    step that would leave (0, inf) halves x instead."""
    digamma_x, trigamma_x = memoised(memo, k, x)
    if pole == 0.0:
        step = (digamma_x - y) / trigamma_x
        return 0.5 * x if step >= x else x - step
    step = (digamma_x - pole / x - y) / (trigamma_x + pole / (x * x))
    return x - step


@njit(cache=True, inline="always")
def _close(new, old, tolerance):
    return abs(new - old) <= tolerance * new


@njit(cache=True, parallel=True)
def _newton(y, start, pole, tolerance, iterations, n_threads, memo):
    """Iterate T of Newton's method from ``start`` on every value, T the first iteration at
    which every value is `_close` to its previous iterate, or ``iterations`` (module
    docstring)."""
    n = y.size
    if iterations == 0:
        return start.copy()
    # Plain loops outside prange: numba would make each array expression a parallel region.
    history = np.empty((iterations + 1, n))
    for k in range(n):
        history[0, k] = start[k]
    done = np.empty(n, dtype=np.int64)  # iterates computed per value
    n_parts = max(1, min(n_threads, n))
    for part in prange(n_parts):
        for k in range(n * part // n_parts, n * (part + 1) // n_parts):
            t = 0
            while t < iterations:
                history[t + 1, k] = _newton_step(history[t, k], y[k], pole, memo, k)
                t += 1
                if _close(history[t, k], history[t - 1, k], tolerance):
                    break
            done[k] = t
    last = 0
    for k in range(n):
        last = max(last, done[k])
    close = np.empty(n, dtype=np.bool_)
    while True:
        for part in prange(n_parts):
            for k in range(n * part // n_parts, n * (part + 1) // n_parts):
                for t in range(done[k], last):
                    history[t + 1, k] = _newton_step(history[t, k], y[k], pole, memo, k)
                done[k] = max(done[k], last)
                close[k] = _close(history[last, k], history[last - 1, k], tolerance)
        every = True
        for k in range(n):
            every = every and close[k]
        if last == iterations or every:
            return history[last].copy()
        last += 1


@njit(cache=True)
def inverse_digamma_newton(y, start, pole, tolerance, max_iterations, pole_iterations, n_threads,
                           memo):
    """x > 0 with digamma(x) - pole / x = y, elementwise, by Newton's method from ``start``:
    first on digamma(x) = y, at most ``max_iterations`` steps, then with the pole (``pole`` > 0
    only), at most ``pole_iterations``; each stops at the first step where every x moved by at
    most ``tolerance`` relative to its new value. ``memo``: `new_memo` (or one kept from
    earlier calls)."""
    x = _newton(y, start, 0.0, tolerance, max_iterations, n_threads, memo)
    if pole == 0.0:
        return x
    return _newton(y, x, pole, tolerance, pole_iterations, n_threads, memo)


@njit(cache=True, parallel=True)
def implied_alpha(total, log_theta, start, pole, n_threads, memo):
    """For a = ``total``: alpha_k(a) = max(x_k, tiny) with digamma(x_k) - pole / x_k =
    digamma(a) + s2_k (Newton from ``start``, ``memo`` as in `inverse_digamma_newton`);
    returns (alpha, sum(alpha), the residual |digamma(a) - digamma(sum alpha)|, the slope
    a (psi'(a) sum_k 1 / (psi'(alpha_k) + pole / alpha_k^2) - 1) of the outer Newton step on
    log a)."""
    n = log_theta.size
    digamma_total = scipy_digamma(total)
    y = np.empty(n)
    for k in range(n):
        y[k] = digamma_total + log_theta[k]
    alpha = inverse_digamma_newton(y, start, pole, 1e-15, 60, 100, n_threads, memo)
    inverses = np.empty(n)
    n_parts = max(1, min(n_threads, n))
    for part in prange(n_parts):
        for k in range(n * part // n_parts, n * (part + 1) // n_parts):
            if alpha[k] < TINY:
                alpha[k] = TINY
            inverses[k] = 1.0 / (memoised(memo, k, alpha[k])[1]
                                 + pole / (alpha[k] * alpha[k]))
    alpha_sum = pairwise_sum(alpha)
    residual = abs(digamma_total - scipy_digamma(alpha_sum))
    slope = total * (trigamma(total) * pairwise_sum(inverses) - 1.0)
    return alpha, alpha_sum, residual, slope
