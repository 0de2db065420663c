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
registered part satisfies its protocol.
"""

from __future__ import annotations

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
    >>> from streamtopics.inference.schedules import Constant
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
