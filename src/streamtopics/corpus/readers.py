"""Readers: every input shape a user may arrive with, turned into a `Corpus` with a `ReadReport`.

Bag-of-words formats (kept as they are):
- UCI bag-of-words: ``docword`` (lines 1-3: D, W, NNZ; then ``docID wordID count``, 1-based)
  plus ``vocab`` (line i = word i), plain or gzip (`read_uci`);
- the corpus directory of ``../shared/corpora`` (`read_corpus_dir`): ``vocab.txt``,
  ``{split}.docword.txt``, ``{split}.tokens.jsonl`` (token order), ``{split}.meta.jsonl``;
- LDA-C (Blei): one line per document, ``N id:count ...`` with 0-based ids (`read_ldac`);
- MatrixMarket coordinate files, documents as rows (`read_matrix_market`);
- a scipy sparse matrix plus vocabulary, e.g. from scikit-learn's ``CountVectorizer``
  (`from_sparse`).

Raw text (tokenised and pruned by `streamtopics.corpus.preprocess`, or mapped onto a given
vocabulary): one document per line, a directory of ``.txt`` files, JSONL with a named text
field, CSV with a named column (`iter_raw_documents`); text or JSON lines from an open stream
(`iter_raw_lines`). `load_corpus` picks the reader from the path.

Bad input never passes silently and never costs a traceback: each problem raises one
`InputError` naming the file, the line and what is wrong. Numbers in headers are trusted only as
far as the body supports them, so a header claiming 10^12 documents allocates nothing. Numeric
bodies are parsed with NumPy a block of lines at a time (no Python loop per entry).
"""

from __future__ import annotations

import codecs
import csv
import gzip
import io
import itertools
import json
import os
import re
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, Iterator

import numpy as np
import scipy.sparse as sp

from ..errors import InputError
from .corpus import Corpus, ReadReport

BLOCK_BYTES = 1 << 22
"""Bytes of a numeric file parsed at once: bounds the memory of the readers and streams."""

UNUSED_ID_ALLOWANCE = 1_000_000
"""Ids a header may declare beyond those the body uses (empty documents, unused words) are
accepted up to max(number used, this). A larger claim is a corrupt header, not data: rejecting
it is what keeps a header of 10^12 documents from allocating memory for them."""

FORMATS = ("uci", "corpus-dir", "ldac", "mm", "text", "txt-dir", "jsonl", "csv")
TEXT_FORMATS = ("text", "txt-dir", "jsonl", "csv")

_GZIP_MAGIC = b"\x1f\x8b"
_SPACE = np.zeros(256, dtype=bool)
_SPACE[[9, 10, 11, 12, 13, 32]] = True
_DIGIT = np.zeros(256, dtype=bool)
_DIGIT[48:58] = True
_MINUS = ord("-")
_INTEGER_BYTES = _SPACE | _DIGIT
_INTEGER_BYTES[_MINUS] = True
_MAX_DIGITS = 18  # int64 holds every 18-digit number


# --- files --------------------------------------------------------------------------------------
def _check_file(path: Path) -> None:
    if not path.exists():
        raise InputError("no such file", path)
    if path.is_dir():
        raise InputError("is a directory, expected a file", path)
    if path.stat().st_size == 0:
        raise InputError("file is empty", path)


class _Reading:
    """A binary handle on a plain or gzip file (told apart by content, not name).

    Truncated or corrupt gzip data surfaces as `InputError` from any read.
    """

    def __init__(self, path):
        self.path = Path(path)
        _check_file(self.path)
        with open(self.path, "rb") as probe:
            self.compressed = probe.read(2) == _GZIP_MAGIC
        self.handle: BinaryIO = gzip.open(self.path, "rb") if self.compressed else open(self.path, "rb")

    def _guard(self, read, *args):
        try:
            return read(*args)
        except (OSError, EOFError, zlib.error) as error:
            raise InputError(f"corrupt or truncated gzip data ({error})", self.path) from None

    def read(self, size: int = -1) -> bytes:
        return self._guard(self.handle.read, size)

    def readline(self, limit: int = -1) -> bytes:
        return self._guard(self.handle.readline, limit)

    def lines(self) -> Iterator[bytes]:
        """Raw lines (with their newline), 1 at a time."""
        while line := self.readline():
            yield line

    def blocks(self, first_line: int, block_bytes: int = BLOCK_BYTES) -> Iterator[tuple[bytes, int]]:
        """(block, number of its first line): whole lines, each block ending with a newline."""
        carry = b""
        while True:
            data = self.read(block_bytes)
            if not data:
                break
            data = carry + data
            cut = data.rfind(b"\n") + 1
            if cut == 0:
                carry = data
                continue
            block, carry = data[:cut], data[cut:]
            yield block, first_line
            first_line += block.count(b"\n")
        if carry:
            yield carry + b"\n", first_line

    def close(self) -> None:
        self.handle.close()

    def __enter__(self) -> "_Reading":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _show(raw: bytes, limit: int = 60) -> str:
    """A line as the user should see it in a message: repr, shortened."""
    text = raw.rstrip(b"\r\n")
    shown = repr(text[:limit])[1:]
    return shown + ("..." if len(text) > limit else "")


def _looks_binary(raw: bytes) -> bool:
    return b"\x00" in raw or any(b < 9 or 13 < b < 32 or b >= 127 for b in raw[:200])


DECODING_ERRORS = ("strict", "replace")


