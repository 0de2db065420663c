"""Run the cells of an experiment (resumably) and write its JSON, markdown table and plot.

`run_cell` trains one `OnlineLDA` on a split and scores it with `ProgressiveEvaluation` (at the
end, and every ``eval_every`` documents when asked). `run_experiment` takes the cells of a named
experiment (`experiments.named`), skips those already in the results directory's cell store,
runs the others, and writes

    OUT/NAME.json    every cell's settings and result, the summary (median, 3rd and 7th
                     decile per point), the splits' descriptions, skipped cells;
    OUT/NAME.md      the summary as markdown tables: median [3rd decile, 7th decile];
    OUT/NAME.png     the plot (when matplotlib is installed);
    OUT/cells/       one JSON file per completed cell (what makes runs resumable).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from collections.abc import Callable

import numpy as np

from ..atomic import atomic_write
from ..corpus.corpus import occurring_words, restrict_to_words
from ..errors import InputError
from ..validation import ParameterError
from ..estimators.online_lda import OnlineLDA
from ..evaluation import cv_coherence, npmi_coherence, topic_diversity
from ..inference.presets import ALPHA_UPDATES, PRESETS, STEP_SIZES, resolve_method
from ..reporting.plots import MISSING_MATPLOTLIB
from ..reporting.progressive import ProgressiveEvaluation
from ..reporting.tables import summarize
from .cells import Cell, CellStore
from .data import CorpusSource, ExperimentSplit

COHERENCE_TOP_WORDS = 10  # the top words of each topic whose NPMI and c_v a cell records
PER_DOCUMENT = "document_log_likelihoods"  # a cell's held-out log p(w_d), document by document


class UnavailableCell(Exception):
    """The cell needs a part this installation does not have (a preset or an alpha update)."""


class CellFailure(Exception):
    """Training produced parameters the held-out evaluation refuses (e.g. topics that are not
    distributions); the cell is reported as failed and not stored, so a later run retries it."""


def cell_method(cell: Cell):
    """The preset name, or the preset with parts replaced (a `presets.Method`):

    * ``alpha_update`` when the cell names one;
    * the step size when ``step_decay`` (kappa) = 0: gamma_i = 1/i^0 = 1 (appendix B.2 has no
      proportionality constant), i.e. the ``constant`` step rho_i = 1, for presets whose step
      is polynomial (a 1/i preset keeps its own step whatever kappa). Any other value is the
      estimator's to check (`OnlineLDA`: its polynomial step size).
    """
    if cell.method not in PRESETS:
        raise UnavailableCell(f"method {cell.method!r} is not available here "
                              f"(presets: {', '.join(PRESETS)})")
    preset = PRESETS[cell.method]
    changes = {}
    if cell.alpha_update is not None:
        if cell.alpha_update not in ALPHA_UPDATES:
            raise UnavailableCell(f"alpha update {cell.alpha_update!r} is not available here "
                                  f"(alpha updates: {', '.join(ALPHA_UPDATES)})")
        changes["alpha_update"] = cell.alpha_update
    if cell.step_decay == 0 and preset.step_size == "polynomial":
        if "constant" not in STEP_SIZES:
            raise UnavailableCell("step_decay = 0 needs the constant step size, not available "
                                  "here")
        changes["step_size"] = "constant"
    if not changes:
        return cell.method
    suffix = "".join(f"/{key}={value}" for key, value in changes.items())
    return replace(preset, **changes, name=preset.name + suffix)


def initial_alpha(cell: Cell, split: ExperimentSplit):
    """(doc_topic_prior, description): the generating alpha when alpha stays fixed on a
    synthetic corpus with the true K (appendix F, "NO"), else the estimator's default 1/K."""
    if (cell.alpha_update == "fixed" and split.true_alpha is not None
            and split.true_alpha.size == cell.n_topics):
        return split.true_alpha, "true alpha"
    return None, "1/K"


