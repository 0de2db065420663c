"""`streamtopics fit CORPUS -k K --method g-oem -o MODEL`: train a topic model.

Reads a corpus directory (``CORPUS/train.docword.txt`` + ``vocab.txt``) or any input of
`streamtopics.corpus.load_corpus`, trains with a progress bar and writes the safe model file.
Online methods (the presets of `inference.presets`) run `OnlineLDA` for ``--passes`` passes,
streaming a file by default and loading it only where needed (`fit_reading`, which says so);
the batch methods ``cgs`` (collapsed Gibbs sampling with the CGS_p estimators) and ``cvb0``
run `GibbsLDA` and `CVB0LDA` for ``--passes`` sweeps. Options take the estimators' names and,
left out, the estimator's own default.

``--eval-every N`` (online methods) scores the model on held-out documents every N training
documents and at the end (`reporting.progressive.ProgressiveEvaluation`), writing one JSON line
per evaluation to MODEL.eval.jsonl: documents seen, training wall time without evaluation, and
the held-out log-perplexity per document.
"""

from __future__ import annotations

import argparse
import inspect
import sys
import time
from pathlib import Path


from ..corpus.readers import TEXT_FORMATS, corpus_dir_files, detect_format, read_corpus_dir
from ..corpus.streaming import DocwordStream
from ..errors import InputError
from ..estimators.auto_passes import validation_split
from ..estimators import CVB0LDA, GibbsLDA
from ..estimators.hdp import OnlineHDP
from ..estimators.online_lda import OnlineLDA
from ..corpus.corpus import occurring_words, restrict_to_words
from ..inference.gibbs_estep import LOCAL_SAMPLERS
from ..inference.presets import PRESETS, SMOOTHED_TOPIC_WORD_PRIOR
from ..reporting.progressive import METRICS, ProgressiveEvaluation, strict_record
from ..training import fit_with_checkpoints, train_stream
from ..validation import validate_parameters
from . import fit_backend, fit_labeled, fit_seeds
from .common import (add_growth_options, add_json_flag, add_step_floor_option,
                     add_text_options, add_threads_option, default_of, emit, given,
                     positive_int, progress, read_training_corpus, report_reading, text_options)
