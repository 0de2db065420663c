"""The HTML report: its geometry (Jensen-Shannon distances, classical MDS), its contents read
back with html.parser against the model, the ``report`` command, and (optional) a headless
browser running the page's script."""

import json
import shutil
import subprocess
from html.parser import HTMLParser

import numpy as np
import pytest
from scipy.spatial.distance import jensenshannon, pdist, squareform

from streamtopics import persistence
from streamtopics.cli.main import main
from streamtopics.cli.report import spread_rows
from streamtopics.corpus import Corpus, write_corpus_dir
from streamtopics.estimators import CVB0LDA
from streamtopics.evaluation import cv_coherence, npmi_coherence, umass_coherence
from streamtopics.reporting.html import build_report, render_html
from streamtopics.reporting.topic_map import classical_mds, jensen_shannon_distances


class Page(HTMLParser):
    """Elements with their attributes and text, enough to read the report back."""

    def __init__(self, text):
        super().__init__()
        self.elements, self._open = [], []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        element = {"tag": tag, "attrs": dict(attrs), "text": "", "children": []}
        if self._open:
            self._open[-1]["children"].append(element)
        self.elements.append(element)
        if tag not in ("meta", "br", "rect", "line", "polyline", "img"):
            self._open.append(element)

    def handle_endtag(self, tag):
        while self._open:
            if self._open.pop()["tag"] == tag:
                break

    def handle_data(self, data):
        for element in self._open:
            element["text"] += data

    def find(self, tag, cls=None):
        return [e for e in self.elements if e["tag"] == tag and
                (cls is None or cls in e["attrs"].get("class", "").split())]


def descendants(element, tag, cls=None):
    found = []
    for child in element["children"]:
        if child["tag"] == tag and (cls is None or cls in child["attrs"].get("class", "").split()):
            found.append(child)
        found.extend(descendants(child, tag, cls))
    return found


# --- geometry ----------------------------------------------------------------------------------
def test_classical_mds_recovers_planar_points_up_to_rotation():
    points = np.random.default_rng(0).normal(size=(9, 2))
    distances = squareform(pdist(points))
    mapped = classical_mds(distances)
    np.testing.assert_allclose(squareform(pdist(mapped)), distances, atol=1e-10)


def test_map_circles_never_overlap_and_stay_inside_the_map():
    """40 topics, several of them nearly the same (MDS puts them on one spot): the circles are
    nudged apart and kept inside the 480 x 360 map, the largest still the most prevalent."""
    rng = np.random.default_rng(0)
    base = rng.dirichlet(np.full(200, 0.1), size=10)
    beta = np.vstack([base, np.repeat(base, 3, axis=0) + 1e-6])  # each topic 4 times
    beta /= beta.sum(axis=1, keepdims=True)
    alpha = rng.uniform(0.05, 1.0, size=40)
    report = build_report(beta, alpha, np.asarray([f"w{i}" for i in range(200)]))
    circles = Page(render_html(report)).find("circle", "topic")
    assert len(circles) == 40
    x, y, r = (np.array([float(c["attrs"][key]) for c in circles]) for key in ("cx", "cy", "r"))
    gaps = np.hypot(x[:, None] - x[None], y[:, None] - y[None]) - (r[:, None] + r[None])
    np.fill_diagonal(gaps, np.inf)
    assert gaps.min() > 0, gaps.min()
    assert np.all(x - r >= -1e-9) and np.all(x + r <= 480 + 1e-9)
    assert np.all(y - r >= -1e-9) and np.all(y + r <= 360 + 1e-9)


def test_jensen_shannon_distances_are_scipys_in_bits_zero_and_one_at_the_extremes():
    rng = np.random.default_rng(1)
    beta = rng.dirichlet(np.full(20, 0.3), size=5)
    beta[:, :3] = 0.0  # zeros in both distributions: 0 log 0 = 0
    beta[3] = beta[0]
    beta[4] = 0.0
    beta[4, 0] = 1.0  # disjoint from every other topic
    distances = jensen_shannon_distances(beta)
    expected = np.array([[jensenshannon(p / p.sum(), q / q.sum(), base=2) for q in beta] for p in beta])
    np.testing.assert_allclose(distances, expected, atol=1e-7)
    assert distances[0, 3] == 0.0 and np.allclose(distances[4, :4], 1.0)


