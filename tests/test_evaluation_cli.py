"""`streamtopics evaluate MODEL CORPUS_DIR`: plain .npz and model files, metrics, clear errors."""

import json

import numpy as np
import pytest

from streamtopics import generate_synthetic
from streamtopics.cli.main import main
from streamtopics.evaluation import (cv_coherence, left_to_right, npmi_coherence,
                                     topic_diversity, umass_coherence)
from streamtopics.persistence import save_model


@pytest.fixture
def corpus_dir(tmp_path):
    """A corpus directory (UCI layout, test split with token order) and its synthetic truth."""
    corpus, truth = generate_synthetic(4, 30, 25, mean_length=12, seed=7)
    directory = tmp_path / "corpus"
    directory.mkdir()
    (directory / "vocab.txt").write_text("\n".join(corpus.vocabulary) + "\n")
    counts = corpus.counts.tocoo()
    entries = sorted(zip(counts.row + 1, counts.col + 1, counts.data))
    (directory / "test.docword.txt").write_text(
        f"{corpus.n_documents}\n{corpus.n_words}\n{len(entries)}\n"
        + "".join(f"{d} {w} {c}\n" for d, w, c in entries))
    (directory / "test.tokens.jsonl").write_text(
        "".join(json.dumps(tokens.tolist()) + "\n" for tokens in corpus.tokens))
    return directory, corpus, truth


