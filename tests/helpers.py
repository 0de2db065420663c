"""Small helpers shared by test modules (import as ``helpers``; tests/ is on sys.path).
Fixtures live in conftest.py; plain functions and context managers here."""

import contextlib

import numpy as np
import scipy.sparse as sp

from streamtopics.evaluation import match_topics
from streamtopics.inference.minibatch import Minibatch
from streamtopics.threads import using_threads


@contextlib.contextmanager
def numba_threads(n_threads: int):
    """Run the enclosed block on ``n_threads`` threads (capped at what numba has), estimators
    with ``n_jobs=None`` included (`streamtopics.threads.using_threads`), then restore the
    previous count, even on failure."""
    with using_threads(int(n_threads)):
        yield


def random_minibatch(rng, n_docs=6, n_words=9, mean_length=8, empty=(1,)) -> Minibatch:
    """``n_docs`` documents of Poisson(``mean_length``) uniform tokens over ``n_words`` words,
    the documents ``empty`` left without tokens."""
    lengths = rng.poisson(mean_length, n_docs)
    lengths[list(empty)] = 0
    rows = [np.bincount(rng.integers(0, n_words, n), minlength=n_words) for n in lengths]
    return Minibatch.from_counts(sp.csr_matrix(np.array(rows)))


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
