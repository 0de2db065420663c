"""Reproduce the headline of Dupuy & Bach (2016, section 5; thesis 3.5): G-OEM against the
online baselines, all presets of the same engine, on a synthetic corpus and two real ones.

Protocol of the paper (section 5.1): minibatches of 100 documents, P = 20 local passes,
rho_i = 1/sqrt(i) (kappa = 0.5, tau0 = 0) where the step is free and 1/i for the incremental
methods, one pass over the training documents, the same initialisation (beta_0, alpha_0) for
every method given a seed, held-out log-perplexity per document (-mean log p(w_d), the
left-to-right algorithm of Wallach et al. 2009 with R particles on E_q[beta] for the Bayesian
methods), median and spread over seeds. Methods: G-OEM, V-OEM++, OLDA, SVB, SPLDA, SGS and
VarGibbs (`docs/methods.md`). As in the paper, SGS keeps alpha fixed at C_alpha, the mean of
G-OEM's final alpha on the same data and seed; VarGibbs, whose alpha is fixed too, uses the same
C_alpha (the paper does not say which constant it used). Bayesian methods use eta = 1/K and D =
the number of training documents.

Datasets: the paper's synthetic corpus (K* = 10 topics over V = 1000 words, document lengths
Poisson(60); `generate_synthetic` draws the topics from a Dirichlet where the paper took them
from OLDA on IMDB) with K = 10, and ../shared/corpora/debian and newsarticles with K = 32 and
128 (their own train/test splits). ``--test-documents`` scores a fixed subset (the first n test
documents) and ``--max-tokens`` scores only the first tokens of each test document, to bound
the left-to-right cost (quadratic in document length); both are recorded in the results. Test
tokens of words that never occur in the training documents are dropped (a frequentist model
gives them probability 0: debian has 653 such test tokens in 12 documents, newsarticles 158 in
10); the counts are recorded. For the synthetic corpus the true model's score is reported too.

Usage: python reproductions/baselines.py [--datasets synthetic debian newsarticles] [--seeds 3]
       [--synthetic-train 100000] [--synthetic-test 5000] [--test-documents 1000]
       [--max-tokens 100] [--particles 20] [--threads 2] [--output reproductions/results]
Writes baselines.json (after every run, so a stopped run keeps what it did) and baselines.md, and
prints the table and whether the paper's ordering holds.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numba
import numpy as np

from streamtopics import Corpus, generate_synthetic, read_corpus_dir
from streamtopics.corpus import occurring_words, restrict_to_words
from streamtopics.estimators import OnlineLDA
from streamtopics.evaluation import left_to_right

CORPORA = Path(__file__).resolve().parents[2] / "shared" / "corpora"
METHODS = ["g-oem", "v-oem++", "olda", "svb", "splda", "sgs", "vargibbs"]
FREQUENTIST = ["g-oem", "v-oem++", "splda"]
BAYESIAN_VARIATIONAL = ["olda", "svb"]
FIXED_ALPHA = ("sgs", "vargibbs")  # alpha held at C_alpha from G-OEM


def _held_out(test: Corpus, train: Corpus) -> tuple[Corpus, int]:
    """``test`` restricted to the words of ``train``, and the number of tokens dropped."""
    kept, dropped_tokens, _ = restrict_to_words(test, occurring_words(train.counts))
    return kept, dropped_tokens


def load_datasets(args):
    """(name, train, test, dropped test tokens, [K, ...], truth or None) for each requested
    dataset; the test documents keep only words seen in training (`restrict_to_words`, which
    drops the documents left empty, as every held-out evaluation of the library does)."""
    for name in args.datasets:
        if name == "synthetic":
            corpus, truth = generate_synthetic(n_topics=10, n_words=1000,
                                               n_documents=args.synthetic_train + args.synthetic_test,
                                               mean_length=60, seed=2016)
            train, test = corpus[:args.synthetic_train], corpus[args.synthetic_train:]
            yield name, train, *_held_out(test, train), [10], truth
        else:
            directory = CORPORA / name
            train, test = read_corpus_dir(directory, "train"), read_corpus_dir(directory, "test")
            if args.test_documents and test.n_documents > args.test_documents:
                test = test[:args.test_documents]
            yield name, train, *_held_out(test, train), args.topics, None


def run_one(train, test, method, n_topics, seed, args, constant_alpha):
    started = time.perf_counter()
    model = OnlineLDA(n_topics, method=method, batch_size=100, local_passes=20, n_passes=1, step_offset=0.0,
                      step_decay=0.5, doc_topic_prior=constant_alpha if method in FIXED_ALPHA else None,
                      random_state=seed).fit(train)
    training_seconds = time.perf_counter() - started
    started = time.perf_counter()
    held_out = left_to_right(model.components_, model.doc_topic_prior_, test,
                             n_particles=args.particles, max_tokens=args.max_tokens, seed=seed)
    return {"log_perplexity_per_document": held_out.log_perplexity_per_document,
            "log_perplexity_per_document_se": held_out.log_perplexity_per_document_se,
            "per_token_perplexity": held_out.per_token_perplexity,
            "alpha_mean": float(model.doc_topic_prior_.mean()),
            "training_seconds": training_seconds,
            "evaluation_seconds": time.perf_counter() - started,
            "test_documents": held_out.n_documents, "test_tokens": held_out.n_tokens}


def summarise(runs):
    """Median, min and max of the log-perplexity per document by (dataset, K, method)."""
    groups = {}
    for run in runs:
        groups.setdefault((run["dataset"], run["K"], run["method"]), []).append(
            run["log_perplexity_per_document"])
    return {key: {"median": float(np.median(values)), "min": float(np.min(values)),
                  "max": float(np.max(values)), "seeds": len(values)}
            for key, values in groups.items()}


def ordering_checks(summary):
    """The paper's claims, checked on the medians (lower log-perplexity is better)."""
    checks = []
    settings = sorted({(dataset, k) for dataset, k, _ in summary})
    for dataset, k in settings:
        median = {m: summary[dataset, k, m]["median"] for m in METHODS if (dataset, k, m) in summary}
        if "g-oem" in median:
            best = min(median, key=median.get)
            checks.append({"claim": "G-OEM best", "dataset": dataset, "K": k,
                           "holds": best == "g-oem", "detail": f"best: {best}"})
        frequentist = [m for m in FREQUENTIST if m in median]
        bayesian = [m for m in BAYESIAN_VARIATIONAL if m in median]
        if frequentist and bayesian:
            worst_frequentist = max(frequentist, key=median.get)
            best_bayesian = min(bayesian, key=median.get)
            checks.append({"claim": "frequentist (G-OEM, V-OEM++, SPLDA) beat Bayesian (OLDA, SVB)",
                           "dataset": dataset, "K": k,
                           "holds": median[worst_frequentist] < median[best_bayesian],
                           "detail": f"worst frequentist {worst_frequentist} "
                                     f"{median[worst_frequentist]:.2f}, best Bayesian "
                                     f"{best_bayesian} {median[best_bayesian]:.2f}"})
    for dataset in sorted({dataset for dataset, _ in settings}):
        topic_counts = sorted(k for d, k in settings if d == dataset)
        if len(topic_counts) < 2:
            continue
        small, large = topic_counts[0], topic_counts[-1]
        for method in METHODS:
            if (dataset, small, method) in summary and (dataset, large, method) in summary:
                gain = summary[dataset, small, method]["median"] - summary[dataset, large, method]["median"]
                checks.append({"claim": f"gain from K={small} to K={large}", "dataset": dataset,
                               "K": large, "method": method, "gain": gain,
                               "holds": None, "detail": f"{method}: {gain:+.2f} nats/document"})
    return checks