from .fit_reading import LOAD_LIMIT_MB, checkpoint_path, plan_reading


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "fit", help="train an online topic model (G-OEM, V-OEM, ...)",
        description="Train LDA online (Dupuy & Bach 2016, Algorithm 1) on a corpus directory "
                    "(CORPUS/train.docword.txt + vocab.txt) or any supported input, and write a "
                    "model file. Options left out take the model's own defaults.")
    parser.add_argument("corpus", metavar="CORPUS", help="corpus directory or input file")
    parser.add_argument("-k", "--topics", type=int, default=None,
                        help="number of topics K (required, except for --model: one per label)")
    parser.add_argument("--method", choices=sorted(PRESETS) + sorted(BATCH_MODELS),
                        default="g-oem", help="online method, or batch cgs/cvb0 (default: g-oem)")
    parser.add_argument("--batch-size", type=int, default=None,
                        help=f"documents per minibatch (default: {_online('batch_size')})")
    parser.add_argument("--local-passes", type=int, default=None,
                        help=f"local Gibbs/variational passes per document, P (default: "
                             f"{_online('local_passes')})")
    parser.add_argument("--local-sampler", choices=LOCAL_SAMPLERS, default=None,
                        help=f"kernel of the local Gibbs step: sparse (O(topics in the document) "
                             f"per token, the fastest), dense (O(K), the reference), auto "
                             f"(sparse) or mh (Metropolis-Hastings, O(1) per token and step, "
                             f"slower mixing; docs/methods.md) (default: "
                             f"{_online('local_sampler')})")
    parser.add_argument("--step-decay", type=float, default=None,
                        help=f"kappa in rho_i = (tau0 + i)^-kappa, in (0, 1] (default: "
                             f"{_online('step_decay')})")
    parser.add_argument("--step-offset", type=float, default=None,
                        help=f"tau0 (default: {_online('step_offset')})")
    add_step_floor_option(parser)
    parser.add_argument("--averaging", action="store_true", default=None,
                        help="report Polyak-Ruppert averaged parameters")
    parser.add_argument("--topic-word-prior", type=float, default=None,
                        help=f"eta, the Dirichlet prior of the topics, for every model; 0 = the "
                             f"paper's maximum likelihood M-step (default: "
                             f"{SMOOTHED_TOPIC_WORD_PRIOR:g} for g-oem, v-oem, splda and their "
                             f"++; 1/K for sgs and the Bayesian methods; "
                             f"{_defaults('topic_word_prior')}; --model hdp: that of its method "
                             f"with K = --max-topics)")
    parser.add_argument("--doc-topic-prior", type=float, default=None,
                        help=f"alpha, the symmetric Dirichlet prior of the documents' topics, "
                             f"for every model (online methods: its initial value; --model hdp: "
                             f"b, the document concentration) (default: 1/K for the online "
                             f"methods, 50/K for the labeled models; "
                             f"{_defaults('doc_topic_prior')})")
    parser.add_argument("--passes", type=_passes, default=None,
                        help=f"passes over the corpus (n_passes: online methods' passes, or "
                             f"auto: until held-out training documents stop improving, and a "
                             f"stream gets 1; cgs sweeps; cvb0 iterations) (default: "
                             f"{_defaults('n_passes')})")
    parser.add_argument("--split", default="train", help="split of a corpus directory (default: train)")
    parser.add_argument("--load-limit", type=float, default=LOAD_LIMIT_MB, metavar="MB",
                        help="online methods stream their input; several passes (--passes N > 1 "
                             "or auto) load an input up to this size instead, and say so "
                             f"(default: {LOAD_LIMIT_MB:g})")
    parser.add_argument("--seed", type=int, default=0,
                        help="random seed, the model's random_state (default: 0)")
    add_threads_option(parser)
    batch = parser.add_argument_group("batch samplers (cgs, cvb0 and the labeled models)")
    batch.add_argument("--burn-in", type=int, default=None,
                       help=f"sweeps before the first kept sample (default: "
                            f"{_defaults('burn_in')})")
    batch.add_argument("--lag", type=int, default=None,
                       help=f"sweeps between kept samples (default: {_defaults('lag')})")
    batch.add_argument("--samples", type=int, default=None,
                       help=f"samples kept, n_samples (default: {_defaults('n_samples')})")
    batch.add_argument("--chains", type=int, default=None,
                       help=f"independent chains, n_chains (default: {_defaults('n_chains')})")
    batch.add_argument("--estimator", choices=("standard", "p"), default=None,
                       help=f"standard phi/theta or the CGS_p estimators (default: "
                            f"{_defaults('estimator')})")
    batch.add_argument("--optimize-alpha", action="store_true", default=None,
                       help="cgs: Minka fixed-point alpha")
    held_out = parser.add_argument_group("progressive held-out evaluation (online methods)")
    held_out.add_argument("--eval-every", type=positive_int, default=None, metavar="N",
                          help="score held-out documents every N training documents and at the "
                               "end; writes MODEL.eval.jsonl (default: off, no cost)")
    held_out.add_argument("--eval-docs", type=positive_int, default=500, metavar="M",
                          help="score the first M held-out documents (default: 500)")
    held_out.add_argument("--eval-metric", choices=METRICS, default=None,
                          help=f"left-to-right (the paper's) or the cheaper document completion "
                               f"(default: {default_of(ProgressiveEvaluation, 'metric')})")
    held_out.add_argument("--eval-particles", type=positive_int, default=None,
                          help=f"left-to-right particles (default: "
                               f"{default_of(ProgressiveEvaluation, 'n_particles')})")
    held_out.add_argument("--eval-corpus", default=None, metavar="DIR",
                          help="corpus directory of the held-out documents (default: CORPUS)")
    held_out.add_argument("--eval-split", default="test",
                          help="its split to score (default: test)")
    stream = parser.add_argument_group(
        "streaming and checkpoints (online methods stream files by default: memory "
        "independent of the input's length)")
    stream.add_argument("--vocabulary", default=None, metavar="FILE",
                        help="vocabulary (one word a line) of raw text or stdin input; streams "
                             "the input instead of loading it")
    stream.add_argument("--format", choices=("text", "jsonl"), default=None,
                        help="format of raw text input (default: from the name, or stdin's first line)")
    add_text_options(stream)
    stream.add_argument("--checkpoint", default=None, metavar="PATH",
                        help="write the complete training state to PATH atomically; the "
                             "model is the one trained without it (docs/streaming.md)")
    stream.add_argument("--checkpoint-every", type=int, default=None, metavar="N",
                        help=f"documents between checkpoints (default: "
                             f"{default_of(train_stream, 'checkpoint_every')})")
    stream.add_argument("--resume", nargs="?", const=True, default=None, metavar="PATH",
                        help="continue from the checkpoint (PATH, or --checkpoint's); the result "
                             "is bit-identical to an uninterrupted run")
    add_growth_options(stream)
    stream.add_argument("--corpus-size", type=int, default=None, metavar="D",
                        help="documents in the corpus, for the Bayesian presets (olda, svb, "
                             "vargibbs) when the input is streamed")
    fit_labeled.add_arguments(parser)
    fit_backend.add_arguments(parser)
    fit_seeds.add_arguments(parser)
    hdp = parser.add_argument_group("--model hdp (topics grow with the stream; --method g-oem "
                                    "or vargibbs)")
    hdp.add_argument("--max-topics", type=int, default=None, metavar="N",
                     help=f"the most topics the HDP opens (default: "
                          f"{default_of(OnlineHDP, 'max_topics')})")
    hdp.add_argument("--initial-topics", type=int, default=None, metavar="T",
                     help=f"topics at the start (default: "
                          f"{default_of(OnlineHDP, 'initial_topics')}, the thesis')")
    parser.add_argument("-o", "--output", required=True, metavar="MODEL", help="model file to write")
    add_json_flag(parser)
    parser.set_defaults(run=run)


