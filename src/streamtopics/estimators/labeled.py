"""Multi-label topic models: `LabeledLDA` (Ramage et al. 2009) and `PriorLDA` (Rubin et al. 2012),
trained by collapsed Gibbs sampling with the CGS_p estimators (Papanikolaou et al. 2017,
sections 2.4 and 6; equation numbers are that paper's).

One topic per label. A training document's tokens may only take the topics of its labels
(equation 5): `GibbsLDA`'s chain (`inference.cgs.run_chain`) run under a per-document topic
mask (`inference.topic_mask.TopicMask`). `LabeledOnlineLDA` learns the same topics online:
G-OEM (Dupuy & Bach 2016) whose local Gibbs step honours the same mask (beyond both papers),
and predicts as the batch models do. Test documents have no labels: their topic
proportions are inferred with the topics fixed and every topic allowed (equation 4), and
theta^p (equation 33) or theta (equation 3) are the per-label scores. Because topics are anchored
to labels there is no label switching, so the estimates are averaged over the samples *and the
chains* (section 2.4). Prior-LDA differs only at prediction: alpha_k = 50 f_k / sum f + 30 / K
(equation 59) from the training label frequencies f_k, instead of the symmetric 50 / K of
training (equation 58). Label sets come from the Meta-Labeler (section 6.3) or a rank cut-off.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .. import memory
from ..errors import InputError
from ..inference import cgs
from ..inference.topic_mask import TopicMask
from ..threads import runs_on_n_jobs
from ..validation import (InstanceOf, Integral, Interval, Options, ParameterError, Real,
                          check_parameter, validate_parameters)
from .base import N_JOBS, RANDOM_STATE
from .batch import BatchTopicModel
from .label_sets import MetaLabeler, label_indicator, top_labels

N_LABELS = ("meta", "mean")
VECTOR = InstanceOf((list, tuple, np.ndarray), "K positive numbers")



def frequency_prior(label_frequency, scale: float = 50.0, floor: float = 30.0) -> np.ndarray:
    """Prior-LDA's alpha for new documents, equation 59: alpha_k = scale f_k / sum f + floor / K,
    f_k the number of training documents with label k (50 and 30 in section 6.3)."""
    frequency = np.asarray(label_frequency, dtype=np.float64)
    return scale * frequency / frequency.sum() + floor / frequency.size


class MultiLabelModel(BatchTopicModel):
    """What every multi-label model shares: labels in (`_learn_labels`), label sets out
    (`predict`: each document's `label_counts` best labels by `predict_proba`, which
    subclasses define), and the label part of model files. Subclasses set ``components_``,
    ``doc_topic_prior_``, ``vocabulary_``, ``random_seed_`` and call `_learn_labels`."""

    def _learn_labels(self, corpus, Y) -> TopicMask:
        """Read the labels of the training ``corpus`` (every document needs one), set
        ``classes_``, ``label_frequency_``, ``mean_labels_`` and ``meta_labeler_``; the mask
        of equation 5."""
        classes, indicator = label_indicator(Y, corpus.n_documents)
        unlabelled = np.flatnonzero(np.diff(indicator.indptr) == 0)
        if unlabelled.size:
            raise InputError(f"training document {int(unlabelled[0])} has no label "
                             f"({unlabelled.size} such documents): drop unlabelled documents")
        self.classes_ = classes
        self.label_frequency_ = np.asarray(indicator.sum(axis=0), dtype=np.int64).ravel()
        label_counts = np.diff(indicator.indptr)
        self.meta_labeler_ = MetaLabeler().fit(corpus.counts, label_counts)
        self.mean_labels_ = float(label_counts.mean())
        return TopicMask.from_indicator(indicator)

    @runs_on_n_jobs
    def transform(self, X) -> np.ndarray:
        """The documents' topic (= label) proportions, `predict_proba`."""
        return self.predict_proba(X)

    def label_counts(self, X, n_labels=None) -> np.ndarray:
        """How many labels `predict` gives each document of ``X`` (see ``n_labels``; an array
        gives each document's count, e.g. the true counts for an oracle upper bound)."""
        choice = self.n_labels if n_labels is None else n_labels
        corpus = self._new_documents(X)
        if isinstance(choice, str):
            check_parameter("n_labels", choice, Options(N_LABELS))
            if choice == "mean":
                return np.full(corpus.n_documents, max(1, int(round(self.mean_labels_))))
            return self.meta_labeler_.predict_counts(corpus.counts)
        return np.broadcast_to(np.asarray(choice, dtype=np.int64), (corpus.n_documents,)).copy()

    @runs_on_n_jobs
    def predict(self, X, n_labels=None, scores: np.ndarray | None = None) -> sp.csr_matrix:
        """D x K 0/1 matrix of predicted labels (columns = ``classes_``): each document's
        `label_counts` best labels by ``scores`` (default `predict_proba`), ties to the more
        frequent label."""
        scores = self.predict_proba(X) if scores is None else scores
        return top_labels(scores, self.label_counts(X, n_labels), self.label_frequency_)

    @runs_on_n_jobs
    def predict_labels(self, X, n_labels=None, scores: np.ndarray | None = None) -> list[list]:
        """`predict` as one list of label names per document."""
        predicted = self.predict(X, n_labels, scores)
        return [self.classes_[predicted.indices[predicted.indptr[d]:predicted.indptr[d + 1]]]
                .tolist() for d in range(predicted.shape[0])]

    @property
    def n_topics(self) -> int:
        """K: one topic per label (known once fitted)."""
        if not hasattr(self, "classes_"):
            self._check_fitted()
        return self.classes_.size

    # --- model files: the label part -------------------------------------------------------------
    def _label_arrays(self) -> dict[str, np.ndarray]:
        return {"classes": np.asarray(self.classes_), "label_frequency": self.label_frequency_,
                "meta_labeler_coef": self.meta_labeler_.coef_}

    def _label_metadata(self) -> dict:
        return {"random_seed": int(self.random_seed_), "mean_labels": float(self.mean_labels_),
                "meta_labeler": {"ridge": float(self.meta_labeler_.ridge),
                                 "max_labels": int(self.meta_labeler_.max_labels_)}}

    def _restore_labels(self, arrays: dict[str, np.ndarray], fitted: dict) -> None:
        self.classes_ = arrays["classes"]
        self.label_frequency_ = arrays["label_frequency"]
        if self.classes_.shape != (self.components_.shape[0],) \
                or self.label_frequency_.shape != self.classes_.shape:
            raise ValueError("one label name and frequency per topic expected")
        self.meta_labeler_ = MetaLabeler(fitted["meta_labeler"]["ridge"])
        self.meta_labeler_.coef_ = arrays["meta_labeler_coef"]
        self.meta_labeler_.max_labels_ = int(fitted["meta_labeler"]["max_labels"])
        self.random_seed_ = fitted["random_seed"]
        self.mean_labels_ = fitted["mean_labels"]