def held_out_documents(cell: Cell, split: ExperimentSplit):
    """The held-out documents the cell scores (see `Cell.held_out_words`)."""
    if cell.held_out_words == "training":
        return split.test
    first = min(-(-cell.eval_every // cell.batch_size) * cell.batch_size, split.train.n_documents)
    documents, _, _ = restrict_to_words(split.test, occurring_words(split.train.counts[:first]))
    if documents.n_documents == 0:
        raise CellFailure(f"no held-out token has a word seen in the first {first} documents")
    return documents


def paper_topic_word_prior(cell: Cell, method) -> float | None:
    """eta as the paper's experiments define it: the maximum likelihood M-step (eta = 0,
    Dupuy & Bach 2016, appendix A.1) for the frequentist presets, 1/K for SGS (Gao et al.'s
    smoothed counts) and the Bayesian presets (None: the estimator's default, 1/K). The
    library's default prior for frequentist presets (`default_topic_word_prior`) is not used
    here, so the figures keep their definition; held-out tokens of unseen words are dropped
    (`held_out_documents`)."""
    spec = resolve_method(method)
    if spec.parameters == "smoothed":
        return 1.0 / cell.n_topics if spec.local == "gibbs-last-sample" else 0.0
    return None


def run_cell(cell: Cell, split: ExperimentSplit, on_documents: Callable[[int], None] | None = None) -> dict:
    """Train and score one cell; ``on_documents(n)`` is told of every minibatch (progress)."""
    method = cell_method(cell)
    prior, prior_description = initial_alpha(cell, split)
    model = OnlineLDA(n_topics=cell.n_topics, method=method, batch_size=cell.batch_size,
                      local_passes=cell.local_passes, step_offset=cell.step_offset,
                      step_decay=cell.step_decay, averaging=cell.averaging,
                      n_passes=cell.n_passes, doc_topic_prior=prior, random_state=cell.seed,
                      topic_word_prior=paper_topic_word_prior(cell, method))
    evaluation = ProgressiveEvaluation(held_out_documents(cell, split), every=cell.eval_every,
                                       metric=cell.metric, n_particles=cell.n_particles,
                                       max_tokens=cell.max_tokens, seed=cell.eval_seed)

    def callback(fitted, report):
        evaluation(fitted, report)
        if on_documents is not None:
            on_documents(report.n_documents)

    try:
        model.fit(split.train, callback=callback)
        final = evaluation.finish(model)
    except ParameterError:  # a setting the estimator refuses: the grid's error, not the cell's
        raise
    except InputError as error:  # the evaluator's checks of beta and alpha
        raise CellFailure(f"the held-out evaluation refused the trained parameters: {error}") from None
    return {
        "log_perplexity": final.log_perplexity_per_document,
        "log_perplexity_se": final.log_perplexity_per_document_se,
        "per_token_perplexity": final.per_token_perplexity,
        "train_seconds": final.train_seconds,
        "documents_seen": final.documents_seen,
        "documents_per_second": final.documents_seen / final.train_seconds,
        "eval_documents": final.n_documents, "eval_tokens": final.n_tokens,
        "alpha_mean": float(model.doc_topic_prior_.mean()),
        **_topic_quality(model.components_, split.train),
        # for comparisons paired by document (select-k); left out of the experiment's JSON
        PER_DOCUMENT: [round(float(value), 6) for value in evaluation.last_result.log_likelihoods],
        "initial_alpha": prior_description,
        "method": model.method_.as_dict(),
        "trace": [record.as_dict() for record in evaluation.records] if cell.eval_every else [],
    }


def _topic_quality(beta, reference, n_top: int = COHERENCE_TOP_WORDS) -> dict:
    """Mean NPMI and c_v coherence of the topics' top words on the training documents
    (`evaluation.coherence`; fewer top words when the vocabulary is smaller), and the topics'
    diversity (unique share of their top 25 words)."""
    n_top = min(n_top, beta.shape[1])
    return {"npmi_coherence": float(npmi_coherence(beta, reference, n_top).mean()),
            "cv_coherence": float(cv_coherence(beta, reference, n_top).mean()),
            "topic_diversity": topic_diversity(beta)[0]}


def _describe(split: ExperimentSplit, cell: Cell) -> dict:
    """The split's description, with the held-out score of the true model on synthetic data
    (the same evaluation as the cells: a floor no fitted model should beat by more than noise)."""
    if split.true_beta is None:
        return split.description
    evaluation = ProgressiveEvaluation(split.test, metric=cell.metric, n_particles=cell.n_particles,
                                       max_tokens=cell.max_tokens, seed=cell.eval_seed)
    score = evaluation.score(split.true_beta, split.true_alpha)
    return {**split.description, "true_model_log_perplexity": score.log_perplexity_per_document}


@dataclass
class ExperimentReport:
    """What `run_experiment` did and wrote."""

    name: str
    json_path: Path
    markdown_path: Path
    plot_path: Path | None
    markdown: str
    computed: int
    reused: int
    skipped: list[dict] = field(default_factory=list)
    failed: list[dict] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)
    results: list[tuple[Cell, dict]] = field(default_factory=list)  # (cell, result) completed


def run_experiment(experiment, source: CorpusSource, options, output_directory,
                   progress=None, log: Callable[[str], None] | None = None) -> ExperimentReport:
    """Run ``experiment`` (an `experiments.named.Experiment`) with ``options`` on ``source``.

    ``progress(total=..., desc=...)`` makes a progress bar (a tqdm-like object with ``update``,
    ``set_postfix_str`` and ``close``) counting training documents; ``log`` receives messages
    (skipped cells, missing matplotlib) as they happen.
    """
    output = Path(output_directory)
    store = CellStore(output / "cells")
    messages: list[str] = []

    def say(message: str) -> None:
        messages.append(message)
        if log is not None:
            log(message)

    cells = list(dict.fromkeys(experiment.cells(options, source, say)))
    stored = {cell: store.load(cell) for cell in cells}
    skipped, failed, runnable = [], [], []
    for cell in cells:
        if stored[cell] is None:
            try:
                cell_method(cell)
                runnable.append(cell)
            except UnavailableCell as reason:
                skipped.append({"cell": cell.as_dict(), "reason": str(reason)})
                say(f"skipped {cell.label()}: {reason}")
    splits = {cell: source.split(cell.split, cell.n_train, cell.n_test) for cell in cells}
    total = sum(splits[cell].train.n_documents * cell.n_passes for cell in runnable)
    bar = progress(total=total, desc=experiment.name) if progress is not None and runnable else None
    results, computed = [], 0
    try:
        for cell in cells:
            if stored[cell] is not None:
                results.append((cell, stored[cell]))
                continue
            if cell not in runnable:
                continue
            if bar is not None:
                bar.set_postfix_str(cell.label(), refresh=False)
            try:
                result = run_cell(cell, splits[cell], None if bar is None else bar.update)
            except CellFailure as reason:
                failed.append({"cell": cell.as_dict(), "reason": str(reason)})
                say(f"FAILED {cell.label()}: {reason}")
                continue
            store.save(cell, result)
            results.append((cell, result))
            computed += 1
    finally:
        if bar is not None:
            bar.close()

    summary = summarize(point for cell, result in results
                        for point in experiment.points(cell, result))
    split_descriptions = [_describe(split, cells[0]) for split in
                          {id(split): split for split in splits.values()}.values()] if cells else []
    scored = sorted({(result["eval_documents"], result["eval_tokens"]) for _, result in results})
    markdown = experiment.markdown(summary, options, source, split_descriptions, skipped, failed,
                                   scored)
    output.mkdir(parents=True, exist_ok=True)
    plot_path = None
    if summary:
        references = [s["true_model_log_perplexity"] for s in split_descriptions
                      if "true_model_log_perplexity" in s]
        plot_path = experiment.plot(summary, options, source, output / f"{experiment.name}.png",
                                    float(np.median(references)) if references else None)
        if plot_path is None:
            say(MISSING_MATPLOTLIB)
    json_path = output / f"{experiment.name}.json"
    markdown_path = output / f"{experiment.name}.md"
    record = {
        "experiment": experiment.name, "figure": experiment.figure,
        "description": experiment.description, "corpus": source.identity,
        "options": asdict(options), "splits": split_descriptions,
        "summary": summary, "skipped": skipped, "failed": failed,
        "cells": [{"key": cell.key(), "cell": cell.as_dict(),
                   "result": {k: v for k, v in result.items() if k != PER_DOCUMENT}}
                  for cell, result in results],
        "files": {"markdown": markdown_path.name,
                  "plot": None if plot_path is None else plot_path.name},
    }
    atomic_write(json_path, lambda handle: handle.write(json.dumps(record, indent=1).encode()))
    atomic_write(markdown_path, lambda handle: handle.write(markdown.encode()))
    return ExperimentReport(experiment.name, json_path, markdown_path, plot_path, markdown,
                            computed=computed, reused=len(results) - computed, skipped=skipped,
                            failed=failed, messages=messages, results=results)
