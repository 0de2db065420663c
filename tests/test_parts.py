"""The engine's part protocols (`inference.parts`): their toy implementations run (doctests),
every registered part satisfies its protocol, a batch step's E-step map is pluggable, and an
optional capability is declared, told when lacking and refused when malformed."""

import doctest
import logging

import numpy as np
import pytest

from streamtopics.engine import OnlineEM, initial_parameters
from streamtopics.inference import parts
from streamtopics.inference.alpha_updates import Fixed
from streamtopics.inference.backends import plan_chunks
from streamtopics.inference.estep_chunks import ChunkTask, run_chunk
from streamtopics.inference.global_parameters import PointEstimate
from streamtopics.inference.minibatch import Minibatch
from streamtopics.inference.presets import (ALPHA_UPDATES, GLOBAL_PARAMETERS, LOCAL_ESTIMATORS,
                                            PRESETS, STEP_SIZES, PartSettings, build_parts)
from streamtopics.inference.step_sizes import Constant
from streamtopics.inference.stats import MinibatchStats

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


# --- optional capabilities: declared, told when lacking, refused when malformed ----------------
def _topic_zero(batch):
    """Statistics putting every token on topic 0 (of 2)."""
    rows = batch.word_totals(np.outer(batch.entry_count, [1.0, 0.0]))
    return MinibatchStats(batch.words, rows, np.zeros(2), batch.n_documents, batch.n_words)


class _TopicZeroRun:
    def __init__(self, batch):
        self.batch, self.asked = batch, []

    def advance(self, weights, alpha, n_passes):
        pass

    def statistics(self):
        self.asked.append("statistics")
        return _topic_zero(self.batch)

    def doc_topic(self):
        return np.tile([1.0, 0.0], (self.batch.n_documents, 1))


class _BlocksRun(_TopicZeroRun):
    def block_statistics(self, size, tree):
        b = self.batch
        return tree([_topic_zero(b.documents(start, min(start + size, b.n_documents)))
                     for start in range(0, b.n_documents, size)])


class _PlainEstimator:
    """A local step written from `LocalEstimator` alone."""
    passes = 2
    run_class = _TopicZeroRun

    def __init__(self):
        self.runs = []

    def begin(self, batch, n_topics, seed, minibatch_index):
        self.runs.append(self.run_class(batch))
        return self.runs[-1]


class _BlocksEstimator(_PlainEstimator):
    runs_blocks_at_once = True
    run_class = _BlocksRun


def _chunk(local, n_documents=250):
    batch = Minibatch.from_counts(np.random.default_rng(0).poisson(1.0, (n_documents, 7)))
    return run_chunk(ChunkTask(local, batch, np.ones((batch.words.size, 2)), np.ones(2), 2, 0, 1))


def test_a_local_step_without_a_capability_runs_the_fallback_and_is_told_once(caplog):
    """Without `RunsBlocks` a chunk of 250 documents runs a run per block (100, 100, 50), and the
    log says so once per process; declaring it (runs that are `BlockStatistics`) runs one run,
    with the same sums."""
    plain, blocks = _PlainEstimator(), _BlocksEstimator()
    assert not isinstance(plain, parts.RunsBlocks) and isinstance(blocks, parts.RunsBlocks)
    with caplog.at_level(logging.INFO, logger="streamtopics.inference.parts"):
        by_block = _chunk(plain)
        _chunk(plain)
    told = [record.getMessage() for record in caplog.records]
    assert len(told) == 1 and "_PlainEstimator is not a RunsBlocks" in told[0]
    assert "a run per block of 100 documents" in told[0]
    assert [run.batch.n_documents for run in plain.runs] == [100, 100, 50] * 2
    at_once = _chunk(blocks)
    assert [run.batch.n_documents for run in blocks.runs] == [250]
    np.testing.assert_array_equal(at_once.words, by_block.words)
    np.testing.assert_array_equal(at_once.word_topic, by_block.word_topic)


def test_a_boosted_step_without_word_statistics_blends_statistics_and_is_told(caplog):
    engine = OnlineEM(_PlainEstimator(), PointEstimate(0.0), Constant(1.0), Fixed(),
                      boosted=True)
    engine.initialize(np.full((2, 7), 1.0 / 7), np.ones(2), 3.0)
    with caplog.at_level(logging.INFO, logger="streamtopics.inference.parts"):
        engine.partial_fit(Minibatch.from_counts(np.ones((3, 7), dtype=int)))
    assert engine.local.runs[0].asked == ["statistics", "statistics"]
    assert any("_TopicZeroRun is not a WordStatistics" in record.getMessage()
               for record in caplog.records)


def test_a_part_that_claims_a_capability_malformed_is_refused():
    """Declarations that are not what their protocol says fail when the engine is made (or
    given the map), naming the declaration; a run lacking what its estimator declares fails at
    its first chunk."""
    def engine(local, **options):
        return OnlineEM(local, PointEstimate(0.0), Constant(1.0), Fixed(), **options)

    class SaysYes(_PlainEstimator):
        runs_blocks_at_once = "yes"

    class Coupled(_PlainEstimator):
        independent_documents = 0

    class NoBegin:
        passes = 1

    for local, match in ((SaysYes(), "runs_blocks_at_once = 'yes'"),
                         (Coupled(), "independent_documents = 0"), (NoBegin(), "lacks begin")):
        with pytest.raises(TypeError, match=match):
            engine(local)

    class BlocksWithoutRuns(_PlainEstimator):
        runs_blocks_at_once = True

    engine(BlocksWithoutRuns())  # the run is not known before the first chunk
    with pytest.raises(TypeError, match="has no block_statistics"):
        _chunk(BlocksWithoutRuns())

    class Backend:
        workers = 2

        def __init__(self, chunk_documents):
            self.chunk_documents = chunk_documents

        def __call__(self, function, chunks):
            return map(function, chunks)

    made = engine(_PlainEstimator())
    for chunk_documents, error in (("100", TypeError), (True, TypeError), (0, ValueError)):
        with pytest.raises(error, match="chunk_documents"):
            made.estep_map = Backend(chunk_documents)
    with pytest.raises(TypeError, match="not an EStepMap"):
        engine(_PlainEstimator(), estep_map=[])
    made.estep_map = Backend(200)
    assert plan_chunks(450, made.estep_map, made.local) == [(0, 200), (200, 400), (400, 450)]
