"""Sufficient statistics of LDA as an exponential family (Dupuy & Bach 2016, equation 6).

s = (s1, s2): s1 (K x V) expected topic-word counts, s1_kv = E[sum_n z_nk x_nv]; s2 (K) expected
log topic proportions, s2_k = E[log theta_k]. Two values:

* `MinibatchStats`: the per-document expectations of one minibatch, *summed* over its documents,
  on the minibatch's own U words. Merging two is exact (a split minibatch merges to the unsplit).
* `SufficientStats`: the running statistics s_i of online EM, blended by equation 3. s1 is stored
  word-major (V x K) as ``scale * raw`` with a lazy scale factor and incrementally kept row sums
  (``topic_totals``), so a blend costs O(U K) for the U words of the minibatch, not O(V K).

`IterateAverage` keeps the Polyak-Ruppert average of the iterates (Algorithm 1's eta_bar_N), lazily.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np
from scipy.special import digamma

from ..kernels.statistics import blend_rows, merge_sorted_rows, set_rows

# When the lazy scale of s1 falls below this, it is folded into the stored values.
_SMALLEST_SCALE = 1e-150
# With an iterate average, it is folded in already below this (see `IterateAverage.rebase`).
AVERAGED_SMALLEST_SCALE = 1e-4


@dataclass
class MinibatchStats:
    """Expected sufficient statistics (equation 6) summed over the documents of a minibatch.

    ``words``: the U distinct global word ids (ascending); ``word_topic`` (U x K): sum over
    documents of E[s1] restricted to those words; ``log_theta`` (K): sum over documents of
    E[log theta_k]; ``n_documents``: how many documents were summed; ``n_words``: V.
    When the local run opened topics (HDP, `inference.hdp_estep`), ``word_topic`` has T + M
    columns and ``log_theta`` T + M + 1 entries (the rest of the stick last); ``prior`` is the
    alpha they were computed with, a' = b (pi, pi_*) over the T + M topics and the rest, and
    ``padding`` the M + 1 values s2 of s_{i-1} gets for the new components and the rest
    (`SufficientStats.add_topics`). Both None otherwise. ``tables`` (HDP only, else None): the
    sum over documents of their expected number of tables, E[s_dk] summed over topics
    (`inference.hdp_estep`), which the learnt stick concentration reads
    (`inference.sticks.StickConcentration`). ``scratch``: a blend may overwrite ``word_topic``.
    """

    words: np.ndarray
    word_topic: np.ndarray
    log_theta: np.ndarray
    n_documents: int
    n_words: int
    prior: np.ndarray | None = None
    padding: np.ndarray | None = None
    tables: float | None = None
    scratch: bool = False

    @property
    def n_topics(self) -> int:
        return self.word_topic.shape[1]

    @property
    def nbytes(self) -> int:
        """Bytes of its arrays (what a worker of a distributed E-step sends back)."""
        return int(self.words.nbytes + self.word_topic.nbytes + self.log_theta.nbytes)

    def blend_rows(self, raw: np.ndarray, source: np.ndarray, rows: np.ndarray,
                   coefficient: float, column_sums: np.ndarray) -> None:
        """``raw[rows] = source[rows] + coefficient * mean`` and ``column_sums`` = the column
        sums of ``mean``, with ``mean = word_topic / n_documents`` (`kernels.statistics.
        blend_rows`: eq. 3's O(U K) part, `SufficientStats.blend`)."""
        blend_rows(raw, source, rows, self.word_topic, float(self.n_documents), coefficient,
                   column_sums, numba.get_num_threads())

    def merge(self, other: "MinibatchStats") -> "MinibatchStats":
        """The statistics of the union of both minibatches' documents (exact: sums)."""
        if other.n_words != self.n_words or other.n_topics != self.n_topics:
            raise ValueError("cannot merge statistics of different vocabularies or topic counts")
        words, word_topic = merge_sorted_rows(self.words, np.ascontiguousarray(self.word_topic),
                                              other.words,
                                              np.ascontiguousarray(other.word_topic))
        tables = (None if self.tables is None or other.tables is None
                  else self.tables + other.tables)
        return MinibatchStats(words, word_topic, self.log_theta + other.log_theta,
                              self.n_documents + other.n_documents, self.n_words, tables=tables)

    def topic_word(self) -> np.ndarray:
        """Dense K x V s1 (summed over documents)."""
        dense = np.zeros((self.n_topics, self.n_words))
        dense[:, self.words] = self.word_topic.T
        return dense


@dataclass
class _Checkpoint:
    words: np.ndarray
    rows: np.ndarray
    scale: float
    topic_totals: np.ndarray
    log_theta: np.ndarray
    n_documents: float
    tables: float | None


class SufficientStats:
    """The running statistics s_i = (s1, s2) of online EM.

    ``raw`` (V x K) with ``scale``: s1[k, v] = scale * raw[v, k]; ``topic_totals`` (K):
    sum_v s1[k, v]; ``log_theta`` (K): s2; ``n_documents``: documents blended in so far;
    ``tables`` (HDP, else None): the expected tables per document, blended by eq. 3 like s2
    (from 0 when the first minibatch that has them comes: rho_1 = 1 by default).
    """

    def __init__(self, raw: np.ndarray, log_theta: np.ndarray, scale: float = 1.0,
                 topic_totals: np.ndarray | None = None, n_documents: float = 0.0,
                 tables: float | None = None):
        self.raw = np.ascontiguousarray(raw, dtype=np.float64)
        self.log_theta = np.asarray(log_theta, dtype=np.float64).copy()
        self.scale = float(scale)
        self.topic_totals = (scale * self.raw.sum(axis=0) if topic_totals is None
                             else np.asarray(topic_totals, dtype=np.float64).copy())
        self.n_documents = float(n_documents)
        self.tables = None if tables is None else float(tables)

    @classmethod
    def from_parameters(cls, beta: np.ndarray, alpha: np.ndarray, document_length: float):
        """s_0 consistent with (beta, alpha): s1 = L beta (the counts of an average document of
        length L, row sums L), s2 = digamma(alpha) - digamma(sum alpha), so that the M-step maps
        s_0 back to (beta, alpha) (appendix A.1)."""
        alpha = np.asarray(alpha, dtype=np.float64)
        return cls(document_length * np.asarray(beta, dtype=np.float64).T,
                   digamma(alpha) - digamma(alpha.sum()))

    @property
    def n_topics(self) -> int:
        return self.raw.shape[1]

    @property
    def n_words(self) -> int:
        return self.raw.shape[0]

    def copy(self) -> "SufficientStats":
        return SufficientStats(self.raw.copy(), self.log_theta, self.scale, self.topic_totals,
                               self.n_documents, self.tables)

    def topic_word(self) -> np.ndarray:
        """Dense s1, K x V (O(K V): for inspection and tests)."""
        return self.scale * self.raw.T

    def word_topic(self, words: np.ndarray) -> np.ndarray:
        """s1 for the given words, U x K."""
        return self.scale * self.raw[words]

    def blend(self, rho: float, minibatch: MinibatchStats,
              start: "SufficientStats | None" = None) -> None:
        """Equation 3: s_i = (1 - rho) s_{i-1} + rho * (average over the minibatch's documents of
        the expected sufficient statistics), in place, in O(U K).

        rho = 1 (the first step of a 1/i^kappa schedule) discards s_{i-1} entirely.
        ``start``: statistics of the same shape to blend from instead of these, left unchanged
        (these take the result, the same numbers as a copy of ``start`` blended, without the
        copy: a boosted step's passes, `WordRows`).
        """
        if not 0.0 < rho <= 1.0:
            raise ValueError(f"step size must lie in (0, 1], got {rho}")
        if minibatch.n_documents < 1:
            raise ValueError("cannot blend the statistics of an empty minibatch")
        base = self if start is None else start
        source = base.raw
        if rho >= 1.0:
            self._clear_rows()
            source = self.raw
            self.scale = 1.0
            self.topic_totals[:] = 0.0
            self.log_theta[:] = 0.0
        else:
            self.scale = base.scale * (1.0 - rho)
            np.multiply(base.topic_totals, 1.0 - rho, out=self.topic_totals)
            np.multiply(base.log_theta, 1.0 - rho, out=self.log_theta)
        column_sums = np.empty(self.n_topics)
        minibatch.blend_rows(self.raw, source, self._row_index(minibatch.words), rho / self.scale,
                             column_sums)
        self.topic_totals += rho * column_sums
        self.log_theta += rho * (minibatch.log_theta / minibatch.n_documents)
        if minibatch.tables is not None:
            kept = 0.0 if base.tables is None or rho >= 1.0 else (1.0 - rho) * base.tables
            self.tables = kept + rho * (minibatch.tables / minibatch.n_documents)
        else:
            self.tables = base.tables
        self.n_documents = base.n_documents + minibatch.n_documents

    def _row_index(self, words: np.ndarray) -> np.ndarray:
        """The rows of ``raw`` that hold the global ``words``."""
        return words

    def _clear_rows(self) -> None:
        self.raw[:] = 0.0

    def word_rows(self, words: np.ndarray) -> "WordRows":
        """These statistics on the rows of ``words`` alone (copies), for a boosted step's
        passes (`WordRows`)."""
        return WordRows(words, self.raw[words], self.log_theta, self.scale, self.topic_totals,
                        self.n_documents, self.tables, self.n_words)

    def set_word_rows(self, rows: "WordRows") -> None:
        """Take the blended ``rows`` back: their rows, scale, row sums, s2, documents and
        tables (and zeros in every other row if a blend with rho = 1 cleared them)."""
        if rows.cleared:
            self.raw[:] = 0.0
        set_rows(self.raw, rows.words, rows.raw)
        self.scale = rows.scale
        self.topic_totals = rows.topic_totals.copy()
        self.log_theta = rows.log_theta.copy()
        self.n_documents = rows.n_documents
        self.tables = rows.tables

    def checkpoint(self, words: np.ndarray) -> _Checkpoint:
        """What a blend touching ``words`` changes, so `restore` can undo it (boosted ++)."""
        return _Checkpoint(words, self.raw[words].copy(), self.scale, self.topic_totals.copy(),
                           self.log_theta.copy(), self.n_documents, self.tables)

    def restore(self, checkpoint: _Checkpoint) -> None:
        """Undo blends made since ``checkpoint`` that touched only its words (a blend with
        rho = 1 overwrites every word anyway, so restoring its words is enough before redoing it)."""
        set_rows(self.raw, checkpoint.words, checkpoint.rows)
        self.scale = checkpoint.scale
        self.topic_totals[:] = checkpoint.topic_totals
        self.log_theta[:] = checkpoint.log_theta
        self.n_documents = checkpoint.n_documents
        self.tables = checkpoint.tables

    def add_words(self, n_new: int) -> None:
        """Append ``n_new`` words with s1 = 0 in every topic (a growing vocabulary): the row sums
        ``topic_totals`` and s2 are unchanged, so beta*(s) of the old words is unchanged exactly
        (see `OnlineLDA`'s ``grow_vocabulary``)."""
        self.raw = np.concatenate([self.raw, np.zeros((int(n_new), self.n_topics))])

    def add_topics(self, padding: np.ndarray) -> None:
        """Pad s_{i-1} for the M topics a local run opened (HDP, specs/components.md G4): s1 of
        each is 0 (it had no tokens), and s2 of the new topics and of the rest (replacing the
        old rest's) is ``padding`` (M + 1 entries, `MinibatchStats.padding`), which the local run
        chose so that padding alone moves no parameter."""
        padding = np.asarray(padding, dtype=np.float64)
        n_new = padding.size - 1
        self.raw = np.concatenate([self.raw, np.zeros((self.n_words, n_new))], axis=1)
        self.topic_totals = np.concatenate([self.topic_totals, np.zeros(n_new)])
        self.log_theta = np.concatenate([self.log_theta[:self.n_topics - n_new], padding])

    def keep_topics(self, keep: np.ndarray, rest: float | None = None) -> None:
        """Keep the topics where ``keep`` (T booleans) holds, in order (HDP pruning,
        `inference.sticks.StickSelection`); s2 of the rest of the stick, when there is one,
        becomes ``rest`` (None: unchanged)."""
        keep = np.asarray(keep, dtype=bool)
        self.raw = np.ascontiguousarray(self.raw[:, keep])
        self.topic_totals = self.topic_totals[keep]
        log_theta = self.log_theta[:keep.size][keep]
        if self.log_theta.size > keep.size:
            log_theta = np.append(log_theta, self.log_theta[-1] if rest is None else rest)
        self.log_theta = log_theta

    @property
    def needs_compaction(self) -> bool:
        return self.scale < _SMALLEST_SCALE

    def compact(self) -> None:
        """Fold the lazy scale into the stored values (O(K V), once in many steps) and recompute
        the row sums exactly."""
        self.raw *= self.scale
        self.scale = 1.0
        self.topic_totals = self.raw.sum(axis=0)


class WordRows(SufficientStats):
    """`SufficientStats` on the rows of a minibatch's U ``words`` (raw is U x K, ``local`` its
    row indices), with the scale, row sums, s2, documents and tables of the whole and
    ``n_words`` = V.

    Eq. 3 changes only those rows and K-vectors, so the passes of a boosted step (section 3.3:
    a blend from s_{i-1} and an M-step after every local pass) run on a `WordRows` copy of
    s_{i-1}, in O(U K) each with contiguous rows, and `SufficientStats.set_word_rows` takes the
    last one back; the arithmetic is that of blending the whole statistics."""

    def __init__(self, words, raw, log_theta, scale, topic_totals, n_documents, tables, n_words,
                 cleared: bool = False):
        super().__init__(raw, log_theta, scale, topic_totals, n_documents, tables)
        self.words = words
        self.local = np.arange(words.size)
        self.total_words = int(n_words)
        self.cleared = cleared

    @property
    def n_words(self) -> int:
        return self.total_words

    def copy(self, rows: bool = True) -> "WordRows":
        """A copy; with ``rows=False`` its rows are left uninitialised (for a caller that
        writes them all before reading them)."""
        return WordRows(self.words, self.raw.copy() if rows else np.empty_like(self.raw),
                        self.log_theta, self.scale, self.topic_totals, self.n_documents,
                        self.tables, self.total_words, self.cleared)

    def blend(self, rho: float, minibatch: MinibatchStats,
              start: "WordRows | None" = None) -> None:
        if start is not None:
            self.cleared = start.cleared
        super().blend(rho, minibatch, start)

    def _row_index(self, words: np.ndarray) -> np.ndarray:
        if words is not self.words and not np.array_equal(words, self.words):
            raise ValueError("these statistics hold the rows of another minibatch's words")
        return self.local

    def _clear_rows(self) -> None:
        self.raw[:] = 0.0
        self.cleared = True


class IterateAverage:
    """Polyak-Ruppert average of the iterates (Algorithm 1, eta_bar_N = (1/N) sum_i eta_i).

    The averaged topic-word parameter must be row-affine in the stored statistics:
    component[k, v] = offset_k + factor_k * raw[v, k] (true of beta = s1 / row sums, and of
    E_q[beta] for a Dirichlet lambda = eta + D s1). Per iterate only the K-vectors offset and
    factor are summed; a column's pending contribution raw[v] * (sum of factors since it last
    changed) is settled when it is about to change, so a step costs O(U K).
    """

    def __init__(self, n_words: int, n_topics: int):
        self.offset_sum = np.zeros(n_topics)
        self.factor_sum = np.zeros(n_topics)
        self.settled = np.zeros((n_words, n_topics))
        self.factor_mark = np.zeros((n_words, n_topics))
        self.alpha_sum = np.zeros(n_topics)
        self.count = 0
        # Prior mass past iterates give words added after them (`add_words`), per topic.
        self.added_mass = np.zeros(n_topics)

    def settle(self, stats: SufficientStats, words: np.ndarray | None = None) -> None:
        """Call before the stored values of ``words`` (all words if None) change."""
        index = slice(None) if words is None else words
        self.settled[index] += stats.raw[index] * (self.factor_sum - self.factor_mark[index])
        self.factor_mark[index] = self.factor_sum

    def rebase(self) -> None:
        """Restart the factor sums from 0; only right after settling every word.

        A pending contribution is raw[v] times a difference of two factor sums. As the lazy scale
        shrinks, raw grows like 1/scale while the factors shrink like scale, so the sums are
        dominated by old factors and their difference loses about log10(1 / scale) digits
        (relative errors near 1e-5 after a few hundred 1/sqrt(i) steps). The engine therefore
        folds the scale in (`SufficientStats.compact`) and rebases whenever the scale falls below
        AVERAGED_SMALLEST_SCALE, which bounds the loss to about 4 digits (O(K V), rarely)."""
        self.factor_sum[:] = 0.0
        self.factor_mark[:] = 0.0

    def add_words(self, n_new: int) -> None:
        """Append ``n_new`` words (after `SufficientStats.add_words`) with nothing pending.

        Each past iterate gives a new word its offset (its prior mass eta / row total; 0 for
        the maximum likelihood point estimate, whose offset is 0 for every topic with
        statistics), as it gives every word it had no counts for; its rows then sum to
        1 + n_new offset_i. ``added_mass`` keeps sum_i n_new offset_i per topic, and the average
        is divided by count + added_mass instead of count, so its rows sum to 1 and the old
        words of a topic keep their ratios (renormalised over the old words, unchanged)."""
        self.added_mass += int(n_new) * self.offset_sum
        n_topics = self.factor_sum.size
        self.settled = np.concatenate([self.settled, np.zeros((int(n_new), n_topics))])
        self.factor_mark = np.concatenate(
            [self.factor_mark, np.broadcast_to(self.factor_sum, (int(n_new), n_topics))])

    def record(self, offset: np.ndarray, factor: np.ndarray, alpha: np.ndarray) -> None:
        """Add iterate i, given by its row-affine form and its alpha."""
        self.offset_sum += offset
        self.factor_sum += factor
        self.alpha_sum += alpha
        self.count += 1

    def topic_word(self, stats: SufficientStats, words: np.ndarray | None = None) -> np.ndarray:
        """The averaged topic-word parameter, K x V (K x U for the given ``words``)."""
        index = slice(None) if words is None else words
        pending = stats.raw[index] * (self.factor_sum - self.factor_mark[index])
        return (((self.settled[index] + pending).T + self.offset_sum[:, None])
                / (self.count + self.added_mass)[:, None])

    def alpha(self) -> np.ndarray:
        return self.alpha_sum / self.count

    # --- the engine's calls, once per step -------------------------------------------------------
    def before_blend(self, stats: SufficientStats, rho: float, words: np.ndarray) -> None:
        """Settle what the blend of eq. 3 is about to change: the minibatch's ``words``, or
        every word when rho >= 1 (then the blend rescales all of s1)."""
        self.settle(stats, None if rho >= 1.0 else words)

    def needs_compaction(self, stats: SufficientStats) -> bool:
        """Whether the lazy scale is small enough that pending sums would lose digits."""
        return stats.scale < AVERAGED_SMALLEST_SCALE

    def restart_sums(self, stats: SufficientStats) -> None:
        """Settle every word and restart the factor sums (before `SufficientStats.compact`, or
        when a factor is far below the factor sum)."""
        self.settle(stats)
        self.rebase()

    def add_iterate(self, stats: SufficientStats, offset: np.ndarray, factor: np.ndarray,
                    alpha: np.ndarray) -> None:
        """Record iterate i (after its M-step and any compaction). A topic whose statistics
        jump by orders of magnitude (nearly empty at alpha 1e-6, then given many tokens) drops
        its factor far below the factor sum, and the pending differences of factor sums would
        cancel catastrophically: restart the sums first, as for the lazy scale (row sums of the
        average were off by 4e-4 without this)."""
        if np.any((factor > 0) & (factor < AVERAGED_SMALLEST_SCALE * self.factor_sum)):
            self.restart_sums(stats)
        self.record(offset, factor, alpha)

    def state_arrays(self) -> dict[str, np.ndarray]:
        return {"average_offset_sum": self.offset_sum, "average_factor_sum": self.factor_sum,
                "average_settled": self.settled, "average_factor_mark": self.factor_mark,
                "average_alpha_sum": self.alpha_sum, "average_count": np.array(self.count),
                "average_added_mass": self.added_mass}

    @classmethod
    def from_state_arrays(cls, arrays: dict[str, np.ndarray]) -> "IterateAverage":
        average = cls(*arrays["average_settled"].shape)
        average.offset_sum = np.array(arrays["average_offset_sum"], dtype=np.float64)
        average.factor_sum = np.array(arrays["average_factor_sum"], dtype=np.float64)
        average.settled = np.array(arrays["average_settled"], dtype=np.float64)
        average.factor_mark = np.array(arrays["average_factor_mark"], dtype=np.float64)
        average.alpha_sum = np.array(arrays["average_alpha_sum"], dtype=np.float64)
        average.count = int(arrays["average_count"])
        if "average_added_mass" in arrays:  # absent from files written before it existed
            average.added_mass = np.array(arrays["average_added_mass"], dtype=np.float64)
        return average


def stats_state_arrays(stats: SufficientStats) -> dict[str, np.ndarray]:
    """The arrays that reproduce ``stats`` exactly (for model files)."""
    arrays = {"stats_raw": stats.raw, "stats_log_theta": stats.log_theta,
              "stats_topic_totals": stats.topic_totals,
              "stats_scale": np.array(stats.scale), "stats_n_documents": np.array(stats.n_documents)}
    if stats.tables is not None:
        arrays["stats_tables"] = np.array(stats.tables)
    return arrays


def stats_from_state_arrays(arrays: dict[str, np.ndarray]) -> SufficientStats:
    tables = arrays.get("stats_tables")  # absent: LDA, or an HDP file written before it existed
    return SufficientStats(arrays["stats_raw"], arrays["stats_log_theta"],
                           float(arrays["stats_scale"]), arrays["stats_topic_totals"],
                           float(arrays["stats_n_documents"]),
                           None if tables is None else float(tables))
