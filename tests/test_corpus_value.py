"""The Corpus value: construction checks, token order, splits and minibatches."""

import numpy as np
import pytest
import scipy.sparse as sp

from streamtopics import Corpus, InputError, generate_synthetic


def test_token_lists_and_counts_agree():
    corpus = Corpus.from_token_lists([[2, 0, 2], [1]], vocabulary=["a", "b", "c"])
    assert corpus.counts.toarray().tolist() == [[1, 0, 2], [0, 1, 0]]
    flat, offsets = corpus.document_tokens()
    assert flat.tolist() == [2, 0, 2, 1] and offsets.tolist() == [0, 3, 4]


def test_bag_of_words_order_is_word_ids_ascending():
    corpus = Corpus(sp.csr_matrix([[0, 2, 1], [3, 0, 0]]))
    flat, offsets = corpus.document_tokens()
    assert flat.tolist() == [1, 1, 2, 0, 0, 0] and offsets.tolist() == [0, 3, 6]
    assert corpus.vocabulary.tolist() == ["w0", "w1", "w2"]


@pytest.mark.parametrize("counts, message", [
    ([[1, -1]], "non-negative"),
    ([[0.5, 1]], "whole numbers"),
])
def test_bad_counts_are_rejected(counts, message):
    with pytest.raises(InputError, match=message):
        Corpus(sp.csr_matrix(np.array(counts, dtype=float)))


def test_vocabulary_size_must_match():
    with pytest.raises(InputError, match="vocabulary"):
        Corpus(sp.csr_matrix([[1, 2]]), vocabulary=["only-one"])


def test_split_partitions_documents_reproducibly():
    corpus, _ = generate_synthetic(3, 20, 50, seed=1)
    train, test = corpus.split(0.2, seed=7)
    assert (len(train), len(test)) == (40, 10)
    assert train.n_tokens + test.n_tokens == corpus.n_tokens
    again, _ = corpus.split(0.2, seed=7)
    assert (again.counts != train.counts).nnz == 0
    assert all(np.array_equal(a, b) for a, b in zip(again.tokens, train.tokens))


def test_minibatches_cover_the_corpus_once():
    corpus, _ = generate_synthetic(3, 20, 23, seed=2)
    for shuffle in (False, True):
        batches = list(corpus.minibatches(5, shuffle=shuffle, seed=3))
        assert [len(b) for b in batches] == [5, 5, 5, 5, 3]
        total = sp.vstack([b.counts for b in batches])
        assert total.sum() == corpus.n_tokens
        rows = sorted(tuple(r) for r in total.toarray())
        assert rows == sorted(tuple(r) for r in corpus.counts.toarray())
    with pytest.raises(ValueError):
        next(corpus.minibatches(0))


def test_synthetic_corpus_follows_its_truth():
    corpus, truth = generate_synthetic(4, 30, 2000, mean_length=40, alpha=0.5, seed=3)
    lengths = corpus.document_lengths
    assert abs(lengths.mean() - 40) < 4 * np.sqrt(40 / len(lengths))
    # Expected word frequencies: mean over documents of theta_d beta, weighted by length.
    expected = (truth.theta * lengths[:, None]).sum(axis=0) @ truth.beta
    observed = np.asarray(corpus.counts.sum(axis=0)).ravel()
    assert np.abs(observed - expected).max() < 5 * np.sqrt(expected.max()) + 5
    assert truth.beta.shape == (4, 30) and truth.theta.shape == (2000, 4)


def test_counts_beyond_int64_are_rejected_not_wrapped():
    with pytest.raises(InputError, match="2\\^62"):
        Corpus(sp.csr_matrix(np.array([[1e19, 1.0]])))
