"""Growing vocabulary in streaming mode: `OnlineLDA(grow_vocabulary=True,
max_vocabulary=...)`, `partial_fit_text` and `add_words`.

Old topics must not move when unseen words merely arrive; training must go on and recover the
planted topics of a corpus whose later documents bring new words; the cap and its pruning rule
must hold and be reported; a grown model must survive a save/load round trip; and with the
option off (the default) unseen words are dropped and counted as before.
"""

from __future__ import annotations

import doctest
import io
import json

import numpy as np
import pytest

from streamtopics.cli.main import main
from streamtopics.corpus import growth
from streamtopics.corpus.growth import VOCABULARY_FULL
from streamtopics.corpus.preprocess import UNKNOWN
from streamtopics.corpus.readers import iter_raw_documents
from streamtopics.corpus.synthetic import generate_synthetic
from streamtopics.errors import InputError
from streamtopics.estimators.online_lda import OnlineLDA
from streamtopics.checkpoint import read_checkpoint
from streamtopics.training import train_stream

from helpers import Interrupted, matched_tv, stop_at

NO_STOPWORDS = frozenset()


def word_name(i: int) -> str:
    """Letters only (the tokenizer splits on digits), never an English stop word."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    return "zq" + letters[i // 26 % 26] + letters[i % 26]


def texts(token_lists) -> list[str]:
    return [" ".join(word_name(w) for w in tokens) for tokens in token_lists]


def planted(n_topics=3, n_words=40, n_documents=1200, seed=0):
    corpus, truth = generate_synthetic(n_topics, n_words, n_documents, mean_length=50,
                                       alpha=0.2, topic_concentration=0.1, seed=seed)
    flat, offsets = corpus.document_tokens()
    token_lists = [flat[offsets[d]:offsets[d + 1]] for d in range(corpus.n_documents)]
    return token_lists, truth


def started_model(method="g-oem", **options) -> OnlineLDA:
    token_lists, _ = planted(n_documents=300)
    old = [[w for w in tokens if w < 30] for tokens in token_lists]
    model = OnlineLDA(n_topics=3, method=method, random_state=1, local_passes=5,
                      corpus_size=300, min_word_count=1, **options)
    for start in range(0, 300, 100):
        model.partial_fit_text(texts(old[start:start + 100]), stopwords=NO_STOPWORDS)
    return model


@pytest.mark.parametrize("method,averaging", [("g-oem", False), ("g-oem", True),
                                              ("v-oem++", False)])
def test_maximum_likelihood_topics_of_old_words_are_bit_identical(method, averaging):
    model = started_model(method, averaging=averaging, grow_vocabulary=True, topic_word_prior=0.0)
    n_old = model.vocabulary_.size
    before = model.components_.copy()
    old_documents = np.random.default_rng(0).integers(0, 3, size=(20, n_old))
    proportions_before = model.transform(old_documents)

    model.add_words(["brandnew", "unseen", "novel"])

    assert model.vocabulary_.size == n_old + 3
    assert model.vocabulary_[-3:].tolist() == ["brandnew", "unseen", "novel"]
    after = model.components_
    assert np.array_equal(after[:, :n_old], before)
    assert np.array_equal(after[:, n_old:], np.zeros((3, 3)))
    padded = np.hstack([old_documents, np.zeros((20, 3), dtype=np.int64)])
    assert np.array_equal(model.transform(padded), proportions_before)


@pytest.mark.parametrize("method,averaging", [("olda", False), ("sgs", False), ("g-oem", False),
                                              ("g-oem", True), ("olda", True)])
def test_prior_topics_of_old_words_are_unchanged_once_renormalised(method, averaging):
    """With a prior eta (the default of every preset) a new word gets the prior's mass; with
    averaging, every past iterate gives it its own prior mass and the average stays normalised."""
    model = started_model(method, grow_vocabulary=True, averaging=averaging)
    n_old = model.vocabulary_.size
    before = model.components_.copy()
    model.add_words(["brandnew", "unseen"])
    after = model.components_
    # Each new word gets the prior's mass; the old words of a topic share one common factor.
    np.testing.assert_allclose(after.sum(axis=1), 1.0, rtol=0, atol=1e-14)
    assert np.all(after[:, n_old:] > 0)
    factor = 1.0 - after[:, n_old:].sum(axis=1)
    np.testing.assert_allclose(after[:, :n_old], factor[:, None] * before, rtol=1e-13, atol=0)
    restricted = after[:, :n_old] / after[:, :n_old].sum(axis=1, keepdims=True)
    np.testing.assert_allclose(restricted, before, rtol=1e-13, atol=1e-15)


def stream_with_late_words(grow_vocabulary: bool):
    """Train on 16 minibatches of a planted corpus (K = 3, V = 40) whose first 8 never use the
    late words 28..39 (which carry 22-67% of each true topic's mass); returns (model, matched
    TV to the truth, the words used, the late words)."""
    token_lists, truth = planted(n_documents=1600, seed=3)
    late_words = set(range(28, 40))
    model = OnlineLDA(n_topics=3, method="g-oem", random_state=0, local_passes=10,
                      grow_vocabulary=grow_vocabulary, min_word_count=1)
    for start in range(0, 1600, 100):
        batch = token_lists[start:start + 100]
        if start < 800:
            batch = [[w for w in tokens if w not in late_words] for tokens in batch]
        model.partial_fit_text(texts(batch), stopwords=NO_STOPWORDS)
        if start == 700:
            assert set(model.vocabulary_.tolist()).isdisjoint(word_name(w) for w in late_words)
    column = {word: i for i, word in enumerate(model.vocabulary_.tolist())}
    estimate = np.zeros_like(truth.beta)  # a word outside the vocabulary has probability 0
    used = {w for tokens in token_lists for w in tokens}
    for w in used:
        if word_name(w) in column:
            estimate[:, w] = model.components_[:, column[word_name(w)]]
    return model, matched_tv(estimate, truth.beta).mean(), used, late_words


def test_training_continues_and_recovers_planted_topics_with_new_words():
    model, tv, used, late_words = stream_with_late_words(grow_vocabulary=True)
    assert sorted(model.vocabulary_.tolist()) == sorted(word_name(w) for w in used)
    assert len(used & late_words) >= 8
    assert model.n_steps_ == 16
    assert np.all(np.isfinite(model.components_))
    assert model.text_report_.tokens_dropped == {}
    assert tv < 0.1, tv  # measured 0.050
    # The same stream with a fixed vocabulary cannot represent the late words (measured 0.44).
    _, fixed_tv, _, _ = stream_with_late_words(grow_vocabulary=False)
    assert fixed_tv > 0.3, fixed_tv


def test_cap_holds_and_pruning_rule_is_applied_and_reported():
    model = OnlineLDA(n_topics=2, random_state=0, local_passes=3, grow_vocabulary=True,
                      max_vocabulary=6, min_word_count=1)
    model.partial_fit_text(["aa bb cc", "bb cc dd"], stopwords=NO_STOPWORDS)
    assert model.vocabulary_.tolist() == ["bb", "cc", "aa", "dd"]  # by count, ties: first seen
    before = model.components_.copy()
    # New words: ee x1, ff x3, gg x2, hh x3; room for 2: ff and hh (count 3, ff first), then full.
    model.partial_fit_text(["ee ff gg hh aa", "ff gg hh ff hh"], stopwords=NO_STOPWORDS)
    assert model.vocabulary_.tolist() == ["bb", "cc", "aa", "dd", "ff", "hh"]
    assert model.components_.shape == (2, 6)
    assert model.text_report_.tokens_dropped == {VOCABULARY_FULL: 3}  # ee once, gg twice
    assert model.text_report_.tokens_kept == 6 + 7
    assert not np.array_equal(model.components_[:, :4], before)  # a step was taken
    # Full: no more words, nothing evicted, the model keeps training.
    model.partial_fit_text(["ii jj aa", "kk bb"], stopwords=NO_STOPWORDS)
    assert model.vocabulary_.size == 6
    assert model.text_report_.tokens_dropped == {VOCABULARY_FULL: 6}
    assert model.n_steps_ == 3
    assert np.all(np.isfinite(model.components_))
    with pytest.raises(ValueError, match="max_vocabulary"):
        model.add_words(["ll"])
    with pytest.raises(ValueError, match="already known or repeated"):
        OnlineLDA(n_topics=2, random_state=0).partial_fit_text(["aa bb"], stopwords=NO_STOPWORDS) \
            .add_words(["cc", "aa"])
    with pytest.raises(ValueError, match="max_vocabulary"):
        OnlineLDA(max_vocabulary=0).partial_fit_text(["aa"], stopwords=NO_STOPWORDS)


def test_grown_model_round_trips_through_a_model_file(tmp_path):
    model = started_model(grow_vocabulary=True, max_vocabulary=34, averaging=True)
    n_old = model.vocabulary_.size
    token_lists, _ = planted(n_documents=300, seed=5)
    model.partial_fit_text(texts(token_lists[:100]), stopwords=NO_STOPWORDS)
    assert n_old < 34 == model.vocabulary_.size
    path = tmp_path / "grown.npz"
    model.save(path)
    loaded = OnlineLDA.load(path)
    assert loaded.grow_vocabulary and loaded.max_vocabulary == 34
    assert loaded.vocabulary_.tolist() == model.vocabulary_.tolist()
    assert np.array_equal(loaded.components_, model.components_)
    more = texts(token_lists[100:200]) + ["brandnew words arrive here"]
    model.partial_fit_text(more, stopwords=NO_STOPWORDS)
    loaded.partial_fit_text(more, stopwords=NO_STOPWORDS)
    assert loaded.vocabulary_.size == 34  # the cap survived the round trip
    assert np.array_equal(loaded.components_, model.components_)


def test_off_by_default_unseen_words_are_dropped_and_counted():
    model = OnlineLDA(n_topics=2, random_state=0, local_passes=3)
    assert model.grow_vocabulary is False and model.max_vocabulary is None
    model.partial_fit_text(["aa bb cc", "bb cc dd"], stopwords=NO_STOPWORDS)
    vocabulary = model.vocabulary_.tolist()
    model.partial_fit_text(["aa ee ee ff", "gg bb"], stopwords=NO_STOPWORDS)
    assert model.vocabulary_.tolist() == vocabulary
    assert model.components_.shape == (2, 4)
    assert model.text_report_.tokens_dropped == {UNKNOWN: 4}
    # A minibatch of unknown words only takes no step and says so.
    model.partial_fit_text(["zz yy"], stopwords=NO_STOPWORDS)
    assert model.n_steps_ == 2
    assert model.text_report_.tokens_dropped == {UNKNOWN: 6}
    assert model.text_report_.warnings


def test_growth_with_averaging_and_a_prior_keeps_training_normalised():
    model = started_model("g-oem", grow_vocabulary=True, averaging=True)
    model.add_words(["brandnew"])
    model.partial_fit_text(texts([[0, 1, 2], [3, 4]]) + ["zqzz brandnew brandnew"],
                           stopwords=NO_STOPWORDS)
    np.testing.assert_allclose(model.components_.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    assert np.all(model.components_ > 0)


# --- streaming training and the CLI --------------------------------------------------------------
def write_jsonl(path, token_lists, late_from=None):
    """JSON lines of the documents (the words >= 28 only from document ``late_from`` on), with
    a blank line and an empty document among them."""
    lines = []
    for d, tokens in enumerate(token_lists):
        if late_from is not None and d < late_from:
            tokens = [w for w in tokens if w < 28]
        lines.append(json.dumps({"text": " ".join(word_name(w) for w in tokens)}))
    lines[5:5] = ["", json.dumps({"text": " "})]
    path.write_text("\n".join(lines) + "\n")
    return path


GROWING = {"n_topics": 3, "batch_size": 50, "local_passes": 5, "random_state": 2,
           "grow_vocabulary": True, "max_vocabulary": 36, "min_word_count": 1}


@pytest.fixture(scope="module")
def grown_stream(tmp_path_factory):
    token_lists, _ = planted(n_documents=400, seed=4)
    path = write_jsonl(tmp_path_factory.mktemp("grow") / "docs.jsonl", token_lists, late_from=150)
    return path, token_lists


def test_train_stream_with_growth_equals_partial_fit_text(grown_stream):
    path, _ = grown_stream
    streamed = OnlineLDA(**GROWING)
    result = train_stream(streamed, path)
    documents = list(iter_raw_documents(path))
    by_hand = OnlineLDA(**GROWING)
    for start in range(0, len(documents), 50):
        by_hand.partial_fit_text(documents[start:start + 50])
    assert streamed.vocabulary_.tolist() == by_hand.vocabulary_.tolist()
    assert 28 < streamed.vocabulary_.size == 36  # grew after the first minibatch, up to the cap
    np.testing.assert_array_equal(streamed.components_, by_hand.components_)
    assert (result.documents, result.steps) == (400, 8)
    assert result.report.tokens_dropped == by_hand.text_report_.tokens_dropped
    assert result.report.tokens_dropped[VOCABULARY_FULL] > 0
    assert result.report.documents_skipped == {"empty document": 1}
    from_stream = OnlineLDA(**GROWING)  # stdin or any binary stream: the same minibatches
    train_stream(from_stream, io.BytesIO(path.read_bytes()))
    assert from_stream.vocabulary_.tolist() == by_hand.vocabulary_.tolist()
    np.testing.assert_array_equal(from_stream.components_, by_hand.components_)
    # An initial vocabulary comes first; the stream's new words follow it.
    initial = ["zqzz", word_name(3)]
    seeded = OnlineLDA(**GROWING)
    train_stream(seeded, path, vocabulary=initial)
    assert seeded.vocabulary_[:2].tolist() == initial and seeded.vocabulary_.size == 36


def test_growing_stream_resumes_bit_identical(tmp_path, grown_stream):
    path, _ = grown_stream
    reference = OnlineLDA(**GROWING)
    train_stream(reference, path)
    checkpoint = tmp_path / "grow.ckpt"
    sizes = []
    for documents in (100, 250):  # before and after the late words arrive
        with pytest.raises(Interrupted):
            train_stream(OnlineLDA(**GROWING), path, checkpoint=checkpoint, checkpoint_every=50,
                         resume=True, progress=stop_at(documents))
        sizes.append(read_checkpoint(checkpoint)[1]["vocabulary"].size)
    assert sizes[0] < sizes[1]  # the checkpointed vocabulary grew between the interruptions
    resumed = OnlineLDA(**GROWING)
    result = train_stream(resumed, path, checkpoint=checkpoint, checkpoint_every=50, resume=True)
    assert result.resumed_from.documents_total == 250
    assert resumed.vocabulary_.tolist() == reference.vocabulary_.tolist()
    np.testing.assert_array_equal(resumed.components_, reference.components_)
    for name, array in reference._state_arrays().items():
        np.testing.assert_array_equal(resumed._state_arrays()[name], array)
    with pytest.raises(InputError, match="max_vocabulary = 36 in the checkpoint"):
        train_stream(OnlineLDA(**{**GROWING, "max_vocabulary": 40}), path, checkpoint=checkpoint,
                     resume=True)


def test_cli_fit_grows_the_vocabulary_within_the_cap(tmp_path, capsys, grown_stream):
    path, _ = grown_stream
    output = tmp_path / "model.npz"
    code = main(["fit", str(path), "--grow-vocabulary", "--max-vocabulary", "30",
                 "--min-word-count", "1", "-k", "2",
                 "--batch-size", "50", "--local-passes", "3", "-o", str(output), "--json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    result = json.loads(captured.out)
    model = OnlineLDA.load(output)
    assert model.vocabulary_.size == result["vocabulary_size"] == 30
    assert model.grow_vocabulary and model.max_vocabulary == 30
    assert result["tokens_dropped"][VOCABULARY_FULL] > 0
    assert result["documents"] == 400 and "dropped" in captured.err
    # Growth needs raw text.
    code = main(["fit", str(path), "--max-vocabulary", "30", "-k", "2",
                 "-o", str(tmp_path / "b.npz")])
    assert code == 2 and "--grow-vocabulary" in capsys.readouterr().err


def test_the_word_rules_in_the_docstring_run():
    """`corpus.growth`'s example (stop words, the pruning rule, the counts) runs as written."""
    result = doctest.testmod(growth)
    assert result.attempted >= 5 and result.failed == 0
