"""Dupuy's thesis, chapter 4: the low-rank DPP on synthetic data (Figures 24, 25, 27, 28) and
summaries of real documents (Tables 9-11).

    python reproductions/dpp_chapter4.py synthetic --out reproductions/results/dpp_chapter4
    python reproductions/dpp_chapter4.py real --out reproductions/results/dpp_chapter4

``synthetic``: the item set {1..V} (V = 100, r* = 5, alpha = 1e-5) and the exponential set
{0,1}^10 (r* = 2, gamma = 1/V, pi = 1/2), exact samples (Kulesza & Taskar, Algorithm 1), a shared
theta or one theta per set; for each rank r and penalty lambda: the test log-likelihood gap to the
generating model (shared theta only: then it estimates a KL divergence), the subspace distance D,
its row-sign-matched version, the chance level, and the Picard iteration on the item set.
``real``: finefoods and newsarticles raw text, V = 500 words, r = 10: held-out log-likelihood
against A = gamma I and a shared theta, top words per column of U, nearest words by row cosine,
summaries against the lead, random and closest-to-mean baselines with diversity and coverage.
Both write JSON and markdown under --out; ``synthetic`` also draws docs/figures/dpp_synthetic.png.
"""

from __future__ import annotations

import argparse
import gzip
import json
import time
from pathlib import Path

import numpy as np

from streamtopics.dpp.learning import picard, set_log_likelihood
from streamtopics.dpp.likelihood import Observations, evaluate
from streamtopics.dpp.metrics import chance_distance, sign_matched_distance, subspace_distance
from streamtopics.dpp.model import LowRankDPP
from streamtopics.dpp.summaries import BASELINES, coverage, marked_text, mean_jaccard
from streamtopics.dpp.synthetic import generate
from streamtopics.dpp.text import SentencePreprocessor

SETTINGS = {"items": {"n_words": 100, "true_rank": 5, "ranks": [2, 5, 10, 20, 30, 50]},
            "binary": {"n_words": 10, "true_rank": 2, "ranks": [1, 2, 3, 4, 6, 8]}}


def synthetic_cells(kind: str, per_set: bool, seed: int, penalties, n_train: int, n_test: int,
                    theta_scale: float, ranks=None) -> list[dict]:
    setting = SETTINGS[kind]
    V = setting["n_words"]
    data = generate(kind, V, setting["true_rank"], n_train + n_test, per_set, seed=seed,
                    theta_scale=theta_scale)
    train, test = data.as_observed(range(n_train)), data.as_observed(range(n_train, n_train + n_test))
    test_theta = data.theta[n_train:] if per_set else data.theta
    true_ll = evaluate(Observations(test, data.base, data.gamma, data.alpha), data.U, test_theta,
                       gradients=False).per_set.mean()
    common = {"ground": kind, "theta": "per-set" if per_set else "shared", "seed": seed,
              "mean_set_size": float(np.mean([len(s) for s in data.sets]))}
    cells = []
    for rank in ranks or setting["ranks"]:
        for penalty in penalties:
            start = time.perf_counter()
            model = LowRankDPP(ground=kind, rank=rank, alpha=data.alpha, gamma=data.gamma,
                               penalty=penalty, theta="per-document" if per_set else "shared",
                               init_scale=1 / np.sqrt(V), random_state=seed)
            model.fit(train, V, pi=data.base.pi)
            weight = np.linalg.norm(model.embeddings_, axis=0) * np.sqrt(model.theta_.mean(axis=0))
            cell = {**common, "method": "low-rank", "rank": rank, "penalty": penalty,
                    "seconds": time.perf_counter() - start,
                    "distance": subspace_distance(model.embeddings_, data.U),
                    "distance_sign_matched": sign_matched_distance(model.embeddings_, data.U),
                    "chance": chance_distance(rank, V),
                    "thesis_chance": 1 - rank / V,
                    "active_columns": int((weight > 1e-3 * weight.max()).sum())}
            if not per_set:
                cell["ll_gap"] = float(true_ll - model.log_likelihood(test).mean())
            cells.append(cell)
    if kind == "items" and not per_set:
        start = time.perf_counter()
        sets = [np.asarray(s) for s in data.sets]
        L, history = picard([s for s in sets[:n_train] if s.size], V, n_iter=100)
        cells.append({**common, "method": "picard", "rank": V, "penalty": 0.0,
                      "seconds": time.perf_counter() - start,
                      "ll_gap": float(true_ll - set_log_likelihood(L, sets[n_train:]).mean()),
                      "train_history": history})
    return cells


