"""Labeled LDA and Prior-LDA on the Debian debtags (Papanikolaou et al. 2017, section 6 on our
data): theta^p vs theta and phi^p vs phi, 1 chain x 1 sample and 5 chains x 30 samples, the
streaming Labeled G-OEM, and baselines, micro/macro/example F1 side by side in one run.

Data: ``debian/{train,test}.labels.jsonl`` with the label filter ``--filter`` (default
``debtags-content``: content facets, no ``::TODO``, >= 20 training documents; see
`streamtopics.corpus.labels`); train and test restricted to documents with a kept label.

Labeled LDA and Prior-LDA train identically (symmetric alpha = 50/K, eq. 58; beta = 0.1;
burn-in 50, lag 5; the estimates averaged over all samples of all chains), so one training run
serves both; they differ in the alpha of prediction (training alpha vs eq. 59). Each training
run keeps phi and phi^p from the same samples; each prediction run (phi or phi^p fixed) gives
theta and theta^p from the same samples: the four combinations of Tables 6-8. Label sets: the
top-m labels by score, m from the Meta-Labeler (section 6.3) and, as an upper bound that isolates
the ranking, the true number of labels ("oracle").

CVB0 (`LabeledCVB0LDA`, section 6.3's "same setup"): as many passes as the Gibbs chain's
sweeps, 1 or 5 chains (each another document order and start), phi averaged; CVB0 prediction.
Baselines: one-vs-rest logistic regression on tf-idf (scikit-learn, liblinear) with the same
Meta-Labeler counts; tomotopy's LLDAModel and PLDAModel (Ramage et al. 2011's Partially Labeled
LDA, one topic per label, no latent topics; 200 iterations, tomotopy's default alpha
optimisation; its `infer` scores), if installed.
Streaming: `LabeledOnlineLDA` (G-OEM, one pass, minibatches of 100, P = 20) with Prior-LDA's
prediction.

Usage: NUMBA_NUM_THREADS=1 python reproductions/labeled_debtags.py [--configs 1x1 2x10 5x30]
       [--filter debtags-content|all] [--corpus DIR] [--no-baselines]
Writes reproductions/results/labeled_debtags.{json,md}.
"""

from __future__ import annotations

import argparse
import platform
import time
from pathlib import Path

import numpy as np

from streamtopics.corpus.labels import DEBTAGS_CONTENT, LabelFilter, read_label_file, restrict_labels
from streamtopics.corpus.readers import read_corpus_dir
from streamtopics.estimators.label_sets import MetaLabeler, label_indicator, top_labels
from streamtopics.estimators.labeled import PriorLDA
from streamtopics.estimators.labeled_cvb0 import LabeledCVB0LDA
from streamtopics.estimators.labeled_online import LabeledOnlineLDA
from streamtopics.evaluation import multilabel_f1
from streamtopics.inference import cgs, cvb0

from results_files import CORPORA, command_line, write_results

CORPUS = CORPORA / "debian"
FILTERS = {"debtags-content": DEBTAGS_CONTENT, "all": LabelFilter(20)}


def load(directory: Path, label_filter: LabelFilter):
    train, test = read_corpus_dir(directory, "train"), read_corpus_dir(directory, "test")
    train_labels = read_label_file(directory / "train.labels.jsonl", train.n_documents)
    test_labels = read_label_file(directory / "test.labels.jsonl", test.n_documents)
    classes = label_filter.classes(train_labels)
    train_labels = restrict_labels(train_labels, classes)
    test_labels = restrict_labels(test_labels, classes)
    train_rows = [d for d, row in enumerate(train_labels) if row]
    test_rows = [d for d, row in enumerate(test_labels) if row]
    return (train[train_rows], [train_labels[d] for d in train_rows], test[test_rows],
            [test_labels[d] for d in test_rows], classes)


