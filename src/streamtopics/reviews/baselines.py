"""The comparison points of Dupuy's thesis, section 2.2, for review word prediction.

`SupervisedLDA`: sLDA with a Gaussian response (McAuliffe & Blei 2008): LDA whose rating
y_d ~ N(eta^T zbar_d, sigma^2) depends on the review's empirical topic frequencies zbar_d;
variational EM (their eq. 10-11 for phi and gamma, eq. 14-15 for eta and sigma^2). The thesis
uses its topics and theta to predict words: a test review's theta is unknown, so it is scored by
left-to-right with sLDA's topics, like LDA-0.

Simplifications (stated in docs/reviews.md): alpha is fixed (the thesis' LDA-0 alpha is passed
in); the tokens of one word in one review share their variational distribution phi (the
update for one token then treats the other copies as "other tokens", exactly as if the tokens
were updated simultaneously); topics are started from an LDA's, as for the opinion models.
"""

from __future__ import annotations

import numpy as np
from scipy.special import digamma

from ..corpus.corpus import as_counts
from ..estimators.base import RANDOM_STATE
from ..validation import Integral, Interval, PositiveVector, Real, validate_parameters
from .opinion import ReviewTokens


class SupervisedLDA:
    """sLDA with a Gaussian response (McAuliffe & Blei 2008), learnt by variational EM.

    Parameters
    ----------
    n_topics : K.
    doc_topic_prior : alpha, the (fixed) Dirichlet prior on theta, a number or K numbers.
    topic_word_prior : pseudo-count added to every topic's expected counts in the M-step (keeps
        every word's probability positive for held-out scoring).
    max_iter, inner_max_iter, inner_tol : outer EM iterations; per-review coordinate ascent
        until gamma's relative change is below ``inner_tol``.

    Fitted attributes: ``components_`` (K x V), ``coefficients_`` (eta, K), ``noise_variance_``
    (sigma^2), ``doc_topic_`` (E[zbar_d], D x K).
    """

    def __init__(self, n_topics: int, doc_topic_prior=0.1, topic_word_prior: float = 0.01,
                 max_iter: int = 30, inner_max_iter: int = 20, inner_tol: float = 1e-4):
        self.n_topics = n_topics
        self.doc_topic_prior = doc_topic_prior
        self.topic_word_prior = topic_word_prior
        self.max_iter = max_iter
        self.inner_max_iter = inner_max_iter
        self.inner_tol = inner_tol

    _parameter_constraints = {
        "n_topics": [Interval(Integral, 1, None)],
        "doc_topic_prior": [Interval(Real, 0, None, "neither"), PositiveVector("n_topics")],
        "topic_word_prior": [Interval(Real, 0, None)],
        "max_iter": [Interval(Integral, 1, None)],
        "inner_max_iter": [Interval(Integral, 1, None)],
        "inner_tol": [Interval(Real, 0, None)],
    }
    _parameter_symbols = {"doc_topic_prior": "alpha"}

    def fit(self, X, ratings, initial_topics) -> "SupervisedLDA":
        """Learn the topics, eta and sigma^2 from reviews ``X`` (D x V counts), their numeric
        ``ratings`` and ``initial_topics`` (K x V, e.g. LDA-0's)."""
        validate_parameters(self)
        counts = as_counts(X)
        n_docs, n_words = counts.shape
        ratings = np.asarray(ratings, dtype=np.float64)
        if ratings.shape != (n_docs,) or not np.all(np.isfinite(ratings)):
            raise ValueError(f"ratings must be {n_docs} finite numbers, one per review")
        topics = np.asarray(initial_topics, dtype=np.float64)
        if topics.shape != (self.n_topics, n_words):
            raise ValueError(f"initial_topics must be K x V = {self.n_topics} x {n_words}")
        tokens = ReviewTokens(counts, np.zeros(n_docs, dtype=np.int64))
        lengths = np.asarray(counts.sum(axis=1), dtype=np.float64).ravel()
        alpha = np.broadcast_to(np.asarray(self.doc_topic_prior, float), (self.n_topics,))
        coefficients = np.zeros(self.n_topics)
        variance = float(np.var(ratings)) or 1.0
        phi = np.full((tokens.n, self.n_topics), 1.0 / self.n_topics)
        for _ in range(self.max_iter):
            log_topics = np.log(np.maximum(topics / topics.sum(axis=1, keepdims=True),
                                           1e-300))[:, tokens.word].T
            phi, totals = self._local_step(tokens, n_docs, lengths, ratings, alpha, log_topics,
                                           coefficients, variance, phi)
            topics = self.topic_word_prior + (tokens.word_matrix(n_words).T
                                              @ (tokens.count[:, None] * phi)).T
            coefficients, variance = self._regression(tokens, lengths, ratings, phi, totals)
        self.components_ = topics / topics.sum(axis=1, keepdims=True)
        self.coefficients_ = coefficients
        self.noise_variance_ = variance
        self.doc_topic_ = totals / np.maximum(lengths, 1)[:, None]
        return self

    def _local_step(self, tokens, n_docs, lengths, ratings, alpha, log_topics, coefficients,
                    variance, phi):
        """McAuliffe & Blei eq. 10-11, every review at once: phi_n is proportional to
        exp(E[log theta] + log beta_{w_n} + y eta / (N sigma^2)
            - (2 (eta . phi_{-n}) eta + eta * eta) / (2 N^2 sigma^2))."""
        length = np.maximum(lengths, 1)[tokens.doc]
        linear = (ratings[tokens.doc] / (length * variance))[:, None] * coefficients
        square = (coefficients ** 2)[None, :] / (2 * length[:, None] ** 2 * variance)
        totals = tokens.per_doc(phi, n_docs)
        gamma = alpha + totals
        for _ in range(self.inner_max_iter):
            expected_log_theta = (digamma(gamma)
                                  - digamma(gamma.sum(axis=1, keepdims=True)))[tokens.doc]
            others = totals[tokens.doc] - phi
            logits = (expected_log_theta + log_topics + linear - square
                      - ((others @ coefficients) / (length ** 2 * variance))[:, None]
                      * coefficients)
            logits -= logits.max(axis=1, keepdims=True)
            phi = np.exp(logits)
            phi /= phi.sum(axis=1, keepdims=True)
            totals = tokens.per_doc(phi, n_docs)
            new_gamma = alpha + totals
            change = np.max(np.abs(new_gamma - gamma) / gamma)
            gamma = new_gamma
            if change < self.inner_tol:
                break
        return phi, totals

    def _regression(self, tokens, lengths, ratings, phi, totals):
        """McAuliffe & Blei eq. 14-15: eta = E[A^T A]^-1 E[A]^T y and
        sigma^2 = (y^T y - y^T E[A] eta) / D, with E[zbar_d] = sum_n phi_n / N and
        E[zbar_d zbar_d^T] = (sum_{n != m} phi_n phi_m^T + sum_n diag(phi_n)) / N^2."""
        scale = 1.0 / np.maximum(lengths, 1)
        mean_topics = totals * scale[:, None]
        weight = tokens.count * scale[tokens.doc] ** 2
        second_moment = (mean_topics.T @ mean_topics
                         - (phi * weight[:, None]).T @ phi
                         + np.diag(weight @ phi))
        moment = mean_topics.T @ ratings
        coefficients = np.linalg.solve(second_moment + 1e-10 * np.eye(len(moment)), moment)
        variance = max(float(ratings @ ratings - moment @ coefficients) / len(ratings), 1e-12)
        return coefficients, variance


