"""scikit-learn compatibility without the dependency: the estimator checks, inputs checked with
clear errors, feature names in and out, set_output, pipelines, GridSearchCV choosing K."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp

sklearn = pytest.importorskip("sklearn", minversion="1.6")
from sklearn.base import clone  # noqa: E402
from sklearn.feature_extraction.text import CountVectorizer  # noqa: E402
from sklearn.model_selection import GridSearchCV  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

from streamtopics import CVB0LDA, GibbsLDA, InputError, OnlineLDA  # noqa: E402
from streamtopics.estimators.hdp import OnlineHDP  # noqa: E402
from streamtopics.interop import use_pipeline_vocabulary  # noqa: E402

LISTS_ARE_DOCUMENTS = ("a list is documents (token-id sequences for the batch samplers, refused by "
                       "OnlineLDA), never a D x V matrix: pass np.asarray(X)")
TRAINING_ESTIMATES = ("fit_transform returns the training chain's own document-topic estimates; "
                      "transform re-infers them with the topics fixed (different samples or "
                      "iterations of the same posterior, not equal to 0.01)")

EXPECTED_FAILURES = {
    "OnlineLDA": {"check_transformer_data_not_an_array": LISTS_ARE_DOCUMENTS},
    "GibbsLDA": {"check_transformer_data_not_an_array": LISTS_ARE_DOCUMENTS,
                 "check_transformer_general": TRAINING_ESTIMATES},
    "OnlineHDP": {"check_transformer_data_not_an_array": LISTS_ARE_DOCUMENTS},
    "CVB0LDA": {"check_transformer_data_not_an_array": LISTS_ARE_DOCUMENTS,
                "check_transformer_general": TRAINING_ESTIMATES},
}

# Small but real settings: the checks fit dozens of times on tiny matrices.
ESTIMATORS = [OnlineLDA(n_topics=3, n_passes=1, local_passes=5, random_state=0),
              GibbsLDA(n_topics=3, n_passes=20, burn_in=5, n_samples=2, random_state=0),
              CVB0LDA(n_topics=3, n_passes=10, random_state=0)]


with warnings.catch_warnings():  # duck-typed on purpose: scikit-learn is not a dependency
    warnings.filterwarnings("ignore", message=".*does not inherit from.*BaseEstimator")
    CHECKS = parametrize_with_checks(  # and the HDP, whose K is learnt (no n_topics)
        [*ESTIMATORS, OnlineHDP(max_topics=5, local_passes=5, random_state=0)],
        expected_failed_checks=lambda e: EXPECTED_FAILURES[type(e).__name__])


@CHECKS
def test_scikit_learn_estimator_checks(estimator, check):
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*does not inherit from.*BaseEstimator")
        check(estimator)


# --- inputs: clear errors ----------------------------------------------------------------------
@pytest.mark.parametrize("estimator", ESTIMATORS, ids=lambda e: type(e).__name__)
@pytest.mark.parametrize("value, message", [
    (-1.0, r"Negative values in data passed to \w+ \(row 1, column 2 holds -1\)"),
    (0.5, r"needs counts that are whole numbers .* row 1, column 2 holds 0.5; use CountVectorizer, not Tfidf"),
    (np.nan, r"Input X contains NaN \(row 1, column 2\)"),
    (np.inf, r"Input X contains infinity \(row 1, column 2\)"),
])
def test_counts_that_are_not_counts_are_refused_where_they_are(estimator, value, message):
    X = np.ones((3, 4))
    X[1, 2] = value
    for matrix in (X, sp.csr_matrix(X)):
        with pytest.raises(InputError, match=message):
            clone(estimator).fit(matrix)
    fitted = clone(estimator).fit(np.ones((3, 4)))
    with pytest.raises(InputError, match=message):
        fitted.transform(X)


def test_transform_with_another_number_of_words_names_both():
    model = CVB0LDA(n_topics=2, n_passes=5, random_state=0).fit(np.ones((4, 5)))
    with pytest.raises(ValueError, match="X has 3 features, but CVB0LDA is expecting 5 features"):
        model.transform(np.ones((2, 3)))


# --- feature names, set_output ------------------------------------------------------------------
def planted_frame():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    words = [f"{topic}{i}" for topic in ("rain", "goal") for i in range(5)]
    rows = [np.bincount(rng.integers(0, 5, size=30) + 5 * (d % 2), minlength=10) for d in range(40)]
    return pd.DataFrame(rows, columns=words, index=[f"doc{d}" for d in range(40)])


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=lambda e: type(e).__name__)
def test_a_dataframe_names_the_words_and_set_output_gives_one_back(estimator):
    frame = planted_frame()
    model = clone(estimator).set_params(n_topics=2)
    if isinstance(model, OnlineLDA):
        model.set_params(n_passes=10, local_passes=20)
    model.fit(frame)
    assert model.n_features_in_ == 10
    assert model.feature_names_in_.tolist() == list(frame.columns)
    assert model.vocabulary_.tolist() == list(frame.columns)
    # two topics, one per block of words: each topic's top words are one block
    blocks = [{word[:4] for word in words} for words in model.top_words(5)]
    assert sorted(map(sorted, blocks)) == [["goal"], ["rain"]]
    prefix = type(model).__name__.lower()
    assert model.get_feature_names_out().tolist() == [f"{prefix}0", f"{prefix}1"]
    plain = model.transform(frame)
    output = model.set_output(transform="pandas").transform(frame)
    assert list(output.columns) == [f"{prefix}0", f"{prefix}1"]
    assert list(output.index) == list(frame.index)
    np.testing.assert_array_equal(output.to_numpy(), plain)
    with pytest.raises(ValueError, match="feature names should match"):
        model.transform(frame[frame.columns[::-1]])
    with pytest.raises(ValueError, match="transform must be one of"):
        model.set_output(transform="excel")


def test_feature_names_given_to_fit_become_the_vocabulary():
    X = np.eye(3, dtype=int).repeat(4, axis=0) * 5
    model = OnlineLDA(n_topics=3, n_passes=2, random_state=0).fit(X, feature_names=["a", "b", "c"])
    assert model.vocabulary_.tolist() == ["a", "b", "c"]
    assert model.top_words(1) == [["abc"[np.argmax(topic)]] for topic in model.components_]
    with pytest.raises(ValueError, match="feature_names has 2 names but X has 3"):
        OnlineLDA(n_topics=2).fit(X, feature_names=["a", "b"])


# --- pipelines and model selection --------------------------------------------------------------
def planted_texts(n_documents=600, n_topics=4, block=10, length=40, seed=0):
    """Documents of Dirichlet(0.1) mixtures of n_topics planted topics, each uniform over its
    own block of words ('t2w7' is word 7 of topic 2)."""
    rng = np.random.default_rng(seed)
    texts = []
    for _ in range(n_documents):
        topics = rng.choice(n_topics, size=length, p=rng.dirichlet(np.full(n_topics, 0.1)))
        words = rng.integers(0, block, size=length)
        texts.append(" ".join(f"t{t}w{w}" for t, w in zip(topics, words)))
    return texts


def test_grid_search_over_a_pipeline_picks_the_planted_k_and_shows_its_words():
    """The README example: CountVectorizer -> OnlineLDA, GridSearchCV on the held-out
    likelihood (score), then the vocabulary of the vectorizer in top_words."""
    texts = planted_texts()
    pipeline = make_pipeline(CountVectorizer(), OnlineLDA(n_init=3, random_state=0))
    search = GridSearchCV(pipeline, {"onlinelda__n_topics": [2, 4, 8]}, cv=3).fit(texts)
    assert search.best_params_ == {"onlinelda__n_topics": 4}
    assert np.all(np.isfinite(search.cv_results_["mean_test_score"]))
    model = use_pipeline_vocabulary(search.best_estimator_)
    blocks = [{word[:2] for word in words} for words in model.top_words(10)]
    assert sorted(map(sorted, blocks)) == [["t0"], ["t1"], ["t2"], ["t3"]]  # one topic each


def test_use_pipeline_vocabulary_needs_a_step_before_the_model():
    model = CVB0LDA(n_topics=2, n_passes=5, random_state=0)
    pipeline = make_pipeline(model).fit(np.ones((4, 3)))
    with pytest.raises(ValueError, match="first step"):
        use_pipeline_vocabulary(pipeline)
    with pytest.raises(ValueError, match="the model has 3 words, got 2 names"):
        model.set_vocabulary(["a", "b"])
