"""Safe model files: one ``.npz`` (no pickle) with a JSON metadata entry, written atomically.

Layout: every model array under its own name, plus ``__metadata__``, a uint8 array holding UTF-8
JSON with the format name and version, the library version, the model's parameters and a SHA-256
checksum of the arrays. Loading checks all of it and never executes code (``allow_pickle=False``).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np

from ._version import __version__
from .atomic import atomic_write
from .errors import ModelFileError

FORMAT_NAME = "streamtopics-model"
FORMAT_VERSION = 1
_METADATA_KEY = "__metadata__"


def _checksum(arrays: dict[str, np.ndarray]) -> str:
    digest = hashlib.sha256()
    for name in sorted(arrays):
        array = np.ascontiguousarray(arrays[name])
        digest.update(f"{name}|{array.dtype.str}|{array.shape}|".encode())
        digest.update(array.tobytes())
    return digest.hexdigest()


def save_model(path, arrays: dict[str, np.ndarray], metadata: dict) -> None:
    """Write ``arrays`` and JSON-serialisable ``metadata`` to ``path`` atomically."""
    arrays = {name: np.asarray(value) for name, value in arrays.items()}
    for name, array in arrays.items():
        if name == _METADATA_KEY or array.dtype.hasobject:
            raise ValueError(f"array {name!r} cannot be stored safely (object dtype or reserved name)")
    header = {
        "format": FORMAT_NAME,
        "format_version": FORMAT_VERSION,
        "library_version": __version__,
        "checksum": _checksum(arrays),
        **metadata,
    }
    blob = np.frombuffer(json.dumps(header, sort_keys=True).encode("utf-8"), dtype=np.uint8)
    atomic_write(path, lambda handle: np.savez_compressed(handle, **arrays, **{_METADATA_KEY: blob}))


def load_model(path) -> tuple[dict[str, np.ndarray], dict]:
    """Read a model file; any defect raises `ModelFileError` naming the file and the problem."""
    path = Path(path)
    if not path.is_file():
        raise ModelFileError(f"{path}: no such model file")
    try:
        with np.load(path, allow_pickle=False) as archive:
            arrays = {name: archive[name] for name in archive.files}
    except Exception as error:  # a damaged archive can fail in zipfile, zlib or numpy parsing
        raise ModelFileError(f"{path}: not a readable streamtopics model file ({error})") from None
    if _METADATA_KEY not in arrays:
        raise ModelFileError(f"{path}: not a streamtopics model file (no metadata entry)")
    try:
        metadata = json.loads(arrays.pop(_METADATA_KEY).tobytes().decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ModelFileError(f"{path}: corrupted metadata ({error})") from None
    if not isinstance(metadata, dict) or metadata.get("format") != FORMAT_NAME:
        raise ModelFileError(f"{path}: not a streamtopics model file (format is "
                             f"{metadata.get('format') if isinstance(metadata, dict) else None!r})")
    version = metadata.get("format_version")
    if not isinstance(version, int) or version > FORMAT_VERSION:
        raise ModelFileError(f"{path}: format version {version!r} is newer than this library "
                             f"supports ({FORMAT_VERSION}); upgrade streamtopics")
    if metadata.get("checksum") != _checksum(arrays):
        raise ModelFileError(f"{path}: checksum mismatch, the file is corrupted")
    return arrays, metadata


def load_topic_parameters(path) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """(beta K x V, alpha K, vocabulary or None) from a streamtopics model file or a plain ``.npz``.

    Every streamtopics model file stores ``beta`` (rows sum to 1) and ``alpha``; a plain archive
    from another tool needs just those two arrays. This is what lets `evaluate` and `export`
    treat all models alike.
    """
    path = Path(path)
    try:
        arrays, _ = load_model(path)
    except ModelFileError:
        try:
            with np.load(path, allow_pickle=False) as archive:
                arrays = {name: archive[name] for name in archive.files}
        except Exception as error:  # any unreadable file: report it as a model-file problem
            raise ModelFileError(f"{path}: neither a streamtopics model nor a readable .npz "
                                 f"({error})") from None
    missing = [name for name in ("beta", "alpha") if name not in arrays]
    if missing:
        raise ModelFileError(f"{path}: missing array(s) {', '.join(missing)} (need beta K x V and alpha K)")
    beta = np.asarray(arrays["beta"], dtype=np.float64)
    alpha = np.asarray(arrays["alpha"], dtype=np.float64).ravel()
    if beta.ndim != 2 or alpha.shape != (beta.shape[0],):
        raise ModelFileError(f"{path}: beta must be K x V and alpha must have K entries "
                             f"(got {beta.shape} and {alpha.shape})")
    if not np.all(np.isfinite(beta)) or beta.min() < 0 or not np.all(np.isfinite(alpha)) or alpha.min() <= 0:
        raise ModelFileError(f"{path}: beta must be finite and non-negative, alpha finite and positive")
    beta = beta / beta.sum(axis=1, keepdims=True)
    vocabulary = arrays.get("vocabulary")
    return beta, alpha, vocabulary
