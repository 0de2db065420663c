"""Imports flow one way: a module imports only from its own layer or the layers
below, parsed from the source with `ast` (function-level imports included), so a model added
later cannot quietly tie the engine to an estimator or the kernels to the CLI.

    layer 0  errors, atomic, validation, memory,      nothing of the library
             _version
    layer 1  persistence, checkpoint                  safe model files; training checkpoints
    layer 2  kernels, corpus                          numba loops; documents and readers
    layer 3  inference, evaluation                    the parts of the engine; measures of
                                                      topic parameters (arrays in, numbers out)
    layer 4  engine                                   Algorithm 1 over the parts
    layer 5  estimators, training                     fit/transform/save; training over streams
    layer 6  reporting, experiments, interop,         what uses fitted estimators
             reviews, dpp, timeline
    layer 7  cli, the package's __init__              the user's doors

(The chain kernels <- inference <- engine <- estimators <- evaluation/reporting <-
cli, with evaluation beside inference: it never needs an estimator, and estimators use it for
``score`` and automatic passes.) `KNOWN` lists the upward imports that still exist, each with
the move that removes it; the test fails when one disappears, so the list only shrinks.
"""

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "streamtopics"

LAYERS = {
    "errors": 0, "atomic": 0, "validation": 0, "memory": 0, "threads": 0, "_version": 0,
    "persistence": 1, "checkpoint": 1,
    "kernels": 2, "corpus": 2,
    "inference": 3, "evaluation": 3,
    "engine": 4,
    "estimators": 5, "training": 5,
    "reporting": 6, "experiments": 6, "interop": 6, "reviews": 6, "dpp": 6,
    "timeline": 6,
    "cli": 7, "__init__": 7, "__main__": 7,
}

KNOWN: dict[tuple[str, str], str] = {}  # none


def _unit(module: str) -> str:
    """The top-level unit of a module name inside the package ('streamtopics.a.b' -> 'a')."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _imports():
    """(importing unit, imported unit, file, line) for every import of the package by itself."""
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        package, here = parts[:-1], _unit(".".join(parts))  # an __init__'s package: its folder
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = list(package[:len(package) - node.level + 1])
                    names = ([".".join(base + [node.module])] if node.module else
                             [".".join(base + [alias.name]) for alias in node.names])
                else:
                    names = [node.module or ""]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            for name in names:
                if name.startswith("streamtopics.") and _unit(name) != here:
                    yield here, _unit(name), path.relative_to(PACKAGE), node.lineno


def test_every_unit_has_a_layer():
    units = {path.stem if path.is_file() else path.name for path in PACKAGE.iterdir()
             if (path.suffix == ".py" or (path / "__init__.py").exists())}
    assert units - set(LAYERS) == set(), "place the new module in LAYERS"


def test_imports_flow_down_the_layers():
    upward = {}
    for here, there, path, line in _imports():
        if LAYERS[there] > LAYERS[here]:
            upward.setdefault((here, there), f"{path}:{line}")
    unexpected = {pair: where for pair, where in upward.items() if pair not in KNOWN}
    assert not unexpected, f"imports against the layers: {unexpected}"
    gone = set(KNOWN) - set(upward)
    assert not gone, f"fixed, remove from KNOWN: {gone}"
