"""What every streamtopics estimator shares: scikit-learn style parameters, top words, model files.

A subclass stores only its constructor arguments in ``__init__`` (scikit-learn convention), sets
fitted attributes ending in ``_`` (at least ``components_``, K x V, rows sum to 1, and
``doc_topic_prior_``, K), and implements ``_state_arrays`` / ``_restore_state`` for the model file.
"""

from __future__ import annotations

import functools
import inspect
import sys
from dataclasses import dataclass

import numpy as np

from .. import persistence
from ..corpus.pipeline import TextPipeline
from ..errors import InputError, ModelFileError
from ..threads import N_JOBS, runs_on_n_jobs
from ..validation import InstanceOf, Integral, Interval
from .inputs import check_documents

# What every estimator's ``random_state`` may be: everything random flows from it.
RANDOM_STATE = [None, Interval(Integral, 0, None),
                InstanceOf(np.random.Generator, "a numpy.random.Generator")]
OUTPUT_CONTAINERS = ("default", "pandas", "polars")


class NotFittedError(ValueError, AttributeError):
    """The estimator is used before ``fit`` or ``partial_fit``."""


@dataclass(frozen=True)
class PassReport:
    """What a batch estimator's ``callback(model, report)`` hears after each pass over the
    training corpus (a Gibbs sweep, a CVB0 iteration): the chain (0 for CVB0) and the 1-based
    pass number. (`OnlineLDA` reports its steps with an `engine.StepReport`.)"""

    chain: int
    n_pass: int


