"""Word association, phi^p against phi (Papanikolaou et al. 2017, section 5.4, Figure 3) on the
Debian corpus with proxy norms.

The norms are ``debian/associations.jsonl``: FOLDOC headwords in the corpus vocabulary and the
single-word cross-references of their definitions (first five, in order of appearance). They
are a **proxy**: dictionary cross-references, not human free association (the paper uses
Nelson et al.'s norms on TASA).

Setup as section 5.4: LDA by collapsed Gibbs sampling (sparse sampler) on the training split,
alpha = 0.1, beta = 0.01 (the spec's choice; section 5.4 does not restate them), one point
estimate of phi and of phi^p from the final state (``--sweeps`` sweeps, 250 in the paper),
K from ``--topics``. Each cue's associates are ranked among all words but the cue by
p(w2 | w1) (equation 57, uniform p(z)); the statistic is the median over (cue, associate) pairs
of rank_phi - rank_phi^p (positive: phi^p better), by 10 cue-frequency bins, equal-width
(the paper's reading) and log-spaced, with the shares of pairs each estimator ranks higher and
a Wilcoxon signed-rank test over cues.

Usage: NUMBA_NUM_THREADS=1 python reproductions/word_association_debian.py [--topics 50 100 500]
       [--sweeps 250] [--seed 0]
Writes reproductions/results/word_association_debian.{json,md}.
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path

import numpy as np

from streamtopics import GibbsLDA
from streamtopics.corpus.readers import read_corpus_dir
from streamtopics.evaluation.word_association import AssociationNorms, compare_estimators

from results_files import CORPORA, command_line, write_results

CORPUS = CORPORA / "debian"


def read_norms(path: Path) -> list[tuple[str, list[str]]]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    return [(row["cue"], row["associates"]) for row in rows]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--topics", type=int, nargs="+", default=[50, 100, 500])
    parser.add_argument("--sweeps", type=int, default=250)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    train = read_corpus_dir(args.corpus, "train")
    norms = AssociationNorms.from_words(read_norms(args.corpus / "associations.jsonl"),
                                        train.vocabulary)
    frequency = np.asarray(train.counts.sum(axis=0)).ravel()[norms.cue_ids]
    pairs = sum(a.size for a in norms.associates)
    print(f"{train.n_documents} documents, {train.n_tokens} tokens, V = {train.n_words}; "
          f"{norms.cue_ids.size} cues ({norms.dropped_cues} dropped), {pairs} pairs", flush=True)
    runs = []
    for n_topics in args.topics:
        model = GibbsLDA(n_topics, doc_topic_prior=0.1, topic_word_prior=0.01,
                         n_passes=args.sweeps, burn_in=args.sweeps - 1, n_samples=1,
                         random_state=args.seed)
        started = time.perf_counter()
        model.fit(train)
        seconds = time.perf_counter() - started
        run = {"topics": n_topics, "train_seconds": seconds}
        for spacing in ("linear", "log"):
            run[spacing] = compare_estimators(model.components_, model.topic_word_standard_,
                                              norms, frequency, n_bins=10, spacing=spacing)
        overall = run["linear"]["overall"]
        print(f"K = {n_topics}: {seconds:.0f} s; median difference "
              f"{overall['median_difference']:+.1f}, median rank phi {overall['median_rank_phi']:.0f}"
              f" / phi^p {overall['median_rank_phi_p']:.0f}, phi^p better in "
              f"{overall['share_phi_p_better']:.3f} of pairs, phi in "
              f"{overall['share_phi_better']:.3f}, Wilcoxon p = {overall['wilcoxon_p']:.3g}",
              flush=True)
        runs.append(run)
    result = {"corpus": str(args.corpus), "norms": "FOLDOC cross-references (proxy)",
              "cues": int(norms.cue_ids.size), "pairs": int(pairs), "sweeps": args.sweeps,
              "alpha": 0.1, "beta": 0.01, "seed": args.seed, "machine": platform.platform(),
              "threads": 1, "runs": runs}
    lines = [f"Word association on debian (proxy norms: FOLDOC cross-references, not free "
             f"association): {norms.cue_ids.size} cues, {pairs} (cue, associate) pairs; GibbsLDA "
             f"alpha 0.1, beta 0.01, {args.sweeps} sweeps, final state; seed {args.seed}.", "",
             "Overall (all cues):", "",
             "| K | train s | median rank phi | median rank phi^p | median rank_phi - rank_phi^p "
             "| pairs phi^p better | pairs phi better | Wilcoxon p (cues) |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for run in runs:
        o = run["linear"]["overall"]
        lines.append(f"| {run['topics']} | {run['train_seconds']:.0f} | {o['median_rank_phi']:.0f} | "
                     f"{o['median_rank_phi_p']:.0f} | {o['median_difference']:+.1f} | "
                     f"{o['share_phi_p_better']:.3f} | {o['share_phi_better']:.3f} | "
                     f"{o['wilcoxon_p']:.3g} |")
    for spacing in ("linear", "log"):
        lines += ["", f"By cue-frequency bin ({spacing} bins of the cue's training count; "
                      f"cells: median rank_phi - rank_phi^p, share phi^p better / phi better, "
                      f"cues):", "",
                  "| K | " + " | ".join(f"bin {b + 1}" for b in range(10)) + " |",
                  "|---:|" + "---|" * 10]
        for run in runs:
            cells = []
            for b in run[spacing]["bins"]:
                cells.append("-" if b["cues"] == 0 else
                             f"{b['median_difference']:+.0f}, {b['share_phi_p_better']:.2f}/"
                             f"{b['share_phi_better']:.2f}, {b['cues']}")
            lines.append(f"| {run['topics']} | " + " | ".join(cells) + " |")
        edges = runs[0][spacing]["edges"]
        lines.append(f"\nBin edges (training count): {', '.join(f'{e:.0f}' for e in edges)}")
    write_results("word_association_debian", result,
                  "Word association on debian: phi against phi^p", command_line(), lines)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
