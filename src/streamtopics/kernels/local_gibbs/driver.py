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
from ..topic_mask import NO_MASK_PTR, NO_MASK_TOPICS, allowed_topics
from .dense import NO_MASK_VALUES, document_passes, restricted_document_passes
from .draws import CHUNK, chunk_sums_row, sample_word_topic
from .mh import mh_document_passes, mh_tables
from .sparse import smoothing_total, smoothing_totals, sparse_document_passes
from .thread_split import balanced_parts


@njit(cache=True, parallel=True)
def initial_samples(doc_ptr, entry_word, entry_count, token_ptr, word_topic_weights, alpha,
                    seed, minibatch, first_document, mask_ptr, mask_topics, n_threads, z,
                    smoothing):
    """Algorithm 2's initialisation z_n^0 ~ Mult(beta_{x_n} / sum_k beta_{x_n k}) of every
    token of a minibatch whose document no topic mask restricts, into ``z``, and, if
    ``smoothing`` (U) is not empty, the sparse kernel's `smoothing_total` of every word into it.

    Word by word rather than document by document: each word's row of ``word_topic_weights``
    is read once, while it is in cache, for its chunk sums (`chunk_sums_row`, into a scratch),
    its smoothing total and the draws of all its tokens, instead of a U x ceil(K / 8) table of
    chunk sums written first and each token reading two rows back from memory. The draws are
    `draws.initial_sample`'s bit for bit: token n (layout order) of document d
    takes the (n + 1)-th uniform of its stream, seeded from (seed, minibatch, first_document
    + d), whatever order the tokens are drawn in (`kernels.random.advance`); each z_n depends
    on its own uniform and word only, so the result is the same for any number of threads
    (``n_threads`` parts of about equal entries)."""
    n_words, n_topics = word_topic_weights.shape
    # Per entry: its first token (-1 in a restricted document) and the stream state before it.
    entry_token = np.empty(entry_word.size, dtype=np.int64)
    entry_state = np.empty(entry_word.size, dtype=np.uint64)
    for d in range(doc_ptr.size - 1):
        restricted = allowed_topics(d, mask_ptr, mask_topics, n_topics).size > 0
        stream = stream_seed(seed, minibatch, first_document + d)
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


