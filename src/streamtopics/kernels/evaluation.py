"""Numba kernels of held-out evaluation: left-to-right, document completion, per-document ELBO.

Documents arrive in the ragged form of `Corpus.document_tokens` (flat word ids + offsets) or, for
the ELBO, as CSR rows (distinct word ids + counts). Topics arrive word-major, ``(V, K)``, so the K
topic weights of one word are contiguous. Every kernel runs in parallel over documents with
``prange``; each document draws from its own counter-based stream ``new_stream(seed, 0, d)``,
so results are bit-identical for any number of threads.

Each kernel has a plain NumPy twin in ``tests/naive.py``:
``left_to_right_document``, ``completion_document``, ``elbo_document``.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from .local_gibbs import draw_into, enter_present, leave_present, search_cumulative
from .random import new_stream, next_uniform
from .special import digamma


# --- small shared pieces ---------------------------------------------------------------------
@njit(cache=True, inline="always")
def _conditional_cumulative(topic_weights, alpha, doc_topic_counts, cumulative):
    """Fill ``cumulative`` with the running sums of beta_wk (n_dk + alpha_k); return the total.

    This is the unnormalised collapsed conditional p(z = k | w, z_other) of LDA with beta fixed
    (Griffiths & Steyvers 2004; Wallach et al. 2009, eq. 5); its total, divided by
    (n + sum alpha), is the predictive probability p(w | z_other).
    """
    total = 0.0
    for k in range(alpha.size):
        total += topic_weights[k] * (doc_topic_counts[k] + alpha[k])
        cumulative[k] = total
    return total


@njit(cache=True, inline="always")
def draw_cumulative(cumulative, total, uniform):
    """The first k with cumulative[k] > uniform * total (inverse-CDF sampling)."""
    threshold = uniform * total
    last = cumulative.size - 1
    k = 0
    while k < last and cumulative[k] <= threshold:
        k += 1
    return k


@njit(cache=True, inline="always")
def _gibbs_update(topics, position, word_topic_weights, alpha, doc_topic_counts, cumulative, state):
    """Resample the topic of one token from its collapsed conditional, counts kept in step."""
    old = topics[position]
    doc_topic_counts[old] -= 1.0
    total = _conditional_cumulative(word_topic_weights, alpha, doc_topic_counts, cumulative)
    new = draw_cumulative(cumulative, total, next_uniform(state))
    topics[position] = new
    doc_topic_counts[new] += 1.0


@njit(cache=True, inline="always")
def empty_particles(n_particles, n_tokens, n_topics):
    """The state of R left-to-right particles, all zero: each one's topic per token (R x N) and
    count per topic (R x K)."""
    return np.zeros((n_particles, n_tokens), dtype=np.int64), np.zeros((n_particles, n_topics))


@njit(cache=True, inline="always")
def _sparse_particles(n_particles, n_tokens, n_topics):
    """`empty_particles` with each particle's present topics as an ascending list: topics (R x N),
    present (R x K), position (R x K, -1 = absent), counts of the listed topics (R x K) and the
    lists' sizes (R)."""
    topics, counts = empty_particles(n_particles, n_tokens, n_topics)
    return (topics, np.zeros((n_particles, n_topics), dtype=np.int64),
            np.full((n_particles, n_topics), -1, dtype=np.int64), counts,
            np.zeros(n_particles, dtype=np.int64))


@njit(cache=True, inline="always")
def _dot(weights, row):
    """sum_k weights_k row_k, summed in topic order (the NumPy twins sum the same way)."""
    total = 0.0
    for k in range(weights.size):
        total += weights[k] * row[k]
    return total


@njit(cache=True, inline="always")
def _systematic_ancestors(weights, weight_sum, offset, ancestors):
    """Systematic resampling: particle r takes the ancestor whose interval of the weights' CDF
    holds the point (r + offset) / R of the total (one uniform ``offset`` for all R points)."""
    n_particles = weights.size
    ancestor = 0
    running = weights[0]
    for r in range(n_particles):
        point = (r + offset) * weight_sum / n_particles
        while ancestor < n_particles - 1 and running <= point:
            ancestor += 1
            running += weights[ancestor]
        ancestors[r] = ancestor


