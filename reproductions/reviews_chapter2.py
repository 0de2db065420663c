"""Dupuy's thesis, chapter 2: held-out review word prediction of LDA-0, LDA-C, LDA-U, LDA-R,
LDA-R-C and LDA-R-U (per-word log-perplexity, lower is better) and the share of opinion words.

Two data sets:
- planted reviews drawn from LDA-R-C (`streamtopics.reviews.planted_reviews`: users, items,
  ANOVA ratings, 10% opinion words), several seeds: every model can run;
- the shared finefoods corpus (one review per product, no users, a binary score): only LDA-0
  against LDA-R with the score as the reduced rating (great -> +1), and an "oracle" LDA-R that
  is told the test review's score (an upper bound on what opinion topics add).

    python reproductions/reviews_chapter2.py --out reproductions/results/reviews_chapter2

writes ``reviews_chapter2.json`` and ``reviews_chapter2.md``. LDA-0, -C, -U are `GibbsLDA`
(CGS_p, 200 iterations); the opinion models start from their LDA's topics, as the thesis
advises. SLDA and HFT are not run (not implemented in this library yet).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from streamtopics.corpus.readers import read_corpus_dir
from streamtopics.reviews import ReviewSide, compare_review_models, planted_reviews


def synthetic_run(n_topics: int, seed: int, n_train: int, n_test: int) -> dict:
    """All six models on one planted data set (5 true topics)."""
    data = planted_reviews(n_reviews=n_train + n_test, n_topics=5, seed=seed)

    def side(rows):
        return ReviewSide(data.counts[rows], data.users[rows], data.items[rows],
                          data.ratings[rows])

    result = compare_review_models(side(slice(0, n_train)), side(slice(n_train, None)),
                                   n_topics, seed)
    return {"data": "planted", "n_topics": n_topics, "seed": seed,
            "log_perplexity": result.log_perplexity, "opinion_share": result.opinion_share,
            "true_opinion_share": float(data.qualitative_share[:n_train].mean()),
            "n_test_reviews": result.n_test_reviews}


def finefoods_run(corpus: Path, n_topics: int, seed: int) -> dict:
    """LDA-0 against LDA-R (score as reduced rating) and oracle LDA-R on finefoods."""
    sides = []
    for split in ("train", "test"):
        reviews = read_corpus_dir(corpus, split)
        opinions = np.array([1 if m.get("label") == "great" else -1 for m in reviews.metadata])
        sides.append(ReviewSide(reviews.counts, opinions=opinions))
    result = compare_review_models(*sides, n_topics, seed, oracle_opinions=True)
    vocabulary = np.asarray(read_corpus_dir(corpus, "train").vocabulary)
    return {"data": "finefoods", "n_topics": n_topics, "seed": seed,
            "log_perplexity": result.log_perplexity, "opinion_share": result.opinion_share,
            "opinion_top_words": {sign: vocabulary[ids].tolist()
                                  for sign, ids in result.opinion_top_words.items()}}


def _table(runs: list[dict]) -> str:
    lines = []
    for data in ("planted", "finefoods"):
        chosen = [run for run in runs if run["data"] == data]
        if not chosen:
            continue
        models = list(chosen[0]["log_perplexity"])
        lines += [f"\n### {data}: per-word log-perplexity (nats, mean over seeds; lower is better)\n",
                  "| K | " + " | ".join(models) + " | opinion share |",
                  "|---:|" + "---:|" * (len(models) + 1)]
        for n_topics in sorted({run["n_topics"] for run in chosen}):
            same = [run for run in chosen if run["n_topics"] == n_topics]
            means = [np.mean([run["log_perplexity"][m] for run in same]) for m in models]
            share = "; ".join(f"{name} {np.mean([run['opinion_share'][name] for run in same]):.3f}"
                              for name in same[0]["opinion_share"])
            lines.append(f"| {n_topics} | " + " | ".join(f"{v:.4f}" for v in means)
                         + f" | {share} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("reproductions/results/reviews_chapter2"))
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--topics", type=int, nargs="+", default=[5, 10])
    parser.add_argument("--finefoods-topics", type=int, nargs="+", default=[8, 16, 32])
    parser.add_argument("--finefoods", type=Path, default=Path("../shared/corpora/finefoods"))
    parser.add_argument("--n-train", type=int, default=5000)
    parser.add_argument("--n-test", type=int, default=500)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    runs, started = [], time.perf_counter()
    for n_topics in args.topics:
        for seed in range(args.seeds):
            runs.append(synthetic_run(n_topics, seed, args.n_train, args.n_test))
            print(json.dumps(runs[-1]), flush=True)
    if args.finefoods.exists():
        for n_topics in args.finefoods_topics:
            for seed in range(min(args.seeds, 3)):
                runs.append(finefoods_run(args.finefoods, n_topics, seed))
                print(json.dumps(runs[-1]), flush=True)
    (args.out / "reviews_chapter2.json").write_text(json.dumps(
        {"runs": runs, "seconds": time.perf_counter() - started}, indent=1))
    (args.out / "reviews_chapter2.md").write_text(_table(runs))
    print(_table(runs))


if __name__ == "__main__":
    main()
