"""Bridges to the tools around streamtopics: pyLDAvis, gensim, pandas, scikit-learn pipelines.

None of them is a dependency: each function imports its library only when called (pyLDAvis
itself is not needed for `to_pyldavis`, which returns plain arrays).
"""

from .frames import doc_topic_frame
from .gensim import corpus_from_gensim, from_gensim, read_gensim_dictionary, to_gensim
from .pyldavis import to_pyldavis, write_pyldavis_json
from .sklearn import best_finite_index, use_pipeline_vocabulary

__all__ = ["to_pyldavis", "write_pyldavis_json", "to_gensim", "from_gensim", "corpus_from_gensim",
           "read_gensim_dictionary", "doc_topic_frame",
           "use_pipeline_vocabulary", "best_finite_index"]
