"""Recovery metrics of the thesis' section 4.5.2.

D(U, U*) = ||U (U^T U)^+ U^T U* - U*||_F / ||U*||_F compares the spans of U (V x r) and
U* (V x r*), invariant to rotation and scaling of the columns.

The thesis calls 1 - r/V its "chance" level. For a random r-dimensional subspace the expected
squared distance is 1 - r/V (the projection keeps r/V of ||U*||^2 on average), so the expected
distance itself is about sqrt(1 - r/V): `chance_distance` returns that.

On the item set the likelihood cannot see the sign of an item: det L_X is unchanged by
L -> S L S for any diagonal S of +-1, i.e. U -> S U. A maximum-likelihood U is therefore only
determined up to row signs, which D does not forgive. `sign_matched_distance` minimises D over
row signs of U* (alternating least squares started from the leading eigenvector of the
element-wise product of the two projections; a local minimum, so an upper bound on the best).
"""

from __future__ import annotations

import numpy as np


def subspace_distance(U: np.ndarray, U_true: np.ndarray) -> float:
    projection = U @ np.linalg.pinv(U) @ U_true
    return float(np.linalg.norm(projection - U_true) / np.linalg.norm(U_true))


def chance_distance(rank: int, n_words: int) -> float:
    """Expected D of a random rank-r subspace: about sqrt(1 - r/V) (the thesis prints 1 - r/V)."""
    return float(np.sqrt(max(0.0, 1.0 - rank / n_words)))


def sign_matched_distance(U: np.ndarray, U_true: np.ndarray, max_iter: int = 50) -> float:
    """min over row signs s of D(U, Diag(s) U*) (local search; see the module docstring)."""
    P = U @ np.linalg.pinv(U)
    P_true = U_true @ np.linalg.pinv(U_true)
    signs = np.sign(np.linalg.eigh(P * P_true)[1][:, -1])
    signs[signs == 0] = 1.0
    best = subspace_distance(U, signs[:, None] * U_true)
    for _ in range(max_iter):
        target = signs[:, None] * U_true
        fitted = P @ target                      # best approximation of the target in span(U)
        new_signs = np.sign((fitted * U_true).sum(axis=1))
        new_signs[new_signs == 0] = 1.0
        distance = subspace_distance(U, new_signs[:, None] * U_true)
        if distance >= best - 1e-12:
            break
        signs, best = new_signs, distance
    return best
