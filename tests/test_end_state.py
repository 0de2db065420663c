"""A burn-in pass recorded after it, from the state it leaves (kernels.local_gibbs.end_state): the
statistics a boosted G-OEM++ step takes after such a pass, its per-entry expectations and
theta are, bit for bit, those of the sparse kernel recording the pass itself."""

import numpy as np
import pytest

from streamtopics.inference.gibbs_estep import GibbsEstimator
from streamtopics.kernels.local_gibbs import (SPARSE, PassPlan, Recording, Sampler, StreamKey,
                                              gibbs_sweeps)
from streamtopics.kernels.statistics import scaled_rows

from helpers import random_minibatch
from test_gibbs_estep import new_chain, parameters


def kernel_recorded(batch, state, t, weights, alpha, n_topics):
    """Pass ``t`` run and recorded alone by the sparse kernel, continuing ``state``: (word rows,
    s2 per document, entry rows with their smoothing part)."""
    entry_topic = np.zeros((batch.n_entries, n_topics))
    log_theta = np.zeros((batch.n_documents, n_topics))
    inverse = np.zeros(batch.n_entries)
    gibbs_sweeps(batch.layout, parameters(weights, alpha), StreamKey(3, 1, batch.first_document),
                 PassPlan(t, 1, t), state, Recording(entry_topic, log_theta, inverse),
                 sampler=Sampler(SPARSE))
    smoothing = scaled_rows(np.bincount(batch.entry_word, inverse, minlength=batch.words.size),
                            weights, alpha)
    rows = batch.word_totals(entry_topic, 1.0, smoothing)
    entries = entry_topic + inverse[:, None] * weights[batch.entry_word] * alpha
    return rows, log_theta, entries


@pytest.mark.parametrize("n_topics, mean_length", [(40, 25), (7, 60)])
def test_burn_in_passes_recorded_after_them_equal_the_kernel_bit_for_bit(n_topics, mean_length):
    """New weights and alpha every pass (a boosted step); at every pass before the window, the
    word rows and s2 of `GibbsRun.statistics` and the per-entry expectations and theta equal
    the sparse kernel's own recording of the same pass bit for bit; the window's passes (the
    kernel records them) follow on unchanged."""
    rng = np.random.default_rng(21)
    batch = random_minibatch(rng, n_docs=14, n_words=35, mean_length=mean_length)
    passes = 9
    run = GibbsEstimator(passes=passes, sampler="sparse").begin(batch, n_topics, seed=3,
                                                                minibatch_index=1)
    state = new_chain(batch, n_topics)
    for t in range(passes):
        weights = rng.random((batch.words.size, n_topics)) ** 4
        alpha = rng.uniform(0.01, 0.5, n_topics)
        run.advance(weights, alpha, 1)
        if t >= run.window_start:
            assert run.pending is None
            break
        assert run.pending is not None
        rows, log_theta, entries = kernel_recorded(batch, state, t, weights, alpha, n_topics)
        np.testing.assert_array_equal(run.token_topic, state.token_topic)
        statistics = run.statistics()
        np.testing.assert_array_equal(statistics.word_topic, rows)
        np.testing.assert_array_equal(statistics.log_theta, log_theta.sum(axis=0))
        if t % 2:  # every other pass, the entries' rows as well (then the kernel's path)
            np.testing.assert_array_equal(run.entry_expectations(), entries)
            assert run.pending is None
            np.testing.assert_array_equal(run.statistics().word_topic, rows)
            theta = batch.document_totals(entries) + alpha
            np.testing.assert_array_equal(run.doc_topic(), theta / theta.sum(axis=1, keepdims=True))
    assert t == run.window_start