def run_cli(capsys, *arguments):
    code = main(["evaluate", *map(str, arguments)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_left_to_right_on_a_plain_npz_matches_the_library(corpus_dir, tmp_path, capsys):
    directory, corpus, truth = corpus_dir
    model = tmp_path / "plain.npz"
    np.savez(model, beta=truth.beta, alpha=truth.alpha)
    code, out, _ = run_cli(capsys, model, directory, "--particles", 5, "--seed", 3, "--json")
    assert code == 0
    result = json.loads(out)
    expected = left_to_right(truth.beta, truth.alpha, corpus, n_particles=5, seed=3)
    assert result["method"] == "left-to-right" and result["n_documents"] == 25
    assert result["mean_log_likelihood_per_document"] == pytest.approx(
        expected.mean_log_likelihood_per_document, rel=1e-12)
    assert result["per_token_perplexity"] > 1


@pytest.mark.parametrize("metric", ["left-to-right-smc", "completion", "elbo", "coherence"])
def test_every_metric_on_a_model_file(corpus_dir, tmp_path, capsys, metric):
    directory, corpus, truth = corpus_dir
    model = tmp_path / "model.stm"
    save_model(model, {"beta": truth.beta, "alpha": truth.alpha,
                       "vocabulary": corpus.vocabulary}, {"method": "truth"})
    code, out, _ = run_cli(capsys, model, directory, "--metric", metric, "--max-docs", 10,
                           "--particles", 3, "--burn-in", 3, "--samples", 2, "--top-words", 5)
    assert code == 0
    if metric == "elbo":
        assert "bound" in out and "perplexity" not in out.lower()
    elif metric == "coherence":
        assert "c_v" in out and "NPMI" in out and len(out.splitlines()) == 1 + 4 + 1
    else:
        assert "10 documents" in out and "log-perplexity per document" in out


def test_coherence_json_has_every_measure_per_topic_and_on_average(corpus_dir, tmp_path, capsys):
    directory, corpus, truth = corpus_dir
    model = tmp_path / "plain.npz"
    np.savez(model, beta=truth.beta, alpha=truth.alpha)
    code, out, _ = run_cli(capsys, model, directory, "--metric", "coherence", "--top-words", 5,
                           "--json")
    assert code == 0
    result = json.loads(out)
    expected = {"cv": cv_coherence(truth.beta, corpus, 5),
                "npmi": npmi_coherence(truth.beta, corpus, 5),
                "umass": umass_coherence(truth.beta, corpus, 5),
                "unique_top_words": topic_diversity(truth.beta)[1]}
    for name, values in expected.items():
        assert [t[name] for t in result["topics"]] == pytest.approx(values.tolist(), abs=1e-12)
    assert result["mean_cv"] == pytest.approx(expected["cv"].mean(), abs=1e-12)
    assert result["topic_diversity"] == topic_diversity(truth.beta)[0]
    assert result["reference_token_order"] is True


def test_topics_with_a_reference_corpus_show_the_same_coherences(corpus_dir, tmp_path, capsys):
    directory, corpus, truth = corpus_dir
    model = tmp_path / "model.stm"
    save_model(model, {"beta": truth.beta, "alpha": truth.alpha,
                       "vocabulary": corpus.vocabulary}, {"method": "truth"})
    assert main(["topics", str(model), "--json", "-n", "5"]) == 0
    alone = json.loads(capsys.readouterr().out)
    assert alone["topic_diversity"] == topic_diversity(truth.beta)[0] and "mean_cv" not in alone
    assert main(["topics", str(model), str(directory), "--split", "test", "-n", "5",
                 "--json"]) == 0
    scored = json.loads(capsys.readouterr().out)
    assert scored["reference_token_order"] is True
    assert [t["cv"] for t in scored["topics"]] == pytest.approx(
        cv_coherence(truth.beta, corpus, 5).tolist(), abs=1e-12)
    assert scored["mean_npmi"] == pytest.approx(npmi_coherence(truth.beta, corpus, 5).mean())
    assert main(["topics", str(model), str(directory), "--split", "test"]) == 0
    assert "cv=" in capsys.readouterr().out


def test_vocabulary_size_mismatch_is_a_clear_error(corpus_dir, tmp_path, capsys):
    directory, _, truth = corpus_dir
    model = tmp_path / "wide.npz"
    np.savez(model, beta=np.full((2, 31), 1 / 31), alpha=np.ones(2))
    code, _, err = run_cli(capsys, model, directory)
    assert code == 2
    assert "31 words" in err and "30" in err and "Traceback" not in err


def test_unreadable_model_is_a_clear_error(corpus_dir, tmp_path, capsys):
    directory, _, _ = corpus_dir
    model = tmp_path / "junk.npz"
    model.write_bytes(b"not a model")
    code, _, err = run_cli(capsys, model, directory)
    assert code == 2 and "junk.npz" in err


def test_zero_probability_tokens_are_counted_and_json_stays_strict(corpus_dir, tmp_path, capsys):
    """A foreign model with a word of probability 0 in every topic: the documents using it
    score -inf; evaluate says how many tokens and documents, scores the rest, writes strict
    JSON (null, never Infinity/NaN) and exits 1."""
    directory, corpus, truth = corpus_dir
    word = int(np.argmax(np.asarray(corpus.counts.sum(axis=0)).ravel()))
    beta = truth.beta.copy()
    beta[:, word] = 0
    beta /= beta.sum(axis=1, keepdims=True)
    model = tmp_path / "foreign.npz"
    np.savez(model, beta=beta, alpha=truth.alpha)
    code, out, _ = run_cli(capsys, model, directory, "--particles", 3, "--json")
    assert code == 1
    assert "Infinity" not in out and "NaN" not in out
    result = json.loads(out)
    uses = np.asarray(corpus.counts[:, word].todense()).ravel()
    assert result["zero_probability_tokens"] == int(uses.sum())
    assert result["zero_probability_documents"] == int((uses > 0).sum())
    assert result["mean_log_likelihood_per_document"] is None and result["non_finite"]["reason"]
    rest = result["excluding_zero_probability_documents"]
    assert rest["n_documents"] == 25 - int((uses > 0).sum())
    assert np.isfinite(rest["mean_log_likelihood_per_document"])
    code, out, _ = run_cli(capsys, model, directory, "--particles", 3)
    assert code == 1 and "probability 0" in out and "-inf ± nan" not in out
