"""Progressive held-out evaluation during training (`reporting.progressive`) and ``fit --eval-every``."""

import json

import numpy as np
import pytest

from streamtopics.cli.main import main
from streamtopics.corpus.synthetic import generate_synthetic
from streamtopics.errors import InputError
from streamtopics.estimators.online_lda import OnlineLDA
from streamtopics.evaluation import document_completion, left_to_right
from streamtopics.reporting.progressive import ProgressiveEvaluation, topic_parameters_of


@pytest.fixture(scope="module")
def corpus():
    documents, _ = generate_synthetic(n_topics=3, n_words=30, n_documents=340, mean_length=20, seed=5)
    return documents[:300], documents[300:]


def small_model(**settings):
    return OnlineLDA(n_topics=3, method="g-oem", batch_size=50, local_passes=4, random_state=2,
                     n_passes=1, **settings)


class Snapshots:
    """Wraps an evaluation and keeps copies of (beta, alpha) whenever it adds a record."""

    def __init__(self, evaluation):
        self.evaluation = evaluation
        self.parameters = []

    def __call__(self, model, report):
        before = len(self.evaluation.records)
        self.evaluation(model, report)
        if len(self.evaluation.records) > before:
            self.parameters.append((model.components_.copy(), model.doc_topic_prior_.copy()))


@pytest.mark.parametrize("every, seen", [(100, [100, 200, 300]), (120, [150, 250, 300])])
def test_records_are_monotone_and_equal_direct_left_to_right(corpus, tmp_path, every, seen):
    train, test = corpus
    path = tmp_path / "run.eval.jsonl"
    evaluation = ProgressiveEvaluation(test, every=every, n_documents=25, n_particles=5, seed=3,
                                       path=path)
    snapshots = Snapshots(evaluation)
    model = small_model().fit(train, callback=snapshots)
    evaluation.finish(model)
    if len(snapshots.parameters) < len(evaluation.records):  # finish scored the final model
        snapshots.parameters.append((model.components_.copy(), model.doc_topic_prior_.copy()))

    records = evaluation.records
    assert [r.documents_seen for r in records] == seen
    assert [r.steps for r in records] == [s // 50 for s in seen]
    assert np.all(np.diff([r.train_seconds for r in records]) > 0)
    assert all(r.eval_seconds > 0 and r.n_documents == 25 for r in records)
    for record, (beta, alpha) in zip(records, snapshots.parameters):
        direct = left_to_right(beta, alpha, test[:25], n_particles=5, seed=3)
        assert record.log_perplexity_per_document == direct.log_perplexity_per_document
        assert record.n_tokens == direct.n_tokens
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert json.dumps(lines) == json.dumps([r.as_dict() for r in records])  # NaN-safe equality


def test_completion_metric_matches_document_completion(corpus):
    train, test = corpus
    evaluation = ProgressiveEvaluation(test, metric="completion", n_documents=10, seed=4)
    model = small_model().fit(train, callback=evaluation)
    record = evaluation.finish(model)
    assert len(evaluation.records) == 1 and record.documents_seen == 300
    direct = document_completion(model.components_, model.doc_topic_prior_, test[:10], seed=4)
    assert record.log_perplexity_per_document == direct.log_perplexity_per_document


@pytest.mark.parametrize("averaging", [False, True])
def test_training_with_the_callback_is_bit_identical(corpus, averaging):
    train, test = corpus
    plain = small_model(averaging=averaging).fit(train)
    evaluation = ProgressiveEvaluation(test, every=50, n_documents=10, n_particles=3)
    watched = small_model(averaging=averaging).fit(train, callback=evaluation)
    assert len(evaluation.records) == 6
    assert np.array_equal(plain.components_, watched.components_)
    assert np.array_equal(plain.doc_topic_prior_, watched.doc_topic_prior_)


def test_engine_callbacks_are_accepted(corpus):
    train, _ = corpus
    model = small_model().fit(train)
    beta, alpha = topic_parameters_of(model._engine)
    assert np.array_equal(beta, model.components_) and np.array_equal(alpha, model.doc_topic_prior_)


def test_bad_settings_are_input_errors(corpus):
    _, test = corpus
    with pytest.raises(InputError, match="metric"):
        ProgressiveEvaluation(test, metric="perplexity")
    with pytest.raises(InputError, match="every"):
        ProgressiveEvaluation(test, every=0)
    with pytest.raises(InputError, match="Corpus"):
        ProgressiveEvaluation(test.counts)
    with pytest.raises(InputError, match="before any training step"):
        ProgressiveEvaluation(test).finish(small_model())


def write_docword(path, counts):
    counts = counts.tocoo()
    order = np.lexsort((counts.col, counts.row))
    lines = [str(counts.shape[0]), str(counts.shape[1]), str(counts.nnz)]
    lines += [f"{r + 1} {c + 1} {v}" for r, c, v in
              zip(counts.row[order], counts.col[order], counts.data[order])]
    path.write_text("\n".join(lines) + "\n")


def test_fit_command_writes_evaluation_lines(tmp_path, capsys, corpus):
    train, test = corpus
    (tmp_path / "vocab.txt").write_text("\n".join(train.vocabulary) + "\n")
    write_docword(tmp_path / "train.docword.txt", train.counts)
    write_docword(tmp_path / "test.docword.txt", test.counts)
    model_path = tmp_path / "model.npz"
    code = main(["fit", str(tmp_path), "-k", "3", "--batch-size", "50", "--local-passes", "4",
                 "--passes", "1", "--eval-every", "100", "--eval-docs", "20", "--eval-particles", "5",
                 "-o", str(model_path), "--json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    result = json.loads(captured.out)
    lines = [json.loads(line) for line in (tmp_path / "model.npz.eval.jsonl").read_text().splitlines()]
    assert [line["documents_seen"] for line in lines] == [100, 200, 300]
    assert result["evaluation"]["records"] == 3
    assert json.dumps(result["evaluation"]["last"], sort_keys=True) == json.dumps(lines[-1], sort_keys=True)
    assert all(np.isfinite(line["log_perplexity_per_document"]) for line in lines[1:])

    assert main(["fit", str(tmp_path), "-k", "3", "--method", "cgs", "--eval-every", "100",
                 "-o", str(tmp_path / "cgs.npz")]) == 2
    assert "online method" in capsys.readouterr().err


def test_non_finite_records_are_strict_json_with_a_reason():
    import math

    from streamtopics.reporting.progressive import strict_record
    record = strict_record({"log_perplexity_per_document": math.inf, "n_documents": 3,
                            "per_token_perplexity": float("nan")})
    text = json.dumps(record, allow_nan=False)
    assert "Infinity" not in text and "NaN" not in text
    assert record["log_perplexity_per_document"] is None and record["n_documents"] == 3
    assert "log_perplexity_per_document" in record["non_finite_reason"]
