"""HDP G-OEM with and without what the thesis does not have (spec section 1.8 b): the number of
topics T through the stream and the final held-out score, on the synthetic corpus of
reproductions/hdp_peers.py and on debian, for

* the defaults (pruning below 1e-4 of the tokens, unseen words weighted as the topics' mean
  under a new topic, stick concentration alpha learnt by empirical Bayes from 20, cap 200);
* alpha fixed at 5 (the former default), and with it thesis-literal valves: no pruning, unseen
  words at 1/V under a new topic, cap 1,000;
* alpha fixed at 1 (the spec's and gensim's default) and at 20.

Usage: NUMBA_NUM_THREADS=1 python reproductions/hdp_ablation.py
Writes reproductions/results/hdp_ablation.{json,md}.
"""

from __future__ import annotations

import json
import os
import platform

from hdp_peers import load
from results_files import command_line, write_results
from streamtopics.corpus.corpus import occurring_words, restrict_to_words
from streamtopics.estimators import OnlineHDP
from streamtopics.evaluation import left_to_right

FIXED = {"stick_update": "fixed"}
VARIANTS = {"defaults": {},
            "alpha = 5 fixed": {**FIXED, "stick_concentration": 5.0},
            "alpha = 5 fixed, thesis-literal valves": {**FIXED, "stick_concentration": 5.0,
                                                       "prune_share": 0.0,
                                                       "unseen_words": "new-topic",
                                                       "max_topics": 1000},
            "alpha = 1 fixed": {**FIXED, "stick_concentration": 1.0},
            "alpha = 20 fixed": {**FIXED, "stick_concentration": 20.0}}
CHECKPOINTS = (1, 2, 5, 10, 50, 100, 200, 300)   # steps at which T is reported


def main() -> None:
    rows = []
    for corpus in ("synthetic", "debian"):
        train, test, _ = load(corpus, quick=False)
        held_out, _, _ = restrict_to_words(test[:300], occurring_words(train.counts))
        for name, settings in VARIANTS.items():
            model = OnlineHDP(random_state=0, **settings).fit(train)
            beta, alpha = model.to_lda()
            score = left_to_right(beta, alpha, held_out, n_particles=20, seed=0, max_tokens=100)
            history = model.n_topics_history_
            row = {"corpus": corpus, "variant": name, "settings": settings,
                   "T": {step: history[step - 1] for step in CHECKPOINTS if step <= len(history)},
                   "final_T": model.n_topics_,
                   "topics_over_1pct": int((model.topic_weights_ > 0.01).sum()),
                   "log_perplexity_per_document": -score.mean_log_likelihood_per_document}
            print(json.dumps(row), flush=True)
            rows.append(row)
    steps = [f"T at step {step}" for step in CHECKPOINTS]
    lines = ["| corpus | variant | " + " | ".join(steps) + " | final T (> 1%) | log-perplexity |",
             "|---" * (len(steps) + 4) + "|"]
    for row in rows:
        lines.append(f"| {row['corpus']} | {row['variant']} | "
                     + " | ".join(str(row["T"].get(step, "")) for step in CHECKPOINTS)
                     + f" | {row['final_T']} ({row['topics_over_1pct']}) | "
                       f"{row['log_perplexity_per_document']:.1f} |")
    settings = {"numba_threads": os.environ.get("NUMBA_NUM_THREADS"),
                "machine": platform.platform()}
    write_results("hdp_ablation", {"settings": settings, "rows": rows},
                  "HDP G-OEM ablation: topics through the stream", command_line(), lines)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
