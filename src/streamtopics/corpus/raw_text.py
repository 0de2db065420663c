"""Raw-text readers: documents as text, to be tokenised and pruned
(`streamtopics.corpus.preprocess`) or mapped onto a given vocabulary.

One document per line, a directory of ``.txt`` files, JSONL or CSV with the text in a named
field (``text_field``: a JSON key, a CSV column; `iter_raw_documents`, one document at a time);
text or JSON lines from an open stream such as stdin (`iter_raw_lines`, `detect_line_format`).
A text field the documents do not have is an error for every format (`check_text_field`).
A time field (``time_field``, JSONL and CSV) dates each document (`corpus.time`).
Empty documents are skipped and counted (or refused); undecodable bytes are an error or replaced
and counted (`TextDecoding`); a NUL byte is binary data.
"""

from __future__ import annotations

import csv
import itertools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

from ..errors import InputError
from .corpus import ReadReport
from .time import TimeField, TimeReading
from .files import (TEXT_FORMATS, UTF8, Reading, TextDecoding, check_file, decode,
                    detect_format, parse_json)

DEFAULT_TEXT_FIELD = "text"
"""The JSON field or CSV column holding a document's text unless ``text_field`` names another."""
FIELD_FORMATS = ("jsonl", "csv")
"""Raw-text formats whose documents have fields, one of which holds the text."""


def check_text_field(format: str, text_field: str, name) -> None:
    """A ``text_field`` other than `DEFAULT_TEXT_FIELD` names a field that documents of
    ``format`` cannot have (a line of plain text or a ``.txt`` file is all text; bag-of-words
    inputs hold no text): an InputError naming the input ``name``, never silently ignored."""
    if format not in FIELD_FORMATS and text_field != DEFAULT_TEXT_FIELD:
        raise InputError(f"no field {text_field!r}: {format} input has no fields (a text field "
                         f"names a JSON lines key or a CSV column)", name)


def check_time_field(format: str, time_field, name) -> None:
    """A ``time_field`` names a field: documents of a format without fields cannot have it."""
    if time_field is not None and format not in FIELD_FORMATS:
        raise InputError(f"no field {TimeField.of(time_field).name!r} for the time: {format} "
                         f"input has no fields (a time field names a JSON lines key or a CSV "
                         f"column)", name)


def _dated(documents, time_field, report, name):
    """``documents`` with their time parsed from ``time_field`` into their fields
    (`corpus.time.TimeReading`); those without a valid one refused or skipped and counted; the
    number that go back in time said at the end."""
    if time_field is None:
        yield from documents
        return
    reading = TimeReading(TimeField.of(time_field))
    for document in documents:
        if reading.stamp(document.fields, report, name, document.source_id):
            yield document
    if reading.backwards:
        report.warn(f"{name}: {reading.backwards} document(s) dated earlier than a document "
                    f"before them")


@dataclass
class RawDocument:
    """One raw document: its text, where it came from, and its other fields (label, ...)."""

    text: str
    source_id: object
    fields: dict = field(default_factory=dict)


def empty_document(report: ReadReport, path, line, skip_empty: bool) -> None:
    """An empty document at ``path`` (``line``): skipped, counted and warned about, or an
    InputError with ``skip_empty=False``."""
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
        text = (raw if isinstance(raw, str) else decode(raw, report, name, line, decoding)).rstrip("\r\n")
        yield line, (text.lstrip("\ufeff") if line == 1 else text)


def _text_lines(path, report: ReadReport, decoding: TextDecoding) -> Iterator[tuple[int, str]]:
    """(line number, decoded line without its newline) of a text file."""
    with Reading(path) as reading:
        yield from _decoded_lines(reading, report, path, decoding)


def _iter_text(lines, name, report, skip_empty, text_field) -> Iterator[RawDocument]:
    for line, text in lines:
        report.documents_read += 1
        if text.strip():
            yield RawDocument(text, line)
        else:
            empty_document(report, name, line, skip_empty)


def _iter_jsonl(lines, name, report, skip_empty, text_field) -> Iterator[RawDocument]:
    for line, text in lines:
        if not text.strip():
            continue  # a blank line holds no JSON value, hence no document
        report.documents_read += 1
        value = parse_json(text, name, line)
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
            empty_document(report, name, line, skip_empty)


_LINE_READERS = {"text": _iter_text, "jsonl": _iter_jsonl}
LINE_FORMATS = tuple(_LINE_READERS)
"""Raw-text formats read a line at a time, hence also from a stream such as stdin."""


