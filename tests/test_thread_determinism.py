"""Same seed, same model, whatever the number of numba threads (DESIGN.md, habit 4).

The alpha used here (K = 12, random) has sums that are not exact in floating point, so a
reduction whose rounding depends on how the work is split between threads (numba turns a
top-level ``array.sum()`` in a ``parallel=True`` kernel into such a reduction) would show.
"""

import numba
import numpy as np
import pytest

from streamtopics import OnlineLDA, generate_synthetic

from helpers import numba_threads

ALPHA = np.random.default_rng(5).uniform(0.05, 0.3, size=12)


def _fit(method: str, threads: int) -> np.ndarray:
    corpus, _ = generate_synthetic(12, 80, 1200, mean_length=30, alpha=ALPHA, seed=11)
    with numba_threads(threads):
        model = OnlineLDA(n_topics=12, method=method, batch_size=100, local_passes=6,
                          doc_topic_prior=ALPHA, random_state=3).fit(corpus)
    return model.components_, model.doc_topic_prior_


@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="needs two numba threads")
@pytest.mark.parametrize("method", ["g-oem", "v-oem"])
def test_components_are_bit_identical_for_one_and_two_threads(method):
    beta_one, alpha_one = _fit(method, 1)
    beta_two, alpha_two = _fit(method, 2)
    assert np.array_equal(beta_one, beta_two)
    assert np.array_equal(alpha_one, alpha_two)
