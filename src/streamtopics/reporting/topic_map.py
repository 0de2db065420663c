"""A 2-D map of topics: Jensen-Shannon distances between the topics' word distributions,
projected by classical multidimensional scaling.

This is the construction of LDAvis' "intertopic distance map" (Sievert & Shirley 2014):
Jensen-Shannon divergence and principal coordinate analysis (Torgerson's classical MDS, Gower
1966). LDAvis scales the divergence itself; here the distance is its square root in bits, which
is a metric with values in [0, 1] (Endres & Schindelin 2003), so the map's distances are
meaningful in themselves: 0 for equal topics, 1 for topics with disjoint supports.
`separated_circles` then keeps the circles drawn at those points from hiding each other.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.spatial.distance import pdist, squareform

from ..errors import InputError


def jensen_shannon_distances(beta) -> np.ndarray:
    """K x K matrix of sqrt(JSD(beta_k, beta_j) / ln 2), JSD the Jensen-Shannon divergence
    0.5 KL(p || m) + 0.5 KL(q || m) with m = (p + q) / 2; rows of ``beta`` are normalised
    first. Symmetric, zero diagonal, entries in [0, 1]. SciPy's ``jensenshannon`` metric
    (natural logarithms) divided by sqrt(ln 2)."""
    beta = np.asarray(beta, dtype=np.float64)
    if beta.ndim != 2 or 0 in beta.shape or not np.all(np.isfinite(beta)) or beta.min() < 0:
        raise InputError(f"beta must be a finite non-negative K x V matrix, got shape {beta.shape}")
    if beta.shape[0] == 1:
        return np.zeros((1, 1))
    distances = squareform(pdist(beta, "jensenshannon")) / np.sqrt(np.log(2.0))
    return np.clip(distances, 0.0, 1.0)


def classical_mds(distances, n_dimensions: int = 2) -> np.ndarray:
    """Points (n x ``n_dimensions``) whose Euclidean distances best match ``distances``
    (Torgerson's classical scaling): B = -J D^2 J / 2 with J the centring matrix, coordinates
    from B's largest eigenvalues (negative ones clipped to 0, their axes left at 0). Exact when
    the distances are Euclidean in that many dimensions. Each axis' sign is fixed (its
    largest-magnitude coordinate positive) so the map is deterministic."""
    distances = np.asarray(distances, dtype=np.float64)
    n = distances.shape[0]
    if distances.shape != (n, n):
        raise InputError(f"distances must be a square matrix, got shape {distances.shape}")
    centring = np.eye(n) - 1.0 / n
    inner = -0.5 * centring @ (distances ** 2) @ centring
    values, vectors = np.linalg.eigh(0.5 * (inner + inner.T))
    order = np.argsort(-values, kind="stable")[:n_dimensions]
    points = np.zeros((n, n_dimensions))
    for axis, index in enumerate(order):
        vector = vectors[:, index]
        vector = vector * (1.0 if vector[np.argmax(np.abs(vector))] >= 0 else -1.0)
        points[:, axis] = vector * np.sqrt(max(values[index], 0.0))
    return points


def topic_map(beta) -> np.ndarray:
    """K x 2 coordinates of the topics: classical MDS of their Jensen-Shannon distances."""
    return classical_mds(jensen_shannon_distances(beta), 2)


def separated_circles(centres: np.ndarray, radii: np.ndarray, box: tuple[float, float],
               gap: float = 2.0, rounds: int = 300) -> np.ndarray:
    """``centres`` (n x 2) moved apart until no two circles of ``radii`` overlap (``gap``
    pixels between them) or ``rounds`` pass, inside the box (width, height): each
    overlapping pair is pushed apart along the line joining it by half the overlap each (two
    circles at one point, along a direction set by their indices). Deterministic; the map's
    positions are MDS coordinates, so the nudge only keeps small topics from hiding under
    large ones."""
    width, height = box
    points = centres.copy()
    for _ in range(rounds):
        moved = False
        for i in range(len(points)):
            for j in range(i + 1, len(points)):
                delta = points[j] - points[i]
                distance = float(np.hypot(*delta))
                overlap = radii[i] + radii[j] + gap - distance
                if overlap <= 0:
                    continue
                direction = (delta / distance if distance > 1e-9 else
                             np.array([math.cos(i + j), math.sin(i + j)]))
                points[i] -= direction * overlap / 2
                points[j] += direction * overlap / 2
                moved = True
        points[:, 0] = np.clip(points[:, 0], radii, width - radii)
        points[:, 1] = np.clip(points[:, 1], radii, height - radii)
        if not moved:
            break
    return points
