"""Matching two sets of topics: a distance matrix and the Hungarian assignment.

Dupuy & Bach (2016, appendix G) compare the topics of two methods by the KL divergence between
every pair and assign each topic of one set to a single topic of the other with the Hungarian
algorithm (here `scipy.optimize.linear_sum_assignment`, which minimises the total distance). On
synthetic data, matching estimated topics to the true ones gives a distance to the truth.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import linear_sum_assignment
from scipy.special import xlogy

from ..errors import InputError

DISTANCES = ("kl", "symmetric-kl", "tv", "hellinger")


@dataclass(frozen=True)
class TopicMatching:
    """The distances between two topic sets and the assignment that minimises their sum.

    Attributes
    ----------
    distance : the distance's name (one of ``DISTANCES``).
    distances : (K_a, K_b) matrix, ``distances[i, j]`` = d(topic i of a, topic j of b);
        for "kl" that is KL(a_i || b_j).
    rows, columns : the assignment, topic ``rows[m]`` of a matched with ``columns[m]`` of b
        (min(K_a, K_b) pairs, rows ascending).
    """

    distance: str
    distances: np.ndarray
    rows: np.ndarray
    columns: np.ndarray

    @property
    def matched_distances(self) -> np.ndarray:
        return self.distances[self.rows, self.columns]

    @property
    def mean_distance(self) -> float:
        return float(self.matched_distances.mean())

    def as_dict(self) -> dict:
        return {"distance": self.distance, "rows": self.rows.tolist(),
                "columns": self.columns.tolist(),
                "matched_distances": self.matched_distances.tolist(),
                "mean_distance": self.mean_distance}


def topic_distances(topics_a, topics_b, distance: str = "kl", epsilon: float = 1e-10) -> np.ndarray:
    """(K_a, K_b) matrix of distances between the rows of two topic matrices over one vocabulary.

    - "kl": KL(a_i || b_j) = sum_w a_iw log(a_iw / b_jw);
    - "symmetric-kl": KL(a_i || b_j) + KL(b_j || a_i);
    - "tv": total variation, (1/2) sum_w |a_iw - b_jw|, in [0, 1];
    - "hellinger": sqrt(1 - sum_w sqrt(a_iw b_jw)), in [0, 1].
    For the KL distances both sets are first smoothed, (p + epsilon) / (1 + V epsilon), so that a
    word with zero probability in one topic gives a large, finite divergence.
    """
    if distance not in DISTANCES:
        raise InputError(f"distance must be one of {DISTANCES}, got {distance!r}")
    a = _topics(topics_a, "topics_a")
    b = _topics(topics_b, "topics_b")
    if a.shape[1] != b.shape[1]:
        raise InputError(f"the two topic sets cover {a.shape[1]} and {b.shape[1]} words: "
                         "they must share one vocabulary")
    if distance in ("kl", "symmetric-kl"):
        a = (a + epsilon) / (1.0 + a.shape[1] * epsilon)
        b = (b + epsilon) / (1.0 + b.shape[1] * epsilon)
        log_a, log_b = np.log(a), np.log(b)
        kl = (xlogy(a, a).sum(axis=1)[:, None] - a @ log_b.T)
        if distance == "kl":
            return np.maximum(kl, 0.0)
        reverse = xlogy(b, b).sum(axis=1)[None, :] - log_a @ b.T
        return np.maximum(kl + reverse, 0.0)
    if distance == "hellinger":
        overlap = np.sqrt(a) @ np.sqrt(b).T
        return np.sqrt(np.clip(1.0 - overlap, 0.0, 1.0))
    return np.stack([0.5 * np.abs(row - b).sum(axis=1) for row in a])


def match_topics(topics_a, topics_b, distance: str = "kl", epsilon: float = 1e-10) -> TopicMatching:
    """Assign each topic of ``topics_a`` to a distinct topic of ``topics_b`` (Hungarian algorithm).

    The assignment minimises the sum of the matched distances (appendix G of Dupuy & Bach 2016);
    with K_a != K_b, min(K_a, K_b) pairs are matched.
    """
    distances = topic_distances(topics_a, topics_b, distance, epsilon)
    rows, columns = linear_sum_assignment(distances)
    return TopicMatching(distance, distances, rows, columns)


def distance_to_truth(estimated_topics, true_topics, distance: str = "tv") -> float:
    """Mean distance between each true topic and the estimated topic matched to it.

    ``distance(true, estimated)`` per pair (for "kl", KL(true || estimated)); 0 when the topics
    are recovered exactly, up to a permutation. See `match_topics` for the assignment itself.
    """
    return match_topics(true_topics, estimated_topics, distance).mean_distance


def topic_movement(before, after) -> np.ndarray:
    """How far each topic moved during further training: the total-variation distance
    (1/2) sum_v |after_kv - before_kv| of topic k to itself, in [0, 1], one per topic.
    ``after`` may have more words than ``before`` (a vocabulary that grew: the new words, last,
    had no mass before); both have K rows, topic k being the same topic.

    >>> topic_movement([[0.5, 0.5]], [[0.25, 0.5, 0.25]])
    array([0.25])
    """
    before, after = _topics(before, "before"), _topics(after, "after")
    if before.shape[0] != after.shape[0] or before.shape[1] > after.shape[1]:
        raise InputError(f"topics of shape {before.shape} cannot have become {after.shape}: "
                         f"the same topics over the same words and maybe new ones are needed")
    grown = np.zeros_like(after)
    grown[:, :before.shape[1]] = before
    return 0.5 * np.abs(after - grown).sum(axis=1)


def _topics(topics, name: str) -> np.ndarray:
    topics = np.asarray(topics, dtype=np.float64)
    if topics.ndim != 2 or 0 in topics.shape:
        raise InputError(f"{name} must be a non-empty K x V matrix, got shape {topics.shape}")
    if not np.all(np.isfinite(topics)) or topics.min() < 0:
        raise InputError(f"{name} must be finite and non-negative")
    if not np.allclose(topics.sum(axis=1), 1.0, rtol=0, atol=1e-6):
        raise InputError(f"each row of {name} must sum to 1")
    return topics
