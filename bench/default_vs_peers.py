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
           [--implementations "gensim (defaults),..."]
Writes bench/results/default_vs_peers.{json,md} and the per-document scores
default_vs_peers_scores.npz, merged with earlier runs (of other corpora, K or implementations:
peers can be run once and the default again after a change).
"""

from __future__ import annotations

import os

for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import argparse  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

from streamtopics import read_corpus_dir  # noqa: E402
from streamtopics.estimators import OnlineLDA  # noqa: E402
from streamtopics.estimators.auto_passes import validation_split  # noqa: E402
from streamtopics.evaluation import left_to_right  # noqa: E402
from streamtopics.experiments.data import restrict_to_words  # noqa: E402

from measuring import CORPORA, RESULTS, command_line, write_results  # noqa: E402

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


def run(name, train, test, n_topics, implementation, args):
    """Train and score one implementation: its row and per-document log-likelihoods."""
    started = time.perf_counter()
    beta, alpha, extra = TRAINERS[implementation](train, n_topics, args.seed)
    seconds = time.perf_counter() - started
    scores = np.asarray(left_to_right(beta, alpha, test, n_particles=args.particles,
                                      seed=0).log_likelihoods)
    row = {"corpus": name, "K": n_topics, "implementation": implementation,
           "train_seconds": seconds, "log_perplexity_per_document": float(-scores.mean()),
           "test_documents": int(scores.size), **extra}
    print(f"{name:12} K={n_topics:<3} {implementation:32} {row['log_perplexity_per_document']:10.3f} "
          f"({seconds:6.1f} s) {extra}", flush=True)
    return row, scores


def compare_with_default(rows, scores):
    """Paired differences to the default of the same corpus and K (where both were run)."""
    for row in rows:
        cell = (row["corpus"], row["K"])
        default = scores.get(_key(*cell, DEFAULT))
        mine = scores[_key(*cell, row["implementation"])]
        row.pop("default_better_by", None), row.pop("paired_se", None), row.pop("default_wins", None)
        if default is None or default.size != mine.size or row["implementation"] == DEFAULT:
            continue
        difference = default - mine
        row["default_better_by"] = float(difference.mean())
        row["paired_se"] = float(difference.std(ddof=1) / np.sqrt(difference.size))
        # Issue 11's criterion: better, or on lee (30 test documents) within one paired SE.
        row["default_wins"] = bool(row["default_better_by"] > 0 or (
            row["corpus"] == "lee" and abs(row["default_better_by"]) <= row["paired_se"]))


def _key(corpus, n_topics, implementation):
    return f"{corpus}/{n_topics}/{implementation}"


def markdown_table(rows):
    lines = ["| corpus | K | implementation | log-perplexity / doc | default better by (± paired SE) "
             "| train s |", "|---|---:|---|---:|---:|---:|"]
    for row in rows:
        if row["implementation"] == DEFAULT:
            label, versus = f"{DEFAULT} ({row['n_passes']} passes)", ""
        else:
            label = row["implementation"]
            versus = ("not paired" if "default_better_by" not in row else
                      f"{row['default_better_by']:+.2f} ± {row['paired_se']:.2f}"
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
    parser.add_argument("--seen-words-only", action="store_true",
                        help="score every model on the test tokens of words that occur in the "
                             "training documents the default trains on (for a point estimate "
                             "without a topic-word prior, which gives the others probability 0)")
    parser.add_argument("--implementations", default=None,
                        help=f"comma-separated subset of: {', '.join(TRAINERS)} (default: all); "
                             f"the others keep their earlier results (paired by document)")
    parser.add_argument("--output", default="default_vs_peers")
    args = parser.parse_args()

    json_path = RESULTS / f"{args.output}.json"
    scores_path = RESULTS / f"{args.output}_scores.npz"
    rows = json.loads(json_path.read_text())["runs"] if json_path.exists() else []
    scores = dict(np.load(scores_path)) if scores_path.exists() else {}
    implementations = args.implementations.split(",") if args.implementations else list(TRAINERS)
    for name in args.corpora.split(","):
        train = read_corpus_dir(CORPORA / name, "train")
        test = read_corpus_dir(CORPORA / name, "test")
        if args.max_train:
            train = train[:args.max_train]
        if args.max_test:
            test = test[:args.max_test]
        if args.seen_words_only:
            # the documents the default trains on: n_passes="auto" holds every 20th one out
            trained = train.counts[validation_split(train.n_documents).train_rows]
            seen = np.asarray(trained.sum(axis=0)).ravel() > 0
            test, removed_tokens, removed_documents = restrict_to_words(test, seen)
            print(f"{name}: removed {removed_tokens} test tokens of words absent from the "
                  f"trained documents ({removed_documents} documents left empty)", flush=True)
        for n_topics in (int(k) for k in args.topics.split(",")):
            for implementation in implementations:
                row, scores[_key(name, n_topics, implementation)] = run(
                    name, train, test, n_topics, implementation, args)
                rows = [old for old in rows if _key(old["corpus"], old["K"], old["implementation"])
                        != _key(name, n_topics, implementation)] + [row]
    order = list(TRAINERS)
    rows.sort(key=lambda row: (row["corpus"], row["K"], order.index(row["implementation"])))
    compare_with_default(rows, scores)
    note = (f"One run per implementation (seed {args.seed}); log-perplexity per document = "
            f"-mean log p(w_d) by left-to-right (R = {args.particles}, the same particle seed for "
            f"every model) on the test split, nats, lower is better; 'default better by' = the "
            f"peer's log-perplexity minus the default's, with the standard error of the "
            f"per-document differences. Training wall time, one thread (numba, BLAS). "
            + ("Test tokens of words absent from the training documents the default trains on "
               "(the training split without its validation documents) removed for every model. "
               if args.seen_words_only else "")
            + f"{platform.machine()}, {os.cpu_count()} CPUs (shared).")
    write_results(args.output, {"note": note, "runs": rows},
                  "Default OnlineLDA against one-pass gensim and scikit-learn", command_line(),
                  [note, "", markdown_table(rows)])
    np.savez(scores_path, **scores)
    print(markdown_table(rows))


if __name__ == "__main__":
    main()
