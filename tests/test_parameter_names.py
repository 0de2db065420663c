"""One vocabulary of parameter names across estimators: `GibbsLDA` and `CVB0LDA`
take `OnlineLDA`'s names (doc_topic_prior, topic_word_prior, n_passes, callback); the old names
still work for one release, with a FutureWarning, and give the same model."""

import warnings

import numpy as np
import pytest

from streamtopics.corpus.synthetic import generate_synthetic
from streamtopics.estimators import CVB0LDA, ESTIMATORS, GibbsLDA, OnlineLDA, PassReport

pytestmark = pytest.mark.usefixtures("one_thread")

SHARED = {"doc_topic_prior", "topic_word_prior", "random_state"}
# Labeled models have one topic per label and size their chains by burn_in, lag and n_samples.
UNSUPERVISED = {"n_topics", "n_passes"}


@pytest.fixture(scope="module")
def corpus():
    return generate_synthetic(n_topics=2, n_words=15, n_documents=30, mean_length=10, seed=5)[0]


def test_every_estimator_speaks_the_same_names():
    for estimator in ESTIMATORS.values():
        assert SHARED <= set(estimator()._parameter_names()), estimator.__name__
    for estimator in (OnlineLDA, GibbsLDA, CVB0LDA):
        assert UNSUPERVISED <= set(estimator()._parameter_names()), estimator.__name__


@pytest.mark.parametrize("cls, old, new", [
    (GibbsLDA, dict(alpha=0.3, eta=0.05, iterations=12, burn_in=4, lag=2, n_samples=2),
     dict(doc_topic_prior=0.3, topic_word_prior=0.05, n_passes=12, burn_in=4, lag=2, n_samples=2)),
    (CVB0LDA, dict(alpha=0.3, eta=0.05, iterations=12, transform_iterations=3),
     dict(doc_topic_prior=0.3, topic_word_prior=0.05, n_passes=12, transform_passes=3)),
])
def test_old_names_warn_and_train_the_same_model(corpus, cls, old, new):
    with pytest.warns(FutureWarning, match="parameter 'alpha' is now 'doc_topic_prior'"):
        legacy = cls(2, random_state=1, **old)
    assert legacy.get_params() == cls(2, random_state=1, **new).get_params()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        current = cls(2, random_state=1, **new).fit(corpus)
    np.testing.assert_array_equal(legacy.fit(corpus).components_, current.components_)
    np.testing.assert_array_equal(legacy.transform(corpus), current.transform(corpus))
    with pytest.warns(FutureWarning, match="'eta' is now 'topic_word_prior'"):
        assert current.eta == 0.05
    with pytest.warns(FutureWarning):
        current.set_params(iterations=7)
    assert current.n_passes == 7
    with pytest.raises(TypeError, match="unexpected keyword argument 'iteration'"):
        cls(2, iteration=3)


def test_callback_hears_every_pass_and_progress_still_works(corpus):
    reports = []
    GibbsLDA(2, n_passes=3, burn_in=1, lag=1, n_samples=1, n_chains=2, random_state=0).fit(
        corpus, callback=lambda model, report: reports.append((type(model), report)))
    assert reports == [(GibbsLDA, PassReport(chain, sweep)) for chain in (0, 1)
                       for sweep in (1, 2, 3)]
    passes = []
    with pytest.warns(FutureWarning, match="progress= is now callback="):
        CVB0LDA(2, n_passes=4, random_state=0).fit(corpus, progress=passes.append)
    assert passes == [1, 2, 3, 4]


def test_model_files_with_the_old_names_load_silently(corpus, tmp_path):
    """Files saved before the rename store alpha/eta/iterations: they load as they were."""
    from streamtopics import persistence
    model = CVB0LDA(2, n_passes=5, random_state=0).fit(corpus)
    arrays, metadata = model.model_file_contents()
    parameters = metadata["parameters"]
    metadata["parameters"] = {{"doc_topic_prior": "alpha", "topic_word_prior": "eta",
                               "n_passes": "iterations",
                               "transform_passes": "transform_iterations"}.get(k, k): v
                              for k, v in parameters.items()}
    persistence.save_model(tmp_path / "old.npz", arrays, metadata)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        loaded = CVB0LDA.load(tmp_path / "old.npz")
    assert loaded.get_params() == model.get_params()


def test_online_lda_keeps_its_names():
    assert {"callback"} <= set(OnlineLDA.fit.__kwdefaults__)
