"""The parts of the online EM engine as `typing.Protocol`s: what `streamtopics.engine.OnlineEM`
asks of each, and nothing more.

Algorithm 1 of Dupuy & Bach (2016) is one loop (see `streamtopics.engine`); a method is a choice
of five parts (`inference.presets` names the choices of the first four):

| part | protocol | implementations |
|---|---|---|
| local E-step (eq. 6) | `LocalEstimator` -> `LocalRun` | `GibbsEstimator` (Algorithm 2), `VariationalEstimator` (eq. 11-12) |
| topic parameters eta*(s) | `Parameterisation` | `PointEstimate`, `VariationalDirichlet` |
| step size rho_i (eq. 3) | `StepSize` | `PolynomialDecay`, `Incremental`, `Constant` |
| alpha update (appendix A.1) | `AlphaUpdate` | `MinkaFixedPoint`, `NewtonStep`, `GammaPrior`, `Fixed` |
| E-step map of a batch step | `EStepMap` | `serial_map`; the backends of `inference/backends.py` (serial, threads, Dask) |

A new model reuses the parts it shares with LDA and brings the others (docs/architecture.md).
Each protocol below carries a toy implementation in its doctest, small enough to read at once
and run through the real engine; `tests/test_parts.py` runs them and checks that every
registered part satisfies its protocol. Over 450 lines because of these toys: each is the
shortest complete example of its protocol.

Besides what every part must do, the engine's fast paths ask for optional capabilities, each a
protocol too, asked with ``isinstance``:

| capability | of | what it gives | without it |
|---|---|---|---|
| `WordStatistics` | a `LocalRun` | s1 alone after a boosted step's passes but the last | `statistics()` every pass |
| `BlockStatistics` + `RunsBlocks` | a run, its estimator | one run over many blocks of a chunk | a run per block |
| `SharedDocumentState` | a `LocalEstimator` | documents coupled within a minibatch (HDP) | documents independent |
| `Backend` | an `EStepMap` | its workers and chunk size | one chunk per minibatch |
| `MapReduce` | an `EStepMap` | the chunks' statistics merged where they ran | merged here |

`check_local_estimator` and `check_estep_map` (when an engine is made, and when it is given a
map) refuse a part whose declarations are malformed, naming what is wrong; a part that lacks a
capability runs the fallback, and the first time a run takes it `fallback` logs so, once per
process and class of part (INFO, logger ``streamtopics.inference.parts``).
"""

from __future__ import annotations

import logging
from typing import Callable, Iterable, Iterator, Protocol, TypeVar, runtime_checkable

import numpy as np

from .minibatch import Minibatch
from .stats import MinibatchStats, SufficientStats

Item = TypeVar("Item")
Result = TypeVar("Result")


@runtime_checkable
class LocalRun(Protocol):
    """The local estimate of one minibatch, advanced pass by pass with the global parameters
    the engine gives each time (boosted ++ methods change them between passes).

    ``advance(weights, alpha, n_passes)``: run ``n_passes`` more passes with the minibatch's
    word weights (U x K, U = ``batch.words``; beta_wk or exp(E_q[log beta_wk])) and alpha (K);
    ``statistics()``: the current estimate of eq. 6 summed over the documents
    (`MinibatchStats`); ``doc_topic()``: B x K topic proportions, rows summing to 1.
    """

    def advance(self, weights: np.ndarray, alpha: np.ndarray, n_passes: int) -> None: ...

    def statistics(self) -> MinibatchStats: ...

    def doc_topic(self) -> np.ndarray: ...


