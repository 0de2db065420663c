"""`streamtopics fit CORPUS --model labeled-lda|prior-lda|labeled-g-oem|prior-cvb0 -o MODEL`: multi-label
topic models (one topic per label) from a corpus and its label file.

Labels: ``--labels FILE`` (one JSON list of label names per document line), by default
``CORPUS/{split}.labels.jsonl``. The label filter keeps labels with at least
``--min-label-frequency`` training documents matching no ``--drop-labels`` pattern
(``--label-filter debtags-content`` = the debtags' content facets, at least 20 documents;
`corpus.labels.DEBTAGS_CONTENT`); documents left without a label are not trained on (counted
on stderr). Sampling settings come from the batch group of `fit` (burn-in, lag, samples,
chains, estimator), the priors from --doc-topic-prior and --topic-word-prior, --passes sets
prior-cvb0's CVB0 passes per chain and labeled-g-oem's passes, the online options (batch size,
local passes, step size) labeled-g-oem's; options left out take the model's defaults.
"""

from __future__ import annotations

import sys
import time

from ..corpus.labels import DEBTAGS_CONTENT, LabelFilter, read_label_file, restrict_labels
from ..corpus.labels import split_label_file
from ..errors import InputError
from ..estimators.labeled import LabeledLDA, PriorLDA
from ..estimators.labeled_cvb0 import LabeledCVB0LDA
from ..estimators.labeled_online import LabeledOnlineLDA
from ..training import fit_with_checkpoints
from .common import default_of, emit, given, positive_int, progress, read_training_corpus
from .fit_reading import checkpoint_path

MODEL_CLASSES = {"labeled-lda": LabeledLDA, "prior-lda": PriorLDA,
                 "labeled-g-oem": LabeledOnlineLDA, "prior-cvb0": LabeledCVB0LDA}
MODELS = tuple(MODEL_CLASSES)
FILTERS = {"all": LabelFilter(), "debtags-content": DEBTAGS_CONTENT}


def add_arguments(parser) -> None:
    group = parser.add_argument_group("multi-label models (one topic per label)")
    group.add_argument("--model", choices=MODELS + ("hdp",), default=None,
                       help="Labeled LDA, Prior-LDA (label-frequency alpha at prediction, eq. "
                            "59) by CGS_p, Prior-LDA trained online by masked G-OEM, or "
                            "Prior-LDA by CVB0; hdp: the HDP trained online, its topics "
                            "growing from --initial-topics (see --max-topics)")
    group.add_argument("--labels", default=None, metavar="FILE",
                       help="label file, one JSON list per document (default: "
                            "CORPUS/SPLIT.labels.jsonl)")
    group.add_argument("--label-filter", choices=sorted(FILTERS), default="all",
                       help="named label filter (default: all)")
    group.add_argument("--min-label-frequency", type=positive_int, default=None, metavar="N",
                       help="keep labels with >= N training documents (overrides the filter's)")
    group.add_argument("--drop-labels", action="append", default=[], metavar="PATTERN",
                       help="drop labels matching this shell pattern (repeatable), e.g. 'role::*'")
    group.add_argument("--n-labels", default=None,
                       help=f"label-set size at prediction: meta (Meta-Labeler), mean, or N "
                            f"(default: {default_of(LabeledLDA, 'n_labels')})")


def label_filter(args) -> LabelFilter:
    base = FILTERS[args.label_filter]
    minimum = base.min_frequency if args.min_label_frequency is None else args.min_label_frequency
    return LabelFilter(minimum, base.drop + tuple(args.drop_labels))


def n_labels_choice(text: str):
    if text in ("meta", "mean"):
        return text
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise InputError(f"--n-labels must be meta, mean or a positive integer, got {text!r}")
    return value


def build_model(args):
    """The labeled model ``--model`` names, with the options given (the others are the
    model's defaults)."""
    settings = dict(random_state=args.seed, **given(
        n_labels=None if args.n_labels is None else n_labels_choice(args.n_labels),
        doc_topic_prior=args.doc_topic_prior, topic_word_prior=args.topic_word_prior))
    sampling = given(burn_in=args.burn_in, lag=args.lag, n_samples=args.samples,
                     n_chains=args.chains, estimator=args.estimator)
    if args.model == "labeled-g-oem":
        return LabeledOnlineLDA(**settings, **sampling, **given(
            batch_size=args.batch_size, local_passes=args.local_passes,
            step_offset=args.step_offset, step_decay=args.step_decay, n_passes=args.passes))
    if args.model == "prior-cvb0":
        return LabeledCVB0LDA(**settings, **given(n_passes=args.passes, n_chains=args.chains))
    return MODEL_CLASSES[args.model](**settings, **sampling)


def run(args) -> int:
    checkpoint = checkpoint_path(args)
    if checkpoint is not None and args.model != "labeled-g-oem":
        raise InputError(f"{args.model} is a batch model and takes no checkpoints (labeled-g-oem "
                         f"does): drop --checkpoint and --resume")
    corpus = read_training_corpus(args)
    path = args.labels or split_label_file(args.corpus, args.split)
    if path is None:
        raise InputError(f"no labels: give --labels FILE (or put {args.split}.labels.jsonl in "
                         f"the corpus directory)", args.corpus)
    labels = read_label_file(path, corpus.n_documents)
    chosen = label_filter(args)
    classes = chosen.classes(labels)
    if not classes:
        raise InputError(f"no label passes the filter ({chosen.describe()})", path)
    kept = restrict_labels(labels, classes)
    rows = [d for d, row in enumerate(kept) if row]
    print(f"{len(classes)} labels ({chosen.describe()}); {len(rows)} of {corpus.n_documents} "
          f"documents have one and are trained on", file=sys.stderr)
    train = corpus[rows]
    model = build_model(args)
    started = time.perf_counter()
    if isinstance(model, LabeledOnlineLDA):
        with progress(total=train.n_documents, desc=args.model) as bar:
            def after_step(_, report):
                bar.update(report.n_documents)

            def with_checkpoints(online_model, documents, topic_mask):
                fit_with_checkpoints(online_model, documents, checkpoint,
                                     resume=args.resume is not None, callback=after_step,
                                     topic_mask=topic_mask,
                                     **given(checkpoint_every=args.checkpoint_every))

            model.fit(train, [kept[d] for d in rows], callback=after_step,
                      train=None if checkpoint is None else with_checkpoints)
    else:
        sweeps = (model.n_passes if isinstance(model, LabeledCVB0LDA)
                  else model.burn_in + model.lag * model.n_samples) * model.n_chains
        with progress(total=sweeps, desc=args.model, unit="sweep") as bar:
            model.fit(train, [kept[d] for d in rows], callback=lambda *_: bar.update(1))
    seconds = time.perf_counter() - started
    model.save(args.output)
    result = {"model": str(args.output), "method": args.model, "n_topics": len(classes),
              "labels": len(classes), "label_filter": chosen.describe(),
              "documents": train.n_documents, "tokens": train.n_tokens, "seconds": seconds,
              "top_words": model.top_words(10)}
    emit(args, result, f"{args.model}: {len(classes)} labels, {train.n_documents} documents in "
                       f"{seconds:.1f} s; wrote {args.output}")
    return 0
