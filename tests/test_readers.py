"""Readers: every format round-trips to the same corpus, and every kind of bad input gives one
`InputError` that names the file, the line and the problem."""

from __future__ import annotations

import gzip
import json
import resource

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

from streamtopics.corpus import (Corpus, ReadReport, TextStream, detect_format, from_sparse,
                                 generate_synthetic, iter_raw_documents, load_corpus,
                                 read_corpus_dir, read_ldac, read_matrix_market, read_uci,
                                 read_vocabulary, stream_minibatches, write_corpus_dir)
from streamtopics.errors import InputError

# A small corpus whose every number is known: 3 documents over 4 words.
VOCAB = ["apple", "banana", "cherry", "date"]
DOCWORD = "3\n4\n5\n1 1 2\n1 3 1\n2 2 4\n3 1 1\n3 4 3\n"
DENSE = np.array([[2, 0, 1, 0], [0, 4, 0, 0], [1, 0, 0, 3]])


def write(path, text: str | bytes, compress: bool = False):
    data = text.encode() if isinstance(text, str) else text
    if compress:
        data = gzip.compress(data)
    path.write_bytes(data)
    return path


@pytest.fixture
def vocab_file(tmp_path):
    return write(tmp_path / "vocab.txt", "".join(w + "\n" for w in VOCAB))


# --- well-formed input -------------------------------------------------------------------------
@pytest.mark.parametrize("compress", [False, True])
def test_uci_reads_counts_vocabulary_and_report(tmp_path, vocab_file, compress):
    docword = write(tmp_path / "docword.txt", DOCWORD, compress)
    corpus = read_uci(docword, vocab_file)
    np.testing.assert_array_equal(corpus.counts.toarray(), DENSE)
    assert corpus.vocabulary.tolist() == VOCAB
    assert corpus.report.documents_read == 3 and corpus.report.tokens_kept == 11
    assert corpus.tokens is None


def test_uci_unsorted_body_and_empty_documents_are_kept_and_reported(tmp_path):
    docword = write(tmp_path / "docword.x.txt", "4\n4\n3\n3 4 3\n1 1 2\n1 3 1\n")
    corpus = read_uci(docword)
    assert corpus.n_documents == 4 and corpus.vocabulary.tolist() == ["w0", "w1", "w2", "w3"]
    np.testing.assert_array_equal(corpus.document_lengths, [3, 0, 3, 0])
    assert corpus.report.warnings_total == 1 and "2 document(s) have no entries" in corpus.report.warnings[0]


def test_uci_parses_in_blocks_like_whole(tmp_path):
    corpus, _ = generate_synthetic(3, 50, 40, mean_length=20, seed=1)
    write_corpus_dir(corpus, tmp_path)
    whole = read_uci(tmp_path / "train.docword.txt")
    tiny_blocks = read_uci(tmp_path / "train.docword.txt", block_bytes=7)
    assert (whole.counts != corpus.counts).nnz == 0
    assert (tiny_blocks.counts != corpus.counts).nnz == 0


def test_corpus_dir_round_trip_keeps_tokens_labels_metadata(tmp_path):
    tokens = [[2, 0, 0], [1, 1, 1, 1], [3, 0, 3, 3]]
    corpus = Corpus.from_token_lists(tokens, VOCAB, labels=["x", None, ["y", "z"]],
                                     metadata=[{"source": "a"}, {"source": "b"}, {"n": np.int64(3)}])
    write_corpus_dir(corpus, tmp_path, "test")
    back = read_corpus_dir(tmp_path, "test")
    np.testing.assert_array_equal(back.counts.toarray(), DENSE)
    assert [t.tolist() for t in back.tokens] == tokens
    assert back.labels == ["x", None, ["y", "z"]]
    assert back.metadata[2] == {"doc": 3, "n": 3, "label": ["y", "z"]}
    assert (tmp_path / "vocab.txt").read_text() == "apple\nbanana\ncherry\ndate\n"
    assert (tmp_path / "test.docword.txt").read_text() == DOCWORD