@runtime_checkable
class LocalEstimator(Protocol):
    """The local E-step: ``passes`` (P) and ``begin`` -> a `LocalRun` of one minibatch. Random
    choices must come from (``seed``, ``minibatch_index``, ``batch.first_document`` + d) alone,
    so results do not depend on threads or on how a minibatch is split.

    A toy estimator, the "uniform-theta" E-step: each token's topic responsibilities are
    proportional to beta_wk alone (one pass, no randomness), run through the real engine:

    >>> import numpy as np, scipy.sparse as sp
    >>> from streamtopics.engine import OnlineEM
    >>> from streamtopics.inference.alpha_updates import Fixed
    >>> from streamtopics.inference.global_parameters import PointEstimate
    >>> from streamtopics.inference.step_sizes import Constant
    >>> class UniformThetaRun:
    ...     def __init__(self, batch, n_topics):
    ...         self.batch, self.entry_topic = batch, np.zeros((batch.n_entries, n_topics))
    ...     def advance(self, weights, alpha, n_passes):
    ...         responsibilities = weights[self.batch.entry_word]
    ...         responsibilities /= responsibilities.sum(axis=1, keepdims=True)
    ...         self.entry_topic = responsibilities * self.batch.entry_count[:, None]
    ...     def statistics(self):
    ...         b = self.batch
    ...         return MinibatchStats(b.words, b.word_totals(self.entry_topic),
    ...                               np.zeros(self.entry_topic.shape[1]), b.n_documents, b.n_words)
    ...     def doc_topic(self):
    ...         totals = self.batch.document_totals(self.entry_topic)
    ...         return totals / totals.sum(axis=1, keepdims=True)
    >>> class UniformTheta:
    ...     passes = 1
    ...     def begin(self, batch, n_topics, seed, minibatch_index):
    ...         return UniformThetaRun(batch, n_topics)
    >>> isinstance(UniformTheta(), LocalEstimator)
    True
    >>> engine = OnlineEM(UniformTheta(), PointEstimate(0.0), Constant(1.0), Fixed())
    >>> engine.initialize(np.array([[0.75, 0.25], [0.25, 0.75]]), np.ones(2), 2.0)
    >>> report = engine.partial_fit(Minibatch.from_counts(sp.csr_matrix([[3, 1]])))
    >>> engine.components().round(3)      # topic 0 takes 3 x 0.75 of word 0 and 1 x 0.25 of word 1
    array([[0.9, 0.1],
           [0.5, 0.5]])
    """

    passes: int

    def begin(self, batch: Minibatch, n_topics: int, seed: int,
              minibatch_index: int) -> LocalRun: ...


