"""Synthetic LDA corpora with known truth (Dupuy & Bach 2016, section 5; Blei et al. 2003).

K topics beta_k ~ Dirichlet(topic_concentration) over V words (or given), one
theta_d ~ Dirichlet(alpha) per document, a length N_d ~ Poisson(mean_length), then for each
token z ~ Categorical(theta_d), w ~ Categorical(beta_z). Tokens are kept in generation order.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

import numpy as np

from .corpus import Corpus


@dataclass
class SyntheticTruth:
    """The parameters that generated a synthetic corpus: beta (K x V), alpha (K), theta (D x K)."""

    beta: np.ndarray
    alpha: np.ndarray
    theta: np.ndarray


def make_topics(n_topics: int, n_words: int, concentration: float = 0.1, seed=None) -> np.ndarray:
    """K x V topics drawn from a symmetric Dirichlet(concentration); rows sum to 1."""
    rng = np.random.default_rng(seed)
    beta = rng.dirichlet(np.full(n_words, concentration), size=n_topics)
    # Dirichlet draws with tiny concentration can underflow to exact zeros; keep support full.
    beta = np.maximum(beta, 1e-300)
    return beta / beta.sum(axis=1, keepdims=True)


def _validate(beta: np.ndarray, alpha: np.ndarray, mean_length: float) -> None:
    if beta.ndim != 2 or beta.shape[0] < 1 or beta.shape[1] < 1:
        raise ValueError(f"beta must be a non-empty K x V matrix, got shape {beta.shape}")
    if not np.allclose(beta.sum(axis=1), 1.0) or beta.min() < 0:
        raise ValueError("each topic (row of beta) must be a probability distribution")
    if alpha.shape != (beta.shape[0],) or alpha.min() <= 0:
        raise ValueError("alpha must hold K positive numbers")
    if mean_length <= 0:
        raise ValueError("mean_length must be positive")


def iter_synthetic_documents(beta: np.ndarray, alpha: np.ndarray, n_documents: int,
                             mean_length: float = 60.0, seed=None,
                             chunk_size: int = 10_000) -> Iterator[tuple[list[np.ndarray], np.ndarray]]:
    """Yield (token arrays, theta rows) for chunks of at most ``chunk_size`` documents.

    Memory is bounded by the chunk, so corpora of millions of documents can be streamed to disk.
    Documents of length 0 are redrawn (an empty document carries no information).
    """
    beta = np.asarray(beta, dtype=np.float64)
    alpha = np.asarray(alpha, dtype=np.float64)
    _validate(beta, alpha, mean_length)
    rng = np.random.default_rng(seed)
    cum_beta = np.cumsum(beta, axis=1)
    cum_beta[:, -1] = 1.0
    n_topics = beta.shape[0]
    for start in range(0, n_documents, chunk_size):
        n = min(chunk_size, n_documents - start)
        theta = rng.dirichlet(alpha, size=n)
        lengths = rng.poisson(mean_length, size=n)
        while (empty := lengths == 0).any():
            lengths[empty] = rng.poisson(mean_length, size=int(empty.sum()))
        doc_of_token = np.repeat(np.arange(n), lengths)
        cum_theta = np.cumsum(theta, axis=1)
        cum_theta[:, -1] = 1.0
        topics = _draw_topics(cum_theta, doc_of_token, rng.random(doc_of_token.size))
        words = np.empty(doc_of_token.size, dtype=np.int64)
        v = rng.random(doc_of_token.size)
        for k in range(n_topics):
            at = topics == k
            words[at] = np.searchsorted(cum_beta[k], v[at], side="right")
        np.minimum(words, beta.shape[1] - 1, out=words)
        bounds = np.cumsum(lengths)[:-1]
        yield np.split(words, bounds), theta


def _draw_topics(cum_theta: np.ndarray, doc_of_token: np.ndarray, u: np.ndarray,
                 elements: int = 1 << 21) -> np.ndarray:
    """Each token's topic by inversion of its document's cumulative theta row (the count of
    entries below its uniform), a slice of tokens at a time: the tokens x K temporaries stay
    under ``elements`` entries (16 MB) instead of growing with the chunk (2 GB for 100,000
    documents of 50 tokens at K = 50, whose allocation and release slowed other processes)."""
    topics = np.empty(doc_of_token.size, dtype=np.int64)
    step = max(1, elements // cum_theta.shape[1])
    for start in range(0, doc_of_token.size, step):
        stop = start + step
        topics[start:stop] = (cum_theta[doc_of_token[start:stop]]
                              < u[start:stop, None]).sum(axis=1)
    return topics


def generate_synthetic(n_topics: int = 10, n_words: int = 1000, n_documents: int = 1000,
                       mean_length: float = 60.0, alpha=0.1, topic_concentration: float = 0.1,
                       beta: np.ndarray | None = None, seed=None) -> tuple[Corpus, SyntheticTruth]:
    """A synthetic LDA corpus in memory and the truth that generated it.

    ``alpha`` is a scalar (symmetric prior) or K numbers; ``beta`` overrides the random topics.
    One seed drives everything: the topics, then the documents.
    """
    rng = np.random.default_rng(seed)
    if beta is None:
        beta = make_topics(n_topics, n_words, topic_concentration, seed=rng)
    beta = np.asarray(beta, dtype=np.float64)
    alpha = np.broadcast_to(np.asarray(alpha, dtype=np.float64), (beta.shape[0],)).copy()
    tokens, thetas = [], []
    for chunk_tokens, chunk_theta in iter_synthetic_documents(beta, alpha, n_documents,
                                                              mean_length, seed=rng):
        tokens.extend(chunk_tokens)
        thetas.append(chunk_theta)
    vocabulary = [f"w{i}" for i in range(beta.shape[1])]
    corpus = Corpus.from_token_lists(tokens, vocabulary)
    theta = np.concatenate(thetas) if thetas else np.zeros((0, beta.shape[0]))
    return corpus, SyntheticTruth(beta=beta, alpha=alpha, theta=theta)


@dataclass
class LabeledTruth:
    """What generated a synthetic labelled corpus: one topic per label, beta (K x V), the label
    sets (one ascending topic-id array per document), theta (D x K, zero off each label set)
    and the label frequencies the sets were drawn with (K, sums to 1)."""

    beta: np.ndarray
    labels: list[np.ndarray]
    theta: np.ndarray
    label_probabilities: np.ndarray


def generate_labeled_synthetic(n_labels: int = 20, n_words: int = 1000, n_documents: int = 1000,
                               mean_length: float = 80.0, alpha: float = 1.0,
                               topic_concentration: float = 0.05, max_labels: int = 4,
                               seed=None) -> tuple[Corpus, LabeledTruth]:
    """A Labeled LDA corpus (Ramage et al. 2009) with known truth: one topic beta_k ~
    Dirichlet(topic_concentration) per label, label probabilities Zipf(1) (p_k proportional to
    1 / (k + 1)), per document 1 + Poisson(1) labels (at most ``max_labels``) drawn without
    replacement with those probabilities, theta_d ~ Dirichlet(alpha) over its labels, a length
    ~ Poisson(mean_length) (redrawn if 0), then LDA's tokens."""
    rng = np.random.default_rng(seed)
    beta = make_topics(n_labels, n_words, topic_concentration, seed=rng)
    frequency = 1.0 / np.arange(1, n_labels + 1)
    frequency /= frequency.sum()
    cum_beta = np.cumsum(beta, axis=1)
    cum_beta[:, -1] = 1.0
    labels, tokens = [], []
    theta = np.zeros((n_documents, n_labels))
    for d in range(n_documents):
        size = min(1 + rng.poisson(1.0), max_labels, n_labels)
        own = np.sort(rng.choice(n_labels, size=size, replace=False, p=frequency))
        theta[d, own] = rng.dirichlet(np.full(size, alpha))
        length = 0
        while length == 0:
            length = rng.poisson(mean_length)
        topics = rng.choice(n_labels, size=length, p=theta[d])
        words = np.minimum((cum_beta[topics] < rng.random(length)[:, None]).sum(axis=1),
                           n_words - 1)
        labels.append(own)
        tokens.append(words)
    corpus = Corpus.from_token_lists(tokens, [f"w{i}" for i in range(n_words)])
    return corpus, LabeledTruth(beta=beta, labels=labels, theta=theta,
                                label_probabilities=frequency)


