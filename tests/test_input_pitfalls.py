"""Inputs that are wrong but look fine: another encoding, a CSV quote left open, an empty
training split, a JSON field of another name, raw text to evaluate, an output directory that
does not exist. Each is refused with exit 2 naming the user's file (and line), or read right
when the user says how."""

import json

import numpy as np
import pytest

from streamtopics.cli.main import main
from streamtopics.corpus import Corpus, iter_raw_documents, load_corpus, write_corpus_dir
from streamtopics.corpus.readers import TextDecoding
from streamtopics.errors import InputError
from streamtopics.estimators import CVB0LDA

WORDS = [name + letter for name in ("sun", "sea", "ink") for letter in "abcdef"]


def planted_lines(n_documents=60, seed=0) -> list[str]:
    """Documents of one of three disjoint word groups each (the planted topics)."""
    rng = np.random.default_rng(seed)
    return [" ".join(WORDS[6 * (d % 3) + i] for i in rng.integers(0, 6, size=20))
            for d in range(n_documents)]


@pytest.fixture(scope="module")
def model_path(tmp_path_factory):
    directory = tmp_path_factory.mktemp("pitfalls")
    corpus = load_corpus_from_lines(planted_lines())
    CVB0LDA(n_topics=3, n_passes=50, random_state=0).fit(corpus).save(directory / "model.stm")
    return directory / "model.stm"


def load_corpus_from_lines(lines) -> Corpus:
    index = {w: i for i, w in enumerate(WORDS)}
    return Corpus.from_token_lists([[index[w] for w in line.split()] for line in lines], WORDS)


# --- encodings ----------------------------------------------------------------------------------
LATIN = "suna café sunb\nseaa naïve seab\n".encode("latin-1")


def test_undecodable_bytes_stop_with_the_file_line_and_byte(tmp_path):
    path = tmp_path / "d.txt"
    path.write_bytes(LATIN)
    with pytest.raises(InputError) as error:
        list(iter_raw_documents(path))
    assert (error.value.path, error.value.line) == (str(path), 1)
    assert "byte(s) e9 at column 9 are not valid utf-8" in str(error.value)
    assert [d.text for d in iter_raw_documents(path, encoding="latin-1")] == \
        ["suna café sunb", "seaa naïve seab"]


