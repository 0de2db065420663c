"""Method names -> combinations of parts: every online method is one loop with four axes.

Following the thesis (Dupuy 2017, section 3.5.1, Table 4), an online method for LDA is fixed by

| axis | key of `Method` | choices here (more in issue 5) |
|---|---|---|
| local E-step estimator | ``local`` | ``"gibbs"`` (Algorithm 2), ``"variational"`` (eq. 11-12) |
| global parameters | ``parameters`` | ``"point"`` (frequentist beta = beta*(s)) |
| step size rho_i | ``step_size`` | ``"polynomial"`` ((tau0 + i)^-kappa), ``"incremental"`` (1/i) |
| alpha update | ``alpha_update`` | ``"fixed-point"`` (Minka), ``"fixed"`` |

plus ``boosted`` (++: the M-step after every local pass, section 3.3). A preset is just a named
`Method`; users compose their own by passing a `Method` to `OnlineLDA(method=...)`. The part
registries map a choice to a factory taking the estimator's hyperparameters (a dict with
``local_passes``, ``step_offset``, ``step_decay``, ...), so new parts (Bayesian parameters,
Gamma-prior alpha, last-sample Gibbs) are one registry entry each.

| preset | local | parameters | step size | alpha | boosted |
|---|---|---|---|---|---|
| g-oem | gibbs | point | polynomial | fixed-point | no |
| g-oem++ | gibbs | point | polynomial | fixed-point | yes |
| v-oem | variational | point | polynomial | fixed-point | no |
| v-oem++ | variational | point | polynomial | fixed-point | yes |
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Callable

from .alpha_updates import Fixed, MinkaFixedPoint
from .estep_gibbs import GibbsEstimator
from .estep_variational import VariationalEstimator
from .global_parameters import PointEstimate
from .schedules import Incremental, PolynomialDecay

Factory = Callable[[dict], Any]

LOCAL_ESTIMATORS: dict[str, Factory] = {
    "gibbs": lambda settings: GibbsEstimator(passes=settings["local_passes"]),
    "variational": lambda settings: VariationalEstimator(passes=settings["local_passes"]),
}
GLOBAL_PARAMETERS: dict[str, Factory] = {
    "point": lambda settings: PointEstimate(),
}
STEP_SIZES: dict[str, Factory] = {
    "polynomial": lambda settings: PolynomialDecay(settings["step_offset"], settings["step_decay"]),
    "incremental": lambda settings: Incremental(),
}
ALPHA_UPDATES: dict[str, Factory] = {
    "fixed-point": lambda settings: MinkaFixedPoint(),
    "fixed": lambda settings: Fixed(),
}
_AXES = {"local": LOCAL_ESTIMATORS, "parameters": GLOBAL_PARAMETERS, "step_size": STEP_SIZES,
         "alpha_update": ALPHA_UPDATES}


@dataclass(frozen=True)
class Method:
    """One point of the four axes plus boosting; ``name`` is for display and model files."""

    local: str = "gibbs"
    parameters: str = "point"
    step_size: str = "polynomial"
    alpha_update: str = "fixed-point"
    boosted: bool = False
    name: str = "custom"

    def as_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, values: dict) -> "Method":
        return cls(**{key: values[key] for key in cls.__dataclass_fields__ if key in values})


PRESETS: dict[str, Method] = {
    "g-oem": Method("gibbs", "point", "polynomial", "fixed-point", False, "g-oem"),
    "g-oem++": Method("gibbs", "point", "polynomial", "fixed-point", True, "g-oem++"),
    "v-oem": Method("variational", "point", "polynomial", "fixed-point", False, "v-oem"),
    "v-oem++": Method("variational", "point", "polynomial", "fixed-point", True, "v-oem++"),
}


def resolve_method(method) -> Method:
    """A `Method` from a preset name (case-insensitive) or a `Method`; ValueError otherwise."""
    if isinstance(method, Method):
        spec = method
    elif isinstance(method, str) and method.lower() in PRESETS:
        spec = PRESETS[method.lower()]
    else:
        raise ValueError(f"unknown method {method!r}; choose one of {', '.join(PRESETS)} "
                         f"or pass a streamtopics.inference.presets.Method")
    for axis, registry in _AXES.items():
        choice = getattr(spec, axis)
        if choice not in registry:
            raise ValueError(f"unknown {axis} {choice!r} in method {spec.name!r}; "
                             f"choose one of {', '.join(registry)}")
    return spec


@dataclass(frozen=True)
class Parts:
    local: Any
    parameters: Any
    step_size: Any
    alpha_update: Any
    boosted: bool


def build_parts(method, settings: dict) -> Parts:
    """Instantiate the parts of ``method`` with the hyperparameters in ``settings``."""
    spec = resolve_method(method)
    built = {axis: registry[getattr(spec, axis)](settings) for axis, registry in _AXES.items()}
    return Parts(boosted=bool(spec.boosted), **built)
