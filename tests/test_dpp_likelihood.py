"""The low-rank DPP likelihood against explicit N x N matrices, and its gradients."""

import numpy as np
import pytest

from streamtopics.dpp.kernel import (BaseMeasure, expected_size, explicit_features, explicit_l,
                                     k_to_l, l_to_k, log_normalizer, low_rank_a)
from streamtopics.dpp.likelihood import Observations, evaluate


def random_parameters(rng, V, r):
    return rng.normal(size=(V, r)), rng.gamma(1.0, 1.0, size=r)


def test_normalizer_matches_direct_determinant():
    rng = np.random.default_rng(0)
    V, r = 50, 6
    base = BaseMeasure.binary(rng.uniform(0.01, 0.6, size=V))
    U, theta = random_parameters(rng, V, r)
    for gamma, alpha in [(0.02, 0.0), (0.0, 0.0), (0.5, 0.0)]:
        A = low_rank_a(U, theta, gamma)
        direct = np.linalg.slogdet(np.eye(V) + A @ base.sigma())[1]
        assert log_normalizer(base, U, theta, gamma, alpha)[0] == pytest.approx(direct, abs=1e-9)


def random_independent_sets(rng, Phi, n_sets, max_size):
    sets = []
    while len(sets) < n_sets:
        size = rng.integers(1, max_size + 1)
        members = rng.choice(Phi.shape[0], size=size, replace=False)
        if np.linalg.matrix_rank(Phi[members]) == size:
            sets.append(members)
    return sets


@pytest.mark.parametrize("kind,alpha,gamma", [("binary", 0.0, 0.125), ("binary", 1e-3, 0.125),
                                              ("items", 1e-5, 0.0), ("items", 0.3, 0.2)])
def test_log_likelihood_matches_explicit_ensemble(kind, alpha, gamma):
    rng = np.random.default_rng(1)
    V, r = 8, 3
    base = BaseMeasure.binary(rng.uniform(0.1, 0.7, size=V)) if kind == "binary" else BaseMeasure.items(V)
    U, theta = random_parameters(rng, V, r)
    L = explicit_l(base, low_rank_a(U, theta, gamma), alpha)
    N = L.shape[0]
    explicit_normalizer = np.linalg.slogdet(np.eye(N) + L)[1]
    assert log_normalizer(base, U, theta, gamma, alpha)[0] == pytest.approx(explicit_normalizer, abs=1e-9)

    Phi, _ = explicit_features(base)
    members = random_independent_sets(rng, Phi, 20, 4 if kind == "items" else 6)
    members.append(np.zeros(0, dtype=int))           # the empty set: det of a 0 x 0 matrix is 1
    sets = [[np.flatnonzero(Phi[i]) for i in m] if kind == "binary" else list(m) for m in members]
    obs = Observations(sets, base, gamma, alpha, bucket_entries=60)
    got = evaluate(obs, U, theta[None], gradients=False).per_set
    want = [(np.linalg.slogdet(L[np.ix_(m, m)])[1] if m.size else 0.0) - explicit_normalizer
            for m in members]
    np.testing.assert_allclose(got, want, atol=1e-9)


def test_proposition_1_round_trip_and_expected_size():
    rng = np.random.default_rng(2)
    V = 6
    base = BaseMeasure.binary(rng.uniform(0.1, 0.9, size=V))
    U, theta = random_parameters(rng, V, 3)
    A, alpha = low_rank_a(U, theta, 0.3), 0.01
    sigma, B = l_to_k(alpha, A, base.sigma())
    alpha_back, A_back = k_to_l(sigma, B, base.sigma())
    assert alpha_back == pytest.approx(alpha, abs=1e-12)
    np.testing.assert_allclose(A_back, A, atol=1e-10 * np.abs(A).max())
    L = explicit_l(base, A, alpha)
    K = np.eye(L.shape[0]) - np.linalg.inv(np.eye(L.shape[0]) + L)
    assert expected_size(sigma, B, base.sigma(), 2 ** V) == pytest.approx(np.trace(K), rel=1e-9)


@pytest.mark.parametrize("shared", [True, False])
def test_gradients_match_finite_differences(shared):
    rng = np.random.default_rng(3)
    V, r = 12, 3
    base = BaseMeasure.binary(rng.uniform(0.1, 0.5, size=V))
    sets = [[rng.choice(V, size=3, replace=False) for _ in range(2)] for _ in range(5)]
    obs = Observations(sets, base, gamma=0.1, alpha=0.0, bucket_entries=20)
    U = rng.normal(size=(V, r))
    theta = rng.uniform(0.2, 2.0, size=(1 if shared else 5, r))
    result = evaluate(obs, U, theta)
    h = 1e-6
    for array, grad in [(U, result.grad_U), (theta, result.grad_theta)]:
        for index in list(np.ndindex(array.shape))[:12]:
            step = np.zeros_like(array)
            step[index] = h
            args = (U + step, theta) if array is U else (U, theta + step)
            args_minus = (U - step, theta) if array is U else (U, theta - step)
            numeric = (evaluate(obs, *args, gradients=False).value
                       - evaluate(obs, *args_minus, gradients=False).value) / (2 * h)
            assert grad[index] == pytest.approx(numeric, rel=1e-5, abs=1e-7)
