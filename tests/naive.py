"""Plain NumPy twins of the numba kernels: slow, obvious, and the reference the kernels are tested
against. Each twin is named after its kernel and says which kernel it mirrors.

Over 450 lines because it is the one reference module of every kernel (`kernels/__init__`: each
kernel has a NumPy twin here), in sections by kernel module."""

import numpy as np
from scipy.special import digamma, gammaln, logsumexp


# --- evaluation (twins of src/streamtopics/kernels/evaluation.py) ----------------------------
# The twins draw from the same counter-based streams as the kernels (the stream functions are
# callable from Python), so with equal seeds they make the same random choices. Sums that the
# kernels accumulate left to right are taken here as cumsum(...)[-1] for the same rounding.

import itertools as _itertools

from streamtopics.kernels.random import next_uniform as _next_uniform


def _conditional_cumulative(topic_weights, alpha, doc_topic_counts):
    return np.cumsum(topic_weights * (doc_topic_counts + alpha))


def _draw(cumulative, uniform):
    return min(int(np.searchsorted(cumulative, uniform * cumulative[-1], side="right")),
               cumulative.size - 1)


def left_to_right_document(beta_by_word, alpha, words, n_particles, resample, state):
    """Twin of kernels.evaluation.left_to_right_document (Wallach et al. 2009, Algorithm 3; SMC)."""
    n_tokens, n_topics = words.size, alpha.size
    alpha_sum = np.cumsum(alpha)[-1]
    topics = np.zeros((n_particles, n_tokens), dtype=np.int64)
    counts = np.zeros((n_particles, n_topics))
    log_likelihood = 0.0
    for n in range(n_tokens):
        weights = np.empty(n_particles)
        for r in range(n_particles):
            for m in range(n):  # one Gibbs sweep over the earlier tokens
                counts[r, topics[r, m]] -= 1
                cumulative = _conditional_cumulative(beta_by_word[words[m]], alpha, counts[r])
                topics[r, m] = _draw(cumulative, _next_uniform(state))
                counts[r, topics[r, m]] += 1
            cumulative = _conditional_cumulative(beta_by_word[words[n]], alpha, counts[r])
            if cumulative[-1] <= 0:
                return -np.inf
            weights[r] = cumulative[-1] / (n + alpha_sum)
            if not resample:
                topics[r, n] = _draw(cumulative, _next_uniform(state))
                counts[r, topics[r, n]] += 1
        weight_sum = np.cumsum(weights)[-1]
        log_likelihood += np.log(weight_sum / n_particles)
        if resample:
            offset = _next_uniform(state)
            points = (np.arange(n_particles) + offset) * weight_sum / n_particles
            running = np.cumsum(weights)
            ancestors = [min(int(np.searchsorted(running, p, side="right")), n_particles - 1)
                         for p in points]
            topics, counts = topics[ancestors].copy(), counts[ancestors].copy()
            for r in range(n_particles):
                cumulative = _conditional_cumulative(beta_by_word[words[n]], alpha, counts[r])
                topics[r, n] = _draw(cumulative, _next_uniform(state))
                counts[r, topics[r, n]] += 1
    return log_likelihood


def completion_document(beta_by_word, alpha, words, n_observed, burn_in, n_samples, lag,
                        soft_counts, state):
    """Twin of kernels.evaluation.completion_document (document completion, theta or theta^p)."""
    n_topics = alpha.size
    alpha_sum = np.cumsum(alpha)[-1]
    counts = np.zeros(n_topics)
    topics = np.zeros(n_observed, dtype=np.int64)
    for j in range(n_observed):
        cumulative = _conditional_cumulative(beta_by_word[words[j]], alpha, counts)
        topics[j] = _draw(cumulative, _next_uniform(state))
        counts[topics[j]] += 1
    theta_sum = np.zeros(n_topics)
    for sweep in range(1, burn_in + n_samples * lag + 1):
        record = sweep > burn_in and (sweep - burn_in) % lag == 0
        expected = np.zeros(n_topics)
        for j in range(n_observed):
            counts[topics[j]] -= 1
            cumulative = _conditional_cumulative(beta_by_word[words[j]], alpha, counts)
            expected += np.diff(cumulative, prepend=0.0) / cumulative[-1]
            topics[j] = _draw(cumulative, _next_uniform(state))
            counts[topics[j]] += 1
        if record:
            theta_sum += ((expected if soft_counts else counts) + alpha) / (n_observed + alpha_sum)
    probabilities = np.array([np.cumsum(theta_sum * beta_by_word[w])[-1]
                              for w in words[n_observed:]])
    return float(np.sum(np.log(probabilities / n_samples)))


def elbo_document(elog_beta, alpha, word_ids, word_counts, max_iterations, tolerance):
    """Twin of kernels.evaluation.elbo_document: Hoffman et al. (2010) E-step and the eq. 4 terms,
    written with phi explicit (no log-sum-exp shortcut). ``elog_beta`` is K x V."""
    elog_beta_words = elog_beta[:, word_ids]  # K x W
    gamma = np.ones(alpha.size)
    for _ in range(max_iterations):
        elog_theta = digamma(gamma) - digamma(gamma.sum())
        log_phi = elog_theta[:, None] + elog_beta_words
        phi = np.exp(log_phi - logsumexp(log_phi, axis=0))
        new_gamma = alpha + phi @ word_counts
        change = np.mean(np.abs(new_gamma - gamma))
        gamma = new_gamma
        if change < tolerance:
            break
    elog_theta = digamma(gamma) - digamma(gamma.sum())
    log_phi = elog_theta[:, None] + elog_beta_words
    phi = np.exp(log_phi - logsumexp(log_phi, axis=0))
    with np.errstate(invalid="ignore"):
        token_terms = np.where(phi > 0, phi * (log_phi - np.log(phi)), 0.0)
    return float(word_counts @ token_terms.sum(axis=0)
                 + gammaln(alpha.sum()) - gammaln(alpha).sum()
                 + np.sum((alpha - gamma) * elog_theta + gammaln(gamma)) - gammaln(gamma.sum()))


