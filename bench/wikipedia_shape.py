"""At the shape of BigARTM's English Wikipedia run, how fast and how good is one pass of G-OEM
against Vowpal Wabbit and BigARTM?

A synthetic corpus of that shape (`shape_cost.synthetic`: K = 100 topics drawn from a
Dirichlet(0.1) over V = ``--words`` words, a Dirichlet(0.05) topic mix per document, Poisson(300)
tokens; ``--documents`` training and ``--test-documents`` test documents, seed 1, the corpus
of ``streamtopics synth -k 100 -V 100000 --mean-length 300 --alpha 0.05 --seed 1``), one thread,
side by side as `vs_peers` runs them (fits by turns, the best of ``--repeats``; left-to-right,
R = 20, paired over the test documents):

* ``G-OEM, one pass``: ``OnlineLDA(100, n_passes=1)`` at its defaults;
* ``G-OEM, one pass, eta E`` for each E of ``--etas``: the same with ``topic_word_prior=E``
  (the default eta was chosen on 10,000-word corpora; a larger one keeps a 100,000-word
  model's documents on fewer topics, `shape_cost.py`), and with each P of ``--local-passes``
  (``local_passes=P``, named when it is not the default 20);
* Vowpal Wabbit's ``--lda`` and BigARTM updating phi every 8 batches of 250 documents (its
  best here: an update every batch is both slower and less accurate at this shape;
  ``--bigartm-update-every`` runs others), both through `engines`, skipped with a line saying
  so where not installed;
* the generating model.

``--quick``: V = 1,000, K = 10, 600 documents of 60 tokens.

Usage: python bench/wikipedia_shape.py [--documents 30000] [--test-documents 500]
           [--words 100000] [--etas 1.0] [--local-passes 20] [--bigartm-update-every 8]
           [--repeats 2]
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
PASSES = 20  # G-OEM's default P


def engine_table(etas, local_passes, update_every) -> dict:
    """name -> (the engine `engines.missing` checks, fit(train, K) -> `engines.Fitted`)."""
    table = {REFERENCE: ("streamtopics", partial(engines.goem, n_passes=1))}
    table.update({f"{REFERENCE}, eta {eta:g}" + (f", P = {passes}" if passes != PASSES else ""):
                  ("streamtopics", partial(engines.goem, n_passes=1, topic_word_prior=eta,
                                           local_passes=passes))
                  for eta in etas for passes in local_passes})
    table["Vowpal Wabbit"] = ("vowpalwabbit", engines.vowpal_wabbit)
    table.update({BIGARTM.format(every): ("bigartm", partial(engines.bigartm, update_every=every))
                  for every in update_every})
    return table


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument("--documents", type=int, default=30000)
    parser.add_argument("--test-documents", type=int, default=500)
    parser.add_argument("--words", type=int, default=100000)
    parser.add_argument("--etas", type=float, nargs="+", default=[1.0])
    parser.add_argument("--local-passes", type=int, nargs="+", default=[PASSES],
                        help="P of the G-OEM runs with the etas of --etas")
    parser.add_argument("--bigartm-update-every", type=int, nargs="+", default=[8],
                        help="BigARTM runs with each (batches between two updates of phi)")
    parser.add_argument("--skip", nargs="*", default=[], help="engines not to run (names)")
    args = parse(parser)
    n_topics, length = 100, MEAN_LENGTH
    if args.quick:
        args.documents, args.test_documents, args.words = 600, 60, 1000
        n_topics, length = 10, 60
    fits, skipped = runnable(engine_table(args.etas, args.local_passes,
                                          args.bigartm_update_every), args.skip)
    corpus, truth = synthetic(n_topics, args.words, args.documents + args.test_documents,
                              length)
    train, test = corpus[:args.documents], corpus[args.documents:]
    engines.goem(train[:200], 10, n_passes=1)  # compiled outside the timing
    name = f"synthetic V = {args.words:,}, {length} tokens"
    rows = compare(name, train, seen_in(train, test), n_topics, fits, args, truth)
    best = best_rows(rows)
    write_results(args, {"skipped": skipped, "rows": rows, "best": best},
                  "One pass at the shape of English Wikipedia, against the C++ engines",
                  [*markdown(rows), "", *notes(args, skipped)], headline(best))


if __name__ == "__main__":
    main()
