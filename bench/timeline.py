"""How well do topics through time predict the next period, against a static model and the
dynamic topic models of tomotopy and gensim, and at what cost?

Part 1, forward chaining over the whole stream (gitlog's 57,797 commit messages, yearly
periods, K = 30; ``--quick``: a planted drifting corpus): each period after the first is scored
by left-to-right (20 particles, a sample of ``--documents`` of its documents) under models of
the periods before it only (`streamtopics.timeline.forward_chaining`):

* tracking runs: G-OEM in time order, one pass, snapshots at the periods' ends
  (`track_topics`), with step floor 0 ("time order", the plain schedule) and
  `DEFAULT_TRACKING_FLOOR` ("tracking");
* "static": ``OnlineLDA(K)`` at its defaults (passes chosen on held-out training documents)
  fitted afresh on all the documents before the period.

Part 2, one period ahead against the dynamic topic models (Blei & Lafferty 2006), on a subset
they finish: ``--subset`` documents drawn evenly from ``--subset-periods`` consecutive years,
the last of them held out, K = ``--subset-topics``; every model is trained on the other years
and scores the held-out year's documents on the words of the training subset:
tomotopy's ``DTModel`` (``--dtm-iterations`` Gibbs iterations; its last time point's topics)
and gensim's ``LdaSeqModel`` (its last time slice's topics and its Dirichlet alphas), beside
the tracking run, the time-ordered run and the static model, all scored by left-to-right.
DTModel's document proportions are logistic-normal, not Dirichlet: it is scored with the
Dirichlet of the same mean (the softmax of its last time point's alpha) and the static model's
total concentration sum_k alpha_k. CPU seconds of training, one thread.

``--quick`` runs LdaSeqModel for one EM iteration: the code path, not its figures.

Usage: python bench/timeline.py [--topics 30] [--documents 300] [--subset 1500]
           [--subset-periods 4] [--subset-topics 10] [--dtm-iterations 200]
           [--ldaseq-iterations 20] [--quick]
"""

from __future__ import annotations

import importlib.util
import time

from measuring import CORPORA, arguments, number, parse, write_results  # first: one thread

import numpy as np


def load_stream(args):
    """(the dated corpus in time order, its period): gitlog by year, or the planted corpus."""
    if args.quick:
        from streamtopics.corpus.synthetic import generate_drifting
        corpus, _ = generate_drifting(n_topics=4, n_words=300, n_periods=6,
                                      documents_per_period=400, drift=0.9, seed=1)
        return corpus, "year"
    from streamtopics import load_corpus
    return load_corpus(CORPORA / "gitlog" / "raw.jsonl.gz", time_field="date"), "year"


def forward(args, corpus, period: str, n_topics: int) -> dict:
    """Part 1: per period, the score of each model; the training seconds of each."""
    from streamtopics import OnlineLDA
    from streamtopics.timeline import DEFAULT_TRACKING_FLOOR, forward_chaining, track_topics

    runs, seconds = {}, {}
    for name, floor in (("time order", 0.0), ("tracking", DEFAULT_TRACKING_FLOOR)):
        started = time.process_time()
        runs[name] = track_topics(OnlineLDA(n_topics=n_topics, random_state=0, step_floor=floor,
                                            batch_size=args.batch_size), corpus, period)
        seconds[name] = time.process_time() - started
    scores = forward_chaining(corpus, runs, static=lambda past: OnlineLDA(
        n_topics=n_topics, random_state=0, batch_size=args.batch_size).fit(past),
        max_documents=args.documents)
    seconds["static"] = scores.seconds["static"]
    return {"periods": scores.rows(), "seconds": seconds,
            "wins": {name: scores.wins(name, "static") for name in runs},
            "scored_periods": len(scores.labels)}


