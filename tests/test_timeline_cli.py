"""`streamtopics timeline`: a dated JSONL file in, the model file with its periods,
``prevalence.csv``, ``topics.jsonl`` and ``timeline.html`` out, on a planted drifting corpus
written as raw text whose topics' words say which they are."""

import csv
import json

import numpy as np
import pytest

from streamtopics.cli.main import main
from streamtopics.corpus.readers import load_corpus
from streamtopics.corpus.synthetic import generate_drifting
from streamtopics.estimators import load_estimator
from streamtopics.timeline import topics_over_time
from streamtopics.timeline.outputs import read_timeline


def _word(i: int) -> str:
    """Word i as letters only (the tokeniser splits digits off)."""
    return "w" + "".join(chr(97 + int(d)) for d in str(i))


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """The timeline of a planted corpus of 3 topics over 3 years, written out of time order
    (the planted accuracy of the per-period estimates is `test_timeline`'s)."""
    folder = tmp_path_factory.mktemp("timeline")
    corpus, _ = generate_drifting(n_topics=3, n_words=120, n_periods=3,
                                      documents_per_period=300, mean_length=50, seed=3)
    rows = [{"id": f"d{d}", "date": corpus.metadata[d]["time"].replace("-", "/"),
             "text": " ".join(_word(w) for w in corpus.tokens[d])}
            for d in range(corpus.n_documents)]
    rows.reverse()
    source = folder / "docs.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in rows))
    output = folder / "out"
    code = main(["timeline", str(source), "--time-field", "date", "--period", "year", "-k", "3",
                 "--min-count", "1", "--max-df", "1", "--batch-size", "50", "--words", "6",
                 "-o", str(output), "--json"])
    return code, output, source


def test_the_summary_and_files(run, capsys):
    code, output, _ = run
    assert code == 0
    assert sorted(p.name for p in output.iterdir()) == ["model.stm", "prevalence.csv",
                                                        "timeline.html", "topics.jsonl"]


def test_prevalence_csv_has_one_row_per_period_from_the_model(run):
    _, output, source = run
    rows = list(csv.reader((output / "prevalence.csv").open()))
    assert rows[0] == ["period", "documents", "topic_0", "topic_1", "topic_2"]
    assert [r[0] for r in rows[1:]] == ["2000", "2001", "2002"]
    assert [int(r[1]) for r in rows[1:]] == [300, 300, 300]
    recovered = np.array([[float(v) for v in r[2:]] for r in rows[1:]])
    np.testing.assert_allclose(recovered.sum(axis=1), 1.0, rtol=1e-5)
    # the file is the model's: the same prevalence from the saved model and the same input
    corpus = load_corpus(source, time_field="date", min_count=1, max_df=1.0)
    again = topics_over_time(load_estimator(output / "model.stm"), corpus, "year")
    np.testing.assert_allclose(recovered, again.prevalence, rtol=1e-5)


def test_topics_jsonl_lists_each_period_and_topic(run):
    _, output, _ = run
    lines = [json.loads(line) for line in (output / "topics.jsonl").read_text().splitlines()]
    assert [(r["period"], r["topic"]) for r in lines] == [
        (p, k) for p in ("2000", "2001", "2002") for k in range(3)]
    assert all(len(r["words"]) == 6 and r["weights"] == sorted(r["weights"], reverse=True)
               for r in lines)


def test_the_model_file_keeps_the_periods_and_loads_as_a_model(run):
    _, output, _ = run
    timeline, arrays = read_timeline(output / "model.stm")
    assert timeline["time_field"] == "date" and timeline["period"] == "year"
    assert [p["label"] for p in timeline["periods"]] == ["2000", "2001", "2002"]
    assert timeline["periods"][0]["first"] >= "2000-01-01" and timeline["snapshots"] == []
    assert arrays["timeline_prevalence"].shape == (3, 3)
    model = load_estimator(output / "model.stm")
    assert model.n_documents_seen_ == 900  # one pass


def test_the_page_shows_the_stacked_area_and_words(run):
    _, output, _ = run
    page = (output / "timeline.html").read_text()
    assert page.count('<polygon class="area"') == 3
    assert page.count('<td data-period="2001"') == 3


def test_undated_input_is_refused(tmp_path, capsys):
    source = tmp_path / "plain.jsonl"
    source.write_text('{"text": "apple banana"}\n{"text": "banana cherry"}\n')
    assert main(["timeline", str(source), "-o", str(tmp_path / "out"), "--min-count", "1",
                 "--max-df", "1"]) == 2
    assert "not dated" in capsys.readouterr().err


