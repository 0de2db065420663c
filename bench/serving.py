"""How many documents per second does a fitted model's transform serve on one thread, against
gensim and scikit-learn, and how good are the topic proportions it returns?

Per corpus (the training split; the test split restricted to the words seen in training) and
K, each library's model is fitted once, at its own defaults, on the same documents and
vocabulary:

* streamtopics ``OnlineLDA(K)`` (G-OEM, passes chosen on held-out training documents). Its
  ``transform`` runs the method's local Gibbs step with the model fixed: P = ``local_passes``
  (20) passes per document, the last R = P / 4 recorded, the sampler of ``local_sampler``
  ("auto": sparse), documents in minibatches, each seeded from its content;
* gensim ``LdaModel`` (one pass, chunks of 2,000, alpha = eta = 1/K). Served by ``inference``
  for a batch: the variational E-step, at most ``iterations`` (50) updates of a document's
  gamma, stopping when their mean change is below ``gamma_threshold`` (0.001); and by
  ``get_document_topics`` for one document (the same E-step; proportions below 0.01 dropped);
* scikit-learn ``LatentDirichletAllocation(learning_method="online")`` (``max_iter`` 10 passes,
  batches of 128, alpha = eta = 1/K). Served by ``transform``: the same kind of E-step, at most
  ``max_doc_update_iter`` (100) updates, ``mean_change_tol`` 0.001.

Speed, in documents per second of one thread (numba, BLAS and OpenMP pinned to one), three ways:
the test documents in one call; the first ``--batch-documents`` training documents in one
call (a batch long enough that the cost of a call is negligible); one call per document over
the first ``--single-documents`` test documents (a service answering requests one by one;
gensim's call is ``get_document_topics``). Documents are converted to each library's input
before the clock starts. CPU seconds, every timing ``--repeats`` times by turns, the best
counts; the ratio is a library's time over streamtopics' for the same documents (below 1:
the library is faster).

Quality, beside the speed, so that a faster but worse transform does not look good: document
completion (Asuncion et al. 2009; Papanikolaou et al. 2017, section 5.2). Each test document of
two tokens or more is cut in reading order; theta is inferred from its first floor(N/2) tokens
by the library's own batch call, and the rest is scored by sum_j log sum_k theta_k beta_{k,w_j}
with the library's own topics (E_q[beta] for the Bayesian peers), in nats per held-out token
(higher is better), with the paired standard error of the difference to streamtopics over
documents. It scores what a served theta is for, predicting the document's words, whatever
kind of estimate the library returns (a Gibbs posterior mean or a variational E_q[theta]), at
the cost of one transform; agreement with a fuller inference alone would reward a transform
for being close to a poor fixed point. It also mixes the model with the transform, so the
same score with a fuller inference of the same model stands beside it (`FULLER` times the
Gibbs passes, P = 200; for gensim and scikit-learn `FULLER_VARIATIONAL`, 500 updates at
tolerance 1e-6): their difference is what the default number of passes or stopping rule
gives away. ``--quick``: a small planted corpus,
where the true model is scored too (theta by collapsed Gibbs sampling with the true topics,
`streamtopics.evaluation.document_completion`).

Usage: python bench/serving.py [--corpora debian newsarticles] [--topics 20 100]
           [--batch-documents 2000] [--single-documents 200] [--repeats 3] [--quick]
"""

from __future__ import annotations

import copy
import importlib.util
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Callable

from measuring import (arguments, corpora_and_topics, cpu_seconds, interleaved, parse, seen_in,
                       write_results)  # first: it pins BLAS and numba to one thread

import numba  # noqa: E402
import numpy as np  # noqa: E402
import scipy.sparse as sp  # noqa: E402

REFERENCE = "streamtopics"
FULLER = 10  # the fuller inference: this many times the default passes (Gibbs)
FULLER_VARIATIONAL = {"updates": 500, "tolerance": 1e-6}
MODES = {"test": "test documents, one call", "batch": "batch, one call",
         "single": "one document per call"}


@dataclass
class Server:
    """One library's fitted model as a service: its topics (K x V, rows summing to 1), what its
    transform runs (`settings`), its input of a CSR count matrix (`prepare`) and of each
    document alone (`requests`), its batch call (prepared documents -> D x K proportions, rows
    summing to 1), its call for one prepared document, and a fuller inference (CSR counts ->
    proportions)."""

    name: str
    settings: str
    beta: np.ndarray
    prepare: Callable
    requests: Callable
    batch: Callable
    single: Callable
    fuller: Callable


