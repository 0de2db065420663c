"""Per-document allowed-topic masks as the kernels read them (Labeled LDA, Ramage et al. 2009;
Papanikolaou et al. 2017, equation 5).

A mask is CSR-like: ``mask_ptr`` (D+1, int64) and ``mask_topics`` (int64, each document's
allowed topics ascending); document d may use ``mask_topics[mask_ptr[d]:mask_ptr[d+1]]``. No
mask at all is two empty arrays. A kernel asks `allowed_topics` once per document: it returns
the allowed topics of a *restricted* document, and an empty array for a document that may use
every topic (no mask, or a mask row listing all K), which then takes the unmasked code path
unchanged, so a model without masks runs exactly the arithmetic it ran before masks existed.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, inline="always")
def allowed_topics(d, mask_ptr, mask_topics, n_topics):
    """Document ``d``'s allowed topics if fewer than ``n_topics``, else an empty array."""
    if mask_ptr.size == 0:
        return mask_topics[:0]
    start, stop = mask_ptr[d], mask_ptr[d + 1]
    if stop - start >= n_topics:
        return mask_topics[:0]
    return mask_topics[start:stop]


NO_MASK_PTR = np.zeros(0, dtype=np.int64)
NO_MASK_TOPICS = np.zeros(0, dtype=np.int64)
