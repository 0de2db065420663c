"""What a local Gibbs run advanced pass by pass keeps between its calls (`BoostedPasses`: a
boosted step, Dupuy & Bach 2016 section 3.3, re-estimates the parameters after every pass), and
the two helpers it shares with a run that takes its passes in one call.
"""

from __future__ import annotations

import numpy as np
from scipy.special import digamma

from ..kernels.statistics import add_scaled_rows, scaled_rows
from .minibatch import Minibatch


def digammas(alpha: np.ndarray) -> tuple[np.ndarray, float]:
    """digamma(alpha) and digamma(sum alpha), as `GlobalParameters` takes them."""
    return digamma(alpha), float(digamma(alpha.sum()))


def word_smoothing(batch: Minibatch, calls: list, rows: np.ndarray | None = None) -> np.ndarray:
    """The smoothing part of the recorded conditionals, beta_wk alpha_k S_j (sparse kernel,
    `kernels.local_gibbs.sparse`), of ``calls`` ((weights, alpha, S_j per entry) each) per
    word, added in order to ``rows`` (new rows if None): O(U K) per call instead of
    O(entries K)."""
    for weights, alpha, inverse in calls:
        scale = np.bincount(batch.entry_word, inverse, minlength=batch.words.size)
        if rows is None:
            rows = scaled_rows(scale, weights, alpha)
        else:
            add_scaled_rows(rows, scale, weights, alpha)
    return rows


class BoostedPasses:
    """What a run advanced pass by pass keeps between its calls (a boosted step, section 3.3:
    the engine re-estimates the parameters after every pass); a run that takes its passes in
    one call has none of it."""

    def __init__(self):
        # (alpha's bytes, digamma(alpha), digamma(sum alpha)) of the latest call: a boosted
        # step changes alpha only after its last pass.
        self.latest_digammas = (b"", None, 0.0)
        # A burn-in pass recorded alone by the sparse kernel is recorded after it, from the
        # state it leaves (`kernels.local_gibbs.end_state`): (its `GlobalParameters`, the
        # kernel's smoothing totals s_w) until then, else None (`GibbsRun._record_pending`).
        self.pending = None
        # The word rows `GibbsRun.word_statistics` builds, written into one U x K array.
        self.rows_buffer = None
        # The smoothing part of the first ``smoothed`` recorded calls per word (`smoothing`).
        self.word_smoothing, self.smoothed = None, 0

    def digammas(self, alpha: np.ndarray) -> tuple[np.ndarray, float]:
        """`digammas` of ``alpha``, those of the latest call while alpha has not changed."""
        key = alpha.tobytes()
        if key != self.latest_digammas[0]:
            self.latest_digammas = (key, *digammas(alpha))
        return self.latest_digammas[1:]

    def smoothing(self, batch: Minibatch, calls: list) -> np.ndarray:
        """`word_smoothing` of ``calls``, the rows kept from call to call (the calls not
        added yet added to them)."""
        self.word_smoothing = word_smoothing(batch, calls[self.smoothed:], self.word_smoothing)
        self.smoothed = len(calls)
        return self.word_smoothing

    def drop_smoothing(self) -> None:
        """Keep no smoothing rows (their calls are added afresh when asked for)."""
        self.word_smoothing, self.smoothed = None, 0

    def restart(self) -> None:
        """A new recorded window (or a burn-in pass recorded alone): nothing pending, no rows
        kept."""
        self.pending = None
        self.drop_smoothing()
