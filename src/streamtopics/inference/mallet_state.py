"""CGS_p estimators from a sample of another sampler: MALLET's ``--output-state`` file.

Papanikolaou et al. (2017), section 5.7: the estimators need only one sample z and the counts
it implies, so users of MALLET (SparseLDA) get phi^p and theta^p without retraining.

The file (gzip or plain text) looks like::

    #doc source pos typeindex type topic
    #alpha : 0.1 0.1 0.1
    #beta : 0.01
    0 NA 0 0 apple 2
    0 NA 1 5 pear 0

``#alpha`` gives the K document-topic prior values (so K), ``#beta`` the topic-word prior; each
token line is document index, source (may contain spaces), position, word index, word, topic.
"""

from __future__ import annotations

import gzip
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import InputError
from ..validation import Options, check_parameter
from .cgs import GIBBS_ESTIMATES, GibbsState


@dataclass
class MalletState:
    """One MALLET sample: tokens (int64 word ids) with D+1 ``offsets``, their topics, the
    vocabulary (word index -> word; indices absent from the file get ``"<unused N>"``) and the
    priors ``alpha`` (K) and ``eta``."""

    tokens: np.ndarray
    offsets: np.ndarray
    assignments: np.ndarray
    vocabulary: np.ndarray
    alpha: np.ndarray
    eta: float

    @property
    def n_topics(self) -> int:
        return self.alpha.size

    def gibbs_state(self) -> GibbsState:
        return GibbsState.from_assignments(self.tokens, self.offsets, self.assignments,
                                           self.n_topics, self.vocabulary.size)


def _open_text(path: Path):
    with open(path, "rb") as probe:
        magic = probe.read(2)
    if magic == b"\x1f\x8b":
        return gzip.open(path, "rt", encoding="utf-8", errors="replace")
    return open(path, encoding="utf-8", errors="replace")


def _header_values(line: str, path: Path, number: int) -> list[float]:
    _, _, rest = line.partition(":")
    try:
        values = [float(x) for x in rest.split()]
    except ValueError:
        raise InputError(f"cannot read the numbers of {line.split(':')[0].strip()!r}",
                         path, number) from None
    if not values or min(values) <= 0:
        raise InputError("a prior needs positive values", path, number)
    return values


def read_mallet_state(path) -> MalletState:
    """Read a MALLET ``--output-state`` file; raises `InputError` naming the file and line of
    any malformed line."""
    path = Path(path)
    alpha = eta = None
    docs, words, topics = [], [], []
    names: dict[int, str] = {}
    try:
        handle = _open_text(path)
    except OSError as error:
        raise InputError(f"cannot open: {error.strerror}", path) from None
    try:
        with handle:
            for number, line in enumerate(handle, start=1):
                line = line.rstrip("\r\n")
                if not line.strip():
                    continue
                if line.startswith("#"):
                    key = line[1:].split(":")[0].strip()
                    if key == "alpha":
                        alpha = np.asarray(_header_values(line, path, number))
                    elif key == "beta":
                        eta = _header_values(line, path, number)[0]
                    continue
                if alpha is None or eta is None:
                    raise InputError("token line before the '#alpha :' and '#beta :' headers",
                                     path, number)
                fields = line.split()
                if len(fields) < 6:
                    raise InputError(f"expected 6 fields 'doc source pos typeindex type topic', "
                                     f"got {len(fields)}", path, number)
                try:
                    doc, word, topic = int(fields[0]), int(fields[-3]), int(fields[-1])
                    int(fields[-4])
                except ValueError:
                    raise InputError("doc, pos, typeindex and topic must be integers",
                                     path, number) from None
                if doc < 0 or word < 0:
                    raise InputError("negative document or word index", path, number)
                if not 0 <= topic < alpha.size:
                    raise InputError(f"topic {topic} outside [0, {alpha.size}) given by #alpha",
                                     path, number)
                if names.setdefault(word, fields[-2]) != fields[-2]:
                    raise InputError(f"word index {word} is {fields[-2]!r} here but "
                                     f"{names[word]!r} earlier", path, number)
                docs.append(doc)
                words.append(word)
                topics.append(topic)
    except (OSError, EOFError, UnicodeError) as error:
        raise InputError(f"unreadable state file ({error})", path) from None
    if alpha is None or eta is None:
        raise InputError("no '#alpha :' / '#beta :' header: not a MALLET state file", path)
    if not docs:
        raise InputError("no token lines", path)
    docs = np.asarray(docs, dtype=np.int64)
    order = np.argsort(docs, kind="stable")
    n_docs = int(docs.max()) + 1
    offsets = np.zeros(n_docs + 1, dtype=np.int64)
    offsets[1:] = np.cumsum(np.bincount(docs, minlength=n_docs))
    n_words = max(names) + 1
    vocabulary = np.asarray([names.get(v, f"<unused {v}>") for v in range(n_words)], dtype=str)
    return MalletState(tokens=np.asarray(words, dtype=np.int64)[order], offsets=offsets,
                       assignments=np.asarray(topics, dtype=np.int32)[order],
                       vocabulary=vocabulary, alpha=alpha, eta=float(eta))


def estimate_from_mallet_state(state: MalletState | str | Path,
                               estimator: str = "p") -> tuple[np.ndarray, np.ndarray]:
    """(phi K x V, theta D x K) of a MALLET sample: equations 2-3 (``"standard"``) or the CGS_p
    estimators, equations 41 and 40 (``"p"``), with the file's own priors."""
    check_parameter("estimator", estimator, Options(GIBBS_ESTIMATES))
    if not isinstance(state, MalletState):
        state = read_mallet_state(state)
    return state.gibbs_state().estimate(state.alpha, state.eta, estimator)


__all__ = ["MalletState", "read_mallet_state", "estimate_from_mallet_state"]
