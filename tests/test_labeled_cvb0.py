"""Labeled LDA / Prior-LDA by CVB0 (Papanikolaou et al. 2017, sections 2.5 and 6.3): the masked
CVB0 sweep against its NumPy twin, every-topic masks equal to CVB0LDA, planted label-topics
recovered and held-out label sets predicted."""

import numpy as np
import pytest

import naive
from streamtopics import CVB0LDA, LabeledCVB0LDA, load_estimator
from streamtopics.corpus.synthetic import generate_labeled_synthetic
from streamtopics.estimators.label_sets import label_indicator
from streamtopics.evaluation import multilabel_f1
from streamtopics.inference.cvb0 import _bag_of_words
from streamtopics.inference.topic_mask import TopicMask
from streamtopics.kernels import cvb0 as kernels


def test_masked_sweep_matches_naive_twin_and_stays_on_the_labels():
    corpus, truth = generate_labeled_synthetic(n_labels=4, n_words=15, n_documents=10,
                                               mean_length=12, seed=3)
    mask = TopicMask.from_lists(truth.labels, 4)
    allowed = mask.indicator()
    doc_offsets, words, counts = _bag_of_words(corpus.counts)
    alpha, eta = np.array([0.1, 0.4, 0.2, 0.3]), 0.05
    gamma = np.empty((words.size, 4))
    state = kernels.cvb0_initialize(doc_offsets, words, counts, 15, 7, 0, gamma, mask.ptr,
                                    mask.topics)
    doc_of_entry = np.repeat(np.arange(corpus.n_documents), np.diff(doc_offsets))
    twin = [a.copy() for a in (gamma, *state)]
    for _ in range(4):
        change = kernels.cvb0_sweep(doc_offsets, words, counts, gamma, *state, alpha, eta,
                                    mask.ptr, mask.topics)
        twin_change = naive.cvb0_sweep(doc_offsets, words, counts, *twin, alpha, eta, allowed)
        assert change == pytest.approx(twin_change, rel=1e-9)
    for array, expected in zip((gamma, *state), twin):
        np.testing.assert_allclose(array, expected, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(gamma.sum(axis=1), 1.0)
    assert np.all(gamma[~allowed[doc_of_entry]] == 0.0)  # equation 5's restriction
    assert np.all(state[0][~allowed] == 0.0)


def test_all_topics_allowed_equals_cvb0_lda(one_thread):
    corpus, _ = generate_labeled_synthetic(n_labels=4, n_words=50, n_documents=60, seed=2)
    priors = dict(doc_topic_prior=0.3, topic_word_prior=0.05, n_passes=12, transform_passes=6,
                  random_state=5)
    labeled = LabeledCVB0LDA(prior="symmetric", **priors)
    labeled.fit(corpus, [list(range(4))] * corpus.n_documents)
    plain = CVB0LDA(n_topics=4, **priors).fit(corpus)
    np.testing.assert_array_equal(labeled.components_, plain.components_)
    np.testing.assert_array_equal(labeled.predict_proba(corpus), plain.transform(corpus))


def test_planted_label_topics_recovered_and_labels_predicted(tmp_path, one_thread):
    """10 planted label-topics over 300 words: mean total variation <= 0.1 without matching
    (labels identify topics), micro-F1 >= 0.9 with the true label counts on 300 held-out
    documents (Labeled LDA's prediction prior: on these short planted documents equation 59's
    alpha, about 3 to 20, swamps the 60 tokens and costs 5 points); model file round trip."""
    corpus, truth = generate_labeled_synthetic(n_labels=10, n_words=300, n_documents=1800,
                                               mean_length=60, seed=1)
    train, test = corpus[:1500], corpus[1500:]
    model = LabeledCVB0LDA(n_passes=40, n_chains=2, prior="symmetric", random_state=0)
    model.fit(train, truth.labels[:1500])
    tv = 0.5 * np.abs(model.components_ - truth.beta).sum(axis=1)
    assert tv.mean() <= 0.1, tv
    _, y_true = label_indicator(truth.labels[1500:], test.n_documents, model.classes_)
    oracle = model.predict(test, n_labels=np.diff(y_true.indptr))
    assert multilabel_f1(y_true, oracle).micro >= 0.9
    assert model.n_iter_ == [40, 40]
    np.testing.assert_allclose(model.doc_topic_prior_, 5.0)  # equation 58: 50 / K
    prior = LabeledCVB0LDA(n_passes=2, random_state=0).fit(train[:200], truth.labels[:200])
    np.testing.assert_allclose(prior.doc_topic_prior_,  # equation 59
                               50 * prior.label_frequency_ / prior.label_frequency_.sum() + 3.0)
    model.save(tmp_path / "cvb0.stm")
    loaded = load_estimator(tmp_path / "cvb0.stm")
    assert loaded.predict_labels(test[:20]) == model.predict_labels(test[:20])
