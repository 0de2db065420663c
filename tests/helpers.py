"""Small helpers shared by test modules (import as ``helpers``; tests/ is on sys.path).
Fixtures live in conftest.py; plain functions and context managers here."""

import contextlib
import functools

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


def interrupt_fit_command(monkeypatch, fit_command, documents: int, streamed: bool) -> None:
    """Make ``streamtopics fit`` (its module ``fit_command``) raise `Interrupted` once it has
    trained ``documents``: through `train_stream`'s progress when its input is ``streamed``,
    else through the callback of `fit_with_checkpoints` (a loaded corpus)."""
    if streamed:
        real, hook, stop = fit_command.train_stream, "progress", stop_at(documents)
    else:
        real, hook, seen = fit_command.fit_with_checkpoints, "callback", [0]

        def stop(model, report):
            seen[0] += report.n_documents
            if seen[0] >= documents:
                raise Interrupted
    monkeypatch.setattr(fit_command, real.__name__, functools.wraps(real)(
        lambda *arguments, **options: real(*arguments, **{**options, hook: stop})))