def test_corpus_dir_tokens_must_match_counts(tmp_path):
    corpus = Corpus.from_token_lists([[0, 1], [2]], ["a", "b", "c"])
    write_corpus_dir(corpus, tmp_path)
    write(tmp_path / "train.tokens.jsonl", "[0,1]\n[1]\n")
    with pytest.raises(InputError) as error:
        read_corpus_dir(tmp_path)
    assert error.value.line == 2 and "tokens of document 2 do not match" in str(error.value)


def test_corpus_dir_errors_name_what_is_missing(tmp_path):
    with pytest.raises(InputError, match="no vocab.txt"):
        read_corpus_dir(tmp_path)
    write(tmp_path / "vocab.txt", "a\n")
    write(tmp_path / "train.docword.txt", "1\n1\n1\n1 1 1\n")
    with pytest.raises(InputError, match=r"no test.docword.txt \(splits here: train\)"):
        read_corpus_dir(tmp_path, "test")
    write(tmp_path / "train.meta.jsonl", '{"doc": 1}\n{"doc": 2}\n')
    with pytest.raises(InputError, match="2 metadata lines for 1 documents"):
        read_corpus_dir(tmp_path)


def test_ldac_reads_zero_based_pairs_and_keeps_empty_documents(tmp_path):
    path = write(tmp_path / "corpus.ldac", "2 0:2 2:1\n1 1:4\n0\n2 0:1 3:3\n")
    corpus = read_ldac(path, VOCAB)
    np.testing.assert_array_equal(corpus.counts.toarray(), np.insert(DENSE, 2, 0, axis=0))
    assert corpus.report.warnings_total == 1 and "line 3" in corpus.report.warnings[0]
    assert read_ldac(path).n_words == 4  # V = largest id + 1 without a vocabulary


def test_matrix_market_and_sparse_matrix(tmp_path):
    path = tmp_path / "counts.mtx"
    scipy.io.mmwrite(path, sp.coo_matrix(DENSE))
    corpus = read_matrix_market(path, VOCAB)
    np.testing.assert_array_equal(corpus.counts.toarray(), DENSE)
    sparse = from_sparse(sp.csr_matrix(DENSE.astype(float)), VOCAB)
    np.testing.assert_array_equal(sparse.counts.toarray(), DENSE)
    assert sparse.report.tokens_kept == 11
    with pytest.raises(InputError, match="whole numbers"):
        from_sparse(sp.csr_matrix(np.array([[0.5, 1.0]])))
    with pytest.raises(InputError, match="2 words but the vocabulary given has 4"):
        from_sparse(sp.csr_matrix(np.ones((1, 2))), VOCAB)


TEXTS = ["Apples and bananas.", "Cherry, cherry; date!", "apples apples date"]


@pytest.mark.parametrize("fmt", ["text", "jsonl", "csv", "txt-dir"])
def test_text_formats_map_onto_a_vocabulary_and_count_unknown_words(tmp_path, fmt):
    if fmt == "text":
        path = write(tmp_path / "docs.txt", "".join(t + "\n" for t in TEXTS))
    elif fmt == "jsonl":
        path = write(tmp_path / "docs.jsonl", "".join(
            json.dumps({"body": t, "label": i}) + "\n" for i, t in enumerate(TEXTS)))
    elif fmt == "csv":
        path = write(tmp_path / "docs.csv", "id,body\n" + "".join(
            f'{i},"{t}"\n' for i, t in enumerate(TEXTS)))
    else:
        path = tmp_path / "docs"
        path.mkdir()
        for i, t in enumerate(TEXTS):
            write(path / f"{i:02d}.txt", t)
    assert detect_format(path) == fmt
    field = {"text_field": "body"} if fmt in ("jsonl", "csv") else {}  # the others have none
    corpus = load_corpus(path, **field, vocabulary=["apples", "cherry", "date"])
    assert [t.tolist() for t in corpus.tokens] == [[0], [1, 1, 2], [0, 0, 2]]
    # "and" and "bananas" are unknown: dropped and counted, not lost silently.
    assert corpus.report.tokens_dropped == {"not in the vocabulary": 2}
    assert corpus.report.documents_read == 3 and corpus.report.tokens_kept == 7
    if fmt == "jsonl":
        assert corpus.labels == [0, 1, 2] and corpus.metadata[1] == {"orig_id": 2, "label": 1}


