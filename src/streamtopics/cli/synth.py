"""`streamtopics synth`: not implemented yet."""

from __future__ import annotations

from ..errors import StreamtopicsError


def register(subparsers) -> None:
    parser = subparsers.add_parser("synth", help="(not implemented yet)")
    parser.set_defaults(run=run)


def run(args) -> int:
    raise StreamtopicsError("'synth' is not implemented yet")