class TopicModelEstimator:
    """Base class: ``get_params``/``set_params`` (so ``sklearn.base.clone`` works), ``top_words``,
    ``save``/``load`` through the safe model file (`streamtopics.persistence`)."""

    # Each subclass's `validation` table; the papers' symbols of parameter names, for messages.
    _parameter_constraints: dict[str, list] = {}
    _parameter_symbols = {"doc_topic_prior": "alpha", "topic_word_prior": "eta"}
    # Parameters of how training runs, not of the model (e.g. where the E-step runs): model
    # files and checkpoints leave them out, so a model trained one way continues another.
    _execution_parameters: tuple[str, ...] = ("n_jobs",)

    # --- scikit-learn parameter protocol ---------------------------------------------------------
    def _pass_observer(self, callback):
        """The (chain, pass) -> None observer of a batch fit that calls
        ``callback(self, PassReport)``; None when there is no callback."""
        if callback is None:
            return None

        def observe(chain: int, n_pass: int) -> None:
            callback(self, PassReport(chain, n_pass))
        return observe

    @classmethod
    def _parameter_names(cls) -> list[str]:
        return [name for name in inspect.signature(cls.__init__).parameters if name != "self"]

    def get_params(self, deep: bool = True) -> dict:
        return {name: getattr(self, name) for name in self._parameter_names()}

    def set_params(self, **params):
        valid = set(self._parameter_names())
        for name, value in params.items():
            if name not in valid:
                raise ValueError(f"invalid parameter {name!r} for {type(self).__name__}")
            setattr(self, name, value)
        return self

    def __sklearn_tags__(self):
        """scikit-learn >= 1.6 asks every estimator for its tags (GridSearchCV, clone, its
        estimator checks); built here, importing scikit-learn only when it asks, so it stays an
        optional dependency: an unsupervised transformer of sparse count matrices. Counts are
        non-negative whole numbers: ``positive_only`` and ``categorical``, the tag under which
        scikit-learn's checks feed non-negative integers, as to `CategoricalNB`, whose inputs
        are of the same kind."""
        from sklearn.utils import InputTags, Tags, TargetTags, TransformerTags
        return Tags(estimator_type=None, target_tags=TargetTags(required=False),
                    transformer_tags=TransformerTags(),
                    input_tags=InputTags(sparse=True, positive_only=True, categorical=True))

    def __sklearn_is_fitted__(self) -> bool:
        return self.is_fitted()

    def is_fitted(self) -> bool:
        """Whether the model has been trained (by fit, partial_fit or load): what callers outside
        the class ask instead of its private state."""
        try:
            self._check_fitted()
        except NotFittedError:
            return False
        return True

    @property
    def n_features_in_(self) -> int:
        """V, the number of word columns the model reads (scikit-learn's ``n_features_in_``);
        follows the vocabulary when it grows (`OnlineLDA.add_words`). Read from the vocabulary
        alone: asking must not compute anything (scikit-learn checks that transform leaves
        ``__dict__`` unchanged)."""
        vocabulary = self.__dict__.get("vocabulary_")
        if vocabulary is None:
            raise NotFittedError(f"this {type(self).__name__} is not fitted yet: call fit or "
                                 f"partial_fit")
        return int(np.shape(vocabulary)[0])

    def _check_documents(self, X, reset: bool, feature_names=None):
        """``X`` checked and converted by `estimators.inputs.check_documents`."""
        return check_documents(self, X, reset=reset, feature_names=feature_names)

    # --- scikit-learn output protocol ------------------------------------------------------------
    def get_feature_names_out(self, input_features=None) -> np.ndarray:
        """Names of the ``transform`` columns, one per topic: ``onlinelda0``, ``onlinelda1``,
        ... (scikit-learn's convention for components: class name in lower case + index).
        ``input_features``, if given, must be the words the model was fitted on."""
        self._check_fitted()
        if input_features is not None:
            words = np.asarray(input_features, dtype=object)
            known = getattr(self, "feature_names_in_", None)
            if words.shape != (self.n_features_in_,):
                raise ValueError(f"input_features should have length equal to number of "
                                 f"features ({self.n_features_in_}), got {words.size}")
            if known is not None and not np.array_equal(words.astype(str), known):
                raise ValueError("input_features is not equal to feature_names_in_")
        prefix = type(self).__name__.lower()
        return np.asarray([f"{prefix}{k}" for k in range(np.shape(self.components_)[0])],
                          dtype=object)

    def set_output(self, *, transform=None):
        """Output of ``transform``/``fit_transform``: "default" (NumPy), "pandas" or "polars"
        (a DataFrame with columns `get_feature_names_out`, and the input DataFrame's index);
        None leaves it unchanged. Without a call, scikit-learn's global ``transform_output``
        setting applies when scikit-learn is in use. As scikit-learn's ``set_output``."""
        if transform is None:
            return self
        if transform not in OUTPUT_CONTAINERS:
            raise ValueError(f"transform must be one of {OUTPUT_CONTAINERS} or None, got "
                             f"{transform!r}")
        self._sklearn_output_config = {"transform": transform}
        return self

    def _output_container(self) -> str:
        chosen = getattr(self, "_sklearn_output_config", {}).get("transform")
        if chosen is None and "sklearn" in sys.modules:  # scikit-learn's global setting
            chosen = sys.modules["sklearn"].get_config().get("transform_output", "default")
        return chosen or "default"

    def _wrap_output(self, result, X):
        container = self._output_container()
        if container == "default" or not isinstance(result, np.ndarray):
            return result
        columns = self.get_feature_names_out()
        if container == "polars":
            import polars as pl
            return pl.DataFrame(result, schema=[str(c) for c in columns], orient="row")
        import pandas as pd
        index = X.index if hasattr(X, "iloc") and len(X.index) == len(result) else None
        return pd.DataFrame(result, columns=columns, index=index)

    def __init_subclass__(cls, **kwargs):
        """Route the output of each subclass' ``transform`` and ``fit_transform`` through
        `set_output`'s container (scikit-learn wraps these two methods the same way)."""
        super().__init_subclass__(**kwargs)
        for name in ("transform", "fit_transform"):
            method = cls.__dict__.get(name)
            if method is not None and not getattr(method, "_wraps_output", False):
                setattr(cls, name, _wrapping_output(method))

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({args})"

    # --- fitted model ----------------------------------------------------------------------------
    def _check_fitted(self) -> None:
        if not hasattr(self, "components_"):
            raise NotFittedError(f"this {type(self).__name__} is not fitted yet: call fit or partial_fit")

    def top_words(self, n: int = 10) -> list[list[str]]:
        """The ``n`` most probable words of each topic, most probable first."""
        self._check_fitted()
        order = np.argsort(-self.components_, axis=1, kind="stable")[:, :n]
        return [[str(self.vocabulary_[w]) for w in row] for row in order]

    @property
    def topic_names_(self) -> list[str]:
        """Each topic's name, "" for a topic without one: those given (`set_topic_names`), else
        a seeded topic's seed-set name (``seeded_topics_``); kept in model files, shown by
        ``topics``, ``transform --json`` and the report."""
        self._check_fitted()
        names = getattr(self, "_topic_names", None)
        n_topics = np.shape(self.components_)[0]
        names = list(names) if names is not None and len(names) == n_topics else [""] * n_topics
        for name, topic in (getattr(self, "seeded_topics_", None) or {}).items():
            if 0 <= topic < n_topics and not names[topic] and name not in names:
                names[topic] = name
        return names

    def set_topic_names(self, names) -> "TopicModelEstimator":
        """Name topics: a mapping topic index -> name (the others keep theirs) or a list of K
        names ("" for none). Names are distinct; they change no number of the model."""
        self._check_fitted()
        current = self.topic_names_
        if isinstance(names, dict):
            names = {**dict(enumerate(current)), **names}
        self._topic_names = persistence.checked_topic_names(names, len(current))
        return self

    def set_vocabulary(self, words) -> "TopicModelEstimator":
        """Name the model's V word columns after fitting, e.g. with the vocabulary of the
        ``CountVectorizer`` before it in a ``Pipeline`` (`interop.sklearn.name_words`)."""
        self._check_fitted()
        words = np.asarray(list(words), dtype=str)
        if words.shape != (self.n_features_in_,):
            raise ValueError(f"the model has {self.n_features_in_} words, got {words.size} names")
        if np.unique(words).size != words.size:
            raise ValueError("the word names repeat a word")
        self.vocabulary_ = words
        return self

    # --- held-out scores (scikit-learn: higher is better) ----------------------------------------
    SCORE_PARTICLES = 20

    def _held_out(self, X):
        """Left-to-right (Wallach et al. 2009, Algorithm 3) of the documents ``X`` under the
        fitted topics and alpha, with `SCORE_PARTICLES` particles: the R = 20 of Wallach et
        al.'s experiments and of Dupuy & Bach (2016, section 5), where the estimate's noise is
        well below the differences between models (its downward bias shrinks like 1/R), at a cost
        linear in R. The particles' streams come from ``random_state`` (0 when it is not an int),
        so the score is deterministic."""
        from ..corpus.corpus import Corpus
        from ..evaluation import left_to_right
        self._check_fitted()
        documents = self._check_documents(X, reset=False)
        documents = documents if isinstance(documents, Corpus) else Corpus(documents)
        seed = self.random_state if isinstance(self.random_state, (int, np.integer)) \
            and not isinstance(self.random_state, bool) and self.random_state >= 0 else 0
        beta, alpha = self.held_out_parameters()
        result = left_to_right(beta, alpha, documents, n_particles=self.SCORE_PARTICLES,
                               seed=int(seed))
        impossible = np.isneginf(result.log_likelihoods)
        if impossible.any():
            zero_words = np.asarray(beta).max(axis=0) == 0
            zero_tokens = int(documents.counts[:, zero_words].sum())
            raise InputError(f"{zero_tokens} held-out tokens in {int(impossible.sum())} of "
                             f"{result.n_documents} documents have probability 0 under "
                             f"{type(self).__name__}'s topics (words with beta 0 in every "
                             f"topic: topic_word_prior=0 and words unseen in training), so the "
                             f"held-out likelihood is -inf and ranks nothing; fit with "
                             f"topic_word_prior > 0")
        if not np.isfinite(result.log_likelihoods).all():
            raise InputError(f"the held-out likelihood of {type(self).__name__} is not finite "
                             f"(NaN or +inf): its topics or alpha are not finite")
        return result

    def held_out_parameters(self) -> tuple[np.ndarray, np.ndarray]:
        """(beta, alpha) of the LDA whose held-out likelihood is the model's (`score`,
        `perplexity`, `reporting.ProgressiveEvaluation`): the fitted topics and alpha (an HDP
        adds the rest of its stick, `OnlineHDP.to_lda`)."""
        return self.components_, self.doc_topic_prior_

    @runs_on_n_jobs
    def score(self, X, y=None) -> float:
        """Mean held-out log-likelihood per document of ``X`` (nats, left-to-right with 20
        particles; higher is better), what ``GridSearchCV`` maximises. Always finite: a held-out
        token of probability 0 (possible only with ``topic_word_prior=0``) is an InputError
        saying so, never -inf or NaN (see `interop.best_finite_index` for ``GridSearchCV``)."""
        return self._held_out(X).mean_log_likelihood_per_document

    @runs_on_n_jobs
    def perplexity(self, X) -> float:
        """Per-token perplexity exp(-sum_d log p(w_d) / sum_d N_d) of ``X`` (left-to-right, 20
        particles; lower is better)."""
        return self._held_out(X).per_token_perplexity

    # --- model files -----------------------------------------------------------------------------
    def _state_arrays(self) -> dict[str, np.ndarray]:
        """Method-specific arrays to store beside beta, alpha and vocabulary."""
        return {}

    def _restore_state(self, arrays: dict[str, np.ndarray], metadata: dict) -> None:
        """Set fitted attributes from a model file (inverse of `_state_arrays`)."""
        self.components_ = arrays["beta"]
        self.doc_topic_prior_ = arrays["alpha"]
        self.vocabulary_ = arrays["vocabulary"]

    def save(self, path) -> None:
        """Write the fitted model to ``path`` (a safe ``.npz``, written atomically)."""
        persistence.save_model(path, *self.model_file_contents())

    def model_file_contents(self) -> tuple[dict[str, np.ndarray], dict]:
        """(arrays, metadata) of the model file `save` writes: the complete fitted state, which
        training checkpoints (`streamtopics.training`) store with their own metadata added."""
        self._check_fitted()
        arrays = {"beta": self.components_, "alpha": self.doc_topic_prior_,
                  "vocabulary": np.asarray(self.vocabulary_, dtype=str), **self._state_arrays()}
        params = {k: v for k, v in self.get_params().items()
                  if (v is None or isinstance(v, (bool, int, float, str)))
                  and k not in self._execution_parameters}
        metadata = {"estimator": type(self).__name__, "parameters": params,
                    "fitted": self._fitted_metadata()}
        pipeline = getattr(self, "text_pipeline_", None)
        if pipeline is not None:
            metadata["text_pipeline"] = pipeline.as_dict()
        if any(self.topic_names_):
            metadata[persistence.TOPIC_NAMES] = self.topic_names_
        return arrays, metadata

    def _fitted_metadata(self) -> dict:
        """JSON-serialisable fitted state (step counters, ...) for the model file."""
        return {}

    def set_model_file_contents(self, arrays: dict[str, np.ndarray], metadata: dict) -> None:
        """Set the fitted state from (arrays, metadata) as `model_file_contents` gives them,
        into a model built with the file's parameters: what `load` does, and what training
        checkpoints (`streamtopics.training`) do to resume. ``text_pipeline_``: how the
        training text was tokenised (`corpus.pipeline`), None when the file does not say."""
        self._restore_state(arrays, metadata)
        record = metadata.get("text_pipeline")
        self.text_pipeline_ = None if record is None else TextPipeline.from_dict(record)

    @classmethod
    def load(cls, path):
        """Load a model saved by ``save``; raises `ModelFileError` on any defect."""
        arrays, metadata = persistence.load_model(path)
        return cls._from_model_file(path, arrays, metadata)

    @classmethod
    def _from_model_file(cls, path, arrays: dict[str, np.ndarray], metadata: dict):
        if metadata.get("estimator") != cls.__name__:
            raise ModelFileError(f"{path}: holds a {metadata.get('estimator')!r} model, "
                                 f"not a {cls.__name__}")
        persistence.topic_parameters(arrays, path)  # beta, alpha, vocabulary consistent and finite
        try:
            model = cls(**metadata.get("parameters", {}))
            model.set_model_file_contents(arrays, metadata)
            model._topic_names = persistence.checked_topic_names(
                metadata.get(persistence.TOPIC_NAMES), np.shape(arrays["beta"])[0], path)
        except (KeyError, TypeError, ValueError) as error:
            raise ModelFileError(f"{path}: incomplete or inconsistent {cls.__name__} model "
                                 f"({type(error).__name__}: {error})") from None
        return model


def _wrapping_output(method):
    """``method`` (a transform) with its result passed through ``self._wrap_output``."""
    @functools.wraps(method)
    def wrapped(self, X, *args, **kwargs):
        return self._wrap_output(method(self, X, *args, **kwargs), X)
    wrapped._wraps_output = True
    return wrapped
