"""Special functions for numba kernels.

Two digammas, on purpose: `digamma`, the fast one the variational and evaluation kernels use
(about 1e-15 relative accuracy); `scipy_digamma`, SciPy's own algorithm double for double, for
the alpha M-step (`kernels.dirichlet`), whose equations digamma(alpha_k) - digamma(sum alpha)
= s2_k it defines. Moving the other kernels to `scipy_digamma` would change their results in
the last bits (and every variational fingerprint). `trigamma`: psi'(x) to about 1e-15, the
derivative of Newton's steps in that M-step (it steers them, the digamma defines the root).
`pairwise_sum`: NumPy's summation order.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit


@njit(cache=False)
def digamma(x):
    """The digamma function psi(x) = d/dx log Gamma(x) for x > 0, to about 1e-15 relative
    accuracy.

    Shifts x to >= 10 with the recurrence psi(x) = psi(x + 1) - 1/x (the shifts summed as one
    fraction, a single division), then the asymptotic series
    log x - 1/(2x) - sum_k B_2k / (2k x^2k) up to the x^-12 term (next term < 1e-15).

    Never cached on its own: a kernel that calls it (cached itself) compiles it in. A copy
    cached by another caller would be linked instead, and LLVM optimises a linked call
    differently from an inlined one, so the variational kernels' last bits (and
    `tests/test_bit_identity.py`) would depend on which kernel had been compiled first.
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


# --- SciPy's own digamma, bit for bit ------------------------------------------------------------
# The alpha M-step (`kernels.dirichlet`) solves its equations with scipy.special.digamma's
# doubles: this follows the algorithm SciPy evaluates for x > 0 (Cephes' psi, with Boost's
# rational approximation on [1, 2]), operation for operation, with the same C library log, so it
# returns the same doubles (tests/test_special.py compares them on half a million arguments).

_EULER = 0.5772156649015329
# Asymptotic series of psi: B_2k / (2k), highest order first.
_PSI_SERIES = np.array([8.33333333333333333333e-2, -2.10927960927960927961e-2,
                        7.57575757575757575758e-3, -4.16666666666666666667e-3,
                        3.96825396825396825397e-3, -8.33333333333333333333e-3,
                        8.33333333333333333333e-2])
# psi on [1, 2] = (x - root) (Y + P(x - 1) / Q(x - 1)): the positive root of psi in three
# parts, Y rounded to single precision, P and Q highest order first (Boost, J. Maddock 2006).
_ROOT1 = 1569415565.0 / 1073741824.0
_ROOT2 = (381566830.0 / 1073741824.0) / 1073741824.0
_ROOT3 = 0.9016312093258695918615325266959189453125e-19
_PSI_Y = float(np.float32(0.99558162689208984))
_PSI_P = np.array([-0.0020713321167745952, -0.045251321448739056, -0.28919126444774784,
                   -0.65031853770896507, -0.32555031186804491, 0.25479851061131551])
_PSI_Q = np.array([-0.55789841321675513e-6, 0.0021284987017821144, 0.054151797245674225,
                   0.43593529692665969, 1.4606242909763515, 2.0767117023730469, 1.0])


@njit(cache=True, inline="always")
def _horner(x, coefficients):
    value = coefficients[0]
    for i in range(1, coefficients.size):
        value = value * x + coefficients[i]
    return value


@njit(cache=True)
def scipy_digamma(x):
    """``scipy.special.digamma(x)`` for x >= 0 (and NaN), the same double."""
    if x != x or x == math.inf:
        return x
    if x == 0.0:
        return -math.inf
    y = 0.0
    if x <= 10.0 and x == math.floor(x):
        for i in range(1, int(x)):
            y += 1.0 / i
        return y - _EULER
    if x < 1.0:
        y -= 1.0 / x
        x += 1.0
    elif x < 10.0:
        while x > 2.0:
            x -= 1.0
            y += 1.0 / x
    if 1.0 <= x <= 2.0:
        g = x - _ROOT1
        g -= _ROOT2
        g -= _ROOT3
        r = _horner(x - 1.0, _PSI_P) / _horner(x - 1.0, _PSI_Q)
        return y + (g * _PSI_Y + g * r)
    series = 0.0
    if x < 1.0e17:
        z = 1.0 / (x * x)
        series = z * _horner(z, _PSI_SERIES)
    return y + (math.log(x) - (0.5 / x) - series)


# psi'(x) ~ 1/x + 1/(2 x^2) + sum_k B_2k / x^(2k + 1): B_2k for k = 7 down to 1.
_TRIGAMMA_SERIES = np.array([7.0 / 6.0, -691.0 / 2730.0, 5.0 / 66.0, -1.0 / 30.0, 1.0 / 42.0,
                             -1.0 / 30.0, 1.0 / 6.0])


@njit(cache=True)
def trigamma(x):
    """The trigamma function psi'(x) = sum_n 1 / (x + n)^2 for x >= 0 (and NaN), to about
    1e-15 relative accuracy (within 1.2e-15 of ``scipy.special.zeta(2, x)``; inf at 0).

    Shifts x to >= 10 with the recurrence psi'(x) = psi'(x + 1) + 1/x^2, then the asymptotic
    series up to the x^-15 term (the next one is below 1e-15 of the value there). About 15 ns,
    where SciPy's Hurwitz zeta by Euler-Maclaurin summation took about 200: the alpha M-step's
    Newton steps need one per value and step (`kernels.dirichlet`).
    """
    if x != x:
        return x
    if x <= 0.0:
        return math.inf if x == 0.0 else math.nan
    shifts = 0.0
    while x < 10.0:
        inverse = 1.0 / x
        shifts += inverse * inverse
        x += 1.0
    inverse = 1.0 / x
    square = inverse * inverse
    return shifts + (inverse + 0.5 * square + inverse * square * _horner(square, _TRIGAMMA_SERIES))


@njit(cache=True)
def pairwise_sum(values):
    """``values.sum()`` as NumPy sums a contiguous float64 array (pairwise: blocks of at most
    128 with eight running sums, split in halves that are multiples of 8 above that)."""
    n = values.size
    if n < 8:
        total = 0.0
        for i in range(n):
            total += values[i]
        return total
    if n > 128:
        half = n // 2
        half -= half % 8
        return pairwise_sum(values[:half]) + pairwise_sum(values[half:])
    r = values[:8].copy()
    i = 8
    while i < n - n % 8:
        for j in range(8):
            r[j] += values[i + j]
        i += 8
    total = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
    while i < n:
        total += values[i]
        i += 1
    return total
