"""Hostile input, fuzzed: every corpus reader, fed random bytes, truncated files
and corrupted files, either returns a correct corpus or raises `InputError` whose message names
the file. Never another exception, a hang, or an allocation sized by an unverified header.

How "correct" is checked:
- the numeric formats (UCI docword plain and gzip, LDA-C, `DocwordStream`) are compared with a
  small line-by-line reference parser written here from the format rules (`reference_uci`,
  `reference_ldac`): both must accept the same files and read the same counts, at any block size;
- every reader's result satisfies the `Corpus` invariants (`check_corpus`): CSR counts of
  positive int64, as many columns as vocabulary words, token sequences that match the counts, and
  a `ReadReport` that adds up (documents read = kept + skipped, tokens kept = sum of counts);
- `TextStream` must agree with `load_corpus` on the same file and vocabulary.

Corruptions (`MUTATIONS`, up to three per file): byte flips, truncation, deleted and duplicated
lines, numbers replaced by huge, negative or zero ones (so headers claim 10^12 documents or
words), NUL bytes, non-UTF-8 bytes, a BOM, stray separators, deep JSON nesting and very long
lines. Each example runs under `time_limit` (a hang fails the test) and a hypothesis deadline.

Fuzzing budget, examples per target (derandomized, no example database: CI runs the same
examples every time): UCI plain 300, UCI gzip 150, LDA-C 200, MatrixMarket 150, corpus
directory 150, text lines / JSONL / CSV / txt directory 150 each, DocwordStream 250, TextStream
100 per text format, random bytes 100 per reader (9 readers): 3,100 in all, about 10 s on 2
cores. The tests at the end replay the inputs that found bugs, and check with tracemalloc that
headers claiming 10^12 documents, words or entries allocate nothing for them.

Over 450 lines because the reference parsers, the corruptions and the targets of the nine
readers make one fuzzing budget (above) that is read and tuned together.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import re
import signal
import tempfile
import tracemalloc
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from streamtopics.corpus import (Corpus, DocwordStream, TextStream, load_corpus, read_corpus_dir,
                                 read_ldac, read_matrix_market, read_uci, tokenize)
from streamtopics.corpus.readers import UNUSED_ID_ALLOWANCE
from streamtopics.errors import InputError

pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")  # overflow, NaN: a failure

HANG_SECONDS = 10.0
"""A reader that takes longer than this on a file of a few kilobytes is hanging."""


def fuzz_settings(max_examples: int) -> settings:
    """Reproducible fuzzing: derandomized, no example database, a generous deadline (the
    per-example `time_limit` is what catches hangs; the deadline flags pathological slowness)."""
    return settings(max_examples=max_examples, derandomize=True, database=None,
                    deadline=timedelta(seconds=3),
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.function_scoped_fixture])


class Hang(BaseException):
    """Raised by `time_limit`; a BaseException so that no reader's ``except Exception`` hides it."""


@contextmanager
def time_limit(seconds: float = HANG_SECONDS):
    """Fail (raise `Hang`) when the block runs longer than ``seconds`` (SIGALRM, main thread)."""
    def expire(signum, frame):
        raise Hang(f"no result after {seconds} s: the reader hangs")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def read_or_reject(root, read):
    """``read()``'s result, or None when it raised `InputError` naming ``root`` (the file, or the
    directory holding the culprit). Any other exception propagates and fails the test."""
    with time_limit():
        try:
            return read()
        except InputError as error:
            assert str(root) in str(error), f"the message does not name {root}: {error}"
            return None


def fresh_dir(tmp_path: Path) -> Path:
    """An empty directory per example (hypothesis reuses the test's tmp_path)."""
    return Path(tempfile.mkdtemp(dir=tmp_path))


# --- invariants ----------------------------------------------------------------------------------
def check_report(report, n_documents: int, n_tokens: int) -> None:
    numbers = [report.documents_read, report.documents_kept, report.tokens_kept,
               report.decode_replacements, *report.documents_skipped.values(),
               *report.tokens_dropped.values()]
    assert all(isinstance(n, int) and n >= 0 for n in numbers), report
    assert report.documents_kept == n_documents and report.tokens_kept == n_tokens, report
    assert report.documents_read == report.documents_kept + sum(report.documents_skipped.values())


