"""n_passes="auto": held-out documents decide how many passes `fit` runs."""

import numpy as np
import pytest

from streamtopics.corpus.synthetic import generate_synthetic
from streamtopics.estimators import OnlineLDA
from streamtopics.estimators import auto_passes
from streamtopics.evaluation import left_to_right

pytestmark = pytest.mark.usefixtures("one_thread")


def test_validation_split_holds_out_every_twentieth_document_up_to_a_cap():
    split = auto_passes.validation_split(100)
    np.testing.assert_array_equal(split.validation_rows, [19, 39, 59, 79, 99])
    assert np.union1d(split.train_rows, split.validation_rows).tolist() == list(range(100))
    assert auto_passes.validation_split(auto_passes.MIN_DOCUMENTS - 1).validation_rows.size == 0
    assert auto_passes.validation_split(10**6).validation_rows.size == auto_passes.MAX_VALIDATION


class _Scripted:
    """An evaluator returning given scores, and an engine whose state is one number."""

    def __init__(self, scores):
        self.scores = list(scores)
        self.state = 0.0
        self.step = 0

    def score(self, beta, alpha):
        return type("Result", (), {"log_perplexity_per_document": self.scores.pop(0)})()

    def components(self):
        return None

    def doc_topic_prior(self):
        return None

    def state_arrays(self):
        return {"state": np.array(self.state)}

    def restore(self, arrays, step):
        self.state, self.step = float(arrays["state"]), step


def test_schedule_stops_when_a_pass_stops_paying_and_keeps_the_best_pass():
    engine = _Scripted([100.0, 90.0, 89.99, 95.0])
    schedule = auto_passes.PassSchedule(engine)
    decisions = []
    for state in (1.0, 2.0, 3.0):
        engine.state, engine.step = state, int(state)
        decisions.append(schedule.another_pass(engine))
    # 90 -> 89.99 improves by 1e-4 of the score: below the tolerance, stop, keep pass 3.
    assert decisions == [True, True, False] and engine.state == 3.0

    engine = _Scripted([100.0, 90.0, 95.0])
    schedule = auto_passes.PassSchedule(engine)
    for state in (1.0, 2.0, 3.0):
        engine.state, engine.step = state, int(state)
        going_on = schedule.another_pass(engine)
    assert not going_on and engine.state == 2.0 and engine.step == 2  # pass 3 was worse: undone
    assert schedule.scores == [100.0, 90.0, 95.0]


def test_auto_passes_beat_one_pass_on_a_small_corpus_and_stop():
    corpus, truth = generate_synthetic(n_topics=8, n_words=200, n_documents=1200, mean_length=40,
                                       alpha=0.3, topic_concentration=0.1, seed=4)
    train, test = corpus[:1000], corpus[1000:]
    one = OnlineLDA(n_topics=8, n_passes=1, random_state=0).fit(train)
    auto = OnlineLDA(n_topics=8, random_state=0).fit(train)
    assert 1 < auto.n_passes_ < auto_passes.MAX_PASSES
    assert len(auto.validation_scores_) == auto.n_passes_
    assert auto.n_documents_seen_ <= auto.n_passes_ * (1000 - 50)  # 50 validation documents

    def score(model):
        beta = model.components_ + 1e-9
        beta /= beta.sum(axis=1, keepdims=True)
        return left_to_right(beta, model.doc_topic_prior_, test, n_particles=10).log_likelihoods

    gain = score(auto) - score(one)
    assert gain.mean() > 3 * gain.std(ddof=1) / np.sqrt(gain.size), gain.mean()
    assert one.n_passes_ == 1 and one.validation_scores_ is None
