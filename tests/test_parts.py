"""The engine's part protocols (`inference.parts`): their toy implementations run (doctests),
every registered part satisfies its protocol, and a batch step's E-step map is pluggable."""

import doctest

import numpy as np
import pytest

from streamtopics.engine import OnlineEM, initial_parameters
from streamtopics.inference import parts
from streamtopics.inference.minibatch import Minibatch
from streamtopics.inference.presets import (ALPHA_UPDATES, GLOBAL_PARAMETERS, LOCAL_ESTIMATORS,
                                            PRESETS, STEP_SIZES, PartSettings, build_parts)

pytestmark = pytest.mark.usefixtures("one_thread")

SETTINGS = PartSettings(local_passes=4, corpus_size=50, topic_word_prior=0.1)


def test_the_toy_implementations_in_the_docstrings_run():
    result = doctest.testmod(parts, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 15 and result.failed == 0


@pytest.mark.parametrize("registry, protocol", [
    (LOCAL_ESTIMATORS, parts.LocalEstimator), (GLOBAL_PARAMETERS, parts.Parameterisation),
    (STEP_SIZES, parts.StepSize), (ALPHA_UPDATES, parts.AlphaUpdate)])
def test_every_registered_part_satisfies_its_protocol(registry, protocol):
    for name, factory in registry.items():
        assert isinstance(factory(SETTINGS), protocol), name


def test_local_runs_satisfy_their_protocol():
    batch = Minibatch.from_counts(np.array([[2, 0, 1], [0, 3, 1]]))
    for name, factory in LOCAL_ESTIMATORS.items():
        assert isinstance(factory(SETTINGS).begin(batch, 2, 0, 0), parts.LocalRun), name


def test_settings_from_a_mapping_are_the_typed_settings():
    assert PartSettings.of(SETTINGS.as_dict()) == SETTINGS
    assert PartSettings.of({"local_passes": 4, "unknown": 1}) == PartSettings(local_passes=4)
    with pytest.raises(AttributeError):
        SETTINGS.local_passes = 5  # frozen


def test_a_batch_step_runs_its_chunks_through_the_estep_map():
    """Any map that yields the chunks' results in order gives the serial map's model, bit for
    bit; the engine hands it every chunk."""
    rng = np.random.default_rng(0)
    counts = rng.poisson(1.0, size=(30, 12))
    chunks = [Minibatch.from_counts(counts[i:i + 10], first_document=i) for i in (0, 10, 20)]
    seen = []

    def recording_reversed_map(function, items):
        items = list(items)
        seen.extend(item.batch.first_document for item in items)
        yield from reversed([function(item) for item in reversed(items)])

    models = []
    for estep_map in (parts.serial_map, recording_reversed_map):
        built = build_parts(PRESETS["batch-vb"], SETTINGS)
        engine = OnlineEM(built.local, built.parameters, built.step_size, built.alpha_update,
                          seed=3, estep_map=estep_map)
        beta, alpha = initial_parameters(2, 12, np.random.default_rng(1))
        engine.initialize(beta, alpha, 6.0)
        engine.batch_step(chunks)
        models.append(engine.components())
    assert seen == [0, 10, 20]
    np.testing.assert_array_equal(models[0], models[1])
