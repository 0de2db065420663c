"""The one validation layer for parameters: declarative constraints, checked once at the door.

Every estimator declares ``_parameter_constraints``, a table from each constructor parameter to
the list of constraints it may satisfy (any one suffices), in the style of scikit-learn's
``_parameter_constraints`` but without depending on it:

    _parameter_constraints = {
        "n_topics": [Interval(Integral, 1, None)],
        "random_state": [None, Interval(Integral, 0, None), InstanceOf(np.random.Generator)],
    }

``None`` in a list allows None. `validate_parameters(estimator)` checks the whole table when
training starts (`fit`, the first `partial_fit`) and when `transform` reads parameters; the
code behind it (inference, kernels) trusts its callers and checks nothing again. What a
parameter means for one method only (the step decay kappa of a polynomial step size, eta > 0
of Bayesian topics) is checked by the part that gives it that meaning, once, when the part is
built. Plain functions with counted arguments (the evaluation functions) use `check_parameter`
with the same constraints.

A failure raises `ParameterError` (a `StreamtopicsError` and a ValueError, so the CLI prints it
on one line) naming the estimator, the parameter (with its symbol in the papers, e.g.
``step_decay (kappa)``), what it must be, and the value given.

A value that is allowed but out of proportion with the data it meets (more topics than words,
`warn_topic_count`) warns when training starts, with the numbers in the message.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any, Iterable, Mapping

import numpy as np

from .errors import InputError, TopicCountWarning, warn

Integral = numbers.Integral
Real = numbers.Real


class ParameterError(InputError):
    """A parameter outside its constraints (`validate_parameters`, `check_parameter`)."""


def _is_number(value, kind) -> bool:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, kind):
        return False
    return kind is Integral or bool(np.isfinite(value))


@dataclass(frozen=True)
class Interval:
    """A number of ``kind`` (`Integral` or `Real`; never a bool; reals finite) between ``left``
    and ``right`` (None: unbounded), ``closed`` on "both", "left", "right" or "neither" side."""

    kind: type
    left: float | None
    right: float | None
    closed: str = "both"

    def accepts(self, value, parameters: Mapping[str, Any]) -> bool:
        if not _is_number(value, self.kind):
            return False
        left_ok = (self.left is None or value > self.left
                   or (value == self.left and self.closed in ("both", "left")))
        right_ok = (self.right is None or value < self.right
                    or (value == self.right and self.closed in ("both", "right")))
        return bool(left_ok and right_ok)

    def __str__(self) -> str:
        noun = "an integer" if self.kind is Integral else "a number"
        if self.left is not None and self.right is None:
            return f"{noun} {'>=' if self.closed in ('both', 'left') else '>'} {self.left}"
        if self.right is not None and self.left is None:
            return f"{noun} {'<=' if self.closed in ('both', 'right') else '<'} {self.right}"
        if self.left is None:
            return noun
        opening = "[" if self.closed in ("both", "left") else "("
        closing = "]" if self.closed in ("both", "right") else ")"
        return f"{noun} in {opening}{self.left}, {self.right}{closing}"


@dataclass(frozen=True)
class Options:
    """One of ``values`` (strings compare case-insensitively when ``ignore_case``)."""

    values: tuple
    ignore_case: bool = False

    def accepts(self, value, parameters: Mapping[str, Any]) -> bool:
        if self.ignore_case and isinstance(value, str):
            value = value.lower()
        return isinstance(value, (str, numbers.Number)) and value in self.values

    def __str__(self) -> str:
        return "one of " + ", ".join(map(repr, self.values))


@dataclass(frozen=True)
class InstanceOf:
    """An instance of ``types``, described as ``description``."""

    types: type | tuple
    description: str

    def accepts(self, value, parameters: Mapping[str, Any]) -> bool:
        return isinstance(value, self.types)

    def __str__(self) -> str:
        return self.description


BOOLEAN = InstanceOf((bool, np.bool_), "True or False")


@dataclass(frozen=True)
class PositiveVector:
    """As many positive finite numbers as the parameter ``size_from`` says (a prior per topic,
    e.g. ``n_topics``), or as ``size_from`` itself when it is a number."""

    size_from: str | int

    def accepts(self, value, parameters: Mapping[str, Any]) -> bool:
        if isinstance(value, (str, bytes)) or np.isscalar(value):
            return False
        try:
            array = np.asarray(value, dtype=np.float64)
        except (TypeError, ValueError):
            return False
        size = (self.size_from if isinstance(self.size_from, int)
                else parameters.get(self.size_from))
        return (array.shape == (size,)
                and bool(np.all(np.isfinite(array))) and bool(np.all(array > 0)))

    def __str__(self) -> str:
        return f"{self.size_from} positive numbers"


def _satisfied(constraints: Iterable, value, parameters: Mapping[str, Any]) -> bool:
    return any(value is None if constraint is None else constraint.accepts(value, parameters)
               for constraint in constraints)


def _message(label: str, constraints: list, value) -> str:
    allowed = " or ".join("None" if c is None else str(c) for c in constraints)
    if any(isinstance(c, Options) for c in constraints) and isinstance(value, str):
        return f"unknown {label} {value!r}: {label} must be {allowed}"
    return f"{label} must be {allowed}, got {value!r}"


def check_parameter(name: str, value, constraints, owner: str = "") -> Any:
    """``value`` if it satisfies one of ``constraints`` (a constraint or a list), else
    `ParameterError` naming ``owner`` and ``name``."""
    constraints = list(constraints) if isinstance(constraints, (list, tuple)) else [constraints]
    if not _satisfied(constraints, value, {}):
        raise ParameterError((f"{owner}: " if owner else "") + _message(name, constraints, value))
    return value


def check_count(value, name: str, minimum: int) -> int:
    """An integer argument >= ``minimum`` (`check_parameter` with an `Interval`), as an int."""
    return int(check_parameter(name, value, Interval(Integral, minimum, None)))


def check_seed(seed) -> int:
    """A random seed for the kernels' streams: a non-negative integer, as an int."""
    return check_count(seed, "seed", 0)


