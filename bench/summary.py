"""What are the current figures of every benchmark, in one table?

Reads the result of each script of `SCRIPTS` (``NAME.json`` in ``--output-dir``, as ``make
bench`` leaves them), and writes ``summary.md`` there: a row per script with the question it
answers (its docstring's first line) and its headline figures, then the peers' table of
``vs_peers.py`` and ``wikipedia_shape.py`` (each engine at the best of its settings run) and
the serving table of
``serving.py`` (documents per second of transform and its peers). The same text replaces
what stands between the markers ``<!-- bench-summary:start -->`` and
``<!-- bench-summary:end -->`` in each page of ``--pages`` that has them (README.md and
docs/performance.md by default; none with ``--quick`` unless named).

Usage: python bench/summary.py [--output-dir bench/results] [--pages README.md ...] [--quick]
"""

from __future__ import annotations

import argparse
import ast
import json
import re
from pathlib import Path

from measuring import BENCH, RESULTS

SCRIPTS = ("vs_peers", "vs_tomotopy", "cgs_throughput", "long_stream", "distributed",
           "threads", "kernel_cost", "shape_cost", "wikipedia_shape", "wikipedia_stream",
           "boosted_cost", "evaluation_speed", "serving", "timeline")
START, END = "<!-- bench-summary:start -->", "<!-- bench-summary:end -->"
PAGES = (BENCH.parent / "README.md", BENCH.parent / "docs" / "performance.md")


def question(script: str) -> str:
    """The first line of the script's docstring."""
    tree = ast.parse((BENCH / f"{script}.py").read_text(encoding="utf-8"))
    return ast.get_docstring(tree).split("\n\n")[0].replace("\n", " ")


def peers_table(best: list[dict]) -> list[str]:
    """The best row per corpus, K and engine (of vs_peers.py and wikipedia_shape.py): held-out
    score and CPU ratio."""
    lines = ["| corpus | K | engine | held-out log-perplexity / doc | CPU s | CPU s / G-OEM one "
             "pass |", "|---|---:|---|---:|---:|---:|"]
    for row in best:
        engine = row["engine"] + (f" ({row['passes']} passes)" if row.get("passes", 1) > 1
                                  else "")
        lines.append(f"| {row['corpus']} | {row['K']} | {engine} | {row['log_perplexity']:.1f} "
                     f"| {row['seconds']:.1f} | {row['cpu_ratio']:.2f} |")
    return lines


def serving_table(result: dict) -> list[str]:
    """serving.py's rows: documents per second in a batch and one per call, each with its time
    over streamtopics', and the document-completion score."""
    lines = ["| corpus | K | library | batch: docs/s | time / streamtopics | one per call: docs/s "
             "| time / streamtopics | completion, nats/token |", "|---|---:|---|" + "---:|" * 5]
    for row in result["rows"]:
        if "settings" in row:
            lines.append(f"| {row['corpus']} | {row['K']} | {row['library']} | "
                         f"{row['batch_documents_per_second']:,.0f} | "
                         f"{row['batch_time_ratio']:.2f} | "
                         f"{row['single_documents_per_second']:,.0f} | "
                         f"{row['single_time_ratio']:.2f} | {row['completion_per_token']:.3f} |")
    return lines


def summary(directory: Path) -> list[str]:
    results = {script: json.loads((directory / f"{script}.json").read_text())
               for script in SCRIPTS if (directory / f"{script}.json").exists()}
    lines = ["| script | question | current figures |", "|---|---|---|"]
    for script in SCRIPTS:
        figures = ("not run" if script not in results
                   else "<br>".join(results[script]["headline"]))
        lines.append(f"| `bench/{script}.py` | {question(script)} | {figures} |")
    lines += ["", "Every figure is from one run of the script (`make bench`), its fits side by "
              "side on one machine; the full tables are in `bench/results/NAME.md`."]
    compared = [script for script in ("vs_peers", "wikipedia_shape") if script in results]
    if compared:
        lines += ["", "Held-out score (left-to-right, lower is better) and CPU time of one "
                  "thread, each peer at the best of the settings run ("
                  + ", ".join(f"`bench/{script}.py`" for script in compared) + "):", "",
                  *peers_table([row for script in compared for row in results[script]["best"]])]
    if "serving" in results:
        lines += ["", "Serving: `transform` of a fitted model, documents per second of one thread "
                  "in one call of many documents and in one call per document, each library at "
                  "its own inference defaults, and the held-out score of the proportions "
                  "(document completion, higher is better; `bench/serving.py`):", "",
                  *serving_table(results["serving"])]
    return lines


def replace_block(page: Path, text: str) -> bool:
    """Put ``text`` between the markers of ``page``; False when the page lacks them."""
    if not page.exists():
        return False
    content = page.read_text(encoding="utf-8")
    pattern = re.compile(re.escape(START) + ".*?" + re.escape(END), re.DOTALL)
    if not pattern.search(content):
        return False
    page.write_text(pattern.sub(lambda _: f"{START}\n{text}\n{END}", content, count=1),
                    encoding="utf-8")
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="the quick runs' results: no page updated unless named")
    parser.add_argument("--output-dir", type=Path, default=RESULTS)
    parser.add_argument("--pages", type=Path, nargs="*", default=None)
    args = parser.parse_args()
    if args.quick and args.output_dir == RESULTS:
        parser.error("--quick summarises the quick runs: name their --output-dir")
    pages = args.pages if args.pages is not None else ([] if args.quick else PAGES)
    text = "\n".join(summary(args.output_dir))
    (args.output_dir / "summary.md").write_text("# Current benchmark figures\n\n" + text + "\n")
    for page in pages:
        print(f"{page}: {'updated' if replace_block(page, text) else 'no markers, left alone'}")


if __name__ == "__main__":
    main()