class GibbsLabelModel(MultiLabelModel):
    """Multi-label models predicting by Gibbs sampling: each new document sampled with every
    topic allowed and the topics fixed (equation 4), alpha = ``doc_topic_prior_``, giving theta
    (equation 3) and theta^p (equation 33) from the same ``n_samples`` samples of ``n_chains``
    chains after ``burn_in`` sweeps."""

    def _topic_word(self, topics: str) -> np.ndarray:
        """The topics prediction holds fixed (models with phi and phi^p choose)."""
        return self.components_

    @runs_on_n_jobs
    def predict_doc_topics(self, X, topics: str | None = None,
                           per_sample: bool = False) -> cgs.Prediction:
        """theta and theta^p of new documents from the same samples (equation 4 with every topic
        allowed and alpha = ``doc_topic_prior_``), with phi^p (``topics="p"``) or phi
        (``"standard"``) fixed where the model keeps both; default: the ``estimator``'s.
        Section 6.3's four combinations are the two topic choices times the two fields."""
        validate_parameters(self)
        corpus = self._new_documents(X)
        choice = self.estimator if topics is None else check_parameter(
            "topics", topics, Options(cgs.GIBBS_ESTIMATES))
        tokens, offsets = corpus.document_tokens()
        memory.check_memory(memory.collapsed_gibbs_prediction(
            self.n_topics, corpus.n_words, corpus.n_documents, tokens.size,
            self.n_chains * self.n_samples if per_sample else 1,
            self._operation("transform", corpus)))
        return cgs.predict_doc_topics(
            self._topic_word(choice), self.doc_topic_prior_, tokens, offsets,
            burn_in=self.burn_in, lag=self.lag, n_samples=self.n_samples,
            n_chains=self.n_chains, seed=self.random_seed_, per_sample=per_sample)

    @runs_on_n_jobs
    def predict_proba(self, X) -> np.ndarray:
        """Per-label scores (D x K, rows sum to 1): theta^p (equation 33) with
        ``estimator="p"``, else theta (equation 3)."""
        prediction = self.predict_doc_topics(X)
        return prediction.theta_p if self.estimator == "p" else prediction.theta