def iter_raw_lines(lines, format: str, text_field: str = DEFAULT_TEXT_FIELD,
                   report: ReadReport | None = None, skip_empty: bool = True, name="<stream>",
                   encoding: str = "utf-8", errors: str = "strict",
                   time_field: str | TimeField | None = None) -> Iterator[RawDocument]:
    """The raw documents of lines of text (``format="text"``, one document per line) or JSON
    (``"jsonl"``, the text in ``text_field``, the other fields kept), one line at a time.

    ``lines``: an open binary handle (stdin's buffer, a file) or (line number, raw bytes or text)
    pairs. The checks, messages (naming ``name`` and the line) and ``report`` counts are those
    of `iter_raw_documents` for a file: it reads its text and JSON-lines files through here.
    ``encoding``, ``errors``: see `TextDecoding`. ``time_field``: see
    `iter_raw_documents`.
    """
    if format not in _LINE_READERS:
        raise InputError(f"format {format!r} is not read by lines (one of "
                         f"{', '.join(LINE_FORMATS)})", name)
    check_text_field(format, text_field, name)
    check_time_field(format, time_field, name)
    report = ReadReport(source=str(name)) if report is None else report
    decoded = _decoded_lines(lines, report, name, TextDecoding(encoding, errors))
    return _dated(_LINE_READERS[format](decoded, name, report, skip_empty, text_field),
                  time_field, report, name)


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


def _iter_csv(path, report, skip_empty, decoding, text_field=DEFAULT_TEXT_FIELD, delimiter=None,
              **_) -> Iterator[RawDocument]:
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
        if text_field not in header:
            raise InputError(f"no column {text_field!r} (columns: {', '.join(header)})", path, 1)
        position = header.index(text_field)
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
                                 + (f" (no {text_field!r} column)" if len(row) <= position
                                    else ""),
                                 path, first_line)
            body = row[position]
            others = {name: value for name, value in zip(header, row) if name != text_field}
            if body.strip():
                yield RawDocument(body, first_line, others)
            else:
                empty_document(report, path, first_line, skip_empty)
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
        text = decode(data, report, file, None, decoding).lstrip("\ufeff")
        if text.strip():
            yield RawDocument(text, name)
        else:
            empty_document(report, file, None, skip_empty)


_TEXT_READERS = {"csv": _iter_csv, "txt-dir": _iter_txt_dir}


def iter_raw_documents(path, format: str | None = None, text_field: str = DEFAULT_TEXT_FIELD,
                       delimiter: str | None = None, report: ReadReport | None = None,
                       skip_empty: bool = True, encoding: str = "utf-8", errors: str = "strict",
                       time_field: str | TimeField | None = None) -> Iterator[RawDocument]:
    """Stream the raw documents of a text source, one at a time (memory independent of size).

    ``format``: "text" (one document per line), "jsonl" (the field ``text_field`` holds the
    text, the other fields are kept), "csv" (the column ``text_field`` holds it, likewise;
    ``.tsv`` files split on tabs), "txt-dir" (each ``.txt`` file below the directory is a
    document); None detects it from the path. A ``text_field`` the documents lack is an
    InputError naming the file and the fields there are (`check_text_field`). Documents
    with no text are skipped and counted in ``report`` (or raise, with ``skip_empty=False``).
    ``encoding``, ``errors``: how bytes become text (`TextDecoding`; by default an undecodable
    byte is an error naming the file and line). ``time_field`` (JSONL, CSV): the field holding
    each document's time (a name, or a `corpus.time.TimeField` with its options), parsed into
    its ``time`` field; a bad or missing one is an InputError naming the file, line and value,
    or, with ``skip_undated``, the document is skipped and counted; the order "refuse" makes a
    document earlier than one before it an error, "sort" and "warn" count them in ``report``
    (a stream read a document at a time is never reordered: `load_corpus` sorts).
    """
    decoding = TextDecoding(encoding, errors)
    format = detect_format(path) if format is None else format
    if format not in TEXT_FORMATS:
        raise InputError(f"format {format!r} is not raw text (one of {', '.join(TEXT_FORMATS)})", path)
    report = ReadReport(source=str(path)) if report is None else report
    if format != "txt-dir":
        check_file(Path(path))
    elif not Path(path).is_dir():
        raise InputError("not a directory", path)
    if format in LINE_FORMATS:
        with Reading(path) as reading:
            yield from iter_raw_lines(reading, format, text_field, report, skip_empty, path,
                                      encoding, errors, time_field)
    else:
        check_text_field(format, text_field, path)
        check_time_field(format, time_field, path)
        yield from _dated(_TEXT_READERS[format](path, report, skip_empty, decoding,
                                                text_field=text_field, delimiter=delimiter),
                          time_field, report, path)
