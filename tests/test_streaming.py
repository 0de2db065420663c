"""Streaming minibatches equal the in-memory read, whatever the batch and block sizes."""

from __future__ import annotations

import json

import numpy as np
import pytest
import scipy.sparse as sp

from streamtopics.corpus import (DocwordStream, DocwordWriter, TextStream, generate_synthetic,
                                 load_corpus, map_to_vocabulary, read_uci, stream_minibatches)
from streamtopics.errors import InputError


@pytest.fixture(scope="module")
def synthetic_docword(tmp_path_factory):
    """A synthetic corpus written in three pieces by the streaming writer."""
    corpus, _ = generate_synthetic(4, 60, 250, mean_length=15, seed=7)
    path = tmp_path_factory.mktemp("stream") / "docword.txt"
    with DocwordWriter(path, corpus.n_words) as writer:
        writer.write(corpus.counts[:100])
        writer.write_tokens(corpus.tokens[100:101])
        writer.write(corpus.counts[101:])
    return corpus, path


def test_writer_output_reads_back(synthetic_docword):
    corpus, path = synthetic_docword
    back = read_uci(path)
    assert back.n_documents == 250 and (back.counts != corpus.counts).nnz == 0
    header = path.read_text().split("\n")[:3]
    assert header == ["250", "60", str(corpus.counts.nnz)]
    assert not list(path.parent.glob(".*"))  # no temporary files left behind


@pytest.mark.parametrize("batch_size, block_bytes", [(1, 1 << 22), (7, 64), (100, 300), (1000, 1 << 22)])
def test_docword_stream_equals_in_memory_read(synthetic_docword, batch_size, block_bytes):
    corpus, path = synthetic_docword
    stream = DocwordStream(path, batch_size=batch_size, block_bytes=block_bytes)
    batches = list(stream)
    expected = list(read_uci(path).minibatches(batch_size))
    assert len(batches) == len(expected) == stream.n_batches
    for batch, reference in zip(batches, expected):
        assert batch.counts.shape == reference.counts.shape
        assert (batch.counts != reference.counts).nnz == 0
    assert stream.report.documents_read == 250 and stream.report.tokens_kept == corpus.n_tokens
    assert len(list(stream)) == len(batches)  # re-iterable: a second pass


def test_stream_keeps_gaps_and_trailing_empty_documents(tmp_path):
    path = tmp_path / "docword.txt"
    path.write_text("7\n3\n3\n2 1 1\n2 3 2\n5 2 4\n")
    batches = list(DocwordStream(path, batch_size=3))
    dense = sp.vstack([b.counts for b in batches]).toarray()
    np.testing.assert_array_equal(dense, read_uci(path).counts.toarray())
    assert [b.n_documents for b in batches] == [3, 3, 1]


def test_stream_checks_sorting_counts_and_header(tmp_path):
    path = tmp_path / "docword.txt"
    path.write_text("3\n3\n3\n2 1 1\n1 3 2\n3 2 4\n")
    with pytest.raises(InputError, match="line 5: document id 1 after 2: streaming needs"):
        list(DocwordStream(path))
    path.write_text("3\n3\n4\n1 1 1\n2 3 2\n3 2 4\n")
    with pytest.raises(InputError, match="NNZ = 4 entries but the body has 3"):
        list(DocwordStream(path, batch_size=1))
    path.write_text("1000000000000\n3\n1\n1 1 1\n")
    with pytest.raises(InputError, match="refusing to allocate"):
        list(DocwordStream(path))
    path.write_text("3\n3\n2\n1 1 1\n2 9 1\n")
    with pytest.raises(InputError, match="line 5: word id 9 is outside 1..3"):
        list(DocwordStream(path, block_bytes=8))


def test_text_stream_equals_mapping_everything(tmp_path):
    rng = np.random.default_rng(3)
    words = ["ant", "bee", "cat", "dog", "eel", "owl"]
    texts = [" ".join(rng.choice(words, size=rng.integers(1, 9))) for _ in range(53)]
    path = tmp_path / "docs.jsonl"
    path.write_text("".join(json.dumps({"text": t, "label": i % 2}) + "\n" for i, t in enumerate(texts)))
    vocabulary = ["ant", "cat", "eel"]
    stream = stream_minibatches(path, 10, vocabulary=vocabulary)
    assert isinstance(stream, TextStream)
    batches = list(stream)
    whole = map_to_vocabulary(texts, vocabulary)
    assert [b.n_documents for b in batches] == [10] * 5 + [3]
    assert [t.tolist() for b in batches for t in b.tokens] == [t.tolist() for t in whole.tokens]
    assert [label for b in batches for label in b.labels] == [i % 2 for i in range(53)]
    assert stream.report.tokens_dropped == whole.report.tokens_dropped
    assert stream.report.documents_read == 53
    with pytest.raises(InputError, match="needs a fixed vocabulary"):
        stream_minibatches(path, 10)


def test_stream_of_a_corpus_directory_file_finds_its_vocabulary(tmp_path):
    (tmp_path / "vocab.txt").write_text("x\ny\n")
    (tmp_path / "train.docword.txt").write_text("2\n2\n2\n1 1 3\n2 2 1\n")
    stream = stream_minibatches(tmp_path / "train.docword.txt", 1)
    assert stream.vocabulary.tolist() == ["x", "y"]
    assert [b.n_tokens for b in stream] == [3, 1]
    assert load_corpus(tmp_path).n_tokens == 4


def test_stream_of_a_gzipped_file(tmp_path, synthetic_docword):
    import gzip

    corpus, path = synthetic_docword
    packed = tmp_path / "docword.txt.gz"
    packed.write_bytes(gzip.compress(path.read_bytes()))
    counts = sp.vstack([b.counts for b in DocwordStream(packed, batch_size=64, block_bytes=500)])
    assert (counts != corpus.counts).nnz == 0
