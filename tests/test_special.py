"""Special functions of the numba kernels (`kernels.special`): SciPy's digamma and NumPy's
pairwise sum as the same doubles, not just close ones, so that the alpha M-step in a kernel
(`kernels.dirichlet`) solves the equations its NumPy form solved; the trigamma of Newton's
steps there within a few ulps of SciPy's zeta(2, x)."""

import numpy as np
from numba import njit
from scipy.special import digamma, zeta

from streamtopics.kernels.special import pairwise_sum, scipy_digamma, trigamma


@njit(cache=True)
def _each(x):
    digammas, trigammas = np.empty_like(x), np.empty_like(x)
    for i in range(x.size):
        digammas[i] = scipy_digamma(x[i])
        trigammas[i] = trigamma(x[i])
    return digammas, trigammas


def arguments():
    rng = np.random.default_rng(0)
    return np.concatenate([
        np.exp(rng.uniform(np.log(1e-300), np.log(1e300), 200_000)),  # every scale
        rng.uniform(0.0, 20.0, 200_000),       # the recurrences and the rational part on [1, 2]
        np.exp(rng.uniform(np.log(1e7), np.log(1e13), 100_000)),  # large arguments
        np.arange(0.0, 12.0, 0.5),             # integers up to 10 (a harmonic sum) and halves
        [1e8, np.nextafter(1e8, 2e8), 9.0, 10.0, np.nextafter(10.0, 0.0), 1e17, 5e-324,
         np.inf, np.nan]])


def test_digamma_is_scipys_bit_for_bit():
    digammas, _ = _each(arguments())
    np.testing.assert_array_equal(digammas, digamma(arguments()))


def test_trigamma_is_within_a_few_ulps_of_scipys():
    """Relative error at most 1.5e-15 wherever SciPy's value is a positive finite number; the
    same inf (at 0 and below about 1e-154), 0 (at inf) and NaN elsewhere."""
    x = arguments()
    _, trigammas = _each(x)
    expected = zeta(2.0, x)
    finite = np.isfinite(expected) & (expected > 0)
    assert np.max(np.abs(trigammas[finite] - expected[finite]) / expected[finite]) <= 1.5e-15
    np.testing.assert_array_equal(trigammas[~finite], expected[~finite])


def test_pairwise_sum_is_numpys_bit_for_bit():
    rng = np.random.default_rng(1)
    for n in [*range(0, 300), 1000, 1023, 1024, 1025, 4097]:
        values = rng.standard_normal(n) * np.exp(rng.uniform(-20.0, 20.0, n))
        assert pairwise_sum(values) == values.sum(), n