class LabeledLDA(GibbsLabelModel):
    """Labeled LDA by collapsed Gibbs sampling, with CGS_p or standard estimators.

    Parameters
    ----------
    doc_topic_prior : alpha, the document-topic prior at training (and, for Labeled LDA, at
        prediction); None means 50 / K (equation 58), K the number of labels.
    topic_word_prior : eta, the topic-word prior (the paper's beta, 0.1 in section 6.3).
    burn_in, lag, n_samples : training chains run ``burn_in + lag * n_samples`` sweeps and keep
        their last ``n_samples`` states ``lag`` apart; prediction runs ``burn_in`` sweeps then
        keeps ``n_samples`` states ``lag`` apart (section 6.3: burn-in 50, lag 5, and 1 or 30
        samples).
    n_chains : chains at training (estimates averaged over all samples of all chains) and per
        document at prediction (section 6.3: 1 or 5).
    estimator : ``"p"``: phi^p (eq. 41) for ``components_`` and theta^p (eq. 33) for the
        scores; ``"standard"``: equations 2 and 3.
    sampler : ``"sparse"`` or ``"dense"`` (a masked document draws by a loop over its labels in
        both).
    n_labels : how `predict` sizes each label set: ``"meta"`` (Meta-Labeler), ``"mean"`` (rank
        cut-off at the mean number of labels of a training document, rounded) or an integer.
    random_state : int, None or a numpy Generator.
    n_jobs : the threads of the compiled kernels, as `GibbsLDA`'s.

    Fitted attributes: ``components_`` (K x V), ``topic_word_standard_`` and ``topic_word_p_``
    (phi and phi^p, K x V; phi^p only with ``estimator="p"``, else phi), ``classes_`` (label
    names), ``label_frequency_`` (training documents per label), ``training_alpha_``,
    ``doc_topic_prior_`` (alpha at prediction), ``meta_labeler_``, ``vocabulary_``,
    ``log_likelihood_`` (mean over chains of log p(w, z)), ``random_seed_``, ``n_iter_``.
    """

    _parameter_constraints = {
        "n_jobs": N_JOBS,
        "doc_topic_prior": [None, Interval(Real, 0, None, "neither"), VECTOR],
        "topic_word_prior": [Interval(Real, 0, None, "neither")],
        "burn_in": [Interval(Integral, 0, None)], "lag": [Interval(Integral, 1, None)],
        "n_samples": [Interval(Integral, 1, None)], "n_chains": [Interval(Integral, 1, None)],
        "estimator": [Options(cgs.GIBBS_ESTIMATES)], "sampler": [Options(cgs.SAMPLERS)],
        "n_labels": [Options(N_LABELS), Interval(Integral, 1, None)],
        "random_state": RANDOM_STATE,
    }

    def __init__(self, doc_topic_prior=None, topic_word_prior: float = 0.1, burn_in: int = 50,
                 lag: int = 5, n_samples: int = 1, n_chains: int = 1, estimator: str = "p",
                 sampler: str = "sparse", n_labels="meta", random_state=None, n_jobs=None):
        self.doc_topic_prior = doc_topic_prior
        self.topic_word_prior = topic_word_prior
        self.burn_in = burn_in
        self.lag = lag
        self.n_samples = n_samples
        self.n_chains = n_chains
        self.estimator = estimator
        self.sampler = sampler
        self.n_labels = n_labels
        self.random_state = random_state
        self.n_jobs = n_jobs

    # --- parameters ------------------------------------------------------------------------------
    def _training_alpha(self, n_topics: int) -> np.ndarray:
        """alpha at training: 50 / K (equation 58) unless given (a number or K numbers)."""
        if self.doc_topic_prior is None:
            return np.full(n_topics, 50.0 / n_topics)
        alpha = np.asarray(self.doc_topic_prior, dtype=np.float64)
        if alpha.ndim == 0:
            return np.full(n_topics, float(alpha))
        if alpha.shape != (n_topics,) or not np.all(np.isfinite(alpha)) or alpha.min() <= 0:
            raise ParameterError(f"{type(self).__name__}: doc_topic_prior (alpha) must be a "
                                 f"positive number or "
                                 f"{n_topics} (one per label) positive numbers")
        return alpha

    def _prediction_prior(self, training_alpha: np.ndarray,
                          label_frequency: np.ndarray) -> np.ndarray:
        """alpha for new documents: Labeled LDA keeps the training alpha."""
        return training_alpha

    # --- training --------------------------------------------------------------------------------
    @runs_on_n_jobs
    def fit(self, X, Y, *, callback=None):
        """Fit on documents ``X`` and their labels ``Y`` (D x L 0/1 matrix, scipy sparse or
        dense, or one list of labels per document; every document needs a label).
        ``callback(model, report)`` is called after every sweep with a `PassReport`."""
        observe = self._pass_observer(callback)
        corpus = self._training_corpus(X)
        mask = self._learn_labels(corpus, Y)
        n_topics = self.classes_.size
        memory.check_memory(memory.collapsed_gibbs_training(
            n_topics, corpus.n_words, corpus.n_documents, corpus.n_tokens,
            soft=self.estimator == "p", chains_kept=self.n_chains, masked=True,
            operation=self._operation("fit", corpus)))
        alpha = self._training_alpha(n_topics)
        seed = self._fit_seed()
        tokens, offsets = corpus.document_tokens()
        iterations = self.burn_in + self.lag * self.n_samples
        schedule = cgs.ChainSchedule(iterations, self.burn_in, self.lag, self.n_samples)
        results = []
        for chain in range(self.n_chains):
            results.append(cgs.run_chain(
                tokens, offsets, n_topics, corpus.n_words, alpha, self.topic_word_prior,
                schedule, sampler=self.sampler, estimator=self.estimator, seed=seed,
                chain=chain, mask=mask,
                progress=None if observe is None else (lambda sweep, c=chain: observe(c, sweep))))
        self.topic_word_p_ = np.mean([r.phi for r in results], axis=0)
        self.topic_word_standard_ = np.mean([r.phi_standard for r in results], axis=0)
        self.components_ = self.topic_word_p_ if self.estimator == "p" \
            else self.topic_word_standard_
        self.training_alpha_ = alpha
        self.doc_topic_prior_ = self._prediction_prior(alpha, self.label_frequency_)
        self.topic_word_prior_ = float(self.topic_word_prior)
        self.vocabulary_ = corpus.vocabulary
        self.log_likelihood_ = float(np.mean([r.log_likelihood for r in results]))
        self.random_seed_ = seed
        self.n_iter_ = iterations
        return self

    def _topic_word(self, topics: str) -> np.ndarray:
        return self.topic_word_p_ if topics == "p" else self.topic_word_standard_

    # --- model files -----------------------------------------------------------------------------
    def _state_arrays(self) -> dict[str, np.ndarray]:
        return {"topic_word_standard": self.topic_word_standard_,
                "topic_word_p": self.topic_word_p_, "training_alpha": self.training_alpha_,
                **self._label_arrays()}

    def _fitted_metadata(self) -> dict:
        return {"topic_word_prior": float(self.topic_word_prior_),
                "log_likelihood": float(self.log_likelihood_), "n_iter": int(self.n_iter_),
                **self._label_metadata()}

    def _restore_state(self, arrays: dict[str, np.ndarray], metadata: dict) -> None:
        super()._restore_state(arrays, metadata)
        fitted = metadata.get("fitted", {})
        self._restore_labels(arrays, fitted)
        self.topic_word_standard_ = arrays["topic_word_standard"]
        self.topic_word_p_ = arrays["topic_word_p"]
        self.training_alpha_ = arrays["training_alpha"]
        for name in ("topic_word_standard_", "topic_word_p_"):
            if getattr(self, name).shape != self.components_.shape:
                raise ValueError(f"{name[:-1]} is not K x V")
        self.topic_word_prior_ = fitted["topic_word_prior"]
        self.log_likelihood_ = fitted["log_likelihood"]
        self.n_iter_ = fitted["n_iter"]


