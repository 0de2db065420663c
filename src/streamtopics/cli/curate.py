"""`streamtopics curate MODEL [--merge 3,7] [--remove 5] [--names "0=packs"] -o NEW_MODEL`.

Names work on every streamtopics model file (any estimator, a checkpoint, a timeline's model):
they go into the file's metadata (`persistence.TOPIC_NAMES`) and change no number of the model,
so the named file keeps working with ``transform``, ``evaluate``, ``report`` and ``update``
(which keeps them); ``topics``, ``transform --json`` and ``report`` show them. ``--names-file``
reads a JSON object {"topic index": "name"} or lines ``INDEX NAME``; ``--clear`` removes every
name first. Names are given by the topic indices of the model written.

``--merge I,J[,...]`` (repeatable) and ``--remove K[,...]`` (indices of MODEL) change an
`OnlineLDA` model's training state (`estimators.curation`: statistics summed, alpha aggregated);
the merged topic takes the first one's index, the topics after a removed one move down. With
``--held-out CORPUS`` the held-out log-likelihood per document (left-to-right, 20 particles) is
reported before and after.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from ..errors import InputError
from ..estimators import load_estimator
from ..estimators.curation import merge_topics, remove_topics
from ..persistence import (TOPIC_NAMES, checked_topic_names, is_topics_only, load_model,
                           save_model)
from .common import add_json_flag, add_text_options, emit, existing_parent, read_onto_vocabulary


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "curate", help="name, merge or remove topics of a model file",
        description="Name topics (any model file: kept in it, shown by topics, transform "
                    "--json and report; no number changes), merge topics into one or remove "
                    "topics (OnlineLDA: its training state, so it keeps learning).")
    parser.add_argument("model", metavar="MODEL", help="model file")
    parser.add_argument("--names", default=None, metavar="K=NAME,...",
                        help='topic names, e.g. "0=packs,3=hashes" (the others keep theirs)')
    parser.add_argument("--names-file", default=None, metavar="FILE",
                        help='a JSON object {"0": "packs"} or lines "INDEX NAME"')
    parser.add_argument("--clear", action="store_true", help="remove every name first")
    parser.add_argument("--merge", action="append", default=[], metavar="I,J,...",
                        help="merge these topics (indices of MODEL) into one; repeatable")
    parser.add_argument("--remove", default=None, metavar="K,...",
                        help="remove these topics (indices of MODEL)")
    parser.add_argument("--held-out", default=None, metavar="CORPUS",
                        help="score these documents (a corpus directory's --split, default "
                             "test, or raw text) before and after --merge/--remove")
    parser.add_argument("--split", default="test", help="split of --held-out (default: test)")
    add_text_options(parser)
    parser.add_argument("-o", "--output", required=True, metavar="NEW_MODEL",
                        help="model file to write (may be MODEL itself: written atomically)")
    add_json_flag(parser)
    parser.set_defaults(run=run)


def parse_names(text: str) -> dict[int, str]:
    """``"0=packs,3=hashes"`` as {0: "packs", 3: "hashes"}."""
    names = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        index, separator, name = item.partition("=")
        if not separator or not index.strip().isdigit() or not name.strip():
            raise InputError(f"--names: expected INDEX=NAME, got {item!r}")
        names[int(index)] = name.strip()
    return names


def read_names_file(path) -> dict[int, str]:
    """A names file: a JSON object {"index": "name"}, or lines "INDEX NAME" (blank lines and
    lines starting with # skipped); errors name the file and line."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise InputError(f"cannot read the names file ({error.strerror})", path) from None
    if text.lstrip().startswith("{"):
        try:
            mapping = json.loads(text)
        except ValueError as error:
            raise InputError(f"not a JSON object of names ({error})", path) from None
        if not all(str(key).isdigit() and isinstance(value, str) for key, value in mapping.items()):
            raise InputError('expected {"topic index": "name", ...}', path)
        return {int(key): value for key, value in mapping.items()}
    names = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        index, _, name = line.strip().partition(" ")
        if not index.isdigit() or not name.strip():
            raise InputError(f"line {number}: expected INDEX NAME, got {line.strip()!r}", path)
        names[int(index)] = name.strip()
    return names


def _indices(text: str, option: str) -> list[int]:
    items = [item.strip() for item in text.split(",") if item.strip()]
    if not items or not all(item.isdigit() for item in items):
        raise InputError(f"{option}: expected topic indices separated by commas, got {text!r}")
    return [int(item) for item in items]


def _restructured(args):
    """MODEL (an `OnlineLDA`) with the topics of ``--merge`` merged and those of ``--remove``
    removed, and its held-out scores before and after (None without ``--held-out``)."""
    model = load_estimator(args.model)
    groups = [_indices(text, "--merge") for text in args.merge]
    removed = [] if args.remove is None else _indices(args.remove, "--remove")
    curated = model
    try:
        if groups:
            curated = merge_topics(curated, groups)
        if removed:
            merged_away = {k for group in groups for k in group[1:]}
            if merged_away & set(removed):
                raise ValueError(f"topics {sorted(merged_away & set(removed))} are merged "
                                 f"into another: remove the merged topic instead")
            survivors = [k for k in range(model.n_topics) if k not in merged_away]
            curated = remove_topics(curated, [survivors.index(k) for k in removed])
    except ValueError as error:
        raise InputError(str(error), args.model) from None
    if args.held_out is None:
        return curated, None
    _, counts, _ = read_onto_vocabulary(args, args.held_out, model.vocabulary_,
                                        pipeline=getattr(model, "text_pipeline_", None))
    before, after = model.score(counts), curated.score(counts)
    print(f"held-out log-likelihood per document ({counts.shape[0]} documents): "
          f"{before:.2f} before, {after:.2f} after ({after - before:+.2f})", file=sys.stderr)
    return curated, {"before": before, "after": after}


def _chosen_names(args, current: list[str]) -> list[str]:
    """The topics' names after ``--clear``, ``--names-file`` and ``--names`` (in that order)
    applied to ``current``."""
    names = {} if args.clear else dict(enumerate(current))
    for given in (None if args.names_file is None else read_names_file(args.names_file),
                  None if args.names is None else parse_names(args.names)):
        if given:
            names.update(given)
    try:
        return checked_topic_names(names, len(current))
    except ValueError as error:
        raise InputError(str(error)) from None


def run(args) -> int:
    output = existing_parent(args.output)
    restructuring = bool(args.merge or args.remove)
    if args.names is None and args.names_file is None and not args.clear and not restructuring:
        raise InputError("nothing to do: give --names, --names-file, --clear, --merge or "
                         "--remove")
    if args.held_out is not None and not restructuring:
        raise InputError("--held-out scores a --merge or --remove")
    if is_topics_only(args.model):
        raise InputError("a plain .npz of topics has no metadata to keep names in: name the "
                         "streamtopics model file it was exported from", args.model)
    scores = None
    if restructuring:  # a new training state: the estimator writes it
        curated, scores = _restructured(args)
        chosen = _chosen_names(args, curated.topic_names_)
        curated.set_topic_names(chosen).save(output)
    else:  # names only: the file's arrays stay as they are, its metadata gets the names
        arrays, metadata = load_model(args.model)
        chosen = _chosen_names(args, checked_topic_names(
            metadata.get(TOPIC_NAMES), arrays["beta"].shape[0], args.model))
        for key in ("format", "format_version", "checksum"):  # written anew by save_model
            metadata.pop(key, None)
        metadata[TOPIC_NAMES] = chosen
        save_model(output, arrays, metadata)
    named = {k: name for k, name in enumerate(chosen) if name}
    emit(args, {"model": str(output), "n_topics": len(chosen), "topic_names": chosen,
                **({} if scores is None else {"held_out": scores})},
         f"wrote {output}: {len(named)} of {len(chosen)} topics named"
         + "".join(f"\n{k}  {name}" for k, name in named.items()))
    return 0