def check_corpus(corpus: Corpus, whole: bool = True) -> None:
    """The invariants every corpus a reader returns must satisfy; ``whole`` also checks the report
    against the counts (a stream's report covers the whole pass, not one batch)."""
    counts = corpus.counts
    assert sp.issparse(counts) and counts.format == "csr" and counts.dtype == np.int64
    counts.check_format(full_check=True)
    assert (counts.data > 0).all()
    vocabulary = corpus.vocabulary
    assert vocabulary.dtype.kind == "U" and vocabulary.shape == (counts.shape[1],)
    assert np.unique(vocabulary).size == vocabulary.size
    if corpus.tokens is not None:
        rebuilt = Corpus.from_token_lists(corpus.tokens, n_words=counts.shape[1]).counts
        assert (rebuilt != counts).nnz == 0
    if whole:
        check_report(corpus.report, corpus.n_documents, int(counts.sum()))


def entries_of(matrix) -> tuple[tuple[int, int], dict]:
    coo = sp.coo_matrix(matrix)
    return coo.shape, {(int(r), int(c)): int(v) for r, c, v in zip(coo.row, coo.col, coo.data)}


# --- corruptions ---------------------------------------------------------------------------------
ODD_NUMBERS = [b"0", b"-1", b"-7", b"1000000000000", b"100000000000000000", b"999999999999999999",
               b"9223372036854775807", b"1" + b"0" * 40, b"9" * 5000]
ODD_BYTES = [b"\x00", b"\xff", b"\xc3(", b"\xef\xbb\xbf", b"\n", b"\n\n", b"\r", b"\r\n", b" ",
             b"\t", b"\x0b", b":", b"-", b",", b'"', b"{", b"[" * 50_000, b"\\", b"a" * 20_000,
             b"9" * 300, b" " * 300, b"\xe2\x80\x99"]
POSITION = st.integers(0, 2**16)
MUTATIONS = st.lists(st.one_of(
    st.tuples(st.just("flip"), POSITION, st.integers(1, 255)),
    st.tuples(st.just("truncate"), POSITION),
    st.tuples(st.just("delete line"), POSITION),
    st.tuples(st.just("duplicate line"), POSITION),
    st.tuples(st.just("number"), POSITION, st.sampled_from(ODD_NUMBERS)),
    st.tuples(st.just("insert"), POSITION, st.sampled_from(ODD_BYTES)),
), max_size=3)


def mutate(data: bytes, mutations) -> bytes:
    """Apply (kind, position, ...) corruptions in turn; positions wrap around the data."""
    for kind, position, *argument in mutations:
        if kind == "flip" and data:
            at = position % len(data)
            data = data[:at] + bytes([data[at] ^ argument[0]]) + data[at + 1:]
        elif kind == "truncate":
            data = data[:position % (len(data) + 1)]
        elif kind in ("delete line", "duplicate line") and data:
            lines = data.splitlines(keepends=True)
            at = position % len(lines)
            lines[at:at + 1] = [] if kind == "delete line" else [lines[at]] * 2
            data = b"".join(lines)
        elif kind == "number":
            numbers = list(re.finditer(rb"\d+", data))
            if numbers:
                found = numbers[position % len(numbers)]
                data = data[:found.start()] + argument[0] + data[found.end():]
        elif kind == "insert":
            at = position % (len(data) + 1)
            data = data[:at] + argument[0] + data[at:]
    return data


# --- reference parsers ---------------------------------------------------------------------------
_INTEGER = re.compile(rb"-?\d{1,17}|\d{18}")  # what the readers accept: at most 18 characters
_HEADER_LINE = re.compile(rb"[ \t\r\f\v]*\d{1,18}[ \t\r\f\v]*")


def _integers(tokens) -> list[int] | None:
    return [int(t) for t in tokens] if all(_INTEGER.fullmatch(t) for t in tokens) else None


def _lines(data: bytes) -> list[bytes]:
    lines = data.split(b"\n")
    return lines[:-1] if lines[-1] == b"" else lines


def _declared_too_large(declared: int, used: int) -> bool:
    return declared - used > max(used, UNUSED_ID_ALLOWANCE)