# --- the page read back ------------------------------------------------------------------------
BLOCK = 8  # words per planted topic


def planted_corpus(n_topics=3, documents_per_topic=12, seed=0):
    """Pure documents of disjoint word blocks (topic t owns words t*BLOCK .. t*BLOCK+7), then
    mixed documents; words named like 'sun3' so that blocks are readable."""
    rng = np.random.default_rng(seed)
    names = ["sun", "sea", "ink"]
    vocabulary = [f"{names[t]}{i}" for t in range(n_topics) for i in range(BLOCK)]
    documents, owners = [], []
    for t in range(n_topics):
        for _ in range(documents_per_topic):
            documents.append(t * BLOCK + rng.integers(0, BLOCK, size=30))
            owners.append(t)
    for _ in range(6):
        documents.append(rng.integers(0, n_topics * BLOCK, size=30))
        owners.append(-1)
    return Corpus.from_token_lists(documents, vocabulary), np.array(owners)


def test_page_shows_the_topics_coherence_and_examples_of_the_model():
    corpus, owners = planted_corpus()
    model = CVB0LDA(n_topics=3, doc_topic_prior=0.1, topic_word_prior=0.01, n_passes=60, random_state=0).fit(corpus)
    theta = model.transform(corpus)
    report = build_report(model.components_, model.doc_topic_prior_, model.vocabulary_,
                          corpus=corpus, doc_topic=theta, n_words=6, n_examples=4,
                          title="planted <3", facts={"estimator": "CVB0LDA"})
    page = Page(render_html(report))
    assert page.find("title")[0]["text"] == "planted <3"
    rows = page.find("tr", "topic")
    assert len(rows) == 3 and not page.find("circle", "point")
    npmi = npmi_coherence(model.components_, corpus, 6)
    umass = umass_coherence(model.components_, corpus, 6)
    cv = cv_coherence(model.components_, corpus, 6)
    prevalence = corpus.document_lengths @ theta / corpus.n_tokens
    for k, (row, words) in enumerate(zip(rows, model.top_words(6))):
        assert row["attrs"]["data-topic"] == str(k)
        spans = descendants(row, "span", "word")
        assert [s["text"] for s in spans] == words
        weights = [float(s["attrs"]["data-weight"]) for s in spans]
        ids = [list(model.vocabulary_).index(w) for w in words]
        np.testing.assert_allclose(weights, model.components_[k, ids])
        assert float(row["attrs"]["data-alpha"]) == pytest.approx(model.doc_topic_prior_[k])
        assert float(row["attrs"]["data-npmi"]) == pytest.approx(npmi[k])
        assert float(row["attrs"]["data-umass"]) == pytest.approx(umass[k])
        assert float(row["attrs"]["data-cv"]) == pytest.approx(cv[k])
        assert float(row["attrs"]["data-prevalence"]) == pytest.approx(prevalence[k])
        # the planted block of this topic: its top words all share one name
        block = {w[:3] for w in words}
        assert len(block) == 1
        owner = ["sun", "sea", "ink"].index(block.pop())
        cards = [a for a in page.find("article", "topic") if a["attrs"]["data-topic"] == str(k)]
        examples = descendants(cards[0], "blockquote", "example")
        assert len(examples) == 4
        for example in examples:
            document = int(example["attrs"]["data-document"]) - 1  # 1-based ids
            assert owners[document] == owner  # a pure document of this topic's block
            assert float(example["attrs"]["data-proportion"]) == pytest.approx(theta[document, k])
    # planted topics are disjoint: every map distance is the largest possible, 1 (bits)
    circles = page.find("circle", "topic")
    assert sorted(c["attrs"]["data-topic"] for c in circles) == ["0", "1", "2"]
    xy = np.array([[float(c["attrs"]["cx"]), float(c["attrs"]["cy"])] for c in circles])
    sides = pdist(xy)
    assert sides.max() / sides.min() < 1.1  # an equilateral triangle, up to near-zero leakage


