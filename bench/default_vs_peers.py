"""The default `OnlineLDA` against the online peers a user would compare it with, on the shared
corpora (issue 11, item 3).

For every corpus (brown, debian, finefoods, lee, newsarticles: train split to fit, test split to
score) and K (20, 100), one run each of

* ``streamtopics default``: ``OnlineLDA(n_topics=K, random_state=seed).fit(train)``, nothing else
  set (what a new user gets);
* ``gensim``: ``LdaModel(corpus, num_topics=K, id2word, random_state=seed)`` one pass at its
  defaults (chunksize 2000, offset 1, decay 0.5, 50 iterations, alpha = eta = 1/K), and the same
  with ``offset=64`` and ``offset=1024`` (``eval_every=None``: gensim's logged perplexity does not
  change the model, only costs time);
* ``scikit-learn``: ``LatentDirichletAllocation(n_components=K, learning_method="online",
  max_iter=1, random_state=seed)``, one pass at its defaults (batch 128, learning offset 10,
  decay 0.7, alpha = eta = 1/K);

each scored by this library's left-to-right (R particles, the same seed for every model, so the
particles' random numbers are shared and the differences are paired) on the reported topics
(E_q[beta] for the Bayesian peers) and alpha. The table gives the log-perplexity per document
(-mean log p(w_d), nats, lower is better), the difference to the default with its paired
standard error (standard deviation of the per-document differences / sqrt(documents): positive
= the default is better), and training wall time. One thread everywhere (numba, BLAS).

Usage: python bench/default_vs_peers.py [--corpora lee,finefoods] [--topics 20,100]
           [--particles 20] [--max-train N] [--max-test N] [--seed 0]
Writes bench/results/default_vs_peers.{json,md} (merged with earlier runs of other corpora).
"""

from __future__ import annotations

import os

for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import argparse  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

from streamtopics import read_corpus_dir  # noqa: E402
from streamtopics.estimators import OnlineLDA  # noqa: E402
from streamtopics.evaluation import left_to_right  # noqa: E402

RESULTS = Path(__file__).parent / "results"
# The shared corpora: beside the checkout (…/shared/corpora), from any depth of worktree.
CORPORA = next((parent / "shared" / "corpora" for parent in Path(__file__).resolve().parents
                if (parent / "shared" / "corpora").is_dir()), Path("shared") / "corpora")
ALL_CORPORA = ("brown", "debian", "finefoods", "lee", "newsarticles")
DEFAULT = "streamtopics default"


def train_default(train, n_topics, seed):
    model = OnlineLDA(n_topics=n_topics, random_state=seed).fit(train)
    return model.components_, model.doc_topic_prior_, {"n_passes": getattr(model, "n_passes_", model.n_passes)}


def _bag_of_words(counts):
    return [list(zip(counts.indices[counts.indptr[d]:counts.indptr[d + 1]].tolist(),
                     counts.data[counts.indptr[d]:counts.indptr[d + 1]].tolist()))
            for d in range(counts.shape[0])]


def gensim_trainer(offset):
    def train(train_corpus, n_topics, seed):
        from gensim.models import LdaModel
        options = {} if offset is None else {"offset": offset}
        model = LdaModel(_bag_of_words(train_corpus.counts), num_topics=n_topics,
                         id2word={i: str(w) for i, w in enumerate(train_corpus.vocabulary)},
                         passes=1, eval_every=None, random_state=seed, **options)
        return model.get_topics(), np.asarray(model.alpha, dtype=np.float64), {}
    return train


def train_sklearn(train, n_topics, seed):
    from sklearn.decomposition import LatentDirichletAllocation
    model = LatentDirichletAllocation(n_components=n_topics, learning_method="online", max_iter=1,
                                      random_state=seed).fit(train.counts)
    beta = model.components_ / model.components_.sum(axis=1, keepdims=True)
    return beta, np.full(n_topics, model.doc_topic_prior_), {}


TRAINERS = {DEFAULT: train_default,
            "gensim (defaults)": gensim_trainer(None),
            "gensim offset 64": gensim_trainer(64.0),
            "gensim offset 1024": gensim_trainer(1024.0),
            "scikit-learn online (defaults)": train_sklearn}


