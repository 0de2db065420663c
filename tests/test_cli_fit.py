"""`streamtopics fit`, `topics` and `transform` end to end on a small corpus directory."""

import json

import numpy as np
import pytest

from streamtopics.cli.main import main
from streamtopics.corpus.synthetic import generate_synthetic
from streamtopics.estimators import OnlineLDA
from streamtopics.persistence import load_model


def write_docword(path, counts):
    counts = counts.tocoo()
    order = np.lexsort((counts.col, counts.row))
    lines = [str(counts.shape[0]), str(counts.shape[1]), str(counts.nnz)]
    lines += [f"{r + 1} {c + 1} {v}" for r, c, v in zip(counts.row[order], counts.col[order], counts.data[order])]
    path.write_text("\n".join(lines) + "\n")


@pytest.fixture(scope="module")
def corpus_dir(tmp_path_factory):
    corpus, _ = generate_synthetic(n_topics=3, n_words=30, n_documents=260, mean_length=25, seed=3)
    train, test = corpus[:220], corpus[220:]
    directory = tmp_path_factory.mktemp("corpus")
    (directory / "vocab.txt").write_text("\n".join(f"word{i}" for i in range(30)) + "\n")
    write_docword(directory / "train.docword.txt", train.counts)
    write_docword(directory / "test.docword.txt", test.counts)
    return directory, test


