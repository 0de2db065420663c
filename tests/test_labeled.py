"""Labeled LDA and Prior-LDA (Papanikolaou et al. 2017, sections 2.4 and 6): planted label-topics
recovered, held-out label sets predicted far above a trivial baseline, all-topics masks equal to
GibbsLDA, equation 59, the Meta-Labeler and rank cut-off, the F1 measures against scikit-learn,
model files."""

import numpy as np
import pytest
import scipy.sparse as sp

from streamtopics import GibbsLDA, InputError, LabeledLDA, PriorLDA, load_estimator
from streamtopics.corpus.synthetic import generate_labeled_synthetic
from streamtopics.estimators.label_sets import MetaLabeler, label_indicator, top_labels
from streamtopics.estimators.labeled_online import LabeledOnlineLDA
from streamtopics.evaluation import multilabel_f1

N_TRAIN = 1500


@pytest.fixture(scope="module")
def planted():
    """10 labels over 300 words, 1800 documents of about 60 tokens, 1-4 labels each."""
    return generate_labeled_synthetic(n_labels=10, n_words=300, n_documents=N_TRAIN + 300,
                                      mean_length=60, seed=1)


@pytest.fixture(scope="module")
def fitted(planted):
    corpus, truth = planted
    model = LabeledLDA(burn_in=30, lag=5, n_samples=2, random_state=0)
    return model.fit(corpus[:N_TRAIN], truth.labels[:N_TRAIN])


def test_planted_label_topics_recovered_and_labels_predicted(planted, fitted, one_thread):
    corpus, truth = planted
    tv = 0.5 * np.abs(fitted.components_ - truth.beta).sum(axis=1)  # labels identify topics
    assert tv.mean() <= 0.1, tv
    test = corpus[N_TRAIN:]
    _, y_true = label_indicator(truth.labels[N_TRAIN:], test.n_documents, fitted.classes_)
    oracle = fitted.predict(test, n_labels=np.diff(y_true.indptr))
    assert multilabel_f1(y_true, oracle).micro >= 0.9
    meta = multilabel_f1(y_true, fitted.predict(test))
    # trivial baseline: the most frequent labels, as many as the Meta-Labeler gives
    baseline = top_labels(np.tile(fitted.label_frequency_, (test.n_documents, 1)),
                          fitted.label_counts(test))
    assert meta.micro >= 0.85 and meta.micro >= multilabel_f1(y_true, baseline).micro + 0.3
    assert fitted.predict_labels(test[:3]) == [
        fitted.classes_[row.indices].tolist() for row in fitted.predict(test[:3])]


def test_all_topics_allowed_equals_gibbs_lda(one_thread):
    corpus, _ = generate_labeled_synthetic(n_labels=4, n_words=50, n_documents=60, seed=2)
    everything = [list(range(4))] * corpus.n_documents
    for estimator in ("p", "standard"):
        priors = dict(doc_topic_prior=0.3, topic_word_prior=0.05, burn_in=8, lag=2, n_samples=1,
                      estimator=estimator, random_state=5)
        labeled = LabeledLDA(**priors).fit(corpus, everything)
        gibbs = GibbsLDA(n_topics=4, n_passes=10, **priors).fit(corpus)
        np.testing.assert_array_equal(labeled.components_, gibbs.components_)
        np.testing.assert_array_equal(labeled.predict_proba(corpus), gibbs.transform(corpus))


def test_prior_lda_prediction_prior_is_equation_59(fitted, planted, one_thread):
    corpus, truth = planted
    prior = PriorLDA(burn_in=2, n_samples=1, random_state=0).fit(corpus[:200], truth.labels[:200])
    frequency = np.bincount(np.concatenate(truth.labels[:200]), minlength=10)
    np.testing.assert_array_equal(prior.label_frequency_, frequency)
    np.testing.assert_allclose(prior.doc_topic_prior_, 50 * frequency / frequency.sum() + 3.0)
    np.testing.assert_allclose(prior.training_alpha_, 5.0)  # equation 58: 50 / K
    np.testing.assert_allclose(fitted.doc_topic_prior_, fitted.training_alpha_)  # Labeled LDA


def test_save_load_round_trip_and_label_names(tmp_path, one_thread):
    corpus, truth = generate_labeled_synthetic(n_labels=5, n_words=40, n_documents=80, seed=3)
    names = [[f"tag{k}" for k in row] for row in truth.labels]
    model = LabeledLDA(burn_in=5, n_samples=2, n_chains=2, random_state=1).fit(corpus, names)
    assert model.classes_.tolist() == [f"tag{k}" for k in range(5)]
    model.save(tmp_path / "m.stm")
    loaded = load_estimator(tmp_path / "m.stm")
    assert isinstance(loaded, LabeledLDA)
    np.testing.assert_array_equal(loaded.predict_proba(corpus), model.predict_proba(corpus))
    assert loaded.predict_labels(corpus) == model.predict_labels(corpus)
    np.testing.assert_array_equal(loaded.topic_word_standard_, model.topic_word_standard_)


def test_bad_labels_are_named():
    corpus, truth = generate_labeled_synthetic(n_labels=3, n_words=20, n_documents=5, seed=4)
    labels = [list(row) for row in truth.labels]
    labels[2] = []
    with pytest.raises(InputError, match="training document 2 has no label"):
        LabeledLDA().fit(corpus, labels)
    with pytest.raises(InputError, match="labels for 4 documents"):
        LabeledLDA().fit(corpus, truth.labels[:4])
    with pytest.raises(InputError, match="unknown label 'x'"):
        label_indicator([["a"], ["x"]], 2, classes=["a", "b"])
    with pytest.raises(ValueError, match="n_labels"):
        LabeledLDA(n_labels="all").fit(corpus, truth.labels)
    with pytest.raises(ValueError, match="alpha_floor"):
        PriorLDA(alpha_floor=0).fit(corpus, truth.labels)


