"""Document completion: infer theta_d from one half of a test document, score the other half.

The protocol of Asuncion et al. (2009) followed by Papanikolaou et al. (2017, section 5.2): with
the topics beta held fixed, collapsed Gibbs sampling on the observed half of each document gives
theta_d (after a burn-in, averaged over samples taken every ``lag`` sweeps), and the held-out
half is scored by log p(w | theta_d, beta) = sum_j log sum_k theta_dk beta_{k,w_j}
(Papanikolaou eq. 55).

Halves, exactly: the first floor(N_d / 2) tokens of document d are observed and the remaining
ceil(N_d / 2) are held out, in reading order. A `Corpus` without token order (bag of words) has
no meaningful order, and its fixed order (word ids ascending) would put the low word ids in the
observed half; its tokens are therefore shuffled within each document first, by a permutation
drawn from ``seed``. A (word ids, offsets) pair is split in the order given.

Two estimators of theta_d from a sample z of the observed tokens (Papanikolaou et al. 2017):
- "standard": (n_dk + alpha_k) / (N_obs + sum alpha) (eq. 13, Griffiths & Steyvers 2004);
- "p" (theta^p, eq. 33): n_dk replaced by the soft counts sum_j T(z_j = k | z_-j), the Gibbs
  conditional probabilities of the sweep, which converges in fewer samples.
Averaging theta over samples equals averaging the predictive probabilities over samples.
"""

from __future__ import annotations

import numpy as np

from ..corpus.corpus import Corpus
from ..errors import InputError
from ..inference.cgs import GIBBS_ESTIMATES
from ..kernels.evaluation import completion_kernel
from ..threads import using_threads
from ..validation import check_count, check_seed
from . import _inputs
from .results import HeldOutLikelihood


def document_completion(beta, alpha, documents, burn_in: int = 50, n_samples: int = 10,
                        lag: int = 5, estimator: str = "standard", seed: int = 0,
                        n_jobs: int | None = None, progress=None) -> HeldOutLikelihood:
    """Log-likelihood (nats) of the second half of every document given its first half.

    Parameters
    ----------
    beta : (K, V) topics, rows summing to 1.
    alpha : Dirichlet prior on topic proportions, K positive numbers or a scalar.
    documents : a `Corpus` or a (flat word ids, offsets) pair (`Corpus.document_tokens`).
    burn_in : Gibbs sweeps over the observed half before the first sample (Papanikolaou et al.
        section 5.3 use 50).
    n_samples, lag : number of samples of theta averaged, one every ``lag`` sweeps (5 in
        section 5.3); the chain runs burn_in + n_samples * lag sweeps in all.
    estimator : "standard" (hard counts, eq. 13) or "p" (theta^p soft counts, eq. 33).
    seed : non-negative integer; document d uses the random stream (seed, 0, d).
    n_jobs : threads of the kernels (`streamtopics.threads`: None one thread, or an enclosing
        block's, -1 every core); results do not depend on it.
    progress : optional callable, called with the number of documents finished after each
        chunk of documents (e.g. ``tqdm.update``); it does not change the results.

    Returns a `HeldOutLikelihood` whose per-document figures and token counts cover the
    held-out halves only.
    """
    if estimator not in GIBBS_ESTIMATES:
        raise InputError(f"estimator must be one of {GIBBS_ESTIMATES}, got {estimator!r}")
    beta, alpha = _inputs.topic_parameters(beta, alpha)
    burn_in = check_count(burn_in, "burn_in", 0)
    n_samples = check_count(n_samples, "n_samples", 1)
    lag = check_count(lag, "lag", 1)
    seed = check_seed(seed)
    word_ids, offsets = _inputs.document_tokens(documents, beta.shape[1])
    shuffled = isinstance(documents, Corpus) and documents.tokens is None
    if shuffled:
        word_ids = _shuffle_within_documents(word_ids, offsets, seed)
    lengths = np.diff(offsets)
    _inputs.check_evaluation_memory("document completion", beta, offsets, 0, n_jobs)
    beta_by_word = np.ascontiguousarray(beta.T)
    with using_threads(n_jobs):
        log_likelihoods = _inputs.run_by_document_chunks(
            lambda chunk, chunk_offsets, first: completion_kernel(
                beta_by_word, alpha, chunk, chunk_offsets, np.diff(chunk_offsets) // 2, burn_in,
                n_samples, lag, estimator == "p", seed, first),
            word_ids, offsets, progress)
    settings = {"burn_in": burn_in, "n_samples": n_samples, "lag": lag, "estimator": estimator,
                "seed": seed, "observed": "first floor(N/2) tokens",
                "token_order": ("bag of words, shuffled within documents" if shuffled
                                else _inputs.token_order(documents))}
    return HeldOutLikelihood(log_likelihoods, lengths - lengths // 2,
                             f"document-completion ({estimator})", settings)


def _shuffle_within_documents(word_ids: np.ndarray, offsets: np.ndarray, seed: int) -> np.ndarray:
    """Each document's tokens in a random order drawn from ``seed`` (documents stay in place)."""
    document_of_token = np.repeat(np.arange(offsets.size - 1), np.diff(offsets))
    keys = np.random.default_rng([seed, 0x5EED]).random(word_ids.size)
    return word_ids[np.lexsort((keys, document_of_token))]
