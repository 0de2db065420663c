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
- c_v (Röder, Both & Hinneburg 2015, section 3; gensim's ``CoherenceModel(coherence="c_v")``):
  probabilities are boolean sliding windows of 110 tokens over each reference document's token
  sequence (every window start s = 0..N_d - 110 is one virtual document; a document of at most
  110 tokens is one window; P(v) is the share of windows containing v, P(u, v) of those
  containing both). The confirmation is their epsilon-smoothed NPMI,
  m(u, v) = log((P(u, v) + e) / (P(u) P(v))) / -log(P(u, v) + e), e = 1e-12 (their eq. for
  m_nlr, as in Palmetto and gensim). Each top word v_i has the context vector
  (m(v_i, v_j))_j over the topic's top words, the topic W the sum of those vectors
  (segmentation S_one^set, gamma = 1); c_v is the mean over i of cos(v(v_i), v(W)). A word absent
  from the reference has no probability, so its pairs confirm nothing (m = 0; the cosine of a
  zero vector is 0). A reference without token order (a bag of words) has no windows: each
  document is then one window, which is the same for documents of at most 110 tokens.
- Topic diversity (Dieng, Ruiz & Blei 2020, section 6): the share of unique words among the
  top 25 words of all topics, in [1/K, 1]; per topic, the share of its top words that no other
  topic has among its own.

gensim's c_v differs from this exact count in one place: its window accumulator
(``WordOccurrenceAccumulator._slide_window``) marks the word that leaves a sliding window as
absent even when it still occurs inside the window, so a word repeated within 110 tokens is
under-counted. On documents of at most 110 tokens, or without such repeats, the two agree to
rounding (`tests/test_evaluation_coherence.py`).
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


def _reference_counts(beta, reference) -> sp.csr_matrix:
    """The reference corpus' counts, checked against the topics' vocabulary."""
    counts = reference.counts if isinstance(reference, Corpus) else sp.csr_matrix(reference)
    if counts.shape[1] != np.shape(beta)[1]:
        raise InputError(f"the reference corpus has {counts.shape[1]} words but the topics cover "
                         f"{np.shape(beta)[1]}: they must share one vocabulary")
    if counts.shape[0] == 0:
        raise InputError("the reference corpus has no documents")
    return counts


def _document_frequencies(beta, reference, n_top: int):
    """Top words, and the document (co-)frequencies of the words involved, from ``reference``."""
    counts = _reference_counts(beta, reference)
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


C_V_WINDOW = 110
C_V_EPSILON = 1e-12


def _window_intervals(tokens, offsets, relevant, window: int | None):
    """Per relevant token, the global window indices [start, end) whose windows contain it, the
    word's local index, and the number of windows (see the module docstring for the windows)."""
    lengths = np.diff(offsets)
    n_windows = (np.ones_like(lengths) if window is None
                 else np.maximum(1, lengths - window + 1))
    window_offsets = np.concatenate([[0], np.cumsum(n_windows)])
    local = relevant[tokens]
    at = np.flatnonzero(local >= 0)
    document = np.searchsorted(offsets, at, side="right") - 1
    position = at - offsets[document]
    if window is None:
        start = np.zeros_like(position)
        end = np.ones_like(position)
    else:
        start = np.maximum(0, position - window + 1)
        end = np.minimum(position, n_windows[document] - 1) + 1
    return (start + window_offsets[document], end + window_offsets[document], local[at],
            int(window_offsets[-1]))


def _merged(start, end, word):
    """The union of each word's intervals as disjoint intervals: within a word, sorted by start,
    ends never decrease (a later token's windows start and end no earlier), so an interval
    joins its predecessor when it starts before that one ends."""
    order = np.lexsort((start, word))
    start, end, word = start[order], end[order], word[order]
    opens = np.ones(start.size, dtype=bool)
    opens[1:] = (word[1:] != word[:-1]) | (start[1:] > end[:-1])
    first = np.flatnonzero(opens)
    last = np.append(first[1:], start.size)[:first.size] - 1
    return start[first], end[last], word[first]


def _window_cooccurrences(reference, counts, words, window: int | None):
    """(W x W matrix of the number of windows containing both words, diagonal: containing the
    word; the number of windows) for ``words`` (ids) over ``reference``'s token sequences.

    Exact boolean sliding windows: the windows a word is in form intervals of window indices;
    cut at every interval end, the windows fall into segments in which the same words are
    present, and co-occurrences are a sum over segments of their length."""
    relevant = np.full(counts.shape[1], -1, dtype=np.int64)
    relevant[words] = np.arange(len(words))
    if isinstance(reference, Corpus) and reference.tokens is not None:
        tokens, offsets = reference.document_tokens()
    else:
        tokens, offsets = Corpus(counts).document_tokens()
        window = None
    start, end, word, n_windows = _window_intervals(tokens, offsets, relevant, window)
    start, end, word = _merged(start, end, word)
    cuts = np.unique(np.concatenate([start, end]))
    first, stop = np.searchsorted(cuts, start), np.searchsorted(cuts, end)
    spans = stop - first
    segment = (np.arange(spans.sum()) - np.repeat(np.cumsum(spans) - spans, spans)
               + np.repeat(first, spans))
    present = sp.csr_matrix((np.ones(segment.size), (segment, np.repeat(word, spans))),
                            shape=(max(cuts.size - 1, 0), len(words)))
    weighted = present.T.multiply(np.diff(cuts))
    return np.asarray((weighted @ present).todense()), n_windows


def cv_coherence(beta, reference, n_top: int = 10, window: int = C_V_WINDOW) -> np.ndarray:
    """c_v coherence (Röder et al. 2015) of each topic's ``n_top`` words on ``reference``'s
    boolean sliding windows of ``window`` tokens; shape (K,), in [-1, 1], higher is better."""
    counts = _reference_counts(beta, reference)
    if window < 1:
        raise InputError(f"the sliding window must hold at least one token, got {window}")
    top = top_word_ids(beta, n_top)
    words, local = np.unique(top, return_inverse=True)
    co_windows, n_windows = _window_cooccurrences(reference, counts, words, window)
    joint = co_windows / n_windows
    marginal = np.diag(joint)
    with np.errstate(divide="ignore", invalid="ignore"):
        confirmation = (np.log((joint + C_V_EPSILON) / np.outer(marginal, marginal))
                        / -np.log(joint + C_V_EPSILON))
    absent = marginal == 0
    confirmation[absent, :] = 0.0
    confirmation[:, absent] = 0.0
    scores = np.zeros(top.shape[0])
    for topic, ids in enumerate(local.reshape(top.shape)):
        vectors = confirmation[np.ix_(ids, ids)]
        whole = vectors.sum(axis=0)
        norms = np.linalg.norm(vectors, axis=1) * np.linalg.norm(whole)
        with np.errstate(divide="ignore", invalid="ignore"):
            cosines = np.where(norms > 0, vectors @ whole / norms, 0.0)
        scores[topic] = cosines.mean()
    return scores


def topic_diversity(beta, n_top: int = 25) -> tuple[float, np.ndarray]:
    """(share of unique words among all topics' ``n_top`` top words (Dieng et al. 2020), each
    topic's share of its top words found in no other topic's top words (shape (K,)))."""
    top = top_word_ids(beta, min(n_top, np.shape(beta)[1]))
    unique, in_topics = np.unique(top, return_counts=True)
    exclusive = np.isin(top, unique[in_topics == 1])
    return unique.size / top.size, exclusive.mean(axis=1)


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
