"""Counter-based random streams for numba kernels, identical for any number of threads.

Each document gets its own stream seeded from (seed, minibatch index, document index) through
SplitMix64 (Steele, Lea & Flood 2014), so a parallel loop over documents draws exactly the same
numbers whatever the thread count or scheduling. A stream's state is one uint64 held in a
length-1 array, advanced in place.

Inference on new documents (``transform``) keys a document's stream by its content instead
(`content_key`: a hash of its word ids and counts), so that its result never depends on its row
or its neighbours.
"""

from __future__ import annotations

import hashlib

import numpy as np
from numba import njit, uint64

_GOLDEN = uint64(0x9E3779B97F4A7C15)
_MIX1 = uint64(0xBF58476D1CE4E5B9)
_MIX2 = uint64(0x94D049BB133111EB)


@njit(cache=True, inline="always")
def _mix(z):
    z = (z ^ (z >> uint64(30))) * _MIX1
    z = (z ^ (z >> uint64(27))) * _MIX2
    return z ^ (z >> uint64(31))


@njit(cache=True)
def stream_seed(seed, minibatch, document):
    """The initial state of the stream for (seed, minibatch index, document index)."""
    z = _mix(uint64(seed) + _GOLDEN)
    z = _mix(z ^ (uint64(minibatch) + _GOLDEN))
    return _mix(z ^ (uint64(document) + _GOLDEN))


@njit(cache=True, inline="always")
def uniform_step(state):
    """The stream state after ``state`` (a uint64) and the float64 uniform on [0, 1) it gives:
    the numbers of `next_uniform`, for a hot loop that keeps its state in a local variable (a
    register) instead of an array element every store might alias."""
    state = state + _GOLDEN
    return state, (_mix(state) >> uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True, inline="always")
def next_uniform(state):
    """A float64 uniform on [0, 1) from the stream ``state`` (length-1 uint64 array), advanced."""
    state[0], uniform = uniform_step(state[0])
    return uniform


@njit(cache=True)
def new_stream(seed, minibatch, document):
    """A fresh stream state array for (seed, minibatch index, document index)."""
    state = np.empty(1, dtype=np.uint64)
    state[0] = stream_seed(seed, minibatch, document)
    return state


@njit(cache=True, inline="always")
def permute(state, n, out):
    """Fill ``out[:n]`` with a uniform random permutation of 0..n-1 (Fisher-Yates) drawn from the
    stream state ``state`` (a uint64, as `uniform_step`); returns the state advanced."""
    for i in range(n):
        out[i] = i
    for i in range(n - 1, 0, -1):
        state = shuffle_step(state, i, out)
    return state


@njit(cache=True, inline="always")
def advance(state, steps):
    """The stream state ``steps`` uniforms after ``state`` (`uniform_step` adds the same constant
    each step, so a later part of the stream can be drawn ahead)."""
    return state + uint64(steps) * _GOLDEN


@njit(cache=True, inline="always")
def shuffle_step(state, i, out):
    """Step ``i`` (n - 1 down to 1) of `permute`'s Fisher-Yates shuffle of ``out``, from the
    stream state ``state``; returns it advanced. `permute` is the identity fill and these steps
    in turn."""
    state, uniform = uniform_step(state)
    j = int(uniform * (i + 1))
    out[i], out[j] = out[j], out[i]
    return state


@njit(cache=True)
def random_permutation(state, n, out):
    """`permute` from the stream ``state`` (length-1 uint64 array), advanced in place."""
    state[0] = permute(state[0], n, out)


def content_key(word_ids: np.ndarray, counts: np.ndarray) -> int:
    """A stream key (< 2^62) from a document's distinct word ids (increasing) and their counts:
    equal documents get equal keys wherever they stand. Training streams are keyed by small
    step numbers, so a collision with them has probability about 2^-62."""
    digest = hashlib.blake2b(np.ascontiguousarray(word_ids, dtype=np.int64).tobytes() + b"|"
                             + np.ascontiguousarray(counts, dtype=np.int64).tobytes(),
                             digest_size=8).digest()
    return int.from_bytes(digest, "little") >> 2


def content_keys(word_ids: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """`content_key` of each document of a flat token array (document d's tokens at
    ``word_ids[offsets[d]:offsets[d+1]]``, in any order)."""
    keys = np.empty(len(offsets) - 1, dtype=np.int64)
    for d in range(keys.size):
        words, counts = np.unique(word_ids[offsets[d]:offsets[d + 1]], return_counts=True)
        keys[d] = content_key(words, counts)
    return keys
