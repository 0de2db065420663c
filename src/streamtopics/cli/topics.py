"""`streamtopics topics`: not implemented yet."""

from __future__ import annotations

from ..errors import StreamtopicsError


def register(subparsers) -> None:
    parser = subparsers.add_parser("topics", help="(not implemented yet)")
    parser.set_defaults(run=run)


def run(args) -> int:
    raise StreamtopicsError("'topics' is not implemented yet")
