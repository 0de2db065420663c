"""Preprocessing raw text into a corpus: tokenise, drop stop words and duplicates, prune words.

The recipe is the papers' (Dupuy & Bach 2016, section 5; thesis section 2.1.1) made exact, as
``../shared/corpora/README.md`` states it; it reproduces each shared corpus' ``vocab.txt`` (and
its split) from its ``raw.jsonl.gz``:

1. Unicode NFKC; the apostrophes U+2019, U+2018, U+02BC become ``'``; lowercase.
2. Tokens: the regular expression ``[^\\W\\d_]+(?:'[^\\W\\d_]+)*`` (runs of letters, apostrophes
   only inside words; digits and punctuation split tokens). A tokeniser of the user's
   (``tokenizer=``) replaces steps 1-2, its tokens normalised as step 1 (`corpus.pipeline`).
3. Exact duplicate documents (identical token sequences after step 2) are dropped, first kept.
   Optionally, phrases are learnt on the documents kept and joined (``a_b``, `corpus.phrases`).
4. Stop words are removed (the bundled English list, or one given; plus extra words).
5. With D the number of remaining documents: words in more than ``max_df`` * D documents are
   removed; then words with fewer than ``min_count`` occurrences; then the ``max_vocab`` most
   frequent words are kept, ties broken alphabetically. The vocabulary is ordered by decreasing
   frequency (ties alphabetical).
6. Documents left empty are dropped; `shuffle_split` makes the train/test split.

Every document and token that does not make it is counted in the corpus' `ReadReport`; the
corpus' ``pipeline`` (`corpus.pipeline.TextPipeline`) records steps 1-4 and the words step 5
removed by ``max_df``, so that text read later is tokenised alike.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from typing import Iterable, Sequence

import numpy as np

from ..errors import InputError
from .corpus import Corpus, ReadReport
from .phrases import DEFAULT_MIN_COUNT as DEFAULT_PHRASE_MIN_COUNT
from .phrases import DEFAULT_THRESHOLD as DEFAULT_PHRASE_THRESHOLD
from .phrases import Phrases
from .pipeline import FREQUENT, TextPipeline

# Reasons, as they appear in reports (with `STOP_WORD` and `FREQUENT` of `corpus.pipeline`).
DUPLICATE = "duplicate"
EMPTY_AFTER = "empty after preprocessing"
RARE = "fewer than min_count occurrences"
CUT = "beyond max_vocab"
UNKNOWN = "not in the vocabulary"

DEFAULT_MIN_COUNT = 5
"""Occurrences a word needs to enter a vocabulary: built in one go (`build_vocabulary`) or grown
during training (`corpus.growth`)."""


def _check_options(max_df: float, min_count: int, max_vocab: int | None) -> None:
    if not 0 < max_df <= 1:
        raise ValueError(f"max_df must be a fraction of documents in (0, 1], got {max_df}")
    if min_count < 1:
        raise ValueError(f"min_count must be >= 1, got {min_count}")
    if max_vocab is not None and max_vocab < 1:
        raise ValueError(f"max_vocab must be >= 1 or None, got {max_vocab}")


@dataclass
class VocabularyPruning:
    """Step 5's outcome: the words kept (by decreasing frequency, ties alphabetical) and the
    word types removed, with each removed word's share of documents or its count."""

    words: list[str]
    frequent: dict[str, float]
    rare: dict[str, int]
    cut: dict[str, int]


def build_vocabulary(documents: Sequence[Sequence[str]], max_df: float = 0.2,
                     min_count: int = DEFAULT_MIN_COUNT, max_vocab: int | None = 10_000) -> VocabularyPruning:
    """Step 5 on tokenised documents (stop words already removed)."""
    _check_options(max_df, min_count, max_vocab)
    document_frequency: Counter = Counter()
    frequency: Counter = Counter()
    for tokens in documents:
        document_frequency.update(set(tokens))
        frequency.update(tokens)
    n_documents = len(documents)
    frequent = {w: df / n_documents for w, df in document_frequency.items() if df > max_df * n_documents}
    rare = {w: c for w, c in frequency.items() if w not in frequent and c < min_count}
    ranked = sorted((w for w in frequency if w not in frequent and w not in rare),
                    key=lambda w: (-frequency[w], w))
    limit = len(ranked) if max_vocab is None else max_vocab
    return VocabularyPruning(words=ranked[:limit], frequent=frequent, rare=rare,
                             cut={w: frequency[w] for w in ranked[limit:]})


