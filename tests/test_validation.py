"""The one validation layer (`streamtopics.validation`): the constraint kinds, the messages, and
where checks live (the estimator's table once; a part's own meaning in the part)."""

import numpy as np
import pytest

from streamtopics.corpus.synthetic import generate_synthetic
from streamtopics.errors import StreamtopicsError
from streamtopics.estimators import CVB0LDA, ESTIMATORS, GibbsLDA, OnlineLDA
from streamtopics.validation import (BOOLEAN, InstanceOf, Integral, Interval, Options,
                                     ParameterError, PositiveVector, Real, check_count,
                                     check_parameter)

pytestmark = pytest.mark.usefixtures("one_thread")


@pytest.mark.parametrize("constraint, good, bad", [
    (Interval(Integral, 1, None), [1, np.int64(7)], [0, 1.0, True, "1", None]),
    (Interval(Real, 0, 1, "right"), [0.5, 1, np.float32(0.1)], [0, 1.5, np.nan, np.inf, False]),
    (Interval(Real, 0, None, "neither"), [1e-300], [0.0, -1.0]),
    (Options(("a", "b"), ignore_case=True), ["a", "B"], ["c", 1, np.ones(2)]),
    (InstanceOf(dict, "a dict"), [{}], [[]]),
    (BOOLEAN, [True, np.bool_(False)], [0, 1, "yes"]),
])
def test_constraints_accept_exactly_their_values(constraint, good, bad):
    for value in good:
        assert check_parameter("x", value, constraint) is value
    for value in bad:
        with pytest.raises(ParameterError, match="x"):
            check_parameter("x", value, [constraint])


def test_a_vector_prior_has_one_positive_value_per_topic():
    vector = PositiveVector("n_topics")
    assert vector.accepts([0.1, 0.2, 0.3], {"n_topics": 3})
    for bad in ([0.1, 0.2], [0.1, 0.0, 0.3], [[0.1, 0.2, 0.3]], 0.5, "abc", [np.nan] * 3):
        assert not vector.accepts(bad, {"n_topics": 3})


def test_messages_name_the_estimator_the_parameter_its_symbol_and_the_value():
    corpus, _ = generate_synthetic(n_topics=2, n_words=10, n_documents=20, mean_length=8, seed=0)
    with pytest.raises(ParameterError) as error:
        OnlineLDA(2, topic_word_prior=-1.0).fit(corpus)
    assert str(error.value) == ("OnlineLDA: topic_word_prior (eta) must be None or a number "
                                ">= 0, got -1.0")
    assert isinstance(error.value, StreamtopicsError) and isinstance(error.value, ValueError)
    with pytest.raises(ParameterError, match="unknown sampler 'alias': sampler must be one of"):
        GibbsLDA(2, sampler="alias").fit(corpus)
    with pytest.raises(ParameterError, match="CVB0LDA: doc_topic_prior \\(alpha\\) must be a "
                                             "number > 0 or n_topics positive numbers"):
        CVB0LDA(2, doc_topic_prior=[1.0, 2.0, 3.0]).fit(corpus)
    with pytest.raises(ParameterError, match="n_particles must be an integer >= 1, got 0"):
        check_count(0, "n_particles", 1)


def test_every_estimator_declares_a_constraint_for_every_parameter():
    for estimator in ESTIMATORS.values():
        assert set(estimator._parameter_constraints) == set(estimator()._parameter_names())


def test_step_decay_is_checked_only_by_the_step_size_that_reads_it():
    """kappa belongs to the polynomial step size: a 1/i method ignores it (so the experiment
    runner passes kappa = 0 as it is), a polynomial one refuses it, naming kappa."""
    corpus, _ = generate_synthetic(n_topics=2, n_words=10, n_documents=20, mean_length=8, seed=0)
    OnlineLDA(2, method="svb", step_decay=0.0, local_passes=2, n_passes=1).fit(corpus)
    with pytest.raises(ParameterError, match="method 'g-oem': step decay \\(kappa\\)"):
        OnlineLDA(2, method="g-oem", step_decay=0.0).fit(corpus)