@dataclass(frozen=True)
class TextDecoding:
    """How the bytes of raw text become text, as in `bytes.decode`.

    ``errors="strict"`` (the default): an undecodable byte is an `InputError` naming the file,
    the line and the byte, so a file in another encoding is never mangled silently;
    ``"replace"``: it becomes U+FFFD, counted in the report and warned about. Files are split
    into lines as bytes, so only encodings that write ASCII as ASCII are accepted (UTF-8,
    Latin-1, cp1252, ...; not UTF-16: convert it first).
    """

    encoding: str = "utf-8"
    errors: str = "strict"

    def __post_init__(self):
        try:
            codecs.lookup(self.encoding)
        except LookupError:
            raise InputError(f"unknown encoding {self.encoding!r}") from None
        probe = b'\n\r\t ,"{}:[]az09'
        if probe.decode(self.encoding, errors="replace") != probe.decode("ascii"):
            raise InputError(f"encoding {self.encoding!r} does not write ASCII as ASCII (UTF-16 "
                             f"or UTF-32?): convert the file to UTF-8 first, e.g. with iconv")
        if self.errors not in DECODING_ERRORS:
            raise InputError(f"errors={self.errors!r}: one of {', '.join(DECODING_ERRORS)}")


UTF8 = TextDecoding()


def _decode(raw: bytes, report: ReadReport, path, line: int | None,
            decoding: TextDecoding = UTF8) -> str:
    """``raw`` decoded by ``decoding``: strict, or undecodable bytes replaced by U+FFFD and
    counted in the report. ``line`` None: ``raw`` is a whole file (the message finds the line)."""
    try:
        return raw.decode(decoding.encoding)
    except UnicodeDecodeError as error:
        if decoding.errors == "strict":
            bad = raw[error.start:error.end]
            at_line = line if line is not None else raw.count(b"\n", 0, error.start) + 1
            column = error.start - (raw.rfind(b"\n", 0, error.start) + 1) + 1
            raise InputError(f"byte(s) {bad.hex(' ')} at column {column} are not valid "
                             f"{decoding.encoding}: name the file's encoding (encoding=, "
                             f"--encoding; e.g. latin-1) or replace such bytes by U+FFFD "
                             f"(errors='replace', --errors replace)", path, at_line) from None
        text = raw.decode(decoding.encoding, errors="replace")
        n_replaced = text.count("\ufffd") - raw.decode(decoding.encoding, errors="ignore").count("\ufffd")
        report.decode_replacements += n_replaced
        where = f"{path}" + (f", line {line}" if line is not None else "")
        report.warn(f"{where}: {n_replaced} undecodable byte(s) replaced by U+FFFD")
        return text


