"""Would an exact rejection draw pay in crowded documents (issue 12)? The acceptance a proposal
of O(1) cost gets on real minibatches, pass by pass, and what a trial costs.

The draw tried (docs/methods.md, "Rejection draws for crowded documents"): for token n (word w)
of document d, propose k from q(k) proportional to N_-n,k + alpha_k in O(1) (the topic of a
uniformly chosen other token with probability (N_d - 1) / (N_d - 1 + A), A = sum alpha, else a
draw from alpha) and accept with probability beta_wk / M_w, M_w = max_k beta_wk: exact
rejection sampling of beta_wk (N_-n,k + alpha_k), with the present-topic walk after T
rejections. A trial accepts with probability c = (sum_k beta_wk N_-n,k + s_w) / ((N_d - 1 + A)
M_w) (s_w = sum_k beta_wk alpha_k), and with a cap T a token costs (1 - (1 - c)^T) / c trials
and falls back with probability (1 - c)^T.

Acceptance: G-OEM one pass (batch_size=100, local_passes=20, ``random_state=0``) on the first
``--early`` and on the first ``--documents`` training documents gives beta and alpha ("early"
and "late": beta gets peaked as training proceeds); the first ``--minibatches`` minibatches of
100 documents then run a chain of exact draws (the conditional over every topic) from
Algorithm 2's initial sample z^0 ~ Mult(beta_w / sum_k beta_wk) for P = 20 passes, and before
each draw the chain records m (topics present with the token taken off), c, 1 / c and, with
T = (10 + m) // 4 (the walk's cost of about 10 + m ns, bench/present_topics.py, in trials of
about 4 ns), the expected trials and fallback share. Means over tokens, per pass.

Cost of a trial: the trial loop (one uniform a trial: the proposed token from u (N_d - 1), the
acceptance from the fraction left) timed on a synthetic document of 140 tokens over K = 100
topics whose word puts beta = M_w on a share of the topics and 0 elsewhere, so that a trial
accepts with a known probability; ns per draw = a + b trials per draw, fitted over the shares
(one thread, CPU seconds, best of 3). ``model ns`` in the table: a + b trials + fallback (10 +
m), against ``walk ns`` = 10 + m.

The other O(1)-state envelope, for a proposal from the word instead (q(k) proportional to
beta_wk, accepted with (N_-n,k + alpha_k) / (max_k N_-n,k + max_k alpha_k); a draw from beta_w
costs a search, not O(1)): its acceptance ``word-proposal c`` = (sum_k beta_wk (N_-n,k +
alpha_k)) / (sum_k beta_wk (max N_-n,k + max alpha)), and ``better-envelope c`` that of the
smaller of the two envelopes, token by token (a choice made from the state, so still exact).

Usage: python bench/reject_draw.py [--corpora debian newsarticles] [--topics 100]
           [--early 200] [--documents 6000] [--minibatches 10] [--name reject_draw]
Writes bench/results/NAME.{json,md} and prints the table.
"""

from __future__ import annotations

import os

for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import argparse  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
from numba import njit  # noqa: E402

from measuring import CORPORA, command_line, write_results  # noqa: E402
from streamtopics import read_corpus_dir  # noqa: E402
from streamtopics.estimators import OnlineLDA  # noqa: E402
from streamtopics.inference.minibatch import Minibatch  # noqa: E402
from streamtopics.kernels.random import uniform_step  # noqa: E402

PASSES = 20
SHOWN_PASSES = (1, 2, 3, 4, 6, 10, 20)
# columns of _acceptance's output, per pass
TOKENS, PRESENT, ACCEPTANCE, INVERSE, TRIALS, FALLBACK, WORD, BETTER = range(8)


@njit(cache=True)
def _draw(weights, counts, alpha):
    """An exact draw from weights_k (counts_k + alpha_k) (numpy's generator: seeded per
    document by `_acceptance`)."""
    cumulative = np.cumsum(weights * (counts + alpha))
    return min(np.searchsorted(cumulative, np.random.random() * cumulative[-1], side="right"),
               alpha.size - 1)


