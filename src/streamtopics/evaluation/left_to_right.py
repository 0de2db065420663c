"""Held-out log-likelihood log p(w_d | beta, alpha) by the left-to-right algorithm.

Wallach, Murray, Salakhutdinov & Mimno, "Evaluation methods for topic models", ICML 2009,
Algorithm 3, as used by Dupuy & Bach (2016, section 5), plus its sequential Monte Carlo variant
with resampling, whose estimate of p(w_d) is unbiased.

p(w_d) = prod_n p(w_n | w_<n): the algorithm walks the document from left to right, keeping R
particles (topic assignments of the tokens seen so far); at every position each particle's
earlier topics are resampled once by collapsed Gibbs sampling, and p(w_n | w_<n) is estimated by
the average over particles of sum_k beta_{k,w_n} (n_k + alpha_k) / (n - 1 + sum alpha).

Token order: p(w_d) does not depend on it, but each estimate does (its noise, and the small bias
of Algorithm 3), so results are reproducible only in a fixed order: the reading order when the
corpus has token sequences (``tokens.jsonl``), otherwise the fixed bag-of-words order of
`Corpus.document_tokens` (word ids ascending).

Cost: the Gibbs sweep over all earlier tokens makes a document of N tokens cost O(N^2 R K)
(about N^2 R K / 2 multiply-adds); a 1,000-token document costs 100 times a 100-token one. The
sparse sampler (``sampler``) replaces K by the number of topics present in a particle.
``max_tokens`` caps it: only the first ``max_tokens`` tokens of each document are scored, and the
result's token counts say so (per-token figures stay consistent; per-document figures then refer
to the truncated documents).
"""

from __future__ import annotations

import numpy as np

from ..inference.gibbs_estep import SAMPLERS
from ..kernels.evaluation import left_to_right_kernel
from ..threads import using_threads
from ..validation import check_count, check_seed
from . import _inputs
from .results import HeldOutLikelihood

# From this many topics on, sampler="auto" runs the sparse sweeps: their speed-up grows with K,
# and at K = 10 the dense ones are faster (docs/methods.md, "The local Gibbs sampler").
SPARSE_MIN_TOPICS = 32


def left_to_right(beta, alpha, documents, n_particles: int = 20, resample: bool = False,
                  max_tokens: int | None = None, seed: int = 0,
                  n_jobs: int | None = None, progress=None,
                  sampler: str = "auto") -> HeldOutLikelihood:
    """Estimate log p(w_d | beta, alpha) of every held-out document (nats).

    Parameters
    ----------
    beta : (K, V) topics, rows summing to 1 (for a variational model, E_q[beta]).
    alpha : Dirichlet prior on topic proportions, K positive numbers or a scalar.
    documents : a `Corpus` (vocabulary of V words) or a (flat word ids, offsets) pair as
        returned by `Corpus.document_tokens`.
    n_particles : R, the number of particles (Wallach et al. use 20 in their experiments).
    resample : False for Algorithm 3 as published (what Dupuy & Bach 2016 report); True for
        the sequential Monte Carlo variant that resamples particles in proportion to their
        predictive probabilities at each position (systematic resampling), whose estimate of
        p(w_d) is unbiased. Algorithm 3 never weights its particles, so its estimate of p keeps
        a small bias as R grows (Buntine 2009; a few percent of p on 5-token documents of a
        tiny model in this library's tests). Both return the log of an estimate of p, biased
        low by Jensen's inequality by about half its variance, which shrinks like 1/R.
    max_tokens : score only the first ``max_tokens`` tokens of each document (cost is
        quadratic in document length; see the module docstring). None scores everything.
    seed : non-negative integer; document d uses the random stream (seed, 0, d), so the result
        is the same for any number of threads.
    n_jobs : threads of the kernels (`streamtopics.threads`: None one thread, or an enclosing
        block's, -1 every core); results do not depend on it.
    progress : optional callable, called with the number of documents finished after each
        chunk of documents (e.g. ``tqdm.update``); it does not change the results.
    sampler : how each Gibbs update and draw is sampled: "dense" (O(K), the reference),
        "sparse" (O(topics present in the particle), the two-bucket sampler of the E-step) or
        "auto" (sparse from `SPARSE_MIN_TOPICS` topics on, where it is the faster one: its gain
        grows with K; docs/methods.md). Both run the same algorithm; for one seed their numbers
        differ within Monte Carlo noise.
    """
    beta, alpha = _inputs.topic_parameters(beta, alpha)
    n_particles = check_count(n_particles, "n_particles", 1)
    seed = check_seed(seed)
    word_ids, offsets = _inputs.document_tokens(documents, beta.shape[1])
    word_ids, offsets = _inputs.truncate_documents(word_ids, offsets, max_tokens)
    if sampler not in SAMPLERS:
        raise ValueError(f"unknown sampler {sampler!r}; choose one of {', '.join(SAMPLERS)}")
    sparse = sampler == "sparse" or (sampler == "auto" and beta.shape[0] >= SPARSE_MIN_TOPICS)
    _inputs.check_evaluation_memory("left-to-right evaluation", beta, offsets,
                                    n_particles * (1 + bool(resample)), n_jobs)
    beta_by_word = np.ascontiguousarray(beta.T)
    with using_threads(n_jobs):
        log_likelihoods = _inputs.run_by_document_chunks(
            lambda chunk, chunk_offsets, first: left_to_right_kernel(
                beta_by_word, alpha, chunk, chunk_offsets, n_particles, bool(resample), seed,
                first, sparse),
            word_ids, offsets, progress)
    method = "left-to-right-smc" if resample else "left-to-right"
    settings = {"n_particles": n_particles, "resample": bool(resample), "max_tokens": max_tokens,
                "seed": seed, "token_order": _inputs.token_order(documents),
                "sampler": "sparse" if sparse else "dense"}
    return HeldOutLikelihood(log_likelihoods, np.diff(offsets), method, settings)

