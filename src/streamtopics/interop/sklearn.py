"""A topic model after a vectorizer in a scikit-learn ``Pipeline``: give it the words.

A ``Pipeline`` hands its last step a bare count matrix, so the model knows its columns only as
``w0``, ``w1``, ... `use_pipeline_vocabulary` names them after fitting with the words of the
steps before it (``pipeline[:i].get_feature_names_out()``, e.g. ``CountVectorizer``'s
vocabulary), so ``top_words``, ``save`` and ``streamtopics report`` show words:

    pipe = make_pipeline(CountVectorizer(), OnlineLDA(n_topics=10)).fit(texts)
    use_pipeline_vocabulary(pipe).top_words(10)
"""

from __future__ import annotations

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
