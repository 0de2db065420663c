"""Reporting: progressive held-out evaluation during training, summaries over replicates as
markdown tables (median, 3rd-7th decile), and PNG plots (matplotlib, optional)."""

from .plots import MISSING_MATPLOTLIB, plot_summary
from .progressive import ProgressiveEvaluation, ProgressRecord
from .tables import decile_summary, markdown_table, summarize

__all__ = ["ProgressiveEvaluation", "ProgressRecord", "summarize", "decile_summary",
           "markdown_table", "plot_summary", "MISSING_MATPLOTLIB"]