@njit(cache=True)
def _acceptance(doc_ptr, entry_word, entry_count, token_ptr, beta, alpha, seed, out):
    """Add, per pass, the module docstring's statistics of every token's draw to ``out``
    (PASSES x 8): a chain of exact draws per document from z^0."""
    n_topics = alpha.size
    alpha_sum = alpha.sum()
    alpha_max = alpha.max()
    no_counts = np.zeros(n_topics)
    zero_alpha = np.zeros(n_topics)
    for d in range(doc_ptr.size - 1):
        np.random.seed(seed + d)
        n_tokens = token_ptr[d + 1] - token_ptr[d]
        if n_tokens < 2:
            continue
        words = np.repeat(entry_word[doc_ptr[d]:doc_ptr[d + 1]],
                          entry_count[doc_ptr[d]:doc_ptr[d + 1]])
        z = np.empty(n_tokens, dtype=np.int64)
        counts = np.zeros(n_topics)
        for n in range(n_tokens):  # z^0 ~ Mult(beta_w / sum_k beta_wk)
            z[n] = _draw(beta[words[n]], no_counts + 1.0, zero_alpha)
            counts[z[n]] += 1.0
        for t in range(PASSES):
            for n in np.random.permutation(n_tokens):
                weights = beta[words[n]]
                counts[z[n]] -= 1.0
                present = np.sum(counts > 0.0)
                target = np.sum(weights * (counts + alpha))
                envelope = (n_tokens - 1 + alpha_sum) * weights.max()
                word_envelope = weights.sum() * (counts.max() + alpha_max)
                acceptance = target / envelope
                cap = (10 + present) // 4
                out[t, TOKENS] += 1.0
                out[t, PRESENT] += present
                out[t, ACCEPTANCE] += acceptance
                out[t, INVERSE] += 1.0 / acceptance
                out[t, TRIALS] += (1.0 - (1.0 - acceptance) ** cap) / acceptance
                out[t, FALLBACK] += (1.0 - acceptance) ** cap
                out[t, WORD] += target / word_envelope
                out[t, BETTER] += target / min(envelope, word_envelope)
                z[n] = _draw(weights, counts, alpha)
                counts[z[n]] += 1.0


@njit(cache=True)
def _trial_loop(weights, topics, bound, n_draws):
    """Rejection draws of ``n_draws`` tokens of the document ``topics`` (no cap): (trials,
    a checksum), the proposal and acceptance of the variant tried, one uniform a trial."""
    stream = np.uint64(12345)
    others = topics.size - 1.0
    trials = 0
    checksum = 0
    for r in range(n_draws):
        token = np.uint64(r % topics.size)
        while True:
            stream, u = uniform_step(stream)
            spot = u * others
            j = np.uint64(spot)
            k = topics[j + np.uint64(j >= token)]
            trials += 1
            if (spot - j) * bound < weights[k]:
                checksum += k
                break
    return trials, checksum


def trial_cost(n_draws=300_000):
    """(a, b, rows): ns per draw = a + b trials per draw, fitted over accepting shares."""
    rng = np.random.default_rng(0)
    n_topics = 100
    topics = rng.integers(0, n_topics, 140)
    rows = []
    for share in (0.5, 0.3, 0.2, 0.1, 0.05):
        weights = (np.arange(n_topics) < share * n_topics).astype(float)
        _trial_loop(weights, topics, 1.0, 10)
        best = np.inf
        for _ in range(3):
            started = time.thread_time()
            trials, _ = _trial_loop(weights, topics, 1.0, n_draws)
            best = min(best, time.thread_time() - started)
        rows.append((trials / n_draws, best / n_draws * 1e9))
    per_trial, per_draw = np.polyfit([r[0] for r in rows], [r[1] for r in rows], 1)
    return per_draw, per_trial, rows