class HiddenFactorsTopics:
    """HFT (McAuley & Leskovec 2013): a latent-factor rating model whose item factors gamma_i
    are also the item's topic proportions, theta_i = softmax(kappa gamma_i), over the item's
    concatenated reviews. It minimises
        sum_reviews (a + b_u + b_i + gamma_u . gamma_i - r)^2
        + regularization (|b|^2 + |gamma|^2) - trade_off * sum_items sum_k n_ik log theta_ik
    alternately over the rating parameters and kappa (L-BFGS), the topics phi (closed form) and
    the topic assignments. Words of a test review are predicted pointwise from its item's
    theta and phi, as the thesis does.

    Simplification (docs/reviews.md): expected topic assignments n_ik = sum_w c_iw
    p(k | i, w) replace the paper's sampled ones (an EM version of its alternating scheme),
    and phi gets a pseudo-count ``topic_word_prior``.

    Fitted attributes: ``components_`` (phi, K x V), ``item_ids_``, ``item_topics_`` (theta,
    one row per item), ``kappa_``, ``rating_rmse_`` (training).
    """

    def __init__(self, n_topics: int, trade_off: float = 0.1, regularization: float = 0.1,
                 topic_word_prior: float = 0.01, n_rounds: int = 20, random_state=0):
        self.n_topics = n_topics
        self.trade_off = trade_off
        self.regularization = regularization
        self.topic_word_prior = topic_word_prior
        self.n_rounds = n_rounds
        self.random_state = random_state

    _parameter_constraints = {
        "n_topics": [Interval(Integral, 1, None)],
        "trade_off": [Interval(Real, 0, None)],
        "regularization": [Interval(Real, 0, None)],
        "topic_word_prior": [Interval(Real, 0, None)],
        "n_rounds": [Interval(Integral, 1, None)],
        "random_state": RANDOM_STATE,
    }

    def fit(self, X, users, items, ratings) -> "HiddenFactorsTopics":
        from scipy.optimize import minimize

        from .scoring import group_documents
        validate_parameters(self)
        counts = as_counts(X)
        user_ids, user_rows = np.unique(np.asarray(users), return_inverse=True)
        grouped, self.item_ids_, item_rows = group_documents(counts, items)
        problem = _RatingProblem(np.asarray(ratings, dtype=np.float64), user_rows, item_rows,
                                 len(user_ids), len(self.item_ids_), self.n_topics,
                                 self.regularization, self.trade_off)
        rng = np.random.default_rng(self.random_state)
        tokens = ReviewTokens(grouped, np.zeros(problem.n_items, dtype=np.int64))
        vector = problem.start(rng)
        topics = rng.dirichlet(np.ones(grouped.shape[1]), self.n_topics)
        for _ in range(self.n_rounds):
            theta = problem.item_topics(vector)
            responsibilities = theta[tokens.doc] * topics[:, tokens.word].T
            responsibilities /= responsibilities.sum(axis=1, keepdims=True)
            item_topic_counts = tokens.per_doc(responsibilities, problem.n_items)
            topics = self.topic_word_prior + (tokens.word_matrix(grouped.shape[1]).T
                                              @ (tokens.count[:, None] * responsibilities)).T
            topics /= topics.sum(axis=1, keepdims=True)
            vector = minimize(problem.objective, vector, args=(item_topic_counts,), jac=True,
                              method="L-BFGS-B", options={"maxiter": 50}).x
        self.item_topics_ = problem.item_topics(vector)
        self.components_ = topics
        self.kappa_ = float(vector[-1])
        self.rating_rmse_ = float(np.sqrt(np.mean(problem.errors(vector) ** 2)))
        return self

    def item_theta(self, items) -> np.ndarray:
        """theta of each item in ``items`` (seen in training; KeyError otherwise)."""
        items = np.asarray(items)
        rows = np.minimum(np.searchsorted(self.item_ids_, items), len(self.item_ids_) - 1)
        if not np.array_equal(self.item_ids_[rows], items):
            raise KeyError("an item was not seen in training")
        return self.item_topics_[rows]


