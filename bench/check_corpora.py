"""Checks on the shared corpora (issue 2, "Done when"); a script, not a test.

1. Reading each corpus directory of ../shared/corpora (train and test) gives the D, V, token and
   NNZ counts its stats.json states (and tokens.jsonl agrees with docword.txt: the reader
   checks it), with the time each read takes.
2. ``streamtopics preprocess raw.jsonl.gz --stopwords stopwords.txt -o /tmp/pp_<name>`` for
   debian, newsarticles and finefoods gives a vocabulary equal to the corpus' vocab.txt as a set;
   also reported: same order, and byte-identical docword and tokens files for both splits.

Usage: ``python bench/check_corpora.py [--corpora DIR] [--output-prefix /tmp/pp_]``.
Writes bench/results/check_corpora.json and .md, prints the tables; exit code 1 on a mismatch.
"""

from __future__ import annotations

import argparse
import filecmp
import json
import subprocess
import sys
import time
from pathlib import Path

from streamtopics.corpus import read_corpus_dir

from measuring import CORPORA, command_line, write_results

RAW = ("newsarticles", "debian", "finefoods")


def check_directory(directory: Path) -> list[dict]:
    stats = json.loads((directory / "stats.json").read_text())
    rows = []
    for split in ("train", "test"):
        start = time.perf_counter()
        corpus = read_corpus_dir(directory, split)
        seconds = time.perf_counter() - start
        found = {"D": corpus.n_documents, "V": corpus.n_words, "tokens": corpus.n_tokens,
                 "nnz": corpus.counts.nnz}
        expected = {"D": stats[f"D_{split}"], "V": stats["V"], "tokens": stats[f"tokens_{split}"],
                    "nnz": stats[f"nnz_{split}"]}
        rows.append({"corpus": directory.name, "split": split, "found": found,
                     "expected": expected, "ok": found == expected, "seconds": seconds,
                     "token_order": corpus.tokens is not None})
    return rows


def check_preprocess(directory: Path, output: Path) -> dict:
    command = [sys.executable, "-m", "streamtopics.cli.main", "preprocess",
               str(directory / "raw.jsonl.gz"), "--stopwords", str(directory.parent / "stopwords.txt"),
               "-o", str(output), "--json"]
    start = time.perf_counter()
    completed = subprocess.run(command, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if completed.returncode != 0:
        return {"corpus": directory.name, "ok": False, "error": completed.stderr.strip()}
    ours = (output / "vocab.txt").read_text(encoding="utf-8").splitlines()
    theirs = (directory / "vocab.txt").read_text(encoding="utf-8").splitlines()
    identical = {name: filecmp.cmp(output / name, directory / name, shallow=False)
                 for name in ("train.docword.txt", "test.docword.txt",
                              "train.tokens.jsonl", "test.tokens.jsonl")}
    return {"corpus": directory.name, "command": " ".join(command[1:]), "seconds": seconds,
            "V_ours": len(ours), "V_theirs": len(theirs), "same_set": set(ours) == set(theirs),
            "only_ours": sorted(set(ours) - set(theirs))[:10],
            "only_theirs": sorted(set(theirs) - set(ours))[:10],
            "same_order": ours == theirs, "identical_files": identical,
            "ok": set(ours) == set(theirs)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpora", default=str(CORPORA))
    parser.add_argument("--output-prefix", default="/tmp/pp_")
    args = parser.parse_args()
    corpora = Path(args.corpora)
    reads = [row for d in sorted(p for p in corpora.iterdir() if (p / "stats.json").is_file())
             for row in check_directory(d)]
    preprocessing = [check_preprocess(corpora / name, Path(f"{args.output_prefix}{name}"))
                     for name in RAW]

    lines = ["| corpus | split | D | V | tokens | NNZ | as stats.json | read (s) |",
             "| --- | --- | ---: | ---: | ---: | ---: | --- | ---: |"]
    for row in reads:
        f = row["found"]
        lines.append(f"| {row['corpus']} | {row['split']} | {f['D']:,} | {f['V']:,} | "
                     f"{f['tokens']:,} | {f['nnz']:,} | {'yes' if row['ok'] else 'NO: ' + str(row['expected'])} "
                     f"| {row['seconds']:.2f} |")
    lines += ["", "| raw corpus | V ours / vocab.txt | same set | same order | docword + tokens "
              "files identical | preprocess (s) |", "| --- | ---: | --- | --- | --- | ---: |"]
    for row in preprocessing:
        if "error" in row:
            lines.append(f"| {row['corpus']} | failed: {row['error']} | | | | |")
            continue
        lines.append(f"| {row['corpus']} | {row['V_ours']:,} / {row['V_theirs']:,} | "
                     f"{'yes' if row['same_set'] else 'NO'} | {'yes' if row['same_order'] else 'no'} | "
                     f"{'all 4' if all(row['identical_files'].values()) else row['identical_files']} | "
                     f"{row['seconds']:.1f} |")
    write_results("check_corpora", {"reads": reads, "preprocessing": preprocessing},
                  "Checks on the shared corpora (issue 2): reading and preprocessing",
                  command_line(), lines)
    print("\n".join(lines))
    return 0 if all(r["ok"] for r in reads + preprocessing) else 1


if __name__ == "__main__":
    sys.exit(main())