def rows_of(counts: sp.csr_matrix) -> list:
    return [counts[row:row + 1] for row in range(counts.shape[0])]


@contextmanager
def attributes_set(model, **values):
    """``model`` with ``values`` set as attributes inside the block, restored after it."""
    saved = {name: getattr(model, name) for name in values}
    for name, value in values.items():
        setattr(model, name, value)
    try:
        yield model
    finally:
        for name, value in saved.items():
            setattr(model, name, value)


def streamtopics_server(train, n_topics: int, seed: int) -> Server:
    from streamtopics.estimators import OnlineLDA
    from streamtopics.inference.gibbs_estep import GibbsEstimator
    model = OnlineLDA(n_topics, random_state=seed).fit(train)
    passes = model.local_passes
    fuller = copy.copy(model)  # the same engine, transformed by a longer local chain
    fuller.transform_estimator = lambda: GibbsEstimator(passes=FULLER * passes,
                                                        sampler=model.local_sampler)
    settings = (f"{model.method_.name} ({model.n_passes_} passes); transform: local Gibbs, "
                f"P = {passes}, last {max(1, passes // 4)} recorded, sampler "
                f"{model.local_sampler}")
    return Server(REFERENCE, settings, np.asarray(model.components_), lambda counts: counts,
                  rows_of, model.transform, model.transform, fuller.transform)


def bag_of_words(counts: sp.csr_matrix) -> list:
    from gensim.matutils import Sparse2Corpus
    return list(Sparse2Corpus(counts, documents_columns=False))


def gensim_server(train, n_topics: int, seed: int) -> Server:
    from gensim.models import LdaModel
    model = LdaModel(bag_of_words(train.counts), num_topics=n_topics,
                     id2word=dict(enumerate(map(str, train.vocabulary))), eval_every=None,
                     random_state=seed)

    def proportions(documents):
        gamma, _ = model.inference(documents)
        return gamma / gamma.sum(axis=1, keepdims=True)

    def fuller(counts):
        with attributes_set(model, iterations=FULLER_VARIATIONAL["updates"],
                            gamma_threshold=FULLER_VARIATIONAL["tolerance"]):
            return proportions(bag_of_words(counts))

    settings = (f"LdaModel ({model.passes} pass); inference: at most {model.iterations} "
                f"updates, gamma_threshold {model.gamma_threshold}")
    return Server("gensim", settings, model.get_topics(), bag_of_words, bag_of_words,
                  proportions, model.get_document_topics, fuller)


def sklearn_server(train, n_topics: int, seed: int) -> Server:
    from sklearn.decomposition import LatentDirichletAllocation
    model = LatentDirichletAllocation(n_components=n_topics, learning_method="online",
                                      random_state=seed).fit(train.counts)

    def fuller(counts):
        with attributes_set(model, max_doc_update_iter=FULLER_VARIATIONAL["updates"],
                            mean_change_tol=FULLER_VARIATIONAL["tolerance"]):
            return model.transform(counts)

    settings = (f"online ({model.max_iter} passes); transform: at most "
                f"{model.max_doc_update_iter} updates, mean_change_tol {model.mean_change_tol}")
    beta = model.components_ / model.components_.sum(axis=1, keepdims=True)
    return Server("scikit-learn", settings, beta, lambda counts: counts, rows_of,
                  model.transform, model.transform, fuller)


SERVERS = {REFERENCE: ("streamtopics", streamtopics_server),
           "gensim": ("gensim", gensim_server),
           "scikit-learn": ("sklearn", sklearn_server)}


def one_thread() -> None:
    """numba, BLAS and OpenMP on one thread whatever the environment says."""
    numba.set_num_threads(1)
    if importlib.util.find_spec("threadpoolctl"):
        from threadpoolctl import threadpool_limits
        threadpool_limits(1)


# --- document completion -----------------------------------------------------------------------

@dataclass
class Halves:
    """The test documents of two tokens or more, cut in reading order: the first floor(N/2)
    tokens (``observed``, D x V counts), the rest (``held_out``), and the kept documents as a
    (word ids, offsets) pair (what `document_completion` takes, cut at the same place)."""

    observed: sp.csr_matrix
    held_out: sp.csr_matrix
    tokens: tuple


