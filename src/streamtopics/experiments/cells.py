"""Cells of an experiment grid and the store that makes runs resumable.

A `Cell` is one training run plus its evaluation, fixed by every setting that changes its
result: corpus, split, seed, method, K, step size, averaging, alpha update, minibatch size,
local passes, sizes and the evaluation protocol. Its key is a hash of those settings (not of the
experiment that asked for it), so experiments that need the same run share it: ``boosting`` and
``time`` reuse cells of ``perplexity-vs-k`` written to the same results directory.

`CellStore` keeps one JSON file per completed cell, ``DIRECTORY/<key>.json`` with the settings
and the result, written atomically; a cell whose file exists is never recomputed.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, fields
from pathlib import Path

from ..atomic import atomic_write
from ..corpus.streaming import DEFAULT_BATCH_SIZE
from ..inference.presets import DEFAULT_LOCAL_PASSES, DEFAULT_STEP_DECAY, DEFAULT_STEP_OFFSET

# Bump when the meaning of a stored result changes, so old cells are recomputed.
CELL_FORMAT = 1
HELD_OUT_WORDS = ("training", "first-evaluation")


@dataclass(frozen=True)
class Cell:
    """The settings of one run (see the module docstring).

    corpus : identity of the corpus source (`experiments.data.CorpusSource.identity`).
    split : 0 is the corpus' own train/test split; s >= 1 a reshuffle of train + test by s.
    seed : the estimator's ``random_state`` (beta_0 and every random stream of training).
    method : a preset name of `inference.presets.PRESETS`.
    step_decay : kappa, rho_i = (step_offset + i)^-kappa (0: the constant step 1).
    alpha_update : an `inference.presets.ALPHA_UPDATES` name replacing the method's own; None
        keeps it. "fixed" keeps alpha at its initial value: the true alpha of a synthetic corpus
        when K equals the true number of topics, else 1/K.
    n_train, n_test : first documents of the split's train and test parts (None: all).
    metric, n_particles, max_tokens, eval_seed : the held-out evaluation.
    eval_every : evaluate every this many documents during training (None: only at the end).
    held_out_words : which held-out tokens are scored: "training" keeps the words of the split's
        training part (`experiments.data`); "first-evaluation" only the words of the training
        documents seen by the first evaluation, so that every evaluation of a run scores the
        same tokens with finite probability (a point estimate gives a word not yet seen
        probability 0).
    """

    corpus: str
    split: int
    seed: int
    method: str
    n_topics: int
    step_decay: float = DEFAULT_STEP_DECAY
    step_offset: float = DEFAULT_STEP_OFFSET
    averaging: bool = False
    alpha_update: str | None = None
    batch_size: int = DEFAULT_BATCH_SIZE
    local_passes: int = DEFAULT_LOCAL_PASSES
    n_passes: int = 1
    n_train: int | None = None
    n_test: int | None = None
    metric: str = "left-to-right"
    n_particles: int = 20
    max_tokens: int | None = None
    eval_seed: int = 0
    eval_every: int | None = None
    held_out_words: str = "training"

    def __post_init__(self):
        # One spelling per value, so equal settings hash equally (1 and 1.0, numpy scalars).
        for name in ("step_decay", "step_offset"):
            object.__setattr__(self, name, float(getattr(self, name)))
        for name in ("split", "seed", "n_topics", "batch_size", "local_passes", "n_passes",
                     "n_particles", "eval_seed", "n_train", "n_test", "max_tokens", "eval_every"):
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, int(value))
        object.__setattr__(self, "averaging", bool(self.averaging))
        if self.held_out_words not in HELD_OUT_WORDS:
            raise ValueError(f"held_out_words must be one of {HELD_OUT_WORDS}, "
                             f"got {self.held_out_words!r}")
        if self.held_out_words == "first-evaluation" and self.eval_every is None:
            raise ValueError("held_out_words='first-evaluation' needs eval_every")

    def as_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, values: dict) -> "Cell":
        return cls(**{field.name: values[field.name] for field in fields(cls) if field.name in values})

    def key(self) -> str:
        """Stable hash of the settings (and of `CELL_FORMAT`). Fields added after the first
        format are left out at their default value, so stored cells keep their keys."""
        settings = {name: value for name, value in self.as_dict().items()
                    if _LATER_FIELDS.get(name, _ABSENT) != value}
        blob = json.dumps({"format": CELL_FORMAT, **settings}, sort_keys=True)
        return hashlib.sha256(blob.encode()).hexdigest()[:20]

    def label(self) -> str:
        """Short human description for progress bars and messages."""
        parts = [self.method, f"K={self.n_topics}", f"step_decay={self.step_decay:g}"]
        if self.averaging:
            parts.append("averaged")
        if self.alpha_update is not None:
            parts.append(f"alpha={self.alpha_update}")
        parts += [f"split={self.split}", f"seed={self.seed}"]
        return " ".join(parts)


_ABSENT = object()
_LATER_FIELDS = {"held_out_words": "training"}


class CellStore:
    """Completed cells on disk, one ``<key>.json`` file each."""

    def __init__(self, directory):
        self.directory = Path(directory)

    def path(self, cell: Cell) -> Path:
        return self.directory / f"{cell.key()}.json"

    def load(self, cell: Cell) -> dict | None:
        """The stored result of ``cell``, or None when it has not been completed (a file whose
        settings differ, e.g. a hash collision or a hand edit, counts as not completed)."""
        path = self.path(cell)
        if not path.is_file():
            return None
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        try:
            same = Cell.from_dict(record["cell"]) == cell and record.get("format") == CELL_FORMAT
        except (KeyError, TypeError, ValueError):
            return None
        if not same:
            return None
        return record["result"]

    def save(self, cell: Cell, result: dict) -> None:
        blob = json.dumps({"format": CELL_FORMAT, "cell": cell.as_dict(), "result": result},
                          indent=1, sort_keys=True)
        atomic_write(self.path(cell), lambda handle: handle.write(blob.encode()))