@runtime_checkable
class Parameterisation(Protocol):
    """How the running statistics s map to topic parameters eta*(s) (appendix A.1).

    ``initial_stats(beta_0, alpha_0, L)``: the s_0 that maps back to the shared start (L: the
    mean length of the first minibatch's documents); ``word_weights(stats, words, out=None)``:
    U x K weights of the E-step (written into ``out``, a U x K array, when the
    parameterisation can: a boosted step's passes reuse one); ``row_affine(stats)`` ->
    (offset, factor), K each, with components[k, v] = offset_k + factor_k s1[v, k] (the
    reported topics, and what the lazy Polyak-Ruppert average needs);
    ``blend(stats, rho, minibatch, step, seed)``: s_i from s_{i-1}
    in place, eq. 3 (`global_parameters.BlendsStatistics`) or what replaces it (the Langevin
    dynamics of `inference.langevin`, random stream (seed, step)); ``after_step(stats, rho)``:
    the parameterisation of the next
    step (itself, or with an updated prior), whose changes ``state_arrays``/``with_state`` save
    and restore; ``topic_word_prior``: eta (0 for the MLE); ``topic_word_lambda(stats)``: the
    Dirichlet parameters of Bayesian topics, None for a point estimate.

    A toy parameterisation, topics proportional to s1 plus one pseudo-count per word (a
    point estimate with eta = 1 that ignores how many documents were seen):

    >>> class PlusOne:
    ...     topic_word_prior = 1.0
    ...     def initial_stats(self, beta, alpha, document_length):
    ...         return SufficientStats.from_parameters(beta, alpha, document_length)
    ...     def row_affine(self, stats):
    ...         totals = stats.n_words + stats.topic_totals
    ...         return 1.0 / totals, stats.scale / totals
    ...     def word_weights(self, stats, words, out=None):
    ...         offset, factor = self.row_affine(stats)
    ...         return np.add(stats.raw[words] * factor, offset, out=out)
    ...     def blend(self, stats, rho, minibatch, step, seed): stats.blend(rho, minibatch)
    ...     def after_step(self, stats, rho): return self
    ...     def state_arrays(self): return {}
    ...     def with_state(self, arrays): return self
    ...     def topic_word_lambda(self, stats): return None
    >>> isinstance(PlusOne(), Parameterisation)
    True
    >>> stats = PlusOne().initial_stats(np.array([[1.0, 0.0]]), np.ones(1), 2.0)  # s1 = (2, 0)
    >>> PlusOne().word_weights(stats, np.array([0, 1])).ravel()                # (2+1, 0+1) / 4
    array([0.75, 0.25])
    """

    topic_word_prior: float

    def initial_stats(self, beta: np.ndarray, alpha: np.ndarray,
                      document_length: float) -> SufficientStats: ...

    def word_weights(self, stats: SufficientStats, words: np.ndarray,
                     out: np.ndarray | None = None) -> np.ndarray: ...

    def row_affine(self, stats: SufficientStats) -> tuple[np.ndarray, np.ndarray]: ...

    def blend(self, stats: SufficientStats, rho: float, minibatch: MinibatchStats, step: int,
              seed: int) -> None: ...

    def after_step(self, stats: SufficientStats, rho: float) -> "Parameterisation": ...

    def state_arrays(self) -> dict[str, np.ndarray]: ...

    def with_state(self, arrays: dict[str, np.ndarray]) -> "Parameterisation": ...

    def topic_word_lambda(self, stats: SufficientStats) -> np.ndarray | None: ...


@runtime_checkable
class StepSize(Protocol):
    """rho_i of eq. 3 from the 1-based step index i, the minibatch's documents and the
    documents blended before it; in (0, 1].

    A toy step size, rho_i = 2 / (i + 1) (rho_1 = 1 discards s_0):

    >>> class TwoOverStep:
    ...     def __call__(self, step, batch_documents=0.0, seen_documents=0.0):
    ...         return 2.0 / (step + 1)
    >>> isinstance(TwoOverStep(), StepSize), [TwoOverStep()(i) for i in (1, 3)]
    (True, [1.0, 0.5])
    """

    def __call__(self, step: int, batch_documents: float = 0.0,
                 seen_documents: float = 0.0) -> float: ...


@runtime_checkable
class AlphaUpdate(Protocol):
    """alpha_i from alpha_{i-1}, the blended s_i, the minibatch's own statistics and rho_i
    (`inference.alpha_updates` explains the four of the thesis' Table 4).

    A toy update that keeps alpha's total and follows exp(s2), the mean of the documents'
    expected log proportions (a crude moment match):

    >>> class FollowLogTheta:
    ...     def __call__(self, alpha_previous, stats, minibatch, rho):
    ...         shares = np.exp(stats.log_theta)
    ...         return alpha_previous.sum() * shares / shares.sum()
    >>> stats = SufficientStats(np.ones((3, 2)), np.log([0.2, 0.6]))
    >>> isinstance(FollowLogTheta(), AlphaUpdate)
    True
    >>> FollowLogTheta()(np.ones(2), stats, None, 1.0)
    array([0.5, 1.5])
    """

    def __call__(self, alpha_previous: np.ndarray, stats: SufficientStats,
                 minibatch: MinibatchStats, rho: float) -> np.ndarray: ...


