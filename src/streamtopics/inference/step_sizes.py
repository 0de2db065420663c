"""Step sizes rho_i of online EM (equation 3), as small value objects.

Each takes the 1-based step index i, the documents of the minibatch and the documents blended
before it; only `Incremental` uses the counts. `Floored` bounds any of them from below.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PolynomialDecay:
    """rho_i = (offset + i)^(-decay), decay (kappa) in (0, 1], offset (tau0) >= 0.

    The paper's choice is offset 0, decay 1/2 (Dupuy & Bach 2016, section 5.1 and appendix B.2);
    with offset 0 the first step is rho_1 = 1, which discards the initial statistics s_0.
    """

    offset: float = 0.0
    decay: float = 0.5

    def __post_init__(self):
        if not 0.0 < self.decay <= 1.0:
            raise ValueError(f"step decay (kappa) must lie in (0, 1], got {self.decay!r}")
        if not self.offset >= 0.0:
            raise ValueError(f"step offset (tau0) must be >= 0, got {self.offset!r}")

    def __call__(self, step: int, batch_documents: float = 0.0, seen_documents: float = 0.0) -> float:
        return float((self.offset + step) ** -self.decay)


@dataclass(frozen=True)
class Incremental:
    """rho_i = B_i / (B_1 + ... + B_i): s_i is the plain average of every document's expected
    statistics (incremental EM, Neal & Hinton 1998; "1/i" of section 2.2 when minibatches have
    equal sizes, exact for a short last minibatch). SVB, SPLDA and SGS use it (thesis, Table 4)."""

    def __call__(self, step: int, batch_documents: float = 0.0, seen_documents: float = 0.0) -> float:
        if batch_documents <= 0:
            return 1.0 / step
        return float(batch_documents / (seen_documents + batch_documents))


@dataclass(frozen=True)
class Constant:
    """rho_i = value for every step, in (0, 1]. With value 1 each step replaces the statistics by
    its own expectations: over the whole corpus, one iteration of batch EM, or of batch VB with
    Bayesian topics (Hoffman et al. 2010, Algorithm 1: online VB with S = D and kappa = 0)."""

    value: float = 1.0

    def __post_init__(self):
        if not 0.0 < self.value <= 1.0:
            raise ValueError(f"a constant step size must lie in (0, 1], got {self.value!r}")

    def __call__(self, step: int, batch_documents: float = 0.0, seen_documents: float = 0.0) -> float:
        return float(self.value)


@dataclass(frozen=True)
class Floored:
    """rho_i = max(schedule's rho_i, floor), floor in (0, 1): online EM that forgets.

    A decreasing schedule makes s_i an average over the whole stream (the convergence
    conditions of Cappe & Moulines 2009: sum rho_i infinite, sum rho_i^2 finite), so late
    documents barely move a model trained long ago. With a floor, eq. 3 becomes an exponential
    moving average once the schedule falls below it: the minibatch of n steps ago weighs about
    floor (1 - floor)^n, a memory of about 1/floor minibatches, and the topics follow a stream
    whose topics drift (the constant-step regime of stochastic approximation, which tracks a
    moving optimum at the price of a variance of order floor)."""

    schedule: object
    floor: float

    def __post_init__(self):
        if not 0.0 < self.floor < 1.0:
            raise ValueError(f"a step size floor must lie in (0, 1), got {self.floor!r}")

    def __call__(self, step: int, batch_documents: float = 0.0, seen_documents: float = 0.0) -> float:
        return max(self.schedule(step, batch_documents, seen_documents), self.floor)
