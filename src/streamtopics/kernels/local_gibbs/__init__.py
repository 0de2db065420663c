"""The local Gibbs E-step of G-OEM (Dupuy & Bach 2016, Algorithm 2 and appendix A.3) and of HDP
G-OEM (Dupuy 2017, section 3.4.2), as numba kernels.

One call of `gibbs_sweeps` runs Gibbs passes over every document of a minibatch, in parallel
over documents, with one of three per-document kernels that sample the same conditionals
(equation 5 / 15): the dense reference (`dense`, O(K) per token), the sparse two-bucket sampler
(`sparse`, O(topics in the document) per token) and a Metropolis-Hastings chain (`mh`, O(1) per
token and step). `end_state_statistics` records a pass after it from the state it leaves (a
boosted step's burn-in passes), `hdp_gibbs_sweeps` runs HDP's sweeps, whose documents may open
topics. The modules: `bundles` (the named arguments of the entry points), `driver` (the minibatch:
initial sample and passes), `draws` (the inverse-CDF topic draws), `dense`, `sparse`, `mh`,
`end_state`, `hdp`, and `thread_split` (the documents dealt to threads by their lengths). Their
helpers stay inside the package; this module exports the entry points and their bundles.

Layout of a minibatch (all int64, ``d`` a document, ``j`` an entry = a distinct word of a
document): ``doc_ptr`` (B+1) delimits the entries of each document; ``entry_word[j]`` is the
entry's *local* word id (a row of the U x K word weights) and ``entry_count[j]`` its count;
``token_ptr`` (B+1) delimits each document's tokens, laid out entry by entry (bag-of-words
order: LDA is exchangeable and every pass visits the tokens in a fresh random order anyway).

Each document owns a counter-based random stream seeded from (seed, minibatch index, document
index) (`kernels.random`), so the result is bit-identical for any number of threads. The
caller divides the accumulators by the number of recorded passes.
"""

from .bundles import (DENSE, EVERY_TOPIC, MH, NO_KEYS, NO_VALUES, RECORD_CONDITIONALS,
                      RECORD_DENSE, RECORD_SAMPLE, SPARSE, AllowedTopics, ChainState,
                      GlobalParameters, HDPOutputs, MinibatchLayout, PassPlan, Recording, Sampler,
                      StreamKey, TopicGrowth)
from .driver import gibbs_sweeps, initial_samples
from .end_state import end_state_statistics
from .hdp import hdp_gibbs_sweeps
from .mh import DEFAULT_CYCLES
from .sparse import draw_into, enter_present, leave_present, search_cumulative, smoothing_totals
from .thread_split import balanced_parts

__all__ = ["DEFAULT_CYCLES", "DENSE", "EVERY_TOPIC", "MH", "NO_KEYS", "NO_VALUES",
           "RECORD_CONDITIONALS", "RECORD_DENSE", "RECORD_SAMPLE", "SPARSE", "AllowedTopics", "ChainState",
           "GlobalParameters", "HDPOutputs", "MinibatchLayout", "PassPlan", "Recording",
           "Sampler", "StreamKey", "TopicGrowth", "balanced_parts", "draw_into",
           "end_state_statistics", "enter_present", "gibbs_sweeps", "hdp_gibbs_sweeps",
           "initial_samples", "leave_present", "search_cumulative", "smoothing_totals"]
