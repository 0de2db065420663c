"""Choosing K: the cells of ``perplexity-vs-k`` for one method, and a stated rule on their scores.

Every K of the grid is trained on the training split (each seed a replicate) and scored on the
held-out split, left-to-right (Wallach et al. 2009) or document completion, exactly as the
``perplexity-vs-k`` experiment does: the cells are the same (`experiments.cells`), so a results
directory shared with that experiment reuses them, and a run that stopped resumes.

Three criteria (`recommend_k`, ``--criterion``); each K's cells record the held-out score, the
mean c_v and NPMI coherence of the topics' top 10 words on the training documents and the
topics' diversity (`evaluation.coherence`).

**balanced** (the default): held-out likelihood keeps rising with K on real text, so "the best
score" is not the K a user asks for; the question is where an added topic stops paying. The
elbow is the smallest K from which no larger K tried gains, per added topic, as much as
``min_gain`` (0.1%) of K's held-out log-likelihood per document: for every K' > K,
(L_K - L_K') / (K' - K) < min_gain L_K, L the log-perplexity per document. The ratio is free of
the documents' length and of the grid's spacing (a gain is spread over the topics added). The
elbow is then guarded by what users read: its topics must be about as coherent as the grid's
most coherent ones (mean c_v at most ``COHERENCE_TOLERANCE`` = 0.05 below the best K's, about
the spread between seeds) and not repeat each other (diversity at least ``MIN_DIVERSITY`` =
0.5: half of all top 25 words unique). The recommendation is the largest K up to the elbow that
passes the guard; when none does, the most coherent K up to the elbow. Cells stored before c_v
was recorded skip the guard. On gitlog (first 10,000 commit messages) it picks 10 among 5-75,
where the one-standard-error rule below picks 50; on newsarticles see docs/ecosystem.md.

**coherence**: the K of the highest mean c_v (ties: the smaller K), as gensim's tutorials choose.

**heldout**: the one-standard-error rule on the held-out score alone. The score of K is the
mean held-out log-perplexity per document over
its replicates (lower is better). Every K is scored on the same held-out documents, so K is
compared with the best-scoring K* document by document: the gap g_K is the mean over documents
of log p(w_d | K*) - log p(w_d | K) (averaged over the replicates both have, paired by split and
seed), and its standard error sqrt(v_d / D + v_r / R), v_d the variance over the D documents of
those per-document gaps and v_r the variance of the R replicates' mean gaps (0 when R = 1). The
recommended K is the smallest K whose gap is within one standard error of 0: the
one-standard-error rule (Breiman et al. 1984; Hastie, Tibshirani & Friedman 2009, section
7.10), which prefers the simpler model among those the held-out data cannot tell apart from the
best. Pairing matters: documents differ far more from each other (the unpaired standard error
of a mean is tens of nats on real corpora) than one document's score differs between two K.
Cells stored before per-document scores were recorded fall back to the unpaired comparison
(each K's own standard error, across replicates and documents).

The paired gaps to the best-scoring K are computed and shown whatever the criterion.
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from ..atomic import atomic_write
from ..errors import InputError
from .data import CorpusSource
from .named import EXPERIMENTS, Options
from .runner import PER_DOCUMENT, ExperimentReport, run_experiment

MIN_GAIN_SHARE = 0.001  # balanced: an added topic must gain this share of the log-likelihood
COHERENCE_TOLERANCE = 0.05  # balanced: how far below the best mean c_v a K may be
MIN_DIVERSITY = 0.5  # balanced: the least share of unique top-25 words
CRITERIA = {
    "balanced": ("the largest K up to the held-out elbow (the smallest K from which an added topic "
                 "gains less than {share:.2%} of the held-out log-likelihood per document) whose "
                 "mean c_v is within {tolerance} of the best K's and whose topic diversity is at "
                 "least {diversity}"),
    "coherence": "the K with the highest mean c_v coherence of its topics' top 10 words",
    "heldout": ("the smallest K whose held-out log-perplexity per document is within one standard "
                "error of the best K's, compared document by document: the one-standard-error "
                "rule"),
}
RULE = CRITERIA["heldout"]


def describe_criterion(criterion: str, min_gain: float = MIN_GAIN_SHARE) -> str:
    """The sentence that says how ``criterion`` picks K."""
    return CRITERIA[criterion].format(share=min_gain, tolerance=COHERENCE_TOLERANCE,
                                      diversity=MIN_DIVERSITY)


@dataclass(frozen=True)
class KScore:
    """The held-out score of one K over its replicates (nats per document; lower is better).

    ``gap``, ``gap_se``: its paired difference from the best K (`recommend_k`; 0 for the best),
    None before `recommend_k` or without per-document scores. ``documents``: the per-document
    log-likelihoods of each replicate, keyed by (split, seed)."""

    n_topics: int
    mean: float
    standard_error: float
    replicates: int
    train_seconds: float
    npmi: float | None = None  # mean NPMI coherence of the top 10 words (None: older cells)
    documents: dict = field(default_factory=dict, repr=False, compare=False)
    gap: float | None = None
    gap_se: float | None = None
    cv: float | None = None  # mean c_v coherence of the top 10 words (None: older cells)
    diversity: float | None = None  # unique share of the top 25 words (None: older cells)

    def as_dict(self) -> dict:
        return {"n_topics": self.n_topics, "log_perplexity": self.mean,
                "standard_error": self.standard_error, "gap_to_best": self.gap,
                "gap_standard_error": self.gap_se, "replicates": self.replicates,
                "train_seconds": self.train_seconds, "npmi_coherence": self.npmi,
                "cv_coherence": self.cv, "topic_diversity": self.diversity}


@dataclass(frozen=True)
class KSelection:
    """What `select_k` found: the scores by K, the recommended K and the experiment's files."""

    scores: list[KScore]
    recommended: int
    best: int
    experiment: ExperimentReport
    hdp: "HDPScore | None" = None
    rule: str = RULE
    criterion: str = "heldout"

    def as_dict(self) -> dict:
        report = self.experiment
        return {"recommended_k": self.recommended, "best_scoring_k": self.best,
                "criterion": self.criterion, "rule": self.rule,
                "largest_k_recommended": self.largest_k_recommended,
                "scores": [score.as_dict() for score in self.scores],
                "cells_computed": report.computed, "cells_reused": report.reused,
                "failed": report.failed,
                "hdp": None if self.hdp is None else self.hdp.as_dict(),
                "files": {"json": str(report.json_path), "markdown": str(report.markdown_path),
                          "plot": None if report.plot_path is None else str(report.plot_path)}}

    @property
    def largest_k_recommended(self) -> bool:
        """Whether the recommended K is the largest tried: a larger one may be better still."""
        return self.recommended == max(score.n_topics for score in self.scores)

    def table(self) -> str:
        """A plain-text table of the scores, the recommended K marked."""
        lines = [f"{'K':>6}  {'log-perplexity/doc':>18}  {'± se':>8}  {'gap to best ± se':>18}  "
                 f"{'c_v':>6}  {'NPMI':>6}  {'divers.':>7}  {'runs':>4}  {'train s':>8}"]
        shown = (lambda value, width: " " * width if value is None else f"{value:>{width}.3f}")
        for score in self.scores:
            mark = "  <- recommended" if score.n_topics == self.recommended else (
                "  (best score)" if score.n_topics == self.best else "")
            gap = "" if score.gap is None else f"{score.gap:.3f} ± {score.gap_se:.3f}"
            lines.append(f"{score.n_topics:>6}  {score.mean:>18.3f}  {score.standard_error:>8.3f}"
                         f"  {gap:>18}  {shown(score.cv, 6)}  {shown(score.npmi, 6)}  "
                         f"{shown(score.diversity, 7)}  {score.replicates:>4}  "
                         f"{score.train_seconds:>8.1f}{mark}")
        if self.hdp is not None:
            h = self.hdp
            lines.append(f"{'HDP':>6}  {h.mean:>18.3f}  {h.standard_error:>8.3f}  "
                         f"{f'{h.gap:.3f} ± {h.gap_se:.3f}':>18}  {'':>23}  {h.replicates:>4}  "
                         f"{h.train_seconds:>8.1f}  (T = {', '.join(map(str, h.topics_used))} "
                         f"topics in use)")
        return "\n".join(lines)