def acceptance(corpus_name, n_topics, args):
    train = read_corpus_dir(CORPORA / corpus_name, "train")[:args.documents]
    batches = [Minibatch.from_counts(train.counts[start:start + 100], first_document=start)
               for start in range(0, 100 * args.minibatches, 100)]
    stages = {}
    for stage, documents in (("early", args.early), ("late", args.documents)):
        model = OnlineLDA(n_topics, method="g-oem", batch_size=100, local_passes=PASSES,
                          n_passes=1, random_state=0).fit(train[:documents])
        beta = model.components_ / model.components_.sum(axis=1, keepdims=True)
        alpha = np.ascontiguousarray(model.doc_topic_prior_, dtype=np.float64)
        out = np.zeros((PASSES, 8))
        for index, batch in enumerate(batches):
            _acceptance(batch.doc_ptr, batch.entry_word, batch.entry_count, batch.token_ptr,
                        np.ascontiguousarray(beta[:, batch.words].T), alpha, 1000 * index, out)
        stages[stage] = (documents, float(alpha.sum()), out)
    return stages


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpora", nargs="+", default=["debian", "newsarticles"])
    parser.add_argument("--topics", type=int, default=100)
    parser.add_argument("--early", type=int, default=200)
    parser.add_argument("--documents", type=int, default=6000)
    parser.add_argument("--minibatches", type=int, default=10)
    parser.add_argument("--name", default="reject_draw")
    args = parser.parse_args()
    per_draw, per_trial, cost_rows = trial_cost()
    print(f"trial loop: {per_draw:.1f} ns per draw + {per_trial:.2f} ns per trial", flush=True)
    table = [f"Trial loop (synthetic, one thread, CPU s): {per_draw:.1f} ns per draw + "
             f"{per_trial:.2f} ns per trial (trials per draw, ns per draw: "
             + ", ".join(f"{t:.2f}, {ns:.1f}" for t, ns in cost_rows) + ").", "",
             "| corpus | beta after | sum alpha | pass | present m | acceptance c | mean 1/c | "
             "trials (T = (10 + m) // 4) | fallback share | model ns | walk ns | word-proposal c "
             "| better-envelope c |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    rows = []
    for corpus in args.corpora:
        for stage, (documents, alpha_sum, out) in acceptance(corpus, args.topics, args).items():
            for t in SHOWN_PASSES:
                mean = out[t - 1] / out[t - 1, TOKENS]
                walk = 10.0 + mean[PRESENT]
                model = per_draw + per_trial * mean[TRIALS] + mean[FALLBACK] * walk
                row = {"corpus": corpus, "K": args.topics, "stage": stage,
                       "documents": documents, "alpha_sum": alpha_sum, "pass": t,
                       "present": mean[PRESENT], "acceptance": mean[ACCEPTANCE],
                       "inverse_acceptance": mean[INVERSE], "trials": mean[TRIALS],
                       "fallback": mean[FALLBACK], "model_ns": model, "walk_ns": walk,
                       "word_acceptance": mean[WORD], "better_acceptance": mean[BETTER]}
                rows.append(row)
                table.append(f"| {corpus} | {documents} | {alpha_sum:.2f} | {t} | "
                             f"{mean[PRESENT]:.1f} | {mean[ACCEPTANCE]:.3f} | "
                             f"{mean[INVERSE]:.1f} | {mean[TRIALS]:.1f} | "
                             f"{mean[FALLBACK]:.2f} | {model:.0f} | {walk:.0f} | "
                             f"{mean[WORD]:.3f} | {mean[BETTER]:.3f} |")
            print("\n".join(table[-len(SHOWN_PASSES):]), flush=True)
    write_results(args.name, {"settings": vars(args), "trial_ns_per_draw": per_draw,
                              "trial_ns_per_trial": per_trial, "trial_rows": cost_rows,
                              "rows": rows},
                  f"Rejection draws for crowded documents: acceptance and cost (K = "
                  f"{args.topics}, P = {PASSES})", command_line(), table)


if __name__ == "__main__":
    main()
