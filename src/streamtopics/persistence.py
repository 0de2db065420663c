"""Safe model files: one ``.npz`` (no pickle) with a JSON metadata entry, written atomically.

Layout: every model array under its own name, plus ``__metadata__``, a uint8 array holding UTF-8
JSON with the format name and version, the library version, the model's parameters and a SHA-256
checksum of the arrays. Loading checks all of it and never executes code (``allow_pickle=False``).
Nor does it trust sizes: each array's ``.npy`` header is checked against the bytes its archive
member holds before NumPy allocates for it (`_read_arrays`).
"""

from __future__ import annotations

import hashlib
import json
import math
import zipfile
from pathlib import Path

import numpy as np

from ._version import __version__
from .atomic import atomic_write
from .errors import ModelFileError

FORMAT_NAME = "streamtopics-model"
FORMAT_VERSION = 1
_METADATA_KEY = "__metadata__"

MAX_DEFLATE_RATIO = 1032
"""Deflate (zip, gzip) expands data at most 1032-fold: what a compressed file of n bytes can hold."""


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


def _check_member(path: Path, member: zipfile.ZipInfo, archive_bytes: int, stream) -> None:
    """Refuse an archive member whose ``.npy`` header claims more data than the member holds.

    NumPy allocates the array the header describes before reading any data, so a forged shape
    would cost that memory. Here the claim (shape x item size) must equal the member's data size,
    which itself must fit the member's compressed bytes (`MAX_DEFLATE_RATIO`) and those the file.
    """
    name = member.filename
    if member.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        raise ModelFileError(f"{path}: member {name!r} uses an unsupported compression")
    ratio = 1 if member.compress_type == zipfile.ZIP_STORED else MAX_DEFLATE_RATIO
    if member.compress_size > archive_bytes or member.file_size > ratio * member.compress_size:
        raise ModelFileError(f"{path}: member {name!r} claims more data than the file holds")
    version = np.lib.format.read_magic(stream)
    read_header = {(1, 0): np.lib.format.read_array_header_1_0,
                   (2, 0): np.lib.format.read_array_header_2_0}.get(version)
    if read_header is None:
        raise ModelFileError(f"{path}: member {name!r} has .npy version {version}, not 1.0 or 2.0")
    shape, _, dtype = read_header(stream)
    if dtype.hasobject:
        raise ModelFileError(f"{path}: member {name!r} holds Python objects, refused (pickle)")
    n_items = math.prod(shape)
    data_bytes = member.file_size - stream.tell()
    if n_items * dtype.itemsize != data_bytes or (dtype.itemsize == 0 and n_items):
        raise ModelFileError(f"{path}: array {name!r} claims shape {shape} of {dtype} but its "
                             f"member holds {data_bytes} bytes of data")


def _read_arrays(path) -> dict[str, np.ndarray]:
    """Every array of the ``.npz`` archive at ``path``, each ``.npy`` header checked against its
    member's size before NumPy allocates (`_check_member`); never unpickles. Any defect raises
    `ModelFileError` naming the file."""
    path = Path(path)
    if not path.is_file():
        raise ModelFileError(f"{path}: no such model file")
    arrays = {}
    try:
        with zipfile.ZipFile(path) as archive:
            for member in archive.infolist():
                name = member.filename.removesuffix(".npy")
                if name == member.filename or name in arrays:
                    raise ModelFileError(f"{path}: member {member.filename!r} is not an array "
                                         f"or repeats one (not a .npz file)")
                with archive.open(member) as stream:
                    _check_member(path, member, path.stat().st_size, stream)
                with archive.open(member) as stream:
                    arrays[name] = np.lib.format.read_array(stream, allow_pickle=False)
    except (ModelFileError, MemoryError):  # a model too large to load is not a damaged file
        raise
    except Exception as error:  # a damaged archive can fail in zipfile, zlib or numpy parsing
        raise ModelFileError(f"{path}: not a readable streamtopics model file ({error})") from None
    return arrays


