"""Tracking topics through time (`timeline.track_topics`) and forward chaining
(`timeline.forward_chaining`) on a planted drifting corpus: the snapshots follow the planted
topics period by period under one topic identity, and models of the past score each next
period better than a static model fitted on the whole past."""

import numpy as np
import pytest
from scipy.optimize import linear_sum_assignment

from streamtopics import OnlineLDA
from streamtopics.corpus.synthetic import generate_drifting
from streamtopics.errors import InputError
from streamtopics.timeline import forward_chaining, hellinger, track_topics

N_TOPICS, N_PERIODS = 4, 8


@pytest.fixture(scope="module")
def drifting():
    """4 topics moving 90% of the way to other topics over 8 yearly periods of 800 documents,
    tracked in minibatches of 25 (256 steps: the schedule falls to rho = 0.06, below the
    floor of 0.1)."""
    corpus, truth = generate_drifting(n_topics=N_TOPICS, n_words=300, n_periods=N_PERIODS,
                                      documents_per_period=800, mean_length=60, drift=0.9,
                                      seed=1)
    runs = {floor: track_topics(OnlineLDA(n_topics=N_TOPICS, batch_size=25, random_state=0,
                                          step_floor=floor), corpus, period="year")
            for floor in (0.0, 0.1)}
    return corpus, truth, runs


def _matched(snapshot, truth_topics):
    distances = hellinger(snapshot[:, None, :], truth_topics[None])
    rows, columns = linear_sum_assignment(distances)
    return distances[rows, columns], columns


def test_snapshots_follow_the_planted_topics_under_one_identity(drifting):
    _, truth, runs = drifting
    run = runs[0.1]
    assert run.labels == [str(2000 + t) for t in range(N_PERIODS)]
    assert run.snapshots.shape == (N_PERIODS, N_TOPICS, 300)
    identities = []
    for t in range(N_PERIODS):
        own, columns = _matched(run.snapshots[t], truth.topic_word[t])
        # measured: 0.20 after the first period's single pass, then 0.11 down to 0.08
        assert own.max() < (0.25 if t == 0 else 0.15), (t, own)
        identities.append(columns.tolist())
        if t >= 2:  # it moved with the truth: nearer this period's topics than the first's
            first = hellinger(run.snapshots[t][np.argsort(columns)], truth.topic_word[0])
            assert np.all(own < first), (t, own, first)
    assert all(columns == identities[0] for columns in identities)  # row k is one topic
    drift = run.drift()
    assert drift.shape == (N_PERIODS - 1, N_TOPICS)
    assert drift.max() < 0.5 * hellinger(truth.topic_word[0][:, None],
                                         truth.topic_word[0][None]).max()
    np.testing.assert_allclose(run.prevalence.sum(axis=1), 1.0)


def test_forward_chaining_beats_a_static_model_of_the_whole_past(drifting):
    """Every period after the first scored under models of the periods before it: the
    tracking runs beat a static model fitted (3 passes) on the whole past in at least 6 of the
    7 periods (measured: 7 of 7, by 2-6 nats per document)."""
    corpus, _, runs = drifting
    scores = forward_chaining(
        corpus, {"plain": runs[0.0], "tracking": runs[0.1]},
        static=lambda past: OnlineLDA(n_topics=N_TOPICS, n_passes=3, random_state=0).fit(past),
        max_documents=150)
    assert scores.labels == [str(2000 + t) for t in range(1, N_PERIODS)]
    assert scores.documents == [150] * (N_PERIODS - 1)
    assert scores.wins("tracking", "static") >= 6
    assert scores.wins("plain", "static") >= 6
    rows = scores.rows()
    assert rows[0]["period"] == "2001" and "static_per_document" in rows[0]


def test_tracking_needs_an_unfitted_online_model(drifting):
    corpus, _, runs = drifting
    fitted = OnlineLDA(n_topics=2, n_passes=1, random_state=0).fit(corpus[:100])
    with pytest.raises(InputError, match="unfitted"):
        track_topics(fitted, corpus)
    with pytest.raises(InputError, match="at least one"):
        forward_chaining(corpus, {})
