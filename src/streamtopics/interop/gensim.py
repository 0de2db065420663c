"""gensim ``LdaModel`` to and from streamtopics models, without pickle.

`to_gensim` builds an ``LdaModel`` whose ``get_topics()`` equals the model's ``components_``:
gensim keeps a Dirichlet q(beta_k | lambda_k) per topic, here lambda = the model's own
``lambda_`` for Bayesian methods (olda, svb, ...; unless ``components_`` is an average of
iterates), else ``pseudo_counts`` x beta, a point mass
in effect (E_q[log beta] = log beta up to O(1 / pseudo_counts)), so gensim's inference
(``get_document_topics``, ``inference``) uses the streamtopics topics. Its alpha is the model's
``doc_topic_prior_``. Save it with gensim's own ``save`` if you want (that one pickles).

`from_gensim` turns a trained ``LdaModel`` into a fitted `CVB0LDA` holding its topics
(``get_topics()``), alpha, eta and vocabulary: ``transform`` then infers documents by CVB0 with
those topics fixed, and ``save`` writes the safe streamtopics model file that every command
(``topics``, ``evaluate``, ``report``) reads.

`corpus_from_gensim` reads a gensim bag-of-words corpus with its ``Dictionary``, and
`read_gensim_dictionary` a dictionary written by ``save_as_text``, so that gensim's
MatrixMarket files load with their words: ``load_corpus("corpus.mm",
vocabulary=read_gensim_dictionary("dictionary.txt"))``.
"""

from __future__ import annotations

import os

import numpy as np
import scipy.sparse as sp

from ..corpus.corpus import Corpus
from ..errors import InputError
from ..estimators.cvb0_lda import CVB0LDA

POINT_MASS = 1e6  # default pseudo counts per topic for point-estimate topics


def _dictionary(vocabulary):
    """A gensim ``Dictionary`` whose ids are the model's columns (gensim's own constructor
    would sort new words)."""
    from gensim.corpora import Dictionary

    dictionary = Dictionary()
    dictionary.token2id = {str(word): i for i, word in enumerate(vocabulary)}
    return dictionary


def to_gensim(model, pseudo_counts: float | None = None, random_state: int = 0):
    """A gensim ``LdaModel`` with the topics, alpha and vocabulary of the fitted ``model``
    (see the module docstring for lambda; ``pseudo_counts`` forces lambda = pseudo_counts x
    beta even for Bayesian models). Needs gensim."""
    from gensim.models import LdaModel

    beta = np.asarray(model.components_, dtype=np.float64)
    beta = beta / beta.sum(axis=1, keepdims=True)
    variational = getattr(model, "lambda_", None) if pseudo_counts is None else None
    if variational is not None and not np.allclose(
            variational / variational.sum(axis=1, keepdims=True), beta, rtol=1e-9, atol=0):
        variational = None  # components_ is not E_q[beta] of lambda_ (averaged iterates)
    eta = float(getattr(model, "topic_word_prior_", None) or 0.0)
    if variational is None:
        if pseudo_counts is not None and not pseudo_counts > 0:
            raise ValueError(f"pseudo_counts must be positive, got {pseudo_counts!r}")
        variational = beta * (POINT_MASS if pseudo_counts is None else float(pseudo_counts))
        eta = 0.0
    lda = LdaModel(num_topics=beta.shape[0], id2word=_dictionary(model.vocabulary_),
                   alpha=np.asarray(model.doc_topic_prior_, dtype=np.float64),
                   eta=max(eta, 1e-300), dtype=np.float64, random_state=random_state)
    lda.state.sstats[...] = np.asarray(variational, dtype=np.float64) - lda.eta
    lda.sync_state()
    return lda


