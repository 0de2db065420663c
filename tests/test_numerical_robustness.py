"""No NaN or infinity in any parameter across a grid of extreme settings.

Grid: every online preset (`PRESETS`) plus `GibbsLDA` (alpha and eta re-estimated, so the
priors move) and `CVB0LDA`, times K in {1, 3}, times alpha in {1e-6, 1e3}, times four corpora:
documents of one token, a single document of 100,000 tokens, a vocabulary of one word, and
identical documents. For every cell the fitted topics (``components_``: finite, non-negative,
rows summing to 1), alpha (finite and positive, also where an alpha update moves it), lambda and
eta of Bayesian methods and the ``transform`` proportions are checked.

Held-out likelihood on extreme fitted parameters obeys one rule: the left-to-right estimate of
log p(w_d) is finite unless a word of w_d has probability 0 under every topic (beta[:, w] = 0,
e.g. a word never seen in training by an unsmoothed point estimate), where it is exactly -inf;
never NaN or +inf.

Regressions found by this grid (fixed): the Polyak-Ruppert average of a topic whose statistics
jump by orders of magnitude (nearly empty at alpha 1e-6) lost its row sums to cancellation in
the factor sums (engine `_finish_step`); the Newton step on eta was 0/0 with V = 1
(`newton_topic_word_prior`).
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from streamtopics import CVB0LDA, GibbsLDA, OnlineLDA
from streamtopics.evaluation import left_to_right
from streamtopics.inference.presets import PRESETS

LONG_DOCUMENT_TOKENS = 100_000
# an overflow or 0/0 on the way is a failure even if the result happens to come out finite
pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")


def _corpus(case: str) -> sp.csr_matrix:
    if case == "one-token-documents":
        # word 4 never occurs: topics of unsmoothed point estimates give it probability 0
        return sp.csr_matrix(np.eye(4, 5, dtype=np.int64))
    if case == "long-document":
        rng = np.random.default_rng(0)
        shares = rng.dirichlet(np.full(40, 0.3))
        return sp.csr_matrix(rng.multinomial(LONG_DOCUMENT_TOKENS, shares)[None, :])
    if case == "one-word-vocabulary":
        return sp.csr_matrix(np.array([[3], [1], [7]], dtype=np.int64))
    if case == "identical-documents":
        return sp.csr_matrix(np.tile(np.array([[2, 0, 1, 3, 0, 1]], dtype=np.int64), (8, 1)))
    raise AssertionError(case)


CASES = ["one-token-documents", "long-document", "one-word-vocabulary", "identical-documents"]
METHODS = [*PRESETS, "gibbs", "gibbs-dense-standard", "cvb0"]
ALPHAS = [1e-6, 1e3]


def _model(method: str, n_topics: int, alpha: float, **options):
    if method == "gibbs":
        # eta at the same extreme as alpha; both priors re-estimated (Minka) every 2 sweeps
        return GibbsLDA(n_topics, doc_topic_prior=alpha, topic_word_prior=alpha, n_passes=6,
                        burn_in=2, lag=1, n_samples=2, optimize_alpha=True, optimize_eta=True,
                        optimize_interval=2, random_state=0, **options)
    if method == "gibbs-dense-standard":
        return GibbsLDA(n_topics, doc_topic_prior=alpha, topic_word_prior=alpha, n_passes=6,
                        burn_in=2, lag=1, n_samples=2, sampler="dense", estimator="standard",
                        random_state=0, **options)
    if method == "cvb0":
        return CVB0LDA(n_topics, doc_topic_prior=alpha, topic_word_prior=alpha, n_passes=5,
                       transform_passes=3, random_state=0, **options)
    settings = {"local_passes": 2, "batch_size": 2, "n_passes": 2, "random_state": 0}
    return OnlineLDA(n_topics, method=method, doc_topic_prior=alpha, **{**settings, **options})


def _assert_finite_model(model, counts: sp.csr_matrix, n_topics: int) -> None:
    n_words = counts.shape[1]
    beta = np.asarray(model.components_)
    assert beta.shape == (n_topics, n_words)
    assert np.all(np.isfinite(beta)) and np.all(beta >= 0)
    np.testing.assert_allclose(beta.sum(axis=1), 1.0, rtol=0, atol=1e-9)
    alpha = np.asarray(model.doc_topic_prior_)
    assert alpha.shape == (n_topics,)
    assert np.all(np.isfinite(alpha)) and np.all(alpha > 0)
    topic_word_lambda = getattr(model, "lambda_", None)
    if topic_word_lambda is not None:
        assert np.all(np.isfinite(topic_word_lambda)) and np.all(topic_word_lambda > 0)
    eta = getattr(model, "topic_word_prior_", None)
    if eta is not None:
        assert np.isfinite(eta) and eta > 0
    proportions = model.transform(counts)
    assert proportions.shape == (counts.shape[0], n_topics)
    assert np.all(np.isfinite(proportions)) and np.all(proportions >= 0)
    np.testing.assert_allclose(proportions.sum(axis=1), 1.0, rtol=0, atol=1e-9)


@pytest.mark.parametrize("alpha", ALPHAS)
@pytest.mark.parametrize("n_topics", [1, 3])
@pytest.mark.parametrize("case", CASES)
def test_every_method_stays_finite_on_extreme_settings(case, n_topics, alpha):
    counts = _corpus(case)
    if case == "long-document":
        assert counts.sum() == LONG_DOCUMENT_TOKENS and counts.shape[0] == 1
    for method in METHODS:
        model = _model(method, n_topics, alpha).fit(counts)
        try:
            _assert_finite_model(model, counts, n_topics)
        except AssertionError as error:
            raise AssertionError(f"method {method}: {error}") from error


def test_fixed_point_alpha_on_identical_documents_stays_finite():
    """Identical documents: the maximum-likelihood alpha grows without bound (every document
    has the same proportions); the fixed point must cap it (MAX_CONCENTRATION) and the Newton
    and Gamma-prior updates must stay finite too, over many steps."""
    counts = _corpus("identical-documents")
    for method in ("g-oem", "v-oem++", "olda", "svb", "splda"):
        for alpha in ALPHAS:
            model = _model(method, 3, alpha, batch_size=1, n_passes=6, local_passes=3)
            _assert_finite_model(model.fit(counts), counts, 3)


def test_averaged_topics_keep_row_sums_when_a_nearly_empty_topic_fills():
    """Regression: at alpha 1e-6 a topic's statistics can go from ~1e-9 to ~1e3 in one step;
    the Polyak-Ruppert average lost 4e-4 of its row sum to cancellation in the factor sums."""
    counts = sp.csr_matrix(np.array([[99_990, 10, 0], [0, 0, 1], [1, 0, 0]], dtype=np.int64))
    for method in ("g-oem", "g-oem++"):
        iterates = []
        model = OnlineLDA(5, method=method, doc_topic_prior=1e-6, averaging=True, local_passes=3,
                          batch_size=1, n_passes=4, random_state=0)
        model.fit(counts, callback=lambda fitted, report: iterates.append(
            fitted._engine.parameters.components(fitted._engine.stats)))
        np.testing.assert_allclose(model.components_, np.mean(iterates, axis=0), rtol=0,
                                   atol=1e-12)
        _assert_finite_model(model, counts, 5)


def test_topic_word_prior_update_with_one_word():
    """V = 1: beta = 1 for every eta, the Newton step on eta is 0/0; eta must stay put."""
    counts = _corpus("one-word-vocabulary")
    for alpha in ALPHAS:
        model = _model("olda", 3, alpha, topic_word_prior=0.5, update_topic_word_prior=True)
        _assert_finite_model(model.fit(counts), counts, 3)
        assert model.topic_word_prior_ == 0.5


@pytest.mark.parametrize("resample", [False, True])
@pytest.mark.parametrize("alpha", ALPHAS)
@pytest.mark.parametrize("method", ["g-oem", "v-oem", "olda", "sgs", "gibbs", "cvb0"])
def test_left_to_right_on_extreme_parameters(method, alpha, resample):
    """Finite unless a word has probability 0 in every topic, then exactly -inf."""
    held_out = (np.array([0, 1, 4, 0, 2, 3, 3]), np.array([0, 2, 3, 5, 7]))
    for case in ("one-token-documents", "long-document"):
        counts = _corpus(case)
        model = _model(method, 3, alpha).fit(counts)
        beta = np.asarray(model.components_)
        words, offsets = held_out
        log_likelihoods = left_to_right(beta, model.doc_topic_prior_, (words, offsets),
                                        n_particles=4, resample=resample,
                                        max_tokens=50).log_likelihoods
        seen = np.array([np.all(beta[:, words[start:stop]].max(axis=0) > 0)
                         for start, stop in zip(offsets[:-1], offsets[1:])])
        assert not np.any(np.isnan(log_likelihoods)), (case, log_likelihoods)
        np.testing.assert_array_equal(np.isfinite(log_likelihoods), seen)
        assert np.all(log_likelihoods[~seen] == -np.inf)
        assert np.all(log_likelihoods[seen] < 0)


@pytest.mark.parametrize("method", ["g-oem", "olda", "gibbs"])
def test_left_to_right_scores_a_long_document(method):
    """A 100,000-token document scored in full by its own topics at the largest alpha."""
    counts = _corpus("long-document")
    model = _model(method, 3, 1e3).fit(counts)
    words = np.repeat(np.arange(counts.shape[1]), counts.toarray()[0])
    result = left_to_right(model.components_, model.doc_topic_prior_,
                           (words, np.array([0, words.size])), n_particles=1, max_tokens=2_000)
    assert np.all(np.isfinite(result.log_likelihoods)) and result.log_likelihoods[0] < 0
