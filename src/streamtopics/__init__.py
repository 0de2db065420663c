"""streamtopics: online but accurate topic models for text streams.

G-OEM (Dupuy & Bach 2016), its variational twin V-OEM and the online baselines as presets of
one online EM engine; collapsed Gibbs sampling with the CGS_p estimators (Papanikolaou et al.
2017); held-out evaluation by the left-to-right algorithm and document completion.
"""

from ._version import __version__
from .corpus.corpus import Corpus, ReadReport
from .corpus.synthetic import SyntheticTruth, generate_synthetic
from .errors import InputError, ModelFileError, StreamtopicsError

__all__ = [
    "__version__", "Corpus", "ReadReport", "SyntheticTruth", "generate_synthetic",
    "InputError", "ModelFileError", "StreamtopicsError",
]