def run(args) -> int:
    seeds = fit_seeds.parameters(args)  # refuses seed words where the model takes none
    if args.model in fit_labeled.MODELS:
        return fit_labeled.run(args)
    if args.topics is None and args.model is None:
        raise InputError("-k/--topics is required (except for --model)")
    for option, value in (("--max-vocabulary", args.max_vocabulary),
                          ("--min-word-count", args.min_word_count)):
        if value is not None and not args.grow_vocabulary:
            raise InputError(f"{option} governs a growing vocabulary: add --grow-vocabulary")
    if not args.load_limit >= 0:
        raise InputError("--load-limit must be >= 0 MB")
    model = _build_model(args, seeds)
    validate_parameters(model)  # K, batch size, priors...: before any input is read
    plan = plan_reading(args, model.n_passes, BATCH_METHODS)
    if plan.note is not None:
        print(plan.note, file=sys.stderr)
    backend = fit_backend.backend(args, BATCH_METHODS)
    if backend != "serial":
        model.set_params(backend=backend)
    try:
        if plan.stream:
            documents, tokens, seconds, extra = _train_streaming(model, args, plan.n_passes)
        else:
            documents, tokens, seconds, extra = _train_in_memory(model, args)
    except InputError:
        raise
    except ValueError as error:
        raise InputError(str(error)) from None
    finally:
        fit_backend.close(model)
    model.save(args.output)
    result = {
        "model": str(args.output), "method": args.method,
        "n_topics": model.n_topics_ if isinstance(model, OnlineHDP) else args.topics,
        "input": "streamed" if plan.stream else "loaded",
        "documents": documents, "tokens": tokens,
        "seconds": seconds, "documents_per_second": documents / seconds if seconds > 0 else None,
        "alpha_mean": float(model.doc_topic_prior_.mean()), "top_words": model.top_words(10),
        **extra, **fit_backend.summary(model), **fit_seeds.summary(model),
    }
    human = (f"{args.method}: K={result['n_topics']}, {documents} documents in {seconds:.1f} s "
             f"({documents / max(seconds, 1e-9):.0f} documents/s), mean alpha "
             f"{result['alpha_mean']:.4g}; wrote {args.output}")
    if isinstance(model, OnlineLDA):
        result["steps"] = model.n_steps_
    finite = True
    if "evaluation" in extra:
        last = extra["evaluation"]["last"]
        finite = last["log_perplexity_per_document"] is not None
        score = (f"{last['log_perplexity_per_document']:.2f} nats" if finite
                 else f"not finite ({last['non_finite_reason']})")
        human += (f"\nheld-out {extra['evaluation']['metric']} log-perplexity per document "
                  f"{score} after "
                  f"{last['documents_seen']} documents ({extra['evaluation']['records']} "
                  f"evaluations in {extra['evaluation']['path']})")
    if "resumed_from_documents" in extra:
        human += (f"\nresumed from {extra['resumed_from_documents']} documents; "
                  f"{extra['checkpoints_written']} checkpoints written to {extra['checkpoint']}")
    emit(args, result, human)
    return 0 if finite else 1


