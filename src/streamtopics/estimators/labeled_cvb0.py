"""`LabeledCVB0LDA`: Labeled LDA and Prior-LDA trained and applied by CVB0 (Papanikolaou et al.
2017, sections 2.5 and 6.3; equation numbers are that paper's).

Training is CVB0 (equation 6) under the topic mask of Labeled LDA: a training token's
variational distribution gamma lives on its document's labels only, as equation 5 restricts
the Gibbs conditional (`inference.cvb0.fit_cvb0` with a `TopicMask`), with the symmetric alpha
of equation 58. Section 6.3 runs CVB0 "with the same setup" as CGS; because CVB0 is
deterministic, its chains differ by "a different random order of the documents and a different
random initialization of the gamma parameters": chain 0 visits the documents in corpus order,
chain c > 0 in a seeded random order, each from its own random start; phi (equation 2 on the
soft counts) is averaged over chains (labels anchor the topics, section 2.4). New documents:
CVB0 with phi fixed and every topic allowed, alpha from equation 59 (``prior="frequency"``,
Prior-LDA) or the training alpha (``"symmetric"``, Labeled LDA); theta (equation 3 on soft
counts) is the per-label score.
"""

from __future__ import annotations

import numpy as np

from .. import memory
from ..inference import cvb0
from ..inference.topic_mask import TopicMask
from ..threads import runs_on_n_jobs
from ..validation import Integral, Interval, Options, Real, validate_parameters
from .base import N_JOBS, RANDOM_STATE
from .labeled import N_LABELS, VECTOR, LabeledLDA, MultiLabelModel, frequency_prior
from .labeled_online import PRIORS


