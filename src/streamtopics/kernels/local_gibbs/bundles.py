"""The named bundles the local Gibbs entry points take: each groups the arrays and numbers of
one concern, so a call says what it passes (``PassPlan(first_pass=0, n_passes=20,
record_from=15)``) instead of lining up thirty positional arguments, and a default names the
common case instead of a sentinel array (`Recording` without ``entry_inverse``: the kernel
adds the smoothing part itself; `EVERY_TOPIC`: no topic mask).

The entry points hand their bundles to the compiled kernels as plain tuples (`plain`), which
unpack them in field order: numba's dispatcher types a plain tuple from a cached fingerprint,
but a named tuple anew, in Python, at every call (G-OEM++ calls the driver once per pass).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from ..topic_mask import NO_MASK_PTR, NO_MASK_TOPICS

NO_VALUES = np.zeros(0)
"""An empty float64 array: a bundle's optional array that is not given."""

# What a recorded pass adds to the per-entry accumulator (`PassPlan.record_mode`).
RECORD_CONDITIONALS = 0
"""The full conditionals p(z_n = k | z^t_-n) of every token (Algorithm 2, final loop)."""
RECORD_DENSE = 1
"""The same conditionals computed token by token (the dense reference, tests only)."""
RECORD_SAMPLE = 2
"""The sample itself, 1 for the topic z_n^t (hard counts, streaming Gibbs sampling)."""

# Which per-document kernel runs the passes (`Sampler.kind`).
DENSE = 0
SPARSE = 1
MH = 2

MinibatchLayout = namedtuple("MinibatchLayout", "doc_ptr entry_word entry_count token_ptr")
MinibatchLayout.__doc__ = """Where each document's entries and tokens are (the package
docstring): ``doc_ptr`` (B + 1), ``entry_word``, ``entry_count`` (entries), ``token_ptr``
(B + 1), all int64 (`inference.minibatch.Minibatch.layout`)."""

GlobalParameters = namedtuple("GlobalParameters",
                              "weights alpha digamma_alpha digamma_alpha_sum")
GlobalParameters.__doc__ = """The global parameters of the step as the kernels read them: the
word weights of the minibatch's words (U x K, beta_wk or exp(E_q[log beta_wk]); HDP: U x
(T + 1)), alpha (K), digamma(alpha) and digamma(sum alpha): digamma(a + n) is then digamma(a)
+ sum_{i<n} 1/(a + i), an exact recurrence, O(N_d) per document."""

NO_KEYS = np.zeros(0, dtype=np.int64)
"""No per-document stream keys (`StreamKey.document_keys`)."""

StreamKey = namedtuple("StreamKey", "seed minibatch first_document document_keys",
                       defaults=(NO_KEYS,))
StreamKey.__doc__ = """What seeds document d's random stream: (seed, minibatch, first_document
+ d) (`kernels.random.stream_seed`), or, when ``document_keys`` (B, int64) is given, (seed,
document_keys[d], 0): a document keyed by its content (`transform`) draws what it draws alone,
whatever minibatch it is run in (`driver.document_stream`)."""

PassPlan = namedtuple("PassPlan", "first_pass n_passes record_from record_mode",
                      defaults=(RECORD_CONDITIONALS,))
PassPlan.__doc__ = """The passes of one call: ``first_pass .. first_pass + n_passes - 1``
(0-based; pass 0 draws the initial sample and seeds the streams), those from ``record_from``
on recorded, as ``record_mode`` says (`RECORD_CONDITIONALS`, `RECORD_DENSE`,
`RECORD_SAMPLE`)."""

ChainState = namedtuple("ChainState", "token_topic doc_topic_counts rng_state")
ChainState.__doc__ = """The chain carried from call to call (a boosted step changes the
parameters between passes): the topic of every token (tokens, int64), the counts n_dk (B x K,
float64) and each document's stream state (B, uint64)."""

Recording = namedtuple("Recording",
                       "entry_topic doc_log_theta entry_inverse smoothing_totals clear_rows",
                       defaults=(NO_VALUES, NO_VALUES, False))
Recording.__doc__ = """Where the recorded passes go. ``entry_topic`` (entries x K): each
entry's recorded conditionals (or sample), summed over the passes; ``doc_log_theta`` (B x K):
s2 per document, digamma(alpha_k + n_dk^t) - digamma(sum alpha + N_d) summed (appendix A.3).
``entry_inverse`` (entries; sparse and MH kernels): S_j of the smoothing part, for a caller
that adds beta_wk alpha_k S_j itself (`sparse`); not given, the kernel adds it (masked
documents always record their full conditionals). ``smoothing_totals`` (U; sparse kernel):
where the call's s_w go, for a caller that records a pass after it with the same s_w
(`end_state`). ``clear_rows``: zero each document's rows of ``entry_topic`` just before its
passes, for a caller whose array is not zeroed yet (``np.empty``): each row is then written
while its document's passes keep it in cache, instead of the whole entries x K array zeroed
beforehand and evicted before the recorded passes read it back."""

AllowedTopics = namedtuple("AllowedTopics", "ptr topics digamma_alpha_sum")
AllowedTopics.__doc__ = """The topics each document may use (Labeled LDA; `kernels.topic_mask`:
document d's are ``topics[ptr[d]:ptr[d + 1]]``, ascending), and digamma of each document's
allowed alpha sum (B). `EVERY_TOPIC`: no mask."""

EVERY_TOPIC = AllowedTopics(NO_MASK_PTR, NO_MASK_TOPICS, NO_VALUES)

Sampler = namedtuple("Sampler", "kind mh_cycles", defaults=(0,))
Sampler.__doc__ = """Which per-document kernel runs the passes: `DENSE` (the reference, O(K) per
token), `SPARSE` (two buckets, O(topics in the document)) or `MH` (``mh_cycles`` >= 1
Metropolis-Hastings cycles per token and pass)."""

TopicGrowth = namedtuple("TopicGrowth",
                         "n_topics topic_word_prior n_words stick_concentration capacity")
TopicGrowth.__doc__ = """How HDP's local step opens topics (`hdp`): T instantiated topics, the
Dirichlet prior eta of an opened topic's words over V = ``n_words``, the stick concentration
(alpha of Beta(1, alpha)), and the capacity, the most topics a minibatch may open (0: no
growth)."""

HDPOutputs = namedtuple("HDPOutputs",
                        "token_topic entry_topic entry_new doc_log_theta doc_counts opened_alpha")
HDPOutputs.__doc__ = """What HDP's local step returns in place (`hdp.hdp_gibbs_sweeps`): the last
sample, the recorded conditionals of the global and of the opened topics, s2 of the global
topics, every topic's counts in each recorded pass, the stick split at each opening."""


def plain(*bundles) -> list:
    """``bundles`` as the compiled kernels take them: plain tuples (module docstring)."""
    return [*map(tuple, bundles)]