def _train_in_memory(model, args) -> tuple[int, int, float, dict]:
    """Load the corpus, fit (with ``--eval-every`` if asked); (documents, tokens, seconds, extra)."""
    checkpoint = checkpoint_path(args)
    if checkpoint is not None and (args.method in BATCH_METHODS or args.eval_every is not None):
        raise InputError("--checkpoint and --resume need an online method (not cgs or cvb0) "
                         "and no --eval-every (evaluate afterwards)")
    corpus = read_training_corpus(args)
    evaluation = _progressive_evaluation(args, corpus)
    started = time.perf_counter()
    result = _fit_with_progress(model, corpus, args, evaluation, checkpoint)
    seconds = time.perf_counter() - started
    if not isinstance(model, OnlineLDA):
        return corpus.n_documents, corpus.n_tokens, seconds, {}
    trained = corpus
    if model.n_passes == "auto":  # the validation documents are scored, not trained on
        trained = corpus[validation_split(corpus.n_documents).train_rows]
    extra = {"passes": model.n_passes_}
    if result is not None:
        extra.update(_checkpoint_summary(result, checkpoint))
        if result.resumed_from is not None:  # what this run trained
            return (result.documents, None, seconds, extra)
    if evaluation is not None:
        extra["evaluation"] = {"path": str(evaluation.path), "records": len(evaluation.records),
                               "metric": evaluation.metric,
                               "last": strict_record(evaluation.records[-1].as_dict())}
    return (trained.n_documents * model.n_passes_, trained.n_tokens * model.n_passes_, seconds,
            extra)


