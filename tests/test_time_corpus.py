"""Time in the corpus (`streamtopics.corpus.time`): parsing, bad dates located, skipped and
counted, time order sorted / said / refused, the time column through a corpus directory, and
periods."""

import json

import numpy as np
import pytest

from streamtopics.cli.main import main
from streamtopics.corpus.readers import iter_raw_documents, load_corpus
from streamtopics.corpus.time import (UNDATED, TimeField, assign_periods, document_times,
                                      parse_time)
from streamtopics.errors import InputError

WORDS = ["apple banana cherry", "banana cherry date", "cherry date egg", "date egg fig"]


def _jsonl(tmp_path, rows, name="docs.jsonl"):
    path = tmp_path / name
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def _load(path, **options):
    return load_corpus(path, min_count=1, max_df=1.0, **options)


@pytest.mark.parametrize("value, expected", [
    ("2005-04-07", "2005-04-07T00:00:00"),
    ("2005-04-07T22:13:13", "2005-04-07T22:13:13"),
    ("2005-04-07T22:13:13+02:00", "2005-04-07T20:13:13"),
    ("2005-04-07T22:13:13Z", "2005-04-07T22:13:13"),
    ("2017/1/6", "2017-01-06T00:00:00"),
    ("2017/12/31 9:05", "2017-12-31T09:05:00"),
    (1112918400, "2005-04-08T00:00:00"),
    ("1112918400", "2005-04-08T00:00:00"),
    ("2005", "2005-01-01T00:00:00"),
    ("2005-04", "2005-04-01T00:00:00"),
    ("20050407", "2005-04-07T00:00:00"),
    (1112918400.9, "2005-04-08T00:00:00"),
])
def test_parse_time_reads_iso_slashed_and_epoch(value, expected):
    assert parse_time(value) == np.datetime64(expected)


@pytest.mark.parametrize("value", [None, "", "yesterday", "2017/13/1", "2017-02-30", True, [2017]])
def test_parse_time_refuses_what_is_not_a_time(value):
    with pytest.raises(ValueError):
        parse_time(value)


def test_jsonl_times_become_a_column_and_the_corpus_is_sorted(tmp_path):
    rows = [{"id": "c", "date": "2020-03-01", "text": WORDS[0]},
            {"id": "a", "date": "2019/1/6", "text": WORDS[1]},
            {"id": "b", "date": 1577836800, "text": WORDS[2]}]
    corpus = _load(_jsonl(tmp_path, rows), time_field="date")
    assert [m["id"] for m in corpus.metadata] == ["a", "b", "c"]
    assert [m["time"] for m in corpus.metadata] == ["2019-01-06", "2020-01-01", "2020-03-01"]
    assert list(document_times(corpus)) == [np.datetime64(day) for day in
                                            ("2019-01-06", "2020-01-01", "2020-03-01")]
    assert any("2 document(s) dated earlier" in w for w in corpus.report.warnings)
    kept = _load(_jsonl(tmp_path, rows), time_field=TimeField("date", order="warn"))
    assert [m["id"] for m in kept.metadata] == ["c", "a", "b"]


def test_a_stream_going_back_in_time_is_refused_on_request(tmp_path):
    rows = [{"date": "2020-03-01", "text": WORDS[0]}, {"date": "2019-01-06", "text": WORDS[1]}]
    with pytest.raises(InputError, match=r"line 2: the stream goes back in time: 2019-01-06"):
        _load(_jsonl(tmp_path, rows), time_field=TimeField("date", order="refuse"))


def test_a_bad_date_names_file_line_and_value_unless_skipped(tmp_path):
    rows = [{"date": "2020-03-01", "text": WORDS[0]}, {"date": "soon", "text": WORDS[1]},
            {"text": WORDS[2]}, {"date": "2020-03-02", "text": WORDS[3]}]
    path = _jsonl(tmp_path, rows)
    with pytest.raises(InputError,
                       match=r"docs.jsonl, line 2: time field 'date': cannot read 'soon'"):
        _load(path, time_field="date")
    corpus = _load(path, time_field=TimeField("date", skip_undated=True))
    assert corpus.n_documents == 2
    assert corpus.report.documents_skipped[UNDATED] == 2


def test_csv_time_column_and_formats_without_fields(tmp_path):
    path = tmp_path / "docs.csv"
    path.write_text("when,text\n2021-05-01,apple banana\n2021-01-01,banana cherry\n")
    corpus = _load(path, time_field="when")
    assert [m["time"] for m in corpus.metadata] == ["2021-01-01", "2021-05-01"]
    text = tmp_path / "docs.txt"
    text.write_text("apple banana\n")
    with pytest.raises(InputError, match="has no fields"):
        list(iter_raw_documents(text, time_field="when"))


