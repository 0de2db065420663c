"""The driver of the local Gibbs E-step over a minibatch (Dupuy & Bach 2016, Algorithm 2): the
initial sample of every document (`initial_samples`), then the passes of each document, in
parallel over documents, with one of the per-document kernels: the dense reference (`dense`,
O(K) per token), the sparse two-bucket sampler (`sparse`, O(topics in the document) per token)
or the Metropolis-Hastings chain (`mh`, O(1) per token and step). The package docstring
describes the layout of a minibatch, the random streams and the passes.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ..random import advance, stream_seed, uniform_step
from ..statistics import grouped
from ..topic_mask import allowed_topics
from .bundles import DENSE, EVERY_TOPIC, MH, NO_VALUES, SPARSE, Sampler, plain
from .dense import document_passes, restricted_document_passes
from .draws import CHUNK, chunk_sums_row, sample_word_topic
from .mh import mh_document_passes, mh_tables
from .sparse import smoothing_total, smoothing_totals, sparse_document_passes
from .thread_split import balanced_parts


@njit(cache=True, inline="always")
def document_stream(seed, minibatch, first_document, document_keys, d):
    """The initial state of document d's stream (`bundles.StreamKey`)."""
    if document_keys.size:
        return stream_seed(seed, document_keys[d], 0)
    return stream_seed(seed, minibatch, first_document + d)


def initial_samples(layout, parameters, streams, mask, n_threads, z, smoothing=NO_VALUES):
    """Algorithm 2's initialisation z_n^0 ~ Mult(beta_{x_n} / sum_k beta_{x_n k}) of every
    token of a minibatch (`MinibatchLayout`) whose document no topic mask (`AllowedTopics`)
    restricts, into ``z``, with the weights and alpha of ``parameters`` (`GlobalParameters`)
    and the streams of ``streams`` (`StreamKey`); and, if ``smoothing`` (U) is given, the
    sparse kernel's `smoothing_total` of every word into it.

    Word by word rather than document by document: each word's row of weights is read once,
    while it is in cache, for its chunk sums (`chunk_sums_row`, into a scratch), its smoothing
    total and the draws of all its tokens, instead of a U x ceil(K / 8) table of chunk sums
    written first and each token reading two rows back from memory. The draws are
    `draws.initial_sample`'s bit for bit: token n (layout order) of document d takes the
    (n + 1)-th uniform of its stream, seeded from (seed, minibatch, first_document + d),
    whatever order the tokens are drawn in (`kernels.random.advance`); each z_n depends on its
    own uniform and word only, so the result is the same for any number of threads
    (``n_threads`` parts of about equal entries)."""
    _initial_samples(*plain(layout, parameters, streams, mask), n_threads, z, smoothing)


