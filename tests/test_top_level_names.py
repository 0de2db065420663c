"""The package's front door: every name the README's Python examples import from
``streamtopics`` exists there, and so does every estimator a user may meet (the model-file
registry's and `LowRankDPP`), as the same class as in its own package."""

import ast
import re
from pathlib import Path

import pytest

import streamtopics
from streamtopics.dpp import LowRankDPP
from streamtopics.estimators import ESTIMATORS

README = Path(__file__).resolve().parents[1] / "README.md"


def _readme_imports() -> list[str]:
    """The names of every ``from streamtopics import ...`` in the README's Python blocks."""
    names = []
    for block in re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S):
        for node in ast.walk(ast.parse(block)):
            if isinstance(node, ast.ImportFrom) and node.module == "streamtopics":
                names += [alias.name for alias in node.names]
    return names


def test_the_readme_imports_names_that_exist():
    names = _readme_imports()
    assert "OnlineLDA" in names  # the examples were found
    missing = [name for name in names if not hasattr(streamtopics, name)]
    assert missing == []


@pytest.mark.parametrize("estimator", [*ESTIMATORS.values(), LowRankDPP],
                         ids=lambda cls: cls.__name__)
def test_every_estimator_imports_from_the_top_level(estimator):
    assert getattr(streamtopics, estimator.__name__) is estimator
    assert estimator.__name__ in streamtopics.__all__


def test_every_estimator_the_readme_names_imports_from_the_top_level():
    """A class name in backquotes in the README that is a registered estimator is exported."""
    quoted = set(re.findall(r"`([A-Z][A-Za-z0-9]+)`", README.read_text(encoding="utf-8")))
    named = quoted & {*ESTIMATORS, LowRankDPP.__name__}
    assert {"OnlineLDA", "OnlineHDP", "GibbsLDA"} <= named
    assert named <= set(streamtopics.__all__)
