"""Special functions for numba kernels.

Two digammas, on purpose: `digamma`, the fast one the variational and evaluation kernels use
(about 1e-15 relative accuracy); `scipy_digamma` and `scipy_zeta`, SciPy's own algorithms
double for double, for the alpha M-step (`kernels.dirichlet`), whose alpha must stay the double
its SciPy form gave. Moving the other kernels to `scipy_digamma` would change their results
in the last bits (and every variational fingerprint). `pairwise_sum`: NumPy's summation order.
"""

from __future__ import annotations

import math

import numpy as np
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


# --- SciPy's own digamma and trigamma, bit for bit ---------------------------------------------
# The alpha M-step (`kernels.dirichlet`) must give the same alpha as its NumPy form did with
# scipy.special.digamma and zeta(2, x): these follow the algorithms SciPy evaluates for x > 0
# (Cephes' psi, with Boost's rational approximation on [1, 2], and Cephes' Hurwitz zeta by
# Euler-Maclaurin summation), operation for operation, with the same C library log and pow, so
# they return the same doubles (tests/test_special.py compares them on millions of arguments).

_EULER = 0.5772156649015329
_MACHEP = 1.11022302462515654042e-16
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
# Euler-Maclaurin coefficients of the Hurwitz zeta function: (2j)! / B_2j.
_ZETA_A = np.array([12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9,
                    7.47242496e10, -2.950130727918164224e12, 1.1646782814350067249e14,
                    -4.5979787224074726105e15, 1.8152105401943546773e17,
                    -7.1661652561756670113e18])


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


@njit(cache=True)
def scipy_zeta(x, q):
    """``scipy.special.zeta(x, q)`` for x > 1 and q > 0 (and NaN q), the same double; the
    trigamma function psi'(q) is x = 2. Pass x at run time, not as a constant: LLVM would turn
    pow(q, 1 - x) = pow(q, -1.0) into 1.0 / q, which rounds differently from the C library's
    pow in a few arguments above 1e8."""
    if q != q:
        return q
    if q <= 0.0:
        return math.inf if q == 0.0 else math.nan
    if q > 1e8:
        return (1 / (x - 1) + 1 / (2 * q)) * math.pow(q, 1 - x)
    s = math.pow(q, -x)
    a = q
    i = 0
    b = 0.0
    while i < 9 or a <= 9.0:
        i += 1
        a += 1.0
        b = math.pow(a, -x)
        s += b
        if abs(b / s) < _MACHEP:
            return s
    w = a
    s += b * w / (x - 1.0)
    s -= 0.5 * b
    a = 1.0
    k = 0.0
    for i in range(12):
        a *= x + k
        b /= w
        t = a * b / _ZETA_A[i]
        s = s + t
        if abs(t / s) < _MACHEP:
            return s
        k += 1.0
        a *= x + k
        b /= w
        k += 1.0
    return s


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
