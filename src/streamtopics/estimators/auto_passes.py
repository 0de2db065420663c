"""``n_passes="auto"``: as many passes over a finite corpus as still improve held-out documents.

Why: one pass of online EM over a corpus of a few thousand documents is a few
dozen steps, far from a fixed point of EM. On newsarticles (3,402 documents, 34 minibatches of
100) at K = 20, one pass of G-OEM scores 7 nats per document behind scikit-learn's online LDA,
two passes 10 nats ahead, five passes 22 ahead, ten 26 ahead; neither the minibatch size, P = 50
local passes, the step size (1/i is worse) nor a fixed alpha closes the gap of one pass, while
each extra pass costs as much as the first. So a user calling ``fit`` gets passes until they stop
paying:

* a validation set is held out of the training documents: every `EVERY`-th document (spread over
  the corpus whatever its order, no randomness), at most `MAX_VALIDATION` of them; the rest is
  trained on. Corpora of fewer than `MIN_DOCUMENTS` documents are too small to hold any out and
  get one pass;
* after every pass the validation documents are scored by document completion (the second half
  of each document given its first half, `streamtopics.evaluation.document_completion`, with a
  fixed seed, so consecutive scores are paired; `ValidationScorer`): about
  70 times cheaper than left-to-right on long documents, and what matters here is only whether
  the model still improves;
* training stops after the first pass that improves the validation log-perplexity per document
  by less than `RELATIVE_TOLERANCE` of it, or after `MAX_PASSES`; if that last pass made it
  worse, the parameters of the best pass are restored.

Words that occur in no training document are dropped from the validation documents (a point
estimate without a topic-word prior gives them probability 0; they say nothing about passes).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ..corpus.corpus import Corpus, occurring_words, restrict_to_words
from ..evaluation import HeldOutLikelihood, document_completion

AUTO = "auto"
EVERY = 20
MAX_VALIDATION = 500
MIN_DOCUMENTS = 2 * EVERY
MAX_PASSES = 20
RELATIVE_TOLERANCE = 1e-3
VALIDATION_SEED = 0


@dataclass(frozen=True)
class ValidationSplit:
    """Row indices of the training and validation documents (both sorted)."""

    train_rows: np.ndarray
    validation_rows: np.ndarray


def validation_split(n_documents: int) -> ValidationSplit:
    """Every `EVERY`-th document (rows EVERY-1, 2 EVERY-1, ...), at most `MAX_VALIDATION`, is
    held out; none below `MIN_DOCUMENTS` documents."""
    rows = np.arange(n_documents)
    if n_documents < MIN_DOCUMENTS:
        return ValidationSplit(rows, rows[:0])
    held_out = rows[EVERY - 1::EVERY][:MAX_VALIDATION]
    return ValidationSplit(np.setdiff1d(rows, held_out), held_out)


def selection_rows(n_documents: int) -> np.ndarray:
    """Training rows that score `OnlineLDA`'s ``n_init`` runs when nothing is held out: every
    `EVERY`-th document (at most `MAX_VALIDATION`), or all of them below `MIN_DOCUMENTS`."""
    rows = np.arange(n_documents)
    return rows if n_documents < MIN_DOCUMENTS else rows[EVERY - 1::EVERY][:MAX_VALIDATION]


@dataclass(frozen=True)
class ValidationScorer:
    """Scores topic parameters on the validation documents by document completion with
    `VALIDATION_SEED`, so the scores of consecutive passes (or of ``n_init`` runs) are paired."""

    documents: Corpus

    def score(self, beta, alpha) -> HeldOutLikelihood:
        return document_completion(beta, alpha, self.documents, seed=VALIDATION_SEED)


def validation_evaluator(train_counts: sp.csr_matrix,
                         validation_counts: sp.csr_matrix) -> ValidationScorer | None:
    """The evaluator of the validation documents restricted to words seen in training (None
    when no validation document keeps a token)."""
    kept, _, _ = restrict_to_words(Corpus(validation_counts), occurring_words(train_counts))
    if kept.n_documents == 0:
        return None
    return ValidationScorer(kept)


class PassSchedule:
    """Decides after each pass whether to run another (see the module docstring); keeps the
    engine state of the best pass so far. ``scores`` holds the validation log-perplexity per
    document after each pass."""

    def __init__(self, evaluator: ValidationScorer | None, scores=(), best_state=None):
        self.evaluator = evaluator
        self.scores: list[float] = [float(score) for score in scores]
        self._best_score = min(self.scores, default=np.inf)
        self._best_state = best_state

    @property
    def best_state(self) -> tuple[dict[str, np.ndarray], int] | None:
        """(engine state arrays, step) of the best pass so far, None before the first score:
        with ``scores``, what a training checkpoint stores to continue the schedule exactly."""
        return self._best_state

    def another_pass(self, engine) -> bool:
        """Score the engine after a pass; True to run one more pass. When it returns False the
        engine holds the parameters of the best pass."""
        if self.evaluator is None:
            return False
        score = self.evaluator.score(engine.components(),
                                     engine.doc_topic_prior()).log_perplexity_per_document
        self.scores.append(float(score))
        improved = bool(score < self._best_score - RELATIVE_TOLERANCE * abs(score))
        if score < self._best_score:
            self._best_score = score
            self._best_state = ({name: np.array(value, copy=True)
                                 for name, value in engine.state_arrays().items()}, engine.step)
        elif self._best_state is not None:
            engine.restore(*self._best_state)
        return improved and len(self.scores) < MAX_PASSES


@dataclass
class FitProgress:
    """Where `OnlineLDA.fit` stands, at a minibatch boundary: ``passes`` passes complete,
    ``documents`` training documents of the next pass trained on, and with ``n_passes="auto"``
    the `PassSchedule` (scores so far, best pass). A training checkpoint stores it
    (`streamtopics.training.fit_with_checkpoints`), so a resumed `fit` runs the minibatches and
    the passes that the uninterrupted one runs."""

    passes: int = 0
    documents: int = 0
    schedule: PassSchedule | None = None
