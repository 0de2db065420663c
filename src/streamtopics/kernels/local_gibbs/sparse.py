"""The sparse per-document kernel of the local Gibbs E-step: Algorithm 2 (Dupuy & Bach 2016)
at O(topics in the document) per token instead of O(K).

The conditional of equation 5 / 15 splits in two buckets (SparseLDA, Yao, Mimno & McCallum
2009; docs/performance.md):

    p(z_n = k | z_-n) proportional to beta_wk (N_-n,k + alpha_k)
                                      = beta_wk N_-n,k  +  beta_wk alpha_k
                                        (document bucket)  (smoothing bucket)

beta and alpha are fixed during one call, so the smoothing bucket depends only on the word w:
its total s_w is computed once per distinct word of the minibatch per call (`smoothing_total`,
O(U K); in a call that starts the chain, in the same read of each word's row as the initial
sample, `driver.initial_samples`). The document bucket is non-zero only on the
topics present in the document, kept as an ascending list. A token draws u, sets target = u (r +
s_w) with r = sum over present topics of beta_wk N_-n,k, and picks in the document bucket (the
running sums over the present topics in ascending order, `document_bucket` and `pick_present`)
if target < r, else in the smoothing bucket by walking beta_wk alpha_k over k (`walk_topics`,
O(K): a rare draw once the documents' topics have settled, so no per-word cumulative table
is built). The initial sample z^0 ~ Mult(beta_w / sum_k beta_wk) is the dense
kernel's (drawn for both by `driver.initial_samples`), and so are the scan order
and the random numbers (a fresh permutation per pass, one uniform per token), but in the passes
a uniform maps to a topic differently, so the chains differ from the dense kernel's while
sampling the same conditionals (tests/test_gibbs_estep_sparse.py).

Recording (Algorithm 2, final loop), RECORD_CONDITIONALS: with m_k = N_dk^t + alpha_k and
Z_n = sum_k beta_wk m_k - beta_{w z_n}, the averaged conditional of an entry j (word w) adds
sum_n beta_wk (m_k - [z_n = k]) / Z_n = beta_wk N_dk^t S_j - sum_n [z_n = k] beta_wk / Z_n
+ beta_wk alpha_k S_j with S_j = sum_n 1 / Z_n: the first two terms touch present topics only
each recorded pass, the last is added once per call (`add_smoothing_part`), or, when the caller
passes ``entry_inverse``, left to it: S_j summed over the call's recorded passes is added to
``entry_inverse[j]`` instead, and the caller adds beta_wk alpha_k S_j per word in O(U K)
(`inference.gibbs_estep`: a boosted step needs the per-word statistics after every pass, and
the entries x K smoothing part would dominate a recorded pass). RECORD_SAMPLE adds
the sample. s2 (appendix A.3) adds sum_{i < N_dk} 1 / (alpha_k + i) for the present topics each
recorded pass and digamma(alpha_k) - digamma(sum alpha + N_d) (times the recorded passes) once
per call. Documents restricted by a topic mask run the dense restricted path
(`dense.restricted_document_passes`, O(allowed topics) per token already).

The layout of the minibatch, the state carried between calls and the accumulators are those of
`driver.gibbs_sweeps`; results are bit-identical for any number of threads.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ..random import advance, permute, shuffle_step, uniform_step
from .bundles import RECORD_CONDITIONALS, RECORD_SAMPLE
from .dense import length_term, record_sample, start_chain, token_words

# "No index" for the token loop's unsigned ``pending`` and ``removed`` (`document_bucket`).
NO_INDEX = np.uint64(0xFFFFFFFFFFFFFFFF)


@njit(cache=True, fastmath={"reassoc", "contract"})
def smoothing_total(weights, alpha):
    """s_w = sum_k beta_wk alpha_k, the smoothing bucket's mass of one word (``weights`` =
    beta_w); its own compiled function, so its rounding is the same wherever it is called."""
    total = 0.0
    for k in range(alpha.size):
        total += weights[k] * alpha[k]
    return total


@njit(cache=True, parallel=True)
def smoothing_totals(word_topic_weights, alpha):
    """`smoothing_total` per local word w (U)."""
    n_words = word_topic_weights.shape[0]
    totals = np.empty(n_words)
    for w in prange(n_words):
        totals[w] = smoothing_total(word_topic_weights[w], alpha)
    return totals


@njit(cache=True, inline="always")
def walk_topics(weights, alpha, target):
    """The first k whose running sum of beta_wk alpha_k (``weights`` = beta_w) exceeds
    ``target`` (0 <= target < s_w), walking k = 0, 1, ...; if rounding leaves the walk short,
    the last k of positive mass. O(K), for the rare draws that need it."""
    cumulative = 0.0
    last = 0
    for k in range(weights.size):
        mass = weights[k] * alpha[k]
        if mass > 0.0:
            cumulative += mass
            last = k
            if cumulative > target:
                return k
    return last


@njit(cache=True, inline="always")
def search_cumulative(table, w, target):
    """The first k with table[w, k] > target (``table`` holds cumulative sums per row w, the
    total is table[w, K - 1] > 0 and 0 <= target): a branch-free binary search, then, if rounding
    put ``target`` at or past the total, the last topic of positive increment."""
    n_topics = table.shape[1]
    base = 0
    size = n_topics
    while size > 1:
        half = size >> 1
        base = base + half if table[w, base + half - 1] <= target else base
        size -= half
    if target >= table[w, n_topics - 1]:
        while base > 0 and table[w, base] == table[w, base - 1]:
            base -= 1
    return base


@njit(cache=True, inline="always")
def document_bucket(weights, present, present_counts, n_present, prefix, pending=-1,
                    removed=-1):
    """The document bucket's mass sum_i beta_{w present[i]} N_-n,present[i] over the present
    list, its running sums left in ``prefix``. ``pending``: an index whose count is one short
    (the previous draw's +1, not stored yet), ``removed`` one whose count is one over (the
    token being resampled), or -1; every count is stored back, those completed (counts are
    whole numbers: the same doubles as adding them first). An unsigned ``n_present`` (then
    ``pending`` and ``removed`` too, `NO_INDEX` for none) makes every index unsigned: numba
    then emits no wrap-around of negative indices."""
    document_mass = 0.0
    for i in range(n_present):
        count = present_counts[i] + ((i == pending) - (i == removed))
        present_counts[i] = count
        document_mass += weights[np.uint64(present[i])] * count
        prefix[i] = document_mass
    return document_mass


@njit(cache=True, inline="always")
def pick_present(prefix, n_present, target):
    """The position in the present list whose running-sum interval holds ``target`` (<
    prefix[n_present - 1]): the number of running sums <= target, branch-free, which skips
    zero-mass topics; unsigned (no wrap-around where it indexes)."""
    position = np.uint64(0)
    for i in range(n_present):
        position += np.uint64(prefix[i] <= target)
    return position


@njit(cache=True, inline="always")
def sample_two_buckets(weights, present, present_counts, n_present, prefix, smoothing_table, w,
                       u):
    """Position in the present list (>= 0) or, encoded as -1 - k, the topic k of the smoothing
    bucket, drawn proportionally to beta_wk (N_-n,k + alpha_k) from the uniform ``u``.

    ``weights`` = beta_w (K), ``present[i]`` the i-th present topic (ascending) and
    ``present_counts[i]`` its count N_-n,k; ``smoothing_table[w]`` the cumulative sums of
    beta_wk alpha_k (searched by `search_cumulative`)."""
    document_mass = document_bucket(weights, present, present_counts, n_present, prefix)
    target = u * (document_mass + smoothing_table[w, smoothing_table.shape[1] - 1])
    if target < document_mass:
        return np.int64(pick_present(prefix, n_present, target))
    return -1 - search_cumulative(smoothing_table, w, target - document_mass)


@njit(cache=True)
def sparse_document_passes(entries, parameters, alpha_sum, smoothing_total, initial_seed, plan,
                           chain, accumulators, inverse_sums, add_smoothing):
    """`dense.document_passes` (the same arguments) with the two-bucket sampler (module
    docstring): the same initial sample (in ``z`` at pass 0), scan orders, one uniform per
    token. ``smoothing_total``: s_w per word (U); ``inverse_sums``: S_j per entry, summed over
    the recorded passes, whose smoothing part is added here at the end if ``add_smoothing``.

    The present topics are an ascending list (``present``; ``position[k]`` its index or -1)
    with their counts alongside, so the draws depend on the set of present topics only, not on
    the history of calls. ``counts`` (K) is written back at the end.

    Two things make the token loop fast, both keeping every double: the draw's +1 is not
    stored at the just-drawn index but folded into the next token's `document_bucket`
    (``pending``), and so is the resampled token's -1 (``removed``), which stores every count
    back at fixed addresses, so the next token's loads need not wait on a store whose address
    is the draw itself (as the dense kernel's pass loop); and the draw's bookkeeping is
    `count_draw` written out: called in the token loop, that helper would cost numba
    reference counts on its four array arguments per token. Within a call, each pass also
    shuffles the next pass's scan order, one Fisher-Yates step per token
    (`kernels.random.shuffle_step`), from the stream state the next pass's `permute` would
    start from (`kernels.random.advance`): the same orders and stream, with the shuffle's
    integer work beside the draws' floating-point chain instead of in a loop of its own. The
    token loop's indices are unsigned (``np.uint64``; `NO_INDEX` for none), so numba emits no
    wrap-around of negative indices."""
    entry_word, entry_count = entries
    word_topic_weights, alpha, digamma_alpha, digamma_alpha_sum = parameters
    first_pass, n_passes, record_from, record_mode = plan
    z, counts, state = chain
    entry_topic, log_theta = accumulators
    n_entries = entry_word.size
    n_topics = alpha.size
    stream = start_chain(initial_seed, z, counts) if first_pass == 0 else state[0]
    present = np.empty(n_topics, dtype=np.int64)
    position = np.full(n_topics, -1, dtype=np.int64)
    present_counts = np.empty(n_topics)
    n_present = 0
    for k in range(n_topics):
        if counts[k] > 0.0:
            present[n_present] = k
            position[k] = n_present
            present_counts[n_present] = counts[k]
            n_present += 1
    prefix = np.empty(n_topics)
    token_word = token_words(entry_word, entry_count, z.size)
    n_tokens = z.size
    order = np.empty(n_tokens, dtype=np.int64)
    next_order = np.empty(n_tokens, dtype=np.int64)
    if n_passes > 0:
        stream = permute(stream, n_tokens, order)
    n_recorded = 0
    last_pass = first_pass + n_passes - 1
    for t in range(first_pass, first_pass + n_passes):
        # The next pass's scan order is shuffled here, one step per token, from the stream
        # ahead of this pass's uniforms: the same numbers as `permute` after the pass, but its
        # integer work runs beside the draws' floating-point chain.
        shuffling = t < last_pass
        shuffle_stream = advance(stream, n_tokens)
        if shuffling:
            for i in range(n_tokens):
                next_order[i] = i
        pending = NO_INDEX
        for i in range(n_tokens):
            if shuffling and i < n_tokens - 1:
                shuffle_stream = shuffle_step(shuffle_stream, n_tokens - 1 - i, next_order)
            n = np.uint64(order[i])
            w = np.uint64(token_word[n])
            weights = word_topic_weights[w]
            removed = np.uint64(position[np.uint64(z[n])])
            if present_counts[removed] + (removed == pending) == 1.0:  # the topic's last token
                if pending != NO_INDEX:
                    present_counts[pending] += 1.0
                    pending = NO_INDEX
                n_present = leave_present(np.int64(removed), n_present, present, position,
                                         present_counts)
                removed = NO_INDEX
            stream, u = uniform_step(stream)
            document_mass = document_bucket(weights, present, present_counts,
                                            np.uint64(n_present), prefix, pending, removed)
            target = u * (document_mass + smoothing_total[w])
            if target < document_mass:
                p = pick_present(prefix, np.uint64(n_present), target)
            else:
                k = walk_topics(weights, alpha, target - document_mass)
                q = position[k]
                if q < 0:
                    q = enter_present(k, n_present, present, position, present_counts)
                    n_present += 1
                p = np.uint64(q)
            z[n] = present[p]
            pending = p
        if pending != NO_INDEX:
            present_counts[pending] += 1.0
        if shuffling:
            stream = shuffle_stream
            order, next_order = next_order, order
        if t < record_from:
            continue
        n_recorded += 1
        if record_mode == RECORD_SAMPLE:
            record_sample(0, n_entries, 0, entry_count, z, entry_topic)
        else:
            record_present_part(entry_word, entry_count, word_topic_weights, smoothing_total,
                                 present, present_counts, n_present, z, entry_topic,
                                 inverse_sums)
        for i in range(n_present):
            k = present[i]
            value = 0.0
            for m in range(int(present_counts[i])):
                value += 1.0 / (alpha[k] + m)
            log_theta[k] += value
    state[0] = stream
    counts[:] = 0.0
    for i in range(n_present):
        counts[present[i]] = present_counts[i]
    if n_recorded == 0:
        return
    if record_mode == RECORD_CONDITIONALS and add_smoothing:
        add_smoothing_part(entry_word, word_topic_weights, alpha, inverse_sums, entry_topic)
    length = length_term(digamma_alpha_sum, alpha_sum, z.size)
    for k in range(n_topics):
        log_theta[k] += n_recorded * (digamma_alpha[k] - length)


@njit(cache=True, inline="always")
def enter_present(k, n_present, present, position, present_counts):
    """Insert topic ``k`` (count 0) into the ascending present list of size ``n_present``,
    moving the later topics one place on; returns its index."""
    q = n_present
    while q > 0 and present[q - 1] > k:
        moved = present[q - 1]
        present[q] = moved
        position[moved] = q
        present_counts[q] = present_counts[q - 1]
        q -= 1
    present[q] = k
    position[k] = q
    present_counts[q] = 0.0
    return q


@njit(cache=True, inline="always")
def leave_present(p, n_present, present, position, present_counts):
    """Remove the topic at index ``p`` of the present list, moving the later ones one place
    back; returns the new size."""
    position[present[p]] = -1
    for q in range(p, n_present - 1):
        moved = present[q + 1]
        present[q] = moved
        position[moved] = q
        present_counts[q] = present_counts[q + 1]
    return n_present - 1


@njit(cache=True, inline="always")
def draw_into(weights, smoothing, row, uniform, topics, token, present, position, counts,
              n_present, masses):
    """Draw ``topics[token]`` from weights_k (n_k + alpha_k) by `sample_two_buckets`
    (``smoothing[row]``: the cumulative weights_k alpha_k), entering a topic new to the present
    list, and count it; returns the new number of present topics."""
    p = sample_two_buckets(weights, present, counts, n_present, masses, smoothing, row, uniform)
    return count_draw(p, topics, token, present, position, counts, n_present)


@njit(cache=True, inline="always")
def count_draw(p, topics, token, present, position, counts, n_present):
    """Set ``topics[token]`` to the draw ``p`` (a position in the present list, or -1 - k for
    topic k of the smoothing bucket, as `sample_two_buckets` returns), entering a topic new to
    the present list, and count it; returns the new number of present topics."""
    if p < 0:
        k = -1 - p
        p = position[k]
        if p < 0:
            p = enter_present(k, n_present, present, position, counts)
            n_present += 1
    topics[token] = present[p]
    counts[p] += 1.0
    return n_present


@njit(cache=True, inline="always")
def record_present_part(entry_word, entry_count, word_topic_weights, smoothing_total, present,
                         present_counts, n_present, token_topic, entry_topic, inverse_sums):
    """The present-topic terms of one pass's recorded conditionals (module docstring):
    beta_wk N_dk S_j - sum_n [z_n = k] beta_wk / Z_n per entry j, and S_j added to
    ``inverse_sums``."""
    token = 0
    for j in range(entry_word.size):
        w = entry_word[j]
        weights = word_topic_weights[w]
        norm = smoothing_total[w]
        for i in range(n_present):
            norm += weights[present[i]] * present_counts[i]
        inverse_sum = 0.0
        row = entry_topic[j]
        for _ in range(entry_count[j]):
            k = token_topic[token]
            inverse = 1.0 / (norm - weights[k])
            inverse_sum += inverse
            row[k] -= weights[k] * inverse
            token += 1
        for i in range(n_present):
            k = present[i]
            row[k] += inverse_sum * weights[k] * present_counts[i]
        inverse_sums[j] += inverse_sum


@njit(cache=True, inline="always")
def add_smoothing_part(entry_word, word_topic_weights, alpha, inverse_sums, entry_topic):
    """beta_wk alpha_k S_j for every entry j and topic k, once per call."""
    for j in range(entry_word.size):
        weights = word_topic_weights[entry_word[j]]
        row = entry_topic[j]
        scale = inverse_sums[j]
        for k in range(alpha.size):
            row[k] += scale * weights[k] * alpha[k]
