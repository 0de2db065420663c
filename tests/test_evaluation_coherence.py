"""UMass and NPMI coherence on a reference corpus; top-words tables."""

import numpy as np
import pytest

from streamtopics import Corpus, InputError, generate_synthetic
from streamtopics.evaluation import (npmi_coherence, top_word_ids, top_words_table,
                                     umass_coherence)


def small_reference():
    # V = 4; document frequencies D(0)=3, D(1)=2, D(2)=1, D(3)=0; D(0,1)=2, D(0,2)=D(1,2)=0
    return Corpus.from_token_lists([[0, 1, 1], [0, 1], [0], [2, 2]], ["a", "b", "c", "d"])


def test_umass_and_npmi_by_hand():
    reference = small_reference()
    beta = np.array([[0.5, 0.3, 0.2, 0.0]])  # top words in order: 0, 1, 2
    log = np.log
    umass = (log((2 + 1) / 3)                           # (v2=1 | v1=0)
             + log((0 + 1) / 3) + log((0 + 1) / 2))     # (v3=2 | 0), (v3=2 | 1)
    assert umass_coherence(beta, reference, 3)[0] == pytest.approx(umass)
    p0, p1, p01 = 3 / 4, 2 / 4, 2 / 4
    npmi_01 = log(p01 / (p0 * p1)) / -log(p01)
    assert npmi_coherence(beta, reference, 3)[0] == pytest.approx((npmi_01 - 1 - 1) / 3)
    # a word absent from the reference corpus: its UMass pairs are undefined and left out
    absent_first = np.array([[0.1, 0.2, 0.0, 0.7]])  # top words 3, 1
    assert umass_coherence(absent_first, reference, 2)[0] == 0.0
    assert npmi_coherence(absent_first, reference, 2)[0] == -1.0


def test_planted_topics_are_more_coherent_than_shuffled_ones():
    corpus, truth = generate_synthetic(6, 200, 400, mean_length=40, alpha=0.1,
                                       topic_concentration=0.05, seed=3)
    shuffled = np.random.default_rng(0).permuted(truth.beta, axis=1)
    for score in (umass_coherence, npmi_coherence):
        assert score(truth.beta, corpus).mean() > score(shuffled, corpus).mean() + 0.05


def test_top_words_table_and_ties():
    beta = np.array([[0.25, 0.25, 0.5], [0.1, 0.6, 0.3]])
    assert top_word_ids(beta, 3).tolist() == [[2, 0, 1], [1, 2, 0]]
    table = top_words_table(beta, ["x", "y", "z"], 2, scores=[0.5, -0.25], score_name="npmi")
    lines = table.splitlines()
    assert lines[0].split() == ["topic", "npmi", "top", "words"]
    assert lines[1].split() == ["0", "0.5000", "z", "x"]
    assert lines[2].split() == ["1", "-0.2500", "y", "z"]
    with pytest.raises(InputError, match="vocabulary"):
        top_words_table(beta, ["x"], 2)
    with pytest.raises(InputError, match="top words"):
        top_word_ids(beta, 4)
    with pytest.raises(InputError, match="share one vocabulary"):
        umass_coherence(np.ones((1, 3)) / 3, small_reference())
