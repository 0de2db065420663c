"""The alpha M-step: inverse digamma and Minka's fixed point, also for extreme s2."""

import numpy as np
import pytest
from scipy.special import digamma

from streamtopics.inference.alpha_updates import (Fixed, MinkaFixedPoint, fixed_point_alpha,
                                                  inverse_digamma)
from streamtopics.inference.stats import SufficientStats


def residual(alpha, log_theta):
    return np.max(np.abs(digamma(alpha) - digamma(alpha.sum()) - log_theta))


def test_inverse_digamma():
    y = np.concatenate([-np.geomspace(1e7, 1e-6, 300), np.linspace(-3, 25, 300)])
    x = inverse_digamma(y)
    assert np.all(x > 0)
    np.testing.assert_allclose(digamma(x), y, rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("alpha", [
    [0.1, 0.1, 0.1],
    [1e-4, 2.0, 50.0],               # s2_0 very negative (about -1e4)
    [1e6, 1.0],                      # s2_0 near zero (about -1e-6)
    [3e-7, 5e-7, 1e-6, 2e-6],        # every s2 very negative
    np.geomspace(1e-3, 1e3, 50),
])
@pytest.mark.parametrize("start", [1e-6, 1.0, 1e7])
def test_fixed_point_solves_the_digamma_equations(alpha, start):
    alpha = np.asarray(alpha, dtype=float)
    log_theta = digamma(alpha) - digamma(alpha.sum())
    for alpha_start in (None, np.full(alpha.size, start / alpha.size)):  # cold and warm starts
        found = fixed_point_alpha(log_theta, start=start, alpha_start=alpha_start)
        assert np.all(found > 0)
        assert residual(found, log_theta) <= 1e-8
        np.testing.assert_allclose(found, alpha, rtol=1e-6)


def test_fixed_point_from_extreme_raw_statistics():
    """s2 straight from numbers, not from an alpha: very negative and nearly zero entries."""
    for log_theta in ([-1e-7, -40.0, -60.0], [-500.0, -800.0, -1e4, -5.0], [-0.01, -5.0]):
        log_theta = np.array(log_theta)
        found = fixed_point_alpha(log_theta)
        assert np.all(found > 0) and residual(found, log_theta) <= 1e-8, log_theta


def test_without_a_finite_solution_alpha_stays_finite_and_positive():
    found = fixed_point_alpha(np.log([0.6, 0.6]))  # sum exp(s2) > 1: only rounding can do this
    assert np.all(np.isfinite(found)) and np.all(found > 0)


def test_updates_as_parts():
    stats = SufficientStats(np.ones((4, 3)), digamma([0.2, 0.5, 1.0]) - digamma(1.7))
    np.testing.assert_allclose(MinkaFixedPoint()(np.ones(3), stats), [0.2, 0.5, 1.0], rtol=1e-8)
    np.testing.assert_array_equal(Fixed()(np.array([0.3, 0.3, 0.3]), stats), [0.3, 0.3, 0.3])
    single = SufficientStats(np.ones((4, 1)), np.zeros(1))
    np.testing.assert_array_equal(MinkaFixedPoint()(np.array([0.7]), single), [0.7])
    with pytest.raises(ValueError):
        fixed_point_alpha(np.zeros(1))
