"""The shape of the code a maintainer can carry on, checked from the source with `ast`:

- no function takes more than `MAX_PARAMETERS` parameters (an estimator's ``__init__`` excepted:
  scikit-learn wants every hyperparameter there): longer lists are passed as named bundles;
- no module imports a private name (``_name``) from a module of another package: a package's
  private helpers stay inside it, and what others need gets a public name.
"""

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "streamtopics"
MAX_PARAMETERS = 16


def _modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        yield path, ast.parse(path.read_text(encoding="utf-8"), str(path))


def _parameter_count(function: ast.FunctionDef) -> int:
    arguments = function.args
    names = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
    count = len(names) + (arguments.vararg is not None) + (arguments.kwarg is not None)
    return count - (bool(names) and names[0].arg in ("self", "cls"))


def _is_estimator(node: ast.ClassDef) -> bool:
    """A class that declares scikit-learn's ``_parameter_constraints`` table."""
    return any(isinstance(item, (ast.Assign, ast.AnnAssign)) and "_parameter_constraints" in
               ast.unparse(item.targets[0] if isinstance(item, ast.Assign) else item.target)
               for item in node.body)


def test_no_function_takes_more_than_sixteen_parameters():
    too_long = []
    for path, tree in _modules():
        estimator_inits = {id(item) for node in ast.walk(tree)
                           if isinstance(node, ast.ClassDef) and _is_estimator(node)
                           for item in node.body
                           if isinstance(item, ast.FunctionDef) and item.name == "__init__"}
        for node in ast.walk(tree):
            if (isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                    and id(node) not in estimator_inits
                    and _parameter_count(node) > MAX_PARAMETERS):
                too_long.append(f"{path.relative_to(PACKAGE)}:{node.lineno} {node.name} "
                                f"({_parameter_count(node)})")
    assert not too_long, "more than 16 parameters (bundle them): " + ", ".join(too_long)


def _package_of(path: Path) -> tuple[str, ...]:
    return path.relative_to(PACKAGE).parent.parts


def _imported_module(path: Path, node: ast.ImportFrom) -> tuple[str, ...]:
    """The package path (relative to streamtopics) of the module ``node`` imports from."""
    if node.level:
        base = list(_package_of(path))[:len(_package_of(path)) - (node.level - 1)]
    else:
        parts = (node.module or "").split(".")
        if parts[0] != "streamtopics":
            return ()
        return tuple(parts[1:])
    return tuple(base + (node.module.split(".") if node.module else []))


def test_no_private_name_crosses_a_package():
    crossings = []
    for path, tree in _modules():
        here = _package_of(path)
        for node in ast.walk(tree):
            if not isinstance(node, ast.ImportFrom):
                continue
            target = _imported_module(path, node)
            if not target and not node.level:
                continue
            private = [alias.name for alias in node.names if alias.name.startswith("_")
                       and not alias.name.startswith("__")]
            target_package = target[:-1] if (PACKAGE.joinpath(*target).with_suffix(".py")
                                              .exists()) else target
            if private and tuple(target_package) != here:
                crossings.append(f"{path.relative_to(PACKAGE)}:{node.lineno} "
                                 f"{'.'.join(target)}: {', '.join(private)}")
    assert not crossings, "private names imported across packages: " + "; ".join(crossings)
