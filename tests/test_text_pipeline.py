"""The text pipeline (corpus.pipeline): a user's tokeniser, extra stop words, and the record that
travels from a corpus directory to a model file and tokenises new text (transform, update,
partial_fit_text) as the training corpus was."""

from __future__ import annotations

import io
import json
import re

import numpy as np
import pytest

from streamtopics import OnlineLDA
from streamtopics.cli.main import main
from streamtopics.corpus import (TextPipeline, load_corpus, preprocess_documents,
                                 read_corpus_dir)
from streamtopics.corpus.pipeline import FREQUENT, STOP_WORD, read_pipeline
from streamtopics.corpus.preprocess import UNKNOWN
from streamtopics.errors import InputError, ModelFileError
from streamtopics.estimators import load_estimator
from streamtopics.persistence import load_model, save_model
from streamtopics.training import load_trainable, train_stream


def letters_and_digits(text: str) -> list[str]:
    """A tokeniser keeping identifiers with digits whole ("sql2"), which the built-in one
    splits; module level, so that its spec imports back."""
    return re.findall(r"[A-Za-z0-9]+", text)


SPEC = f"{__name__}:letters_and_digits"


def test_a_tokenizer_replaces_the_built_in_one_and_its_tokens_are_normalised():
    texts = ["Upgrade SQL2 now", "SQL2 and ＰＹ３ here"]   # fullwidth letters: NFKC
    corpus = preprocess_documents(texts, tokenizer=letters_and_digits, stopwords=set(),
                                  max_df=1.0, min_count=1)
    assert set(corpus.vocabulary) == {"upgrade", "sql2", "now", "and", "here"}
    assert corpus.pipeline.tokenizer == SPEC
    # It sees the text as read; its tokens are normalised (NFKC, lowercase), blanks dropped.
    split = preprocess_documents(texts, tokenizer=lambda text: text.split(" ") + [" "],
                                 stopwords=set(), max_df=1.0, min_count=1)
    assert set(split.vocabulary) == {"upgrade", "sql2", "now", "and", "py3", "here"}
    builtin = preprocess_documents(texts, stopwords=set(), max_df=1.0, min_count=1)
    assert "sql2" not in builtin.vocabulary and "sql" in builtin.vocabulary
    by_spec = preprocess_documents(texts, tokenizer=SPEC, stopwords=set(), max_df=1.0, min_count=1)
    assert np.array_equal(by_spec.vocabulary, corpus.vocabulary)


def _returns(value):
    return lambda text: value


@pytest.mark.parametrize("tokenizer, message", [
    ("no_such_module_here:words", "tokenizer 'no_such_module_here:words': cannot import"),
    (f"{__name__}:missing", f"tokenizer '{__name__}:missing': '{__name__}' has no 'missing'"),
    ("letters_and_digits", "expected MODULE:FUNCTION"),
    (f"{__name__}:SPEC", "is a str, not a function"),
])
def test_a_tokenizer_that_cannot_be_imported_is_named(tokenizer, message):
    with pytest.raises(InputError, match=re.escape(message)):
        preprocess_documents(["some text"], tokenizer=tokenizer)


@pytest.mark.parametrize("value, message", [
    ("a string", "returned str 'a string' for document #2, not a list of strings"),
    (["ok", 3], "returned list ['ok', 3] for document #2, not a list of strings"),
    (None, "returned NoneType None for document #2"),
    (["two\nlines"], "returned a token holding a line break for document #2"),
])
def test_a_tokenizer_returning_something_else_is_refused_naming_the_document(value, message):
    calls = iter([["fine"], value])
    with pytest.raises(InputError, match=re.escape(message)):
        preprocess_documents(["first", "second"], tokenizer=lambda text: next(calls))


def test_a_tokenizer_module_is_found_in_the_current_directory(tmp_path, monkeypatch):
    (tmp_path / "cwd_tokenizer_module.py").write_text("def words(text):\n    return text.split()\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.path", [p for p in __import__("sys").path if p not in ("", ".", str(tmp_path))])
    corpus = preprocess_documents(["a1 b2", "a1 c3"], tokenizer="cwd_tokenizer_module:words",
                                  stopwords=set(), max_df=1.0, min_count=1)
    assert set(corpus.vocabulary) == {"a1", "b2", "c3"}


def test_extra_stopwords_add_to_the_list_and_stopwords_replace_it(tmp_path):
    texts = ["the river and the boat", "the boat and the fish", "a fish in the river"]
    extra = tmp_path / "extra.txt"
    extra.write_text("boat\n")
    options = {"max_df": 1.0, "min_count": 1}
    added = preprocess_documents(texts, extra_stopwords=extra, **options)
    assert set(added.vocabulary) == {"river", "fish"}
    assert added.report.tokens_dropped[STOP_WORD] == 4 + 4 + 3  # the, and, boat; a, in, the
    replaced = preprocess_documents(texts, stopwords=extra, **options)
    assert {"the", "and", "river"} <= set(replaced.vocabulary) and "boat" not in replaced.vocabulary
    record = added.pipeline.as_dict()
    assert record["stopwords"] == "bundled" and record["extra_stopwords"] == ["boat"]
    assert replaced.pipeline.as_dict()["stopwords"] == ["boat"]