# --- left-to-right (Wallach, Murray, Salakhutdinov & Mimno 2009, Algorithm 3) ----------------
@njit(cache=True)
def left_to_right_document(beta_by_word, alpha, words, n_particles, resample, state):
    """log p(w_d | beta, alpha) estimated by the left-to-right algorithm on one document.

    At each position n, every particle r first resamples the topics of all earlier tokens once
    (a Gibbs sweep, which leaves p(z_<n | w_<n) invariant), then contributes the predictive
    probability p(w_n | z_<n^r) = sum_k beta_{k,w_n} (n_k^r + alpha_k) / (n + sum alpha); the
    estimate of p(w_n | w_<n) is the average over particles, and log p(w_d) the sum of the logs.

    ``resample=False``: Algorithm 3 as published; each particle then draws z_n from its own
    conditional. Its particles are never weighted by how well they predicted w_n, so they do not
    follow p(z_<n | w_<n) exactly and the estimate keeps a small bias however large R is
    (Buntine 2009). ``resample=True``: sequential Monte Carlo; the predictive probabilities are
    the particles' incremental weights, particles are resampled in proportion to them
    (systematic resampling) before z_n is drawn, which makes the product of the averages an
    unbiased estimate of p(w_d) (Del Moral 2004).

    Cost: O(N^2 R K) for a document of N tokens with R particles.
    """
    n_tokens = words.size
    n_topics = alpha.size
    alpha_sum = alpha.sum()
    topics, doc_topic_counts = empty_particles(n_particles, n_tokens, n_topics)
    cumulative = np.empty(n_topics)
    weights = np.empty(n_particles)
    n_buffers = n_particles if resample else 0  # resampling copies particles into buffers
    next_topics, next_counts = empty_particles(n_buffers, n_tokens, n_topics)
    ancestors = np.empty(n_buffers, dtype=np.int64)
    log_likelihood = 0.0
    for n in range(n_tokens):
        word_weights = beta_by_word[words[n]]
        for r in range(n_particles):
            for m in range(n):
                _gibbs_update(topics[r], m, beta_by_word[words[m]], alpha, doc_topic_counts[r],
                              cumulative, state)
            total = _conditional_cumulative(word_weights, alpha, doc_topic_counts[r], cumulative)
            if total <= 0.0:
                return -np.inf  # no topic can emit this word: p(w_d) = 0
            weights[r] = total / (n + alpha_sum)
            if not resample:
                k = draw_cumulative(cumulative, total, next_uniform(state))
                topics[r, n] = k
                doc_topic_counts[r, k] += 1.0
        weight_sum = weights.sum()
        log_likelihood += math.log(weight_sum / n_particles)
        if resample:
            _systematic_ancestors(weights, weight_sum, next_uniform(state), ancestors)
            for r in range(n_particles):
                next_topics[r, :n] = topics[ancestors[r], :n]
                next_counts[r] = doc_topic_counts[ancestors[r]]
            topics, next_topics = next_topics, topics
            doc_topic_counts, next_counts = next_counts, doc_topic_counts
            for r in range(n_particles):
                total = _conditional_cumulative(word_weights, alpha, doc_topic_counts[r],
                                                cumulative)
                k = draw_cumulative(cumulative, total, next_uniform(state))
                topics[r, n] = k
                doc_topic_counts[r, k] += 1.0
    return log_likelihood


