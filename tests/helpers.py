"""Small helpers shared by test modules (import as ``helpers``; tests/ is on sys.path)."""

import numpy as np

from streamtopics.evaluation import match_topics


def matched_tv(beta: np.ndarray, true_beta: np.ndarray) -> np.ndarray:
    """Total-variation distance of each estimated topic to its Hungarian-matched true topic."""
    return match_topics(beta, true_beta, distance="tv").matched_distances


class Interrupted(Exception):
    pass


def stop_at(documents):
    """A progress callback that interrupts training once ``documents`` have been trained on."""
    def progress(position):
        if position.documents_total >= documents:
            raise Interrupted
    return progress
