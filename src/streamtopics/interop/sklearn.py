"""A topic model after a vectorizer in a scikit-learn ``Pipeline``: give it the words.

A ``Pipeline`` hands its last step a bare count matrix, so the model knows its columns only as
``w0``, ``w1``, ... `use_pipeline_vocabulary` names them after fitting with the words of the
steps before it (``pipeline[:i].get_feature_names_out()``, e.g. ``CountVectorizer``'s
vocabulary), so ``top_words``, ``save`` and ``streamtopics report`` show words:

    pipe = make_pipeline(CountVectorizer(), OnlineLDA(n_topics=10)).fit(texts)
    use_pipeline_vocabulary(pipe).top_words(10)

`best_finite_index` is a ``refit`` for ``GridSearchCV`` that refuses to choose among candidates
that all failed.
"""

from __future__ import annotations

import numpy as np

from ..estimators.base import TopicModelEstimator


def use_pipeline_vocabulary(pipeline) -> TopicModelEstimator:
    """Set the vocabulary of the fitted topic model in ``pipeline`` (its last streamtopics
    step) to the feature names out of the steps before it; returns the model."""
    steps = [step for _, step in pipeline.steps]
    positions = [i for i, step in enumerate(steps) if isinstance(step, TopicModelEstimator)]
    if not positions:
        raise ValueError("the pipeline has no streamtopics topic model")
    index = positions[-1]
    if index == 0:
        raise ValueError("the topic model is the pipeline's first step: nothing names its words")
    words = pipeline[:index].get_feature_names_out()
    return steps[index].set_vocabulary(words)


def best_finite_index(cv_results: dict) -> int:
    """``GridSearchCV(..., refit=best_finite_index)``: the candidate with the best finite mean
    test score, and a ValueError when no candidate has one.

    scikit-learn's default ``refit=True`` ranks candidates whose every fit or score failed
    (``error_score=nan``) as tied, and then reports the first of them as ``best_params_``: a K
    chosen by nothing. The streamtopics estimators never return a non-finite ``score`` (they
    raise, saying why), so all-NaN means every candidate failed; this refit says so, with the
    first failure's candidate, instead of choosing one."""
    scores = np.asarray(cv_results["mean_test_score"], dtype=float)
    finite = np.isfinite(scores)
    if not finite.any():
        raise ValueError(f"no candidate has a finite mean test score ({len(scores)} candidates, "
                         f"e.g. {cv_results['params'][0]}): every fit or score failed; see the "
                         f"warnings, or pass error_score='raise' to see the first error")
    return int(np.flatnonzero(finite)[np.argmax(scores[finite])])
