"""OnlineLDA / the online EM engine: planted-topic recovery for every method, determinism across
thread counts, API contracts (transform, save/load, partial_fit, clone) and bad parameters."""

import numpy as np
import pytest
import scipy.sparse as sp

from streamtopics.corpus.corpus import Corpus
from streamtopics.corpus.synthetic import generate_synthetic
from streamtopics.estimators import NotFittedError, OnlineLDA
from streamtopics.inference.presets import PRESETS, Method

from helpers import matched_tv, numba_threads

pytestmark = pytest.mark.usefixtures("one_thread")

METHODS = ["g-oem", "g-oem++", "v-oem", "v-oem++"]  # the baselines: tests/test_baselines.py
ALL_PRESETS = sorted(PRESETS)


@pytest.mark.parametrize("method", METHODS)
def test_recovers_planted_topics(planted, method):
    """K = 4 topics over V = 100 words, 2000 documents of ~60 tokens, two passes: the mean
    matched total-variation distance to the true topics is below 0.05 (observed 0.011-0.032 over
    ten seeds for each method; the random initial topics are at about 0.9)."""
    corpus, truth = planted
    model = OnlineLDA(n_topics=4, method=method, n_passes=2, random_state=0).fit(corpus)
    distances = matched_tv(model.components_, truth.beta)
    assert distances.mean() < 0.05, distances
    np.testing.assert_allclose(model.components_.sum(axis=1), 1.0)
    assert np.all((model.doc_topic_prior_ > 0.05) & (model.doc_topic_prior_ < 0.2))  # true: 0.1
    assert model.n_steps_ == 40 and model.n_documents_seen_ == 4000


@pytest.mark.parametrize("method", ALL_PRESETS)
def test_same_seed_same_components_for_one_and_two_threads(small, method):
    results = []
    for threads in (1, 2):
        with numba_threads(threads):
            results.append(OnlineLDA(3, method=method, batch_size=50, local_passes=8,
                                     n_passes=2, random_state=4).fit(small).components_)
    np.testing.assert_array_equal(results[0], results[1])


def test_every_method_starts_from_the_same_parameters(small):
    """beta_0 (E_q[beta_0] = lambda_0 / V for Bayesian methods) and alpha_0 are shared."""
    starts = []
    for method in ALL_PRESETS:
        model = OnlineLDA(3, method=method, random_state=9)
        model._start(small.counts, small.vocabulary, corpus_size=small.n_documents)
        starts.append((model.components_.copy(), model.doc_topic_prior_))
    for beta, alpha in starts[1:]:
        np.testing.assert_allclose(beta, starts[0][0], rtol=1e-12)
        np.testing.assert_array_equal(alpha, starts[0][1])


def test_fit_equals_partial_fit_on_consecutive_minibatches(small):
    fitted = OnlineLDA(3, batch_size=60, local_passes=6, n_passes=1, random_state=2).fit(small)
    streamed = OnlineLDA(3, batch_size=60, local_passes=6, n_passes=1, random_state=2)
    for batch in small.minibatches(60):
        streamed.partial_fit(batch)
    np.testing.assert_array_equal(streamed.components_, fitted.components_)
    np.testing.assert_array_equal(streamed.doc_topic_prior_, fitted.doc_topic_prior_)


@pytest.mark.parametrize("method", ["g-oem", "v-oem++"])
def test_transform_leaves_the_model_unchanged_and_is_deterministic(small, method):
    model = OnlineLDA(3, method=method, batch_size=50, local_passes=8, random_state=3).fit(small)
    before = {name: array.copy() for name, array in model._state_arrays().items()}
    step = model.n_steps_
    first = model.transform(small[:40])
    second = model.transform(small.counts[:40])
    np.testing.assert_array_equal(first, second)
    np.testing.assert_allclose(first.sum(axis=1), 1.0)
    assert first.shape == (40, 3) and np.all(first > 0)
    for name, array in model._state_arrays().items():
        np.testing.assert_array_equal(array, before[name])
    assert model.n_steps_ == step
    # chunking does not matter: each document has its own random stream
    np.testing.assert_array_equal(model.transform(small[:40]), model.set_params(batch_size=7).transform(small[:40]))


@pytest.mark.parametrize("method,averaging", [("g-oem", False), ("v-oem", True), ("g-oem++", False)])
def test_save_load_round_trip(tmp_path, small, method, averaging):
    model = OnlineLDA(3, method=method, batch_size=50, local_passes=8, averaging=averaging,
                      random_state=5)
    batches = list(small.minibatches(50))
    for batch in batches[:3]:
        model.partial_fit(batch)
    model.save(tmp_path / "model.npz")
    loaded = OnlineLDA.load(tmp_path / "model.npz")
    np.testing.assert_array_equal(loaded.components_, model.components_)
    np.testing.assert_array_equal(loaded.doc_topic_prior_, model.doc_topic_prior_)
    np.testing.assert_array_equal(loaded.transform(small[:30]), model.transform(small[:30]))
    assert loaded.top_words(5) == model.top_words(5)
    # training resumes exactly where it stopped
    for batch in batches[3:]:
        model.partial_fit(batch)
        loaded.partial_fit(batch)
    np.testing.assert_array_equal(loaded.components_, model.components_)


def test_custom_method_round_trip(tmp_path, small):
    custom = Method(local="variational", step_size="incremental", alpha_update="fixed", boosted=True)
    model = OnlineLDA(3, method=custom, batch_size=50, local_passes=5, doc_topic_prior=0.3,
                      random_state=1).fit(small)
    np.testing.assert_array_equal(model.doc_topic_prior_, np.full(3, 0.3))  # alpha fixed
    model.save(tmp_path / "custom.npz")
    loaded = OnlineLDA.load(tmp_path / "custom.npz")
    assert loaded.method_ == custom
    np.testing.assert_array_equal(loaded.transform(small[:10]), model.transform(small[:10]))


