"""The local Gibbs estimator of HDP (Dupuy 2017, section 3.4.2): a `LocalEstimator` whose runs
may open topics, for G-OEM and for VarGibbs.

A run samples the documents of the minibatch with the global parameters of step i - 1
(`kernels.local_gibbs.hdp`: the T topics, a = b (pi, pi_*) and a new-topic word weight), each pass
over every document in turn, so a topic one document opens is shared with the others.
Afterwards the M topics the minibatch kept (used in some recorded pass) are numbered T, ...,
T + M - 1 in order of opening and get their weights from the rest a_* (specs/components.md G3,
closed differently, see below):

    a'_{T+m} = a_* u_m / (sum_l u_l + alpha),     a'_* = a_* alpha / (sum_l u_l + alpha),

with u_m the number of documents using topic m (averaged over the recorded passes) and alpha
the stick concentration: the posterior mean of the new sticks given one table per document
that uses them, (pi_new_1, ..., pi_new_M, pi_*') / pi_* ~ Dirichlet(u_1, ..., u_M, alpha) (the
HDP's global weights given table counts, Teh et al. 2006, section 5.3, direct assignment).
a'_k = a_k for k < T, so sum a' = sum a. The thesis' draws pibar ~ Beta(1, alpha) split the
rest while sampling (p. 60), but used as the weights of the M-step they give the m-th topic
opened about a_* 2^-m whatever its use: every document that does not use it then has
E[log nu_m] ~ -1 / a'_m, and the fixed point kills it (with the spec's split, 300 topics in
a first minibatch had a' below 1e-80).

The statistics (`MinibatchStats`, summed over documents):

* ``word_topic``, U x (T + M): the recorded conditionals (Algorithm 2's final loop) summed per
  word (eq. 16, S2; VarGibbs' lambda-hat of eq. 18 is eta + D times their average);
* ``log_theta``, T + M + 1 entries, the rest last, is the second statistic, ``statistic``:
  - "log-proportions" (G-OEM, eq. 16, S1): the average over recorded passes of
    digamma(a'_k + n_dk^t) - digamma(sum a' + N_d) (the thesis averages over all P samples; the
    last quarter, as LDA's `GibbsEstimator`). For k < T this is what the kernel computed with
    a; the rest and the opened topics are computed here with a' (n_dk = 0 where a document did
    not use the topic);
  - "tables" (VarGibbs, eq. 18): the expected number of tables s_dk of document d serving topic
    k given its n_dk^t tokens, E[s_dk] = a'_k (digamma(a'_k + n_dk) - digamma(a'_k)) under the
    Antoniak law of line 1406 (whose draws the thesis samples: the same expectation, without
    their noise), averaged over recorded passes; the rest has no table (0).

``MinibatchStats.tables`` is their sum over topics for either method (the m of the learnt stick
concentration, `inference.sticks.StickConcentration`).

``MinibatchStats.padding`` holds what s_{i-1} gets for the new components (G4,
`SufficientStats.add_topics`): the values that make a' a fixed point of the G-OEM M-step,
digamma(a'_k) - digamma(sum a'), or no tables (0, the Beta(1, alpha) prior of a new stick).
``prior`` is a'. Without a rest (a truncated HDP) nothing opens and the G-OEM run is LDA's
`GibbsRun` (same draws, same statistics).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import digamma

from ..kernels.local_gibbs import GlobalParameters, HDPOutputs, TopicGrowth, hdp_gibbs_sweeps
from .gibbs_estep import local_word_weights
from .minibatch import Minibatch
from .stats import MinibatchStats


@dataclass(frozen=True)
class HDPGibbsEstimator:
    """P = ``passes`` Gibbs passes per document, the last quarter recorded; topics are opened
    with the stick concentration ``stick_concentration`` (alpha of Beta(1, alpha)) while fewer than
    ``max_topics`` exist; an opened topic scores words by the Dirichlet(``topic_word_prior``)
    predictive of the minibatch's tokens in it (spec G2). ``grow=False``: never open a topic
    (inference with the model fixed). ``statistic``: the second statistic (module docstring)."""

    passes: int = 20
    topic_word_prior: float = 0.03
    stick_concentration: float = 1.0
    max_topics: int = 200
    grow: bool = True
    statistic: str = "log-proportions"

    name = "gibbs-hdp"
    # Opened topics are shared within a minibatch (spec G3; `parts.SharedDocumentState`).
    independent_documents = False

    @property
    def recorded_passes(self) -> int:
        return max(1, self.passes // 4)

    def begin(self, batch: Minibatch, n_topics: int, seed: int,
              minibatch_index: int) -> "HDPGibbsRun":
        return HDPGibbsRun(self, batch, n_topics, seed, minibatch_index)


class HDPGibbsRun:
    """The local chains of one minibatch; all P passes run in one `advance` (no boosting)."""

    def __init__(self, estimator: HDPGibbsEstimator, batch: Minibatch, n_topics: int, seed: int,
                 minibatch_index: int):
        self.estimator = estimator
        self.batch = batch
        self.n_topics = int(n_topics)
        self.seed = int(seed)
        self.minibatch_index = int(minibatch_index)
        self._statistics = None
        self._doc_topic = None

    def advance(self, weights: np.ndarray, alpha: np.ndarray, n_passes: int) -> None:
        """Run all P passes with word weights U x (T + 1) (column T: the new-topic weight) and
        a = alpha (T + 1 entries, the rest last; T entries: no rest, no growth)."""
        estimator, batch, n_topics = self.estimator, self.batch, self.n_topics
        if n_passes != estimator.passes or self._statistics is not None:
            raise ValueError("the HDP local step runs its P passes in one call (no boosting)")
        alpha = np.ascontiguousarray(alpha, dtype=np.float64)
        has_rest = alpha.size > n_topics
        capacity = (max(0, estimator.max_topics - n_topics)
                    if has_rest and estimator.grow else 0)
        capacity = min(capacity, batch.n_tokens)
        recorded = estimator.recorded_passes
        entry_topic = np.zeros((batch.n_entries, n_topics))
        entry_new = np.zeros((batch.n_entries, capacity))
        doc_log_theta = np.zeros((batch.n_documents, n_topics))
        doc_counts = np.zeros((batch.n_documents, recorded, n_topics + capacity))
        n_opened = hdp_gibbs_sweeps(
            batch.layout,
            GlobalParameters(local_word_weights(weights), alpha, digamma(alpha),
                             float(digamma(alpha.sum()))),
            TopicGrowth(n_topics, float(estimator.topic_word_prior), batch.n_words,
                        float(estimator.stick_concentration), capacity),
            batch.stream_key(self.seed, self.minibatch_index),
            estimator.passes, estimator.passes - recorded,
            HDPOutputs(np.zeros(batch.n_tokens, dtype=np.int64), entry_topic, entry_new,
                       doc_log_theta, doc_counts, np.zeros(capacity)))
        opened = doc_counts[:, :, n_topics:n_topics + n_opened]
        kept = np.flatnonzero((opened > 0).any(axis=(0, 1)))
        usage = (opened[:, :, kept] > 0).mean(axis=1).sum(axis=0)  # u_m
        counts = np.concatenate([doc_counts[:, :, :n_topics], opened[:, :, kept]], axis=2)
        prior = self._split_rest(alpha, usage) if has_rest else alpha
        padding = None
        tables = self._tables(prior[:counts.shape[2]], counts)
        if estimator.statistic == "tables":
            second = np.append(tables, 0.0)[:prior.size]
            padding = np.zeros(kept.size + 1)
        else:
            second = doc_log_theta.sum(axis=0) / recorded
            if has_rest:
                opened_log_theta = self._opened_log_theta(prior, counts[:, :, n_topics:])
                second = np.concatenate([second, opened_log_theta])
                padding = digamma(prior[n_topics:]) - digamma(prior.sum())
        entry_topic = np.hstack([entry_topic, entry_new[:, kept]])
        word_topic = batch.word_totals(entry_topic) / recorded
        grew = kept.size > 0
        self._statistics = MinibatchStats(batch.words, word_topic, second, batch.n_documents,
                                          batch.n_words, prior=prior if grew else None,
                                          padding=padding if grew else None,
                                          tables=float(tables.sum()))
        expected = batch.document_totals(entry_topic) / recorded + prior[:word_topic.shape[1]]
        self._doc_topic = expected / expected.sum(axis=1, keepdims=True)

    def _split_rest(self, alpha: np.ndarray, usage: np.ndarray) -> np.ndarray:
        """a' = (a_1..a_T, the rest's split over the kept opened topics by usage, a'_*)
        (module docstring)."""
        rest = alpha[self.n_topics] / (usage.sum() + self.estimator.stick_concentration)
        return np.concatenate([alpha[:self.n_topics], rest * usage,
                               [rest * self.estimator.stick_concentration]])

    def _opened_log_theta(self, prior: np.ndarray, counts: np.ndarray) -> np.ndarray:
        """s2 of the opened topics and the rest, summed over documents: the mean over recorded
        passes of digamma(a'_m + n_dm^t), minus digamma(sum a' + N_d) (``counts``: B x R x M)."""
        length = digamma(prior.sum() + self.batch.document_lengths).sum()
        opened = digamma(prior[self.n_topics:-1] + counts).mean(axis=1).sum(axis=0)
        rest = self.batch.n_documents * digamma(prior[-1])
        return np.append(opened, rest) - length

    @staticmethod
    def _tables(prior: np.ndarray, counts: np.ndarray) -> np.ndarray:
        """Expected tables per topic, summed over documents, averaged over recorded passes:
        a'_k (digamma(a'_k + n) - digamma(a'_k)) (``counts``: B x R x K)."""
        return (prior * (digamma(prior + counts) - digamma(prior))).mean(axis=1).sum(axis=0)

    def statistics(self) -> MinibatchStats:
        return self._statistics

    def doc_topic(self) -> np.ndarray:
        """Posterior mean of nu_d over the T topics and the M opened ones, renormalised over
        them (the rest's share dropped), B x (T + M)."""
        return self._doc_topic