def _topic_documents(n: int, seed: int) -> list[str]:
    """Two topics, "bank" in every document (removed by max_df), "new york" always together,
    identifiers with digits that only a custom tokeniser keeps."""
    rng = np.random.default_rng(seed)
    topics = [["river", "boat", "fish", "water", "new york"],
              ["money", "loan", "credit", "rate", "sql2"]]
    return [" ".join(rng.choice(topics[i % 2], size=10).tolist()) + " bank, the bank."
            for i in range(n)]


@pytest.fixture
def trained(tmp_path):
    """A corpus directory preprocessed with a tokeniser and phrases, and a model fitted on it."""
    raw = tmp_path / "raw.jsonl"
    raw.write_text("".join(json.dumps({"text": text}) + "\n" for text in _topic_documents(80, 0)))
    directory, model = tmp_path / "corpus", tmp_path / "model.stm"
    assert main(["preprocess", str(raw), "-o", str(directory), "--tokenizer", SPEC,
                 "--phrases", "0.3", "--phrase-min-count", "3", "--max-df", "0.9",
                 "--min-count", "2", "--test-size", "0"]) == 0
    assert main(["fit", str(directory), "-k", "2", "--passes", "2", "--seed", "0",
                 "-o", str(model)]) == 0
    return directory, model


def test_the_corpus_directory_records_its_pipeline_and_the_model_keeps_it(trained):
    directory, model_path = trained
    record = json.loads((directory / "pipeline.json").read_text())
    assert record["tokenizer"] == SPEC and record["frequent_words"] == ["bank"]
    assert ["new", "york"] in record["phrases"]["bigrams"]
    vocabulary = set(read_corpus_dir(directory).vocabulary)
    assert {"sql2", "new_york"} <= vocabulary and not {"bank", "new", "york", "sql"} & vocabulary
    model = load_estimator(model_path)
    assert model.text_pipeline_ == read_pipeline(directory)
    assert load_model(model_path)[1]["text_pipeline"] == record


def test_a_model_streamed_from_the_corpus_directory_keeps_its_pipeline(trained, tmp_path,
                                                                      capsys):
    directory, _ = trained
    capsys.readouterr()
    assert main(["fit", str(directory), "-k", "2", "--passes", "1", "--seed", "0",
                 "-o", str(tmp_path / "streamed.stm")]) == 0
    assert "into memory" not in capsys.readouterr().err     # one pass: streamed, not loaded
    assert load_estimator(tmp_path / "streamed.stm").text_pipeline_ == read_pipeline(directory)