def _verified(path: Path, arrays: dict[str, np.ndarray]) -> tuple[dict[str, np.ndarray], dict]:
    """(arrays, metadata) after checking the metadata entry: format, version and checksum."""
    if _METADATA_KEY not in arrays:
        raise ModelFileError(f"{path}: not a streamtopics model file (no metadata entry)")
    try:
        metadata = json.loads(arrays.pop(_METADATA_KEY).tobytes().decode("utf-8"))
    except (ValueError, RecursionError) as error:  # bad UTF-8 or JSON, huge numbers, deep nesting
        raise ModelFileError(f"{path}: corrupted metadata ({type(error).__name__})") from None
    if not isinstance(metadata, dict) or metadata.get("format") != FORMAT_NAME:
        raise ModelFileError(f"{path}: not a streamtopics model file (format is "
                             f"{metadata.get('format') if isinstance(metadata, dict) else None!r})")
    version = metadata.get("format_version")
    if type(version) is not int or version < 1:
        raise ModelFileError(f"{path}: corrupted metadata (format version {version!r})")
    if version > FORMAT_VERSION:
        raise ModelFileError(f"{path}: format version {version!r} is newer than this library "
                             f"supports ({FORMAT_VERSION}); upgrade streamtopics")
    if metadata.get("checksum") != _checksum(arrays):
        raise ModelFileError(f"{path}: checksum mismatch, the file is corrupted")
    return arrays, metadata


def load_model(path) -> tuple[dict[str, np.ndarray], dict]:
    """Read a model file; any defect raises `ModelFileError` naming the file and the problem."""
    path = Path(path)
    return _verified(path, _read_arrays(path))


def is_topics_only(path) -> bool:
    """Whether ``path`` is a readable ``.npz`` of topics without a streamtopics metadata entry (a
    `streamtopics export`, or another tool's beta and alpha): topics, no training state."""
    try:
        return _METADATA_KEY not in _read_arrays(Path(path))
    except ModelFileError:
        return False


TOPIC_NAMES = "topic_names"
"""The metadata entry naming a model's topics: K strings, "" for a topic without a name."""


def checked_topic_names(names, n_topics: int, path=None) -> list[str]:
    """``names`` (None, a list of K strings, or a mapping topic index -> name) as K strings,
    "" where a topic has no name; a name repeated, a topic index out of range or a list of
    another length is refused (`ModelFileError` naming ``path`` when given, else ValueError)."""
    error = ValueError if path is None else ModelFileError
    where = "" if path is None else f"{path}: "
    if names is None:
        return [""] * n_topics
    if isinstance(names, dict):
        chosen = [""] * n_topics
        for topic, name in names.items():
            index = int(topic)
            if not 0 <= index < n_topics:
                raise error(f"{where}topic {topic} does not exist (the model has {n_topics})")
            chosen[index] = name
        names = chosen
    names = list(names)
    if len(names) != n_topics or not all(isinstance(name, str) for name in names):
        raise error(f"{where}topic names must be {n_topics} strings, got {names!r}"[:300])
    names = [name.strip() for name in names]
    given = [name for name in names if name]
    if len(set(given)) != len(given):
        raise error(f"{where}a topic name is repeated: {sorted(given)}"[:300])
    return names


def load_topic_parameters(path) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """(beta K x V, alpha K, vocabulary or None) from a streamtopics model file or a plain ``.npz``.

    Every streamtopics model file stores ``beta`` (rows sum to 1) and ``alpha``; a plain archive
    from another tool (no metadata entry) needs just those two arrays. This is what lets
    `evaluate` and `export` treat all models alike. A streamtopics model file must pass every
    check of `load_model`; then `topic_parameters` checks the arrays.
    """
    return load_named_topics(path)[:3]


