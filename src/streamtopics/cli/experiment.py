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
from ..experiments.named import (ALPHA_STEP_DECAYS, REAL_SINGLE_TOPICS, REAL_TOPICS,
                                 STEP_DECAYS)
from ..reporting.progressive import METRICS
from .common import (add_json_flag, add_threads_option, default_of, emit, given, positive_int,
                     progress)


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


def listed(values) -> str:
    """``values`` as `list_of` reads them: "0,0.25,0.5"."""
    return ",".join(f"{value:g}" for value in values)


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
                      help=f"K values (default: K*/2,K*,2K* on synthetic data, "
                           f"{listed(REAL_TOPICS)} on a directory; a single K* or "
                           f"{REAL_SINGLE_TOPICS} for fixed-K experiments)")
    grid.add_argument("--seeds", type=list_of(int, "integers"), default=None,
                      help=f"estimator seeds (default: {listed(_default('seeds'))})")
    grid.add_argument("--splits", type=list_of(int, "integers"), default=None,
                      help=f"train/test splits: 0 is the corpus' own, s >= 1 a reshuffle "
                           f"(default: {listed(_default('splits'))})")
    grid.add_argument("--step-decays", type=list_of(float, "numbers"),
                      help=f"step decays kappa of step-size (default {listed(STEP_DECAYS)}) and "
                           f"alpha-update (default {listed(ALPHA_STEP_DECAYS)}); 0 is the "
                           f"constant step 1")
    grid.add_argument("--step-decay", type=float, default=None,
                      help=f"step decay kappa elsewhere (default: {_default('step_decay')})")
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
    the argument group. Left out, an option takes the default of `experiments.Options`."""
    training = parser.add_argument_group("training and evaluation")
    training.add_argument("--train-docs", type=positive_int, default=None,
                          help=f"training documents per split (default: all; synthetic: "
                               f"{default_of(SyntheticSpec, 'n_train')})")
    training.add_argument("--test-docs", type=positive_int, default=None,
                          help=f"held-out documents scored (default: {_default('n_test')})")
    training.add_argument("--batch-size", type=positive_int, default=None,
                          help=f"minibatch size (default: {_default('batch_size')})")
    training.add_argument("--local-passes", type=positive_int, default=None,
                          help=f"P (default: {_default('local_passes')})")
    training.add_argument("--passes", type=positive_int, default=None,
                          help=f"passes over the training part (default: {_default('n_passes')})")
    training.add_argument("--step-offset", type=float, default=None,
                          help=f"tau0 (default: {_default('step_offset')})")
    training.add_argument("--metric", choices=METRICS, default=None,
                          help=f"held-out score (default: {_default('metric')})")
    training.add_argument("--particles", type=positive_int, default=None,
                          help=f"left-to-right particles (default: {_default('n_particles')})")
    training.add_argument("--max-tokens", type=positive_int, default=None,
                          help="left-to-right: score only the first N tokens of each document")
    training.add_argument("--eval-seed", type=int, default=None,
                          help=f"evaluation seed (default: {_default('eval_seed')})")
    add_threads_option(training)
    return training


def training_options(args) -> dict:
    """The `experiments.Options` keywords of `add_training_arguments`' options given."""
    return given(step_offset=args.step_offset, batch_size=args.batch_size,
                 local_passes=args.local_passes, n_passes=args.passes, metric=args.metric,
                 n_particles=args.particles, max_tokens=args.max_tokens,
                 eval_seed=args.eval_seed)


def _default(name: str):
    """`experiments.Options`' default of ``name``, the one its option shows."""
    return default_of(Options, name)


def add_synthetic_arguments(parser) -> None:
    """The sizes of the synthetic corpus (CORPUS = synthetic), shared with ``select-k``."""
    synthetic = parser.add_argument_group("synthetic corpus (CORPUS = synthetic)")
    synthetic.add_argument("--synthetic-topics", type=positive_int,
                           default=default_of(SyntheticSpec, "n_topics"),
                           help="true K* (default: %(default)s)")
    synthetic.add_argument("--synthetic-words", type=positive_int,
                           default=default_of(SyntheticSpec, "n_words"),
                           help="V (default: %(default)s)")
    synthetic.add_argument("--synthetic-length", type=float,
                           default=default_of(SyntheticSpec, "mean_length"),
                           help="mean document length (Poisson; default: %(default)s)")
    synthetic.add_argument("--synthetic-alpha", type=float,
                           default=default_of(SyntheticSpec, "alpha"),
                           help="true symmetric alpha (default: %(default)s)")
    synthetic.add_argument("--synthetic-concentration", type=float,
                           default=default_of(SyntheticSpec, "topic_concentration"),
                           help="Dirichlet concentration of the true topics (default: %(default)s)")
    synthetic.add_argument("--synthetic-seed", type=int, default=default_of(SyntheticSpec, "seed"),
                           help="corpus seed (default: %(default)s)")


def corpus_source(args) -> tuple[CorpusSource, int | None, int]:
    """The corpus source and the (n_train, n_test) the cells use (sizes are `positive_int`s,
    checked by argparse before anything is read)."""
    n_test = _default("n_test") if args.test_docs is None else args.test_docs
    if args.corpus != "synthetic":
        return CorpusSource.directory(args.corpus), args.train_docs, n_test
    spec = SyntheticSpec(n_topics=args.synthetic_topics, n_words=args.synthetic_words,
                         n_test=n_test, mean_length=args.synthetic_length,
                         alpha=args.synthetic_alpha,
                         topic_concentration=args.synthetic_concentration,
                         seed=args.synthetic_seed, **given(n_train=args.train_docs))
    return CorpusSource.synthetic(spec), spec.n_train, spec.n_test


def run(args) -> int:
    source, n_train, n_test = corpus_source(args)
    options = Options(methods=args.methods, topics=args.topics, step_decays=args.step_decays,
                      alpha_updates=args.alpha_updates, n_train=n_train, n_test=n_test,
                      eval_every=args.eval_every, **training_options(args),
                      **given(seeds=args.seeds, splits=args.splits,
                              step_decay=args.step_decay))
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
