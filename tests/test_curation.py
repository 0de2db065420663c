"""Curating topics: names kept in every model file and shown where topics are (``curate``,
``topics``, ``transform --json``, the report), changing no number of the model and surviving an
update; merging and removing topics of an OnlineLDA through its statistics (exact mixtures of
the merged topics, the others untouched, a model that keeps learning); and each topic's
representative documents (``topics --docs``): the documents with the largest proportion of it,
by their id and their own raw text."""

from __future__ import annotations

import json

import numpy as np
import pytest

from streamtopics import GibbsLDA, OnlineLDA, generate_synthetic
from streamtopics.estimators.curation import merge_topics, remove_topics
from streamtopics.cli.main import main
from streamtopics.persistence import load_model

LETTERS = "abcdefghijklmnopqrstuvwxyz"
THEMES = ("fruit", "motor", "ocean")


@pytest.fixture(scope="module")
def stream(tmp_path_factory):
    """Raw JSON lines of 3 planted themes (30 words each, 8 per document), and a model file
    fitted on them."""
    folder = tmp_path_factory.mktemp("curation")
    rng = np.random.default_rng(2)
    words = {theme: [f"{theme}{LETTERS[i]}{LETTERS[j]}" for i in range(5) for j in range(6)]
             for theme in THEMES}
    lines = [{"id": f"doc-{d}", "text": "A note on " + ", ".join(
        rng.choice(words[THEMES[d % 3]], size=8)) + "."} for d in range(240)]
    source = folder / "docs.jsonl"
    source.write_text("".join(json.dumps(line) + "\n" for line in lines))
    model = folder / "m.stm"
    assert main(["fit", str(source), "-k", "3", "--passes", "5", "--seed", "0",
                 "-o", str(model)]) == 0
    return source, model, lines


def _run_json(capsys, argv) -> dict:
    capsys.readouterr()
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_names_are_kept_shown_and_change_no_number(stream, tmp_path, capsys):
    source, model, _ = stream
    names_file = tmp_path / "names.txt"
    names_file.write_text("# topic names\n2 third\n")
    named = tmp_path / "named.stm"
    result = _run_json(capsys, ["curate", str(model), "--names", "0=first,1=second",
                                "--names-file", str(names_file), "-o", str(named)])
    assert result["topic_names"] == ["first", "second", "third"]
    before, after = load_model(model), load_model(named)
    for name, array in before[0].items():
        np.testing.assert_array_equal(after[0][name], array)
    assert after[1]["library_version"] == before[1]["library_version"]
    topics = _run_json(capsys, ["topics", str(named)])["topics"]
    assert [t["name"] for t in topics] == ["first", "second", "third"]
    assert _run_json(capsys, ["transform", str(named), str(source)])["topic_names"] == \
        ["first", "second", "third"]
    page = tmp_path / "report.html"
    assert main(["report", str(named), str(source), "-o", str(page)]) == 0
    assert '<b class="name">second</b>' in page.read_text(encoding="utf-8")
    updated = tmp_path / "updated.stm"
    assert main(["update", str(named), str(source), "-o", str(updated)]) == 0
    assert OnlineLDA.load(updated).topic_names_ == ["first", "second", "third"]
    renamed = _run_json(capsys, ["curate", str(named), "--names", "1=other", "-o",
                                 str(tmp_path / "renamed.stm")])
    assert renamed["topic_names"] == ["first", "other", "third"]
    cleared = _run_json(capsys, ["curate", str(named), "--clear", "-o", str(tmp_path / "c.stm")])
    assert cleared["topic_names"] == ["", "", ""]


def test_bad_names_are_refused_with_what_is_wrong(stream, tmp_path, capsys):
    _, model, _ = stream
    out = str(tmp_path / "x.stm")
    for argv, message in [(["--names", "0=same,1=same"], "repeated"),
                          (["--names", "7=far"], "topic 7 does not exist"),
                          (["--names", "zero=x"], "expected INDEX=NAME"),
                          ([], "nothing to do")]:
        assert main(["curate", str(model), *argv, "-o", out]) == 2
        assert message in capsys.readouterr().err, message
    bad = tmp_path / "bad.txt"
    bad.write_text("0 first\nsecond\n")
    assert main(["curate", str(model), "--names-file", str(bad), "-o", out]) == 2
    assert "line 2" in capsys.readouterr().err
    assert main(["export", str(model), "-o", str(tmp_path / "plain.npz")]) == 0
    assert main(["curate", str(tmp_path / "plain.npz"), "--names", "0=a", "-o", out]) == 2
    assert "no metadata" in capsys.readouterr().err
    with pytest.raises(ValueError, match="repeated"):
        OnlineLDA.load(model).set_topic_names(["a", "a", ""])