def document_parts(document) -> tuple[str, object, dict]:
    """(text, source id, other fields) of a `RawDocument` or a plain string."""
    if isinstance(document, str):
        return document, None, {}
    return document.text, document.source_id, document.fields


def _labels_and_metadata(sources: list, label_field: str | None):
    labels = None
    if label_field is not None and any(label_field in fields for _, fields in sources):
        labels = [fields.get(label_field) for _, fields in sources]
    metadata = None
    if any(source_id is not None or fields for source_id, fields in sources):
        metadata = [{"orig_id": source_id, **fields} for source_id, fields in sources]
    return labels, metadata


def preprocess_documents(documents: Iterable, stopwords=None, max_df: float = 0.2,
                         min_count: int = DEFAULT_MIN_COUNT, max_vocab: int | None = 10_000,
                         label_field: str | None = "label", report: ReadReport | None = None,
                         source: str = "", *, tokenizer=None, extra_stopwords=None,
                         phrases: bool | float | None = None,
                         phrase_min_count: int = DEFAULT_PHRASE_MIN_COUNT) -> Corpus:
    """Steps 1-6 (without the split) on raw documents: strings or `RawDocument`s.

    ``stopwords``: a set of words, a file path, or None for the bundled English list (pass an
    empty set for none); ``extra_stopwords`` (words or a file) are removed as well. A
    `RawDocument`'s fields become metadata (with ``orig_id``, its place in the source), and its
    ``label_field`` the labels. ``report`` continues a reader's report.

    ``tokenizer``: ``"module:function"`` or a function from text to a list of tokens, in place
    of steps 1-2 (`corpus.pipeline`). ``phrases``: True or an NPMI threshold (True:
    `corpus.phrases.DEFAULT_THRESHOLD`) learns phrases on the documents kept after step 3 (pairs
    seen ``phrase_min_count`` times or more) and joins them before step 4 (`corpus.phrases`).
    The corpus' ``pipeline`` records all of it, with the words step 5 removed by ``max_df``.
    """
    _check_options(max_df, min_count, max_vocab)
    pipeline = TextPipeline.configured(tokenizer, stopwords, extra_stopwords)
    threshold = _phrase_threshold(phrases)
    own_report = report is None
    report = ReadReport(source=source) if own_report else report
    seen: set[tuple[str, ...]] = set()
    kept_tokens: list[list[str]] = []
    sources: list[tuple[object, dict]] = []
    for document in documents:
        text, source_id, fields = document_parts(document)
        if own_report:
            report.documents_read += 1
        tokens = pipeline.tokens(text, source_id, report)
        key = tuple(tokens)
        if key in seen:
            report.skip(DUPLICATE)
            report.drop_tokens("in duplicate documents", len(tokens))
            continue
        seen.add(key)
        kept_tokens.append(tokens if threshold is not None else pipeline.content(tokens, report))
        sources.append((source_id, fields))
    if threshold is not None:
        pipeline = replace(pipeline, phrases=Phrases.learn(kept_tokens, pipeline.stop_words,
                                                           threshold, phrase_min_count))
        kept_tokens = [pipeline.content(tokens, report) for tokens in kept_tokens]
    pruning = build_vocabulary(kept_tokens, max_df, min_count, max_vocab)
    index = {word: i for i, word in enumerate(pruning.words)}
    for reason, removed in ((FREQUENT, pruning.frequent), (RARE, pruning.rare), (CUT, pruning.cut)):
        report.words_removed[reason] = len(removed)
    dropped = Counter()
    ids, kept_sources = [], []
    for content, origin in zip(kept_tokens, sources):
        document_ids = [index[t] for t in content if t in index]
        if len(document_ids) < len(content):
            dropped.update(t for t in content if t not in index)
        if document_ids:
            ids.append(document_ids)
            kept_sources.append(origin)
        else:
            report.skip(EMPTY_AFTER)
    for reason, removed in ((FREQUENT, pruning.frequent), (RARE, pruning.rare), (CUT, pruning.cut)):
        report.drop_tokens(reason, sum(dropped[w] for w in removed))
    if not ids:
        raise InputError("no document is left after preprocessing "
                         f"({report.documents_read} read)", report.source or None)
    labels, metadata = _labels_and_metadata(kept_sources, label_field)
    report.documents_kept = len(ids)
    report.tokens_kept = sum(map(len, ids))
    return Corpus.from_token_lists(ids, pruning.words, labels=labels, metadata=metadata,
                                   report=report,
                                   pipeline=replace(pipeline, frequent=frozenset(pruning.frequent)))


