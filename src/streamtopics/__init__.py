"""streamtopics: online but accurate topic models for text streams.

G-OEM (Dupuy & Bach 2016), its variational twin V-OEM and the online baselines as presets of
one online EM engine; collapsed Gibbs sampling with the CGS_p estimators (Papanikolaou et al.
2017); held-out evaluation by the left-to-right algorithm and document completion.
"""

from .memory import keep_freed_arrays
from .threads import prefer_short_spins, using_threads

prefer_short_spins()  # before numba's first parallel kernel loads its OpenMP runtime
keep_freed_arrays()  # an online step's arrays reuse freed memory, not new pages

from ._version import __version__
from .corpus import (Corpus, DocwordStream, ReadReport, TextStream, from_sparse, load_corpus,
                     map_to_vocabulary, preprocess_documents, read_corpus_dir, shuffle_split,
                     stream_minibatches, tokenize, write_corpus_dir)
from .corpus.synthetic import SyntheticTruth, generate_drifting, generate_synthetic
from .corpus.time import TimeField
from .dpp import LowRankDPP
from .errors import (InputError, MemoryWarning, ModelFileError, ResourceError, StreamtopicsError,
                     StreamtopicsWarning, TopicCountWarning)
from .estimators import (CVB0LDA, GibbsLDA, LabeledCVB0LDA, LabeledLDA, LabeledOnlineLDA,
                         OnlineHDP, OnlineLDA, PriorLDA, load_estimator)
from .timeline import TopicsOverTime, topics_over_time
from .training import train_stream

__all__ = [
    "__version__",
    "Corpus", "ReadReport", "load_corpus", "read_corpus_dir", "write_corpus_dir", "from_sparse",
    "preprocess_documents", "map_to_vocabulary", "tokenize", "shuffle_split",
    "stream_minibatches", "DocwordStream", "TextStream",
    "SyntheticTruth", "generate_synthetic", "generate_drifting", "TimeField",
    "topics_over_time", "TopicsOverTime",
    "OnlineLDA", "OnlineHDP", "GibbsLDA", "CVB0LDA", "load_estimator", "train_stream",
    "LabeledLDA", "PriorLDA", "LabeledOnlineLDA", "LabeledCVB0LDA", "LowRankDPP",
    "InputError", "ModelFileError", "StreamtopicsError", "ResourceError",
    "StreamtopicsWarning", "MemoryWarning", "TopicCountWarning", "using_threads",
]