def test_label_indicator_forms_agree():
    lists = [[2, 0], [1], [0, 1, 2]]
    dense = np.array([[1, 0, 1], [0, 1, 0], [1, 1, 1]])
    for form in (lists, dense, sp.csr_matrix(dense)):
        classes, indicator = label_indicator(form, 3)
        np.testing.assert_array_equal(classes, [0, 1, 2])
        np.testing.assert_array_equal(indicator.toarray(), dense)


def test_meta_labeler_and_rank_cut_off():
    """Documents using word 0 have one label, those using word 1 three: the regression
    separates them; the cut-off keeps the best scores, ties to the more frequent label."""
    counts = sp.csr_matrix(np.array([[3, 0, 1], [0, 2, 1]] * 20))
    meta = MetaLabeler(ridge=0.01).fit(counts, [1, 3] * 20)
    np.testing.assert_array_equal(meta.predict_counts(counts[:2]), [1, 3])
    scores = np.array([[0.1, 0.5, 0.5, 0.2], [0.4, 0.3, 0.2, 0.1]])
    kept = top_labels(scores, [1, 2], tie_break=np.array([0, 1, 9, 0])).toarray()
    np.testing.assert_array_equal(kept, [[0, 0, 1, 0], [1, 1, 0, 0]])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_f1_measures_equal_scikit_learn(seed):
    from sklearn.metrics import f1_score
    rng = np.random.default_rng(seed)
    y_true = (rng.random((40, 7)) < 0.3).astype(int)
    y_true[:, 6] = 0  # a label absent from the truth
    y_pred = (rng.random((40, 7)) < 0.3).astype(int)
    result = multilabel_f1(sp.csr_matrix(y_true), y_pred)
    kwargs = dict(zero_division=0)
    assert result.micro == pytest.approx(f1_score(y_true, y_pred, average="micro", **kwargs))
    assert result.example == pytest.approx(f1_score(y_true, y_pred, average="samples", **kwargs))
    assert result.macro == pytest.approx(
        f1_score(y_true, y_pred, average="macro", labels=np.arange(6), **kwargs))
    assert multilabel_f1(y_true, y_pred, macro_labels="all").macro == pytest.approx(
        f1_score(y_true, y_pred, average="macro", **kwargs))


# --- streaming Labeled LDA (G-OEM with the masked local Gibbs step) ----------------------------
def test_streaming_labeled_goem_one_pass_matches_the_batch_model(one_thread):
    """One pass of G-OEM over 3000 planted labelled documents recovers the label-topics nearly
    as well as batch Labeled LDA (CGS_p, 2 samples) and predicts held-out label sets within 5%
    of its micro-F1 (same prediction procedure for both)."""
    corpus, truth = generate_labeled_synthetic(n_labels=10, n_words=300, n_documents=3300,
                                               mean_length=60, seed=1)
    train, test = corpus[:3000], corpus[3000:]
    _, y_true = label_indicator(truth.labels[3000:], 300, np.arange(10))
    scores = {}
    for name, model in (("batch", LabeledLDA(burn_in=30, n_samples=2, random_state=0)),
                        ("online", LabeledOnlineLDA(prior="symmetric", burn_in=30, n_samples=2,
                                                    random_state=0))):
        model.fit(train, truth.labels[:3000])
        tv = 0.5 * np.abs(model.components_ - truth.beta).sum(axis=1)
        scores[name] = (tv.mean(), multilabel_f1(y_true, model.predict(test)).micro)
    assert scores["online"][0] <= 0.06 and scores["batch"][0] <= 0.06, scores
    assert scores["online"][1] >= 0.95 * scores["batch"][1] and scores["online"][1] >= 0.85, scores


def test_streaming_partial_fit_equals_fit_and_round_trips(tmp_path, one_thread):
    corpus, truth = generate_labeled_synthetic(n_labels=5, n_words=60, n_documents=200, seed=6)
    names = [[f"l{k}" for k in row] for row in truth.labels]
    whole = LabeledOnlineLDA(batch_size=50, local_passes=5, burn_in=5, random_state=3)
    whole.fit(corpus, names)
    stream = LabeledOnlineLDA(batch_size=50, local_passes=5, burn_in=5, random_state=3)
    for start in range(0, 200, 50):
        stream.partial_fit(corpus[start:start + 50], names[start:start + 50],
                           classes=whole.classes_)
    np.testing.assert_array_equal(stream.components_, whole.components_)
    np.testing.assert_array_equal(stream.label_frequency_, whole.label_frequency_)
    np.testing.assert_allclose(stream.doc_topic_prior_, whole.doc_topic_prior_)
    assert stream.mean_labels_ == pytest.approx(whole.mean_labels_)
    for model in (whole, stream):
        model.save(tmp_path / "online.stm")
        loaded = load_estimator(tmp_path / "online.stm")
        np.testing.assert_array_equal(loaded.predict_proba(corpus[:20]),
                                      model.predict_proba(corpus[:20]))
        assert loaded.predict_labels(corpus[:20]) == model.predict_labels(corpus[:20])
    with pytest.raises(ValueError, match="method"):
        LabeledOnlineLDA(method="v-oem").fit(corpus, names)
