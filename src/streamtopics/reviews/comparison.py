"""The comparison of Dupuy's thesis, section 2.2: review word prediction by LDA-0, LDA-C, LDA-U
and the opinion models LDA-R, LDA-R-C, LDA-R-U on the same held-out reviews.

Which models run depends on what the reviews carry: text only -> LDA-0; reduced ratings
(``opinions``, or numeric ``ratings`` with users and items for the rating reduction) -> LDA-R;
items -> LDA-C (and LDA-R-C with ratings); users -> LDA-U (and LDA-R-U). LDA-0, -C, -U are
`GibbsLDA` (CGS_p); the opinion models start from their LDA's topics, as the thesis advises.
The thesis' comparison points: SLDA (with numeric ratings, or opinions as a +-1 response;
scored by left-to-right with its topics) and HFT (with users, items and numeric ratings; scored
pointwise with the item's theta), see `baselines`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..corpus.corpus import Corpus, as_counts
from ..estimators.gibbs_lda import GibbsLDA
from ..evaluation import left_to_right
from .baselines import HiddenFactorsTopics, SupervisedLDA
from .opinion import OpinionLDA
from .ratings import RatingReducer
from .scoring import (group_documents, opinion_left_to_right, opinion_log_likelihood,
                      per_word_log_perplexity, pointwise_log_likelihood)


@dataclass
class ReviewSide:
    """One split's reviews: counts (D x V) and, each optional, per-review users, items, numeric
    ratings, or reduced ratings ``opinions`` in {-1, +1} given directly."""

    counts: object
    users: np.ndarray | None = None
    items: np.ndarray | None = None
    ratings: np.ndarray | None = None
    opinions: np.ndarray | None = None


@dataclass
class ReviewComparison:
    """Per-word log-perplexity (nats, lower is better) of each model on the test reviews, the
    share of opinion words each opinion model learnt, the opinion topics' top word ids, and
    how many test reviews were scored (those whose user and item were seen in training)."""

    log_perplexity: dict = field(default_factory=dict)
    opinion_share: dict = field(default_factory=dict)
    opinion_top_words: dict = field(default_factory=dict)
    n_test_reviews: int = 0


def _lda(n_topics: int, seed: int, n_passes: int) -> GibbsLDA:
    return GibbsLDA(n_topics, n_passes=n_passes, burn_in=n_passes // 2, random_state=seed)


def _seen(ids: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    rows = np.minimum(np.searchsorted(ids, wanted), len(ids) - 1)
    return ids[rows] == wanted


def compare_review_models(train: ReviewSide, test: ReviewSide, n_topics: int, seed: int = 0,
                          n_passes: int = 200, n_particles: int = 20,
                          oracle_opinions: bool = False) -> ReviewComparison:
    """Fit every model the data allow on ``train`` and score ``test`` (section 2.2).

    Test reduced ratings are unknown, as in the thesis: P(+1) is Phi(b_c / sigma) from the
    rating reduction, or the training share of positive reviews when opinions are given
    directly; ``oracle_opinions`` also scores LDA-R with the test reviews' own opinions (an
    upper bound on what the opinion topics add). LDA-0, -C and -U run ``n_passes`` Gibbs sweeps
    (`GibbsLDA`), half of them burn-in.
    """
    counts, test_counts = as_counts(train.counts), as_counts(test.counts)
    keep = np.ones(test_counts.shape[0], dtype=bool)
    for name in ("users", "items"):
        ids, wanted = getattr(train, name), getattr(test, name)
        if ids is not None and wanted is not None:
            keep &= _seen(np.unique(ids), np.asarray(wanted))
    test_counts = test_counts[keep]

    def test_values(name):
        value = getattr(test, name)
        return None if value is None else np.asarray(value)[keep]

    opinions, p_positive = train.opinions, None
    if train.ratings is not None:
        reducer = RatingReducer().fit(train.users, train.items, train.ratings)
        opinions = reducer.reduced_
        p_positive = reducer.prob_positive(test_values("items"))
    elif opinions is not None:
        p_positive = float(np.mean(np.asarray(opinions) > 0))
    result = ReviewComparison(n_test_reviews=int(test_counts.shape[0]))
    lda_0 = _lda(n_topics, seed, n_passes)
    doc_theta = lda_0.fit_transform(counts)
    result.log_perplexity["LDA-0"] = per_word_log_perplexity(left_to_right(
        lda_0.components_, lda_0.doc_topic_prior_, Corpus(test_counts), n_particles=n_particles,
        seed=seed).log_likelihoods, test_counts)
    response = train.ratings if train.ratings is not None else opinions
    if response is not None:
        slda = SupervisedLDA(n_topics, doc_topic_prior=lda_0.doc_topic_prior_).fit(
            counts, response, lda_0.components_)
        result.log_perplexity["SLDA"] = per_word_log_perplexity(left_to_right(
            slda.components_, lda_0.doc_topic_prior_, Corpus(test_counts),
            n_particles=n_particles, seed=seed).log_likelihoods, test_counts)
    if train.ratings is not None and test.items is not None:
        hft = HiddenFactorsTopics(n_topics, random_state=seed).fit(counts, train.users, train.items,
                                                            train.ratings)
        result.log_perplexity["HFT"] = per_word_log_perplexity(pointwise_log_likelihood(
            test_counts, hft.item_theta(test_values("items")), hft.components_), test_counts)
    if opinions is not None:
        lda_r = OpinionLDA(n_topics).fit(counts, opinions, doc_theta, lda_0.components_)
        scored = [("LDA-R", p_positive)]
        if oracle_opinions and test.opinions is not None:
            scored.append(("LDA-R oracle", (test_values("opinions") > 0).astype(float)))
        for name, probability in scored:
            result.log_perplexity[name] = per_word_log_perplexity(opinion_left_to_right(
                test_counts, lda_0.doc_topic_prior_, probability, lda_r.components_,
                lda_r.opinion_topics_, lda_r.omega_, n_particles=n_particles, seed=seed),
                test_counts)
        result.opinion_share["LDA-R"] = lda_r.qualitative_share_
        result.opinion_top_words = {
            sign: np.argsort(-lda_r.opinion_topics_[row])[:12].tolist()
            for sign, row in (("negative", 0), ("positive", 1))}
    for letter, name in (("C", "items"), ("U", "users")):
        groups, test_groups = getattr(train, name), test_values(name)
        if groups is None or test_groups is None:
            continue
        grouped, ids, rows = group_documents(counts, groups)
        lda = _lda(n_topics, seed, n_passes)
        group_theta = lda.fit_transform(grouped)
        test_rows = np.searchsorted(ids, test_groups)
        result.log_perplexity[f"LDA-{letter}"] = per_word_log_perplexity(
            pointwise_log_likelihood(test_counts, group_theta[test_rows], lda.components_),
            test_counts)
        if opinions is not None:
            opinion = OpinionLDA(n_topics).fit(counts, opinions, group_theta[rows],
                                               lda.components_)
            result.log_perplexity[f"LDA-R-{letter}"] = per_word_log_perplexity(
                opinion_log_likelihood(test_counts, group_theta[test_rows], p_positive,
                                       opinion.components_, opinion.opinion_topics_,
                                       opinion.omega_), test_counts)
            result.opinion_share[f"LDA-R-{letter}"] = opinion.qualitative_share_
    return result
