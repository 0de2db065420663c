"""THE training loop of every online method: Algorithm 1 of Dupuy & Bach (2016).

For minibatch i (1-based) with step size rho_i:

    E-step   E_i  = average over the minibatch's documents of the local estimator's expectations
                    of the sufficient statistics (eq. 6), with the parameters eta_{i-1};
    blend    s_i  = (1 - rho_i) s_{i-1} + rho_i E_i                                      (eq. 3)
    M-step   eta_i = eta*(s_i): topic parameters from the parameterisation, alpha from the
                    alpha update                                                  (appendix A.1)
    callbacks(engine, report)

The engine does not know how expectations are estimated, how topics are parameterised, nor
which step size or alpha update is used: those are the parts, each a `typing.Protocol` of
`streamtopics.inference.parts` (`LocalEstimator` and its `LocalRun`, `Parameterisation`,
`StepSize`, `AlphaUpdate`, and the `EStepMap` of a batch step), whose choices
`inference.presets` names.

After the M-step the parameterisation may update its own prior (``after_step``: eta of Bayesian
topics, Hoffman et al. 2010 eq. 9), once per step.

Boosted (++, section 3.3) is a property of this loop, not another loop. With P local passes, the
parameters are re-estimated after *every* pass t = 1..P of the minibatch's local estimator:

    E_i^(t) = the local estimator's current estimate after pass t (run with eta_i^(t-1),
              eta_i^(0) = eta_{i-1}),
    s_i^(t) = (1 - rho_i) s_{i-1} + rho_i E_i^(t),    eta_i^(t) = eta*(s_i^(t)),

always blending from s_{i-1}, so s_i = s_i^(P): the minibatch still enters s once, with weight
rho_i, but its later passes already see parameters that include its earlier passes.

Only the topics are boosted: alpha = alpha*(s_i^(P)) is updated once, after the last pass. The
expected log proportions s2 of an unfinished local estimate are those of its starting point
(variational gamma = alpha + N_d / K, Blei et al. 2003, i.e. every document mixing every topic
evenly) barely moved, and Minka's fixed point reads them as a huge alpha; with rho_1 = 1 the
first minibatch's first pass alone sets it (alpha ~ 50 on an alpha ~ 0.3 corpus). Since alpha
enters every document's gamma = alpha + sum_n zeta_n (eq. 12), an alpha much larger than
N_d / K keeps the next passes' posteriors near uniform, which confirms it: V-OEM++ stayed at
mean alpha ~ 200. Topics have no such one-to-one feedback on the local
state, and boosting them is what section 3.3 gains from. So s2 reaches the model from the last
pass alone, and the passes before it may leave it out: a run that is a
`inference.parts.WordStatistics` gives their s1 with s2 NaN (their blended s2 is never read,
the next pass blending from s_{i-1} again), which spares V-OEM++ B x (K + 1) digammas per
pass.

`OnlineEM` refuses parts whose capability declarations are malformed when it is made (and an
E-step map when it is given one: `inference.parts.check_local_estimator`, `check_estep_map`).

Polyak-Ruppert averaging (``averaging=True``) reports eta_bar_N = (1/N) sum_{i=1..N} eta_i
(Algorithm 1, output) while the loop itself runs on the iterates eta_i.

Topics may come and go (HDP, Dupuy 2017 section 3.4; docs/architecture.md, "Topics that come and
go"): a local run whose statistics have more topics than s_{i-1} opened them, and brings the prior
a' they were computed with (`MinibatchStats.prior`); s_{i-1} is padded consistently before the blend
(`SufficientStats.add_topics`), so eq. 3 is unchanged. After the M-step an optional
``topic_selection`` part (`inference.sticks.StickSelection`) may drop topics and returns the prior
(pruning). LDA's parts never do either. Then an optional ``local_update`` part may give the local
estimator new settings computed from s_i (HDP's learnt stick concentration,
`inference.sticks.StickConcentration`; a pure function of s_i, so `restore` recomputes it).

`OnlineEM.batch_step` is one step whose minibatch is the union of several (the E-step of each
with the same parameters, their statistics merged exactly, one M-step): with the whole corpus and
rho = 1 it is one iteration of batch EM, or of batch VB (Hoffman et al. 2010, Algorithm 1), with
memory bounded by the chunk size.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable, Iterable, Iterator

import numpy as np

from .inference.global_parameters import BlendsStatistics, components_from_affine
from .inference.backends import plan_chunks
from .inference.estep_chunks import ChunkTask, chunk_tasks, minibatch_statistics, run_chunk
from .inference.minibatch import Minibatch
from .inference.seeded_topics import SeededTopics
from .inference.parts import (AlphaUpdate, EStepMap, LocalEstimator, Parameterisation, StepSize,
                              WordStatistics, check_estep_map, check_local_estimator, fallback,
                              serial_map)
from .inference.stats import (IterateAverage, MinibatchStats, SufficientStats,
                              stats_from_state_arrays, stats_state_arrays)

# Random-stream "minibatch index" of transform: no training step reaches it.
TRANSFORM_STREAM = 2**62


def initial_parameters(n_topics: int, n_words: int, rng: np.random.Generator,
                       doc_topic_prior=None) -> tuple[np.ndarray, np.ndarray]:
    """Random initial (beta_0, alpha_0), the same for every method given the same generator
    (paper section 5.1). beta_0 rows are Dirichlet(1) draws (normalised Gamma(1, 1)): topics
    random enough that the first local passes break the symmetry between topics. (Near-uniform
    topics, as Hoffman et al. 2010's Gamma(100, 1/100) lambda_0, make boosted V-OEM++'s first
    M-steps fit near-uniform topic proportions and a huge alpha, where some seeds stay.) Bayesian
    methods start from a lambda_0 with E_q[beta_0] = beta_0 (`VariationalDirichlet`). alpha_0 is
    ``doc_topic_prior`` (scalar or K values), by default 1/K."""
    draws = rng.gamma(1.0, 1.0, size=(n_topics, n_words))
    beta = draws / draws.sum(axis=1, keepdims=True)
    prior = 1.0 / n_topics if doc_topic_prior is None else doc_topic_prior
    alpha = np.broadcast_to(np.asarray(prior, dtype=np.float64), (n_topics,)).copy()
    return beta, alpha


@dataclass(frozen=True)
class StepReport:
    """What one step did: step index i, step size rho_i, documents and tokens, wall time."""

    step: int
    rho: float
    n_documents: int
    n_tokens: int
    seconds: float


class OnlineEM:
    """Algorithm 1 over pluggable parts (see the module docstring); ``estep_map`` runs the
    chunks of a batch step (default: one after the other, here)."""

    def __init__(self, local: LocalEstimator, parameters: Parameterisation, step_size: StepSize,
                 alpha_update: AlphaUpdate, *, boosted: bool = False, averaging: bool = False,
                 seed: int = 0, estep_map: EStepMap = serial_map, topic_selection=None,
                 local_update=None):
        check_local_estimator(local)
        self.local = local
        self.topic_selection = topic_selection
        self.local_update = local_update
        self.parameters = parameters
        self.step_size = step_size
        self.alpha_update = alpha_update
        self.estep_map = estep_map
        self.boosted = bool(boosted)
        self.averaging = bool(averaging)
        self.seed = int(seed)
        self.stats: SufficientStats | None = None
        self.alpha: np.ndarray | None = None
        self.average: IterateAverage | None = None
        self.step = 0

    @property
    def estep_map(self) -> EStepMap:
        """How a step maps its chunks (`inference.parts.EStepMap`; a `Backend` also says how
        finely to cut a minibatch)."""
        return self._estep_map

    @estep_map.setter
    def estep_map(self, estep_map: EStepMap) -> None:
        check_estep_map(estep_map)
        self._estep_map = estep_map

    # --- state ---------------------------------------------------------------------------------
    def initialize(self, beta: np.ndarray, alpha: np.ndarray, document_length: float) -> None:
        """Start from eta_0 = (beta, alpha) with s_0 given by the parameterisation (consistent
        with eta_0; s_0 matters only when rho_1 < 1)."""
        self.stats = self.parameters.initial_stats(beta, alpha, document_length)
        self.alpha = np.asarray(alpha, dtype=np.float64).copy()
        self.average = IterateAverage(*self.stats.raw.shape) if self.averaging else None
        self.step = 0

    @property
    def initialized(self) -> bool:
        return self.stats is not None

    @property
    def n_topics(self) -> int:
        return self.stats.n_topics

    @property
    def n_words(self) -> int:
        return self.stats.n_words

    def state_arrays(self) -> dict[str, np.ndarray]:
        arrays = {**stats_state_arrays(self.stats), "current_alpha": self.alpha,
                  **self.parameters.state_arrays()}
        if self.average is not None:
            arrays.update(self.average.state_arrays())
        return arrays

    def restore(self, arrays: dict[str, np.ndarray], step: int) -> None:
        self.stats = stats_from_state_arrays(arrays)
        self.alpha = np.array(arrays["current_alpha"], dtype=np.float64)
        self.parameters = self.parameters.with_state(arrays)
        self.average = IterateAverage.from_state_arrays(arrays) if self.averaging else None
        self.step = int(step)
        if self.local_update is not None:
            self.local = self.local_update(self.local, self.stats)

    def add_words(self, n_new: int) -> None:
        """Grow the vocabulary by ``n_new`` words with zero statistics (no step is taken): with
        a point estimate the topics of the old words are unchanged exactly; with a prior eta
        (Bayesian or smoothed topics) each new word gets the prior's mass, which scales every
        old word of a topic by the same factor (see `OnlineLDA`'s ``grow_vocabulary``)."""
        if n_new < 0:
            raise ValueError(f"cannot add {n_new} words")
        if n_new == 0:
            return
        self.stats.add_words(n_new)
        if self.average is not None:
            self.average.add_words(n_new)

    # --- reported parameters -------------------------------------------------------------------
    def components(self) -> np.ndarray:
        """Topic-word distributions (K x V): eta_i, or the average eta_bar_i with averaging."""
        if self.average is not None and self.average.count:
            return self.average.topic_word(self.stats)
        if isinstance(self.parameters, SeededTopics):  # row-affine plus the seed words
            return self.parameters.components(self.stats)
        return components_from_affine(self.stats, *self.parameters.row_affine(self.stats))

    def doc_topic_prior(self) -> np.ndarray:
        if self.average is not None and self.average.count:
            return self.average.alpha()
        return self.alpha.copy()

    def _check_batch(self, batch: Minibatch) -> None:
        if batch.n_words != self.n_words:
            raise ValueError(f"the minibatch has a vocabulary of {batch.n_words} words but the "
                             f"model has {self.n_words}")
        if batch.n_documents < 1:
            raise ValueError("the minibatch has no documents")

    # --- the loop ------------------------------------------------------------------------------
    def partial_fit(self, batch: Minibatch) -> StepReport:
        """One step of Algorithm 1 on ``batch``."""
        self._check_batch(batch)
        started = time.perf_counter()
        step = self.step + 1
        rho = self.step_size(step, batch.n_documents, self.stats.n_documents)
        words = batch.words
        if self.average is not None:
            self.average.before_blend(self.stats, rho, words)
        alpha_previous = self.alpha
        if self.boosted:
            self._boosted_passes(batch, rho, alpha_previous)
        else:
            self._m_step(rho, self._minibatch_statistics(batch), alpha_previous)
        return self._finish_step(step, rho, batch.n_documents, batch.n_tokens, started)

    def batch_step(self, batches: Iterable[Minibatch]) -> StepReport:
        """One step of Algorithm 1 whose minibatch is the union of ``batches``: each runs the
        local estimator with the same parameters eta_{i-1} (random streams (seed, step,
        document index): give each batch its ``first_document``), their statistics are summed
        exactly, then one blend and M-step. Equal to `partial_fit` on the concatenated batch,
        with memory bounded by the largest batch. Not for boosted methods (their passes need
        every document's state at once)."""
        if self.boosted:
            raise ValueError("a boosted (++) method updates the parameters after every local pass "
                             "of one minibatch: it cannot take a batch step")
        started = time.perf_counter()
        step = self.step + 1
        word_topic = np.zeros((self.n_words, self.n_topics))
        seen = np.zeros(self.n_words, dtype=bool)
        log_theta = np.zeros(self.n_topics)
        n_documents = 0
        tokens = []
        for statistics in self.estep_map(run_chunk, self._batch_tasks(batches, tokens)):
            word_topic[statistics.words] += statistics.word_topic
            seen[statistics.words] = True
            log_theta += statistics.log_theta
            n_documents += statistics.n_documents
        n_tokens = sum(tokens)
        if n_documents == 0:
            raise ValueError("a batch step needs at least one document")
        words = np.flatnonzero(seen)
        merged = MinibatchStats(words, word_topic[words], log_theta, n_documents, self.n_words)
        rho = self.step_size(step, n_documents, self.stats.n_documents)
        if self.average is not None:
            self.average.before_blend(self.stats, rho, words)
        self._m_step(rho, merged, self.alpha)
        return self._finish_step(step, rho, n_documents, n_tokens, started)

    def _batch_tasks(self, batches: Iterable[Minibatch], tokens: list) -> Iterator[ChunkTask]:
        """The chunk tasks of a batch step, made as the map asks for them (a serial map holds
        one at a time); each batch's tokens are appended to ``tokens``."""
        for batch in batches:
            self._check_batch(batch)
            tokens.append(batch.n_tokens)
            yield ChunkTask(self.local, batch, self.parameters.word_weights(self.stats, batch.words),
                            self.alpha, self.n_topics, self.seed, self.step)

    def _minibatch_statistics(self, batch: Minibatch) -> MinibatchStats:
        """E_i (eq. 6) summed over ``batch`` with the parameters eta_{i-1}: its chunks, each
        with the weights of its own words, mapped by ``estep_map`` and merged along a tree
        fixed by the minibatch alone (`inference.estep_chunks`: any backend, the same sums)."""
        weights = self.parameters.word_weights(self.stats, batch.words)
        tasks = chunk_tasks(self.local, batch, weights, self.alpha, self.n_topics, self.seed,
                            self.step, plan_chunks(batch.n_documents, self.estep_map, self.local))
        return minibatch_statistics(list(tasks), self.estep_map)

    def _boosted_passes(self, batch: Minibatch, rho: float, alpha_previous: np.ndarray) -> None:
        """The P local passes of a boosted step, each followed by the blend from s_{i-1} and the
        topics' M-step (module docstring), then alpha's. Parameterisations that blend by eq. 3
        run the passes on the minibatch's rows alone (`WordRows`); others (Langevin dynamics
        move every row) restore the whole statistics before each blend."""
        run = self.local.begin(batch, self.n_topics, self.seed, self.step)
        words = batch.words
        by_rows = isinstance(self.parameters, BlendsStatistics)
        start = self.stats.word_rows(words) if by_rows else self.stats.checkpoint(words)
        # By rows, every pass blends from ``start`` into the one buffer ``current`` (whose rows
        # every blend writes whole), or into the pass's own rows when they are the run's
        # scratch, the first pass's weights coming from ``start`` itself.
        current, index = ((start.copy(rows=False), start.local) if by_rows
                          else (self.stats, words))
        latest = start if by_rows else current
        # Every pass's word weights are written into one array: this loop's run reads a pass's
        # weights only until its statistics are taken. (A new U x K array per pass cost minor
        # page faults: the allocator handed the memory back and took it again, pass after
        # pass, about a fifth of G-OEM++'s time on newsarticles.)
        weights = np.empty((words.size, self.n_topics))
        # s2 of the passes before the last may be left out (module docstring).
        if isinstance(run, WordStatistics):
            word_statistics = run.word_statistics
        else:
            word_statistics = run.statistics
            fallback(run, WordStatistics, "every boosted pass blends statistics(), s2 included")
        for p in range(self.local.passes):
            run.advance(self.parameters.word_weights(latest, index, out=weights), self.alpha, 1)
            statistics = run.statistics() if p == self.local.passes - 1 else word_statistics()
            if by_rows:
                if statistics.scratch and rho < 1.0:
                    # Blend into the pass's own rows (read by nothing after it): one U x K
                    # array less for the pass to keep in cache. (rho = 1 clears ``current``.)
                    current.raw = statistics.word_topic
                self.parameters.blend(current, rho, statistics, self.step + 1, self.seed, start)
            else:
                self.stats.restore(start)
                self.parameters.blend(current, rho, statistics, self.step + 1, self.seed)
            latest = current
        if by_rows:
            self.stats.set_word_rows(current)
        self.alpha = self.alpha_update(alpha_previous, self.stats, statistics, rho)

    def _m_step(self, rho, minibatch_stats, alpha_previous) -> None:
        if minibatch_stats.n_topics > self.n_topics:  # the local run opened topics (HDP, G3-G4)
            if self.average is not None:
                raise ValueError("Polyak-Ruppert averaging of a growing set of topics is not "
                                 "supported")
            self.stats.add_topics(minibatch_stats.padding)
            self.alpha = alpha_previous = np.array(minibatch_stats.prior, dtype=np.float64)
        self.parameters.blend(self.stats, rho, minibatch_stats, self.step + 1, self.seed)
        self.alpha = self.alpha_update(alpha_previous, self.stats, minibatch_stats, rho)

    def _finish_step(self, step: int, rho: float, n_documents: int, n_tokens: int,
                     started: float) -> StepReport:
        """After the M-step(s): the parameterisation's own update, compaction of the lazy
        scale, the iterate average, the step counter."""
        self.parameters = self.parameters.after_step(self.stats, rho)
        if self.topic_selection is not None:  # may drop topics (no average: refused above)
            self.alpha = self.topic_selection(self.stats, self.alpha)
        if self.local_update is not None:
            self.local = self.local_update(self.local, self.stats)
        average = self.average
        if self.stats.needs_compaction or (average is not None
                                           and average.needs_compaction(self.stats)):
            if average is not None:
                average.restart_sums(self.stats)
            self.stats.compact()
        if average is not None:
            average.add_iterate(self.stats, *self.parameters.row_affine(self.stats), self.alpha)
        self.step = step
        return StepReport(step, rho, n_documents, n_tokens, time.perf_counter() - started)

    def fit(self, batches: Iterable[Minibatch],
            callbacks: Iterable[Callable[["OnlineEM", StepReport], None]] = ()) -> None:
        callbacks = list(callbacks)
        for batch in batches:
            report = self.partial_fit(batch)
            for callback in callbacks:
                callback(self, report)

    # --- inference with the model fixed ---------------------------------------------------------
    def local_posterior(self, batch: Minibatch, stream: int = TRANSFORM_STREAM,
                        local: LocalEstimator | None = None):
        """Run the local estimator (or ``local``: e.g. an HDP one that opens no topic) on
        ``batch`` with the reported parameters fixed (no M-step); returns the finished run
        (``doc_topic()``, ``statistics()``). Deterministic: the random streams are (seed,
        ``stream``, document index), or (seed, key, 0) for the documents' own
        ``batch.stream_keys``."""
        self._check_batch(batch)
        if self.average is not None and self.average.count:
            weights = self.average.topic_word(self.stats, batch.words).T
        else:
            weights = self.parameters.word_weights(self.stats, batch.words)
        local = self.local if local is None else local
        run = local.begin(batch, self.n_topics, self.seed, stream)
        run.advance(weights, self.doc_topic_prior(), local.passes)
        return run
