"""``streamtopics select-k CORPUS --topics 5,10,20 -o OUT``: which K the held-out data supports.

Trains one method (default G-OEM) for each K and seed on the training split, scores the held-out
split (left-to-right, or ``--metric completion``) as the ``perplexity-vs-k`` experiment does
(the same cells, reused from OUT and resumable), prints the table (with each K's c_v, NPMI and
topic diversity) and recommends a K by ``--criterion`` (`streamtopics.experiments.select_k`):
balanced (the default; the held-out elbow guarded by coherence and diversity), coherence or
heldout (the one-standard-error rule). Writes OUT/select-k.json and the
experiment's OUT/perplexity-vs-k.{json,md,png}. CORPUS is a corpus directory with train and test
splits (``streamtopics preprocess`` makes them) or the word ``synthetic``.
"""

from __future__ import annotations

import sys

from tqdm.auto import tqdm

from ..errors import InputError
from ..experiments import Options, select_k
from ..experiments.select_k import CRITERIA, MIN_GAIN_SHARE, describe_criterion
from ..estimators.hdp import OnlineHDP
from ..inference.presets import PRESETS
from .common import add_json_flag, default_of, emit, positive_int, progress
from .experiment import (add_synthetic_arguments, add_training_arguments, corpus_source, list_of,
                         listed, training_options)

SEEDS = (0, 1)  # fewer than an experiment's: select-k trains every K once per seed


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "select-k", help="choose the number of topics K by held-out likelihood",
        description="Fit one method for each K (and seed), score held-out documents and the "
                    "topics' coherence and diversity, print a table and recommend a K. "
                    "--criterion balanced (default): "
                    f"{describe_criterion('balanced')}; coherence: "
                    f"{describe_criterion('coherence')}; heldout: "
                    f"{describe_criterion('heldout')}.")
    parser.add_argument("corpus", metavar="CORPUS",
                        help="corpus directory (train/test splits) or 'synthetic'")
    parser.add_argument("-k", "--topics", required=True,
                        type=list_of(positive_int, "positive integers"),
                        help="the K values to compare, e.g. 10,20,50,100")
    parser.add_argument("-o", "--output", required=True, metavar="OUT",
                        help="results directory (completed runs there are reused)")
    parser.add_argument("--method", default="g-oem", type=str.lower,
                        help="the preset to train (default: g-oem)")
    parser.add_argument("--seeds", type=list_of(int, "integers"), default=SEEDS,
                        help=f"estimator seeds, one run per K each (default: {listed(SEEDS)})")
    parser.add_argument("--model", choices=("lda", "hdp"), default="lda",
                        help="hdp: also train an online HDP (G-OEM), which picks its own number "
                             "of topics, and show it beside the K values (default: lda only)")
    parser.add_argument("--max-topics", type=positive_int, default=None,
                        help=f"--model hdp: the HDP's cap on topics (default: "
                             f"{default_of(OnlineHDP, 'max_topics')})")
    parser.add_argument("--criterion", choices=tuple(CRITERIA), default="balanced",
                        help="how K is recommended (default: %(default)s)")
    parser.add_argument("--min-gain", type=float, default=MIN_GAIN_SHARE, metavar="SHARE",
                        help="balanced: the share of the held-out log-likelihood per document "
                             "an added topic must gain (default: %(default)s)")
    add_training_arguments(parser)
    add_synthetic_arguments(parser)
    add_json_flag(parser)
    parser.set_defaults(run=run)


def run(args) -> int:
    if args.method not in PRESETS:
        raise InputError(f"unknown --method {args.method!r} (presets: {', '.join(PRESETS)})")
    source, n_train, n_test = corpus_source(args)
    options = Options(topics=tuple(dict.fromkeys(args.topics)), seeds=args.seeds,
                      n_train=n_train, n_test=n_test, **training_options(args))
    hdp = (None if args.model != "hdp" else
           default_of(OnlineHDP, "max_topics") if args.max_topics is None else args.max_topics)
    selection = select_k(source, options, args.method, args.output, progress=progress,
                         log=lambda message: tqdm.write(message, file=sys.stderr),
                         hdp_max_topics=hdp, criterion=args.criterion,
                         min_gain=args.min_gain)
    report = selection.experiment
    human = (f"{args.method} on {source.identity}: held-out {options.metric} log-perplexity per "
             f"document (nats, lower is better), mean over {len(args.seeds)} seed(s)\n"
             f"{selection.table()}\n"
             f"recommended K = {selection.recommended} ({args.criterion}: {selection.rule})\n"
             + ("note: that is the largest K tried; a larger K may score better still\n"
                if selection.largest_k_recommended else "") +
             f"({report.computed} runs computed, {report.reused} reused; wrote "
             f"{args.output}/select-k.json, {report.markdown_path}"
             + (f", {report.plot_path}" if report.plot_path is not None else ", no plot") + ")")
    emit(args, {"corpus": source.identity, "method": args.method, **selection.as_dict()}, human)
    return 0
