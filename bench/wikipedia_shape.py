"""At the shape of BigARTM's English Wikipedia run, how fast and how good is one pass of G-OEM
against Vowpal Wabbit and BigARTM?

A synthetic corpus of that shape (`shape_cost.synthetic`: K = 100 topics drawn from a
Dirichlet(0.1) over V = ``--words`` words, a Dirichlet(0.05) topic mix per document, Poisson(300)
tokens; ``--documents`` training and ``--test-documents`` test documents, seed 1, the corpus
of ``streamtopics synth -k 100 -V 100000 --mean-length 300 --alpha 0.05 --seed 1``), one thread,
side by side as `vs_peers` runs them (fits by turns, the best of ``--repeats``; left-to-right,
R = 20, paired over the test documents):

* ``G-OEM, one pass``: ``OnlineLDA(100, n_passes=1)`` at its defaults;
* ``G-OEM, one pass, flat-topic setting``: the same with ``topic_word_prior=--eta`` (0.3),
  minibatches of ``--batch-size`` (1,000), rho_i = i^-``--step-decay`` (1: the running mean of
  every minibatch's statistics) and P = ``--local-passes`` (5). The generating topics here are
  flat (a Dirichlet(0.1) over 100,000 words): a step of 100 documents holds 30,000 tokens for
  10M topic-word values, and the default schedule averages the statistics of the last few
  dozen steps. Longer averaging and a larger eta smooth them: on a short stream (30,000
  documents) this ties BigARTM in a third of its time; on longer ones (100,000 documents, the
  default) the defaults pull ahead, and on real corpora, whose topics are Zipfian, the setting
  costs 5% (docs/performance.md);
* Vowpal Wabbit's ``--lda`` and BigARTM updating phi every 8 and every 16 batches of 250
  documents (its best here: an update every batch is both slower and less accurate at this
  shape; ``--bigartm-update-every`` runs others), both through `engines`, skipped with a line
  saying so where not installed;
* the generating model.

The last headline line compares the flat-topic setting with the fastest of the peers (CPU
time) and with their best held-out score.

``--quick``: V = 1,000, K = 10, 600 documents of 60 tokens, minibatches of 200.

Usage: python bench/wikipedia_shape.py [--documents 100000] [--test-documents 500]
           [--words 100000] [--eta 0.3] [--batch-size 1000] [--step-decay 1]
           [--local-passes 5] [--bigartm-update-every 8 16] [--repeats 2]
           [--skip NAME ...] [--quick]
"""

from __future__ import annotations

from functools import partial

import engines
from measuring import arguments, parse, seen_in, write_results
from shape_cost import synthetic
from vs_peers import (BIGARTM, REFERENCE, best_rows, compare, headline, markdown, notes,
                      runnable)

MEAN_LENGTH = 300
TUNED = f"{REFERENCE}, flat-topic setting"
PEERS = ("Vowpal Wabbit", "BigARTM")


def engine_table(args) -> dict:
    """name -> (the engine `engines.missing` checks, fit(train, K) -> `engines.Fitted`)."""
    table = {REFERENCE: ("streamtopics", partial(engines.goem, n_passes=1)),
             TUNED: ("streamtopics", partial(
                 engines.goem, n_passes=1, topic_word_prior=args.eta,
                 batch_size=args.batch_size, step_decay=args.step_decay,
                 local_passes=args.local_passes)),
             "Vowpal Wabbit": ("vowpalwabbit", engines.vowpal_wabbit)}
    table.update({BIGARTM.format(every): ("bigartm", partial(engines.bigartm, update_every=every))
                  for every in args.bigartm_update_every})
    return table


def against_peers(best) -> list[str]:
    """The flat-topic setting against the fastest peer and the most accurate one (their best
    rows), as CPU-time ratios and paired held-out differences; nothing when no peer ran."""
    tuned = next(row for row in best if row["engine"] == TUNED)
    peers = [row for row in best if row["family"] in PEERS]
    if not peers:
        return []
    fastest = min(peers, key=lambda row: row["seconds"])
    accurate = min(peers, key=lambda row: row["log_perplexity"])
    return [f"{TUNED}: {fastest['seconds'] / tuned['seconds']:.1f}x faster than the fastest "
            f"peer ({fastest['engine']}); held-out {tuned['log_perplexity']:.1f} against "
            f"{accurate['log_perplexity']:.1f} for the best peer ({accurate['engine']}, "
            f"{accurate['seconds'] / tuned['seconds']:.1f}x the time)"]


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument("--documents", type=int, default=100000)
    parser.add_argument("--test-documents", type=int, default=500)
    parser.add_argument("--words", type=int, default=100000)
    parser.add_argument("--eta", type=float, default=0.3, help="flat-topic setting: eta")
    parser.add_argument("--batch-size", type=int, default=1000,
                        help="flat-topic setting: documents per minibatch")
    parser.add_argument("--step-decay", type=float, default=1.0,
                        help="flat-topic setting: kappa of rho_i = i^-kappa")
    parser.add_argument("--local-passes", type=int, default=5, help="flat-topic setting: P")
    parser.add_argument("--bigartm-update-every", type=int, nargs="+", default=[8, 16],
                        help="BigARTM runs with each (batches between two updates of phi)")
    parser.add_argument("--skip", nargs="*", default=[], help="engines not to run (names)")
    args = parse(parser)
    n_topics, length = 100, MEAN_LENGTH
    if args.quick:
        args.documents, args.test_documents, args.words = 600, 60, 1000
        n_topics, length, args.batch_size = 10, 60, 200
    fits, skipped = runnable(engine_table(args), args.skip)
    corpus, truth = synthetic(n_topics, args.words, args.documents + args.test_documents,
                              length)
    train, test = corpus[:args.documents], corpus[args.documents:]
    engines.goem(train[:200], 10, n_passes=1)  # compiled outside the timing
    name = f"synthetic V = {args.words:,}, {length} tokens"
    rows = compare(name, train, seen_in(train, test), n_topics, fits, args, truth)
    best = best_rows(rows)
    write_results(args, {"skipped": skipped, "rows": rows, "best": best},
                  "One pass at the shape of English Wikipedia, against the C++ engines",
                  [*markdown(rows), "", *notes(args, skipped)],
                  headline(best) + against_peers(best))


if __name__ == "__main__":
    main()