def test_load_corpus_on_text_runs_the_preprocessing(tmp_path):
    path = write(tmp_path / "docs.txt", "the cat sat\nthe dog sat\nthe cat ran\n")
    corpus = load_corpus(path, stopwords={"the"}, max_df=1.0, min_count=2)
    assert corpus.vocabulary.tolist() == ["cat", "sat"]
    assert corpus.report.tokens_dropped["stop word"] == 3


def test_load_corpus_detects_uci_vocabulary_beside_the_file(tmp_path):
    write(tmp_path / "docword.fruit.txt", DOCWORD)
    write(tmp_path / "vocab.fruit.txt", "\n".join(VOCAB) + "\n")
    corpus = load_corpus(tmp_path / "docword.fruit.txt")
    assert corpus.vocabulary.tolist() == VOCAB and corpus.report is not None
    assert load_corpus(sp.csr_matrix(DENSE), vocabulary=VOCAB).n_tokens == 11


# --- bad input: one InputError naming file, line and problem ------------------------------------
BAD_DOCWORD = [
    ("3\n4\n5\n1 1 2\n1 3\n", 5, "found 2 field"),
    ("3\n4\n5\n1 1 2\n1 x 1\n", 5, "not an integer"),
    ("3\n4\n5\n1 1 2.5\n", 4, "not an integer"),
    ("3\n4\n5\n1 1 2 7\n", 4, "found 4 field"),
    ("3\n4\n5\n1 1-2 3\n", 4, "misplaced minus"),
    ("3\n4\n2\n1 1 2\n1 3 1\n2 2 4\n", 3, "NNZ = 2 entries but the body has 3"),
    ("2\n4\n1\n3 1 2\n", 4, "document id 3 is outside 1..2"),
    ("3\n4\n1\n1 5 2\n", 4, "word id 5 is outside 1..4"),
    ("3\n4\n1\n1 0 2\n", 4, "word id 0 is outside 1..4"),
    ("3\n4\n2\n1 1 2\n2 1 -1\n", 5, "count -1 is not a positive integer"),
    ("3\n4\n1\n1 1 0\n", 4, "count 0 is not a positive integer"),
    ("3\n4\n2\n1 1 2\n1 1 3\n", 5, "document 1, word 1 appears again (first on line 4)"),
    ("3\n4\n1\n1 1 99999999999999999999\n", 4, "number too large"),
    ("3\nfour\n5\n", 2, "header line 2 must hold W"),
    ("3\n4\n", 3, "header ends early"),
    ("3\n4\n5\n1 1 2\n\x00\x07\xff\xfe garbage\n", 5, "binary data"),
    ("1000000000000\n4\n1\n1 1 1\n", 1, "1000000000000 documents are declared"),
]


@pytest.mark.parametrize("text, line, problem", BAD_DOCWORD)
def test_bad_docword_names_file_line_and_problem(tmp_path, text, line, problem):
    path = write(tmp_path / "docword.txt", text)
    with pytest.raises(InputError) as error:
        read_uci(path)
    assert error.value.path == str(path) and error.value.line == line
    assert problem in str(error.value)
    assert str(error.value).startswith(f"{path}, line {line}: ")


def test_binary_garbage_and_empty_files(tmp_path):
    garbage = write(tmp_path / "docword.bin", bytes(np.random.default_rng(0).integers(0, 256, 4000, dtype=np.uint8)))
    with pytest.raises(InputError, match="line 1: header line 1 must hold D"):
        read_uci(garbage)
    empty = write(tmp_path / "empty.txt", "")
    for reader in (read_uci, read_ldac, read_vocabulary, lambda p: list(iter_raw_documents(p))):
        with pytest.raises(InputError, match="file is empty"):
            reader(empty)
    fake_gzip = write(tmp_path / "docword.txt.gz", b"\x1f\x8b" + b"not really gzip" * 10)
    with pytest.raises(InputError, match="corrupt or truncated gzip"):
        read_uci(fake_gzip)


