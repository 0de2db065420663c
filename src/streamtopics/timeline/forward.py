"""Evaluation in time order: forward chaining, each period scored by models of the past alone.

For every period t after the first, the documents of period t are held out and scored by the
left-to-right estimate of log p(w_d) (Wallach et al. 2009, Algorithm 3; `left_to_right`) under
topics trained on the periods before t only:

- a tracking run (`track_topics`): its snapshot at the end of period t - 1, (beta^(t-1),
  alpha^(t-1)); one pass over the stream gives every period's model, so any number of runs
  (G-OEM with and without a step floor) costs one pass each;
- a static model: fitted afresh on all the documents of the periods before t (``static``, a
  function of those documents returning a fitted estimator), one fit per period.

The score is the mean log-likelihood per held-out document (nats; higher is better) and per
token. Vocabulary: every model has the corpus' words, chosen from all periods (as
`streamtopics preprocess` builds one vocabulary for a whole corpus), so no model sees a word
the others do not.
"""

from __future__ import annotations

import time as clock
from dataclasses import dataclass, field

import numpy as np

from ..corpus.corpus import Corpus
from ..errors import InputError
from ..evaluation.left_to_right import left_to_right
from .tracking import TrackedTopics


@dataclass
class ForwardScores:
    """Per period (from the second): ``labels``, ``documents`` scored, ``tokens`` scored, and
    for each model name its mean log-likelihood per document (``per_document[name]``, P - 1
    numbers) and per token; ``seconds[name]``: the static models' training time summed (the
    tracking runs' times are the caller's)."""

    labels: list[str]
    documents: list[int]
    tokens: list[int]
    per_document: dict[str, list[float]] = field(default_factory=dict)
    per_token: dict[str, list[float]] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)

    def rows(self) -> list[dict]:
        """One row per scored period: ``period``, ``documents``, ``tokens`` and a
        ``<model>_per_document`` column per model."""
        return [{"period": label, "documents": self.documents[i], "tokens": self.tokens[i],
                 **{f"{name}_per_document": scores[i]
                    for name, scores in self.per_document.items()}}
                for i, label in enumerate(self.labels)]

    def wins(self, name: str, other: str) -> int:
        """Periods in which ``name`` scores higher per document than ``other``."""
        return int(sum(a > b for a, b in zip(self.per_document[name], self.per_document[other])))


def forward_chaining(corpus: Corpus, tracked: dict[str, TrackedTopics], static=None,
                     max_documents: int | None = 300, n_particles: int = 20,
                     seed: int = 0) -> ForwardScores:
    """Score each period after the first (module docstring) under every run of ``tracked``
    (name -> `TrackedTopics` of ``corpus``, all with the same periods) and, if given,
    ``static(corpus_of_the_past)`` -> a fitted estimator. ``corpus``: the documents the runs
    were trained on, in the time order of their periods (`track_topics` sorts them: pass the
    sorted corpus). ``max_documents``: score a random sample of at most that many documents of
    each period (seeded by ``seed``; None: all)."""
    if not tracked:
        raise InputError("forward chaining needs at least one tracking run")
    runs = list(tracked.values())
    periods = runs[0].periods
    if any(run.periods.labels != periods.labels for run in runs):
        raise InputError("the tracking runs must share their periods")
    rng = np.random.default_rng(seed)
    scores = ForwardScores([], [], [])
    names = list(tracked) + ([] if static is None else ["static"])
    for name in names:
        scores.per_document[name], scores.per_token[name] = [], []
    if static is not None:
        scores.seconds["static"] = 0.0
    for t in range(1, periods.n_periods):
        rows = np.flatnonzero(periods.index == t)
        if max_documents is not None and rows.size > max_documents:
            rows = np.sort(rng.choice(rows, max_documents, replace=False))
        held_out = corpus[rows]
        if held_out.n_tokens == 0:
            continue
        models = {name: (run.snapshots[t - 1], run.alphas[t - 1]) for name, run in tracked.items()}
        if static is not None:
            started = clock.perf_counter()
            fitted = static(corpus[np.flatnonzero(periods.index < t)])
            scores.seconds["static"] += clock.perf_counter() - started
            models["static"] = (fitted.components_, fitted.doc_topic_prior_)
        scores.labels.append(periods.labels[t])
        scores.documents.append(int(held_out.n_documents))
        scores.tokens.append(int(held_out.n_tokens))
        for name, (beta, alpha) in models.items():
            result = left_to_right(beta, alpha, held_out, n_particles=n_particles, seed=seed)
            total = float(np.sum(result.log_likelihoods))
            scores.per_document[name].append(total / held_out.n_documents)
            scores.per_token[name].append(total / held_out.n_tokens)
    return scores
