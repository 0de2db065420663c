"""Corpus I/O: the `Corpus` value, readers, writers, preprocessing, streaming, synthetic data."""

from .corpus import Corpus, ReadReport, occurring_words, restrict_to_words
from .phrases import Phrases
from .pipeline import TextPipeline, load_stopwords, normalize, tokenize
from .preprocess import (VocabularyMapper, VocabularyPruning, build_vocabulary,
                         map_to_vocabulary, preprocess_documents, shuffle_split)
from .readers import (RawDocument, detect_format, from_sparse, iter_raw_documents, load_corpus,
                      read_corpus_dir, read_ldac, read_matrix_market, read_uci, read_vocabulary)
from .streaming import DocwordStream, TextStream, stream_minibatches
from .synthetic import (DriftingTruth, SyntheticTruth, generate_drifting, generate_synthetic,
                        iter_synthetic_documents, make_topics)
from .time import TimeField, assign_periods, document_times, parse_time
from .writer import DocwordWriter, write_corpus_dir, write_synthetic_corpus, write_vocabulary

__all__ = [
    "Corpus", "ReadReport", "occurring_words", "restrict_to_words",
    "load_corpus", "detect_format", "read_uci", "read_corpus_dir", "read_ldac",
    "read_matrix_market", "read_vocabulary", "from_sparse", "iter_raw_documents", "RawDocument",
    "tokenize", "normalize", "load_stopwords", "TextPipeline", "Phrases", "build_vocabulary", "VocabularyPruning",
    "preprocess_documents", "map_to_vocabulary", "VocabularyMapper", "shuffle_split",
    "DocwordStream", "TextStream", "stream_minibatches",
    "DocwordWriter", "write_corpus_dir", "write_vocabulary", "write_synthetic_corpus",
    "generate_synthetic", "iter_synthetic_documents", "make_topics", "SyntheticTruth",
    "generate_drifting", "DriftingTruth", "TimeField", "parse_time", "document_times",
    "assign_periods",
]
