"""The minibatch layout (`Minibatch.from_counts`, `from_rows`): what the E-step kernels read,
against its definition written with NumPy and SciPy, canonical or not."""

import numpy as np
import pytest
import scipy.sparse as sp

from streamtopics.inference.minibatch import Minibatch


def expected_layout(counts):
    """doc_ptr, entry_word, entry_count, token_ptr, words of ``counts`` by their definition."""
    counts = sp.csr_matrix(counts, copy=True)
    counts.sum_duplicates()
    counts.eliminate_zeros()
    words = np.unique(counts.indices)
    return (counts.indptr, np.searchsorted(words, counts.indices), counts.data,
            np.concatenate([[0], np.cumsum(counts.toarray().sum(axis=1))]), words)


def assert_layout(batch, counts):
    for name, expected in zip(("doc_ptr", "entry_word", "entry_count", "token_ptr", "words"),
                              expected_layout(counts)):
        value = getattr(batch, name)
        assert value.dtype == np.int64, name
        np.testing.assert_array_equal(value, expected, err_msg=name)
    assert batch.n_words == counts.shape[1]


def messy(rng, n_docs, n_words):
    """CSR counts whose rows have unsorted words, duplicates and explicit zeros."""
    indptr = np.arange(0, 6 * n_docs + 1, 6)
    return sp.csr_matrix((rng.integers(0, 3, 6 * n_docs), rng.integers(0, n_words, 6 * n_docs),
                          indptr), shape=(n_docs, n_words))


@pytest.mark.parametrize("seed", range(20))
def test_layout_of_counts_and_of_rows(seed):
    rng = np.random.default_rng(seed)
    n_docs, n_words = int(rng.integers(1, 30)), int(rng.integers(1, 60))
    clean = sp.csr_matrix(rng.poisson(0.4, (n_docs, n_words)))
    unsorted = messy(rng, n_docs, n_words)
    for counts in (clean, unsorted, clean.toarray(), clean.astype(np.int32)):
        before = sp.csr_matrix(counts, copy=True)
        assert_layout(Minibatch.from_counts(counts), sp.csr_matrix(counts))
        start, stop = sorted(rng.integers(0, n_docs + 1, 2))
        rows = sp.csr_matrix(counts)
        assert_layout(Minibatch.from_rows(rows, start, stop + 5), rows[start:stop + 5])
        after = sp.csr_matrix(counts)
        assert (after != before).nnz == 0 and np.array_equal(after.indices, before.indices)