def test_huge_header_does_not_allocate(tmp_path):
    """A header claiming 10^12 documents (and words) is refused before any allocation."""
    path = write(tmp_path / "docword.txt", "1000000000000\n1000000000000\n1\n1 1 1\n")
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with pytest.raises(InputError, match="refusing to allocate"):
        read_uci(path)
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 50_000  # kB


def test_vocabulary_file_problems(tmp_path, vocab_file):
    with pytest.raises(InputError, match=r"line 3: word 'a' repeats line 1"):
        read_vocabulary(write(tmp_path / "v1.txt", "a\nb\na\n"))
    with pytest.raises(InputError, match=r"line 2: empty line"):
        read_vocabulary(write(tmp_path / "v2.txt", "a\n\nb\n"))
    docword = write(tmp_path / "docword.txt", DOCWORD.replace("3\n4\n", "3\n5\n", 1))
    with pytest.raises(InputError, match="line 2: the data has 5 words but .*vocab.txt has 4"):
        read_uci(docword, vocab_file)


@pytest.mark.parametrize("text, line, problem", [
    ("2 0:1 1:1\n1 0:1 2:1\n", 2, "expected an LDA-C line"),
    ("1 0:1\n\n1 1:1\n", 2, "an empty line"),
    ("1 0 1\n", 1, "expected an LDA-C line"),
    ("1 0:0\n", 1, "count 0 is not a positive integer"),
    ("2 0:1 0:2\n", 1, "appears again"),
    ("1 7:1\n", 1, "word id 7 is outside 0..3"),
])
def test_bad_ldac(tmp_path, text, line, problem):
    path = write(tmp_path / "c.ldac", text)
    with pytest.raises(InputError) as error:
        read_ldac(path, VOCAB)
    assert error.value.line == line and problem in str(error.value)


def test_bad_matrix_market(tmp_path):
    with pytest.raises(InputError, match="not a MatrixMarket file"):
        read_matrix_market(write(tmp_path / "bad.mtx", "hello\n1 2 3\n"))
    huge = "%%MatrixMarket matrix coordinate integer general\n1000000000000 10 1\n1 1 1\n"
    with pytest.raises(InputError, match="refusing to allocate"):
        read_matrix_market(write(tmp_path / "huge.mtx", huge))


@pytest.mark.parametrize("name, text, line, problem", [
    ("d.jsonl", '{"text": "a"}\n{"body": "b"}\n', 2, "no field 'text' (fields: body)"),
    ("d.jsonl", '{"text": "a"}\n{"text": "b"\n', 2, "not valid JSON"),
    ("d.jsonl", '{"text": "a"}\n["b"]\n', 2, "expected a JSON object, found list"),
    ("d.jsonl", '{"text": 3}\n', 1, "field 'text' must be a string, found int"),
    ("d.csv", "id,body\n1,a\n", 1, "no column 'text' (columns: id, body)"),
    ("d.csv", "id,text\n1,a\n2\n", 3, "row has 1 fields, the header has 2 (no 'text' column)"),
    ("d.txt", "fine\nbin\x00ary\n", 2, "binary data (NUL byte)"),
])
def test_bad_text_input(tmp_path, name, text, line, problem):
    path = write(tmp_path / name, text)
    with pytest.raises(InputError) as error:
        list(iter_raw_documents(path))
    assert error.value.path == str(path) and error.value.line == line
    assert problem in str(error.value)


