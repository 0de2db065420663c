"""Label files of multi-label corpora: one JSON list of label names per document, line i =
document i (``CORPUS/{split}.labels.jsonl``, e.g. the Debian debtags), and the label filter
that picks which labels a model learns.

`LabelFilter`: keep labels with at least ``min_frequency`` training documents that match none of
the ``drop`` patterns (shell-style, `fnmatch`). `DEBTAGS_CONTENT` is the recommended filter of
the debtags (specs, section 3.6): the packaging facets (role, suite, made-of, implemented-in,
interface, uitoolkit, x11, scope, iso15924) and the ``*::TODO`` placeholders dropped, at least
20 training documents.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path

from ..errors import InputError


def read_label_file(path, n_documents: int | None = None) -> list[list[str]]:
    """The label lists of a JSONL label file; ``n_documents`` (if given) must match its lines."""
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as error:
        raise InputError(f"cannot read the label file ({error.strerror})", path) from None
    except UnicodeDecodeError as error:
        raise InputError(f"not UTF-8 text ({error.reason})", path) from None
    labels = []
    for number, line in enumerate(lines, start=1):
        try:
            row = json.loads(line)
        except json.JSONDecodeError as error:
            raise InputError(f"not JSON ({error.msg})", path, number) from None
        if not isinstance(row, list) or not all(isinstance(label, str) for label in row):
            raise InputError("expected a JSON list of label names (strings)", path, number)
        labels.append(row)
    if n_documents is not None and len(labels) != n_documents:
        raise InputError(f"{len(labels)} label lines for {n_documents} documents", path)
    return labels


def split_label_file(corpus_dir, split: str) -> Path | None:
    """``CORPUS/{split}.labels.jsonl`` when CORPUS is a directory holding it, else None."""
    path = Path(corpus_dir) / f"{split}.labels.jsonl"
    return path if Path(corpus_dir).is_dir() and path.is_file() else None


@dataclass(frozen=True)
class LabelFilter:
    """Which labels to learn: at least ``min_frequency`` documents, no ``drop`` pattern."""

    min_frequency: int = 1
    drop: tuple[str, ...] = ()

    def classes(self, labels: list[list[str]]) -> list[str]:
        """The kept label names of the training ``labels``, sorted."""
        frequency = Counter(label for row in labels for label in set(row))
        return sorted(label for label, count in frequency.items()
                      if count >= self.min_frequency
                      and not any(fnmatchcase(label, pattern) for pattern in self.drop))

    def describe(self) -> str:
        dropped = f", dropping {', '.join(self.drop)}" if self.drop else ""
        return f"labels with >= {self.min_frequency} training documents{dropped}"


def restrict_labels(labels: list[list[str]], classes) -> list[list[str]]:
    """Each document's labels among ``classes`` (sorted, duplicates removed)."""
    kept = set(classes)
    return [sorted(set(row) & kept) for row in labels]


DEBTAGS_CONTENT = LabelFilter(min_frequency=20, drop=tuple(
    f"{facet}::*" for facet in ("role", "suite", "made-of", "implemented-in", "interface",
                                "uitoolkit", "x11", "scope", "iso15924")) + ("*::TODO",))
