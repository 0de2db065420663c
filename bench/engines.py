"""The topic models the bench compares, each behind one function that trains on a `Corpus`
and returns `Fitted`: its topics as a K x V array of rows summing to 1 (E_q[beta] for the
Bayesian ones), its document-topic prior alpha, and the CPU seconds of training, so that every
engine is scored by the same left-to-right evaluator on the same documents.

* streamtopics G-OEM (`goem`): ``OnlineLDA``, one pass or its default fit;
* gensim ``LdaModel`` and scikit-learn's online ``LatentDirichletAllocation``, in this
  process (data converted to their input before the clock starts);
* Vowpal Wabbit's ``--lda`` (Hoffman et al. 2010's online VB in C++): a child process of
  ``python -m vowpalwabbit`` reading ``| word:count ...`` lines, its ``--readable_model`` (one
  line per hashed feature: the K entries of lambda) read back; a word's id is its feature's
  index, so ``-b`` bits cover the vocabulary;
* BigARTM (ARTM with LDA's smoothing regularisers, `bigartm`): version 0.9.2 needs
  ``protobuf<=3.20``, so it lives in its own environment (``.venv-bigartm``, made by ``make
  bench``), and this file runs there as a script (``python engines.py bigartm WORKDIR
  SETTINGS``), exchanging the corpus (UCI bag of words) and phi (``.npy``) through files;
* tomotopy's collapsed Gibbs ``LDAModel`` (`tomotopy_lda`).

`missing` says why an engine cannot run here (not installed), so that a script skips it with
a line saying so. Each function's docstring gives its settings.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from measuring import children_cpu_seconds  # first: it pins BLAS and numba to one thread

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
BIGARTM_PYTHON = Path(os.environ.get("BIGARTM_PYTHON", ROOT / ".venv-bigartm" / "bin" / "python"))


@dataclass
class Fitted:
    beta: np.ndarray      # K x V, rows summing to 1
    alpha: np.ndarray     # K
    seconds: float        # CPU seconds of training
    passes: int = 1


def missing(engine: str) -> str | None:
    """Why ``engine`` ("gensim", "scikit-learn", "vowpalwabbit", "bigartm", "tomotopy", "lda")
    cannot run here, or None."""
    if engine == "bigartm":
        if not BIGARTM_PYTHON.exists():
            return f"BigARTM's environment {BIGARTM_PYTHON} is absent (make bench creates it)"
        found = subprocess.run([str(BIGARTM_PYTHON), "-c", "import artm"], capture_output=True)
        return None if found.returncode == 0 else f"{BIGARTM_PYTHON} cannot import artm"
    module = {"scikit-learn": "sklearn"}.get(engine, engine)
    return None if importlib.util.find_spec(module) else f"{engine} is not installed"


def normalised(topics) -> np.ndarray:
    topics = np.asarray(topics, dtype=np.float64)
    return topics / topics.sum(axis=1, keepdims=True)


def goem(train, n_topics: int, seed: int = 0, **options) -> Fitted:
    """``OnlineLDA(n_topics, random_state=seed, **options).fit(train)``: with ``n_passes=1``
    one pass of G-OEM (minibatches of 100, P = 20 local passes); without, the default fit
    (passes chosen on held-out documents of the training set)."""
    from streamtopics.estimators import OnlineLDA
    model = OnlineLDA(n_topics, random_state=seed, **options)
    started = time.process_time()
    model.fit(train)
    return Fitted(normalised(model.components_), np.asarray(model.doc_topic_prior_, float),
                  time.process_time() - started, model.n_passes_)


def gensim_lda(train, n_topics: int, seed: int = 0, **options) -> Fitted:
    """gensim ``LdaModel``, one pass at its defaults (chunksize 2000, offset 1, decay 0.5,
    50 iterations, alpha = eta = 1/K) but ``options``; no logged perplexity."""
    from gensim.matutils import Sparse2Corpus
    from gensim.models import LdaModel
    documents = list(Sparse2Corpus(train.counts, documents_columns=False))
    id2word = dict(enumerate(map(str, train.vocabulary)))
    started = time.process_time()
    model = LdaModel(documents, num_topics=n_topics, id2word=id2word, passes=1,
                     eval_every=None, random_state=seed, **options)
    seconds = time.process_time() - started
    return Fitted(normalised(model.get_topics()), np.asarray(model.alpha, float), seconds)


def sklearn_lda(train, n_topics: int, seed: int = 0) -> Fitted:
    """scikit-learn ``LatentDirichletAllocation(learning_method="online", max_iter=1)``, one
    pass at its defaults (minibatches of 128, learning offset 10, decay 0.7, alpha = eta =
    1/K)."""
    from sklearn.decomposition import LatentDirichletAllocation
    model = LatentDirichletAllocation(n_components=n_topics, learning_method="online",
                                      max_iter=1, random_state=seed)
    started = time.process_time()
    model.fit(train.counts)
    seconds = time.process_time() - started
    return Fitted(normalised(model.components_), np.full(n_topics, model.doc_topic_prior_),
                  seconds)


# Vowpal Wabbit's LDA: its documented prior defaults, minibatches of 256 and rho_t =
# (1 + t)^-0.5 as in its LDA examples (minibatches of 1,024 crash 9.11.9 on debian).
VOWPAL_WABBIT = {"--lda_alpha": 0.1, "--lda_rho": 0.1, "--minibatch": 256, "--power_t": 0.5,
                 "--initial_t": 1}


def vowpal_wabbit(train, n_topics: int, seed: int = 0) -> Fitted:
    """``vw --lda K`` with `VOWPAL_WABBIT`, ``--lda_D`` the training documents, one pass; CPU
    seconds of the child process (reading its text input included: that is how it learns)."""
    bits = max(1, int(np.ceil(np.log2(train.n_words))))
    with tempfile.TemporaryDirectory() as work:
        data, model = Path(work) / "train.vw", Path(work) / "model.txt"
        counts = train.counts
        with data.open("w") as lines:
            for d in range(counts.shape[0]):
                entries = slice(counts.indptr[d], counts.indptr[d + 1])
                lines.write("| " + " ".join(f"{w}:{c:g}" for w, c in zip(
                    counts.indices[entries], counts.data[entries])) + "\n")
        options = [str(part) for option in VOWPAL_WABBIT.items() for part in option]
        started = children_cpu_seconds()
        subprocess.run([sys.executable, "-m", "vowpalwabbit", "--lda", str(n_topics),
                        "--lda_D", str(train.n_documents), "-b", str(bits), "--passes", "1",
                        "--random_seed", str(seed), *options, "-d", str(data),
                        "--readable_model", str(model), "--quiet"], check=True)
        seconds = children_cpu_seconds() - started
        lam = np.zeros((2 ** bits, n_topics))
        for line in model.read_text().splitlines():
            fields = line.split()
            if len(fields) == n_topics + 1 and fields[0].isdigit():
                lam[int(fields[0])] = np.asarray(fields[1:], dtype=float)
    return Fitted(normalised(lam[:train.n_words].T),
                  np.full(n_topics, float(VOWPAL_WABBIT["--lda_alpha"])), seconds)


# BigARTM: LDA's smoothing regularisers (tau = eta on phi, alpha on theta, as BigARTM's own
# LDA model sets them), 10 passes over each document, batches of 250 documents, phi updated
# every ``update_every`` batches with weight rho = (tau0 + updates)^-kappa (which
# update_every scores best depends on the corpus: vs_peers.py runs several).
BIGARTM = {"eta": 0.01, "alpha": 0.1, "document_passes": 10, "batch_size": 250, "tau0": 64.0,
           "kappa": 0.5, "update_every": 1}


def bigartm(train, n_topics: int, seed: int = 0, **options) -> Fitted:
    """BigARTM's ``fit_online``, one pass, ``num_processors=1``, with `BIGARTM` but
    ``options``; in its own environment (`BIGARTM_PYTHON`). CPU seconds of ``fit_online``
    alone (the conversion of the UCI files to its batches excluded)."""
    settings = {**BIGARTM, **options, "n_topics": n_topics, "n_words": train.n_words,
                "seed": seed}
    with tempfile.TemporaryDirectory() as work:
        counts = train.counts.tocoo()
        with (Path(work) / "docword.train.txt").open("w") as lines:
            lines.write(f"{counts.shape[0]}\n{counts.shape[1]}\n{counts.nnz}\n")
            lines.writelines(f"{d + 1} {w + 1} {c:g}\n"
                             for d, w, c in zip(counts.row, counts.col, counts.data))
        (Path(work) / "vocab.train.txt").write_text(
            "".join(f"w{i}\n" for i in range(train.n_words)))
        output = subprocess.run([str(BIGARTM_PYTHON), str(Path(__file__).resolve()), "bigartm",
                                 work, json.dumps(settings)], check=True, capture_output=True,
                                text=True, cwd=work).stdout  # its log files go there
        seconds = json.loads(output.strip().splitlines()[-1])["seconds"]
        phi = np.load(Path(work) / "phi.npy")
    return Fitted(normalised(phi), np.full(n_topics, settings["alpha"]), seconds)


def _bigartm_child(work: str, settings: str) -> None:
    """In BigARTM's environment: train on ``WORK/docword.train.txt`` and write the K x V phi
    to ``WORK/phi.npy`` (words absent from training: 0), printing the CPU seconds."""
    import artm
    settings = json.loads(settings)
    batches = artm.BatchVectorizer(data_path=work, data_format="bow_uci",
                                   collection_name="train",
                                   target_folder=str(Path(work) / "batches"),
                                   batch_size=settings["batch_size"])
    model = artm.ARTM(num_topics=settings["n_topics"], dictionary=batches.dictionary,
                      num_processors=1, num_document_passes=settings["document_passes"],
                      seed=settings["seed"],
                      regularizers=[
                          artm.SmoothSparsePhiRegularizer(name="phi", tau=settings["eta"]),
                          artm.SmoothSparseThetaRegularizer(name="theta",
                                                            tau=settings["alpha"])])
    started = time.process_time()
    model.fit_online(batches, update_every=settings["update_every"], tau0=settings["tau0"],
                     kappa=settings["kappa"])
    seconds = time.process_time() - started
    phi = model.get_phi()
    topics = np.zeros((settings["n_topics"], settings["n_words"]))
    topics[:, [int(token[1:]) for token in phi.index]] = phi.to_numpy().T
    np.save(Path(work) / "phi.npy", topics)
    print(json.dumps({"seconds": seconds}))


def tomotopy_lda(train, n_topics: int, iterations: int, seed: int = 0) -> Fitted:
    """tomotopy ``LDAModel(k=K, alpha=0.1, eta=0.01)``, collapsed Gibbs sampling with alpha
    optimised every 10 iterations (its default), ``iterations`` sweeps, one worker; topics
    mapped back onto the corpus vocabulary (words absent from training: 0)."""
    import tomotopy
    model = tomotopy.LDAModel(k=n_topics, alpha=0.1, eta=0.01, seed=seed)
    flat, offsets = train.document_tokens()
    for d in range(train.n_documents):
        model.add_doc([str(w) for w in flat[offsets[d]:offsets[d + 1]]])
    started = time.process_time()
    model.train(iterations, workers=1)
    seconds = time.process_time() - started
    words = np.array([int(word) for word in model.used_vocabs])
    beta = np.zeros((n_topics, train.n_words))
    for k in range(n_topics):
        beta[k, words] = model.get_topic_word_dist(k, normalize=True)
    return Fitted(normalised(beta), np.asarray(model.alpha, float), seconds)


if __name__ == "__main__" and sys.argv[1:2] == ["bigartm"]:
    _bigartm_child(*sys.argv[2:4])
