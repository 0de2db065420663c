"""``streamtopics experiment NAME CORPUS -o OUT``: the papers' figures on any corpus, resumable.

NAME is one of `streamtopics.experiments.EXPERIMENTS` (or ``all``); CORPUS a corpus directory
(``train``/``test`` splits) or the word ``synthetic`` (the paper's generator, sizes below).
Writes OUT/NAME.json, OUT/NAME.md (median [3rd, 7th decile] tables) and OUT/NAME.png; completed
cells live in OUT/cells/ and are not recomputed when the command is run again.
"""

from __future__ import annotations

import argparse
import sys

from tqdm.auto import tqdm

from ..errors import InputError
from ..experiments import EXPERIMENTS, CorpusSource, Options, SyntheticSpec, run_experiment
from ..reporting.progressive import METRICS
from .common import add_json_flag, emit, positive_int, progress, use_threads


def list_of(convert, what: str):
    def parse(text: str):
        try:
            values = tuple(convert(item.strip()) for item in text.split(",") if item.strip())
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected comma-separated {what}, got {text!r}")
        if not values:
            raise argparse.ArgumentTypeError(f"expected at least one of {what}")
        return values
    return parse


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "experiment", help="reproduce a figure of Dupuy & Bach (2016) on a corpus",
        description="Run one of the papers' experiments on a corpus directory or a synthetic "
                    "corpus: " + "; ".join(f"{name} ({e.figure}): {e.description}"
                                           for name, e in EXPERIMENTS.items())
                    + ". Results are medians over splits x seeds with the 3rd-7th decile.")
    parser.add_argument("name", metavar="NAME", choices=[*EXPERIMENTS, "all"],
                        help=f"one of {', '.join(EXPERIMENTS)}, or all")
    parser.add_argument("corpus", metavar="CORPUS",
                        help="corpus directory (train/test splits) or 'synthetic'")
    parser.add_argument("-o", "--output", required=True, metavar="OUT",
                        help="results directory (cells there are reused)")
    grid = parser.add_argument_group("grid")
    grid.add_argument("--methods", type=list_of(str.lower, "method names"),
                      help="comma-separated presets (default: the experiment's)")
    grid.add_argument("-k", "--topics", type=list_of(int, "integers"),
                      help="K values (default: K*/2,K*,2K* on synthetic data, 8,16,32,64 on a "
                           "directory; a single K* or 32 for fixed-K experiments)")
    grid.add_argument("--seeds", type=list_of(int, "integers"), default=(0, 1, 2),
                      help="estimator seeds (default: 0,1,2)")
    grid.add_argument("--splits", type=list_of(int, "integers"), default=(0,),
                      help="train/test splits: 0 is the corpus' own, s >= 1 a reshuffle (default: 0)")
    grid.add_argument("--kappas", type=list_of(float, "numbers"),
                      help="step-size exponents for step-size (default 0,0.25,0.5,0.75,1) and "
                           "alpha-update (default 0.5,1); 0 is the constant step 1")
    grid.add_argument("--kappa", type=float, default=0.5,
                      help="step-size exponent elsewhere (default: 0.5)")
    grid.add_argument("--alpha-updates", type=list_of(str.lower, "names"),
                      help="alpha-update: updates to compare (default: fixed, fixed-point, the "
                           "Gamma prior if available)")
    training = add_training_arguments(parser)
    training.add_argument("--eval-every", type=positive_int, default=None,
                          help="through-iterations: documents between evaluations (default: 1/20 of the run)")
    add_synthetic_arguments(parser)
    add_json_flag(parser)
    parser.set_defaults(run=run)


