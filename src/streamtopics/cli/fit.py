"""`streamtopics fit CORPUS -k K --method g-oem -o MODEL`: train a topic model.

Reads a corpus directory (``CORPUS/train.docword.txt`` + ``vocab.txt``) or any input of
`streamtopics.corpus.load_corpus`, trains with a progress bar and writes the safe model file.
Online methods (the presets of `inference.presets`) run `OnlineLDA` for ``--passes`` passes;
the batch methods ``cgs`` (collapsed Gibbs sampling with the CGS_p estimators) and ``cvb0``
run `GibbsLDA` and `CVB0LDA` for ``--iterations`` sweeps.
"""

from __future__ import annotations

import time

import numba

from ..corpus.readers import load_corpus
from ..errors import InputError
from ..estimators.gibbs_lda import CVB0LDA, GibbsLDA
from ..estimators.online_lda import OnlineLDA
from ..inference.presets import PRESETS
from .common import add_json_flag, emit, progress, report_reading


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "fit", help="train an online topic model (G-OEM, V-OEM, ...)",
        description="Train LDA online (Dupuy & Bach 2016, Algorithm 1) on a corpus directory "
                    "(CORPUS/train.docword.txt + vocab.txt) or any supported input, and write a "
                    "model file.")
    parser.add_argument("corpus", metavar="CORPUS", help="corpus directory or input file")
    parser.add_argument("-k", "--topics", type=int, required=True, help="number of topics K")
    parser.add_argument("--method", choices=sorted(PRESETS) + sorted(BATCH_METHODS),
                        default="g-oem", help="online method, or batch cgs/cvb0 (default: g-oem)")
    parser.add_argument("--batch-size", type=int, default=100, help="documents per minibatch (default: 100)")
    parser.add_argument("--local-passes", type=int, default=20,
                        help="local Gibbs/variational passes per document, P (default: 20)")
    parser.add_argument("--step-decay", type=float, default=0.5,
                        help="kappa in rho_i = (tau0 + i)^-kappa, in (0, 1] (default: 0.5)")
    parser.add_argument("--step-offset", type=float, default=0.0, help="tau0 (default: 0)")
    parser.add_argument("--averaging", action="store_true", help="report Polyak-Ruppert averaged parameters")
    parser.add_argument("--passes", type=int, default=1, help="passes over the corpus (default: 1)")
    parser.add_argument("--split", default="train", help="split of a corpus directory (default: train)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")
    parser.add_argument("--threads", type=int, default=None, help="numba threads (default: all cores)")
    batch = parser.add_argument_group("batch methods (cgs, cvb0)")
    batch.add_argument("--iterations", type=int, default=200, help="sweeps (default: 200)")
    batch.add_argument("--burn-in", type=int, default=50, help="cgs: sweeps before the first kept sample (default: 50)")
    batch.add_argument("--lag", type=int, default=5, help="cgs: sweeps between kept samples (default: 5)")
    batch.add_argument("--samples", type=int, default=10, help="cgs: samples averaged (default: 10)")
    batch.add_argument("--chains", type=int, default=1, help="cgs: independent chains (default: 1)")
    batch.add_argument("--estimator", choices=("standard", "p"), default="p",
                       help="cgs: standard phi/theta or the CGS_p estimators (default: p)")
    batch.add_argument("--alpha", type=float, default=0.1, help="symmetric alpha (default: 0.1)")
    batch.add_argument("--eta", type=float, default=0.01, help="topic-word prior (default: 0.01)")
    batch.add_argument("--optimize-alpha", action="store_true", help="cgs: Minka fixed-point alpha")
    parser.add_argument("-o", "--output", required=True, metavar="MODEL", help="model file to write")
    add_json_flag(parser)
    parser.set_defaults(run=run)


def run(args) -> int:
    if args.threads is not None:
        if not 1 <= args.threads <= numba.config.NUMBA_NUM_THREADS:
            raise InputError(f"--threads must lie in [1, {numba.config.NUMBA_NUM_THREADS}]")
        numba.set_num_threads(args.threads)
    corpus = load_corpus(args.corpus, split=args.split)
    report_reading(corpus.report)
    model = _build_model(args)
    started = time.perf_counter()
    try:
        _fit_with_progress(model, corpus, args)
    except InputError:
        raise
    except ValueError as error:
        raise InputError(str(error)) from None
    seconds = time.perf_counter() - started
    model.save(args.output)
    passes = 1 if args.method in BATCH_METHODS else args.passes
    documents = corpus.n_documents * passes
    result = {
        "model": str(args.output), "method": args.method, "n_topics": args.topics,
        "documents": documents, "tokens": corpus.n_tokens * passes,
        "seconds": seconds, "documents_per_second": documents / seconds if seconds > 0 else None,
        "alpha_mean": float(model.doc_topic_prior_.mean()), "top_words": model.top_words(10),
    }
    human = (f"{args.method}: K={args.topics}, {documents} documents in {seconds:.1f} s "
             f"({documents / max(seconds, 1e-9):.0f} documents/s), mean alpha "
             f"{result['alpha_mean']:.4g}; wrote {args.output}")
    if isinstance(model, OnlineLDA):
        result["steps"] = model.n_steps_
    emit(args, result, human)
    return 0



BATCH_METHODS = ("cgs", "cvb0")


def _build_model(args):
    """The estimator that ``--method`` names, with the command's settings."""
    if args.method == "cgs":
        return GibbsLDA(n_topics=args.topics, alpha=args.alpha, eta=args.eta,
                        optimize_alpha=args.optimize_alpha, iterations=args.iterations,
                        burn_in=args.burn_in, lag=args.lag, n_samples=args.samples,
                        n_chains=args.chains, estimator=args.estimator, random_state=args.seed)
    if args.method == "cvb0":
        return CVB0LDA(n_topics=args.topics, alpha=args.alpha, eta=args.eta,
                       iterations=args.iterations, random_state=args.seed)
    return OnlineLDA(n_topics=args.topics, method=args.method, batch_size=args.batch_size,
                     local_passes=args.local_passes, step_offset=args.step_offset,
                     step_decay=args.step_decay, averaging=args.averaging, n_passes=args.passes,
                     random_state=args.seed)


def _fit_with_progress(model, corpus, args) -> None:
    """Fit with a progress bar: documents for online methods, sweeps for batch samplers."""
    if isinstance(model, OnlineLDA):
        with progress(total=corpus.n_documents * args.passes, desc=args.method) as bar:
            model.fit(corpus, callback=lambda _, report: bar.update(report.n_documents))
    else:
        sweeps = args.iterations * (args.chains if args.method == "cgs" else 1)
        with progress(total=sweeps, desc=args.method, unit="sweep") as bar:
            model.fit(corpus, progress=lambda *_: bar.update(1))
