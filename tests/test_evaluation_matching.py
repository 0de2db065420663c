"""Topic matching (Dupuy & Bach 2016, appendix G): distances and the Hungarian assignment."""

import numpy as np
import pytest

from streamtopics import InputError
from streamtopics.evaluation import (DISTANCES, distance_to_truth, match_topics,
                                     topic_distances)


def brute_force(a, b, distance):
    def one(p, q):
        if distance == "tv":
            return 0.5 * np.abs(p - q).sum()
        if distance == "hellinger":
            return np.sqrt(0.5 * np.sum((np.sqrt(p) - np.sqrt(q)) ** 2))
        kl = lambda x, y: np.sum(np.where(x > 0, x * np.log(x / y), 0.0))
        return kl(p, q) if distance == "kl" else kl(p, q) + kl(q, p)
    return np.array([[one(p, q) for q in b] for p in a])


@pytest.mark.parametrize("distance", DISTANCES)
def test_distance_matrix_matches_its_definition(distance):
    rng = np.random.default_rng(0)
    a = rng.dirichlet(np.ones(12), size=4)
    b = rng.dirichlet(np.ones(12), size=6)
    assert np.allclose(topic_distances(a, b, distance), brute_force(a, b, distance),
                       rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("distance", DISTANCES)
def test_matching_recovers_a_known_permutation(distance):
    rng = np.random.default_rng(1)
    truth = rng.dirichlet(np.full(50, 0.1), size=8)
    permutation = rng.permutation(8)
    estimated = 0.9 * truth[permutation] + 0.1 * rng.dirichlet(np.ones(50), size=8)
    matching = match_topics(truth, estimated, distance)
    # true topic i is estimated topic j with permutation[j] = i
    assert np.array_equal(matching.columns, np.argsort(permutation))
    assert matching.mean_distance == pytest.approx(matching.matched_distances.mean())
    assert distance_to_truth(truth[permutation], truth, distance) == pytest.approx(0.0, abs=1e-6)
    assert distance_to_truth(estimated, truth, distance) > 0


def test_symmetry_zero_support_and_rectangular_sets():
    a = np.array([[0.5, 0.5, 0.0], [0.0, 0.2, 0.8]])
    b = np.array([[0.0, 0.1, 0.9], [0.6, 0.4, 0.0], [1 / 3, 1 / 3, 1 / 3]])
    symmetric = topic_distances(a, a, "symmetric-kl")
    assert np.allclose(symmetric, symmetric.T) and np.allclose(np.diag(symmetric), 0, atol=1e-6)
    kl = topic_distances(a, b, "kl")
    assert np.all(np.isfinite(kl)) and kl[0, 0] > 10  # zero support: large but finite
    matching = match_topics(a, b, "tv")
    assert list(matching.columns) == [1, 0] and len(matching.rows) == 2
    assert set(matching.as_dict()) >= {"distance", "rows", "columns", "mean_distance"}


def test_bad_input():
    with pytest.raises(InputError, match="distance"):
        match_topics(np.ones((1, 1)), np.ones((1, 1)), "cosine")
    with pytest.raises(InputError, match="vocabulary"):
        match_topics(np.ones((1, 2)) / 2, np.ones((1, 3)) / 3)
    with pytest.raises(InputError, match="sum to 1"):
        match_topics(np.ones((1, 2)), np.ones((1, 2)) / 2)
