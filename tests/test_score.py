"""`score` and `perplexity`: left-to-right held-out likelihood, scikit-learn
style, so that GridSearchCV can select K."""

from __future__ import annotations

import math

import numpy as np
import pytest

from streamtopics import OnlineLDA
from streamtopics.corpus.synthetic import generate_synthetic
from streamtopics.estimators import CVB0LDA, GibbsLDA
from streamtopics.evaluation import left_to_right


@pytest.fixture(scope="module")
def planted_ten():
    corpus, truth = generate_synthetic(10, 100, 600, mean_length=50, alpha=0.1,
                                       topic_concentration=0.05, seed=2)
    return corpus, truth


@pytest.mark.parametrize("make", [
    lambda: OnlineLDA(10, local_passes=5, n_passes=2, random_state=1),
    lambda: GibbsLDA(10, n_passes=30, random_state=1),
    lambda: CVB0LDA(10, n_passes=30, random_state=1),
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
    `score` and picks the best mean. On planted K = 10 data K = 5 loses by far; with one run per
    fit K = 20 is not reliably behind K = 10 (a run at K = 10 may end 2-3 nats per document
    behind the true model in a local optimum that K = 20 avoids), so only that is asserted here;
    `n_init` is the remedy (test below)."""
    sklearn = pytest.importorskip("sklearn.model_selection")
    corpus, _ = planted_ten
    search = sklearn.GridSearchCV(OnlineLDA(local_passes=5, n_passes=2, random_state=0),
                                  {"n_topics": [5, 10, 20]}, cv=2)
    search.fit(corpus.counts)
    scores = search.cv_results_["mean_test_score"]
    assert search.best_params_["n_topics"] == [5, 10, 20][int(np.argmax(scores))]
    assert scores[0] < scores[1] - 5
    assert search.best_estimator_.get_params()["n_topics"] == search.best_params_["n_topics"]


@pytest.mark.parametrize("corpus_seed", [3, 5])
def test_grid_search_with_restarts_picks_the_planted_k(corpus_seed):
    """With n_init = 3 restarts per fit, GridSearchCV picks the planted K = 10
    against 5 and 20. These corpora are ones where a single run per fit picks 20 (measured over
    corpus seeds 2-5 at 600 and 1,000 documents: one run picks 10 in 3 of 8, three runs in 6 of
    8, five in 7 of 8)."""
    sklearn = pytest.importorskip("sklearn.model_selection")
    corpus, _ = generate_synthetic(10, 100, 1000, mean_length=50, alpha=0.1,
                                   topic_concentration=0.05, seed=corpus_seed)
    search = sklearn.GridSearchCV(OnlineLDA(n_init=3, random_state=0), {"n_topics": [5, 10, 20]},
                                  cv=2).fit(corpus.counts)
    assert search.best_params_["n_topics"] == 10


def test_restarts_keep_the_best_run_and_the_first_run_is_the_plain_fit(planted_ten):
    corpus, _ = planted_ten
    train = corpus[:500]
    plain = OnlineLDA(10, n_passes=2, local_passes=5, random_state=4).fit(train)
    restarted = OnlineLDA(10, n_passes=2, local_passes=5, random_state=4, n_init=3).fit(train)
    assert plain.init_scores_ is None and len(restarted.init_scores_) == 3
    from streamtopics.estimators import auto_passes
    selection = auto_passes.validation_evaluator(
        train.counts, train.counts[auto_passes.selection_rows(train.n_documents)])
    first = selection.score(plain.components_, plain.doc_topic_prior_).log_perplexity_per_document
    assert restarted.init_scores_[0] == pytest.approx(first, rel=1e-12)
    best = int(np.argmin(restarted.init_scores_))
    final = selection.score(restarted.components_,
                            restarted.doc_topic_prior_).log_perplexity_per_document
    assert final == pytest.approx(restarted.init_scores_[best], rel=1e-12)
    again = OnlineLDA(10, n_passes=2, local_passes=5, random_state=4, n_init=3).fit(train)
    np.testing.assert_array_equal(again.components_, restarted.components_)