def reference_uci(data: bytes, stream: bool = False):
    """(shape, {(doc, word): count}) of a UCI docword file, or None where a reader must refuse it.

    Header: three lines of one non-negative integer each (at most 255 characters); body: blank
    lines or 'doc word count' with ids in 1..D and 1..W, counts >= 1, no pair twice, exactly NNZ
    entries; D and W no larger than the ids used allow (`UNUSED_ID_ALLOWANCE`). ``stream``: the
    entries must also come sorted by document (`DocwordStream`).
    """
    lines = _lines(data)
    if len(lines) < 3 or not all(len(h) < 256 and _HEADER_LINE.fullmatch(h) for h in lines[:3]):
        return None
    n_docs, n_words, n_nonzero = (int(h) for h in lines[:3])
    entries = {}
    last_doc = 0
    for raw in lines[3:]:
        values = _integers(raw.split())
        if values is None or len(values) not in (0, 3):
            return None
        if not values:
            continue
        doc, word, count = values
        if not (1 <= doc <= n_docs and 1 <= word <= n_words and count >= 1):
            return None
        if (doc - 1, word - 1) in entries or (stream and doc < last_doc):
            return None
        entries[doc - 1, word - 1] = count
        last_doc = doc
    docs_used = len({d for d, _ in entries})
    words_used = len({w for _, w in entries})
    if (len(entries) != n_nonzero or _declared_too_large(n_docs, docs_used)
            or _declared_too_large(n_words, words_used)):
        return None
    return (n_docs, n_words), entries


def reference_ldac(data: bytes):
    """(shape, {(doc, word): count}) of an LDA-C file, or None: every line 'N id:count ...' with
    exactly N pairs written id:count, ids >= 0, counts >= 1, no id twice in a line; V is the
    largest id + 1, within `UNUSED_ID_ALLOWANCE` of the ids used."""
    if not data:
        return None
    entries = {}
    lines = _lines(data)
    for doc, raw in enumerate(lines):
        tokens = raw.split()
        if not tokens or _integers(tokens[:1]) is None or int(tokens[0]) != len(tokens) - 1:
            return None
        for pair in tokens[1:]:
            parts = pair.split(b":")
            values = _integers(parts) if len(parts) == 2 else None
            if values is None or values[0] < 0 or values[1] < 1 or (doc, values[0]) in entries:
                return None
            entries[doc, values[0]] = values[1]
    n_words = 1 + max((w for _, w in entries), default=-1)
    if _declared_too_large(n_words, len({w for _, w in entries})):
        return None
    return (len(lines), n_words), entries


# --- well-formed files to corrupt ----------------------------------------------------------------
@st.composite
def bags(draw, max_docs: int = 6, max_words: int = 8) -> np.ndarray:
    """A small dense document-word count matrix (some documents may be empty)."""
    n_docs, n_words = draw(st.integers(1, max_docs)), draw(st.integers(1, max_words))
    cells = draw(st.lists(st.tuples(st.integers(0, n_docs - 1), st.integers(0, n_words - 1),
                                    st.integers(1, 9)), max_size=15, unique_by=lambda c: c[:2]))
    dense = np.zeros((n_docs, n_words), dtype=np.int64)
    for doc, word, count in cells:
        dense[doc, word] = count
    return dense


def uci_bytes(dense: np.ndarray, shuffle_seed: int | None = None) -> bytes:
    """``dense`` as a UCI docword file, sorted unless a shuffle seed is given."""
    docs, words = dense.nonzero()
    order = np.arange(docs.size)
    if shuffle_seed is not None:
        order = np.random.default_rng(shuffle_seed).permutation(docs.size)
    body = "".join(f"{docs[i] + 1} {words[i] + 1} {dense[docs[i], words[i]]}\n" for i in order)
    return f"{dense.shape[0]}\n{dense.shape[1]}\n{docs.size}\n{body}".encode()


def ldac_bytes(dense: np.ndarray) -> bytes:
    lines = []
    for row in dense:
        ids = np.flatnonzero(row)
        lines.append(" ".join([str(ids.size)] + [f"{w}:{row[w]}" for w in ids]))
    return ("\n".join(lines) + "\n").encode()


BLOCK_BYTES = st.sampled_from([8, 17, 64, 1 << 22])


