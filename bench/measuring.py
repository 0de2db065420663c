"""What the bench scripts share: their common options (``--quick``, ``--output-dir``,
``--repeats``), the data they read (the shared corpora, or a small planted corpus in quick
mode), how they time (CPU seconds, fits interleaved, best of the repeats), how they compare
held-out scores (paired over the same documents) and how they write one result per script
(``NAME.json`` and ``NAME.md``, read back by ``summary.py``).

Run a script as ``python bench/NAME.py``: Python puts this folder on the path. Importing this
module pins BLAS and numba to one thread unless the environment already sets them (the
one-thread comparisons on a shared machine), so a script imports it before numpy; a script
that measures threads sets ``NUMBA_NUM_THREADS`` itself.
"""

from __future__ import annotations

import os

for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                  "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import argparse  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import resource  # noqa: E402
import shlex  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from contextlib import contextmanager  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from pathlib import Path  # noqa: E402

BENCH = Path(__file__).resolve().parent
RESULTS = BENCH / "results"
# The shared corpora: the first shared/corpora above this folder (from a worktree or a clone).
CORPORA = next((parent / "shared" / "corpora" for parent in BENCH.parents
                if (parent / "shared" / "corpora").is_dir()), Path("shared") / "corpora")


def arguments(docstring: str, repeats: int = 2) -> argparse.ArgumentParser:
    """A parser with the options every script has; its description is the docstring's first
    line (the question the script answers)."""
    parser = argparse.ArgumentParser(description=docstring.split("\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="a few seconds: a small planted corpus, one repeat (the test run)")
    parser.add_argument("--output-dir", type=Path, default=None,
                        help="where NAME.json and NAME.md go (default bench/results; with "
                             "--quick a new temporary folder)")
    parser.add_argument("--repeats", type=int, default=repeats,
                        help="fits timed per configuration, by turns; the best counts")
    return parser


def parse(parser: argparse.ArgumentParser, argv=None) -> argparse.Namespace:
    """The parsed options; ``--quick`` sets one repeat and never writes into bench/results."""
    args = parser.parse_args(argv)
    if args.quick:
        args.repeats = 1
    if args.output_dir is None:
        args.output_dir = (Path(tempfile.mkdtemp(prefix="bench-quick-")) if args.quick
                           else RESULTS)
    return args


def script_name() -> str:
    return Path(sys.argv[0]).stem


def command_line() -> str:
    """How this script was run: ``python bench/NAME.py ARGS``, without ``--output-dir`` (where
    the result went, not what it measured)."""
    arguments = sys.argv[1:]
    if "--output-dir" in arguments:
        at = arguments.index("--output-dir")
        arguments = arguments[:at] + arguments[at + 2:]
    return "python " + shlex.join([f"bench/{Path(sys.argv[0]).name}", *arguments])


def machine() -> str:
    """A line on where the numbers come from (a shared machine: its load at the end)."""
    return (f"{platform.machine()}, {os.cpu_count()} CPUs, load average "
            f"{os.getloadavg()[0]:.1f} at the end")


def write_results(args, payload: dict, heading: str, table: list[str],
                  headline: list[str]) -> None:
    """``OUTPUT_DIR/NAME.json`` (``payload`` with the command, its options, the machine and
    the ``headline``, the few lines `summary.py` shows) and ``NAME.md`` (the heading, the
    command and the markdown ``table``, one string a line, notes included); NAME is the
    script's."""
    output = Path(args.output_dir)
    output.mkdir(parents=True, exist_ok=True)
    name = script_name()
    settings = {key: value for key, value in vars(args).items() if key != "output_dir"}
    document = {"script": name, "command": command_line(), "settings": settings,
                "machine": machine(), "headline": headline, **payload}
    (output / f"{name}.json").write_text(json.dumps(document, indent=2, default=str) + "\n")
    (output / f"{name}.md").write_text(f"# {heading}\n\nCommand: `{command_line()}`; "
                                       f"{machine()}.\n\n" + "\n".join(table) + "\n")
    print("\n".join(table))
    print(f"Wrote {output / name}.json and .md")


# --- data -----------------------------------------------------------------------------------

def read_split(corpus: str, split: str, documents: int | None = None):
    """The first ``documents`` (all: None) of a shared corpus' ``split`` ("train", "test")."""
    from streamtopics import read_corpus_dir
    corpus = read_corpus_dir(CORPORA / corpus, split)
    return corpus if documents is None else corpus[:documents]


def planted(n_topics: int = 5, n_words: int = 300, train: int = 400, test: int = 100,
            mean_length: float = 40.0, seed: int = 0):
    """A small corpus drawn from known topics (what ``--quick`` runs on, anywhere):
    (train, test, truth with ``beta`` and ``alpha``)."""
    from streamtopics import generate_synthetic
    corpus, truth = generate_synthetic(n_topics=n_topics, n_words=n_words,
                                       n_documents=train + test, mean_length=mean_length,
                                       alpha=0.2, seed=seed)
    return corpus[:train], corpus[train:], truth


def corpora_and_topics(args, test_documents: int | None = None):
    """What a side-by-side script compares on: ([(name, train, test, truth)], topic counts).
    With ``--quick`` the planted corpus (truth: its generating model) at its true K, else each
    of ``args.corpora`` (training split, the first ``test_documents`` of the test split; truth
    None) at each of ``args.topics``."""
    if args.quick:
        train, test, truth = planted()
        return [("planted", train, test, truth)], [truth.beta.shape[0]]
    return ([(name, read_split(name, "train"), read_split(name, "test", test_documents), None)
             for name in args.corpora], args.topics)


def seen_in(train, test):
    """``test`` restricted to the words that occur in ``train`` (every model is scored on the
    same tokens: a point estimate gives an unseen word probability 0)."""
    from streamtopics.corpus import occurring_words, restrict_to_words
    return restrict_to_words(test, occurring_words(train.counts))[0]


def held_out(beta, alpha, test, particles: int = 20):
    """Per-document log p(w_d) by left-to-right (Wallach et al. 2009, Algorithm 3), R =
    ``particles``, evaluation seed 0 for every model, so differences are paired."""
    import numpy as np

    from streamtopics.evaluation import left_to_right
    return np.asarray(left_to_right(beta, alpha, test, n_particles=particles,
                                    seed=0).log_likelihoods)


def paired(reference, scores) -> tuple[float, float]:
    """Mean of ``reference - scores`` over documents and its standard error."""
    import numpy as np
    difference = np.asarray(reference) - np.asarray(scores)
    return float(difference.mean()), float(difference.std(ddof=1) / np.sqrt(difference.size))


def better_or_worse(difference: float, standard_error: float) -> str:
    """``difference`` (nats per document, positive = better) as words for a headline:
    "3.8 ± 0.5 nats/doc better" or "... worse"."""
    word = "better" if difference >= 0 else "worse"
    return f"{abs(difference):.1f} ± {standard_error:.1f} nats/doc {word}"


# --- time -----------------------------------------------------------------------------------

def cpu_seconds(function, *args, **kwargs):
    """(CPU seconds of this process, result) of ``function(*args, **kwargs)``."""
    started = time.process_time()
    result = function(*args, **kwargs)
    return time.process_time() - started, result


@dataclass
class Timing:
    """The runs of one configuration: every repeat's seconds and the fastest run's result."""

    seconds: list[float] = field(default_factory=list)
    result: object = None

    @property
    def best(self) -> float:
        return min(self.seconds)


def interleaved(runs: dict, repeats: int) -> dict[str, Timing]:
    """Each of ``runs`` (name -> callable returning (seconds, result)) ``repeats`` times, by
    turns (a busy spell of the shared machine falls on all of them alike); per name its
    seconds and the result of its fastest run."""
    timings = {name: Timing() for name in runs}
    for _ in range(repeats):
        for name, run in runs.items():
            seconds, result = run()
            timing = timings[name]
            if not timing.seconds or seconds < timing.best:
                timing.result = result
            timing.seconds.append(seconds)
    return timings


@contextmanager
def method_clock(owner, name: str, clock=time.process_time):
    """Time spent inside ``owner.name`` (a method of an inference-layer class, e.g. the local
    step's ``GibbsRun.advance``) while inside the block: yields a one-item list that holds the
    seconds, added up over calls."""
    method = owner.__dict__[name]
    seconds = [0.0]

    def timed(*args, **kwargs):
        started = clock()
        try:
            return method(*args, **kwargs)
        finally:
            seconds[0] += clock() - started

    setattr(owner, name, timed)
    try:
        yield seconds
    finally:
        setattr(owner, name, method)


# --- child processes (memory) ----------------------------------------------------------------

def run_child(script, *args, stdin=None) -> dict:
    """Run ``python SCRIPT --child ARGS`` in a fresh process (numba threads = 1), so that its
    peak memory and time are its own, and return the JSON object it prints last."""
    output = subprocess.run([sys.executable, str(script), "--child", *map(str, args)],
                            stdin=stdin, check=True, capture_output=True, text=True,
                            env=dict(os.environ, NUMBA_NUM_THREADS="1")).stdout
    return json.loads(output.strip().splitlines()[-1])


def child_options(parser: argparse.ArgumentParser, workdir: str) -> None:
    """The options of a script whose steps run in child processes (`run_child`): where their
    files go, whether to keep them, and the step a child runs."""
    parser.add_argument("--workdir", type=Path, default=Path(workdir))
    parser.add_argument("--keep", action="store_true", help="keep the files")
    parser.add_argument("--child", nargs="+", help="run one step (internal)")


def child_step(args, children: dict) -> bool:
    """In a child (``--child KIND ARGS``), run ``children[KIND]`` on ARGS (digits as integers)
    and print its JSON result, if any: True; elsewhere False."""
    if not args.child:
        return False
    kind, *rest = args.child
    result = children[kind](*[int(x) if x.isdigit() else x for x in rest])
    if result is not None:
        print(json.dumps(result))
    return True


def children_cpu_seconds() -> float:
    """CPU seconds (user + system) of this process' finished children so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def peak_mb() -> float:
    """Peak resident memory of this process so far (VmHWM; ru_maxrss where /proc is absent)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def number(value, digits: int = 2) -> str:
    """A table cell: ``value`` to ``digits`` decimals, empty for None."""
    return "" if value is None else f"{value:.{digits}f}"
