"""Topic coherence of top words on a reference corpus, and top-words tables.

Both scores use document co-occurrence in the reference corpus: D(v) is the number of documents
containing word v, D(v, u) the number containing both, D the number of documents. A topic's top
words v_1, ..., v_M are its M most probable words, most probable first (ties: lower word id).

- UMass (Mimno, Wallach, Talley, Leenders & McCallum 2011, eq. 1):
  C(t) = sum_{m=2..M} sum_{l<m} log((D(v_m, v_l) + 1) / D(v_l)); higher is better, <= about 0.
  Pairs whose conditioning word v_l never occurs in the reference corpus are undefined and left
  out (with the training corpus as reference, as Mimno et al. intend, none are).
- NPMI (Bouma 2009; Lau, Newman & Baldwin 2014): the mean over pairs of
  log(P(u, v) / (P(u) P(v))) / -log P(u, v) with P estimated as document frequencies / D; in
  [-1, 1], higher is better; pairs that never co-occur score -1, pairs in every document 1.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..corpus.corpus import Corpus
from ..errors import InputError


def top_word_ids(beta, n: int = 10) -> np.ndarray:
    """(K, n) ids of each topic's n most probable words, most probable first (ties: lower id)."""
    beta = np.asarray(beta, dtype=np.float64)
    if beta.ndim != 2:
        raise InputError(f"beta must be a K x V matrix, got shape {beta.shape}")
    if not 1 <= n <= beta.shape[1]:
        raise InputError(f"the number of top words must be in [1, {beta.shape[1]}], got {n}")
    return np.argsort(-beta, axis=1, kind="stable")[:, :n]


def _document_frequencies(beta, reference, n_top: int):
    """Top words, and the document (co-)frequencies of the words involved, from ``reference``."""
    counts = reference.counts if isinstance(reference, Corpus) else sp.csr_matrix(reference)
    if counts.shape[1] != np.shape(beta)[1]:
        raise InputError(f"the reference corpus has {counts.shape[1]} words but the topics cover "
                         f"{np.shape(beta)[1]}: they must share one vocabulary")
    if counts.shape[0] == 0:
        raise InputError("the reference corpus has no documents")
    top = top_word_ids(beta, n_top)
    words, local = np.unique(top, return_inverse=True)
    local = local.reshape(top.shape)
    present = (counts[:, words] > 0).astype(np.float64)
    co_documents = np.asarray((present.T @ present).todense())
    return local, co_documents, counts.shape[0]


def umass_coherence(beta, reference, n_top: int = 10) -> np.ndarray:
    """UMass coherence (Mimno et al. 2011) of each topic's ``n_top`` words; shape (K,)."""
    local, co_documents, _ = _document_frequencies(beta, reference, n_top)
    frequencies = np.diag(co_documents)
    scores = np.zeros(local.shape[0])
    for topic, ids in enumerate(local):
        for m in range(1, ids.size):
            for l in range(m):
                if frequencies[ids[l]] > 0:
                    scores[topic] += np.log((co_documents[ids[m], ids[l]] + 1.0)
                                            / frequencies[ids[l]])
    return scores


def npmi_coherence(beta, reference, n_top: int = 10) -> np.ndarray:
    """Mean normalised PMI over the pairs of each topic's ``n_top`` words; shape (K,)."""
    local, co_documents, n_documents = _document_frequencies(beta, reference, n_top)
    probabilities = co_documents / n_documents
    marginals = np.diag(probabilities)
    scores = np.zeros(local.shape[0])
    n_pairs = n_top * (n_top - 1) // 2
    if n_pairs == 0:
        return scores
    for topic, ids in enumerate(local):
        total = 0.0
        for m in range(1, ids.size):
            for l in range(m):
                joint = probabilities[ids[m], ids[l]]
                if joint == 0.0:
                    total -= 1.0
                elif joint == 1.0:
                    total += 1.0
                else:
                    total += (np.log(joint / (marginals[ids[m]] * marginals[ids[l]]))
                              / -np.log(joint))
        scores[topic] = total / n_pairs
    return scores


def top_words_table(beta, vocabulary, n: int = 10, scores=None, score_name: str = "score") -> str:
    """A plain-text table: one line per topic with its ``n`` most probable words.

    ``scores`` (one number per topic, e.g. a coherence) adds a column named ``score_name``.
    """
    vocabulary = np.asarray(vocabulary, dtype=str)
    if vocabulary.shape != (np.shape(beta)[1],):
        raise InputError(f"the vocabulary has {vocabulary.size} words but the topics cover "
                         f"{np.shape(beta)[1]}")
    top = top_word_ids(beta, n)
    width = len(str(top.shape[0] - 1))
    header = f"{'topic':>{max(width, 5)}}"
    if scores is not None:
        scores = np.asarray(scores, dtype=np.float64)
        header += f"  {score_name:>9}"
    lines = [header + "  top words"]
    for k, ids in enumerate(top):
        line = f"{k:>{max(width, 5)}}"
        if scores is not None:
            line += f"  {scores[k]:>9.4f}"
        lines.append(line + "  " + " ".join(vocabulary[ids]))
    return "\n".join(lines)
