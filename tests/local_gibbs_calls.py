"""The local Gibbs kernels of G-OEM as tests/test_local_gibbs_twins.py calls them: one function
per entry point, taking a `Minibatch` and a topic mask as a list of allowed-topic arrays (or
None), as the NumPy twins of tests/naive.py do, and returning what the twins return. Only this
module knows the kernels' signatures."""

import numpy as np
from scipy.special import digamma

from streamtopics.inference.topic_mask import TopicMask, kernel_mask
from streamtopics.kernels import local_gibbs
from streamtopics.kernels.local_gibbs import (EVERY_TOPIC, AllowedTopics, ChainState,
                                              GlobalParameters, MinibatchLayout, PassPlan,
                                              Recording, Sampler, StreamKey)
from streamtopics.kernels.local_gibbs.end_state import NO_ENTRY_ROWS
from streamtopics.kernels.local_gibbs.mh import mh_tables as kernel_mh_tables

SAMPLERS = {"dense": local_gibbs.DENSE, "sparse": local_gibbs.SPARSE, "mh": local_gibbs.MH}


def _layout(batch):
    return MinibatchLayout(batch.doc_ptr, batch.entry_word, batch.entry_count, batch.token_ptr)


def _parameters(weights, alpha):
    return GlobalParameters(weights, alpha, digamma(alpha), float(digamma(alpha.sum())))


def _allowed(mask, alpha, n_documents):
    """The kernels' mask: allowed topics and digamma of each document's allowed alpha sum."""
    if mask is None:
        return EVERY_TOPIC
    ptr, topics = kernel_mask(TopicMask.from_lists(mask, alpha.size), n_documents, alpha.size)
    return AllowedTopics(ptr, topics,
                         digamma(np.array([alpha[list(allowed)].sum() for allowed in mask])))


def gibbs_sweeps(batch, weights, alpha, n_passes, record_from, *, sampler="dense", cycles=2,
                 record_sample=False, seed=0, minibatch=0, mask=None):
    """`kernels.local_gibbs.gibbs_sweeps` from pass 0 on a fresh state, with the ``sampler``
    "dense", "sparse" or "mh" (``cycles`` per token): (token_topic, doc_topic_counts,
    entry_topic, doc_log_theta), the accumulators summed over the recorded passes."""
    n_documents, n_topics = batch.n_documents, alpha.size
    chain = ChainState(np.zeros(batch.n_tokens, dtype=np.int64),
                       np.zeros((n_documents, n_topics)), np.zeros(n_documents, dtype=np.uint64))
    recording = Recording(np.zeros((batch.n_entries, n_topics)),
                          np.zeros((n_documents, n_topics)))
    mode = local_gibbs.RECORD_SAMPLE if record_sample else local_gibbs.RECORD_CONDITIONALS
    local_gibbs.gibbs_sweeps(
        _layout(batch), _parameters(weights, alpha),
        StreamKey(seed, minibatch, batch.first_document),
        PassPlan(0, n_passes, record_from, mode), chain, recording,
        _allowed(mask, alpha, n_documents),
        Sampler(SAMPLERS[sampler], cycles if sampler == "mh" else 0))
    return chain.token_topic, chain.doc_topic_counts, recording.entry_topic, \
        recording.doc_log_theta


def initial_samples(batch, weights, alpha, seed, minibatch, mask=None, n_threads=0):
    """`kernels.local_gibbs.initial_samples`: (z^0, -1 for a restricted document's tokens, and
    the smoothing totals s_w drawn alongside)."""
    z = np.full(batch.n_tokens, -1, dtype=np.int64)
    smoothing = np.empty(weights.shape[0])
    local_gibbs.initial_samples(_layout(batch), _parameters(weights, alpha),
                                StreamKey(seed, minibatch, batch.first_document),
                                _allowed(mask, alpha, batch.n_documents), n_threads, z,
                                smoothing)
    return z, smoothing


def end_state_statistics(batch, token_topic, doc_topic_counts, weights, alpha, smoothing_total,
                         record_entries):
    """`kernels.local_gibbs.end_state_statistics`: (word rows, s2 per document, and with
    ``record_entries`` the entry rows and S_j, else None and None)."""
    rows = np.empty(weights.shape)
    log_theta = np.empty((batch.n_documents, alpha.size))
    entries = ((np.zeros((batch.n_entries, alpha.size)), np.zeros(batch.n_entries))
               if record_entries else (NO_ENTRY_ROWS, local_gibbs.NO_VALUES))
    chain = ChainState(token_topic, doc_topic_counts, np.zeros(batch.n_documents,
                                                               dtype=np.uint64))
    local_gibbs.end_state_statistics(_layout(batch), chain, _parameters(weights, alpha),
                                     smoothing_total, rows, log_theta, *entries)
    return (rows, log_theta, *(entries if record_entries else (None, None)))


def smoothing_totals(weights, alpha):
    """The sparse kernel's s_w = sum_k beta_wk alpha_k per word."""
    return local_gibbs.smoothing_totals(weights, alpha)


def mh_tables(weights, alpha):
    """The MH chain's alias tables: of each word's beta_w (U x K x 2) and of alpha (K x 2)."""
    word_tables, alpha_table = kernel_mh_tables(weights, alpha)
    return word_tables, alpha_table[0]