@njit(cache=True, parallel=True)
def gibbs_sweeps(doc_ptr, entry_word, entry_count, token_ptr, word_topic_weights, alpha,
                 digamma_alpha, digamma_alpha_sum, seed, minibatch, first_document,
                 first_pass, n_passes, record_from, record_mode,
                 token_topic, doc_topic_counts, rng_state, entry_topic, doc_log_theta,
                 mask_ptr=NO_MASK_PTR, mask_topics=NO_MASK_TOPICS,
                 mask_digamma_alpha_sum=NO_MASK_VALUES, sparse=False,
                 entry_inverse=NO_MASK_VALUES, n_threads=0, mh_cycles=0, clear_rows=False,
                 smoothing_out=NO_MASK_VALUES):
    """Run Gibbs passes ``first_pass .. first_pass + n_passes - 1`` on every document, with the
    sparse kernel if ``sparse`` (record_mode RECORD_CONDITIONALS or RECORD_SAMPLE), else the
    dense one.

    State carried between calls (so boosted G-OEM++ can change beta and alpha between passes):
    ``token_topic`` (tokens), ``doc_topic_counts`` (B x K, float64 counts n_dk), ``rng_state``
    (B uint64 stream states, initialised when ``first_pass == 0`` from (seed, minibatch,
    first_document + d)). Accumulators: ``entry_topic`` (entries x K) and ``doc_log_theta``
    (B x K), see `dense`. ``digamma_alpha`` = digamma(alpha) and
    ``digamma_alpha_sum`` = digamma(sum alpha); digamma(a + n) is then digamma(a) +
    sum_{i<n} 1/(a + i), exact recurrence, O(N_d) per document. ``record_mode``: one of
    RECORD_CONDITIONALS (factorised), RECORD_DENSE (the dense per-token reference, the same result
    up to rounding) and RECORD_SAMPLE (hard counts of the sample).
    ``mask_ptr``/``mask_topics``: allowed topics per document (`kernels.topic_mask`), with
    ``mask_digamma_alpha_sum[d]`` = digamma of document d's allowed alpha sum; a restricted
    document runs the dense `restricted_document_passes` with either kernel.
    ``entry_inverse`` (entries, optional, sparse kernel): where S_j goes when the caller adds the
    smoothing part of the conditionals itself (`sparse`); masked documents
    still record their full conditionals in ``entry_topic``. ``n_threads``: the numba threads
    running the call, over which the documents are dealt by their lengths (`thread_split`;
    0: numba's own split); it never changes the results. ``mh_cycles`` > 0: the
    Metropolis-Hastings chain with that many cycles per token and pass, whatever ``sparse``
    (recorded like the sparse kernel, ``entry_inverse`` included). ``clear_rows``: zero each
    document's rows of ``entry_topic`` just before its passes, for a caller whose array is not
    zeroed yet (`np.empty`): each row is then written while its document's passes keep it in
    cache, instead of the whole entries x K array zeroed beforehand (13 MB for 100
    newsarticles documents at K = 100, evicted before the recorded passes read it back).
    ``smoothing_out`` (U, optional, sparse kernel): where the call's smoothing totals s_w go,
    for a caller that records a pass after it (`end_state`) with the same s_w.
    """
    n_topics = alpha.size
    # A plain loop: numba would turn alpha.sum() here into a parallel reduction whose rounding
    # depends on the thread count, and the model would then depend on it too.
    alpha_sum = 0.0
    for k in range(n_topics):
        alpha_sum += alpha[k]
    mh = mh_cycles > 0
    sparse_recording = sparse or mh
    if first_pass == 0 and not mh:  # the MH chain draws its own initial sample
        smoothing_total = (smoothing_out if smoothing_out.size
                           else np.empty(word_topic_weights.shape[0] if sparse else 0))
        initial_samples(doc_ptr, entry_word, entry_count, token_ptr, word_topic_weights, alpha,
                        seed, minibatch, first_document, mask_ptr, mask_topics, n_threads,
                        token_topic, smoothing_total)
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
            initial_seed = stream_seed(seed, minibatch, first_document + d)
            topics = allowed_topics(d, mask_ptr, mask_topics, n_topics)
            if clear_rows:
                entry_topic[first_entry:last_entry] = 0.0
            if topics.size:
                restricted_document_passes(
                    topics, entry_word[first_entry:last_entry], entry_count[first_entry:last_entry],
                    word_topic_weights, alpha, digamma_alpha, mask_digamma_alpha_sum[d],
                    initial_seed, first_pass, n_passes, record_from, record_mode,
                    token_topic[first_token:last_token], doc_topic_counts[d], rng_state[d:d + 1],
                    entry_topic[first_entry:last_entry], doc_log_theta[d])
            elif mh:
                mh_document_passes(
                    entry_word[first_entry:last_entry], entry_count[first_entry:last_entry],
                    word_topic_weights, word_tables, alpha_table, smoothing_total, alpha,
                    digamma_alpha, digamma_alpha_sum, alpha_sum, mh_cycles, initial_seed,
                    first_pass, n_passes, record_from, record_mode,
                    token_topic[first_token:last_token], doc_topic_counts[d],
                    rng_state[d:d + 1], entry_topic[first_entry:last_entry], doc_log_theta[d],
                    inverse_sums[first_entry:last_entry], add_smoothing)
            elif sparse:
                sparse_document_passes(
                    entry_word[first_entry:last_entry], entry_count[first_entry:last_entry],
                    word_topic_weights, smoothing_total, alpha, digamma_alpha,
                    digamma_alpha_sum, alpha_sum, initial_seed, first_pass, n_passes,
                    record_from, record_mode, token_topic[first_token:last_token],
                    doc_topic_counts[d], rng_state[d:d + 1],
                    entry_topic[first_entry:last_entry], doc_log_theta[d],
                    inverse_sums[first_entry:last_entry], add_smoothing)
            else:
                document_passes(
                    entry_word[first_entry:last_entry], entry_count[first_entry:last_entry],
                    word_topic_weights, alpha, digamma_alpha, digamma_alpha_sum, alpha_sum,
                    initial_seed, first_pass, n_passes, record_from, record_mode,
                    token_topic[first_token:last_token], doc_topic_counts[d], rng_state[d:d + 1],
                    entry_topic[first_entry:last_entry], doc_log_theta[d])