@dataclass
class DriftingTruth:
    """What generated a drifting corpus: per period t the topics ``topic_word[t]`` (P x K x V)
    and the Dirichlet ``alpha[t]`` (P x K) whose mean ``prevalence[t]`` (P x K) is the share of
    each topic expected in period t; ``period`` (D) and ``theta`` (D x K) per document."""

    topic_word: np.ndarray
    alpha: np.ndarray
    prevalence: np.ndarray
    period: np.ndarray
    theta: np.ndarray


def generate_drifting(n_topics: int = 5, n_words: int = 500, n_periods: int = 5,
                      documents_per_period: int = 500, drift: float = 0.6,
                      mean_length: float = 60.0, alpha_total: float = 0.5,
                      topic_concentration: float = 0.05, first_year: int = 2000,
                      seed=None) -> tuple[Corpus, DriftingTruth]:
    """A dated LDA corpus whose topics and prevalences move over ``n_periods`` yearly periods,
    with the truth (planted data for topics through time, `streamtopics.timeline`).

    Each topic k has a start and an end distribution (both Dirichlet(topic_concentration)
    draws); in period t = 0 .. P-1 it is beta_tk = (1 - s_t) start_k + s_t end_k with
    s_t = ``drift`` t / (P - 1), so ``drift`` in [0, 1] is how far the last period has moved
    (0: static topics). The prevalence moves likewise from a start to an end point of the
    simplex (Dirichlet(2) draws): prevalence_t = (1 - t / (P - 1)) p_start + t / (P - 1) p_end,
    and theta_d ~ Dirichlet(``alpha_total`` prevalence_t). Period t's documents are dated in
    the year ``first_year`` + t (days drawn uniformly, in time order), in the metadata's
    ``time`` column (`corpus.time`).
    """
    if not 0 <= drift <= 1 or n_periods < 1 or documents_per_period < 1:
        raise ValueError("need drift in [0, 1], n_periods >= 1 and documents_per_period >= 1")
    rng = np.random.default_rng(seed)
    start, end = (make_topics(n_topics, n_words, topic_concentration, seed=rng) for _ in range(2))
    p_start, p_end = rng.dirichlet(np.full(n_topics, 2.0), size=2)
    position = np.arange(n_periods) / max(n_periods - 1, 1)
    topic_word = ((1 - drift * position)[:, None, None] * start[None]
                  + (drift * position)[:, None, None] * end[None])
    prevalence = (1 - position)[:, None] * p_start[None] + position[:, None] * p_end[None]
    alpha = alpha_total * prevalence
    tokens, thetas, metadata = [], [], []
    for t in range(n_periods):
        for chunk, theta in iter_synthetic_documents(topic_word[t], alpha[t],
                                                     documents_per_period, mean_length, seed=rng):
            tokens.extend(chunk)
            thetas.append(theta)
        year = np.datetime64(f"{first_year + t:04d}-01-01")
        days = np.sort(rng.integers(0, 365, size=documents_per_period))
        metadata.extend({"time": str(year + day)} for day in days)
    corpus = Corpus.from_token_lists(tokens, [f"w{i}" for i in range(n_words)], metadata=metadata)
    return corpus, DriftingTruth(topic_word=topic_word, alpha=alpha, prevalence=prevalence,
                                 period=np.repeat(np.arange(n_periods), documents_per_period),
                                 theta=np.concatenate(thetas))