class Scoreboard:
    """The rows of the table, and each row's per-document micro-F1 counts (Meta-Labeler label
    sets) for paired bootstrap comparisons."""

    def __init__(self, y_true, frequency, meta_counts):
        self.y_true, self.frequency, self.meta_counts = y_true, frequency, meta_counts
        self.rows, self.counts = [], {}

    def add(self, name, config, scores, train_seconds, predict_seconds):
        oracle = np.diff(self.y_true.indptr)
        row = {"method": name, "config": config, "train_seconds": train_seconds,
               "predict_seconds": predict_seconds}
        for label, counts in (("meta", self.meta_counts), ("oracle", oracle)):
            predicted = top_labels(scores, counts, self.frequency)
            f1 = multilabel_f1(self.y_true, predicted)
            row.update({f"{label}_micro": f1.micro, f"{label}_macro": f1.macro,
                        f"{label}_example": f1.example})
            if label == "meta":
                hits = np.asarray(self.y_true.multiply(predicted).sum(axis=1)).ravel()
                sizes = np.diff(self.y_true.indptr) + np.diff(predicted.indptr)
                self.counts[(config, name)] = (hits, sizes)
        print(f"{config:5s} {name:36s} micro {row['meta_micro']:.4f} macro "
              f"{row['meta_macro']:.4f} example {row['meta_example']:.4f} | oracle micro "
              f"{row['oracle_micro']:.4f} (train {train_seconds:.1f} s, predict "
              f"{predict_seconds:.1f} s)", flush=True)
        self.rows.append(row)

    def compare(self, first, second, resamples=1000, seed=0):
        """Paired bootstrap over test documents of micro-F1(first) - micro-F1(second) (each a
        (config, method) key): the difference, its 95% interval, and the share of resamples
        where it is positive."""
        if first not in self.counts or second not in self.counts:
            return None
        (hits_a, sizes_a), (hits_b, sizes_b) = self.counts[first], self.counts[second]
        rng = np.random.default_rng(seed)
        draws = rng.integers(0, hits_a.size, size=(resamples, hits_a.size))
        micro_a = 2 * hits_a[draws].sum(axis=1) / sizes_a[draws].sum(axis=1)
        micro_b = 2 * hits_b[draws].sum(axis=1) / sizes_b[draws].sum(axis=1)
        difference = micro_a - micro_b
        point = 2 * hits_a.sum() / sizes_a.sum() - 2 * hits_b.sum() / sizes_b.sum()
        low, high = np.percentile(difference, [2.5, 97.5])
        return {"first": list(first), "second": list(second), "difference": float(point),
                "ci95": [float(low), float(high)],
                "share_positive": float(np.mean(difference > 0)),
                "ratio": float((2 * hits_a.sum() / sizes_a.sum())
                               / (2 * hits_b.sum() / sizes_b.sum()))}


CONFIGS = {"1x1": (1, 1), "2x10": (2, 10), "5x30": (5, 30)}


def run_gibbs(board, config, train, train_labels, test, seed):
    """Prior-LDA's training (identical for Labeled LDA), then the four phi/theta combinations
    under both prediction priors."""
    chains, samples = CONFIGS[config]
    model = PriorLDA(n_chains=chains, n_samples=samples, estimator="p", random_state=seed)
    started = time.perf_counter()
    model.fit(train, train_labels)
    train_seconds = time.perf_counter() - started
    tokens, offsets = test.document_tokens()
    priors = {"Prior-LDA": model.doc_topic_prior_, "Labeled LDA": model.training_alpha_}
    for prior_name, alpha in priors.items():
        for phi_name, phi in (("phi", model.topic_word_standard_), ("phi^p", model.topic_word_p_)):
            started = time.perf_counter()
            prediction = cgs.predict_doc_topics(phi, alpha, tokens, offsets, burn_in=50, lag=5,
                                                n_samples=samples, n_chains=chains, seed=seed)
            seconds = time.perf_counter() - started
            for theta_name, theta in (("theta", prediction.theta),
                                      ("theta^p", prediction.theta_p)):
                board.add(f"{prior_name} {ESTIMATOR_NAMES[phi_name, theta_name]}", config,
                          theta, train_seconds, seconds)
    return model


ESTIMATOR_NAMES = {("phi", "theta"): "CGS (phi + theta)", ("phi", "theta^p"): "phi + theta^p",
                   ("phi^p", "theta"): "phi^p + theta", ("phi^p", "theta^p"): "CGS_p (phi^p + theta^p)"}


