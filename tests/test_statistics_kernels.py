"""The row kernels of the statistics (`kernels.statistics`) do the arithmetic of their NumPy
twins (tests/naive.py) bit for bit, on values spread over many orders of magnitude."""

import numpy as np
import pytest
import scipy.sparse as sp

import naive
from streamtopics.kernels import statistics


def _values(rng, shape):
    return rng.random(shape) * 10.0 ** rng.uniform(-12, 12, shape)


@pytest.mark.parametrize("n_topics, n_threads", [(7, 1), (7, 2), (100, 2), (100, 3), (9, 5)])
def test_blend_rows_is_its_twin_bit_for_bit(n_topics, n_threads):
    """For any split of the topics between threads (``n_threads`` ranges of whole lines)."""
    rng = np.random.default_rng(0)
    raw = _values(rng, (50, n_topics))
    words = rng.choice(50, 20, replace=False)
    word_topic = _values(rng, (20, n_topics))
    source = _values(rng, (50, n_topics))
    for start in (None, source):  # in place, and from other rows (left unchanged)
        expected_raw, out = raw.copy(), raw.copy()
        base = expected_raw if start is None else start.copy()
        expected_sums = naive.blend_rows(expected_raw, base, words, word_topic, 13, 0.37)
        sums = np.empty(n_topics)
        statistics.blend_rows(out, out if start is None else start, words, word_topic, 13.0,
                              0.37, sums, n_threads)
        np.testing.assert_array_equal(out, expected_raw)
        np.testing.assert_array_equal(sums, expected_sums)
    np.testing.assert_array_equal(source, base)


@pytest.mark.parametrize("n_threads", [1, 3])
def test_blend_rows_into_the_statistics_own_rows_is_its_twin_bit_for_bit(n_threads):
    """``raw`` the statistics' rows themselves (a boosted pass's, words 0 .. U - 1)."""
    rng = np.random.default_rng(2)
    word_topic = _values(rng, (20, 100))
    source = _values(rng, (20, 100))
    words = np.arange(20)
    expected_raw = np.empty_like(source)
    expected_sums = naive.blend_rows(expected_raw, source, words, word_topic, 13, 0.37)
    sums = np.empty(100)
    statistics.blend_rows(word_topic, source, words, word_topic, 13.0, 0.37, sums, n_threads)
    np.testing.assert_array_equal(word_topic, expected_raw)
    np.testing.assert_array_equal(sums, expected_sums)


def test_affine_rows_and_set_rows_are_their_twins_bit_for_bit():
    rng = np.random.default_rng(1)
    raw = _values(rng, (40, 5))
    words = rng.choice(40, 12, replace=False)
    factor, offset = _values(rng, 5), _values(rng, 5)
    np.testing.assert_array_equal(statistics.affine_rows(raw, words, factor, offset,
                                                         np.empty((12, 5))),
                                  naive.affine_rows(raw, words, factor, offset))
    rows = _values(rng, (12, 5))
    statistics.set_rows(raw, words, rows)
    np.testing.assert_array_equal(raw[words], rows)


def test_add_scaled_rows_is_its_twin_bit_for_bit():
    rng = np.random.default_rng(3)
    out, scale, weights, alpha = (_values(rng, (30, 6)), _values(rng, 30), _values(rng, (30, 6)),
                                  _values(rng, 6))
    expected = out.copy()
    naive.add_scaled_rows(expected, scale, weights, alpha)
    statistics.add_scaled_rows(out, scale, weights, alpha)
    np.testing.assert_array_equal(out, expected)
    onto_zeros = np.zeros((30, 6))
    naive.add_scaled_rows(onto_zeros, scale, weights, alpha)
    np.testing.assert_array_equal(statistics.scaled_rows(scale, weights, alpha), onto_zeros)


def test_group_sums_are_the_indicator_product_bit_for_bit():
    rng = np.random.default_rng(2)
    values = _values(rng, (300, 6))
    group = rng.integers(0, 40, 300)
    every = (statistics.ALL_COLUMNS,) * 3
    for divisor in (1.0, 3.0):
        for start in (np.zeros((45, 6)), _values(rng, (45, 6))):
            np.testing.assert_array_equal(
                statistics.group_sums(values, group, start.copy(), divisor, *every),
                naive.group_sums(values, group, start, divisor))
    indicator = sp.csr_matrix((np.ones(300), (group, np.arange(300))), shape=(45, 300))
    np.testing.assert_array_equal(statistics.group_sums(values, group, np.zeros((45, 6)), 1.0,
                                                        *every), indicator @ values)


def test_group_sums_on_column_sets_equal_the_full_sums_bit_for_bit():
    """Rows non-zero only on their set's columns (sets shared by several rows, as an entry's
    document's topics): summing the set columns alone gives the full sums bit for bit, and
    `clear_sets` zeroes exactly those columns."""
    rng = np.random.default_rng(5)
    n_rows, n_sets, width = 400, 30, 12
    row_set = rng.integers(0, n_sets, n_rows)
    member = rng.random((n_sets, width)) < 0.3
    set_ptr, set_items = statistics.column_sets(member)
    np.testing.assert_array_equal(set_ptr, np.concatenate([[0], np.cumsum(member.sum(axis=1))]))
    np.testing.assert_array_equal(set_items, np.nonzero(member)[1])
    values = np.where(member[row_set], rng.normal(size=(n_rows, width)), 0.0)
    group = rng.integers(0, 50, n_rows)
    every = (statistics.ALL_COLUMNS,) * 3
    for divisor in (1.0, 7.0):
        start = np.abs(_values(rng, (50, width)))
        np.testing.assert_array_equal(
            statistics.group_sums(values, group, start.copy(), divisor, row_set, set_ptr,
                                  set_items),
            statistics.group_sums(values, group, start.copy(), divisor, *every))
    statistics.clear_sets(values, row_set, set_ptr, set_items)
    np.testing.assert_array_equal(values, np.zeros((n_rows, width)))


def test_has_empty_row_is_a_zero_row_sum():
    weights = np.array([[0.0, 2.0], [1e-300, 0.0], [0.0, np.nan]])
    assert not statistics.has_empty_row(weights)
    assert statistics.has_empty_row(np.vstack([weights, [0.0, 0.0]]))
