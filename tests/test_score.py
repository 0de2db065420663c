"""`score` and `perplexity` (issue 11, item 2): left-to-right held-out likelihood, scikit-learn
style, so that GridSearchCV can select K."""

from __future__ import annotations

import math

import numpy as np
import pytest

from streamtopics import OnlineLDA
from streamtopics.corpus.synthetic import generate_synthetic
from streamtopics.estimators.gibbs_lda import CVB0LDA, GibbsLDA
from streamtopics.evaluation import left_to_right


@pytest.fixture(scope="module")
def planted_ten():
    corpus, truth = generate_synthetic(10, 100, 600, mean_length=50, alpha=0.1,
                                       topic_concentration=0.05, seed=2)
    return corpus, truth


@pytest.mark.parametrize("make", [
    lambda: OnlineLDA(10, local_passes=5, n_passes=2, random_state=1),
    lambda: GibbsLDA(10, iterations=30, random_state=1),
    lambda: CVB0LDA(10, iterations=30, random_state=1),
])
def test_score_is_left_to_right_mean_and_perplexity_per_token(make, planted_ten):
    corpus, _ = planted_ten
    train, test = corpus[:500], corpus[500:]
    model = make().fit(train)
    expected = left_to_right(model.components_, model.doc_topic_prior_, test, n_particles=20, seed=1)
    assert model.score(test) == pytest.approx(expected.mean_log_likelihood_per_document, rel=1e-12)
    assert model.score(test.counts) == model.score(test.counts)  # a matrix works; deterministic
    assert model.perplexity(test) == pytest.approx(
        math.exp(-expected.log_likelihoods.sum() / test.n_tokens), rel=1e-12)


def test_grid_search_selects_by_score_and_rejects_too_few_topics(planted_ten):
    """GridSearchCV clones OnlineLDA (get_params/set_params round trip), scores each fold with
    `score` and picks the best mean. On planted K = 10 data K = 5 loses by far; K = 20 is not
    reliably behind K = 10 (G-OEM at K = 10 ends 2-3 nats per document behind the true model in
    a local optimum that K = 20 avoids; issue 11 item 2, see the report), so only that is asserted."""
    sklearn = pytest.importorskip("sklearn.model_selection")
    corpus, _ = planted_ten
    search = sklearn.GridSearchCV(OnlineLDA(local_passes=5, n_passes=2, random_state=0),
                                  {"n_topics": [5, 10, 20]}, cv=2)
    search.fit(corpus.counts)
    scores = search.cv_results_["mean_test_score"]
    assert search.best_params_["n_topics"] == [5, 10, 20][int(np.argmax(scores))]
    assert scores[0] < scores[1] - 5
    assert search.best_estimator_.get_params()["n_topics"] == search.best_params_["n_topics"]
