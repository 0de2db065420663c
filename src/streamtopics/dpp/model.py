"""`LowRankDPP`: the thesis' low-rank DPP as an estimator (fit, log-likelihood, summaries, files).

Ground sets (thesis section 4.3): ``"items"``, X = {1..V}, a set is a list of item ids;
``"binary"``, X = {0,1}^V, a set (a document) is a list of rows (sentences), each a list of word
ids. For the binary set p is independent Bernoulli words with pi_i the fraction of training rows
holding word i (the thesis suggests "empirical frequencies"; per-sentence is our reading).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from .. import persistence
from ..errors import InputError, ModelFileError
from ..estimators.base import RANDOM_STATE
from ..validation import BOOLEAN, Integral, Interval, Options, Real, validate_parameters
from .kernel import BaseMeasure, low_rank_a
from .learning import fit_alternating, optimize_theta
from .likelihood import Observations, evaluate, rows_matrix
from .sampling import greedy_map

ESTIMATOR_NAME = "LowRankDPP"
GROUNDS = ("binary", "items")
THETAS = ("per-document", "shared")
OPTIMIZERS = ("lbfgs", "sgd")


class LowRankDPP:
    """L = alpha I + Diag(p)^1/2 Phi (gamma I + U Diag(theta) U^T) Phi^T Diag(p)^1/2 (eqs. 21, 23).

    Parameters: ``ground`` ("binary" or "items"), ``rank`` r, ``gamma`` (None: 1/V for binary,
    0 for items), ``alpha``, ``penalty`` lambda, ``theta`` ("per-document" or "shared"),
    ``optimizer`` ("lbfgs" or "sgd" for the U step), ``max_outer``/``inner_iter`` (alternations
    and L-BFGS iterations per step), ``batch_size``/``sgd_step`` (SGD only), ``init_scale``
    (standard deviation of the random initial U), ``random_state``.
    Fitted: ``embeddings_`` (U, V x r), ``theta_`` (per training set, or 1 x r), ``pi_``.
    ``vocabulary_`` and ``stopwords_`` (None unless set) travel with the model file.
    """

    vocabulary_: list[str] | None = None
    stopwords_: frozenset | None = None

    def __init__(self, ground: str = "binary", rank: int = 10, gamma: float | None = None,
                 alpha: float = 0.0, penalty: float = 1e-2, theta: str = "per-document",
                 optimizer: str = "lbfgs", max_outer: int = 10, inner_iter: int = 100,
                 batch_size: int = 100, sgd_step: float = 0.1, init_scale: float = 1.0,
                 random_state: int | None = None, progress: bool = False):
        self.ground, self.rank, self.gamma, self.alpha = ground, rank, gamma, alpha
        self.penalty, self.theta, self.optimizer = penalty, theta, optimizer
        self.max_outer, self.inner_iter = max_outer, inner_iter
        self.batch_size, self.sgd_step, self.init_scale = batch_size, sgd_step, init_scale
        self.random_state, self.progress = random_state, progress

    # Checked when `fit` starts and when a model file is read (`validation`).
    _parameter_constraints = {
        "ground": [Options(GROUNDS)], "rank": [Interval(Integral, 1, None)],
        "gamma": [None, Interval(Real, 0, None)], "alpha": [Interval(Real, 0, None)],
        "penalty": [Interval(Real, 0, None)], "theta": [Options(THETAS)],
        "optimizer": [Options(OPTIMIZERS)], "max_outer": [Interval(Integral, 1, None)],
        "inner_iter": [Interval(Integral, 1, None)], "batch_size": [Interval(Integral, 1, None)],
        "sgd_step": [Interval(Real, 0, None, "neither")],
        "init_scale": [Interval(Real, 0, None, "neither")], "random_state": RANDOM_STATE,
        "progress": [BOOLEAN],
    }
    _parameter_symbols = {"rank": "r", "penalty": "lambda", "max_outer": "U/theta alternations"}

    # --- parameters ------------------------------------------------------------------------------
    def get_params(self) -> dict:
        return {name: getattr(self, name) for name in (
            "ground", "rank", "gamma", "alpha", "penalty", "theta", "optimizer", "max_outer",
            "inner_iter", "batch_size", "sgd_step", "init_scale", "random_state")}

    def _gamma(self, n_words: int) -> float:
        if self.gamma is not None:
            return float(self.gamma)
        return 1.0 / n_words if self.ground == "binary" else 0.0

    def _check_fitted(self):
        if not hasattr(self, "embeddings_"):
            raise InputError("this LowRankDPP is not fitted yet")

    @property
    def base_(self) -> BaseMeasure:
        if not hasattr(self, "pi_"):
            raise InputError("this LowRankDPP is not fitted yet")
        return BaseMeasure.binary(self.pi_) if self.ground == "binary" \
            else BaseMeasure.items(self.n_words_)

    def observations(self, sets: Sequence[Sequence]) -> Observations:
        return Observations(sets, self.base_, self.gamma_, self.alpha)

    # --- learning --------------------------------------------------------------------------------
    def fit(self, sets: Sequence[Sequence], n_words: int, pi: np.ndarray | None = None,
            U_init: np.ndarray | None = None):
        """Learn U and theta from observed sets over ``n_words`` items or words.

        ``pi`` fixes the binary set's word probabilities (default: their training frequencies).
        """
        validate_parameters(self)
        rng = np.random.default_rng(self.random_state)
        self.n_words_ = int(n_words)
        self.gamma_ = self._gamma(n_words)
        if self.ground == "binary" and pi is not None:
            self.pi_ = np.broadcast_to(np.asarray(pi, dtype=float), (n_words,)).copy()
        elif self.ground == "binary":
            rows, _ = rows_matrix(sets, n_words, "binary")
            self.pi_ = np.asarray(rows.mean(axis=0)).ravel()
        else:
            self.pi_ = np.ones(n_words)
        obs = self.observations(sets)
        U = rng.normal(scale=self.init_scale, size=(n_words, self.rank)) if U_init is None \
            else np.array(U_init, dtype=float)
        theta = np.ones((1 if self.theta == "shared" else len(obs), U.shape[1]))
        sgd = None
        if self.optimizer == "sgd":
            order = rng.permutation(len(obs))
            groups = [order[i:i + self.batch_size] for i in range(0, order.size, self.batch_size)]
            sgd = {"batches": [(self.observations([sets[i] for i in g]), g) for g in groups],
                   "step": self.sgd_step, "epochs": 1, "rng": rng}
        U, theta, self.trace_ = fit_alternating(obs, U, theta, self.penalty, self.max_outer,
                                                self.inner_iter, sgd=sgd, progress=self.progress)
        self.embeddings_, self.theta_ = U, theta
        return self

    def fit_theta(self, sets: Sequence[Sequence]) -> np.ndarray:
        """theta for new sets with U fixed (the shared theta when theta='shared').

        theta -> log P(X | theta) is not concave, so L-BFGS-B starts from both the training
        thetas' median and all ones, and each set keeps the better penalised optimum.
        """
        self._check_fitted()
        if self.theta == "shared":
            return np.repeat(self.theta_, len(sets), axis=0)
        obs = self.observations(sets)
        best, best_score = None, None
        for start in (np.median(self.theta_, axis=0), np.ones(self.rank)):
            theta = optimize_theta(obs, self.embeddings_, np.tile(start, (len(obs), 1)),
                                   self.penalty, self.inner_iter)
            score = (evaluate(obs, self.embeddings_, theta, gradients=False).per_set
                     - self.penalty * theta.sum(axis=1))
            if best is None:
                best, best_score = theta, score
            else:
                better = score > best_score
                best[better], best_score[better] = theta[better], score[better]
        return best

    def log_likelihood(self, sets: Sequence[Sequence], theta: np.ndarray | None = None) -> np.ndarray:
        """log P(X) per set (nats); theta is fitted per set first unless given or shared."""
        self._check_fitted()
        if theta is None:
            theta = self.theta_ if self.theta == "shared" else self.fit_theta(sets)
        return evaluate(self.observations(sets), self.embeddings_, theta, gradients=False).per_set

    # --- summaries -------------------------------------------------------------------------------
    def set_kernel(self, rows: Sequence, theta: np.ndarray, quality: bool = True) -> np.ndarray:
        """L_X for one set: alpha I + Diag(p)^1/2 S A S^T Diag(p)^1/2 (eq. 21 on the set's rows).

        ``quality=False`` leaves out the item masses p(x) (diversity only; not the thesis' model).
        """
        S, _ = rows_matrix([rows], self.n_words_, self.ground)
        S = S.toarray()
        sqrt_p = np.exp(0.5 * self.base_.log_p(S)) if quality else np.ones(S.shape[0])
        F = sqrt_p[:, None] * S
        A = low_rank_a(self.embeddings_, np.ravel(theta), self.gamma_)
        return self.alpha * np.eye(S.shape[0]) + F @ A @ F.T

    def summarize(self, rows: Sequence, n_sentences: int = 5, theta: np.ndarray | None = None,
                  quality: bool = True) -> np.ndarray:
        """Indices of the rows of greedy MAP argmax_{|Y| = l} det L_Y (section 4.5.4)."""
        if theta is None:
            theta = self.fit_theta([rows])[0]
        return greedy_map(self.set_kernel(rows, theta, quality), n_sentences)

    def word_similarity(self, word: int, n: int = 10) -> list[tuple[int, float]]:
        """The ``n`` words whose rows of U have the largest cosine with ``word``'s (Table 11)."""
        self._check_fitted()
        U = self.embeddings_
        norms = np.linalg.norm(U, axis=1)
        cosine = U @ U[word] / np.maximum(norms * norms[word], 1e-300)
        cosine[word] = -np.inf
        order = np.argsort(-cosine, kind="stable")[:n]
        return [(int(w), float(cosine[w])) for w in order]

    # --- model files -----------------------------------------------------------------------------
    def save(self, path) -> None:
        """Write the fitted model (and ``vocabulary_`` / ``stopwords_`` when set) atomically."""
        self._check_fitted()
        arrays = {"embeddings": self.embeddings_, "theta": self.theta_, "pi": self.pi_}
        for name in ("vocabulary", "stopwords"):
            if getattr(self, name + "_", None) is not None:
                arrays[name] = np.asarray(sorted(getattr(self, name + "_")) if name == "stopwords"
                                          else getattr(self, name + "_"), dtype=str)
        metadata = {"estimator": ESTIMATOR_NAME, "parameters": self.get_params(),
                    "fitted": {"n_words": self.n_words_, "gamma": self.gamma_}}
        persistence.save_model(path, arrays, metadata)

    @classmethod
    def load(cls, path) -> "LowRankDPP":
        """The model written by `save`; raises `ModelFileError` on any defect."""
        arrays, metadata = persistence.load_model(path)
        if metadata.get("estimator") != ESTIMATOR_NAME:
            raise ModelFileError(f"{path}: holds a {metadata.get('estimator')!r} model, "
                                 f"not a {ESTIMATOR_NAME}")
        try:
            model = cls(**metadata["parameters"])
            validate_parameters(model)
            model.n_words_ = int(metadata["fitted"]["n_words"])
            model.gamma_ = float(metadata["fitted"]["gamma"])
            model.embeddings_, model.theta_, model.pi_ = (
                arrays["embeddings"], arrays["theta"], arrays["pi"])
            if model.embeddings_.shape != (model.n_words_, model.rank) or model.pi_.size != model.n_words_:
                raise ValueError("array shapes disagree with the metadata")
            if not all(np.isfinite(a).all() for a in (model.embeddings_, model.theta_, model.pi_)):
                raise ValueError("non-finite parameters")
        except (KeyError, TypeError, ValueError) as error:
            raise ModelFileError(f"{path}: incomplete or inconsistent {ESTIMATOR_NAME} model "
                                 f"({type(error).__name__}: {error})") from None
        model.vocabulary_ = [str(w) for w in arrays["vocabulary"]] if "vocabulary" in arrays else None
        model.stopwords_ = frozenset(str(w) for w in arrays["stopwords"]) if "stopwords" in arrays else None
        if model.vocabulary_ is not None and len(model.vocabulary_) != model.n_words_:
            raise ModelFileError(f"{path}: vocabulary of {len(model.vocabulary_)} words for "
                                 f"{model.n_words_} embedding rows")
        return model
