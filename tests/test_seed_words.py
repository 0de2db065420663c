"""Seed words (guided topics): seed sets steer chosen topics through the per-topic-word prior
eta_kv = eta + lambda [v in seeds of topic k], on planted data and against the equations."""

import json

import numpy as np
import pytest
from scipy.special import digamma, gammaln

from test_cli_fit import write_docword
from streamtopics import InputError, generate_synthetic
from streamtopics.cli.main import main
from streamtopics.estimators import OnlineLDA
from streamtopics.estimators.cvb0_lda import CVB0LDA
from streamtopics.estimators.gibbs_lda import GibbsLDA
from streamtopics.estimators.seed_words import SeedWordWarning
from streamtopics.evaluation.matching import match_topics
from streamtopics.inference import cgs, cvb0
from streamtopics.inference.seeded_topics import SeededPointEstimate, SeededVariationalDirichlet
from streamtopics.inference.stats import SufficientStats
from streamtopics.persistence import load_model


def _planted(seed: int, n_documents: int = 300):
    """A 10-topic synthetic corpus and seeds: the top 5 words of 3 random true topics."""
    corpus, truth = generate_synthetic(10, 500, n_documents, 60, seed=seed)
    chosen = np.random.default_rng(seed).choice(10, 3, replace=False)
    seeds = {f"true{t}": [corpus.vocabulary[w] for w in np.argsort(truth.beta[t])[::-1][:5]]
             for t in chosen}
    return corpus, truth, chosen, seeds


def _seeded_topics_matched(components, truth, chosen) -> bool:
    """Whether Hungarian matching pairs seeded topic k (0..2) with its intended true topic."""
    matching = match_topics(components, truth.beta, "tv")
    assigned = dict(zip(matching.rows, matching.columns))
    return all(assigned[k] == t for k, t in enumerate(chosen))


# The batch models with seed words, fitted on a planted corpus (seeds None: unseeded).
BATCH_MODELS = {
    "gibbs": lambda seeds, seed: GibbsLDA(10, n_passes=60, burn_in=30, n_samples=3,
                                          seed_words=seeds, random_state=seed),
    "cvb0": lambda seeds, seed: CVB0LDA(10, n_passes=60, seed_words=seeds, random_state=seed),
}


@pytest.mark.parametrize("name", BATCH_MODELS)
def test_batch_seeded_topics_match_their_true_topics(name):
    matched = 0
    for seed in range(10):
        corpus, truth, chosen, seeds = _planted(seed)
        model = BATCH_MODELS[name](seeds, seed).fit(corpus)
        assert model.seeded_topics_ == {name: k for k, name in enumerate(seeds)}
        matched += _seeded_topics_matched(model.components_, truth, chosen)
    assert matched >= 9


@pytest.mark.parametrize("name", BATCH_MODELS)
def test_batch_without_seeds_topics_land_anywhere(name):
    """The check above is not met by chance: unseeded, topics 0..2 rarely match those topics
    (the chance that three given topics land on three given true topics is 1 in 720)."""
    matched = 0
    for seed in range(10):
        corpus, truth, chosen, _ = _planted(seed)
        model = BATCH_MODELS[name](None, seed).fit(corpus)
        matched += _seeded_topics_matched(model.components_, truth, chosen)
    assert matched <= 3


def test_cvb0_phantom_counts_give_phi_of_the_eta_matrix_and_stay_out_of_the_counts():
    """CVB0 with phantom counts: phi (equation 2) is (n'_kv + eta_kv) / (n'_k + sum_w eta_kw)
    on the returned soft counts, which hold the tokens alone."""
    counts = np.random.default_rng(1).poisson(1.0, size=(30, 8))
    prior = np.zeros((8, 3), dtype=np.int32)
    prior[[2, 5], 1] = 40
    result = cvb0.fit_cvb0(counts, 3, np.full(3, 0.5), 0.1, iterations=20, seed=3,
                           prior_counts=prior)
    np.testing.assert_allclose(result.word_topic.sum(), counts.sum(), rtol=1e-12)
    np.testing.assert_allclose(result.word_topic.sum(axis=1), counts.sum(axis=0), rtol=1e-9)
    eta = 0.1 + prior.T
    soft = result.word_topic.T + eta
    np.testing.assert_allclose(result.phi, soft / soft.sum(axis=1, keepdims=True), rtol=1e-12)
    assert np.all(result.phi[1, [2, 5]] > result.phi[[0, 2]][:, [2, 5]])


def _small_state(prior_counts):
    tokens = np.array([0, 1, 1, 2, 3, 3, 0, 2], dtype=np.int32)
    offsets = np.array([0, 3, 8], dtype=np.int64)
    assignments = np.array([0, 1, 0, 2, 1, 1, 2, 0], dtype=np.int32)
    return cgs.GibbsState.from_assignments(tokens, offsets, assignments, 3, 4,
                                           prior_counts=prior_counts)


