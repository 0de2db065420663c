"""Time in the corpus: each document's date, its period, and the order of a dated stream.

A reader given a time field (``time_field``: a JSON key, a CSV column, a meta field of a corpus
directory) parses each document's value with `parse_time`:

- ISO 8601 dates and date-times (``2005-04-07``, ``20050407``, ``2005-04-07T22:13:13``, with an
  offset such as ``+02:00`` converted to UTC), and the reduced ``2005-04`` and ``2005`` (the
  first day of the month or year);
- ``YYYY/M/D`` (``2017/1/6``), optionally followed by a time (``2017/1/6 13:05``);
- epoch seconds (a JSON number, or text of digits other than the 4 of a year and the 8 of
  ``YYYYMMDD``, optionally with decimals; UTC).

The time is kept as a second-resolution ``numpy.datetime64`` and written into the document's
metadata as an ISO string under `TIME_COLUMN` (``time``): the column ``meta.jsonl`` of a corpus
directory carries, so a corpus preprocessed once keeps its dates (`document_times`). A bad or
missing value is an `InputError` naming the file, the line and the value, unless the reader is
told to skip such documents (then they are counted as `UNDATED` in the `ReadReport`).

A stream may go back in time. `TIME_ORDERS` says what a reader does then: ``"sort"`` (the
default: a corpus loaded in memory is sorted by time, stably; a stream read a document at a
time cannot be, and says how many documents went back), ``"warn"`` (keep the order read, say
how many went back) or ``"refuse"`` (an error at the first document earlier than the one before
it).

Periods (`assign_periods`): calendar periods (`CALENDAR_PERIODS`: year, quarter, month, ISO
week, day) labelled ``2005``, ``2005-Q2``, ``2005-04``, ``2005-W14``, ``2005-04-07``; or N
periods of equal document counts (by rank in time order), labelled by their first and last
days. Only periods that hold documents are listed.
"""

from __future__ import annotations

import datetime as dt
import re
import warnings
from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from .corpus import Corpus, ReadReport

TIME_COLUMN = "time"
"""The metadata field (``meta.jsonl`` column) holding each document's time as an ISO string."""
UNDATED = "no valid time"
"""The reason skipped documents without a valid time are counted under in a `ReadReport`."""
TIME_ORDERS = ("sort", "warn", "refuse")
"""What a reader does with a document earlier than the one before it (module docstring)."""
CALENDAR_PERIODS = ("year", "quarter", "month", "week", "day")

_SLASHED = re.compile(r"^(\d{4})/(\d{1,2})/(\d{1,2})(?:[ T](\d{1,2}):(\d{2})(?::(\d{2}))?)?$")
_EPOCH = re.compile(r"^[+-]?\d+(?:\.\d*)?$")
_REDUCED = re.compile(r"^\d{4}(?:-\d{2})?$")  # ISO 8601 year, year-month
_BASIC_DATE = re.compile(r"^\d{8}$")  # ISO 8601 YYYYMMDD
_UTC = dt.timezone.utc


def parse_time(value) -> np.datetime64:
    """``value`` (see the module docstring) as a ``datetime64[s]`` in UTC; ValueError saying
    why for anything else (None, an empty string, an impossible date, another type)."""
    if isinstance(value, bool) or value is None:
        raise ValueError("not a date")
    if isinstance(value, (int, float)):
        return _from_epoch(value)
    if not isinstance(value, str):
        raise ValueError(f"a {type(value).__name__}, not a date")
    text = value.strip()
    if not text:
        raise ValueError("empty")
    if _REDUCED.match(text):
        text = (text + "-01-01")[:10]
    elif _EPOCH.match(text) and not _BASIC_DATE.match(text):
        return _from_epoch(float(text) if "." in text else int(text))
    slashed = _SLASHED.match(text)
    if slashed:
        parts = [int(p) if p else 0 for p in slashed.groups()]
        moment = dt.datetime(*parts)
    else:
        moment = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    if moment.tzinfo is not None:
        moment = moment.astimezone(_UTC).replace(tzinfo=None)
    return np.datetime64(moment.replace(microsecond=0), "s")


def _from_epoch(seconds) -> np.datetime64:
    if not np.isfinite(seconds) or abs(seconds) > 1e13:
        raise ValueError("epoch seconds out of range")
    return np.datetime64(int(np.floor(seconds)), "s")


def iso(moment: np.datetime64) -> str:
    """A time as written into metadata: ``YYYY-MM-DD`` at midnight, else ``YYYY-MM-DDTHH:MM:SS``."""
    text = str(np.datetime64(moment, "s"))
    return text[:10] if text.endswith("T00:00:00") else text


@dataclass(frozen=True)
class TimeField:
    """How a reader dates documents: the field holding the time (``name``), whether documents
    without a valid one are skipped (and counted) instead of refused, and the `TIME_ORDERS`
    choice ``order``. Readers take it, or a plain field name for the defaults, as
    ``time_field``."""

    name: str = TIME_COLUMN
    skip_undated: bool = False
    order: str = "sort"

    def __post_init__(self):
        if self.order not in TIME_ORDERS:
            raise InputError(f"time order {self.order!r} is not one of {', '.join(TIME_ORDERS)}")

    @classmethod
    def of(cls, value) -> "TimeField | None":
        """``value`` (None, a field name or a `TimeField`) as a `TimeField` or None."""
        return value if value is None or isinstance(value, TimeField) else cls(str(value))


