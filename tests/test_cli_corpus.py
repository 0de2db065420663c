"""`streamtopics preprocess` and `streamtopics synth`: outputs, --json, and exit code 2 with a
one-line message (no traceback) on bad input."""

from __future__ import annotations

import json

import numpy as np
import pytest

from streamtopics.cli.main import main
from streamtopics.corpus import generate_synthetic, read_corpus_dir


@pytest.fixture
def raw_jsonl(tmp_path):
    rng = np.random.default_rng(0)
    topics = [["river", "boat", "fish", "water", "bank"], ["money", "bank", "loan", "credit", "rate"]]
    lines = []
    for i in range(60):
        words = rng.choice(topics[i % 2], size=12).tolist() + ["the", "and"]
        lines.append(json.dumps({"text": " ".join(words).capitalize() + ".", "label": f"t{i % 2}"}))
    lines.append(lines[0])  # an exact duplicate
    path = tmp_path / "raw.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_preprocess_writes_a_corpus_directory(tmp_path, raw_jsonl, capsys):
    out = tmp_path / "corpus"
    code = main(["preprocess", str(raw_jsonl), "-o", str(out), "--max-df", "0.9",
                 "--min-count", "2", "--test-size", "0.25", "--seed", "1", "--json"])
    assert code == 0
    result = json.loads(capsys.readouterr().out)
    assert result["raw_docs"] == 61 and result["duplicates_dropped"] == 1
    assert result["D_train"] == 45 and result["D_test"] == 15
    vocabulary = (out / "vocab.txt").read_text().split()
    # "the"/"and" are bundled stop words; "bank" is in every document (> 0.9 D).
    assert set(vocabulary) == {"river", "boat", "fish", "water", "money", "loan", "credit", "rate"}
    train, test = read_corpus_dir(out), read_corpus_dir(out, "test")
    assert train.n_tokens + test.n_tokens == result["tokens_train"] + result["tokens_test"]
    assert set(train.labels) == {"t0", "t1"}
    assert json.loads((out / "stats.json").read_text())["V"] == 8
    # The vocabulary comes from all documents, before the split, and the result says so.
    assert result["vocabulary_from"].startswith("all documents")
    assert result["words_without_training_occurrence"] == int(
        np.count_nonzero(np.asarray(train.counts.sum(axis=0)).ravel() == 0))


def test_preprocess_with_own_stopwords(tmp_path, raw_jsonl, capsys):
    stop = tmp_path / "stop.txt"
    stop.write_text("river\n")
    out = tmp_path / "corpus"
    assert main(["preprocess", str(raw_jsonl), "-o", str(out), "--stopwords", str(stop),
                 "--max-df", "1", "--min-count", "1", "--test-size", "0"]) == 0
    vocabulary = set((out / "vocab.txt").read_text().split())
    assert "river" not in vocabulary and {"the", "and", "bank"} <= vocabulary
    assert not (out / "test.docword.txt").exists()
    assert "wrote" in capsys.readouterr().out


@pytest.mark.parametrize("content, message", [
    ('{"text": "a"}\n{"body": "b"}\n', "line 2: no field 'text'"),
    ('{"text": "a"}\n{"text": \n', "line 2: not valid JSON"),
    ("", "file is empty"),
])
def test_preprocess_bad_input_exits_2_without_traceback(tmp_path, capsys, content, message):
    path = tmp_path / "raw.jsonl"
    path.write_text(content)
    assert main(["preprocess", str(path), "-o", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert message in err and str(path) in err and "Traceback" not in err
    assert err.strip().count("\n") == 0  # one line


def test_preprocess_refuses_bag_of_words_and_bad_options(tmp_path, capsys):
    docword = tmp_path / "docword.txt"
    docword.write_text("1\n1\n1\n1 1 1\n")
    assert main(["preprocess", str(docword), "-o", str(tmp_path / "o")]) == 2
    assert "already a bag of words" in capsys.readouterr().err
    text = tmp_path / "a.txt"
    text.write_text("words here\n")
    assert main(["preprocess", str(text), "-o", str(tmp_path / "o"), "--max-df", "3"]) == 2
    assert "--max-df 3.0 is out of range" in capsys.readouterr().err


def test_preprocess_csv_missing_column(tmp_path, capsys):
    path = tmp_path / "raw.csv"
    path.write_text("id,body\n1,hello\n")
    assert main(["preprocess", str(path), "-o", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert f"{path}, line 1: no column 'text' (columns: id, body)" in err


def test_text_field_names_a_csv_column_and_an_unknown_one_is_an_error(tmp_path, capsys):
    """``--text-field`` is the text's field in JSON lines and its column in CSV (one option for
    one concept); a field the input does not have stops the command, naming the file, the
    field and the fields there are, whatever the format."""
    path = tmp_path / "raw.csv"
    path.write_text("id,body\n" + "".join(f"{i},sun sea sky sun sea\n" for i in range(30)))
    vocabulary = tmp_path / "vocab.txt"
    vocabulary.write_text("sea\nsky\nsun\n")
    fit = ["fit", str(path), "-k", "2", "--passes", "1", "--local-passes", "2",
           "--vocabulary", str(vocabulary), "-o", str(tmp_path / "m.npz"), "--json"]
    assert main([*fit, "--text-field", "body"]) == 0
    assert json.loads(capsys.readouterr().out)["documents"] == 30
    assert main([*fit, "--text-field", "message"]) == 2
    assert f"{path}, line 1: no column 'message' (columns: id, body)" in capsys.readouterr().err
    directory = tmp_path / "corpus"
    assert main(["synth", "-k", "2", "-V", "20", "-n", "50", "--test", "0", "-o",
                 str(directory)]) == 0
    capsys.readouterr()
    assert main(["fit", str(directory), "-k", "2", "--text-field", "message",
                 "-o", str(tmp_path / "n.npz")]) == 2
    assert (f"{directory}: no field 'message': corpus-dir input has no fields"
            in capsys.readouterr().err)


def test_synth_matches_the_generator_and_writes_truth(tmp_path, capsys):
    out = tmp_path / "synth"
    code = main(["synth", "-k", "4", "-V", "50", "-n", "300", "--test", "40", "--seed", "3",
                 "--alpha", "0.2", "--mean-length", "20", "-o", str(out), "--json"])
    assert code == 0
    summary = json.loads(capsys.readouterr().out)
    reference, truth = generate_synthetic(4, 50, 340, mean_length=20, alpha=0.2, seed=3)
    train, test = read_corpus_dir(out), read_corpus_dir(out, "test")
    assert (train.counts != reference.counts[:300]).nnz == 0
    assert (test.counts != reference.counts[300:]).nnz == 0
    assert summary["n_tokens"] == {"train": train.n_tokens, "test": test.n_tokens}
    with np.load(out / "truth.npz", allow_pickle=False) as archive:
        np.testing.assert_allclose(archive["beta"], truth.beta)
        np.testing.assert_allclose(archive["alpha"], [0.2] * 4)
        np.testing.assert_allclose(archive["theta"], truth.theta[:300])
        np.testing.assert_allclose(archive["theta_test"], truth.theta[300:])


def test_synth_bad_arguments(tmp_path, capsys):
    assert main(["synth", "-k", "0", "-o", str(tmp_path / "s")]) == 2
    assert "-k is out of range" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_info:
        main(["synth", "--help"])
    assert exit_info.value.code == 0
    with pytest.raises(SystemExit) as exit_info:
        main(["preprocess"])  # missing INPUT and -o: argparse usage error
    assert exit_info.value.code == 2
