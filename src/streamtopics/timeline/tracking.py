"""(c) Tracking topics: G-OEM run in time order with a step-size floor, one snapshot per period.

The models of `over_time` fit the topics once and read each period through them. Tracking lets
the topics themselves move: online EM (Dupuy & Bach 2016, Algorithm 1) sees the documents in
time order, minibatch by minibatch within each period, and its statistics are blended by
eq. 3, s_i = (1 - rho_i) s_{i-1} + rho_i E_i. With the decreasing schedule rho_i =
(tau0 + i)^-kappa, s_i tends to an average over the whole stream and late periods move the
topics less and less; with a floor f (``step_floor`` of the model, `step_sizes.Floored`),
rho_i = max((tau0 + i)^-kappa, f), the minibatch of n steps ago weighs about f (1 - f)^n: the
topics follow the stream with a memory of about 1/f minibatches. The topics at the end of each
period are kept as its snapshot beta^(t) (P x K x V) with alpha^(t); topic k is the same topic
in every snapshot because it is one model's k-th row throughout, each snapshot the continuation
of the previous one.

**Against a dynamic topic model.** The DTM of Blei & Lafferty (2006) chains the topics of
consecutive periods by a Gaussian random walk on their natural parameters, beta^(t)_k ~
N(beta^(t-1)_k, sigma^2 I), and infers all periods jointly (variational Kalman smoothing): the
topics of period t are informed by the periods after it as well as before, and sigma^2 is a
stated prior on how fast topics move. Tracking is the filtering half only, with the
forgetting of a floored step size standing for sigma^2: each snapshot uses the past alone
(what forward prediction needs, and what a stream allows: one pass, memory independent of the
stream's length), but a period's topics are never revised by what came after it, the amount
of drift allowed is a step size, not a posterior, and a topic that dies keeps its last form
until new documents reuse its row. K is fixed (no topic is born or dies; `OnlineHDP` grows K
but is not snapshotted here).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..corpus.corpus import Corpus
from ..corpus.time import Periods, assign_periods
from ..errors import InputError
from .over_time import TopicsOverTime, _times, hellinger


DEFAULT_TRACKING_FLOOR = 0.05
"""f of ``streamtopics timeline --track`` without a value: a memory of about 20 minibatches,
2,000 documents at the default batch size, about a year of a stream of a few thousand
documents a year (on gitlog it binds from 2020 on; docs/timeline.md, "Forward chaining")."""


@dataclass
class TrackedTopics:
    """The snapshots of a tracking run (module docstring).

    ``periods``: the `Periods`; ``snapshots`` (P x K x V): beta^(t), the topics at the end of
    period t; ``alphas`` (P x K): alpha^(t); ``prevalence`` (P x K): the mean proportions of
    period t's documents under its snapshot, and ``tokens`` (P x K) the tokens each topic
    explains there (as `TopicsOverTime`'s); ``vocabulary`` (V); ``step_floor``: f of the run.
    """

    periods: Periods
    snapshots: np.ndarray
    alphas: np.ndarray
    prevalence: np.ndarray
    tokens: np.ndarray
    vocabulary: np.ndarray
    step_floor: float

    @property
    def labels(self) -> list[str]:
        return self.periods.labels

    def drift(self) -> np.ndarray:
        """((P - 1) x K) Hellinger distance of each topic from itself one period earlier."""
        return hellinger(self.snapshots[1:], self.snapshots[:-1])

    def as_timeline(self, topics) -> TopicsOverTime:
        """The run as a `TopicsOverTime` (the tables, files and figures of `outputs`): the
        snapshots as the period topics, ``topics`` (the trained model's, K x V) as the topics
        as a whole, ``distance`` each snapshot's from them; nothing is smoothed."""
        topics = np.asarray(topics, dtype=np.float64)
        return TopicsOverTime(self.periods, self.prevalence, self.tokens, self.snapshots,
                              topics, self.vocabulary, hellinger(self.snapshots, topics[None]),
                              0.0)


def track_topics(model, documents, period="year", time=None, progress=None) -> TrackedTopics:
    """Train the unfitted online ``model`` (`OnlineLDA`, typically ``method="g-oem"`` with a
    ``step_floor``) on ``documents`` in time order, one pass, and keep its topics at the end
    of every period (module docstring).

    ``documents``: a dated `Corpus` (``time_field=``) or one with ``time`` (each document's time);
    they are taken in time order (stably sorted), in minibatches of ``model.batch_size`` within
    each period (a period's last minibatch may be short), so a snapshot holds exactly the
    periods up to its own. ``period`` as `topics_over_time`. ``progress(documents)`` is called
    after every step. Returns the `TrackedTopics`; ``model`` is left trained on the whole stream.
    """
    if not hasattr(model, "partial_fit") or not hasattr(model, "local_runs"):
        raise InputError(f"tracking needs an online model (OnlineLDA), not {type(model).__name__}")
    if model.is_fitted():
        raise InputError("tracking trains the model from the stream's start: give an unfitted "
                         "model")
    corpus = documents if isinstance(documents, Corpus) else Corpus(documents)
    times = _times(corpus, time)
    order = np.argsort(times, kind="stable")
    periods = assign_periods(times[order], period)
    counts = corpus.counts[order]
    snapshots, alphas, prevalence, tokens = [], [], [], []
    size = int(model.batch_size)
    for t in range(periods.n_periods):
        rows = np.flatnonzero(periods.index == t)
        for start in range(0, rows.size, size):
            batch = rows[start:start + size]
            if start == 0 and t == 0:
                model.partial_fit(Corpus(counts[batch], vocabulary=corpus.vocabulary))
            else:
                model.partial_fit(counts[batch])
            if progress is not None:
                progress(batch.size)
        snapshots.append(np.array(model.components_))
        alphas.append(np.array(model.doc_topic_prior_))
        shares, explained = _period_use(model, counts[rows])
        prevalence.append(shares)
        tokens.append(explained)
    return TrackedTopics(periods, np.stack(snapshots), np.stack(alphas), np.stack(prevalence),
                         np.stack(tokens), np.asarray(model.vocabulary_, dtype=str),
                         float(model.step_floor))


def _period_use(model, counts) -> tuple[np.ndarray, np.ndarray]:
    """(mean proportions, expected tokens per topic) of documents ``counts`` under the model as
    it stands (its local step, the model fixed)."""
    shares = np.zeros(model.components_.shape[0])
    explained = np.zeros_like(shares)
    for _, run in model.local_runs(counts):
        shares += run.doc_topic().sum(axis=0)
        explained += run.statistics().word_topic.sum(axis=0)
    return shares / counts.shape[0], explained

