"""Bridges to pyLDAvis, gensim and pandas: the arrays handed over are the model's, word by word."""

import json

import numpy as np
import pytest

from streamtopics import Corpus, OnlineLDA, generate_synthetic, persistence
from streamtopics.cli.main import main
from streamtopics.corpus import write_corpus_dir
from streamtopics.estimators import CVB0LDA, load_estimator
from streamtopics.interop import doc_topic_frame, from_gensim, to_gensim, to_pyldavis


@pytest.fixture(scope="module")
def planted():
    corpus, truth = generate_synthetic(n_topics=3, n_words=40, n_documents=300, alpha=0.1,
                                       topic_concentration=0.05, seed=0)
    corpus = Corpus(corpus.counts, [f"word{i}" for i in range(corpus.n_words)],
                    metadata=[{"doc": 101 + d} for d in range(corpus.n_documents)])
    model = OnlineLDA(n_topics=3, random_state=0, n_passes=2).fit(corpus)
    return corpus, model


def test_pyldavis_arguments_are_the_models_topics_and_the_corpus_counts(planted):
    corpus, model = planted
    arguments = to_pyldavis(model, corpus)
    assert sorted(arguments) == ["doc_lengths", "doc_topic_dists", "term_frequency",
                                 "topic_term_dists", "vocab"]
    np.testing.assert_allclose(arguments["topic_term_dists"], model.components_, rtol=1e-12)
    np.testing.assert_allclose(arguments["doc_topic_dists"], model.transform(corpus), rtol=1e-12)
    np.testing.assert_array_equal(arguments["doc_lengths"], corpus.document_lengths)
    np.testing.assert_array_equal(arguments["term_frequency"], np.asarray(corpus.counts.sum(axis=0)).ravel())
    assert arguments["vocab"] == list(model.vocabulary_)


def test_a_corpus_with_another_vocabulary_is_mapped_by_word(planted):
    corpus, model = planted
    order = np.random.default_rng(0).permutation(corpus.n_words)
    shuffled = Corpus(corpus.counts[:20][:, order], corpus.vocabulary[order])
    extra = Corpus(np.hstack([shuffled.counts.toarray(), np.full((20, 1), 5)]),
                   list(shuffled.vocabulary) + ["unknown"])  # 5 tokens of an unknown word each
    arguments = to_pyldavis(model, extra)
    np.testing.assert_array_equal(arguments["term_frequency"],
                                  np.asarray(corpus.counts[:20].sum(axis=0)).ravel())
    np.testing.assert_array_equal(arguments["doc_lengths"], corpus.document_lengths[:20])


def test_pyldavis_prepare_accepts_them_and_finds_the_token_weighted_prevalence(planted):
    pyLDAvis = pytest.importorskip("pyLDAvis")
    corpus, model = planted
    arguments = to_pyldavis(model, corpus)
    vis = pyLDAvis.prepare(**arguments, sort_topics=False, n_jobs=1)
    prevalence = corpus.document_lengths @ arguments["doc_topic_dists"] / corpus.n_tokens
    np.testing.assert_allclose(vis.topic_coordinates["Freq"].to_numpy(), 100 * prevalence)


def test_export_pyldavis_json_loads_in_pyldavis(planted, tmp_path, capsys):
    corpus, model = planted
    model.save(tmp_path / "model.stm")
    write_corpus_dir(corpus, tmp_path / "corpus")
    out = tmp_path / "vis.json"
    assert main(["export", str(tmp_path / "model.stm"), "--format", "pyldavis", "--corpus",
                 str(tmp_path / "corpus"), "-o", str(out)]) == 0
    arguments = json.loads(out.read_text())
    np.testing.assert_allclose(arguments["topic_term_dists"], model.components_, rtol=1e-12)
    assert arguments["doc_lengths"] == corpus.document_lengths.tolist()
    pyLDAvis = pytest.importorskip("pyLDAvis")
    assert pyLDAvis.prepare(**arguments, n_jobs=1).topic_coordinates.shape[0] == 3
    # without a corpus, or into a missing directory: a clear error, exit 2
    capsys.readouterr()
    assert main(["export", str(tmp_path / "model.stm"), "--format", "pyldavis", "-o", str(out)]) == 2
    assert "needs --corpus" in capsys.readouterr().err
    assert main(["export", str(tmp_path / "model.stm"), "-o", str(tmp_path / "no" / "x.npz")]) == 2
    assert "no: the output's directory does not exist" in capsys.readouterr().err