def test_words_are_escaped_and_the_page_loads_nothing_from_outside():
    beta = np.array([[0.7, 0.2, 0.1], [0.1, 0.1, 0.8]])
    vocabulary = ["<script>alert(1)</script>", "a&b", 'quote"d']
    text = render_html(build_report(beta, np.array([0.5, 0.5]), vocabulary))
    page = Page(text)
    assert len(page.find("script")) == 1  # only the page's own
    assert [s["text"] for s in page.find("span", "word")][:3] == vocabulary
    for tag, attribute in (("script", "src"), ("link", "href"), ("img", "src")):
        assert all(attribute not in e["attrs"] for e in page.find(tag))
    assert "http://" not in text and "https://" not in text
    # without a corpus: prevalence from alpha, no coherence, no examples
    row = page.find("tr", "topic")[0]
    assert row["attrs"]["data-npmi"] == "" and float(row["attrs"]["data-prevalence"]) == 0.5
    assert not page.find("blockquote")


# --- the command -------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def fitted(tmp_path_factory):
    directory = tmp_path_factory.mktemp("report")
    corpus, owners = planted_corpus()
    write_corpus_dir(corpus, directory / "corpus")
    model = CVB0LDA(n_topics=3, n_passes=60, random_state=0).fit(corpus)
    model.save(directory / "model.stm")
    return directory, model, corpus


