"""`OnlineHDP`: the hierarchical Dirichlet process trained online, topics growing with the stream.

    model = OnlineHDP(max_topics=100, random_state=0).fit(corpus)
    model.n_topics_            # T, the topics in use (starts at 2, thesis p. 59)
    model.topic_weights_       # pi (T), the corpus stick weights; rest_weight_ = pi_*
    model.components_          # T x V topics

``method="g-oem"`` is Dupuy (2017), section 3.4 (``method="vargibbs"``: the Bayesian baseline
of section 3.4.2, eq. 18, on the same loop; docs/hdp.md): Algorithm 1 (the same `OnlineEM` as
LDA, its step sizes, checkpoints and exact resume) with a local Gibbs step that may open topics
(`inference.hdp_estep`, thesis p. 60), statistics of eq. 16 and the M-step of eq. 17's box: beta
from S2 (the thesis' numbering), a = b (pi, pi_*) by Minka's fixed point over the T topics and
the rest of the stick (`inference.sticks`). How topics come and go:

* **growth** (thesis p. 60): a token opens a topic with probability proportional to a_* / V; its
  stick pibar ~ Beta(1, alpha) splits the rest; a topic one document opens is
  shared with the minibatch's other documents, the opened topics get their M-step weights from
  the rest by their use (`inference.hdp_estep`, where the spec's G3 is closed differently), and
  s_{i-1} is padded so that padding moves no parameter (G4, `SufficientStats.add_topics`);
* **stick concentration** alpha (not learnt in the thesis): by default the empirical-Bayes value
  given the T topics and the expected tables of the documents seen, after each M-step
  (`inference.sticks.StickConcentration`; Antoniak 1974, Teh et al. 2006 section 5.3), from
  ``stick_concentration`` at the start; ``stick_update="fixed"`` keeps it;
* **pruning** (not in the thesis; G6): after each M-step a topic whose share of the expected
  tokens is below ``prune_share`` is dropped and its a_k joins the rest;
* **cap**: a minibatch opens topics only while T < ``max_topics`` (the new-topic probability is
  0 at the cap); the rest of the stick stays (held-out scoring, growth after pruning).
  ``initial_topics == max_topics`` truncates the stick (pi_* = 0, no rest at all).

With ``initial_topics == max_topics`` nothing ever opens and the model is LDA G-OEM with
alpha_0 = b pi_0, bit for bit (tests/test_hdp.py).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from .. import memory
from ..corpus.growth import DEFAULT_MIN_COUNT
from ..corpus.streaming import DEFAULT_BATCH_SIZE
from ..engine import OnlineEM, initial_parameters
from ..inference.alpha_updates import MinkaFixedPoint
from ..inference.hdp_estep import HDPGibbsEstimator
from ..inference.presets import (DEFAULT_LOCAL_PASSES, DEFAULT_STEP_DECAY, DEFAULT_STEP_OFFSET,
                                 Method, PartSettings, default_topic_word_prior, step_size_of)
from ..inference.sticks import (UNSEEN_WORDS, StickConcentration, StickDirichlet,
                                StickPointEstimate, StickPosteriorMean, StickSelection, has_rest,
                                initial_sticks, stick_weights)
from ..threads import runs_on_n_jobs
from ..validation import (BOOLEAN, Integral, Interval, Options, ParameterError, Real,
                          validate_parameters)
from . import auto_passes
from .base import N_JOBS, RANDOM_STATE
from .online_lda import OnlineLDA

HDP_METHODS = ("g-oem", "vargibbs")
STICK_UPDATES = ("empirical-bayes", "fixed")


class OnlineHDP(OnlineLDA):
    """HDP topic model learnt online (see the module docstring).

    Parameters
    ----------
    method : "g-oem" (frequentist, thesis section 3.4.2).
    initial_topics : T at the start (the thesis: 2).
    max_topics : the cap on T (no topic opens there).
    doc_topic_prior : b, the document-level concentration (nu_d ~ Dirichlet(b pi)); its
        starting value: b_eff = sum a is learnt with pi by the M-step.
    stick_concentration : alpha of the corpus sticks pibar_k ~ Beta(1, alpha), which sets how
        readily topics open: its value at the start (the thesis gives none), learnt after each
        M-step unless ``stick_update="fixed"``. Most topics open in the first minibatches and
        the learnt value moves slowly from its start (T is what alpha opened), so the start
        matters: 20 (default) scores within 1.4% of the best LDA G-OEM (K = 128) on debian and
        newsarticles, 5 is 3-4% behind; on the planted K* = 10 corpus both score as LDA K = 10,
        20 with 13-18 topics of weight > 1%, 5 with 11-14 (docs/hdp.md).
    stick_update : "empirical-bayes" (default): alpha maximises the likelihood of T topics among
        the m expected tables, T = alpha (digamma(alpha + m) - digamma(alpha)) (Antoniak 1974;
        the likelihood of Teh et al. 2006's auxiliary-variable update); "fixed": alpha stays.
    topic_word_prior : eta; beta is the posterior mean given the expected counts as for LDA
        G-OEM; an opened topic scores its document's words by the Dirichlet(eta) predictive
        until the next M-step. Default: that of the LDA preset of the same name with K =
        ``max_topics`` (`presets.default_topic_word_prior`: 0.03 for g-oem, 1/K for vargibbs),
        the LDA the HDP is when truncated at its cap.
    prune_share : drop a topic whose share of the expected tokens falls below this (0: never).
    unseen_words : "uniform" (a word without statistics weighs under a new topic what it weighs
        under the others) or "new-topic" (the thesis literally: 1/V), see `StickPointEstimate`.
    batch_size, local_passes, step_offset, step_decay, step_floor, random_state,
    grow_vocabulary, min_word_count, max_vocabulary, n_jobs : as `OnlineLDA`.
    n_passes : passes over the corpus in `fit` (default 1: a stream).
    corpus_size : D of the Bayesian method (None: the documents of `fit`); unused by g-oem.

    Fitted attributes: ``components_`` (T x V), ``n_topics_`` (T), ``topic_weights_`` (pi, T),
    ``rest_weight_`` (pi_*, 0 when truncated), ``concentration_`` (b_eff = sum a),
    ``stick_concentration_`` (alpha now),
    ``doc_topic_prior_`` (b pi, T), ``n_topics_history_`` (T after every step),
    ``vocabulary_``, ``n_steps_``, ``n_documents_seen_``.
    """

    # Not parameters of OnlineHDP: the parts of OnlineLDA's training loop it inherits read them.
    averaging = False
    n_init = 1

    def __init__(self, method: str = "g-oem", initial_topics: int = 2, max_topics: int = 200,
                 doc_topic_prior: float = 1.0, stick_concentration: float = 20.0,
                 stick_update: str = "empirical-bayes", topic_word_prior=None,
                 prune_share: float = 1e-4,
                 unseen_words: str = "uniform", batch_size: int = DEFAULT_BATCH_SIZE,
                 local_passes: int = DEFAULT_LOCAL_PASSES, step_offset: float = DEFAULT_STEP_OFFSET,
                 step_decay: float = DEFAULT_STEP_DECAY, step_floor: float = 0.0,
                 n_passes: int = 1, corpus_size=None, random_state=None,
                 grow_vocabulary: bool = False, min_word_count: int = DEFAULT_MIN_COUNT,
                 max_vocabulary=None, n_jobs=None):
        self.method = method
        self.initial_topics = initial_topics
        self.max_topics = max_topics
        self.doc_topic_prior = doc_topic_prior
        self.stick_concentration = stick_concentration
        self.stick_update = stick_update
        self.topic_word_prior = topic_word_prior
        self.prune_share = prune_share
        self.unseen_words = unseen_words
        self.batch_size = batch_size
        self.local_passes = local_passes
        self.step_offset = step_offset
        self.step_decay = step_decay
        self.step_floor = step_floor
        self.n_passes = n_passes
        self.corpus_size = corpus_size
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.grow_vocabulary = grow_vocabulary
        self.min_word_count = min_word_count
        self.max_vocabulary = max_vocabulary

    _parameter_constraints = {
        "n_jobs": N_JOBS,
        "method": [Options(HDP_METHODS, ignore_case=True)],
        "initial_topics": [Interval(Integral, 1, None)],
        "max_topics": [Interval(Integral, 1, None)],
        "doc_topic_prior": [Interval(Real, 0, None, "neither")],
        "stick_concentration": [Interval(Real, 0, None, "neither")],
        "stick_update": [Options(STICK_UPDATES)],
        "topic_word_prior": [None, Interval(Real, 0, None)],
        "prune_share": [Interval(Real, 0, 1, "left")],
        "unseen_words": [Options(UNSEEN_WORDS)],
        "batch_size": [Interval(Integral, 1, None)],
        "local_passes": [Interval(Integral, 1, None)],
        "step_offset": [Interval(Real, None, None)],
        "step_decay": [Interval(Real, None, None)],
        "step_floor": [Interval(Real, 0, 1, "left")],
        "n_passes": [Interval(Integral, 1, None)],
        "corpus_size": [None, Interval(Integral, 1, None)],
        "random_state": RANDOM_STATE,
        "grow_vocabulary": [BOOLEAN],
        "min_word_count": [Interval(Integral, 1, None)],
        "max_vocabulary": [None, Interval(Integral, 1, None)],
    }
    _parameter_symbols = {**OnlineLDA._parameter_symbols, "initial_topics": "T_0",
                          "doc_topic_prior": "b, the document concentration",
                          "stick_concentration": "alpha of the sticks",
                          "stick_update": "the update of alpha of the sticks"}

    # --- `OnlineLDA`'s extension protocol: HDP's parts in LDA's training loop ------------------
    def validated_method(self) -> Method:
        """The parameters checked, and the `Method` naming HDP's parts (for model files and
        ``method_``; `build_engine` assembles them)."""
        validate_parameters(self)
        if self.initial_topics > self.max_topics:
            raise ParameterError(f"OnlineHDP: initial_topics (T_0) must not exceed max_topics, "
                                 f"got {self.initial_topics} > {self.max_topics}")
        name = str(self.method).lower()
        if name == "vargibbs":
            return Method("gibbs-hdp", "sticks-dirichlet", "polynomial", "stick-posterior-mean",
                          False, name)
        return Method("gibbs-hdp", "sticks", "polynomial", "fixed-point", False, name)

    def part_settings(self, corpus_size=None) -> PartSettings:
        """As `OnlineLDA.part_settings`, eta's default that of the LDA preset ``method`` with K
        = ``max_topics`` (`presets.default_topic_word_prior`)."""
        eta = (default_topic_word_prior(self.method, self.max_topics)
               if self.topic_word_prior is None else self.topic_word_prior)
        size = self.corpus_size if self.corpus_size is not None else corpus_size
        return PartSettings(local_passes=self.local_passes, step_offset=float(self.step_offset),
                            step_decay=float(self.step_decay), step_floor=float(self.step_floor),
                            topic_word_prior=float(eta),
                            corpus_size=None if size is None else int(size))

    def build_engine(self, method: Method, settings: PartSettings, seed: int) -> OnlineEM:
        """Algorithm 1 with HDP's parts: the growing Gibbs step and the step size of LDA's
        presets; for G-OEM stick-weighted point topics and Minka's fixed point on a, for
        VarGibbs Dirichlet topics and Beta sticks from the expected tables (eq. 18); pruning
        after each step, then the stick concentration (learnt or fixed). A new engine starts
        an empty history of T (a model file then restores its own)."""
        self.n_topics_history_ = []
        eta = settings.topic_word_prior
        bayesian = method.name == "vargibbs"
        concentration = StickConcentration(float(self.stick_concentration),
                                           learnt=self.stick_update == "empirical-bayes")
        local = HDPGibbsEstimator(passes=settings.local_passes, topic_word_prior=eta,
                                  stick_concentration=float(self.stick_concentration),
                                  max_topics=int(self.max_topics),
                                  statistic="tables" if bayesian else "log-proportions")
        step_size = step_size_of("polynomial", settings)
        if not bayesian:
            return OnlineEM(local, StickPointEstimate(eta, unseen_words=self.unseen_words),
                            step_size, MinkaFixedPoint(), seed=seed,
                            topic_selection=StickSelection(float(self.prune_share)),
                            local_update=concentration)
        sticks = StickPosteriorMean(settings.corpus_size, concentration,
                                    float(self.doc_topic_prior))
        try:
            topics = StickDirichlet(settings.corpus_size, eta, unseen_words=self.unseen_words)
        except ValueError as error:  # no corpus size D (partial_fit), or eta = 0
            raise ParameterError(f"OnlineHDP(method='vargibbs'): {error}") from None
        return OnlineEM(local, topics, step_size, sticks, seed=seed,
                        topic_selection=StickSelection(float(self.prune_share), sticks),
                        local_update=concentration)

    def initial_state(self, n_words: int, rng: np.random.Generator):
        """beta_0 as LDA's (`initial_parameters`, the same draws for the same seed), the seed of
        the local streams next (as LDA), then the sticks a_0: G-OEM draws them
        (`initial_sticks`), VarGibbs starts from the prior mean, E[pibar] = 1 / (1 + alpha)."""
        beta, _ = initial_parameters(self.initial_topics, n_words, rng)
        seed = int(rng.integers(0, 2**63 - 1))
        truncated = self.initial_topics >= self.max_topics
        if str(self.method).lower() == "vargibbs":
            breaks = np.full(self.initial_topics, 1.0 / (1.0 + self.stick_concentration))
            return beta, self.doc_topic_prior * stick_weights(breaks, truncated), seed
        alpha = initial_sticks(self.initial_topics, rng, float(self.stick_concentration),
                               float(self.doc_topic_prior), truncated=truncated)
        return beta, alpha, seed

    def _check_resources(self, counts, method: Method, rows: int, n_documents) -> None:
        """The memory of training up to ``max_topics`` topics (`OnlineLDA._check_resources`;
        T is learnt, so its size warns of nothing)."""
        memory.check_memory(self._training_memory(counts, method, rows, self.max_topics,
                                                 growing=True))

    @runs_on_n_jobs
    def fit(self, X, y=None, *, callback=None, feature_names=None,
            resume: auto_passes.FitProgress | None = None) -> "OnlineHDP":
        """Train from scratch: ``n_passes`` passes of consecutive ``batch_size`` minibatches
        (see `OnlineLDA.fit`, ``resume`` included: `training.fit_with_checkpoints`);
        ``callback(model, report)`` after every step."""
        def record(model, report):
            self.n_topics_history_.append(self._engine.n_topics)
            if callback is not None:
                callback(model, report)
        return super().fit(X, callback=record, feature_names=feature_names, resume=resume)

    @runs_on_n_jobs
    def partial_fit(self, X, y=None) -> "OnlineHDP":
        """One online EM step with the documents of ``X`` as the minibatch."""
        super().partial_fit(X)
        self.n_topics_history_.append(self._engine.n_topics)
        return self

    # --- fitted model --------------------------------------------------------------------------
    def _sticks(self) -> np.ndarray:
        """a = b (pi, pi_*) as trained (T + 1 entries, or T when truncated)."""
        return self._require_fitted().alpha

    @property
    def n_topics_(self) -> int:
        return self._require_fitted().n_topics

    @property
    def stick_concentration_(self) -> float:
        """alpha of the sticks now (learnt, or ``stick_concentration`` when fixed)."""
        return float(self._require_fitted().local.stick_concentration)

    @property
    def doc_topic_prior_(self) -> np.ndarray:
        """b pi over the T topics (the rest's share a_* is `rest_weight_` times b_eff)."""
        return self._sticks()[:self.n_topics_].copy()

    @property
    def concentration_(self) -> float:
        return float(self._sticks().sum())

    @property
    def topic_weights_(self) -> np.ndarray:
        return self.doc_topic_prior_ / self.concentration_

    @property
    def rest_weight_(self) -> float:
        return float(self._sticks()[-1] / self.concentration_) if has_rest(
            self._engine.stats) else 0.0

    def to_lda(self, include_rest: bool = True) -> tuple[np.ndarray, np.ndarray]:
        """(beta, alpha) of the LDA that scores held-out documents (spec G8). With the rest
        (``include_rest``, while the stick has one): T + 1 topics, the last the uniform
        distribution 1/V with alpha = a_* = b pi_*, i.e. every uninstantiated topic merged into
        one whose words follow its prior predictive under Dirichlet(eta) (the weight under which
        a token opens a topic in training); by the aggregation property its proportion is
        exactly Dirichlet-distributed with the others. Without: the T topics with b pi,
        the rest's mass dropped (the T-topic LDA, as a truncated HDP)."""
        beta, sticks = np.asarray(self.components_), self._sticks()
        if not include_rest or not has_rest(self._engine.stats):
            return beta, sticks[:self.n_topics_].copy()
        uniform = np.full((1, beta.shape[1]), 1.0 / beta.shape[1])
        return np.vstack([beta, uniform]), sticks.copy()

    def held_out_parameters(self) -> tuple[np.ndarray, np.ndarray]:
        """Held-out scores (`score`, `perplexity`) are left-to-right under `to_lda`: the used
        topics with alpha_k = b pi_k plus the rest of the stick as one uniform topic."""
        return self.to_lda()

    def transform_estimator(self) -> HDPGibbsEstimator:
        """`transform` (as `OnlineLDA.transform`: the posterior mean of nu_d over the T topics,
        the rest's share dropped) runs the local step with no topic opened."""
        return replace(self._require_fitted().local, grow=False)

    # --- model files ---------------------------------------------------------------------------
    def _state_arrays(self) -> dict[str, np.ndarray]:
        """The engine's state, and a_* as ``rest_alpha`` while the stick has a rest (what
        `persistence.scored_topic_parameters` adds as a uniform topic, so that `evaluate` scores
        the file as `score` scores the model)."""
        arrays = super()._state_arrays()
        if has_rest(self._engine.stats):
            arrays["rest_alpha"] = self._sticks()[-1:].copy()
        return arrays

    def _fitted_metadata(self) -> dict:
        return {**super()._fitted_metadata(),
                "n_topics_history": [int(t) for t in self.n_topics_history_]}

    def _restore_state(self, arrays: dict[str, np.ndarray], metadata: dict) -> None:
        fitted = metadata.get("fitted", {})
        self.method_ = self.validated_method()
        self._fitted_settings = PartSettings.of({**self.part_settings().as_dict(),
                                                 **fitted.get("settings", {})})
        self._engine = self.build_engine(self.method_, self._fitted_settings, int(fitted["seed"]))
        self._engine.restore(arrays, int(fitted["step"]))
        self.n_topics_history_ = list(fitted.get("n_topics_history", []))
        self.vocabulary_ = arrays["vocabulary"]
        self._components_cache = None
