"""Synthetic corpora (Dupuy & Bach 2016, section 5): the draws follow the stated model, and the
streamed writer produces exactly what the in-memory generator does."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from streamtopics.corpus import generate_synthetic, read_corpus_dir, write_synthetic_corpus
from streamtopics.persistence import load_topic_parameters


def planted_topics(n_topics: int = 4, words_per_topic: int = 25, seed: int = 0) -> np.ndarray:
    """Topics on disjoint blocks of words: a token's block reveals its topic."""
    rng = np.random.default_rng(seed)
    beta = np.zeros((n_topics, n_topics * words_per_topic))
    for k in range(n_topics):
        beta[k, k * words_per_topic:(k + 1) * words_per_topic] = rng.dirichlet(np.ones(words_per_topic))
    return beta


def test_tokens_follow_theta_and_beta():
    """With disjoint topics, token shares per block estimate theta_d (binomial error), and the
    words inside a block follow beta_k (chi-square goodness of fit)."""
    beta = planted_topics()
    corpus, truth = generate_synthetic(n_documents=300, mean_length=300, alpha=[1.0, 1.0, 2.0, 0.5],
                                       beta=beta, seed=11)
    block = corpus.counts.toarray().reshape(300, 4, 25)
    per_topic = block.sum(axis=2)
    lengths = per_topic.sum(axis=1, keepdims=True)
    share = per_topic / lengths
    variance = truth.theta * (1 - truth.theta) / lengths
    standardized = (share - truth.theta) ** 2 / np.maximum(variance, 1e-12)
    assert 0.8 < standardized[variance > 1e-6].mean() < 1.2
    pooled = block.sum(axis=0)
    for k in range(4):
        p_value = stats.chisquare(pooled[k], pooled[k].sum() * beta[k, k * 25:(k + 1) * 25]).pvalue
        assert p_value > 1e-4
    assert np.allclose(truth.theta.sum(axis=1), 1.0)
    # E[theta] = alpha / sum(alpha): [0.22, 0.22, 0.44, 0.11]; standard error about 0.013.
    np.testing.assert_allclose(truth.theta.mean(axis=0), np.array([1, 1, 2, 0.5]) / 4.5, atol=0.06)


def test_lengths_are_poisson_and_never_empty():
    corpus, _ = generate_synthetic(3, 40, 4000, mean_length=60, seed=2)
    lengths = corpus.document_lengths
    assert abs(lengths.mean() - 60) < 4 * np.sqrt(60 / 4000)
    assert abs(lengths.var() / 60 - 1) < 0.15   # Poisson: variance = mean
    short, _ = generate_synthetic(3, 40, 2000, mean_length=0.5, seed=3)
    assert short.document_lengths.min() >= 1
    # Zero-truncated Poisson(0.5) has mean 0.5 / (1 - e^-0.5) = 1.27.
    assert abs(short.document_lengths.mean() - 0.5 / (1 - np.exp(-0.5))) < 0.05


def test_same_seed_same_corpus_and_topics_are_distributions():
    a, truth_a = generate_synthetic(5, 30, 50, seed=9)
    b, truth_b = generate_synthetic(5, 30, 50, seed=9)
    assert (a.counts != b.counts).nnz == 0 and np.array_equal(truth_a.beta, truth_b.beta)
    assert np.allclose(truth_a.beta.sum(axis=1), 1.0) and truth_a.beta.min() > 0
    c, _ = generate_synthetic(5, 30, 50, seed=10)
    assert (a.counts != c.counts).nnz > 0


@pytest.mark.parametrize("n_documents, n_test, chunk_size", [(250, 0, 100), (250, 70, 100), (200, 30, 100)])
def test_streamed_writer_equals_generator(tmp_path, n_documents, n_test, chunk_size):
    summary = write_synthetic_corpus(tmp_path, n_topics=3, n_words=40, n_documents=n_documents,
                                     n_test=n_test, mean_length=12, alpha=0.3, seed=5,
                                     chunk_size=chunk_size)
    train = read_corpus_dir(tmp_path)
    assert train.n_documents == n_documents
    assert summary["n_tokens"]["train"] == train.n_tokens
    beta, alpha, vocabulary = load_topic_parameters(tmp_path / "truth.npz")
    with np.load(tmp_path / "truth.npz") as archive:
        assert archive["theta"].shape == (n_documents, 3)
        theta = np.concatenate([archive["theta"]] + ([archive["theta_test"]] if n_test else []))
    assert np.allclose(theta.sum(axis=1), 1.0)
    np.testing.assert_array_equal(alpha, [0.3] * 3)
    assert vocabulary.tolist() == [f"w{i}" for i in range(40)]
    if n_test:
        test = read_corpus_dir(tmp_path, "test")
        assert test.n_documents == n_test and summary["n_tokens"]["test"] == test.n_tokens
    assert np.allclose(beta.sum(axis=1), 1.0) and beta.shape == (3, 40)


def test_streamed_writer_equals_generator_across_chunks(tmp_path):
    """Same seed and chunking as `generate_synthetic` (10,000 documents a chunk); the second
    chunk straddles the train/test boundary."""
    write_synthetic_corpus(tmp_path, n_topics=2, n_words=20, n_documents=10_050, n_test=30,
                           mean_length=3, seed=8)
    reference, truth = generate_synthetic(2, 20, 10_080, mean_length=3, seed=8)
    train, test = read_corpus_dir(tmp_path), read_corpus_dir(tmp_path, "test")
    assert [t.tolist() for t in train.tokens + test.tokens] == [t.tolist() for t in reference.tokens]
    with np.load(tmp_path / "truth.npz") as archive:
        np.testing.assert_array_equal(archive["theta_test"], truth.theta[10_050:])


def test_topics_drawn_in_slices_equal_one_draw_and_follow_theta():
    """`_draw_topics` inverts each token's cumulative theta row a slice at a time (bounded
    memory): any slice size gives the one-shot inversion, and the topics' frequencies match
    theta (chi-square)."""
    from streamtopics.corpus.synthetic import _draw_topics

    rng = np.random.default_rng(3)
    theta = rng.dirichlet(np.full(6, 0.5), size=40)
    cum_theta = np.cumsum(theta, axis=1)
    cum_theta[:, -1] = 1.0
    doc_of_token = np.repeat(np.arange(40), 500)
    u = rng.random(doc_of_token.size)
    one_shot = (cum_theta[doc_of_token] < u[:, None]).sum(axis=1)
    for elements in (1, 6, 61, 1 << 21):
        np.testing.assert_array_equal(_draw_topics(cum_theta, doc_of_token, u, elements),
                                      one_shot)
    observed = np.bincount(doc_of_token * 6 + one_shot, minlength=240).reshape(40, 6)
    expected = theta * 500
    keep = expected > 5
    statistic = ((observed - expected)[keep] ** 2 / expected[keep]).sum()
    assert stats.chi2.sf(statistic, keep.sum() - 40) > 1e-3