def _train_streaming(model, args, n_passes: int) -> tuple[int, int, float, dict]:
    """`training.train_stream` over the input (a file or ``-`` for stdin), with checkpoints."""
    if args.method in BATCH_METHODS:
        raise InputError("streaming input, --checkpoint, --resume and --grow-vocabulary need an "
                         "online method (not cgs or cvb0)")
    if "time_field" in text_options(args):
        raise InputError("--time-field sorts the documents by time, which needs them in memory: "
                         "it cannot be combined with a streamed input (stdin, --vocabulary, "
                         "--grow-vocabulary, --resume of a streamed run)")
    if args.eval_every is not None:
        raise InputError("--eval-every needs the training corpus in memory: drop --vocabulary, "
                         "--checkpoint, --resume and --grow-vocabulary, or evaluate afterwards")
    if args.grow_vocabulary and args.corpus != "-" and \
            (args.format or detect_format(args.corpus)) not in TEXT_FORMATS:
        raise InputError("--grow-vocabulary needs raw text input (text, JSON lines, CSV, a "
                         "directory of .txt files, or - for stdin)", args.corpus)
    if model.corpus_size is None:
        model.set_params(corpus_size=_declared_corpus_size(args))
    checkpoint = checkpoint_path(args)
    with progress(total=None, desc=args.method) as bar:
        result = train_stream(
            model, args.corpus, n_passes=n_passes,
            vocabulary=args.vocabulary, format=args.format, **text_options(args),
            split=args.split, checkpoint=checkpoint, resume=args.resume is not None,
            **given(checkpoint_every=args.checkpoint_every),
            progress=lambda position: bar.update(position.documents_total - bar.n))
    report_reading(result.report)
    extra = {"passes": n_passes, **_checkpoint_summary(result, checkpoint)}
    if args.grow_vocabulary:
        extra["vocabulary_size"] = int(model.vocabulary_.size)
        extra["tokens_dropped"] = dict(result.report.tokens_dropped) if result.report else {}
    tokens = result.report.tokens_kept if result.report is not None else None
    return result.documents, tokens, result.seconds, extra


def _checkpoint_summary(result, checkpoint) -> dict:
    """What a checkpointed run reports: its checkpoint, checkpoints written, where it ended
    and, resumed, where it began (`training.TrainingResult`)."""
    summary = {"checkpoint": None if checkpoint is None else str(checkpoint),
               "checkpoints_written": result.checkpoints_written,
               "position": {"pass": result.position.pass_index,
                            "documents": result.position.documents_total}}
    if result.resumed_from is not None:
        summary["resumed_from_documents"] = result.resumed_from.documents_total
    return summary


def _declared_corpus_size(args) -> int | None:
    """D from the header of a docword input (a corpus directory or a docword file), for the
    Bayesian presets; None for raw text and stdin (then ``--corpus-size`` is needed)."""
    if args.corpus == "-":
        return None
    if Path(args.corpus).is_dir():
        return DocwordStream(corpus_dir_files(args.corpus, args.split)[0]).n_documents
    if detect_format(args.corpus) == "uci":
        return DocwordStream(args.corpus).n_documents
    return None


BATCH_MODELS = {"cgs": GibbsLDA, "cvb0": CVB0LDA}
BATCH_METHODS = tuple(BATCH_MODELS)
# What each model of the command is, to read its defaults (`default_of`) for --help.
MODELS = {"online methods": OnlineLDA, **BATCH_MODELS, "--model hdp": OnlineHDP,
          **fit_labeled.MODEL_CLASSES}


def _online(name: str):
    """The online methods' default of parameter ``name`` (`OnlineLDA`'s)."""
    return default_of(OnlineLDA, name)


def _defaults(name: str) -> str:
    """The defaults of parameter ``name`` of every model that has one given by value, grouped:
    "0.01 for cgs, cvb0; 0.1 for labeled-lda, prior-lda"."""
    labels: dict = {}
    for label, model in MODELS.items():
        if name in inspect.signature(model).parameters:
            value = default_of(model, name)
            if value is not None:
                labels.setdefault(value, []).append(label)
    return "; ".join(f"{value:g} for {', '.join(names)}" if isinstance(value, float)
                     else f"{value} for {', '.join(names)}" for value, names in labels.items())


def _passes(text: str):
    """``--passes``: "auto" or a positive integer."""
    if text == "auto":
        return text
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer or auto, got {text!r}") from None


