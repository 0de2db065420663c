"""Exact DPP sampling (Kulesza & Taskar 2012, Algorithm 1) and greedy MAP (Gillenwater et al. 2012).

Sampling is for synthetic data on small ground sets (N <= a few thousand), as in the thesis'
section 4.5.1. `sample_low_rank` samples L = alpha I + F A F^T from the V x V problem when F has
full column rank: the eigenvectors of L are then Q W (F = Q R, R A R^T = W Diag(lambda) W^T) with
eigenvalues lambda + alpha, plus any orthonormal basis of span(F)'s complement with eigenvalue
alpha. That complement does not depend on A, so one basis serves every theta of a data set.
"""

from __future__ import annotations

import numpy as np


def _sample_elementary(vectors: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Phase 2 of Algorithm 1: the items of the elementary DPP spanned by orthonormal ``vectors``."""
    chosen = []
    basis = vectors.copy()
    while basis.shape[1] > 0:
        weights = (basis ** 2).sum(axis=1)
        item = int(rng.choice(weights.size, p=weights / weights.sum()))
        chosen.append(item)
        # Project out e_item: drop one vector with a non-zero entry there, orthogonalise the rest.
        pivot = int(np.argmax(np.abs(basis[item])))
        column = basis[:, pivot]
        rest = np.delete(basis, pivot, axis=1)
        rest = rest - np.outer(column, rest[item] / column[item])
        basis = np.linalg.qr(rest)[0] if rest.shape[1] else rest
    return np.sort(np.asarray(chosen, dtype=np.int64))


def sample_exact(L: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One exact draw from DPP(L) (Algorithm 1: eigenvectors kept with prob lambda/(1+lambda))."""
    eigenvalues, eigenvectors = np.linalg.eigh(L)
    eigenvalues = np.clip(eigenvalues, 0.0, None)
    keep = rng.random(eigenvalues.size) < eigenvalues / (1.0 + eigenvalues)
    return _sample_elementary(eigenvectors[:, keep], rng)


class LowRankSampler:
    """Exact draws from L = alpha I + F A F^T for many A sharing one feature matrix F (N x V)."""

    def __init__(self, F: np.ndarray, alpha: float):
        self.F, self.alpha = F, float(alpha)
        self.Q, self.R = np.linalg.qr(F)
        self._complement = None

    def complement(self) -> np.ndarray:
        if self._complement is None:
            full = np.linalg.qr(self.F, mode="complete")[0]
            self._complement = full[:, self.F.shape[1]:]
        return self._complement

    def sample(self, A: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        small = self.R @ A @ self.R.T
        eigenvalues, W = np.linalg.eigh((small + small.T) / 2)
        eigenvalues = np.clip(eigenvalues, 0.0, None) + self.alpha
        keep = rng.random(eigenvalues.size) < eigenvalues / (1.0 + eigenvalues)
        vectors = self.Q @ W[:, keep]
        n_rest = self.F.shape[0] - self.F.shape[1]
        extra = rng.binomial(n_rest, self.alpha / (1.0 + self.alpha)) if n_rest else 0
        if extra:
            picked = rng.choice(n_rest, size=extra, replace=False)
            vectors = np.hstack([vectors, self.complement()[:, picked]])
        return _sample_elementary(vectors, rng)


def greedy_map(L: np.ndarray, n_select: int) -> np.ndarray:
    """Greedy MAP of DPP(L) restricted to ``n_select`` items (Gillenwater et al. 2012).

    Adds at each step the item with the largest gain in log det L_Y, i.e. the largest Schur
    complement L_xx - L_xY L_Y^-1 L_Yx, kept up to date by an incremental Cholesky factor:
    O(N l^2). Stops early when no item has a positive gain. Returns items in the order chosen.
    """
    n = L.shape[0]
    n_select = min(n_select, n)
    gains = np.diag(L).astype(float).copy()
    factors = np.zeros((n_select, n))
    chosen = []
    for step in range(n_select):
        candidates = np.where(np.isin(np.arange(n), chosen), -np.inf, gains)
        best = int(np.argmax(candidates))
        if not candidates[best] > 1e-12 * max(1.0, np.abs(np.diag(L)).max()):
            break
        chosen.append(best)
        row = (L[best] - factors[:step].T @ factors[:step, best]) / np.sqrt(gains[best])
        factors[step] = row
        gains -= row ** 2
    return np.asarray(chosen, dtype=np.int64)