def test_transform_tokenises_raw_text_as_the_corpus_was(trained, tmp_path, capsys):
    directory, model_path = trained
    new = tmp_path / "new.jsonl"
    new.write_text(json.dumps({"text": "SQL2 loan in New York, bank bank"}) + "\n")
    model = load_estimator(model_path)
    corpus = load_corpus(new, vocabulary=model.vocabulary_, tokenizer=model.text_pipeline_)
    words = model.vocabulary_[corpus.counts.indices]
    assert sorted(words) == ["loan", "new_york", "sql2"]
    assert corpus.report.tokens_dropped == {FREQUENT: 2, STOP_WORD: 1}
    capsys.readouterr()
    assert main(["transform", str(model_path), str(new), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert np.allclose(result["doc_topic"], model.transform(corpus.counts))
    # Without the record: the built-in tokeniser splits "sql2" and never joins "new york".
    plain = load_corpus(new, vocabulary=model.vocabulary_)
    assert sorted(model.vocabulary_[plain.counts.indices]) == ["loan"]
    assert plain.report.tokens_dropped == {UNKNOWN: 6}


@pytest.mark.parametrize("command", [
    ["transform", "{model}", "{text}"],
    ["evaluate", "{model}", "{text}", "--metric", "coherence"],
    ["report", "{model}", "{text}", "-o", "{tmp}/report.html"],
    ["export", "{model}", "-o", "{tmp}/lda.json", "--format", "pyldavis", "--corpus", "{text}"],
])
def test_every_command_reading_raw_text_for_a_model_uses_its_record(trained, tmp_path, capsys,
                                                                   command):
    _, model_path = trained
    new = tmp_path / "new.jsonl"
    new.write_text("".join(json.dumps({"text": text}) + "\n" for text in _topic_documents(6, 2)))
    capsys.readouterr()
    names = {"model": model_path, "text": new, "tmp": tmp_path}
    assert main([part.format(**names) for part in command]) == 0
    reading = capsys.readouterr().err
    assert "12 tokens dropped (in more than max_df of the documents)" in reading


def _update(model_path, text_path, output, capsys) -> dict:
    capsys.readouterr()
    assert main(["update", str(model_path), str(text_path), "--grow-vocabulary",
                 "--min-word-count", "2", "-o", str(output), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_update_never_brings_back_words_removed_as_too_frequent(trained, tmp_path, capsys):
    _, model_path = trained
    new = tmp_path / "more.jsonl"
    new.write_text("".join(json.dumps({"text": f"harbor bank sql3 new york {text}"}) + "\n"
                           for text in _topic_documents(20, 1)))
    _update(model_path, new, tmp_path / "updated.stm", capsys)
    updated = load_estimator(tmp_path / "updated.stm")
    added = set(updated.vocabulary_[load_estimator(model_path).vocabulary_.size:])
    assert added == {"harbor", "sql3"}              # the custom tokeniser's "sql3" joins
    model = load_trainable(model_path).set_params(grow_vocabulary=True, min_word_count=2)
    assert train_stream(model, new, n_passes=1).report.tokens_dropped[FREQUENT] == 20 * 3
    assert np.array_equal(model.vocabulary_, updated.vocabulary_)
    assert updated.text_pipeline_ == load_estimator(model_path).text_pipeline_
    # A model file without the record behaves as before: "bank" joins the vocabulary.
    plain = load_estimator(model_path)
    plain.text_pipeline_ = None
    plain.save(tmp_path / "plain.stm")
    _update(tmp_path / "plain.stm", new, tmp_path / "plain_updated.stm", capsys)
    plain_added = set(load_estimator(tmp_path / "plain_updated.stm").vocabulary_[
        plain.vocabulary_.size:])
    assert {"bank", "harbor", "new", "york", "sql"} <= plain_added


def test_update_maps_raw_text_by_the_record_without_growth(trained, tmp_path, capsys):
    _, model_path = trained
    new = tmp_path / "more.jsonl"
    new.write_text(json.dumps({"text": "sql2 sql2 new york bank"}) + "\n")
    capsys.readouterr()
    assert main(["update", str(model_path), str(new), "-o", str(tmp_path / "u.stm"),
                 "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["tokens_kept"] == 3 and result["tokens_dropped"] == {FREQUENT: 1}
    stream = io.BytesIO(new.read_bytes())                  # a stream (stdin) is mapped alike
    report = train_stream(load_trainable(model_path), stream, n_passes=1).report
    assert report.tokens_kept == 3 and report.tokens_dropped == {FREQUENT: 1}


def test_partial_fit_text_records_its_tokenizer_and_keeps_using_it(tmp_path):
    model = OnlineLDA(n_topics=2, random_state=0, grow_vocabulary=True, min_word_count=1)
    model.partial_fit_text(["mp3 player cheap", "mp4 video player"], tokenizer=letters_and_digits)
    assert {"mp3", "mp4"} <= set(model.vocabulary_)
    model.save(tmp_path / "m.stm")
    loaded = OnlineLDA.load(tmp_path / "m.stm")
    assert loaded.text_pipeline_.tokenizer == SPEC
    loaded.partial_fit_text(["mp5 player"])
    assert "mp5" in loaded.vocabulary_


def test_a_malformed_record_in_a_model_file_is_a_model_file_error(tmp_path):
    model = OnlineLDA(n_topics=2, random_state=0).partial_fit_text(["river boat", "boat fish"])
    arrays, metadata = model.model_file_contents()
    save_model(tmp_path / "bad.stm", arrays, {**metadata, "text_pipeline": {"stopwords": 5}})
    with pytest.raises(ModelFileError, match="'stopwords' must be a list of words"):
        OnlineLDA.load(tmp_path / "bad.stm")


def test_a_whole_pipeline_as_tokenizer_needs_a_vocabulary():
    with pytest.raises(InputError, match="pass vocabulary= too"):
        load_corpus(["some text"], tokenizer=TextPipeline())
    mapped = load_corpus(["Some sql2 text"], vocabulary=["sql2", "text"],
                         tokenizer=letters_and_digits)   # a function alone: no stop words
    assert mapped.n_tokens == 2 and mapped.report.tokens_dropped == {UNKNOWN: 1}


def test_chinese_is_segmented_into_words():
    pytest.importorskip("jieba")
    texts = ["我爱北京天安门。", "北京的天气很好，天安门很大。", "我爱天气。"]
    corpus = preprocess_documents(texts, tokenizer="streamtopics.corpus.segmenters:chinese",
                                  stopwords=set(), max_df=1.0, min_count=2)
    assert {"北京", "天安门", "天气"} <= set(corpus.vocabulary)
    assert "我爱北京天安门" not in corpus.vocabulary and "。" not in corpus.vocabulary
