"""`streamtopics name MODEL --names "0=packs,3=hashes" -o NEW_MODEL`: name a model's topics.

Works on every streamtopics model file (any estimator, a checkpoint, a timeline's model): the
names go into the file's metadata (`persistence.TOPIC_NAMES`) and change no number of the model,
so the named file keeps working with ``transform``, ``evaluate``, ``report`` and ``update``
(which keeps them). ``topics``, ``transform --json`` and ``report`` show them. ``--names-file``
reads a JSON object {"topic index": "name"} or lines ``INDEX NAME``; ``--clear`` removes every
name first.
"""

from __future__ import annotations

import json
from pathlib import Path

from ..errors import InputError
from ..persistence import (TOPIC_NAMES, checked_topic_names, is_topics_only, load_model,
                           save_model)
from .common import add_json_flag, emit, existing_parent


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "name", help="name the topics of a model file",
        description="Give topics names, kept in the model file: shown by topics, transform "
                    "--json and report; no number of the model changes.")
    parser.add_argument("model", metavar="MODEL", help="model file")
    parser.add_argument("--names", default=None, metavar="K=NAME,...",
                        help='topic names, e.g. "0=packs,3=hashes" (the others keep theirs)')
    parser.add_argument("--names-file", default=None, metavar="FILE",
                        help='a JSON object {"0": "packs"} or lines "INDEX NAME"')
    parser.add_argument("--clear", action="store_true", help="remove every name first")
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


def run(args) -> int:
    output = existing_parent(args.output)
    if args.names is None and args.names_file is None and not args.clear:
        raise InputError("nothing to do: give --names, --names-file or --clear")
    if is_topics_only(args.model):
        raise InputError("a plain .npz of topics has no metadata to keep names in: name the "
                         "streamtopics model file it was exported from", args.model)
    arrays, metadata = load_model(args.model)
    n_topics = arrays["beta"].shape[0]
    names = {} if args.clear else dict(enumerate(
        checked_topic_names(metadata.get(TOPIC_NAMES), n_topics, args.model)))
    for given in (None if args.names_file is None else read_names_file(args.names_file),
                  None if args.names is None else parse_names(args.names)):
        if given:
            names.update(given)
    try:
        chosen = checked_topic_names(names, n_topics)
    except ValueError as error:
        raise InputError(str(error)) from None
    for key in ("format", "format_version", "checksum"):  # written anew by save_model
        metadata.pop(key, None)
    metadata[TOPIC_NAMES] = chosen
    save_model(output, arrays, metadata)
    named = {k: name for k, name in enumerate(chosen) if name}
    emit(args, {"model": str(output), "n_topics": n_topics, "topic_names": chosen},
         f"wrote {output}: {len(named)} of {n_topics} topics named"
         + "".join(f"\n{k}  {name}" for k, name in named.items()))
    return 0
