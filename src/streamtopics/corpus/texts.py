"""Raw text held in memory, as a scikit-learn or gensim user has it: a list of strings, a list
of token lists, a pandas Series (a DataFrame's text column), a 1-D NumPy array of strings.

`load_corpus` reads such values through the bundled preprocessing (or maps them onto a given
vocabulary) exactly as it reads a text file; `is_raw_text` lets the estimators refuse them with a
message that says how to turn them into counts, instead of NumPy's "could not convert string to
float". Token lists are joined by spaces and tokenised like text (the same normalisation and
stop words for every input), so ``["Sun", "hot"]`` counts ``sun`` and ``hot``.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from ..errors import InputError
from .corpus import ReadReport
from .raw_text import RawDocument, empty_document


def _first(values):
    """The first element of a sized sequence, or None when empty."""
    return values[0] if len(values) else None


def _items(documents) -> tuple[list, list] | None:
    """(values, ids) of an in-memory collection, or None when ``documents`` is not one: a pandas
    Series keeps its index as the ids, other sequences number their items from 1 (as the meta
    files and ``transform -o`` do)."""
    if hasattr(documents, "iloc") and getattr(documents, "ndim", None) == 1:  # pandas Series
        return list(documents.to_numpy(dtype=object)), list(documents.index)
    if isinstance(documents, np.ndarray) and documents.ndim == 1:
        return list(documents), list(range(1, documents.size + 1))
    if isinstance(documents, (list, tuple)):
        return list(documents), list(range(1, len(documents) + 1))
    return None


def _is_token_list(value) -> bool:
    return isinstance(value, (list, tuple)) and bool(value) and isinstance(value[0], str)


def is_raw_text(documents) -> bool:
    """Whether ``documents`` is text in memory (judged by its first item, as pandas judges a
    column): a string, or a sequence or Series of strings or of token lists. A DataFrame is
    not: its columns are words (or it needs its text column picked)."""
    if isinstance(documents, str):
        return True
    items = _items(documents)
    if items is None or not items[0]:
        return False
    first = _first(items[0])
    return isinstance(first, (str, np.str_)) or _is_token_list(first)


def iter_text_documents(documents, report: ReadReport, skip_empty: bool = True,
                        name: str = "texts") -> Iterator[RawDocument]:
    """The `RawDocument`s of text in memory (see the module docstring), counted in ``report``
    as a reader counts a file's; InputError naming the item (its id) that is neither a string
    nor a list of strings. Empty documents are skipped and counted (or raise, with
    ``skip_empty=False``)."""
    if hasattr(documents, "iloc") and getattr(documents, "ndim", None) == 2:
        raise InputError(f"{name} is a DataFrame: pick its text column, e.g. frame['text']")
    items = _items(documents)
    if items is None:
        raise InputError(f"{name} must be a list of strings, a list of token lists or a pandas "
                         f"Series, not {type(documents).__name__}")
    for value, source_id in zip(*items):
        if isinstance(value, (list, tuple)) and all(isinstance(t, str) for t in value):
            value = " ".join(value)
        if not isinstance(value, (str, np.str_)):
            raise InputError(f"{name}: item {source_id!r} is {type(value).__name__} "
                             f"{value!r:.40}, not a string or a list of strings")
        report.documents_read += 1
        if value.strip():
            yield RawDocument(str(value), source_id)
        else:
            empty_document(report, f"{name}, item {source_id!r}", None, skip_empty)
