"""A topic's representative documents: those with the largest proportion of it, each shown by
its id, its own fields and a snippet of its raw text (or its words when the raw text is not at
hand), for ``streamtopics report`` and ``streamtopics topics --docs``."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..corpus.corpus import Corpus, document_fields, document_ids

EXCERPT_WORDS = 40  # words of an example document shown when its raw text is not at hand
SNIPPET_CHARACTERS = 300  # characters of an example document's raw text shown


@dataclass(frozen=True)
class ExampleDocument:
    """A document shown under a topic: its id (the corpus' own, 1-based), the topic's
    proportion in it, the start of its text (reading order, or words by count) and its own
    metadata fields (``id``, ``date``, ``time``, ...: `corpus.corpus.document_fields`)."""

    document_id: str
    proportion: float
    text: str
    fields: dict = field(default_factory=dict)


def _excerpt(corpus: Corpus, row: int) -> str:
    """The first `EXCERPT_WORDS` words of a document in reading order when the corpus keeps
    token order, else its words by decreasing count (``word x3``)."""
    if corpus.tokens is not None:
        tokens = corpus.tokens[row]
        text = " ".join(corpus.vocabulary[tokens[:EXCERPT_WORDS]])
        return text + (" ..." if tokens.size > EXCERPT_WORDS else "")
    document = corpus.counts[row]
    order = np.argsort(-document.data, kind="stable")[:EXCERPT_WORDS]
    return " ".join(corpus.vocabulary[document.indices[i]] +
                    (f" x{document.data[i]}" if document.data[i] > 1 else "") for i in order)


def _snippet(text: str) -> str:
    """The first `SNIPPET_CHARACTERS` characters of a raw text, its white space collapsed."""
    text = " ".join(text.split())
    return text if len(text) <= SNIPPET_CHARACTERS else text[:SNIPPET_CHARACTERS].rstrip() + " ..."


def representative_documents(corpus: Corpus, doc_topic: np.ndarray, n_examples: int,
                             texts=None) -> list[list[ExampleDocument]]:
    """Per topic, the ``n_examples`` non-empty documents with the largest proportion of it
    (ties: earlier document first), each shown by a snippet of its raw text (``texts[d]``)
    where there is one, else by its words (`_excerpt`)."""
    ids = [str(i) for i in document_ids(corpus)]
    fields = document_fields(corpus)
    candidates = np.flatnonzero(corpus.document_lengths > 0)
    examples = []
    for k in range(doc_topic.shape[1]):
        best = candidates[np.argsort(-doc_topic[candidates, k], kind="stable")[:n_examples]]
        examples.append([ExampleDocument(ids[d], float(doc_topic[d, k]),
                                         _excerpt(corpus, d) if texts is None or texts[d] is None
                                         else _snippet(texts[d]),
                                         {name: values[d] for name, values in fields.items()
                                          if values[d] is not None})
                         for d in best])
    return examples