@njit(cache=True)
def left_to_right_document_sparse(beta_by_word, alpha, words, n_particles, resample, state):
    """`left_to_right_document` with every draw from the two-bucket sampler of
    `kernels.local_gibbs.sparse` (docs/performance.md): the same algorithm and the same
    distribution of the estimate, at O(topics in the particle) per Gibbs update instead of O(K).

    beta_wk (n_k + alpha_k) = beta_wk n_k + beta_wk alpha_k: the second bucket depends only on
    the word, so its cumulative sums over k are built once per position of the document
    (``smoothing``, N x K, its totals s_n alongside); each particle keeps its present topics as
    an ascending list with their counts. A Gibbs update of token m draws u, sums the present
    topics' masses beta_wk n_k (running sums in ``masses``), and takes the first present topic
    whose running sum exceeds u (sum + s_m) or, past them, searches the smoothing sums; the
    predictive total sum_k beta_{k,w_n} (n_k + alpha_k) of position n is the present topics'
    mass plus s_n. This is `sample_two_buckets` written out in the hot loop (a call there costs
    reference counts on its array arguments) with an early-exit walk instead of its branch-free
    count (the same topic for the same uniform; the walk is cheaper at the ~10 present topics of
    a particle). A uniform maps to a topic differently than in the dense function, so the two
    give different numbers for one seed (statistically the same;
    tests/test_evaluation_left_to_right.py).
    """
    n_tokens = words.size
    n_topics = alpha.size
    alpha_sum = alpha.sum()
    smoothing = np.empty((n_tokens, n_topics))
    smoothing_totals = np.empty(n_tokens)
    for n in range(n_tokens):
        row = beta_by_word[words[n]]
        total = 0.0
        for k in range(n_topics):
            total += row[k] * alpha[k]
            smoothing[n, k] = total
        smoothing_totals[n] = total
    topics, present, position, counts, n_present = _sparse_particles(n_particles, n_tokens,
                                                                     n_topics)
    n_buffers = n_particles if resample else 0
    next_topics, next_present, next_position, next_counts, next_n_present = _sparse_particles(
        n_buffers, n_tokens, n_topics)
    ancestors = np.empty(n_buffers, dtype=np.int64)
    masses = np.empty(n_topics)
    weights = np.empty(n_particles)
    log_likelihood = 0.0
    for n in range(n_tokens):
        word_weights = beta_by_word[words[n]]
        for r in range(n_particles):
            particle_present, particle_position = present[r], position[r]
            particle_counts, particle_topics = counts[r], topics[r]
            size = n_present[r]
            for m in range(n):  # the hot loop, written out (docstring)
                word = words[m]
                p = particle_position[particle_topics[m]]
                particle_counts[p] -= 1.0
                if particle_counts[p] == 0.0:
                    size = leave_present(p, size, particle_present, particle_position,
                                         particle_counts)
                uniform = next_uniform(state)
                document_mass = 0.0
                for i in range(size):
                    document_mass += beta_by_word[word, particle_present[i]] * particle_counts[i]
                    masses[i] = document_mass
                target = uniform * (document_mass + smoothing_totals[m])
                if target < document_mass:
                    p = 0
                    while masses[p] <= target:
                        p += 1
                else:
                    k = search_cumulative(smoothing, m, target - document_mass)
                    p = particle_position[k]
                    if p < 0:
                        p = enter_present(k, size, particle_present, particle_position,
                                          particle_counts)
                        size += 1
                particle_topics[m] = particle_present[p]
                particle_counts[p] += 1.0
            total = smoothing_totals[n]
            for i in range(size):
                total += word_weights[particle_present[i]] * particle_counts[i]
            n_present[r] = size
            if total <= 0.0:
                return -np.inf  # no topic can emit this word: p(w_d) = 0
            weights[r] = total / (n + alpha_sum)
            if not resample:
                n_present[r] = draw_into(word_weights, smoothing, n, next_uniform(state),
                                         particle_topics, n, particle_present,
                                         particle_position, particle_counts, size, masses)
        weight_sum = weights.sum()
        log_likelihood += math.log(weight_sum / n_particles)
        if resample:
            _systematic_ancestors(weights, weight_sum, next_uniform(state), ancestors)
            for r in range(n_particles):
                a = ancestors[r]
                next_topics[r, :n] = topics[a, :n]
                next_present[r] = present[a]
                next_position[r] = position[a]
                next_counts[r] = counts[a]
                next_n_present[r] = n_present[a]
            topics, next_topics = next_topics, topics
            present, next_present = next_present, present
            position, next_position = next_position, position
            counts, next_counts = next_counts, counts
            n_present, next_n_present = next_n_present, n_present
            for r in range(n_particles):
                n_present[r] = draw_into(word_weights, smoothing, n, next_uniform(state),
                                         topics[r], n, present[r], position[r], counts[r],
                                         n_present[r], masses)
    return log_likelihood