def test_representative_documents_are_the_topics_own_by_id_and_raw_text(stream, capsys):
    source, model, lines = stream
    result = _run_json(capsys, ["topics", str(model), str(source), "--docs", "4"])
    fitted = OnlineLDA.load(model)
    for topic in result["topics"]:
        documents = topic["documents"]
        assert len(documents) == 4
        proportions = [d["proportion"] for d in documents]
        assert proportions == sorted(proportions, reverse=True) and proportions[0] > 0.8
        themes = set()
        for document in documents:
            line = lines[int(document["document"]) - 1]  # ids are the 1-based lines
            assert document["fields"]["id"] == line["id"] and document["text"] == line["text"]
            themes.add(next(t for t in THEMES if t in line["text"]))
        assert len(themes) == 1  # one planted theme per topic
        assert themes.pop() in "".join(fitted.top_words(3)[topic["topic"]])
    assert main(["topics", str(model), "--docs", "2"]) == 2
    assert "--docs needs CORPUS" in capsys.readouterr().err


def test_merging_sums_the_statistics_and_removing_drops_topics_exactly():
    """With the maximum likelihood M-step (eta = 0) a merged topic is exactly the mixture of
    its parts weighted by their token totals, its alpha their sum (Dirichlet aggregation); the
    other topics do not move; a removed topic is gone and the rest are unchanged; both models
    keep learning and keep their names."""
    corpus, _ = generate_synthetic(3, 60, 600, seed=1)
    model = OnlineLDA(4, n_passes=3, random_state=0, topic_word_prior=0.0).fit(corpus)
    model.set_topic_names({1: "one", 3: "three"})
    totals = model._require_fitted().stats.topic_totals
    merged = merge_topics(model, [[1, 3]])
    mixture = (totals[1] * model.components_[1] + totals[3] * model.components_[3]) / (
        totals[1] + totals[3])
    np.testing.assert_allclose(merged.components_[1], mixture, rtol=0, atol=1e-15)
    np.testing.assert_allclose(merged.components_[[0, 2]], model.components_[[0, 2]], rtol=1e-14)
    np.testing.assert_allclose(merged.doc_topic_prior_,
                               model.doc_topic_prior_[[0, 1, 2]] + [0, model.doc_topic_prior_[3], 0])
    assert merged.n_topics == 3 and merged.topic_names_ == ["", "one", ""]
    removed = remove_topics(model, [2])
    np.testing.assert_allclose(removed.components_, model.components_[[0, 1, 3]], rtol=1e-14)
    assert removed.topic_names_ == ["", "one", "three"]
    for curated in (merged, removed):
        curated.partial_fit(corpus.counts[:100])
        np.testing.assert_allclose(curated.transform(corpus.counts[:5]).sum(axis=1), 1.0)
    with pytest.raises(ValueError, match="disjoint"):
        merge_topics(model, [[1, 2], [2, 3]])
    with pytest.raises(ValueError, match="not all"):
        remove_topics(model, [0, 1, 2, 3])
    with pytest.raises(ValueError, match="OnlineLDA"):
        merge_topics(GibbsLDA(n_topics=3, n_passes=5, random_state=0).fit(corpus), [[0, 1]])


def test_curate_merges_a_split_theme_and_reports_the_held_out_change(stream, tmp_path, capsys):
    """4 topics on 3 planted themes split one theme in two; merging that pair from the CLI
    gives 3 topics, one per theme, and the held-out change is reported."""
    source, _, lines = stream
    four = tmp_path / "four.stm"
    assert main(["fit", str(source), "-k", "4", "--passes", "5", "--seed", "0",
                 "-o", str(four)]) == 0
    model = OnlineLDA.load(four)
    words = model.top_words(5)
    theme_of = [next(t for t in THEMES if sum(t in w for w in ws) >= 3) for ws in words]
    split = [k for k in range(4) if theme_of.count(theme_of[k]) == 2]
    assert len(split) == 2, theme_of
    result = _run_json(capsys, ["curate", str(four), "--merge", f"{split[0]},{split[1]}",
                                "--held-out", str(source), "--names", "0=first",
                                "-o", str(tmp_path / "three.stm")])
    assert result["n_topics"] == 3 and result["topic_names"][0] == "first"
    assert set(result["held_out"]) == {"before", "after"}
    merged = OnlineLDA.load(tmp_path / "three.stm")
    themes = [next(t for t in THEMES if sum(t in w for w in ws) >= 3)
              for ws in merged.top_words(5)]
    assert sorted(themes) == sorted(THEMES)
    assert main(["curate", str(four), "--merge", "0,1", "--remove", "1",
                 "-o", str(tmp_path / "x.stm")]) == 2
    assert "merged into another" in capsys.readouterr().err


def test_seeded_topics_are_named_after_their_seed_sets(tmp_path, capsys):
    """Seed words name their topics: ``topic_names_``, the model file and ``topics`` show the
    seed sets' names; names given later take precedence."""
    corpus, truth = generate_synthetic(4, 80, 400, seed=0)
    top = np.argsort(-truth.beta, axis=1)[:, :5]
    seeds = {"first": [f"w{w}" for w in top[0]], "second": [f"w{w}" for w in top[1]]}
    model = OnlineLDA(4, n_passes=1, random_state=0, seed_words=seeds).fit(corpus)
    assert model.topic_names_ == ["first", "second", "", ""]
    model.save(tmp_path / "seeded.stm")
    shown = _run_json(capsys, ["topics", str(tmp_path / "seeded.stm")])["topics"]
    assert [t["name"] for t in shown] == ["first", "second", "", ""]
    assert model.set_topic_names({1: "renamed"}).topic_names_ == ["first", "renamed", "", ""]