def run_cell(name, train, test, n_topics, args):
    scores, rows = {}, []
    for implementation, trainer in TRAINERS.items():
        started = time.perf_counter()
        beta, alpha, extra = trainer(train, n_topics, args.seed)
        seconds = time.perf_counter() - started
        result = left_to_right(beta, alpha, test, n_particles=args.particles, seed=0)
        scores[implementation] = np.asarray(result.log_likelihoods)
        rows.append({"corpus": name, "K": n_topics, "implementation": implementation,
                     "train_seconds": seconds,
                     "log_perplexity_per_document": float(-scores[implementation].mean()),
                     **extra})
        print(f"{name:12} K={n_topics:<3} {implementation:32} "
              f"{rows[-1]['log_perplexity_per_document']:10.3f} ({seconds:6.1f} s) {extra}",
              flush=True)
    default = scores[DEFAULT]
    for row in rows:
        difference = default - scores[row["implementation"]]
        row["default_better_by"] = float(difference.mean())
        row["paired_se"] = float(difference.std(ddof=1) / np.sqrt(difference.size))
        row["test_documents"] = int(difference.size)
        # Issue 11's criterion: better, or on lee (30 test documents) within one paired SE.
        row["default_wins"] = bool(row["default_better_by"] > 0 or (
            name == "lee" and abs(row["default_better_by"]) <= row["paired_se"]))
    return rows


def markdown_table(rows):
    lines = ["| corpus | K | implementation | log-perplexity / doc | default better by (± paired SE) "
             "| train s |", "|---|---:|---|---:|---:|---:|"]
    for row in rows:
        if row["implementation"] == DEFAULT:
            label, versus = f"{DEFAULT} ({row['n_passes']} passes)", ""
        else:
            label = row["implementation"]
            versus = (f"{row['default_better_by']:+.2f} ± {row['paired_se']:.2f}"
                      + ("" if row["default_wins"] else " (peer wins)"))
        lines.append(f"| {row['corpus']} | {row['K']} | {label} | "
                     f"{row['log_perplexity_per_document']:.2f} | {versus} | "
                     f"{row['train_seconds']:.1f} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpora", default=",".join(ALL_CORPORA))
    parser.add_argument("--topics", default="20,100")
    parser.add_argument("--particles", type=int, default=20, help="left-to-right particles R")
    parser.add_argument("--max-train", type=int, default=None, help="first N training documents")
    parser.add_argument("--max-test", type=int, default=None, help="first N test documents")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--output", default="default_vs_peers")
    args = parser.parse_args()

    json_path = RESULTS / f"{args.output}.json"
    previous = json.loads(json_path.read_text())["runs"] if json_path.exists() else []
    rows = []
    for name in args.corpora.split(","):
        train = read_corpus_dir(CORPORA / name, "train")
        test = read_corpus_dir(CORPORA / name, "test")
        if args.max_train:
            train = train[:args.max_train]
        if args.max_test:
            test = test[:args.max_test]
        for n_topics in (int(k) for k in args.topics.split(",")):
            rows.extend(run_cell(name, train, test, n_topics, args))
    done = {(row["corpus"], row["K"]) for row in rows}
    rows = [row for row in previous if (row["corpus"], row["K"]) not in done] + rows
    rows.sort(key=lambda row: (row["corpus"], row["K"]))
    note = (f"One run per implementation (seed {args.seed}); log-perplexity per document = "
            f"-mean log p(w_d) by left-to-right (R = {args.particles}, the same particle seed for "
            f"every model) on the test split, nats, lower is better; 'default better by' = the "
            f"peer's log-perplexity minus the default's, with the standard error of the "
            f"per-document differences. Training wall time, one thread (numba, BLAS). "
            f"{platform.machine()}, {os.cpu_count()} CPUs (shared).")
    markdown = ("# Default OnlineLDA against one-pass gensim and scikit-learn\n\n" + note + "\n\n"
                + markdown_table(rows) + "\n")
    RESULTS.mkdir(parents=True, exist_ok=True)
    json_path.write_text(json.dumps({"note": note, "runs": rows}, indent=2))
    (RESULTS / f"{args.output}.md").write_text(markdown)
    print()
    print(markdown)


if __name__ == "__main__":
    main()
