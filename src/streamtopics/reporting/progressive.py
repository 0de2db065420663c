"""Progressive held-out evaluation: score the model every N training documents.

The curves of Dupuy & Bach (2016, Figure 3 and appendix E) plot the held-out log-perplexity
against the number of documents seen. `ProgressiveEvaluation` is a training callback that
produces those points:

    evaluation = ProgressiveEvaluation(test, every=1_000, n_documents=500, path="run.eval.jsonl")
    model.fit(train, callback=evaluation)
    evaluation.finish(model)            # also score the final model
    evaluation.records                  # [ProgressRecord(documents_seen, train_seconds, ...)]

Each record holds the documents seen, the training wall time *excluding* the time spent
evaluating, and the score of the current parameters (beta, alpha) on a fixed subset of the
held-out documents (the first ``n_documents``): left-to-right (Wallach et al. 2009, the paper's
measure) or the cheaper document completion. Evaluation uses its own random stream (``seed``),
never the training one, so training with the callback is bit-identical to training without it;
without the callback there is no cost at all.
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from ..corpus.corpus import Corpus
from ..errors import InputError
from ..evaluation import document_completion, left_to_right
from .strict_json import finite_json

METRICS = ("left-to-right", "completion")


@dataclass(frozen=True)
class ProgressRecord:
    """One evaluation during training.

    documents_seen : training documents processed so far (counting every pass).
    steps : online EM steps (minibatches) so far.
    train_seconds : wall time from the start of the first step to this point, minus the time
        spent in evaluations.
    eval_seconds : time this evaluation took.
    log_perplexity_per_document : -mean_d log p(w_d) in nats (Dupuy & Bach's unit; lower is
        better); for completion, of the held-out halves. ``_se``: its standard error.
    per_token_perplexity : exp(-sum_d log p(w_d) / sum_d N_d).
    n_documents, n_tokens : what was scored.
    """

    documents_seen: int
    steps: int
    train_seconds: float
    eval_seconds: float
    log_perplexity_per_document: float
    log_perplexity_per_document_se: float
    per_token_perplexity: float
    n_documents: int
    n_tokens: int

    def as_dict(self) -> dict:
        return asdict(self)


def topic_parameters_of(model):
    """(beta K x V, alpha K) of what a training callback receives: an estimator (`OnlineLDA.fit`
    passes itself; its `held_out_parameters`, which for an HDP include the rest of the stick)
    or the engine (`OnlineEM.fit` passes itself)."""
    if hasattr(model, "held_out_parameters"):
        return model.held_out_parameters()
    if hasattr(model, "components_"):
        return model.components_, model.doc_topic_prior_
    return model.components(), model.doc_topic_prior()


class ProgressiveEvaluation:
    """A training callback ``callback(model, report)`` that scores held-out documents.

    Parameters
    ----------
    test_documents : a `Corpus` of held-out documents (its vocabulary is the model's).
    every : evaluate after the first step at which at least this many more documents have been
        seen since the last evaluation threshold (thresholds every, 2 every, ...); None: only in
        `finish`.
    n_documents : score only the first ``n_documents`` held-out documents (a fixed subset, the
        same at every evaluation); None: all of them.
    metric : "left-to-right" (the paper's measure, ``n_particles`` particles, documents
        truncated to ``max_tokens`` tokens if given) or "completion" (document completion with
        its default settings: cheaper, a different quantity).
    seed : random stream of the evaluator (independent of training).
    path : optional JSON-lines file, rewritten from the first record and appended to after
        each evaluation (so an interrupted run keeps its records).
    n_jobs : threads of the evaluator (`streamtopics.threads`).
    """

    def __init__(self, test_documents: Corpus, every: int | None = None,
                 n_documents: int | None = None, metric: str = "left-to-right",
                 n_particles: int = 20, max_tokens: int | None = None, seed: int = 0,
                 path=None, n_jobs: int | None = None):
        if not isinstance(test_documents, Corpus):
            raise InputError(f"test_documents must be a Corpus, not {type(test_documents).__name__}")
        for name, value in (("every", every), ("n_documents", n_documents)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                                      or value < 1):
                raise InputError(f"{name} must be a positive integer or None, got {value!r}")
        if metric not in METRICS:
            raise InputError(f"metric must be one of {', '.join(METRICS)}, got {metric!r}")
        documents = test_documents if n_documents is None else test_documents[:n_documents]
        if documents.n_documents == 0 or documents.n_tokens == 0:
            raise InputError("progressive evaluation needs held-out documents with tokens")
        self.documents = documents
        self.every = every
        self.metric = metric
        self.n_particles = n_particles
        self.max_tokens = max_tokens
        self.seed = seed
        self.path = None if path is None else Path(path)
        self.n_jobs = n_jobs
        self.records: list[ProgressRecord] = []
        self.last_result = None  # the `HeldOutLikelihood` of the last record (per document)
        self._documents_seen = 0
        self._steps = 0
        self._next_threshold = every
        self._clock_origin: float | None = None
        self._eval_seconds_total = 0.0

    # --- the callback --------------------------------------------------------------------------
    def __call__(self, model, report) -> None:
        now = time.perf_counter()
        if self._clock_origin is None:
            self._clock_origin = now - report.seconds
        self._documents_seen += report.n_documents
        self._steps += 1
        if self._next_threshold is not None and self._documents_seen >= self._next_threshold:
            self._record(model, now)
            self._next_threshold = (self._documents_seen // self.every + 1) * self.every

    def finish(self, model) -> ProgressRecord:
        """Score the final model unless the last step was just scored; returns the last record."""
        if not self.records or self.records[-1].documents_seen != self._documents_seen:
            if self._clock_origin is None:
                raise InputError("finish() called before any training step")
            self._record(model, time.perf_counter())
        return self.records[-1]

    # --- evaluation ----------------------------------------------------------------------------
    def score(self, beta, alpha):
        """The `HeldOutLikelihood` of (beta, alpha) on the fixed held-out subset."""
        if self.metric == "completion":
            return document_completion(beta, alpha, self.documents, seed=self.seed,
                                       n_jobs=self.n_jobs)
        return left_to_right(beta, alpha, self.documents, n_particles=self.n_particles,
                             max_tokens=self.max_tokens, seed=self.seed, n_jobs=self.n_jobs)

    def _record(self, model, now: float) -> None:
        started = time.perf_counter()
        result = self.score(*topic_parameters_of(model))
        self.last_result = result
        record = ProgressRecord(
            documents_seen=self._documents_seen, steps=self._steps,
            train_seconds=now - self._clock_origin - self._eval_seconds_total,
            eval_seconds=time.perf_counter() - started,
            log_perplexity_per_document=result.log_perplexity_per_document,
            log_perplexity_per_document_se=result.log_perplexity_per_document_se,
            per_token_perplexity=_per_token_perplexity(result),
            n_documents=result.n_documents, n_tokens=result.n_tokens)
        self.records.append(record)
        if self.path is not None:
            with self.path.open("a" if len(self.records) > 1 else "w", encoding="utf-8") as handle:
                handle.write(json.dumps(strict_record(record.as_dict()), allow_nan=False) + "\n")
        self._eval_seconds_total += time.perf_counter() - now


def strict_record(values: dict) -> dict:
    """A record for the JSON lines file: non-finite numbers as null, with ``non_finite_reason``
    (a held-out document with a token of probability 0 under the topics scores -inf)."""
    nulled: list[str] = []
    values = finite_json(values, nulled=nulled)
    if nulled:
        values["non_finite_reason"] = (f"{', '.join(nulled)} not finite: a held-out token has "
                                       f"probability 0 (or underflows) under the topics")
    return values


def _per_token_perplexity(result) -> float:
    """exp(-log-likelihood per token), inf where that overflows (a near-zero probability)."""
    try:
        return result.per_token_perplexity
    except OverflowError:
        return math.inf