class LabeledCVB0LDA(MultiLabelModel):
    """Prior-LDA (``prior="frequency"``) or Labeled LDA (``prior="symmetric"``) by CVB0.

    Parameters
    ----------
    doc_topic_prior : training alpha, a number or one per label; None: 50 / K (equation 58).
    topic_word_prior : eta (the paper's beta, 0.1 in section 6.3).
    n_passes, tolerance : CVB0 passes per chain at most, stopping early once the mean change of
        a token's topic distribution falls below ``tolerance``.
    n_chains : chains whose phi are averaged (chain c > 0: another document order and start).
    transform_passes : CVB0 passes per new document with the topics fixed.
    prior, alpha_scale, alpha_floor : alpha for new documents: equation 59 with these constants
        ("frequency"), or the training alpha ("symmetric").
    n_labels, random_state, n_jobs : as `LabeledLDA`.

    Fitted attributes: ``components_`` (phi, K x V), ``training_alpha_``, ``doc_topic_prior_``
    (alpha at prediction), ``classes_``, ``label_frequency_``, ``meta_labeler_``,
    ``vocabulary_``, ``n_iter_`` (passes of each chain), ``random_seed_``.
    """

    _parameter_constraints = {
        "n_jobs": N_JOBS,
        "doc_topic_prior": [None, Interval(Real, 0, None, "neither"), VECTOR],
        "topic_word_prior": [Interval(Real, 0, None, "neither")],
        "n_passes": [Interval(Integral, 1, None)],
        "tolerance": [Interval(Real, 0, None)],
        "n_chains": [Interval(Integral, 1, None)],
        "transform_passes": [Interval(Integral, 0, None)],
        "prior": [Options(PRIORS)],
        "alpha_scale": [Interval(Real, 0, None)],
        "alpha_floor": [Interval(Real, 0, None, "neither")],
        "n_labels": [Options(N_LABELS), Interval(Integral, 1, None)],
        "random_state": RANDOM_STATE,
    }

    def __init__(self, doc_topic_prior=None, topic_word_prior: float = 0.1, n_passes: int = 100,
                 tolerance: float = 0.0, n_chains: int = 1, transform_passes: int = 50,
                 prior: str = "frequency", alpha_scale: float = 50.0, alpha_floor: float = 30.0,
                 n_labels="meta", random_state=None, n_jobs=None):
        self.doc_topic_prior = doc_topic_prior
        self.topic_word_prior = topic_word_prior
        self.n_passes = n_passes
        self.tolerance = tolerance
        self.n_chains = n_chains
        self.transform_passes = transform_passes
        self.prior = prior
        self.alpha_scale = alpha_scale
        self.alpha_floor = alpha_floor
        self.n_labels = n_labels
        self.random_state = random_state
        self.n_jobs = n_jobs

    _training_alpha = LabeledLDA._training_alpha

    @runs_on_n_jobs
    def fit(self, X, Y, *, callback=None):
        """Fit on documents ``X`` and their labels ``Y`` (as `LabeledLDA.fit`);
        ``callback(model, report)`` after every pass of every chain (a `PassReport`)."""
        observe = self._pass_observer(callback)
        corpus = self._training_corpus(X)
        mask = self._learn_labels(corpus, Y)
        n_topics = self.classes_.size
        memory.check_memory(memory.cvb0_training(
            n_topics, corpus.n_words, corpus.n_documents, corpus.counts.nnz,
            chains_kept=self.n_chains, masked=True, operation=self._operation("fit", corpus)))
        alpha = self._training_alpha(n_topics)
        seed = self._fit_seed()
        allowed = mask.indicator()
        phis, passes = [], []
        for chain in range(self.n_chains):
            order = (np.arange(corpus.n_documents) if chain == 0 else
                     np.random.default_rng([seed, chain]).permutation(corpus.n_documents))
            result = cvb0.fit_cvb0(
                corpus.counts[order], n_topics, alpha, self.topic_word_prior,
                iterations=self.n_passes, tolerance=float(self.tolerance), seed=seed,
                stream=chain, mask=TopicMask.from_indicator(allowed[order]),
                progress=None if observe is None else (lambda n, c=chain: observe(c, n)))
            phis.append(result.phi)
            passes.append(len(result.changes))
        self.components_ = np.mean(phis, axis=0)
        self.training_alpha_ = alpha
        self.doc_topic_prior_ = (frequency_prior(self.label_frequency_, self.alpha_scale,
                                                 self.alpha_floor)
                                 if self.prior == "frequency" else alpha)
        self.topic_word_prior_ = float(self.topic_word_prior)
        self.vocabulary_ = corpus.vocabulary
        self.random_seed_ = seed
        self.n_iter_ = passes
        return self

    @runs_on_n_jobs
    def predict_proba(self, X) -> np.ndarray:
        """Per-label scores (D x K, rows sum to 1): theta of CVB0 with phi fixed, every topic
        allowed, alpha = ``doc_topic_prior_``."""
        validate_parameters(self)
        corpus = self._new_documents(X)
        memory.check_memory(memory.cvb0_prediction(self.n_topics, corpus.n_words,
                                                   corpus.n_documents,
                                                   self._operation("transform", corpus)))
        return cvb0.predict_cvb0(self.components_, self.doc_topic_prior_, corpus.counts,
                                 self.transform_passes)

    # --- model files -----------------------------------------------------------------------------
    def _state_arrays(self) -> dict[str, np.ndarray]:
        return {"training_alpha": self.training_alpha_, **self._label_arrays()}

    def _fitted_metadata(self) -> dict:
        return {"topic_word_prior": float(self.topic_word_prior_),
                "n_iter": [int(n) for n in self.n_iter_], **self._label_metadata()}

    def _restore_state(self, arrays: dict[str, np.ndarray], metadata: dict) -> None:
        super()._restore_state(arrays, metadata)
        fitted = metadata.get("fitted", {})
        self._restore_labels(arrays, fitted)
        self.training_alpha_ = arrays["training_alpha"]
        self.topic_word_prior_ = fitted["topic_word_prior"]
        self.n_iter_ = list(fitted["n_iter"])
