"""Batch collapsed Gibbs sampling (CGS) for LDA and the CGS_p estimators.

Papanikolaou, Foulds, Rubin & Tsoumakas (2017), "Dense distributions from sparse samples"
(JMLR 18). Equation numbers below are that paper's.

- `GibbsState`: one Markov chain's topic assignments and integer count matrices, advanced by
  `GibbsState.sweep` (equation 1; SparseLDA or the dense reference sampler).
- Estimators from one sample: standard phi and theta (equations 2-3, `topic_word_estimate`,
  `doc_topic_estimate` on hard counts) and phi^p, theta^p (equations 41 and 40: the same
  formulas on the soft counts of `GibbsState.soft_counts`, Algorithm 1).
- `run_chain`: burn-in, hyperparameter optimisation (Minka's fixed point, `dirichlet_fixed_point`),
  samples every ``lag`` sweeps (when: a `ChainSchedule`), estimates averaged
  over the samples of the chain after explicit topic alignment (`align_topics`).
- `predict_doc_topics`: new documents with phi fixed (equation 4), theta (equation 3) and
  theta^p (equation 33) from the same samples, averaged over samples and chains; this averaging
  is always valid because phi, hence the topic labels, are fixed (section 3.3).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np
from scipy.optimize import linear_sum_assignment
from scipy.special import gammaln

from ..kernels import cgs as kernels
from ..kernels import cgs_blocks as block_kernels
from ..kernels.random import content_keys
from .dirichlet_fixed_point import optimize_alpha, optimize_eta
from .topic_mask import TopicMask, kernel_mask

# The choices of ``sampler`` and ``estimator``; `GibbsLDA` validates them once (its constraints
# table), the functions here trust their callers. GIBBS_ESTIMATES: how phi and theta are read
# off the samples, "standard" (hard counts of the sampled assignments, eq. 2-3) or "p" (CGS_p:
# the same formulas on soft counts, eq. 40-41); document completion and word association offer
# the same two.
SAMPLERS = ("sparse", "dense")
GIBBS_ESTIMATES = ("standard", "p")
# Random stream indices: training chain c, sweep t uses c * _CHAIN_STRIDE + t (t = 0 is the
# random start); prediction chain c uses _PREDICTION_STREAM + c.
_CHAIN_STRIDE = 1 << 32
_PREDICTION_STREAM = 1 << 62


# --- estimators (equations 2, 3, 40, 41) --------------------------------------------------------
def topic_word_estimate(word_topic_counts: np.ndarray, eta: float) -> np.ndarray:
    """phi_kv = (n_kv + eta) / (n_k + V eta), K x V (equation 2; equation 41 on soft counts).

    ``word_topic_counts`` is V x K (hard counts or the soft counts of `GibbsState.soft_counts`).
    """
    counts = np.asarray(word_topic_counts, dtype=np.float64).T + eta
    return counts / counts.sum(axis=1, keepdims=True)


def doc_topic_estimate(doc_topic_counts: np.ndarray, alpha: np.ndarray) -> np.ndarray:
    """theta_dk = (n_dk + alpha_k) / (N_d + sum alpha), D x K (equation 3; equations 33/40 on
    soft counts)."""
    counts = np.asarray(doc_topic_counts, dtype=np.float64) + alpha
    return counts / counts.sum(axis=-1, keepdims=True)


# --- one chain's state --------------------------------------------------------------------------
@dataclass
class GibbsState:
    """Topic assignments of every token and the count matrices they imply.

    ``tokens`` (int32 word ids) and ``offsets`` (D+1, int64) are the corpus in the ragged layout
    of `Corpus.document_tokens`; ``doc_topic_counts`` is D x K, ``word_topic_counts`` V x K
    (word-major), both int32; ``topic_counts`` K int64. ``mask``: each document's allowed topics
    (Labeled LDA, equation 5), None for LDA; the sweeps and soft counts honour it.
    ``prior_counts``: integer phantom counts lambda [v in seeds of k] (V x K, seed words,
    `estimators.seed_words`) held inside ``word_topic_counts`` and ``topic_counts``, so that
    both samplers draw with eta_kv = eta + lambda [v in seeds of k] unchanged; the
    estimates, the joint and `observed_word_topic_counts` account for them.
    """

    tokens: np.ndarray
    offsets: np.ndarray
    assignments: np.ndarray
    doc_topic_counts: np.ndarray
    word_topic_counts: np.ndarray
    topic_counts: np.ndarray
    mask: TopicMask | None = None
    prior_counts: np.ndarray | None = None
    _word_lists: kernels.WordTopicLists | None = field(default=None, repr=False)

    @classmethod
    def from_assignments(cls, tokens, offsets, assignments, n_topics: int,
                         n_words: int, mask: TopicMask | None = None,
                         prior_counts: np.ndarray | None = None) -> "GibbsState":
        """The state of given assignments (e.g. read from another sampler's output), with
        the phantom ``prior_counts`` added."""
        tokens = np.ascontiguousarray(tokens, dtype=np.int32)
        offsets = np.ascontiguousarray(offsets, dtype=np.int64)
        assignments = np.ascontiguousarray(assignments, dtype=np.int32)
        if assignments.shape != tokens.shape:
            raise ValueError(f"{assignments.size} assignments for {tokens.size} tokens")
        if tokens.size and (tokens.min() < 0 or tokens.max() >= n_words):
            raise ValueError(f"word ids must lie in [0, {n_words})")
        if assignments.size and (assignments.min() < 0 or assignments.max() >= n_topics):
            raise ValueError(f"topics must lie in [0, {n_topics})")
        mask_ptr, mask_topics = kernel_mask(mask, offsets.size - 1, n_topics)
        if mask is not None and not kernels.assignments_allowed(offsets, assignments, mask_ptr,
                                                                mask_topics, n_topics):
            raise ValueError("an assignment takes a topic its document's mask forbids")
        counts = kernels.count_assignments(tokens, offsets, assignments, n_topics, n_words)
        if prior_counts is not None:
            counts.word_topic[...] += prior_counts
            counts.topic[...] += prior_counts.sum(axis=0, dtype=np.int64)
        return cls(tokens, offsets, assignments, *counts, mask=mask, prior_counts=prior_counts)

    @classmethod
    def random(cls, tokens, offsets, n_topics: int, n_words: int, seed: int,
               stream: int = 0, mask: TopicMask | None = None,
               prior_counts: np.ndarray | None = None) -> "GibbsState":
        """Uniformly random initial assignments (the usual CGS start; uniform over each
        document's allowed topics under a ``mask``)."""
        offsets = np.ascontiguousarray(offsets, dtype=np.int64)
        assignments = np.empty(int(offsets[-1]), dtype=np.int32)
        kernels.random_assignments(offsets, n_topics, seed, stream, assignments,
                                   *kernel_mask(mask, offsets.size - 1, n_topics))
        return cls.from_assignments(tokens, offsets, assignments, n_topics, n_words, mask,
                                    prior_counts)

    @property
    def n_topics(self) -> int:
        return self.topic_counts.size

    @property
    def n_words(self) -> int:
        return self.word_topic_counts.shape[0]

    def observed_word_topic_counts(self) -> np.ndarray:
        """n_kv of the tokens alone (V x K), without the phantom prior counts."""
        if self.prior_counts is None:
            return self.word_topic_counts
        return self.word_topic_counts - self.prior_counts

    @property
    def counts(self) -> kernels.CountMatrices:
        """The three count matrices, as the kernels take them."""
        return kernels.CountMatrices(self.doc_topic_counts, self.word_topic_counts,
                                     self.topic_counts)

    @property
    def _kernel_mask(self):
        return kernel_mask(self.mask, self.offsets.size - 1, self.n_topics)

    def doc_topic_prior(self, alpha: np.ndarray) -> np.ndarray:
        """alpha per document: K numbers, or D x K with zeros outside each document's mask."""
        return alpha if self.mask is None else alpha * self.mask.indicator()

    def sweep(self, alpha: np.ndarray, eta: float, seed: int, stream: int,
              sampler: str = "sparse", blocks: int = 0) -> None:
        """Resample every token once, documents in order (equation 1); with ``blocks`` >= 2,
        the approximate AD-LDA sweep over that many blocks of documents in parallel
        (`kernels.cgs_blocks`)."""
        alpha = np.ascontiguousarray(alpha, dtype=np.float64)
        if blocks >= 2:
            block_kernels.sweep_blocks(self.tokens, self.offsets,
                                       block_kernels.block_bounds(self.offsets, blocks),
                                       self.assignments, self.counts, alpha, float(eta), seed,
                                       stream, sampler == "sparse", *self._kernel_mask)
            self._word_lists = None
            return
        documents = np.arange(self.offsets.size - 1, dtype=np.int64)
        if sampler == "dense":
            kernels.sweep_dense(self.tokens, self.offsets, documents, self.assignments,
                                self.counts, alpha, float(eta), seed, stream, *self._kernel_mask)
            self._word_lists = None
            return
        if self._word_lists is None:
            self._word_lists = kernels.build_word_topic_lists(self.word_topic_counts)
        kernels.sweep_sparse(self.tokens, self.offsets, documents, self.assignments, self.counts,
                             self._word_lists, alpha, float(eta), seed, stream,
                             *self._kernel_mask)

    def soft_counts(self, alpha: np.ndarray, eta: float) -> tuple[np.ndarray, np.ndarray]:
        """(doc_soft D x K, word_soft V x K): the sums of the full conditionals
        T(z_j = k | z_-j) over each document's and each word's tokens (Algorithm 1), computed
        sparsely (`kernels.cgs.soft_counts_sparse`, equal to the dense pass up to rounding)."""
        if self._word_lists is None:
            self._word_lists = kernels.build_word_topic_lists(self.word_topic_counts)
        doc_soft = np.zeros(self.doc_topic_counts.shape)
        word_soft = np.zeros(self.word_topic_counts.shape)
        kernels.soft_counts_sparse(self.tokens, self.offsets, self.assignments, self.counts,
                                   self._word_lists, np.ascontiguousarray(alpha, dtype=np.float64),
                                   float(eta), doc_soft, word_soft, *self._kernel_mask)
        return doc_soft, word_soft

    def estimate(self, alpha: np.ndarray, eta: float,
                 estimator: str = "p") -> tuple[np.ndarray, np.ndarray]:
        """(phi K x V, theta D x K) from this sample: equations 2-3 (``"standard"``) or 41 and
        40 (``"p"``); under a mask theta_d is supported on the document's allowed topics."""
        if estimator == "p":
            doc_counts, word_counts = self.soft_counts(alpha, eta)
            if self.prior_counts is not None:  # the soft counts cover the tokens only
                word_counts += self.prior_counts
        else:
            doc_counts, word_counts = self.doc_topic_counts, self.word_topic_counts
        return (topic_word_estimate(word_counts, eta),
                doc_topic_estimate(doc_counts, self.doc_topic_prior(alpha)))

    def log_joint(self, alpha: np.ndarray, eta: float) -> float:
        """log p(w, z | alpha, eta), the collapsed joint (Griffiths & Steyvers 2004), in nats.
        With seed words the topic-word terms are log B(n_k. + eta_k.) - log B(eta_k.): the
        joint on the counts with phantoms, less the phantoms' own term log B(lambda s_k. +
        eta) - log B(eta)."""
        alpha_sums = None if self.mask is None else self.doc_topic_prior(alpha).sum(axis=1)
        value = log_joint(self.doc_topic_counts, self.word_topic_counts, self.topic_counts,
                          alpha, eta, alpha_sums)
        if self.prior_counts is not None:
            prior = self.prior_counts[self.prior_counts > 0]
            value -= np.sum(gammaln(prior + eta)) - prior.size * gammaln(eta)
            topic_prior = self.prior_counts.sum(axis=0, dtype=np.int64)
            value -= np.sum(gammaln(self.n_words * eta) - gammaln(topic_prior + self.n_words * eta))
        return float(value)


def log_joint(doc_topic_counts, word_topic_counts, topic_counts, alpha, eta,
              alpha_sums=None) -> float:
    """log p(w, z) = sum_k [log B(n_k. + eta) - log B(eta)] + sum_d [log B(n_d. + alpha)
    - log B(alpha)], B the multivariate Beta function; zero counts contribute nothing.
    ``alpha_sums`` (D): each document's sum of alpha over its allowed topics (Labeled LDA,
    theta_d supported on its mask), instead of sum alpha."""
    alpha = np.asarray(alpha, dtype=np.float64)
    n_words = word_topic_counts.shape[0]
    nonzero = word_topic_counts[word_topic_counts > 0]
    value = np.sum(gammaln(nonzero + eta)) - nonzero.size * gammaln(eta)
    value += topic_counts.size * gammaln(n_words * eta) - np.sum(gammaln(topic_counts + n_words * eta))
    docs, topics = np.nonzero(doc_topic_counts)
    value += np.sum(gammaln(doc_topic_counts[docs, topics] + alpha[topics]) - gammaln(alpha[topics]))
    lengths = doc_topic_counts.sum(axis=1, dtype=np.int64)
    if alpha_sums is None:
        alpha_sum = alpha.sum()
        value += lengths.size * gammaln(alpha_sum) - np.sum(gammaln(lengths + alpha_sum))
    else:
        value += np.sum(gammaln(alpha_sums)) - np.sum(gammaln(lengths + alpha_sums))
    return float(value)


# --- topic alignment ----------------------------------------------------------------------------
def align_topics(reference: np.ndarray, topics: np.ndarray) -> np.ndarray:
    """Permutation ``perm`` such that ``topics[perm]`` best matches ``reference`` (both K x V,
    rows distributions): Hungarian matching on the Bhattacharyya coefficient."""
    similarity = np.sqrt(reference) @ np.sqrt(topics).T
    _, perm = linear_sum_assignment(-similarity)
    return perm


# --- one chain ----------------------------------------------------------------------------------
def sample_sweeps(iterations: int, burn_in: int, lag: int, n_samples: int) -> list[int]:
    """Sweeps whose states are kept: iterations, iterations - lag, ... (at most ``n_samples``,
    all after ``burn_in``), oldest first; always at least the final sweep."""
    sweeps = [iterations - m * lag for m in range(n_samples) if iterations - m * lag > burn_in]
    return sorted(sweeps) or [iterations]


@dataclass(frozen=True)
class ChainSchedule:
    """When a chain sweeps, adapts its hyperparameters and keeps its states: ``iterations``
    sweeps; the states of `sample_sweeps` (``n_samples`` states ``lag`` sweeps apart, after
    ``burn_in``) kept; alpha and eta optimised every ``optimize_alpha_every`` and
    ``optimize_eta_every`` sweeps (0: never) after the burn-in and until the first kept state."""

    iterations: int = 200
    burn_in: int = 50
    lag: int = 5
    n_samples: int = 1
    optimize_alpha_every: int = 0
    optimize_eta_every: int = 0

    def kept_sweeps(self) -> list[int]:
        return sample_sweeps(self.iterations, self.burn_in, self.lag, self.n_samples)


@dataclass
class ChainResult:
    """What one chain yields: the averaged estimates (phi K x V, theta D x K), the
    hyperparameters at the end, log p(w, z) of the final state, the final state, the sweeps
    whose samples were averaged and how many of them needed relabelling to align.
    ``phi_standard``: equation 2 averaged over the same samples, aligned the same way (equal
    to ``phi`` for the standard estimator; kept beside phi^p for word association, section 5.4,
    and the phi + theta^p combinations of section 6)."""

    phi: np.ndarray
    theta: np.ndarray
    alpha: np.ndarray
    eta: float
    log_likelihood: float
    state: GibbsState
    sample_sweeps: list[int]
    relabelled_samples: int
    phi_standard: np.ndarray


def run_chain(tokens, offsets, n_topics: int, n_words: int, alpha, eta: float,
              schedule: ChainSchedule = ChainSchedule(), *, sampler: str = "sparse",
              estimator: str = "p", seed: int = 0, chain: int = 0,
              progress: Callable[[int], None] | None = None,
              mask: TopicMask | None = None, parallel_blocks: int = 0,
              prior_counts: np.ndarray | None = None) -> ChainResult:
    """Run one chain of ``schedule.iterations`` sweeps from a uniformly random start.

    Hyperparameters are optimised as the `ChainSchedule` says, then held fixed so that the
    averaged samples share one posterior. The kept samples give estimates (``estimator``:
    equations 2-3 or 40-41) averaged after aligning each sample's topics to the first kept
    sample: averaging over a chain's samples is only sound with the labels matched (section
    3.3.1), and the alignment is identity unless the chain switched labels. ``progress(sweep)``
    is called after every sweep. ``mask``: Labeled LDA (equation 5); its topics are anchored to
    labels, so nothing is aligned, and alpha is not optimised (Minka's update assumes every
    topic allowed). ``parallel_blocks`` >= 2: approximate AD-LDA sweeps over that many blocks of
    documents, run in parallel (`GibbsState.sweep`); 0 or 1: the exact sequential sweeps.
    ``prior_counts``: seed words' phantom counts (`GibbsState`); eta is then not optimised
    (Minka's update assumes a symmetric eta).
    """
    if mask is not None and schedule.optimize_alpha_every:
        raise ValueError("alpha cannot be optimised under a topic mask")
    if prior_counts is not None and schedule.optimize_eta_every:
        raise ValueError("eta cannot be optimised with seed words")
    alpha = np.broadcast_to(np.asarray(alpha, dtype=np.float64), (n_topics,)).copy()
    eta = float(eta)
    keep = schedule.kept_sweeps()
    state = GibbsState.random(tokens, offsets, n_topics, n_words, seed, chain * _CHAIN_STRIDE,
                              mask, prior_counts)
    phi_sum = theta_sum = standard_sum = reference = None
    relabelled = 0
    for sweep in range(1, schedule.iterations + 1):
        state.sweep(alpha, eta, seed, chain * _CHAIN_STRIDE + sweep, sampler, parallel_blocks)
        if schedule.burn_in < sweep < keep[0]:
            every = schedule.optimize_alpha_every
            if every and sweep % every == 0:
                alpha = optimize_alpha(state.doc_topic_counts, alpha)
            every = schedule.optimize_eta_every
            if every and sweep % every == 0:
                eta = optimize_eta(state.word_topic_counts, eta)
        if sweep in keep:
            phi, theta = state.estimate(alpha, eta, estimator)
            standard = phi if estimator == "standard" else topic_word_estimate(
                state.word_topic_counts, eta)
            if reference is None:
                reference, phi_sum, theta_sum = phi, phi.copy(), theta.copy()
                standard_sum = standard.copy()
            elif mask is not None:
                phi_sum += phi
                theta_sum += theta
                standard_sum += standard
            else:
                perm = align_topics(reference, phi)
                relabelled += int(np.any(perm != np.arange(n_topics)))
                phi_sum += phi[perm]
                theta_sum += theta[:, perm]
                standard_sum += standard[perm]
        if progress is not None:
            progress(sweep)
    return ChainResult(phi=phi_sum / len(keep), theta=theta_sum / len(keep), alpha=alpha,
                       eta=eta, log_likelihood=state.log_joint(alpha, eta), state=state,
                       sample_sweeps=keep, relabelled_samples=relabelled,
                       phi_standard=standard_sum / len(keep))


# --- prediction with phi fixed (equation 4) -----------------------------------------------------
@dataclass
class Prediction:
    """Document-topic estimates of new documents from the same samples: ``theta`` (equation 3
    on hard counts) and ``theta_p`` (equation 33), D x K averaged over all samples and chains,
    or D x (chains * samples) x K with one estimate per sample when asked ``per_sample``."""

    theta: np.ndarray
    theta_p: np.ndarray


def predict_doc_topics(phi: np.ndarray, alpha, tokens, offsets, *, burn_in: int = 50,
                       lag: int = 5, n_samples: int = 10, n_chains: int = 1, seed: int = 0,
                       per_sample: bool = False) -> Prediction:
    """Gibbs sampling of new documents with the topics ``phi`` (K x V) fixed, equation 4.

    Each document's chain starts by adding its tokens one by one (each drawn given the previous
    ones), runs ``burn_in`` sweeps, then keeps ``n_samples`` states ``lag`` sweeps apart; both
    estimators are computed from the same states (as in section 5.3) and averaged over samples
    and ``n_chains`` independent chains. Documents are independent: they run in parallel, each
    with a random stream keyed by the seed and its content (word ids and counts), so a
    document's result depends neither on the thread count nor on its row or neighbours.
    """
    phi = np.asarray(phi, dtype=np.float64)
    n_topics = phi.shape[0]
    alpha = np.broadcast_to(np.asarray(alpha, dtype=np.float64), (n_topics,)).copy()
    tokens = np.asarray(tokens, dtype=np.int64)
    offsets = np.ascontiguousarray(offsets, dtype=np.int64)
    n_docs = offsets.size - 1
    used_words, rows = np.unique(tokens, return_inverse=True)
    n_rows = max(used_words.size, 1)
    phi_rows = np.ascontiguousarray(phi[:, used_words].T)
    smoothing_cumulative = np.cumsum(phi_rows * alpha, axis=1)
    doc_of_token = np.repeat(np.arange(n_docs, dtype=np.int64), np.diff(offsets))
    doc_words, token_word = np.unique(doc_of_token * n_rows + rows, return_inverse=True)
    doc_word_offsets = np.searchsorted(doc_words // n_rows, np.arange(n_docs + 1)).astype(np.int64)
    slots = n_chains * n_samples if per_sample else 1
    standard = np.zeros((n_docs, slots, n_topics))
    soft = np.zeros((n_docs, slots, n_topics))
    documents = kernels.NewDocuments(rows.astype(np.int32).ravel(), offsets,
                                     token_word.astype(np.int64).ravel(), doc_word_offsets,
                                     (doc_words % n_rows).astype(np.int32),
                                     content_keys(tokens, offsets))
    kernels.predict_documents(documents, phi_rows, smoothing_cumulative, alpha, int(burn_in),
                              int(lag), int(n_samples), int(n_chains), int(seed),
                              _PREDICTION_STREAM, standard, soft)
    if not per_sample:
        standard /= n_chains * n_samples
        soft /= n_chains * n_samples
        standard, soft = standard[:, 0], soft[:, 0]
    return Prediction(theta=doc_topic_estimate(standard, alpha),
                      theta_p=doc_topic_estimate(soft, alpha))
