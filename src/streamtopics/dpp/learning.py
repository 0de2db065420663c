"""Maximum likelihood for the low-rank DPP (thesis section 4.2.5 and 4.4), and the Picard baseline.

Objective (eq. 24 with the thesis' penalty):

    F(U, theta) = -(1/M) sum_i log P(X_i | U, theta_i) + lambda R(U, theta),
    R = (1/M) sum_i ||theta_i||_1 + ||U||_{1,2}^2     (||theta||_1 once when theta is shared).

Averaging the theta penalty over the sets is our choice (the thesis writes ||theta||_1 without
saying how per-document thetas add up); it keeps lambda's meaning independent of M.

The group norm ||U||_{1,2} = sum_j ||u_j||_2 is smoothed as sum_j sqrt(||u_j||^2 + 1e-8) so that
L-BFGS applies (the thesis uses BFGS on the non-smooth objective after Lewis & Overton 2013).
theta >= 0 are bounds of L-BFGS-B, which makes ||theta||_1 = sum(theta) smooth.

`fit_alternating` alternates `inner_iter` L-BFGS iterations on U with `inner_iter` L-BFGS-B
iterations on theta (section 4.4: "100 iterations of L-BFGS for U and 100 for each theta_i"; the
theta_i problems are separable, so one joint L-BFGS-B solves them all at once). `fit_sgd`
replaces the U step by minibatch SGD with the unbiased gradient G_t(U) of section 4.4.
`picard` is the fixed-point iteration of Mariet & Sra (2015) on a full N x N L (item sets).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.optimize as so
from tqdm.auto import tqdm

from .likelihood import Observations, evaluate

GROUP_SMOOTHING = 1e-8


def group_penalty(U: np.ndarray) -> tuple[float, np.ndarray]:
    """(sum_j sqrt(||u_j||^2 + eps))^2 and its gradient: the smoothed ||U||_{1,2}^2."""
    norms = np.sqrt((U ** 2).sum(axis=0) + GROUP_SMOOTHING)
    total = norms.sum()
    return float(total ** 2), 2.0 * total * U / norms


@dataclass
class FitTrace:
    """Objective after each outer iteration (penalised, and the mean log-likelihood alone)."""

    objective: list = field(default_factory=list)
    log_likelihood: list = field(default_factory=list)


def penalised(obs: Observations, U: np.ndarray, theta: np.ndarray, penalty: float):
    """(F, dF/dU, dF/dtheta, mean log-likelihood)."""
    result = evaluate(obs, U, theta)
    group, group_grad = group_penalty(U)
    theta_scale = 1.0 if theta.shape[0] == 1 else 1.0 / theta.shape[0]
    value = result.value + penalty * (group + theta_scale * theta.sum())
    return (value, result.grad_U + penalty * group_grad,
            result.grad_theta + penalty * theta_scale, -result.value)


def _finite(value: float) -> float:
    return value if np.isfinite(value) else 1e300


def optimize_u(obs, U, theta, penalty, max_iter):
    def objective(flat):
        value, grad_U, _, _ = penalised(obs, flat.reshape(U.shape), theta, penalty)
        return _finite(value), grad_U.ravel()
    solution = so.minimize(objective, U.ravel(), jac=True, method="L-BFGS-B",
                           options={"maxiter": max_iter})
    return solution.x.reshape(U.shape)


def optimize_theta(obs, U, theta, penalty, max_iter):
    def objective(flat):
        value, _, grad_theta, _ = penalised(obs, U, flat.reshape(theta.shape), penalty)
        return _finite(value), grad_theta.ravel()
    solution = so.minimize(objective, theta.ravel(), jac=True, method="L-BFGS-B",
                           bounds=[(0.0, None)] * theta.size, options={"maxiter": max_iter})
    return solution.x.reshape(theta.shape)


def sgd_epoch(batches: list[tuple[Observations, np.ndarray]], U, theta, penalty, step0, t0,
              rng: np.random.Generator):
    """One pass of U <- U - rho_t G_t(U) over the minibatches in random order (section 4.4).

    ``batches`` pairs each minibatch with the indices of its sets (to pick its thetas);
    rho_t = step0 / sqrt(1 + t). Returns U and the step counter.
    """
    shared = theta.shape[0] == 1
    for number in rng.permutation(len(batches)):
        batch, ids = batches[number]
        th = theta if shared else theta[ids]
        grad = evaluate(batch, U, th).grad_U + penalty * group_penalty(U)[1]
        U = U - step0 / np.sqrt(1.0 + t0) * grad
        t0 += 1
    return U, t0


def fit_alternating(obs: Observations, U: np.ndarray, theta: np.ndarray, penalty: float = 0.0,
                    max_outer: int = 10, inner_iter: int = 100, tol: float = 1e-6,
                    sgd: dict | None = None, progress: bool = False):
    """Alternate U and theta updates until F improves by less than ``tol`` (relative).

    ``sgd`` (keys: batches, step, epochs, rng) replaces the L-BFGS step on U by SGD epochs.
    Returns (U, theta, FitTrace).
    """
    trace = FitTrace()
    previous = np.inf
    step_counter = 0
    for _ in tqdm(range(max_outer), desc="DPP fit", disable=not progress, unit="round"):
        if sgd is None:
            U = optimize_u(obs, U, theta, penalty, inner_iter)
        else:
            for _ in range(sgd["epochs"]):
                U, step_counter = sgd_epoch(sgd["batches"], U, theta, penalty, sgd["step"],
                                            step_counter, sgd["rng"])
        theta = optimize_theta(obs, U, theta, penalty, inner_iter)
        value, _, _, log_likelihood = penalised(obs, U, theta, penalty)
        trace.objective.append(value)
        trace.log_likelihood.append(log_likelihood)
        if abs(previous - value) <= tol * max(1.0, abs(value)):
            break
        previous = value
    return U, theta, trace


def set_log_likelihood(L: np.ndarray, sets: list[np.ndarray]) -> np.ndarray:
    """log det L_Y - log det(L + I) for each set Y of a full N x N L-ensemble (eq. 19)."""
    normalizer = np.linalg.slogdet(np.eye(L.shape[0]) + L)[1]
    return np.array([np.linalg.slogdet(L[np.ix_(s, s)])[1] for s in sets]) - normalizer


def picard(sets: list[np.ndarray], n_items: int, n_iter: int = 100, step: float = 1.0,
           L0: np.ndarray | None = None):
    """Mariet & Sra (2015) fixed-point iteration L <- L + a L Delta L on a full L-ensemble.

    Delta = (1/n) sum_i U_i L_{Y_i}^-1 U_i^T - (I + L)^-1 is the log-likelihood gradient; a = 1
    ascends monotonically (their Theorem). L0 defaults to the best diagonal eta* I, with
    eta* = m / (N - m) for m the mean set size (the maximum-likelihood multiple of I).
    Returns (L, mean train log-likelihood after each iteration).
    """
    if L0 is None:
        mean_size = np.mean([len(s) for s in sets])
        L0 = np.eye(n_items) * mean_size / (n_items - mean_size)
    L = L0.copy()
    history = []
    for _ in range(n_iter):
        delta = -np.linalg.inv(np.eye(n_items) + L)
        for s in sets:
            delta[np.ix_(s, s)] += np.linalg.inv(L[np.ix_(s, s)]) / len(sets)
        L = L + step * L @ delta @ L
        L = (L + L.T) / 2
        history.append(float(set_log_likelihood(L, sets).mean()))
    return L, history