def test_report_command_writes_the_page_with_the_training_curve(fitted, capsys):
    directory, model, corpus = fitted
    records = [{"documents_seen": 100 * i, "steps": i, "log_perplexity_per_document": 90.0 - i,
                "log_perplexity_per_document_se": 0.5} for i in range(1, 5)]
    records.append({"documents_seen": 500, "log_perplexity_per_document": None})
    (directory / "model.stm.eval.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    out = directory / "report.html"
    assert main(["report", str(directory / "model.stm"), str(directory / "corpus"), "-o",
                 str(out), "--words", "5", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result == {"output": str(out), "n_topics": 3, "coherence": True, "curve_points": 5}
    page = Page(out.read_text(encoding="utf-8"))
    rows = page.find("tr", "topic")
    assert [[s["text"] for s in descendants(r, "span", "word")] for r in rows] == model.top_words(5)
    points = page.find("circle", "point")
    assert [(int(p["attrs"]["data-documents"]), float(p["attrs"]["data-value"])) for p in points] \
        == [(100 * i, 90.0 - i) for i in range(1, 5)]  # the null record is not drawn
    # example ids are the corpus' own (its meta file's 1-based "doc")
    ids = {int(b["attrs"]["data-document"]) for b in page.find("blockquote", "example")}
    assert ids and max(ids) <= corpus.n_documents and min(ids) >= 1


def test_max_docs_spreads_the_documents_over_the_corpus_and_says_so(fitted, capsys):
    directory, _, corpus = fitted
    out = directory / "spread.html"
    assert main(["report", str(directory / "model.stm"), str(directory / "corpus"), "-o",
                 str(out), "--max-docs", "10"]) == 0
    assert f"from 10 of the {corpus.n_documents:,} documents, spread evenly" in \
        capsys.readouterr().err
    ids = {int(b["attrs"]["data-document"])
           for b in Page(out.read_text(encoding="utf-8")).find("blockquote", "example")}
    spread = set((spread_rows(corpus.n_documents, 10) + 1).tolist())  # 1-based ids
    assert ids <= spread and max(spread) == corpus.n_documents  # the last document is among them


def test_examples_of_raw_text_show_their_text_and_id(tmp_path, capsys):
    """A raw JSON-lines corpus: the examples quote each document's own text (case,
    punctuation and stop words kept) beside its id, not its bag of words."""
    rng = np.random.default_rng(1)
    letters = "abcdefghijklmnopqrstuvwxyz"
    words = [[f"{prefix}{letters[i]}{letters[j]}" for i in range(5) for j in range(6)]
             for prefix in ("fruit", "motor")]  # 30 words a topic: each in < 20% of documents
    lines = []
    for d in range(120):
        chosen = rng.choice(words[d % 2], size=8)
        lines.append({"id": f"doc-{d}", "text": "The " + ", ".join(chosen).upper() + "!"})
    source = tmp_path / "docs.jsonl"
    source.write_text("".join(json.dumps(line) + "\n" for line in lines))
    assert main(["fit", str(source), "-k", "2", "--passes", "3", "--seed", "0",
                 "-o", str(tmp_path / "m.stm")]) == 0
    out = tmp_path / "raw.html"
    assert main(["report", str(tmp_path / "m.stm"), str(source), "-o", str(out)]) == 0
    capsys.readouterr()
    quotes = Page(out.read_text(encoding="utf-8")).find("blockquote", "example")
    assert quotes
    for quote in quotes:
        d = int(quote["attrs"]["data-document"]) - 1  # the 1-based line
        assert f"id doc-{d}" in quote["text"] and lines[d]["text"] in quote["text"]


def test_report_of_a_plain_archive_uses_cvb0_proportions(fitted, capsys):
    directory, model, corpus = fitted
    plain = directory / "plain.npz"
    np.savez(plain, beta=model.components_, alpha=model.doc_topic_prior_,
             vocabulary=np.asarray(model.vocabulary_))
    out = directory / "plain.html"
    assert main(["report", str(plain), str(directory / "corpus"), "-o", str(out)]) == 0
    page = Page(out.read_text(encoding="utf-8"))
    assert len(page.find("blockquote", "example")) == 9
    assert not page.find("circle", "point")  # no plain.npz.eval.jsonl


def test_report_errors_name_the_file_and_line(fitted, capsys):
    directory, _, _ = fitted
    bad_curve = directory / "bad.jsonl"
    bad_curve.write_text('{"documents_seen": 1, "log_perplexity_per_document": 3}\n{"oops": 1}\n')
    assert main(["report", str(directory / "model.stm"), "-o", str(directory / "x.html"),
                 "--curve", str(bad_curve)]) == 2
    assert "bad.jsonl, line 2" in capsys.readouterr().err
    assert main(["report", str(directory / "model.stm"), "-o",
                 str(directory / "missing" / "x.html")]) == 2
    assert "missing: the output's directory does not exist" in capsys.readouterr().err


# --- a real browser (optional) -----------------------------------------------------------------
BROWSER = next((shutil.which(name) for name in ("chromium", "chromium-browser", "google-chrome")
                if shutil.which(name)), None)


@pytest.mark.skipif(BROWSER is None, reason="no headless browser (chromium) installed")
def test_page_script_runs_and_sorts_in_a_headless_browser(tmp_path):
    """Chromium loads the file with the network off, runs the script (it marks the page ready)
    and sorts the topics table by NPMI from the URL fragment."""
    corpus, _ = planted_corpus(documents_per_topic=6)
    model = CVB0LDA(n_topics=3, n_passes=40, random_state=0).fit(corpus)
    theta = model.transform(corpus)
    beta = np.vstack([model.components_, np.full(corpus.n_words, 1.0 / corpus.n_words)])
    alpha = np.append(model.doc_topic_prior_, 0.1)
    theta = np.hstack([theta * 0.9, np.full((corpus.n_documents, 1), 0.1)])
    report = build_report(beta, alpha, corpus.vocabulary, corpus=corpus, doc_topic=theta)
    path = tmp_path / "report.html"
    path.write_text(render_html(report), encoding="utf-8")
    completed = subprocess.run(
        [BROWSER, "--headless", "--no-sandbox", "--disable-gpu", "--proxy-server=127.0.0.1:9",
         "--dump-dom", path.as_uri() + "#sort=npmi"], capture_output=True, text=True, timeout=60)
    assert completed.returncode == 0, completed.stderr[-2000:]
    page = Page(completed.stdout)
    html_element = page.find("html")[0]
    assert html_element["attrs"].get("data-ready") == "yes"
    assert html_element["attrs"].get("data-sorted") == "npmi"
    order = [int(r["attrs"]["data-topic"]) for r in page.find("tr", "topic")]
    npmi = [t.npmi for t in report.topics]
    assert order == sorted(range(4), key=lambda k: (-npmi[k], k))
    assert order != list(range(4))  # the flat topic (lowest NPMI) moved
