"""Review models (thesis chapter 2) on planted reviews drawn from LDA-R-C: the rating
reduction against a direct least-squares solve and the truth, the corrected variational EM of
appendix 2.A (non-decreasing ELBO, opinion topics and opinion share recovered), the exact
quadrature likelihood against Monte Carlo, and the held-out ordering the generator implies."""

import numpy as np
import pytest
from scipy.special import ndtr

from streamtopics.corpus.corpus import Corpus
from streamtopics.estimators.gibbs_lda import GibbsLDA
from streamtopics.evaluation import left_to_right
from streamtopics.reviews import (OpinionLDA, RatingReducer, group_documents,
                                  opinion_left_to_right, opinion_log_likelihood,
                                  per_word_log_perplexity, planted_reviews,
                                  pointwise_log_likelihood)

N_TRAIN = 2000


@pytest.fixture(scope="module")
def planted():
    return planted_reviews(n_reviews=N_TRAIN + 200, seed=0)


@pytest.fixture(scope="module")
def reducer(planted):
    train = slice(0, N_TRAIN)
    return RatingReducer().fit(planted.users[train], planted.items[train],
                               planted.ratings[train])


def test_rating_reduction_solves_the_penalised_least_squares_problem():
    rng = np.random.default_rng(3)
    users, items = rng.integers(6, size=40), rng.integers(5, size=40)
    ratings = rng.normal(5, 2, 40)
    reducer = RatingReducer(lambda_user=2.0, lambda_item=7.0).fit(users, items, ratings)
    design = np.hstack([np.eye(6)[users], np.eye(5)[items]])
    penalty = np.diag([2.0] * 6 + [7.0] * 5)
    direct = np.linalg.solve(design.T @ design + penalty,
                             design.T @ (ratings - ratings.mean()))
    np.testing.assert_allclose(reducer.user_effects_, direct[:6], atol=1e-8)
    np.testing.assert_allclose(reducer.item_effects_, direct[6:], atol=1e-8)
    residual = ratings - ratings.mean() - design @ direct
    assert reducer.noise_scale_ == pytest.approx(np.sqrt(np.mean(residual ** 2)))
    expected = np.where(ratings - ratings.mean() - direct[:6][users] >= 0, 1, -1)
    np.testing.assert_array_equal(reducer.reduced_, expected)
    np.testing.assert_allclose(reducer.prob_positive([0, 4, 99]),
                               [ndtr(direct[6] / reducer.noise_scale_),
                                ndtr(direct[10] / reducer.noise_scale_), 0.5])


def test_rating_reduction_recovers_the_planted_effects(planted, reducer):
    train = slice(0, N_TRAIN)
    assert np.corrcoef(reducer.user_effects_, planted.user_effects)[0, 1] >= 0.9
    assert np.corrcoef(reducer.item_effects_, planted.item_effects)[0, 1] >= 0.9
    assert np.mean(reducer.reduced_ == planted.true_opinions[train]) >= 0.85


@pytest.fixture(scope="module")
def opinion_model(planted, reducer):
    train = slice(0, N_TRAIN)
    theta = planted.item_topics[planted.items[train]]
    start = planted.topics + 1e-3  # the LDA-C topics stand-in: known theta isolates the VEM
    return OpinionLDA(n_topics=5).fit(planted.counts[train], reducer.reduced_, theta, start)


def test_corrected_variational_em_never_decreases_the_elbo(opinion_model):
    elbo = np.asarray(opinion_model.elbo_)
    assert len(elbo) >= 5
    assert np.all(np.diff(elbo) >= -1e-9 * np.abs(elbo[1:]))


def test_opinion_topics_and_share_are_recovered(planted, opinion_model):
    distance = 0.5 * np.abs(opinion_model.opinion_topics_ - planted.opinion_topics).sum(axis=1)
    assert np.all(distance <= 0.15), distance
    truth = planted.qualitative_share[:N_TRAIN].mean()
    assert abs(opinion_model.qualitative_share_ - truth) <= 0.03
    assert opinion_model.omega_[1] / opinion_model.omega_.sum() == pytest.approx(truth, abs=0.03)