# --- numeric blocks -----------------------------------------------------------------------------
def _parse_integer_block(block: bytes, first_line: int, path, expected: str
                         ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Parse whitespace-separated integers of a block of whole lines in one NumPy pass.

    Returns (values, fields per line, newline positions). Any byte that cannot belong to an
    integer, a stray minus sign or a number too long for int64 raises `InputError` at its line,
    quoting it; ``expected`` says what the line should hold.
    """
    buf = np.frombuffer(block, dtype=np.uint8)
    newlines = np.flatnonzero(buf == 10)
    space = _SPACE[buf]
    token = ~space
    starts = np.flatnonzero(token & np.concatenate(([True], space[:-1])))
    ends = np.flatnonzero(token & np.concatenate((space[1:], [True])))
    minus = np.flatnonzero(buf == _MINUS)
    if minus.size:  # a minus sign must start a field and precede a digit
        minus = minus[~np.isin(minus, starts) | ~_DIGIT[buf[np.minimum(minus + 1, buf.size - 1)]]]
    culprits = [
        (np.flatnonzero(~_INTEGER_BYTES[buf]), "something that is not an integer"),
        (minus, "a misplaced minus sign"),
        (starts[ends - starts >= _MAX_DIGITS], "a number too large"),
    ]
    culprits = [(int(where[0]), problem) for where, problem in culprits if where.size]
    if culprits:
        at, problem = min(culprits)
        line_index = int(np.searchsorted(newlines, at))
        raw = _line_at(block, newlines, line_index)
        if _looks_binary(raw):
            problem = "binary data"
        raise InputError(f"expected {expected}, found {problem}: {_show(raw)}",
                         path, first_line + line_index)
    fields = np.bincount(np.searchsorted(newlines, starts), minlength=newlines.size)
    # (np.fromstring reads a block of blank lines as one 0: it must not see one)
    values = (np.fromstring(block, dtype=np.int64, sep=" ") if starts.size
              else np.zeros(0, dtype=np.int64))
    return values, fields, newlines


def _line_at(block: bytes, newlines: np.ndarray, index: int) -> bytes:
    return block[(newlines[index - 1] + 1 if index else 0):newlines[index]]


# --- UCI bag of words ---------------------------------------------------------------------------
_HEADER_NAMES = ("D (number of documents)", "W (vocabulary size)", "NNZ (number of entries)")
_TRIPLE = "three integers 'docID wordID count'"


def _read_docword_header(reading: _Reading) -> tuple[int, int, int]:
    values = []
    for line, name in enumerate(_HEADER_NAMES, start=1):
        raw = reading.readline(256)
        if not raw:
            raise InputError(f"the header ends early: line {line} should hold {name}",
                             reading.path, line)
        if len(raw) == 256 and not raw.endswith(b"\n"):  # else the rest would pass for the next line
            raise InputError(f"header line {line} is longer than 255 characters, it should hold "
                             f"{name}", reading.path, line)
        if not re.fullmatch(rb"\s*\d{1,18}\s*", raw):
            problem = "binary data" if _looks_binary(raw) else _show(raw)
            raise InputError(f"header line {line} must hold {name} as one non-negative "
                             f"integer, found {problem}", reading.path, line)
        values.append(int(raw))
    return values[0], values[1], values[2]


def _raise_first(checks, lines: np.ndarray, path) -> None:
    """``checks``: (bad-entry mask, describe(index)) pairs; raise at the earliest bad entry."""
    found = [(int(np.argmax(bad)), describe) for bad, describe in checks if bad.any()]
    if found:
        index, describe = min(found, key=lambda item: item[0])
        raise InputError(describe(index), path, int(lines[index]))


def _check_triples(entries: np.ndarray, lines: np.ndarray, n_docs: int, n_words: int, path) -> None:
    """Ids within the header's D and W, counts positive: else the first bad line is named."""
    doc, word, count = entries[:, 0], entries[:, 1], entries[:, 2]
    _raise_first((
        ((doc < 1) | (doc > n_docs), lambda i: f"document id {doc[i]} is outside 1..{n_docs} "
                                               f"(D on header line 1)"),
        ((word < 1) | (word > n_words), lambda i: f"word id {word[i]} is outside 1..{n_words} "
                                                  f"(W on header line 2)"),
        (count < 1, lambda i: f"count {count[i]} is not a positive integer"),
    ), lines, path)


def iter_docword_entries(reading: _Reading, n_docs: int, n_words: int,
                         block_bytes: int = BLOCK_BYTES) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Checked (entries n x 3, line numbers) blocks of a docword body; the header is read."""
    for block, first_line in reading.blocks(first_line=4, block_bytes=block_bytes):
        values, fields, newlines = _parse_integer_block(block, first_line, reading.path, _TRIPLE)
        wrong = np.flatnonzero((fields != 3) & (fields != 0))
        if wrong.size:
            index = int(wrong[0])
            raise InputError(f"expected {_TRIPLE}, found {fields[index]} field(s): "
                             f"{_show(_line_at(block, newlines, index))}",
                             reading.path, first_line + index)
        entries = values.reshape(-1, 3)
        lines = first_line + np.flatnonzero(fields == 3)
        _check_triples(entries, lines, n_docs, n_words, reading.path)
        yield entries, lines


def check_declared_size(declared: int, used: int, what: str, path, line: int) -> None:
    """Refuse a header size the body cannot account for (see `UNUSED_ID_ALLOWANCE`)."""
    if declared - used > max(used, UNUSED_ID_ALLOWANCE):
        raise InputError(f"{declared} {what} are declared but the data uses only {used}; "
                         f"refusing to allocate for the other {declared - used} (corrupt file?)",
                         path, line)


def check_entry_count(declared: int, found: int, path) -> None:
    if declared != found:
        raise InputError(f"the header declares NNZ = {declared} entries but the body has {found}",
                         path, 3)


def _strictly_sorted(pairs: np.ndarray) -> bool:
    """Whether (document, word) pairs strictly increase, as in UCI files: then none repeats."""
    doc_step = np.diff(pairs[:, 0])
    return bool(((doc_step > 0) | ((doc_step == 0) & (np.diff(pairs[:, 1]) > 0))).all())


def check_duplicate_entries(entries: np.ndarray, lines: np.ndarray, path) -> None:
    """Each (document, word) pair may appear once: a repeat is an error, never silently summed."""
    if _strictly_sorted(entries):
        return
    order = np.lexsort((entries[:, 1], entries[:, 0]))
    pairs = entries[order, :2]
    repeated = np.flatnonzero((pairs[1:] == pairs[:-1]).all(axis=1))
    if repeated.size:
        first, again = sorted((int(lines[order[repeated[0]]]), int(lines[order[repeated[0] + 1]])))
        doc, word = pairs[repeated[0]]
        raise InputError(f"document {doc}, word {word} appears again (first on line {first})",
                         path, again)


def read_vocabulary(path, report: ReadReport | None = None) -> list[str]:
    """One word per line (line i = word id i, 1-based in docword files); plain or gzip.

    Empty lines and repeated words are errors: either would shift or merge word ids.
    """
    report = ReadReport(source=str(path)) if report is None else report
    with _Reading(path) as reading:
        data = reading.read()
    if b"\x00" in data:
        line = data[:data.index(b"\x00")].count(b"\n") + 1
        raise InputError("binary data in a vocabulary file", path, line)
    words = _decode(data, report, path, None).split("\n")
    if words and words[-1] == "":
        words.pop()
    first_seen: dict[str, int] = {}
    for line, word in enumerate(words, start=1):
        word = word.rstrip("\r")
        words[line - 1] = word
        if not word.strip():
            raise InputError("empty line in a vocabulary (line i must hold word i)", path, line)
        if word in first_seen:
            raise InputError(f"word {word!r} repeats line {first_seen[word]}", path, line)
        first_seen[word] = line
    return words


def resolve_vocabulary(vocabulary, n_words: int | None, source, line: int | None = None):
    """A vocabulary given as a path or a word sequence, checked against the data's size."""
    if vocabulary is None:
        return None
    if isinstance(vocabulary, (str, os.PathLike)):
        words = read_vocabulary(vocabulary)
        origin = str(vocabulary)
    else:
        words = [str(word) for word in vocabulary]
        origin = "the vocabulary given"
    if n_words is not None and len(words) != n_words:
        raise InputError(f"the data has {n_words} words but {origin} has {len(words)}",
                         source, line)
    return words


def read_uci(docword, vocabulary=None, block_bytes: int = BLOCK_BYTES) -> Corpus:
    """Read a UCI bag-of-words ``docword`` file (plain or gzip) into a `Corpus`.

    ``vocabulary`` is the ``vocab`` file's path or a word list; without it words are named
    "w0", "w1", ... Documents without entries stay (as empty rows, so ids and metadata line up)
    and are counted in the report's warnings. The body need not be sorted.
    """
    path = Path(docword)
    report = ReadReport(source=str(path))
    with _Reading(path) as reading:
        n_docs, n_words, n_nonzero = _read_docword_header(reading)
        words = resolve_vocabulary(vocabulary, n_words, path, 2)
        blocks = list(iter_docword_entries(reading, n_docs, n_words, block_bytes))
    entries = (np.concatenate([b[0] for b in blocks]) if blocks
               else np.zeros((0, 3), dtype=np.int64))
    lines = np.concatenate([b[1] for b in blocks]) if blocks else np.zeros(0, dtype=np.int64)
    del blocks
    check_entry_count(n_nonzero, len(entries), path)
    check_duplicate_entries(entries, lines, path)
    del lines
    sorted_body = _strictly_sorted(entries)
    docs_used = (int((np.diff(entries[:, 0]) > 0).sum()) + (len(entries) > 0) if sorted_body
                 else np.unique(entries[:, 0]).size)
    check_declared_size(n_docs, docs_used, "documents", path, 1)
    if words is None:
        check_declared_size(n_words, np.unique(entries[:, 1]).size, "words", path, 2)
    if sorted_body:  # build the CSR arrays directly, without a COO copy and sort
        indptr = np.zeros(n_docs + 1, dtype=np.int64)
        np.cumsum(np.bincount(entries[:, 0] - 1, minlength=n_docs), out=indptr[1:])
        counts = sp.csr_matrix((entries[:, 2], entries[:, 1] - 1, indptr), shape=(n_docs, n_words))
    else:
        counts = sp.csr_matrix((entries[:, 2], (entries[:, 0] - 1, entries[:, 1] - 1)),
                               shape=(n_docs, n_words), dtype=np.int64)
    report.documents_read = report.documents_kept = n_docs
    report.tokens_kept = int(entries[:, 2].sum())
    if n_docs > docs_used:
        report.warn(f"{path}: {n_docs - docs_used} document(s) have no entries "
                    f"(kept as empty documents)")
    return Corpus(counts, words, report=report)


# --- corpus directory ---------------------------------------------------------------------------
def _find(directory: Path, name: str) -> Path | None:
    for candidate in (directory / name, directory / (name + ".gz")):
        if candidate.is_file():
            return candidate
    return None


def _parse_json(text: str, path, line: int):
    """One JSON value. Bad syntax, a number of more than 4300 digits (Python's int limit) and
    nesting deeper than the recursion limit are all an `InputError` at ``line``."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        problem = "empty line" if not text.strip() else f"{error.msg} at column {error.colno}"
    except ValueError:
        problem = "a number too long to convert"
    except RecursionError:
        problem = "nested too deeply"
    raise InputError(f"not valid JSON ({problem})", path, line)


def _json_lines(path, report: ReadReport) -> Iterator[tuple[int, object]]:
    """(line number, parsed value) for each line of a JSON-lines file; blank lines are errors."""
    with _Reading(path) as reading:
        for line, raw in enumerate(reading.lines(), start=1):
            if b"\x00" in raw:
                raise InputError("binary data (NUL byte) in a JSON-lines file", path, line)
            text = _decode(raw, report, path, line)
            if line == 1:
                text = text.lstrip("\ufeff")
            yield line, _parse_json(text, path, line)


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
    vocabulary_path = _find(directory, "vocab.txt")
    if vocabulary_path is None:
        raise InputError("not a corpus directory: no vocab.txt", directory)
    docword = _find(directory, f"{split}.docword.txt")
    if docword is None:
        splits = sorted({p.name.split(".docword")[0] for p in directory.glob("*.docword.txt*")})
        raise InputError(f"no {split}.docword.txt (splits here: {', '.join(splits) or 'none'})",
                         directory)
    return docword, vocabulary_path


def read_corpus_dir(path, split: str = "train") -> Corpus:
    """Read one split of a corpus directory (the layout of ``../shared/corpora``).

    ``vocab.txt`` and ``{split}.docword.txt`` are required; ``{split}.tokens.jsonl`` gives the
    token order (checked against the counts) and ``{split}.meta.jsonl`` the metadata, with
    labels taken from its ``label`` field. Each file may also be gzipped (``.gz`` added).
    """
    directory = Path(path)
    docword, vocabulary_path = corpus_dir_files(directory, split)
    bag = read_uci(docword, vocabulary_path)
    if bag.n_documents == 0:  # said of the directory the user named, not of a file inside it
        raise InputError(f"its {split} split holds no documents ({docword.name} declares D = 0)",
                         directory)
    report = bag.report
    report.source = f"{directory} ({split})"
    tokens = labels = metadata = None
    tokens_path = _find(directory, f"{split}.tokens.jsonl")
    if tokens_path is not None:
        tokens = read_token_lines(tokens_path, bag.n_words, report)
        _check_tokens_match(tokens, bag.counts, tokens_path, docword)
    meta_path = _find(directory, f"{split}.meta.jsonl")
    if meta_path is not None:
        metadata = read_metadata_lines(meta_path, report)
        if len(metadata) != bag.n_documents:
            raise InputError(f"{len(metadata)} metadata lines for {bag.n_documents} documents "
                             f"in {docword}", meta_path)
        if any("label" in m for m in metadata):
            labels = [m.get("label") for m in metadata]
    return Corpus(bag.counts, bag.vocabulary, tokens=tokens, labels=labels,
                  metadata=metadata, report=report)


# --- LDA-C --------------------------------------------------------------------------------------
_LDAC = "an LDA-C line 'N id:count id:count ...'"
_COLON_TO_SPACE = bytes.maketrans(b":", b" ")


def _ldac_block(block: bytes, first_line: int, path) -> tuple[np.ndarray, np.ndarray]:
    """(pairs n x 2 of word id, count; pairs per line) of a block of LDA-C lines."""
    buf = np.frombuffer(block, dtype=np.uint8)
    spaced = block.translate(_COLON_TO_SPACE)
    values, fields, newlines = _parse_integer_block(spaced, first_line, path, _LDAC)
    colon_at = np.flatnonzero(buf == ord(":"))
    colon_line = np.searchsorted(newlines, colon_at)
    colons = np.bincount(colon_line, minlength=newlines.size)
    line_offsets = np.concatenate(([0], np.cumsum(fields)[:-1]))
    # A colon must join a word id (field 1, 3, 5, ... of its line) to its count, without spaces.
    space = _SPACE[np.frombuffer(spaced, dtype=np.uint8)]
    starts = np.flatnonzero(~space & np.concatenate(([True], space[:-1])))
    field_before = np.searchsorted(starts, colon_at) - 1 - line_offsets[colon_line]
    joined = _DIGIT[buf[colon_at - 1]] & _DIGIT[buf[colon_at + 1]]  # a block ends with a newline
    misplaced = np.bincount(colon_line[~joined | (field_before % 2 == 0)], minlength=newlines.size)
    n_pairs = np.full(newlines.size, -1, dtype=np.int64)
    filled = fields > 0
    n_pairs[filled] = values[line_offsets[filled]]
    bad = np.flatnonzero(~filled | (fields != 1 + 2 * n_pairs) | (colons != n_pairs) | (misplaced > 0))
    if bad.size:
        index = int(bad[0])
        problem = ("an empty line (an empty document is written '0')" if fields[index] == 0
                   else _show(_line_at(block, newlines, index)))
        raise InputError(f"expected {_LDAC}, found {problem}", path, first_line + index)
    is_pair_value = np.ones(values.size, dtype=bool)
    is_pair_value[line_offsets] = False
    return values[is_pair_value].reshape(-1, 2), n_pairs


def read_ldac(path, vocabulary=None, block_bytes: int = BLOCK_BYTES) -> Corpus:
    """Read Blei's LDA-C format: line d = ``N id:count ...`` with N pairs and 0-based word ids.

    ``vocabulary`` (a path or a word list) fixes V; without it V = largest id + 1. A line "0"
    is an empty document (kept, counted in the report's warnings); a blank line is an error.
    """
    path = Path(path)
    report = ReadReport(source=str(path))
    pair_blocks, pairs_per_line = [], []
    with _Reading(path) as reading:
        for block, first_line in reading.blocks(first_line=1, block_bytes=block_bytes):
            pairs, n_pairs = _ldac_block(block, first_line, path)
            pair_blocks.append(pairs)
            pairs_per_line.append(n_pairs)
    pairs = np.concatenate(pair_blocks)
    n_pairs = np.concatenate(pairs_per_line)
    n_docs = n_pairs.size
    doc = np.repeat(np.arange(n_docs), n_pairs)
    line = doc + 1
    word, count = pairs[:, 0], pairs[:, 1]
    given = resolve_vocabulary(vocabulary, None, path)
    n_words = len(given) if given is not None else int(word.max(initial=-1)) + 1
    _raise_first((
        ((word < 0) | (word >= n_words), lambda i: f"word id {word[i]} is outside 0..{n_words - 1}"),
        (count < 1, lambda i: f"count {count[i]} is not a positive integer"),
    ), line, path)
    check_duplicate_entries(np.stack([doc, word], axis=1), line, path)
    if given is None:
        check_declared_size(n_words, np.unique(word).size, "words", path, None)
    matrix = sp.csr_matrix((count, (doc, word)), shape=(n_docs, n_words), dtype=np.int64)
    report.documents_read = report.documents_kept = n_docs
    report.tokens_kept = int(count.sum())
    empty = np.flatnonzero(n_pairs == 0)
    if empty.size:
        report.warn(f"{path}: {empty.size} empty document(s) kept, the first on line {empty[0] + 1}")
    return Corpus(matrix, given, report=report)


# --- MatrixMarket and sparse matrices -----------------------------------------------------------
def from_sparse(matrix, vocabulary=None, source: str = "sparse matrix") -> Corpus:
    """A `Corpus` from a D x V sparse (or dense) count matrix, e.g. ``CountVectorizer`` output.

    ``vocabulary``: V words (for ``CountVectorizer``, ``get_feature_names_out()``), or a path.
    """
    if not (sp.issparse(matrix) or isinstance(matrix, np.ndarray)):
        raise InputError(f"{source}: expected a scipy sparse matrix or a NumPy array, "
                         f"got {type(matrix).__name__}")
    if matrix.ndim != 2:
        raise InputError(f"{source}: expected a 2-d documents x words matrix, got {matrix.ndim}-d")
    words = resolve_vocabulary(vocabulary, matrix.shape[1], source)
    values = matrix.data if sp.issparse(matrix) else matrix
    if values.dtype.kind == "f" and not (np.abs(values) < 2**62).all():  # NaN compares False
        raise InputError(f"{source}: counts must be finite numbers below 2^62 (found "
                         f"{values.flat[np.argmin(np.abs(values) < 2**62)]})")
    try:
        corpus = Corpus(matrix, words)
    except InputError as error:
        raise InputError(error.problem, source) from None
    report = ReadReport(source=source, documents_read=corpus.n_documents,
                        documents_kept=corpus.n_documents, tokens_kept=corpus.n_tokens)
    empty = int((corpus.document_lengths == 0).sum())
    if empty:
        report.warn(f"{source}: {empty} empty document(s) kept")
    corpus.report = report
    return corpus


_MM_NUMBER = rb"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?"  # one way to match each number
_MM_REAL_LINES = re.compile(rb"(?:[ \t]*(?:" + _MM_NUMBER + rb"[ \t]+)*(?:" + _MM_NUMBER
                            + rb")?[ \t]*\r?\n)*")


def _check_matrix_market_body(data: bytes, value_field: str, path) -> None:
    """Refuse a MatrixMarket body (the lines after the header and its comments) that holds
    anything but numbers: integers for integer and pattern files (parsed a block at a time, as
    docword bodies), real numbers otherwise (a regular expression). ``data`` ends with a newline.
    """
    start = data.find(b"\n") + 1
    while data.startswith(b"%", start):  # comment lines follow the header line
        start = data.index(b"\n", start) + 1
    first_line = data.count(b"\n", 0, start) + 1
    if value_field != "real":
        while start < len(data):
            stop = (data.rfind(b"\n", start, start + BLOCK_BYTES) + 1) or data.index(b"\n", start) + 1
            _parse_integer_block(data[start:stop], first_line, path, "integers")
            first_line += data.count(b"\n", start, stop)
            start = stop
        return
    good = _MM_REAL_LINES.match(data, start).end()
    if good != len(data):
        raw = data[good:data.index(b"\n", good)]
        problem = "binary data" if _looks_binary(raw) else _show(raw)
        raise InputError(f"expected numbers separated by spaces, found {problem}",
                         path, first_line + data.count(b"\n", start, good))


def read_matrix_market(path, vocabulary=None) -> Corpus:
    """Read a MatrixMarket file of counts (documents as rows), plain or gzip.

    scipy parses it, but only after `_check_matrix_market_body` has checked that the body holds
    nothing but numbers and ends with a newline: scipy's C++ reader crashes the interpreter on
    some malformed bodies (a last line ending in junk without a newline) and reads "6F" as 6.
    It gets the bytes, not the file: its header reader seeks back past the start of a real file
    whose body is longer than its header, and that failed seek aborts the interpreter.
    """
    import scipy.io

    path = Path(path)
    with _Reading(path) as reading:
        data = reading.read()
    data += b"" if data.endswith(b"\n") else b"\n"
    try:
        n_rows, n_cols, n_entries, layout, value_field, _ = scipy.io.mminfo(io.BytesIO(data))
    except Exception as error:  # scipy raises ValueError, OSError, RuntimeError on bad headers
        raise InputError(f"not a MatrixMarket file ({error})", path, 1) from None
    if value_field not in ("integer", "real", "pattern"):
        raise InputError(f"MatrixMarket values are {value_field}, counts need integer or real", path, 1)
    _check_matrix_market_body(data, value_field, path)
    if layout == "coordinate" and n_entries * 4 > len(data):
        raise InputError(f"the header declares {n_entries} entries, more than {len(data)} bytes "
                         f"of data can hold", path)
    if layout == "array" and n_rows * n_cols > 10**8:
        raise InputError(f"refusing to read a dense {n_rows} x {n_cols} array", path)
    try:
        matrix = scipy.io.mmread(io.BytesIO(data))
    except Exception as error:  # malformed bodies surface as ValueError/RuntimeError/OSError
        raise InputError(f"not a readable MatrixMarket file ({error})", path) from None
    if sp.issparse(matrix):
        coo = sp.coo_matrix(matrix)
        check_declared_size(n_rows, np.unique(coo.row).size, "documents (rows)", path, None)
        if vocabulary is None:
            check_declared_size(n_cols, np.unique(coo.col).size, "words (columns)", path, None)
        matrix = coo.tocsr()
    corpus = from_sparse(matrix, vocabulary, source=str(path))
    return corpus


# --- raw text -----------------------------------------------------------------------------------
@dataclass
class RawDocument:
    """One raw document: its text, where it came from, and its other fields (label, ...)."""

    text: str
    source_id: object
    fields: dict = field(default_factory=dict)


def _empty(report: ReadReport, path, line, skip_empty: bool) -> None:
    where = f"{path}" + (f", line {line}" if line is not None else "")
    if not skip_empty:
        raise InputError("empty document", path, line)
    report.skip("empty document")
    report.warn(f"{where}: empty document skipped")


def _decoded_lines(lines, report: ReadReport, name, decoding: TextDecoding = UTF8
                   ) -> Iterator[tuple[int, str]]:
    """(line number, line without its newline) from a binary handle or (line number, bytes or
    text) pairs: a NUL byte means binary data, bytes are decoded by ``decoding`` (`TextDecoding`),
    a byte-order mark on line 1 is dropped (each step leaves text it already did unchanged)."""
    if hasattr(lines, "readline"):
        lines = enumerate(iter(lines.readline, b""), start=1)
    for line, raw in lines:
        if ("\x00" if isinstance(raw, str) else b"\x00") in raw:
            raise InputError("binary data (NUL byte), not text", name, line)
        text = (raw if isinstance(raw, str) else _decode(raw, report, name, line, decoding)).rstrip("\r\n")
        yield line, (text.lstrip("\ufeff") if line == 1 else text)


def _text_lines(path, report: ReadReport, decoding: TextDecoding) -> Iterator[tuple[int, str]]:
    """(line number, decoded line without its newline) of a text file."""
    with _Reading(path) as reading:
        yield from _decoded_lines(reading, report, path, decoding)


def _iter_text(lines, name, report, skip_empty, text_field) -> Iterator[RawDocument]:
    for line, text in lines:
        report.documents_read += 1
        if text.strip():
            yield RawDocument(text, line)
        else:
            _empty(report, name, line, skip_empty)


def _iter_jsonl(lines, name, report, skip_empty, text_field) -> Iterator[RawDocument]:
    for line, text in lines:
        if not text.strip():
            continue  # a blank line holds no JSON value, hence no document
        report.documents_read += 1
        value = _parse_json(text, name, line)
        if not isinstance(value, dict):
            raise InputError(f"expected a JSON object, found {type(value).__name__}", name, line)
        if text_field not in value:
            raise InputError(f"no field {text_field!r} (fields: {', '.join(map(str, value)) or 'none'})",
                             name, line)
        body = value.pop(text_field)
        if not isinstance(body, str):
            raise InputError(f"field {text_field!r} must be a string, found "
                             f"{type(body).__name__}", name, line)
        if body.strip():
            yield RawDocument(body, line, value)
        else:
            _empty(report, name, line, skip_empty)


_LINE_READERS = {"text": _iter_text, "jsonl": _iter_jsonl}
LINE_FORMATS = tuple(_LINE_READERS)
"""Raw-text formats read a line at a time, hence also from a stream such as stdin."""


def iter_raw_lines(lines, format: str, text_field: str = "text", report: ReadReport | None = None,
                   skip_empty: bool = True, name="<stream>", encoding: str = "utf-8",
                   errors: str = "strict") -> Iterator[RawDocument]:
    """The raw documents of lines of text (``format="text"``, one document per line) or JSON
    (``"jsonl"``, the text in ``text_field``, the other fields kept), one line at a time.

    ``lines``: an open binary handle (stdin's buffer, a file) or (line number, raw bytes or text)
    pairs. The checks, messages (naming ``name`` and the line) and ``report`` counts are those
    of `iter_raw_documents` for a file: it reads its text and JSON-lines files through here.
    ``encoding``, ``errors``: see `TextDecoding`.
    """
    if format not in _LINE_READERS:
        raise InputError(f"format {format!r} is not read by lines (one of "
                         f"{', '.join(LINE_FORMATS)})", name)
    report = ReadReport(source=str(name)) if report is None else report
    decoded = _decoded_lines(lines, report, name, TextDecoding(encoding, errors))
    return _LINE_READERS[format](decoded, name, report, skip_empty, text_field)


def detect_line_format(lines, report: ReadReport, name, encoding: str = "utf-8",
                       errors: str = "strict") -> tuple[str | None, Iterator[tuple[int, str]]]:
    """(format, the same lines decoded): "jsonl" when the first non-blank line starts a JSON
    object, else "text"; None when every line is blank. Reads up to that first non-blank line.

    ``lines``, ``report``, ``name``: as in `iter_raw_lines`, which takes the lines returned.
    """
    decoded = _decoded_lines(lines, report, name, TextDecoding(encoding, errors))
    blank = []
    for line, text in decoded:
        if text.strip():
            format = "jsonl" if text.lstrip().startswith("{") else "text"
            return format, itertools.chain(blank, [(line, text)], decoded)
        blank.append((line, text))
    return None, iter(blank)


def _iter_csv(path, report, skip_empty, decoding, column="text", delimiter=None, **_
              ) -> Iterator[RawDocument]:
    """Strict CSV: a quote left open (which would swallow the rest of the file into one
    field) or text after a closing quote is an error at the record's first line."""
    if delimiter is None:
        delimiter = "\t" if ".tsv" in Path(path).suffixes else ","
    previous_limit = csv.field_size_limit(2**31 - 1)  # documents can be long; restored below
    try:
        source = (text + "\n" for _, text in _text_lines(path, report, decoding))
        rows = csv.reader(source, delimiter=delimiter, strict=True)
        try:
            header = next(rows)
        except StopIteration:
            raise InputError("file is empty", path) from None
        except csv.Error as error:
            raise InputError(f"malformed CSV ({error})", path, rows.line_num) from None
        if column not in header:
            raise InputError(f"no column {column!r} (columns: {', '.join(header)})", path, 1)
        position = header.index(column)
        line = rows.line_num
        while True:
            try:
                row = next(rows)
            except StopIteration:
                break
            except csv.Error as error:
                problem = ("a quote opened in it is never closed" if "end of data" in str(error)
                           else str(error))
                raise InputError(f"malformed CSV in the record starting on this line "
                                 f"({problem})", path, line + 1) from None
            first_line, line = line + 1, rows.line_num
            if not row:
                continue  # a blank line is not a record
            report.documents_read += 1
            if len(row) != len(header):
                raise InputError(f"row has {len(row)} fields, the header has {len(header)}"
                                 + (f" (no {column!r} column)" if len(row) <= position else ""),
                                 path, first_line)
            body = row[position]
            others = {name: value for name, value in zip(header, row) if name != column}
            if body.strip():
                yield RawDocument(body, first_line, others)
            else:
                _empty(report, path, first_line, skip_empty)
    finally:
        csv.field_size_limit(previous_limit)


def _iter_txt_dir(path, report, skip_empty, decoding, **_) -> Iterator[RawDocument]:
    directory = Path(path)
    files = sorted(p for p in directory.rglob("*.txt")
                   if p.is_file() and not any(part.startswith(".") for part in p.relative_to(directory).parts))
    if not files:
        raise InputError("no .txt files in this directory", directory)
    for file in files:
        name = str(file.relative_to(directory))
        report.documents_read += 1
        with open(file, "rb") as handle:
            data = handle.read()
        if b"\x00" in data:
            raise InputError("binary data (NUL byte), not text", file,
                             data[:data.index(b"\x00")].count(b"\n") + 1)
        text = _decode(data, report, file, None, decoding).lstrip("\ufeff")
        if text.strip():
            yield RawDocument(text, name)
        else:
            _empty(report, file, None, skip_empty)


_TEXT_READERS = {"csv": _iter_csv, "txt-dir": _iter_txt_dir}


def iter_raw_documents(path, format: str | None = None, text_field: str = "text",
                       column: str = "text", delimiter: str | None = None,
                       report: ReadReport | None = None, skip_empty: bool = True,
                       encoding: str = "utf-8", errors: str = "strict"
                       ) -> Iterator[RawDocument]:
    """Stream the raw documents of a text source, one at a time (memory independent of size).

    ``format``: "text" (one document per line), "jsonl" (``text_field`` holds the text, the
    other fields are kept), "csv" (``column``; ``.tsv`` files split on tabs), "txt-dir" (each
    ``.txt`` file below the directory is a document); None detects it from the path. Documents
    with no text are skipped and counted in ``report`` (or raise, with ``skip_empty=False``).
    ``encoding``, ``errors``: how bytes become text (`TextDecoding`; by default an undecodable
    byte is an error naming the file and line).
    """
    decoding = TextDecoding(encoding, errors)
    format = detect_format(path) if format is None else format
    if format not in TEXT_FORMATS:
        raise InputError(f"format {format!r} is not raw text (one of {', '.join(TEXT_FORMATS)})", path)
    report = ReadReport(source=str(path)) if report is None else report
    if format != "txt-dir":
        _check_file(Path(path))
    elif not Path(path).is_dir():
        raise InputError("not a directory", path)
    if format in LINE_FORMATS:
        with _Reading(path) as reading:
            yield from iter_raw_lines(reading, format, text_field, report, skip_empty, path,
                                      encoding, errors)
    else:
        yield from _TEXT_READERS[format](path, report, skip_empty, decoding, column=column,
                                         delimiter=delimiter)


# --- dispatch -----------------------------------------------------------------------------------
def detect_format(path) -> str:
    """The format of ``path`` from its name (a trailing ``.gz`` is ignored) or directory content."""
    path = Path(path)
    if path.is_dir():
        return "corpus-dir" if _find(path, "vocab.txt") else "txt-dir"
    name = path.name.lower().removesuffix(".gz")
    suffix = Path(name).suffix
    if name.startswith("docword") or ".docword." in name:
        return "uci"
    for fmt, suffixes in (("jsonl", (".jsonl", ".ndjson", ".json")), ("csv", (".csv", ".tsv")),
                          ("mm", (".mtx", ".mm")), ("ldac", (".ldac", ".lda-c", ".ldc")),
                          ("text", (".txt", ".text"))):
        if suffix in suffixes:
            return fmt
    if not path.exists():
        raise InputError("no such file or directory", path)
    raise InputError(f"cannot tell the format from the name; pass format= one of "
                     f"{', '.join(FORMATS)}", path)


def _sibling_vocabulary(docword: Path) -> Path | None:
    """``vocab.kos.txt`` for ``docword.kos.txt`` (UCI naming), else ``vocab.txt`` beside it."""
    name = docword.name.removesuffix(".gz")
    candidates = ([name.replace("docword", "vocab", 1)] if name.startswith("docword") else []) + ["vocab.txt"]
    for candidate in candidates:
        found = _find(docword.parent, candidate)
        if found is not None:
            return found
    return None


def load_corpus(path, format: str | None = None, text_field: str = "text", column: str = "text",
                vocabulary=None, *, split: str = "train", label_field: str = "label",
                stopwords=None, max_df: float = 0.2, min_count: int = 5,
                max_vocab: int | None = 10_000, skip_empty: bool = True,
                delimiter: str | None = None, encoding: str = "utf-8",
                errors: str = "strict") -> Corpus:
    """Read any supported input into a `Corpus` whose ``report`` says what was kept and dropped.

    ``path`` is a file or directory (``format`` detected from the name when None: see
    `detect_format`), or a scipy sparse matrix. ``vocabulary`` (word list or vocab file):
    for bag-of-words formats it names the columns (UCI files find ``vocab.*`` beside them);
    for raw text it is the fixed vocabulary the text is mapped onto (unknown words dropped and
    counted). Raw text without a vocabulary goes through the preprocessing pipeline
    (`streamtopics.corpus.preprocess.preprocess_documents` with ``stopwords``, ``max_df``,
    ``min_count``, ``max_vocab``), the same as ``streamtopics preprocess`` minus the split.
    ``encoding``, ``errors``: how raw text's bytes become text (`TextDecoding`).
    """
    from .preprocess import map_to_vocabulary, preprocess_documents

    if sp.issparse(path) or isinstance(path, np.ndarray):
        return from_sparse(path, vocabulary)
    format = detect_format(path) if format is None else format
    if format not in FORMATS:
        raise InputError(f"unknown format {format!r} (one of {', '.join(FORMATS)})", path)
    if format == "corpus-dir":
        return read_corpus_dir(path, split)
    if format == "uci":
        if vocabulary is None:
            vocabulary = _sibling_vocabulary(Path(path))
        return read_uci(path, vocabulary)
    if format == "ldac":
        return read_ldac(path, vocabulary)
    if format == "mm":
        return read_matrix_market(path, vocabulary)
    report = ReadReport(source=str(path))
    documents = iter_raw_documents(path, format, text_field=text_field, column=column,
                                   delimiter=delimiter, report=report, skip_empty=skip_empty,
                                   encoding=encoding, errors=errors)
    if vocabulary is not None:
        words = resolve_vocabulary(vocabulary, None, path)
        corpus = map_to_vocabulary(documents, words, label_field=label_field, report=report)
        if corpus.n_documents == 0:  # as preprocessing and TextStream: no silent empty corpus
            raise InputError(f"no documents ({report.documents_read} read, all empty)", path)
        return corpus
    return preprocess_documents(documents, stopwords=stopwords, max_df=max_df,
                                min_count=min_count, max_vocab=max_vocab,
                                label_field=label_field, report=report)
