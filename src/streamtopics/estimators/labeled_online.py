"""`LabeledOnlineLDA`: Labeled LDA trained online, G-OEM with a masked local Gibbs step.

Beyond both papers: Labeled LDA (Ramage et al. 2009; Papanikolaou et al. 2017, equation 5) is
LDA whose training documents may only use the topics of their labels; G-OEM (Dupuy & Bach 2016,
Algorithm 1) runs a few local Gibbs passes per document of a minibatch, and those passes take
the same per-document topic mask (`kernels.local_gibbs`), so a labelled stream trains in one
pass with memory independent of its length. alpha is held fixed (the masked s2 carries no
information on a global alpha): 50 / K at training as batch Labeled LDA (equation 58).
Prediction is that of the batch models (`labeled.GibbsLabelModel`): Gibbs sampling with the
learnt topics fixed, theta^p or theta, with Prior-LDA's label-frequency alpha (equation 59, from the
label counts of the stream so far) or the training alpha.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..corpus.streaming import DEFAULT_BATCH_SIZE
from ..inference.presets import (DEFAULT_LOCAL_PASSES, DEFAULT_STEP_DECAY, DEFAULT_STEP_OFFSET,
                                 PRESETS, Method)
from ..inference.topic_mask import TopicMask
from ..threads import runs_on_n_jobs
from ..validation import Integral, Interval, Options, Real
from .base import N_JOBS, RANDOM_STATE
from .label_sets import label_indicator
from .labeled import N_LABELS, VECTOR, GibbsLabelModel, LabeledLDA, frequency_prior
from .online_lda import OnlineLDA

GIBBS_METHODS = ("g-oem", "g-oem++", "sgs")
PRIORS = ("frequency", "symmetric")


class LabeledOnlineLDA(GibbsLabelModel):
    """Labeled LDA (``prior="symmetric"``) or Prior-LDA (``prior="frequency"``) learnt online.

    Parameters
    ----------
    method : a preset with a local Gibbs step ("g-oem", "g-oem++", "sgs"), its alpha update
        replaced by a fixed alpha.
    batch_size, local_passes, step_offset, step_decay, topic_word_prior, random_state, n_jobs :
        as `OnlineLDA` (minibatch size, local Gibbs passes P, rho_i = (tau0 + i)^-kappa, eta,
        threads).
    n_passes : passes over the documents in `fit` (one: a stream).
    doc_topic_prior : training alpha, a number or one per label; None: 50 / K (equation 58).
    prior, alpha_scale, alpha_floor : alpha for new documents: equation 59 with these constants
        ("frequency"), or the training alpha ("symmetric").
    burn_in, lag, n_samples, n_chains, estimator, n_labels : prediction, as `LabeledLDA`.

    `fit(X, Y)` trains from scratch; `partial_fit(X, Y, classes=...)` takes one minibatch (the
    first call needs every label name, ``classes``, unless ``Y`` is a matrix). Fitted attributes:
    ``components_``, ``doc_topic_prior_`` (alpha for new documents), ``classes_``,
    ``label_frequency_`` (labelled documents seen per label), ``meta_labeler_`` (fitted by
    `fit` only, on its documents; after `partial_fit` alone, ``n_labels="mean"`` is used),
    ``online_model_`` (the `OnlineLDA` underneath), ``n_labelled_documents_``, ``vocabulary_``.
    """

    _parameter_constraints = {
        "n_jobs": N_JOBS,
        "method": [Options(GIBBS_METHODS)],
        "batch_size": [Interval(Integral, 1, None)],
        "local_passes": [Interval(Integral, 1, None)],
        "step_offset": [Interval(Real, None, None)],
        "step_decay": [Interval(Real, None, None)],
        "topic_word_prior": [None, Interval(Real, 0, None)],
        "n_passes": [Interval(Integral, 1, None)],
        "doc_topic_prior": [None, Interval(Real, 0, None, "neither"), VECTOR],
        "prior": [Options(PRIORS)],
        "alpha_scale": [Interval(Real, 0, None)],
        "alpha_floor": [Interval(Real, 0, None, "neither")],
        **{name: LabeledLDA._parameter_constraints[name]
           for name in ("burn_in", "lag", "n_samples", "n_chains", "estimator")},
        "n_labels": [Options(N_LABELS), Interval(Integral, 1, None)],
        "random_state": RANDOM_STATE,
    }

    def __init__(self, method: str = "g-oem", batch_size: int = DEFAULT_BATCH_SIZE,
                 local_passes: int = DEFAULT_LOCAL_PASSES, step_offset: float = DEFAULT_STEP_OFFSET,
                 step_decay: float = DEFAULT_STEP_DECAY, topic_word_prior=None,
                 n_passes: int = 1, doc_topic_prior=None, prior: str = "frequency",
                 alpha_scale: float = 50.0, alpha_floor: float = 30.0, burn_in: int = 50,
                 lag: int = 5, n_samples: int = 1, n_chains: int = 1, estimator: str = "p",
                 n_labels="meta", random_state=None, n_jobs=None):
        self.method = method
        self.batch_size = batch_size
        self.local_passes = local_passes
        self.step_offset = step_offset
        self.step_decay = step_decay
        self.topic_word_prior = topic_word_prior
        self.n_passes = n_passes
        self.doc_topic_prior = doc_topic_prior
        self.prior = prior
        self.alpha_scale = alpha_scale
        self.alpha_floor = alpha_floor
        self.burn_in = burn_in
        self.lag = lag
        self.n_samples = n_samples
        self.n_chains = n_chains
        self.estimator = estimator
        self.n_labels = n_labels
        self.random_state = random_state
        self.n_jobs = n_jobs

    _training_alpha = LabeledLDA._training_alpha

    def _online_model(self, n_topics: int) -> OnlineLDA:
        """The G-OEM model underneath: the preset with a fixed alpha."""
        method: Method = replace(PRESETS[self.method], alpha_update="fixed",
                                 name=f"labeled-{self.method}")
        return OnlineLDA(n_topics=n_topics, method=method, batch_size=self.batch_size,
                         local_passes=self.local_passes, step_offset=self.step_offset,
                         step_decay=self.step_decay, n_passes=self.n_passes,
                         doc_topic_prior=self._training_alpha(n_topics),
                         topic_word_prior=self.topic_word_prior,
                         random_state=self.random_state)

    @runs_on_n_jobs
    def fit(self, X, Y, callback=None, *, train=None) -> "LabeledOnlineLDA":
        """Train from scratch on documents ``X`` with labels ``Y`` (as `LabeledLDA.fit`), in
        minibatches of ``batch_size`` in corpus order, ``n_passes`` times;
        ``callback(online_model, report)`` after every step. ``train(online_model, corpus,
        topic_mask)``, if given, trains the G-OEM model underneath in place of its ``fit``:
        `streamtopics.training.fit_with_checkpoints`, to write checkpoints and resume."""
        corpus = self._training_corpus(X)
        mask = self._learn_labels(corpus, Y)
        self.online_model_ = self._online_model(self.classes_.size)
        if train is None:
            self.online_model_.fit(corpus, callback=callback, topic_mask=mask)
        else:
            train(self.online_model_, corpus, mask)
        self.n_labelled_documents_ = corpus.n_documents
        self._fitted(corpus.vocabulary)
        return self

    @runs_on_n_jobs
    def partial_fit(self, X, Y, classes=None) -> "LabeledOnlineLDA":
        """One G-OEM step on the minibatch ``X`` with labels ``Y``. The first call fixes the
        label set: ``classes`` (every label name), or the columns of a matrix ``Y``."""
        corpus = self._training_corpus(X)
        first = not hasattr(self, "online_model_")
        names, indicator = label_indicator(Y, corpus.n_documents,
                                           classes if first else self.classes_)
        unlabelled = np.flatnonzero(np.diff(indicator.indptr) == 0)
        if unlabelled.size:
            self._learn_labels(corpus, indicator)  # raises, naming the document
        if first:
            self.classes_ = names
            self.label_frequency_ = np.zeros(names.size, dtype=np.int64)
            self.mean_labels_, self.n_labelled_documents_ = 0.0, 0
            self.online_model_ = self._online_model(names.size)
        self.online_model_.partial_fit(corpus, topic_mask=TopicMask.from_indicator(indicator))
        self.label_frequency_ += np.asarray(indicator.sum(axis=0), dtype=np.int64).ravel()
        seen = self.n_labelled_documents_ + corpus.n_documents
        self.mean_labels_ = (self.mean_labels_ * self.n_labelled_documents_ + indicator.nnz) / seen
        self.n_labelled_documents_ = seen
        self._fitted(corpus.vocabulary)
        return self

    def _fitted(self, vocabulary) -> None:
        model = self.online_model_
        self.components_ = np.array(model.components_)
        self.doc_topic_prior_ = (frequency_prior(self.label_frequency_, self.alpha_scale,
                                                 self.alpha_floor)
                                 if self.prior == "frequency" else model.doc_topic_prior_)
        self.vocabulary_ = model.vocabulary_ if vocabulary is None else vocabulary
        self.random_seed_ = int(model._require_fitted().seed)

    def label_counts(self, X, n_labels=None) -> np.ndarray:
        choice = self.n_labels if n_labels is None else n_labels
        if isinstance(choice, str) and choice == "meta" and not hasattr(self, "meta_labeler_"):
            choice = "mean"  # trained by partial_fit only: no Meta-Labeler
        return super().label_counts(X, choice)

    # --- model files -----------------------------------------------------------------------------
    def _state_arrays(self) -> dict[str, np.ndarray]:
        arrays, _ = self.online_model_.model_file_contents()
        online = {f"online_{name}": value for name, value in arrays.items()}
        labels = self._label_arrays() if hasattr(self, "meta_labeler_") else {
            "classes": np.asarray(self.classes_), "label_frequency": self.label_frequency_}
        return {**online, **labels}

    def _fitted_metadata(self) -> dict:
        _, online = self.online_model_.model_file_contents()
        labels = self._label_metadata() if hasattr(self, "meta_labeler_") else {
            "random_seed": int(self.random_seed_), "mean_labels": float(self.mean_labels_)}
        return {"online": online, "n_labelled_documents": int(self.n_labelled_documents_),
                **labels}

    def _restore_state(self, arrays: dict[str, np.ndarray], metadata: dict) -> None:
        super()._restore_state(arrays, metadata)
        fitted = metadata.get("fitted", {})
        online = {name[len("online_"):]: value for name, value in arrays.items()
                  if name.startswith("online_")}
        self.online_model_ = OnlineLDA._from_model_file("online part", online, fitted["online"])
        if "meta_labeler" in fitted:
            self._restore_labels(arrays, fitted)
        else:
            self.classes_ = arrays["classes"]
            self.label_frequency_ = arrays["label_frequency"]
            self.random_seed_ = fitted["random_seed"]
            self.mean_labels_ = fitted["mean_labels"]
        self.n_labelled_documents_ = int(fitted["n_labelled_documents"])
