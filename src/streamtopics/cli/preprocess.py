"""`streamtopics preprocess`: not implemented yet."""

from __future__ import annotations

from ..errors import StreamtopicsError


def register(subparsers) -> None:
    parser = subparsers.add_parser("preprocess", help="(not implemented yet)")
    parser.set_defaults(run=run)


def run(args) -> int:
    raise StreamtopicsError("'preprocess' is not implemented yet")