@pytest.mark.parametrize("name, text, problem", [
    ("d.jsonl", '{"body": "a b"}\n', ", line 1: no field 'message' (fields: body)"),
    ("d.csv", "id,body\n1,a b\n", ", line 1: no column 'message' (columns: id, body)"),
    ("d.txt", "a b\n", ": no field 'message': text input has no fields"),
    ("docword.d.txt", "1\n2\n1\n1 1 2\n", ": no field 'message': uci input has no fields"),
])
def test_an_unknown_text_field_is_an_error_for_every_format(tmp_path, name, text, problem):
    """One name, ``text_field``, for the field or column holding the text, in every reader: a
    field the input does not have names the file, the field and the fields there are (a CSV's
    was silently ignored when the option had another name)."""
    path = write(tmp_path / name, text)
    vocabulary = write(tmp_path / "vocab.txt", "a\nb\n")
    readers = [lambda: load_corpus(path, text_field="message"),
               lambda: load_corpus(path, text_field="message", vocabulary=vocabulary),
               lambda: list(stream_minibatches(path, 10, vocabulary, text_field="message")
                            if name.startswith("docword") else
                            TextStream(path, vocabulary, text_field="message"))]
    for read in readers:
        with pytest.raises(InputError) as error:
            read()
        assert str(error.value).startswith(f"{path}{problem}")
    directory = tmp_path / "texts"
    directory.mkdir()
    write(directory / "one.txt", "a b")
    with pytest.raises(InputError, match="no field 'message': txt-dir input has no fields"):
        load_corpus(directory, text_field="message")
    with pytest.raises(InputError, match="no field 'message': in-memory input has no fields"):
        load_corpus(["a b"], text_field="message")


def test_non_utf8_is_replaced_and_counted_when_asked(tmp_path):
    path = write(tmp_path / "d.txt", b"caf\xe9 ol\xe9\nclean line\n")
    report = ReadReport(source=str(path))
    documents = list(iter_raw_documents(path, report=report, errors="replace"))
    assert documents[0].text == "caf\ufffd ol\ufffd" and documents[1].text == "clean line"
    assert report.decode_replacements == 2
    assert "line 1: 2 undecodable byte(s) replaced" in report.warnings[0]


def test_empty_documents_are_skipped_and_reported_or_refused(tmp_path):
    path = write(tmp_path / "d.jsonl", '{"text": "a b"}\n{"text": "  "}\n{"text": "c"}\n')
    report = ReadReport(source=str(path))
    documents = list(iter_raw_documents(path, report=report))
    assert [d.text for d in documents] == ["a b", "c"]
    assert report.documents_read == 3 and report.documents_skipped == {"empty document": 1}
    assert "line 2: empty document skipped" in report.warnings[0]
    with pytest.raises(InputError, match="line 2: empty document"):
        list(iter_raw_documents(path, skip_empty=False))


def test_unknown_format_is_named(tmp_path):
    path = write(tmp_path / "data.xyz", "x")
    with pytest.raises(InputError, match="cannot tell the format"):
        load_corpus(path)


def test_csv_records_spanning_lines_tsv_and_crlf(tmp_path):
    path = write(tmp_path / "d.csv", 'id,text\r\n1,"first line\r\nsecond line"\r\n2,plain\r\n3\r\n')
    with pytest.raises(InputError) as error:
        list(iter_raw_documents(path))
    assert error.value.line == 5  # the quoted record took lines 2-3
    path = write(tmp_path / "d.csv", 'id,text\r\n1,"first line\r\nsecond line"\r\n2,plain\r\n')
    assert [d.text for d in iter_raw_documents(path)] == ["first line\nsecond line", "plain"]
    tsv = write(tmp_path / "d.tsv.gz", "text\tlabel\nhello world\tx\n", compress=True)
    assert detect_format(tsv) == "csv"
    assert [(d.text, d.fields) for d in iter_raw_documents(tsv)] == [("hello world", {"label": "x"})]


def test_directory_without_txt_files_and_gzip_matrix_market(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match="no .txt files"):
        list(iter_raw_documents(tmp_path / "empty"))
    plain = tmp_path / "counts.mtx"
    scipy.io.mmwrite(plain, sp.coo_matrix(DENSE))
    packed = write(tmp_path / "counts.mtx.gz", plain.read_bytes(), compress=True)
    np.testing.assert_array_equal(load_corpus(packed).counts.toarray(), DENSE)