@njit(cache=True, parallel=True)
def left_to_right_kernel(beta_by_word, alpha, word_ids, offsets, n_particles, resample, seed,
                         first_document, sparse):
    """Per-document left-to-right log-likelihoods (nats), parallel over documents.

    Equivalent to ``left_to_right_document`` (``sparse`` False) or
    ``left_to_right_document_sparse`` (True) on each document d with the stream
    (seed, 0, first_document + d); ``first_document`` lets a caller split a corpus into chunks
    and get the same numbers as in one call.
    """
    n_documents = offsets.size - 1
    log_likelihoods = np.zeros(n_documents)
    for d in prange(n_documents):
        state = new_stream(seed, 0, first_document + d)
        words = word_ids[offsets[d]:offsets[d + 1]]
        if sparse:
            log_likelihoods[d] = left_to_right_document_sparse(
                beta_by_word, alpha, words, n_particles, resample, state)
        else:
            log_likelihoods[d] = left_to_right_document(
                beta_by_word, alpha, words, n_particles, resample, state)
    return log_likelihoods


# --- document completion (Asuncion et al. 2009; Papanikolaou et al. 2017, section 5.2) -------
@njit(cache=True)
def completion_document(beta_by_word, alpha, words, n_observed, burn_in, n_samples, lag,
                        soft_counts, state):
    """log p(w_held-out | theta_hat, beta) where theta_hat is inferred from the observed tokens.

    The first ``n_observed`` tokens are observed: their topics are initialised sequentially
    (each drawn from its conditional given the tokens before it), then swept by collapsed Gibbs
    sampling with beta fixed. After ``burn_in`` sweeps, every ``lag``-th sweep gives one of
    ``n_samples`` estimates of theta_d, averaged:
    - standard (Griffiths & Steyvers 2004, Papanikolaou eq. 13): (n_dk + alpha_k) / (N + sum alpha);
    - soft counts, theta^p (Papanikolaou eq. 33): the hard counts n_dk are replaced by the sum
      over tokens of the conditional probabilities T(z_j = k | z_-j) computed in that sweep.
    The remaining tokens are scored with p(w) = sum_k theta_hat_k beta_kw; averaging theta over
    samples equals averaging these predictive probabilities, which are linear in theta.
    """
    n_topics = alpha.size
    alpha_sum = alpha.sum()
    doc_topic_counts = np.zeros(n_topics)
    topics = np.zeros(n_observed, dtype=np.int64)
    cumulative = np.empty(n_topics)
    for j in range(n_observed):
        total = _conditional_cumulative(beta_by_word[words[j]], alpha, doc_topic_counts, cumulative)
        k = draw_cumulative(cumulative, total, next_uniform(state))
        topics[j] = k
        doc_topic_counts[k] += 1.0
    theta_sum = np.zeros(n_topics)
    expected_counts = np.zeros(n_topics)
    normaliser = n_observed + alpha_sum
    for sweep in range(1, burn_in + n_samples * lag + 1):
        record = sweep > burn_in and (sweep - burn_in) % lag == 0
        expected_counts[:] = 0.0
        for j in range(n_observed):
            old = topics[j]
            doc_topic_counts[old] -= 1.0
            total = _conditional_cumulative(beta_by_word[words[j]], alpha, doc_topic_counts,
                                            cumulative)
            if record and soft_counts:
                previous = 0.0
                for k in range(n_topics):
                    expected_counts[k] += (cumulative[k] - previous) / total
                    previous = cumulative[k]
            new = draw_cumulative(cumulative, total, next_uniform(state))
            topics[j] = new
            doc_topic_counts[new] += 1.0
        if record:
            counts = expected_counts if soft_counts else doc_topic_counts
            for k in range(n_topics):
                theta_sum[k] += (counts[k] + alpha[k]) / normaliser
    log_likelihood = 0.0
    for j in range(n_observed, words.size):
        word_weights = beta_by_word[words[j]]
        probability = 0.0
        for k in range(n_topics):
            probability += theta_sum[k] * word_weights[k]
        log_likelihood += math.log(probability / n_samples) if probability > 0.0 else -np.inf
    return log_likelihood


@njit(cache=True, parallel=True)
def completion_kernel(beta_by_word, alpha, word_ids, offsets, n_observed, burn_in, n_samples,
                      lag, soft_counts, seed, first_document):
    """Per-document completion log-likelihoods of the held-out tokens (nats), parallel.

    Equivalent to ``completion_document`` on each document d with the stream
    (seed, 0, first_document + d); ``n_observed[d]`` is the number of leading tokens of
    document d that are observed.
    """
    n_documents = offsets.size - 1
    log_likelihoods = np.zeros(n_documents)
    for d in prange(n_documents):
        state = new_stream(seed, 0, first_document + d)
        log_likelihoods[d] = completion_document(
            beta_by_word, alpha, word_ids[offsets[d]:offsets[d + 1]], n_observed[d], burn_in,
            n_samples, lag, soft_counts, state)
    return log_likelihoods


