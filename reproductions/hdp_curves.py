"""Figure 10's form (thesis section 3.5.5): held-out log-perplexity through iterations of HDP by
G-OEM and by VarGibbs, with LDA G-OEM at fixed K beside them, one pass over the synthetic corpus
and debian (the splits of reproductions/hdp_peers.py).

Every model is scored during training by `reporting.ProgressiveEvaluation` (left-to-right, 20
particles, seed 0; the HDP with the rest of its stick, `OnlineHDP.held_out_parameters`) on the
same 300 held-out documents (first 100 tokens, words seen in training) every ``--every``
documents. One seed, one thread.

Usage: NUMBA_NUM_THREADS=1 python reproductions/hdp_curves.py [--every 2500]
Writes reproductions/results/hdp_curves.{json,md} and docs/figures/hdp-through-iterations.png.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
from pathlib import Path

from hdp_peers import load
from results_files import command_line, write_results
from streamtopics.corpus.corpus import occurring_words, restrict_to_words
from streamtopics.estimators import OnlineHDP, OnlineLDA
from streamtopics.reporting.progressive import ProgressiveEvaluation

FIGURE = Path(__file__).resolve().parents[1] / "docs" / "figures" / "hdp-through-iterations.png"
MODELS = {
    "synthetic": {"HDP G-OEM": lambda: OnlineHDP(random_state=0),
                  "HDP VarGibbs": lambda: OnlineHDP(method="vargibbs", random_state=0),
                  "LDA G-OEM K=10": lambda: OnlineLDA(10, n_passes=1, random_state=0)},
    "debian": {"HDP G-OEM": lambda: OnlineHDP(random_state=0),
               "HDP G-OEM, alpha = 5 fixed": lambda: OnlineHDP(stick_concentration=5.0,
                                                               stick_update="fixed",
                                                               random_state=0),
               "HDP VarGibbs": lambda: OnlineHDP(method="vargibbs", random_state=0),
               "LDA G-OEM K=64": lambda: OnlineLDA(64, n_passes=1, random_state=0)},
}


def curves(every: int) -> dict:
    result = {}
    for corpus, models in MODELS.items():
        train, test, _ = load(corpus, quick=False)
        held_out, _, _ = restrict_to_words(test[:300], occurring_words(train.counts))
        result[corpus] = {}
        for name, make in models.items():
            evaluation = ProgressiveEvaluation(held_out, every=every, n_particles=20, seed=0,
                                               max_tokens=100)
            model = make().fit(train, callback=evaluation)
            evaluation.finish(model)
            result[corpus][name] = [(r.documents_seen, r.log_perplexity_per_document)
                                    for r in evaluation.records]
            print(corpus, name, result[corpus][name][-1], flush=True)
    return result


def plot(result: dict) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    figure, axes = plt.subplots(1, len(result), figsize=(5 * len(result), 3.6))
    names = list(dict.fromkeys(name for lines in result.values() for name in lines))
    for axis, (corpus, lines) in zip(axes, result.items()):
        for name, points in lines.items():  # one colour per method in every panel
            axis.plot([p[0] for p in points], [p[1] for p in points], marker="o", ms=3,
                      label=name, color=f"C{names.index(name)}")
        axis.set_title(corpus)
        axis.set_xlabel("training documents")
        axis.set_ylabel("held-out log-perplexity / document")
        axis.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(FIGURE, dpi=110)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--every", type=int, default=2500)
    args = parser.parse_args()
    result = curves(args.every)
    settings = {**vars(args), "numba_threads": os.environ.get("NUMBA_NUM_THREADS"),
                "machine": platform.platform()}
    lines = []
    for corpus, models in result.items():
        names = list(models)
        lines += [f"## {corpus}", "", "| documents | " + " | ".join(names) + " |",
                  "|---" * (len(names) + 1) + "|"]
        for index, (documents, _) in enumerate(models[names[0]]):
            lines.append(f"| {documents} | " + " | ".join(
                f"{models[name][index][1]:.1f}" if index < len(models[name]) else ""
                for name in names) + " |")
        lines.append("")
    write_results("hdp_curves", {"settings": settings, "curves": result},
                  "HDP through iterations (Figure 10's form)", command_line(),
                  [f"`{json.dumps(settings)}`", "", *lines])
    print("\n".join(lines))
    plot(result)


if __name__ == "__main__":
    main()
