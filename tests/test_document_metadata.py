"""Document metadata travels with the documents: `transform -o`, `interop.doc_topic_frame`
and `report` carry each document's own fields (``id``, ``date``, the parsed ``time``) beside
its position id, so nobody has to rejoin by row number."""

import csv
import json

import numpy as np
import pytest

from streamtopics import OnlineLDA
from streamtopics.cli.main import main
from streamtopics.corpus.corpus import document_fields
from streamtopics.corpus.readers import load_corpus
from streamtopics.reporting.html import build_report, render_html

TOPICS = [["apple", "banana", "cherry", "grape"], ["engine", "wheel", "brake", "gear"]]


@pytest.fixture(scope="module")
def dated(tmp_path_factory):
    """A JSONL file of 12 documents written out of time order, each with an id and a date, and
    a model file fitted on it."""
    folder = tmp_path_factory.mktemp("dated")
    rows = []
    for i in range(12):
        words = TOPICS[i % 2] * 3 + [f"note{chr(97 + i)}"]  # unique: duplicates are dropped
        rows.append({"id": f"c{i:02d}", "date": f"2020-{12 - i:02d}-01", "text": " ".join(words)})
    path = folder / "docs.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    corpus = load_corpus(path, time_field="date", min_count=1, max_df=1.0)
    model = OnlineLDA(n_topics=2, random_state=0, n_passes=3, batch_size=4).fit(corpus)
    model.save(folder / "model.stm")
    return path, corpus, model, folder / "model.stm"


def test_the_corpus_keeps_id_date_and_time_in_time_order(dated):
    _, corpus, _, _ = dated
    fields = document_fields(corpus)
    assert fields["id"] == [f"c{i:02d}" for i in range(11, -1, -1)]
    assert fields["date"] == fields["time"] == [f"2020-{m:02d}-01" for m in range(1, 13)]


@pytest.mark.parametrize("suffix", [".csv", ".jsonl", ".npz"])
def test_transform_output_carries_id_and_date(dated, tmp_path, suffix, capsys):
    path, _, _, model_path = dated
    output = tmp_path / f"out{suffix}"
    assert main(["transform", str(model_path), str(path), "--time-field", "date",
                 "-o", str(output)]) == 0
    capsys.readouterr()
    expected_ids = [f"c{i:02d}" for i in range(11, -1, -1)]
    if suffix == ".csv":
        rows = list(csv.DictReader(output.open()))
        assert list(rows[0])[:5] == ["document", "id", "date", "time", "dominant_topic"]
        assert [r["id"] for r in rows] == expected_ids
        assert [r["date"] for r in rows] == [f"2020-{m:02d}-01" for m in range(1, 13)]
    elif suffix == ".jsonl":
        records = [json.loads(line) for line in output.read_text().splitlines()]
        assert [r["id"] for r in records] == expected_ids
        assert records[0]["time"] == "2020-01-01"
    else:
        arrays = np.load(output)
        assert list(arrays["id"]) == expected_ids


def test_doc_topic_frame_has_the_fields(dated):
    pytest.importorskip("pandas")
    from streamtopics.interop import doc_topic_frame
    _, corpus, model, _ = dated
    frame = doc_topic_frame(model, corpus)
    assert list(frame.columns[:3]) == ["id", "date", "time"]
    assert frame["id"].tolist() == [f"c{i:02d}" for i in range(11, -1, -1)]
    dominant = frame.set_index("id")["dominant_topic"]
    assert dominant["c00"] != dominant["c01"]  # the planted topics alternate


def test_report_examples_show_id_and_date(dated):
    _, corpus, model, _ = dated
    report = build_report(model.components_, model.doc_topic_prior_, model.vocabulary_,
                          corpus=corpus, doc_topic=model.transform(corpus.counts))
    example = report.topics[0].examples[0]
    assert example.fields["id"].startswith("c") and example.fields["date"].startswith("2020-")
    page = render_html(report)
    assert f'data-field="id">id {example.fields["id"]}</span>' in page