def test_phantom_counts_give_the_joint_and_phi_of_the_eta_matrix():
    """log p(w, z) and phi (equation 2) with phantom counts equal the formulas with eta_kv."""
    prior = np.zeros((4, 3), dtype=np.int32)
    prior[[0, 2], 0] = 7
    prior[3, 1] = 7
    state, plain = _small_state(prior), _small_state(None)
    alpha, eta = np.array([0.3, 0.2, 0.5]), 0.05
    eta_matrix = eta + prior.T.astype(float)                # K x V
    counts = plain.word_topic_counts.T.astype(float)        # K x V, tokens only
    topic_word = np.sum(gammaln(eta_matrix.sum(axis=1)) - gammaln((counts + eta_matrix).sum(axis=1))
                        + np.sum(gammaln(counts + eta_matrix) - gammaln(eta_matrix), axis=1))
    plain_topic_word = plain.log_joint(alpha, eta) - cgs.log_joint(
        plain.doc_topic_counts, np.zeros_like(plain.word_topic_counts),
        np.zeros_like(plain.topic_counts), alpha, eta)
    assert state.log_joint(alpha, eta) == pytest.approx(
        plain.log_joint(alpha, eta) - plain_topic_word + topic_word, rel=1e-12)
    phi, _ = state.estimate(alpha, eta, "standard")
    np.testing.assert_allclose(phi, (counts + eta_matrix)
                               / (counts + eta_matrix).sum(axis=1, keepdims=True))
    np.testing.assert_array_equal(state.observed_word_topic_counts(), plain.word_topic_counts)


def test_phi_p_adds_the_phantom_counts_to_the_soft_counts():
    prior = np.zeros((4, 3), dtype=np.int32)
    prior[1, 2] = 5
    state = _small_state(prior)
    alpha, eta = np.array([0.3, 0.2, 0.5]), 0.05
    _, word_soft = state.soft_counts(alpha, eta)
    assert word_soft.sum() == pytest.approx(state.tokens.size)  # the tokens alone
    phi, _ = state.estimate(alpha, eta, "p")
    np.testing.assert_allclose(phi, cgs.topic_word_estimate(word_soft + prior, eta))


def test_unknown_seed_words_are_reported_and_empty_sets_refused():
    corpus, _, _, _ = _planted(0)
    seeds = {"known": ["w1", "w2", "nosuchword"], "other": ["w3"]}
    with pytest.warns(SeedWordWarning, match="nosuchword"):
        model = GibbsLDA(4, n_passes=5, burn_in=0, n_samples=1, seed_words=seeds,
                         random_state=0).fit(corpus)
    assert model.unknown_seed_words_ == {"known": ["nosuchword"]}
    assert model.topic_word_counts_.sum() == corpus.n_tokens  # no phantom counts exported
    with pytest.raises(InputError, match="'none'"):
        GibbsLDA(4, n_passes=5, seed_words={"none": ["absent"]}).fit(corpus)
    with pytest.raises(InputError, match="optimize_eta"):
        GibbsLDA(4, n_passes=5, seed_words=seeds, optimize_eta=True).fit(corpus)
    with pytest.raises(InputError, match="5 seed sets for 4 topics"):
        GibbsLDA(4, n_passes=5, seed_words={str(i): ["w1"] for i in range(5)}).fit(corpus)


def test_word_ids_without_vocabulary_and_the_model_file(tmp_path):
    counts = np.random.default_rng(0).poisson(1.0, size=(40, 12))
    with pytest.warns(SeedWordWarning, match="99"):
        model = GibbsLDA(3, n_passes=10, burn_in=0, n_samples=1, random_state=0,
                         seed_words={"a": [0, 1, 99], "b": [5]}, seed_strength=9).fit(counts)
    assert model.unknown_seed_words_ == {"a": [99]}
    model.save(tmp_path / "m.npz")
    loaded = GibbsLDA.load(tmp_path / "m.npz")
    assert loaded.seed_words == {"a": [0, 1, 99], "b": [5]}
    assert loaded.seed_strength == 9
    assert loaded.seeded_topics_ == {"a": 0, "b": 1}
    assert loaded.unknown_seed_words_ == {"a": [99]}
    cvb = CVB0LDA(3, n_passes=10, random_state=0, seed_words={"b": [5]}).fit(counts)
    cvb.save(tmp_path / "c.npz")
    loaded = CVB0LDA.load(tmp_path / "c.npz")
    np.testing.assert_array_equal(loaded.components_, cvb.components_)
    assert loaded.seed_words == {"b": [5]} and loaded.seeded_topics_ == {"b": 0}