# --- UCI bag of words ----------------------------------------------------------------------------
@fuzz_settings(300)
@given(dense=bags(), shuffle=st.none() | st.integers(0, 9), mutations=MUTATIONS,
       block_bytes=BLOCK_BYTES)
def test_uci_plain_agrees_with_the_reference(tmp_path, dense, shuffle, mutations, block_bytes):
    data = mutate(uci_bytes(dense, shuffle), mutations)
    path = tmp_path / "docword.fuzz.txt"
    path.write_bytes(data)
    corpus = read_or_reject(path, lambda: read_uci(path, block_bytes=block_bytes))
    expected = reference_uci(data)
    assert (corpus is None) == (expected is None), (data, expected)
    if corpus is not None:
        check_corpus(corpus)
        assert entries_of(corpus.counts) == expected


@fuzz_settings(150)
@given(dense=bags(), mutations=MUTATIONS, packed_mutations=MUTATIONS)
def test_uci_gzip(tmp_path, dense, mutations, packed_mutations):
    """Corrupted text inside intact gzip must read as the plain file does; corrupted gzip data
    (flips, truncation of the compressed bytes) must be refused or read intact (gzip's CRC)."""
    data = mutate(uci_bytes(dense), mutations)
    packed = gzip.compress(data, mtime=0)
    damaged = mutate(packed, packed_mutations)
    path = tmp_path / "docword.fuzz.txt.gz"
    path.write_bytes(damaged)
    corpus = read_or_reject(path, lambda: read_uci(path))
    if damaged == packed:
        expected = reference_uci(data)
        assert (corpus is None) == (expected is None)
        if corpus is not None:
            assert entries_of(corpus.counts) == expected
    if corpus is not None:
        check_corpus(corpus)


# --- LDA-C ---------------------------------------------------------------------------------------
@fuzz_settings(200)
@given(dense=bags(), mutations=MUTATIONS, block_bytes=BLOCK_BYTES)
def test_ldac_agrees_with_the_reference(tmp_path, dense, mutations, block_bytes):
    data = mutate(ldac_bytes(dense), mutations)
    path = tmp_path / "corpus.ldac"
    path.write_bytes(data)
    corpus = read_or_reject(path, lambda: read_ldac(path, block_bytes=block_bytes))
    expected = reference_ldac(data)
    assert (corpus is None) == (expected is None), (data, expected)
    if corpus is not None:
        check_corpus(corpus)
        assert entries_of(corpus.counts) == expected


# --- MatrixMarket --------------------------------------------------------------------------------
@fuzz_settings(150)
@given(dense=bags(), field=st.sampled_from(["integer", "real"]), mutations=MUTATIONS,
       compress=st.booleans())
def test_matrix_market(tmp_path, dense, field, mutations, compress):
    buffer = io.BytesIO()
    scipy.io.mmwrite(buffer, sp.coo_matrix(dense), field=field)
    data = mutate(buffer.getvalue(), mutations)
    path = tmp_path / ("corpus.mtx.gz" if compress else "corpus.mtx")
    path.write_bytes(gzip.compress(data, mtime=0) if compress else data)
    corpus = read_or_reject(path, lambda: read_matrix_market(path))
    if corpus is not None:
        check_corpus(corpus)
        if not mutations:
            np.testing.assert_array_equal(corpus.counts.toarray(), dense)
    else:
        assert mutations, "a well-formed MatrixMarket file was refused"


# --- corpus directory ----------------------------------------------------------------------------
CORPUS_DIR_FILES = ("vocab.txt", "train.docword.txt", "train.tokens.jsonl", "train.meta.jsonl")
WORDS = ["apple", "banana", "cherry", "don't", "naïve", "straße", "ﬁle", "日本", "ÉCOLE", "x",
         "zèbre", "emoji😀"]


def corpus_dir_files(dense: np.ndarray, seed: int) -> dict[str, bytes]:
    """The four files of a corpus directory holding ``dense``, tokens in a shuffled order."""
    rng = np.random.default_rng(seed)
    tokens = [rng.permutation(np.repeat(np.arange(row.size), row)).tolist() for row in dense]
    vocabulary = (WORDS + [f"w{i}" for i in range(dense.shape[1])])[:dense.shape[1]]
    return {
        "vocab.txt": "".join(w + "\n" for w in vocabulary).encode(),
        "train.docword.txt": uci_bytes(dense),
        "train.tokens.jsonl": "".join(json.dumps(t) + "\n" for t in tokens).encode(),
        "train.meta.jsonl": "".join(json.dumps({"doc": d + 1, "label": d % 2}) + "\n"
                                    for d in range(dense.shape[0])).encode(),
    }


