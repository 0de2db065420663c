"""Curating the topics of a fitted `OnlineLDA`: merging topics into one, removing topics.

Both act on the training state (the sufficient statistics of online EM, Dupuy & Bach 2016,
eq. 3), not on beta alone, so the curated model is a model like any other: it transforms,
scores and keeps learning (`streamtopics update`) from where it stands.

**Merging** topics i and j (and more): the merged topic is the one that would have explained the
tokens of both, so its word statistics are their sum, s1_m = s1_i + s1_j (row totals summed
too), and its document prior is the Dirichlet aggregation of theirs: if theta ~ Dir(alpha),
(theta_i + theta_j, the rest) ~ Dir(alpha_i + alpha_j, the rest) exactly, so alpha_m =
alpha_i + alpha_j. The other statistic, s2_k = E[log theta_k], has no exact merge (the log of a
sum); the merged one is set to its value under the aggregated prior, psi(alpha_m) -
psi(sum alpha), the consistent starting point the next steps blend away (appendix A.1). The
merged topic keeps the first one's index and name.

**Removing** topics drops their statistics and alpha; the documents' remaining topics share
their mass (theta renormalises), and the other topics are unchanged.

Not for: the batch samplers (their state is the assignment of every token), HDP (its topics are
stick pieces in a fixed order) and the labeled models (a topic is a label); nor with
``averaging`` (the averaged past iterates would need the same surgery).
"""

from __future__ import annotations

import numpy as np
from scipy.special import digamma

from .online_lda import OnlineLDA


def _checked(model):
    """The fitted engine of ``model``, an `OnlineLDA` without averaging; ValueError otherwise."""
    if type(model) is not OnlineLDA:
        raise ValueError(f"merging and removing topics needs an OnlineLDA model, not a "
                         f"{type(model).__name__} (docs: estimators.curation)")
    if model.averaging:
        raise ValueError("merging and removing topics is not done with averaging (the past "
                         "iterates would need it too)")
    return model._require_fitted()


def _rebuilt(model: OnlineLDA, keep: np.ndarray, columns, alpha, log_theta, totals,
             names) -> OnlineLDA:
    """A new `OnlineLDA` from ``model``'s state with the topics ``keep`` (indices), whose
    statistics columns, alpha, s2 and row totals are given."""
    arrays, metadata = model.model_file_contents()
    arrays = dict(arrays, stats_raw=np.ascontiguousarray(columns[:, keep]),
                  stats_scale=np.array(1.0), stats_topic_totals=totals[keep],
                  stats_log_theta=log_theta[keep], current_alpha=alpha[keep], alpha=alpha[keep])
    raw = arrays["stats_raw"] + 1e-300
    arrays["beta"] = (raw / raw.sum(axis=0)).T  # placeholder: the engine recomputes beta
    parameters = dict(metadata["parameters"], n_topics=int(keep.size))
    metadata = dict(metadata, parameters=parameters)
    metadata.pop("topic_names", None)
    curated = OnlineLDA._from_model_file("curated model", arrays, metadata)
    curated.set_topic_names([names[k] for k in keep])
    return curated


def merge_topics(model: OnlineLDA, groups) -> OnlineLDA:
    """A new model in which each group of topic indices of ``groups`` (e.g. [[3, 7], [1, 2, 9]])
    is one topic (module docstring), at the index of its first topic; the others keep their
    order. Groups must not overlap and hold two or more topics."""
    engine = _checked(model)
    state = engine.stats
    n_topics = state.n_topics
    groups = [[int(k) for k in group] for group in groups]
    flat = [k for group in groups for k in group]
    if any(len(group) < 2 for group in groups) or len(set(flat)) != len(flat) or \
            any(not 0 <= k < n_topics for k in flat):
        raise ValueError(f"merge groups must be disjoint sets of 2 or more of the {n_topics} "
                         f"topics, got {groups}")
    columns = state.raw * state.scale
    alpha = np.array(engine.alpha, dtype=np.float64)
    totals, log_theta = state.topic_totals.copy(), state.log_theta[:n_topics].copy()
    names = model.topic_names_
    for group in groups:
        first, rest = group[0], group[1:]
        columns[:, first] += columns[:, rest].sum(axis=1)
        totals[first] += totals[rest].sum()
        alpha[first] += alpha[rest].sum()
    for group in groups:
        log_theta[group[0]] = digamma(alpha[group[0]]) - digamma(alpha.sum())
    gone = {k for group in groups for k in group[1:]}
    keep = np.array([k for k in range(n_topics) if k not in gone])
    return _rebuilt(model, keep, columns, alpha, log_theta, totals, names)


def remove_topics(model: OnlineLDA, topics) -> OnlineLDA:
    """A new model without the topic indices ``topics`` (module docstring); at least one topic
    stays."""
    engine = _checked(model)
    state = engine.stats
    n_topics = state.n_topics
    gone = {int(k) for k in topics}
    if not gone or any(not 0 <= k < n_topics for k in gone) or len(gone) >= n_topics:
        raise ValueError(f"remove one or more of the {n_topics} topics, not all, got "
                         f"{sorted(gone)}")
    keep = np.array([k for k in range(n_topics) if k not in gone])
    return _rebuilt(model, keep, state.raw * state.scale,
                    np.array(engine.alpha, dtype=np.float64),
                    state.log_theta[:n_topics].copy(), state.topic_totals.copy(),
                    model.topic_names_)