def exact_log_likelihood(beta, alpha, words):
    """log p(w | beta, alpha) of one LDA document by summing over all K^N topic assignments.

    p(w) = sum_z p(z | alpha) prod_n beta_{z_n, w_n}, with the Dirichlet-multinomial
    p(z | alpha) = Gamma(A) / Gamma(A + N) prod_k Gamma(alpha_k + n_k) / Gamma(alpha_k),
    A = sum alpha.
    Feasible for K^N up to ~10^5.
    """
    words = np.asarray(words)
    n_topics = beta.shape[0]
    terms = []
    for z in _itertools.product(range(n_topics), repeat=words.size):
        z = np.asarray(z, dtype=np.int64)
        n_k = np.bincount(z, minlength=n_topics)
        log_prior = (gammaln(alpha.sum()) - gammaln(alpha.sum() + words.size)
                     + np.sum(gammaln(alpha + n_k) - gammaln(alpha)))
        with np.errstate(divide="ignore"):
            terms.append(log_prior + np.sum(np.log(beta[z, words])))
    return float(logsumexp(terms)) if terms else 0.0


# --- collapsed Gibbs sampling and CVB0 (twins of src/streamtopics/kernels/cgs.py, cvb0.py) -------
def collapsed_log_joint(tokens, offsets, assignments, n_topics, n_words, alpha, eta):
    """log p(w, z | alpha, eta) of LDA with theta and phi integrated out, from dense counts."""
    alpha = np.broadcast_to(np.asarray(alpha, dtype=float), (n_topics,))
    doc_topic = np.zeros((len(offsets) - 1, n_topics))
    topic_word = np.zeros((n_topics, n_words))
    for d in range(len(offsets) - 1):
        for i in range(offsets[d], offsets[d + 1]):
            doc_topic[d, assignments[i]] += 1
            topic_word[assignments[i], tokens[i]] += 1
    value = np.sum(gammaln(topic_word + eta)) - topic_word.size * gammaln(eta)
    value += n_topics * gammaln(n_words * eta) - np.sum(gammaln(topic_word.sum(1) + n_words * eta))
    value += np.sum(gammaln(doc_topic + alpha)) - doc_topic.shape[0] * np.sum(gammaln(alpha))
    value += doc_topic.shape[0] * gammaln(alpha.sum()) - np.sum(gammaln(doc_topic.sum(1) + alpha.sum()))
    return value


def token_conditional(tokens, offsets, assignments, n_topics, n_words, alpha, eta, i):
    """p(z_i = k | z_-i, w) by the ratio of collapsed joints (no use of equation 1)."""
    z = np.array(assignments, copy=True)
    logs = []
    for k in range(n_topics):
        z[i] = k
        logs.append(collapsed_log_joint(tokens, offsets, z, n_topics, n_words, alpha, eta))
    logs = np.asarray(logs)
    return np.exp(logs - logsumexp(logs))


def allowed_topics(mask, d, n_topics):
    """Twin of kernels.topic_mask.allowed_topics on a list of allowed-topic arrays (or None):
    document d's allowed topics, or every topic."""
    if mask is None or len(mask[d]) >= n_topics:
        return np.arange(n_topics)
    return np.asarray(mask[d])


def sweep_dense(tokens, offsets, documents, assignments, doc_topic_counts, word_topic_counts,
                topic_counts, alpha, eta, seed, stream, mask=None):
    """Twin of kernels.cgs.sweep_dense: equation 1 per token (equation 5 over document d's
    allowed topics ``mask[d]`` when given), same uniforms, same walk."""
    from streamtopics.kernels.random import next_uniform, stream_seed
    eta_sum = eta * word_topic_counts.shape[0]
    state = np.empty(1, dtype=np.uint64)
    for d in documents:
        state[0] = stream_seed(seed, stream, d)
        topics = allowed_topics(mask, d, len(alpha))
        for i in range(offsets[d], offsets[d + 1]):
            w, old = tokens[i], assignments[i]
            doc_topic_counts[d, old] -= 1
            word_topic_counts[w, old] -= 1
            topic_counts[old] -= 1
            weights = ((word_topic_counts[w] + eta) * (doc_topic_counts[d] + alpha)
                       * (1.0 / (topic_counts + eta_sum)))[topics]
            u = next_uniform(state) * np.cumsum(weights)[-1]
            new = topics[-1]
            for k, weight in zip(topics, weights):
                u -= weight
                if u < 0.0:
                    new = k
                    break
            assignments[i] = new
            doc_topic_counts[d, new] += 1
            word_topic_counts[w, new] += 1
            topic_counts[new] += 1


def soft_counts_dense(tokens, offsets, assignments, n_topics, n_words, alpha, eta, mask=None):
    """Twin of kernels.cgs.soft_counts_dense by brute force: each token's conditional from
    ratios of collapsed joints (restricted to its document's allowed topics ``mask[d]`` and
    renormalised when given: theta_d supported there), summed per document (D x K) and per word
    (V x K)."""
    doc_soft = np.zeros((len(offsets) - 1, n_topics))
    word_soft = np.zeros((n_words, n_topics))
    for d in range(len(offsets) - 1):
        allowed = np.zeros(n_topics)
        allowed[allowed_topics(mask, d, n_topics)] = 1.0
        for i in range(offsets[d], offsets[d + 1]):
            p = token_conditional(tokens, offsets, assignments, n_topics, n_words, alpha, eta, i)
            p = p * allowed / np.sum(p * allowed)
            doc_soft[d] += p
            word_soft[tokens[i]] += p
    return doc_soft, word_soft