@fuzz_settings(150)
@given(dense=bags(), seed=st.integers(0, 9), victim=st.sampled_from(CORPUS_DIR_FILES),
       mutations=MUTATIONS, compress=st.booleans())
def test_corpus_dir(tmp_path, dense, seed, victim, mutations, compress):
    directory = fresh_dir(tmp_path)
    files = corpus_dir_files(dense, seed)
    files[victim] = mutate(files[victim], mutations)
    for name, data in files.items():
        if compress and name == victim:
            (directory / (name + ".gz")).write_bytes(gzip.compress(data, mtime=0))
        else:
            (directory / name).write_bytes(data)
    corpus = read_or_reject(directory, lambda: read_corpus_dir(directory))
    if corpus is not None:
        check_corpus(corpus)
        assert corpus.tokens is not None and len(corpus.metadata) == corpus.n_documents
        if not mutations:
            np.testing.assert_array_equal(corpus.counts.toarray(), dense)
    else:
        assert mutations, "a well-formed corpus directory was refused"


# --- raw text: lines, JSONL, CSV, a directory of .txt files --------------------------------------
SEPARATORS = [" ", "  ", ", ", ". ", "\t", " - ", " 42 ", "'", "…", "; \"", "\u00a0"]
TEXT_FORMATS = ("text", "jsonl", "csv", "txt-dir")
TEXT_NAMES = {"text": "docs.txt", "jsonl": "docs.jsonl", "csv": "docs.csv", "txt-dir": "docs"}
documents = st.lists(
    st.lists(st.tuples(st.sampled_from(WORDS), st.sampled_from(SEPARATORS)), min_size=1,
             max_size=6).map(lambda pairs: "".join(w + s for w, s in pairs).strip()),
    min_size=1, max_size=6)
TEXT_VOCABULARY = sorted({t for word in WORDS for t in tokenize(word)})


def text_files(fmt: str, texts: list[str], ascii_json: bool = True) -> dict[str, bytes]:
    """``texts`` in format ``fmt``: {file name: bytes} (one file except for a txt directory)."""
    if fmt == "text":
        return {"docs.txt": "".join(t + "\n" for t in texts).encode()}
    if fmt == "jsonl":
        return {"docs.jsonl": "".join(json.dumps({"text": t, "label": i}, ensure_ascii=ascii_json)
                                      + "\n" for i, t in enumerate(texts)).encode()}
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["id", "text"])
        writer.writerows([i, t] for i, t in enumerate(texts))
        return {"docs.csv": out.getvalue().encode()}
    return {f"docs/{i:03d}.txt": t.encode() for i, t in enumerate(texts)}


def write_text_source(tmp_path: Path, fmt: str, texts, mutations, victim: int,
                      ascii_json: bool = True) -> Path:
    """Write ``texts`` in ``fmt`` with ``mutations`` applied to file number ``victim``; returns
    the path a reader takes (the file, or the directory of .txt files)."""
    directory = fresh_dir(tmp_path)
    files = text_files(fmt, texts, ascii_json)
    (directory / "docs").mkdir()
    for index, (name, data) in enumerate(files.items()):
        (directory / name).write_bytes(mutate(data, mutations) if index == victim % len(files)
                                       else data)
    return directory / TEXT_NAMES[fmt]


def expected_token_ids(texts: list[str]) -> list[list[int]]:
    index = {w: i for i, w in enumerate(TEXT_VOCABULARY)}
    return [[index[t] for t in tokenize(text) if t in index] for text in texts]


def _is_utf8(path: Path) -> bool:
    try:
        for file in ([path] if path.is_file() else sorted(path.rglob("*.txt"))):
            file.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


