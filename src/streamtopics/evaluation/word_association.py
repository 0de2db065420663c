"""Word association from topics, phi^p against phi (Papanikolaou et al. 2017, section 5.4,
equation 57 and footnote 5; the setup of Griffiths et al. 2007).

For a cue w1, assuming w1 and w2 share a topic z, equation 57:

    p(w2 | w1) = sum_z p(w2 | z) p(z | w1) = sum_z phi_z,w2 phi_z,w1 p(z) / sum_z' phi_z',w1 p(z'),

with p(z) uniform, or p(z) proportional to alpha_z under an asymmetric alpha (footnote 5). In
matrix form, for all cues at once: Q = phi[:, cues] scaled by p(z) and normalised per column,
then Q^T phi (cues x V).

The evaluation of section 5.4: each cue's first five associates are ranked among all words by
p(w2 | w1) (rank 1 = the most associated; the cue itself is not ranked), once under phi and once
under phi^p; the statistic is the median over (cue, associate) pairs of rank_phi - rank_phi^p
(positive: phi^p ranks the associates higher), by cue-frequency category (10 in the paper, whose
edges it does not give: ``spacing="linear"`` equal-width bins of the cue's corpus count, which
the paper's 3,814 of 4,506 cues in the first bin suggests, or ``"log"``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.stats import wilcoxon

from ..inference.cgs import GIBBS_ESTIMATES

PRIORS = ("uniform", "alpha")
SPACINGS = ("linear", "log")
N_ASSOCIATES = 5


def association_matrix(phi: np.ndarray, cue_ids, topic_prior=None) -> np.ndarray:
    """p(w2 | w1) of equation 57 (cues x V; each row sums to 1) from the topics ``phi`` (K x V,
    rows sum to 1) for the cue word ids ``cue_ids``; ``topic_prior``: p(z) up to a constant
    (footnote 5: alpha), None for uniform."""
    phi = np.asarray(phi, dtype=np.float64)
    weights = phi[:, np.asarray(cue_ids, dtype=np.int64)]
    if topic_prior is not None:
        weights = weights * np.asarray(topic_prior, dtype=np.float64)[:, None]
    weights = weights / weights.sum(axis=0, keepdims=True)  # p(z | w1)
    return weights.T @ phi


def _topic_word(model, estimator: str | None) -> np.ndarray:
    """The model's phi^p (``"p"``), phi (``"standard"``) or ``components_`` whatever they are
    (None: any model). Models with both (GibbsLDA, LabeledLDA fitted with estimator="p") keep
    phi in ``topic_word_standard_`` and phi^p in ``components_``; a Gibbs model with one
    estimate answers only for the one it has."""
    if estimator is None:
        return model.components_
    if estimator not in GIBBS_ESTIMATES:
        raise ValueError(f"estimator must be one of {GIBBS_ESTIMATES}, got {estimator!r}")
    kept = getattr(model, "estimator", None)
    if estimator == "standard" and getattr(model, "topic_word_standard_", None) is not None:
        return model.topic_word_standard_
    if kept == estimator:
        return model.components_
    raise ValueError(f"{type(model).__name__} keeps no {estimator!r} topic-word estimate "
                     f"(phi^p needs a Gibbs model fitted with estimator='p')")


def word_association(model, cues, estimator: str | None = "p",
                     prior: str = "uniform") -> np.ndarray:
    """p(w2 | w1) (cues x V, equation 57) of a fitted Gibbs model (`GibbsLDA`, `LabeledLDA`)
    under phi^p (``estimator="p"``) or phi (``"standard"``), or of any fitted model's
    ``components_`` (``estimator=None``); ``cues``: words of the model's vocabulary or word
    ids; ``prior``: p(z) ``"uniform"`` or ``"alpha"`` (footnote 5, the model's alpha)."""
    if prior not in PRIORS:
        raise ValueError(f"prior must be one of {PRIORS}, got {prior!r}")
    phi = _topic_word(model, estimator)
    cue_ids = word_ids(model.vocabulary_, cues)
    return association_matrix(phi, cue_ids, model.doc_topic_prior_ if prior == "alpha" else None)


def word_ids(vocabulary, words) -> np.ndarray:
    """Ids of ``words`` (strings of ``vocabulary``, or ids, passed through)."""
    words = list(words)
    if all(isinstance(w, (int, np.integer)) for w in words):
        return np.asarray(words, dtype=np.int64)
    index = {str(word): i for i, word in enumerate(vocabulary)}
    missing = [w for w in words if w not in index]
    if missing:
        raise ValueError(f"{len(missing)} cue words are not in the vocabulary, e.g. "
                         f"{missing[0]!r}")
    return np.asarray([index[w] for w in words], dtype=np.int64)


def associate_ranks(association: np.ndarray, cue_ids, associates) -> list[np.ndarray]:
    """For each cue (row of ``association``), the ranks of its ``associates`` (word ids) among
    all words but the cue: 1 + the number of other words strictly more associated."""
    ranks = []
    for row, cue, targets in zip(np.asarray(association), cue_ids, associates):
        values = row.copy()
        values[cue] = -np.inf
        targets = np.asarray(targets, dtype=np.int64)
        ranks.append(1 + (values[None, :] > values[targets][:, None]).sum(axis=1))
    return ranks


@dataclass(frozen=True)
class AssociationNorms:
    """Cue-associate pairs mapped to a vocabulary: ``cue_ids`` and, per cue, its first
    (at most five) associates' ids, the cue excluded; pairs outside the vocabulary dropped."""

    cue_ids: np.ndarray
    associates: list[np.ndarray]
    dropped_cues: int

    @classmethod
    def from_words(cls, norms, vocabulary, n_associates: int = N_ASSOCIATES):
        """``norms``: (cue, [associates...]) pairs of words."""
        index = {str(word): i for i, word in enumerate(vocabulary)}
        cue_ids, associates, dropped = [], [], 0
        for cue, targets in norms:
            ids = [index[t] for t in targets if t in index and t != cue][:n_associates]
            if cue not in index or not ids:
                dropped += 1
                continue
            cue_ids.append(index[cue])
            associates.append(np.asarray(ids, dtype=np.int64))
        return cls(np.asarray(cue_ids, dtype=np.int64), associates, dropped)


def frequency_bins(frequency: np.ndarray, n_bins: int = 10, spacing: str = "linear"):
    """(bin index per value, edges): ``n_bins`` equal-width bins of ``frequency`` between its
    minimum and maximum (``"linear"``) or of its logarithm (``"log"``)."""
    if spacing not in SPACINGS:
        raise ValueError(f"spacing must be one of {SPACINGS}, got {spacing!r}")
    values = np.asarray(frequency, dtype=np.float64)
    low, high = values.min(), values.max()
    edges = (np.linspace(low, high, n_bins + 1) if spacing == "linear"
             else np.geomspace(max(low, 1.0), max(high, 1.0), n_bins + 1))
    return np.clip(np.searchsorted(edges, values, side="right") - 1, 0, n_bins - 1), edges


def compare_estimators(phi_p: np.ndarray, phi: np.ndarray, norms: AssociationNorms,
                       cue_frequency, n_bins: int = 10, spacing: str = "linear",
                       topic_prior=None) -> dict:
    """Section 5.4's statistic: per cue-frequency bin and overall, the median over (cue,
    associate) pairs of rank_phi - rank_phi^p (positive: phi^p better), the median ranks, the
    share of pairs phi^p ranks higher, and a Wilcoxon signed-rank test over cues of the mean
    rank difference (two-sided p-value). ``cue_frequency``: the corpus count of each cue."""
    ranks_p = associate_ranks(association_matrix(phi_p, norms.cue_ids, topic_prior),
                              norms.cue_ids, norms.associates)
    ranks = associate_ranks(association_matrix(phi, norms.cue_ids, topic_prior),
                            norms.cue_ids, norms.associates)
    bins, edges = frequency_bins(cue_frequency, n_bins, spacing)

    def summary(members) -> dict:
        if len(members) == 0:
            return {"cues": 0, "pairs": 0}
        standard = np.concatenate([ranks[i] for i in members])
        estimated = np.concatenate([ranks_p[i] for i in members])
        per_cue = np.array([np.mean(ranks[i] - ranks_p[i]) for i in members])
        test = (wilcoxon(per_cue).pvalue if np.any(per_cue != 0) and per_cue.size > 1
                else 1.0)
        return {"cues": int(len(members)), "pairs": int(standard.size),
                "median_difference": float(np.median(standard - estimated)),
                "median_rank_phi": float(np.median(standard)),
                "median_rank_phi_p": float(np.median(estimated)),
                "share_phi_p_better": float(np.mean(estimated < standard)),
                "share_phi_better": float(np.mean(estimated > standard)),
                "wilcoxon_p": float(test)}

    return {"spacing": spacing, "edges": edges.tolist(),
            "bins": [summary(np.flatnonzero(bins == b)) for b in range(n_bins)],
            "overall": summary(np.arange(norms.cue_ids.size))}
