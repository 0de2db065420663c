"""File plumbing shared by both families of readers (`bag_of_words`, `raw_text`).

Which format a path holds (`detect_format`, from its name or a directory's content), opening a
plain or gzip file (told apart by content) with corrupt data surfacing as `InputError`
(`Reading`), lines as the user should see them in a message, UTF-8 decoding that counts what it
replaces or refuses (`TextDecoding`), one JSON value with every failure an `InputError` at its line, and vocabulary files
(`read_vocabulary`, `resolve_vocabulary`), which name the columns of bag-of-words data and the
words raw text is mapped onto.
"""

from __future__ import annotations

import codecs
import gzip
import json
import os
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Iterator

from ..errors import InputError
from .corpus import ReadReport

BLOCK_BYTES = 1 << 22
"""Bytes of a numeric file parsed at once: bounds the memory of the readers and streams."""


FORMATS = ("uci", "corpus-dir", "ldac", "mm", "text", "txt-dir", "jsonl", "csv")
TEXT_FORMATS = ("text", "txt-dir", "jsonl", "csv")

_GZIP_MAGIC = b"\x1f\x8b"


# --- files --------------------------------------------------------------------------------------
def check_file(path: Path) -> None:
    if not path.exists():
        raise InputError("no such file", path)
    if path.is_dir():
        raise InputError("is a directory, expected a file", path)
    if path.stat().st_size == 0:
        raise InputError("file is empty", path)


class Reading:
    """A binary handle on a plain or gzip file (told apart by content, not name).

    Truncated or corrupt gzip data surfaces as `InputError` from any read.
    """

    def __init__(self, path):
        self.path = Path(path)
        check_file(self.path)
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

    def __enter__(self) -> "Reading":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def show_line(raw: bytes, limit: int = 60) -> str:
    """A line as the user should see it in a message: repr, shortened."""
    text = raw.rstrip(b"\r\n")
    shown = repr(text[:limit])[1:]
    return shown + ("..." if len(text) > limit else "")


def looks_binary(raw: bytes) -> bool:
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


def decode(raw: bytes, report: ReadReport, path, line: int | None,
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



def find_file(directory: Path, name: str) -> Path | None:
    for candidate in (directory / name, directory / (name + ".gz")):
        if candidate.is_file():
            return candidate
    return None


def parse_json(text: str, path, line: int):
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



def detect_format(path) -> str:
    """The format of ``path`` from its name (a trailing ``.gz`` is ignored) or directory content."""
    path = Path(path)
    if path.is_dir():
        return "corpus-dir" if find_file(path, "vocab.txt") else "txt-dir"
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


def read_vocabulary(path, report: ReadReport | None = None) -> list[str]:
    """One word per line (line i = word id i, 1-based in docword files); plain or gzip.

    Empty lines and repeated words are errors: either would shift or merge word ids.
    """
    report = ReadReport(source=str(path)) if report is None else report
    with Reading(path) as reading:
        data = reading.read()
    if b"\x00" in data:
        line = data[:data.index(b"\x00")].count(b"\n") + 1
        raise InputError("binary data in a vocabulary file", path, line)
    words = decode(data, report, path, None).split("\n")
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