@pytest.mark.parametrize("fmt", TEXT_FORMATS)
@fuzz_settings(150)
@given(texts=documents, mutations=MUTATIONS, victim=st.integers(0, 5), ascii_json=st.booleans())
def test_text_formats(tmp_path, fmt, texts, mutations, victim, ascii_json):
    """Preprocessing (no stop words or pruning, so every token counts) on corrupted text; an
    intact file must also map exactly onto the vocabulary."""
    path = write_text_source(tmp_path, fmt, texts, mutations, victim, ascii_json)
    corpus = read_or_reject(path, lambda: load_corpus(path, fmt, stopwords=set(), max_df=1.0,
                                                      min_count=1, max_vocab=None))
    if corpus is not None:
        check_corpus(corpus)
        assert _is_utf8(path) or corpus.report.decode_replacements > 0
    if not mutations:
        mapped = load_corpus(path, fmt, vocabulary=TEXT_VOCABULARY)
        assert [t.tolist() for t in mapped.tokens] == expected_token_ids(texts)
        check_corpus(mapped)


# --- streams -------------------------------------------------------------------------------------
def read_stream(path, stream) -> tuple[list[Corpus], bool]:
    """(batches read, whether the pass ended in an `InputError` naming ``path``)."""
    batches = []
    with time_limit():
        try:
            for batch in stream():
                check_corpus(batch, whole=False)
                batches.append(batch)
        except InputError as error:
            assert str(path) in str(error), f"the message does not name {path}: {error}"
            return batches, True
    return batches, False


@fuzz_settings(250)
@given(dense=bags(max_docs=9), mutations=MUTATIONS, batch_size=st.integers(1, 4),
       block_bytes=BLOCK_BYTES, compress=st.booleans())
def test_docword_stream_agrees_with_the_reference(tmp_path, dense, mutations, batch_size,
                                                  block_bytes, compress):
    data = mutate(uci_bytes(dense), mutations)
    path = fresh_dir(tmp_path) / ("docword.fuzz.txt.gz" if compress else "docword.fuzz.txt")
    path.write_bytes(gzip.compress(data, mtime=0) if compress else data)
    batches, refused = read_stream(path, lambda: DocwordStream(path, batch_size=batch_size,
                                                               block_bytes=block_bytes))
    expected = reference_uci(data, stream=True)
    assert refused == (expected is None), (data, expected)
    if not refused:
        n_words = expected[0][1]
        counts = sp.vstack([sp.csr_matrix((0, n_words), dtype=np.int64)]
                           + [b.counts for b in batches], format="csr")
        assert entries_of(counts) == expected
        assert [b.n_documents for b in batches[:-1]] == [batch_size] * (len(batches) - 1)


@pytest.mark.parametrize("fmt", TEXT_FORMATS)
@fuzz_settings(100)
@given(texts=documents, mutations=MUTATIONS, victim=st.integers(0, 5),
       batch_size=st.integers(1, 4))
def test_text_stream_agrees_with_load_corpus(tmp_path, fmt, texts, mutations, victim, batch_size):
    path = write_text_source(tmp_path, fmt, texts, mutations, victim)
    stream = TextStream(path, TEXT_VOCABULARY, batch_size=batch_size, format=fmt)
    batches, refused = read_stream(path, lambda: stream)
    whole = read_or_reject(path, lambda: load_corpus(path, fmt, vocabulary=TEXT_VOCABULARY))
    assert refused == (whole is None)
    if not refused:
        check_corpus(whole)
        assert [t.tolist() for b in batches for t in b.tokens] == [t.tolist() for t in whole.tokens]
        check_report(stream.report, whole.n_documents, whole.n_tokens)
        assert stream.report.tokens_dropped == whole.report.tokens_dropped


# --- random bytes --------------------------------------------------------------------------------
GARBAGE = st.one_of(st.binary(max_size=300),
                    st.text(alphabet="0123456789 \n\t:-,\"{}[]", max_size=300).map(str.encode))
READERS = {
    "uci": ("docword.g.txt", lambda p: read_uci(p)),
    "uci-gz": ("docword.g.txt.gz", lambda p: read_uci(p)),
    "ldac": ("g.ldac", lambda p: read_ldac(p)),
    "mm": ("g.mtx", lambda p: read_matrix_market(p)),
    "text": ("g.txt", lambda p: load_corpus(p, "text", min_count=1, max_df=1.0)),
    "jsonl": ("g.jsonl", lambda p: load_corpus(p, "jsonl", min_count=1, max_df=1.0)),
    "csv": ("g.csv", lambda p: load_corpus(p, "csv", min_count=1, max_df=1.0)),
    "docword-stream": ("docword.g.txt", lambda p: list(DocwordStream(p, batch_size=2))),
    "text-stream": ("g.jsonl", lambda p: list(TextStream(p, TEXT_VOCABULARY, batch_size=2))),
}


