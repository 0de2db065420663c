"""scikit-learn style estimators: fit / partial_fit / transform, save / load."""

from .. import persistence
from ..errors import ModelFileError
from .base import NotFittedError, PassReport, TopicModelEstimator
from .cvb0_lda import CVB0LDA
from .gibbs_lda import GibbsLDA
from .hdp import OnlineHDP
from .labeled import LabeledLDA, PriorLDA
from .labeled_cvb0 import LabeledCVB0LDA
from .labeled_online import LabeledOnlineLDA
from .online_lda import OnlineLDA

ESTIMATORS = {cls.__name__: cls for cls in (OnlineLDA, GibbsLDA, CVB0LDA, LabeledLDA, PriorLDA,
                                                 LabeledOnlineLDA, LabeledCVB0LDA, OnlineHDP)}


def load_estimator(path) -> TopicModelEstimator:
    """Load any streamtopics model file as the estimator that saved it."""
    arrays, metadata = persistence.load_model(path)
    estimator = ESTIMATORS.get(metadata.get("estimator"))
    if estimator is None:
        raise ModelFileError(f"{path}: unknown estimator {metadata.get('estimator')!r}; "
                             f"known: {', '.join(sorted(ESTIMATORS))}")
    return estimator._from_model_file(path, arrays, metadata)


__all__ = ["NotFittedError", "PassReport", "TopicModelEstimator", "OnlineLDA", "GibbsLDA",
           "CVB0LDA", "LabeledLDA", "PriorLDA", "LabeledOnlineLDA", "LabeledCVB0LDA",
           "OnlineHDP", "ESTIMATORS", "load_estimator"]
