"""The tractable low-rank DPP family of the thesis, chapter 4 (Dupuy 2017, sections 4.2-4.3).

A ground set X with a fixed feature map phi: X -> R^V and a fixed mass function p carries the
L-ensemble (eq. 21)

    L(x, y) = alpha 1[x = y] + p(x)^1/2 phi(x)^T A phi(y) p(y)^1/2,   A = gamma I + U Diag(theta) U^T

(eq. 23). Every exact computation needs only the second moment
Sigma = sum_x p(x) phi(x) phi(x)^T (section 4.2.2), which here always has the form
Diag(v) + mu mu^T (section 4.3.3):

* the item set {1..V} (section 4.3.2): phi = identity, p = 1 (absorbed into U), Sigma = I;
* the exponential set {0,1}^V with phi(x) = x and independent Bernoulli(pi) words:
  Sigma = Diag(pi (1 - pi)) + pi pi^T.

`BaseMeasure` holds (v, mu, N, log p). `log_normalizer` computes log det(L + I) exactly in
O(V r^2 + r^3) per theta by Sylvester's identity and the matrix determinant lemma (the spec's
simpler equivalent of the thesis' appendix 4.D chain). Proposition 1's map between the L- and
K-representations is here too, with the expected set size (eq. 22).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

PI_FLOOR = 1e-6
"""Word probabilities are clipped to [PI_FLOOR, 1 - PI_FLOOR] so that log p(x) stays finite."""


@dataclass(frozen=True)
class BaseMeasure:
    """Sigma = Diag(v) + mu mu^T, the ground set's size N and its item log-masses.

    ``kind`` is ``"items"`` (X = {1..V}, p = 1) or ``"binary"`` (X = {0,1}^V, independent
    Bernoulli(pi) words). ``log_n_items`` is log N (log V or V log 2).
    """

    kind: str
    v: np.ndarray
    mu: np.ndarray
    log_n_items: float
    pi: np.ndarray | None = None

    @classmethod
    def items(cls, n_items: int) -> "BaseMeasure":
        return cls("items", np.ones(n_items), np.zeros(n_items), float(np.log(n_items)))

    @classmethod
    def binary(cls, pi) -> "BaseMeasure":
        pi = np.clip(np.asarray(pi, dtype=float), PI_FLOOR, 1.0 - PI_FLOOR)
        return cls("binary", pi * (1.0 - pi), pi.copy(), float(pi.size * np.log(2.0)), pi)

    @property
    def dimension(self) -> int:
        return self.v.size

    def sigma(self) -> np.ndarray:
        """The dense V x V second moment (for tests and small V only)."""
        return np.diag(self.v) + np.outer(self.mu, self.mu)

    def log_p(self, rows: sp.csr_matrix) -> np.ndarray:
        """log p(x) of each row of a 0/1 item matrix (0 for the item set)."""
        if self.kind == "items":
            return np.zeros(rows.shape[0])
        pi = self.pi
        return rows @ (np.log(pi) - np.log1p(-pi)) + np.log1p(-pi).sum()


def scaled_moment(base: BaseMeasure, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """(v', mu') with Sigma / (1 + alpha) = Diag(v') + mu' mu'^T."""
    return base.v / (1.0 + alpha), base.mu / np.sqrt(1.0 + alpha)


def moment_times(base: BaseMeasure, gamma: float, alpha: float, U: np.ndarray) -> np.ndarray:
    """C U with C = Sigma' (I + gamma Sigma')^-1, Sigma' = Sigma / (1 + alpha): O(V r).

    (I + gamma Sigma')^-1 is applied by Sherman-Morrison on the diagonal-plus-rank-one matrix.
    """
    v, mu = scaled_moment(base, alpha)
    d_inv = 1.0 / (1.0 + gamma * v)
    y = d_inv[:, None] * U
    d_mu = d_inv * mu
    y -= np.outer(d_mu, gamma * (mu @ y) / (1.0 + gamma * (mu @ d_mu)))
    return v[:, None] * y + np.outer(mu, mu @ y)


def constant_log_normalizer(base: BaseMeasure, gamma: float, alpha: float) -> float:
    """N log(1 + alpha) + log det(I + gamma Sigma'): the part of log det(L + I) free of U, theta."""
    v, mu = scaled_moment(base, alpha)
    d_inv = 1.0 / (1.0 + gamma * v)
    value = np.log1p(gamma * v).sum() + np.log1p(gamma * (mu * d_inv) @ mu)
    if alpha > 0:
        value += np.exp(base.log_n_items) * np.log1p(alpha)
    return float(value)


def rank_terms(M: np.ndarray, theta: np.ndarray):
    """log det(I_r + Theta M) per row of ``theta`` (K x r), its theta-gradient and the r x r
    matrices T = (Theta^-1 + M)^-1 that the U-gradient needs, all from one batched Cholesky.

    Written with s = theta^1/2 as log det(I + S M S) so that zero entries of theta are fine:
    T = S (I + S M S)^-1 S and d/dtheta_k = [M - M T M]_kk.
    """
    s = np.sqrt(theta)
    r = M.shape[0]
    inner = np.eye(r) + s[:, :, None] * M[None] * s[:, None, :]
    chol = np.linalg.cholesky(inner)
    logdet = 2.0 * np.log(np.diagonal(chol, axis1=1, axis2=2)).sum(axis=1)
    inv = np.linalg.inv(inner)
    T = s[:, :, None] * inv * s[:, None, :]
    MT = M[None] @ T
    grad_theta = np.diag(M)[None] - np.einsum("kij,ji->ki", MT, M)
    return logdet, grad_theta, T


def log_normalizer(base: BaseMeasure, U: np.ndarray, theta: np.ndarray, gamma: float,
                   alpha: float) -> np.ndarray:
    """log det(L + I) for each row of ``theta`` (K x r); exact, O(V r^2 + K r^3).

    log det(I_N + L) = N log(1 + alpha) + log det(I_V + A Sigma') (Sylvester)
                     = const + log det(I_r + Theta U^T C U)   (determinant lemma),
    with C = Sigma' (I + gamma Sigma')^-1 (`moment_times`).
    """
    theta = np.atleast_2d(theta)
    M = U.T @ moment_times(base, gamma, alpha, U)
    return constant_log_normalizer(base, gamma, alpha) + rank_terms(M, theta)[0]


def l_to_k(alpha: float, A: np.ndarray, sigma_matrix: np.ndarray) -> tuple[float, np.ndarray]:
    """Proposition 1: (alpha, A) of eq. 21 -> (sigma, B) of eq. 20.

    sigma = alpha / (alpha + 1),  B = (alpha + 1)^-2 [A^-1 + Sigma / (alpha + 1)]^-1.
    """
    inner = np.linalg.inv(A) + sigma_matrix / (alpha + 1.0)
    return alpha / (alpha + 1.0), np.linalg.inv(inner) / (alpha + 1.0) ** 2


def k_to_l(sigma: float, B: np.ndarray, sigma_matrix: np.ndarray) -> tuple[float, np.ndarray]:
    """Proposition 1 inverted: alpha = sigma / (1 - sigma),
    A = (1 - sigma)^-2 [B^-1 - Sigma / (1 - sigma)]^-1."""
    inner = np.linalg.inv(B) - sigma_matrix / (1.0 - sigma)
    return sigma / (1.0 - sigma), np.linalg.inv(inner) / (1.0 - sigma) ** 2


def expected_size(sigma: float, B: np.ndarray, sigma_matrix: np.ndarray, n_items: float) -> float:
    """E|X| = tr K = sigma N + tr(B Sigma) (eq. 22)."""
    return float(sigma * n_items + np.trace(B @ sigma_matrix))


def explicit_features(base: BaseMeasure) -> tuple[np.ndarray, np.ndarray]:
    """(Phi, log p) over every item of a small ground set: I for items, all 2^V 0/1 vectors
    (item index = the bits of x, word 0 the lowest) for the binary set. Tests and exact sampling."""
    V = base.dimension
    if base.kind == "items":
        return np.eye(V), np.zeros(V)
    if V > 16:
        raise ValueError(f"the binary ground set {{0,1}}^{V} is too large to enumerate")
    codes = np.arange(2 ** V)
    Phi = ((codes[:, None] >> np.arange(V)[None, :]) & 1).astype(float)
    return Phi, base.log_p(sp.csr_matrix(Phi))


def explicit_l(base: BaseMeasure, A: np.ndarray, alpha: float) -> np.ndarray:
    """The N x N L-ensemble of eq. 21 built item by item (small ground sets only)."""
    Phi, log_p = explicit_features(base)
    F = np.exp(0.5 * log_p)[:, None] * Phi
    return alpha * np.eye(Phi.shape[0]) + F @ A @ F.T


def low_rank_a(U: np.ndarray, theta: np.ndarray, gamma: float) -> np.ndarray:
    """A = gamma I + U Diag(theta) U^T (eq. 23), dense."""
    return gamma * np.eye(U.shape[0]) + (U * theta) @ U.T