def add_training_arguments(parser):
    """The training and evaluation options of the cells (shared with ``select-k``); returns
    the argument group."""
    training = parser.add_argument_group("training and evaluation")
    training.add_argument("--train-docs", type=positive_int, default=None,
                          help="training documents per split (default: all; synthetic: 20000)")
    training.add_argument("--test-docs", type=positive_int, default=1000,
                          help="held-out documents scored (default: 1000)")
    training.add_argument("--batch-size", type=positive_int, default=100, help="minibatch size (default: 100)")
    training.add_argument("--local-passes", type=positive_int, default=20, help="P (default: 20)")
    training.add_argument("--passes", type=positive_int, default=1, help="passes over the training part (default: 1)")
    training.add_argument("--step-offset", type=float, default=0.0, help="tau0 (default: 0)")
    training.add_argument("--metric", choices=METRICS, default="left-to-right",
                          help="held-out score (default: left-to-right)")
    training.add_argument("--particles", type=positive_int, default=20, help="left-to-right particles (default: 20)")
    training.add_argument("--max-tokens", type=positive_int, default=None,
                          help="left-to-right: score only the first N tokens of each document")
    training.add_argument("--eval-seed", type=int, default=0, help="evaluation seed (default: 0)")
    training.add_argument("--threads", type=int, default=None, help="numba threads (default: all cores)")
    return training


def add_synthetic_arguments(parser) -> None:
    """The sizes of the synthetic corpus (CORPUS = synthetic), shared with ``select-k``."""
    synthetic = parser.add_argument_group("synthetic corpus (CORPUS = synthetic)")
    synthetic.add_argument("--synthetic-topics", type=positive_int, default=10, help="true K* (default: 10)")
    synthetic.add_argument("--synthetic-words", type=positive_int, default=1000, help="V (default: 1000)")
    synthetic.add_argument("--synthetic-length", type=float, default=60.0,
                           help="mean document length (Poisson; default: 60)")
    synthetic.add_argument("--synthetic-alpha", type=float, default=0.1,
                           help="true symmetric alpha (default: 0.1)")
    synthetic.add_argument("--synthetic-concentration", type=float, default=0.1,
                           help="Dirichlet concentration of the true topics (default: 0.1)")
    synthetic.add_argument("--synthetic-seed", type=int, default=0, help="corpus seed (default: 0)")


def corpus_source(args) -> tuple[CorpusSource, int | None, int]:
    """The corpus source and the (n_train, n_test) the cells use (sizes are `positive_int`s,
    checked by argparse before anything is read)."""
    if args.corpus != "synthetic":
        return CorpusSource.directory(args.corpus), args.train_docs, args.test_docs
    spec = SyntheticSpec(n_topics=args.synthetic_topics, n_words=args.synthetic_words,
                         n_train=args.train_docs or 20_000, n_test=args.test_docs,
                         mean_length=args.synthetic_length, alpha=args.synthetic_alpha,
                         topic_concentration=args.synthetic_concentration,
                         seed=args.synthetic_seed)
    return CorpusSource.synthetic(spec), spec.n_train, spec.n_test


def run(args) -> int:
    use_threads(args.threads)
    source, n_train, n_test = corpus_source(args)
    options = Options(methods=args.methods, topics=args.topics, seeds=args.seeds,
                      splits=args.splits, kappas=args.kappas, kappa=args.kappa,
                      alpha_updates=args.alpha_updates, step_offset=args.step_offset,
                      batch_size=args.batch_size, local_passes=args.local_passes,
                      n_passes=args.passes, n_train=n_train, n_test=n_test, metric=args.metric,
                      n_particles=args.particles, max_tokens=args.max_tokens,
                      eval_seed=args.eval_seed, eval_every=args.eval_every)
    names = list(EXPERIMENTS) if args.name == "all" else [args.name]
    reports = []
    for name in names:
        try:
            reports.append(run_experiment(EXPERIMENTS[name], source, options, args.output,
                                          progress=progress,
                                          log=lambda message: tqdm.write(message, file=sys.stderr)))
        except InputError:
            raise
        except ValueError as error:
            raise InputError(str(error)) from None
    result = {"experiments": [{
        "name": report.name, "json": str(report.json_path), "markdown": str(report.markdown_path),
        "plot": None if report.plot_path is None else str(report.plot_path),
        "cells_computed": report.computed, "cells_reused": report.reused,
        "cells_skipped": len(report.skipped), "messages": report.messages,
    } for report in reports]}
    human = "\n".join(
        f"{report.markdown}\n({report.computed} cells computed, {report.reused} reused, "
        f"{len(report.skipped)} skipped; wrote {report.json_path}, {report.markdown_path}"
        + (f", {report.plot_path}" if report.plot_path is not None else ", no plot") + ")\n"
        for report in reports)
    emit(args, result, human)
    return 0