def test_averaging_reports_the_mean_of_the_iterates(small):
    iterates = []
    OnlineLDA(3, batch_size=50, local_passes=6, n_passes=1, random_state=6).fit(
        small, callback=lambda model, report: iterates.append(
            (model.components_.copy(), model.doc_topic_prior_)))
    averaged = OnlineLDA(3, batch_size=50, local_passes=6, averaging=True, n_passes=1,
                         random_state=6).fit(small)
    np.testing.assert_allclose(averaged.components_, np.mean([b for b, _ in iterates], axis=0), rtol=1e-10)
    np.testing.assert_allclose(averaged.doc_topic_prior_, np.mean([a for _, a in iterates], axis=0), rtol=1e-12)


def test_averaged_topics_stay_normalised_over_many_steps():
    """The lazy average must not lose digits as the lazy scale shrinks (200 steps of
    1/sqrt(i): the scale would reach about 1e-12)."""
    corpus, _ = generate_synthetic(n_topics=3, n_words=40, n_documents=1000, mean_length=10, seed=4)
    model = OnlineLDA(3, batch_size=5, local_passes=4, averaging=True, random_state=0).fit(corpus)
    np.testing.assert_allclose(model.components_.sum(axis=1), 1.0, rtol=0, atol=1e-12)


def test_sklearn_conventions(small):
    from sklearn.base import clone
    model = OnlineLDA(3, method="v-oem", batch_size=50, local_passes=5, random_state=0)
    assert clone(model).get_params() == model.get_params()
    with pytest.raises(NotFittedError):
        model.transform(small)
    assert not hasattr(model, "components_")
    counts = small.counts.copy()
    model.fit(counts)
    assert (model.components_ != 0).any() and (counts != small.counts).nnz == 0  # input unchanged
    assert model.vocabulary_[0] == "w0" and len(model.top_words(4)) == 3
    with pytest.raises(ValueError):
        model.components_[0, 0] = 1.0  # read-only


@pytest.mark.parametrize("parameters,match", [
    ({"n_topics": 0}, "n_topics"), ({"n_topics": 2.5}, "n_topics"),
    ({"step_decay": 0.0}, "kappa"), ({"step_decay": 1.2}, "kappa"),
    ({"step_offset": -1.0}, "tau0"), ({"batch_size": 0}, "batch_size"),
    ({"local_passes": 0}, "local_passes"), ({"method": "nope"}, "unknown method"),
    ({"doc_topic_prior": -1.0}, "doc_topic_prior"),
])
def test_bad_parameters_raise_at_fit_time(small, parameters, match):
    model = OnlineLDA(**parameters)  # __init__ only stores
    with pytest.raises(ValueError, match=match):
        model.fit(small)
    with pytest.raises(ValueError, match=match):
        OnlineLDA(**parameters).partial_fit(small)


def test_bad_data_raise(small):
    with pytest.raises(ValueError, match="no documents"):
        OnlineLDA(2).fit(sp.csr_matrix((0, 5)))
    with pytest.raises(ValueError, match="no tokens"):
        OnlineLDA(2).fit(sp.csr_matrix((3, 5)))
    with pytest.raises(ValueError, match="whole numbers|non-negative"):
        OnlineLDA(2).fit(np.array([[1.5, 2.0]]))
    model = OnlineLDA(2, local_passes=4).partial_fit(small)
    wrong = Corpus(sp.csr_matrix(np.ones((2, small.n_words + 1), dtype=int)))
    with pytest.raises(ValueError, match="vocabulary of 41 words but the model has 40"):
        model.partial_fit(wrong)
    with pytest.raises(ValueError, match="vocabulary of 41 words"):
        model.transform(wrong)


@pytest.mark.parametrize("method", ["g-oem", "sgs", "v-oem"])
def test_transform_of_a_document_does_not_depend_on_its_row(method, small):
    """A document's random stream comes from its content and the model's seed."""
    model = OnlineLDA(3, method=method, batch_size=40, local_passes=5, n_passes=1,
                      random_state=0).fit(small)
    counts = small.counts
    order = np.random.default_rng(1).permutation(counts.shape[0])
    proportions = model.transform(counts)
    assert np.array_equal(model.transform(counts[order]), proportions[order])
    assert np.array_equal(model.transform(counts[::-1])[::-1], proportions)
    twice = sp.vstack([counts[:1], counts[:1]]).tocsr()  # equal documents, equal proportions
    assert np.array_equal(model.transform(twice)[1], proportions[0])


@pytest.mark.parametrize("method", ["g-oem", "v-oem"])
def test_transform_gives_a_document_the_same_bits_alone_or_in_any_minibatch(method, small,
                                                                             monkeypatch):
    """transform runs its documents in minibatches, each document keyed by its content: alone,
    among all the others, or cut into minibatches of a few entries, the same proportions."""
    from streamtopics.estimators import online_lda
    model = OnlineLDA(3, method=method, batch_size=40, local_passes=5, n_passes=1,
                      random_state=0).fit(small)
    counts = small.counts[:30]
    together = model.transform(counts)
    alone = np.vstack([model.transform(counts[row:row + 1]) for row in range(30)])
    monkeypatch.setattr(online_lda, "TRANSFORM_CELLS", 3 * 50)  # about 50 entries a minibatch
    assert len(online_lda.transform_chunks(counts.indptr, 50)) > 3
    assert np.array_equal(together, alone)
    assert np.array_equal(model.transform(counts), together)
