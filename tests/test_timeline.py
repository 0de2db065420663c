"""Topics through time (`streamtopics.timeline`) against planted truth: a drifting corpus
(`corpus.synthetic.generate_drifting`) whose per-period topics and prevalences are known, and the
exact split of the E-step statistics over periods."""

import numpy as np
import pytest
from scipy.optimize import linear_sum_assignment

from streamtopics import OnlineLDA
from streamtopics.corpus.synthetic import generate_drifting
from streamtopics.errors import InputError
from streamtopics.timeline import hellinger, topics_over_time

N_TOPICS, N_PERIODS = 4, 4
TOPIC_DISTANCE = 0.2  # Hellinger distance of a recovered period topic from the planted one
PREVALENCE_ERROR = 0.05  # absolute error of a recovered prevalence


@pytest.fixture(scope="module")
def drifting():
    """A drifting corpus (4 topics moving 60% of the way to other topics over 4 yearly
    periods), a model fitted on it, the recovered timeline, and truth topic k -> model topic."""
    corpus, truth = generate_drifting(n_topics=N_TOPICS, n_words=300, n_periods=N_PERIODS,
                                      documents_per_period=600, mean_length=80, seed=1)
    model = OnlineLDA(n_topics=N_TOPICS, n_passes=5, random_state=0).fit(corpus)
    result = topics_over_time(model, corpus, period="year")
    distances = hellinger(model.components_[:, None, :], truth.topic_word.mean(axis=0)[None])
    rows, columns = linear_sum_assignment(distances)
    match = np.empty(N_TOPICS, dtype=int)
    match[columns] = rows
    return corpus, truth, model, result, match


def test_periods_are_the_planted_years(drifting):
    _, _, _, result, _ = drifting
    assert result.labels == ["2000", "2001", "2002", "2003"]
    assert list(result.periods.counts) == [600] * 4


def test_period_topics_recover_the_planted_drift(drifting):
    _, truth, model, result, match = drifting
    for t in range(N_PERIODS):
        recovered = result.topic_word[t, match]
        own = hellinger(recovered, truth.topic_word[t])
        assert own.max() < TOPIC_DISTANCE, (t, own)
        for other in range(N_PERIODS):  # each period's topic is nearest its own period's truth
            if other != t:
                assert np.all(own < hellinger(recovered, truth.topic_word[other])), (t, other)
    for t in (0, N_PERIODS - 1):  # the drift is seen: nearer the truth than the global topic
        global_distance = hellinger(model.components_[match], truth.topic_word[t])
        assert np.all(hellinger(result.topic_word[t, match], truth.topic_word[t])
                      < 0.8 * global_distance)


def test_prevalence_recovers_the_planted_shares(drifting):
    _, truth, _, result, match = drifting
    assert np.abs(result.prevalence[:, match] - truth.prevalence).max() < PREVALENCE_ERROR
    np.testing.assert_allclose(result.prevalence.sum(axis=1), 1.0)


def test_period_statistics_split_the_corpus_statistics_exactly(drifting):
    corpus, _, model, _, _ = drifting
    unsmoothed = topics_over_time(model, corpus, period=3, prior_tokens=0.0)
    whole = np.zeros((N_TOPICS, corpus.n_words))
    for _, run in model.local_runs(corpus.counts):
        statistics = run.statistics()
        whole[:, statistics.words] += statistics.word_topic.T
    summed = (unsmoothed.tokens[:, :, None] * unsmoothed.topic_word).sum(axis=0)
    np.testing.assert_allclose(summed, whole, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(unsmoothed.tokens.sum(), corpus.n_tokens, rtol=1e-9)
    assert list(unsmoothed.periods.counts) == [800, 800, 800]


def test_a_strong_prior_gives_back_the_topic_as_a_whole(drifting):
    corpus, _, model, _, _ = drifting
    smoothed = topics_over_time(model, corpus, prior_tokens=1e12)
    assert np.abs(smoothed.topic_word - model.components_[None]).max() < 1e-6
    assert smoothed.distance.max() < 1e-3


def test_times_given_in_python_and_tables(drifting):
    pytest.importorskip("pandas")
    corpus, truth, model, result, _ = drifting
    times = [f"{2000 + t}/6/1" for t in truth.period]
    given = topics_over_time(model, corpus.counts, time=times)
    np.testing.assert_array_equal(given.prevalence, result.prevalence)
    table = result.prevalence_table()
    assert list(table.columns) == ["documents"] + [f"topic_{k}" for k in range(N_TOPICS)]
    assert table.loc["2002", "documents"] == 600
    topics = result.topics_table(n_words=5)
    assert len(topics) == N_PERIODS * N_TOPICS and len(topics.iloc[0]["words"]) == 5
    first = result.top_words(0, 0, 3)
    assert [w for w, _ in first] == topics.iloc[0]["words"][:3]


def test_undated_documents_are_refused(drifting):
    corpus, _, model, _, _ = drifting
    with pytest.raises(InputError, match="not dated"):
        topics_over_time(model, corpus.counts)
    with pytest.raises(InputError, match="cannot read 'soon'"):
        topics_over_time(model, corpus.counts, time=["soon"] * corpus.n_documents)


def test_the_generator_plants_what_it_says():
    corpus, truth = generate_drifting(n_topics=3, n_words=50, n_periods=3,
                                      documents_per_period=20, drift=0.0, seed=0)
    np.testing.assert_array_equal(truth.topic_word[0], truth.topic_word[2])
    assert not np.allclose(truth.prevalence[0], truth.prevalence[2])
    assert corpus.metadata[0]["time"].startswith("2000-") and corpus.metadata[-1]["time"] < "2003"
    _, moving = generate_drifting(n_topics=3, n_words=50, n_periods=3, documents_per_period=20,
                                  drift=1.0, seed=0)
    assert hellinger(moving.topic_word[0], moving.topic_word[2]).min() > 0.5