def subset(corpus, args):
    """Part 2's documents: ``--subset`` drawn evenly (seeded) from the last
    ``--subset-periods`` years with documents (gitlog: 2005-2008), with each one's period."""
    from streamtopics.corpus.time import assign_periods, document_times
    periods = assign_periods(document_times(corpus), "year")
    chosen = range(args.subset_periods) if not args.quick else range(periods.n_periods)[-4:]
    rng = np.random.default_rng(0)
    per_period = args.subset // len(chosen)
    rows, labels = [], []
    for t in chosen:
        inside = np.flatnonzero(periods.index == t)
        picked = np.sort(rng.choice(inside, min(per_period, inside.size), replace=False))
        rows.append(picked)
        labels.extend([len(rows) - 1] * picked.size)
    rows = np.concatenate(rows)
    return corpus[rows], np.asarray(labels), [periods.labels[t] for t in chosen]


def one_step_ahead(args, corpus) -> dict:
    """Part 2: training seconds and the held-out year's score per document of each model."""
    from streamtopics import OnlineLDA
    from streamtopics.corpus import occurring_words, restrict_to_words
    from streamtopics.evaluation import left_to_right
    from streamtopics.timeline import DEFAULT_TRACKING_FLOOR, track_topics

    documents, slices, labels = subset(corpus, args)
    last = slices.max()
    train, test = documents[slices < last], documents[slices == last]
    test = restrict_to_words(test, occurring_words(train.counts))[0]
    k = args.subset_topics
    models, seconds = {}, {}

    def timed(name, build):
        started = time.process_time()
        models[name] = build()
        seconds[name] = time.process_time() - started

    for name, floor in (("time order", 0.0), ("tracking", DEFAULT_TRACKING_FLOOR)):
        timed(name, lambda floor=floor: _last_snapshot(track_topics(
            OnlineLDA(n_topics=k, random_state=0, step_floor=floor, batch_size=args.batch_size),
            train, "year")))
    timed("static", lambda: _parameters(OnlineLDA(n_topics=k, random_state=0,
                                                  batch_size=args.batch_size).fit(train)))
    if importlib.util.find_spec("tomotopy") is not None:
        concentration = float(models["static"][1].sum())
        timed("tomotopy DTModel", lambda: _dtmodel(train, slices[slices < last], k,
                                                   args.dtm_iterations, concentration))
    else:
        print("tomotopy is not installed: DTModel skipped")
    if importlib.util.find_spec("gensim") is not None:
        timed("gensim LdaSeqModel", lambda: _ldaseq(train, slices[slices < last], k,
                                                    args.ldaseq_iterations))
    else:
        print("gensim is not installed: LdaSeqModel skipped")
    scores = {}
    for name, (beta, alpha) in models.items():
        result = left_to_right(beta, alpha, test, n_particles=20, seed=0)
        scores[name] = float(np.sum(result.log_likelihoods)) / test.n_documents
    return {"years": labels, "train_documents": train.n_documents,
            "test_documents": test.n_documents, "topics": k, "seconds": seconds,
            "per_document": scores}


def _parameters(model):
    return np.asarray(model.components_), np.asarray(model.doc_topic_prior_)


def _last_snapshot(tracked):
    return tracked.snapshots[-1], tracked.alphas[-1]


def _dtmodel(train, slices, k: int, iterations: int, concentration: float):
    """tomotopy's DTModel on ``train`` (time points ``slices``): its last time point's topics
    (over the corpus' vocabulary; words it never saw get its smallest probability) and the
    Dirichlet of its proportions' mean with total ``concentration`` (module docstring)."""
    import tomotopy as tp
    vocabulary = np.asarray(train.vocabulary)
    model = tp.DTModel(k=k, t=int(slices.max()) + 1, seed=0)
    flat, offsets = train.document_tokens()
    for d in range(train.n_documents):
        model.add_doc(vocabulary[flat[offsets[d]:offsets[d + 1]]].tolist(), timepoint=int(slices[d]))
    model.train(iterations, workers=1)
    last = int(slices.max())
    column = {word: i for i, word in enumerate(vocabulary.tolist())}
    beta = np.zeros((k, vocabulary.size))
    for topic in range(k):
        weights = np.asarray(model.get_topic_word_dist(topic, timepoint=last))
        for word, weight in zip(model.used_vocabs, weights):
            beta[topic, column[word]] = weight
    beta = np.maximum(beta, beta[beta > 0].min())
    mean = np.exp(np.asarray(model.get_alpha(last)))
    return beta / beta.sum(axis=1, keepdims=True), concentration * mean / mean.sum()


