"""Entry point of the ``streamtopics`` command: one module per subcommand, registered here.

Human output goes to stdout, progress bars and read reports to stderr, ``--json`` gives a
machine-readable result on stdout. Exit codes: 0 success, 2 bad input or usage.
"""

from __future__ import annotations

import argparse
import os
import sys

from .._version import __version__
from ..errors import StreamtopicsError
from ..threads import using_threads
from . import (demo, dpp, evaluate, experiment, export, fit, predict_labels, preprocess, report,
               reviews, synth, topics, transform)
from . import select_k

SUBCOMMANDS = (demo, preprocess, synth, fit, topics, transform, evaluate, export, experiment,
               reviews, dpp, report, predict_labels, select_k)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="streamtopics",
        description="Online but accurate topic models for text streams.")
    parser.add_argument("--version", action="version", version=f"streamtopics {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module in SUBCOMMANDS:
        module.register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        with using_threads(getattr(args, "threads", None)):  # `common.add_threads_option`
            return int(args.run(args) or 0)
    except StreamtopicsError as error:
        print(f"streamtopics {args.command}: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader (e.g. `head`) closed stdout: stop quietly, as Unix tools do.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141


if __name__ == "__main__":
    sys.exit(main())
