"""`GibbsLDA`: LDA by batch collapsed Gibbs sampling with the CGS_p estimators (Papanikolaou et
al. 2017), as a scikit-learn style estimator.

It accepts a `Corpus`, a D x V count matrix (scipy sparse, e.g. from ``CountVectorizer``, or
dense) or a list of token-id sequences. ``transform`` never changes the model: it infers the
topic proportions of new documents with the topics held fixed.
"""

from __future__ import annotations

import numpy as np

from .. import memory
from ..errors import InputError
from ..inference import cgs
from ..inference.mallet_state import read_mallet_state
from ..threads import runs_on_n_jobs
from ..validation import BOOLEAN, Integral, Interval, Options, validate_parameters
from .base import N_JOBS
from .batch import BATCH_PRIORS, SEED_WORDS, BatchTopicModel, prior_vector


class GibbsLDA(BatchTopicModel):
    """LDA by collapsed Gibbs sampling with the standard or the CGS_p estimators.

    Parameters
    ----------
    n_topics : K.
    doc_topic_prior : alpha, the document-topic prior, a number (symmetric) or K numbers.
    topic_word_prior : eta, the topic-word prior (symmetric), the paper's beta.
    optimize_alpha, optimize_eta : re-estimate the priors by Minka's fixed point every
        ``optimize_interval`` sweeps, after ``burn_in`` and before the first kept sample
        (alpha asymmetric, eta symmetric; as MALLET and tomotopy do).
    n_passes : training sweeps (passes over the corpus) per chain.
    burn_in, lag, n_samples : each chain keeps its last ``n_samples`` states ``lag`` sweeps
        apart, after ``burn_in`` (training; see `inference.cgs.sample_sweeps`), and
        ``transform`` runs ``burn_in`` sweeps then keeps ``n_samples`` states ``lag`` apart
        (the paper's section 5.3 uses burn-in 50, lag 5).
    n_chains : training runs this many independent chains and keeps the one with the highest
        log p(w, z) (topics of different chains are not aligned, so they are not averaged);
        ``transform`` averages over this many chains per document (valid: topics fixed).
    estimator : ``"p"``: phi^p (components_) and theta^p (eq. 41, 40, 33); ``"standard"``:
        equations 2-3.
    sampler : ``"sparse"`` (SparseLDA buckets, cost per token grows with the topics present in
        the document and the word, not with K) or ``"dense"`` (reference, O(K) per token).
    parallel_blocks : 0 (default): exact collapsed Gibbs sweeps, one token after the other (a
        sweep cannot use more than one thread). B >= 2: approximate sweeps that run on several
        threads, AD-LDA (Newman et al. 2009; `kernels.cgs_blocks`): the documents are cut into
        B blocks of about equal tokens, each block sweeps against a copy of the topic-word
        counts taken at the start of the sweep (it does not see the other blocks' moves of
        that sweep), and the copies are merged after every sweep. Not the exact chain: another
        model than B = 0 for the same seed, statistically equivalent in practice (planted
        topics and held-out likelihood as the exact sampler's; tests/test_cgs.py). A seed and
        B fix the model for any number of threads; use B a multiple of the threads. Memory: a
        V x K int32 copy per block.
    seed_words : None, or ``{"name": [words...], ...}``: seed sets that steer topics 0..S-1
        (the dict's order; the other topics stay free) through the per-topic-word prior
        eta_kv = eta + lambda [v in seeds of topic k] (`estimators.seed_words`). Words are
        strings matched against the vocabulary or integer word ids; unknown words are
        reported (a `SeedWordWarning` and ``unknown_seed_words_``). Sampled as lambda
        integer phantom counts in n_kv and n_k, which is exactly equation 1 with eta_kv:
        p(z_j = k | z_-j) ∝ (n_dk + alpha_k) (n_kv + eta_kv) / (n_k + sum_w eta_kw);
        phi (equations 2 and 41) is read with eta_kv in place of eta. Not with
        ``optimize_eta`` (Minka's update assumes a symmetric eta).
    seed_strength : lambda, the pseudo-counts each seed word adds to its topic (an integer).
    random_state : int, None or a numpy Generator; everything random flows from it.
    n_jobs : the threads of the compiled kernels (`streamtopics.threads`): None one thread, n
        threads, -1 every core; the samples are the same for any value.

    Fitted attributes: ``components_`` (K x V, rows sum to 1), ``topic_word_standard_`` (phi
    of equation 2 from the same samples, kept beside phi^p for word association, section 5.4;
    equal to ``components_`` with ``estimator="standard"``), ``doc_topic_prior_`` (K),
    ``topic_word_prior_`` (eta), ``vocabulary_``, ``topic_word_counts_`` (K x V int32, the
    kept chain's final sample), ``log_likelihood_`` (its log p(w, z), nats),
    ``chain_log_likelihoods_``, ``random_seed_``, ``n_iter_``; with seed words
    ``seeded_topics_`` (name -> topic) and ``unknown_seed_words_`` (name -> words ignored).
    ``topic_word_counts_`` and ``log_likelihood_`` count the tokens alone (no phantom counts;
    the joint uses eta_kv).
    """

    _parameter_constraints = {
        "n_jobs": N_JOBS,
        **BATCH_PRIORS,
        "optimize_alpha": [BOOLEAN], "optimize_eta": [BOOLEAN],
        "optimize_interval": [Interval(Integral, 1, None)],
        "n_passes": [Interval(Integral, 1, None)], "burn_in": [Interval(Integral, 0, None)],
        "lag": [Interval(Integral, 1, None)], "n_samples": [Interval(Integral, 1, None)],
        "n_chains": [Interval(Integral, 1, None)],
        "estimator": [Options(cgs.GIBBS_ESTIMATES)], "sampler": [Options(cgs.SAMPLERS)],
        "parallel_blocks": [Interval(Integral, 0, None)],
        **SEED_WORDS,
    }

    def __init__(self, n_topics: int = 10, doc_topic_prior=0.1, topic_word_prior: float = 0.01,
                 optimize_alpha: bool = False, optimize_eta: bool = False,
                 optimize_interval: int = 10, n_passes: int = 200, burn_in: int = 50,
                 lag: int = 5, n_samples: int = 10, n_chains: int = 1, estimator: str = "p",
                 sampler: str = "sparse", parallel_blocks: int = 0, seed_words=None,
                 seed_strength: int = 50, random_state=None, n_jobs=None):
        self.n_topics = n_topics
        self.doc_topic_prior = doc_topic_prior
        self.topic_word_prior = topic_word_prior
        self.optimize_alpha = optimize_alpha
        self.optimize_eta = optimize_eta
        self.optimize_interval = optimize_interval
        self.n_passes = n_passes
        self.burn_in = burn_in
        self.lag = lag
        self.n_samples = n_samples
        self.n_chains = n_chains
        self.estimator = estimator
        self.sampler = sampler
        self.parallel_blocks = parallel_blocks
        self.seed_words = seed_words
        self.seed_strength = seed_strength
        self.random_state = random_state
        self.n_jobs = n_jobs

    @runs_on_n_jobs
    def fit(self, X, y=None, *, callback=None, feature_names=None):
        """Sample; ``callback(model, report)`` is called after every sweep with a `PassReport`
        (the chain and the sweep). ``feature_names``: the V words of the columns (a
        DataFrame's columns name them too)."""
        self.fit_transform(X, callback=callback, feature_names=feature_names)
        return self

    @runs_on_n_jobs
    def fit_transform(self, X, y=None, *, callback=None, feature_names=None) -> np.ndarray:
        """Fit and return the training documents' topic proportions (D x K) from the kept
        chain's samples (theta^p or theta, aligned with ``components_``)."""
        observe = self._pass_observer(callback)
        corpus = self._training_corpus(X, feature_names)
        self._check_training(corpus, memory.collapsed_gibbs_training(
            self.n_topics, corpus.n_words, corpus.n_documents, corpus.n_tokens,
            soft=self.estimator == "p", chains_kept=min(self.n_chains, 2),
            blocks=self.parallel_blocks, operation=self._operation("fit", corpus)))
        alpha = prior_vector(self.doc_topic_prior, self.n_topics)
        prior_counts = self._seed_prior_counts(corpus)
        seed = self._fit_seed()
        tokens, offsets = corpus.document_tokens()
        every = self.optimize_interval
        schedule = cgs.ChainSchedule(self.n_passes, self.burn_in, self.lag, self.n_samples,
                                     every if self.optimize_alpha else 0,
                                     every if self.optimize_eta else 0)
        best, log_likelihoods = None, []
        for chain in range(self.n_chains):
            result = cgs.run_chain(
                tokens, offsets, self.n_topics, corpus.n_words, alpha, self.topic_word_prior,
                schedule, sampler=self.sampler, estimator=self.estimator, seed=seed, chain=chain,
                progress=None if observe is None else (lambda sweep, c=chain: observe(c, sweep)),
                parallel_blocks=self.parallel_blocks, prior_counts=prior_counts)
            log_likelihoods.append(result.log_likelihood)
            if best is None or result.log_likelihood > best.log_likelihood:
                best = result
        self.components_ = best.phi
        self.topic_word_standard_ = best.phi_standard
        self.doc_topic_prior_ = best.alpha
        self.topic_word_prior_ = best.eta
        self.vocabulary_ = corpus.vocabulary
        self.topic_word_counts_ = np.ascontiguousarray(best.state.observed_word_topic_counts().T)
        self.log_likelihood_ = best.log_likelihood
        self.chain_log_likelihoods_ = log_likelihoods
        self.random_seed_ = seed
        self.n_iter_ = self.n_passes
        return best.theta

    def _seed_prior_counts(self, corpus) -> np.ndarray | None:
        if self.seed_words is not None and self.optimize_eta:
            raise InputError("GibbsLDA: optimize_eta cannot be used with seed_words "
                             "(Minka's update assumes a symmetric eta)")
        return super()._seed_prior_counts(corpus)

    @runs_on_n_jobs
    def transform(self, X) -> np.ndarray:
        """Topic proportions (D x K) of new documents, topics fixed (equation 4): theta^p
        (equation 33) or theta (equation 3) averaged over ``n_samples`` samples of
        ``n_chains`` chains after ``burn_in`` sweeps. Deterministic for a fitted model."""
        prediction = self.predict_doc_topics(X)
        return prediction.theta_p if self.estimator == "p" else prediction.theta

    @runs_on_n_jobs
    def predict_doc_topics(self, X, per_sample: bool = False) -> cgs.Prediction:
        """Both estimators (theta and theta^p) of new documents from the same samples; see
        `inference.cgs.predict_doc_topics`."""
        validate_parameters(self)
        corpus = self._new_documents(X)
        tokens, offsets = corpus.document_tokens()
        memory.check_memory(memory.collapsed_gibbs_prediction(
            self.n_topics, corpus.n_words, corpus.n_documents, tokens.size,
            self.n_chains * self.n_samples if per_sample else 1,
            self._operation("transform", corpus)))
        return cgs.predict_doc_topics(
            self.components_, self.doc_topic_prior_, tokens, offsets, burn_in=self.burn_in,
            lag=self.lag, n_samples=self.n_samples, n_chains=self.n_chains,
            seed=self.random_seed_, per_sample=per_sample)

    @classmethod
    def from_mallet_state(cls, path, estimator: str = "p", **params) -> "GibbsLDA":
        """A fitted model from a MALLET ``--output-state`` file (section 5.7): the CGS_p (or
        standard) estimators of MALLET's sample, with its alpha, beta and vocabulary."""
        state = read_mallet_state(path)
        model = cls(n_topics=state.n_topics, doc_topic_prior=float(state.alpha.mean()),
                    topic_word_prior=state.eta, estimator=estimator, **params)
        gibbs = state.gibbs_state()
        model.components_, _ = gibbs.estimate(state.alpha, state.eta, estimator)
        model.topic_word_standard_ = cgs.topic_word_estimate(gibbs.word_topic_counts, state.eta)
        model.doc_topic_prior_ = state.alpha
        model.topic_word_prior_ = state.eta
        model.vocabulary_ = state.vocabulary
        model.topic_word_counts_ = np.ascontiguousarray(gibbs.word_topic_counts.T)
        model.log_likelihood_ = gibbs.log_joint(state.alpha, state.eta)
        model.chain_log_likelihoods_ = [model.log_likelihood_]
        model.random_seed_ = model._fit_seed()
        model.seeded_topics_, model.unknown_seed_words_ = {}, {}
        model.n_iter_ = 0
        return model

    # --- model files -----------------------------------------------------------------------------
    def _state_arrays(self) -> dict[str, np.ndarray]:
        return {"topic_word_counts": self.topic_word_counts_,
                "topic_word_standard": self.topic_word_standard_}

    def _fitted_metadata(self) -> dict:
        metadata = {"topic_word_prior": float(self.topic_word_prior_),
                    "log_likelihood": float(self.log_likelihood_),
                    "chain_log_likelihoods": [float(x) for x in self.chain_log_likelihoods_],
                    "random_seed": int(self.random_seed_), "n_iter": int(self.n_iter_)}
        return {**metadata, **self._seed_metadata()}

    def _restore_state(self, arrays: dict[str, np.ndarray], metadata: dict) -> None:
        super()._restore_state(arrays, metadata)
        fitted = metadata.get("fitted", {})
        self.topic_word_counts_ = arrays["topic_word_counts"]
        self.topic_word_prior_ = fitted["topic_word_prior"]
        # files written before phi was kept beside phi^p: equation 2 on the final sample
        self.topic_word_standard_ = arrays.get("topic_word_standard")
        if self.topic_word_standard_ is None:
            self.topic_word_standard_ = cgs.topic_word_estimate(self.topic_word_counts_.T,
                                                                self.topic_word_prior_)
        if self.topic_word_standard_.shape != self.components_.shape:
            raise ValueError("topic_word_standard is not K x V")
        self.log_likelihood_ = fitted["log_likelihood"]
        self.chain_log_likelihoods_ = fitted["chain_log_likelihoods"]
        self.random_seed_ = fitted["random_seed"]
        self.n_iter_ = fitted["n_iter"]
        self._restore_seeds(fitted)