def _phrase_threshold(phrases: bool | float | None) -> float | None:
    """The NPMI threshold of ``phrases`` (None: no phrases)."""
    if phrases is None or phrases is False:
        return None
    threshold = DEFAULT_PHRASE_THRESHOLD if phrases is True else float(phrases)
    if not -1 <= threshold < 1:
        raise ValueError(f"phrases: the NPMI threshold must lie in [-1, 1), got {phrases}")
    return threshold


class VocabularyMapper:
    """Maps new text onto a fixed vocabulary (e.g. a trained model's): tokenise (steps 1-2),
    keep the known words, count the others as dropped ("not in the vocabulary").

    ``pipeline`` (a `TextPipeline`, e.g. a model's ``text_pipeline_``): tokenise as it says
    (its tokeniser and phrases; its stop words and frequent words counted under their own
    reasons); None: the built-in tokeniser, every unknown token counted as such.

    Documents stay aligned with the input: one that keeps no word becomes an empty document
    (noted in the report's warnings), because callers need a result per input document.
    """

    def __init__(self, vocabulary: Sequence[str], pipeline: TextPipeline | None = None):
        self.pipeline = TextPipeline(stopwords=frozenset()) if pipeline is None else pipeline
        self.vocabulary = np.asarray(list(vocabulary), dtype=str)
        self.index = {word: i for i, word in enumerate(self.vocabulary.tolist())}
        if len(self.index) != self.vocabulary.size:
            raise InputError("the vocabulary repeats a word")

    def map(self, documents: Iterable, label_field: str | None = "label",
            report: ReadReport | None = None, source: str = "") -> Corpus:
        own_report = report is None
        report = ReadReport(source=source) if own_report else report
        ids, sources = [], []
        empty = 0
        for document in documents:
            text, source_id, fields = document_parts(document)
            if own_report:
                report.documents_read += 1
            tokens = self.pipeline.content(self.pipeline.tokens(text, source_id, report), report)
            document_ids = [self.index[t] for t in tokens if t in self.index]
            report.drop_tokens(UNKNOWN, len(tokens) - len(document_ids))
            empty += not document_ids
            ids.append(document_ids)
            sources.append((source_id, fields))
        if empty:
            report.warn(f"{report.source or 'input'}: {empty} document(s) have no word of the "
                        f"vocabulary (kept as empty documents)")
        labels, metadata = _labels_and_metadata(sources, label_field)
        report.documents_kept += len(ids)
        report.tokens_kept += sum(map(len, ids))
        return Corpus.from_token_lists(ids, self.vocabulary, labels=labels, metadata=metadata,
                                       report=report)


def map_to_vocabulary(documents: Iterable, vocabulary: Sequence[str],
                      label_field: str | None = "label", report: ReadReport | None = None,
                      source: str = "", pipeline: TextPipeline | None = None) -> Corpus:
    """New text on an existing vocabulary: unknown words are dropped and counted in
    ``corpus.report.tokens_dropped["not in the vocabulary"]``. See `VocabularyMapper`."""
    return VocabularyMapper(vocabulary, pipeline).map(documents, label_field, report, source)


def shuffle_split(corpus: Corpus, test_size: float | int = 0.1, seed=0) -> tuple[Corpus, Corpus]:
    """Step 6's split, as the shared corpora were made: ``perm =
    numpy.random.RandomState(seed).permutation(D)``; the first ``int((1 - test_size) * D)``
    documents of ``perm`` (in that order) are the training set, the rest the test set.

    ``test_size`` is a fraction in [0, 1) or a number of documents. (`Corpus.split` keeps the
    original order instead; this one exists to reproduce the published splits.)
    """
    n_documents = corpus.n_documents
    if isinstance(test_size, (int, np.integer)) and not isinstance(test_size, bool):
        if not 0 <= test_size <= n_documents:
            raise ValueError(f"test_size={test_size} does not fit {n_documents} documents")
        n_train = n_documents - int(test_size)
    else:
        if not 0 <= test_size < 1:
            raise ValueError(f"test_size must be a fraction in [0, 1) or a count, got {test_size}")
        n_train = int((1 - test_size) * n_documents)
    order = np.random.RandomState(seed).permutation(n_documents)
    return corpus[order[:n_train]], corpus[order[n_train:]]
