"""Review models with ratings (Dupuy's thesis, chapter 2).

- `RatingReducer`: the ANOVA rating reduction of section 2.1.3 (reduced ratings in {-1, +1},
  P(+1) for a test review).
- `OpinionLDA`: LDA-R / LDA-R-C / LDA-R-U (descriptive topics with fixed theta plus a positive
  and a negative opinion topic), variational EM of appendix 2.A with its two misprints
  corrected.
- LDA-0, LDA-C and LDA-U are the library's LDA on reviews, on `group_documents(X, items)` and
  on `group_documents(X, users)`.
- Word prediction: `pointwise_log_likelihood` (LDA-C/U), `opinion_log_likelihood` (LDA-R-C/U,
  exact quadrature), `opinion_left_to_right` (LDA-R), `per_word_log_perplexity`; LDA-0 uses
  left-to-right.
- `SupervisedLDA` (sLDA, McAuliffe & Blei 2008) and `HiddenFactorsTopics` (HFT, McAuley &
  Leskovec 2013): the thesis' comparison points.
- `compare_review_models`: every model the data allow on the same held-out reviews.
- `planted_reviews`: synthetic reviews drawn from LDA-R-C with the truth.
"""

from .baselines import HiddenFactorsTopics, SupervisedLDA
from .comparison import ReviewComparison, ReviewSide, compare_review_models
from .opinion import OpinionLDA
from .ratings import RatingReducer
from .scoring import (group_documents, opinion_left_to_right, opinion_log_likelihood,
                      per_word_log_perplexity, pointwise_log_likelihood)
from .synthetic import PlantedReviews, planted_reviews

__all__ = ["compare_review_models", "ReviewSide", "ReviewComparison", "RatingReducer", "OpinionLDA", "SupervisedLDA", "HiddenFactorsTopics", "group_documents", "pointwise_log_likelihood",
           "opinion_log_likelihood", "opinion_left_to_right", "per_word_log_perplexity", "planted_reviews",
           "PlantedReviews"]
