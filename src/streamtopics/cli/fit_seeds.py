"""`streamtopics fit ... --seed-words FILE.json [--seed-strength N]`: seed words that steer
topics (guided topics, `estimators.seed_words`).

The file is a JSON object of named seed sets, ``{"sport": ["match", "team"], "music":
["band", "song"]}``; the sets take topics 0, 1, ... in the file's order, the other topics stay
free. Words not in the vocabulary are reported on stderr and in the JSON output.
"""

from __future__ import annotations

import json
from pathlib import Path

from ..errors import InputError
from ..inference.presets import PRESETS
from .common import positive_int

# Collapsed Gibbs, CVB0 and the online presets whose topics have a Dirichlet prior: all but
# the Langevin dynamics of lds (`inference.seeded_topics`).
SEEDED_METHODS = ("cgs", "cvb0", *(name for name, method in PRESETS.items()
                           if method.parameters != "langevin"))


def add_arguments(parser) -> None:
    group = parser.add_argument_group(f"seed words (guided topics; --method "
                                      f"{', '.join(SEEDED_METHODS)})")
    group.add_argument("--seed-words", default=None, metavar="FILE.json",
                       help='named seed sets, {"name": ["word", ...], ...}: topics 0, 1, ... '
                            "in the file's order lean towards their words")
    group.add_argument("--seed-strength", type=positive_int, default=None, metavar="N",
                       help="pseudo-counts each seed word adds to its topic's prior "
                            "(default: the model's)")


def parameters(args) -> dict:
    """The estimator parameters ``--seed-words`` and ``--seed-strength`` give (none without
    them); InputError for a malformed file or a method without seed words."""
    if args.seed_words is None:
        if args.seed_strength is not None:
            raise InputError("--seed-strength needs --seed-words")
        return {}
    if args.model is not None or args.method not in SEEDED_METHODS:
        raise InputError(f"--seed-words works with --method {', '.join(SEEDED_METHODS)}")
    path = Path(args.seed_words)
    try:
        seeds = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise InputError(f"cannot read the seed words: {error}", path) from None
    if not isinstance(seeds, dict) or not seeds or not all(
            isinstance(words, list) and all(isinstance(w, (str, int)) for w in words)
            for words in seeds.values()):
        raise InputError('expected a JSON object of seed sets, {"name": ["word", ...], ...}', path)
    given = {"seed_words": seeds}
    if args.seed_strength is not None:
        given["seed_strength"] = args.seed_strength
    return given


def summary(model) -> dict:
    """The seeded topics (name -> topic), the strength and the unknown seed words for the JSON
    output."""
    seeded = getattr(model, "seeded_topics_", None)
    if not seeded:
        return {}
    return {"seeded_topics": seeded, "seed_strength": model.seed_strength,
            "unknown_seed_words": model.unknown_seed_words_}