@pytest.mark.parametrize("omega", [(4.0, 1.5), (0.7, 0.4), (2900.0, 40.0)])
def test_quadrature_likelihood_matches_monte_carlo(omega):
    """Gauss-Jacobi for moderate omega, quantile Gauss-Legendre for a concentrated Beta."""
    rng = np.random.default_rng(1)
    topics = rng.dirichlet(np.ones(12), 3)
    opinion_topics = rng.dirichlet(np.ones(12), 2)
    theta = rng.dirichlet(np.ones(3), 2)
    counts = rng.multinomial(9, np.ones(12) / 12, size=2)
    omega, p_positive = np.array(omega), np.array([0.3, 0.8])
    exact = opinion_log_likelihood(counts, theta, p_positive, topics, opinion_topics, omega)
    finer = opinion_log_likelihood(counts, theta, p_positive, topics, opinion_topics, omega,
                                   n_nodes=256)
    np.testing.assert_allclose(exact, finer, rtol=1e-6)
    q = rng.beta(omega[0], omega[1], 200_000)
    for d in range(2):
        descriptive = theta[d] @ topics
        value = 0.0
        for side, weight in ((0, 1 - p_positive[d]), (1, p_positive[d])):
            mixture = q[:, None] * descriptive + (1 - q[:, None]) * opinion_topics[side]
            value += weight * np.mean(np.prod(mixture ** counts[d], axis=1))
        assert exact[d] == pytest.approx(np.log(value), rel=1e-3)


def test_held_out_order_follows_the_generating_model(planted, reducer):
    """The data come from LDA-R-C, so LDA-R-C < LDA-C < LDA-0 in per-word log-perplexity."""
    train, test = slice(0, N_TRAIN), slice(N_TRAIN, None)
    counts, held_out = planted.counts[train], planted.counts[test]
    grouped, items, rows = group_documents(counts, planted.items[train])
    lda_c = GibbsLDA(5, n_passes=100, burn_in=50, random_state=0)
    item_theta = lda_c.fit_transform(grouped)
    lda_0 = GibbsLDA(5, n_passes=100, burn_in=50, random_state=0).fit(counts)
    lda_r_c = OpinionLDA(5).fit(counts, reducer.reduced_, item_theta[rows], lda_c.components_)
    test_rows = np.searchsorted(items, planted.items[test])
    scores = {
        "LDA-0": left_to_right(lda_0.components_, lda_0.doc_topic_prior_, Corpus(held_out),
                               seed=0).log_likelihoods,
        "LDA-C": pointwise_log_likelihood(held_out, item_theta[test_rows], lda_c.components_),
        "LDA-R-C": opinion_log_likelihood(held_out, item_theta[test_rows],
                                          reducer.prob_positive(planted.items[test]),
                                          lda_r_c.components_, lda_r_c.opinion_topics_,
                                          lda_r_c.omega_),
    }
    perplexity = {name: per_word_log_perplexity(value, held_out) for name, value in scores.items()}
    assert perplexity["LDA-R-C"] < perplexity["LDA-C"] < perplexity["LDA-0"], perplexity


def test_group_documents_concatenates_reviews():
    counts = np.array([[1, 0, 2], [0, 3, 0], [4, 0, 0]])
    grouped, ids, rows = group_documents(counts, ["b", "a", "b"])
    np.testing.assert_array_equal(ids, ["a", "b"])
    np.testing.assert_array_equal(rows, [1, 0, 1])
    np.testing.assert_array_equal(grouped.toarray(), [[0, 3, 0], [5, 0, 2]])


@pytest.mark.parametrize("opinions, theta, message", [
    ([1, 0], np.full((2, 2), 0.5), "opinions"),
    ([1, -1], np.full((2, 3), 1 / 3), "doc_topic"),
    ([1, -1], np.array([[0.9, 0.3], [0.5, 0.5]]), "probability"),
])
def test_opinion_model_rejects_bad_inputs(opinions, theta, message):
    with pytest.raises(ValueError, match=message):
        OpinionLDA(2).fit(np.ones((2, 4), dtype=int), opinions, theta, np.ones((2, 4)))


def test_rating_reducer_rejects_bad_inputs():
    with pytest.raises(ValueError, match="same length"):
        RatingReducer().fit([1, 2], [1], [3.0, 4.0])
    with pytest.raises(ValueError, match="finite"):
        RatingReducer().fit([1, 2], [1, 2], [3.0, np.nan])


def test_opinion_left_to_right_kernel_matches_its_twin_and_exact_enumeration():
    from streamtopics.kernels.opinion import opinion_left_to_right_document
    from streamtopics.kernels.random import new_stream
    import naive
    rng = np.random.default_rng(4)
    phi, psi = rng.dirichlet(np.ones(5), 2), rng.dirichlet(np.ones(5))
    alpha, omega = np.array([0.4, 0.9]), np.array([3.0, 1.2])
    words = np.array([0, 3, 3, 1])
    phi_by_word = np.ascontiguousarray(phi.T)
    kernel = opinion_left_to_right_document(phi_by_word, psi, alpha, omega, words, 7,
                                            new_stream(5, 0, 2))
    twin = naive.opinion_left_to_right_document(phi_by_word, psi, alpha, omega, words, 7,
                                                new_stream(5, 0, 2))
    assert kernel == pytest.approx(twin, rel=1e-12)
    exact = naive.opinion_exact_log_likelihood(phi, psi, alpha, omega, words)
    estimate = opinion_left_to_right_document(phi_by_word, psi, alpha, omega, words, 4000,
                                              new_stream(0, 0, 0))
    assert estimate == pytest.approx(exact, abs=0.02)