def halves(test) -> Halves:
    flat, offsets = test.document_tokens()
    lengths = np.diff(offsets)
    kept = lengths >= 2
    document = np.repeat(np.arange(lengths.size), lengths)
    position = np.arange(flat.size) - np.repeat(offsets[:-1], lengths)
    observed = position < np.repeat(lengths // 2, lengths)

    def counts(tokens):
        return sp.csr_matrix((np.ones(tokens.sum(), dtype=np.int64),
                              (document[tokens], flat[tokens])),
                             shape=(lengths.size, test.n_words))[kept]

    keep_tokens = np.repeat(kept, lengths)
    kept_offsets = np.concatenate([[0], np.cumsum(lengths[kept])])
    return Halves(counts(observed), counts(~observed),
                  (flat[keep_tokens], kept_offsets.astype(np.int64)))


def completion(theta: np.ndarray, beta: np.ndarray, held_out: sp.csr_matrix) -> np.ndarray:
    """Per document: sum over its held-out tokens of log sum_k theta_dk beta_kw (nats)."""
    rows = np.repeat(np.arange(held_out.shape[0]), np.diff(held_out.indptr))
    probabilities = np.einsum("nk,kn->n", theta[rows], beta[:, held_out.indices])
    return np.bincount(rows, weights=held_out.data * np.log(probabilities),
                       minlength=held_out.shape[0])


def per_token(scores: np.ndarray, tokens: int) -> float:
    return float(scores.sum() / tokens)


def paired_per_token(reference: np.ndarray, scores: np.ndarray, tokens: int):
    """(reference - scores) per held-out token and its standard error over documents."""
    difference = reference - scores
    return (float(difference.sum() / tokens),
            float(np.sqrt(difference.size) * difference.std(ddof=1) / tokens))


# --- one corpus and K ----------------------------------------------------------------------------

def compare(corpus_name, train, test, n_topics, servers, args, truth=None) -> list[dict]:
    """Every library of ``servers`` (name -> fit(train, K, seed) -> `Server`) on one corpus
    and K: its row (see the module docstring)."""
    fitted = {name: fit(train, n_topics, 0) for name, fit in servers.items()}
    documents = {"test": test.counts, "batch": train.counts[:args.batch_documents],
                 "single": test.counts[:args.single_documents]}
    runs = {}
    for name, server in fitted.items():
        server.batch(server.prepare(test.counts[:5]))  # compiled, warm, outside the timing
        for mode, counts in documents.items():
            if mode == "single":
                runs[name, mode] = (lambda s=server, r=server.requests(counts):
                                    cpu_seconds(lambda: [s.single(d) for d in r]))
            else:
                runs[name, mode] = (lambda s=server, p=server.prepare(counts):
                                    cpu_seconds(s.batch, p))
    timings = interleaved(runs, args.repeats)
    cut = halves(test)
    tokens = int(cut.held_out.sum())
    scores = {name: completion(server.batch(server.prepare(cut.observed)), server.beta,
                               cut.held_out) for name, server in fitted.items()}
    rows = []
    for name, server in fitted.items():
        fuller = completion(server.fuller(cut.observed), server.beta, cut.held_out)
        better_by, se = paired_per_token(scores[REFERENCE], scores[name], tokens)
        row = {"corpus": corpus_name, "K": n_topics, "library": name,
               "settings": server.settings, "completion_per_token": per_token(scores[name], tokens),
               "fuller_completion_per_token": per_token(fuller, tokens),
               "streamtopics_better_by": better_by, "paired_se": se,
               "held_out_documents": cut.held_out.shape[0], "held_out_tokens": tokens}
        row["default_minus_fuller"] = (row["completion_per_token"]
                                       - row["fuller_completion_per_token"])
        for mode, counts in documents.items():
            timing = timings[name, mode]
            row[f"{mode}_documents"] = counts.shape[0]
            row[f"{mode}_seconds"] = timing.best
            row[f"{mode}_seconds_by_repeat"] = timing.seconds
            row[f"{mode}_documents_per_second"] = counts.shape[0] / timing.best
            row[f"{mode}_time_ratio"] = timing.best / timings[REFERENCE, mode].best
        rows.append(row)
        print(f"{corpus_name:12} K={n_topics:<4} {name:13} "
              + "  ".join(f"{mode} {row[f'{mode}_documents_per_second']:8,.0f}/s"
                          for mode in MODES)
              + f"  completion {row['completion_per_token']:.4f}", flush=True)
    if truth is not None:
        from streamtopics.evaluation import document_completion
        true = document_completion(truth.beta, truth.alpha, cut.tokens)
        rows.append({"corpus": corpus_name, "K": n_topics, "library": "true model",
                     "completion_per_token": per_token(true.log_likelihoods, tokens),
                     "held_out_tokens": true.n_tokens})
    return rows


def markdown(rows) -> list[str]:
    lines = ["| corpus | K | library | " + " | ".join(f"{text}: docs/s (time / streamtopics)"
                                                     for text in MODES.values())
             + " | completion, nats/token | streamtopics better by (± paired SE) "
             "| default - fuller inference | what it runs |",
             "|---|---:|---|" + "---:|" * (len(MODES) + 3) + "---|"]
    for row in rows:
        if "settings" not in row:  # the true model: a score alone
            lines.append(f"| {row['corpus']} | {row['K']} | {row['library']} |"
                         + " |" * len(MODES) + f" {row['completion_per_token']:.4f} | | | |")
            continue
        speeds = " | ".join(f"{row[f'{mode}_documents_per_second']:,.0f} "
                            f"({row[f'{mode}_time_ratio']:.2f})" for mode in MODES)
        versus = ("" if row["library"] == REFERENCE else
                  f"{row['streamtopics_better_by']:+.4f} ± {row['paired_se']:.4f}")
        lines.append(f"| {row['corpus']} | {row['K']} | {row['library']} | {speeds} | "
                     f"{row['completion_per_token']:.4f} | {versus} | "
                     f"{row['default_minus_fuller']:+.4f} | {row['settings']} |")
    return lines


def headline(rows) -> list[str]:
    """A line per corpus and K: streamtopics' documents per second in a batch and one by one,
    then each peer's, with its time ratio, and the completion scores."""
    lines = []
    for reference in (row for row in rows if row["library"] == REFERENCE):
        peers = [row for row in rows if row["library"] not in (REFERENCE, "true model")
                 and (row["corpus"], row["K"]) == (reference["corpus"], reference["K"])]
        lines.append(
            f"{reference['corpus']}, K = {reference['K']}: streamtopics "
            f"{reference['batch_documents_per_second']:,.0f} docs/s in a batch, "
            f"{reference['single_documents_per_second']:,.0f} one per call, completion "
            f"{reference['completion_per_token']:.3f} nats/token; " + "; ".join(
                f"{row['library']} {row['batch_documents_per_second']:,.0f} "
                f"({row['batch_time_ratio']:.2f}x the time), "
                f"{row['single_documents_per_second']:,.0f} ({row['single_time_ratio']:.2f}x), "
                f"{row['completion_per_token']:.3f}" for row in peers))
    return lines


def main() -> None:
    parser = arguments(__doc__, repeats=3)
    parser.add_argument("--corpora", nargs="+", default=["debian", "newsarticles"])
    parser.add_argument("--topics", type=int, nargs="+", default=[20, 100])
    parser.add_argument("--batch-documents", type=int, default=2000,
                        help="training documents transformed in one call")
    parser.add_argument("--single-documents", type=int, default=200,
                        help="test documents transformed one call each")
    args = parse(parser)
    one_thread()
    skipped = {name: f"{module} is not installed" for name, (module, _) in SERVERS.items()
               if name != REFERENCE and not importlib.util.find_spec(module)}
    for name, reason in skipped.items():
        print(f"skipped {name}: {reason}", flush=True)
    servers = {name: fit for name, (_, fit) in SERVERS.items() if name not in skipped}
    data, topic_counts = corpora_and_topics(args)
    rows = [row for name, train, test, truth in data for n_topics in topic_counts
            for row in compare(name, train, seen_in(train, test), n_topics, servers, args,
                               truth)]
    notes = [f"One thread (numba, BLAS, OpenMP); CPU seconds, best of {args.repeats} by "
             "turns; docs/s and, in brackets, the library's time over streamtopics' for the "
             "same documents. Completion: log-likelihood of each test document's second half "
             "given theta from its first half, per held-out token (higher is better); the "
             f"fuller inference runs {FULLER}x the default Gibbs passes, or "
             f"{FULLER_VARIATIONAL['updates']} updates at tolerance "
             f"{FULLER_VARIATIONAL['tolerance']:g}."]
    notes += [f"Skipped {name}: {reason}." for name, reason in skipped.items()]
    write_results(args, {"skipped": skipped, "fuller": {"gibbs_passes_times": FULLER,
                                                        **FULLER_VARIATIONAL}, "rows": rows},
                  "Serving speed: transform's documents per second, one thread, side by side",
                  [*markdown(rows), "", *notes], headline(rows))


if __name__ == "__main__":
    main()
