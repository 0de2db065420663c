"""``streamtopics demo``: the main job on an embedded default, in well under a minute.

Generates the synthetic corpus of Dupuy & Bach (2016, section 5): K = 10 topics over V = 1,000
words, document lengths ~ Poisson(60); trains each method for one pass over the training stream
in minibatches of 100; then shows the recovered topics matched to the true ones (Hungarian
assignment on total-variation distance, appendix G) and the held-out left-to-right
log-likelihood of each model next to that of the true model.
"""

from __future__ import annotations

import time

from ..corpus.synthetic import generate_synthetic
from ..estimators.online_lda import OnlineLDA
from ..evaluation import left_to_right, match_topics
from .common import add_json_flag, default_of, emit, progress


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "demo", help="train on a synthetic corpus with known topics and score against the truth",
        description=__doc__.split("\n\n")[1].replace("\n", " "))
    parser.add_argument("--documents", type=int, default=20_000, help="training documents")
    parser.add_argument("--test-documents", type=int, default=1_000, help="held-out documents")
    parser.add_argument("-k", "--topics", type=int, default=10, help="true and fitted topics")
    parser.add_argument("--words", type=int, default=1_000, help="vocabulary size V")
    parser.add_argument("--methods", default="g-oem,olda",
                        help="comma-separated methods to train (default: g-oem,olda)")
    parser.add_argument("--particles", type=int, default=default_of(left_to_right, "n_particles"),
                        help="left-to-right particles (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the corpus and every method")
    add_json_flag(parser)
    parser.set_defaults(run=run)


def _train(method: str, train, n_topics: int, seed: int) -> tuple[OnlineLDA, float]:
    model = OnlineLDA(n_topics=n_topics, method=method, corpus_size=len(train), random_state=seed)
    start = time.perf_counter()
    with progress(total=len(train), desc=method) as bar:
        for batch in train.minibatches(model.batch_size):
            model.partial_fit(batch)
            bar.update(len(batch))
    return model, time.perf_counter() - start


def run(args) -> int:
    corpus, truth = generate_synthetic(args.topics, args.words,
                                       args.documents + args.test_documents, seed=args.seed)
    train, test = corpus[:args.documents], corpus[args.documents:]
    methods = [m.strip() for m in args.methods.split(",") if m.strip()]

    def score(beta, alpha):
        return left_to_right(beta, alpha, test, n_particles=args.particles, seed=args.seed)

    rows = [{"method": "true model", "held_out": score(truth.beta, truth.alpha),
             "seconds": 0.0, "mean_tv_to_truth": 0.0}]
    topic_tables = {}
    for method in methods:
        model, seconds = _train(method, train, args.topics, args.seed)
        matching = match_topics(truth.beta, model.components_, distance="tv")
        rows.append({"method": method, "held_out": score(model.components_, model.doc_topic_prior_),
                     "seconds": seconds, "mean_tv_to_truth": matching.mean_distance})
        topic_tables[method] = _topic_table(truth.beta, model, matching)

    lines = [f"synthetic corpus: {len(train)} training and {len(test)} held-out documents, "
             f"K = {args.topics}, V = {args.words}, lengths ~ Poisson(60); one pass, "
             f"minibatches of 100, 20 local passes",
             "",
             f"{'model':<12} {'log-perplexity/doc':>20} {'per-token perplexity':>21} "
             f"{'TV to truth':>12} {'train s':>8}"]
    for row in rows:
        held_out = row["held_out"]
        lines.append(f"{row['method']:<12} {held_out.log_perplexity_per_document:>12.2f} ± "
                     f"{held_out.log_perplexity_per_document_se:<5.2f} "
                     f"{held_out.per_token_perplexity:>21.1f} {row['mean_tv_to_truth']:>12.3f} "
                     f"{row['seconds']:>8.1f}")
    lines.append("(held-out left-to-right, nats, lower is better; TV: mean total-variation "
                 "distance of matched topics)")
    for method, table in topic_tables.items():
        lines += ["", f"topics of {method} matched to the true topics:", table]
    result = {"n_train": len(train), "n_test": len(test), "n_topics": args.topics,
              "models": [{"method": r["method"], "seconds": r["seconds"],
                          "mean_tv_to_truth": r["mean_tv_to_truth"],
                          "held_out": r["held_out"].as_dict()} for r in rows]}
    emit(args, result, "\n".join(lines))
    return 0


def _topic_table(true_beta, model, matching, n_words: int = 6) -> str:
    true_top = true_beta.argsort(axis=1)[:, ::-1][:, :n_words]
    fitted_top = model.components_.argsort(axis=1)[:, ::-1][:, :n_words]
    vocabulary = model.vocabulary_
    lines = [f"{'true':>4} {'fit':>4} {'TV':>6}  true top words | fitted top words"]
    for true_topic, fitted_topic in zip(matching.rows, matching.columns):
        left = " ".join(str(vocabulary[w]) for w in true_top[true_topic])
        right = " ".join(str(vocabulary[w]) for w in fitted_top[fitted_topic])
        lines.append(f"{true_topic:>4} {fitted_topic:>4} "
                     f"{matching.distances[true_topic, fitted_topic]:>6.3f}  {left} | {right}")
    return "\n".join(lines)
