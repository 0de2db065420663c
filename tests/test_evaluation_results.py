"""The figures a held-out result reports, their units and standard errors."""

import json
import math

import numpy as np
import pytest

from streamtopics.evaluation import HeldOutLikelihood


def test_figures_and_units():
    log_likelihoods = np.array([-10.0, -20.0, -30.0])
    lengths = np.array([2, 4, 4])
    result = HeldOutLikelihood(log_likelihoods, lengths, "left-to-right", {"seed": 0})
    assert result.n_documents == 3 and result.n_tokens == 10
    assert result.mean_log_likelihood_per_document == -20.0
    assert result.log_perplexity_per_document == 20.0
    assert result.mean_log_likelihood_per_document_se == pytest.approx(10 / math.sqrt(3))
    assert result.log_likelihood_per_token == -6.0
    assert result.per_token_perplexity == pytest.approx(math.exp(6.0))
    # delta method: residuals L_d - r N_d = 2, 4, -6 (sd = sqrt(28)), mean length 10/3
    se = math.sqrt(28) / (math.sqrt(3) * 10 / 3)
    assert result.log_likelihood_per_token_se == pytest.approx(se)
    assert result.per_token_perplexity_se == pytest.approx(math.exp(6.0) * se)
    summary = json.loads(json.dumps(result.as_dict(per_document=True)))
    assert summary["log_perplexity_per_document"] == 20.0 and summary["unit"] == "nats"
    assert summary["log_likelihoods"] == [-10.0, -20.0, -30.0]
    text = str(result)
    assert "log-perplexity per document" in text and "per-token perplexity" in text


def test_delta_method_standard_error_matches_the_spread_over_samples():
    rng = np.random.default_rng(0)
    n_documents, repeats = 50, 2000

    def sample():
        lengths = rng.poisson(40, size=n_documents) + 1
        return -2.5 * lengths + rng.normal(0, 6, size=n_documents), lengths

    ratios = [HeldOutLikelihood(*sample(), "x").log_likelihood_per_token for _ in range(repeats)]
    standard_errors = [HeldOutLikelihood(*sample(), "x").log_likelihood_per_token_se
                       for _ in range(200)]
    assert np.mean(standard_errors) == pytest.approx(np.std(ratios), rel=0.1)


def test_degenerate_results():
    empty = HeldOutLikelihood(np.zeros(0), np.zeros(0, dtype=np.int64), "x")
    assert math.isnan(empty.mean_log_likelihood_per_document)
    assert math.isnan(empty.per_token_perplexity)
    impossible = HeldOutLikelihood(np.array([-np.inf, -1.0]), np.array([1, 1]), "x")
    assert impossible.per_token_perplexity == math.inf
    assert math.isnan(impossible.mean_log_likelihood_per_document_se)