def document_log_joint(words, assignments, phi, alpha):
    """log p(w_d, z_d | phi, alpha) with theta_d integrated out (Dirichlet-multinomial)."""
    counts = np.bincount(assignments, minlength=phi.shape[0])
    return (np.sum(np.log(phi[assignments, words])) + gammaln(alpha.sum())
            - gammaln(alpha.sum() + len(words)) + np.sum(gammaln(alpha + counts) - gammaln(alpha)))


def document_soft_counts(words, assignments, phi, alpha):
    """Twin of kernels.cgs.document_soft_counts by brute force: sum_j T(z_j = k | z_-j, phi)
    from ratios of document joints."""
    out = np.zeros(phi.shape[0])
    z = np.array(assignments, copy=True)
    for j in range(len(words)):
        logs = []
        for k in range(phi.shape[0]):
            z[j] = k
            logs.append(document_log_joint(words, z, phi, alpha))
        z[j] = assignments[j]
        out += np.exp(np.asarray(logs) - logsumexp(logs))
    return out


def document_posterior(words, phi, alpha):
    """Exact posterior p(z_d | w_d, phi, alpha) by enumerating all K^N assignments: returns
    (assignments as rows, probabilities)."""
    import itertools
    rows = np.array(list(itertools.product(range(phi.shape[0]), repeat=len(words))))
    logs = np.array([document_log_joint(words, z, phi, alpha) for z in rows])
    return rows, np.exp(logs - logsumexp(logs))


def cvb0_sweep(doc_offsets, words, counts, gamma, doc_topic, word_topic, topic, alpha, eta,
               allowed=None):
    """Twin of kernels.cvb0.cvb0_sweep (equation 6 with one token of the entry excluded);
    ``allowed``: the topic mask as a D x K boolean array (None: every topic)."""
    eta_sum = eta * word_topic.shape[0]
    change = 0.0
    for d in range(len(doc_offsets) - 1):
        for j in range(doc_offsets[d], doc_offsets[d + 1]):
            w, g = words[j], gamma[j].copy()
            update = ((np.maximum(word_topic[w] - g, 0) + eta) * (np.maximum(doc_topic[d] - g, 0) + alpha)
                      / (np.maximum(topic - g, 0) + eta_sum))
            if allowed is not None:
                update = np.where(allowed[d], update, 0.0)
            new = update / update.sum()
            delta = counts[j] * (new - g)
            change += np.abs(delta).sum()
            doc_topic[d] += delta
            word_topic[w] += delta
            topic += delta
            gamma[j] = new
    return change / max(counts.sum(), 1)


def cvb0_predict(doc_offsets, words, counts, phi_word, alpha, iterations):
    """Twin of kernels.cvb0.cvb0_predict: returns the soft counts n'_dk (D x K)."""
    out = np.zeros((len(doc_offsets) - 1, len(alpha)))
    for d in range(len(doc_offsets) - 1):
        entries = range(doc_offsets[d], doc_offsets[d + 1])
        gamma = {j: phi_word[words[j]] * alpha / np.sum(phi_word[words[j]] * alpha) for j in entries}
        for j in entries:
            out[d] += counts[j] * gamma[j]
        for _ in range(iterations):
            for j in entries:
                update = phi_word[words[j]] * (np.maximum(out[d] - gamma[j], 0) + alpha)
                new = update / update.sum()
                out[d] += counts[j] * (new - gamma[j])
                gamma[j] = new
    return out


# --- online EM local E-steps (twins of kernels/local_gibbs/ and kernels/variational_estep.py) ---
from streamtopics.kernels.random import next_uniform as _next_uniform  # noqa: F811
from streamtopics.kernels.random import random_permutation as _random_permutation
from streamtopics.kernels.random import stream_seed as _stream_seed