def test_preprocess_keeps_the_time_column_and_writes_splits_in_time_order(tmp_path, capsys):
    days = [f"2020-01-{d:02d}" for d in range(30, 0, -1)]
    rows = [{"date": day, "text": f"word{chr(97 + i % 26)}{chr(97 + i // 26)} common other"}
            for i, day in enumerate(days)]
    output = tmp_path / "dir"
    assert main(["preprocess", str(_jsonl(tmp_path, rows)), "-o", str(output), "--time-field",
                 "date", "--min-count", "1", "--max-df", "1", "--test-size", "0.2",
                 "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["time"] == {"field": "date", "first": "2020-01-01", "last": "2020-01-30"}
    meta = [json.loads(line) for line in (output / "train.meta.jsonl").read_text().splitlines()]
    assert [m["time"] for m in meta] == sorted(m["time"] for m in meta) and len(meta) == 24
    corpus = load_corpus(output)  # dated by its time column, no option needed
    assert document_times(corpus).size == 24
    assert np.all(np.diff(document_times(corpus).astype(np.int64)) > 0)


def test_a_corpus_directory_meta_field_dates_it(tmp_path):
    path = _jsonl(tmp_path, [{"label": "x", "text": w} for w in WORDS])
    corpus = _load(path)
    from streamtopics.corpus.writer import write_corpus_dir
    for m, day in zip(corpus.metadata, ["2017/1/6", "2016/12/1", "2017/3/13", "bad"]):
        m["published"] = day
    write_corpus_dir(corpus, tmp_path / "dir")
    with pytest.raises(InputError, match=r"train.meta.jsonl, line 4: .*'bad'"):
        load_corpus(tmp_path / "dir", time_field="published")
    dated = load_corpus(tmp_path / "dir", time_field=TimeField("published", skip_undated=True))
    assert [m["time"] for m in dated.metadata] == ["2016-12-01", "2017-01-06", "2017-03-13"]


def test_calendar_periods_are_labelled_and_ordered():
    times = np.array(["2005-12-31", "2005-01-03", "2006-04-01", "2005-01-02"],
                     dtype="datetime64[s]")
    years = assign_periods(times, "year")
    assert years.labels == ["2005", "2006"] and list(years.index) == [0, 0, 1, 0]
    assert list(years.counts) == [3, 1]
    assert assign_periods(times, "quarter").labels == ["2005-Q1", "2005-Q4", "2006-Q2"]
    assert assign_periods(times, "month").labels == ["2005-01", "2005-12", "2006-04"]
    weeks = assign_periods(times, "week")  # 2005-01-02 is a Sunday: ISO week 53 of 2004
    assert weeks.labels == ["2004-W53", "2005-W01", "2005-W52", "2006-W13"]
    assert assign_periods(times, "day").labels[0] == "2005-01-02"


def test_equal_count_periods():
    times = np.array([f"2020-01-{d:02d}" for d in range(10, 0, -1)], dtype="datetime64[s]")
    periods = assign_periods(times, 3)
    assert list(periods.counts) == [4, 3, 3]
    assert periods.labels == ["2020-01-01..2020-01-04", "2020-01-05..2020-01-07",
                              "2020-01-08..2020-01-10"]
    assert list(periods.index) == [2, 2, 2, 1, 1, 1, 0, 0, 0, 0]
    with pytest.raises(InputError, match="period 'decade'"):
        assign_periods(times, "decade")


def test_cli_skips_and_counts_undated_documents(tmp_path, capsys):
    rows = [{"date": "2020-01-02", "text": "apple banana cherry"},
            {"date": "", "text": "banana cherry date"},
            {"date": "2020-01-01", "text": "cherry date egg"}]
    source = _jsonl(tmp_path, rows)
    common = ["preprocess", str(source), "--time-field", "date", "--min-count", "1",
              "--max-df", "1", "--test-size", "0", "--json"]
    assert main([*common, "-o", str(tmp_path / "a")]) == 2
    assert "docs.jsonl, line 2: time field 'date': cannot read ''" in capsys.readouterr().err
    assert main([*common, "--skip-undated", "-o", str(tmp_path / "b")]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["report"]["documents_skipped"] == {UNDATED: 1} and stats["D_train"] == 2
    assert main([*common, "--time-order", "refuse", "--skip-undated",
                 "-o", str(tmp_path / "c")]) == 2
    assert "line 3: the stream goes back in time" in capsys.readouterr().err


def test_a_streamed_fit_refuses_a_time_field(tmp_path, capsys):
    source = _jsonl(tmp_path, [{"date": "2020-01-01", "text": w} for w in WORDS])
    vocabulary = tmp_path / "vocab.txt"
    vocabulary.write_text("apple\nbanana\ncherry\n")
    assert main(["fit", str(source), "--vocabulary", str(vocabulary), "--time-field", "date",
                 "-k", "2", "-o", str(tmp_path / "m.stm")]) == 2
    assert "--time-field sorts the documents by time" in capsys.readouterr().err


def test_a_time_column_in_other_formats_is_read_too():
    from streamtopics.corpus.corpus import Corpus
    corpus = Corpus(np.eye(3, dtype=int), metadata=[
        {"time": "2017/1/6"}, {"time": "2005-04-07T22:13:13+02:00"}, {"time": 1112918400}])
    assert list(document_times(corpus)) == [np.datetime64("2017-01-06T00:00:00"),
                                            np.datetime64("2005-04-07T20:13:13"),
                                            np.datetime64("2005-04-08T00:00:00")]
