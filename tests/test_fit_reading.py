"""`streamtopics fit` streams a file by default and loads it only where needed,
saying so; streaming gives the model that loading gives."""

import json

import numpy as np
import pytest

from streamtopics.cli.main import main
from streamtopics.corpus.readers import read_corpus_dir
from streamtopics.corpus.writer import write_synthetic_corpus
from streamtopics.estimators import OnlineLDA
from streamtopics.persistence import load_model

COMMON = ["-k", "3", "--batch-size", "40", "--local-passes", "3", "--seed", "4", "--threads", "1"]


@pytest.fixture(scope="module")
def directory(tmp_path_factory):
    directory = tmp_path_factory.mktemp("corpus")
    write_synthetic_corpus(directory, n_topics=3, n_words=30, n_documents=200, n_test=10,
                           mean_length=20, alpha=0.3, topic_concentration=0.2, seed=2)
    return directory


def fit(capsys, tmp_path, name, argv):
    assert main(["fit", *argv, *COMMON, "-o", str(tmp_path / name), "--json"]) == 0
    captured = capsys.readouterr()
    return json.loads(captured.out), captured.err, load_model(tmp_path / name)[0]["beta"]


@pytest.mark.parametrize("corpus", ["directory", "docword file"])
def test_one_pass_streams_and_equals_fit_on_the_loaded_corpus(tmp_path, capsys, directory,
                                                              corpus):
    path = directory if corpus == "directory" else directory / "train.docword.txt"
    result, err, beta = fit(capsys, tmp_path, "m.npz", [str(path), "--passes", "1"])
    assert result["input"] == "streamed" and result["documents"] == 200
    assert "into memory" not in err
    loaded = OnlineLDA(n_topics=3, batch_size=40, local_passes=3, n_passes=1,
                       random_state=4).fit(read_corpus_dir(directory))
    np.testing.assert_array_equal(beta, loaded.components_)


def test_several_passes_load_a_small_file_and_say_so(tmp_path, capsys, directory):
    loaded, err, beta = fit(capsys, tmp_path, "loaded.npz", [str(directory), "--passes", "2"])
    assert loaded["input"] == "loaded" and "loaded" in err and "for 2 passes" in err
    streamed, err, streamed_beta = fit(capsys, tmp_path, "streamed.npz",
                                       [str(directory), "--passes", "2", "--load-limit", "0"])
    assert streamed["input"] == "streamed" and "into memory" not in err
    assert streamed["documents"] == loaded["documents"] == 400
    np.testing.assert_array_equal(beta, streamed_beta)


def test_auto_passes_over_a_file_over_the_limit_stream_one_pass(tmp_path, capsys, directory):
    result, err, _ = fit(capsys, tmp_path, "m.npz", [str(directory), "--load-limit", "0"])
    assert result["input"] == "streamed" and result["passes"] == 1
    assert "streaming one pass" in err
    small, err, _ = fit(capsys, tmp_path, "auto.npz", [str(directory)])
    assert small["input"] == "loaded" and small["passes"] >= 2 and "auto passes" in err


@pytest.mark.parametrize("argv,reason", [
    (["--method", "batch-vb", "--passes", "1"], None),
    (["--method", "cvb0", "--passes", "3"], None),
    (["--passes", "1", "--eval-every", "100"], "--eval-every"),
])
def test_what_needs_the_whole_corpus_loads_it(tmp_path, capsys, directory, argv, reason):
    result, err, _ = fit(capsys, tmp_path, "m.npz", [str(directory), *argv])
    assert result["input"] == "loaded"
    assert reason is None or reason in err
