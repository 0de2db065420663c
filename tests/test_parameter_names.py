"""One vocabulary of parameter names across estimators: `GibbsLDA` and `CVB0LDA` take
`OnlineLDA`'s names (doc_topic_prior, topic_word_prior, n_passes, callback), and every name is
the only one: other spellings are refused."""

import inspect

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


@pytest.mark.parametrize("estimator", ESTIMATORS.values(), ids=lambda cls: cls.__name__)
def test_other_names_are_refused(estimator):
    """One name per parameter: other libraries' names of K and the batch estimators' former
    names are unexpected keywords, at construction and in set_params."""
    for name in ("n_components", "num_topics", "alpha", "eta", "iterations",
                 "transform_iterations"):
        with pytest.raises(TypeError, match=f"unexpected keyword argument '{name}'"):
            estimator(**{name: 3})
        with pytest.raises(ValueError, match=f"invalid parameter '{name}'"):
            estimator().set_params(**{name: 3})
        assert not hasattr(estimator(), name)


def test_callback_hears_every_pass(corpus):
    reports = []
    GibbsLDA(2, n_passes=3, burn_in=1, lag=1, n_samples=1, n_chains=2, random_state=0).fit(
        corpus, callback=lambda model, report: reports.append((type(model), report)))
    assert reports == [(GibbsLDA, PassReport(chain, sweep)) for chain in (0, 1)
                       for sweep in (1, 2, 3)]
    passes = []
    CVB0LDA(2, n_passes=4, random_state=0).fit(
        corpus, callback=lambda model, report: passes.append(report))
    assert passes == [PassReport(0, n_pass) for n_pass in (1, 2, 3, 4)]
    with pytest.raises(TypeError, match="unexpected keyword argument 'progress'"):
        CVB0LDA(2, n_passes=4).fit(corpus, progress=passes.append)


def test_online_lda_keeps_its_names():
    assert "callback" in inspect.signature(OnlineLDA.fit).parameters
