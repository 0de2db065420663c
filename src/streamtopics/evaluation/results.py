"""Result values of held-out evaluation, with the figures the papers use named plainly.

`HeldOutLikelihood` (left-to-right, document completion) carries both units in use:
- the mean per-document log-likelihood and its negative, the "log-perplexity per document" of
  Dupuy & Bach (2016, section 5), the unit of their figures;
- the per-token perplexity exp(-sum_d log p(w_d) / sum_d N_d) (Papanikolaou et al. 2017,
  eq. 56; Hoffman et al. 2010, eq. 15).
Standard errors treat the documents as an independent sample: the usual one for the mean, and
the delta method for the per-token ratio. `HeldOutBound` carries a variational lower bound
(ELBO) and never calls it a likelihood or a perplexity.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np


def _mean_and_standard_error(values: np.ndarray) -> tuple[float, float]:
    n = values.size
    if n == 0:
        return math.nan, math.nan
    mean = float(values.mean())
    if n < 2 or not np.all(np.isfinite(values)):
        return mean, math.nan
    return mean, float(values.std(ddof=1) / math.sqrt(n))


def _ratio_and_standard_error(numerators: np.ndarray,
                              denominators: np.ndarray) -> tuple[float, float]:
    """sum(numerators) / sum(denominators) and its delta-method standard error.

    With documents as independent pairs (L_d, N_d) and r = sum L / sum N,
    Var(r) ~ Var(L_d - r N_d) / (D mean(N)^2).
    """
    total = float(denominators.sum())
    if total == 0:
        return math.nan, math.nan
    ratio = float(numerators.sum()) / total
    n = numerators.size
    if n < 2 or not math.isfinite(ratio):
        return ratio, math.nan
    residuals = numerators - ratio * denominators
    mean_length = total / n
    return ratio, float(residuals.std(ddof=1) / (math.sqrt(n) * mean_length))


def _format_number(value: float) -> str:
    return f"{value:.6g}" if math.isfinite(value) else str(value)


@dataclass(frozen=True)
class HeldOutLikelihood:
    """Per-document held-out log-likelihoods (nats) and the summaries derived from them.

    Attributes
    ----------
    log_likelihoods : (D,) estimates of log p(w_d | beta, alpha) in nats (for document
        completion: log p of each document's held-out second half).
    document_lengths : (D,) number of tokens each figure covers.
    method : name of the estimator, e.g. "left-to-right".
    settings : the estimator's settings (particles, seed, ...), for the record.
    """

    log_likelihoods: np.ndarray
    document_lengths: np.ndarray
    method: str
    settings: dict = field(default_factory=dict)

    @property
    def n_documents(self) -> int:
        return int(self.log_likelihoods.size)

    @property
    def n_tokens(self) -> int:
        return int(self.document_lengths.sum())

    @property
    def total_log_likelihood(self) -> float:
        return float(self.log_likelihoods.sum())

    @property
    def mean_log_likelihood_per_document(self) -> float:
        return _mean_and_standard_error(self.log_likelihoods)[0]

    @property
    def mean_log_likelihood_per_document_se(self) -> float:
        """Standard error of the mean over documents."""
        return _mean_and_standard_error(self.log_likelihoods)[1]

    @property
    def log_perplexity_per_document(self) -> float:
        """-mean_d log p(w_d): the unit of the Dupuy & Bach (2016) figures; lower is better."""
        return -self.mean_log_likelihood_per_document

    @property
    def log_perplexity_per_document_se(self) -> float:
        return self.mean_log_likelihood_per_document_se

    @property
    def log_likelihood_per_token(self) -> float:
        """sum_d log p(w_d) / sum_d N_d."""
        return _ratio_and_standard_error(self.log_likelihoods, self.document_lengths)[0]

    @property
    def log_likelihood_per_token_se(self) -> float:
        """Delta-method standard error of the per-token log-likelihood."""
        return _ratio_and_standard_error(self.log_likelihoods, self.document_lengths)[1]

    @property
    def per_token_perplexity(self) -> float:
        """exp(-sum_d log p(w_d) / sum_d N_d); lower is better, 1 is perfect."""
        return math.exp(-self.log_likelihood_per_token)

    @property
    def per_token_perplexity_se(self) -> float:
        """Delta method: perplexity times the standard error of the per-token log-likelihood."""
        return self.per_token_perplexity * self.log_likelihood_per_token_se

    def as_dict(self, per_document: bool = False) -> dict:
        """A JSON-ready summary; ``per_document=True`` adds the per-document figures."""
        result = {
            "method": self.method,
            "settings": dict(self.settings),
            "n_documents": self.n_documents,
            "n_tokens": self.n_tokens,
            "mean_log_likelihood_per_document": self.mean_log_likelihood_per_document,
            "mean_log_likelihood_per_document_se": self.mean_log_likelihood_per_document_se,
            "log_perplexity_per_document": self.log_perplexity_per_document,
            "log_perplexity_per_document_se": self.log_perplexity_per_document_se,
            "log_likelihood_per_token": self.log_likelihood_per_token,
            "log_likelihood_per_token_se": self.log_likelihood_per_token_se,
            "per_token_perplexity": self.per_token_perplexity,
            "per_token_perplexity_se": self.per_token_perplexity_se,
            "unit": "nats",
        }
        if per_document:
            result["log_likelihoods"] = self.log_likelihoods.tolist()
            result["document_lengths"] = self.document_lengths.tolist()
        return result

    def __str__(self) -> str:
        f = _format_number
        return "\n".join([
            f"held-out log-likelihood ({self.method}), {self.n_documents} documents, "
            f"{self.n_tokens} tokens, nats",
            f"  mean log-likelihood per document  {f(self.mean_log_likelihood_per_document)}"
            f" ± {f(self.mean_log_likelihood_per_document_se)}",
            f"  log-perplexity per document       {f(self.log_perplexity_per_document)}"
            f" ± {f(self.log_perplexity_per_document_se)}",
            f"  log-likelihood per token          {f(self.log_likelihood_per_token)}"
            f" ± {f(self.log_likelihood_per_token_se)}",
            f"  per-token perplexity              {f(self.per_token_perplexity)}"
            f" ± {f(self.per_token_perplexity_se)}",
        ])


@dataclass(frozen=True)
class HeldOutBound:
    """Per-document evidence lower bounds (ELBO, nats): each bound <= log p(w_d | ...).

    A bound is not a likelihood: it is reported as such and never turned into a "perplexity".
    ``description`` states exactly which terms are included.
    """

    bounds: np.ndarray
    document_lengths: np.ndarray
    method: str
    description: str
    settings: dict = field(default_factory=dict)

    @property
    def n_documents(self) -> int:
        return int(self.bounds.size)

    @property
    def n_tokens(self) -> int:
        return int(self.document_lengths.sum())

    @property
    def total_bound(self) -> float:
        return float(self.bounds.sum())

    @property
    def mean_bound_per_document(self) -> float:
        return _mean_and_standard_error(self.bounds)[0]

    @property
    def mean_bound_per_document_se(self) -> float:
        return _mean_and_standard_error(self.bounds)[1]

    @property
    def bound_per_token(self) -> float:
        """sum_d ELBO_d / sum_d N_d."""
        return _ratio_and_standard_error(self.bounds, self.document_lengths)[0]

    @property
    def bound_per_token_se(self) -> float:
        return _ratio_and_standard_error(self.bounds, self.document_lengths)[1]

    def as_dict(self, per_document: bool = False) -> dict:
        result = {
            "method": self.method,
            "description": self.description,
            "settings": dict(self.settings),
            "n_documents": self.n_documents,
            "n_tokens": self.n_tokens,
            "mean_bound_per_document": self.mean_bound_per_document,
            "mean_bound_per_document_se": self.mean_bound_per_document_se,
            "bound_per_token": self.bound_per_token,
            "bound_per_token_se": self.bound_per_token_se,
            "unit": "nats",
        }
        if per_document:
            result["bounds"] = self.bounds.tolist()
            result["document_lengths"] = self.document_lengths.tolist()
        return result

    def __str__(self) -> str:
        f = _format_number
        return "\n".join([
            f"evidence lower bound ({self.method}), {self.n_documents} documents, "
            f"{self.n_tokens} tokens, nats (a bound, not a likelihood)",
            f"  {self.description}",
            f"  mean bound per document  {f(self.mean_bound_per_document)}"
            f" ± {f(self.mean_bound_per_document_se)}",
            f"  bound per token          {f(self.bound_per_token)} ± {f(self.bound_per_token_se)}",
        ])
