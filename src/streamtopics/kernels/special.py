"""Special functions for numba kernels (the one implementation every kernel uses)."""

from __future__ import annotations

import math

from numba import njit


@njit(cache=True)
def digamma(x):
    """The digamma function psi(x) = d/dx log Gamma(x) for x > 0, to about 1e-15 relative
    accuracy.

    Shifts x to >= 10 with the recurrence psi(x) = psi(x + 1) - 1/x (the shifts summed as one
    fraction, a single division), then the asymptotic series
    log x - 1/(2x) - sum_k B_2k / (2k x^2k) up to the x^-12 term (next term < 1e-15).
    """
    numerator = 0.0
    denominator = 1.0
    while x < 10.0:
        numerator = numerator * x + denominator
        denominator *= x
        x += 1.0
    f = 1.0 / (x * x)
    series = f * (-1.0 / 12 + f * (1.0 / 120 + f * (-1.0 / 252 + f * (
        1.0 / 240 + f * (-1.0 / 132 + f * (691.0 / 32760))))))
    return math.log(x) - 0.5 / x + series - numerator / denominator
