"""`streamtopics fit --model labeled-lda|prior-lda|labeled-g-oem` and `predict-labels` on a
planted labelled corpus directory: labels recovered on the test split, label filter, errors
naming the file and line; labeled-g-oem's checkpoints never change the model."""

import functools
import json

import numpy as np

import pytest

from streamtopics.cli.main import main
from streamtopics.corpus.labels import DEBTAGS_CONTENT, LabelFilter, read_label_file
from streamtopics.corpus.synthetic import generate_labeled_synthetic
from streamtopics.corpus.writer import write_corpus_dir
from streamtopics.errors import InputError
from streamtopics.persistence import load_model


@pytest.fixture(scope="module")
def labelled_dir(tmp_path_factory):
    corpus, truth = generate_labeled_synthetic(n_labels=6, n_words=120, n_documents=900,
                                               mean_length=50, seed=7)
    directory = tmp_path_factory.mktemp("labelled")
    names = [[f"topic::{k}" for k in row] for row in truth.labels]
    names[3] = []  # an unlabelled training document
    for split, rows in (("train", slice(0, 800)), ("test", slice(800, 900))):
        write_corpus_dir(corpus[rows], directory, split)
        (directory / f"{split}.labels.jsonl").write_text(
            "".join(json.dumps(row) + "\n" for row in names[rows]))
    return directory


@pytest.mark.parametrize("model", ["labeled-lda", "prior-lda", "labeled-g-oem", "prior-cvb0"])
def test_fit_and_predict_labels(labelled_dir, tmp_path, capsys, model, one_thread):
    path = tmp_path / "model.stm"
    passes = ["--passes", "30"] if model == "prior-cvb0" else []  # CVB0's, not G-OEM's
    assert main(["fit", str(labelled_dir), "--model", model, "--burn-in", "20", "--samples", "2",
                 *passes, "-o", str(path), "--json"]) == 0
    fitted = json.loads(capsys.readouterr().out)
    assert fitted["labels"] == 6 and fitted["documents"] == 799
    assert main(["predict-labels", str(path), str(labelled_dir), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert len(result["predicted"]) == 100
    assert result["metrics"]["micro_f1"] >= 0.8 and result["metrics"]["n_documents"] == 100
    assert main(["predict-labels", str(path), str(labelled_dir), "--n-labels", "1",
                 "-o", str(tmp_path / "p.jsonl")]) == 0
    assert all(len(row) == 1 for row in read_label_file(tmp_path / "p.jsonl"))


def test_label_filter_and_bad_label_files(labelled_dir, tmp_path, capsys):
    labels = [["role::program", "devel::lang:c"], ["devel::lang:c", "x::TODO"], ["use::editing"]]
    assert LabelFilter(2).classes(labels) == ["devel::lang:c"]
    assert DEBTAGS_CONTENT.classes(labels * 20) == ["devel::lang:c", "use::editing"]
    bad = tmp_path / "bad.jsonl"
    bad.write_text('["a"]\n{"b": 1}\n')
    with pytest.raises(InputError, match=r"bad.jsonl, line 2: expected a JSON list"):
        read_label_file(bad)
    assert main(["fit", str(labelled_dir), "--model", "labeled-lda", "--labels", str(bad),
                 "-o", str(tmp_path / "m.stm")]) == 2
    assert "bad.jsonl, line 2: expected a JSON list" in capsys.readouterr().err
    bad.write_text('["a"]\n["b"]\n')
    assert main(["fit", str(labelled_dir), "--model", "labeled-lda", "--labels", str(bad),
                 "-o", str(tmp_path / "m.stm")]) == 2
    assert "2 label lines for 800 documents" in capsys.readouterr().err
    assert main(["fit", str(labelled_dir), "-o", str(tmp_path / "m.stm")]) == 2
    assert "-k/--topics is required" in capsys.readouterr().err


def test_labeled_online_checkpoints_never_change_the_model(labelled_dir, tmp_path, capsys,
                                                           monkeypatch):
    """labeled-g-oem over two passes with ``--checkpoint`` writes the model written without it,
    bit for bit; interrupted in the second pass and resumed, too. The batch labeled models
    refuse the flags."""
    import streamtopics.cli.fit_labeled as fit_labeled
    from helpers import Interrupted

    common = ["fit", str(labelled_dir), "--model", "labeled-g-oem", "--passes", "2",
              "--batch-size", "50", "--local-passes", "3", "--seed", "4", "--threads", "1"]
    assert main([*common, "-o", str(tmp_path / "plain.stm")]) == 0
    checkpoint = tmp_path / "run.ckpt"
    assert main([*common, "--checkpoint", str(checkpoint), "--checkpoint-every", "200",
                 "-o", str(tmp_path / "checked.stm")]) == 0
    real, seen = fit_labeled.fit_with_checkpoints, [0]

    def stop(model, report):
        seen[0] += report.n_documents
        if seen[0] >= 1000:
            raise Interrupted

    monkeypatch.setattr(fit_labeled, "fit_with_checkpoints", functools.wraps(real)(
        lambda *arguments, **options: real(*arguments, **{**options, "callback": stop})))
    interrupted = tmp_path / "interrupted.ckpt"
    with pytest.raises(Interrupted):
        main([*common, "--checkpoint", str(interrupted), "--checkpoint-every", "200",
              "-o", str(tmp_path / "never.stm")])
    monkeypatch.undo()
    assert main([*common, "--resume", str(interrupted), "-o", str(tmp_path / "resumed.stm")]) == 0
    plain = load_model(tmp_path / "plain.stm")[0]
    for other in ("checked.stm", "resumed.stm"):
        arrays = load_model(tmp_path / other)[0]
        assert sorted(arrays) == sorted(plain)
        for name in plain:
            np.testing.assert_array_equal(arrays[name], plain[name])
    capsys.readouterr()
    assert main(["fit", str(labelled_dir), "--model", "prior-cvb0", "--checkpoint",
                 str(tmp_path / "c"), "-o", str(tmp_path / "m.stm")]) == 2
    assert "takes no checkpoints" in capsys.readouterr().err
