"""The corpus directory of ``../shared/corpora``: one split of a bag-of-words corpus with its
token order and metadata.

``vocab.txt`` and ``{split}.docword.txt`` (UCI, read by `bag_of_words.read_uci`) are required;
``{split}.tokens.jsonl`` (line i: document i as a JSON list of 0-based word ids, checked against
the counts) and ``{split}.meta.jsonl`` (line i: a JSON object, labels from its ``label``
field) are optional. Each file may also be gzipped (``.gz`` added). A meta field may date the
documents (`corpus.time`): the one named by ``time_field``, else the ``time`` column when every
line has one. ``pipeline.json``, if there, records how the text was tokenised
(`corpus.pipeline`): the corpus carries it, and so does a model fitted on it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import numpy as np
import scipy.sparse as sp

from ..errors import InputError
from .bag_of_words import read_uci
from .corpus import Corpus, ReadReport
from .files import Reading, decode, find_file, parse_json
from .pipeline import read_pipeline
from .time import TimeField, TimeReading


def _json_lines(path, report: ReadReport) -> Iterator[tuple[int, object]]:
    """(line number, parsed value) for each line of a JSON-lines file; blank lines are errors."""
    with Reading(path) as reading:
        for line, raw in enumerate(reading.lines(), start=1):
            if b"\x00" in raw:
                raise InputError("binary data (NUL byte) in a JSON-lines file", path, line)
            text = decode(raw, report, path, line)
            if line == 1:
                text = text.lstrip("\ufeff")
            yield line, parse_json(text, path, line)


def read_token_lines(path, n_words: int, report: ReadReport | None = None) -> list[np.ndarray]:
    """A ``tokens.jsonl`` file: line i = document i as a JSON list of 0-based word ids."""
    report = ReadReport(source=str(path)) if report is None else report
    tokens = []
    for line, value in _json_lines(path, report):
        if not isinstance(value, list) or not all(type(v) is int for v in value):
            raise InputError("expected a JSON list of integer word ids", path, line)
        if value and (min(value) < 0 or max(value) >= n_words):  # checked before int64 conversion
            bad = next(v for v in value if not 0 <= v < n_words)
            raise InputError(f"word id {bad} is outside 0..{n_words - 1}", path, line)
        tokens.append(np.array(value, dtype=np.int64))
    return tokens


def read_metadata_lines(path, report: ReadReport | None = None) -> list[dict]:
    """A ``meta.jsonl`` file: line i = document i as a JSON object."""
    report = ReadReport(source=str(path)) if report is None else report
    metadata = []
    for line, value in _json_lines(path, report):
        if not isinstance(value, dict):
            raise InputError(f"expected a JSON object, found {type(value).__name__}", path, line)
        metadata.append(value)
    return metadata


def _check_tokens_match(tokens: list[np.ndarray], counts: sp.csr_matrix, tokens_path, docword) -> None:
    if len(tokens) != counts.shape[0]:
        raise InputError(f"{len(tokens)} token lines but {docword} has {counts.shape[0]} documents",
                         tokens_path, len(tokens) + 1 if len(tokens) < counts.shape[0] else None)
    token_counts = Corpus.from_token_lists(tokens, n_words=counts.shape[1]).counts
    differs = np.unique((token_counts != counts).nonzero()[0])
    if differs.size:
        doc = int(differs[0]) + 1
        raise InputError(f"the tokens of document {doc} do not match its counts in {docword}",
                         tokens_path, doc)


def corpus_dir_files(path, split: str = "train") -> tuple[Path, Path]:
    """(``{split}.docword.txt``, ``vocab.txt``) of a corpus directory, each possibly gzipped;
    a missing one is an `InputError` (naming the splits there are)."""
    directory = Path(path)
    if not directory.is_dir():
        raise InputError("not a corpus directory (no such directory)", directory)
    vocabulary_path = find_file(directory, "vocab.txt")
    if vocabulary_path is None:
        raise InputError("not a corpus directory: no vocab.txt", directory)
    docword = find_file(directory, f"{split}.docword.txt")
    if docword is None:
        splits = sorted({p.name.split(".docword")[0] for p in directory.glob("*.docword.txt*")})
        raise InputError(f"no {split}.docword.txt (splits here: {', '.join(splits) or 'none'})",
                         directory)
    return docword, vocabulary_path


def _dated_rows(metadata: list[dict], meta_path, report: ReadReport, time_field
                ) -> np.ndarray | None:
    """The rows to keep (None: all) once each line's time is parsed from ``time_field`` into
    its ``time`` field (`TimeReading`); without ``time_field``, the ``time`` column when every
    line has one, else the corpus is undated."""
    options = TimeField.of(time_field) or TimeField()
    if time_field is None and not (metadata and all(options.name in m for m in metadata)):
        return None
    reading = TimeReading(options)
    keep = np.array([reading.stamp(m, report, meta_path, line)
                     for line, m in enumerate(metadata, start=1)], dtype=bool)
    if reading.backwards:
        report.warn(f"{meta_path}: {reading.backwards} document(s) dated earlier than a "
                    f"document before them")
    return None if keep.all() else np.flatnonzero(keep)


def read_corpus_dir(path, split: str = "train", time_field: str | TimeField | None = None
                    ) -> Corpus:
    """Read one split of a corpus directory (the layout of ``../shared/corpora``).

    ``vocab.txt`` and ``{split}.docword.txt`` are required; ``{split}.tokens.jsonl`` gives the
    token order (checked against the counts) and ``{split}.meta.jsonl`` the metadata, with
    labels taken from its ``label`` field. Each file may also be gzipped (``.gz`` added).
    ``time_field``: as in `raw_text.iter_raw_documents`, for a meta field (the documents are
    not reordered here: `load_corpus` sorts).
    """
    directory = Path(path)
    docword, vocabulary_path = corpus_dir_files(directory, split)
    bag = read_uci(docword, vocabulary_path)
    if bag.n_documents == 0:  # said of the directory the user named, not of a file inside it
        raise InputError(f"its {split} split holds no documents ({docword.name} declares D = 0)",
                         directory)
    report = bag.report
    report.source = f"{directory} ({split})"
    tokens = labels = metadata = rows = None
    tokens_path = find_file(directory, f"{split}.tokens.jsonl")
    if tokens_path is not None:
        tokens = read_token_lines(tokens_path, bag.n_words, report)
        _check_tokens_match(tokens, bag.counts, tokens_path, docword)
    meta_path = find_file(directory, f"{split}.meta.jsonl")
    if meta_path is not None:
        metadata = read_metadata_lines(meta_path, report)
        if len(metadata) != bag.n_documents:
            raise InputError(f"{len(metadata)} metadata lines for {bag.n_documents} documents "
                             f"in {docword}", meta_path)
        if any("label" in m for m in metadata):
            labels = [m.get("label") for m in metadata]
        rows = _dated_rows(metadata, meta_path, report, time_field)
    elif time_field is not None:
        raise InputError(f"no {split}.meta.jsonl: no field {TimeField.of(time_field).name!r} "
                         f"for the time", directory)
    corpus = Corpus(bag.counts, bag.vocabulary, tokens=tokens, labels=labels,
                    metadata=metadata, report=report, pipeline=read_pipeline(directory))
    if rows is not None:
        corpus = corpus[rows]
        corpus.report = report
    return corpus
