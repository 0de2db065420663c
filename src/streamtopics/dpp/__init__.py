"""Low-rank determinantal point processes for summarisation (Dupuy 2017, thesis chapter 4).

Not a topic model: a DPP over the sentences of a document, whose kernel is an embedding U of the
words with document-specific weights theta, learned by exact maximum likelihood even though the
ground set {0,1}^V has 2^V items. See docs/dpp.md.
"""

from .kernel import BaseMeasure, log_normalizer
from .learning import picard
from .metrics import chance_distance, sign_matched_distance, subspace_distance
from .model import LowRankDPP
from .sampling import LowRankSampler, greedy_map, sample_exact

__all__ = ["BaseMeasure", "LowRankDPP", "LowRankSampler", "chance_distance", "greedy_map",
           "log_normalizer", "picard", "sample_exact", "sign_matched_distance", "subspace_distance"]
