"""Training over streams: `train_stream` equals `fit`, and `fit_with_checkpoints` is `fit`
(one pass, several, automatic passes); checkpoints resume bit-identically after an
interruption, including a real child process killed with SIGKILL at random moments (during a
step or a checkpoint write); checkpoints of another run are refused.

Over 450 lines because the checkpoints of streams and of fits are one concern, tested on one
corpus, and their SIGKILL tests share one child process script and its driver."""

from __future__ import annotations

import doctest
import io
import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from streamtopics import GibbsLDA, InputError, ModelFileError, OnlineLDA
from streamtopics.corpus import read_corpus_dir, sources, write_synthetic_corpus
from streamtopics.checkpoint import read_checkpoint
from streamtopics.corpus.sources import LineStream
from streamtopics.training import fit_with_checkpoints, train_stream

from helpers import Interrupted, numba_threads, stop_at

K, V, D, BATCH = 4, 60, 1500, 50
SETTINGS = dict(n_topics=K, batch_size=BATCH, local_passes=5, random_state=3)


@pytest.fixture(scope="module")
def corpus_dir(tmp_path_factory):
    directory = tmp_path_factory.mktemp("stream")
    write_synthetic_corpus(directory, n_topics=K, n_words=V, n_documents=D, mean_length=40,
                           seed=11)
    return directory