@pytest.mark.parametrize("reader", sorted(READERS))
@fuzz_settings(100)
@given(data=GARBAGE)
def test_random_bytes(tmp_path, reader, data):
    name, read = READERS[reader]
    path = fresh_dir(tmp_path) / name
    path.write_bytes(data)
    result = read_or_reject(path, lambda: read(path))
    for corpus in (result if isinstance(result, list) else [result] if result else []):
        check_corpus(corpus, whole=not isinstance(result, list))
    if reader == "uci":
        assert (result is None) == (reference_uci(data) is None)
    if reader == "ldac":
        assert (result is None) == (reference_ldac(data) is None)


# --- bugs the fuzzing found ----------------------------------------------------------------------
REGRESSIONS = [
    # json.loads raised ValueError (more than 4300 digits) and RecursionError (deep nesting).
    ("jsonl", "d.jsonl", b'{"text": "a b", "n": 1' + b"0" * 5000 + b"}\n", "line 1: not valid JSON"),
    ("jsonl", "d.jsonl", b'{"text": "a b"}\n' + b"[" * 100_000 + b"\n", "line 2: not valid JSON"),
    # csv.Error escaped from the header row (a carriage return inside an unquoted field).
    ("csv", "d.csv", b"te\rxt,id\nhello,1\n", "line 1: malformed CSV"),
    # A header line longer than 256 bytes was split: D read as 123456, W as 78.
    ("uci", "docword.d.txt", b" " * 250 + b"12345678\n2\n1\n1 1 1\n", "line 1: header line 1 is longer"),
    # LDA-C colons were only counted, not placed: '1 3 :4' and '1:3 4' read as the pair 3:4.
    ("ldac", "d.ldac", b"1 3 :4\n", "line 1: expected an LDA-C line"),
    ("ldac", "d.ldac", b"1 2:1\n1:3 4\n", "line 2: expected an LDA-C line"),
    # A file of blank lines mapped onto a vocabulary gave a corpus of 0 documents, silently.
    ("text-vocabulary", "d.txt", b"\n \n\t\n", "no document"),
    # A block of blank lines was parsed as one number 0 (np.fromstring): a ValueError.
    ("uci", "docword.d.txt", b"1\n1\n0\n\n", None),
    ("docword-stream", "docword.d.txt", b"1\n1\n0\n\n", None),
    # Any MatrixMarket file whose body outgrew its header aborted the interpreter (scipy's
    # header reader seeked a real file back past its start; now it is given the bytes).
    ("mm", "d.mtx", b"%%MatrixMarket matrix coordinate integer general\n4 4 16\n"
     + b"".join(b"%d %d 1\n" % (i, j) for i in range(1, 5) for j in range(1, 5)), None),
    # A real count beyond int64 (1e300, inf) was cast to garbage with a RuntimeWarning.
    ("mm", "d.mtx", b"%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1e300\n",
     "counts must be finite numbers below 2^62"),
    ("mm", "d.mtx", b"%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1e19\n",
     "counts must be finite numbers below 2^62"),
    # scipy's reader segfaulted on a last line ending in junk without a newline, and read
    # "6F" as 6; the body is now checked before scipy sees it.
    ("mm", "d.mtx", b"%%MatrixMarket matrix coordinate integer general\n%\n1 3 1\n1 3 6F",
     "line 4: expected integers, found something that is not an integer: '1 3 6F'"),
    ("mm", "d.mtx", b"%%MatrixMarket matrix coordinate integer symmetric\n1 1 1\n1 1 3\x16",
     "line 3: expected integers, found binary data"),
    ("mm", "d.mtx", b"%%MatrixMarket matrix coordinate real general\n1 3 1\n1 3 6F\n",
     "line 3: expected numbers separated by spaces, found '1 3 6F'"),
    # W = NNZ = 10^12 made DocwordStream name 10^12 words: a hang, then memory exhaustion.
    ("docword-stream", "docword.d.txt", b"1\n1000000000000\n1000000000000\n1 1 1\n",
     "refusing to allocate"),
]
REGRESSION_READERS = {
    "jsonl": lambda p: load_corpus(p, "jsonl", min_count=1, max_df=1.0),
    "csv": lambda p: load_corpus(p, "csv", min_count=1, max_df=1.0),
    "uci": read_uci,
    "ldac": read_ldac,
    "mm": read_matrix_market,
    "text-vocabulary": lambda p: load_corpus(p, "text", vocabulary=["a"]),
    "docword-stream": lambda p: list(DocwordStream(p)),
}