@dataclass
class TimeReading:
    """A `TimeField` applied to documents in the order read: `stamp` once per document."""

    options: TimeField
    previous: np.datetime64 | None = None
    backwards: int = 0

    def stamp(self, fields: dict, report: ReadReport, name, line) -> bool:
        """Parse the time field of ``fields`` into ``fields[TIME_COLUMN]`` (an ISO string);
        False when the document has no valid time and is skipped (counted in ``report``);
        InputError naming
        ``name``, ``line`` and the value when it is refused, or when it goes back in time and
        the order is ``"refuse"``."""
        field = self.options.name
        value = fields.get(field)
        try:
            if field not in fields:
                raise ValueError(f"no field {field!r}")
            moment = parse_time(value)
        except ValueError as error:
            if self.options.skip_undated:
                report.skip(UNDATED)
                return False
            raise InputError(f"time field {field!r}: cannot read {value!r} as a time "
                             f"({error}; ISO dates, YYYY/M/D or epoch seconds)", name, line
                             ) from None
        if self.previous is not None and moment < self.previous:
            if self.options.order == "refuse":
                raise InputError(f"the stream goes back in time: {iso(moment)} after "
                                 f"{iso(self.previous)} (sort the input, or choose the time "
                                 f"order sort or warn)", name, line)
            if not self.backwards:
                report.warn(f"{name}, line {line}: {iso(moment)} comes after "
                            f"{iso(self.previous)} (the stream goes back in time)")
            self.backwards += 1
        self.previous = moment if self.previous is None else max(moment, self.previous)
        fields[TIME_COLUMN] = iso(moment)
        return True


def document_times(corpus: Corpus) -> np.ndarray | None:
    """The documents' times (``datetime64[s]``) from the `TIME_COLUMN` of their metadata, or
    None when a document has none."""
    metadata = corpus.metadata
    if not metadata or not all(isinstance(m, dict) and m.get(TIME_COLUMN) for m in metadata):
        return None
    values = [m[TIME_COLUMN] for m in metadata]
    try:  # the ISO strings `iso` writes, parsed by NumPy at once (a time zone warns: not ours)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            return np.array(values, dtype="datetime64[s]")
    except (ValueError, TypeError, UserWarning):
        return np.array([parse_time(value) for value in values], dtype="datetime64[s]")


def sort_by_time(corpus: Corpus) -> Corpus:
    """``corpus`` in time order (stable: documents of the same time keep their order), its
    report kept; the corpus itself when already in order or undated."""
    times = document_times(corpus)
    if times is None or np.all(times[1:] >= times[:-1]):
        return corpus
    ordered = corpus[np.argsort(times, kind="stable")]
    ordered.report = corpus.report
    return ordered


@dataclass
class Periods:
    """Each document's period (``index``, D integers into ``labels``, ascending in time), the
    periods' labels and their document counts; ``spec`` is the period asked for."""

    spec: str
    labels: list[str]
    index: np.ndarray
    counts: np.ndarray

    @property
    def n_periods(self) -> int:
        return len(self.labels)


def _calendar_label(moment: np.datetime64, period: str) -> str:
    day = moment.astype("datetime64[D]").item()
    if period == "year":
        return f"{day.year:04d}"
    if period == "quarter":
        return f"{day.year:04d}-Q{(day.month - 1) // 3 + 1}"
    if period == "month":
        return f"{day.year:04d}-{day.month:02d}"
    if period == "week":
        year, week, _ = day.isocalendar()
        return f"{year:04d}-W{week:02d}"
    return day.isoformat()


def _keys(times: np.ndarray, period: str) -> np.ndarray:
    """An integer per time, increasing with time and equal within a calendar period."""
    days = times.astype("datetime64[D]").astype(np.int64)
    if period == "day":
        return days
    if period == "week":
        return (days + 3) // 7  # 1970-01-01 is a Thursday: weeks start on Mondays, as ISO's
    months = times.astype("datetime64[M]").astype(np.int64)
    return {"year": months // 12, "quarter": months // 3, "month": months}[period]


def assign_periods(times, period) -> Periods:
    """The periods of documents dated ``times`` (any order): ``period`` is one of
    `CALENDAR_PERIODS` or a number N of periods of equal document counts (a string of digits
    too). Labels are listed in time order; only periods holding documents appear."""
    times = np.asarray(times, dtype="datetime64[s]")
    if times.size == 0:
        raise InputError("no dated documents to divide into periods")
    spec = str(period)
    if spec.isdigit():
        n_periods = int(spec)
        if not 1 <= n_periods <= times.size:
            raise InputError(f"{n_periods} periods of equal counts for {times.size} documents")
        rank = np.empty(times.size, dtype=np.int64)
        rank[np.argsort(times, kind="stable")] = np.arange(times.size)
        index = rank * n_periods // times.size
        labels = []
        for p in range(n_periods):
            inside = times[index == p]
            labels.append(f"{iso(inside.min())[:10]}..{iso(inside.max())[:10]}")
        return Periods(spec, labels, index, np.bincount(index, minlength=n_periods))
    if spec not in CALENDAR_PERIODS:
        raise InputError(f"period {spec!r} is not one of {', '.join(CALENDAR_PERIODS)} or a "
                         f"number of equal-count periods")
    keys = _keys(times, spec)
    distinct, first, index = np.unique(keys, return_index=True, return_inverse=True)
    labels = [_calendar_label(times[d], spec) for d in first]
    return Periods(spec, labels, index.astype(np.int64),
                   np.bincount(index, minlength=distinct.size))