def summarise_synthetic(cells: list[dict]) -> str:
    lines = ["| ground | theta | method | r | lambda | LL gap (nats/set) | D | D sign-matched | chance sqrt(1-r/V) | thesis chance 1-r/V | active columns |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    keys = sorted({(c["ground"], c["theta"], c["method"], c["rank"], c["penalty"]) for c in cells},
                  key=lambda k: (k[0], k[1], k[2] == "picard", k[3], k[4]))

    def stat(group, name):
        values = [c[name] for c in group if name in c]
        if not values:
            return "-"
        return f"{np.mean(values):.3f} ± {np.std(values):.3f}" if len(values) > 1 else f"{values[0]:.3f}"

    for key in keys:
        group = [c for c in cells if (c["ground"], c["theta"], c["method"], c["rank"], c["penalty"]) == key]
        lines.append(f"| {key[0]} | {key[1]} | {key[2]} | {key[3]} | {key[4]:g} | {stat(group, 'll_gap')} | "
                     f"{stat(group, 'distance')} | {stat(group, 'distance_sign_matched')} | "
                     f"{stat(group, 'chance')} | {stat(group, 'thesis_chance')} | {stat(group, 'active_columns')} |")
    return "\n".join(lines)


def plot_synthetic(cells: list[dict], path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    panels = [("items", "shared", "ll_gap"), ("items", "shared", "distance_sign_matched"),
              ("items", "per-set", "distance_sign_matched"), ("binary", "shared", "ll_gap"),
              ("binary", "shared", "distance"), ("binary", "per-set", "distance")]
    figure, axes = plt.subplots(2, 3, figsize=(13, 7))
    for axis, (ground, theta, metric) in zip(axes.ravel(), panels):
        chosen = [c for c in cells if c["ground"] == ground and c["theta"] == theta and c["method"] == "low-rank"]
        ranks = sorted({c["rank"] for c in chosen})
        for penalty in sorted({c["penalty"] for c in chosen}):
            values = [[c[metric] for c in chosen if c["rank"] == r and c["penalty"] == penalty] for r in ranks]
            mean, std = np.array([np.mean(v) for v in values]), np.array([np.std(v) for v in values])
            axis.plot(ranks, mean, marker="o", label=f"lambda = {penalty:g}")
            axis.fill_between(ranks, mean - std, mean + std, alpha=0.2)
        if metric.startswith("distance"):
            V = SETTINGS[ground]["n_words"]
            axis.plot(ranks, [chance_distance(r, V) for r in ranks], "k--", label="chance")
        picard_gap = [c["ll_gap"] for c in cells if c["method"] == "picard"]
        if metric == "ll_gap" and ground == "items" and picard_gap:
            axis.axhline(np.mean(picard_gap), color="r", linestyle=":", label="Picard")
        axis.set_xlabel("rank r")
        axis.set_title(f"{ground}, {theta} theta: {metric.replace('_', ' ')}")
        axis.legend(fontsize=7)
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=110)


def run_synthetic(args) -> None:
    cells = []
    for kind in ("items", "binary"):
        for per_set in (False, True):
            for seed in range(args.datasets):
                cells += synthetic_cells(kind, per_set, seed, args.penalties, args.n_train,
                                         args.n_test, args.theta_scale)
                print(f"{kind} per_set={per_set} seed={seed} done", flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "synthetic.json").write_text(json.dumps(cells, indent=1))
    (args.out / "synthetic.md").write_text(summarise_synthetic(cells) + "\n")
    plot_synthetic(cells, Path(args.figure))
    print(summarise_synthetic(cells))