def run_cvb0(board, config, train, train_labels, test, seed):
    """Prior-LDA by CVB0 as section 6.3 runs it: the same passes as the Gibbs chains' sweeps
    (burn-in + lag x samples), one chain or ``chains`` chains (another document order and
    start each), phi averaged; prediction by CVB0 (50 passes) under both priors."""
    chains, samples = CONFIGS[config]
    model = LabeledCVB0LDA(n_passes=50 + 5 * samples, n_chains=chains, random_state=seed)
    started = time.perf_counter()
    model.fit(train, train_labels)
    train_seconds = time.perf_counter() - started
    for prior_name, alpha in (("Prior-LDA", model.doc_topic_prior_),
                              ("Labeled LDA", model.training_alpha_)):
        started = time.perf_counter()
        theta = cvb0.predict_cvb0(model.components_, alpha, test.counts, model.transform_passes)
        board.add(f"{prior_name} CVB0", config, theta, train_seconds,
                  time.perf_counter() - started)


def run_streaming(board, train, train_labels, test, seed):
    started = time.perf_counter()
    model = LabeledOnlineLDA(prior="frequency", n_samples=1, random_state=seed)
    model.fit(train, train_labels)
    train_seconds = time.perf_counter() - started
    started = time.perf_counter()
    scores = model.predict_proba(test)
    board.add("Prior-LDA by G-OEM, 1 pass, CGS_p", "1x1", scores, train_seconds,
              time.perf_counter() - started)


def run_logistic(board, train, train_labels, test, classes):
    from sklearn.feature_extraction.text import TfidfTransformer
    from sklearn.linear_model import LogisticRegression
    started = time.perf_counter()
    tfidf = TfidfTransformer().fit(train.counts)
    features = tfidf.transform(train.counts)
    y_train = label_indicator(train_labels, train.n_documents, classes)[1].tocsc()
    classifiers = []
    for label in range(len(classes)):  # one-vs-rest, one binary problem per label
        target = y_train[:, label].toarray().ravel().astype(np.int64)
        classifiers.append(LogisticRegression(solver="liblinear", C=10.0).fit(features, target))
    train_seconds = time.perf_counter() - started
    started = time.perf_counter()
    test_features = tfidf.transform(test.counts)
    scores = np.column_stack([c.decision_function(test_features) for c in classifiers])
    board.add("one-vs-rest logistic (tf-idf, C=10)", "-", scores, train_seconds,
              time.perf_counter() - started)


def run_tomotopy(board, train, train_labels, test, classes, seed):
    """tomotopy's Labeled LDA and PLDA (one topic per label, no latent topic): 200 training
    iterations (tomotopy's default alpha optimisation every 10), its `infer` (100 iterations)
    as the scores."""
    import tomotopy as tp
    words = [str(w) for w in train.vocabulary]
    train_tokens, train_offsets = train.document_tokens()
    test_tokens, test_offsets = test.document_tokens()
    alpha = 50 / len(classes)
    makers = {"tomotopy LLDAModel": lambda: tp.LLDAModel(k=len(classes), alpha=alpha, eta=0.1,
                                                         seed=seed),
              "tomotopy PLDAModel": lambda: tp.PLDAModel(latent_topics=0, topics_per_label=1,
                                                         alpha=alpha, eta=0.1, seed=seed)}
    for name, make in makers.items():
        started = time.perf_counter()
        model = make()
        for d in range(train.n_documents):
            doc = [words[w] for w in train_tokens[train_offsets[d]:train_offsets[d + 1]]]
            model.add_doc(doc, labels=train_labels[d])
        model.train(200, workers=1)
        train_seconds = time.perf_counter() - started
        started = time.perf_counter()
        index = {label: k for k, label in enumerate(model.topic_label_dict)}
        order = np.array([index[label] for label in classes])
        documents = [model.make_doc([words[w] for w in
                                     test_tokens[test_offsets[d]:test_offsets[d + 1]]])
                     for d in range(test.n_documents)]
        inferred, _ = model.infer(documents, workers=1)
        scores = np.array([np.asarray(dist)[:model.k][order] for dist in inferred])
        board.add(name, "-", scores, train_seconds, time.perf_counter() - started)