def k_scores(results) -> list[KScore]:
    """`KScore`s, by increasing K, of (cell, result) pairs of one method."""
    by_k: dict[int, list[tuple]] = {}
    for cell, result in results:
        by_k.setdefault(cell.n_topics, []).append((cell, result))
    scores = []
    for k in sorted(by_k):
        runs = [result for _, result in by_k[k]]
        values = np.array([r["log_perplexity"] for r in runs], dtype=float)
        document_se = np.array([r["log_perplexity_se"] for r in runs], dtype=float)
        spread = values.var(ddof=1) if values.size > 1 else 0.0
        se = math.sqrt((spread + float(np.mean(document_se ** 2))) / values.size)
        documents = {(cell.split, cell.seed): np.asarray(result[PER_DOCUMENT])
                     for cell, result in by_k[k] if PER_DOCUMENT in result}
        scores.append(KScore(k, float(values.mean()), se, int(values.size),
                             float(np.mean([r["train_seconds"] for r in runs])),
                             _recorded_mean(runs, "npmi_coherence"), documents,
                             cv=_recorded_mean(runs, "cv_coherence"),
                             diversity=_recorded_mean(runs, "topic_diversity")))
    return scores


def _recorded_mean(runs, name: str) -> float | None:
    """The mean of a measure over the runs that recorded it (None when none did)."""
    values = [run[name] for run in runs if run.get(name) is not None]
    return float(np.mean(values)) if values else None


