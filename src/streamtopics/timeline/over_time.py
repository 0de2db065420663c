"""Topics through time from one fitted model: each period's prevalence and its topics as used.

Notation (Dupuy & Bach 2016): K topics beta_k over V words, documents d with N_d tokens and
proportions theta_d, periods t (`corpus.time.assign_periods`), D_t the documents of period t.

(a) **Prevalence.** The share of topic k in period t is the mean of the documents' topic
proportions,

    pi_tk = (1 / |D_t|) sum_{d in D_t} theta_dk,

with theta_d from the model's own local step, the model fixed (`OnlineLDA.transform`: the
posterior mean of theta for Gibbs E-steps, E_q[theta] for variational ones). Every document
counts once, as in BERTopic's ``topics_over_time``; the token-weighted share is ``tokens`` below
divided by its row sum.

(b) **Topics as used in each period.** EM's M-step makes beta_k from the expected sufficient
statistics s1_kw = sum_d E[n_dkw], the expected number of tokens of word w that topic k explains
(Dupuy & Bach 2016, eq. 6), summed over documents. That sum splits exactly over periods:
s1 = sum_t S_t with

    S_t,kw = sum_{d in D_t} E[n_dkw | beta, alpha],

computed by the fitted model's local E-step over each period's documents (`OnlineLDA.local_runs`,
the very statistics a training step blends). The M-step on S_t alone would be the topic as
period t uses it; a period where topic k explains few tokens gives a noisy estimate, so it is
smoothed toward the topic as a whole: the posterior mean under a Dirichlet prior centred on
beta_k with ``prior_tokens`` = c pseudo-tokens,

    beta_tk(w) = (S_t,kw + c beta_k(w)) / (n_tk + c),    n_tk = sum_w S_t,kw.

With n_tk >> c the period's own use dominates; with n_tk << c the period's topic is beta_k. The
identity sum_t S_t = s1 makes the decomposition exact in an EM setting: averaging the unsmoothed
period topics with weights n_tk gives back the M-step's topic. ``distance`` is the Hellinger
distance between beta_tk and beta_k, how far period t's use of topic k is from the topic.

The P x K x V period topics are held in memory (8 P K V bytes: 53 MB for 22 yearly periods, 30
topics and 10,000 words); ``tokens`` (n_tk) tells how much each rests on.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import memory
from ..corpus.corpus import Corpus, aligned_counts
from ..corpus.time import Periods, assign_periods, document_times, parse_time
from ..errors import InputError

DEFAULT_PRIOR_TOKENS = 100.0
"""c of (b): the pseudo-tokens of the topic as a whole in each period's topic."""


@dataclass
class TopicsOverTime:
    """Each period's prevalence and topics (module docstring, (a) and (b)).

    ``periods``: the `Periods` (labels, document counts, each document's period);
    ``prevalence`` (P x K): pi_tk; ``tokens`` (P x K): n_tk, the expected tokens of topic k in
    period t; ``topic_word`` (P x K x V): beta_tk; ``topics`` (K x V): beta_k;
    ``vocabulary`` (V); ``distance`` (P x K): Hellinger distance of beta_tk from beta_k;
    ``prior_tokens``: c.
    """

    periods: Periods
    prevalence: np.ndarray
    tokens: np.ndarray
    topic_word: np.ndarray
    topics: np.ndarray
    vocabulary: np.ndarray
    distance: np.ndarray
    prior_tokens: float

    @property
    def labels(self) -> list[str]:
        return self.periods.labels

    def top_words(self, period: int, topic: int, n_words: int = 10) -> list[tuple[str, float]]:
        """The ``n_words`` most probable words of ``topic`` as ``period`` uses it, with their
        probabilities (ties: lower word id first)."""
        weights = self.topic_word[period, topic]
        order = np.argsort(-weights, kind="stable")[:n_words]
        return [(str(self.vocabulary[w]), float(weights[w])) for w in order]

    def prevalence_rows(self) -> list[dict]:
        """One row per period: ``period``, ``documents``, then ``topic_0`` .. ``topic_{K-1}``."""
        return [{"period": label, "documents": int(self.periods.counts[t]),
                 **{f"topic_{k}": float(p) for k, p in enumerate(self.prevalence[t])}}
                for t, label in enumerate(self.labels)]

    def topic_rows(self, n_words: int = 10) -> list[dict]:
        """One row per period and topic: ``period``, ``topic``, ``prevalence``, ``tokens``,
        ``distance``, ``words`` and ``weights`` (the top ``n_words`` of beta_tk)."""
        rows = []
        for t, label in enumerate(self.labels):
            for k in range(self.topics.shape[0]):
                top = self.top_words(t, k, n_words)
                rows.append({"period": label, "topic": k,
                             "prevalence": float(self.prevalence[t, k]),
                             "tokens": float(self.tokens[t, k]),
                             "distance": float(self.distance[t, k]),
                             "words": [w for w, _ in top], "weights": [p for _, p in top]})
        return rows

    def prevalence_table(self):
        """`prevalence_rows` as a pandas DataFrame indexed by period (a list of dicts without
        pandas)."""
        return _table(self.prevalence_rows(), "period")

    def topics_table(self, n_words: int = 10):
        """`topic_rows` as a pandas DataFrame (a list of dicts without pandas)."""
        return _table(self.topic_rows(n_words), None)