def from_gensim(lda, transform_passes: int | None = None) -> CVB0LDA:
    """A fitted `CVB0LDA` holding a gensim ``LdaModel``'s topics, alpha, eta and vocabulary;
    ``transform_passes``: `CVB0LDA`'s (None: its default)."""
    topics = np.asarray(lda.get_topics(), dtype=np.float64)
    alpha = np.asarray(lda.alpha, dtype=np.float64)
    eta = np.asarray(lda.eta, dtype=np.float64)
    if lda.id2word is None or len(lda.id2word) != topics.shape[1]:
        raise InputError("the gensim model needs its id2word dictionary (one word per column)")
    passes = {} if transform_passes is None else {"transform_passes": transform_passes}
    model = CVB0LDA(n_topics=topics.shape[0], doc_topic_prior=float(alpha.mean()),
                    topic_word_prior=float(eta.mean()), **passes)
    model.components_ = topics / topics.sum(axis=1, keepdims=True)
    model.doc_topic_prior_ = alpha
    model.topic_word_prior_ = float(eta.mean())
    model.vocabulary_ = np.asarray([lda.id2word[i] for i in range(topics.shape[1])], dtype=str)
    model.n_iter_ = 0
    return model


# --- gensim's corpora -----------------------------------------------------------------------------
def read_gensim_dictionary(path) -> list[str]:
    """The words of a gensim ``Dictionary`` written by ``save_as_text`` (no gensim needed), in
    id order: a first line with the number of documents, then ``id<TAB>word<TAB>document
    frequency`` lines in any order. Ids must be 0 .. V-1 (gensim's ``compactify`` makes them
    so); an InputError names the line otherwise. (``Dictionary.save`` pickles: not read.)"""
    words: dict[int, str] = {}
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            fields = line.rstrip("\n").split("\t")
            if number == 1 and len(fields) == 1 and fields[0].strip().isdigit():
                continue  # the number of documents
            if not line.strip():
                continue
            if len(fields) != 3 or not fields[0].isdigit():
                raise InputError("expected 'id<TAB>word<TAB>document frequency' (a gensim "
                                 "Dictionary.save_as_text file)", path, number)
            identifier = int(fields[0])
            if identifier in words:
                raise InputError(f"id {identifier} appears twice", path, number)
            words[identifier] = fields[1]
    if sorted(words) != list(range(len(words))):
        missing = sorted(set(range(max(words, default=-1) + 1)) - set(words))[:5]
        raise InputError(f"ids are not 0..{len(words) - 1} (missing {missing}): call "
                         f"dictionary.compactify() before save_as_text", path)
    return [words[i] for i in range(len(words))]


def corpus_from_gensim(bow, dictionary) -> Corpus:
    """A `Corpus` of a gensim bag-of-words corpus (any iterable of documents, each a list of
    ``(word id, count)``: a list, ``MmCorpus``, ...) over ``dictionary`` (a gensim
    ``Dictionary``, a word list in id order, or a ``save_as_text`` file). Needs no gensim."""
    if isinstance(dictionary, (str, os.PathLike)):
        vocabulary = read_gensim_dictionary(dictionary)
    elif hasattr(dictionary, "token2id"):
        by_id = {i: word for word, i in dictionary.token2id.items()}
        vocabulary = [by_id[i] for i in range(len(by_id))]
    else:
        vocabulary = [str(word) for word in dictionary]
    rows, columns, values = [], [], []
    n_documents = 0
    for n_documents, document in enumerate(bow, start=1):
        for entry in document:
            word, count = int(entry[0]), entry[1]
            if not 0 <= word < len(vocabulary):
                raise InputError(f"document {n_documents}: word id {word} is outside the "
                                 f"dictionary's {len(vocabulary)} words")
            if count < 0 or count != int(count):
                raise InputError(f"document {n_documents}: count {count} of word id {word} is "
                                 f"not a whole number >= 0")
            rows.append(n_documents - 1)
            columns.append(word)
            values.append(int(count))
    counts = sp.csr_matrix((np.asarray(values, dtype=np.int64), (rows, columns)),
                           shape=(n_documents, len(vocabulary)))
    counts.sum_duplicates()
    return Corpus(counts, vocabulary)
