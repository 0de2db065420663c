"""The rating reduction of Dupuy's thesis, section 2.1.3.

Ratings follow the two-way ANOVA model r^d = mu + a_{u^d} + b_{c^d} + eps, eps ~ N(0, sigma^2),
fitted by L2-penalised least squares (the thesis gives no penalty weights; 10 for both by
default, as ../shared/specs/components.md section 5.1 decides). A training review is positive
when its user rated above their own average, r^d - (mu + a_{u^d}) >= 0 (reduced rating +1,
else -1). For a test review the reduced rating is unknown; the thesis writes
P[r^t = +1] = P(b_{c^t} + eps >= 0 | a, b), which for Gaussian noise is Phi(b_{c^t} / sigma)
(sigma^2 estimated by the mean squared training residual).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import lsqr
from scipy.special import ndtr

from ..validation import Interval, Real, validate_parameters


def _codes(ids, known: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(distinct ids, integer code of each entry); with ``known``, codes index ``known`` and an
    id not in it gets -1."""
    ids = np.asarray(ids)
    if known is None:
        known, codes = np.unique(ids, return_inverse=True)
        return known, codes.astype(np.int64)
    position = np.searchsorted(known, ids)
    position = np.clip(position, 0, max(len(known) - 1, 0))
    found = (known[position] == ids) if len(known) else np.zeros(len(ids), dtype=bool)
    return known, np.where(found, position, -1).astype(np.int64)


class RatingReducer:
    """Penalised ANOVA on (user, item, rating) triples and the reduced ratings in {-1, +1}.

    Parameters
    ----------
    lambda_user, lambda_item : L2 penalties on the user effects a_u and item effects b_c; mu
        (the mean rating) is not penalised.

    Fitted attributes: ``mean_`` (mu), ``user_ids_`` / ``user_effects_`` (a), ``item_ids_`` /
    ``item_effects_`` (b), ``noise_scale_`` (sigma), ``reduced_`` (the training reviews'
    reduced ratings, in the order given).
    """

    def __init__(self, lambda_user: float = 10.0, lambda_item: float = 10.0):
        self.lambda_user = lambda_user
        self.lambda_item = lambda_item

    _parameter_constraints = {"lambda_user": [Interval(Real, 0, None, "neither")],
                              "lambda_item": [Interval(Real, 0, None, "neither")]}

    def fit(self, users, items, ratings) -> "RatingReducer":
        validate_parameters(self)
        ratings = np.asarray(ratings, dtype=np.float64)
        if ratings.ndim != 1 or not len(ratings):
            raise ValueError("ratings must be a non-empty 1-D sequence of numbers")
        if not np.all(np.isfinite(ratings)):
            raise ValueError("ratings must be finite numbers")
        if len(users) != len(ratings) or len(items) != len(ratings):
            raise ValueError(f"users ({len(users)}), items ({len(items)}) and ratings "
                             f"({len(ratings)}) must have the same length")
        self.user_ids_, user_codes = _codes(users)
        self.item_ids_, item_codes = _codes(items)
        n_users, n_items, n = len(self.user_ids_), len(self.item_ids_), len(ratings)
        self.mean_ = float(ratings.mean())
        # Variables scaled by sqrt(lambda) so that lsqr's single damping (1) applies each
        # penalty: ||r - mu - A a - B b||^2 + lambda_u ||a||^2 + lambda_i ||b||^2.
        rows = np.concatenate([np.arange(n), np.arange(n)])
        columns = np.concatenate([user_codes, n_users + item_codes])
        values = np.concatenate([np.full(n, 1 / np.sqrt(self.lambda_user)),
                                 np.full(n, 1 / np.sqrt(self.lambda_item))])
        design = sp.csr_matrix((values, (rows, columns)), shape=(n, n_users + n_items))
        scaled = lsqr(design, ratings - self.mean_, damp=1.0, atol=1e-12, btol=1e-12,
                      iter_lim=10 * (n_users + n_items) + 100)[0]
        self.user_effects_ = scaled[:n_users] / np.sqrt(self.lambda_user)
        self.item_effects_ = scaled[n_users:] / np.sqrt(self.lambda_item)
        residuals = (ratings - self.mean_ - self.user_effects_[user_codes]
                     - self.item_effects_[item_codes])
        self.noise_scale_ = float(np.sqrt(np.mean(residuals ** 2)))
        self.reduced_ = np.where(ratings - (self.mean_ + self.user_effects_[user_codes]) >= 0,
                                 1, -1).astype(np.int8)
        return self

    def reduce(self, users, ratings) -> np.ndarray:
        """Reduced ratings (+1 / -1) of reviews with known ratings: r - (mu + a_u) >= 0; a user
        not seen in training has a_u = 0."""
        _, codes = _codes(users, self.user_ids_)
        effects = np.where(codes >= 0, self.user_effects_[np.maximum(codes, 0)], 0.0)
        return np.where(np.asarray(ratings, float) - (self.mean_ + effects) >= 0,
                        1, -1).astype(np.int8)

    def prob_positive(self, items) -> np.ndarray:
        """P[reduced rating = +1] of test reviews of ``items``: Phi(b_c / sigma) (thesis
        section 2.1.3); an item not seen in training has b_c = 0, hence 1/2."""
        _, codes = _codes(items, self.item_ids_)
        effects = np.where(codes >= 0, self.item_effects_[np.maximum(codes, 0)], 0.0)
        if self.noise_scale_ == 0:
            return np.where(effects >= 0, 1.0, 0.0)
        return ndtr(effects / self.noise_scale_)