def paired_gap(candidate: dict, best: dict) -> tuple[float, float] | None:
    """(mean over documents of log p(w_d | best) - log p(w_d | candidate), its standard error)
    over the replicates both score on the same documents (see the module docstring); None when
    there is none."""
    common = [r for r in sorted(set(candidate) & set(best)) if candidate[r].shape == best[r].shape]
    if not common or best[common[0]].size < 2:
        return None
    gaps = np.array([best[r] - candidate[r] for r in common])  # replicates x documents
    per_document = gaps.mean(axis=0)
    replicate_means = gaps.mean(axis=1)
    spread = replicate_means.var(ddof=1) / len(common) if len(common) > 1 else 0.0
    return (float(per_document.mean()),
            math.sqrt(per_document.var(ddof=1) / per_document.size + spread))


def recommend_k(scores: list[KScore], criterion: str = "balanced",
                min_gain: float = MIN_GAIN_SHARE) -> tuple[int, int, list[KScore]]:
    """(recommended K, best-scoring K, the scores with their gaps to the best) by ``criterion``
    (see the module docstring)."""
    if criterion not in CRITERIA:
        raise InputError(f"unknown criterion {criterion!r} (one of {', '.join(CRITERIA)})")
    if not 0 <= min_gain < 1:
        raise InputError(f"the least gain per added topic is a share in [0, 1), got {min_gain}")
    within_one_se, best, scores = _one_standard_error(scores)
    if criterion == "heldout":
        return within_one_se, best, scores
    if criterion == "coherence":
        return _most_coherent(scores), best, scores
    elbow = elbow_k(scores, min_gain)
    best_cv = max((s.cv for s in scores if s.cv is not None), default=None)

    def readable(score: KScore) -> bool:
        return ((score.cv is None or score.cv >= best_cv - COHERENCE_TOLERANCE)
                and (score.diversity is None or score.diversity >= MIN_DIVERSITY))

    upto = [s for s in scores if s.n_topics <= elbow]
    guarded = [s.n_topics for s in upto if readable(s)]
    return (max(guarded) if guarded else _most_coherent(upto)), best, scores


def elbow_k(scores: list[KScore], min_gain: float = MIN_GAIN_SHARE) -> int:
    """The smallest K from which no larger K gains, per added topic, ``min_gain`` of K's
    held-out log-likelihood per document (the largest finite K when every K still gains)."""
    finite = sorted((s for s in scores if math.isfinite(s.mean)), key=lambda s: s.n_topics)
    return next(score.n_topics for i, score in enumerate(finite)
                if all((score.mean - larger.mean) / (larger.n_topics - score.n_topics)
                       < min_gain * abs(score.mean) for larger in finite[i + 1:]))


def _most_coherent(scores: list[KScore]) -> int:
    """The K of the highest mean c_v (ties: the smaller K)."""
    rated = [s for s in scores if s.cv is not None]
    if not rated:
        raise InputError("no K has a recorded c_v coherence (cells stored before it was "
                         "recorded): use --criterion heldout, or a new results directory")
    return max(rated, key=lambda s: (s.cv, -s.n_topics)).n_topics


