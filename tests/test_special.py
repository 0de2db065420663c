"""SciPy's digamma and trigamma and NumPy's pairwise sum as numba kernels
(`kernels.special`): the same doubles, not just close ones, so that the alpha M-step in a
kernel (`kernels.dirichlet`) gives the alpha its NumPy form gave."""

import numpy as np
from numba import njit
from scipy.special import digamma, zeta

from streamtopics.kernels.special import pairwise_sum, scipy_digamma, scipy_zeta


@njit(cache=True)
def _each(x, two):
    digammas, trigammas = np.empty_like(x), np.empty_like(x)
    for i in range(x.size):
        digammas[i] = scipy_digamma(x[i])
        trigammas[i] = scipy_zeta(two, x[i])
    return digammas, trigammas


def arguments():
    rng = np.random.default_rng(0)
    return np.concatenate([
        np.exp(rng.uniform(np.log(1e-300), np.log(1e300), 200_000)),  # every scale
        rng.uniform(0.0, 20.0, 200_000),       # the recurrences and the rational part on [1, 2]
        np.exp(rng.uniform(np.log(1e7), np.log(1e13), 100_000)),  # zeta's branch above 1e8
        np.arange(0.0, 12.0, 0.5),             # integers up to 10 (a harmonic sum) and halves
        [1e8, np.nextafter(1e8, 2e8), 9.0, 10.0, 1e17, 5e-324, np.inf, np.nan]])


def test_digamma_and_trigamma_are_scipys_bit_for_bit():
    x = arguments()
    digammas, trigammas = _each(x, 2.0)
    np.testing.assert_array_equal(digammas, digamma(x))
    np.testing.assert_array_equal(trigammas, zeta(2.0, x))


def test_pairwise_sum_is_numpys_bit_for_bit():
    rng = np.random.default_rng(1)
    for n in [*range(0, 300), 1000, 1023, 1024, 1025, 4097]:
        values = rng.standard_normal(n) * np.exp(rng.uniform(-20.0, 20.0, n))
        assert pairwise_sum(values) == values.sum(), n