def test_fit_seed_words_from_the_cli(tmp_path, capsys):
    """``fit --seed-words FILE.json``: the seeded topic is the intended one, the file keeps the
    seeds, ``--json`` shows them (cgs, g-oem, olda), and a method without seed words is
    refused."""
    corpus, truth = generate_synthetic(5, 60, 200, 40, seed=2)
    (tmp_path / "vocab.txt").write_text("\n".join(corpus.vocabulary) + "\n")
    write_docword(tmp_path / "train.docword.txt", corpus.counts)
    top = [corpus.vocabulary[w] for w in np.argsort(truth.beta[3])[::-1][:5]]
    (tmp_path / "seeds.json").write_text(json.dumps({"planted": top + ["absent"]}))
    common = ["fit", str(tmp_path), "-k", "5", "--seed-words", str(tmp_path / "seeds.json"),
              "-o", str(tmp_path / "m.npz")]
    assert main([*common, "--method", "cgs", "--passes", "40", "--seed-strength", "30",
                 "--json"]) == 0
    output = json.loads(capsys.readouterr().out)
    assert output["seeded_topics"] == {"planted": 0} and output["seed_strength"] == 30
    assert output["unknown_seed_words"] == {"planted": ["absent"]}
    arrays, metadata = load_model(tmp_path / "m.npz")
    assert metadata["fitted"]["seed_words"] == [["planted", top + ["absent"]]]
    assert match_topics(arrays["beta"], truth.beta, "tv").columns[0] == 3
    assert main([*common, "--method", "g-oem", "--passes", "2", "--json"]) == 0
    output = json.loads(capsys.readouterr().out)
    assert output["seeded_topics"] == {"planted": 0} and output["seed_strength"] == 50
    assert main([*common, "--method", "olda", "--passes", "2", "--json"]) == 0
    output = json.loads(capsys.readouterr().out)
    assert output["seeded_topics"] == {"planted": 0}
    assert main([*common, "--method", "lds"]) == 2
    error = capsys.readouterr().err
    assert "--seed-words works with --method cgs, cvb0, g-oem" in error and "olda" in error
    assert "lds" not in error.split("--method", 1)[1]


def _nearest_true_topics(components, truth, chosen) -> bool:
    """Whether seeded topic k (0..2) is nearest (total variation) to its intended true topic.
    Per topic, not Hungarian: online EM sometimes merges two unseeded true topics and splits
    another, and the global assignment then moves a seeded topic that is still right."""
    distances = match_topics(components[:3], truth.beta, "tv").distances
    return bool(np.all(distances.argmin(axis=1) == chosen))


@pytest.mark.parametrize("method", ["g-oem", "olda", "svb", "vargibbs"])
def test_online_seeded_topics_match_and_do_not_wash_out(method):
    """Point-estimated (G-OEM) and Bayesian topics (OLDA, SVB, VarGibbs), a stream of 3,000
    documents seen four times (120 steps): the seeds steer topics 0..2 to their true topics
    after the first pass and the data keep them there."""
    after_first, at_end = 0, 0
    for seed in range(10):
        corpus, truth, chosen, seeds = _planted(seed, n_documents=3000)
        model = OnlineLDA(10, method=method, n_passes=1, batch_size=100, seed_words=seeds,
                          random_state=seed).fit(corpus)
        after_first += _nearest_true_topics(model.components_, truth, chosen)
        for _ in range(3):
            for start in range(0, corpus.n_documents, 100):
                model.partial_fit(corpus[start:start + 100])
        assert model.n_steps_ == 120
        at_end += _nearest_true_topics(model.components_, truth, chosen)
    assert after_first >= 9 and at_end >= 9


@pytest.mark.parametrize("method", ["g-oem", "olda"])
def test_online_without_seeds_topics_land_anywhere(method):
    matched = 0
    for seed in range(10):
        corpus, truth, chosen, _ = _planted(seed, n_documents=3000)
        model = OnlineLDA(10, method=method, n_passes=1, batch_size=100,
                          random_state=seed).fit(corpus)
        matched += _nearest_true_topics(model.components_, truth, chosen)
    assert matched <= 3


def _statistics_and_seeds():
    """Random statistics of 3 topics over 6 words (scale 0.5, 40 documents seen) and a seed
    prior of 20 pseudo-counts on words 1 and 4 of topic 0 and word 2 of topic 2."""
    rng = np.random.default_rng(0)
    s1 = rng.gamma(1.0, size=(3, 6))
    stats = SufficientStats(s1.T.copy(), np.zeros(3), scale=0.5, n_documents=40.0)
    seed_prior = np.zeros((6, 3))
    seed_prior[[1, 4], 0] = 20.0
    seed_prior[2, 2] = 20.0
    return rng, s1, stats, seed_prior