def write_results(output: Path, args, runs, references, started) -> tuple[dict, list]:
    summary = summarise(runs)
    checks = ordering_checks(summary)
    output.mkdir(parents=True, exist_ok=True)
    (output / "baselines.json").write_text(json.dumps({
        "settings": vars(args) | {"output": str(args.output)},
        "wall_seconds": time.perf_counter() - started, "references": references,
        "summary": [{"dataset": d, "K": k, "method": m, **v} for (d, k, m), v in summary.items()],
        "checks": checks, "runs": runs}, indent=2))
    return summary, checks


def markdown(args, runs, references, summary, checks) -> str:
    lines = ["# Online methods for LDA: held-out log-perplexity per document",
             "",
             f"One pass, minibatch 100, P = 20, kappa = 0.5 (tau0 = 0) or 1/i, same initialisation "
             f"per seed, {args.seeds} seeds; left-to-right with R = {args.particles} on E_q[beta] "
             f"(Bayesian) or beta, alpha as learned (SGS, VarGibbs: C_alpha = mean of G-OEM's final "
             f"alpha); lower is better. Synthetic: {args.synthetic_train} training and "
             f"{args.synthetic_test} test documents (K* = 10, V = 1000, Poisson(60)). Real corpora: "
             f"the first {args.test_documents or 'all'} test documents, each scored on its first "
             f"{args.max_tokens or 'all'} tokens.",
             "",
             "| dataset | K | " + " | ".join(METHODS) + " |",
             "|---|---:|" + "---:|" * len(METHODS)]
    for dataset, k in sorted({(d, k) for d, k, _ in summary}, key=lambda x: (args.datasets.index(x[0]), x[1])):
        cells = []
        for method in METHODS:
            s = summary.get((dataset, k, method))
            cells.append("" if s is None else f"{s['median']:.2f} [{s['min']:.2f}, {s['max']:.2f}]")
        lines.append(f"| {dataset} | {k} | " + " | ".join(cells) + " |")
    lines += ["", "Cells: median [min, max] over seeds."]
    for reference in references:
        lines.append(f"{reference['dataset']}: {reference['test_documents']} test documents, "
                     f"{reference['test_tokens']} tokens scored, {reference['dropped_tokens']} "
                     f"tokens of words unseen in training dropped"
                     + (f"; the true model scores {reference['true_model']:.2f}"
                        if reference.get("true_model") is not None else "") + ".")
    lines += ["", "## The paper's claims", ""]
    for check in checks:
        verdict = "" if check["holds"] is None else ("holds" if check["holds"] else "DOES NOT HOLD")
        lines.append(f"- {check['claim']}, {check['dataset']} K={check['K']}: {verdict} "
                     f"({check['detail']})")
    return "\n".join(lines) + "\n"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--datasets", nargs="+", default=["synthetic", "debian", "newsarticles"])
    parser.add_argument("--topics", type=int, nargs="+", default=[32, 128], help="K for real corpora")
    parser.add_argument("--methods", nargs="+", default=METHODS, choices=METHODS)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--synthetic-train", type=int, default=100_000)
    parser.add_argument("--synthetic-test", type=int, default=5_000)
    parser.add_argument("--test-documents", type=int, default=1000,
                        help="score the first n test documents of a real corpus (0: all)")
    parser.add_argument("--max-tokens", type=int, default=None,
                        help="score only the first tokens of each test document")
    parser.add_argument("--particles", type=int, default=20)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--output", type=Path, default=Path(__file__).parent / "results")
    args = parser.parse_args(argv)
    numba.set_num_threads(args.threads)
    methods = ["g-oem"] + [m for m in args.methods if m != "g-oem"]  # C_alpha comes from G-OEM
    started = time.perf_counter()
    runs, references = [], []
    for dataset, train, test, dropped, topic_counts, truth in load_datasets(args):
        reference = {"dataset": dataset, "test_documents": test.n_documents,
                     "test_tokens": min(test.n_tokens, int(np.minimum(
                         np.diff(test.document_tokens()[1]), args.max_tokens or np.inf).sum())),
                     "dropped_tokens": dropped}
        if truth is not None:
            reference["true_model"] = left_to_right(
                truth.beta, truth.alpha, test, n_particles=args.particles,
                max_tokens=args.max_tokens, seed=0).log_perplexity_per_document
        references.append(reference)
        for n_topics in topic_counts:
            for seed in range(args.seeds):
                constant_alpha = None
                for method in methods:
                    result = run_one(train, test, method, n_topics, seed, args, constant_alpha)
                    if method == "g-oem":
                        constant_alpha = result["alpha_mean"]
                    runs.append({"dataset": dataset, "K": n_topics, "method": method, "seed": seed,
                                 "train_documents": train.n_documents, **result})
                    print(f"{dataset:12} K={n_topics:<4} seed {seed} {method:9} "
                          f"{result['log_perplexity_per_document']:9.3f} nats/doc, alpha "
                          f"{result['alpha_mean']:.4f}, train {result['training_seconds']:.1f} s, "
                          f"eval {result['evaluation_seconds']:.1f} s", flush=True)
                    write_results(args.output, args, runs, references, started)
    summary, checks = write_results(args.output, args, runs, references, started)
    text = markdown(args, runs, references, summary, checks)
    (args.output / "baselines.md").write_text(text)
    print()
    print(text)
    print(f"total {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
