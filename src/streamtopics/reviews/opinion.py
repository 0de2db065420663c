"""LDA-R, LDA-R-C and LDA-R-U: descriptive topics plus a positive and a negative opinion topic
(Dupuy's thesis, section 2.1.3, Figure 3), learnt by the variational EM of appendix 2.A.

Each token n of review d is qualitative (m = 1) with probability p^d ~ Dirichlet(omega); a
qualitative word is drawn from the opinion topic Psi^{r^d} of the review's reduced rating
r^d in {-1, +1}, a descriptive one from phi^{z_n} with z_n ~ theta. theta is fixed: per review
(LDA-R, from LDA-0), per item (LDA-R-C, from LDA-C) or per user (LDA-R-U, from LDA-U).

Appendix 2.A's E-step is used with two corrections (both needed for the ELBO to be
non-decreasing, which tests/test_reviews.py checks):
- the update of mu_{n,1} weighs each topic's E[log phi_{k,w}] by the responsibility
  alpha_{n,k} (the printed formula sums them unweighted);
- the update of mu_{n,2} uses the review's own opinion topic Psi^{r^d} (the printed formula sums
  over both signs, which the model contradicts);
and the omega gradient of 2.A.2 read without its stray comma. Component 1 is descriptive,
component 2 qualitative, as in the appendix.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.special import digamma, expit, gammaln, polygamma

from ..corpus.corpus import as_counts
from ..validation import BOOLEAN, Integral, Interval, PositiveVector, Real, validate_parameters


def _dirichlet_expected_log(parameters: np.ndarray) -> np.ndarray:
    """E[log x] under Dirichlet(parameters), row-wise."""
    return digamma(parameters) - digamma(parameters.sum(axis=-1, keepdims=True))


def _dirichlet_cross_term(prior: np.ndarray, posterior: np.ndarray) -> float:
    """sum over rows of E_q[log Dir(x | prior)] - E_q[log Dir(x | posterior)], q = Dir(posterior):
    the Dirichlet part of an ELBO."""
    expected_log = _dirichlet_expected_log(posterior)
    return float(np.sum(gammaln(prior.sum(-1)) - gammaln(prior).sum(-1)
                        + ((prior - 1) * expected_log).sum(-1)
                        - gammaln(posterior.sum(-1)) + gammaln(posterior).sum(-1)
                        - ((posterior - 1) * expected_log).sum(-1)))


def _newton_dirichlet_prior(value: np.ndarray, objective, gradient, hessian,
                            max_iter: int = 50, tol: float = 1e-10) -> np.ndarray:
    """Maximise a concave objective of a positive parameter vector by Newton steps (thesis
    appendix 2.A.2), halving a step that leaves the positive orthant or lowers the objective."""
    current = objective(value)
    for _ in range(max_iter):
        step = np.linalg.solve(np.atleast_2d(hessian(value)), np.atleast_1d(gradient(value)))
        step = step.reshape(value.shape)
        scale = 1.0
        while scale > 1e-10:
            candidate = value - scale * step
            if np.all(candidate > 0):
                candidate_value = objective(candidate)
                if candidate_value >= current - 1e-12 * abs(current):
                    break
            scale /= 2
        else:
            return value
        done = np.max(np.abs(candidate - value) / value) < tol
        value, current = candidate, candidate_value
        if done:
            break
    return value


class OpinionLDA:
    """Descriptive topics with fixed topic proportions plus two opinion topics (thesis 2.1.3).

    Parameters
    ----------
    n_topics : K, the number of descriptive topics (that of the LDA giving theta).
    omega : initial Dirichlet prior (descriptive, qualitative) on each review's word-type
        proportions p^d; learnt by Newton steps (appendix 2.A.2). Default (9, 1).
    topic_word_prior : eta, the initial symmetric Dirichlet prior on phi and Psi; learnt by
        Newton steps.
    max_iter, tol : outer variational EM iterations; stop when the ELBO's relative change is
        below ``tol`` (components.md section 5.2 decision: 30 and 1e-5).
    inner_max_iter, inner_tol : per-review coordinate ascent of the local parameters; stop when
        the relative change of pi is below ``inner_tol`` (50 and 1e-4).
    learn_hyperparameters : False keeps omega and eta fixed.

    Fitted attributes: ``components_`` (K x V, posterior mean of phi), ``opinion_topics_``
    (2 x V, posterior means of Psi^{-1} (row 0) and Psi^{+1} (row 1)), ``omega_``,
    ``topic_word_prior_`` (eta learnt),
    ``qualitative_share_`` (the mean over training reviews of E[p^d_2], the thesis' "average
    proportion of qualitative words", 10% on IMDB), ``elbo_`` (one value per iteration).
    """

    def __init__(self, n_topics: int, omega=(9.0, 1.0), topic_word_prior: float = 0.01,
                 max_iter: int = 30, tol: float = 1e-5, inner_max_iter: int = 50,
                 inner_tol: float = 1e-4, learn_hyperparameters: bool = True):
        self.n_topics = n_topics
        self.omega = omega
        self.topic_word_prior = topic_word_prior
        self.max_iter = max_iter
        self.tol = tol
        self.inner_max_iter = inner_max_iter
        self.inner_tol = inner_tol
        self.learn_hyperparameters = learn_hyperparameters

    _parameter_constraints = {
        "n_topics": [Interval(Integral, 1, None)], "omega": [PositiveVector(2)],
        "topic_word_prior": [Interval(Real, 0, None, "neither")],
        "max_iter": [Interval(Integral, 1, None)], "tol": [Interval(Real, 0, None)],
        "inner_max_iter": [Interval(Integral, 1, None)], "inner_tol": [Interval(Real, 0, None)],
        "learn_hyperparameters": [BOOLEAN],
    }
    _parameter_symbols = {"topic_word_prior": "eta"}

    def fit(self, X, opinions, doc_topic, initial_topics) -> "OpinionLDA":
        """Learn phi, Psi (and omega, eta) from reviews ``X`` (D x V counts), their reduced
        ratings ``opinions`` (D values in {-1, +1}) and fixed proportions ``doc_topic`` (D x K:
        row d is theta^d, theta^{c^d} or theta^{u^d}). ``initial_topics`` (K x V, e.g. the
        LDA-0 or LDA-C topics: the thesis finds random starts poor) gives E[log phi] of the
        first E-step. Psi^{+-1} start from the word counts of the positive and negative reviews
        plus eta (components.md section 5.2). The fit is deterministic."""
        validate_parameters(self)
        counts = as_counts(X)
        n_docs, n_words = counts.shape
        theta = self._check_inputs(counts, opinions, doc_topic)
        sides = (np.asarray(opinions) > 0).astype(np.int64)
        tokens = ReviewTokens(counts, sides)
        self.omega_ = np.asarray(self.omega, dtype=np.float64).copy()
        self.topic_word_prior_ = float(self.topic_word_prior)
        log_theta = np.log(np.maximum(theta[tokens.doc], 1e-300))
        opinion_counts = np.vstack([np.asarray(counts[sides == side].sum(axis=0)).ravel()
                                    for side in (0, 1)])
        self.opinion_lambda_ = self.topic_word_prior_ + opinion_counts
        initial_topics = np.asarray(initial_topics, dtype=np.float64)
        if initial_topics.shape != (self.n_topics, n_words):
            raise ValueError(f"initial_topics must be K x V = {self.n_topics} x {n_words}, got "
                             f"{initial_topics.shape}")
        expected_log_phi = np.log(np.maximum(
            initial_topics / initial_topics.sum(axis=1, keepdims=True), 1e-300))
        self.elbo_ = []
        descriptive = np.full(tokens.n, self.omega_[0] / self.omega_.sum())
        for _ in range(self.max_iter):
            expected_log_psi = _dirichlet_expected_log(self.opinion_lambda_)
            word_log_phi = expected_log_phi[:, tokens.word].T
            word_log_psi = expected_log_psi[tokens.side, tokens.word]
            responsibilities, descriptive, pi = self._local_step(
                tokens, n_docs, log_theta, word_log_phi, word_log_psi, descriptive)
            weighted = tokens.count * descriptive
            self.topic_lambda_ = self.topic_word_prior_ + (tokens.word_matrix(n_words).T
                                              @ (weighted[:, None] * responsibilities)).T
            qualitative = tokens.count * (1 - descriptive)
            self.opinion_lambda_ = self.topic_word_prior_ + np.vstack([
                np.bincount(tokens.word[tokens.side == side],
                            weights=qualitative[tokens.side == side], minlength=n_words)
                for side in (0, 1)])
            if self.learn_hyperparameters:
                self._m_step(pi)
            expected_log_phi = _dirichlet_expected_log(self.topic_lambda_)
            self.elbo_.append(self._elbo(tokens, log_theta, responsibilities, descriptive, pi))
            if (len(self.elbo_) > 1 and abs(self.elbo_[-1] - self.elbo_[-2])
                    <= self.tol * abs(self.elbo_[-2])):
                break
        self.components_ = self.topic_lambda_ / self.topic_lambda_.sum(axis=1, keepdims=True)
        self.opinion_topics_ = (self.opinion_lambda_
                                / self.opinion_lambda_.sum(axis=1, keepdims=True))
        self.doc_word_type_ = pi
        self.qualitative_share_ = float(np.mean(pi[:, 1] / pi.sum(axis=1)))
        return self

    def _check_inputs(self, counts, opinions, doc_topic) -> np.ndarray:
        n_docs = counts.shape[0]
        opinions = np.asarray(opinions)
        if opinions.shape != (n_docs,) or not np.all(np.isin(opinions, (-1, 1))):
            raise ValueError(f"opinions must hold one value in {{-1, +1}} per review "
                             f"({n_docs})")
        theta = np.asarray(doc_topic, dtype=np.float64)
        if theta.shape != (n_docs, self.n_topics):
            raise ValueError(f"doc_topic must be D x K = {n_docs} x {self.n_topics}, got "
                             f"{theta.shape}")
        if np.any(theta < 0) or not np.allclose(theta.sum(axis=1), 1, atol=1e-6):
            raise ValueError("doc_topic rows must be probability vectors")
        return theta

    def _local_step(self, tokens, n_docs, log_theta, word_log_phi, word_log_psi, descriptive):
        """Appendix 2.A.1's updates of alpha (responsibilities), mu (descriptive probability)
        and pi for every review at once, by coordinate ascent until pi settles."""
        pi = self.omega_ + tokens.per_doc(np.column_stack([descriptive, 1 - descriptive]),
                                          n_docs)
        for _ in range(self.inner_max_iter):
            logits = log_theta + descriptive[:, None] * word_log_phi
            logits -= logits.max(axis=1, keepdims=True)
            responsibilities = np.exp(logits)
            responsibilities /= responsibilities.sum(axis=1, keepdims=True)
            expected_log_p = _dirichlet_expected_log(pi)[tokens.doc]
            # Corrected mu_{n,1}: the alpha-weighted sum (see the module docstring).
            descriptive = expit(expected_log_p[:, 0]
                                + np.sum(responsibilities * word_log_phi, axis=1)
                                - expected_log_p[:, 1] - word_log_psi)
            new_pi = self.omega_ + tokens.per_doc(
                np.column_stack([descriptive, 1 - descriptive]), n_docs)
            change = np.max(np.abs(new_pi - pi) / pi)
            pi = new_pi
            if change < self.inner_tol:
                break
        return responsibilities, descriptive, pi

    def _m_step(self, pi: np.ndarray) -> None:
        """Newton steps for omega and eta (appendix 2.A.2)."""
        n_docs = len(pi)
        log_p_sum = _dirichlet_expected_log(pi).sum(axis=0)

        def omega_objective(omega):
            return (n_docs * (gammaln(omega.sum()) - gammaln(omega).sum())
                    + float((omega - 1) @ log_p_sum))

        self.omega_ = _newton_dirichlet_prior(
            self.omega_, omega_objective,
            lambda omega: n_docs * (digamma(omega.sum()) - digamma(omega)) + log_p_sum,
            lambda omega: (n_docs * polygamma(1, omega.sum()) * np.ones((2, 2))
                           - np.diag(n_docs * polygamma(1, omega))))
        posteriors = np.vstack([self.topic_lambda_, self.opinion_lambda_])
        n_rows, n_words = posteriors.shape
        log_x_sum = float(_dirichlet_expected_log(posteriors).sum())

        def eta_objective(eta):
            eta = float(eta[0])
            return (n_rows * (gammaln(n_words * eta) - n_words * gammaln(eta))
                    + (eta - 1) * log_x_sum)

        eta = _newton_dirichlet_prior(
            np.array([self.topic_word_prior_]), eta_objective,
            lambda eta: np.array([n_rows * n_words * (digamma(n_words * eta[0])
                                                      - digamma(eta[0])) + log_x_sum]),
            lambda eta: np.array([[n_rows * n_words * (n_words * polygamma(1, n_words * eta[0])
                                                       - polygamma(1, eta[0]))]]))
        self.topic_word_prior_ = float(eta[0])

    def _elbo(self, tokens, log_theta, responsibilities, descriptive, pi) -> float:
        """The evidence lower bound L(q) of appendix 2.A at the current parameters."""
        expected_log_phi = _dirichlet_expected_log(self.topic_lambda_)
        expected_log_psi = _dirichlet_expected_log(self.opinion_lambda_)
        expected_log_p = _dirichlet_expected_log(pi)[tokens.doc]
        qualitative = 1 - descriptive
        safe = np.maximum(responsibilities, 1e-300)
        per_token = (np.sum(responsibilities * (log_theta - np.log(safe)), axis=1)
                     + descriptive * np.sum(responsibilities
                                            * expected_log_phi[:, tokens.word].T, axis=1)
                     + qualitative * expected_log_psi[tokens.side, tokens.word]
                     + descriptive * expected_log_p[:, 0] + qualitative * expected_log_p[:, 1]
                     - descriptive * np.log(np.maximum(descriptive, 1e-300))
                     - qualitative * np.log(np.maximum(qualitative, 1e-300)))
        n_words = self.topic_lambda_.shape[1]
        eta = np.full(n_words, self.topic_word_prior_)
        return float(tokens.count @ per_token
                     + _dirichlet_cross_term(np.broadcast_to(self.omega_, pi.shape), pi)
                     + _dirichlet_cross_term(np.broadcast_to(eta, self.topic_lambda_.shape),
                                             self.topic_lambda_)
                     + _dirichlet_cross_term(np.broadcast_to(eta, self.opinion_lambda_.shape),
                                             self.opinion_lambda_))


class ReviewTokens:
    """The nonzero entries of a review-by-word count matrix, one row per (review, word): the
    local variational parameters are shared by the tokens of one word in one review (here and
    in `baselines`)."""

    def __init__(self, counts: sp.csr_matrix, sides: np.ndarray):
        self.doc = np.repeat(np.arange(counts.shape[0]), np.diff(counts.indptr))
        self.word = counts.indices.astype(np.int64)
        self.count = counts.data.astype(np.float64)
        self.side = sides[self.doc]
        self.n = len(self.word)

    def per_doc(self, values: np.ndarray, n_docs: int) -> np.ndarray:
        """Count-weighted sums of per-entry ``values`` (n x c) by review (D x c)."""
        weighted = self.count[:, None] * values
        return np.column_stack([np.bincount(self.doc, weights=weighted[:, j], minlength=n_docs)
                                for j in range(values.shape[1])])

    def word_matrix(self, n_words: int) -> sp.csr_matrix:
        """n x V indicator of each entry's word."""
        return sp.csr_matrix((np.ones(self.n), (np.arange(self.n), self.word)),
                             shape=(self.n, n_words))
