"""How close can anything get to the planted topics of the HDP study's synthetic corpus (where
HDP G-OEM's matched topics are asked to be within mean total variation 0.1 of the truth)?

On the synthetic corpus of reproductions/hdp_peers.py (K* = 10 topics of Dirichlet(0.1) over
V = 1,000 words, alpha = 5 pi with pi proportional to 0.8^k, Poisson(60) lengths, 20,000 training
documents), the mean TV of the 10 true topics to their Hungarian-matched topics
(`evaluation.matching.distance_to_truth`) of:

* the finite-data floor: the empirical word distributions of planted assignments. The corpus
  keeps no assignment, but drawing z_n ~ p(z | x_n, theta_d, beta) with the true theta_d and beta
  gives assignments with the planted joint law (z then x, or x then z given theta: the same
  distribution), so their per-topic word frequencies are distributed as the planted ones'
  (mean over 3 draws);
* the oracle with the true theta and beta: each token's posterior p(z | x, theta_d, beta) summed
  per topic (what a perfect E-step recovers), normalised;
* LDA G-OEM K = 10: one pass (as hdp_peers.py runs it), 5 passes, and one pass started at the truth
  (beta_0 = beta, alpha_0 = alpha: the online estimator's own error);
* HDP G-OEM with the library's defaults (one pass and 5 passes) and with the stick
  concentration fixed at 5.

and for the learnt models three ways to match: Hungarian on the topics of weight > 1% (as
reproductions/hdp_peers.py), on all topics, and the first as a mean weighted by the true topic
weights pi (the bigger topics count more).

Usage: NUMBA_NUM_THREADS=1 python reproductions/hdp_planted_tv.py [--seeds 1]
Writes reproductions/results/hdp_planted_tv.{json,md}.
"""

from __future__ import annotations

import argparse

import numpy as np

from hdp_peers import synthetic
from results_files import write_results
from streamtopics import generate_synthetic
from streamtopics.estimators import OnlineHDP, OnlineLDA
from streamtopics.evaluation.matching import match_topics


def planted():
    weights = 0.8 ** np.arange(10)
    corpus, truth = generate_synthetic(n_topics=10, n_words=1000, n_documents=21000,
                                       mean_length=60, alpha=5 * weights / weights.sum(),
                                       topic_concentration=0.1, seed=2026)
    return corpus[:20000], truth.beta, truth.alpha, truth.theta[:20000]


def token_posteriors(counts, theta, beta):
    """For every (document, word) entry: p(z = k | x, theta_d, beta), entries x K."""
    rows = np.repeat(np.arange(counts.shape[0]), np.diff(counts.indptr))
    posterior = theta[rows] * beta[:, counts.indices].T
    return posterior / posterior.sum(axis=1, keepdims=True), rows


def floor_topics(counts, theta, beta, rng):
    """Per-topic word frequencies of one draw of assignments with the planted law."""
    posterior, _ = token_posteriors(counts, theta, beta)
    tokens = np.repeat(np.arange(counts.nnz), counts.data.astype(np.int64))
    cumulative = np.cumsum(posterior, axis=1)[tokens]
    topic = np.minimum((rng.random(tokens.size)[:, None] > cumulative).sum(axis=1),
                       beta.shape[0] - 1)
    totals = np.zeros(beta.shape)
    np.add.at(totals, (topic, counts.indices[tokens]), 1.0)
    return totals / totals.sum(axis=1, keepdims=True)


def oracle_topics(counts, theta, beta):
    posterior, _ = token_posteriors(counts, theta, beta)
    totals = np.zeros(beta.shape)
    np.add.at(totals.T, counts.indices, posterior * counts.data[:, None])
    return totals / totals.sum(axis=1, keepdims=True)