# --- per-document ELBO (Hoffman, Blei & Bach 2010, eq. 4 and 16) ----------------------------
@njit(cache=True)
def elbo_document(shifted_exp_elog_beta, elog_beta_shift, alpha, word_ids, word_counts,
                  max_iterations, tolerance):
    """The document's ELBO term l(n_d, phi_d, gamma_d, lambda) of Hoffman et al. (2010, eq. 4).

    The E-step of their Algorithm 1 with the topics held fixed: gamma_k starts at 1; then
    phi_wk ∝ exp(E[log theta_k] + E[log beta_kw]) and gamma_k = alpha_k + sum_w n_w phi_wk
    until the mean absolute change of gamma is below ``tolerance`` (or ``max_iterations``).
    ``shifted_exp_elog_beta[w, k] = exp(E[log beta_kw] - elog_beta_shift[w])``, the per-word shift
    (the max over k) keeps the exponentials in range and cancels in phi.

    With phi at its optimum for the final gamma, sum_k phi_wk (E[log theta_k] + E[log beta_kw]
    - log phi_wk) = log sum_k exp(E[log theta_k] + E[log beta_kw]), so the bound is
        sum_w n_w log sum_k exp(E[log theta_k] + E[log beta_kw])
        + log Gamma(sum alpha) - sum_k log Gamma(alpha_k)
        - log Gamma(sum gamma) + sum_k [(alpha_k - gamma_k) E[log theta_k] + log Gamma(gamma_k)].
    """
    n_topics = alpha.size
    gamma = np.ones(n_topics)
    new_gamma = np.empty(n_topics)
    exp_elog_theta = np.empty(n_topics)
    for _ in range(max_iterations):
        gamma_digamma_sum = digamma(gamma.sum())
        for k in range(n_topics):
            exp_elog_theta[k] = math.exp(digamma(gamma[k]) - gamma_digamma_sum)
        new_gamma[:] = 0.0
        for i in range(word_ids.size):
            row = shifted_exp_elog_beta[word_ids[i]]
            norm = _dot(exp_elog_theta, row)
            if norm <= 0.0:
                return -np.inf  # no topic can emit this word
            scale = word_counts[i] / norm
            for k in range(n_topics):
                new_gamma[k] += scale * row[k]
        change = 0.0
        for k in range(n_topics):
            value = alpha[k] + exp_elog_theta[k] * new_gamma[k]
            change += abs(value - gamma[k])
            gamma[k] = value
        if change / n_topics < tolerance:
            break
    gamma_sum = gamma.sum()
    gamma_digamma_sum = digamma(gamma_sum)
    bound = math.lgamma(alpha.sum()) - math.lgamma(gamma_sum)
    for k in range(n_topics):
        elog_theta = digamma(gamma[k]) - gamma_digamma_sum
        exp_elog_theta[k] = math.exp(elog_theta)
        bound += ((alpha[k] - gamma[k]) * elog_theta + math.lgamma(gamma[k])
                  - math.lgamma(alpha[k]))
    for i in range(word_ids.size):
        row = shifted_exp_elog_beta[word_ids[i]]
        norm = _dot(exp_elog_theta, row)
        if norm <= 0.0:
            return -np.inf
        bound += word_counts[i] * (math.log(norm) + elog_beta_shift[word_ids[i]])
    return bound


@njit(cache=True, parallel=True)
def elbo_kernel(shifted_exp_elog_beta, elog_beta_shift, alpha, indptr, indices, counts,
                max_iterations, tolerance):
    """Per-document ELBO terms for CSR documents (indptr, indices, counts), parallel.

    Equivalent to ``elbo_document`` on each row.
    """
    n_documents = indptr.size - 1
    bounds = np.zeros(n_documents)
    for d in prange(n_documents):
        start, stop = indptr[d], indptr[d + 1]
        bounds[d] = elbo_document(shifted_exp_elog_beta, elog_beta_shift, alpha,
                                  indices[start:stop], counts[start:stop], max_iterations,
                                  tolerance)
    return bounds
