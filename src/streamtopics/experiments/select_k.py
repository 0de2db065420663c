"""Choosing K: the cells of ``perplexity-vs-k`` for one method, and a stated rule on their scores.

Every K of the grid is trained on the training split (each seed a replicate) and scored on the
held-out split, left-to-right (Wallach et al. 2009) or document completion, exactly as the
``perplexity-vs-k`` experiment does: the cells are the same (`experiments.cells`), so a results
directory shared with that experiment reuses them, and a run that stopped resumes.

The rule (`recommend_k`): the score of K is the mean held-out log-perplexity per document over
its replicates (lower is better), with the standard error of that mean, sqrt((s^2 + m) / n), s^2
the variance across the n replicates (0 when n = 1) and m the mean squared standard error of each
replicate's mean over held-out documents. The recommended K is the smallest K whose score is
within one standard error of the best score: the one-standard-error rule (Breiman et al. 1984;
Hastie, Tibshirani & Friedman 2009, section 7.10), which prefers the simpler model among those
the held-out data cannot tell apart. A larger K that fits the held-out documents no better than
noise allows is not recommended.

The table also shows each K's mean NPMI coherence of the topics' top 10 words on the training
documents (Bouma 2009; Lau et al. 2014; `evaluation.npmi_coherence`), for the reader: it is not
part of the rule, because coherence measures how interpretable topics look, not how well the
model predicts, and it rewards fewer, broader topics on some corpora and more on others.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from ..atomic import atomic_write
from ..errors import InputError
from .data import CorpusSource
from .named import EXPERIMENTS, Options
from .runner import ExperimentReport, run_experiment

RULE = ("the smallest K whose mean held-out log-perplexity per document is within one standard "
        "error of the best (lowest) mean: the one-standard-error rule")


@dataclass(frozen=True)
class KScore:
    """The held-out score of one K over its replicates (nats per document; lower is better)."""

    n_topics: int
    mean: float
    standard_error: float
    replicates: int
    train_seconds: float
    npmi: float | None = None  # mean NPMI coherence of the top 10 words (None: older cells)

    def as_dict(self) -> dict:
        return {"n_topics": self.n_topics, "log_perplexity": self.mean,
                "standard_error": self.standard_error, "replicates": self.replicates,
                "train_seconds": self.train_seconds, "npmi_coherence": self.npmi}


@dataclass(frozen=True)
class KSelection:
    """What `select_k` found: the scores by K, the recommended K and the experiment's files."""

    scores: list[KScore]
    recommended: int
    best: int
    experiment: ExperimentReport

    def as_dict(self) -> dict:
        report = self.experiment
        return {"recommended_k": self.recommended, "best_scoring_k": self.best, "rule": RULE,
                "scores": [score.as_dict() for score in self.scores],
                "cells_computed": report.computed, "cells_reused": report.reused,
                "failed": report.failed,
                "files": {"json": str(report.json_path), "markdown": str(report.markdown_path),
                          "plot": None if report.plot_path is None else str(report.plot_path)}}

    def table(self) -> str:
        """A plain-text table of the scores, the recommended K marked."""
        lines = [f"{'K':>6}  {'log-perplexity/doc':>18}  {'± se':>8}  {'NPMI':>6}  {'runs':>4}  "
                 f"{'train s':>8}"]
        for score in self.scores:
            mark = "  <- recommended" if score.n_topics == self.recommended else (
                "  (best score)" if score.n_topics == self.best else "")
            npmi = "" if score.npmi is None else f"{score.npmi:.3f}"
            lines.append(f"{score.n_topics:>6}  {score.mean:>18.3f}  {score.standard_error:>8.3f}"
                         f"  {npmi:>6}  {score.replicates:>4}  {score.train_seconds:>8.1f}{mark}")
        return "\n".join(lines)


def k_scores(results) -> list[KScore]:
    """`KScore`s, by increasing K, of (cell, result) pairs of one method."""
    by_k: dict[int, list[dict]] = {}
    for cell, result in results:
        by_k.setdefault(cell.n_topics, []).append(result)
    scores = []
    for k in sorted(by_k):
        values = np.array([r["log_perplexity"] for r in by_k[k]], dtype=float)
        document_se = np.array([r["log_perplexity_se"] for r in by_k[k]], dtype=float)
        spread = values.var(ddof=1) if values.size > 1 else 0.0
        se = math.sqrt((spread + float(np.mean(document_se ** 2))) / values.size)
        coherences = [r["npmi_coherence"] for r in by_k[k] if "npmi_coherence" in r]
        scores.append(KScore(k, float(values.mean()), se, int(values.size),
                             float(np.mean([r["train_seconds"] for r in by_k[k]])),
                             float(np.mean(coherences)) if coherences else None))
    return scores


def recommend_k(scores: list[KScore]) -> tuple[int, int]:
    """(recommended K, best-scoring K) by the rule of the module docstring."""
    finite = [s for s in scores if math.isfinite(s.mean)]
    if not finite:
        raise InputError("no K has a finite held-out score: nothing to recommend")
    best = min(finite, key=lambda s: s.mean)
    threshold = best.mean + best.standard_error
    recommended = min(s.n_topics for s in finite if s.mean <= threshold)
    return recommended, best.n_topics


def select_k(source: CorpusSource, options: Options, method: str, output_directory,
             progress=None, log=None) -> KSelection:
    """Run the ``perplexity-vs-k`` cells of ``method`` for ``options.topics`` on ``source``,
    write OUTPUT/select-k.json beside the experiment's files, and recommend a K."""
    if not options.topics:
        raise InputError("select-k needs the K values to compare (--topics 5,10,20)")
    if len(set(options.topics)) < 2:
        raise InputError("select-k compares at least two different K values")
    options = replace(options, methods=(method,))
    report = run_experiment(EXPERIMENTS["perplexity-vs-k"], source, options, output_directory,
                            progress=progress, log=log)
    scores = k_scores(report.results)
    missing = sorted(set(options.topics) - {score.n_topics for score in scores})
    if missing:
        raise InputError(f"no completed run for K = {', '.join(map(str, missing))}: "
                         + "; ".join(item["reason"] for item in report.failed + report.skipped))
    recommended, best = recommend_k(scores)
    selection = KSelection(scores, recommended, best, report)
    path = Path(output_directory) / "select-k.json"
    record = {"corpus": source.identity, "method": method, **selection.as_dict()}
    atomic_write(path, lambda handle: handle.write(json.dumps(record, indent=1).encode()))
    return selection
