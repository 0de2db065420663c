"""Multi-pass G-OEM against converged collapsed Gibbs sampling (issue 12, "done when"): does
G-OEM with several passes reach tomotopy's 1000-iteration held-out score in at most a quarter
of tomotopy's training time? Same run, one thread, same held-out documents.

* tomotopy ``LDAModel(k=K, alpha=0.1, eta=0.01, seed=0)``, alpha optimised every 10 iterations
  (its default), ``--iterations`` (1000) iterations, one worker; topics mapped onto the
  corpus vocabulary;
* ``OnlineLDA(K, method="g-oem", n_passes=p, random_state=0)`` (its defaults otherwise) for
  each p of ``--passes``.

Held-out: the first ``--test-documents`` test documents restricted to the words seen in
training (`restrict_to_words`, the same for every model), left-to-right with R = 20 particles,
seed 0, so differences are paired; log-perplexity per document (lower is better) with the paired
standard error of each model's difference to tomotopy.

Usage: python bench/multipass_vs_tomotopy.py [--corpus newsarticles] [--topics 100]
           [--iterations 1000] [--passes 10 20] [--test-documents 100]
Writes bench/results/multipass_vs_tomotopy_<corpus>.{json,md} and prints the table.
"""

from __future__ import annotations

import os

for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import argparse  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

from measuring import CORPORA, command_line, write_results  # noqa: E402
from streamtopics import read_corpus_dir  # noqa: E402
from streamtopics.corpus.corpus import occurring_words, restrict_to_words  # noqa: E402
from streamtopics.estimators import OnlineLDA  # noqa: E402
from streamtopics.evaluation import left_to_right  # noqa: E402



def fit_tomotopy(train, n_topics, iterations):
    import tomotopy as tp
    model = tp.LDAModel(k=n_topics, alpha=0.1, eta=0.01, seed=0)
    flat, offsets = train.document_tokens()
    for d in range(train.n_documents):
        model.add_doc([str(w) for w in flat[offsets[d]:offsets[d + 1]]])
    started = time.perf_counter()
    model.train(iterations, workers=1)
    seconds = time.perf_counter() - started
    ids = np.array([int(word) for word in model.used_vocabs])
    beta = np.zeros((n_topics, train.n_words))
    for k in range(n_topics):
        beta[k, ids] = model.get_topic_word_dist(k, normalize=True)
    return seconds, beta, np.asarray(model.alpha, dtype=np.float64)


def fit_goem(train, n_topics, passes):
    model = OnlineLDA(n_topics, method="g-oem", n_passes=passes, random_state=0)
    started = time.perf_counter()
    model.fit(train)
    return time.perf_counter() - started, model.components_, model.doc_topic_prior_


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", default="newsarticles")
    parser.add_argument("--topics", type=int, default=100)
    parser.add_argument("--iterations", type=int, default=1000)
    parser.add_argument("--passes", type=int, nargs="+", default=[10, 20])
    parser.add_argument("--test-documents", type=int, default=100)
    args = parser.parse_args()
    train = read_corpus_dir(CORPORA / args.corpus, "train")
    test, _, _ = restrict_to_words(read_corpus_dir(CORPORA / args.corpus, "test")
                                   [:args.test_documents], occurring_words(train.counts))
    fit_goem(train[:200], args.topics, 1)  # compile
    runs = {f"tomotopy CGS, {args.iterations} iterations, alpha optimised":
            fit_tomotopy(train, args.topics, args.iterations)}
    for passes in args.passes:
        runs[f"G-OEM, {passes} passes"] = fit_goem(train, args.topics, passes)
    reference = next(iter(runs))
    scores = {name: left_to_right(beta, alpha, test, n_particles=20, seed=0).log_likelihoods
              for name, (_, beta, alpha) in runs.items()}
    rows = []
    for name, (seconds, _, _) in runs.items():
        difference = scores[reference] - scores[name]
        rows.append({"corpus": args.corpus, "K": args.topics, "model": name,
                     "train_seconds": seconds,
                     "time_share_of_tomotopy": seconds / runs[reference][0],
                     "log_perplexity_per_document": float(-scores[name].mean()),
                     "tomotopy_better_by": float(difference.mean()),
                     "paired_se": float(difference.std(ddof=1) / np.sqrt(difference.size))})
        print(rows[-1], flush=True)
    lines = [f"| {args.corpus}, K = {args.topics} | train s | share of tomotopy's time | "
             f"held-out log-perplexity / doc ({test.n_documents} docs) | tomotopy better by "
             "(± paired SE) |", "|---|---:|---:|---:|---:|"]
    lines += [f"| {r['model']} | {r['train_seconds']:.1f} | {r['time_share_of_tomotopy']:.2f} | "
              f"{r['log_perplexity_per_document']:.2f} | {r['tomotopy_better_by']:+.2f} ± "
              f"{r['paired_se']:.2f} |" for r in rows]
    write_results(f"multipass_vs_tomotopy_{args.corpus}",
                  {"settings": vars(args), "threads": 1, "rows": rows},
                  "Multi-pass G-OEM vs tomotopy's converged CGS, one thread, same run",
                  command_line(), lines)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