def real_corpus(name: str, args) -> dict:
    texts = [json.loads(line)["text"] for line in gzip.open(args.corpora / name / "raw.jsonl.gz", "rt")]
    preprocessor = SentencePreprocessor(args.vocab_size).fit(texts)
    documents = preprocessor.transform(texts, range(len(texts)))
    rng = np.random.default_rng(0)
    order = rng.permutation(len(documents))
    test_docs = [documents[i] for i in order[:args.n_test_docs]]
    train_docs = [documents[i] for i in order[args.n_test_docs:]][:args.n_train_docs]
    train, test = [d.rows for d in train_docs], [d.rows for d in test_docs]
    vocabulary = preprocessor.vocabulary_
    result = {"corpus": name, "documents": len(documents), "train": len(train), "test": len(test),
              "sentences_per_document": float(np.mean([len(d.rows) for d in documents])),
              "words_per_sentence": float(np.mean([len(r) for d in documents for r in d.rows]))}
    models = {}
    for label, theta in (("per-document", "per-document"), ("shared", "shared")):
        start = time.perf_counter()
        model = LowRankDPP(rank=args.rank, penalty=args.penalty, theta=theta, max_outer=args.max_outer,
                           init_scale=1 / np.sqrt(args.rank), random_state=0).fit(train, len(vocabulary))
        models[label] = model
        result[f"test_ll_{label}"] = float(model.log_likelihood(test).mean())
        result[f"seconds_{label}"] = time.perf_counter() - start
    obs = models["shared"].observations(test)
    result["test_ll_gamma_identity"] = float(evaluate(obs, np.zeros((len(vocabulary), 1)),
                                                      np.zeros((1, 1)), gradients=False).per_set.mean())
    model = models["per-document"]
    U = model.embeddings_
    columns = np.argsort(-np.linalg.norm(U, axis=0))[:4]
    result["columns"] = [{"column": int(j),
                          "top": [(vocabulary[w], round(float(U[w, j]), 3)) for w in np.argsort(-U[:, j])[:10]],
                          "bottom": [(vocabulary[w], round(float(U[w, j]), 3)) for w in np.argsort(U[:, j])[:10]]}
                         for j in columns]
    probes = [w for w in args.probe_words.get(name, []) if w in vocabulary]
    result["nearest"] = {w: [(vocabulary[i], round(c, 3)) for i, c in model.word_similarity(vocabulary.index(w), 8)]
                         for w in probes}
    length = args.summary_length[name]
    long_docs = [d for d in test_docs if len(d.rows) >= 2 * length]
    thetas = model.fit_theta([d.rows for d in long_docs])
    measures = {method: {"jaccard": [], "coverage": []} for method in ["dpp", "dpp-no-quality", *BASELINES]}
    examples = []
    for document, theta in zip(long_docs, thetas):
        choices = {"dpp": model.summarize(document.rows, length, theta),
                   "dpp-no-quality": model.summarize(document.rows, length, theta, quality=False)}
        for method, baseline in BASELINES.items():
            choices[method] = baseline(document, length, rng)
        for method, chosen in choices.items():
            measures[method]["jaccard"].append(mean_jaccard(document, chosen))
            measures[method]["coverage"].append(coverage(document, chosen))
        if len(examples) < args.examples and len(document.sentences) <= 14:
            examples.append({method: marked_text(document, choices[method], "**[", "]**")
                             for method in ("dpp", "dpp-no-quality", "lead", "closest-to-mean")})
    result["summary_length"] = length
    result["summarised_documents"] = len(long_docs)
    result["proxies"] = {m: {k: float(np.mean(v)) for k, v in values.items()} for m, values in measures.items()}
    result["examples"] = examples
    return result