@runtime_checkable
class EStepMap(Protocol):
    """How a step maps the local E-step over its chunks (those of a minibatch, cut by
    `inference.estep_chunks`, or the batches of `OnlineEM.batch_step`):
    ``estep_map(function, chunks)`` yields ``function(chunk)`` for every chunk, *in order* (the
    engine sums the results in that order, so any map that keeps it gives bit-identical
    models). `serial_map` runs them here, one after the other; a distributed backend (Dask,
    a process pool) submits them and yields the results in order. A backend may also offer
    ``map_reduce(function, chunks, merge)``, returning the chunks' results merged along the
    same fixed tree where they were computed (`estep_chunks.minibatch_statistics` uses it).

    A toy backend that runs the chunks in reverse and yields them in order:

    >>> def reversed_map(function, chunks):
    ...     chunks = list(chunks)
    ...     results = [function(chunk) for chunk in reversed(chunks)]
    ...     yield from reversed(results)
    >>> isinstance(reversed_map, EStepMap), list(reversed_map(lambda x: x * x, [1, 2, 3]))
    (True, [1, 4, 9])
    """

    def __call__(self, function: Callable[[Item], Result],
                 chunks: Iterable[Item]) -> Iterator[Result]: ...


def serial_map(function: Callable[[Item], Result], chunks: Iterable[Item]) -> Iterator[Result]:
    """The default `EStepMap`: each chunk in this process, in order, one at a time (memory
    bounded by the largest chunk)."""
    return map(function, chunks)


# --- optional capabilities (module docstring) --------------------------------------------------
@runtime_checkable
class WordStatistics(Protocol):
    """A `LocalRun` that gives the statistics of its latest pass with s1 alone:
    ``word_statistics()``, a `MinibatchStats` whose ``log_theta`` is NaN. A boosted step blends
    every pass but its last with them (`engine.OnlineEM`: s2 reaches the model from the last
    pass alone), which spares the run its s2; ``scratch=True`` on them says that the blend may
    overwrite their word rows (the run reads them no more). Without it, every pass blends
    ``statistics()``.

    A toy run (s1: every token to topic 0) whose engine asks for s1 alone before its last pass:

    >>> from streamtopics.engine import OnlineEM
    >>> from streamtopics.inference.alpha_updates import Fixed
    >>> from streamtopics.inference.global_parameters import PointEstimate
    >>> from streamtopics.inference.step_sizes import Constant
    >>> class TopicZeroRun:
    ...     def __init__(self, batch):
    ...         self.batch, self.asked = batch, []
    ...     def advance(self, weights, alpha, n_passes): pass
    ...     def _statistics(self, log_theta):
    ...         b = self.batch
    ...         rows = b.word_totals(np.outer(b.entry_count, [1.0, 0.0]))
    ...         return MinibatchStats(b.words, rows, log_theta, b.n_documents, b.n_words)
    ...     def statistics(self):
    ...         self.asked.append("statistics")
    ...         return self._statistics(np.zeros(2))
    ...     def word_statistics(self):
    ...         self.asked.append("word_statistics")
    ...         return self._statistics(np.full(2, np.nan))
    ...     def doc_topic(self): return np.tile([1.0, 0.0], (self.batch.n_documents, 1))
    >>> class TopicZero:
    ...     passes = 3
    ...     def begin(self, batch, n_topics, seed, minibatch_index):
    ...         self.run = TopicZeroRun(batch)
    ...         return self.run
    >>> local = TopicZero()
    >>> engine = OnlineEM(local, PointEstimate(0.0), Constant(1.0), Fixed(), boosted=True)
    >>> engine.initialize(np.full((2, 2), 0.5), np.ones(2), 3.0)
    >>> report = engine.partial_fit(Minibatch.from_counts(np.array([[1, 2]])))
    >>> isinstance(local.run, WordStatistics), local.run.asked
    (True, ['word_statistics', 'word_statistics', 'statistics'])
    """

    def word_statistics(self) -> MinibatchStats: ...


@runtime_checkable
class BlockStatistics(Protocol):
    """A `LocalRun` over several blocks of a chunk that gives their statistics as one run per
    block would, merged along the fixed tree: ``block_statistics(size, tree)``, its documents
    cut in blocks of ``size`` and the blocks' statistics merged by ``tree``
    (`estep_chunks.tree_merge`). See `RunsBlocks`."""

    def block_statistics(self, size: int, tree: Callable) -> MinibatchStats: ...


