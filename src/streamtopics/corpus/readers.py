"""Readers: every input shape a user may arrive with, turned into a `Corpus` with a `ReadReport`.

`load_corpus` picks the reader from the path (`detect_format`). The readers live by family:
`bag_of_words` (UCI docword files, LDA-C, MatrixMarket, sparse matrices: counts kept as they
are) with `corpus_dir` (a docword file and its side files), and `raw_text` (lines, ``.txt``
directories, JSONL, CSV, streams: text to tokenise), over the file plumbing of `files`. This
module is also the one place to import any reader from: it re-exports their public names.

Bad input never passes silently and never costs a traceback: each problem raises one
`InputError` naming the file, the line and what is wrong.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from ..errors import InputError
from .bag_of_words import (UNUSED_ID_ALLOWANCE, check_declared_size, check_duplicate_entries,
                           check_entry_count, from_sparse, iter_docword_entries,
                           read_docword_header, read_ldac, read_matrix_market, read_uci,
                           sibling_vocabulary)
from .corpus import Corpus, ReadReport
from .corpus_dir import corpus_dir_files, read_corpus_dir, read_metadata_lines, read_token_lines
from .files import (BLOCK_BYTES, DECODING_ERRORS, FORMATS, TEXT_FORMATS, UTF8, TextDecoding,
                    detect_format, read_vocabulary, resolve_vocabulary)
from .pipeline import TextPipeline
from .preprocess import DEFAULT_MIN_COUNT
from .raw_text import (DEFAULT_TEXT_FIELD, LINE_FORMATS, RawDocument, check_text_field,
                       check_time_field,
                       detect_line_format, iter_raw_documents, iter_raw_lines)
from .time import TimeField, sort_by_time

__all__ = [
    "load_corpus", "detect_format", "FORMATS", "TEXT_FORMATS", "LINE_FORMATS", "BLOCK_BYTES",
    "read_vocabulary", "resolve_vocabulary", "TextDecoding", "DECODING_ERRORS", "UTF8",
    "read_uci", "read_corpus_dir", "corpus_dir_files", "read_ldac", "read_matrix_market",
    "from_sparse", "read_token_lines", "read_metadata_lines", "read_docword_header",
    "iter_docword_entries", "check_declared_size", "check_entry_count", "check_duplicate_entries",
    "sibling_vocabulary", "UNUSED_ID_ALLOWANCE",
    "RawDocument", "iter_raw_documents", "iter_raw_lines", "detect_line_format",
    "DEFAULT_TEXT_FIELD", "check_text_field",
]


def load_corpus(path, format: str | None = None, text_field: str = DEFAULT_TEXT_FIELD,
                vocabulary=None, *, split: str = "train", label_field: str = "label",
                stopwords=None, max_df: float = 0.2, min_count: int = DEFAULT_MIN_COUNT,
                max_vocab: int | None = 10_000, skip_empty: bool = True,
                delimiter: str | None = None, encoding: str = "utf-8",
                errors: str = "strict", time_field: str | TimeField | None = None,
                tokenizer=None) -> Corpus:
    """Read any supported input into a `Corpus` whose ``report`` says what was kept and dropped.

    ``path`` is a file or directory (``format`` detected from the name when None: see
    `detect_format`), a scipy sparse matrix, or raw text in memory (a list of strings, a list
    of token lists, a pandas Series: `corpus.texts`, read as raw text is). ``vocabulary`` (word list or vocab file):
    for bag-of-words formats it names the columns (UCI files find ``vocab.*`` beside them);
    for raw text it is the fixed vocabulary the text is mapped onto (unknown words dropped and
    counted). Raw text without a vocabulary goes through the preprocessing pipeline
    (`streamtopics.corpus.preprocess.preprocess_documents` with ``stopwords``, ``max_df``,
    ``min_count``, ``max_vocab``), the same as ``streamtopics preprocess`` minus the split.
    ``text_field``: the JSON field or CSV column holding the text; a field the input does not
    have is an InputError naming the file and the fields it has, for every format (plain text,
    ``.txt`` directories, texts in memory and bag-of-words inputs have none: only the default
    is accepted there). ``encoding``, ``errors``: how raw text's bytes become text
    (`TextDecoding`).

    ``time_field``: the JSON field, CSV column or corpus directory meta field holding each
    document's time (a name, or a `corpus.time.TimeField` with options; a corpus directory
    whose meta has a ``time`` column is dated without it). A bad or missing time is an
    InputError naming the file, line and value, or with ``TimeField.skip_undated`` the document
    is skipped and counted. A dated corpus is returned in time order (stably sorted) unless
    ``TimeField.order`` is "warn" (the order read, the documents that go back in time counted
    in the report) or "refuse" (such a document is an error).

    Raw text is tokenised by ``tokenizer`` (``"module:function"`` or a function from text to a
    list of tokens; default the built-in one: `corpus.pipeline`), and the corpus' ``pipeline``
    records how (phrases and extra stop words: `preprocess_documents`, which reads documents
    as `iter_raw_documents` yields them). With a ``vocabulary``, ``tokenizer`` may also be a
    whole `TextPipeline` (e.g. ``model.text_pipeline_``: its tokeniser, phrases and stop words),
    so new text meets a model's words as its training corpus did.
    """
    from .texts import is_raw_text, iter_text_documents

    text_reading = _text_reading(vocabulary, tokenizer, stopwords=stopwords, max_df=max_df,
                                 min_count=min_count, max_vocab=max_vocab)
    in_memory = not isinstance(path, (str, os.PathLike))
    if in_memory:
        check_text_field("in-memory", text_field, "texts")
        check_time_field("in-memory", time_field, "texts")
    if in_memory and is_raw_text(path):
        report = ReadReport(source="texts")
        documents = iter_text_documents(path, report, skip_empty)
        return _text_corpus(documents, report, "texts", vocabulary, label_field, *text_reading)
    if sp.issparse(path) or isinstance(path, np.ndarray):
        return from_sparse(path, vocabulary)
    if in_memory:
        raise InputError(f"load_corpus reads a path, a sparse matrix or raw text in memory (a "
                         f"list of strings or token lists, a pandas Series), not "
                         f"{type(path).__name__}")
    format = detect_format(path) if format is None else format
    if format not in FORMATS:
        raise InputError(f"unknown format {format!r} (one of {', '.join(FORMATS)})", path)
    check_text_field(format, text_field, path)
    if format != "corpus-dir":  # a corpus directory's meta has fields
        check_time_field(format, time_field, path)
    if format == "corpus-dir":
        return _in_order(read_corpus_dir(path, split, time_field), time_field)
    if format == "uci":
        if vocabulary is None:
            vocabulary = sibling_vocabulary(Path(path))
        return read_uci(path, vocabulary)
    if format == "ldac":
        return read_ldac(path, vocabulary)
    if format == "mm":
        return read_matrix_market(path, vocabulary)
    report = ReadReport(source=str(path))
    documents = iter_raw_documents(path, format, text_field=text_field, delimiter=delimiter, report=report, skip_empty=skip_empty,
                                   encoding=encoding, errors=errors, time_field=time_field)
    return _in_order(_text_corpus(documents, report, path, vocabulary, label_field,
                                  *text_reading), time_field)


def _in_order(corpus: Corpus, time_field) -> Corpus:
    """A dated corpus sorted by time unless its `TimeField` says otherwise (`corpus.time`)."""
    options = TimeField.of(time_field) or TimeField()
    return sort_by_time(corpus) if options.order == "sort" else corpus


def _text_reading(vocabulary, tokenizer, **preprocessing):
    """How raw text will be read: (the `TextPipeline` mapping it onto ``vocabulary``: the one
    given, or ``tokenizer`` alone, or None for the built-in tokeniser; None and
    `preprocess_documents`' keyword arguments without a vocabulary)."""
    if vocabulary is None:
        if isinstance(tokenizer, TextPipeline):
            raise InputError("a TextPipeline tokenises text onto the vocabulary it was learnt "
                             "with: pass vocabulary= too (or a tokeniser function to preprocess)")
        return None, {"tokenizer": tokenizer, **preprocessing}
    if tokenizer is None or isinstance(tokenizer, TextPipeline):
        return tokenizer, {}
    return TextPipeline.configured(tokenizer, stopwords=frozenset()), {}


def _text_corpus(documents, report: ReadReport, path, vocabulary, label_field, pipeline,
                 preprocessing: dict) -> Corpus:
    """Raw documents mapped onto ``vocabulary`` by ``pipeline``, or preprocessed with
    ``preprocessing`` when there is no vocabulary (`_text_reading`)."""
    from .preprocess import map_to_vocabulary, preprocess_documents

    if vocabulary is not None:
        words = resolve_vocabulary(vocabulary, None, path)
        corpus = map_to_vocabulary(documents, words, label_field=label_field, report=report,
                                   pipeline=pipeline)
        if corpus.n_documents == 0:  # as preprocessing and TextStream: no silent empty corpus
            raise InputError(f"no documents ({report.documents_read} read, all empty)", path)
        return corpus
    return preprocess_documents(documents, label_field=label_field, report=report,
                                **preprocessing)
