"""Whether `streamtopics fit` streams its input or loads it: streaming is the default.

An online method reads a file a minibatch at a time (`training.train_stream`), so memory depends
on the minibatch and the model, never on the file (Dupuy & Bach 2016, Algorithm 1 sees each
document once per pass). The whole corpus is loaded only where it is needed:

- batch methods (cgs, cvb0) and full-batch presets (batch-vb): every iteration covers the corpus;
- several passes (``--passes N`` with N > 1, or ``auto``, which also holds documents out) over
  an input no larger than ``--load-limit``: parsing it once is cheaper than once per pass;
- ``--eval-every``: the held-out documents are restricted to the words the training corpus uses;
- inputs that cannot be streamed: Matrix Market and LDA-C files, raw text without
  ``--vocabulary`` (its vocabulary is built from the whole text);
- dated input (``--time-field``): its documents are sorted by time, which a stream cannot be.

Every load says so on stderr, with the reason. ``auto`` over an input larger than the limit
streams one pass (``--passes N`` streams N). ``--checkpoint`` and ``--resume`` change nothing
here: a loaded corpus is checkpointed by `training.fit_with_checkpoints`, so the model is the
one trained without them (``--resume`` of a streamed run's checkpoint goes on streaming).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..checkpoint import read_checkpoint
from ..corpus.readers import TEXT_FORMATS, corpus_dir_files, detect_format
from ..errors import InputError
from ..inference.presets import PRESETS
from ..training import CORPUS_KIND
from .common import time_field

STREAMED_FORMATS = ("uci", "corpus-dir", *TEXT_FORMATS)
LOAD_LIMIT_MB = 256.0
"""Default ``--load-limit``: the largest input (MB on disk) loaded to make several passes. A
docword file takes about 6 times its size in memory once loaded (docs/streaming.md)."""


@dataclass(frozen=True)
class ReadingPlan:
    """``stream``: train over the input a minibatch at a time; ``n_passes``: the passes to run
    ("auto" only when loaded); ``note``: what to tell the user on stderr, or None."""

    stream: bool
    n_passes: int | str
    note: str | None = None


def input_bytes(corpus: str, split: str) -> int:
    """Bytes on disk of what training reads: the docword file of a corpus directory, a file, or
    the ``.txt`` files of a directory."""
    path = Path(corpus)
    if path.is_dir():
        if detect_format(path) == "corpus-dir":
            return corpus_dir_files(path, split)[0].stat().st_size
        return sum(file.stat().st_size for file in path.glob("*.txt") if file.is_file())
    return path.stat().st_size


def checkpoint_path(args) -> str | None:
    """The checkpoint of ``--resume PATH`` or ``--checkpoint PATH`` (None: no checkpoint)."""
    checkpoint = args.resume if isinstance(args.resume, str) else args.checkpoint
    if args.resume is not None and checkpoint is None:
        raise InputError("--resume needs a checkpoint: --resume PATH or --checkpoint PATH")
    return checkpoint


def _resumes_a_stream(args) -> bool:
    """Whether ``--resume`` continues a checkpoint that `training.train_stream` wrote (a
    streamed run): it goes on streaming, which trains integer passes as `fit` does."""
    path = checkpoint_path(args)
    if args.resume is None or not Path(path).exists():
        return False
    return read_checkpoint(path)[0].source.get("kind") != CORPUS_KIND


def plan_reading(args, passes, batch_methods) -> ReadingPlan:
    """The `ReadingPlan` of a ``fit`` command (its parsed ``args``) training a model of
    ``passes`` passes (its ``n_passes``: a number or "auto")."""
    if (args.corpus == "-" or args.vocabulary is not None or args.grow_vocabulary
            or _resumes_a_stream(args)):
        return ReadingPlan(True, 1 if passes == "auto" else passes)  # (refused for batch methods)
    if args.method in batch_methods or PRESETS[args.method].full_batch:
        return ReadingPlan(False, passes)
    format = args.format or detect_format(args.corpus)
    loaded = f"loaded {args.corpus} into memory"
    if format not in STREAMED_FORMATS:
        return ReadingPlan(False, passes, f"{loaded}: {format} files cannot be streamed")
    if format in TEXT_FORMATS:
        return ReadingPlan(False, passes, f"{loaded}: raw text without --vocabulary gets its "
                                          f"vocabulary from the whole text (--vocabulary FILE "
                                          f"streams it)")
    if time_field(args) is not None:
        return ReadingPlan(False, passes, f"{loaded}: --time-field sorts its documents by time")
    if args.eval_every is not None:
        return ReadingPlan(False, passes, f"{loaded}: --eval-every restricts the held-out "
                                          f"documents to the words of the training corpus")
    if passes == 1:
        return ReadingPlan(True, 1)
    megabytes = input_bytes(args.corpus, args.split) / 2**20
    several = "auto passes" if passes == "auto" else f"{passes} passes"
    if megabytes <= args.load_limit:
        return ReadingPlan(False, passes, f"{loaded} ({megabytes:.0f} MB, within --load-limit "
                                          f"{args.load_limit:g} MB) for {several}")
    if passes == "auto":
        return ReadingPlan(True, 1, f"{args.corpus} ({megabytes:.0f} MB) is over --load-limit "
                                    f"{args.load_limit:g} MB: streaming one pass (--passes N "
                                    f"streams N)")
    return ReadingPlan(True, passes)
