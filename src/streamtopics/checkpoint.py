"""Training checkpoint files: a safe model file (`persistence`) with a ``checkpoint`` entry.

A checkpoint is the complete training state as one model file (`persistence.save_model`:
temporary file, fsync, rename, so a crash at any moment leaves the previous checkpoint or the
new one, never a torn file): the model file's arrays (sufficient statistics, current alpha,
averaging state), its metadata (parameters, method, engine seed, step counter) and a
``checkpoint`` entry:

    {"format": CHECKPOINT_FORMAT, "position": {"pass_index", "documents", "documents_total"},
     "batch_size": int or null, "n_passes": int or "auto", "finished": bool,
     "source": the source's identity (`corpus.sources.MinibatchSource.identity`),
     "schedule": with automatic passes, {"scores": validation score after each pass,
                 "best_step": step of the best pass or null}}

With automatic passes (`estimators.auto_passes`) the arrays also hold ``validation_rows`` (the
rows held out) and, once a pass is scored, the engine state of the best pass, each array's name
prefixed with `BEST_PASS_PREFIX`: a resumed fit continues the same schedule.

No random generator state is needed: the local estimators' random streams derive from (seed,
step index, document index), so the step counter is the only random state. A checkpoint is
also a model file: ``OnlineLDA.load(checkpoint)`` works. `training.train_stream` (a stream)
and `training.fit_with_checkpoints` (`fit` over a corpus in memory) write and resume them.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from . import persistence
from .errors import ModelFileError

CHECKPOINT_FORMAT = 1
BEST_PASS_PREFIX = "best_pass."


@dataclass(frozen=True)
class StreamPosition:
    """Where training stands: ``pass_index`` passes over the source are complete, and
    ``documents`` documents of the next pass have been trained on; ``documents_total`` counts
    every document trained on since the run began (over passes and resumes)."""

    pass_index: int = 0
    documents: int = 0
    documents_total: int = 0


@dataclass(frozen=True)
class Checkpoint:
    """The ``checkpoint`` entry of a checkpoint file (see `read_checkpoint`)."""

    position: StreamPosition
    batch_size: int | None
    n_passes: int | str
    finished: bool
    source: dict
    schedule: dict | None = None


@dataclass(frozen=True)
class ScheduleState:
    """The automatic passes' state so far (`estimators.auto_passes.PassSchedule`):
    ``scores`` after each complete pass, the held-out ``validation_rows`` and the best pass's
    engine state (``best_arrays``, ``best_step``; None before the first score)."""

    scores: list
    validation_rows: np.ndarray
    best_arrays: dict | None = None
    best_step: int | None = None


def write_checkpoint(path, model, position: StreamPosition, *, batch_size: int | None,
                     n_passes: int | str, source: dict, finished: bool = False,
                     schedule: ScheduleState | None = None) -> None:
    """Write ``model``'s complete state (``model.model_file_contents()``), the stream
    ``position`` and the automatic passes' ``schedule`` to ``path`` atomically (one model file
    with a ``checkpoint`` metadata entry)."""
    arrays, metadata = model.model_file_contents()
    metadata["checkpoint"] = {"format": CHECKPOINT_FORMAT, "position": asdict(position),
                              "batch_size": batch_size,
                              "n_passes": n_passes if n_passes == "auto" else int(n_passes),
                              "finished": bool(finished), "source": source}
    if schedule is not None:
        metadata["checkpoint"]["schedule"] = {
            "scores": [float(score) for score in schedule.scores],
            "best_step": None if schedule.best_step is None else int(schedule.best_step)}
        arrays["validation_rows"] = np.asarray(schedule.validation_rows, dtype=np.int64)
        for name, array in (schedule.best_arrays or {}).items():
            arrays[BEST_PASS_PREFIX + name] = array
    persistence.save_model(path, arrays, metadata)


def schedule_state(checkpoint: Checkpoint, arrays: dict) -> ScheduleState | None:
    """The `ScheduleState` a checkpoint holds (None: not one of automatic passes)."""
    if checkpoint.schedule is None:
        return None
    try:
        best = {name[len(BEST_PASS_PREFIX):]: array for name, array in arrays.items()
                if name.startswith(BEST_PASS_PREFIX)}
        step = checkpoint.schedule["best_step"]
        return ScheduleState([float(score) for score in checkpoint.schedule["scores"]],
                             arrays["validation_rows"], best if step is not None else None,
                             None if step is None else int(step))
    except (KeyError, TypeError, ValueError) as error:
        raise ModelFileError(f"corrupted automatic passes' state in the checkpoint "
                             f"({type(error).__name__}: {error})") from None


def _parse_checkpoint(path, metadata: dict) -> Checkpoint:
    entry = metadata.get("checkpoint")
    if not isinstance(entry, dict):
        raise ModelFileError(f"{path}: a model file, not a training checkpoint (no checkpoint "
                             f"entry)")
    try:
        if entry["format"] != CHECKPOINT_FORMAT:
            raise ModelFileError(f"{path}: checkpoint format {entry['format']!r} is not "
                                 f"{CHECKPOINT_FORMAT}")
        position = StreamPosition(**{name: int(value) for name, value in entry["position"].items()})
        batch_size = None if entry["batch_size"] is None else int(entry["batch_size"])
        n_passes = entry["n_passes"] if entry["n_passes"] == "auto" else int(entry["n_passes"])
        schedule = entry.get("schedule")
        return Checkpoint(position, batch_size, n_passes, bool(entry["finished"]),
                          dict(entry["source"]), None if schedule is None else dict(schedule))
    except (KeyError, TypeError, ValueError) as error:
        raise ModelFileError(f"{path}: corrupted checkpoint entry ({type(error).__name__}: "
                             f"{error})") from None


def read_checkpoint(path) -> tuple[Checkpoint, dict[str, np.ndarray], dict]:
    """(`Checkpoint`, model arrays, model metadata) of a checkpoint file; `ModelFileError` if it
    is missing, corrupt or not a checkpoint."""
    arrays, metadata = persistence.load_model(path)
    return _parse_checkpoint(path, metadata), arrays, metadata


def source_differences(stored: dict, current: dict) -> list[str]:
    """How the identity of the source now differs from the one a checkpoint recorded (empty:
    the same source)."""
    if stored.get("kind") != current.get("kind"):
        return [f"it read {stored.get('kind')!r}, the source now is {current.get('kind')!r}"]
    differences = []
    if "size" in current and stored.get("size") != current["size"]:
        differences.append(f"the source has {current['size']} bytes, the checkpoint's "
                           f"{stored.get('path', '')} had {stored.get('size')}")
    if "prefix_sha256" in current and (stored.get("prefix_bytes"), stored.get("prefix_sha256")) \
            != (current["prefix_bytes"], current["prefix_sha256"]):
        differences.append(f"the first {current['prefix_bytes']} bytes of the source differ "
                           f"from those the checkpoint read")
    if "sha256" in current and stored.get("sha256") != current["sha256"]:
        differences.append("the documents differ from those the checkpoint trained on")
    return differences


def remove_stale_temporaries(path: Path) -> None:
    """Temporary files an atomic write left when its process was killed (`atomic.AtomicFile`
    names them ``.NAME.HEX.tmp``); one process trains per checkpoint."""
    for stale in path.parent.glob(f".{path.name}.*.tmp"):
        stale.unlink(missing_ok=True)