def _ldaseq(train, slices, k: int, iterations: int):
    """gensim's LdaSeqModel on ``train`` (at most ``iterations`` EM iterations): its last time
    slice's topics and alphas."""
    from gensim.models.ldaseqmodel import LdaSeqModel
    counts = train.counts.tocsr()
    bow = [list(zip(counts.indices[counts.indptr[d]:counts.indptr[d + 1]].tolist(),
                    counts.data[counts.indptr[d]:counts.indptr[d + 1]].tolist()))
           for d in range(train.n_documents)]
    id2word = dict(enumerate(np.asarray(train.vocabulary).tolist()))
    time_slice = np.bincount(slices).tolist()
    model = LdaSeqModel(corpus=bow, id2word=id2word, time_slice=time_slice, num_topics=k,
                        random_state=0, em_min_iter=min(6, iterations), em_max_iter=iterations,
                        passes=min(10, iterations))
    last = len(time_slice) - 1
    beta = np.exp(np.stack([chain.e_log_prob[:, last] for chain in model.topic_chains]))
    return beta / beta.sum(axis=1, keepdims=True), np.asarray(model.alphas)


def main(argv=None) -> None:
    parser = arguments(__doc__, repeats=1)
    parser.add_argument("--topics", type=int, default=30, help="K of part 1 (default 30)")
    parser.add_argument("--documents", type=int, default=300,
                        help="documents scored per period (default 300)")
    parser.add_argument("--batch-size", type=int, default=100)
    parser.add_argument("--subset", type=int, default=1500,
                        help="documents of part 2 (default 1,500)")
    parser.add_argument("--subset-periods", type=int, default=4,
                        help="years of part 2, the last held out (default 4)")
    parser.add_argument("--subset-topics", type=int, default=10, help="K of part 2 (default 10)")
    parser.add_argument("--dtm-iterations", type=int, default=200,
                        help="DTModel's Gibbs iterations (default 200)")
    parser.add_argument("--ldaseq-iterations", type=int, default=20,
                        help="LdaSeqModel's EM iterations at most (gensim's default 20)")
    args = parse(parser, argv)
    if args.quick:
        args.topics, args.documents, args.subset, args.subset_topics = 4, 100, 400, 4
        args.dtm_iterations, args.ldaseq_iterations, args.batch_size = 50, 1, 25
    corpus, period = load_stream(args)
    chained = forward(args, corpus, period, args.topics)
    ahead = one_step_ahead(args, corpus)
    names = list(chained["seconds"])
    table = ["## Forward chaining: each period scored by models of the periods before it",
             "",
             "| period | documents | " + " | ".join(f"{n} (nats/doc)" for n in names) + " |",
             "|---|---:|" + "---:|" * len(names)]
    for row in chained["periods"]:
        table.append(f"| {row['period']} | {row['documents']} | "
                     + " | ".join(number(row[f'{n}_per_document'], 1) for n in names) + " |")
    table += ["", "Training CPU seconds, whole stream: " + ", ".join(
        f"{n} {number(s, 1)}" for n, s in chained["seconds"].items()) + " (static: one fit "
        "per period, summed).", "",
        f"## One year ahead on {ahead['train_documents']:,} + {ahead['test_documents']:,} "
        f"documents ({', '.join(ahead['years'])}, the last held out), K = {ahead['topics']}",
        "", "| model | held-out nats/doc | training CPU s |", "|---|---:|---:|"]
    for name, score in ahead["per_document"].items():
        table.append(f"| {name} | {number(score, 1)} | {number(ahead['seconds'][name], 2)} |")
    wins = chained["wins"]
    headline = [f"forward chaining over {chained['scored_periods']} periods: tracking beats the "
                f"static model in {wins['tracking']}, time order in {wins['time order']}",
                "one year ahead: " + ", ".join(
                    f"{name} {number(score, 1)} nats/doc in {number(ahead['seconds'][name], 1)} s"
                    for name, score in ahead["per_document"].items())]
    write_results(args, {"forward": chained, "one_step_ahead": ahead},
                  "Topics through time: forward chaining and the dynamic topic models",
                  table, headline)


if __name__ == "__main__":
    main()
