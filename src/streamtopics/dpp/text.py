"""Documents as sets of sentences for the DPP (thesis section 4.4; preprocessing of spec 6.2).

1. Strip HTML tags; split sentences at ``(?<=[.!?])\\s+|\\n+``.
2. Tokenise with the corpus tokenizer (`corpus.pipeline.tokenize`) and drop stop words.
3. Keep the V most frequent words of the training documents (ties alphabetical).
4. A sentence becomes the set of its kept words; empty sentences and repeated word sets within a
   document are dropped.
5. Sentences whose 0/1 vector is a linear combination of earlier ones are dropped (incremental
   Gram-Schmidt): with alpha = 0, det L_X > 0 needs linearly independent rows, otherwise the
   document's log-likelihood is -infinity.
6. Documents left with fewer than 2 sentences are dropped.

Every `SentenceDocument` keeps its original sentences and which of them became rows, so that a
summary can be shown in context.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np

from ..corpus.pipeline import load_stopwords, tokenize
from ..corpus.preprocess import build_vocabulary

SENTENCE_BOUNDARY = re.compile(r"(?<=[.!?])\s+|\n+")
HTML_TAG = re.compile(r"<[^>]*>")
INDEPENDENCE_TOLERANCE = 1e-8
MIN_SENTENCES = 2


def split_sentences(text: str) -> list[str]:
    """The non-blank sentences of ``text`` after HTML tags are replaced by line breaks."""
    parts = SENTENCE_BOUNDARY.split(HTML_TAG.sub("\n", text))
    return [part.strip() for part in parts if part and part.strip()]


@dataclass
class SentenceDocument:
    """A document's sentences, the word ids of those kept, and their positions."""

    sentences: list[str]
    rows: list[np.ndarray]
    kept: np.ndarray          # index into ``sentences`` of each row
    source_id: object = None


def independent_rows(rows: Sequence[np.ndarray], n_words: int) -> list[int]:
    """Indices of the rows kept by greedy linear independence of their 0/1 vectors (step 5)."""
    basis: list[np.ndarray] = []
    kept = []
    for index, row in enumerate(rows):
        vector = np.zeros(n_words)
        vector[row] = 1.0
        residual = vector.copy()
        for q in basis:
            residual -= (q @ residual) * q
        norm = np.linalg.norm(residual)
        if norm > INDEPENDENCE_TOLERANCE * np.linalg.norm(vector):
            basis.append(residual / norm)
            kept.append(index)
    return kept


class SentencePreprocessor:
    """Steps 1-6 with a vocabulary learned once (`fit`) and applied to any text (`transform`)."""

    def __init__(self, n_words: int = 500, stopwords=None):
        self.n_words = n_words
        self.stopwords = load_stopwords(stopwords) if not isinstance(stopwords, frozenset) else stopwords

    def _tokens(self, sentence: str) -> list[str]:
        return [t for t in tokenize(sentence) if t not in self.stopwords]

    @classmethod
    def from_vocabulary(cls, vocabulary: Sequence[str], stopwords=None) -> "SentencePreprocessor":
        """A preprocessor that applies a vocabulary learned before (e.g. kept in a model file)."""
        preprocessor = cls(len(vocabulary), stopwords)
        preprocessor.vocabulary_ = list(vocabulary)
        preprocessor.index_ = {w: i for i, w in enumerate(preprocessor.vocabulary_)}
        return preprocessor

    def fit(self, texts: Iterable[str]) -> "SentencePreprocessor":
        documents = [[t for s in split_sentences(text) for t in self._tokens(s)] for text in texts]
        pruning = build_vocabulary(documents, max_df=1.0, min_count=1, max_vocab=self.n_words)
        self.vocabulary_ = pruning.words
        self.index_ = {w: i for i, w in enumerate(self.vocabulary_)}
        return self

    def document(self, text: str, source_id=None) -> SentenceDocument | None:
        """The document's kept sentences, or None if fewer than `MIN_SENTENCES` survive."""
        sentences = split_sentences(text)
        rows, kept, seen = [], [], set()
        for position, sentence in enumerate(sentences):
            ids = sorted({self.index_[t] for t in self._tokens(sentence) if t in self.index_})
            if ids and tuple(ids) not in seen:
                seen.add(tuple(ids))
                rows.append(np.asarray(ids, dtype=np.int64))
                kept.append(position)
        independent = independent_rows(rows, len(self.vocabulary_))
        if len(independent) < MIN_SENTENCES:
            return None
        return SentenceDocument(sentences, [rows[i] for i in independent],
                                np.asarray(kept, dtype=np.int64)[independent], source_id)

    def transform(self, texts: Iterable, source_ids: Iterable | None = None) -> list[SentenceDocument]:
        ids = source_ids if source_ids is not None else itertools.repeat(None)
        documents = (self.document(text, source) for text, source in zip(texts, ids))
        return [d for d in documents if d is not None]