def test_seeded_point_estimate_is_the_posterior_mean_under_the_eta_matrix():
    """beta_kv = (eta_kv + N s1_kv) / (sum_w eta_kw + N sum_w s1_kw), in the reported topics
    and in the E-step's word weights; N = 1 before any document."""
    rng, s1, stats, seed_prior = _statistics_and_seeds()
    parameters = SeededPointEstimate(0.03, seed_prior)
    eta = 0.03 + seed_prior.T
    expected = (eta + 40.0 * 0.5 * s1) / (eta + 40.0 * 0.5 * s1).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(parameters.components(stats), expected, rtol=1e-12)
    words = np.array([4, 0, 2])
    np.testing.assert_allclose(parameters.word_weights(stats, words), expected[:, words].T,
                               rtol=1e-12)
    stats.n_documents = 0.0
    expected = (eta + 0.5 * s1) / (eta + 0.5 * s1).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(parameters.components(stats), expected, rtol=1e-12)


def test_batch_vb_seeded_topics_match():
    matched = 0
    for seed in range(10):
        corpus, truth, chosen, seeds = _planted(seed, n_documents=3000)
        model = OnlineLDA(10, method="batch-vb", n_passes=10, seed_words=seeds,
                          random_state=seed).fit(corpus)
        matched += _nearest_true_topics(model.components_, truth, chosen)
    assert matched >= 9


def test_seeded_dirichlet_is_the_variational_posterior_under_the_eta_matrix():
    """lambda_kv = eta_kv + D s1_kv: E_q[beta] in the reported topics and lambda_, and
    exp(E_q[log beta]) in the E-step's word weights; the start is a seeded point estimate's
    first topics, with non-negative statistics."""
    rng, s1, stats, seed_prior = _statistics_and_seeds()
    parameters = SeededVariationalDirichlet(corpus_size=1000.0, topic_word_prior=0.1,
                                            seed_prior=seed_prior)
    lam = 0.1 + seed_prior.T + 1000.0 * 0.5 * s1
    np.testing.assert_allclose(parameters.topic_word_lambda(stats), lam, rtol=1e-12)
    np.testing.assert_allclose(parameters.components(stats),
                               lam / lam.sum(axis=1, keepdims=True), rtol=1e-12)
    words = np.array([4, 0, 2])
    expected = np.exp(digamma(lam) - digamma(lam.sum(axis=1, keepdims=True)))[:, words].T
    np.testing.assert_allclose(parameters.word_weights(stats, words), expected, rtol=1e-12)
    beta = rng.dirichlet(np.ones(6), size=3)
    start = parameters.initial_stats(beta, np.full(3, 0.5), document_length=8.0)
    assert np.all(start.raw >= 0)
    first = SeededPointEstimate(0.1, seed_prior)
    at_one = SufficientStats.from_parameters(beta, np.full(3, 0.5), 8.0)
    at_one.n_documents = 1.0
    np.testing.assert_allclose(parameters.components(start), first.components(at_one),
                               rtol=1e-12)
    np.testing.assert_allclose(parameters.topic_word_lambda(start).sum(axis=1),
                               6 * 0.1 + seed_prior.sum(axis=0) + 1000.0 * 8.0, rtol=1e-12)


def test_online_seed_words_model_file_and_refusals(tmp_path):
    corpus, _, _, seeds = _planted(1)
    model = OnlineLDA(10, method="splda", n_passes=1, seed_words=seeds, seed_strength=7,
                      random_state=0).fit(corpus)
    model.save(tmp_path / "m.npz")
    loaded = OnlineLDA.load(tmp_path / "m.npz")
    np.testing.assert_array_equal(loaded.components_, model.components_)
    assert loaded.seeded_topics_ == model.seeded_topics_ == {n: k for k, n in enumerate(seeds)}
    assert loaded.seed_strength == 7
    bayesian = OnlineLDA(10, method="olda", n_passes=1, seed_words=seeds,
                         random_state=0).fit(corpus)
    bayesian.save(tmp_path / "b.npz")
    loaded = OnlineLDA.load(tmp_path / "b.npz")
    np.testing.assert_array_equal(loaded.components_, bayesian.components_)
    np.testing.assert_array_equal(loaded.lambda_, bayesian.lambda_)
    for refused, match in (({"method": "lds"}, "Dirichlet prior"),
                           ({"method": "olda", "update_topic_word_prior": True}, "Newton"),
                           ({"averaging": True}, "averaging"),
                           ({"grow_vocabulary": True}, "grow_vocabulary")):
        with pytest.raises(InputError, match=match):
            OnlineLDA(10, n_passes=1, seed_words=seeds, **refused).fit(corpus)