def _one_standard_error(scores: list[KScore]) -> tuple[int, int, list[KScore]]:
    """(the one-standard-error K, the best-scoring K, the scores with their paired gaps)."""
    finite = [s for s in scores if math.isfinite(s.mean)]
    if not finite:
        raise InputError("no K has a finite held-out score: nothing to recommend")
    best = min(finite, key=lambda s: s.mean)
    gaps = {s.n_topics: paired_gap(s.documents, best.documents) for s in finite}
    if all(gap is not None for gap in gaps.values()):
        scores = [replace(s, gap=gaps[s.n_topics][0], gap_se=gaps[s.n_topics][1])
                  if s.n_topics in gaps else s for s in scores]
        within = [s.n_topics for s in scores if s.gap is not None and s.gap <= s.gap_se]
    else:  # older cells without per-document scores: unpaired
        within = [s.n_topics for s in finite if s.mean <= best.mean + best.standard_error]
    return min(within), best.n_topics, scores


@dataclass(frozen=True)
class HDPScore:
    """An `OnlineHDP` beside the K values: the topics it put to use (per seed), its held-out
    score on the same documents (mean over seeds, standard error as `KScore`'s) and its
    paired gap to the best K (positive: the HDP is worse)."""

    topics_used: list[int]
    mean: float
    standard_error: float
    gap: float
    gap_se: float
    replicates: int
    train_seconds: float

    def as_dict(self) -> dict:
        return {"topics_used": self.topics_used, "log_perplexity": self.mean,
                "standard_error": self.standard_error, "gap_to_best": self.gap,
                "gap_standard_error": self.gap_se, "replicates": self.replicates,
                "train_seconds": self.train_seconds}


def hdp_score(source: CorpusSource, options: Options, best: KScore, max_topics: int) -> HDPScore:
    """Train an `OnlineHDP` (G-OEM, Dupuy 2017 section 3.4; its default priors) per seed on the
    training split with the cells' minibatch, local passes, step size and passes, and score it
    on the cells' held-out documents with their metric (`held_out_parameters`: the rest of the
    stick included). Not stored as cells: it is rerun each time."""
    from ..estimators.hdp import OnlineHDP
    from ..reporting.progressive import ProgressiveEvaluation

    split = source.split(0, options.n_train, options.n_test)
    evaluation = ProgressiveEvaluation(split.test, metric=options.metric,
                                       n_particles=options.n_particles,
                                       max_tokens=options.max_tokens, seed=options.eval_seed)
    topics, values, document_se, seconds, documents = [], [], [], [], {}
    for seed in options.seeds:
        started = time.perf_counter()
        model = OnlineHDP(max_topics=max_topics, batch_size=options.batch_size,
                          local_passes=options.local_passes, step_offset=options.step_offset,
                          step_decay=options.step_decay, n_passes=options.n_passes,
                          random_state=seed).fit(split.train)
        seconds.append(time.perf_counter() - started)
        result = evaluation.score(*model.held_out_parameters())
        topics.append(int(model.n_topics_))
        values.append(result.log_perplexity_per_document)
        document_se.append(result.log_perplexity_per_document_se)
        documents[(0, seed)] = np.asarray(result.log_likelihoods)
    values, document_se = np.asarray(values), np.asarray(document_se)
    spread = values.var(ddof=1) if values.size > 1 else 0.0
    se = math.sqrt((spread + float(np.mean(document_se ** 2))) / values.size)
    gap = paired_gap(documents, best.documents) or (float(values.mean()) - best.mean, se)
    return HDPScore(topics, float(values.mean()), se, gap[0], gap[1], int(values.size),
                    float(np.mean(seconds)))


def select_k(source: CorpusSource, options: Options, method: str, output_directory,
             progress=None, log=None, hdp_max_topics: int | None = None,
             criterion: str = "balanced", min_gain: float = MIN_GAIN_SHARE) -> KSelection:
    """Run the ``perplexity-vs-k`` cells of ``method`` for ``options.topics`` on ``source``,
    write OUTPUT/select-k.json beside the experiment's files, and recommend a K by
    ``criterion`` (`recommend_k`). With
    ``hdp_max_topics``, an `OnlineHDP` capped there is trained and scored beside them
    (`hdp_score`); it does not enter the rule."""
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
    recommended, best, scores = recommend_k(scores, criterion, min_gain)
    best_score = next(score for score in scores if score.n_topics == best)
    hdp = None if hdp_max_topics is None else hdp_score(source, options, best_score,
                                                          hdp_max_topics)
    selection = KSelection(scores, recommended, best, report, hdp,
                           describe_criterion(criterion, min_gain), criterion)
    path = Path(output_directory) / "select-k.json"
    record = {"corpus": source.identity, "method": method, **selection.as_dict()}
    atomic_write(path, lambda handle: handle.write(json.dumps(record, indent=1).encode()))
    return selection