def summarise_real(results: list[dict]) -> str:
    lines = []
    for r in results:
        lines += [f"### {r['corpus']}", "",
                  f"{r['documents']} documents with 2+ distinct sentences ({r['sentences_per_document']:.1f} "
                  f"sentences, {r['words_per_sentence']:.2f} words each); train {r['train']}, test {r['test']}.", "",
                  "| model | held-out log-likelihood per document (nats) |", "|---|---|",
                  f"| A = gamma I (r = 0) | {r['test_ll_gamma_identity']:.2f} |",
                  f"| shared theta, r = 10 | {r['test_ll_shared']:.2f} |",
                  f"| per-document theta, r = 10 | {r['test_ll_per-document']:.2f} |", "",
                  f"Summaries of l = {r['summary_length']} sentences on {r['summarised_documents']} test documents "
                  f"with at least {2 * r['summary_length']} sentences:", "",
                  "| method | mean pairwise Jaccard (lower = more diverse) | coverage of the document's words |",
                  "|---|---|---|"]
        lines += [f"| {m} | {v['jaccard']:.3f} | {v['coverage']:.3f} |" for m, v in r["proxies"].items()]
        lines += ["", "Columns of U (largest norm first), top and bottom words:", ""]
        for c in r["columns"]:
            lines.append(f"- column {c['column']}: + " + ", ".join(f"{w} {v:.2f}" for w, v in c["top"])
                         + " / − " + ", ".join(f"{w} {v:.2f}" for w, v in c["bottom"]))
        lines += ["", "Nearest words by cosine of the rows of U:", ""]
        for word, near in r["nearest"].items():
            lines.append(f"- {word}: " + ", ".join(f"{w} {c:.2f}" for w, c in near))
        lines += ["", "Example summaries (chosen sentences in bold brackets):", ""]
        for number, example in enumerate(r["examples"], 1):
            for method, text in example.items():
                lines.append(f"{number}. *{method}*: {text}")
            lines.append("")
    return "\n".join(lines)


def run_real(args) -> None:
    results = []
    for name in args.real_corpora:
        results.append(real_corpus(name, args))
        print(f"{name} done", flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "real.json").write_text(json.dumps(results, indent=1))
    (args.out / "real.md").write_text(summarise_real(results) + "\n")
    print(summarise_real(results))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("part", choices=("synthetic", "real"))
    parser.add_argument("--out", type=Path, default=Path("reproductions/results/dpp_chapter4"))
    parser.add_argument("--figure", default="docs/figures/dpp_synthetic.png")
    parser.add_argument("--datasets", type=int, default=3, help="data sets per setting (thesis: 10)")
    parser.add_argument("--n-train", type=int, default=2000)
    parser.add_argument("--n-test", type=int, default=1000)
    parser.add_argument("--theta-scale", type=float, default=5.0)
    parser.add_argument("--penalties", type=float, nargs="+", default=[0.0, 1e-2])
    parser.add_argument("--corpora", type=Path, default=Path("/work/shared/corpora"))
    parser.add_argument("--real-corpora", nargs="+", default=["finefoods", "newsarticles"])
    parser.add_argument("--vocab-size", type=int, default=500)
    parser.add_argument("--rank", type=int, default=10)
    parser.add_argument("--penalty", type=float, default=1e-2)
    parser.add_argument("--max-outer", type=int, default=5)
    parser.add_argument("--n-train-docs", type=int, default=3000)
    parser.add_argument("--n-test-docs", type=int, default=500)
    parser.add_argument("--examples", type=int, default=2)
    args = parser.parse_args()
    args.summary_length = {"finefoods": 3, "newsarticles": 5}
    args.probe_words = {"finefoods": ["good", "coffee", "price", "taste", "dog"],
                        "newsarticles": ["trump", "police", "game", "market", "china"]}
    run_synthetic(args) if args.part == "synthetic" else run_real(args)


if __name__ == "__main__":
    main()