def validate_parameters(estimator) -> None:
    """Check every parameter of ``estimator`` (an attribute of the name) against its class's
    ``_parameter_constraints`` (``_parameter_symbols`` adds the papers' symbol to a name in
    messages)."""
    parameters = {name: getattr(estimator, name) for name in type(estimator)._parameter_constraints}
    symbols = getattr(type(estimator), "_parameter_symbols", {})
    for name, constraints in type(estimator)._parameter_constraints.items():
        value = parameters[name]
        if not _satisfied(constraints, value, parameters):
            label = f"{name} ({symbols[name]})" if name in symbols else name
            raise ParameterError(f"{type(estimator).__name__}: "
                                 f"{_message(label, constraints, value)}")


TOPICS_PER_DOCUMENT = 0.5
"""K above this fraction of the D documents of a fit warns: most topics would be fitted to one
or two documents."""


def warn_topic_count(n_topics: int, n_words: int, n_documents: int | None, owner: str) -> None:
    """Warn (`TopicCountWarning`) when K exceeds the vocabulary size V (then topics can only
    share out the same words), or `TOPICS_PER_DOCUMENT` of the D documents when D is known
    (None: a stream)."""
    if n_topics > n_words:
        warn(f"{owner}: {n_topics:,} topics for a vocabulary of {n_words:,} words: more topics "
             f"than words; use fewer topics", TopicCountWarning)
    if n_documents and n_topics > TOPICS_PER_DOCUMENT * n_documents:
        warn(f"{owner}: {n_topics:,} topics for {n_documents:,} documents: more topics than "
             f"{TOPICS_PER_DOCUMENT:.0%} of the documents, so most topics are fitted to one or "
             f"two documents; use fewer topics or more documents", TopicCountWarning)