@runtime_checkable
class RunsBlocks(Protocol):
    """A `LocalEstimator` that declares ``runs_blocks_at_once = True``: one of its runs may
    cover up to `estep_chunks.RUN_BLOCKS` blocks of a chunk (one kernel call, its documents
    dealt over all the threads at once), its runs being `BlockStatistics`, so the sums are
    those of a run per block. Without the declaration (or with False), a chunk runs a run per
    block.

    A toy estimator whose runs count every token to topic 0, block by block:

    >>> from streamtopics.inference.estep_chunks import ChunkTask, run_chunk
    >>> def topic_zero(batch):
    ...     rows = batch.word_totals(np.outer(batch.entry_count, [1.0, 0.0]))
    ...     return MinibatchStats(batch.words, rows, np.zeros(2), batch.n_documents,
    ...                           batch.n_words)
    >>> class BlocksRun:
    ...     def __init__(self, batch): self.batch = batch
    ...     def advance(self, weights, alpha, n_passes): pass
    ...     def statistics(self): return topic_zero(self.batch)
    ...     def block_statistics(self, size, tree):
    ...         b = self.batch
    ...         return tree([topic_zero(b.documents(start, min(start + size, b.n_documents)))
    ...                      for start in range(0, b.n_documents, size)])
    ...     def doc_topic(self): return np.tile([1.0, 0.0], (self.batch.n_documents, 1))
    >>> class Blocks:
    ...     passes, runs_blocks_at_once, run_sizes = 1, True, []
    ...     def begin(self, batch, n_topics, seed, minibatch_index):
    ...         self.run_sizes.append(batch.n_documents)
    ...         return BlocksRun(batch)
    >>> batch = Minibatch.from_counts(np.ones((250, 3), dtype=int))   # three blocks
    >>> local = Blocks()
    >>> isinstance(local, RunsBlocks), isinstance(local.begin(batch, 2, 0, 0), BlockStatistics)
    (True, True)
    >>> statistics = run_chunk(ChunkTask(local, batch, np.ones((3, 2)), np.ones(2), 2, 0, 1))
    >>> local.run_sizes[1:], statistics.word_topic[:, 0]                # one run, 250 tokens a word
    ([250], array([250., 250., 250.]))
    """

    runs_blocks_at_once: bool


@runtime_checkable
class SharedDocumentState(Protocol):
    """A `LocalEstimator` whose documents share state within a minibatch (HDP's opened topics)
    declares ``independent_documents = False``: each minibatch then runs as one block, in one
    chunk (`estep_chunks.run_chunk`, `backends.plan_chunks`). Without the declaration (or with
    True), documents are independent given the global parameters (LDA's local steps) and a
    minibatch is cut in blocks and chunks.

    >>> class OpensTopics:
    ...     passes, independent_documents = 20, False
    ...     def begin(self, batch, n_topics, seed, minibatch_index): ...
    >>> isinstance(OpensTopics(), SharedDocumentState), independent_documents(OpensTopics())
    (True, False)
    """

    independent_documents: bool


@runtime_checkable
class Backend(Protocol):
    """An `EStepMap` that says how finely to cut a minibatch: ``workers`` (how many chunks it
    runs at once) and ``chunk_documents`` (None: two chunks per worker; else a fixed size,
    `estep_chunks.BLOCK_DOCUMENTS` times a power of two). The backends of `inference.backends`
    are ones; a plain map runs each minibatch as one chunk.

    >>> class TwoThreads:
    ...     workers, chunk_documents = 2, None
    ...     def __call__(self, function, chunks): return map(function, chunks)
    >>> isinstance(TwoThreads(), Backend), isinstance(serial_map, Backend)
    (True, False)
    """

    workers: int
    chunk_documents: int | None

    def __call__(self, function: Callable[[Item], Result],
                 chunks: Iterable[Item]) -> Iterator[Result]: ...


