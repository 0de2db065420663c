"""Bag-of-words readers: counts kept as they are, each file checked before it is trusted.

- UCI bag-of-words: ``docword`` (lines 1-3: D, W, NNZ; then ``docID wordID count``, 1-based)
  plus ``vocab`` (line i = word i), plain or gzip (`read_uci`; `DocwordStream` streams it with
  the same checks: `read_docword_header`, `iter_docword_entries`, `check_*`);
- the corpus directory of ``../shared/corpora`` (`corpus_dir.read_corpus_dir`: a docword file
  with JSON-lines side files);
- LDA-C (Blei): one line per document, ``N id:count ...`` with 0-based ids (`read_ldac`);
- MatrixMarket coordinate files, documents as rows (`read_matrix_market`);
- a scipy sparse matrix plus vocabulary, e.g. from scikit-learn's ``CountVectorizer``
  (`from_sparse`).

Numbers in headers are trusted only as far as the body supports them, so a header claiming
10^12 documents allocates nothing. Numeric bodies are parsed with NumPy a block of lines at a
time (no Python loop per entry).
"""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Iterator

import numpy as np
import scipy.sparse as sp

from ..errors import InputError
from .corpus import Corpus, ReadReport
from .files import BLOCK_BYTES, Reading, find_file, looks_binary, resolve_vocabulary, show_line

UNUSED_ID_ALLOWANCE = 1_000_000
"""Ids a header may declare beyond those the body uses (empty documents, unused words) are
accepted up to max(number used, this). A larger claim is a corrupt header, not data: rejecting
it is what keeps a header of 10^12 documents from allocating memory for them."""


_SPACE = np.zeros(256, dtype=bool)
_SPACE[[9, 10, 11, 12, 13, 32]] = True
_DIGIT = np.zeros(256, dtype=bool)
_DIGIT[48:58] = True
_MINUS = ord("-")
_INTEGER_BYTES = _SPACE | _DIGIT
_INTEGER_BYTES[_MINUS] = True
_MAX_DIGITS = 18  # int64 holds every 18-digit number


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
        if looks_binary(raw):
            problem = "binary data"
        raise InputError(f"expected {expected}, found {problem}: {show_line(raw)}",
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


def read_docword_header(reading: Reading) -> tuple[int, int, int]:
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
            problem = "binary data" if looks_binary(raw) else show_line(raw)
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


def iter_docword_entries(reading: Reading, n_docs: int, n_words: int,
                         block_bytes: int = BLOCK_BYTES) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Checked (entries n x 3, line numbers) blocks of a docword body; the header is read."""
    for block, first_line in reading.blocks(first_line=4, block_bytes=block_bytes):
        values, fields, newlines = _parse_integer_block(block, first_line, reading.path, _TRIPLE)
        wrong = np.flatnonzero((fields != 3) & (fields != 0))
        if wrong.size:
            index = int(wrong[0])
            raise InputError(f"expected {_TRIPLE}, found {fields[index]} field(s): "
                             f"{show_line(_line_at(block, newlines, index))}",
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



def read_uci(docword, vocabulary=None, block_bytes: int = BLOCK_BYTES) -> Corpus:
    """Read a UCI bag-of-words ``docword`` file (plain or gzip) into a `Corpus`.

    ``vocabulary`` is the ``vocab`` file's path or a word list; without it words are named
    "w0", "w1", ... Documents without entries stay (as empty rows, so ids and metadata line up)
    and are counted in the report's warnings. The body need not be sorted.
    """
    path = Path(docword)
    report = ReadReport(source=str(path))
    with Reading(path) as reading:
        n_docs, n_words, n_nonzero = read_docword_header(reading)
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


def sibling_vocabulary(docword: Path) -> Path | None:
    """``vocab.kos.txt`` for ``docword.kos.txt`` (UCI naming), else ``vocab.txt`` beside it."""
    name = docword.name.removesuffix(".gz")
    candidates = ([name.replace("docword", "vocab", 1)] if name.startswith("docword") else []) + ["vocab.txt"]
    for candidate in candidates:
        found = find_file(docword.parent, candidate)
        if found is not None:
            return found
    return None



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
                   else show_line(_line_at(block, newlines, index)))
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
    with Reading(path) as reading:
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
        problem = "binary data" if looks_binary(raw) else show_line(raw)
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
    with Reading(path) as reading:
        data = reading.read()
    data += b"" if data.endswith(b"\n") else b"\n"
    try:
        n_rows, n_cols, n_entries, layout, value_field, _ = scipy.io.mminfo(io.BytesIO(data))
    except MemoryError:
        raise
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
    except MemoryError:  # too large, not malformed
        raise
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
