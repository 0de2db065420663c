"""Method names -> combinations of parts: every online method is one loop with four axes.

Following the thesis (Dupuy 2017, section 3.5.1, Table 4), an online method for LDA is fixed by

| axis | key of `Method` | choices (registry keys) |
|---|---|---|
| local E-step estimator | ``local`` | ``"gibbs"`` (Algorithm 2), ``"gibbs-last-sample"`` (hard counts of the last sweep, SGS), ``"variational"`` (eq. 11-12) |
| global parameters | ``parameters`` | ``"smoothed"`` (frequentist, the posterior mean beta = (eta + N s1) / row sums, N documents seen; eta = 0 gives the MLE), ``"point"`` (frequentist beta = beta*(s), the MLE of appendix A.1 whatever eta), ``"dirichlet"`` (Bayesian lambda = eta + D s1, E_q[log beta] in the E-step), ``"langevin"`` (SGRLD: s1 holds theta, moved by Langevin dynamics instead of eq. 3) |
| step size rho_i | ``step_size`` | ``"polynomial"`` ((tau0 + i)^-kappa), ``"incremental"`` (1/i), ``"constant"`` (1) |
| alpha update | ``alpha_update`` | ``"fixed-point"`` (Minka), ``"newton"`` (OLDA eq. 9), ``"gamma-prior"`` (SPLDA), ``"fixed"`` |

plus ``boosted`` (++: the M-step after every local pass, section 3.3) and ``full_batch`` (each
step's minibatch is the whole corpus: batch EM / batch VB). A preset is just a named `Method`;
users compose their own by passing a `Method` to `OnlineLDA(method=...)`. The part registries map
a choice to a factory taking the estimator's hyperparameters (a `PartSettings`), so a new part is
one registry entry; each part satisfies its protocol of `inference.parts`.

| preset | local | parameters | step size | alpha | boosted | paper |
|---|---|---|---|---|---|---|
| g-oem | gibbs | smoothed | polynomial | fixed-point | no | Dupuy & Bach 2016 |
| g-oem++ | gibbs | smoothed | polynomial | fixed-point | yes | Dupuy & Bach 2016, section 3.3 |
| v-oem | variational | smoothed | polynomial | fixed-point | no | Dupuy & Bach 2016 |
| v-oem++ | variational | smoothed | polynomial | fixed-point | yes | Dupuy & Bach 2016, section 3.3 |
| olda | variational | dirichlet | polynomial | newton | no | Hoffman, Blei & Bach 2010, Alg. 2 |
| svb | variational | dirichlet | incremental | newton | no | Broderick et al. 2013 |
| splda | variational | smoothed | incremental | gamma-prior | yes | Sato, Kurihara & Nakagawa 2010 |
| sgs | gibbs-last-sample | smoothed | incremental | fixed | no | Gao et al. 2016 |
| vargibbs | gibbs | dirichlet | polynomial | fixed | no | Mimno, Hoffman & Blei 2012 |
| batch-vb | variational | dirichlet | constant (full batch) | fixed | no | Hoffman, Blei & Bach 2010, Alg. 1 |
| lds | gibbs | langevin | constant (unused) | fixed | no | Patterson & Teh 2013 (thesis: LDS, P = 200) |

Frequentist presets smooth their point estimate with a Dirichlet(eta) prior on the topics
(``topic_word_prior``; `default_topic_word_prior`); eta = 0 is the paper's exact M-step. Model
files written before the prior existed name ``"point"`` and load as they were trained.

docs/methods.md explains each line with the equations.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any, Callable, Mapping

from .alpha_updates import Fixed, GammaPrior, MinkaFixedPoint, NewtonStep
from .gibbs_estep import GibbsEstimator
from .variational_estep import VariationalEstimator
from .global_parameters import PointEstimate, VariationalDirichlet
from .langevin import LangevinTopics
from ..validation import ParameterError
from .parts import AlphaUpdate, LocalEstimator, Parameterisation, StepSize
from .step_sizes import Constant, Floored, Incremental, PolynomialDecay


# The paper's settings (Dupuy & Bach 2016, section 5.1: P = 20 local passes, rho_i = i^-1/2):
# the one owner of these defaults, read by every online estimator, the experiments and the CLI.
DEFAULT_LOCAL_PASSES = 20
DEFAULT_STEP_OFFSET = 0.0
DEFAULT_STEP_DECAY = 0.5


@dataclass(frozen=True)
class PartSettings:
    """The estimator's hyperparameters the parts are built from (`OnlineLDA` fills them from its
    parameters, and saves them in the model file as a JSON object, `as_dict`).

    ``local_passes``: P of the local estimator; ``step_offset``, ``step_decay``: tau0 and kappa
    of the polynomial step size; ``step_floor``: the least step size of any schedule (0: none,
    `step_sizes.Floored`); ``corpus_size``: D of Bayesian topics (None: unknown);
    ``topic_word_prior``: eta, already resolved (`default_topic_word_prior`);
    ``update_topic_word_prior``: Newton steps on eta (Bayesian topics); ``local_sampler``: the
    kernel of the local Gibbs step, "auto", "sparse", "dense" or "mh"
    (`GibbsEstimator.sampler`)."""

    local_passes: int = DEFAULT_LOCAL_PASSES
    step_offset: float = DEFAULT_STEP_OFFSET
    step_decay: float = DEFAULT_STEP_DECAY
    step_floor: float = 0.0
    corpus_size: int | None = None
    topic_word_prior: float | None = None
    update_topic_word_prior: bool = False
    local_sampler: str = "auto"

    @classmethod
    def of(cls, settings: "PartSettings | Mapping[str, Any]") -> "PartSettings":
        """``settings`` itself, or the settings named in a mapping (other keys ignored, missing
        ones at their defaults; model files store the mapping)."""
        if isinstance(settings, cls):
            return settings
        names = {field.name for field in fields(cls)}
        return cls(**{key: value for key, value in settings.items() if key in names})

    def as_dict(self) -> dict:
        return asdict(self)


def _factory(build: Callable[[PartSettings], Any]) -> Callable[[Any], Any]:
    """A registry entry: ``build`` called with `PartSettings.of` its argument."""
    return lambda settings: build(PartSettings.of(settings))


Factory = Callable[["PartSettings | Mapping[str, Any]"], Any]

LOCAL_ESTIMATORS: dict[str, Factory] = {
    "gibbs": _factory(lambda s: GibbsEstimator(passes=s.local_passes, sampler=s.local_sampler)),
    "gibbs-last-sample": _factory(lambda s: GibbsEstimator(passes=s.local_passes,
                                                           last_sample=True,
                                                           sampler=s.local_sampler)),
    "variational": _factory(lambda s: VariationalEstimator(passes=s.local_passes)),
}
GLOBAL_PARAMETERS: dict[str, Factory] = {
    "point": _factory(lambda s: PointEstimate(0.0)),
    "dirichlet": _factory(lambda s: VariationalDirichlet(
        corpus_size=s.corpus_size, topic_word_prior=s.topic_word_prior,
        update_prior=bool(s.update_topic_word_prior))),
    "smoothed": _factory(lambda s: PointEstimate(s.topic_word_prior)),
    "langevin": _factory(lambda s: LangevinTopics(corpus_size=s.corpus_size,
                                                  topic_word_prior=s.topic_word_prior)),
}
STEP_SIZES: dict[str, Factory] = {
    "polynomial": _factory(lambda s: PolynomialDecay(s.step_offset, s.step_decay)),
    "incremental": _factory(lambda s: Incremental()),
    "constant": _factory(lambda s: Constant(1.0)),
}
ALPHA_UPDATES: dict[str, Factory] = {
    "fixed-point": _factory(lambda s: MinkaFixedPoint()),
    "newton": _factory(lambda s: NewtonStep()),
    "gamma-prior": _factory(lambda s: GammaPrior()),
    "fixed": _factory(lambda s: Fixed()),
}
_AXES = {"local": LOCAL_ESTIMATORS, "parameters": GLOBAL_PARAMETERS, "step_size": STEP_SIZES,
         "alpha_update": ALPHA_UPDATES}


@dataclass(frozen=True)
class Method:
    """One point of the four axes plus boosting; ``name`` is for display and model files.

    ``full_batch``: every step's minibatch is the whole corpus, processed in chunks of
    ``batch_size`` with the same parameters and merged exactly (`OnlineEM.batch_step`); with the
    ``"constant"`` step size (rho = 1) one step is one iteration of batch EM, or of batch VB with
    ``"dirichlet"`` parameters (Hoffman et al. 2010, Algorithm 1), and ``n_passes`` counts them.
    """

    local: str = "gibbs"
    parameters: str = "smoothed"
    step_size: str = "polynomial"
    alpha_update: str = "fixed-point"
    boosted: bool = False
    name: str = "custom"
    full_batch: bool = False

    def as_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, values: dict) -> "Method":
        return cls(**{key: values[key] for key in cls.__dataclass_fields__ if key in values})


PRESETS: dict[str, Method] = {
    "g-oem": Method("gibbs", "smoothed", "polynomial", "fixed-point", False, "g-oem"),
    "g-oem++": Method("gibbs", "smoothed", "polynomial", "fixed-point", True, "g-oem++"),
    "v-oem": Method("variational", "smoothed", "polynomial", "fixed-point", False, "v-oem"),
    "v-oem++": Method("variational", "smoothed", "polynomial", "fixed-point", True, "v-oem++"),
    "olda": Method("variational", "dirichlet", "polynomial", "newton", False, "olda"),
    "svb": Method("variational", "dirichlet", "incremental", "newton", False, "svb"),
    "splda": Method("variational", "smoothed", "incremental", "gamma-prior", True, "splda"),
    "sgs": Method("gibbs-last-sample", "smoothed", "incremental", "fixed", False, "sgs"),
    "vargibbs": Method("gibbs", "dirichlet", "polynomial", "fixed", False, "vargibbs"),
    "batch-vb": Method("variational", "dirichlet", "constant", "fixed", False, "batch-vb",
                       full_batch=True),
    "lds": Method("gibbs", "langevin", "constant", "fixed", False, "lds"),
}


def resolve_method(method) -> Method:
    """A `Method` from a preset name (case-insensitive) or a `Method`; `ParameterError` (a
    ValueError) otherwise."""
    if isinstance(method, Method):
        spec = method
    elif isinstance(method, str) and method.lower() in PRESETS:
        spec = PRESETS[method.lower()]
    else:
        raise ParameterError(f"unknown method {method!r}; choose one of {', '.join(PRESETS)} "
                             f"or pass a streamtopics.inference.presets.Method")
    for axis, registry in _AXES.items():
        choice = getattr(spec, axis)
        if choice not in registry:
            raise ParameterError(f"unknown {axis} {choice!r} in method {spec.name!r}; "
                                 f"choose one of {', '.join(registry)}")
    if spec.boosted and spec.full_batch:
        raise ParameterError(f"method {spec.name!r}: boosted (++) updates need one minibatch "
                             f"at a time, not a full batch")
    return spec


# Default eta of frequentist ("smoothed") topics, chosen by held-out left-to-right likelihood on
# two shared corpora at K = 20 and 100 (reproductions/topic_word_prior.py; table in docs/methods.md).
SMOOTHED_TOPIC_WORD_PRIOR = 0.03


def default_topic_word_prior(method, n_topics: int) -> float:
    """eta when ``topic_word_prior`` is None: 1/K for Bayesian topics (as gensim and
    scikit-learn) and for SGS (Gao et al. 2016 use a small symmetric eta; 1/K is what this
    library has always used for it), `SMOOTHED_TOPIC_WORD_PRIOR` for the other frequentist
    presets."""
    spec = resolve_method(method)
    if spec.parameters == "smoothed" and spec.local != "gibbs-last-sample":
        return SMOOTHED_TOPIC_WORD_PRIOR
    return 1.0 / n_topics


@dataclass(frozen=True)
class Parts:
    """The built parts of one method, ready for `streamtopics.engine.OnlineEM`."""

    local: LocalEstimator
    parameters: Parameterisation
    step_size: StepSize
    alpha_update: AlphaUpdate
    boosted: bool
    full_batch: bool


def step_size_of(name: str, settings: "PartSettings | Mapping[str, Any]"):
    """The step size ``name`` of `STEP_SIZES` built from ``settings``, floored at its
    ``step_floor`` when that is positive (`Floored`)."""
    settings = PartSettings.of(settings)
    schedule = STEP_SIZES[name](settings)
    return Floored(schedule, settings.step_floor) if settings.step_floor > 0 else schedule


def build_parts(method, settings: "PartSettings | Mapping[str, Any]") -> Parts:
    """Instantiate the parts of ``method`` with the hyperparameters ``settings`` (a
    `PartSettings`, or a mapping of its fields); a part that cannot be built from them (e.g.
    Bayesian topics without a corpus size) raises ValueError naming the method."""
    spec = resolve_method(method)
    settings = PartSettings.of(settings)
    built = {}
    for axis, registry in _AXES.items():
        try:
            built[axis] = (step_size_of(spec.step_size, settings) if axis == "step_size"
                           else registry[getattr(spec, axis)](settings))
        except ValueError as error:
            raise ParameterError(f"method {spec.name!r}: {error}") from None
    return Parts(boosted=bool(spec.boosted), full_batch=bool(spec.full_batch), **built)
