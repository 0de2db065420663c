"""``streamtopics transform -o``: ids, dominant topic and proportions as CSV, JSON lines, .npz."""

import csv
import json

import numpy as np
import pytest

from streamtopics.cli.main import main
from streamtopics.corpus import Corpus, write_corpus_dir
from streamtopics.estimators import CVB0LDA


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    directory = tmp_path_factory.mktemp("transform")
    rng = np.random.default_rng(0)
    words = [name + letter for name in ("sun", "sea", "ink") for letter in "abcdef"]
    documents = [6 * (d % 3) + rng.integers(0, 6, size=20) for d in range(30)]
    corpus = Corpus.from_token_lists(documents, words)
    write_corpus_dir(corpus, directory / "corpus", split="test")
    model = CVB0LDA(n_topics=3, n_passes=40, random_state=0).fit(corpus)
    model.save(directory / "model.stm")
    return directory, model, corpus


def run(setup, *arguments):
    directory, _, _ = setup
    return main(["transform", str(directory / "model.stm"), str(directory / "corpus"), *arguments])


def test_csv_has_a_header_the_corpus_ids_and_the_proportions(setup):
    directory, model, corpus = setup
    assert run(setup, "-o", str(directory / "all.csv")) == 0
    with open(directory / "all.csv", newline="") as handle:
        rows = list(csv.reader(handle))
    assert rows[0] == ["document", "dominant_topic", "topic_0", "topic_1", "topic_2"]
    theta = model.transform(corpus)
    assert [int(r[0]) for r in rows[1:]] == list(range(1, 31))  # the meta file's 1-based ids
    assert [int(r[1]) for r in rows[1:]] == np.argmax(theta, axis=1).tolist()
    np.testing.assert_allclose(np.array([r[2:] for r in rows[1:]], dtype=float), theta, atol=1e-6)


def test_top_n_keeps_the_largest_pairs_in_every_format(setup):
    directory, model, corpus = setup
    theta = model.transform(corpus)
    order = np.argsort(-theta, axis=1, kind="stable")[:, :2]
    assert run(setup, "-o", str(directory / "top.jsonl"), "--top", "2") == 0
    records = [json.loads(line) for line in (directory / "top.jsonl").read_text().splitlines()]
    assert records[4]["document"] == 5 and records[4]["dominant_topic"] == order[4, 0]
    assert [k for k, _ in records[4]["top"]] == order[4].tolist()
    assert records[4]["top"][0][1] == pytest.approx(theta[4, order[4, 0]])
    assert run(setup, "-o", str(directory / "top.out"), "--format", "npz", "--top", "2") == 0
    with np.load(directory / "top.out", allow_pickle=False) as archive:
        assert archive["document"].tolist() == [str(d) for d in range(1, 31)]
        np.testing.assert_array_equal(archive["top_topics"], order)
        np.testing.assert_allclose(archive["top_proportions"],
                                   np.take_along_axis(theta, order, axis=1))
    assert run(setup, "-o", str(directory / "top.csv"), "--top", "1") == 0
    header = (directory / "top.csv").read_text().splitlines()[0]
    assert header == "document,dominant_topic,top1_topic,top1_proportion"


def test_raw_text_documents_are_named_by_their_line(setup, tmp_path):
    directory, model, _ = setup
    (tmp_path / "new.txt").write_text("sunb sunc sund\n\ninke inkf inka inkb\n", encoding="utf-8")
    out = tmp_path / "new.jsonl"
    assert main(["transform", str(directory / "model.stm"), str(tmp_path / "new.txt"),
                 "-o", str(out)]) == 0
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["document"] for r in records] == [1, 3]  # line 2 is empty, skipped and counted
    vocabulary = list(model.vocabulary_)
    sun, ink = (int(np.argmax(model.components_[:, vocabulary.index(w)])) for w in ("sunb", "inka"))
    assert sun != ink and [r["dominant_topic"] for r in records] == [sun, ink]


def test_a_bad_output_is_refused_before_reading(setup, tmp_path, capsys):
    directory, _, _ = setup
    assert main(["transform", str(directory / "model.stm"), str(tmp_path / "missing-corpus"),
                 "-o", str(tmp_path / "x.parquet")]) == 2
    assert "x.parquet: cannot tell the format from the suffix '.parquet'" in capsys.readouterr().err
    assert run(setup, "-o", str(tmp_path / "nowhere" / "x.csv")) == 2
    assert "nowhere: the output's directory does not exist" in capsys.readouterr().err
