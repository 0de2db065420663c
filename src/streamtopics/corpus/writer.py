"""Writers for the corpus-directory layout, streaming so that corpora of millions of documents
never have to sit in memory.

Layout (the corpus directory that `corpus.readers.load_corpus` reads):
``vocab.txt`` (line i = word i), ``{split}.docword.txt`` (UCI bag-of-words: D, W, NNZ on lines
1-3, then ``docID wordID count``, 1-based, sorted), ``{split}.tokens.jsonl`` (line i = document
i's 0-based word ids in reading order), ``{split}.meta.jsonl`` (line i = ``{"doc": i, ...}``).

Every file is written to a temporary name beside its target and renamed into place when
complete, so an interrupted write never leaves a truncated file under the real name. Numbers are
formatted with NumPy a block at a time (no Python loop per entry).
"""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path
from typing import Sequence

import numpy as np
import scipy.sparse as sp

from ..atomic import AtomicFile
from .corpus import Corpus
from .synthetic import iter_synthetic_documents, make_topics

_ROWS_PER_BLOCK = 200_000  # entries formatted at once: bounds the formatter's memory


# --- formatting integers without a Python loop ----------------------------------------------------
def _digits(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Non-negative integers as a right-aligned ASCII digit matrix and its significant-digit mask."""
    values = np.asarray(values, dtype=np.int64)
    width = len(str(int(values.max()))) if values.size else 1
    powers = 10 ** np.arange(width - 1, -1, -1, dtype=np.int64)
    digits = ((values[:, None] // powers) % 10 + ord("0")).astype(np.uint8)
    n_digits = np.maximum((values[:, None] >= powers).sum(axis=1), 1)
    return digits, np.arange(width) >= width - n_digits[:, None]


def _assemble(pieces: list[tuple[np.ndarray, np.ndarray]]) -> bytes:
    """Concatenate row-wise pieces (byte matrix, mask of bytes to keep) into one byte string."""
    matrix = np.hstack([piece for piece, _ in pieces])
    keep = np.hstack([mask for _, mask in pieces])
    return matrix[keep].tobytes()


def _constant(text: bytes, n_rows: int, mask=None) -> tuple[np.ndarray, np.ndarray]:
    row = np.frombuffer(text, dtype=np.uint8)
    keep = np.ones((n_rows, row.size), dtype=bool) if mask is None else np.repeat(
        np.asarray(mask)[:, None], row.size, axis=1)
    return np.broadcast_to(row, (n_rows, row.size)), keep


def format_integer_rows(columns: Sequence[np.ndarray], prefix: bytes = b"", separator: bytes = b" ",
                        end: bytes = b"\n") -> bytes:
    """Lines ``prefix a separator b ... end``, one per row of the integer columns."""
    n_rows = len(columns[0])
    pieces = [_constant(prefix, n_rows)] if prefix else []
    for i, column in enumerate(columns):
        if i:
            pieces.append(_constant(separator, n_rows))
        pieces.append(_digits(column))
    pieces.append(_constant(end, n_rows))
    return _assemble(pieces)


def format_token_lines(flat: np.ndarray, offsets: np.ndarray) -> bytes:
    """JSON lists ``[3,1,4]\\n`` of each document's word ids (``flat[offsets[d]:offsets[d+1]]``).

    An empty document becomes ``[]``: it takes one placeholder item whose digits are masked.
    """
    lengths = np.diff(offsets)
    items_per_doc = np.maximum(lengths, 1)
    n_items = int(items_per_doc.sum())
    doc_of_item = np.repeat(np.arange(lengths.size), items_per_doc)
    position = np.arange(n_items) - np.repeat(np.cumsum(items_per_doc) - items_per_doc, items_per_doc)
    first = position == 0
    last = position == items_per_doc[doc_of_item] - 1
    placeholder = lengths[doc_of_item] == 0
    values = np.zeros(n_items, dtype=np.int64)
    values[~placeholder] = flat
    digits, significant = _digits(values)
    return _assemble([_constant(b"[", n_items, first),
                      (digits, significant & ~placeholder[:, None]),
                      _constant(b",", n_items, ~last),
                      _constant(b"]\n", n_items, last)])


# --- writers -------------------------------------------------------------------------------------
class DocwordWriter:
    """Writes a UCI docword file from batches of documents, in bounded memory.

    The header (D, W, NNZ) must come first but is known only at the end, so the body goes to a
    temporary file and `close` writes header + body to a second temporary file renamed into
    place. Use as a context manager; on an exception nothing is left behind::

        with DocwordWriter("train.docword.txt", n_words=1000) as writer:
            for batch in batches:
                writer.write(batch.counts)
    """

    def __init__(self, path, n_words: int):
        self.path = Path(path)
        self.n_words = int(n_words)
        self.n_documents = 0
        self.n_nonzero = 0
        self._body = AtomicFile(self.path.with_name(self.path.name + ".body"))

    def write(self, counts) -> None:
        """Append documents: a D x V count matrix (rows = documents, in order)."""
        counts = sp.csr_matrix(counts)
        if counts.shape[1] != self.n_words:
            raise ValueError(f"batch has {counts.shape[1]} words, the file {self.n_words}")
        counts.sum_duplicates()
        counts.sort_indices()
        counts.eliminate_zeros()
        if counts.nnz and counts.data.min() < 0:
            raise ValueError("counts must be non-negative")
        documents = self.n_documents + 1 + np.repeat(np.arange(counts.shape[0]), np.diff(counts.indptr))
        for start in range(0, counts.nnz, _ROWS_PER_BLOCK):
            block = slice(start, start + _ROWS_PER_BLOCK)
            self._body.write(format_integer_rows(
                [documents[block], counts.indices[block].astype(np.int64) + 1, counts.data[block]]))
        self.n_documents += counts.shape[0]
        self.n_nonzero += counts.nnz

    def write_tokens(self, token_lists: Sequence[np.ndarray]) -> None:
        """Append documents given as word-id sequences."""
        self.write(Corpus.from_token_lists(token_lists, n_words=self.n_words).counts)

    def close(self) -> None:
        """Write header + body under the real name; the temporary body is removed either way."""
        self._body.handle.close()
        try:
            with AtomicFile(self.path) as target:
                target.write(f"{self.n_documents}\n{self.n_words}\n{self.n_nonzero}\n".encode())
                with open(self._body.temporary, "rb") as body:
                    shutil.copyfileobj(body, target.handle, length=1 << 24)
        finally:
            self._body.abort()

    def abort(self) -> None:
        """Give up: remove the temporary body, leave no file under the real name."""
        self._body.abort()

    def __enter__(self) -> "DocwordWriter":
        return self

    def __exit__(self, error_type, *_) -> None:
        if error_type is None:
            self.close()
        else:
            self.abort()


def write_vocabulary(vocabulary: Sequence[str], path) -> None:
    words = [str(w) for w in vocabulary]
    bad = [w for w in words if not w.strip() or "\n" in w or "\r" in w]
    if bad:
        raise ValueError(f"vocabulary word {bad[0]!r} cannot be written one per line")
    with AtomicFile(path) as out:
        out.write("".join(w + "\n" for w in words).encode("utf-8"))


def _json_default(value):
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"cannot write {type(value).__name__} into meta.jsonl")


def _meta_line(doc: int, metadata: dict | None, label) -> str:
    record = {"doc": doc}
    if isinstance(metadata, dict):
        record.update((k, v) for k, v in metadata.items() if k != "doc")
    elif metadata is not None:
        record["metadata"] = metadata
    if label is not None:
        record["label"] = label
    return json.dumps(record, ensure_ascii=False, default=_json_default) + "\n"


def write_corpus_dir(corpus: Corpus, directory, split: str = "train",
                     documents_per_block: int = 10_000) -> Path:
    """Write ``corpus`` as split ``split`` of a corpus directory (see the module docstring).

    ``vocab.txt`` is (re)written too; ``{split}.tokens.jsonl`` holds the token order when the
    corpus has it, else the fixed bag-of-words order. Returns the directory.
    """
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    write_vocabulary(corpus.vocabulary, directory / "vocab.txt")
    flat, offsets = corpus.document_tokens()
    with DocwordWriter(directory / f"{split}.docword.txt", corpus.n_words) as docword, \
            AtomicFile(directory / f"{split}.tokens.jsonl") as tokens, \
            AtomicFile(directory / f"{split}.meta.jsonl") as meta:
        for start in range(0, max(corpus.n_documents, 1), documents_per_block):
            stop = min(start + documents_per_block, corpus.n_documents)
            docword.write(corpus.counts[start:stop])
            block_offsets = offsets[start:stop + 1]
            tokens.write(format_token_lines(flat[block_offsets[0]:block_offsets[-1]],
                                            block_offsets - block_offsets[0]))
            meta.write("".join(
                _meta_line(d + 1, corpus.metadata[d] if corpus.metadata else None,
                           corpus.labels[d] if corpus.labels else None)
                for d in range(start, stop)).encode("utf-8"))
    return directory


# --- synthetic corpora, streamed ------------------------------------------------------------------
class _SplitWriter:
    """The three files of one split of a synthetic corpus (meta lines are just ``{"doc": d}``)."""

    def __init__(self, directory: Path, split: str, n_words: int):
        self.docword = DocwordWriter(directory / f"{split}.docword.txt", n_words)
        self.tokens = AtomicFile(directory / f"{split}.tokens.jsonl")
        self.meta = AtomicFile(directory / f"{split}.meta.jsonl")
        self.n_tokens = 0

    def write(self, token_lists: list[np.ndarray]) -> None:
        if not token_lists:
            return
        first = self.docword.n_documents + 1
        self.docword.write_tokens(token_lists)
        offsets = np.concatenate(([0], np.cumsum([t.size for t in token_lists])))
        self.tokens.write(format_token_lines(np.concatenate(token_lists), offsets))
        self.meta.write(format_integer_rows([np.arange(first, first + len(token_lists))],
                                            prefix=b'{"doc":', end=b"}\n"))
        self.n_tokens += int(offsets[-1])

    def close(self) -> None:
        self.docword.close()
        self.tokens.commit()
        self.meta.commit()

    def abort(self) -> None:
        self.docword.abort()
        self.tokens.abort()
        self.meta.abort()


class _NpyEntry:
    """A float64 matrix written row block by row block as ``name.npy`` inside an open zip."""

    def __init__(self, archive: zipfile.ZipFile, name: str, shape: tuple[int, int]):
        size = 8 * shape[0] * shape[1]
        self.handle = archive.open(name + ".npy", "w", force_zip64=size > 2**31 - 1024)
        np.lib.format.write_array_header_1_0(
            self.handle, {"descr": "<f8", "fortran_order": False, "shape": shape})

    def write(self, rows: np.ndarray) -> None:
        self.handle.write(np.ascontiguousarray(rows, dtype="<f8").tobytes())

    def close(self) -> None:
        self.handle.close()


def write_synthetic_corpus(directory, n_topics: int = 10, n_words: int = 1000,
                           n_documents: int = 100_000, n_test: int = 0, mean_length: float = 60.0,
                           alpha=0.1, topic_concentration: float = 0.1, seed=None,
                           chunk_size: int = 10_000, progress=None) -> dict:
    """Stream a synthetic LDA corpus (Dupuy & Bach 2016, section 5) into a corpus directory.

    Writes ``vocab.txt`` (w0, w1, ...), the ``train`` split (``n_documents``) and, when
    ``n_test`` > 0, the ``test`` split, plus ``truth.npz`` with ``beta`` (K x V), ``alpha`` (K),
    ``theta`` (train documents x K), ``theta_test`` and ``vocabulary``. Memory is bounded by
    ``chunk_size`` documents, whatever ``n_documents`` is. The draws are exactly those of
    `generate_synthetic` with the same arguments and seed (test documents follow the training
    ones in the same random stream). ``progress``: optional callable given each chunk's size.
    Returns a summary dict.
    """
    if n_documents < 1 or n_test < 0:
        raise ValueError("need n_documents >= 1 and n_test >= 0")
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    beta = make_topics(n_topics, n_words, topic_concentration, seed=rng)
    alpha = np.broadcast_to(np.asarray(alpha, dtype=np.float64), (n_topics,)).copy()
    vocabulary = np.array([f"w{i}" for i in range(n_words)])
    write_vocabulary(vocabulary, directory / "vocab.txt")
    splits = {"train": _SplitWriter(directory, "train", n_words)}
    if n_test:
        splits["test"] = _SplitWriter(directory, "test", n_words)
    truth = AtomicFile(directory / "truth.npz")
    try:
        with zipfile.ZipFile(truth.handle, "w") as archive:
            for name, array in (("beta", beta), ("alpha", alpha), ("vocabulary", vocabulary)):
                with archive.open(name + ".npy", "w") as entry:
                    np.lib.format.write_array(entry, array, allow_pickle=False)
            # Training documents come first in the stream, so the two theta entries are written
            # one after the other (a zip takes one open entry at a time).
            theta = _NpyEntry(archive, "theta", (n_documents, n_topics))
            written = 0
            for tokens, chunk_theta in iter_synthetic_documents(
                    beta, alpha, n_documents + n_test, mean_length, seed=rng, chunk_size=chunk_size):
                n_train = max(0, min(len(tokens), n_documents - written))
                splits["train"].write(tokens[:n_train])
                theta.write(chunk_theta[:n_train])
                if n_train < len(tokens):
                    if written + n_train == n_documents:  # the first test document
                        theta.close()
                        theta = _NpyEntry(archive, "theta_test", (n_test, n_topics))
                    splits["test"].write(tokens[n_train:])
                    theta.write(chunk_theta[n_train:])
                written += len(tokens)
                if progress is not None:
                    progress(len(tokens))
            theta.close()
        truth.commit()
        for writer in splits.values():
            writer.close()
    except BaseException:
        truth.abort()
        for writer in splits.values():
            writer.abort()
        raise
    return {
        "directory": str(directory), "n_topics": n_topics, "n_words": n_words,
        "n_documents": n_documents, "n_test": n_test,
        "n_tokens": {name: writer.n_tokens for name, writer in splits.items()},
        "mean_length": mean_length, "alpha": alpha.tolist(),
        "topic_concentration": topic_concentration, "seed": seed,
    }
