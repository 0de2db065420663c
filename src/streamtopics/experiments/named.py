"""The experiments of Dupuy & Bach (2016) as data: which cells to run, how to lay out results.

| name | paper | grid | plot |
|---|---|---|---|
| perplexity-vs-k | Figure 1 (9) | methods x K x splits x seeds, one pass | score against K |
| through-iterations | Figure 3 (10) | methods x splits x seeds, scored every N documents | score against documents seen |
| step-size | Figures 6-7 | step_decay x K x averaging (G-OEM) | score against step_decay (kappa), with / without averaging |
| alpha-update | Figure 11 | methods x step_decay x alpha update | score against step_decay, one panel per method |
| boosting | Figures 4-5 | G-OEM, G-OEM++, V-OEM, V-OEM++ x K | score against K, X-OEM vs X-OEM++ |
| time | Table 1 | methods x splits x seeds | training wall time per method |

The score is the held-out log-perplexity per document, -mean_d log p(w_d | beta, alpha) in nats
(left-to-right, section 5), or document completion on request. Every figure shows the median
over the replicates (splits x seeds) and the band between the 3rd and the 7th decile
(appendices D-E). Methods are preset names of `inference.presets.PRESETS` as they exist at run
time: a default list keeps the available ones and says which are missing; alpha updates
likewise (`inference.presets.ALPHA_UPDATES`), a missing one skipping its cells with a message.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from collections.abc import Callable

from ..errors import InputError
from ..inference.presets import ALPHA_UPDATES, PRESETS
from ..reporting.plots import plot_summary
from ..reporting.progressive import METRICS
from ..reporting.tables import markdown_table
from .cells import Cell
from .data import CorpusSource

PAPER_METHODS = ("g-oem", "v-oem++", "olda", "svb", "splda", "sgs")  # section 5, Figures 1, 3
BOOSTING_METHODS = ("g-oem", "g-oem++", "v-oem", "v-oem++")          # appendix B.1
STEP_DECAYS = (0.0, 0.25, 0.5, 0.75, 1.0)                            # kappa, appendix B.2
ALPHA_STEP_DECAYS = (0.5, 1.0)                                       # appendix F
REAL_TOPICS = (8, 16, 32, 64)   # the paper uses 8 ... 128 on real corpora
REAL_SINGLE_TOPICS = 32         # the paper uses K = 128 for real corpora in Figure 3


@dataclass(frozen=True)
class Options:
    """Settings shared by the experiments; None means the experiment's default.

    methods, topics, step_decays, alpha_updates : the grid (see each experiment's defaults).
    seeds, splits : replicates (estimator seeds; split 0 is the corpus' own train/test split).
    step_decay : kappa, the step-size exponent where it is not varied; step_offset : tau0
        (`OnlineLDA`'s; 0 is the constant step 1, `runner.cell_method`).
    batch_size, local_passes, n_passes : the training settings (the paper's: one pass).
    n_train, n_test : documents of each split used for training and held-out scoring.
    metric, n_particles, max_tokens, eval_seed : the held-out evaluation.
    eval_every : through-iterations: documents between evaluations (default: 1/20 of a pass).
    The settings a `Cell` has default to the cell's.
    """

    methods: tuple[str, ...] | None = None
    topics: tuple[int, ...] | None = None
    seeds: tuple[int, ...] = (0, 1, 2)
    splits: tuple[int, ...] = (0,)
    step_decays: tuple[float, ...] | None = None
    step_decay: float = Cell.step_decay
    alpha_updates: tuple[str, ...] | None = None
    step_offset: float = Cell.step_offset
    batch_size: int = Cell.batch_size
    local_passes: int = Cell.local_passes
    n_passes: int = Cell.n_passes
    n_train: int | None = None
    n_test: int | None = 1000
    metric: str = Cell.metric
    n_particles: int = Cell.n_particles
    max_tokens: int | None = None
    eval_seed: int = Cell.eval_seed
    eval_every: int | None = None

    def __post_init__(self):
        if self.metric not in METRICS:
            raise InputError(f"metric must be one of {', '.join(METRICS)}, got {self.metric!r}")
        if not self.seeds or not self.splits:
            raise InputError("at least one seed and one split are needed")

    def cell(self, source: CorpusSource, split: int, seed: int, method: str, n_topics: int,
             **settings) -> Cell:
        """A cell with these options' training and evaluation settings."""
        settings.setdefault("step_decay", self.step_decay)
        return Cell(corpus=source.identity, split=split, seed=seed, method=method,
                    n_topics=n_topics, step_offset=self.step_offset,
                    batch_size=self.batch_size, local_passes=self.local_passes,
                    n_passes=self.n_passes, n_train=self.n_train, n_test=self.n_test,
                    metric=self.metric, n_particles=self.n_particles,
                    max_tokens=self.max_tokens, eval_seed=self.eval_seed, **settings)

    def replicates(self):
        return [(split, seed) for split in self.splits for seed in self.seeds]


# --- choices resolved at run time ---------------------------------------------------------------
def choose_methods(requested: tuple[str, ...] | None, default: tuple[str, ...],
                   say) -> tuple[str, ...]:
    """The requested methods (each must be a preset), or the available ones of ``default``."""
    if requested is not None:
        unknown = [name for name in requested if name not in PRESETS]
        if unknown:
            raise InputError(f"unknown method(s) {', '.join(unknown)}; available presets: "
                             f"{', '.join(PRESETS)}")
        return requested
    missing = [name for name in default if name not in PRESETS]
    if missing:
        say(f"methods not available in this installation, left out: {', '.join(missing)} "
            f"(presets here: {', '.join(PRESETS)})")
    chosen = tuple(name for name in default if name in PRESETS)
    if not chosen:
        raise InputError(f"none of the default methods {', '.join(default)} is available")
    return chosen


def gamma_alpha_update() -> str:
    """The Gamma-prior alpha update's registry name (Sato et al. 2010; appendix F), or "gamma"
    when this installation has none (its cells are then skipped with a message)."""
    return next((name for name in ALPHA_UPDATES if "gamma" in name), "gamma")


ALPHA_UPDATE_LABELS = {"fixed": "fixed (NO)", "fixed-point": "fixed point (FP)"}


def alpha_update_label(name: str) -> str:
    if "gamma" in name:
        return f"{name} (Gam)"
    return ALPHA_UPDATE_LABELS.get(name, name)


def topics_grid(options: Options, source: CorpusSource) -> tuple[int, ...]:
    """K values of the K-sweeps: K*/2, K*, 2K* on synthetic data (true K*), else REAL_TOPICS."""
    if options.topics is not None:
        return options.topics
    true_k = source.true_n_topics
    if true_k is None:
        return REAL_TOPICS
    return tuple(dict.fromkeys(max(1, k) for k in (true_k // 2, true_k, 2 * true_k)))


def single_topics(options: Options, source: CorpusSource) -> tuple[int, ...]:
    """K of the fixed-K experiments: the true K* on synthetic data, else REAL_SINGLE_TOPICS."""
    if options.topics is not None:
        return options.topics
    return (source.true_n_topics or REAL_SINGLE_TOPICS,)


def source_label(source: CorpusSource) -> str:
    if source.synthetic_spec is not None:
        return f"synthetic (K* = {source.synthetic_spec.n_topics})"
    return Path(source.identity).name


def value_label(value_name: str, metric: str) -> str:
    if value_name == "log_perplexity":
        if metric == "completion":
            return "completion log-perplexity per document, held-out halves (nats)"
        return "held-out log-perplexity per document (nats)"
    return {"train_seconds": "training wall time (s)",
            "documents_per_second": "training documents per second"}[value_name]


def point(panel: str, series, x, value_name: str, value: float) -> dict:
    return {"panel": panel, "series": series, "x": x, "value_name": value_name, "value": value}


# --- the experiment type --------------------------------------------------------------------------
@dataclass(frozen=True)
class Experiment:
    """A named experiment: ``grid(options, source, say) -> cells`` and
    ``points(cell, result) -> summary points``, plus how its tables and plot look."""

    name: str
    figure: str
    description: str
    grid: Callable
    points: Callable[[Cell, dict], list[dict]]
    x_label: str
    series_title: str = "method"
    x_title: str = "K"
    x_log: bool = False
    values: tuple[str, ...] = ("log_perplexity",)
    plot_kind: str = "line"
    rows: str = "series"  # the table's rows: "series" or "x"

    def cells(self, options: Options, source: CorpusSource, say=lambda message: None) -> list[Cell]:
        return self.grid(options, source, say)

    def markdown(self, summary: list[dict], options: Options, source: CorpusSource,
                 splits: list[dict], skipped: list[dict], failed: list[dict] = (),
                 scored: list[tuple[int, int]] = ()) -> str:
        """The tables; ``scored``: the distinct (held-out documents, tokens) the cells scored."""
        lines = [f"## {self.name}: {self.description} (Dupuy & Bach 2016, {self.figure})", "",
                 f"Corpus: {source.identity}.", ""]
        lines += [f"- split {s['split']}: {s['train_documents']} training documents "
                  f"({s['train_tokens']} tokens); {s['test_documents']} held-out documents "
                  f"({s['test_tokens']} tokens; {s['test_tokens_dropped_unseen_words']} tokens "
                  f"of words unseen in training removed)"
                  + (f"; the true model scores {s['true_model_log_perplexity']:.2f} nats"
                     if "true_model_log_perplexity" in s else "") for s in splits]
        lines += ["", f"Median over {len(options.replicates())} replicates (splits "
                  f"{', '.join(map(str, options.splits))} x seeds "
                  f"{', '.join(map(str, options.seeds))}); in brackets the 3rd and 7th deciles. "
                  f"Held-out score: {options.metric}"
                  + (f" ({options.n_particles} particles)" if options.metric == "left-to-right"
                     else "") + "; lower is better."
                  + (" Scored: " + ", ".join(f"{d} documents ({t} tokens)" for d, t in scored)
                     + "." if scored else ""), ""]
        row_key, column_key = ("x", "series") if self.rows == "x" else ("series", "x")
        titles = {"series": self.series_title, "x": self.x_title}
        for value_name in self.values:
            for panel in dict.fromkeys(entry["panel"] for entry in summary):
                entries = [entry for entry in summary
                           if entry["panel"] == panel and entry["value_name"] == value_name]
                if not entries:
                    continue
                heading = value_label(value_name, options.metric)
                lines += [f"### {heading}" + (f": {panel}" if panel else ""), "",
                          markdown_table(entries, row_key, column_key, titles[row_key],
                                         titles[column_key]), ""]
        for title, items in (("Skipped cells", skipped), ("Failed cells", failed)):
            if items:
                lines += [f"{title}:", ""]
                lines += [f"- {Cell.from_dict(item['cell']).label()}: {item['reason']}"
                          for item in items]
                lines.append("")
        return "\n".join(lines)

    def plot(self, summary: list[dict], options: Options, source: CorpusSource, path,
             reference: float | None = None):
        value_name = "train_seconds" if self.plot_kind == "bar" else "log_perplexity"
        return plot_summary(summary, path, value_name=value_name, x_label=self.x_label,
                            reference=None if self.plot_kind == "bar" else reference,
                            y_label=value_label(value_name, options.metric),
                            title=f"{self.name}, {source_label(source)} ({self.figure})",
                            x_log=self.x_log, kind=self.plot_kind,
                            series_label="" if self.series_title == "method" else self.series_title)


# --- the six experiments --------------------------------------------------------------------------
def _methods_by_k(default_methods, topics):
    """The grid of one cell per replicate, method (``default_methods`` unless chosen) and K of
    ``topics(options, source)``, every other setting the options' own."""
    def grid(options, source, say):
        methods = choose_methods(options.methods, default_methods, say)
        return [options.cell(source, split, seed, method, k)
                for split, seed in options.replicates() for method in methods
                for k in topics(options, source)]
    return grid


def _score_against_k(cell, result):
    return [point("", cell.method, cell.n_topics, "log_perplexity", result["log_perplexity"])]


def _through_iterations_grid(options, source, say):
    methods = choose_methods(options.methods, PAPER_METHODS, say)
    every = options.eval_every
    if every is None:
        n_train = source.split(options.splits[0], options.n_train, options.n_test).train.n_documents
        batches = max(1, round(n_train * options.n_passes / 20 / options.batch_size))
        every = batches * options.batch_size
    return [options.cell(source, split, seed, method, k, eval_every=every,
                         held_out_words="first-evaluation")
            for split, seed in options.replicates() for method in methods
            for k in single_topics(options, source)]


def _through_iterations_points(cell, result):
    return [point(f"K = {cell.n_topics}", cell.method, record["documents_seen"], "log_perplexity",
                  record["log_perplexity_per_document"]) for record in result["trace"]]


def _step_size_grid(options, source, say):
    methods = choose_methods(options.methods, ("g-oem",), say)
    return [options.cell(source, split, seed, method, k, step_decay=decay, averaging=averaging)
            for split, seed in options.replicates() for method in methods
            for averaging in (True, False) for k in topics_grid(options, source)
            for decay in (options.step_decays or STEP_DECAYS)]


def _step_size_points(cell, result):
    panel = f"{cell.method}, {'with' if cell.averaging else 'without'} averaging"
    return [point(panel, cell.n_topics, cell.step_decay, "log_perplexity",
                  result["log_perplexity"])]


def _alpha_update_grid(options, source, say):
    methods = choose_methods(options.methods, BOOSTING_METHODS, say)
    updates = options.alpha_updates or ("fixed", "fixed-point", gamma_alpha_update())
    return [options.cell(source, split, seed, method, k, step_decay=decay, alpha_update=update)
            for split, seed in options.replicates() for method in methods
            for k in single_topics(options, source)
            for decay in (options.step_decays or ALPHA_STEP_DECAYS) for update in updates]


def _alpha_update_points(cell, result):
    return [point(f"{cell.method}, K = {cell.n_topics}", alpha_update_label(cell.alpha_update),
                  cell.step_decay, "log_perplexity", result["log_perplexity"])]


def _boosting_points(cell, result):
    base = cell.method.rstrip("+")
    return [point(f"{base} vs {base}++", cell.method, cell.n_topics, "log_perplexity",
                  result["log_perplexity"])]


def _time_points(cell, result):
    panel = f"K = {cell.n_topics}"
    return [point(panel, cell.method, cell.n_topics, name, result[name])
            for name in ("train_seconds", "documents_per_second", "log_perplexity")]


EXPERIMENTS: dict[str, Experiment] = {experiment.name: experiment for experiment in (
    Experiment("perplexity-vs-k", "Figure 1", "held-out score against the number of topics K",
               _methods_by_k(PAPER_METHODS, topics_grid), _score_against_k,
               x_label="number of topics K (log scale)", x_log=True),
    Experiment("through-iterations", "Figure 3",
               "held-out score as documents stream in (held-out tokens of the words seen by the "
               "first evaluation: the same finite set at every evaluation)",
               _through_iterations_grid, _through_iterations_points,
               x_label="training documents seen (log scale)", x_title="documents seen",
               x_log=True, rows="x"),
    Experiment("step-size", "Figures 6-7",
               "step size rho_i = i^-kappa, with and without Polyak-Ruppert averaging",
               _step_size_grid, _step_size_points,
               x_label="step_decay kappa (rho_i = i^-kappa)", series_title="K",
               x_title="step_decay"),
    Experiment("alpha-update", "Figure 11",
               "alpha fixed at its initial value (the true alpha on synthetic data), fixed "
               "point, Gamma prior", _alpha_update_grid, _alpha_update_points,
               x_label="step_decay kappa (rho_i = i^-kappa)",
               series_title="alpha update", x_title="step_decay"),
    Experiment("boosting", "Figures 4-5", "boosted inference (++) against plain online EM",
               _methods_by_k(BOOSTING_METHODS, topics_grid), _boosting_points,
               x_label="number of topics K (log scale)", x_log=True),
    Experiment("time", "Table 1", "training wall time per method (evaluation excluded)",
               _methods_by_k(PAPER_METHODS, single_topics), _time_points, x_label="method",
               values=("train_seconds", "documents_per_second", "log_perplexity"),
               plot_kind="bar"),
)}
