"""`CVB0LDA`: LDA by CVB0 (Asuncion et al. 2009; equation numbers of Papanikolaou et al. 2017),
as a scikit-learn style estimator with the input and ``transform`` contract of `GibbsLDA`.
"""

from __future__ import annotations

import numpy as np

from .. import memory
from ..inference import cvb0
from ..threads import runs_on_n_jobs
from ..validation import Integral, Interval, Real, validate_parameters
from .base import N_JOBS
from .batch import BATCH_PRIORS, SEED_WORDS, BatchTopicModel, prior_vector


class CVB0LDA(BatchTopicModel):
    """LDA by CVB0 (equation 6), deterministic given ``random_state`` (its random start).

    ``n_passes`` passes at most, stopping early once the mean change of a token's topic
    distribution falls below ``tolerance``; ``transform`` runs ``transform_passes`` CVB0
    passes per new document with the topics fixed; priors ``doc_topic_prior`` (alpha) and
    ``topic_word_prior`` (eta), ``seed_words`` and ``seed_strength`` (phantom counts in the
    soft counts, `inference.cvb0.fit_cvb0`) and ``n_jobs`` as `GibbsLDA`'s. Fitted attributes:
    ``components_`` (equation 2 on soft counts), ``doc_topic_prior_``, ``topic_word_prior_``,
    ``vocabulary_``, ``n_iter_``; with seed words ``seeded_topics_`` (name -> topic) and
    ``unknown_seed_words_`` (name -> words ignored).
    """

    _parameter_constraints = {
        "n_jobs": N_JOBS,
        **BATCH_PRIORS, "n_passes": [Interval(Integral, 1, None)],
        "tolerance": [Interval(Real, 0, None)],
        "transform_passes": [Interval(Integral, 0, None)], **SEED_WORDS,
    }

    def __init__(self, n_topics: int = 10, doc_topic_prior=0.1, topic_word_prior: float = 0.01,
                 n_passes: int = 100, tolerance: float = 0.0, transform_passes: int = 50,
                 seed_words=None, seed_strength: int = 50, random_state=None, n_jobs=None):
        self.n_topics = n_topics
        self.doc_topic_prior = doc_topic_prior
        self.topic_word_prior = topic_word_prior
        self.n_passes = n_passes
        self.tolerance = tolerance
        self.transform_passes = transform_passes
        self.seed_words = seed_words
        self.seed_strength = seed_strength
        self.random_state = random_state
        self.n_jobs = n_jobs

    @runs_on_n_jobs
    def fit(self, X, y=None, *, callback=None, feature_names=None):
        """Run CVB0; ``callback(model, report)`` is called after every pass with a
        `PassReport` (chain 0). ``feature_names``: the V words of the columns (a DataFrame's
        columns name them too)."""
        self.fit_transform(X, callback=callback, feature_names=feature_names)
        return self

    @runs_on_n_jobs
    def fit_transform(self, X, y=None, *, callback=None, feature_names=None) -> np.ndarray:
        """Fit and return the training documents' topic proportions (D x K)."""
        observe = self._pass_observer(callback)
        corpus = self._training_corpus(X, feature_names)
        self._check_training(corpus, memory.cvb0_training(
            self.n_topics, corpus.n_words, corpus.n_documents, corpus.counts.nnz,
            operation=self._operation("fit", corpus)))
        alpha = prior_vector(self.doc_topic_prior, self.n_topics)
        result = cvb0.fit_cvb0(corpus.counts, self.n_topics, alpha, self.topic_word_prior,
                               iterations=self.n_passes, tolerance=float(self.tolerance),
                               seed=self._fit_seed(),
                               prior_counts=self._seed_prior_counts(corpus),
                               progress=None if observe is None else (lambda n: observe(0, n)))
        self.components_ = result.phi
        self.doc_topic_prior_ = alpha
        self.topic_word_prior_ = float(self.topic_word_prior)
        self.vocabulary_ = corpus.vocabulary
        self.n_iter_ = len(result.changes)
        return result.theta

    @runs_on_n_jobs
    def transform(self, X) -> np.ndarray:
        """Topic proportions (D x K) of new documents by CVB0 with the topics fixed."""
        validate_parameters(self)
        corpus = self._new_documents(X)
        memory.check_memory(memory.cvb0_prediction(self.n_topics, corpus.n_words,
                                                   corpus.n_documents,
                                                   self._operation("transform", corpus)))
        return cvb0.predict_cvb0(self.components_, self.doc_topic_prior_, corpus.counts,
                                 self.transform_passes)

    def _fitted_metadata(self) -> dict:
        return {"topic_word_prior": float(self.topic_word_prior_), "n_iter": int(self.n_iter_),
                **self._seed_metadata()}

    def _restore_state(self, arrays: dict[str, np.ndarray], metadata: dict) -> None:
        super()._restore_state(arrays, metadata)
        fitted = metadata.get("fitted", {})
        self.topic_word_prior_ = fitted["topic_word_prior"]
        self.n_iter_ = fitted["n_iter"]
        self._restore_seeds(fitted)