def sample_topic(probabilities, u):
    """Twin of kernels.local_gibbs.draws.sample_topic (inverse CDF with the same summation order)."""
    n_chunks = -(-probabilities.size // 8)
    p = np.zeros(n_chunks * 8)
    p[:probabilities.size] = probabilities
    c = p.reshape(n_chunks, 8)
    sums = ((c[:, 0] + c[:, 1]) + (c[:, 2] + c[:, 3])) + ((c[:, 4] + c[:, 5]) + (c[:, 6] + c[:, 7]))
    total = 0.0
    for s in sums:
        total += s
    target = u * total
    cumulative = 0.0
    for chunk, s in enumerate(sums):
        if cumulative + s > target:
            for k in range(8 * chunk, 8 * chunk + 8):
                cumulative += p[k]
                if cumulative > target:
                    return k
            return int(np.flatnonzero(p[:8 * chunk + 8] > 0)[-1])
        cumulative += s
    return int(np.flatnonzero(p > 0)[-1])


def gibbs_sweeps(doc_ptr, entry_word, entry_count, weights, alpha, seed, minibatch,
                 first_document, n_passes, record_from, mask=None):
    """Twin of kernels.local_gibbs.gibbs_sweeps run from pass 0 (Algorithm 2, dense and plain).

    Returns (token_topic, doc_topic_counts, entry_topic, doc_log_theta) with the accumulators
    summed (not averaged) over the recorded passes t >= record_from. With ``mask`` (a list of
    allowed-topic arrays), document d runs the same algorithm on its allowed topics only: the
    LDA of its view (weights[:, allowed], alpha[allowed]), mapped back; forbidden topics get
    nothing."""
    n_docs, n_topics = doc_ptr.size - 1, alpha.size
    if mask is not None:
        token_topic, doc_topic_counts = [], np.zeros((n_docs, n_topics))
        entry_topic = np.zeros((entry_word.size, n_topics))
        doc_log_theta = np.zeros((n_docs, n_topics))
        for d in range(n_docs):
            topics = allowed_topics(mask, d, n_topics)
            entries = slice(doc_ptr[d], doc_ptr[d + 1])
            z, counts, entry, log_theta = gibbs_sweeps(
                np.array([0, doc_ptr[d + 1] - doc_ptr[d]]), entry_word[entries],
                entry_count[entries], weights[:, topics], alpha[topics], seed, minibatch,
                first_document + d, n_passes, record_from)
            token_topic.append(topics[z])
            doc_topic_counts[d, topics] = counts[0]
            entry_topic[np.ix_(np.arange(doc_ptr[d], doc_ptr[d + 1]), topics)] = entry
            doc_log_theta[d, topics] = log_theta[0]
        flat = np.concatenate(token_topic) if token_topic else np.zeros(0, dtype=np.int64)
        return flat, doc_topic_counts, entry_topic, doc_log_theta
    token_topic = []
    doc_topic_counts = np.zeros((n_docs, n_topics))
    entry_topic = np.zeros((entry_word.size, n_topics))
    doc_log_theta = np.zeros((n_docs, n_topics))
    for d in range(n_docs):
        entries = np.repeat(np.arange(doc_ptr[d], doc_ptr[d + 1]), entry_count[doc_ptr[d]:doc_ptr[d + 1]])
        words = entry_word[entries]
        state = np.array([_stream_seed(seed, minibatch, first_document + d)], dtype=np.uint64)
        z = np.array([sample_topic(weights[w], _next_uniform(state)) for w in words],
                     dtype=np.int64)
        counts = np.bincount(z, minlength=n_topics).astype(float)
        order = np.empty(words.size, dtype=np.int64)
        for t in range(n_passes):
            _random_permutation(state, words.size, order)
            for n in order:
                counts[z[n]] -= 1
                z[n] = sample_topic(weights[words[n]] * (counts + alpha),
                                     _next_uniform(state))
                counts[z[n]] += 1
            if t < record_from:
                continue
            for n in range(words.size):
                conditional = weights[words[n]] * (counts - np.eye(n_topics)[z[n]] + alpha)
                entry_topic[entries[n]] += conditional / conditional.sum()
            doc_log_theta[d] += digamma(alpha + counts) - digamma(alpha.sum() + words.size)
        token_topic.append(z)
        doc_topic_counts[d] = counts
    flat = np.concatenate(token_topic) if token_topic else np.zeros(0, dtype=np.int64)
    return flat, doc_topic_counts, entry_topic, doc_log_theta


def variational_passes(doc_ptr, entry_word, entry_count, weights, alpha, n_passes, gamma):
    """Twin of kernels.variational_estep.variational_passes (equations 11, 12 and 14).

    Returns (gamma after the passes, entry_topic = count * zeta of the last pass, doc_log_theta)."""
    gamma = np.array(gamma, dtype=float)
    entry_topic = np.zeros((entry_word.size, alpha.size))
    for d in range(doc_ptr.size - 1):
        entries = slice(doc_ptr[d], doc_ptr[d + 1])
        beta = weights[entry_word[entries]]
        for _ in range(n_passes):
            zeta = beta * np.exp(digamma(gamma[d]))
            zeta /= zeta.sum(axis=1, keepdims=True)
            entry_topic[entries] = entry_count[entries, None] * zeta
            gamma[d] = alpha + entry_topic[entries].sum(axis=0)
    return gamma, entry_topic, digamma(gamma) - digamma(gamma.sum(axis=1, keepdims=True))


# --- baselines of the online EM engine ---------------------------------------------------------
def gibbs_sweeps_last_sample(doc_ptr, entry_word, entry_count, weights, alpha, seed, minibatch,
                             first_document, n_passes):
    """Twin of kernels.local_gibbs.gibbs_sweeps with record_mode=RECORD_SAMPLE and only the last
    pass recorded (SGS): hard counts of the last sweep's sample per entry, and
    digamma(alpha + n_d) - digamma(sum alpha + N_d) of that sample per document."""
    token_topic, doc_topic_counts, _, _ = gibbs_sweeps(
        doc_ptr, entry_word, entry_count, weights, alpha, seed, minibatch, first_document,
        n_passes, n_passes)
    token_entry = np.repeat(np.arange(entry_word.size), entry_count)
    entry_topic = np.zeros((entry_word.size, alpha.size))
    np.add.at(entry_topic, (token_entry, token_topic), 1.0)
    lengths = doc_topic_counts.sum(axis=1)
    doc_log_theta = digamma(alpha + doc_topic_counts) - digamma(alpha.sum() + lengths)[:, None]
    return entry_topic, doc_log_theta


def online_vb(counts, initial_lambda, alpha, eta, corpus_size, batch_size, step_sizes,
              n_iterations, update_alpha):
    """Hoffman, Blei & Bach (2010), Algorithm 2 written out plainly (Algorithm 1 when a batch is
    the whole corpus and rho = 1): for each minibatch t of ``batch_size`` consecutive rows of the
    dense D x V ``counts``, with rho_t = step_sizes[t]:

      E step, per document: gamma = alpha + N_d / K (the engine's start; Hoffman's is 1), then
        ``n_iterations`` times: phi_wk ∝ exp(E[log theta_k] + E[log beta_kw]),
        gamma = alpha + sum_w n_w phi_w;
      M step: lambda = (1 - rho) lambda + rho (eta + D / S sum_s n_s phi_s);
      if ``update_alpha``: alpha += rho * (Newton direction, the full K x K Hessian solved
        directly), on the minibatch's mean E[log theta] (eq. 9).

    Returns the list of (lambda, alpha) after every step."""
    from scipy.special import polygamma
    lam = np.array(initial_lambda, dtype=float)
    alpha = np.array(alpha, dtype=float)
    n_topics = lam.shape[0]
    history = []
    for t, start in enumerate(range(0, counts.shape[0], batch_size)):
        batch = counts[start:start + batch_size]
        elog_beta = digamma(lam) - digamma(lam.sum(axis=1, keepdims=True))
        expected_counts = np.zeros_like(lam)
        elog_theta_sum = np.zeros(n_topics)
        for document in batch:
            words = np.flatnonzero(document)
            n = document[words].astype(float)
            gamma = alpha + n.sum() / n_topics
            for _ in range(n_iterations):
                log_phi = (digamma(gamma) - digamma(gamma.sum()))[:, None] + elog_beta[:, words]
                phi = np.exp(log_phi - log_phi.max(axis=0))
                phi /= phi.sum(axis=0)
                gamma = alpha + phi @ n
            expected_counts[:, words] += phi * n
            elog_theta_sum += digamma(gamma) - digamma(gamma.sum())
        rho = step_sizes[t]
        lam = (1 - rho) * lam + rho * (eta + corpus_size / batch.shape[0] * expected_counts)
        if update_alpha:
            mean_elog_theta = elog_theta_sum / batch.shape[0]
            gradient = digamma(alpha.sum()) - digamma(alpha) + mean_elog_theta
            hessian = np.diag(-polygamma(1, alpha)) + polygamma(1, alpha.sum())
            alpha = alpha - rho * np.linalg.solve(hessian, gradient)
        history.append((lam.copy(), alpha.copy()))
    return history


# --- review models (twin of src/streamtopics/kernels/opinion.py) -----------------------------
def _opinion_conditional(phi_weights, psi_weight, alpha, omega, topic_counts, n_qualitative):
    n_descriptive = np.cumsum(topic_counts)[-1]
    scale = 1.0 / (n_descriptive + n_qualitative + omega[0] + omega[1])
    descriptive = (n_descriptive + omega[0]) * scale / (n_descriptive + np.cumsum(alpha)[-1])
    weights = np.append(descriptive * (topic_counts + alpha) * phi_weights,
                        (n_qualitative + omega[1]) * scale * psi_weight)
    return np.cumsum(weights)


def opinion_left_to_right_document(phi_by_word, psi, alpha, omega, words, n_particles, state):
    """Twin of kernels.opinion.opinion_left_to_right_document (LDA-R left-to-right)."""
    n_topics = alpha.size
    assignments = np.zeros((n_particles, words.size), dtype=np.int64)
    counts = np.zeros((n_particles, n_topics))
    qualitative = np.zeros(n_particles)
    log_likelihood = 0.0
    for n in range(words.size):
        predictive = 0.0
        for r in range(n_particles):
            for m in range(n + 1):
                if m < n:
                    if assignments[r, m] < 0:
                        qualitative[r] -= 1
                    else:
                        counts[r, assignments[r, m]] -= 1
                cumulative = _opinion_conditional(phi_by_word[words[m]], psi[words[m]], alpha,
                                                  omega, counts[r], qualitative[r])
                if m == n:
                    predictive += cumulative[-1]
                new = _draw(cumulative, _next_uniform(state))
                if new == n_topics:
                    assignments[r, m] = -1
                    qualitative[r] += 1
                else:
                    assignments[r, m] = new
                    counts[r, new] += 1
        log_likelihood += np.log(predictive / n_particles)
    return log_likelihood


def opinion_exact_log_likelihood(phi, psi, alpha, omega, words):
    """log p(w) of LDA-R (theta ~ Dir(alpha), q ~ Beta(omega) integrated out) by enumerating
    every assignment (K + 1 choices per token) through the Polya-urn chain rule."""
    n_topics = alpha.size
    total = 0.0
    for assignment in _itertools.product(range(n_topics + 1), repeat=words.size):
        counts, qualitative, probability = np.zeros(n_topics), 0, 1.0
        for word, choice in zip(words, assignment):
            n_descriptive = counts.sum()
            share = 1.0 / (n_descriptive + qualitative + omega.sum())
            if choice == n_topics:
                probability *= (qualitative + omega[1]) * share * psi[word]
                qualitative += 1
            else:
                probability *= ((n_descriptive + omega[0]) * share * (counts[choice] + alpha[choice])
                                / (n_descriptive + alpha.sum()) * phi[choice, word])
                counts[choice] += 1
        total += probability
    return np.log(total)


def hdp_gibbs_sweeps(doc_ptr, entry_word, entry_count, weights, alpha, n_topics, eta, n_words,
                     stick_concentration, capacity, seed, minibatch, first_document, n_passes,
                     record_from):
    """Twin of kernels.local_gibbs.hdp_gibbs_sweeps (dense and plain): every pass visits every
    document in turn; a token may join a global topic, a topic the minibatch opened (collapsed
    Dirichlet(eta) predictive of its minibatch tokens) or open one (weight a_* weights[w, T],
    the rest split by a Beta(1, alpha) draw). Returns (token_topic, entry_topic (entries x T),
    entry_new (entries x capacity), doc_log_theta (B x T), doc_counts (B x R x (T + capacity)),
    opened_alpha (capacity), M)."""
    n_docs = doc_ptr.size - 1
    has_rest = alpha.size > n_topics
    rest = alpha[n_topics] if has_rest else 0.0
    opened_words = np.zeros((weights.shape[0], capacity))
    opened_alpha = np.zeros(capacity)
    n_opened = 0
    entry_topic = np.zeros((entry_word.size, n_topics))
    entry_new = np.zeros((entry_word.size, capacity))
    doc_log_theta = np.zeros((n_docs, n_topics))
    doc_counts = np.zeros((n_docs, n_passes - record_from, n_topics + capacity))
    entries, states, z, counts = [], [], [], []
    for d in range(n_docs):
        entries.append(np.repeat(np.arange(doc_ptr[d], doc_ptr[d + 1]),
                                 entry_count[doc_ptr[d]:doc_ptr[d + 1]]))
        states.append(np.array([_stream_seed(seed, minibatch, first_document + d)],
                               dtype=np.uint64))
        z.append(np.array([sample_topic(weights[entry_word[j], :n_topics], _next_uniform(states[d]))
                           for j in entries[d]], dtype=np.int64))
        counts.append(np.bincount(z[d], minlength=n_topics + capacity).astype(float))

    def weights_of(d, w, n):
        """The token's weights over the global and opened topics, its own token removed."""
        own = np.zeros(n_topics + n_opened)
        own[z[d][n]] = 1.0
        mine = own[n_topics:]
        opened = ((opened_words[w, :n_opened] - mine + eta)
                  / (opened_words[:, :n_opened].sum(axis=0) - mine + n_words * eta))
        return np.concatenate([
            weights[w, :n_topics] * (counts[d][:n_topics] - own[:n_topics] + alpha[:n_topics]),
            opened * (counts[d][n_topics:n_topics + n_opened] - mine + opened_alpha[:n_opened])])

    for t in range(n_passes):
        for d in range(n_docs):
            order = np.empty(z[d].size, dtype=np.int64)
            _random_permutation(states[d], z[d].size, order)
            for n in order:
                w = entry_word[entries[d][n]]
                old = z[d][n]
                counts[d][old] -= 1
                if old >= n_topics:
                    opened_words[w, old - n_topics] -= 1
                opened = ((opened_words[w, :n_opened] + eta)
                          / (opened_words[:, :n_opened].sum(axis=0) + n_words * eta))
                probabilities = list(np.concatenate([
                    weights[w, :n_topics] * (counts[d][:n_topics] + alpha[:n_topics]),
                    opened * (counts[d][n_topics:n_topics + n_opened] + opened_alpha[:n_opened])]))
                if has_rest and n_opened < capacity:
                    probabilities.append(rest * weights[w, n_topics])
                k = sample_topic(np.array(probabilities), _next_uniform(states[d]))
                if k == n_topics + n_opened:
                    stick = 1.0 - (1.0 - _next_uniform(states[d])) ** (1.0 / stick_concentration)
                    opened_alpha[n_opened] = stick * rest
                    rest *= 1.0 - stick
                    n_opened += 1
                z[d][n] = k
                counts[d][k] += 1
                if k >= n_topics:
                    opened_words[w, k - n_topics] += 1
        if t < record_from:
            continue
        for d in range(n_docs):
            for n, j in enumerate(entries[d]):
                conditional = weights_of(d, entry_word[j], n)
                entry_topic[j] += conditional[:n_topics] / conditional.sum()
                entry_new[j, :n_opened] += conditional[n_topics:] / conditional.sum()
            doc_log_theta[d] += (digamma(alpha[:n_topics] + counts[d][:n_topics])
                                 - digamma(alpha.sum() + z[d].size))
            doc_counts[d, t - record_from, :n_topics + n_opened] = counts[d][:n_topics + n_opened]
    flat = np.concatenate(z) if z else np.zeros(0, dtype=np.int64)
    return flat, entry_topic, entry_new, doc_log_theta, doc_counts, opened_alpha, n_opened


# --- statistics rows (twins of src/streamtopics/kernels/statistics.py) -------------------------
def blend_rows(raw, source, words, word_topic, n_documents, coefficient):
    """Returns the column sums; ``raw`` is changed in place."""
    mean = word_topic / n_documents
    raw[words] = source[words] + coefficient * mean
    return mean.sum(axis=0)


def affine_rows(raw, words, factor, offset):
    return raw[words] * factor + offset


def group_sums(values, group, out, divisor):
    """Onto ``out`` (from zeros: the product with the 0/1 indicator of the groups)."""
    out = out.copy()
    np.add.at(out, group, values)
    return out / divisor


def merge_sorted_rows(words_a, rows_a, words_b, rows_b):
    """Twin of kernels.statistics.merge_sorted_rows: union of the keys, rows summed where both
    have one (zeros + a + b)."""
    words = np.union1d(words_a, words_b)
    rows = np.zeros((words.size, rows_a.shape[1]))
    rows[np.searchsorted(words, words_a)] += rows_a
    rows[np.searchsorted(words, words_b)] += rows_b
    return words, rows


def add_scaled_rows(out, scale, weights, alpha):
    out += scale[:, None] * weights * alpha


# --- the local Gibbs kernels beyond the dense one (twins of kernels/local_gibbs.py,
# gibbs_estep_sparse.py, gibbs_estep_mh.py, end_state.py) --------------------------------------
# Each twin draws from the kernel's streams in the kernel's order, so with equal seeds it makes
# the kernel's draws. A document a topic mask restricts runs the dense passes on its view over
# its allowed topics, whichever kernel, as the kernels do.
def initial_samples(doc_ptr, entry_word, entry_count, weights, alpha, seed, minibatch,
                    first_document, mask=None):
    """Twin of kernels.local_gibbs.initial_samples: Algorithm 2's z_n^0 ~ Mult(beta_{x_n} /
    sum_k beta_{x_n k}) by `sample_topic`, token n (layout order) of document d from the
    (n + 1)-th uniform of the stream (seed, minibatch, first_document + d); -1 for the tokens of
    a document ``mask`` restricts (the kernel leaves them to its restricted passes). Returns
    (z, s_w = sum_k beta_wk alpha_k per word, summed in topic order)."""
    z = [np.zeros(0, dtype=np.int64)]
    for d in range(doc_ptr.size - 1):
        entries = slice(doc_ptr[d], doc_ptr[d + 1])
        words = np.repeat(entry_word[entries], entry_count[entries])
        if allowed_topics(mask, d, alpha.size).size < alpha.size:
            z.append(np.full(words.size, -1, dtype=np.int64))
            continue
        state = np.array([_stream_seed(seed, minibatch, first_document + d)], dtype=np.uint64)
        z.append(np.array([sample_topic(weights[w], _next_uniform(state)) for w in words],
                          dtype=np.int64))
    return np.concatenate(z), np.cumsum(weights * alpha, axis=1)[:, -1]


def two_bucket_topic(weights, counts, alpha, u):
    """Twin of the sparse kernel's draw (kernels.gibbs_estep_sparse: `document_bucket`,
    `pick_present`, `walk_topics`): k with probability proportional to beta_wk (n_k + alpha_k)
    (``weights`` = beta_w, ``counts`` without the token) from the uniform ``u``. The target is
    u (r + s_w), r the running sum of beta_wk n_k over the present topics (n_k > 0, ascending)
    and s_w that of beta_wk alpha_k over every k; below r, the present topic whose running sum
    first exceeds the target, else the topic whose running sum of beta_wk alpha_k first exceeds
    target - r (the last of positive mass where rounding leaves the walk short)."""
    present = np.flatnonzero(counts > 0)
    document = np.cumsum(weights[present] * counts[present])
    document_mass = document[-1] if present.size else 0.0
    smoothing = np.cumsum(weights * alpha)
    target = u * (document_mass + smoothing[-1])
    if target < document_mass:
        return present[np.searchsorted(document, target, side="right")]
    k = np.searchsorted(smoothing, target - document_mass, side="right")
    positive = np.flatnonzero(weights * alpha > 0)
    return k if k < alpha.size else (positive[-1] if positive.size else 0)


def alias_draw(table, u):
    """Twin of kernels.gibbs_estep_mh.alias_draw on one alias table (K x 2: the probability of
    keeping column i, and its alias)."""
    x = u * table.shape[0]
    i = min(int(x), table.shape[0] - 1)
    return i if x - i < table[i, 0] else int(table[i, 1])


def _record_pass(words, weights, alpha, z, counts, record_sample, records, log_theta):
    """One recorded pass (Algorithm 2, final loop; appendix A.3): per token its full conditional
    p(z_n = k | z_-n) (or, ``record_sample``, 1 at z_n) added to its row of ``records``, and
    digamma(alpha + n_d) - digamma(sum alpha + N_d) to ``log_theta``."""
    for n, w in enumerate(words):
        if record_sample:
            records[n, z[n]] += 1.0
        else:
            conditional = weights[w] * (counts - np.eye(alpha.size)[z[n]] + alpha)
            records[n] += conditional / conditional.sum()
    log_theta += digamma(alpha + counts) - digamma(alpha.sum() + words.size)


def _dense_draw(weights, counts, alpha, u):
    return sample_topic(weights * (counts + alpha), u)


def _exact_chain(words, weights, alpha, state, n_passes, record_from, record_sample, draw):
    """Algorithm 2 on one document from its stream ``state``: z^0 by `sample_topic` from beta_w,
    then ``n_passes`` passes, each a fresh permutation and per token in its order one
    ``draw(beta_w, counts without the token, alpha, u)``. Returns (z, counts, records per token,
    log_theta) summed over the recorded passes (`_record_pass`)."""
    z = np.array([sample_topic(weights[w], _next_uniform(state)) for w in words], dtype=np.int64)
    counts = np.bincount(z, minlength=alpha.size).astype(float)
    records, log_theta = np.zeros((words.size, alpha.size)), np.zeros(alpha.size)
    order = np.empty(words.size, dtype=np.int64)
    for t in range(n_passes):
        _random_permutation(state, words.size, order)
        for n in order:
            counts[z[n]] -= 1
            z[n] = draw(weights[words[n]], counts, alpha, _next_uniform(state))
            counts[z[n]] += 1
        if t >= record_from:
            _record_pass(words, weights, alpha, z, counts, record_sample, records, log_theta)
    return z, counts, records, log_theta


def _mh_chain(words, weights, alpha, word_tables, alpha_table, cycles, state, n_passes,
              record_from, record_sample):
    """The Metropolis-Hastings chain of one document (kernels.gibbs_estep_mh) from its stream
    ``state``: z^0 from the words' alias tables; per pass a fresh permutation, then every
    token's ``cycles`` word proposals (tokens in layout order), then token by token in the
    pass's order, n without the token, ``cycles`` times: the word proposal t accepted if
    u (n_s + alpha_s) < n_t + alpha_t; a document proposal, with probability N / (N + sum
    alpha) the topic of a uniformly drawn token (itself included), else a draw from alpha's
    table, accepted if u beta_ws < beta_wt. Returns what `_exact_chain` returns."""
    n_tokens = words.size
    alpha_sum = np.cumsum(alpha)[-1]
    z = np.array([alias_draw(word_tables[w], _next_uniform(state)) for w in words],
                 dtype=np.int64)
    counts = np.bincount(z, minlength=alpha.size).astype(float)
    records, log_theta = np.zeros((n_tokens, alpha.size)), np.zeros(alpha.size)
    order = np.empty(n_tokens, dtype=np.int64)
    for t in range(n_passes):
        _random_permutation(state, n_tokens, order)
        proposals = [[alias_draw(word_tables[w], _next_uniform(state)) for _ in range(cycles)]
                     for w in words]
        for n in order:
            s = z[n]
            counts[s] -= 1
            beta = weights[words[n]]
            for proposed in proposals[n]:
                u = _next_uniform(state)
                if u * (counts[s] + alpha[s]) < counts[proposed] + alpha[proposed]:
                    s = z[n] = proposed
                x = _next_uniform(state) * (n_tokens + alpha_sum)
                other = (z[min(int(x), n_tokens - 1)] if x < n_tokens
                         else alias_draw(alpha_table, (x - n_tokens) / alpha_sum))
                if _next_uniform(state) * beta[s] < beta[other]:
                    s = z[n] = other
            counts[s] += 1
        if t >= record_from:
            _record_pass(words, weights, alpha, z, counts, record_sample, records, log_theta)
    return z, counts, records, log_theta


def _minibatch_chains(doc_ptr, entry_word, entry_count, weights, alpha, seed, minibatch,
                      first_document, n_passes, record_from, mask, record_sample, chain):
    """Each document's chain from its stream (seed, minibatch, first_document + d):
    ``chain(words, state)`` for a document that may use every topic, `_exact_chain` with dense
    draws on its view over its allowed topics for one ``mask`` restricts. Returns
    (token_topic, doc_topic_counts, entry_topic, doc_log_theta), the accumulators summed over
    the recorded passes."""
    n_docs, n_topics = doc_ptr.size - 1, alpha.size
    token_topic = [np.zeros(0, dtype=np.int64)]
    doc_topic_counts = np.zeros((n_docs, n_topics))
    entry_topic = np.zeros((entry_word.size, n_topics))
    doc_log_theta = np.zeros((n_docs, n_topics))
    for d in range(n_docs):
        entries = np.repeat(np.arange(doc_ptr[d], doc_ptr[d + 1]),
                            entry_count[doc_ptr[d]:doc_ptr[d + 1]])
        words = entry_word[entries]
        state = np.array([_stream_seed(seed, minibatch, first_document + d)], dtype=np.uint64)
        topics = allowed_topics(mask, d, n_topics)
        if topics.size < n_topics:
            z, counts, records, log_theta = _exact_chain(
                words, weights[:, topics], alpha[topics], state, n_passes, record_from,
                record_sample, _dense_draw)
        else:
            z, counts, records, log_theta = chain(words, state)
        token_topic.append(topics[z])
        doc_topic_counts[d, topics] = counts
        np.add.at(entry_topic, (entries[:, None], topics), records)
        doc_log_theta[d, topics] = log_theta
    return np.concatenate(token_topic), doc_topic_counts, entry_topic, doc_log_theta


def sparse_gibbs_sweeps(doc_ptr, entry_word, entry_count, weights, alpha, seed, minibatch,
                        first_document, n_passes, record_from, mask=None, record_sample=False):
    """Twin of kernels.local_gibbs.gibbs_sweeps(sparse=True) run from pass 0, recording the
    conditionals (RECORD_CONDITIONALS) or, ``record_sample``, the sample (RECORD_SAMPLE): the
    dense kernel's chain (initial sample, scan orders, one uniform per token) with each uniform
    mapped to a topic by `two_bucket_topic`. Returns (token_topic, doc_topic_counts,
    entry_topic, doc_log_theta), the accumulators summed over the passes t >= record_from;
    ``mask``: a list of allowed-topic arrays."""
    return _minibatch_chains(
        doc_ptr, entry_word, entry_count, weights, alpha, seed, minibatch, first_document,
        n_passes, record_from, mask, record_sample,
        lambda words, state: _exact_chain(words, weights, alpha, state, n_passes, record_from,
                                          record_sample, two_bucket_topic))


def mh_gibbs_sweeps(doc_ptr, entry_word, entry_count, weights, alpha, word_tables, alpha_table,
                    cycles, seed, minibatch, first_document, n_passes, record_from, mask=None,
                    record_sample=False):
    """Twin of kernels.local_gibbs.gibbs_sweeps(mh_cycles=cycles) run from pass 0 (`_mh_chain`),
    returning what `sparse_gibbs_sweeps` returns. ``word_tables`` (U x K x 2) and
    ``alpha_table`` (K x 2) are the alias tables of beta_w and alpha the kernel builds
    (`kernels.gibbs_estep_mh.mh_tables`; `alias_draw` reads them)."""
    return _minibatch_chains(
        doc_ptr, entry_word, entry_count, weights, alpha, seed, minibatch, first_document,
        n_passes, record_from, mask, record_sample,
        lambda words, state: _mh_chain(words, weights, alpha, word_tables, alpha_table, cycles,
                                       state, n_passes, record_from, record_sample))


def end_state_statistics(doc_ptr, entry_word, entry_count, token_topic, doc_topic_counts,
                         weights, alpha, smoothing_total):
    """Twin of kernels.end_state.end_state_statistics: one pass recorded from the state it
    leaves, in the order that module's docstring states, hence the same doubles. With Z_n =
    s_w + sum_k beta_wk n_dk - beta_{w z_n} (present topics ascending; ``smoothing_total``
    holds s_w) and S_j = sum_n 1 / Z_n over entry j's tokens, entry j's row on its document's
    present topics k is (0 - sum_{n: z_n = k} beta_wk / Z_n) + S_j beta_wk n_dk; word w's row is
    S_w beta_wk alpha_k (S_w = sum of its entries' S_j) plus its entries' rows in entry order.
    When s_w = sum_k beta_wk alpha_k, the rows are the sums of p(z_n = k | z_-n) over the
    tokens. Returns (word rows U x K, s2 = digamma(alpha + n_d) - digamma(sum alpha + N_d) per
    document, entry rows, S_j)."""
    entry_rows = np.zeros((entry_word.size, alpha.size))
    entry_inverse = np.zeros(entry_word.size)
    entry_present = []
    token = 0
    for d in range(doc_ptr.size - 1):
        counts = doc_topic_counts[d]
        present = np.flatnonzero(counts > 0)
        for j in range(doc_ptr[d], doc_ptr[d + 1]):
            entry_present.append(present)
            beta = weights[entry_word[j]]
            norm = smoothing_total[entry_word[j]]
            for k in present:
                norm += beta[k] * counts[k]
            own = np.zeros(alpha.size)
            for k in token_topic[token:token + entry_count[j]]:
                inverse = 1.0 / (norm - beta[k])
                entry_inverse[j] += inverse
                own[k] -= beta[k] * inverse
            token += entry_count[j]
            scale = entry_inverse[j]
            entry_rows[j, present] = own[present] + scale * beta[present] * counts[present]
    word_inverse = np.bincount(entry_word, entry_inverse, minlength=weights.shape[0])
    rows = word_inverse[:, None] * weights * alpha
    for j, present in enumerate(entry_present):
        rows[entry_word[j], present] += entry_rows[j, present]
    lengths = doc_topic_counts.sum(axis=1, keepdims=True)
    return (rows, digamma(alpha + doc_topic_counts) - digamma(alpha.sum() + lengths), entry_rows,
            entry_inverse)
