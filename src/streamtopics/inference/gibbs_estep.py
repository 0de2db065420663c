"""The local Gibbs estimator of G-OEM (Dupuy & Bach 2016, Algorithm 2, appendix A.3).

Which samples are averaged, exactly: with P passes and R = max(1, floor(P / 4)), the samples
z^t of the last R passes (t = P - R + 1, ..., P, 1-based) are *recorded*.

* s1: for every token n, the average over the recorded passes of the full conditional
  p(z_n = k | z^t_-n, X, beta, alpha) (equation 15) given the complete sample z^t of the other
  tokens (Algorithm 2, final loop); summed over the tokens of each word.
* s2: the average over the same recorded samples of
  digamma(alpha_k + n_dk^t) - digamma(sum_j alpha_j + N_d) (appendix A.3 writes the average over
  all P samples; we drop the first 3P/4, which depend on the initialisation, as for s1, so that
  both statistics estimate the posterior expectation from the same burnt-in samples).

Document-topic proportions (`doc_topic`) are the posterior mean E[theta_d | X] estimated the
same way: (E[n_dk] + alpha_k) / (N_d + sum alpha), E[n_dk] the averaged conditionals.

Boosted use (G-OEM++, section 3.3) calls `GibbsRun.advance` one pass at a time with the updated
parameters; before the recorded window the current estimate is that of the latest pass alone
(a single recorded sample), inside the window it is the average over the window so far. What
such a run keeps between its calls is its `BoostedPasses`; a run that takes its passes in one
call has none.

``last_sample=True`` is the local step of streaming Gibbs sampling (SGS, Gao et al. 2016; Dupuy
& Bach 2016, section 5): only the last pass is recorded (R = 1), and s1 counts the sampled
assignments themselves (hard counts, 1 for z_n^P) instead of the full conditionals, so the
statistics carry the noise of a single sample; s2 is that of the same sample.

The chain runs in the kernels of `kernels.local_gibbs`: the dense one (O(K) per token, the
reference) or the sparse one (O(topics in the document) per token plus per-word totals built
once per call). Both sample equation 5 exactly, but a uniform maps to a topic differently, so
the two chains differ (statistically equivalent; tests/test_gibbs_estep_sparse.py).
``sampler="auto"`` (the default) runs the sparse kernel at every K, where it is the faster of
the two with held-out scores equal within noise (docs/performance.md). ``sampler="mh"`` runs a
Metropolis-Hastings chain instead (LightLDA's word and document proposals, ``mh_cycles`` cycles
per token and pass, O(1) per token and step): the same stationary distribution and the same
recorded conditionals, but a chain that mixes more slowly per pass
(tests/test_gibbs_estep_mh.py); opt-in only, "auto" never picks it.

A minibatch with a ``topic_mask`` (Labeled LDA) restricts each document's chain to its allowed
topics: s1 gets mass only there, s2 is E[log theta_k] under theta_d ~ Dirichlet over the allowed
topics and 0 elsewhere (so an alpha update from s2 is meaningless under a mask), and theta_d is
supported on the allowed topics.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np
from scipy.special import digamma

from ..kernels.local_gibbs import (DEFAULT_CYCLES, DENSE, EVERY_TOPIC, MH, NO_VALUES,
                                   RECORD_CONDITIONALS, RECORD_DENSE, RECORD_SAMPLE, SPARSE,
                                   AllowedTopics, ChainState, GlobalParameters, PassPlan,
                                   Recording, Sampler, end_state_statistics,
                                   gibbs_sweeps)
from ..kernels.statistics import (clear_sets, column_sets, group_sums, has_empty_row,
                                  tree_block_totals)
from .gibbs_boosted import BoostedPasses, digammas, word_smoothing
from .minibatch import Minibatch
from .stats import MinibatchStats
from .topic_mask import kernel_mask

SAMPLERS = ("auto", "sparse", "dense")
LOCAL_SAMPLERS = (*SAMPLERS, "mh")  # the local step's; left-to-right evaluation takes SAMPLERS
NO_ROWS = np.zeros((0, 0))


def local_word_weights(weights: np.ndarray) -> np.ndarray:
    """The U x K weights beta_wk as the kernels take them: float64, C order, and a word whose
    weights are all zero (never seen by the model) weighted uniformly, carrying no topic
    information instead of an undefined 0/0 conditional."""
    weights = np.require(weights, dtype=np.float64, requirements="C")
    if has_empty_row(weights):  # copy only then: the caller's array is never written
        weights = weights.copy()
        weights[weights.sum(axis=1) <= 0.0] = 1.0
    return weights


@dataclass(frozen=True)
class GibbsEstimator:
    """Algorithm 2 with ``passes`` Gibbs passes per document (P, default 20, as in the paper).

    ``last_sample``: record only the last pass, as hard counts of its sample (SGS, see the module
    docstring). ``dense_reference`` records the conditionals with the dense per-token kernel
    (tests only). ``sampler``: "sparse", "dense", "auto" (sparse) or "mh"
    (``mh_cycles`` Metropolis-Hastings cycles per token and pass), see the module docstring.
    """

    passes: int = 20
    dense_reference: bool = False
    last_sample: bool = False
    sampler: str = "auto"
    mh_cycles: int = DEFAULT_CYCLES

    name = "gibbs"
    # One run may cover several blocks of a chunk (`parts.RunsBlocks`).
    runs_blocks_at_once = True

    @property
    def record_mode(self) -> int:
        if self.last_sample:
            return RECORD_SAMPLE
        return RECORD_DENSE if self.dense_reference else RECORD_CONDITIONALS

    @property
    def recorded_passes(self) -> int:
        """R: the last quarter of the passes (at least one), or the last pass alone."""
        return 1 if self.last_sample else max(1, self.passes // 4)

    @property
    def uses_sparse(self) -> bool:
        """Whether the chain records sparsely (the sparse kernel, which "auto" runs, or the MH
        chain), leaving the smoothing part of the conditionals to `GibbsRun`."""
        if self.sampler not in LOCAL_SAMPLERS:
            raise ValueError(f"unknown sampler {self.sampler!r}; "
                             f"choose one of {', '.join(LOCAL_SAMPLERS)}")
        return not (self.dense_reference or self.sampler == "dense")

    @property
    def kernel_sampler(self) -> Sampler:
        """The kernel of the documents: the MH chain if the sampler is "mh", else the sparse
        or the dense exact draws."""
        if self.sampler != "mh" or self.dense_reference:
            return Sampler(SPARSE if self.uses_sparse else DENSE)
        if self.mh_cycles < 1:
            raise ValueError(f"mh_cycles must be at least 1, got {self.mh_cycles}")
        return Sampler(MH, int(self.mh_cycles))

    def begin(self, batch: Minibatch, n_topics: int, seed: int, minibatch_index: int) -> "GibbsRun":
        return GibbsRun(self, batch, n_topics, seed, minibatch_index)


class GibbsRun:
    """The local Gibbs chain of one minibatch, advanced pass by pass."""

    def __init__(self, estimator: GibbsEstimator, batch: Minibatch, n_topics: int, seed: int,
                 minibatch_index: int):
        self.estimator = estimator
        self.batch = batch
        self.seed = int(seed)
        self.minibatch_index = int(minibatch_index)
        self.passes_done = 0
        self.n_recorded = 0
        self.token_topic = np.zeros(batch.n_tokens, dtype=np.int64)
        self.doc_topic_counts = np.zeros((batch.n_documents, n_topics))
        self.rng_state = np.zeros(batch.n_documents, dtype=np.uint64)
        self.chain = ChainState(self.token_topic, self.doc_topic_counts, self.rng_state)
        self.layout = batch.layout
        self.streams = batch.stream_key(self.seed, self.minibatch_index)
        self.sampler = estimator.kernel_sampler
        # Zeroed by the first call that records into it, document by document, by the kernel
        # (`Recording.clear_rows`): a boosted step's first call records nothing (its burn-in
        # passes are recorded after them), and the rows stay cold until its window.
        self.entry_topic = np.empty((batch.n_entries, n_topics))
        self.rows_zeroed = False
        self.doc_log_theta = np.zeros((batch.n_documents, n_topics))
        self.alpha = None
        # Sparse kernel, recorded conditionals: the smoothing part beta_wk alpha_k S_j is added
        # here, per call that recorded passes (weights, alpha, S_j per entry), and per word.
        self.smoothing_calls: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        # Topics each document's rows of entry_topic may be non-zero on (B x K), or None when
        # not known (every topic). A call of the sparse kernel or MH chain that records one
        # pass, its last, writes only the topics present in the document at its end: a
        # boosted step's calls, or a run recording one pass (`_touched_rows`).
        self.touched = np.zeros((batch.n_documents, n_topics), dtype=bool)
        # Created by the first call that stops before the last pass.
        self.boosted: BoostedPasses | None = None

    @property
    def window_start(self) -> int:
        """0-based index of the first recorded pass."""
        return self.estimator.passes - self.estimator.recorded_passes

    @property
    def pending(self):
        """The burn-in pass recorded after it and not yet (`BoostedPasses.pending`), or None."""
        return None if self.boosted is None else self.boosted.pending

    def advance(self, weights: np.ndarray, alpha: np.ndarray, n_passes: int) -> None:
        """Run ``n_passes`` more passes with word weights ``weights`` (U x K, the minibatch's
        words) and prior ``alpha``."""
        batch = self.batch
        first = self.passes_done
        last = first + n_passes
        if n_passes < 1 or last > self.estimator.passes:
            raise ValueError(f"cannot run passes {first}..{last - 1} of {self.estimator.passes}")
        if self.boosted is None and last < self.estimator.passes:
            self.boosted = BoostedPasses()
        if last <= self.window_start:
            record_from, reset = last - 1, True
        else:
            record_from, reset = self.window_start, first <= self.window_start
        if reset:
            if self.n_recorded:  # else the accumulators still hold their zeros
                if self.touched is None:
                    self.entry_topic[:] = 0.0
                elif self.pending is None:  # (a pending pass wrote no entry)
                    clear_sets(self.entry_topic, *self._touched_sets())
                self.doc_log_theta[:] = 0.0
            self.touched = np.zeros(self.doc_topic_counts.shape, dtype=bool)
            self.n_recorded = 0
            self.smoothing_calls = []
            if self.boosted is not None:
                self.boosted.restart()
        sparse = self.estimator.uses_sparse
        # A burn-in pass recorded alone (a boosted step's, section 3.3), by the sparse kernel:
        # recorded after the call, word by word, from the state it leaves
        # (`kernels.local_gibbs.end_state`; the same doubles), when its statistics are asked
        # for.
        after_pass = (last <= self.window_start and self.sampler.kind == SPARSE
                      and batch.topic_mask is None
                      and self.estimator.record_mode == RECORD_CONDITIONALS)
        if after_pass:
            record_from = last
        alpha = np.ascontiguousarray(alpha, dtype=np.float64)
        mask = EVERY_TOPIC if batch.topic_mask is None else AllowedTopics(
            *kernel_mask(batch.topic_mask, batch.n_documents, alpha.size),
            digamma(self._doc_alpha(alpha).sum(axis=1)))
        weights = local_word_weights(weights)
        parameters = GlobalParameters(weights, alpha, *(
            digammas(alpha) if self.boosted is None else self.boosted.digammas(alpha)))
        recorded = last - max(first, record_from)
        # The sparse kernel's recorded conditionals leave their smoothing part to this driver.
        deferred = sparse and self.estimator.record_mode == RECORD_CONDITIONALS
        if not deferred:
            inverse = NO_VALUES
        elif after_pass:  # a call that records nothing leaves S_j alone: no zeros needed
            inverse = np.empty(batch.n_entries)
        else:
            inverse = np.zeros(batch.n_entries)
        clear_rows = recorded > 0 and not self.rows_zeroed
        smoothing = np.empty(batch.words.size) if after_pass else NO_VALUES
        gibbs_sweeps(self.layout, parameters, self.streams,
                     PassPlan(first, n_passes, record_from, self.estimator.record_mode),
                     self.chain,
                     Recording(self.entry_topic, self.doc_log_theta, inverse, smoothing,
                               clear_rows),
                     mask, self.sampler, numba.get_num_threads())
        self.rows_zeroed |= clear_rows
        if deferred and recorded:
            self.smoothing_calls.append((weights, alpha, inverse))
        if self.touched is not None and recorded:
            if recorded == 1 and sparse and batch.topic_mask is None:
                self.touched |= self.doc_topic_counts > 0.0
            else:
                self.touched = None
        if after_pass:
            self.boosted.pending = (parameters, smoothing)
            recorded = 1
        self.n_recorded += recorded
        self.passes_done = last
        self.alpha = alpha

    def _word_smoothing(self) -> np.ndarray:
        """`word_smoothing` of the recorded calls (kept from call to call by a boosted run)."""
        if self.boosted is None:
            return word_smoothing(self.batch, self.smoothing_calls)
        return self.boosted.smoothing(self.batch, self.smoothing_calls)

    def _touched_sets(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``touched`` as column sets of `kernels.statistics.group_sums`: (the set of each
        entry (its document), set_ptr B + 1, set_items)."""
        return (self.batch.entry_document, *column_sets(self.touched))

    def _rows_array(self, rows: np.ndarray | None) -> np.ndarray:
        """``rows`` (U x K), or a new array if None."""
        if rows is None:
            return np.empty((self.batch.words.size, self.doc_topic_counts.shape[1]))
        return rows

    def _touched_rows(self, rows: np.ndarray | None = None) -> np.ndarray:
        """The word rows of the recorded passes when ``touched`` is known (into ``rows``
        unless they are handed over): the smoothing part per word plus the entries' rows on
        their documents' touched topics only, O(U K + entries x topics present) instead of
        O(entries x K), the same sums bit for bit as `Minibatch.word_totals`
        (`kernels.statistics.group_sums`)."""
        batch = self.batch
        if not self.smoothing_calls:
            rows = self._rows_array(rows)
            rows[:] = 0.0
        elif self.window_start < self.passes_done < self.estimator.passes:
            rows = self._rows_array(rows)
            np.copyto(rows, self._word_smoothing())  # the next call adds to it
        else:  # the next call starts afresh: hand the rows over (rebuilt if asked again)
            rows = self._word_smoothing()
            if self.boosted is not None:
                self.boosted.drop_smoothing()
        return group_sums(self.entry_topic, batch.entry_word, rows, float(self.n_recorded),
                          *self._touched_sets())

    def _end_state_rows(self, doc_log_theta: np.ndarray, entry_rows: np.ndarray = NO_ROWS,
                        entry_inverse: np.ndarray = NO_VALUES,
                        rows: np.ndarray | None = None) -> np.ndarray:
        """The word rows of the pending pass (into ``rows`` if given), and its s2 into
        ``doc_log_theta`` (unless it has no rows), computed from the state it left
        (`kernels.local_gibbs.end_state`), and what the kernel would have recorded into
        ``entry_rows`` and ``entry_inverse`` when given."""
        parameters, smoothing = self.pending
        return end_state_statistics(self.layout, self.chain, parameters, smoothing,
                                    self._rows_array(rows), doc_log_theta, entry_rows,
                                    entry_inverse)

    def _record_pending(self) -> None:
        """Record the pending pass into the entries' accumulators, as the kernel would have
        (for the per-entry expectations; the statistics need not)."""
        if self.pending is None:
            return
        if not self.rows_zeroed:
            self.entry_topic[:] = 0.0
            self.rows_zeroed = True
        inverse = np.zeros(self.batch.n_entries)
        self._end_state_rows(self.doc_log_theta, self.entry_topic, inverse)
        parameters = self.pending[0]
        self.smoothing_calls = [(parameters.weights, parameters.alpha, inverse)]
        self.touched = self.doc_topic_counts > 0.0
        self.boosted.pending = None

    def _entry_totals(self) -> np.ndarray:
        """The recorded conditionals summed over the recorded passes, per entry (entries x K)."""
        self._record_pending()
        if not self.smoothing_calls:
            return self.entry_topic
        entry_word = self.batch.entry_word
        totals = self.entry_topic.copy()
        for weights, alpha, inverse in self.smoothing_calls:
            totals += inverse[:, None] * weights[entry_word] * alpha
        return totals

    def _doc_alpha(self, alpha: np.ndarray) -> np.ndarray:
        """alpha per document: K numbers, or B x K zero outside each document's mask."""
        mask = self.batch.topic_mask
        return alpha if mask is None else alpha * mask.indicator()

    def entry_expectations(self) -> np.ndarray:
        """Expected counts E[sum_n z_nk] per entry (distinct word of a document), entries x K."""
        return self._entry_totals() / self.n_recorded

    def statistics(self) -> MinibatchStats:
        """The minibatch's statistics. The word rows: of a pending pass, from the state it left
        (`_end_state_rows`); over the touched topics alone when they are known (a boosted
        step's passes, `_touched_rows`); else, of the recorded passes of at most one call, in
        parallel over words (`_block_rows`); else by `Minibatch.word_totals` onto the
        smoothing part. The same sums in every case."""
        return self._statistics(self.doc_log_theta)

    def word_statistics(self) -> MinibatchStats:
        """`statistics` with s1 alone (s2 NaN): what a boosted step's passes before its last
        one blend (`engine.OnlineEM`); a pending pass's s2 is then not computed. Its word
        rows are valid until the next `word_statistics`: the rows it builds are written into
        one U x K array of the run's (`BoostedPasses.rows_buffer`), whose memory stays in
        cache from pass to pass, where a new array per pass would come at a new address each
        time. The engine may blend into them (``scratch``)."""
        if self.boosted is None:
            return self._statistics(NO_ROWS)
        if self.boosted.rows_buffer is None:
            self.boosted.rows_buffer = self._rows_array(None)
        return self._statistics(NO_ROWS, self.boosted.rows_buffer)

    def _statistics(self, doc_log_theta: np.ndarray,
                    rows: np.ndarray | None = None) -> MinibatchStats:
        """The statistics, s2 from ``doc_log_theta`` (this run's) or NaN (no rows), the word
        rows built afresh written into ``rows`` if given."""
        batch = self.batch
        if self.pending is not None:
            word_topic = self._end_state_rows(doc_log_theta, rows=rows)
        elif self.touched is not None:
            word_topic = self._touched_rows(rows)
        elif len(self.smoothing_calls) > 1:
            word_topic = batch.word_totals(self.entry_topic, self.n_recorded,
                                           self._word_smoothing())
        else:
            word_topic = self._block_rows(np.array([0, batch.n_entries]))
        log_theta = (doc_log_theta.sum(axis=0) / self.n_recorded if doc_log_theta.size
                     else np.full(self.doc_log_theta.shape[1], np.nan))
        return MinibatchStats(batch.words, word_topic, log_theta, batch.n_documents,
                              batch.n_words, scratch=word_topic is rows)

    def _block_rows(self, block_entry_ptr: np.ndarray) -> np.ndarray:
        """The word rows of blocks of entries merged along the tree
        (`kernels.statistics.tree_block_totals`); the recorded passes of at most one call."""
        if len(self.smoothing_calls) > 1:
            raise ValueError("block statistics need the recorded passes of one call")
        weights, alpha, inverse = self.smoothing_calls[0] if self.smoothing_calls else (
            NO_ROWS, NO_VALUES, NO_VALUES)
        return tree_block_totals(self.batch.entry_word, self.entry_topic, block_entry_ptr,
                                 self.batch.words.size, inverse, weights, alpha,
                                 float(self.n_recorded))

    def block_statistics(self, size: int, tree) -> MinibatchStats:
        """The statistics of this run's documents cut in blocks of ``size`` documents, bit for
        bit those of one run per block merged along ``tree`` (`estep_chunks.tree_merge`): the
        word rows by `kernels.statistics.tree_block_totals` (in parallel over words), s2 by
        ``tree`` itself. One run over many blocks instead of a run per block: one kernel call,
        its documents dealt over all the threads at once, no block's statistics built."""
        self._record_pending()
        batch = self.batch
        starts = np.arange(0, batch.n_documents, size)
        stops = np.minimum(starts + size, batch.n_documents)
        word_topic = self._block_rows(np.append(batch.doc_ptr[starts], batch.doc_ptr[-1]))
        log_theta = tree([self.doc_log_theta[start:stop].sum(axis=0) / self.n_recorded
                          for start, stop in zip(starts, stops)], np.add)
        return MinibatchStats(batch.words, word_topic, log_theta, batch.n_documents,
                              batch.n_words)

    def doc_topic(self) -> np.ndarray:
        """Posterior mean of theta_d per document, B x K (rows sum to 1)."""
        expected = (self.batch.document_totals(self._entry_totals()) / self.n_recorded
                     + self._doc_alpha(self.alpha))
        return expected / expected.sum(axis=1, keepdims=True)
