"""Training checkpoint files: a safe model file (`persistence`) with a ``checkpoint`` entry.

A checkpoint is the complete training state as one model file (`persistence.save_model`:
temporary file, fsync, rename, so a crash at any moment leaves the previous checkpoint or the
new one, never a torn file): the model file's arrays (sufficient statistics, current alpha,
averaging state), its metadata (parameters, method, engine seed, step counter) and a
``checkpoint`` entry:

    {"format": CHECKPOINT_FORMAT, "position": {"pass_index", "documents", "documents_total"},
     "batch_size": int or null, "n_passes": int, "finished": bool,
     "source": the source's identity (`corpus.sources.MinibatchSource.identity`)}

No random generator state is needed: the local estimators' random streams derive from (seed,
step index, document index), so the step counter is the only random state. A checkpoint is
also a model file: ``OnlineLDA.load(checkpoint)`` works. `training.train_stream` writes and
resumes them.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from . import persistence
from .errors import ModelFileError

CHECKPOINT_FORMAT = 1


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
    n_passes: int
    finished: bool
    source: dict


def write_checkpoint(path, model, position: StreamPosition, *, batch_size: int | None,
                     n_passes: int, source: dict, finished: bool = False) -> None:
    """Write ``model``'s complete state (``model.model_file_contents()``) and the stream
    ``position`` to ``path`` atomically (one model file with a ``checkpoint`` metadata entry)."""
    arrays, metadata = model.model_file_contents()
    metadata["checkpoint"] = {"format": CHECKPOINT_FORMAT, "position": asdict(position),
                              "batch_size": batch_size, "n_passes": int(n_passes),
                              "finished": bool(finished), "source": source}
    persistence.save_model(path, arrays, metadata)


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
        return Checkpoint(position, batch_size, int(entry["n_passes"]), bool(entry["finished"]),
                          dict(entry["source"]))
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
    return differences


def remove_stale_temporaries(path: Path) -> None:
    """Temporary files an atomic write left when its process was killed (`atomic.AtomicFile`
    names them ``.NAME.HEX.tmp``); one process trains per checkpoint."""
    for stale in path.parent.glob(f".{path.name}.*.tmp"):
        stale.unlink(missing_ok=True)
