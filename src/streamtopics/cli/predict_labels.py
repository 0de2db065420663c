"""`streamtopics predict-labels MODEL CORPUS [--split test] [--json]`: label sets of documents
under a multi-label model (`streamtopics fit --model labeled-lda|prior-lda|labeled-g-oem`).

Prints (or writes with ``-o FILE.jsonl``) one JSON list of predicted labels per document. When
the documents have labels (``--labels FILE`` or ``CORPUS/SPLIT.labels.jsonl``), also micro-,
macro- and example-based F1 (`evaluation.multilabel_f1`) over the documents with at least one
label the model knows (labels it does not know are ignored, as the training filter did).
"""

from __future__ import annotations

import json

from ..corpus.labels import read_label_file, restrict_labels, split_label_file
from ..errors import InputError
from ..estimators import load_estimator
from ..estimators.label_sets import label_indicator
from ..estimators.labeled import MultiLabelModel
from ..evaluation import multilabel_f1
from ..persistence import atomic_write
from .common import add_json_flag, add_text_options, add_threads_option, emit, read_onto_vocabulary
from .fit_labeled import n_labels_choice


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "predict-labels", help="label sets of documents under a multi-label model",
        description="Predict each document's labels; with true labels, print the F1 measures.")
    parser.add_argument("model", metavar="MODEL", help="model file of a labeled model")
    parser.add_argument("documents", metavar="CORPUS", help="corpus directory or input file")
    parser.add_argument("--split", default="test", help="split of a corpus directory (default: test)")
    parser.add_argument("--labels", default=None, metavar="FILE",
                        help="true labels (default: CORPUS/SPLIT.labels.jsonl if present)")
    parser.add_argument("--n-labels", default=None,
                        help="meta, mean or N (default: the model's setting)")
    parser.add_argument("-o", "--output", metavar="FILE.jsonl",
                        help="write the predicted label lists there instead of stdout")
    add_text_options(parser)
    add_threads_option(parser)
    add_json_flag(parser)
    parser.set_defaults(run=run)


def run(args) -> int:
    model = load_estimator(args.model)
    if not isinstance(model, MultiLabelModel):
        raise InputError(f"{type(model).__name__} predicts no labels: fit a model with --model "
                         f"labeled-lda, prior-lda, labeled-g-oem or prior-cvb0", args.model)
    _, counts, _ = read_onto_vocabulary(args, args.documents, model.vocabulary_,
                                        pipeline=model.text_pipeline_)
    if counts.shape[0] == 0:
        raise InputError("no documents", args.documents)
    n_labels = None if args.n_labels is None else n_labels_choice(args.n_labels)
    predicted = model.predict_labels(counts, n_labels=n_labels)
    result = {"model": str(args.model), "documents": len(predicted)}
    lines = "".join(json.dumps(row) + "\n" for row in predicted)
    if args.output:
        atomic_write(args.output, lambda handle: handle.write(lines.encode("utf-8")))
        result["output"] = str(args.output)
    path = args.labels or split_label_file(args.documents, args.split)
    human = [] if args.output or args.json else [lines.rstrip("\n")]
    if path is not None:
        truth = restrict_labels(read_label_file(path, counts.shape[0]), model.classes_.tolist())
        rows = [d for d, row in enumerate(truth) if row]
        if rows:
            classes = model.classes_.tolist()
            _, y_true = label_indicator([truth[d] for d in rows], len(rows), classes)
            _, y_pred = label_indicator([predicted[d] for d in rows], len(rows), classes)
            scores = multilabel_f1(y_true, y_pred)
            result["metrics"] = {**scores.as_dict(), "labels": str(path)}
            human.append(f"{len(rows)} labelled documents: micro-F1 {scores.micro:.4f}, "
                         f"macro-F1 {scores.macro:.4f} (over {scores.n_labels_averaged} labels "
                         f"present), example-F1 {scores.example:.4f}")
    if args.json and not args.output:
        result["predicted"] = predicted
    emit(args, result, "\n".join(human) if human else f"wrote {args.output}")
    return 0
