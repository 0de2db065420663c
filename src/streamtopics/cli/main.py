"""Entry point of the ``streamtopics`` command: one module per subcommand, registered here.

Human output goes to stdout, progress bars and read reports to stderr, ``--json`` gives a
machine-readable result on stdout. Exit codes: 0 success, 2 bad input or usage, or a lack of
memory: refused before allocating (`memory.check_memory`) or an allocation that failed
(MemoryError), said on one line; output files are written atomically (`atomic`), so a command
that fails leaves none. The library's warnings (`errors.StreamtopicsWarning`) are one line each.
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings

from .._version import __version__
from ..errors import StreamtopicsError, StreamtopicsWarning
from ..threads import using_threads
from . import (curate, demo, dpp, evaluate, experiment, export, fit, predict_labels, preprocess,
               report, reviews, synth, timeline, topics, transform, update)
from . import select_k

SUBCOMMANDS = (demo, preprocess, synth, fit, update, curate, topics, transform, evaluate, export,
               experiment, reviews, dpp, report, predict_labels, select_k, timeline)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="streamtopics",
        description="Online but accurate topic models for text streams.")
    parser.add_argument("--version", action="version", version=f"streamtopics {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module in SUBCOMMANDS:
        module.register(subparsers)
    return parser


def one_line_warnings(command: str, show=warnings.showwarning):
    """A `warnings.showwarning` that prints the library's warnings as ``streamtopics COMMAND:
    warning: ...`` (one line, no source location) and passes the others to ``show``."""
    def show_warning(message, category, filename, lineno, file=None, line=None):
        if issubclass(category, StreamtopicsWarning):
            print(f"streamtopics {command}: warning: {message}", file=sys.stderr)
        else:
            show(message, category, filename, lineno, file, line)
    return show_warning


def out_of_memory(command: str, error: MemoryError) -> str:
    """The one line of an allocation that failed: NumPy's message names its size, shape and
    type; numba's and Python's say less."""
    failed = " ".join(str(error).split()) or "an allocation failed"
    return (f"streamtopics {command}: error: out of memory: {failed} (use fewer topics, a "
            f"smaller vocabulary or fewer documents at once)")


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        with warnings.catch_warnings(), using_threads(getattr(args, "threads", None)):
            warnings.showwarning = one_line_warnings(args.command, warnings.showwarning)
            return int(args.run(args) or 0)
    except StreamtopicsError as error:
        print(f"streamtopics {args.command}: error: {error}", file=sys.stderr)
        return 2
    except MemoryError as error:
        print(out_of_memory(args.command, error), file=sys.stderr)
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
