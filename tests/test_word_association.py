"""Word association with phi^p and phi (Papanikolaou et al. 2017, section 5.4, equation 57 and
footnote 5): the matrix form against the equation's sum, ranks, frequency bins, GibbsLDA keeping
both estimates, and on planted topics (known associations) phi^p ranking the true associates of
rare cues higher than phi more often than the reverse."""

import numpy as np
import pytest

from streamtopics import CVB0LDA, GibbsLDA, generate_synthetic, load_estimator
from streamtopics.evaluation.word_association import (AssociationNorms, associate_ranks,
                                                      association_matrix, compare_estimators,
                                                      frequency_bins, word_association)


def test_matrix_form_is_equation_57_and_footnote_5():
    rng = np.random.default_rng(0)
    phi = rng.dirichlet(np.full(9, 0.3), size=4)
    alpha = np.array([0.1, 0.5, 1.0, 2.0])
    cues = np.array([0, 3, 8])
    for prior in (None, alpha):
        weight = np.ones(4) if prior is None else prior
        expected = np.array([[sum(phi[z, w2] * phi[z, w1] * weight[z] for z in range(4))
                              / sum(phi[z, w1] * weight[z] for z in range(4))
                              for w2 in range(9)] for w1 in cues])
        result = association_matrix(phi, cues, prior)
        np.testing.assert_allclose(result, expected, rtol=1e-12)
        np.testing.assert_allclose(result.sum(axis=1), 1.0)
    np.testing.assert_allclose(association_matrix(phi[:1], cues), np.tile(phi[0], (3, 1)))


def test_ranks_exclude_the_cue_and_bins_split_by_frequency():
    row = np.array([[0.5, 0.1, 0.2, 0.2, 0.0]])  # the cue (word 0) is not ranked
    assert associate_ranks(row, [0], [[2, 3, 1, 4]])[0].tolist() == [1, 1, 3, 4]
    bins, edges = frequency_bins([1, 2, 10, 100], n_bins=2, spacing="log")
    assert bins.tolist() == [0, 0, 1, 1] and edges[1] == pytest.approx(10.0)
    assert frequency_bins([0, 4, 5, 10], n_bins=2)[0].tolist() == [0, 0, 1, 1]
    norms = AssociationNorms.from_words([("a", ["b", "zz", "a", "c"]), ("zz", ["a"]),
                                         ("c", ["zz"])], ["a", "b", "c"])
    assert norms.cue_ids.tolist() == [0] and norms.associates[0].tolist() == [1, 2]
    assert norms.dropped_cues == 2


def test_gibbs_lda_keeps_phi_beside_phi_p(tmp_path, one_thread):
    corpus, _ = generate_synthetic(n_topics=3, n_words=30, n_documents=60, seed=1)
    model = GibbsLDA(3, n_passes=20, burn_in=10, n_samples=2, random_state=0).fit(corpus)
    assert not np.array_equal(model.topic_word_standard_, model.components_)
    cues = [str(w) for w in model.vocabulary_[:4]]
    np.testing.assert_array_equal(word_association(model, cues, "standard"),
                                  association_matrix(model.topic_word_standard_, range(4)))
    np.testing.assert_array_equal(word_association(model, cues, "p", prior="alpha"),
                                  association_matrix(model.components_, range(4),
                                                     model.doc_topic_prior_))
    model.save(tmp_path / "g.stm")
    np.testing.assert_array_equal(load_estimator(tmp_path / "g.stm").topic_word_standard_,
                                  model.topic_word_standard_)
    standard = GibbsLDA(3, n_passes=5, estimator="standard", random_state=0).fit(corpus)
    np.testing.assert_array_equal(standard.topic_word_standard_, standard.components_)
    with pytest.raises(ValueError, match="no 'p' topic-word estimate"):
        word_association(standard, cues, "p")
    cvb0 = CVB0LDA(3, n_passes=2, random_state=0).fit(corpus)
    with pytest.raises(ValueError, match="no 'standard'"):
        word_association(cvb0, cues, "standard")
    np.testing.assert_array_equal(word_association(cvb0, cues, None),
                                  association_matrix(cvb0.components_, range(4)))
    with pytest.raises(ValueError, match="not in the vocabulary"):
        word_association(model, ["no such word"])


def test_phi_p_ranks_true_associates_of_rare_cues_higher(one_thread):
    """20 planted topics over 1000 words; a cue's true associates are its five most associated
    words under the true topics (equation 57). After 100 sweeps, both estimates rank them near
    the top (median rank <= 5 of 999), and in the rarest of five log-frequency bins phi^p
    ranks an associate above phi more often than the reverse, on each of three seeds
    (section 5.4: phi^p helps most for rare cues), with a median difference >= 0."""
    for seed in range(3):
        corpus, truth = generate_synthetic(n_topics=20, n_words=1000, n_documents=1000,
                                           mean_length=60, alpha=0.1, topic_concentration=0.05,
                                           seed=seed)
        frequency = np.asarray(corpus.counts.sum(axis=0)).ravel()
        cues = np.random.default_rng(seed).choice(np.flatnonzero(frequency), 300, replace=False)
        truth_rows = association_matrix(truth.beta, cues)
        truth_rows[np.arange(cues.size), cues] = -1.0
        norms = AssociationNorms(cues, [np.argsort(-row)[:5] for row in truth_rows], 0)
        model = GibbsLDA(20, n_passes=100, burn_in=99, n_samples=1, random_state=seed)
        model.fit(corpus)
        result = compare_estimators(model.components_, model.topic_word_standard_, norms,
                                    frequency[cues], n_bins=5, spacing="log")
        assert result["overall"]["median_rank_phi_p"] <= 5
        assert result["overall"]["median_rank_phi"] <= 5
        rarest = result["bins"][0]
        assert rarest["cues"] >= 10
        assert rarest["share_phi_p_better"] > rarest["share_phi_better"], rarest
        assert rarest["median_difference"] >= 0