def _build_model(args, seeds: dict):
    """The estimator that ``--method`` (and ``--model hdp``) names, with the options given
    (``seeds``: `fit_seeds.parameters`): the others are left to the estimator's own defaults."""
    priors = given(doc_topic_prior=args.doc_topic_prior, topic_word_prior=args.topic_word_prior,
                   n_passes=args.passes)
    online = given(batch_size=args.batch_size, local_passes=args.local_passes,
                   step_offset=args.step_offset, step_decay=args.step_decay,
                   step_floor=args.step_floor, corpus_size=args.corpus_size,
                   grow_vocabulary=args.grow_vocabulary, min_word_count=args.min_word_count,
                   max_vocabulary=args.max_vocabulary, **priors)
    if args.model == "hdp":
        return OnlineHDP(method=args.method, random_state=args.seed, **online,
                         **given(initial_topics=args.initial_topics, max_topics=args.max_topics))
    if args.method in BATCH_MODELS:
        sampling = given(burn_in=args.burn_in, lag=args.lag, n_samples=args.samples,
                         n_chains=args.chains, estimator=args.estimator,
                         optimize_alpha=args.optimize_alpha) if args.method == "cgs" else {}
        return BATCH_MODELS[args.method](n_topics=args.topics, random_state=args.seed,
                                         **priors, **sampling, **seeds)
    return OnlineLDA(n_topics=args.topics, method=args.method, random_state=args.seed, **online,
                     **given(averaging=args.averaging, local_sampler=args.local_sampler), **seeds)


def _progressive_evaluation(args, corpus) -> ProgressiveEvaluation | None:
    """The ``--eval-every`` callback, or None. Held-out tokens of words absent from the training
    corpus are removed (a point estimate gives them probability 0, hence -inf), with a note."""
    if args.eval_every is None:
        return None
    if args.method in BATCH_METHODS:
        raise InputError("--eval-every needs an online method (not cgs or cvb0)")
    directory = args.eval_corpus or args.corpus
    if not Path(directory).is_dir():
        raise InputError("--eval-every needs held-out documents: CORPUS must be a corpus "
                         "directory with a test split, or give --eval-corpus DIR", directory)
    held_out = read_corpus_dir(directory, args.eval_split)[:args.eval_docs]
    if held_out.n_words != corpus.n_words:
        raise InputError(f"the held-out documents have {held_out.n_words} words in their "
                         f"vocabulary but the training corpus has {corpus.n_words}", directory)
    held_out, dropped_tokens, dropped_documents = restrict_to_words(
        held_out, occurring_words(corpus.counts))
    if dropped_tokens:
        print(f"held-out evaluation: removed {dropped_tokens} tokens of words absent from the "
              f"training corpus ({dropped_documents} documents left empty)", file=sys.stderr)
    return ProgressiveEvaluation(held_out, every=args.eval_every, seed=args.seed,
                                 path=f"{args.output}.eval.jsonl",
                                 **given(metric=args.eval_metric,
                                         n_particles=args.eval_particles))


def _fit_with_progress(model, corpus, args, evaluation=None, checkpoint=None):
    """Fit with a progress bar: documents for online methods, sweeps for batch samplers; with
    ``evaluation``, score held-out documents during training and at the end; with
    ``checkpoint``, write checkpoints (``--resume``: continue from one) and return the
    `training.TrainingResult`."""
    if isinstance(model, OnlineLDA):
        total = None if model.n_passes == "auto" else corpus.n_documents * model.n_passes
        result = None
        with progress(total=total, desc=args.method) as bar:
            def after_step(fitted, report):
                if evaluation is not None:
                    evaluation(fitted, report)
                bar.update(report.n_documents)

            if checkpoint is None:
                model.fit(corpus, callback=after_step)
            else:
                result = fit_with_checkpoints(
                    model, corpus, checkpoint, resume=args.resume is not None,
                    callback=after_step, **given(checkpoint_every=args.checkpoint_every))
        if evaluation is not None:
            evaluation.finish(model)
        return result
    else:
        sweeps = model.n_passes * getattr(model, "n_chains", 1)
        with progress(total=sweeps, desc=args.method, unit="sweep") as bar:
            model.fit(corpus, callback=lambda *_: bar.update(1))
