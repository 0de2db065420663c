"""Checking and converting what the evaluators share: topics, alpha, held-out documents."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .. import memory
from ..corpus.corpus import Corpus
from ..errors import InputError
from ..threads import resolve_n_jobs
from ..validation import check_count


def topic_parameters(beta, alpha) -> tuple[np.ndarray, np.ndarray]:
    """beta as a float64 K x V matrix whose rows are distributions, alpha as K positive numbers.

    A scalar alpha is the symmetric prior alpha_k = alpha.
    """
    beta = np.asarray(beta, dtype=np.float64)
    if beta.ndim != 2 or 0 in beta.shape:
        raise InputError(f"beta must be a non-empty K x V matrix, got shape {beta.shape}")
    if not np.all(np.isfinite(beta)) or beta.min() < 0:
        raise InputError("beta must be finite and non-negative")
    row_sums = beta.sum(axis=1)
    if not np.allclose(row_sums, 1.0, rtol=0, atol=1e-6):
        worst = int(np.argmax(np.abs(row_sums - 1.0)))
        raise InputError(f"each topic (row of beta) must sum to 1; row {worst} sums to "
                         f"{row_sums[worst]:.6g} (normalise topic-word counts first)")
    return beta, positive_vector(alpha, beta.shape[0], "alpha")


def positive_vector(values, size: int, name: str) -> np.ndarray:
    array = np.asarray(values, dtype=np.float64)
    if array.ndim == 0:
        array = np.full(size, float(array))
    if array.shape != (size,):
        raise InputError(f"{name} must be a scalar or {size} numbers, got shape {array.shape}")
    if not np.all(np.isfinite(array)) or array.min() <= 0:
        raise InputError(f"{name} must be finite and positive")
    return array


def document_tokens(documents, n_words: int) -> tuple[np.ndarray, np.ndarray]:
    """(flat int64 word ids, D+1 offsets) from a `Corpus` or such a pair, checked against V.

    A `Corpus` gives its reading order when it has token sequences, else its documented fixed
    bag-of-words order (word ids ascending, each repeated by its count).
    """
    if isinstance(documents, Corpus):
        check_vocabulary_size(documents.n_words, n_words)
        return documents.document_tokens()
    try:
        word_ids, offsets = documents
    except (TypeError, ValueError):
        raise InputError("documents must be a Corpus or a (word ids, offsets) pair") from None
    word_ids = np.ascontiguousarray(word_ids, dtype=np.int64).ravel()
    offsets = np.ascontiguousarray(offsets, dtype=np.int64).ravel()
    if (offsets.size < 1 or offsets[0] != 0 or offsets[-1] != word_ids.size
            or np.any(np.diff(offsets) < 0)):
        raise InputError("offsets must start at 0, never decrease and end at the number of "
                         "word ids")
    if word_ids.size and (word_ids.min() < 0 or word_ids.max() >= n_words):
        raise InputError(f"word ids must lie in [0, {n_words}) to match the {n_words} words of "
                         "the topics")
    return word_ids, offsets


def token_order(documents) -> str:
    """How the documents' tokens are ordered, for the record of a result."""
    if not isinstance(documents, Corpus):
        return "as given"
    return "reading order" if documents.tokens is not None else "bag of words (word ids ascending)"


def document_counts(documents, n_words: int) -> sp.csr_matrix:
    """Documents as a D x V CSR matrix of int64 counts (the ELBO needs only the counts)."""
    if isinstance(documents, Corpus):
        check_vocabulary_size(documents.n_words, n_words)
        return documents.counts
    word_ids, offsets = document_tokens(documents, n_words)
    counts = sp.csr_matrix((np.ones(word_ids.size, dtype=np.int64), word_ids, offsets),
                           shape=(offsets.size - 1, n_words))
    counts.sum_duplicates()
    return counts


def check_vocabulary_size(corpus_words: int, model_words: int) -> None:
    if corpus_words != model_words:
        raise InputError(f"the documents have a vocabulary of {corpus_words} words but the topics "
                         f"cover {model_words}: the model and the corpus must share one vocabulary")


def truncate_documents(word_ids: np.ndarray, offsets: np.ndarray,
                       max_tokens: int | None) -> tuple[np.ndarray, np.ndarray]:
    """Keep the first ``max_tokens`` tokens of every document (all of them when None)."""
    if max_tokens is None:
        return word_ids, offsets
    lengths = np.minimum(np.diff(offsets), check_count(max_tokens, "max_tokens", 1))
    if np.array_equal(lengths, np.diff(offsets)):
        return word_ids, offsets
    keep = np.concatenate([np.arange(offsets[d], offsets[d] + lengths[d])
                           for d in range(lengths.size)]) if lengths.size else np.zeros(0, np.int64)
    new_offsets = np.zeros_like(offsets)
    new_offsets[1:] = np.cumsum(lengths)
    return word_ids[keep], new_offsets


def check_evaluation_memory(method: str, beta: np.ndarray, offsets: np.ndarray,
                            n_particles: int, n_jobs: int | None) -> None:
    """Refuse, or warn of, an evaluation of the documents of ``offsets`` under the topics
    ``beta`` that would not fit in memory (`memory.held_out_evaluation`: the word-major copy
    of beta when it is not one already, and the particles of each of the threads ``n_jobs``
    means)."""
    n_topics, n_words = beta.shape
    threads = resolve_n_jobs(n_jobs)
    longest = int(np.diff(offsets).max(initial=0))
    estimate = memory.held_out_evaluation(
        n_topics, n_words, longest, n_particles, threads,
        f"{method} of {offsets.size - 1:,} documents under {n_topics:,} topics",
        copies_topics=not beta.T.flags.c_contiguous)
    memory.check_memory(estimate)


PROGRESS_CHUNK = 64  # documents per kernel call when progress is reported


def run_by_document_chunks(run, word_ids: np.ndarray, offsets: np.ndarray,
                           progress=None) -> np.ndarray:
    """Call ``run(chunk_word_ids, chunk_offsets, first_document)`` over the documents.

    In one call when ``progress`` is None, else in chunks of `PROGRESS_CHUNK` documents, calling
    ``progress(n_documents_done_in_chunk)`` after each (e.g. a tqdm bar's ``update``). Kernels
    seed document d's stream from its global index ``first_document + d``, so chunking does not
    change the results.
    """
    n_documents = offsets.size - 1
    step = n_documents if progress is None else PROGRESS_CHUNK
    results = [np.zeros(0)]
    for start in range(0, n_documents, max(step, 1)):
        stop = min(n_documents, start + step)
        chunk_offsets = offsets[start:stop + 1] - offsets[start]
        results.append(run(word_ids[offsets[start]:offsets[stop]], chunk_offsets, start))
        if progress is not None:
            progress(stop - start)
    return np.concatenate(results)