class TruthStartLDA(OnlineLDA):
    """OnlineLDA whose beta_0 and alpha_0 are given (the planted ones)."""

    start = None

    def _initial_parameters(self, n_words, rng):
        beta, alpha, seed = super()._initial_parameters(n_words, rng)
        return self.start[0].copy(), self.start[1].copy(), seed


def tv_rows(name, topics, weights, beta, pi):
    """TV to the truth under three matchings (module docstring)."""
    big = topics[weights > 0.01]
    over_1pct = match_topics(beta, big, "tv")
    every = match_topics(beta, topics, "tv")
    return {"model": name, "topics": int(topics.shape[0]), "topics_over_1pct": int(big.shape[0]),
            "tv_over_1pct": over_1pct.mean_distance, "tv_all_topics": every.mean_distance,
            "tv_over_1pct_weighted": float(pi[over_1pct.rows] @ over_1pct.matched_distances
                                           / pi[over_1pct.rows].sum()),
            "per_topic_over_1pct": over_1pct.matched_distances.round(3).tolist()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=1)
    args = parser.parse_args()
    train, beta, alpha, theta = planted()
    assert np.array_equal(train.counts.toarray()[:5], synthetic(20000)[0].counts.toarray()[:5])
    counts = train.counts.tocsr()
    pi = alpha / alpha.sum()
    rows = []
    rng = np.random.default_rng(0)
    for draw in range(3):
        rows.append({**tv_rows("planted assignments (floor)", floor_topics(counts, theta, beta, rng),
                               pi, beta, pi), "seed": draw})
    rows.append({**tv_rows("oracle E-step (true theta, beta)", oracle_topics(counts, theta, beta),
                           pi, beta, pi), "seed": 0})
    for seed in range(args.seeds):
        models = {"LDA G-OEM K=10, 1 pass": OnlineLDA(10, n_passes=1, random_state=seed),
                  "LDA G-OEM K=10, 5 passes": OnlineLDA(10, n_passes=5, random_state=seed),
                  "LDA G-OEM K=10, 1 pass from the truth": TruthStartLDA(10, n_passes=1,
                                                                         random_state=seed),
                  "HDP G-OEM (defaults)": OnlineHDP(random_state=seed),
                  "HDP G-OEM (defaults), 5 passes": OnlineHDP(n_passes=5, random_state=seed),
                  "HDP G-OEM, alpha = 5 fixed": OnlineHDP(stick_concentration=5.0,
                                                          stick_update="fixed",
                                                          random_state=seed)}
        models["LDA G-OEM K=10, 1 pass from the truth"].start = (beta, alpha)
        for name, model in models.items():
            model.fit(train)
            weights = (model.topic_weights_ if isinstance(model, OnlineHDP)
                       else model.doc_topic_prior_ / model.doc_topic_prior_.sum())
            row = {**tv_rows(name, np.asarray(model.components_), weights, beta, pi),
                   "seed": seed}
            print(row, flush=True)
            rows.append(row)
    table = ["| model | runs | topics (> 1%) | TV, > 1% matched | TV, all matched | "
             "TV, > 1% matched, weighted by pi |", "|---|---|---|---|---|---|"]
    for name in dict.fromkeys(row["model"] for row in rows):
        group = [row for row in rows if row["model"] == name]
        mean = lambda key: np.mean([row[key] for row in group])
        table.append(f"| {name} | {len(group)} | {mean('topics'):.0f} "
                     f"({mean('topics_over_1pct'):.1f}) | {mean('tv_over_1pct'):.3f} | "
                     f"{mean('tv_all_topics'):.3f} | {mean('tv_over_1pct_weighted'):.3f} |")
    write_results("hdp_planted_tv", {"seeds": args.seeds, "rows": rows},
                  "Planted corpus of the HDP study: TV to the true topics, floor and models",
                  "NUMBA_NUM_THREADS=1 python reproductions/hdp_planted_tv.py --seeds "
                  f"{args.seeds}", table)
    print("\n".join(table))


if __name__ == "__main__":
    main()
