"""Same seed, same model, whatever the number of numba threads.

The alpha used here (K = 12, random) has sums that are not exact in floating point, so a
reduction whose rounding depends on how the work is split between threads (numba turns a
top-level ``array.sum()`` in a ``parallel=True`` kernel into such a reduction) would show.
"""

import numba
import numpy as np
import pytest

from streamtopics import OnlineLDA, generate_synthetic
from streamtopics.kernels.local_gibbs import balanced_parts

from helpers import numba_threads

ALPHA = np.random.default_rng(5).uniform(0.05, 0.3, size=12)


def _fit(method: str, threads: int, **options) -> np.ndarray:
    corpus, _ = generate_synthetic(12, 80, 1200, mean_length=30, alpha=ALPHA, seed=11)
    with numba_threads(threads):
        model = OnlineLDA(**{"n_topics": 12, "method": method, "batch_size": 100,
                             "local_passes": 6, "doc_topic_prior": ALPHA, "random_state": 3,
                             **options}).fit(corpus)
    return model.components_, model.doc_topic_prior_


@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="needs two numba threads")
@pytest.mark.parametrize("method, options", [
    ("g-oem", {}), ("v-oem", {}),
    ("g-oem", {"local_sampler": "sparse"}), ("g-oem++", {"local_sampler": "sparse"}),
    ("g-oem", {"local_sampler": "sparse", "batch_size": 300})])
def test_components_are_bit_identical_for_one_and_two_threads(method, options):
    beta_one, alpha_one = _fit(method, 1, **options)
    beta_two, alpha_two = _fit(method, 2, **options)
    assert np.array_equal(beta_one, beta_two)
    assert np.array_equal(alpha_one, alpha_two)


@pytest.mark.parametrize("n_parts", [0, 1, 2, 3, 7])
def test_balanced_parts_deal_every_document_once_longest_first(n_parts):
    lengths = np.random.default_rng(2).geometric(0.02, size=40)
    lengths[[3, 17]] = [5000, 0]
    ptr = np.concatenate([[0], np.cumsum(lengths)])
    part_ptr, documents = balanced_parts(ptr, n_parts)
    assert np.array_equal(np.sort(documents), np.arange(40))
    parts = [documents[part_ptr[p]:part_ptr[p + 1]] for p in range(part_ptr.size - 1)]
    assert all(np.all(np.diff(part) > 0) for part in parts)
    if n_parts < 1:
        assert len(parts) == 40
        return
    assert len(parts) == n_parts
    load = np.array([np.sum(lengths[part] + 8) for part in parts])
    # LPT: the longest document alone, or no part more than the lightest plus one document
    assert load.max() == 5008 or load.max() - load.min() <= lengths.max() + 8
