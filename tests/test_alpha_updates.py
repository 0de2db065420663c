"""The alpha M-step: inverse digamma and Minka's fixed point, also for extreme s2."""

import numpy as np
import pytest
from scipy.special import digamma

from streamtopics.inference.alpha_updates import (Fixed, MinkaFixedPoint, fixed_point_alpha,
                                                  inverse_digamma)
from streamtopics.inference.stats import SufficientStats
from streamtopics.kernels.dirichlet import implied_alpha, new_memo
from streamtopics.kernels.special import trigamma as scalar_trigamma

# Elementwise: the fixed point's Newton derivatives (SciPy's digamma defines the equations).
trigamma = np.vectorize(scalar_trigamma, otypes=[float])


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


def numpy_fixed_point(log_theta, start, alpha_start, pole):
    """`fixed_point_alpha` as it was written with NumPy and SciPy (before the kernel), with
    `kernels.special.trigamma` in place of SciPy's zeta(2, x)."""
    def inverse(y, x):
        for _ in range(60):
            step = (digamma(x) - y) / trigamma(x)
            new = np.where(step >= x, 0.5 * x, x - step)
            if np.all(np.abs(new - x) <= 1e-15 * new):
                return new
            x = new
        return x

    def implied(total, x):
        y = digamma(total) + log_theta
        if x is None:
            x = np.where(y >= -2.22, np.exp(np.minimum(y, 700.0)) + 0.5,
                         -1.0 / (np.minimum(y, -2.22) + 0.5772156649015329))
        x = inverse(y, x)
        for _ in range(100 if pole else 0):
            new = x - (digamma(x) - pole / x - y) / (trigamma(x) + pole / (x * x))
            if np.all(np.abs(new - x) <= 1e-15 * new):
                x = new
                break
            x = new
        return np.maximum(x, np.finfo(float).tiny)

    alpha, u, low, high, u_max = alpha_start, np.log(start), -np.inf, np.inf, np.log(1e12)
    for _ in range(200):
        total = np.exp(u)
        alpha = implied(total, alpha)
        value = alpha.sum() - total
        if abs(digamma(total) - digamma(alpha.sum())) <= 1e-13:
            return alpha
        low, high = (u, high) if value > 0 else (low, u)
        if low >= u_max:
            return implied(1e12, None)
        slope = total * (trigamma(total) * np.sum(1.0 / (trigamma(alpha) + pole / alpha**2))
                         - 1.0)
        candidate = u - value / slope if slope < 0 else np.nan
        if not low < candidate < min(high, u_max):
            candidate = (0.5 * (low + high) if np.isfinite(low) and np.isfinite(high)
                         else min(u + 2.0, 0.5 * (u + u_max)) if value > 0 else u - 2.0)
        u = candidate
    return alpha


def test_kernel_fixed_point_is_the_numpy_one_bit_for_bit():
    """The kernel (`kernels.dirichlet`) changes how fast alpha is found, never which alpha."""
    rng = np.random.default_rng(0)
    for trial in range(300):
        n_topics = int(rng.choice([2, 3, 10, 100, 137]))
        alpha = np.exp(rng.uniform(np.log(1e-3), np.log(5.0), n_topics)) * rng.uniform(0.01, 10)
        log_theta = (digamma(alpha) - digamma(alpha.sum())
                     + rng.normal(0.0, 0.01, n_topics) * rng.uniform())
        start = float(alpha.sum() * np.exp(rng.normal(0.0, 0.3)))
        alpha_start = None if trial % 3 == 0 else alpha * np.exp(rng.normal(0.0, 0.05, n_topics))
        pole = 0.0 if trial % 4 else rng.uniform(0.0, 0.1)
        np.testing.assert_array_equal(
            fixed_point_alpha(log_theta, start=start, alpha_start=alpha_start, pole=pole),
            numpy_fixed_point(log_theta, start, alpha_start, pole))


def test_kernel_is_the_same_for_any_split_of_the_topics():
    """The K values run in ranges per thread, only the stopping rule joins them: any number of
    ranges gives the same alpha, sum, residual and slope (also with a pole, and from starts
    where some values are close long before others)."""
    rng = np.random.default_rng(1)
    for trial in range(40):
        n_topics = int(rng.choice([2, 5, 100]))
        alpha = np.exp(rng.uniform(np.log(1e-3), np.log(5.0), n_topics))
        log_theta = digamma(alpha) - digamma(alpha.sum())
        start = alpha * np.exp(rng.normal(0.0, 0.5 * rng.uniform(), n_topics))
        start[: n_topics // 2] = alpha[: n_topics // 2]  # half of them close at once
        total = alpha.sum() * np.exp(rng.normal(0.0, 0.1))
        pole = 0.0 if trial % 2 else rng.uniform(0.0, 0.1)
        one = implied_alpha(total, log_theta, start, pole, 1, new_memo(n_topics))
        for parts in (2, 3, 7):
            other = implied_alpha(total, log_theta, start, pole, parts, new_memo(n_topics))
            np.testing.assert_array_equal(other[0], one[0])
            assert other[1:] == one[1:]