def run_json(capsys, argv):
    code = main(argv + ["--json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return json.loads(captured.out)


@pytest.mark.parametrize("method", ["g-oem", "v-oem++"])
def test_fit_topics_transform(tmp_path, capsys, corpus_dir, method):
    directory, test = corpus_dir
    model_path = tmp_path / "model.npz"
    fitted = run_json(capsys, ["fit", str(directory), "-k", "3", "--method", method, "--batch-size", "50",
                               "--local-passes", "6", "--passes", "2", "--seed", "1", "--threads", "1",
                               "-o", str(model_path)])
    assert fitted["documents"] == 440 and fitted["steps"] == 10 and fitted["documents_per_second"] > 0
    arrays, metadata = load_model(model_path)
    assert metadata["parameters"]["method"] == method and arrays["beta"].shape == (3, 30)
    assert arrays["vocabulary"][0] == "word0"

    topics = run_json(capsys, ["topics", str(model_path), "-n", "4"])
    assert topics["n_topics"] == 3 and all(len(t["words"]) == 4 for t in topics["topics"])
    assert all(t["words"][0].startswith("word") for t in topics["topics"])

    transformed = run_json(capsys, ["transform", str(model_path), str(directory)])
    proportions = np.array(transformed["doc_topic"])
    assert proportions.shape == (40, 3)
    np.testing.assert_allclose(proportions.sum(axis=1), 1.0)
    np.testing.assert_allclose(proportions, OnlineLDA.load(model_path).transform(test.counts), rtol=1e-12)

    assert main(["topics", str(model_path)]) == 0
    assert "alpha=" in capsys.readouterr().out


def test_passes_default_to_auto_and_count_the_documents_trained_on(tmp_path, capsys, corpus_dir):
    directory, _ = corpus_dir
    auto = run_json(capsys, ["fit", str(directory), "-k", "3", "--local-passes", "4",
                             "--threads", "1", "-o", str(tmp_path / "auto.npz")])
    assert auto["passes"] >= 2 and auto["documents"] == auto["passes"] * (220 - 11)
    one = run_json(capsys, ["fit", str(directory), "-k", "3", "--local-passes", "4", "--passes",
                            "1", "--threads", "1", "-o", str(tmp_path / "one.npz")])
    assert one["passes"] == 1 and one["documents"] == 220


def test_same_seed_same_model(tmp_path, capsys, corpus_dir):
    directory, _ = corpus_dir
    betas = []
    for name in ("a.npz", "b.npz"):
        run_json(capsys, ["fit", str(directory), "-k", "2", "--local-passes", "4", "--seed", "7",
                          "-o", str(tmp_path / name)])
        betas.append(load_model(tmp_path / name)[0]["beta"])
    np.testing.assert_array_equal(*betas)


def test_local_sampler_option_picks_the_kernel(tmp_path, capsys, corpus_dir):
    """--local-sampler reaches the model (and its file); auto is the sparse kernel, at K = 2 too."""
    directory, _ = corpus_dir
    betas = {}
    for sampler in ("auto", "dense", "sparse"):
        path = tmp_path / f"{sampler}.npz"
        run_json(capsys, ["fit", str(directory), "-k", "2", "--local-passes", "4", "--passes", "1",
                          "--seed", "7", "--local-sampler", sampler, "-o", str(path)])
        arrays, metadata = load_model(path)
        assert metadata["parameters"]["local_sampler"] == sampler
        betas[sampler] = arrays["beta"]
    np.testing.assert_array_equal(betas["auto"], betas["sparse"])
    assert not np.array_equal(betas["sparse"], betas["dense"])


@pytest.mark.parametrize("argv,message", [
    (["fit", "{missing}", "-k", "2", "-o", "{out}"], "no such"),
    (["fit", "{dir}", "-k", "0", "-o", "{out}"], "n_topics"),
    (["fit", "{dir}", "-k", "2", "--step-decay", "1.5", "-o", "{out}"], "kappa"),
    (["transform", "{missing}", "{dir}"], "no such model file"),
])
def test_errors_are_one_line_and_exit_2(tmp_path, capsys, corpus_dir, argv, message):
    directory, _ = corpus_dir
    values = {"missing": str(tmp_path / "missing"), "out": str(tmp_path / "m.npz"), "dir": str(directory)}
    code = main([part.format(**values) for part in argv])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert message in err[-1] and "Traceback" not in "\n".join(err)


@pytest.mark.parametrize("method", ["cgs", "cvb0"])
def test_fit_batch_methods_recover_planted_topics(tmp_path, capsys, method):
    """``fit --method cgs|cvb0`` trains the batch samplers; the model file then works with
    ``topics``, ``transform`` and ``evaluate`` like any other, and its topics match the truth."""
    from streamtopics.corpus.writer import write_synthetic_corpus
    from streamtopics.evaluation import distance_to_truth
    from streamtopics.persistence import load_topic_parameters

    directory = tmp_path / "corpus"
    write_synthetic_corpus(directory, n_topics=3, n_words=60, n_documents=600, n_test=50,
                           mean_length=50, alpha=0.2, topic_concentration=0.1, seed=4)
    model_path = tmp_path / f"{method}.stm"
    fitted = run_json(capsys, ["fit", str(directory), "-k", "3", "--method", method,
                               "--passes", "80", "--burn-in", "40", "--lag", "5",
                               "--samples", "4", "--seed", "2", "-o", str(model_path)])
    assert fitted["documents"] == 600
    beta, _, _ = load_topic_parameters(model_path)
    truth, _, _ = load_topic_parameters(directory / "truth.npz")
    assert distance_to_truth(beta, truth) < 0.08
    transformed = run_json(capsys, ["transform", str(model_path), str(directory), "--split", "test"])
    assert len(transformed["doc_topic"]) == 50


def test_fit_with_checkpoint_then_resume_matches_one_run(tmp_path, capsys):
    """``fit --passes 1 --checkpoint`` streams the docword file; a second pass resumed from it
    (``--resume --passes 2``) ends bit-identical to one uninterrupted two-pass run."""
    from streamtopics.corpus.writer import write_synthetic_corpus

    directory = tmp_path / "corpus"
    write_synthetic_corpus(directory, n_topics=3, n_words=40, n_documents=300, n_test=10,
                           mean_length=20, alpha=0.3, topic_concentration=0.2, seed=9)
    common = ["-k", "3", "--batch-size", "50", "--local-passes", "4", "--seed", "5",
              "--threads", "1"]
    checkpoint = tmp_path / "run.ckpt"
    first = run_json(capsys, ["fit", str(directory), *common, "--passes", "1",
                              "--checkpoint", str(checkpoint),
                              "--checkpoint-every", "100", "-o", str(tmp_path / "one.stm")])
    assert first["documents"] == 300 and first["checkpoints_written"] >= 3
    resumed = run_json(capsys, ["fit", str(directory), *common, "--passes", "2",
                                "--resume", str(checkpoint), "-o", str(tmp_path / "resumed.stm")])
    assert resumed["resumed_from_documents"] == 300 and resumed["documents"] == 300
    straight = run_json(capsys, ["fit", str(directory), *common, "--passes", "2",
                                 "-o", str(tmp_path / "straight.stm")])
    assert straight["steps"] == resumed["steps"] == 12
    a = OnlineLDA.load(tmp_path / "resumed.stm").components_
    b = OnlineLDA.load(tmp_path / "straight.stm").components_
    assert np.array_equal(a, b)


def _same_arrays(path_a, path_b) -> None:
    a, b = load_model(path_a)[0], load_model(path_b)[0]
    assert sorted(a) == sorted(b)
    for name in a:
        np.testing.assert_array_equal(a[name], b[name])


@pytest.mark.parametrize("passes", ["1", "3", "auto"])
def test_checkpoints_never_change_the_model(tmp_path, capsys, corpus_dir, monkeypatch, passes):
    """The same command with and without ``--checkpoint`` writes the same model arrays, bit
    for bit; interrupted after 150 documents (inside the first pass), then ``--resume PATH``,
    it still does, and says which checkpoint it resumed."""
    import streamtopics.cli.fit as fit_command
    from helpers import Interrupted, interrupt_fit_command

    directory, _ = corpus_dir
    common = [str(directory), "-k", "3", "--batch-size", "20", "--local-passes", "3",
              "--seed", "2", "--threads", "1", "--passes", passes]
    plain = run_json(capsys, ["fit", *common, "-o", str(tmp_path / "plain.stm")])
    checkpoint = tmp_path / "run.ckpt"
    checked = run_json(capsys, ["fit", *common, "--checkpoint", str(checkpoint),
                                "--checkpoint-every", "60", "-o", str(tmp_path / "checked.stm")])
    assert (checked["documents"], checked["steps"]) == (plain["documents"], plain["steps"])
    _same_arrays(tmp_path / "plain.stm", tmp_path / "checked.stm")
    interrupted = tmp_path / "interrupted.ckpt"
    interrupt_fit_command(monkeypatch, fit_command, 150, streamed=passes == "1")
    with pytest.raises(Interrupted):
        main(["fit", *common, "--checkpoint", str(interrupted), "--checkpoint-every", "60",
              "-o", str(tmp_path / "never.stm")])
    monkeypatch.undo()
    capsys.readouterr()
    assert main(["fit", *common, "--resume", str(interrupted), "-o",
                 str(tmp_path / "resumed.stm")]) == 0
    assert f"resumed from 120 documents; 1 checkpoints written to {interrupted}" \
        in capsys.readouterr().out
    _same_arrays(tmp_path / "plain.stm", tmp_path / "resumed.stm")


def test_fit_streams_jsonl_from_stdin(tmp_path, capsys, monkeypatch):
    import io
    import sys

    vocabulary = tmp_path / "vocab.txt"
    vocabulary.write_text("apple\nbanana\ncherry\ndate\n")
    lines = [json.dumps({"text": text}) for text in
             ["apple banana apple", "cherry date cherry", "apple banana", "date cherry"] * 25]
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO("\n".join(lines).encode())))
    settings = ["-k", "2", "--vocabulary", str(vocabulary), "--batch-size", "20",
                "--local-passes", "5", "--seed", "1", "--threads", "1"]
    fitted = run_json(capsys, ["fit", "-", *settings, "-o", str(tmp_path / "stdin.stm")])
    assert fitted["documents"] == 100 and fitted["tokens"] == 250
    # The same lines from a file give the same model, bit for bit.
    path = tmp_path / "docs.jsonl"
    path.write_text("\n".join(lines) + "\n")
    run_json(capsys, ["fit", str(path), *settings, "-o", str(tmp_path / "file.stm")])
    assert np.array_equal(OnlineLDA.load(tmp_path / "stdin.stm").components_,
                          OnlineLDA.load(tmp_path / "file.stm").components_)


