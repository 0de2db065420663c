"""Exact log-likelihood of observed sets under the low-rank DPP, and its gradients.

For an observed set X with 0/1 feature rows S (|X| x V; one-hot rows for the item set) and the
item log-masses log p(x), eq. 19 gives

    log P(X) = log det L_X - log det(L + I),
    log det L_X = sum_x log p(x) + log det G_X,   G_X = alpha Diag(1/p_X) + S A S^T,

since L_X = D^1/2 (alpha D^-1 + S A S^T) D^1/2 with D = Diag(p_X). With A = gamma I + U Theta U^T
and W = S U: G_X = alpha Diag(1/p_X) + gamma S S^T + W Theta W^T. Closed-form gradients:

    d log det G_X / d theta_k = w_k^T G_X^-1 w_k,      d log det G_X / dU = 2 S^T G_X^-1 W Theta,

and for the normaliser (`kernel.rank_terms`): d/dtheta_k = [M - M T M]_kk, d/dU = 2 C U T.

`Observations` precomputes what does not depend on (U, theta) and groups the sets into buckets
of similar size, padded with identity blocks, so every evaluation is a few batched Cholesky
factorisations instead of a Python loop over sets.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np
import scipy.sparse as sp

from ..errors import InputError
from .kernel import BaseMeasure, constant_log_normalizer, moment_times, rank_terms

BUCKET_ENTRIES = 2_000_000
"""Sets are padded and batched while (sets in the batch) x (largest size)^2 stays below this."""


def rows_matrix(sets: Sequence[Sequence], n_words: int, kind: str) -> tuple[sp.csr_matrix, np.ndarray]:
    """Stack the sets' rows into one 0/1 CSR matrix; return it with the set offsets.

    For ``kind="items"`` a set is a sequence of item ids; for ``"binary"`` a sequence of rows,
    each a sequence of word ids (repeats count once).
    """
    indptr, indices, offsets = [0], [], [0]
    for number, members in enumerate(sets):
        for row in members:
            ids = np.unique(np.atleast_1d(np.asarray(row, dtype=np.int64)))
            if kind == "items" and ids.size != 1:
                raise InputError(f"set {number}: an item must be one integer id, got {row!r}")
            if ids.size and (ids[0] < 0 or ids[-1] >= n_words):
                raise InputError(f"set {number}: id out of range 0..{n_words - 1} in {row!r}")
            indices.append(ids)
            indptr.append(indptr[-1] + ids.size)
        offsets.append(len(indptr) - 1)
    data_indices = np.concatenate(indices) if indices else np.zeros(0, dtype=np.int64)
    matrix = sp.csr_matrix((np.ones(data_indices.size), data_indices, np.asarray(indptr)),
                           shape=(len(indptr) - 1, n_words))
    return matrix, np.asarray(offsets, dtype=np.int64)


@dataclass
class _Bucket:
    set_ids: np.ndarray     # (B,)
    rows: np.ndarray        # (B, n) global row index, 0 where padded
    mask: np.ndarray        # (B, n) True for real rows
    fixed: np.ndarray       # (B, n, n): alpha Diag(1/p) + gamma S S^T, identity on padding


class Observations:
    """Sets observed from a DPP on ``base``, with everything that (U, theta) do not change."""

    def __init__(self, sets: Sequence[Sequence], base: BaseMeasure, gamma: float, alpha: float,
                 bucket_entries: int = BUCKET_ENTRIES):
        if len(sets) == 0:
            raise InputError("no observed sets")
        self.base, self.gamma, self.alpha = base, float(gamma), float(alpha)
        self.rows, self.offsets = rows_matrix(sets, base.dimension, base.kind)
        self.sizes = np.diff(self.offsets)
        row_log_p = base.log_p(self.rows)
        self.log_p = np.bincount(np.repeat(np.arange(self.sizes.size), self.sizes), row_log_p,
                                 minlength=self.sizes.size)
        self.buckets = self._buckets(row_log_p, bucket_entries)

    def __len__(self) -> int:
        return self.sizes.size

    def _batches(self, bucket_entries: int) -> list[np.ndarray]:
        """Set ids by increasing size, cut so that each padded batch fits ``bucket_entries``."""
        order = np.argsort(self.sizes, kind="stable")
        batches, start = [], 0
        for end in range(1, order.size + 1):
            if end == order.size or (end + 1 - start) * max(int(self.sizes[order[end]]), 1) ** 2 > bucket_entries:
                batches.append(order[start:end])
                start = end
        return batches

    def _buckets(self, row_log_p: np.ndarray, bucket_entries: int) -> list[_Bucket]:
        buckets = []
        for ids in self._batches(bucket_entries):
            n = int(self.sizes[ids].max())
            position = np.arange(n)[None, :]
            mask = position < self.sizes[ids][:, None]
            rows = np.where(mask, self.offsets[ids][:, None] + position, 0)
            fixed = np.broadcast_to(np.eye(n), (ids.size, n, n)).copy()
            for b, set_id in enumerate(ids):
                lo, hi = self.offsets[set_id], self.offsets[set_id + 1]
                block = self.rows[lo:hi]
                size = hi - lo
                fixed[b, :size, :size] = (self.gamma * (block @ block.T).toarray()
                                          + np.diag(self.alpha * np.exp(-row_log_p[lo:hi])))
            buckets.append(_Bucket(ids, rows, mask, fixed))
        return buckets

    def log_det_sets(self, U: np.ndarray, theta: np.ndarray, gradients: bool = True):
        """log det G_X per set and, if asked, its gradients in theta (per set) and U (summed).

        ``theta`` is (n_sets, r) or (1, r) for one theta shared by every set. Returns -inf for a
        set whose G_X is singular (linearly dependent rows with alpha = gamma = 0, for example).
        """
        shared = theta.shape[0] == 1
        W_all = self.rows @ U
        logdet = np.empty(len(self))
        grad_theta = np.zeros((len(self), U.shape[1])) if gradients else None
        row_grad = np.zeros_like(W_all) if gradients else None
        for bucket in self.buckets:
            if bucket.mask.shape[1] == 0:          # empty sets: det of a 0 x 0 matrix is 1
                logdet[bucket.set_ids] = 0.0
                continue
            W = W_all[bucket.rows] * bucket.mask[:, :, None]
            th = np.broadcast_to(theta[0], (bucket.set_ids.size, theta.shape[1])) if shared \
                else theta[bucket.set_ids]
            G = bucket.fixed + np.einsum("bnk,bk,bmk->bnm", W, th, W)
            try:
                chol = np.linalg.cholesky(G)
            except np.linalg.LinAlgError:
                logdet[:] = -np.inf
                return logdet, grad_theta, (None if row_grad is None else np.zeros_like(U))
            logdet[bucket.set_ids] = 2.0 * np.log(np.diagonal(chol, axis1=1, axis2=2)).sum(axis=1)
            if gradients:
                HW = np.linalg.solve(G, W)
                grad_theta[bucket.set_ids] = (W * HW).sum(axis=1)
                row_grad[bucket.rows[bucket.mask]] = (2.0 * HW * th[:, None, :])[bucket.mask]
        grad_U = None if not gradients else np.asarray(self.rows.T @ row_grad)
        return logdet, grad_theta, grad_U


@dataclass
class Evaluation:
    """Mean negative log-likelihood per set (no penalty) and its gradients."""

    value: float
    grad_U: np.ndarray
    grad_theta: np.ndarray    # same shape as theta
    per_set: np.ndarray       # log P(X_i) for each set


def evaluate(observations: Observations, U: np.ndarray, theta: np.ndarray,
             gradients: bool = True) -> Evaluation:
    """-(1/M) sum_i log P(X_i | U, theta_i) (eq. 24) with exact gradients.

    ``theta`` is (M, r) (one per set) or (1, r) (shared: eq. 24 with a single L).
    """
    obs = observations
    theta = np.atleast_2d(np.asarray(theta, dtype=float))
    n_sets = len(obs)
    weights = np.full(theta.shape[0], n_sets if theta.shape[0] == 1 else 1.0)
    logdet, grad_theta_data, grad_U_data = obs.log_det_sets(U, theta, gradients)
    CU = moment_times(obs.base, obs.gamma, obs.alpha, U)
    norm_logdet, grad_theta_norm, T = rank_terms(U.T @ CU, theta)
    normalizer = constant_log_normalizer(obs.base, obs.gamma, obs.alpha) + norm_logdet
    per_set = obs.log_p + logdet - (normalizer if theta.shape[0] > 1 else normalizer[0])
    value = -float(per_set.mean())
    if not gradients:
        return Evaluation(value, None, None, per_set)
    if theta.shape[0] == 1:
        grad_theta_data = grad_theta_data.sum(axis=0, keepdims=True)
    grad_theta = (weights[:, None] * grad_theta_norm - grad_theta_data) / n_sets
    grad_U = (2.0 * CU @ np.tensordot(weights, T, axes=1) - grad_U_data) / n_sets
    return Evaluation(value, grad_U, grad_theta, per_set)