def test_the_report_gets_a_timeline_section(run, tmp_path, capsys):
    _, output, source = run
    page = tmp_path / "report.html"
    assert main(["report", str(output / "model.stm"), str(source), "--time-field", "date",
                 "--period", "year", "--max-docs", "100", "-o", str(page), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["timeline"] is True
    text = page.read_text()
    assert 'class="wide timeline"' in text and text.count('<polygon class="area"') == 3
    assert text.count('<td data-period="2002"') == 3  # all documents, not the first 100


def test_synth_drift_writes_a_dated_corpus_and_its_truth(tmp_path, capsys):
    output = tmp_path / "drift"
    assert main(["synth", "--drift", "0.5", "--periods", "3", "-k", "2", "-V", "40", "-n", "60",
                 "--seed", "4", "-o", str(output)]) == 0
    capsys.readouterr()
    truth = np.load(output / "truth.npz")
    assert truth["topic_word"].shape == (3, 2, 40) and truth["prevalence"].shape == (3, 2)
    np.testing.assert_allclose(truth["topic_word"].sum(axis=2), 1.0)
    assert list(np.bincount(truth["period"])) == [20, 20, 20]
    corpus = load_corpus(output)  # dated by its time column, in time order
    times = [m["time"] for m in corpus.metadata]
    assert times == sorted(times) and times[0].startswith("2000") and times[-1].startswith("2002")


def test_dated_fit_checkpoints_and_resumes_bit_identical(run, tmp_path, capsys, monkeypatch):
    """``fit --time-field`` loads and sorts the input; with ``--checkpoint``, and interrupted
    then ``--resume``d, it writes the model arrays of the plain run, bit for bit."""
    import streamtopics.cli.fit as fit_command
    from helpers import Interrupted, interrupt_fit_command
    from streamtopics.persistence import load_model

    _, _, source = run
    capsys.readouterr()
    common = [str(source), "--time-field", "date", "-k", "3", "--batch-size", "50",
              "--passes", "2", "--seed", "2", "--threads", "1", "--json"]
    assert main(["fit", *common, "-o", str(tmp_path / "plain.stm")]) == 0
    checkpoint = tmp_path / "run.ckpt"
    interrupt_fit_command(monkeypatch, fit_command, 1000, streamed=False)
    with pytest.raises(Interrupted):
        main(["fit", *common, "--checkpoint", str(checkpoint), "--checkpoint-every", "200",
              "-o", str(tmp_path / "never.stm")])
    monkeypatch.undo()
    capsys.readouterr()
    assert main(["fit", *common, "--resume", str(checkpoint), "-o",
                 str(tmp_path / "resumed.stm")]) == 0
    assert 0 < json.loads(capsys.readouterr().out)["resumed_from_documents"] < 1800
    plain, resumed = load_model(tmp_path / "plain.stm")[0], load_model(tmp_path / "resumed.stm")[0]
    assert sorted(plain) == sorted(resumed)
    for name in plain:
        np.testing.assert_array_equal(plain[name], resumed[name])


def test_track_saves_snapshots_that_the_tables_show(run, tmp_path, capsys):
    """``--track``: the same input trained as a tracking run; the model file holds one
    snapshot per period (topics and alphas), and topics.jsonl lists each snapshot's words."""
    _, _, source = run
    output = tmp_path / "tracked"
    code = main(["timeline", str(source), "--time-field", "date", "-k", "3", "--min-count", "1",
                 "--max-df", "1", "--batch-size", "50", "--track", "0.2", "-o", str(output),
                 "--json"])
    assert code == 0
    assert json.loads(capsys.readouterr().out)["tracking_floor"] == 0.2
    entry, arrays = read_timeline(output / "model.stm")
    assert entry["snapshots"] == ["2000", "2001", "2002"] and entry["step_floor"] == 0.2
    snapshots = arrays["timeline_snapshots"]
    model = load_estimator(output / "model.stm")
    assert snapshots.shape == (3, 3, model.vocabulary_.size)
    assert arrays["timeline_snapshot_alphas"].shape == (3, 3)
    np.testing.assert_array_equal(snapshots[-1], model.components_)  # the last is the model
    vocabulary = model.vocabulary_
    for row in map(json.loads, (output / "topics.jsonl").open()):
        t = ["2000", "2001", "2002"].index(row["period"])
        top = np.argsort(-snapshots[t, row["topic"]], kind="stable")[:len(row["words"])]
        assert row["words"] == vocabulary[top].tolist()
    assert main(["timeline", str(source), "--time-field", "date", "--track", "--passes", "2",
                 "-o", str(tmp_path / "x")]) == 2
    assert "one pass" in capsys.readouterr().err
