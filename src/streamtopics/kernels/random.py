"""Counter-based random streams for numba kernels, identical for any number of threads.

Each document gets its own stream seeded from (seed, minibatch index, document index) through
SplitMix64 (Steele, Lea & Flood 2014), so a parallel loop over documents draws exactly the same
numbers whatever the thread count or scheduling. A stream's state is one uint64 held in a
length-1 array, advanced in place.
"""

from __future__ import annotations

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
def next_uniform(state):
    """A float64 uniform on [0, 1) from the stream ``state`` (length-1 uint64 array), advanced."""
    state[0] += _GOLDEN
    return (_mix(state[0]) >> uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True)
def new_stream(seed, minibatch, document):
    """A fresh stream state array for (seed, minibatch index, document index)."""
    state = np.empty(1, dtype=np.uint64)
    state[0] = stream_seed(seed, minibatch, document)
    return state


@njit(cache=True)
def random_permutation(state, n, out):
    """Fill ``out[:n]`` with a uniform random permutation of 0..n-1 (Fisher-Yates)."""
    for i in range(n):
        out[i] = i
    for i in range(n - 1, 0, -1):
        j = int(next_uniform(state) * (i + 1))
        out[i], out[j] = out[j], out[i]
