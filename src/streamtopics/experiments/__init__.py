"""The papers' experiments as a feature: grids of training runs ("cells"), resumable, summarised
as the papers present them (median and 3rd-7th decile over splits and seeds), with tables and
plots. `EXPERIMENTS` names them; `run_experiment` runs one; ``streamtopics experiment`` is the
command line."""

from .cells import Cell, CellStore
from .data import CorpusSource, ExperimentSplit, SyntheticSpec
from .named import EXPERIMENTS, Experiment, Options
from .runner import ExperimentReport, run_cell, run_experiment
from .select_k import KScore, KSelection, recommend_k, select_k

__all__ = ["Cell", "CellStore", "CorpusSource", "ExperimentSplit", "SyntheticSpec", "EXPERIMENTS",
           "Experiment", "Options", "ExperimentReport", "run_cell", "run_experiment",
           "select_k", "recommend_k", "KScore", "KSelection"]