def test_streaming_flags_refuse_batch_methods(tmp_path, capsys):
    assert main(["fit", str(tmp_path), "-k", "2", "--method", "cgs", "--checkpoint",
                 str(tmp_path / "c"), "-o", str(tmp_path / "m.stm")]) == 2
    assert "online method" in capsys.readouterr().err


def test_hdp_checkpoints_never_change_the_model(tmp_path, capsys, corpus_dir):
    """``--model hdp`` with ``--checkpoint`` loads the corpus as without it and writes the
    model fitted without it, bit for bit (interrupted resumes: tests/test_training.py)."""
    directory, _ = corpus_dir
    common = ["fit", str(directory), "--model", "hdp", "--max-topics", "6", "--batch-size", "20",
              "--seed", "1", "--threads", "1", "--passes", "3"]
    assert run_json(capsys, [*common, "-o", str(tmp_path / "plain.stm")])["input"] == "loaded"
    checked = run_json(capsys, [*common, "--checkpoint", str(tmp_path / "run.ckpt"),
                                "--checkpoint-every", "50", "-o", str(tmp_path / "checked.stm")])
    assert checked["input"] == "loaded" and checked["checkpoints_written"] >= 3
    _same_arrays(tmp_path / "plain.stm", tmp_path / "checked.stm")