@pytest.mark.parametrize("reader, name, data, message", REGRESSIONS)
def test_fuzzing_regressions(tmp_path, reader, name, data, message):
    """Each input is refused with ``message`` naming the file, or read (``message`` None)."""
    path = tmp_path / name
    path.write_bytes(data)
    if message is None:
        with time_limit():
            result = REGRESSION_READERS[reader](path)
        for corpus in (result if isinstance(result, list) else [result]):
            check_corpus(corpus, whole=not isinstance(result, list))
        return
    with time_limit(), pytest.raises(InputError, match=re.escape(message)) as raised:
        REGRESSION_READERS[reader](path)
    assert str(path) in str(raised.value)


def test_token_ids_beyond_int64_are_refused(tmp_path):
    """read_token_lines raised OverflowError on a word id of 10^40 in tokens.jsonl."""
    files = corpus_dir_files(np.array([[1, 2]]), seed=0)
    files["train.tokens.jsonl"] = b"[1" + b"0" * 40 + b", 1, 1]\n"
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    with pytest.raises(InputError, match=r"train.tokens.jsonl, line 1: word id 1000+ is outside"):
        read_corpus_dir(tmp_path)


# --- headers that claim 10^12 of something allocate nothing -------------------------------------
HUGE = b"1000000000000"
HUGE_CLAIMS = [
    ("docword.a.txt", b"\n".join([HUGE, b"3", b"1", b"1 1 1\n"]), read_uci),
    ("docword.b.txt", b"\n".join([b"3", HUGE, b"1", b"1 1 1\n"]), read_uci),
    ("docword.c.txt", b"\n".join([b"3", b"3", HUGE, b"1 1 1\n"]), read_uci),
    ("docword.d.txt", b"\n".join([HUGE, HUGE, HUGE, b"1 1 1\n", b"999999999999 999999999999 1\n"]),
     read_uci),
    ("docword.e.txt", b"\n".join([HUGE, b"3", b"1", b"1 1 1\n"]), lambda p: list(DocwordStream(p))),
    ("docword.f.txt", b"\n".join([b"1", HUGE, HUGE, b"1 1 1\n"]), lambda p: list(DocwordStream(p))),
    ("docword.g.txt.gz", gzip.compress(b"\n".join([b"1", HUGE, HUGE, b"1 1 1\n"])),
     lambda p: list(DocwordStream(p))),
    ("h.ldac", b"1 999999999999:1\n", read_ldac),
    ("i.mtx", b"%%MatrixMarket matrix coordinate integer general\n" + HUGE + b" 3 1\n1 1 1\n",
     read_matrix_market),
    ("j.mtx", b"%%MatrixMarket matrix coordinate integer general\n3 3 " + HUGE + b"\n1 1 1\n",
     read_matrix_market),
    ("k.mtx.gz", gzip.compress(b"%%MatrixMarket matrix coordinate integer general\n3 3 "
                               + HUGE + b"\n1 1 1\n"), read_matrix_market),
    ("l.mtx", b"%%MatrixMarket matrix array integer general\n1000000 1000000\n1\n",
     read_matrix_market),
]


@pytest.mark.parametrize("name, data, read", HUGE_CLAIMS, ids=[c[0] for c in HUGE_CLAIMS])
def test_huge_header_claims_allocate_nothing(tmp_path, name, data, read):
    path = tmp_path / name
    path.write_bytes(data)
    tracemalloc.start()
    try:
        with time_limit(), pytest.raises(InputError, match="declare|refusing|outside|read"):
            read(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 16 * 2**20, f"{peak / 2**20:.0f} MiB allocated for a {len(data)}-byte file"