@njit(cache=True, parallel=True)
def _initial_samples(layout, parameters, streams, mask, n_threads, z, smoothing):
    """`initial_samples`, its bundles plain tuples."""
    doc_ptr, entry_word, entry_count, token_ptr = layout
    word_topic_weights, alpha, _, _ = parameters
    seed, minibatch, first_document, document_keys = streams
    mask_ptr, mask_topics, _ = mask
    n_words, n_topics = word_topic_weights.shape
    # Per entry: its first token (-1 in a restricted document) and the stream state before it.
    entry_token = np.empty(entry_word.size, dtype=np.int64)
    entry_state = np.empty(entry_word.size, dtype=np.uint64)
    for d in range(doc_ptr.size - 1):
        restricted = allowed_topics(d, mask_ptr, mask_topics, n_topics).size > 0
        stream = document_stream(seed, minibatch, first_document, document_keys, d)
        token = token_ptr[d]
        for j in range(doc_ptr[d], doc_ptr[d + 1]):
            entry_token[j] = -1 if restricted else token
            entry_state[j] = stream
            token += entry_count[j]
            stream = advance(stream, entry_count[j])
    word_ptr, entries = grouped(entry_word, n_words)
    n_parts = max(1, min(n_threads, n_words))
    bounds = np.searchsorted(word_ptr, np.arange(n_parts + 1) * (entry_word.size / n_parts))
    bounds[0], bounds[n_parts] = 0, n_words
    for part in prange(n_parts):
        running_sums = np.empty((n_topics + CHUNK - 1) // CHUNK)
        for w in range(bounds[part], bounds[part + 1]):
            weights = word_topic_weights[w]
            if smoothing.size:
                smoothing[w] = smoothing_total(weights, alpha)
            chunk_sums_row(weights, n_topics, running_sums)
            for e in range(word_ptr[w], word_ptr[w + 1]):
                j = entries[e]
                token = entry_token[j]
                if token < 0:
                    continue
                stream = entry_state[j]
                for i in range(entry_count[j]):
                    stream, u = uniform_step(stream)
                    z[token + i] = sample_word_topic(weights, n_topics, running_sums, u)


def gibbs_sweeps(layout, parameters, streams, plan, chain, recording, mask=EVERY_TOPIC,
                 sampler=Sampler(DENSE), n_threads=0):
    """Run the passes of ``plan`` (`PassPlan`) on every document of a minibatch
    (`MinibatchLayout`) with ``parameters`` (`GlobalParameters`), continuing ``chain``
    (`ChainState`: seeded from ``streams``, a `StreamKey`, at pass 0; kept between calls, so
    boosted G-OEM++ can change beta and alpha between passes) and adding the recorded passes
    to ``recording`` (`Recording`).

    ``sampler`` (`Sampler`): the kernel of the documents, dense (the reference), sparse or
    Metropolis-Hastings (recorded like the sparse kernel). A document that ``mask``
    (`AllowedTopics`) restricts runs the dense `restricted_document_passes` with any of them.
    ``n_threads``: the numba threads running the call, over which the documents are dealt by
    their lengths (`thread_split`; 0: numba's own split); it never changes the results.
    """
    _gibbs_sweeps(*plain(layout, parameters, streams, plan, chain, recording, mask, sampler),
                  n_threads)


@njit(cache=True, parallel=True)
def _gibbs_sweeps(layout, parameters, streams, plan, chain, recording, mask, sampler, n_threads):
    """`gibbs_sweeps`, its bundles plain tuples."""
    doc_ptr, entry_word, entry_count, token_ptr = layout
    word_topic_weights, alpha, digamma_alpha, _ = parameters
    seed, minibatch, first_document, document_keys = streams
    first_pass, _, _, _ = plan  # the documents' kernels run the passes themselves
    token_topic, doc_topic_counts, rng_state = chain
    entry_topic, doc_log_theta, entry_inverse, smoothing_out, clear_rows = recording
    mask_ptr, mask_topics, mask_digamma_alpha_sum = mask
    kind, mh_cycles = sampler
    n_topics = alpha.size
    # A plain loop: numba would turn alpha.sum() here into a parallel reduction whose rounding
    # depends on the thread count, and the model would then depend on it too.
    alpha_sum = 0.0
    for k in range(n_topics):
        alpha_sum += alpha[k]
    mh = kind == MH
    sparse = kind == SPARSE
    sparse_recording = sparse or mh
    if first_pass == 0 and not mh:  # the MH chain draws its own initial sample
        smoothing_total = (smoothing_out if smoothing_out.size
                           else np.empty(word_topic_weights.shape[0] if sparse else 0))
        _initial_samples(layout, parameters, streams, mask, n_threads, token_topic,
                         smoothing_total)
    else:
        smoothing_total = (smoothing_totals(word_topic_weights, alpha) if sparse_recording
                           else np.empty(0))
        if smoothing_out.size:
            smoothing_out[:] = smoothing_total
    word_tables, alpha_table = (mh_tables(word_topic_weights, alpha) if mh
                                else (np.empty((0, 0, 2)), np.empty((0, 0, 2))))
    add_smoothing = entry_inverse.size == 0
    inverse_sums = (np.zeros(entry_word.size if sparse_recording else 0) if add_smoothing
                    else entry_inverse)
    part_ptr, documents = balanced_parts(token_ptr, n_threads)
    for part in prange(part_ptr.size - 1):
        for i in range(part_ptr[part], part_ptr[part + 1]):
            d = documents[i]
            first_entry, last_entry = doc_ptr[d], doc_ptr[d + 1]
            first_token, last_token = token_ptr[d], token_ptr[d + 1]
            initial_seed = document_stream(seed, minibatch, first_document, document_keys, d)
            topics = allowed_topics(d, mask_ptr, mask_topics, n_topics)
            if clear_rows:
                entry_topic[first_entry:last_entry] = 0.0
            # The document's own entries, chain and accumulators.
            entries = (entry_word[first_entry:last_entry], entry_count[first_entry:last_entry])
            state = (token_topic[first_token:last_token], doc_topic_counts[d], rng_state[d:d + 1])
            accumulators = (entry_topic[first_entry:last_entry], doc_log_theta[d])
            if topics.size:
                restricted_document_passes(
                    topics, entries,
                    (word_topic_weights, alpha, digamma_alpha, mask_digamma_alpha_sum[d]),
                    initial_seed, plan, state, accumulators)
            elif mh:
                mh_document_passes(entries, parameters, alpha_sum, smoothing_total,
                                   (word_tables, alpha_table), mh_cycles, initial_seed, plan,
                                   state, accumulators, inverse_sums[first_entry:last_entry],
                                   add_smoothing)
            elif sparse:
                sparse_document_passes(entries, parameters, alpha_sum, smoothing_total,
                                       initial_seed, plan, state, accumulators,
                                       inverse_sums[first_entry:last_entry], add_smoothing)
            else:
                document_passes(entries, parameters, alpha_sum, initial_seed, plan, state,
                                accumulators)