@runtime_checkable
class MapReduce(Protocol):
    """An `EStepMap` that merges the chunks' results where they were computed:
    ``map_reduce(function, chunks, merge)``, ``merge`` of ``function(chunk)`` over the chunks
    along the fixed tree (`estep_chunks.tree_merge`), returned merged (Dask merges them on the
    workers). Without it, the results come back one by one and are merged here.

    >>> from streamtopics.inference.estep_chunks import tree_merge
    >>> class MergesHere:
    ...     def __call__(self, function, chunks): return map(function, chunks)
    ...     def map_reduce(self, function, chunks, merge):
    ...         return tree_merge(map(function, chunks), merge)
    >>> isinstance(MergesHere(), MapReduce), MergesHere().map_reduce(abs, [-1, 2, -3], max)
    (True, 3)
    """

    def map_reduce(self, function: Callable[[Item], Result], chunks: Iterable[Item],
                   merge: Callable[[Result, Result], Result]) -> Result: ...


def runs_blocks_at_once(local: LocalEstimator) -> bool:
    """Whether ``local`` declares `RunsBlocks`."""
    return isinstance(local, RunsBlocks) and local.runs_blocks_at_once


def independent_documents(local: LocalEstimator) -> bool:
    """Whether ``local``'s documents are independent given the global parameters (it does not
    declare `SharedDocumentState`)."""
    return not isinstance(local, SharedDocumentState) or local.independent_documents


def _declared(part, name: str, kinds: tuple, what: str) -> None:
    """Refuse ``part`` unless its declared ``name`` is one of ``kinds``."""
    value = getattr(part, name)
    if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
        raise TypeError(f"{type(part).__name__} declares {name} = {value!r}: it must be {what}")


def check_local_estimator(local) -> None:
    """Refuse ``local`` unless it is a `LocalEstimator` whose capability declarations
    (`RunsBlocks`, `SharedDocumentState`) are booleans, naming what is wrong."""
    if not isinstance(local, LocalEstimator):
        lacks = [name for name in ("passes", "begin") if not hasattr(local, name)]
        raise TypeError(f"{type(local).__name__} is not a LocalEstimator: it lacks "
                        f"{' and '.join(lacks) or 'a callable begin'}")
    if isinstance(local, RunsBlocks):
        _declared(local, "runs_blocks_at_once", (bool,), "True or False (RunsBlocks)")
    if isinstance(local, SharedDocumentState):
        _declared(local, "independent_documents", (bool,), "True or False (SharedDocumentState)")


def check_estep_map(estep_map) -> None:
    """Refuse ``estep_map`` unless it is an `EStepMap` whose `Backend` declarations, if any,
    are a number of workers and a chunk size (None or a positive number of documents)."""
    if not isinstance(estep_map, EStepMap):
        raise TypeError(f"{type(estep_map).__name__} is not an EStepMap (a callable "
                        f"map(function, chunks))")
    if isinstance(estep_map, Backend) and estep_map.chunk_documents is not None:
        _declared(estep_map, "chunk_documents", (int,), "None or a number of documents "
                  "(Backend)")
        if estep_map.chunk_documents < 1:
            raise ValueError(f"{type(estep_map).__name__} declares chunk_documents = "
                             f"{estep_map.chunk_documents}: it must be positive")


_logger = logging.getLogger(__name__)
_TOLD: set[tuple[type, type]] = set()


def fallback(part, capability: type, instead: str) -> None:
    """Log, once per process and class of ``part``, that it lacks ``capability`` and what runs
    ``instead`` (INFO, logger ``streamtopics.inference.parts``)."""
    key = (type(part), capability)
    if key not in _TOLD:
        _TOLD.add(key)
        _logger.info("%s is not a %s (streamtopics.inference.parts): %s", type(part).__name__,
                     capability.__name__, instead)