def test_doc_topic_frame_has_the_corpus_ids_and_dominant_topics(planted):
    pytest.importorskip("pandas")
    corpus, model = planted
    frame = doc_topic_frame(model, corpus[:10])
    theta = model.transform(corpus[:10])
    assert frame.index.name == "document" and frame.index.tolist() == list(range(101, 111))
    assert list(frame.columns) == ["topic_0", "topic_1", "topic_2", "dominant_topic", "length"]
    np.testing.assert_allclose(frame[["topic_0", "topic_1", "topic_2"]].to_numpy(), theta)
    assert frame["dominant_topic"].tolist() == np.argmax(theta, axis=1).tolist()
    assert frame["length"].tolist() == corpus.document_lengths[:10].tolist()


def test_gensim_round_trip_keeps_topics_alpha_and_words(planted, tmp_path):
    pytest.importorskip("gensim")
    corpus, model = planted
    lda = to_gensim(model)
    np.testing.assert_allclose(lda.get_topics(), model.components_, rtol=1e-10)
    np.testing.assert_allclose(lda.alpha, model.doc_topic_prior_)
    assert [lda.id2word[i] for i in range(corpus.n_words)] == list(model.vocabulary_)
    back = from_gensim(lda)
    back.save(tmp_path / "from_gensim.stm")
    loaded = load_estimator(tmp_path / "from_gensim.stm")
    assert isinstance(loaded, CVB0LDA)
    np.testing.assert_allclose(loaded.components_, model.components_, rtol=1e-10)
    assert loaded.vocabulary_.tolist() == model.vocabulary_.tolist()
    # CVB0 with G-OEM's topics fixed recovers each document's dominant topic
    agree = np.argmax(loaded.transform(corpus), 1) == np.argmax(model.transform(corpus), 1)
    assert agree.mean() > 0.95


def test_gensim_infers_olda_documents_as_olda_does(planted):
    """OLDA's local step is gensim's E-step (Hoffman et al. 2010, Algorithm 2): with lambda
    and alpha handed over, gensim's document topics equal OnlineLDA(method="olda").transform."""
    pytest.importorskip("gensim")
    corpus, _ = planted
    model = OnlineLDA(n_topics=3, method="olda", random_state=0, n_passes=1).fit(corpus)
    lda = to_gensim(model)
    np.testing.assert_allclose(lda.get_topics(), model.components_, rtol=1e-10)
    for d in range(5):
        row = corpus.counts[d]
        bow = list(zip(row.indices.tolist(), row.data.tolist()))
        gensim_theta = np.array([p for _, p in lda.get_document_topics(bow, minimum_probability=0)])
        np.testing.assert_allclose(gensim_theta, model.transform(corpus[d:d + 1])[0], atol=1e-3)


def test_a_gensim_trained_model_becomes_a_streamtopics_model(planted):
    pytest.importorskip("gensim")
    from gensim.models import LdaModel
    corpus, _ = planted
    bows = [list(zip(r.indices.tolist(), r.data.tolist())) for r in corpus.counts[:100]]
    words = {i: str(w) for i, w in enumerate(corpus.vocabulary)}
    lda = LdaModel(bows, num_topics=3, id2word=words, passes=2, random_state=0)
    model = from_gensim(lda)
    np.testing.assert_allclose(model.components_, lda.get_topics(), rtol=1e-6)
    for k in range(3):
        assert model.top_words(5)[k] == [word for word, _ in lda.show_topic(k, 5)]
    np.testing.assert_allclose(model.doc_topic_prior_, lda.alpha)
    lda.id2word = None
    with pytest.raises(ValueError, match="id2word"):
        from_gensim(lda)