def test_opinion_left_to_right_mixes_the_signs():
    rng = np.random.default_rng(2)
    topics, opinion_topics = rng.dirichlet(np.ones(6), 2), rng.dirichlet(np.ones(6), 2)
    counts = rng.multinomial(5, np.ones(6) / 6, size=3)
    args = (counts, 0.5, None, topics, opinion_topics, [2.0, 1.0])
    negative = opinion_left_to_right(*args[:2], 0.0, *args[3:], seed=3)
    positive = opinion_left_to_right(*args[:2], 1.0, *args[3:], seed=3)
    mixed = opinion_left_to_right(*args[:2], 0.25, *args[3:], seed=3)
    np.testing.assert_allclose(mixed, np.log(0.75 * np.exp(negative) + 0.25 * np.exp(positive)))


def _write_reviews(directory, data, rows, split, drop_field_at=None):
    from streamtopics.corpus.writer import write_corpus_dir
    metadata = [{"user": f"u{data.users[d]}", "item": f"i{data.items[d]}",
                 "stars": float(data.ratings[d])} for d in range(rows.start, rows.stop)]
    if drop_field_at is not None:
        del metadata[drop_field_at]["stars"]
    write_corpus_dir(Corpus(data.counts[rows], metadata=metadata), directory, split)


def test_cli_compares_every_model_on_reviews_with_ratings(tmp_path, capsys):
    import json
    from streamtopics.cli.main import main
    data = planted_reviews(n_reviews=900, n_users=40, n_items=30, seed=5)
    _write_reviews(tmp_path, data, slice(0, 800), "train")
    _write_reviews(tmp_path, data, slice(800, 900), "test")
    code = main(["reviews", str(tmp_path), "-k", "5", "--user-field", "user", "--item-field",
                 "item", "--rating-field", "stars", "--passes", "60", "--json"])
    assert code == 0
    result = json.loads(capsys.readouterr().out)
    scores = result["log_perplexity"]
    assert set(scores) == {"LDA-0", "LDA-R", "LDA-C", "LDA-R-C", "LDA-U", "LDA-R-U", "SLDA",
                           "HFT"}
    assert all(np.isfinite(value) for value in scores.values())
    assert scores["LDA-R-C"] < scores["LDA-0"]
    assert 0 < result["opinion_share"]["LDA-R-C"] < 0.3


def test_cli_names_the_review_without_the_field(tmp_path, capsys):
    from streamtopics.cli.main import main
    data = planted_reviews(n_reviews=60, n_users=5, n_items=5, seed=1)
    _write_reviews(tmp_path, data, slice(0, 50), "train", drop_field_at=6)
    _write_reviews(tmp_path, data, slice(50, 60), "test")
    code = main(["reviews", str(tmp_path), "--user-field", "user", "--item-field", "item",
                 "--rating-field", "stars"])
    assert code == 2
    error = capsys.readouterr().err
    assert "train.meta.jsonl, line 7" in error and "'stars'" in error


def test_supervised_lda_recovers_a_planted_regression():
    from streamtopics.reviews import SupervisedLDA
    rng = np.random.default_rng(0)
    topics = rng.dirichlet(np.full(200, 0.05), 4)
    theta = rng.dirichlet(np.full(4, 0.3), 800)
    assignments = [rng.choice(4, size=80, p=row) for row in theta]
    counts = np.array([np.bincount([rng.choice(200, p=topics[k]) for k in z], minlength=200)
                       for z in assignments])
    frequencies = np.array([np.bincount(z, minlength=4) / 80 for z in assignments])
    coefficients = np.array([1.0, 4.0, 7.0, 10.0])
    ratings = frequencies @ coefficients + rng.normal(0, 0.3, 800)
    model = SupervisedLDA(4, doc_topic_prior=0.3).fit(counts, ratings, topics + 1e-3)
    np.testing.assert_allclose(model.coefficients_, coefficients, atol=0.25)
    assert model.noise_variance_ == pytest.approx(0.09, rel=0.25)
    assert np.abs(model.doc_topic_ - frequencies).mean() < 0.02


def test_hft_gradient_is_exact():
    from scipy.optimize import check_grad

    from streamtopics.reviews.baselines import _RatingProblem
    rng = np.random.default_rng(0)
    problem = _RatingProblem(rng.normal(5, 1, 30), rng.integers(4, size=30),
                             rng.integers(3, size=30), 4, 3, 2, 0.1, 0.5)
    point = problem.start(rng) + rng.normal(0, 0.3, problem.cuts[-1] + 1)
    topic_counts = rng.uniform(0, 5, (3, 2))
    error = check_grad(lambda v: problem.objective(v, topic_counts)[0],
                       lambda v: problem.objective(v, topic_counts)[1], point)
    assert error < 1e-4
