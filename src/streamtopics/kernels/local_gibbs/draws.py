"""Topic draws by inverse CDF over 8-topic chunks (Dupuy & Bach 2016, Algorithm 2): a token's
draw in the dense passes (`sample_topic`) and, per word, the initial sample z_n^0 ~
Mult(beta_{x_n} / sum_k beta_{x_n k}) (`sample_word_topic`, `initial_sample`).

Every draw sums its weights in one fixed order (8-topic pairwise chunk sums, the chunks summed
sequentially), written out in `sample_topic` and mirrored exactly by the NumPy twin in
tests/naive.py, so kernel and twin draw the same samples; the per-word draws reproduce the
same sums from each word's running chunk totals, so they draw the same topics bit for bit.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ..random import uniform_step

CHUNK = 8


@njit(cache=True, inline="always")
def _last_positive(probabilities, stop):
    for k in range(stop - 1, -1, -1):
        if probabilities[k] > 0.0:
            return k
    return 0


@njit(cache=True, inline="always")
def _pairwise(p0, p1, p2, p3, p4, p5, p6, p7):
    """The sum of one 8-topic chunk, in the one order every draw uses (`sample_topic`,
    `chunk_sums_row`)."""
    return ((p0 + p1) + (p2 + p3)) + ((p4 + p5) + (p6 + p7))


@njit(cache=True, inline="always")
def sample_topic(probabilities, chunk_sums, n_chunks, u):
    """Draw k with probability proportional to ``probabilities[k]`` from the uniform ``u``.

    ``probabilities`` holds ``n_chunks * 8`` non-negative weights (zero padding past K). The
    total is the sequential sum of pairwise-summed 8-topic chunks; the search walks the chunk
    sums, then the topics of the chunk that crosses ``u * total``. If rounding makes the
    in-chunk walk fall short, the last positive topic of that chunk is returned.
    """
    total = 0.0
    for c in range(n_chunks):
        b = CHUNK * c
        s = _pairwise(probabilities[b], probabilities[b + 1], probabilities[b + 2],
                      probabilities[b + 3], probabilities[b + 4], probabilities[b + 5],
                      probabilities[b + 6], probabilities[b + 7])
        chunk_sums[c] = s
        total += s
    target = u * total
    cumulative = 0.0
    for c in range(n_chunks):
        s = chunk_sums[c]
        if cumulative + s > target:
            b = CHUNK * c
            for k in range(b, b + CHUNK):
                cumulative += probabilities[k]
                if cumulative > target:
                    return k
            return _last_positive(probabilities, b + CHUNK)
        cumulative += s
    return _last_positive(probabilities, n_chunks * CHUNK)


@njit(cache=True, inline="always")
def _padded(weights, k, n_topics):
    """weights[k], or past ``n_topics`` the zero padding of `sample_topic`'s scratch."""
    return weights[k] if k < n_topics else 0.0


@njit(cache=True, inline="always")
def chunk_sums_row(weights, n_topics, row):
    """The running totals of `sample_topic`'s chunk sums of ``weights[:n_topics]`` zero-padded
    to whole chunks: ``row[c]`` = the chunk sums 0..c added in turn, the values its chunk walk
    compares (``cumulative + s``), ``row[-1]`` the total. The padding is read as 0.0, which
    leaves these sums of non-negative weights unchanged: they are `sample_topic`'s values bit
    for bit."""
    total = 0.0
    for c in range(row.size):
        b = CHUNK * c
        if b + CHUNK <= n_topics:
            s = _pairwise(weights[b], weights[b + 1], weights[b + 2], weights[b + 3],
                          weights[b + 4], weights[b + 5], weights[b + 6], weights[b + 7])
        else:  # the last, partial chunk
            s = _pairwise(_padded(weights, b, n_topics), _padded(weights, b + 1, n_topics),
                          _padded(weights, b + 2, n_topics), _padded(weights, b + 3, n_topics),
                          _padded(weights, b + 4, n_topics), _padded(weights, b + 5, n_topics),
                          _padded(weights, b + 6, n_topics), _padded(weights, b + 7, n_topics))
        total += s
        row[c] = total


@njit(cache=True, parallel=True)
def word_chunk_sums(word_topic_weights, n_topics):
    """`chunk_sums_row` of ``word_topic_weights[w, :n_topics]`` for every local word w (U x
    ceil(K / 8)), for the initial draws of `initial_sample`: beta is fixed during a call, so
    they are summed once per word and call instead of once per token."""
    n_words = word_topic_weights.shape[0]
    table = np.empty((n_words, (n_topics + CHUNK - 1) // CHUNK))
    for w in prange(n_words):
        chunk_sums_row(word_topic_weights[w], n_topics, table[w])
    return table


@njit(cache=True, inline="always")
def sample_word_topic(weights, n_topics, running_sums, u):
    """`sample_topic` of the zero-padded ``weights[:n_topics]`` from the uniform ``u``, given
    the running totals of its chunk sums ``running_sums`` (a row of `word_chunk_sums`): the
    same total, comparisons and fallback, so the same draw bit for bit, at O(K / 8 + 8)
    instead of O(2 K). Both walks are counts instead of early exits (the running sums never
    decrease, so the first one past the target is one more than the number at or below it):
    no mispredicted exits, and the initial draws of a document are independent, so they
    overlap. The in-chunk walk stops at K: past it the padding adds 0.0 and cannot cross the
    target."""
    n_chunks = running_sums.size
    target = u * running_sums[n_chunks - 1]
    c = 0
    for i in range(n_chunks):
        c += running_sums[i] <= target
    if c == n_chunks:
        return _last_positive(weights, n_topics)
    cumulative = running_sums[c - 1] if c > 0 else 0.0
    first = CHUNK * c
    stop = min(first + CHUNK, n_topics)
    k = first
    for m in range(first, stop):
        cumulative += weights[m]
        k += cumulative <= target
    if k == stop:
        return _last_positive(weights, stop)
    return k


@njit(cache=True, inline="always")
def initial_sample(entry_word, entry_count, word_topic_weights, word_chunks, stream, z):
    """Algorithm 2's initialisation of one document: z_n^0 ~ Mult(beta_{x_n} / sum_k
    beta_{x_n k}) for its tokens in layout order, one uniform each from the stream state
    ``stream`` (returned advanced), drawn by `sample_word_topic` from the words' rows of
    ``word_chunks`` (`word_chunk_sums`). `initial_samples` draws the same for a minibatch."""
    n_topics = word_topic_weights.shape[1]
    token = 0
    for j in range(entry_word.size):
        w = entry_word[j]
        weights = word_topic_weights[w]
        chunk_sums = word_chunks[w]
        for _ in range(entry_count[j]):
            stream, u = uniform_step(stream)
            z[token] = sample_word_topic(weights, n_topics, chunk_sums, u)
            token += 1
    return stream

