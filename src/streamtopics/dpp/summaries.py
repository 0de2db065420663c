"""Extractive summaries: the DPP's greedy MAP, baselines, and two proxy measures.

The thesis evaluates its summaries qualitatively only (Table 9). As proxies (spec 6.5(b), not in
the thesis) we report, for any choice of sentences, the mean pairwise Jaccard similarity of their
word sets (lower = more diverse) and the fraction of the document's kept words they cover.
Baselines: the first l sentences (lead), l random sentences, and the l sentences closest (cosine)
to the document's mean word vector.
"""

from __future__ import annotations

import itertools

import numpy as np

from .text import SentenceDocument


def lead(document: SentenceDocument, n: int, rng=None) -> np.ndarray:
    return np.arange(min(n, len(document.rows)))


def random_choice(document: SentenceDocument, n: int, rng: np.random.Generator) -> np.ndarray:
    return np.sort(rng.choice(len(document.rows), size=min(n, len(document.rows)), replace=False))


def closest_to_mean(document: SentenceDocument, n: int, rng=None) -> np.ndarray:
    """The rows with the largest cosine to the document's mean 0/1 word vector."""
    words = np.unique(np.concatenate(document.rows))
    index = {w: i for i, w in enumerate(words)}
    S = np.zeros((len(document.rows), words.size))
    for r, row in enumerate(document.rows):
        S[r, [index[w] for w in row]] = 1.0
    mean = S.mean(axis=0)
    cosine = S @ mean / (np.linalg.norm(S, axis=1) * np.linalg.norm(mean))
    return np.sort(np.argsort(-cosine, kind="stable")[:n])


BASELINES = {"lead": lead, "random": random_choice, "closest-to-mean": closest_to_mean}


def mean_jaccard(document: SentenceDocument, chosen) -> float:
    """Mean pairwise Jaccard similarity of the chosen rows' word sets (0 when fewer than 2)."""
    sets = [set(document.rows[i].tolist()) for i in chosen]
    pairs = [len(a & b) / len(a | b) for a, b in itertools.combinations(sets, 2)]
    return float(np.mean(pairs)) if pairs else 0.0


def coverage(document: SentenceDocument, chosen) -> float:
    """Fraction of the document's kept words that the chosen rows contain."""
    covered = set().union(*(document.rows[i].tolist() for i in chosen)) if len(chosen) else set()
    return len(covered) / np.unique(np.concatenate(document.rows)).size


def marked_text(document: SentenceDocument, chosen, left: str = "[[", right: str = "]]") -> str:
    """The document's sentences with the chosen ones between markers."""
    picked = set(document.kept[np.asarray(chosen, dtype=np.int64)].tolist())
    return " ".join(f"{left}{s}{right}" if i in picked else s for i, s in enumerate(document.sentences))
