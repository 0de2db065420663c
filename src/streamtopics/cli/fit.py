"""`streamtopics fit`: not implemented yet."""

from __future__ import annotations

from ..errors import StreamtopicsError


def register(subparsers) -> None:
    parser = subparsers.add_parser("fit", help="(not implemented yet)")
    parser.set_defaults(run=run)


def run(args) -> int:
    raise StreamtopicsError("'fit' is not implemented yet")
