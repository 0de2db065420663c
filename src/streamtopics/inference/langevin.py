"""Stochastic gradient Riemannian Langevin dynamics for LDA's topics (Patterson & Teh 2013), the
"LDS" baseline of the thesis (Dupuy 2017, section 3.5, P = 200 local passes).

The thesis gives no equation (specs/components.md section 2); these are Patterson & Teh's,
section 4 ("expanded-mean" parameterisation). Topic k is beta_k = theta_k / sum_w theta_kw with
theta_kw >= 0 unnormalised and the prior theta_kw ~ Gamma(eta, 1) i.i.d. (which makes beta_k ~
Dirichlet(eta)). On minibatch i of n documents from a corpus of D, with step epsilon_i:

    theta*_kw = theta_kw + (epsilon_i / 2) (eta - theta_kw + D g_kw) + theta_kw^(1/2) xi_kw,
    g_kw = (1/n) sum_d E[n_dkw - beta_kw n_dk.],   xi_kw ~ N(0, epsilon_i),
    theta_kw <- |theta*_kw|                       (mirrored at 0),
    epsilon_i = a (1 + i / b)^-c.

The expectations E[n_dkw], E[n_dk.] given beta and a fixed alpha are the library's Gibbs local
step (Algorithm 2 with theta_d collapsed, its last quarter averaged): the minibatch's average
statistics, what the engine would blend. Here they drive the update above instead of the blend
of eq. 3 (`LangevinTopics.blend`), so the statistics s1 carry theta itself (stored V x K as every
s1): the reported topics and the next E-step's weights are theta normalised. Why this drift:
with the metric G(theta) = diag(1 / theta), the Riemannian Langevin drift is (epsilon / 2)
(G^-1 grad log p + sum_j d(G^-1)_ij / d theta_j) = (epsilon / 2)(theta (grad log p) + 1), and
theta_kw d/dtheta_kw [(eta - 1) log theta_kw - theta_kw + D log p(w | beta(theta))] + 1 = eta -
theta_kw + D g_kw. Without data the update is the Euler scheme of the Cox-Ingersoll-Ross
diffusion d theta = (1/2)(eta - theta) dt + theta^(1/2) dW, whose stationary law is Gamma(eta, 1)
(tests/test_langevin.py checks both).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .stats import MinibatchStats, SufficientStats

# The random stream of the noise of step i: (seed, i, LANGEVIN_STREAM).
LANGEVIN_STREAM = 0x5631D


def langevin_step(theta: np.ndarray, gradient: np.ndarray, epsilon: float, prior: float,
                  rng: np.random.Generator | None) -> np.ndarray:
    """|theta + (epsilon / 2)(prior - theta + gradient) + theta^(1/2) N(0, epsilon)| elementwise
    (module docstring; ``gradient`` = D g, ``rng`` None: no noise, the drift alone)."""
    moved = theta + 0.5 * epsilon * (prior - theta + gradient)
    if rng is not None:
        moved += np.sqrt(theta * epsilon) * rng.standard_normal(theta.shape)
    return np.abs(moved)


def likelihood_gradient(theta: np.ndarray, word_topic: np.ndarray,
                        topic_totals: np.ndarray) -> np.ndarray:
    """g = E[n_kw] - beta_kw E[n_k.] (K x V; ``word_topic`` K x V expected counts,
    ``topic_totals`` their row sums, per document)."""
    return word_topic - theta / theta.sum(axis=1, keepdims=True) * topic_totals[:, None]


@dataclass(frozen=True)
class LangevinTopics:
    """The "langevin" global parameters (SGRLD): s1 holds theta (module docstring).

    ``corpus_size`` D, ``topic_word_prior`` eta (the Gamma(eta, 1) prior, Dirichlet(eta) on
    beta), step sizes epsilon_i = ``step_scale`` (1 + i / ``step_offset``)^-``step_decay``
    (Patterson & Teh's a, b, c)."""

    corpus_size: float
    topic_word_prior: float
    step_scale: float = 0.01
    step_offset: float = 1000.0
    step_decay: float = 0.55

    name = "langevin"

    def __post_init__(self):
        if self.corpus_size is None:
            raise ValueError("Langevin dynamics (SGRLD) weigh the minibatch by the corpus size D: "
                             "pass corpus_size=D")
        if not self.topic_word_prior > 0:
            raise ValueError(f"topic_word_prior (eta) of SGRLD must be a positive number, got "
                             f"{self.topic_word_prior!r}")

    def step_size(self, step: int) -> float:
        return self.step_scale * (1.0 + step / self.step_offset) ** -self.step_decay

    def initial_stats(self, beta: np.ndarray, alpha: np.ndarray,
                      document_length: float) -> SufficientStats:
        """theta_0 = V eta beta_0: the shared start beta_0 at the scale of theta in the stationary
        regime (summing the drift over w, the likelihood terms cancel and sum_w theta_kw relaxes
        to V eta at rate epsilon / 2 per step; started at lambda_0's scale, V eta + D L as
        `VariationalDirichlet`, it took thousands of steps to get there and learnt nothing on
        the way)."""
        beta = np.asarray(beta, dtype=np.float64)
        return SufficientStats.from_parameters(beta, alpha, beta.shape[1] * self.topic_word_prior)

    def blend(self, stats: SufficientStats, rho: float, minibatch: MinibatchStats, step: int,
              seed: int) -> None:
        """theta_i from theta_{i-1} and the minibatch's expected counts (module docstring), in
        place of eq. 3; ``rho`` is unused. O(K V)."""
        theta = stats.topic_word()
        counts = minibatch.topic_word() / minibatch.n_documents
        gradient = self.corpus_size * likelihood_gradient(theta, counts, counts.sum(axis=1))
        rng = np.random.default_rng([int(seed), int(step), LANGEVIN_STREAM])
        theta = langevin_step(theta, gradient, self.step_size(step), self.topic_word_prior, rng)
        stats.raw = np.ascontiguousarray(theta.T)
        stats.scale = 1.0
        stats.topic_totals = theta.sum(axis=1)
        stats.n_documents += minibatch.n_documents

    def row_affine(self, stats: SufficientStats) -> tuple[np.ndarray, np.ndarray]:
        """beta_kw = theta_kw / sum_w theta_kw."""
        return np.zeros(stats.n_topics), stats.scale / stats.topic_totals

    def word_weights(self, stats: SufficientStats, words: np.ndarray,
                     out: np.ndarray | None = None) -> np.ndarray:
        return np.multiply(stats.raw[words], self.row_affine(stats)[1], out=out)

    def after_step(self, stats: SufficientStats, rho: float) -> "LangevinTopics":
        return self

    def state_arrays(self) -> dict[str, np.ndarray]:
        return {}

    def with_state(self, arrays: dict[str, np.ndarray]) -> "LangevinTopics":
        return self

    def topic_word_lambda(self, stats: SufficientStats) -> None:
        return None