def test_a_whole_file_names_the_line_of_its_bad_byte(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.txt").write_bytes(b"fine\nstill fine\nol\xe9\n")
    with pytest.raises(InputError) as error:
        list(iter_raw_documents(tmp_path / "docs"))
    assert error.value.line == 3 and error.value.path.endswith("a.txt")


def test_encodings_that_split_lines_wrongly_are_refused():
    with pytest.raises(InputError, match="does not write ASCII as ASCII"):
        TextDecoding("utf-16")
    with pytest.raises(InputError, match="unknown encoding 'klingon'"):
        TextDecoding("klingon")
    with pytest.raises(InputError, match="errors='ignore'"):
        TextDecoding(errors="ignore")


def test_cli_exits_2_on_another_encoding_unless_told(tmp_path, capsys):
    source = tmp_path / "latin.txt"
    source.write_bytes(b"\n".join(line.encode() for line in planted_lines(40))
                       + b"\ncaf\xe9 caf\xe9 suna\n")
    options = ["--min-count", "1", "--max-df", "1"]
    assert main(["preprocess", str(source), "-o", str(tmp_path / "out"), *options]) == 2
    assert "latin.txt, line 41: byte(s) e9" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()
    assert main(["preprocess", str(source), "-o", str(tmp_path / "latin1"), *options,
                 "--encoding", "latin-1"]) == 0
    assert "café" in (tmp_path / "latin1" / "vocab.txt").read_text(encoding="utf-8").split()
    capsys.readouterr()
    assert main(["preprocess", str(source), "-o", str(tmp_path / "replaced"), *options,
                 "--errors", "replace", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["report"]["decode_replacements"] == 2
    with pytest.raises(SystemExit) as exit_:
        main(["preprocess", str(source), "-o", str(tmp_path / "x"), "--encoding", "utf-16"])
    assert exit_.value.code == 2


def test_streaming_fit_reads_the_encoding_given(tmp_path, capsys):
    source = tmp_path / "latin.txt"
    source.write_bytes(LATIN)
    vocabulary = tmp_path / "vocab.txt"
    vocabulary.write_text("\n".join(WORDS + ["café"]) + "\n", encoding="utf-8")
    command = ["fit", str(source), "-k", "2", "--vocabulary", str(vocabulary), "--passes", "1",
               "--batch-size", "2", "-o", str(tmp_path / "m.stm")]
    assert main(command) == 2
    assert "latin.txt, line 1: byte(s) e9" in capsys.readouterr().err
    assert main(command + ["--encoding", "latin-1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["tokens"] == 5  # café read as a word; naïve is not in the vocabulary


# --- CSV and empty splits -------------------------------------------------------------------------
def test_a_csv_quote_left_open_is_an_error_at_its_record(tmp_path, capsys):
    source = tmp_path / "d.csv"
    rows = ["id,text"] + [f'{d},"{line}"' for d, line in enumerate(planted_lines(12))]
    rows[4] = rows[4][:-1]  # the closing quote of line 5 is lost
    source.write_text("\n".join(rows) + "\n")
    assert main(["preprocess", str(source), "-o", str(tmp_path / "out")]) == 2
    assert "d.csv, line 5: malformed CSV in the record starting on this line" in capsys.readouterr().err
    source.write_text("id,text\n1,\"suna sunb\n2,seaa\n")  # nothing closes it: end of file
    with pytest.raises(InputError, match="a quote opened in it is never closed") as error:
        list(iter_raw_documents(source))
    assert error.value.line == 2


def test_an_empty_training_split_is_refused_naming_the_input(tmp_path, capsys):
    source = tmp_path / "one.txt"
    source.write_text("suna sunb seaa\n")
    assert main(["preprocess", str(source), "-o", str(tmp_path / "out"),
                 "--min-count", "1", "--max-df", "1"]) == 2
    err = capsys.readouterr().err
    assert "one.txt: the training split would be empty: 1 document(s)" in err
    assert not (tmp_path / "out").exists()
    empty = Corpus.from_token_lists([[0, 1]], ["a", "b"])[:0]
    write_corpus_dir(empty, tmp_path / "corpus", split="train")
    assert main(["fit", str(tmp_path / "corpus"), "-k", "2", "-o", str(tmp_path / "m.stm")]) == 2
    assert "corpus: its train split holds no documents (train.docword.txt declares D = 0)" in \
        capsys.readouterr().err
    assert main(["fit", str(tmp_path / "corpus"), "-k", "2", "--passes", "1",  # streamed
                 "-o", str(tmp_path / "m.stm")]) == 2
    assert "corpus (train split) holds no documents" in capsys.readouterr().err
    assert not (tmp_path / "m.stm").exists()


# --- the same options on every command --------------------------------------------------------------
def test_transform_reads_the_json_field_given(model_path, tmp_path):
    lines = planted_lines(6, seed=1)
    source = tmp_path / "d.jsonl"
    source.write_text("".join(json.dumps({"body": line}) + "\n" for line in lines))
    out = tmp_path / "t.jsonl"
    assert main(["transform", str(model_path), str(source), "-o", str(out)]) == 2
    assert main(["transform", str(model_path), str(source), "--text-field", "body",
                 "-o", str(out)]) == 0
    records = [json.loads(line) for line in out.read_text().splitlines()]
    groups = [WORDS.index(line.split()[0]) // 6 for line in lines]
    dominant = [r["dominant_topic"] for r in records]
    # each planted group has one topic: the same group, the same dominant topic
    assert len(set(dominant)) == 3 and all(
        (dominant[a] == dominant[b]) == (groups[a] == groups[b]) for a in range(6) for b in range(6))


def test_evaluate_scores_raw_text_as_the_same_corpus_directory(model_path, tmp_path, capsys):
    lines = planted_lines(8, seed=2)
    (tmp_path / "held.txt").write_text("\n".join(lines) + "\n")
    write_corpus_dir(load_corpus_from_lines(lines), tmp_path / "corpus", split="test")
    scores = []
    for source in (tmp_path / "held.txt", tmp_path / "corpus"):
        assert main(["evaluate", str(model_path), str(source), "--particles", "5", "--json"]) == 0
        scores.append(json.loads(capsys.readouterr().out))
    assert scores[0]["n_documents"] == 8 and scores[0]["n_tokens"] == 160
    assert scores[0]["mean_log_likelihood_per_document"] == pytest.approx(
        scores[1]["mean_log_likelihood_per_document"], rel=1e-12)  # same tokens, order and seed


def test_outputs_into_a_missing_directory_are_refused_before_any_work(model_path, tmp_path, capsys):
    missing = tmp_path / "no" / "such"
    for command in (["export", str(model_path), "-o", str(missing / "m.npz")],
                    ["report", str(model_path), "-o", str(missing / "r.html")]):
        assert main(command) == 2
        assert f"{missing}: the output's directory does not exist" in capsys.readouterr().err


@pytest.mark.parametrize("options, problem", [
    (["-k", "0"], "OnlineLDA: n_topics must be an integer >= 1, got 0"),
    (["-k", "5", "--batch-size", "0"], "batch_size must be an integer >= 1, got 0"),
    (["-k", "5", "--method", "cvb0", "--doc-topic-prior", "-1"], "doc_topic_prior"),
])
def test_fit_checks_option_values_before_reading_the_input(tmp_path, capsys, options, problem):
    assert main(["fit", str(tmp_path / "not-there"), *options, "-o", str(tmp_path / "m")]) == 2
    err = capsys.readouterr().err
    assert problem in err and "not-there" not in err