def _table(rows: list[dict], index: str | None):
    try:
        import pandas as pd
    except ImportError:
        return rows
    frame = pd.DataFrame(rows)
    return frame.set_index(index) if index else frame


def _times(corpus: Corpus, time) -> np.ndarray:
    if time is None:
        times = document_times(corpus)
        if times is None:
            raise InputError("the documents are not dated: load them with time_field=... (or "
                             "--time-field), or give time=")
        return times
    values = list(time)
    if len(values) != corpus.n_documents:
        raise InputError(f"{len(values)} times for {corpus.n_documents} documents")
    times = []
    for d, value in enumerate(values):
        try:
            times.append(parse_time(value))
        except ValueError as error:
            raise InputError(f"time of document {d + 1}: cannot read {value!r} ({error})") from None
    return np.array(times, dtype="datetime64[s]")


def hellinger(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Hellinger distances between distributions along the last axis, in [0, 1]."""
    return np.sqrt(np.maximum(0.0, 1.0 - np.sqrt(p * q).sum(axis=-1)))


def topics_over_time(model, documents, period="year", time=None,
                     prior_tokens: float = DEFAULT_PRIOR_TOKENS) -> TopicsOverTime:
    """Prevalence and per-period topics of a fitted `OnlineLDA` (or subclass) over
    ``documents`` (module docstring).

    ``documents``: a `Corpus` (mapped onto the model's vocabulary word by word, unknown words
    dropped), dated by its metadata's ``time`` (`corpus.time`: load it with ``time_field=``)
    unless ``time`` gives each document's time (ISO dates, ``YYYY/M/D``, epoch seconds,
    ``datetime64``); or a D x V count matrix over the model's vocabulary with ``time``.
    ``period``: ``"year"``, ``"quarter"``, ``"month"``, ``"week"``, ``"day"`` or a number of
    equal-count periods. ``prior_tokens``: c >= 0 of the smoothing.

    The result's `TopicsOverTime.prevalence_table` and `~TopicsOverTime.topics_table` are
    pandas DataFrames when pandas is installed.
    """
    if not hasattr(model, "local_runs"):
        raise InputError(f"topics over time need a model with an online local step (OnlineLDA, "
                         f"OnlineHDP), not {type(model).__name__}")
    if not prior_tokens >= 0:
        raise InputError(f"prior_tokens must be >= 0, got {prior_tokens}")
    corpus = documents if isinstance(documents, Corpus) else Corpus(documents)
    vocabulary = np.asarray(model.vocabulary_, dtype=str)
    counts = (aligned_counts(corpus, vocabulary)[0] if isinstance(documents, Corpus)
              else corpus.counts)
    periods = assign_periods(_times(corpus, time), period)
    topics = np.asarray(model.components_, dtype=np.float64)
    n_periods, (n_topics, n_words) = periods.n_periods, topics.shape
    memory.check_memory(memory.MemoryEstimate("topics over time", (memory.Allocation(
        "period topics", (n_periods, n_topics, n_words),
        remedy="fewer or longer periods, fewer topics or a smaller vocabulary"),)))
    statistics = np.zeros((n_periods, n_topics, n_words))
    prevalence = np.zeros((n_periods, n_topics))
    for t in range(n_periods):
        rows = np.flatnonzero(periods.index == t)
        for _, run in model.local_runs(counts[rows]):
            prevalence[t] += run.doc_topic().sum(axis=0)
            batch = run.statistics()
            statistics[t][:, batch.words] += batch.word_topic.T
        prevalence[t] /= rows.size
    tokens = statistics.sum(axis=2)
    topic_word = statistics  # smoothed in place: (S_t + c beta) / (n_t + c)
    topic_word += prior_tokens * topics[None]
    denominator = tokens + prior_tokens
    topic_word /= np.where(denominator > 0, denominator, 1.0)[:, :, None]
    empty = denominator <= 0  # c = 0 and no token: the topic as a whole
    topic_word[empty] = topics[np.nonzero(empty)[1]]
    return TopicsOverTime(periods, prevalence, tokens, topic_word, topics, vocabulary,
                          hellinger(topic_word, topics[None]), float(prior_tokens))
