"""The topic-word prior of the frequentist presets: the M-step is the
posterior mean (eta + N s1) / (V eta + N row sums); eta = 0 is the paper's MLE."""

from __future__ import annotations

import numpy as np
import pytest

from streamtopics import OnlineLDA
from streamtopics.corpus.synthetic import generate_synthetic
from streamtopics.evaluation import left_to_right
from streamtopics.inference.presets import PRESETS, Method


@pytest.fixture(scope="module")
def corpus_with_unseen_word():
    corpus, _ = generate_synthetic(3, 30, 300, mean_length=30, alpha=0.2,
                                   topic_concentration=0.1, seed=0)
    counts = corpus.counts.tolil()
    counts[:, 29] = 0  # word 29 never occurs in training
    return counts.tocsr()


@pytest.mark.parametrize("method", ["g-oem", "v-oem++", "splda", "sgs"])
def test_default_prior_gives_unseen_words_probability_and_finite_held_out(
        method, corpus_with_unseen_word):
    model = OnlineLDA(3, method=method, local_passes=5, random_state=0).fit(corpus_with_unseen_word)
    beta = model.components_
    n = model.n_documents_seen_
    eta = model.topic_word_prior_
    assert eta > 0
    np.testing.assert_allclose(beta.sum(axis=1), 1.0, atol=1e-12)
    assert np.all(beta[:, 29] > 0)
    s1 = model._engine.stats.topic_word()
    expected = (eta + n * s1) / (30 * eta + n * s1.sum(axis=1, keepdims=True))
    np.testing.assert_allclose(beta, expected, rtol=1e-10)
    result = left_to_right(beta, model.doc_topic_prior_, (np.array([29, 1, 29]), np.array([0, 3])))
    assert np.all(np.isfinite(result.log_likelihoods))


def test_zero_prior_is_the_paper_mle(corpus_with_unseen_word):
    model = OnlineLDA(3, topic_word_prior=0.0, local_passes=5, random_state=0).fit(corpus_with_unseen_word)
    assert np.all(model.components_[:, 29] == 0)
    s1 = model._engine.stats.topic_word()
    np.testing.assert_allclose(model.components_, s1 / s1.sum(axis=1, keepdims=True), rtol=1e-12)
    point = Method(**{**PRESETS["g-oem"].as_dict(), "parameters": "point"})
    same = OnlineLDA(3, method=point, local_passes=5, random_state=0).fit(corpus_with_unseen_word)
    np.testing.assert_array_equal(same.components_, model.components_)


def test_prior_survives_save_and_old_point_files_load_as_mle(tmp_path, corpus_with_unseen_word):
    model = OnlineLDA(3, topic_word_prior=0.2, local_passes=5, random_state=0).fit(corpus_with_unseen_word)
    model.save(tmp_path / "m.stm")
    loaded = OnlineLDA.load(tmp_path / "m.stm")
    assert loaded.method == "g-oem" and loaded.topic_word_prior_ == 0.2
    np.testing.assert_array_equal(loaded.components_, model.components_)
    # A file written before the prior: method "point", settings with eta = 1/K it ignored.
    old = OnlineLDA(3, method=Method(**{**PRESETS["g-oem"].as_dict(), "parameters": "point"}),
                    local_passes=5, random_state=0).fit(corpus_with_unseen_word)
    old.save(tmp_path / "old.stm")
    reloaded = OnlineLDA.load(tmp_path / "old.stm")
    assert reloaded.topic_word_prior_ == 0.0 and np.all(reloaded.components_[:, 29] == 0)