@pytest.fixture(scope="module")
def jsonl(tmp_path_factory, corpus_dir):
    """The synthetic corpus as JSON lines over a vocabulary of letter-only words (the tokenizer
    splits on digits), with blank lines and an empty document among them."""
    corpus = read_corpus_dir(corpus_dir)
    words = [chr(97 + i // 26) + chr(97 + i % 26) + "x" for i in range(V)]
    flat, offsets = corpus.document_tokens()
    lines = [json.dumps({"text": " ".join(words[w] for w in flat[a:b]), "label": i % 3})
             for i, (a, b) in enumerate(zip(offsets[:-1], offsets[1:]))]
    lines[7:7] = ["", json.dumps({"text": "  "})]
    path = tmp_path_factory.mktemp("text") / "docs.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path, words


def test_stream_equals_fit(corpus_dir):
    """Streaming the docword file (read a block at a time) is `fit` on the loaded corpus, pass
    for pass; a corpus directory and its docword file are the same source."""
    corpus = read_corpus_dir(corpus_dir)
    fitted = OnlineLDA(**SETTINGS, n_passes=2).fit(corpus)
    streamed = OnlineLDA(**SETTINGS)
    result = train_stream(streamed, corpus_dir, n_passes=2)
    np.testing.assert_array_equal(streamed.components_, fitted.components_)
    assert (result.documents, result.steps) == (2 * D, 2 * D // BATCH)
    assert result.position.pass_index == 2 and result.report.documents_kept == D
    by_file = OnlineLDA(**SETTINGS, n_passes=2)
    train_stream(by_file, corpus_dir / "train.docword.txt")
    np.testing.assert_array_equal(by_file.components_, fitted.components_)


@pytest.mark.parametrize("method,averaging", [("g-oem", True), ("v-oem", False),
                                              ("g-oem++", True)])
def test_interrupted_runs_resume_exactly(tmp_path, corpus_dir, method, averaging):
    """Two passes, interrupted three times (twice in the first pass, once in the second, at
    documents that are not checkpoint boundaries): the final model is bit-identical to an
    uninterrupted run, statistics, step counter and averaging state included."""
    settings = dict(SETTINGS, method=method, averaging=averaging, n_passes=2)
    reference = OnlineLDA(**settings)
    train_stream(reference, corpus_dir)
    checkpoint = tmp_path / "run.ckpt"
    for documents in (400, 1150, 2250):
        with pytest.raises(Interrupted):
            train_stream(OnlineLDA(**settings), corpus_dir, checkpoint=checkpoint,
                         checkpoint_every=300, resume=True, progress=stop_at(documents))
        position = read_checkpoint(checkpoint)[0].position
        assert position.documents_total == documents // 300 * 300
    resumed = OnlineLDA(**settings)
    result = train_stream(resumed, corpus_dir, checkpoint=checkpoint, checkpoint_every=300,
                          resume=True)
    assert result.resumed_from.documents_total == 2100
    assert result.resumed_from.pass_index == 1 and result.documents == 2 * D - 2100
    np.testing.assert_array_equal(resumed.components_, reference.components_)
    np.testing.assert_array_equal(resumed.doc_topic_prior_, reference.doc_topic_prior_)
    assert resumed.n_steps_ == reference.n_steps_
    for name, array in reference._state_arrays().items():
        np.testing.assert_array_equal(resumed._state_arrays()[name], array)


def test_finished_run_resumes_as_a_no_op_and_can_train_further(tmp_path, corpus_dir):
    checkpoint = tmp_path / "run.ckpt"
    first = OnlineLDA(**SETTINGS)
    train_stream(first, corpus_dir, checkpoint=checkpoint, checkpoint_every=500)
    stored, _, _ = read_checkpoint(checkpoint)
    assert stored.finished and stored.position.pass_index == 1
    content = checkpoint.read_bytes()
    again = OnlineLDA(**SETTINGS)
    result = train_stream(again, corpus_dir, checkpoint=checkpoint, resume=True)
    assert (result.steps, result.documents, result.checkpoints_written) == (0, 0, 0)
    np.testing.assert_array_equal(again.components_, first.components_)
    assert checkpoint.read_bytes() == content
    # a checkpoint is a model file too
    np.testing.assert_array_equal(OnlineLDA.load(checkpoint).components_, first.components_)
    # asking for a second pass continues where the first ended: an uninterrupted 2-pass run
    longer = OnlineLDA(**SETTINGS)
    train_stream(longer, corpus_dir, n_passes=2, checkpoint=checkpoint, resume=True)
    two_passes = OnlineLDA(**SETTINGS, n_passes=2)
    train_stream(two_passes, corpus_dir)
    np.testing.assert_array_equal(longer.components_, two_passes.components_)


def test_checkpoints_of_another_run_are_refused(tmp_path, corpus_dir):
    checkpoint = tmp_path / "run.ckpt"
    with pytest.raises(Interrupted):
        train_stream(OnlineLDA(**SETTINGS), corpus_dir, checkpoint=checkpoint,
                     checkpoint_every=100, progress=stop_at(300))
    other = tmp_path / "other"
    write_synthetic_corpus(other, n_topics=K, n_words=V, n_documents=D, mean_length=40, seed=12)
    cases = [
        (dict(source=other), "bytes of the source differ|bytes, the checkpoint"),
        (dict(model=OnlineLDA(**dict(SETTINGS, batch_size=25))),
         "batch_size = 50 in the checkpoint, 25 now; batch size 50 in the checkpoint, 25 now"),
        (dict(model=OnlineLDA(**dict(SETTINGS, local_passes=6))), "local_passes = 5"),
        (dict(model=OnlineLDA(**dict(SETTINGS, random_state=4))), "random_state = 3"),
        (dict(model=OnlineLDA(**dict(SETTINGS, method="v-oem"))), "method = 'g-oem'"),
    ]
    for change, message in cases:
        arguments = {"model": OnlineLDA(**SETTINGS), "source": corpus_dir, **change}
        with pytest.raises(InputError, match=f"another training run: .*({message})"):
            train_stream(arguments.pop("model"), arguments.pop("source"), checkpoint=checkpoint,
                         resume=True, **arguments)
    with pytest.raises(TypeError, match="no partial_fit"):
        train_stream(GibbsLDA(K), corpus_dir, checkpoint=checkpoint, resume=True)
    with pytest.raises(InputError, match="a checkpoint exists here"):
        train_stream(OnlineLDA(**SETTINGS), corpus_dir, checkpoint=checkpoint)
    with pytest.raises(ValueError, match="unfitted model"):
        train_stream(OnlineLDA(**SETTINGS).fit(read_corpus_dir(corpus_dir)[:100]), corpus_dir,
                     checkpoint=checkpoint, resume=True)
    OnlineLDA(**SETTINGS).fit(read_corpus_dir(corpus_dir)[:100]).save(tmp_path / "model.npz")
    with pytest.raises(ModelFileError, match="not a training checkpoint"):
        train_stream(OnlineLDA(**SETTINGS), corpus_dir, checkpoint=tmp_path / "model.npz",
                     resume=True)
    (tmp_path / "torn.ckpt").write_bytes(checkpoint.read_bytes()[:-100])
    with pytest.raises(ModelFileError):
        train_stream(OnlineLDA(**SETTINGS), corpus_dir, checkpoint=tmp_path / "torn.ckpt",
                     resume=True)


def test_text_and_stdin_streams(tmp_path, jsonl, monkeypatch):
    """Raw JSON lines from a file, an open binary stream and stdin ("-") give the same model; a
    stream resumes exactly from a checkpoint when fed the same bytes again (the consumed
    documents are skipped unparsed by the tokenizer), and a different stream is refused."""
    path, words = jsonl
    data = path.read_bytes()
    from_file = OnlineLDA(**SETTINGS)
    result = train_stream(from_file, path, vocabulary=words)
    assert result.report.documents_kept == D and result.report.documents_skipped == {"empty document": 1}
    from_stream = OnlineLDA(**SETTINGS)
    train_stream(from_stream, io.BytesIO(data), vocabulary=words)
    np.testing.assert_array_equal(from_stream.components_, from_file.components_)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))  # read as bytes
    from_stdin = OnlineLDA(**SETTINGS)
    train_stream(from_stdin, "-", vocabulary=words)
    np.testing.assert_array_equal(from_stdin.components_, from_file.components_)

    checkpoint = tmp_path / "stdin.ckpt"
    with pytest.raises(Interrupted):
        train_stream(OnlineLDA(**SETTINGS), io.BytesIO(data), vocabulary=words,
                     checkpoint=checkpoint, checkpoint_every=300, progress=stop_at(777))
    changed = data.replace(b"aax", b"abx", 1)
    with pytest.raises(InputError, match="another stream: the first .* bytes"):
        train_stream(OnlineLDA(**SETTINGS), io.BytesIO(changed), checkpoint=checkpoint,
                     resume=True)
    resumed = OnlineLDA(**SETTINGS)  # the vocabulary comes from the checkpoint
    result = train_stream(resumed, io.BytesIO(data), checkpoint=checkpoint, resume=True)
    assert result.resumed_from.documents == 600
    np.testing.assert_array_equal(resumed.components_, from_file.components_)
    with pytest.raises(ValueError, match="n_passes must be 1"):
        train_stream(OnlineLDA(**SETTINGS), io.BytesIO(data), vocabulary=words, n_passes=2)
    with pytest.raises(InputError, match="binary mode"):
        train_stream(OnlineLDA(**SETTINGS), io.StringIO("aax\n"), vocabulary=words)


def test_line_stream_formats(jsonl):
    """Plain text lines (one document per line) are told apart from JSON lines; the JSON-lines
    checks of the file reader apply."""
    _, words = jsonl
    text = b"\n" + " ".join(words[:5]).encode() + b"\n\n" + words[7].encode() + b" zzz\n"
    stream = LineStream(io.BytesIO(text), words, batch_size=10)
    (batch,) = list(stream)
    assert stream.format == "text" and batch.n_documents == 2
    assert batch.counts.sum() == 6 and stream.report.documents_skipped == {"empty document": 2}
    with pytest.raises(InputError, match="line 2: no field 'text'"):
        list(LineStream(io.BytesIO(b'{"text": "aax"}\n{"body": "aax"}\n'), words))
    with pytest.raises(InputError, match="line 1: not valid JSON"):
        list(LineStream(io.BytesIO(b'{"text": \n'), words, format="jsonl"))
    with pytest.raises(InputError, match="NUL"):
        list(LineStream(io.BytesIO(b"aax\x00\n"), words))
    with pytest.raises(InputError, match="no documents"):
        list(LineStream(io.BytesIO(b"\n\n"), words, format="jsonl"))


def test_every_kind_of_source_has_the_one_interface(corpus_dir, jsonl):
    """`open_source` turns each kind of input into a `MinibatchSource`, whose ``raw`` and
    ``repeatable`` say how training reads it (its doctest runs too)."""
    path, words = jsonl
    opened = {"file": sources.open_source(corpus_dir, BATCH, None),
              "raw text": sources.open_source(path, BATCH, None, raw=True),
              "stream": sources.open_source(io.BytesIO(path.read_bytes()), BATCH, words),
              "minibatches": sources.open_source([read_corpus_dir(corpus_dir)], BATCH, None)}
    for kind, source in opened.items():
        assert isinstance(source, sources.MinibatchSource), kind
    assert [(s.raw, s.repeatable) for s in opened.values()] == [
        (False, True), (True, True), (False, False), (False, True)]
    assert doctest.testmod(sources).failed == 0


def test_iterable_of_minibatches(tmp_path, corpus_dir):
    """Any iterable of minibatches is trained on as it comes and resumes on the same
    boundaries; other boundaries are refused."""
    corpus = read_corpus_dir(corpus_dir)
    batches = [corpus[start:start + 70] for start in range(0, D, 70)]
    reference = OnlineLDA(**SETTINGS)
    train_stream(reference, batches)
    checkpoint = tmp_path / "list.ckpt"
    with pytest.raises(Interrupted):
        train_stream(OnlineLDA(**SETTINGS), batches, checkpoint=checkpoint,
                     checkpoint_every=200, progress=stop_at(700))
    with pytest.raises(InputError, match="inside a minibatch"):
        train_stream(OnlineLDA(**SETTINGS), list(corpus.minibatches(100)), checkpoint=checkpoint,
                     resume=True)
    resumed = OnlineLDA(**SETTINGS)
    train_stream(resumed, iter(batches), checkpoint=checkpoint, resume=True)
    np.testing.assert_array_equal(resumed.components_, reference.components_)
    with pytest.raises(ValueError, match="n_passes must be 1"):
        train_stream(OnlineLDA(**SETTINGS), iter(batches), n_passes=2)


# --- fit over a corpus in memory, checkpointed ----------------------------------------------------
def _assert_same_fit(model, reference):
    """The same model, bit for bit: every state array, step, passes and validation scores."""
    for name, array in reference._state_arrays().items():
        np.testing.assert_array_equal(model._state_arrays()[name], array)
    np.testing.assert_array_equal(model.components_, reference.components_)
    np.testing.assert_array_equal(model.doc_topic_prior_, reference.doc_topic_prior_)
    assert (model.n_steps_, model.n_passes_) == (reference.n_steps_, reference.n_passes_)
    assert model.validation_scores_ == reference.validation_scores_


def _interrupt_after(documents):
    """A `fit` callback that interrupts training once ``documents`` have been trained on."""
    seen = [0]

    def callback(model, report):
        seen[0] += report.n_documents
        if seen[0] >= documents:
            raise Interrupted
    return callback


@pytest.mark.parametrize("n_passes", [1, 3, "auto"])
def test_checkpointed_fit_is_fit(tmp_path, corpus_dir, n_passes):
    """Checkpoints never change the model: `fit_with_checkpoints` is `fit`, bit for bit, for
    one pass, several, and automatic passes (two on this corpus, the held-out documents
    scored after each)."""
    corpus = read_corpus_dir(corpus_dir)
    reference = OnlineLDA(**SETTINGS, n_passes=n_passes).fit(corpus)
    model = OnlineLDA(**SETTINGS, n_passes=n_passes)
    result = fit_with_checkpoints(model, corpus, tmp_path / "fit.ckpt", checkpoint_every=300)
    _assert_same_fit(model, reference)
    trained = D - D // 20 if n_passes == "auto" else D
    assert result.documents == trained * reference.n_passes_
    assert result.checkpoints_written == result.documents // 300 + 1
    stored, _, _ = read_checkpoint(tmp_path / "fit.ckpt")
    assert stored.finished and stored.position.pass_index == reference.n_passes_
    np.testing.assert_array_equal(OnlineLDA.load(tmp_path / "fit.ckpt").components_,
                                  reference.components_)


@pytest.mark.parametrize("n_passes", [3, "auto"])
def test_interrupted_fit_resumes_exactly(tmp_path, corpus_dir, n_passes):
    """A checkpointed fit interrupted three times, mid-pass (in the second pass of automatic
    passes, after the first was scored: the scores and the best pass's state come back from
    the checkpoint), then resumed, is the uninterrupted `fit`, bit for bit; a finished
    checkpoint resumes as a no-op."""
    corpus = read_corpus_dir(corpus_dir)
    reference = OnlineLDA(**SETTINGS, n_passes=n_passes).fit(corpus)
    assert reference.n_passes_ >= 2
    checkpoint = tmp_path / "fit.ckpt"
    for documents in (700, 1200, 1100):  # the last checkpoints at 500, 1500 and 2500 documents
        with pytest.raises(Interrupted):
            fit_with_checkpoints(OnlineLDA(**SETTINGS, n_passes=n_passes), corpus, checkpoint,
                                 checkpoint_every=250, resume=True,
                                 callback=_interrupt_after(documents))
    stored, arrays, _ = read_checkpoint(checkpoint)
    assert stored.position.pass_index == 1 and not stored.finished
    if n_passes == "auto":
        assert stored.schedule["scores"] == reference.validation_scores_[:1]
        assert any(name.startswith("best_pass.") for name in arrays)
    resumed = OnlineLDA(**SETTINGS, n_passes=n_passes)
    result = fit_with_checkpoints(resumed, corpus, checkpoint, checkpoint_every=250,
                                  resume=True)
    assert result.resumed_from == stored.position
    _assert_same_fit(resumed, reference)
    again = OnlineLDA(**SETTINGS, n_passes=n_passes)
    assert fit_with_checkpoints(again, corpus, checkpoint, resume=True).steps == 0
    _assert_same_fit(again, reference)


def test_fit_checkpoints_of_another_run_are_refused(tmp_path, corpus_dir):
    corpus = read_corpus_dir(corpus_dir)
    checkpoint = tmp_path / "fit.ckpt"
    with pytest.raises(Interrupted):
        fit_with_checkpoints(OnlineLDA(**SETTINGS, n_passes=2), corpus, checkpoint,
                             checkpoint_every=100, callback=_interrupt_after(300))
    cases = [(OnlineLDA(**SETTINGS, n_passes=2), corpus[:D - 1], "documents differ"),
             (OnlineLDA(**SETTINGS), corpus, "n_passes = 2 in the checkpoint, 'auto' now"),
             (OnlineLDA(**dict(SETTINGS, random_state=4), n_passes=2), corpus,
              "random_state = 3")]
    for model, documents, message in cases:
        with pytest.raises(InputError, match=f"another training run: .*{message}"):
            fit_with_checkpoints(model, documents, checkpoint, resume=True)
    with pytest.raises(InputError, match="a checkpoint exists here"):
        fit_with_checkpoints(OnlineLDA(**SETTINGS, n_passes=2), corpus, checkpoint)
    with pytest.raises(ValueError, match="n_init must be 1"):
        fit_with_checkpoints(OnlineLDA(**SETTINGS, n_init=2), corpus, tmp_path / "restarts")


# --- a real process killed with SIGKILL ----------------------------------------------------------
CHILD = """
import json, os, signal, sys
from streamtopics import LabeledOnlineLDA, OnlineHDP, OnlineLDA
import streamtopics.atomic as atomic
from streamtopics.training import fit_with_checkpoints, train_stream

corpus, checkpoint, settings, die_at_write = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), int(sys.argv[4])
estimator = {"OnlineLDA": OnlineLDA, "OnlineHDP": OnlineHDP,
             "LabeledOnlineLDA": LabeledOnlineLDA}[settings.pop("estimator", "OnlineLDA")]
loaded = settings.pop("loaded", settings.get("n_passes") == "auto")
if die_at_write:  # die after writing the checkpoint's data, before renaming it into place
    commit, writes = atomic.AtomicFile.commit, []
    def dying_commit(self):
        writes.append(1)
        if len(writes) == die_at_write:
            self.handle.flush()
            os.kill(os.getpid(), signal.SIGKILL)
        commit(self)
    atomic.AtomicFile.commit = dying_commit

def paced(position):  # report progress, then wait for the parent's word to go on
    print(position.documents_total, flush=True)
    sys.stdin.readline()

if loaded:  # a fit over the loaded corpus, its documents counted
    from streamtopics.checkpoint import read_checkpoint
    from streamtopics.corpus import read_corpus_dir
    done = read_checkpoint(checkpoint)[0].position.documents_total if os.path.exists(checkpoint) else 0
    def counted(model, report):
        global done
        done += report.n_documents
        print(done, flush=True)
        sys.stdin.readline()
    documents = read_corpus_dir(corpus)
    def fit(model, documents, topic_mask=None):
        fit_with_checkpoints(model, documents, checkpoint, checkpoint_every=settings["batch_size"],
                             resume=True, callback=counted, topic_mask=topic_mask)
    if estimator is LabeledOnlineLDA:
        labels = [["l%d" % (d % 3)] + (["l3"] if d % 5 == 0 else []) for d in range(documents.n_documents)]
        estimator(**settings).fit(documents, labels, train=fit)
    else:
        fit(estimator(**settings), documents)
else:
    train_stream(estimator(**settings), corpus, checkpoint=checkpoint,
                 checkpoint_every=settings["batch_size"], resume=True, progress=paced)
print("done", flush=True)
"""


def _run_child(script, corpus, checkpoint, settings, kill_after=None, delay=0.0, die_at_write=0):
    """Run the child until it finishes, or until it has trained on ``kill_after`` documents:
    then let it go on and SIGKILL it ``delay`` seconds later, at whatever it is doing (a step, a
    checkpoint write, or waiting). Returns (return code, documents it reported last)."""
    env = dict(os.environ, NUMBA_NUM_THREADS="1")
    child = subprocess.Popen([sys.executable, str(script), str(corpus), str(checkpoint),
                              json.dumps(settings), str(die_at_write)],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
    documents = None
    try:
        for line in child.stdout:
            if line.strip() == "done":
                break
            documents = int(line)
            try:
                child.stdin.write("\n")
                child.stdin.flush()
            except BrokenPipeError:
                break
            if kill_after is not None and documents >= kill_after:
                time.sleep(delay)
                child.send_signal(signal.SIGKILL)
                break
        return child.wait(timeout=60), documents
    finally:
        if child.poll() is None:
            child.kill()
        child.wait()
        child.stdout.close()
        child.stdin.close()


def test_sigkilled_process_resumes_bit_identical(tmp_path, corpus_dir):
    """A child process training with a checkpoint after every minibatch is killed with SIGKILL
    at 4 random points (seeded: a random minibatch, then a random delay of up to 5 ms into what
    follows, longer than a step and its checkpoint write on this corpus, so a kill lands inside
    a step, a checkpoint write or the wait for the parent) and once inside a checkpoint write
    for certain; each time the checkpoint on disk still loads (never torn),
    and the run resumed after the last kill ends with a model bit-identical to an uninterrupted
    run. The reference runs here with the child's one numba thread, so that this test checks
    resuming alone (thread-count independence is the kernels' own test)."""
    settings = dict(SETTINGS, averaging=True)
    reference = OnlineLDA(**settings)
    with numba_threads(1):
        train_stream(reference, corpus_dir)
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    checkpoint = tmp_path / "run.ckpt"
    rng = np.random.default_rng(8)
    kill_points = np.sort(rng.choice(np.arange(1, D // BATCH // 2), size=4, replace=False)) * BATCH
    last = 0
    for kill_after, delay in zip(kill_points, rng.uniform(0.0, 0.005, size=4)):
        code, reported = _run_child(script, corpus_dir, checkpoint, settings, int(kill_after), delay)
        assert code == -signal.SIGKILL and reported >= kill_after
        position = read_checkpoint(checkpoint)[0].position  # loads: not torn
        assert last <= position.documents_total <= reported + BATCH
        last = position.documents_total
    # killed after writing the third checkpoint's data, before the rename: the second stands
    code, reported = _run_child(script, corpus_dir, checkpoint, settings, die_at_write=3)
    assert code == -signal.SIGKILL
    assert read_checkpoint(checkpoint)[0].position.documents_total == last + 2 * BATCH
    assert list(tmp_path.glob(".run.ckpt.*.tmp"))  # the unfinished write's temporary file
    code, _ = _run_child(script, corpus_dir, checkpoint, settings)
    assert code == 0
    assert not list(tmp_path.glob(".run.ckpt.*.tmp"))
    finished = OnlineLDA.load(checkpoint)
    np.testing.assert_array_equal(finished.components_, reference.components_)
    np.testing.assert_array_equal(finished.doc_topic_prior_, reference.doc_topic_prior_)
    assert read_checkpoint(checkpoint)[0].finished


def test_sigkilled_automatic_passes_resume_bit_identical(tmp_path, corpus_dir):
    """A child process fitting the loaded corpus with automatic passes and a checkpoint after
    every minibatch is killed with SIGKILL at 3 random points (seeded), the last ones in the
    second pass (after the first was scored); the fit resumed after the last kill ends with
    the uninterrupted fit's model and validation scores, bit for bit."""
    settings = dict(SETTINGS, n_passes="auto")
    with numba_threads(1):
        reference = OnlineLDA(**settings).fit(read_corpus_dir(corpus_dir))
    assert reference.n_passes_ == 2
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    checkpoint = tmp_path / "fit.ckpt"
    rng = np.random.default_rng(5)
    trained = D - D // 20  # a pass: the documents not held out
    kill_points = [int(rng.integers(1, trained // BATCH)) * BATCH,
                   *np.sort(rng.choice(np.arange(trained // BATCH + 1, 2 * trained // BATCH - 1),
                                       size=2, replace=False)) * BATCH]
    for kill_after, delay in zip(kill_points, rng.uniform(0.0, 0.005, size=3)):
        code, reported = _run_child(script, corpus_dir, checkpoint, settings, int(kill_after),
                                    delay)
        assert code == -signal.SIGKILL and reported >= kill_after
        stored = read_checkpoint(checkpoint)[0]
        assert stored.position.documents_total <= reported + BATCH
    assert stored.position.pass_index == 1 and len(stored.schedule["scores"]) == 1
    code, _ = _run_child(script, corpus_dir, checkpoint, settings)
    assert code == 0
    stored = read_checkpoint(checkpoint)[0]
    assert stored.finished and stored.schedule["scores"] == reference.validation_scores_
    finished = OnlineLDA.load(checkpoint)
    for name, array in reference._state_arrays().items():
        np.testing.assert_array_equal(finished._state_arrays()[name], array)
    assert finished.n_steps_ == reference.n_steps_


def _labels(n_documents: int) -> list[list[str]]:
    """The labels the child gives the documents of a `LabeledOnlineLDA` (as CHILD)."""
    return [[f"l{d % 3}"] + (["l3"] if d % 5 == 0 else []) for d in range(n_documents)]


@pytest.mark.parametrize("estimator,options", [
    ("OnlineLDA", {"n_passes": 3}),
    ("OnlineHDP", {"n_passes": 2, "max_topics": 6}),
    ("LabeledOnlineLDA", {"n_passes": 2}),
])
def test_sigkilled_fits_of_every_online_estimator_resume_bit_identical(tmp_path, corpus_dir,
                                                                       estimator, options):
    """A fit over the loaded corpus (integer passes) with a checkpoint after every minibatch,
    killed with SIGKILL at 2 random points (seeded; the second in a later pass) and resumed,
    ends with the uninterrupted fit's training state, bit for bit, for LDA, HDP (topics that
    come and go) and Labeled LDA (the G-OEM model underneath)."""
    from streamtopics import LabeledOnlineLDA, OnlineHDP

    settings = {"batch_size": BATCH, "local_passes": 5, "random_state": 3, **options}
    if estimator == "OnlineLDA":
        settings["n_topics"] = K
    corpus = read_corpus_dir(corpus_dir)
    with numba_threads(1):
        if estimator == "LabeledOnlineLDA":
            reference = LabeledOnlineLDA(**settings).fit(corpus, _labels(D)).online_model_
        else:
            reference = {"OnlineLDA": OnlineLDA, "OnlineHDP": OnlineHDP}[estimator](
                **settings).fit(corpus)
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    checkpoint = tmp_path / "fit.ckpt"
    rng = np.random.default_rng(len(estimator))
    steps = D // BATCH
    kill_points = [int(rng.integers(1, steps)) * BATCH,
                   int(rng.integers(steps + 1, 2 * steps - 1)) * BATCH]
    child_settings = {**settings, "estimator": estimator, "loaded": True}
    for kill_after, delay in zip(kill_points, rng.uniform(0.0, 0.005, size=2)):
        code, reported = _run_child(script, corpus_dir, checkpoint, child_settings,
                                    kill_after, delay)
        assert code == -signal.SIGKILL and reported >= kill_after
        assert read_checkpoint(checkpoint)[0].position.documents_total <= reported + BATCH
    code, _ = _run_child(script, corpus_dir, checkpoint, child_settings)
    assert code == 0 and read_checkpoint(checkpoint)[0].finished
    finished = type(reference).load(checkpoint)
    assert finished.n_steps_ == reference.n_steps_
    for name, array in reference._state_arrays().items():
        np.testing.assert_array_equal(finished._state_arrays()[name], array)
