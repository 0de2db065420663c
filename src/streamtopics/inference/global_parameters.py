"""How the statistics s map to the global topic parameters: the second axis of the engine.

A parameterisation gives ``initial_stats(beta_0, alpha_0, document_length)`` (the s_0 it maps
back to the shared initial parameters) and, from the running `SufficientStats`:

* ``word_weights(stats, words, out=None)`` (U x K, written into ``out`` when given): the
  weights of the minibatch's words in the local E-step, the beta_{wk} of equations 11 and 15
  (a Bayesian one gives exp(E_q[log beta_{wk}]) there, thesis section 3.3.4);
* ``row_affine(stats)`` -> (offset K, factor K) such that the reported topic-word distribution is
  component[k, v] = offset_k + factor_k * stats.raw[v, k], which is what `components` returns
  and what the lazy Polyak-Ruppert average needs;
* ``after_step(stats, rho)`` -> the parameterisation for the next step (itself, or one with an
  updated prior), and ``state_arrays()`` / ``with_state(arrays)`` for what such an update
  changes, so a model file resumes exactly.

Two parameterisations:

* `PointEstimate` (frequentist: G-OEM, V-OEM, SPLDA, SGS): beta = the posterior mean of the
  topics under a Dirichlet(eta) prior given the expected counts of the documents seen, or with
  eta = 0 beta*(s), the maximum likelihood M-step of appendix A.1;
* `VariationalDirichlet` (Bayesian: OLDA, SVB, VarGibbs, batch VB): q(beta_k) =
  Dirichlet(lambda_k) with lambda = eta + D s1 (Hoffman, Blei & Bach 2010, eq. 8; thesis eq. 15).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from scipy.special import digamma, polygamma

from ..kernels.statistics import affine_rows
from .stats import SufficientStats


def components_from_affine(stats: SufficientStats, offset: np.ndarray, factor: np.ndarray) -> np.ndarray:
    return offset[:, None] + factor[:, None] * stats.raw.T


class BlendsStatistics:
    """Mixin of the parameterisations whose statistics follow equation 3 (every one but the
    Langevin dynamics of `inference.langevin`)."""

    def blend(self, stats: SufficientStats, rho: float, minibatch, step: int, seed: int,
              start: SufficientStats | None = None) -> None:
        """s_i = (1 - rho) s_{i-1} + rho * the minibatch's average statistics (eq. 3), s_{i-1}
        being ``start`` when given (`SufficientStats.blend`)."""
        stats.blend(rho, minibatch, start)


@dataclass(frozen=True)
class PointEstimate(BlendsStatistics):
    """A point estimate of the topics from s: the posterior mean under a Dirichlet(eta) prior
    given the expected counts of the N documents seen, or with eta = 0 the MLE beta*(s).

        beta_kv = (eta + N s1_kv) / (V eta + N sum_j s1_kj)                (eta > 0)
        beta_kv = s1_kv / sum_j s1_kj                                      (eta = 0, appendix A.1)

    Why: the M-step of Dupuy & Bach (2016, appendix A.1; thesis section 3.2) is the maximum
    likelihood estimate of beta given the expected statistics. s1 is the average over documents
    of the expected topic-word counts (eq. 6), so N s1 is the expected count matrix of the N
    documents seen, and with the symmetric Dirichlet(eta) prior on every topic of the LDA model
    (Blei, Ng & Jordan 2003, section 5.4; the eta of Hoffman et al. 2010 and of the Bayesian
    presets here) the posterior of beta_k given counts n_k is Dirichlet(eta + n_k), whose mean is
    the formula above: the M-step of EM for the posterior mode of Dirichlet(eta + 1), or the
    posterior mean given the expected counts. It gives every word a positive probability in
    every topic, so a held-out word that no training document put in a topic (or never saw)
    does not score -inf, and it is what Gao et al. (2016) sample from in streaming Gibbs
    sampling, (n_kw + eta) / (n_k + V eta) (SGS, with N s1 the accumulated counts under 1/i
    steps). The MLE cannot work with SGS's hard counts: it is exactly 0 wherever a topic's
    samples have not hit a word, and since the Gibbs conditional is proportional to beta_kw, such
    a word can never enter that topic again.

    N = ``stats.n_documents``, the documents blended so far (each pass of ``fit`` counts its
    documents again). Before any document (N = 0) there is no data to smooth and beta = beta*(s_0),
    which is the shared beta_0 exactly (`SufficientStats.from_parameters`), for every eta.

    The form is row-affine in s1 (``row_affine``), so the Polyak-Ruppert average and the lazy
    scale work unchanged. With eta = 0, a topic whose statistics are all zero (possible only
    when a first minibatch without tokens discards s_0) is reported as the uniform distribution.
    """

    topic_word_prior: float = 0.0

    name = "point"

    def initial_stats(self, beta: np.ndarray, alpha: np.ndarray, document_length: float) -> SufficientStats:
        """s_0 that maps back to (beta_0, alpha_0) (`SufficientStats.from_parameters`)."""
        return SufficientStats.from_parameters(beta, alpha, document_length)

    def row_affine(self, stats: SufficientStats) -> tuple[np.ndarray, np.ndarray]:
        eta, weight = self.topic_word_prior, stats.n_documents
        if eta > 0 and weight > 0:
            totals = stats.n_words * eta + weight * stats.topic_totals
            return np.full(stats.n_topics, eta) / totals, weight * stats.scale / totals
        totals = stats.topic_totals
        alive = totals > 0
        factor = np.where(alive, stats.scale / np.where(alive, totals, 1.0), 0.0)
        offset = np.where(alive, 0.0, 1.0 / stats.n_words)
        return offset, factor

    def word_weights(self, stats: SufficientStats, words: np.ndarray,
                     out: np.ndarray | None = None) -> np.ndarray:
        offset, factor = self.row_affine(stats)
        words = np.asarray(words, dtype=np.int64)
        if out is None:
            out = np.empty((words.size, stats.n_topics))
        return affine_rows(stats.raw, words, factor, offset, out)

    def components(self, stats: SufficientStats) -> np.ndarray:
        return components_from_affine(stats, *self.row_affine(stats))

    def topic_word_lambda(self, stats: SufficientStats) -> None:
        """None: point-estimated topics have no Dirichlet parameters."""
        return None

    def after_step(self, stats: SufficientStats, rho: float) -> "PointEstimate":
        return self

    def state_arrays(self) -> dict[str, np.ndarray]:
        return {}

    def with_state(self, arrays: dict[str, np.ndarray]) -> "PointEstimate":
        return self


@dataclass(frozen=True)
class VariationalDirichlet(BlendsStatistics):
    """q(beta_k) = Dirichlet(lambda_k), lambda_kv = eta + D s1_kv (Bayesian topics).

    Hoffman, Blei & Bach (2010), Algorithm 2 and eq. 8: lambda_t = (1 - rho_t) lambda_{t-1} +
    rho_t (eta + (D / S) sum_s n_ts phi_ts). With s1 blended by equation 3 towards the minibatch
    average of the expected counts, eta + D s1_t obeys exactly that recursion, so the engine's
    statistics carry lambda and every step size of the engine applies to it (with 1/i: SVB; with
    rho = 1 on the whole corpus: batch VB, their Algorithm 1).

    * the local E-step weighs word w in topic k by exp(E_q[log beta_kw]) = exp(digamma(lambda_kw)
      - digamma(sum_v lambda_kv)) (their eq. 5-6; thesis section 3.3.4), with Gibbs (VarGibbs,
      Mimno, Hoffman & Blei 2012) or variational (OLDA, SVB) local estimators;
    * the reported topics are E_q[beta_k] = lambda_k / sum_v lambda_kv, as the paper evaluates;
    * ``corpus_size`` D is the number of documents of the whole corpus (required: the weight of
      the data against the prior eta; scikit-learn silently assumes 1e6);
    * ``topic_word_prior`` eta > 0 is the symmetric Dirichlet prior on the topics;
      ``update_prior``: after every step, eta <- eta - rho_t H^-1 g, a damped Newton step on the
      beta part of the ELBO (their eq. 9; O(K V) per step). The statistics keep D s1, so lambda
      always uses the current eta (Hoffman's lambda keeps each step's eta inside its average; the
      two differ only while eta moves).

    Initial statistics: the frequentist s1_0 = L beta_0 (one average document of length L per
    topic, `SufficientStats.from_parameters`) corrected by eta so that lambda_0 = eta + D s1_0 =
    (V eta + D L) beta_0 exactly: E_q[beta_0] = beta_0, and since lambda_0 is large,
    exp(E_q[log beta_0]) is close to beta_0 too, so the first E-step sees the same topics as
    every other method, and s_0 weighs as much against the data as the frequentist one.
    """

    corpus_size: float
    topic_word_prior: float
    update_prior: bool = False

    name = "dirichlet"

    def __post_init__(self):
        size = self.corpus_size  # its type and range: the estimator's constraints table
        if size is None:
            raise ValueError(
                f"Bayesian topic parameters (lambda = eta + D s1, Hoffman et al. 2010, eq. 8) need "
                f"the corpus size D, the number of documents of the whole corpus: pass "
                f"corpus_size=D (fit fills it from the corpus it is given; partial_fit cannot "
                f"know it), got {size!r}")
        if not self.topic_word_prior > 0:  # the table allows eta = 0, the MLE of point estimates
            raise ValueError(f"topic_word_prior (eta) of Bayesian topics must be a positive "
                             f"number, got {self.topic_word_prior!r}")

    def _lambda_totals(self, stats: SufficientStats) -> np.ndarray:
        return stats.n_words * self.topic_word_prior + self.corpus_size * stats.topic_totals

    def initial_stats(self, beta: np.ndarray, alpha: np.ndarray, document_length: float) -> SufficientStats:
        """s_0 with lambda_0 = eta + D s1_0 = (V eta + D L) beta_0, L = ``document_length``."""
        beta = np.asarray(beta, dtype=np.float64)
        initial_lambda = (beta.shape[1] * self.topic_word_prior + self.corpus_size * document_length) * beta
        return self.stats_for_lambda(initial_lambda, alpha)

    def stats_for_lambda(self, topic_word_lambda: np.ndarray, alpha: np.ndarray) -> SufficientStats:
        """The statistics whose lambda = eta + D s1 is ``topic_word_lambda`` (K x V, positive),
        with s2 that of ``alpha`` (e.g. to start from another initialisation of lambda)."""
        alpha = np.asarray(alpha, dtype=np.float64)
        raw = (np.asarray(topic_word_lambda, dtype=np.float64).T - self.topic_word_prior) / self.corpus_size
        return SufficientStats(raw, digamma(alpha) - digamma(alpha.sum()))

    def row_affine(self, stats: SufficientStats) -> tuple[np.ndarray, np.ndarray]:
        """E_q[beta_kv] = (eta + D scale raw_vk) / (V eta + D sum_v s1_kv)."""
        totals = self._lambda_totals(stats)
        return self.topic_word_prior / totals, self.corpus_size * stats.scale / totals

    def word_weights(self, stats: SufficientStats, words: np.ndarray,
                     out: np.ndarray | None = None) -> np.ndarray:
        """exp(E_q[log beta_kw]) for the given words, U x K."""
        lam = self.topic_word_prior + self.corpus_size * stats.word_topic(words)
        return np.exp(digamma(lam) - digamma(self._lambda_totals(stats)), out=out)

    def components(self, stats: SufficientStats) -> np.ndarray:
        return components_from_affine(stats, *self.row_affine(stats))

    def topic_word_lambda(self, stats: SufficientStats) -> np.ndarray:
        """lambda, K x V (O(K V))."""
        return self.topic_word_prior + self.corpus_size * stats.topic_word()

    def after_step(self, stats: SufficientStats, rho: float) -> "VariationalDirichlet":
        if not self.update_prior:
            return self
        return replace(self, topic_word_prior=newton_topic_word_prior(
            self.topic_word_prior, self.topic_word_lambda(stats), rho))

    def state_arrays(self) -> dict[str, np.ndarray]:
        return {"topic_word_prior": np.array(self.topic_word_prior)}

    def with_state(self, arrays: dict[str, np.ndarray]) -> "VariationalDirichlet":
        if "topic_word_prior" not in arrays:
            return self
        return replace(self, topic_word_prior=float(arrays["topic_word_prior"]))


def newton_topic_word_prior(eta: float, topic_word_lambda: np.ndarray, rho: float = 1.0) -> float:
    """eta - rho g / h: a Newton step (damped by rho, Hoffman et al. 2010, eq. 9) on

        f(eta) = sum_k [log Gamma(V eta) - V log Gamma(eta) + (eta - 1) sum_v E_q[log beta_kv]],

    the part of the ELBO that depends on a symmetric eta, with g = f'(eta) and h = f''(eta) < 0
    (f is concave). At rho = 1, iterating finds the eta with V digamma(V eta) - V digamma(eta) =
    -(1/K) sum_kv E_q[log beta_kv]. The step is halved until eta stays positive."""
    n_topics, n_words = topic_word_lambda.shape
    if n_words == 1:
        # V = 1: beta = 1 whatever eta, so g = h = 0 (eta is not identifiable; 0/0 gave NaN).
        return float(eta)
    elog_sum = (digamma(topic_word_lambda).sum()
                - n_words * digamma(topic_word_lambda.sum(axis=1)).sum())
    gradient = n_topics * n_words * (digamma(n_words * eta) - digamma(eta)) + elog_sum
    hessian = n_topics * n_words * (n_words * polygamma(1, n_words * eta) - polygamma(1, eta))
    step = -rho * gradient / hessian
    while eta + step <= 0:
        step *= 0.5
    return float(eta + step)