COMPARISONS = (("Prior-LDA CGS_p (phi^p + theta^p)", "Prior-LDA CGS (phi + theta)"),
               ("Prior-LDA CGS_p (phi^p + theta^p)", "Prior-LDA CVB0"),
               ("Labeled LDA CGS_p (phi^p + theta^p)", "Labeled LDA CGS (phi + theta)"),
               ("Prior-LDA phi + theta^p", "Prior-LDA CGS (phi + theta)"))


def comparisons(board, configs):
    """The "done when" questions as paired bootstrap comparisons of micro-F1."""
    pairs = [((config, first), (config, second)) for config in configs
             for first, second in COMPARISONS]
    best = ("Prior-LDA CGS_p (phi^p + theta^p)")
    pairs += [((config, best), ("-", "tomotopy PLDAModel")) for config in configs]
    pairs += [(("1x1", "Prior-LDA by G-OEM, 1 pass, CGS_p"), (config, best)) for config in configs]
    return [c for c in (board.compare(a, b) for a, b in pairs) if c is not None]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--filter", choices=sorted(FILTERS), default="debtags-content")
    parser.add_argument("--configs", nargs="+", choices=sorted(CONFIGS), default=["1x1", "5x30"])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-baselines", action="store_true")
    args = parser.parse_args()
    train, train_labels, test, test_labels, classes = load(args.corpus, FILTERS[args.filter])
    _, y_true = label_indicator(test_labels, test.n_documents, classes)
    print(f"{len(classes)} labels; {train.n_documents} training and {test.n_documents} test "
          f"documents; {np.mean([len(r) for r in train_labels]):.2f} labels per training "
          f"document", flush=True)
    _, y_train = label_indicator(train_labels, train.n_documents, classes)
    frequency = np.asarray(y_train.sum(axis=0)).ravel()
    # the Meta-Labeler as the models fit it (section 6.3), one label count per test document
    meta = MetaLabeler().fit(train.counts, np.diff(y_train.indptr)).predict_counts(test.counts)
    board = Scoreboard(y_true, frequency, meta)
    for config in args.configs:
        run_gibbs(board, config, train, train_labels, test, args.seed)
        run_cvb0(board, config, train, train_labels, test, args.seed)
    run_streaming(board, train, train_labels, test, args.seed)
    if not args.no_baselines:
        run_logistic(board, train, train_labels, test, classes)
        try:
            run_tomotopy(board, train, train_labels, test, classes, args.seed)
        except ImportError:
            print("tomotopy not installed: skipped")
    compared = comparisons(board, args.configs)
    result = {"corpus": str(args.corpus), "filter": FILTERS[args.filter].describe(),
              "labels": len(classes), "train_documents": train.n_documents,
              "test_documents": test.n_documents, "machine": platform.platform(),
              "threads": 1, "seed": args.seed, "rows": board.rows, "comparisons": compared}
    stem = "labeled_debtags" if args.filter == "debtags-content" else f"labeled_debtags_{args.filter}"
    lines = [f"Debian debtags, {result['filter']}: {len(classes)} labels, {train.n_documents} "
             f"train / {test.n_documents} test documents (seed {args.seed}, 1 thread). "
             f"Label sets: Meta-Labeler counts; oracle = true counts.", "",
             "| config | method | micro-F1 | macro-F1 | example-F1 | oracle micro-F1 | train s "
             "| predict s |", "|---|---|---:|---:|---:|---:|---:|---:|"]
    for row in board.rows:
        lines.append(f"| {row['config']} | {row['method']} | {row['meta_micro']:.4f} | "
                     f"{row['meta_macro']:.4f} | {row['meta_example']:.4f} | "
                     f"{row['oracle_micro']:.4f} | {row['train_seconds']:.1f} | "
                     f"{row['predict_seconds']:.1f} |")
    lines += ["", "Paired bootstrap over test documents (1,000 resamples), micro-F1:", "",
              "| first | second | difference | 95% interval | ratio | share > 0 |",
              "|---|---|---:|---|---:|---:|"]
    for c in compared:
        lines.append(f"| {' '.join(c['first'])} | {' '.join(c['second'])} | "
                     f"{c['difference']:+.4f} | [{c['ci95'][0]:+.4f}, {c['ci95'][1]:+.4f}] | "
                     f"{c['ratio']:.3f} | {c['share_positive']:.3f} |")
    write_results(stem, result, "Labeled LDA family on Debian debtags", command_line(), lines)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
