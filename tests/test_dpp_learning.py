"""Learning the low-rank DPP recovers planted parameters (thesis section 4.5.3, scaled down)."""

import numpy as np
import pytest

from streamtopics.dpp.learning import picard, set_log_likelihood
from streamtopics.dpp.likelihood import Observations, evaluate
from streamtopics.dpp.metrics import chance_distance, sign_matched_distance, subspace_distance
from streamtopics.dpp.model import LowRankDPP
from streamtopics.dpp.synthetic import generate
from streamtopics.errors import ModelFileError


def planted(kind, seed, per_set_theta=False, n_words=None):
    n_words = n_words or (12 if kind == "items" else 6)
    data = generate(kind, n_words, 2, 3000, per_set_theta, seed=seed, theta_scale=5.0)
    return data, data.as_observed(range(2000)), data.as_observed(range(2000, 3000))


def true_test_log_likelihood(data, test):
    theta = data.theta[2000:] if data.theta.shape[0] > 1 else data.theta
    obs = Observations(test, data.base, data.gamma, data.alpha)
    return evaluate(obs, data.U, theta, gradients=False).per_set.mean()


def fitted(data, train, rank, **options):
    model = LowRankDPP(ground=data.base.kind, rank=rank, alpha=data.alpha, gamma=data.gamma,
                       random_state=0, init_scale=1 / np.sqrt(data.U.shape[0]),
                       **{"penalty": 0.0, "theta": "shared", **options})
    return model.fit(train, data.U.shape[0], pi=data.base.pi)


def test_item_set_recovers_planted_embedding():
    data, train, test = planted("items", seed=0)
    model = fitted(data, train, rank=2)
    assert subspace_distance(model.embeddings_, data.U) < 0.1      # chance ~0.91
    gap = true_test_log_likelihood(data, test) - model.log_likelihood(test).mean()
    assert abs(gap) < 0.02


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_overcomplete_rank_fits_well_and_beats_picard(seed):
    """r = 3 r* avoids the local optima of r = r* (the thesis' section 4.5.3 remark); the full-
    matrix Picard iteration (Mariet & Sra 2015) ascends monotonically but generalises worse."""
    data, train, test = planted("items", seed)
    true_ll = true_test_log_likelihood(data, test)
    gap = true_ll - fitted(data, train, rank=6).log_likelihood(test).mean()
    L, history = picard([np.asarray(s) for s in data.sets[:2000]], 12, n_iter=30)
    picard_gap = true_ll - set_log_likelihood(L, [np.asarray(s) for s in data.sets[2000:]]).mean()
    assert np.all(np.diff(history) > -1e-10)
    assert gap < 0.05
    assert picard_gap > 5 * max(gap, 0.02)


def test_group_penalty_switches_off_extra_columns():
    data, train, _ = planted("items", seed=0)
    model = fitted(data, train, rank=6, penalty=1e-2)
    weight = np.linalg.norm(model.embeddings_, axis=0) * np.sqrt(model.theta_[0])
    assert (weight < 1e-3 * weight.max()).sum() >= 3


def test_sgd_reaches_the_lbfgs_objective():
    data, train, _ = planted("items", seed=0)
    lbfgs = fitted(data, train, rank=2)
    sgd = fitted(data, train, rank=2, optimizer="sgd")
    assert sgd.trace_.log_likelihood[-1] == pytest.approx(lbfgs.trace_.log_likelihood[-1], abs=0.01)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_binary_set_shared_theta_matches_true_likelihood(seed):
    data, train, test = planted("binary", seed)
    gap = true_test_log_likelihood(data, test) - fitted(data, train, rank=2).log_likelihood(test).mean()
    assert abs(gap) < 0.02


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_binary_set_per_document_theta_recovers_embedding(seed):
    data, train, _ = planted("binary", seed, per_set_theta=True)
    model = fitted(data, train, rank=2, theta="per-document")
    assert model.theta_.shape == (2000, 2)
    assert sign_matched_distance(model.embeddings_, data.U) < 0.2   # chance ~0.82
    assert chance_distance(2, 6) == pytest.approx(0.816, abs=1e-3)


def test_model_file_round_trip(tmp_path):
    data, train, test = planted("binary", seed=0)
    model = fitted(data, train[:200], rank=2, theta="per-document", max_outer=2)
    model.vocabulary_ = [f"w{i}" for i in range(6)]
    model.save(tmp_path / "dpp.stm")
    loaded = LowRankDPP.load(tmp_path / "dpp.stm")
    assert loaded.vocabulary_ == [f"w{i}" for i in range(6)] and loaded.stopwords_ is None
    np.testing.assert_array_equal(loaded.embeddings_, model.embeddings_)
    np.testing.assert_allclose(loaded.log_likelihood(test[:20]), model.log_likelihood(test[:20]))
    (tmp_path / "bad.stm").write_bytes(b"not a model")
    with pytest.raises(ModelFileError):
        LowRankDPP.load(tmp_path / "bad.stm")
