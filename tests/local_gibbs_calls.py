"""The local Gibbs kernels of G-OEM as tests/test_local_gibbs_twins.py calls them: one function
per entry point, taking a `Minibatch` and a topic mask as a list of allowed-topic arrays (or
None), as the NumPy twins of tests/naive.py do, and returning what the twins return. Only this
module knows the kernels' signatures."""

import numpy as np
from scipy.special import digamma

from streamtopics.inference.topic_mask import TopicMask, kernel_mask
from streamtopics.kernels import end_state, gibbs_estep, gibbs_estep_mh, gibbs_estep_sparse
from streamtopics.kernels import local_gibbs
from streamtopics.kernels.topic_mask import NO_MASK_PTR, NO_MASK_TOPICS


def _mask_arrays(mask, alpha, n_documents):
    """The kernels' mask: (ptr, topics, digamma of each document's allowed alpha sum)."""
    if mask is None:
        return NO_MASK_PTR, NO_MASK_TOPICS, np.zeros(0)
    ptr, topics = kernel_mask(TopicMask.from_lists(mask, alpha.size), n_documents, alpha.size)
    return ptr, topics, digamma(np.array([alpha[list(allowed)].sum() for allowed in mask]))


def gibbs_sweeps(batch, weights, alpha, n_passes, record_from, *, sampler="dense", cycles=2,
                 record_sample=False, seed=0, minibatch=0, mask=None):
    """`kernels.local_gibbs.gibbs_sweeps` from pass 0 on a fresh state, with the ``sampler``
    "dense", "sparse" or "mh" (``cycles`` per token): (token_topic, doc_topic_counts,
    entry_topic, doc_log_theta), the accumulators summed over the recorded passes."""
    n_documents, n_topics = batch.n_documents, alpha.size
    state = (np.zeros(batch.n_tokens, dtype=np.int64), np.zeros((n_documents, n_topics)),
             np.zeros(n_documents, dtype=np.uint64), np.zeros((batch.n_entries, n_topics)),
             np.zeros((n_documents, n_topics)))
    mode = gibbs_estep.RECORD_SAMPLE if record_sample else gibbs_estep.RECORD_CONDITIONALS
    local_gibbs.gibbs_sweeps(
        batch.doc_ptr, batch.entry_word, batch.entry_count, batch.token_ptr, weights, alpha,
        digamma(alpha), float(digamma(alpha.sum())), seed, minibatch, batch.first_document, 0,
        n_passes, record_from, mode, *state, *_mask_arrays(mask, alpha, n_documents),
        sampler == "sparse", mh_cycles=cycles if sampler == "mh" else 0)
    token_topic, doc_topic_counts, _, entry_topic, doc_log_theta = state
    return token_topic, doc_topic_counts, entry_topic, doc_log_theta


def initial_samples(batch, weights, alpha, seed, minibatch, mask=None, n_threads=0):
    """`kernels.local_gibbs.initial_samples`: (z^0, -1 for a restricted document's tokens, and
    the smoothing totals s_w drawn alongside)."""
    z = np.full(batch.n_tokens, -1, dtype=np.int64)
    smoothing = np.empty(weights.shape[0])
    mask_ptr, mask_topics, _ = _mask_arrays(mask, alpha, batch.n_documents)
    local_gibbs.initial_samples(batch.doc_ptr, batch.entry_word, batch.entry_count,
                                batch.token_ptr, weights, alpha, seed, minibatch,
                                batch.first_document, mask_ptr, mask_topics, n_threads, z,
                                smoothing)
    return z, smoothing


def end_state_statistics(batch, token_topic, doc_topic_counts, weights, alpha, smoothing_total,
                         record_entries):
    """`kernels.end_state.end_state_statistics`: (word rows, s2 per document, and with
    ``record_entries`` the entry rows and S_j, else None and None)."""
    rows = np.empty(weights.shape)
    log_theta = np.empty((batch.n_documents, alpha.size))
    entries = ((np.zeros((batch.n_entries, alpha.size)), np.zeros(batch.n_entries))
               if record_entries else (end_state.NO_ENTRY_ROWS, end_state.NO_ENTRY_INVERSE))
    end_state.end_state_statistics(batch.doc_ptr, batch.entry_word, batch.entry_count,
                                   batch.token_ptr, token_topic, doc_topic_counts, weights, alpha,
                                   smoothing_total, digamma(alpha), float(digamma(alpha.sum())),
                                   rows, log_theta, *entries)
    return (rows, log_theta, *(entries if record_entries else (None, None)))


def smoothing_totals(weights, alpha):
    """The sparse kernel's s_w = sum_k beta_wk alpha_k per word."""
    return gibbs_estep_sparse.smoothing_totals(weights, alpha)


def mh_tables(weights, alpha):
    """The MH chain's alias tables: of each word's beta_w (U x K x 2) and of alpha (K x 2)."""
    word_tables, alpha_table = gibbs_estep_mh.mh_tables(weights, alpha)
    return word_tables, alpha_table[0]
