"""Planted reviews generated from LDA-R-C (components.md section 5.5 (a)): users, items,
ANOVA ratings, item topic proportions, descriptive topics and two opinion topics on disjoint
word supports; the truth is returned with the data so tests can check recovery."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp


@dataclass(frozen=True)
class PlantedReviews:
    counts: sp.csr_matrix          # D x V
    users: np.ndarray              # D
    items: np.ndarray              # D
    ratings: np.ndarray            # D
    true_opinions: np.ndarray      # D, sign of r - (mu + a_u): the reduced rating of the truth
    user_effects: np.ndarray       # a
    item_effects: np.ndarray       # b
    item_topics: np.ndarray        # theta^c, N_c x K
    topics: np.ndarray             # phi, K x V
    opinion_topics: np.ndarray     # Psi^{-1}, Psi^{+1}: 2 x V
    qualitative_share: np.ndarray  # p^d_2 per review


def planted_reviews(n_reviews: int = 2000, n_users: int = 100, n_items: int = 80,
                    n_topics: int = 5, n_words: int = 400, opinion_support: int = 50,
                    omega=(9.0, 1.0), mean_length: float = 60.0, mean_rating: float = 6.0,
                    user_scale: float = 1.0, item_scale: float = 1.5, noise_scale: float = 1.0,
                    topic_concentration: float = 0.05, item_concentration: float = 0.2,
                    seed: int = 0) -> PlantedReviews:
    """Draw reviews from LDA-R-C: r = mu + a_u + b_c + eps; s = sign(r - mu - a_u); p^d ~
    Dir(omega); each token is descriptive (z ~ theta^{c}, w ~ phi^z) with probability p^d_1,
    else drawn from Psi^s. The two opinion topics live on disjoint ``opinion_support``-word
    sets (Dir(0.5) there) and the descriptive topics on the remaining words."""
    rng = np.random.default_rng(seed)
    users = rng.integers(n_users, size=n_reviews)
    items = rng.integers(n_items, size=n_reviews)
    user_effects = rng.normal(0, user_scale, n_users)
    item_effects = rng.normal(0, item_scale, n_items)
    ratings = (mean_rating + user_effects[users] + item_effects[items]
               + rng.normal(0, noise_scale, n_reviews))
    true_opinions = np.where(ratings - mean_rating - user_effects[users] >= 0, 1, -1)
    descriptive_words = n_words - 2 * opinion_support
    topics = np.zeros((n_topics, n_words))
    topics[:, :descriptive_words] = rng.dirichlet(np.full(descriptive_words,
                                                          topic_concentration), n_topics)
    opinion_topics = np.zeros((2, n_words))
    for side in (0, 1):
        start = descriptive_words + side * opinion_support
        opinion_topics[side, start:start + opinion_support] = rng.dirichlet(
            np.full(opinion_support, 0.5))
    item_topics = rng.dirichlet(np.full(n_topics, item_concentration), n_items)
    shares = rng.dirichlet(np.asarray(omega, float), n_reviews)[:, 1]
    lengths = np.maximum(rng.poisson(mean_length, n_reviews), 1)
    rows = []
    for d in range(n_reviews):
        n_qualitative = rng.binomial(lengths[d], shares[d])
        word_mixture = item_topics[items[d]] @ topics
        side = int(true_opinions[d] > 0)
        rows.append(rng.multinomial(lengths[d] - n_qualitative, word_mixture)
                    + rng.multinomial(n_qualitative, opinion_topics[side]))
    return PlantedReviews(sp.csr_matrix(np.array(rows, dtype=np.int64)), users, items, ratings,
                          true_opinions, user_effects, item_effects, item_topics, topics,
                          opinion_topics, shares)
