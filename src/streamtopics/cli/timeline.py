"""`streamtopics timeline INPUT --time-field date --period year -k 30 -o DIR`: topics through
time in one pass.

Reads a dated input (raw JSONL or CSV with ``--time-field``, or a corpus directory whose meta has
a time; raw text goes through the preprocessing of ``streamtopics preprocess``), sorts it by
time, fits G-OEM (or ``--method``) in one pass in time order (``--passes N``: N), then writes
into DIR the model file with its periods (``model.stm``), ``prevalence.csv``, ``topics.jsonl``
and the figures (``timeline.html``): `streamtopics.timeline` describes each. ``--track FLOOR``
trains the one pass as a tracking run instead (`timeline.tracking`: a step-size floor, the
topics snapshotted at each period's end and saved in the model file), and the tables and
figures show the snapshots.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..corpus.readers import load_corpus
from ..corpus.time import CALENDAR_PERIODS, document_times, iso
from ..errors import InputError
from ..estimators import OnlineLDA
from ..inference.presets import PRESETS
from ..timeline import (DEFAULT_PRIOR_TOKENS, DEFAULT_TRACKING_FLOOR, topics_over_time,
                        track_topics)
from ..timeline.outputs import (save_timeline_model, write_prevalence_csv, write_timeline_page,
                                write_topics_jsonl)
from .common import (add_json_flag, add_text_options, add_threads_option, default_of, emit,
                     given, period_spec, positive_int, report_reading, text_options)
from .text_pipeline import add_pruning_options, pruning_options


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "timeline", help="topics through time of a dated input, in one pass",
        description="Sort a dated input by time, fit a topic model in one pass in time order, "
                    "and write DIR/model.stm (with the periods), DIR/prevalence.csv (one row "
                    "per period), DIR/topics.jsonl (each period's top words of each topic) and "
                    "DIR/timeline.html (the figures).")
    parser.add_argument("input", metavar="INPUT",
                        help="raw JSONL or CSV with a time field, or a dated corpus directory")
    parser.add_argument("-o", "--output", required=True, metavar="DIR", help="output directory")
    parser.add_argument("--period", type=period_spec, default="year",
                        help=f"{'|'.join(CALENDAR_PERIODS)}, or N equal-count periods (default: "
                             f"%(default)s)")
    parser.add_argument("-k", "--topics", type=positive_int, default=None,
                        help=f"number of topics K (default: {default_of(OnlineLDA, 'n_topics')})")
    parser.add_argument("--method", choices=sorted(PRESETS), default=None,
                        help=f"online method (default: {default_of(OnlineLDA, 'method')})")
    parser.add_argument("--batch-size", type=positive_int, default=None,
                        help=f"documents per minibatch (default: "
                             f"{default_of(OnlineLDA, 'batch_size')})")
    parser.add_argument("--passes", type=positive_int, default=1,
                        help="passes over the input in time order (default: 1, a stream's one "
                             "pass; a corpus of a few thousand documents needs more)")
    parser.add_argument("--track", type=float, nargs="?", const=DEFAULT_TRACKING_FLOOR,
                        default=None, metavar="FLOOR",
                        help=f"let the topics follow the stream: one pass with the step size "
                             f"floored at FLOOR (default {DEFAULT_TRACKING_FLOOR:g}), the topics "
                             f"snapshotted at each period's end; the outputs show the snapshots "
                             f"(docs/timeline.md, (c))")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")
    parser.add_argument("--words", type=positive_int, default=10,
                        help="top words per period and topic in topics.jsonl (default: 10)")
    parser.add_argument("--prior-tokens", type=float, default=DEFAULT_PRIOR_TOKENS,
                        help="pseudo-tokens of the topic as a whole in each period's topic "
                             "(default: %(default)s)")
    parser.add_argument("--split", default="train", help="split of a corpus directory (default: "
                                                         "train)")
    add_pruning_options(parser.add_argument_group("raw text: the vocabulary, as preprocess's"))
    add_text_options(parser)
    add_threads_option(parser)
    add_json_flag(parser)
    parser.set_defaults(run=run)


def run(args) -> int:
    output = Path(args.output)
    if output.exists() and not output.is_dir():
        raise InputError("not a directory", output)
    corpus = load_corpus(args.input, split=args.split, **pruning_options(args),
                         **text_options(args))
    report_reading(corpus.report)
    times = document_times(corpus)
    if times is None:
        raise InputError("the documents are not dated: name the field holding their time with "
                         "--time-field FIELD", args.input)
    model = OnlineLDA(n_passes=args.passes, random_state=args.seed,
                      **given(n_topics=args.topics, method=args.method,
                              batch_size=args.batch_size, step_floor=args.track))
    tracked = None
    if args.track is None:
        model.fit(corpus)
        result = topics_over_time(model, corpus, args.period, prior_tokens=args.prior_tokens)
    elif args.passes != 1:
        raise InputError("--track follows the stream in one pass: drop --passes")
    else:
        tracked = track_topics(model, corpus, args.period)
        result = tracked.as_timeline(model.components_)
    output.mkdir(parents=True, exist_ok=True)
    time_field = args.time_field or "time"
    save_timeline_model(output / "model.stm", model, result, times, time_field, tracked)
    write_prevalence_csv(output / "prevalence.csv", result)
    write_topics_jsonl(output / "topics.jsonl", result, args.words)
    write_timeline_page(output / "timeline.html", result,
                        f"Topics through time: {Path(args.input).name}")
    summary = {
        "input": str(args.input), "output": str(output), "documents": corpus.n_documents,
        "tokens": corpus.n_tokens, "words": corpus.n_words, "topics": model.n_topics,
        "passes": args.passes, "tracking_floor": args.track, "period": result.periods.spec,
        "first": iso(times.min()), "last": iso(times.max()),
        "periods": [{"label": label, "documents": int(n)}
                    for label, n in zip(result.labels, result.periods.counts)],
        "files": ["model.stm", "prevalence.csv", "topics.jsonl", "timeline.html"],
    }
    emit(args, summary, _human(result, output))
    return 0


def _human(result, output: Path) -> str:
    """Per period, its three most prevalent topics and their top words in that period."""
    lines = []
    for t, label in enumerate(result.labels):
        best = np.argsort(-result.prevalence[t], kind="stable")[:3]
        parts = [f"{k} ({100 * result.prevalence[t, k]:.0f}%: "
                 f"{' '.join(w for w, _ in result.top_words(t, k, 4))})" for k in best]
        lines.append(f"{label} ({result.periods.counts[t]} documents): " + "; ".join(parts))
    lines.append(f"wrote {output}: model.stm, prevalence.csv, topics.jsonl, timeline.html")
    return "\n".join(lines)
