"""Contracts every registered estimator keeps (`streamtopics.estimators.ESTIMATORS`): the input
is never changed, the same seed gives the same model, parameters round-trip (clone), model
files round-trip, transform is pure and independent of row order, and every parameter is
checked when training starts. A new estimator joins by adding one line to `MAKERS`."""

import numpy as np
import pytest
import scipy.sparse as sp

from streamtopics.corpus.synthetic import generate_synthetic
from streamtopics.estimators import (ESTIMATORS, CVB0LDA, GibbsLDA, LabeledCVB0LDA, LabeledLDA,
                                     LabeledOnlineLDA, OnlineHDP, OnlineLDA, PriorLDA,
                                     load_estimator)
from streamtopics.validation import ParameterError

pytestmark = pytest.mark.usefixtures("one_thread")

# A small, fast, seeded instance of each estimator, and whether its fit takes labels.
MAKERS = {
    "OnlineLDA": (lambda: OnlineLDA(3, batch_size=20, local_passes=3, n_passes=1,
                                    random_state=0), False),
    "GibbsLDA": (lambda: GibbsLDA(3, n_passes=8, burn_in=4, lag=2, n_samples=2,
                                  random_state=0), False),
    "CVB0LDA": (lambda: CVB0LDA(3, n_passes=8, transform_passes=5, random_state=0), False),
    "LabeledLDA": (lambda: LabeledLDA(burn_in=4, lag=2, n_samples=1, random_state=0), True),
    "PriorLDA": (lambda: PriorLDA(burn_in=4, lag=2, n_samples=1, random_state=0), True),
    "LabeledOnlineLDA": (lambda: LabeledOnlineLDA(batch_size=20, local_passes=3, burn_in=4,
                                                  lag=2, random_state=0), True),
    "LabeledCVB0LDA": (lambda: LabeledCVB0LDA(n_passes=8, n_chains=2, transform_passes=5,
                                              random_state=0), True),
    "OnlineHDP": (lambda: OnlineHDP(max_topics=6, batch_size=20, local_passes=4,
                                    random_state=0), False),
}
NAMES = sorted(ESTIMATORS)


@pytest.fixture(scope="module")
def data():
    """40 documents over 20 words, and one or two labels per document (its main topics)."""
    corpus, truth = generate_synthetic(n_topics=3, n_words=20, n_documents=40, mean_length=12,
                                       seed=21)
    order = np.argsort(-truth.theta, axis=1)
    labels = [sorted({int(row[0]), int(row[1])}) if d % 3 == 0 else [int(row[0])]
              for d, row in enumerate(order)]
    return corpus.counts.tocsr(), labels


def _make(name):
    if name not in MAKERS:
        pytest.fail(f"{name} is registered but has no entry in MAKERS: add one")
    return MAKERS[name][0]()


def _fit(name, model, data):
    counts, labels = data
    return model.fit(counts, labels) if MAKERS[name][1] else model.fit(counts)


def _same_csr(a, b) -> bool:
    return (a.shape == b.shape and np.array_equal(a.indptr, b.indptr)
            and np.array_equal(a.indices, b.indices) and np.array_equal(a.data, b.data))


@pytest.mark.parametrize("name", NAMES)
def test_input_is_never_changed(name, data):
    counts, labels = data
    copies = counts.copy(), [list(row) for row in labels]
    model = _fit(name, _make(name), data)
    model.transform(counts)
    assert _same_csr(counts, copies[0]) and labels == copies[1]


@pytest.mark.parametrize("name", NAMES)
def test_same_seed_same_model(name, data):
    first, second = (_fit(name, _make(name), data) for _ in range(2))
    np.testing.assert_array_equal(first.components_, second.components_)
    np.testing.assert_array_equal(first.doc_topic_prior_, second.doc_topic_prior_)
    np.testing.assert_array_equal(first.transform(data[0]), second.transform(data[0]))


@pytest.mark.parametrize("name", NAMES)
def test_parameters_round_trip_and_clone(name, data):
    model = _make(name)
    params = model.get_params()
    assert type(model)(**params).get_params() == params
    assert model.set_params(**params) is model and model.get_params() == params
    try:
        from sklearn.base import clone
    except ImportError:  # scikit-learn is optional
        return
    copy = clone(model)
    assert copy is not model and copy.get_params() == params
    np.testing.assert_array_equal(_fit(name, copy, data).components_,
                                  _fit(name, _make(name), data).components_)


@pytest.mark.parametrize("name", NAMES)
def test_model_files_round_trip(name, data, tmp_path):
    model = _fit(name, _make(name), data)
    model.save(tmp_path / "model.npz")
    loaded = load_estimator(tmp_path / "model.npz")
    assert type(loaded) is type(model) and loaded.get_params() == model.get_params()
    np.testing.assert_array_equal(loaded.components_, model.components_)
    np.testing.assert_array_equal(loaded.doc_topic_prior_, model.doc_topic_prior_)
    np.testing.assert_array_equal(loaded.vocabulary_, model.vocabulary_)
    np.testing.assert_array_equal(loaded.transform(data[0]), model.transform(data[0]))


@pytest.mark.parametrize("name", NAMES)
def test_transform_is_pure_and_independent_of_row_order(name, data):
    counts = data[0]
    model = _fit(name, _make(name), data)
    before = np.array(model.components_, copy=True)
    proportions = model.transform(counts)
    np.testing.assert_array_equal(model.components_, before)
    np.testing.assert_array_equal(model.transform(counts), proportions)
    assert proportions.shape == (counts.shape[0], before.shape[0])
    np.testing.assert_allclose(proportions.sum(axis=1), 1.0)
    order = np.random.default_rng(0).permutation(counts.shape[0])
    np.testing.assert_array_equal(model.transform(sp.csr_matrix(counts[order])),
                                  proportions[order])


@pytest.mark.parametrize("name", NAMES)
def test_every_bad_parameter_fails_when_training_starts(name, data):
    """``__init__`` only stores; `fit` checks each parameter of the constraints table and names
    the one that is wrong."""
    for parameter in type(_make(name))._parameter_constraints:
        model = _make(name).set_params(**{parameter: object()})
        with pytest.raises(ParameterError, match=f"{type(model).__name__}: {parameter}\\b"):
            _fit(name, model, data)