class _RatingProblem:
    """HFT's objective over (a, b_u, b_i, gamma_u, gamma_i, kappa) packed in one vector, with
    its gradient (for L-BFGS), given the expected topic counts n_ik of the item documents."""

    def __init__(self, ratings, user_rows, item_rows, n_users, n_items, n_topics,
                 regularization, trade_off):
        self.ratings, self.user_rows, self.item_rows = ratings, user_rows, item_rows
        self.n_users, self.n_items, self.n_topics = n_users, n_items, n_topics
        self.regularization, self.trade_off = regularization, trade_off
        sizes = [1, n_users, n_items, n_users * n_topics, n_items * n_topics, 1]
        self.cuts = np.cumsum(sizes)[:-1]

    def start(self, rng) -> np.ndarray:
        return np.concatenate([[self.ratings.mean()], np.zeros(self.n_users + self.n_items),
                               rng.normal(0, 0.1, (self.n_users + self.n_items) * self.n_topics),
                               [1.0]])

    def unpack(self, vector):
        offset, user_bias, item_bias, user_f, item_f, kappa = np.split(vector, self.cuts)
        return (offset[0], user_bias, item_bias, user_f.reshape(self.n_users, self.n_topics),
                item_f.reshape(self.n_items, self.n_topics), kappa[0])

    def errors(self, vector) -> np.ndarray:
        offset, user_bias, item_bias, user_f, item_f, _ = self.unpack(vector)
        return (offset + user_bias[self.user_rows] + item_bias[self.item_rows]
                + np.sum(user_f[self.user_rows] * item_f[self.item_rows], axis=1) - self.ratings)

    def item_topics(self, vector) -> np.ndarray:
        *_, item_f, kappa = self.unpack(vector)
        logits = kappa * item_f
        return np.exp(logits - np.logaddexp.reduce(logits, axis=1, keepdims=True))

    def objective(self, vector, item_topic_counts) -> tuple[float, np.ndarray]:
        _, user_bias, item_bias, user_f, item_f, kappa = self.unpack(vector)
        error = self.errors(vector)
        theta = self.item_topics(vector)
        reg = self.regularization
        value = (error @ error + reg * (user_bias @ user_bias + item_bias @ item_bias
                                        + np.sum(user_f ** 2) + np.sum(item_f ** 2))
                 - self.trade_off * np.sum(item_topic_counts * np.log(theta)))
        # d/d(kappa gamma_ik) of -sum_k n_ik log theta_ik is -(n_ik - N_i theta_ik)
        topic_gradient = -self.trade_off * (item_topic_counts
                                            - item_topic_counts.sum(1, keepdims=True) * theta)
        user_rows, item_rows = self.user_rows, self.item_rows
        gradient = np.concatenate([
            [2 * error.sum()],
            2 * np.bincount(user_rows, error, self.n_users) + 2 * reg * user_bias,
            2 * np.bincount(item_rows, error, self.n_items) + 2 * reg * item_bias,
            (2 * _rows_sum(user_rows, error[:, None] * item_f[item_rows], self.n_users)
             + 2 * reg * user_f).ravel(),
            (2 * _rows_sum(item_rows, error[:, None] * user_f[user_rows], self.n_items)
             + 2 * reg * item_f + kappa * topic_gradient).ravel(),
            [np.sum(topic_gradient * item_f)]])
        return value, gradient


def _rows_sum(rows: np.ndarray, values: np.ndarray, n_rows: int) -> np.ndarray:
    """sum of ``values`` (n x K) by ``rows`` (n), n_rows x K."""
    out = np.zeros((n_rows, values.shape[1]))
    np.add.at(out, rows, values)
    return out
