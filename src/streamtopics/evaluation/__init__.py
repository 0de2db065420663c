"""Held-out evaluation: pure functions (topic parameters, held-out documents, seed) -> result.

Nothing here depends on how a model was trained: every function takes the topics beta (K x V)
and the prior alpha (K), so models from other libraries are scored the same way.

- `left_to_right`: log p(w_d | beta, alpha) by Wallach et al. (2009) Algorithm 3, or its
  sequential Monte Carlo variant (``resample=True``), unbiased for p(w_d).
- `document_completion`: log p(second half | first half) with theta from collapsed Gibbs
  sampling (standard or theta^p estimator, Papanikolaou et al. 2017).
- `elbo`: the per-document evidence lower bound of Hoffman et al. (2010, eq. 16); a bound.
- `match_topics`, `topic_distances`, `distance_to_truth`: Hungarian matching of topic sets;
  `topic_movement`: how far each topic moved during further training
  (Dupuy & Bach 2016, appendix G).
- `umass_coherence`, `npmi_coherence`, `top_words_table`, `top_word_ids`.
- `multilabel_f1`: micro-, macro- and example-based F1 of predicted label sets.
- `word_association`, `association_matrix`, `compare_estimators`: p(w2 | w1) from topics and
  the phi^p-vs-phi rank statistic by cue frequency (Papanikolaou et al. 2017, section 5.4).
"""

from .coherence import npmi_coherence, top_word_ids, top_words_table, umass_coherence
from .completion import document_completion
from .elbo import elbo
from .left_to_right import left_to_right
from .matching import (DISTANCES, TopicMatching, distance_to_truth, match_topics,
                       topic_distances, topic_movement)
from .multilabel import MultilabelF1, multilabel_f1
from .results import HeldOutBound, HeldOutLikelihood
from .word_association import (AssociationNorms, association_matrix, compare_estimators,
                               word_association)

__all__ = [
    "left_to_right", "document_completion", "elbo", "HeldOutLikelihood", "HeldOutBound",
    "match_topics", "topic_distances", "distance_to_truth", "TopicMatching", "DISTANCES",
    "topic_movement",
    "umass_coherence", "npmi_coherence", "top_words_table", "top_word_ids",
    "multilabel_f1", "MultilabelF1",
    "word_association", "association_matrix", "compare_estimators", "AssociationNorms",
]