class PriorLDA(LabeledLDA):
    """Prior-LDA (Rubin et al. 2012): Labeled LDA whose prior on new documents' theta follows the
    training label frequencies, alpha_k = ``alpha_scale`` f_k / sum f + ``alpha_floor`` / K
    (equation 59; 50 and 30 in section 6.3), while training keeps the symmetric alpha of
    equation 58. Parameters and attributes otherwise as `LabeledLDA`."""

    def __init__(self, doc_topic_prior=None, topic_word_prior: float = 0.1, burn_in: int = 50,
                 lag: int = 5, n_samples: int = 1, n_chains: int = 1, estimator: str = "p",
                 sampler: str = "sparse", n_labels="meta", alpha_scale: float = 50.0,
                 alpha_floor: float = 30.0, random_state=None, n_jobs=None):
        self.alpha_scale = alpha_scale
        self.alpha_floor = alpha_floor
        super().__init__(doc_topic_prior=doc_topic_prior, topic_word_prior=topic_word_prior,
                         burn_in=burn_in, lag=lag, n_samples=n_samples, n_chains=n_chains,
                         estimator=estimator, sampler=sampler, n_labels=n_labels,
                         random_state=random_state, n_jobs=n_jobs)

    # alpha_floor > 0 also gives a label never seen in training a positive alpha.
    _parameter_constraints = {**LabeledLDA._parameter_constraints,
                              "alpha_scale": [Interval(Real, 0, None)],
                              "alpha_floor": [Interval(Real, 0, None, "neither")]}

    def _prediction_prior(self, training_alpha, label_frequency) -> np.ndarray:
        """Equation 59: alpha_k = alpha_scale f_k / sum f + alpha_floor / K."""
        return frequency_prior(label_frequency, self.alpha_scale, self.alpha_floor)
