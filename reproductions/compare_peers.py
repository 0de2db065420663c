"""OLDA (online VB, Hoffman, Blei & Bach 2010) as a preset of the streamtopics engine, next to
gensim's LdaModel and scikit-learn's online LatentDirichletAllocation, same settings, same run.

Every implementation trains one pass over the same documents in the same order and is scored by
the same held-out evaluation (`streamtopics.evaluation.left_to_right` on its E_q[beta] and the
common fixed alpha, same particles and seed):

* streamtopics ``OnlineLDA(method=Method("variational", "dirichlet", "polynomial", "fixed"))``:
  the ``olda`` preset with alpha held fixed (the preset updates alpha by eq. 9), batch_size S,
  local_passes P, step_offset tau0, step_decay kappa, corpus_size D, topic_word_prior eta,
  doc_topic_prior alpha;
* gensim ``LdaModel``: chunksize S, passes 1, update_every 1, iterations P with
  gamma_threshold 0 (exactly P local iterations), decay kappa, alpha and eta fixed. gensim's
  step is rho = (offset + pass + documents_updated / chunksize)^-decay (ldamodel.py, ``update``:
  ``rho()``), i.e. (offset + t)^-kappa with t = 0, 1, ... counting earlier steps, while ours is
  (tau0 + i)^-kappa with i = 1, 2, ...: so gensim offset = tau0 + 1;
* scikit-learn ``LatentDirichletAllocation(learning_method="online")`` through ``partial_fit``:
  batch_size S, max_doc_update_iter P with mean_change_tol 0, learning_decay kappa,
  total_samples D (its default 1e6 is not the corpus size), evaluate_every -1. Its weight is
  (learning_offset + n_batch_iter)^-decay with n_batch_iter = 1, 2, ...: learning_offset = tau0
  (it must be >= 1).

The initialisations differ: gensim and scikit-learn draw every entry of lambda_0 from
Gamma(100, 1/100) (near-uniform topics worth about V pseudo-counts each) and each document's gamma
from Gamma(100, 1/100); streamtopics starts from the initialisation it shares with every method,
lambda_0 = (V eta + D L) beta_0 with Dirichlet(1) rows beta_0 (the frequentist s_0, worth one
average document per topic and document of the corpus), and gamma = alpha + N_d / K. With
tau0 > 0 (rho_1 < 1, as scikit-learn requires) lambda_0 weighs on the first steps, and with
near-uniform topics the random gamma start decides how the first documents spread over topics. So
a fourth line, "streamtopics olda, peers' initialisation", runs the same engine from lambda_0 and
gamma drawn as the peers draw them (built from the public parts: `build_parts`, `OnlineEM`,
`VariationalDirichlet.stats_for_lambda`, `VariationalEstimator(random_start=True)`). That line
isolates the update itself; the first shows what the shared initialisation changes. Each
implementation runs several seeds and the table shows the seed spread next to the differences of
the means.

What remains between that line and the peers at larger K (finefoods, K = 50: +0.75% / +0.89%,
streamtopics higher) is the peers' E-step, not the update: both add machine epsilon (2.2e-16) to
the normaliser of phi, sum_k exp(E[log theta_k]) exp(E[log beta_kw]), without rescaling
exp(E[log theta]), so a token whose probability under the document's current topics is below
about 1e-16 silently loses its phi mass (from gamma and from the statistics); with peaked topics
at larger K that happens. A plain NumPy Algorithm 2 from the same lambda_0 scores -224.1 nats on
finefoods K = 50 without the epsilon and -225.4 with it (gensim -225.9, scikit-learn -226.2);
from the same deterministic start scikit-learn and that NumPy twin agree to 1e-5 for the first
steps, then drift apart (the one-pass trajectory is sensitive to rounding). streamtopics' kernel
rescales exp(E[log theta]) by its maximum, so no token underflows.

Usage: python reproductions/compare_peers.py [--seeds 3] [--passes 50] [--particles 20]
Writes reproductions/results/compare_peers.{json,md} and prints the table.
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from dataclasses import replace

import numba
import numpy as np

from streamtopics import generate_synthetic, read_corpus_dir
from streamtopics.engine import OnlineEM
from streamtopics.estimators import OnlineLDA
from streamtopics.evaluation import left_to_right
from streamtopics.inference.minibatch import Minibatch
from streamtopics.inference.presets import Method, build_parts

from results_files import CORPORA, command_line, write_results

OLDA_FIXED_ALPHA = Method("variational", "dirichlet", "polynomial", "fixed", name="olda-fixed-alpha")


def train_streamtopics(train, n_topics, settings, seed):
    model = OnlineLDA(n_topics, method=OLDA_FIXED_ALPHA, batch_size=settings["batch_size"], n_passes=1,
                      local_passes=settings["local_passes"], step_offset=settings["tau0"],
                      step_decay=settings["kappa"], corpus_size=train.n_documents,
                      topic_word_prior=settings["eta"], doc_topic_prior=settings["alpha"],
                      random_state=seed).fit(train)
    return np.asarray(model.components_)


def train_streamtopics_peer_init(train, n_topics, settings, seed):
    """The same preset on the engine directly, from lambda_0 and every document's gamma_0 with
    Gamma(100, 1/100) entries, as gensim and scikit-learn."""
    parts = build_parts(OLDA_FIXED_ALPHA, {
        "local_passes": settings["local_passes"], "step_offset": settings["tau0"],
        "step_decay": settings["kappa"], "corpus_size": train.n_documents,
        "topic_word_prior": settings["eta"]})
    local = replace(parts.local, random_start=True)
    engine = OnlineEM(local, parts.parameters, parts.step_size, parts.alpha_update, seed=seed)
    initial_lambda = np.random.default_rng(seed).gamma(100.0, 1.0 / 100.0, (n_topics, train.n_words))
    alpha = np.full(n_topics, settings["alpha"])
    engine.initialize(initial_lambda / initial_lambda.sum(axis=1, keepdims=True), alpha, 1.0)
    engine.stats = parts.parameters.stats_for_lambda(initial_lambda, alpha)
    counts = train.counts
    for start in range(0, train.n_documents, settings["batch_size"]):
        engine.partial_fit(Minibatch.from_counts(counts[start:start + settings["batch_size"]]))
    return engine.components()


def train_gensim(train, n_topics, settings, seed):
    from gensim.models import LdaModel
    counts = train.counts
    bow = [list(zip(counts.indices[counts.indptr[d]:counts.indptr[d + 1]].tolist(),
                    counts.data[counts.indptr[d]:counts.indptr[d + 1]].tolist()))
           for d in range(train.n_documents)]
    model = LdaModel(num_topics=n_topics, id2word={i: str(w) for i, w in enumerate(train.vocabulary)},
                     chunksize=settings["batch_size"], passes=1, update_every=1,
                     iterations=settings["local_passes"], gamma_threshold=0.0,
                     decay=settings["kappa"], offset=settings["tau0"] + 1.0,
                     alpha=np.full(n_topics, settings["alpha"]), eta=settings["eta"],
                     eval_every=None, random_state=seed, dtype=np.float64)
    model.update(bow, chunksize=settings["batch_size"], passes=1, update_every=1, eval_every=None)
    return model.get_topics()


def train_sklearn(train, n_topics, settings, seed):
    from sklearn.decomposition import LatentDirichletAllocation
    model = LatentDirichletAllocation(
        n_components=n_topics, learning_method="online", batch_size=settings["batch_size"],
        learning_offset=settings["tau0"], learning_decay=settings["kappa"],
        max_doc_update_iter=settings["local_passes"], mean_change_tol=0.0,
        total_samples=train.n_documents, doc_topic_prior=settings["alpha"],
        topic_word_prior=settings["eta"], evaluate_every=-1, n_jobs=1, random_state=seed)
    model.partial_fit(train.counts)
    return model.components_ / model.components_.sum(axis=1, keepdims=True)


TRAINERS = {"streamtopics olda": train_streamtopics,
            "streamtopics olda, peers' initialisation": train_streamtopics_peer_init,
            "gensim LdaModel": train_gensim, "scikit-learn LDA online": train_sklearn}
PEERS = ("gensim LdaModel", "scikit-learn LDA online")


def datasets(args):
    synthetic, _ = generate_synthetic(n_topics=10, n_words=1000,
                                      n_documents=args.synthetic_train + args.synthetic_test, seed=0)
    train, test = synthetic[:args.synthetic_train], synthetic[args.synthetic_train:]
    yield "synthetic (K*=10, V=1000, Poisson(60))", train, test, [10]
    finefoods = CORPORA / "finefoods"
    yield "finefoods", read_corpus_dir(finefoods, "train"), read_corpus_dir(finefoods, "test"), [10, 50]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--passes", type=int, default=50, help="local iterations P (default 50)")
    parser.add_argument("--batch-size", type=int, default=100)
    parser.add_argument("--tau0", type=float, default=1.0, help="(tau0 + i)^-kappa, i = 1, 2, ...")
    parser.add_argument("--kappa", type=float, default=0.5)
    parser.add_argument("--particles", type=int, default=20, help="left-to-right particles")
    parser.add_argument("--synthetic-train", type=int, default=10000)
    parser.add_argument("--synthetic-test", type=int, default=1000)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    numba.set_num_threads(args.threads)

    rows, summary = [], []
    for name, train, test, topic_counts in datasets(args):
        for n_topics in topic_counts:
            settings = {"batch_size": args.batch_size, "local_passes": args.passes,
                        "tau0": args.tau0, "kappa": args.kappa, "alpha": 1.0 / n_topics,
                        "eta": 1.0 / n_topics}
            scores = {}
            for implementation, trainer in TRAINERS.items():
                scores[implementation] = []
                for seed in range(args.seeds):
                    started = time.perf_counter()
                    beta = trainer(train, n_topics, settings, seed)
                    seconds = time.perf_counter() - started
                    result = left_to_right(beta, np.full(n_topics, settings["alpha"]), test,
                                           n_particles=args.particles, seed=0)
                    scores[implementation].append(result.mean_log_likelihood_per_document)
                    rows.append({"data": name, "K": n_topics, "implementation": implementation,
                                 "seed": seed, "train_seconds": seconds,
                                 "mean_log_likelihood_per_document": result.mean_log_likelihood_per_document,
                                 "log_likelihood_per_token": result.log_likelihood_per_token})
                    print(f"{name[:20]:20} K={n_topics:<3} {implementation:24} seed {seed}: "
                          f"{result.mean_log_likelihood_per_document:10.3f} nats/doc "
                          f"({seconds:.1f} s)", flush=True)
            means = {implementation: float(np.mean(values)) for implementation, values in scores.items()}
            for implementation, values in scores.items():
                values = np.asarray(values)
                summary.append({
                    "data": name, "K": n_topics, "implementation": implementation,
                    "mean": means[implementation], "min": float(values.min()),
                    "max": float(values.max()), "spread": float(values.max() - values.min()),
                    # (this - peer) / |peer|: positive = this scores higher (better)
                    "relative_to": {peer: (means[implementation] - means[peer]) / abs(means[peer])
                                    for peer in PEERS},
                })

    table = ["| data | K | implementation | held-out log-lik. / doc: mean | min | max | "
             "vs gensim | vs scikit-learn |", "|---|---:|---|---:|---:|---:|---:|---:|"]
    for s in summary:
        relative = " | ".join(f"{100 * s['relative_to'][peer]:+.2f}%" for peer in PEERS)
        table.append(f"| {s['data']} | {s['K']} | {s['implementation']} | {s['mean']:.3f} | "
                     f"{s['min']:.3f} | {s['max']:.3f} | {relative} |")
    note = (f"One pass, minibatch {args.batch_size}, P = {args.passes} local iterations (no early "
            f"stop), rho_i = ({args.tau0:g} + i)^-{args.kappa:g} for i = 1, 2, ... (gensim offset "
            f"{args.tau0 + 1:g}, scikit-learn learning_offset {args.tau0:g}), alpha = eta = 1/K fixed, "
            f"D = the training documents; {args.seeds} seeds per implementation; held-out "
            f"left-to-right (R = {args.particles}, seed 0) on E_q[beta] with alpha = 1/K, nats per "
            f"document (higher is better); synthetic: {args.synthetic_train} training and "
            f"{args.synthetic_test} test documents; finefoods: its train/test split. The last two "
            f"columns: (mean of this line - mean of the peer) / |mean of the peer|, positive when "
            f"this line scores higher. "
            f"{platform.machine()}, {os.cpu_count()} CPUs, numba threads {args.threads}.")
    write_results("compare_peers",
                  {"settings": vars(args), "note": note, "summary": summary, "runs": rows},
                  "OLDA against gensim and scikit-learn", command_line(), [note, "", *table])
    print("\n".join(table))


if __name__ == "__main__":
    main()
