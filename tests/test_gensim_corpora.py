"""gensim's corpora read directly: a bag-of-words corpus with its Dictionary,
and the MatrixMarket file and text dictionary gensim writes, give the same counts and words."""

import numpy as np
import pytest

from streamtopics.corpus import load_corpus
from streamtopics.errors import InputError
from streamtopics.interop import corpus_from_gensim, read_gensim_dictionary

TEXTS = [["sun", "sea", "sun"], ["ink", "paper"], ["sea", "sea", "salt", "sun"], ["paper"]]


def dense(bow, n_words):
    matrix = np.zeros((len(bow), n_words), dtype=np.int64)
    for d, document in enumerate(bow):
        for word, count in document:
            matrix[d, word] += count
    return matrix


def test_gensim_corpus_dictionary_and_matrix_market_files(tmp_path):
    gensim = pytest.importorskip("gensim")
    from gensim.corpora import Dictionary, MmCorpus
    dictionary = Dictionary(TEXTS)
    bow = [dictionary.doc2bow(text) for text in TEXTS]
    corpus = corpus_from_gensim(bow, dictionary)
    assert list(corpus.vocabulary) == [dictionary[i] for i in range(len(dictionary))]
    assert np.array_equal(corpus.counts.toarray(), dense(bow, len(dictionary)))
    MmCorpus.serialize(str(tmp_path / "corpus.mm"), bow)
    dictionary.save_as_text(str(tmp_path / "dictionary.txt"))  # sorted by word, not id
    words = read_gensim_dictionary(tmp_path / "dictionary.txt")
    assert words == list(corpus.vocabulary)
    from_files = load_corpus(tmp_path / "corpus.mm", vocabulary=words)
    assert np.array_equal(from_files.counts.toarray(), corpus.counts.toarray())
    streamed = corpus_from_gensim(MmCorpus(str(tmp_path / "corpus.mm")), tmp_path / "dictionary.txt")
    assert np.array_equal(streamed.counts.toarray(), corpus.counts.toarray())
    assert gensim is not None


def test_bad_gensim_inputs_name_the_problem(tmp_path):
    path = tmp_path / "dictionary.txt"
    path.write_text("4\n0\tsun\t3\n2\tsea\t2\n")
    with pytest.raises(InputError, match=r"ids are not 0..1 \(missing \[1\]\)"):
        read_gensim_dictionary(path)
    path.write_text("4\n0\tsun\t3\nsea 2\n")
    with pytest.raises(InputError) as error:
        read_gensim_dictionary(path)
    assert error.value.line == 3
    with pytest.raises(InputError, match="document 2: word id 5 is outside the dictionary's 2"):
        corpus_from_gensim([[(0, 1)], [(5, 1)]], ["a", "b"])
    with pytest.raises(InputError, match="document 1: count 0.5 of word id 1"):
        corpus_from_gensim([[(1, 0.5)]], ["a", "b"])
