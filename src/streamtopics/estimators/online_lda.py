"""`OnlineLDA`: the scikit-learn style facade of the online EM engine (G-OEM and its relatives).

    model = OnlineLDA(n_topics=100, method="g-oem", random_state=0).fit(corpus)
    model.components_          # K x V topics (beta), rows sum to 1
    model.doc_topic_prior_     # alpha
    model.transform(documents) # D x K document-topic proportions, the model unchanged

``method`` is a preset name of `streamtopics.inference.presets` ("g-oem", "g-oem++", "v-oem",
"v-oem++", and the baselines "olda", "svb", "splda", "sgs", "vargibbs", "batch-vb") or a `Method`
combining the four axes. Every method starts from the same (beta_0, alpha_0) for the same
``random_state`` (Dupuy & Bach 2016, section 5.1); Bayesian methods from lambda_0 with
E_q[beta_0] = beta_0, and report E_q[beta] as ``components_``.

Over 450 lines because it is one facade with three doors (`fit` with restarts and automatic
passes, `partial_fit`, `partial_fit_text`) whose twenty parameters are documented in the class
docstring (about 80 lines); the word side of a growing vocabulary lives in `corpus.growth`.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import scipy.sparse as sp

from ..corpus.corpus import Corpus, ReadReport, as_counts
from ..corpus.growth import (DEFAULT_MIN_COUNT, Growth, PendingWords, checked_new_words,
                             content_tokens, grown_counts, initial_index, token_counts)
from ..corpus.pipeline import TextPipeline
from ..corpus.streaming import DEFAULT_BATCH_SIZE
from .. import memory
from ..engine import OnlineEM, initial_parameters
from ..errors import InputError
from ..inference.gibbs_estep import LOCAL_SAMPLERS
from ..inference.backends import BACKENDS, BackendObject, resolve_backend
from ..inference.minibatch import Minibatch
from ..inference.parts import independent_documents
from ..inference.seeded_topics import with_seed_words
from ..kernels.random import content_key
from ..inference.presets import (DEFAULT_LOCAL_PASSES, DEFAULT_STEP_DECAY, DEFAULT_STEP_OFFSET,
                                 PRESETS, Method, PartSettings, build_parts,
                                 default_topic_word_prior, resolve_method, step_size_of)
from ..threads import runs_on_n_jobs
from ..validation import (BOOLEAN, InstanceOf, Integral, Interval, Options, PositiveVector, Real,
                          validate_parameters, warn_topic_count)
from . import auto_passes
from .base import N_JOBS, RANDOM_STATE, NotFittedError, TopicModelEstimator
from .seed_words import resolve_seed_words, seed_words_from_json, seed_words_json


def _counts_and_vocabulary(documents) -> tuple[sp.csr_matrix, np.ndarray | None]:
    """(D x V int64 CSR counts, vocabulary or None) from a `Corpus`, a sparse or dense matrix."""
    if isinstance(documents, Corpus):
        return documents.counts, documents.vocabulary
    if sp.issparse(documents) or isinstance(documents, np.ndarray):
        if documents.ndim != 2:
            raise InputError(f"documents must be a D x V count matrix, got {documents.ndim} dimension(s)")
        return as_counts(documents), None  # no placeholder vocabulary of V strings
    raise InputError(f"documents must be a Corpus, a scipy sparse matrix or a 2-D array of counts, "
                     f"not {type(documents).__name__}")


def _placeholders(words: np.ndarray) -> bool:
    """Whether ``words`` are the placeholder names "w0", "w1", ... of columns without words."""
    return bool(words.size) and words[0] == "w0" and np.array_equal(
        words, np.char.add("w", np.arange(words.size).astype(str)))


MAPPED_BY_NAME = "partial_fit"
"""The ``source`` of ``text_report_`` when `OnlineLDA.partial_fit` mapped documents over another
vocabulary by word (raw text's is "partial_fit_text")."""


TRANSFORM_CELLS = 2 ** 23
"""Entries x topics of one minibatch of `OnlineLDA.transform` (its recorded conditionals: 64 MB
of float64), so its memory is bounded whatever the number of documents."""


def transform_chunks(indptr: np.ndarray, cells: int) -> list[tuple[int, int]]:
    """Consecutive (start, stop) rows of a CSR matrix with row pointers ``indptr``, each of at
    most ``cells`` entries (at least one row; ``cells`` = 0: one row each)."""
    chunks, start, n_rows = [], 0, indptr.size - 1
    while start < n_rows:
        stop = int(np.searchsorted(indptr, indptr[start] + cells, side="right")) - 1
        stop = min(max(stop, start + 1), n_rows)
        chunks.append((start, stop))
        start = stop
    return chunks


def content_streams(counts: sp.csr_matrix) -> np.ndarray:
    """The random-stream key of each row of a count matrix (`kernels.random.content_key` of its
    word ids, increasing, and their counts), int64."""
    if not counts.has_sorted_indices:
        counts = counts.sorted_indices()
    ptr = counts.indptr
    return np.array([content_key(counts.indices[ptr[row]:ptr[row + 1]],
                                 counts.data[ptr[row]:ptr[row + 1]])
                     for row in range(counts.shape[0])], dtype=np.int64)


# Documents per E-step chunk of a full-batch step (batch-vb): bounds its memory; the chunks'
# statistics are merged exactly (`OnlineEM.batch_step`), so only the order of float sums
# depends on it. Not a model parameter: ``batch_size`` is the minibatch size of online methods.
FULL_BATCH_CHUNK = 100


def _restart_states(random_state, n_init: int):
    """The random states of `fit`'s ``n_init`` runs: ``random_state`` itself first (so n_init = 1
    is the plain fit), then generators from seeds spawned from it (drawn from it when it is a
    Generator), so every run is reproducible from the one user-visible seed."""
    yield random_state
    if n_init == 1:
        return
    if isinstance(random_state, np.random.Generator):
        yield from random_state.spawn(n_init - 1)
    else:
        yield from (np.random.default_rng(seed)
                    for seed in np.random.SeedSequence(random_state).spawn(n_init - 1))


def _check_mask(topic_mask, n_documents: int, model: "OnlineLDA") -> None:
    """A topic mask needs a Gibbs local step, minibatches (not a full-batch method) and one row
    per document."""
    if topic_mask is None:
        return
    method = model.validated_method()
    if not method.local.startswith("gibbs") or method.full_batch:
        raise ValueError(f"a topic mask needs a Gibbs local step and minibatches, not the "
                         f"method {method.name!r}")
    if topic_mask.n_documents != n_documents or topic_mask.n_topics != model.n_topics:
        raise ValueError(f"the topic mask is {topic_mask.n_documents} documents x "
                         f"{topic_mask.n_topics} topics, the data {n_documents} documents x "
                         f"{model.n_topics} topics")


class OnlineLDA(TopicModelEstimator):
    """LDA trained online by Algorithm 1 of Dupuy & Bach (2016) with a pluggable local estimator.

    Parameters
    ----------
    n_topics : K >= 1.
    method : preset name ("g-oem", "g-oem++", "v-oem", "v-oem++", "olda", "svb", "splda", "sgs",
        "vargibbs", "batch-vb"; see docs/methods.md) or a `Method`.
    batch_size : documents per minibatch in `fit` and `streamtopics.training.train_stream`
        (the paper: 100); the one owner of the minibatch size. `partial_fit` takes the documents
        it is given as one minibatch. Full-batch methods (batch-vb) have no minibatch: each step
        is the whole corpus, its E-step run in chunks of `FULL_BATCH_CHUNK` documents.
    local_passes : P, local Gibbs or variational passes per document (the paper: 20).
    step_offset, step_decay : rho_i = (step_offset + i)^-step_decay for polynomial step sizes;
        step_decay (kappa) in (0, 1] (the paper: 0 and 0.5).
    step_floor : the least step size, in [0, 1): rho_i = max(schedule's rho_i, step_floor).
        0 (the default) is the schedule itself, which converges (the paper's conditions,
        sum rho_i = inf, sum rho_i^2 < inf). A floor f > 0 forgets instead: a minibatch n steps
        old weighs about (1 - f)^n, so the topics follow a stream whose topics drift, with a
        memory of about 1/f minibatches (docs/streaming.md, "Drift"). It may change between
        `partial_fit` calls and applies from the next step on (`streamtopics update
        --step-floor`).
    averaging : report the Polyak-Ruppert average of the iterates (appendix B.2).
    n_passes : passes over the corpus in `fit` (for full-batch methods: batch iterations), or
        "auto" (the default): `fit` holds out every 20th document (at most 500) and runs passes
        until one improves their held-out likelihood (document completion) by less than 0.1%,
        at most 20, keeping the best pass (`streamtopics.estimators.auto_passes`: one pass of a
        few thousand documents is far from converged). The paper's single pass: ``n_passes=1``.
    doc_topic_prior : initial alpha (scalar or K values); default 1/K.
    n_init : restarts of `fit` from different initial topics beta_0 (1, the default: one run).
        EM finds a local optimum: on planted data a run at the true K sometimes merges two
        topics and splits another, and ends a few nats per document behind. With n_init > 1,
        `fit` trains n_init times (the first from ``random_state`` itself, so it is the n_init=1
        model; the others from seeds derived from it) and keeps the run whose selection documents
        score best by document completion: the validation documents of ``n_passes="auto"``, else
        every `auto_passes.EVERY`-th training document (in-sample, as k-means' n_init keeps the
        lowest inertia). ``init_scores_`` holds each run's log-perplexity per document.
    random_state : None, an int or a `numpy.random.Generator`; fixes beta_0 and every random
        stream of the local estimators, so results are identical for any number of threads.
    backend : where each minibatch's E-step runs: "serial" (here, the default), "threads", "dask"
        (the current `distributed` client, else a LocalCluster started once), a
        `distributed.Client` (a user's cluster), or a backend of
        `streamtopics.inference.backends`. The minibatch is cut into chunks of documents merged
        along a tree the minibatch alone fixes, so every backend and worker count trains the
        same model, bit for bit (docs/distributed.md); only minibatches of more than
        `BLOCK_DOCUMENTS` (100) documents split. Boosted methods (++) need "serial". Not saved
        in model files.
    n_jobs : the threads of the compiled kernels in every method (`streamtopics.threads`):
        None one thread, n threads, -1 every core. The model is the same for any value. Not
        saved in model files.
    corpus_size : D, the number of documents of the whole corpus, for Bayesian topics
        (lambda = eta + D s1: olda, svb, vargibbs, batch-vb). `fit` uses the number of documents
        it is given when None; `partial_fit` cannot know it and raises ValueError when a Bayesian
        method starts without it.
    topic_word_prior : eta, the symmetric Dirichlet prior on the topics. Bayesian methods:
        eta > 0, default 1/K (as gensim and scikit-learn). Frequentist methods (g-oem, g-oem++,
        v-oem, v-oem++, splda, sgs): the M-step is the posterior mean given the expected counts
        of the N documents seen, beta_kv = (eta + N s1_kv) / (V eta + N sum_j s1_kj), so every
        word has a positive probability in every topic and unseen held-out words do not score
        -inf; default 0.03 (sgs: 1/K), chosen by held-out likelihood (docs/methods.md); 0 is
        the paper's exact maximum likelihood M-step (appendix A.1).
    update_topic_word_prior : Bayesian methods: update eta after every step by a damped Newton
        step (Hoffman et al. 2010, eq. 9).
    grow_vocabulary : `partial_fit_text` (raw text, streaming) and `partial_fit` of a `Corpus`
        over another vocabulary: words first seen after training started join the vocabulary,
        once seen ``min_word_count`` times, instead of being dropped. Off by default. A new
        word gets zero sufficient statistics s1 in every topic and no step is taken for it, so
        the topics restricted to the old words are unchanged: exactly (bit for bit) for the
        maximum likelihood point estimate (``topic_word_prior=0``: the new word has beta 0);
        for topics with a prior eta (the default: frequentist posterior means, Bayesian
        lambda = eta + D s1) the new word gets the prior mass eta, so every old word of topic k
        is scaled by the same factor and the topic *renormalised over the old words* is
        unchanged; with ``averaging`` the past iterates give the new word their prior mass and
        the average is renormalised likewise. See docs/streaming.md.
    min_word_count : with ``grow_vocabulary``, the occurrences a new word needs before it
        joins (default `DEFAULT_MIN_COUNT`, 5, as `streamtopics preprocess`): until then its
        occurrences are counted (kept in model files, so an update goes on counting) and its
        tokens dropped, counted in ``text_report_.tokens_dropped`` under `RARE_NEW_WORD`.
    max_vocabulary : None (no cap) or the most words the vocabulary may hold. The pruning rule:
        nothing already in the vocabulary is ever evicted (that would change the old topics);
        when more new words are ready to join than there is room for, they are admitted by
        decreasing count, ties by first appearance, and the others are dropped and counted
        in ``text_report_.tokens_dropped`` under `VOCABULARY_FULL`. The same rule picks the
        first vocabulary when `partial_fit_text` starts the model (`corpus.growth`).
    local_sampler : the kernel of the local Gibbs step (Gibbs methods): "sparse" (O(topics in
        the document) per token), "dense" (O(K), the reference), "auto" (the default: sparse,
        the faster one at every K measured, docs/methods.md) or "mh"
        (opt-in: 2 Metropolis-Hastings cycles per token and pass with LightLDA's word and
        document proposals, O(1) each; same stationary distribution and recorded
        conditionals, slower mixing, see docs/methods.md). Their chains, hence the models,
        differ for the same seed.
    seed_words : None, or ``{"name": [words...], ...}``: seed sets that steer topics 0..S-1
        (the dict's order; the other topics stay free) through the per-topic-word prior
        eta_kv = eta + lambda [v in seeds of topic k]: the point-estimate methods' M-step is
        then beta_kv = (eta_kv + N s1_kv) / (sum_w eta_kw + N sum_w s1_kw), the Bayesian
        methods' lambda_kv = eta_kv + D s1_kv (`inference.seeded_topics`; every preset but
        lds). Words are strings of the vocabulary or integer word ids; unknown ones are
        reported (a `SeedWordWarning`, ``unknown_seed_words_``), a set without a known word is
        an error (`estimators.seed_words`). Not with ``averaging``, ``grow_vocabulary`` or
        ``update_topic_word_prior``.
    seed_strength : lambda, the pseudo-counts each seed word adds to its topic's prior.

    Fitted attributes: ``components_`` (K x V; E_q[beta] for Bayesian methods),
    ``doc_topic_prior_`` (K), ``lambda_`` (Bayesian methods: lambda, K x V; None otherwise),
    ``topic_word_prior_`` (eta), ``seeded_topics_`` (name -> topic) and
    ``unknown_seed_words_`` (name -> words ignored) with seed words,
    ``vocabulary_`` (V), ``method_`` (the resolved `Method`), ``n_steps_``,
    ``n_documents_seen_``; after `fit`: ``n_passes_`` (passes run) and ``validation_scores_``
    (with "auto": the validation log-perplexity per document after each pass, else None);
    after `partial_fit_text`, or `partial_fit` of documents over another vocabulary:
    ``text_report_`` (a `ReadReport` of every such minibatch so far: tokens kept, tokens dropped
    by reason).
    """

    def __init__(self, n_topics: int = 10, method="g-oem", batch_size: int = DEFAULT_BATCH_SIZE,
                 local_passes: int = DEFAULT_LOCAL_PASSES, step_offset: float = DEFAULT_STEP_OFFSET,
                 step_decay: float = DEFAULT_STEP_DECAY, step_floor: float = 0.0,
                 averaging: bool = False,
                 n_passes="auto", doc_topic_prior=None, random_state=None, corpus_size=None,
                 topic_word_prior=None,
                 update_topic_word_prior: bool = False, grow_vocabulary: bool = False,
                 min_word_count: int = DEFAULT_MIN_COUNT,
                 max_vocabulary=None, n_init: int = 1, local_sampler: str = "auto",
                 seed_words=None, seed_strength: int = 50, backend="serial", n_jobs=None):
        self.n_topics = n_topics
        self.method = method
        self.batch_size = batch_size
        self.local_passes = local_passes
        self.step_offset = step_offset
        self.step_decay = step_decay
        self.step_floor = step_floor
        self.averaging = averaging
        self.n_passes = n_passes
        self.doc_topic_prior = doc_topic_prior
        self.random_state = random_state
        self.corpus_size = corpus_size
        self.topic_word_prior = topic_word_prior
        self.update_topic_word_prior = update_topic_word_prior
        self.grow_vocabulary = grow_vocabulary
        self.min_word_count = min_word_count
        self.max_vocabulary = max_vocabulary
        self.n_init = n_init
        self.local_sampler = local_sampler
        self.seed_words = seed_words
        self.seed_strength = seed_strength
        self.backend = backend
        self.n_jobs = n_jobs

    # --- parameters ----------------------------------------------------------------------------
    # Checked once, when training starts (`validation.validate_parameters`). The step size's
    # range (kappa in (0, 1], tau0 >= 0) is checked by `PolynomialDecay`, the one part that
    # reads them, and eta > 0 of Bayesian topics by `VariationalDirichlet`.
    _parameter_constraints = {
        "n_jobs": N_JOBS,
        "n_topics": [Interval(Integral, 1, None)],
        "method": [Options(tuple(PRESETS), ignore_case=True), InstanceOf(Method, "a Method")],
        "batch_size": [Interval(Integral, 1, None)],
        "local_passes": [Interval(Integral, 1, None)],
        "step_offset": [Interval(Real, None, None)],
        "step_decay": [Interval(Real, None, None)],
        "step_floor": [Interval(Real, 0, 1, "left")],
        "averaging": [BOOLEAN],
        "n_passes": [Interval(Integral, 1, None), Options((auto_passes.AUTO,))],
        "doc_topic_prior": [None, Interval(Real, 0, None, "neither"), PositiveVector("n_topics")],
        "random_state": RANDOM_STATE,
        "corpus_size": [None, Interval(Integral, 1, None)],
        "topic_word_prior": [None, Interval(Real, 0, None)],
        "update_topic_word_prior": [BOOLEAN],
        "grow_vocabulary": [BOOLEAN],
        "min_word_count": [Interval(Integral, 1, None)],
        "max_vocabulary": [None, Interval(Integral, 1, None)],
        "n_init": [Interval(Integral, 1, None)],
        "local_sampler": [Options(LOCAL_SAMPLERS)],
        "seed_words": [None, InstanceOf(dict, "a dict of name -> list of words")],
        "seed_strength": [Interval(Integral, 1, None)],
        "backend": [Options(BACKENDS), BackendObject()],
    }
    _execution_parameters = ("backend", "n_jobs")
    # The models built on this loop without seed words (`OnlineHDP`, `LabeledOnlineLDA`) keep
    # these; `OnlineLDA` sets its own in __init__.
    seed_words = None
    _seed_prior = None
    _parameter_symbols = {**TopicModelEstimator._parameter_symbols, "step_offset": "tau0",
                          "step_decay": "kappa", "step_floor": "the least rho_i",
                          "corpus_size": "D, the documents of the corpus"}

    # --- the extension protocol --------------------------------------------------------------
    # A model trained by this loop with parts of its own (`OnlineHDP`: a local step that opens
    # topics, sticks) overrides these five hooks, and inherits the rest: passes and automatic
    # passes, minibatches, raw text and the growing vocabulary, backends, `transform`, model
    # files and the checkpoints of `training.train_stream`.
    def validated_method(self) -> Method:
        """Check the parameters (`validation`) and resolve ``method``: the `Method` whose parts
        `build_engine` assembles."""
        validate_parameters(self)
        return resolve_method(self.method)

    def part_settings(self, corpus_size=None) -> PartSettings:
        """The hyperparameters the parts are built from; ``corpus_size`` fills D when the
        parameter is None (fit passes the number of documents it trains on), the method's
        default eta fills ``topic_word_prior`` when it is None."""
        size = self.corpus_size if self.corpus_size is not None else corpus_size
        eta = (self.topic_word_prior if self.topic_word_prior is not None
               else default_topic_word_prior(self.method, self.n_topics))
        return PartSettings(local_passes=self.local_passes, step_offset=float(self.step_offset),
                            step_decay=float(self.step_decay), step_floor=float(self.step_floor),
                            corpus_size=None if size is None else int(size),
                            topic_word_prior=float(eta),
                            update_topic_word_prior=bool(self.update_topic_word_prior),
                            local_sampler=self.local_sampler)

    def initial_state(self, n_words: int, rng: np.random.Generator):
        """(beta_0, alpha_0) (`engine.initial_parameters`), then the seed of the local random
        streams, drawn from ``rng`` in this order."""
        beta, alpha = initial_parameters(self.n_topics, n_words, rng, self.doc_topic_prior)
        return beta, alpha, int(rng.integers(0, 2**63 - 1))

    def build_engine(self, method: Method, settings: PartSettings, seed: int) -> OnlineEM:
        """Algorithm 1 with the method's parts (`presets.build_parts`), for a new model or one
        read from a file."""
        parts = build_parts(method, settings)
        parameters = parts.parameters
        if self._seed_prior is not None:
            try:
                parameters = with_seed_words(parameters, self._seed_prior)
            except ValueError as error:
                raise InputError(f"seed_words with method {method.name!r}: {error}") from None
        return OnlineEM(parts.local, parameters, parts.step_size, parts.alpha_update,
                        boosted=parts.boosted, averaging=bool(self.averaging), seed=seed)

    def transform_estimator(self):
        """The local estimator `transform` runs with the model fixed (None: the training one;
        an HDP's opens no topic)."""
        return None

    # --- training ------------------------------------------------------------------------------
    def _use_backend(self) -> None:
        """Give the engine the E-step backend of ``backend`` (made once per value: a thread pool
        or a Dask client is reused across `partial_fit` calls); "serial" for a subclass without
        the parameter."""
        backend = getattr(self, "backend", "serial")
        cached = getattr(self, "_backend_cache", None)
        if cached is None or cached[0] is not backend:
            if backend != "serial" and self._engine.boosted:
                raise ValueError(f"a boosted (++) method updates the topics between the local "
                                 f"passes of a minibatch, so its E-step cannot be mapped over "
                                 f"workers: use backend='serial', not {backend!r}")
            cached = self._backend_cache = (backend, resolve_backend(backend))
        self._engine.estep_map = cached[1]

    def _first_step_rows(self, method: Method) -> int:
        """Documents of the first minibatch `fit` takes (of the first chunk, full batch)."""
        return FULL_BATCH_CHUNK if method.full_batch else self.batch_size

    def _start(self, counts: sp.csr_matrix, vocabulary, first_batch_rows: int | None = None,
               corpus_size: int | None = None, random_state=None) -> None:
        """Validate parameters and initialise (beta_0, alpha_0) and the engine; s_0 gets the mean
        length of the first ``first_batch_rows`` documents (default: those of `fit`'s first
        minibatch, `_first_step_rows`); ``corpus_size`` is D when the parameter is None (`fit`:
        the corpus' documents); ``random_state`` replaces the parameter's (a restart of
        ``n_init``)."""
        method = self.validated_method()
        n_docs, n_words = counts.shape
        if n_docs == 0:
            raise InputError("the corpus is empty (no documents)")
        if n_words == 0:
            raise InputError("the corpus has an empty vocabulary")
        if counts.nnz == 0:
            raise InputError("the corpus has no tokens (every document is empty)")
        rows = self._first_step_rows(method) if first_batch_rows is None else first_batch_rows
        self._check_resources(counts, method, rows, corpus_size)
        self._fitted_settings = self.part_settings(corpus_size)
        self._seed_prior = self._seed_prior_counts(vocabulary, n_words)
        rng = np.random.default_rng(self.random_state if random_state is None else random_state)
        beta, alpha, seed = self.initial_state(n_words, rng)
        self._engine = self.build_engine(method, self._fitted_settings, seed)
        lengths = np.asarray(counts[:rows].sum(axis=1)).ravel()
        self._engine.initialize(beta, alpha, document_length=max(float(lengths.mean()), 1.0))
        self.method_ = method
        self.vocabulary_ = (np.asarray(vocabulary, dtype=str) if vocabulary is not None
                            else np.asarray([f"w{i}" for i in range(n_words)], dtype=str))
        self._pending_words = PendingWords()
        self._components_cache = None

    def _seed_prior_counts(self, vocabulary, n_words: int, report: bool = True):
        """lambda s (V x K) of ``seed_words`` (`estimators.seed_words`), ``seeded_topics_``
        and ``unknown_seed_words_`` set; None without seed words."""
        self.seeded_topics_, self.unknown_seed_words_ = {}, {}
        if self.seed_words is None:
            return None
        for option in ("averaging", "grow_vocabulary"):
            if getattr(self, option):
                raise InputError(f"{type(self).__name__}: seed_words cannot be used with "
                                 f"{option}")
        seeds = resolve_seed_words(self.seed_words, vocabulary, n_words, self.n_topics,
                                   type(self).__name__, report)
        self.seeded_topics_, self.unknown_seed_words_ = seeds.topics, seeds.unknown
        return seeds.prior_counts(n_words, self.n_topics, self.seed_strength).astype(np.float64)

    def _check_resources(self, counts: sp.csr_matrix, method: Method, rows: int,
                         n_documents: int | None) -> None:
        """Before training allocates anything: warn of a K out of proportion with the data
        (`validation.warn_topic_count`; ``n_documents``: D of a fit, None for `partial_fit`),
        refuse what would not fit in memory (`memory.check_memory`) with minibatches of
        ``rows`` documents."""
        warn_topic_count(self.n_topics, counts.shape[1], n_documents, type(self).__name__)
        memory.check_memory(self._training_memory(counts, method, rows, self.n_topics))

    def _training_memory(self, counts: sp.csr_matrix, method: Method, rows: int, n_topics: int,
                        growing: bool = False) -> memory.MemoryEstimate:
        """The peak bytes of training on ``counts`` in minibatches of ``rows`` documents with
        ``n_topics`` topics (`memory.online_training`; ``growing``: topics open up to it)."""
        return memory.online_training(
            n_topics, counts.shape[1], memory.Minibatches.largest(counts, rows), method,
            averaging=bool(self.averaging), restarts=self.n_init, growing=growing,
            operation=f"{type(self).__name__} ({method.name}) with {n_topics:,} topics and "
                      f"{counts.shape[1]:,} words")

    @runs_on_n_jobs
    def fit(self, X, y=None, *, callback=None, topic_mask=None,
            feature_names=None, resume: auto_passes.FitProgress | None = None) -> "OnlineLDA":
        """Train from scratch on ``X`` (a `Corpus`, sparse or dense D x V counts): ``n_passes``
        passes of consecutive minibatches of ``batch_size`` documents, in corpus order (for a
        full-batch method, ``n_passes`` steps each over the whole corpus, in chunks of
        `FULL_BATCH_CHUNK`). Bayesian methods take
        D = ``corpus_size``, or the number of documents of ``X`` when it is None.
        ``callback(model, report)`` is called after every step with a `StepReport`.
        ``topic_mask``: the topics each document may use (a `TopicMask` of D rows; Labeled LDA
        trained online, `LabeledOnlineLDA`); needs a Gibbs local step, an integer ``n_passes``
        and a method that is not full-batch. ``feature_names``: the V words of the columns (a
        DataFrame's columns name them too). ``resume``: continue the fit on the same ``X`` from
        a model whose state a checkpoint of this fit restored, at that `FitProgress` (during a
        fit, ``fit_progress_``: what `streamtopics.training.fit_with_checkpoints` stores);
        the result is the uninterrupted fit's, bit for bit."""
        counts, vocabulary = _counts_and_vocabulary(
            self._check_documents(X, reset=True, feature_names=feature_names))
        _check_mask(topic_mask, counts.shape[0], self)
        if topic_mask is not None and self.n_passes == auto_passes.AUTO:
            raise ValueError("a topic mask needs an integer n_passes, not 'auto'")
        self.validated_method()
        automatic = self.n_passes == auto_passes.AUTO
        if resume is not None and (self.n_init > 1 or not self.is_fitted()
                                   or (resume.schedule is not None) != automatic):
            raise ValueError("resume continues one fit (n_init=1) of the same n_passes from "
                             "the state of its checkpoint")
        validation = None
        if automatic:
            split = auto_passes.validation_split(counts.shape[0])
            validation, counts = counts[split.validation_rows], counts[split.train_rows]
            validation = auto_passes.validation_evaluator(counts, validation)
        selection = validation
        if self.n_init > 1 and selection is None:
            selection = auto_passes.validation_evaluator(
                counts, counts[auto_passes.selection_rows(counts.shape[0])])
        best, self.init_scores_ = None, None if self.n_init == 1 else []
        for state in _restart_states(self.random_state, self.n_init):
            self._fit_run(counts, vocabulary, validation, callback, topic_mask, state, resume)
            if self.n_init == 1:
                return self
            score = (np.inf if selection is None else selection.score(
                self._engine.components(), self._engine.doc_topic_prior()
            ).log_perplexity_per_document)
            self.init_scores_.append(float(score))
            if best is None or score < best[0]:
                best = (score, self._engine, self.n_passes_, self.validation_scores_)
        _, self._engine, self.n_passes_, self.validation_scores_ = best
        self._components_cache = None
        return self

    def _fit_run(self, counts: sp.csr_matrix, vocabulary, validation, callback, topic_mask,
                 random_state, resume: auto_passes.FitProgress | None = None) -> None:
        """One run of `fit` from the initial topics of ``random_state``: ``n_passes`` passes, or
        with ``validation`` (an evaluator) passes until they stop paying (`auto_passes`); with
        ``resume``, from the state restored into the model at that `FitProgress` instead.
        ``fit_progress_`` says where the run stands to the callback."""
        if resume is None:
            self._start(counts, vocabulary, corpus_size=counts.shape[0],
                        random_state=random_state)
            resume = auto_passes.FitProgress(schedule=auto_passes.PassSchedule(validation)
                                             if self.n_passes == auto_passes.AUTO else None)
        elif resume.schedule is not None:
            resume.schedule.evaluator = validation
        progress = self.fit_progress_ = resume
        schedule = progress.schedule

        def after_step(engine, report):
            self._components_cache = None
            progress.documents += report.n_documents
            if callback is not None:
                callback(self, report)

        self._use_backend()
        n_documents = counts.shape[0]
        while schedule is not None or progress.passes < self.n_passes:
            if self.method_.full_batch:
                if progress.documents < n_documents:
                    after_step(self._engine, self._engine.batch_step(self._chunks(counts)))
            else:
                self._engine.fit((Minibatch.from_rows(
                    counts, start, min(start + self.batch_size, n_documents),
                    topic_mask=None if topic_mask is None
                    else topic_mask.rows(start, min(start + self.batch_size, n_documents)))
                    for start in range(progress.documents, n_documents, self.batch_size)),
                    callbacks=[after_step])
            progress.passes, progress.documents = progress.passes + 1, 0
            if schedule is not None and not schedule.another_pass(self._engine):
                self._components_cache = None
                break
        self.n_passes_ = progress.passes
        self.validation_scores_ = None if schedule is None else schedule.scores
        self.fit_progress_ = None  # the best pass's copy is no longer needed

    def _chunks(self, counts: sp.csr_matrix, size: int = FULL_BATCH_CHUNK):
        """``counts`` as consecutive chunks of ``size`` documents for one batch step, each
        knowing its first document's index (so their random streams are those of the whole)."""
        return (Minibatch.from_counts(counts[start:start + size], first_document=start)
                for start in range(0, counts.shape[0], size))

    @runs_on_n_jobs
    def partial_fit(self, X, y=None, topic_mask=None) -> "OnlineLDA":
        """One online EM step with the documents of ``X`` as the minibatch. The first call
        initialises the model (vocabulary size V from ``X``); later calls must have the same V.
        ``fit(corpus)`` equals ``partial_fit`` on its consecutive ``batch_size`` slices.
        Bayesian methods need ``corpus_size`` (D) set beforehand. For a full-batch method
        ``X`` is the whole corpus and one call is one batch iteration. ``topic_mask``: as in
        `fit`."""
        counts, vocabulary = _counts_and_vocabulary(
            self._check_documents(X, reset=not self.is_fitted()))
        _check_mask(topic_mask, counts.shape[0], self)
        if self.is_fitted() and vocabulary is not None and not self._columns_are_words(vocabulary):
            return self._partial_fit_words(counts, vocabulary, self._words_report(MAPPED_BY_NAME),
                                           topic_mask)
        return self._step(counts, vocabulary, topic_mask)

    def _step(self, counts: sp.csr_matrix, vocabulary, topic_mask) -> "OnlineLDA":
        """`partial_fit`'s step on ``counts`` over the model's words (the first starts it)."""
        if not self.is_fitted():
            self._start(counts, vocabulary, counts.shape[0])
        elif counts.shape[1] != self._engine.n_words:
            raise ValueError(f"the minibatch has a vocabulary of {counts.shape[1]} words but the "
                             f"model has {self._engine.n_words}")
        if counts.shape[0] == 0:
            raise InputError("the minibatch has no documents")
        if float(self.step_floor) != self._fitted_settings.step_floor:
            validate_parameters(self)
            self._fitted_settings = replace(self._fitted_settings,
                                            step_floor=float(self.step_floor))
            self._engine.step_size = step_size_of(self.method_.step_size,
                                                  self._fitted_settings)
        self._use_backend()
        if self.method_.full_batch:
            self._engine.batch_step(self._chunks(counts))
        else:
            self._engine.partial_fit(Minibatch.from_counts(counts, topic_mask=topic_mask))
        self._components_cache = None
        return self

    # --- raw text, growing vocabulary ------------------------------------------------------------
    @runs_on_n_jobs
    def partial_fit_text(self, documents, stopwords=None, vocabulary=None,
                         tokenizer=None) -> "OnlineLDA":
        """One online EM step on raw text: ``documents`` (strings or `RawDocument`s) are
        tokenised by the model's ``text_pipeline_`` (`corpus.pipeline.TextPipeline`: that of
        the corpus it was fitted on, or of its first call here; the built-in tokeniser and the
        bundled stop words when it has none), stop words and the words its corpus' preprocessing
        removed as too frequent dropped, and mapped onto ``vocabulary_``. ``tokenizer``
        (``"module:function"`` or a function) and ``stopwords`` (a set, a file path) replace the
        pipeline's for this call, and on the first call become the model's.

        The first call starts the model with the words of ``documents`` as its vocabulary
        (capped by ``max_vocabulary``, see the pruning rule there). Later, unknown words are
        dropped and counted ("not in the vocabulary", as `map_to_vocabulary`), unless
        ``grow_vocabulary`` is set: then they join the vocabulary before the step
        (`OnlineEM.add_words`; the old topics stay as they were) up to ``max_vocabulary``.
        Documents left without a known word stay in the minibatch as empty documents; a minibatch
        without any known word takes no step. Everything is counted in ``text_report_``.

        ``vocabulary`` (a word list; first call only, ignored once the model has started): the
        initial vocabulary, its words first; with ``grow_vocabulary`` the first minibatch's new
        words follow it (within ``max_vocabulary``), without it they are dropped."""
        pipeline = (getattr(self, "text_pipeline_", None) or TextPipeline()).with_overrides(
            tokenizer, stopwords)
        starting = not self.is_fitted()
        if starting:
            self.validated_method()
        report = self._words_report("partial_fit_text", restart=starting)
        token_lists = content_tokens(documents, pipeline, report)
        if not token_lists:
            raise InputError("the minibatch has no documents")
        counts, words = token_counts(token_lists)
        if not starting:
            return self._partial_fit_words(counts, words, report)
        # The first minibatch makes the vocabulary when none is given: every word of it
        # without growth, those seen min_word_count times with it.
        index = initial_index(vocabulary, self.max_vocabulary) if vocabulary is not None else {}
        growth = self._growth(PendingWords())
        if growth is None and vocabulary is None:
            growth = Growth(PendingWords(), 1, self.max_vocabulary)
        mapped, new_words = grown_counts(counts, words, index, growth, report)
        if mapped.nnz == 0:
            needed = (f" (a new word joins once seen min_word_count={self.min_word_count} "
                      f"times)" if self.grow_vocabulary else "")
            raise InputError(f"the first minibatch has no token to start the model from{needed}")
        self._step(mapped, np.asarray(list(index) + new_words, dtype=str), None)
        self.text_pipeline_ = pipeline
        if self.grow_vocabulary:
            self._pending_words = growth.pending
        return self

    def _words_report(self, source: str, restart: bool = False) -> ReadReport:
        """``text_report_``, the `ReadReport` of the minibatches mapped by word (made anew
        when ``restart``)."""
        if restart or getattr(self, "text_report_", None) is None:
            self.text_report_ = ReadReport(source=source)
        return self.text_report_

    def _growth(self, pending: PendingWords | None = None) -> Growth | None:
        """The admission rule of new words (`corpus.growth`), None without growth."""
        if not self.grow_vocabulary:
            return None
        return Growth(self._pending_words if pending is None else pending,
                      int(self.min_word_count), self.max_vocabulary)

    def _columns_are_words(self, words) -> bool:
        """Whether the columns of a minibatch named ``words`` are the model's columns: the same
        words, or no names on either side (the placeholders "w0", "w1", ... of a `Corpus` or
        model made from a bare matrix); else they are mapped by word. Checked once per pair of
        arrays (a stream's minibatches share theirs)."""
        checked = getattr(self, "_columns_check", None)
        if checked is None or checked[0] is not words or checked[1] is not self.vocabulary_:
            names = np.asarray(words, dtype=str)
            same = (_placeholders(names) or _placeholders(self.vocabulary_)
                    or (names.size == self.vocabulary_.size
                        and np.array_equal(names, self.vocabulary_)))
            checked = self._columns_check = (words, self.vocabulary_, same)
        return checked[2]

    def _partial_fit_words(self, counts: sp.csr_matrix, words, report: ReadReport,
                           topic_mask=None) -> "OnlineLDA":
        """One step on ``counts`` whose columns are ``words``: mapped onto the vocabulary, new
        words admitted by the growth rule (`corpus.growth.grown_counts`), the rest counted in
        ``report``; a minibatch without a known word takes no step (and says so)."""
        mapped, new_words = grown_counts(counts, words, self._word_index(), self._growth(),
                                         report)
        if mapped.nnz == 0:
            report.warn("a minibatch without any word of the vocabulary took no step")
            return self
        self.add_words(new_words)
        return self._step(mapped, None, topic_mask)

    def add_words(self, words) -> "OnlineLDA":
        """Append ``words`` (new, distinct) to ``vocabulary_`` without a training step: new
        columns of zero sufficient statistics (`OnlineEM.add_words`), so the topics restricted
        to the old words are unchanged (exactly for point estimates; up to one common factor
        per topic, i.e. unchanged once renormalised over the old words, for topics with a prior
        eta). ``max_vocabulary`` is not exceeded: raises ValueError instead. `partial_fit_text`
        with ``grow_vocabulary`` calls this; it works whatever ``grow_vocabulary`` is."""
        self._require_fitted()
        index = self._word_index()
        words = checked_new_words(words, index, self.max_vocabulary)
        if not words:
            return self
        self._engine.add_words(len(words))
        index.update((word, len(index)) for word in words)
        self.vocabulary_ = np.concatenate([self.vocabulary_, np.asarray(words, dtype=str)])
        self._word_index_cache = (self.vocabulary_, index)
        self._components_cache = None
        return self

    def _word_index(self) -> dict:
        """word -> column of ``vocabulary_`` (empty before the model starts), built once per
        ``vocabulary_`` array and extended in place by `add_words`: read it, do not change it."""
        if not self.is_fitted():
            return {}
        cached = getattr(self, "_word_index_cache", None)
        if cached is None or cached[0] is not self.vocabulary_:
            cached = (self.vocabulary_, {word: i for i, word in enumerate(self.vocabulary_.tolist())})
            self._word_index_cache = cached
        return cached[1]

    # --- fitted model --------------------------------------------------------------------------
    def is_fitted(self) -> bool:
        return getattr(self, "_engine", None) is not None and self._engine.initialized

    def _require_fitted(self) -> OnlineEM:
        if not self.is_fitted():
            raise NotFittedError(f"this {type(self).__name__} is not fitted yet: call fit or partial_fit")
        return self._engine

    @property
    def components_(self) -> np.ndarray:
        """beta (K x V, rows sum to 1): the last iterate, or the averaged one with averaging.
        Read-only; recomputed (O(K V)) once per step when asked."""
        engine = self._require_fitted()
        if self._components_cache is None or self._components_cache[0] != engine.step:
            components = engine.components()
            components.flags.writeable = False
            self._components_cache = (engine.step, components)
        return self._components_cache[1]

    @property
    def doc_topic_prior_(self) -> np.ndarray:
        return self._require_fitted().doc_topic_prior()

    @property
    def lambda_(self):
        """lambda (K x V), the variational Dirichlet parameters of the topics of a Bayesian
        method (the last iterate, O(K V)); None for frequentist ones."""
        engine = self._require_fitted()
        return engine.parameters.topic_word_lambda(engine.stats)

    @property
    def topic_word_prior_(self):
        """eta, the Dirichlet prior of the topics (of a Bayesian method: after its updates, if
        any; of a frequentist one: 0 for the maximum likelihood M-step)."""
        return self._require_fitted().parameters.topic_word_prior

    @property
    def n_steps_(self) -> int:
        return self._require_fitted().step

    @property
    def pending_words_(self) -> dict[str, int]:
        """The new words a growing vocabulary has counted but not yet admitted (fewer than
        ``min_word_count`` occurrences so far): word -> occurrences, in order of first
        appearance."""
        self._require_fitted()
        return dict(self._pending_words.counts)

    @property
    def n_documents_seen_(self) -> int:
        return int(self._require_fitted().stats.n_documents)

    @runs_on_n_jobs
    def transform(self, X) -> np.ndarray:
        """Document-topic proportions (D x K, rows sum to 1) by the method's local estimator with
        the model fixed: the posterior mean of theta (Gibbs) or E_q[theta] (variational). Never
        changes the model; deterministic, and a document's proportions depend only on the
        document and the model: its random stream is seeded from the model's seed and a hash of
        its word ids and counts (`content_streams`), never from its row, so permuting the rows
        of ``X`` permutes the result exactly, and a document gets the same proportions alone
        or among others. The documents run in minibatches of about `TRANSFORM_CELLS` entries x
        topics, their documents in parallel on the threads of ``n_jobs`` (a local step whose
        documents share state, HDP's, runs a document at a time)."""
        counts = self._transform_counts(X)
        runs = self._local_runs(counts)
        proportions = np.zeros((counts.shape[0], self._engine.n_topics))
        for rows, run in runs:
            proportions[rows] = run.doc_topic()
        return proportions

    def _transform_counts(self, X) -> sp.csr_matrix:
        engine = self._require_fitted()
        counts, _ = _counts_and_vocabulary(self._check_documents(X, reset=False))
        if counts.shape[1] != engine.n_words:
            raise ValueError(f"the documents have a vocabulary of {counts.shape[1]} words but the "
                             f"model has {engine.n_words}")
        return counts

    def local_runs(self, X):
        """The local step of `transform` over the documents ``X``, the model fixed: (rows, run)
        per minibatch, ``run.doc_topic()`` its documents' proportions and ``run.statistics()``
        their expected sufficient statistics (`inference.stats.MinibatchStats`, Dupuy & Bach
        2016, eq. 6): what a period's topics are made of (`streamtopics.timeline`)."""
        return self._local_runs(self._transform_counts(X))

    def _local_runs(self, counts: sp.csr_matrix):
        engine = self._require_fitted()
        local = self.transform_estimator()
        entries = TRANSFORM_CELLS // engine.n_topics if independent_documents(local) else 0
        chunks = transform_chunks(counts.indptr, entries)
        memory.check_memory(memory.online_transform(
            engine.n_topics, counts.shape[0],
            max((int(counts.indptr[stop] - counts.indptr[start]) for start, stop in chunks),
                default=0),
            f"{type(self).__name__}.transform of {counts.shape[0]:,} documents"))
        keys = content_streams(counts)
        return ((slice(start, stop), engine.local_posterior(
            replace(Minibatch.from_counts(counts[start:stop]), stream_keys=keys[start:stop]),
            local=local)) for start, stop in chunks)

    @runs_on_n_jobs
    def fit_transform(self, X, y=None, **fit_params) -> np.ndarray:
        return self.fit(X, **fit_params).transform(X)

    # --- model files ---------------------------------------------------------------------------
    def _state_arrays(self) -> dict[str, np.ndarray]:
        """The engine's state, and the counts of the words waiting to join a growing
        vocabulary (`corpus.growth.PendingWords`) when there are any."""
        arrays = self._require_fitted().state_arrays()
        pending = getattr(self, "_pending_words", None)
        if pending is not None and pending.counts:
            arrays.update(pending.as_arrays())
        return arrays

    def set_model_file_contents(self, arrays: dict[str, np.ndarray], metadata: dict) -> None:
        super().set_model_file_contents(arrays, metadata)
        self._pending_words = PendingWords.from_arrays(arrays)

    def _fitted_metadata(self) -> dict:
        engine = self._require_fitted()
        metadata = {"method": self.method_.as_dict(), "step": engine.step, "seed": engine.seed,
                    "settings": self._fitted_settings.as_dict()}
        if self.seed_words is not None:
            metadata["seed_words"] = seed_words_json(self.seed_words)
        return metadata

    def _restore_state(self, arrays: dict[str, np.ndarray], metadata: dict) -> None:
        fitted = metadata.get("fitted", {})
        method = Method.from_dict(fitted["method"])
        self.method = method.name if PRESETS.get(method.name) == method else method
        self.method_ = resolve_method(method)
        self._fitted_settings = PartSettings.of({**self.part_settings().as_dict(),
                                                 **fitted.get("settings", {})})
        if "seed_words" in fitted:
            self.seed_words = seed_words_from_json(fitted["seed_words"])
        self._seed_prior = self._seed_prior_counts(arrays["vocabulary"],
                                                   arrays["vocabulary"].size, report=False)
        self._engine = self.build_engine(method, self._fitted_settings, int(fitted["seed"]))
        self._engine.restore(arrays, int(fitted["step"]))
        self.vocabulary_ = arrays["vocabulary"]
        self._components_cache = None