def load_named_topics(path) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, list[str]]:
    """`load_topic_parameters` and the topics' names (`TOPIC_NAMES`; "" for every topic of a
    file without them: a plain ``.npz``, a model never named), from one read of the file."""
    path = Path(path)
    arrays, metadata = _read_arrays(path), {}
    if _METADATA_KEY in arrays:
        arrays, metadata = _verified(path, arrays)
    beta, alpha, vocabulary = topic_parameters(arrays, path)
    return beta, alpha, vocabulary, checked_topic_names(metadata.get(TOPIC_NAMES),
                                                        beta.shape[0], path)


def scored_topic_parameters(path) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """`load_topic_parameters`, plus the rest of the stick of an HDP model file (its array
    ``rest_alpha`` = a_*, `OnlineHDP.to_lda`) as one more topic, uniform over the V words with
    alpha a_*: the LDA whose held-out likelihood is the HDP's (what `evaluate` scores)."""
    beta, alpha, vocabulary = load_topic_parameters(path)
    rest = _read_arrays(Path(path)).get("rest_alpha")
    if rest is None:
        return beta, alpha, vocabulary
    rest = np.asarray(rest, dtype=np.float64).ravel()
    if rest.shape != (1,) or not np.isfinite(rest[0]) or rest[0] <= 0:
        raise ModelFileError(f"{path}: rest_alpha must be one finite positive number (got "
                             f"shape {rest.shape})")
    uniform = np.full((1, beta.shape[1]), 1.0 / beta.shape[1])
    return np.vstack([beta, uniform]), np.append(alpha, rest), vocabulary


def topic_parameters(arrays: dict[str, np.ndarray], path) -> tuple[np.ndarray, np.ndarray,
                                                                     np.ndarray | None]:
    """Checked (beta, alpha, vocabulary or None) of a model file's ``arrays``: beta K x V
    (K, V >= 1) finite and non-negative, returned as float64 with rows summing to 1 (no topic may
    be all zeros), alpha K finite and positive, the vocabulary V strings. Else `ModelFileError`
    naming ``path``."""
    missing = [name for name in ("beta", "alpha") if name not in arrays]
    if missing:
        raise ModelFileError(f"{path}: missing array(s) {', '.join(missing)} (need beta K x V and alpha K)")
    if arrays["beta"].dtype.kind not in "iuf" or arrays["alpha"].dtype.kind not in "iuf":
        raise ModelFileError(f"{path}: beta and alpha must be real numbers (got "
                             f"{arrays['beta'].dtype} and {arrays['alpha'].dtype})")
    beta = np.asarray(arrays["beta"], dtype=np.float64)
    alpha = np.asarray(arrays["alpha"], dtype=np.float64).ravel()
    if beta.ndim != 2 or 0 in beta.shape or alpha.shape != (beta.shape[0],):
        raise ModelFileError(f"{path}: beta must be K x V (K, V >= 1) and alpha must have K "
                             f"entries (got {beta.shape} and {alpha.shape})")
    if not np.all(np.isfinite(beta)) or beta.min() < 0 or not np.all(np.isfinite(alpha)) or alpha.min() <= 0:
        raise ModelFileError(f"{path}: beta must be finite and non-negative, alpha finite and positive")
    largest = beta.max(axis=1, keepdims=True)
    if (largest == 0).any():
        raise ModelFileError(f"{path}: topic {int(np.argmin(largest))} of beta is all zeros")
    beta = beta / largest  # first scaled to at most 1, so that the sum cannot overflow
    beta /= beta.sum(axis=1, keepdims=True)
    vocabulary = arrays.get("vocabulary")
    if vocabulary is not None and (vocabulary.dtype.kind != "U" or vocabulary.shape != beta.shape[1:]):
        raise ModelFileError(f"{path}: the vocabulary must hold V = {beta.shape[1]} strings "
                             f"(got {vocabulary.dtype} of shape {vocabulary.shape})")
    return beta, alpha, vocabulary
