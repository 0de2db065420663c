"""The evidence lower bound (ELBO) of held-out documents, as Hoffman, Blei & Bach (2010) compute it.

Their equation 16 scores held-out documents by the per-document ELBO
    E_q[log p(n_d, theta_d, z_d | alpha, beta)] - E_q[log q(theta_d, z_d)]
        <= log p(n_d | alpha, beta)
with q(theta_d) = Dirichlet(gamma_d) and q(z_dn) = Multinomial(phi_dn) fitted by the E-step of
their Algorithm 1 (topics held fixed). This is a *bound*: it is reported as one, never as a
likelihood or a "perplexity" (their exp(-bound / tokens) is an upper bound on perplexity, and it
moves with K for reasons unrelated to fit; Dupuy & Bach 2016, section 5.2 and Figure 2).

What is included, exactly (eq. 4, one document's share):
- point-estimate topics (``eta=None``): E[log beta_kw] = log beta_kw; the value is a lower bound
  on log p(w_d | beta, alpha);
- variational topics q(beta_k) = Dirichlet(lambda_k) (``eta`` given): E[log beta_kw] =
  psi(lambda_kw) - psi(sum_w lambda_kw). Without ``corpus_size`` the value is a lower bound on
  E_q(beta)[log p(w_d | beta, alpha)] (the document terms are linear in log beta). With
  ``corpus_size`` = D, each document also receives 1/D of the corpus-level term
  E_q[log p(beta | eta) - log q(beta | lambda)] = sum_k [sum_w (eta - lambda_kw) E[log beta_kw]
  + log Gamma(lambda_kw) - log Gamma(eta)] + K log Gamma(W eta) - sum_k log Gamma(sum_w lambda_kw),
  which is how eq. 4 (and the authors' code) spread it over a corpus of D documents.
"""

from __future__ import annotations

import numpy as np
from scipy.special import digamma, gammaln

from ..errors import InputError
from ..kernels.evaluation import elbo_kernel
from ..threads import using_threads
from ..validation import check_count
from . import _inputs
from .results import HeldOutBound


def elbo(topics, alpha, documents, eta=None, corpus_size: int | None = None,
         max_iterations: int = 100, tolerance: float = 1e-5,
         n_jobs: int | None = None) -> HeldOutBound:
    """Per-document ELBO (nats) of held-out documents with the topics held fixed.

    Parameters
    ----------
    topics : (K, V) array: beta (rows summing to 1) when ``eta`` is None, otherwise the
        variational Dirichlet parameters lambda of q(beta).
    alpha : Dirichlet prior on topic proportions, K positive numbers or a scalar.
    documents : a `Corpus` or a (flat word ids, offsets) pair; only the counts matter.
    eta : the Dirichlet prior on topics (scalar or V numbers) when ``topics`` is lambda.
    corpus_size : D, the number of training documents, to add each document's 1/D share of the
        corpus-level KL term (only with ``eta``); None leaves it out (see the module docstring).
    max_iterations, tolerance : E-step stopping rule: at most ``max_iterations`` updates of
        gamma, or until the mean absolute change of gamma is below ``tolerance``
        (Hoffman et al., Algorithm 1, use 1e-5). Any gamma gives a valid bound; convergence
        tightens it.
    n_jobs : threads of the kernels (`streamtopics.threads`: None one thread, or an enclosing
        block's, -1 every core); results do not depend on it.
    """
    max_iterations = check_count(max_iterations, "max_iterations", 1)
    if not tolerance >= 0:
        raise InputError(f"tolerance must be non-negative, got {tolerance!r}")
    if eta is None:
        if corpus_size is not None:
            raise InputError("corpus_size only applies to variational topics (give eta and lambda)")
        beta, alpha = _inputs.topic_parameters(topics, alpha)
        with np.errstate(divide="ignore"):
            elog_beta = np.log(beta)
        corpus_term = 0.0
        description = ("document terms of eq. 4 with E[log beta] = log beta (point-estimate "
                       "topics); a lower bound on log p(w_d | beta, alpha)")
    else:
        lam = np.asarray(topics, dtype=np.float64)
        if lam.ndim != 2 or 0 in lam.shape or not np.all(np.isfinite(lam)) or lam.min() <= 0:
            raise InputError("with eta given, topics must be the K x V variational parameters "
                             "lambda: finite and positive")
        alpha = _inputs.positive_vector(alpha, lam.shape[0], "alpha")
        eta = _inputs.positive_vector(eta, lam.shape[1], "eta")
        elog_beta = digamma(lam) - digamma(lam.sum(axis=1, keepdims=True))
        if corpus_size is None:
            corpus_term = 0.0
            description = ("document terms of eq. 4 with E_q[log beta] under q(beta) = "
                           "Dirichlet(lambda), no corpus-level term; a lower bound on "
                           "E_q[log p(w_d | beta, alpha)]")
        else:
            corpus_size = check_count(corpus_size, "corpus_size", 1)
            corpus_term = _topic_kl_term(lam, eta, elog_beta) / corpus_size
            description = ("document terms of eq. 4 with E_q[log beta] under q(beta) = "
                           f"Dirichlet(lambda), plus 1/{corpus_size} of the corpus-level term "
                           "E_q[log p(beta | eta) - log q(beta | lambda)]")
    counts = _inputs.document_counts(documents, elog_beta.shape[1])
    shift = elog_beta.max(axis=0)
    impossible = ~np.isfinite(shift)  # words no topic can emit: their documents score -inf
    shift[impossible] = 0.0
    shifted_exp = np.exp(elog_beta.T - shift[:, None])
    shifted_exp[impossible] = 0.0
    with using_threads(n_jobs):
        bounds = elbo_kernel(np.ascontiguousarray(shifted_exp), shift, alpha,
                             counts.indptr.astype(np.int64), counts.indices.astype(np.int64),
                             counts.data.astype(np.float64), max_iterations, float(tolerance))
    settings = {"max_iterations": max_iterations, "tolerance": float(tolerance),
                "variational_topics": eta is not None, "corpus_size": corpus_size}
    lengths = np.asarray(counts.sum(axis=1)).ravel().astype(np.int64)
    return HeldOutBound(bounds + corpus_term, lengths, "elbo", description, settings)


def _topic_kl_term(lam: np.ndarray, eta: np.ndarray, elog_beta: np.ndarray) -> float:
    """E_q[log p(beta | eta)] - E_q[log q(beta | lambda)] summed over topics (eq. 4)."""
    return float(np.sum((eta - lam) * elog_beta + gammaln(lam) - gammaln(eta))
                 + lam.shape[0] * gammaln(eta.sum()) - np.sum(gammaln(lam.sum(axis=1))))
