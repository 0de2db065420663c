"""The E-step on Dask: the same model for the same seed, on any backend, worker count
and chunking; chunks carry only their own words' weights."""

import json
import os
import signal
import sys

import numpy as np
import pytest
import scipy.sparse as sp

from streamtopics.cli.main import main
from streamtopics.corpus.synthetic import generate_synthetic
from streamtopics.corpus.writer import write_corpus_dir
from streamtopics.estimators import OnlineLDA
from streamtopics.inference.backends import (DaskBackend, SerialBackend, ThreadBackend,
                                             plan_chunks, plan_placement)
from streamtopics.inference.estep_chunks import (BLOCK_DOCUMENTS, ChunkTask, chunk_bounds,
                                                run_chunk, tree_merge)
from streamtopics.inference.minibatch import Minibatch
from streamtopics.inference.stats import MinibatchStats
from streamtopics.persistence import load_model
from streamtopics.checkpoint import read_checkpoint
from streamtopics.training import train_stream

from helpers import Interrupted, stop_at

distributed = pytest.importorskip("distributed")

pytestmark = pytest.mark.usefixtures("one_thread")

BATCH = 4 * BLOCK_DOCUMENTS + 37  # five blocks, the last one short


@pytest.fixture(scope="module")
def corpus():
    corpus, _ = generate_synthetic(n_topics=3, n_words=40, n_documents=2 * BATCH,
                                   mean_length=12, seed=16)
    return corpus


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=":0") as local, \
            distributed.Client(local) as client:
        yield client


def _fit(corpus, backend, method="g-oem"):
    model = OnlineLDA(3, method=method, batch_size=BATCH, local_passes=4, n_passes=2,
                      random_state=5, backend=backend)
    return model.fit(corpus)


def _assert_same_model(model, reference):
    np.testing.assert_array_equal(model.components_, reference.components_)
    np.testing.assert_array_equal(model.doc_topic_prior_, reference.doc_topic_prior_)


@pytest.mark.parametrize("method", ["g-oem", "v-oem"])
def test_a_local_cluster_of_two_workers_trains_the_serial_model_bit_for_bit(corpus, cluster,
                                                                           method):
    serial = _fit(corpus, "serial", method)
    backend = DaskBackend(cluster)
    _assert_same_model(_fit(corpus, backend, method), serial)
    assert backend.transfer.steps == 4 and backend.transfer.chunks >= 4 * 2
    # merged on the workers: the client receives one minibatch's statistics per step
    assert backend.transfer.received <= 4 * (corpus.n_words * (3 + 1) * 8 + 3 * 8)
    _assert_same_model(_fit(corpus, cluster, method), serial)  # a Client as the backend


def test_each_worker_runs_its_share_of_consecutive_chunks(corpus, cluster):
    """The chunks of a step are spread by `plan_placement`: a minibatch of five blocks is five
    chunks on two one-thread workers, three on one and two on the other, each step (Dask
    alone put most of them beside the shared weights)."""
    backend = DaskBackend(cluster)
    with distributed.get_task_stream(client=cluster) as stream:
        _fit(corpus, backend)
    ran = {}
    for task in stream.data:
        if task["key"].startswith("run_with_shared"):
            ran[task["worker"]] = ran.get(task["worker"], 0) + 1
    assert backend.transfer.steps == 4 and backend.transfer.chunks == 4 * 5
    assert sorted(ran.values()) == [4 * 2, 4 * 3]


def test_placement_gives_consecutive_chunks_by_threads():
    assert plan_placement({"b": 1, "a": 1}, 4) == ["a", "a", "b", "b"]
    assert plan_placement({"a": 2, "b": 1}, 6) == ["a"] * 4 + ["b"] * 2
    assert plan_placement({"a": 1, "b": 1, "c": 1}, 4) == ["a", "a", "b", "c"]
    assert plan_placement({"a": 1, "b": 1}, 1) == ["a"]
    assert plan_placement({"a": 1, "b": 3}, 3) == ["a", "b", "b"]


def test_any_chunking_and_worker_count_gives_the_same_model(corpus, cluster):
    reference = _fit(corpus, "serial")
    for backend in (SerialBackend(chunk_documents=BLOCK_DOCUMENTS),
                    SerialBackend(chunk_documents=2 * BLOCK_DOCUMENTS),
                    ThreadBackend(workers=3, chunk_documents=BLOCK_DOCUMENTS),
                    DaskBackend(cluster, chunk_documents=4 * BLOCK_DOCUMENTS)):
        _assert_same_model(_fit(corpus, backend), reference)


def test_the_chunks_of_a_step_share_the_weights_of_the_minibatch_words_only(corpus):
    """What a step ships: each chunk's documents, and one U x K array of word weights (the
    minibatch's words) that all its chunks share, never the K x V topics."""
    sent = []

    class Recording(SerialBackend):
        def __call__(self, function, chunks):
            chunks = list(chunks)
            sent.extend(chunks)
            return super().__call__(function, chunks)

    _fit(corpus, Recording(chunk_documents=BLOCK_DOCUMENTS))
    assert len(sent) == 4 * 5
    for step in range(4):
        tasks = sent[5 * step:5 * step + 5]
        assert len({id(task.weights) for task in tasks}) == 1
        for task in tasks:
            assert task.weights.shape == (task.weight_words.size, 3)
            assert np.isin(task.batch.words, task.weight_words).all()
            assert task.batch.n_documents <= BLOCK_DOCUMENTS
            light, (weights, words) = task.without_shared()
            assert light.weights is None and weights is task.weights
            # 40 words, short documents: one byte per word id and per count
            assert light.batch.entry_word.dtype == light.batch.entry_count.dtype == np.uint8
            assert light.nbytes < task.nbytes - weights.nbytes
    assert min(task.weight_words.size for task in sent) < corpus.n_words


def test_split_minibatch_keeps_entries_words_and_random_streams():
    counts = sp.random(30, 25, density=0.3, format="csr", random_state=1,
                       data_rvs=lambda n: np.arange(1, n + 1))
    whole = Minibatch.from_counts(counts, first_document=7)
    part = whole.documents(10, 21)
    expected = Minibatch.from_counts(counts[10:21], first_document=17)
    for name in ("doc_ptr", "entry_word", "entry_count", "token_ptr", "words"):
        np.testing.assert_array_equal(getattr(part, name), getattr(expected, name))
    assert part.first_document == 17


def _recursive_tree(items):
    """The fixed tree by its definition: the first 2^j items (2^j the largest power of two
    below their number) and the rest, each recursively."""
    if len(items) == 1:
        return items[0]
    split = 1 << ((len(items) - 1).bit_length() - 1)
    return (_recursive_tree(items[:split]), _recursive_tree(items[split:]))


@pytest.mark.parametrize("n_items", range(1, 40))
def test_streaming_tree_merge_builds_the_fixed_tree(n_items):
    """`tree_merge` consumes its items one by one (merging complete subtrees as they finish)
    yet builds exactly the tree of the definition, for every length."""
    items = list(range(n_items))
    assert tree_merge(iter(items), lambda left, right: (left, right)) == _recursive_tree(items)


def test_aligned_runs_merged_separately_give_the_tree_sum_bit_for_bit():
    """Chunks of 2^m blocks are subtrees of the fixed tree: merging each, then the chunks, is
    the whole tree's sum; a plain left-to-right sum is not (floats are not associative)."""
    rng = np.random.default_rng(3)
    blocks = []
    for _ in range(11):
        words = np.sort(rng.choice(50, size=20, replace=False))
        blocks.append(MinibatchStats(words, rng.random((20, 4)) * 10 ** rng.uniform(-8, 8),
                                     rng.normal(size=4), 10, 50))
    whole = tree_merge(blocks)
    for size in (1, 2, 4, 8, 16):
        chunks = [tree_merge(blocks[i:i + size]) for i in range(0, len(blocks), size)]
        merged = tree_merge(chunks)
        np.testing.assert_array_equal(merged.words, whole.words)
        np.testing.assert_array_equal(merged.word_topic, whole.word_topic)
        np.testing.assert_array_equal(merged.log_theta, whole.log_theta)
    left_to_right = blocks[0]
    for block in blocks[1:]:
        left_to_right = left_to_right.merge(block)
    assert not np.array_equal(left_to_right.word_topic, whole.word_topic)


@pytest.mark.parametrize("n_documents", [2 * BLOCK_DOCUMENTS, 3 * BLOCK_DOCUMENTS - 1,
                                         7 * BLOCK_DOCUMENTS + 5, 11 * BLOCK_DOCUMENTS,
                                         17 * BLOCK_DOCUMENTS + 3])
@pytest.mark.parametrize("options", [{"sampler": "sparse"}, {"sampler": "dense"},
                                     {"sampler": "sparse", "last_sample": True}, "masked"])
def test_one_gibbs_run_over_the_blocks_gives_the_sums_of_a_run_per_block(n_documents, options):
    """`GibbsRun.block_statistics` (what `run_chunk` does for Gibbs estimators) against the
    plain way: a local run per block, the blocks' statistics merged along the tree."""
    from streamtopics.inference.gibbs_estep import GibbsEstimator
    from streamtopics.inference.topic_mask import TopicMask
    rng = np.random.default_rng(n_documents)
    lengths = rng.geometric(0.05, size=n_documents)
    counts = sp.csr_matrix((np.ones(lengths.sum()), (np.repeat(np.arange(n_documents), lengths),
                                                   rng.zipf(1.3, lengths.sum()) % 300)),
                           shape=(n_documents, 300))
    counts.sum_duplicates()
    mask = None
    if options == "masked":
        mask = TopicMask.from_indicator(rng.random((n_documents, 40)) < 0.3)
        options = {"sampler": "sparse"}
    batch = Minibatch.from_counts(counts, first_document=3, topic_mask=mask)
    local = GibbsEstimator(passes=6, **options)
    weights = rng.dirichlet(np.full(40, 0.3), size=batch.words.size)
    weights[::17] = 0.0  # words no topic has seen
    alpha = rng.uniform(0.05, 0.5, size=40)
    blocks = []
    for start in range(0, n_documents, BLOCK_DOCUMENTS):
        block = batch.documents(start, min(start + BLOCK_DOCUMENTS, n_documents))
        run = local.begin(block, 40, 9, 4)
        run.advance(weights[np.searchsorted(batch.words, block.words)], alpha, 6)
        blocks.append(run.statistics())
    expected = tree_merge(blocks)
    chunked = run_chunk(ChunkTask(local, batch, weights, alpha, 40, 9, 4))
    np.testing.assert_array_equal(chunked.words, expected.words)
    np.testing.assert_array_equal(chunked.word_topic, expected.word_topic)
    np.testing.assert_array_equal(chunked.log_theta, expected.log_theta)
    assert chunked.n_documents == expected.n_documents == n_documents


def test_chunks_are_aligned_runs_of_a_power_of_two_blocks():
    assert chunk_bounds(250, 1) == [(0, 250)]
    assert chunk_bounds(1000, 3) == [(0, 400), (400, 800), (800, 1000)]
    assert chunk_bounds(1000, 4) == [(0, 200), (200, 400), (400, 600), (600, 800), (800, 1000)]
    with pytest.raises(ValueError, match="power of two"):
        _fit_chunked(300)


def _fit_chunked(chunk_documents):
    corpus, _ = generate_synthetic(n_topics=2, n_words=10, n_documents=BATCH, seed=1)
    return _fit(corpus, SerialBackend(chunk_documents=chunk_documents))


def test_a_boosted_method_refuses_a_parallel_backend(corpus):
    with pytest.raises(ValueError, match="boosted"):
        _fit(corpus, ThreadBackend(workers=2), method="g-oem++")



def test_hdp_minibatches_are_not_split():
    """HDP's local step shares the topics it opens across the minibatch: its minibatch is one
    chunk of one block, whatever the backend asks, i.e. one local run."""
    from streamtopics.inference.hdp_estep import HDPGibbsEstimator
    corpus, _ = generate_synthetic(n_topics=3, n_words=30, n_documents=BATCH, seed=2)
    local, batch = HDPGibbsEstimator(passes=4, max_topics=8), Minibatch.from_counts(corpus.counts)
    assert plan_chunks(BATCH, SerialBackend(chunk_documents=BLOCK_DOCUMENTS), local) == \
        [(0, BATCH)]
    weights = np.random.default_rng(0).dirichlet(np.ones(3), size=batch.words.size)
    alpha = np.full(3, 0.5)
    direct = local.begin(batch, 3, 1, 0)
    direct.advance(weights, alpha, 4)
    expected, chunked = direct.statistics(), run_chunk(ChunkTask(local, batch, weights, alpha, 3, 1, 0))
    assert chunked.n_topics == expected.n_topics
    np.testing.assert_array_equal(chunked.word_topic, expected.word_topic)
    np.testing.assert_array_equal(chunked.log_theta, expected.log_theta)


# --- streams, checkpoints and a worker killed mid-step ------------------------------------------
def _dies_once(function, marker):
    """``function`` run by a worker process that kills itself (SIGKILL) the first time any
    worker starts a chunk of the second step: a worker lost mid-step, whatever the timing."""
    def run(task):
        if task.step == 1 and not os.path.exists(marker):
            open(marker, "w").close()
            os.kill(os.getpid(), signal.SIGKILL)
        return function(task)
    return run


class DyingWorkerBackend(DaskBackend):
    """A Dask backend whose second step loses the worker that starts it."""

    marker = ""

    def map_reduce(self, function, chunks, merge):
        return super().map_reduce(_dies_once(function, self.marker), chunks, merge)


@pytest.fixture(scope="module")
def process_cluster():
    """Two worker processes of one thread each, under nannies (which restart a killed one)."""
    cloudpickle = pytest.importorskip("cloudpickle")
    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # workers cannot import tests/
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=":0") as local, \
            distributed.Client(local) as client:
        yield client


def test_a_stream_with_checkpoints_resumes_on_dask_and_survives_a_killed_worker(
        tmp_path, corpus, process_cluster):
    """train_stream over a docword file on two worker processes, interrupted after the first
    checkpoint and resumed; during the resumed run a worker is SIGKILLed mid-step, Dask reruns
    its chunk elsewhere, and the model is the serial stream's, bit for bit."""
    path = write_corpus_dir(corpus, tmp_path / "corpus") / "train.docword.txt"
    # V-OEM: its kernels load from numba's cache in a fresh worker process (the Gibbs sweep
    # recompiles there, seconds per worker); the Gibbs E-step is covered above
    settings = dict(n_topics=3, method="v-oem", batch_size=BATCH, local_passes=4, n_passes=1,
                    random_state=5)
    reference = OnlineLDA(**settings)
    train_stream(reference, path)
    checkpoint = tmp_path / "run.ckpt"
    with pytest.raises(Interrupted):
        train_stream(OnlineLDA(**settings, backend=process_cluster), path,
                     checkpoint=checkpoint, checkpoint_every=BATCH, progress=stop_at(BATCH))
    assert read_checkpoint(checkpoint)[0].position.documents_total == BATCH
    dying = DyingWorkerBackend(process_cluster)
    dying.marker = str(tmp_path / "killed")
    pids = set(process_cluster.run(os.getpid).values())
    resumed = OnlineLDA(**settings, backend=dying)
    result = train_stream(resumed, path, checkpoint=checkpoint, checkpoint_every=BATCH,
                          resume=True)
    assert result.resumed_from.documents_total == BATCH and os.path.exists(dying.marker)
    assert _wait_for_workers(process_cluster, 2) - pids  # a new worker process replaced the dead one
    _assert_same_model(resumed, reference)


def _wait_for_workers(client, n, timeout=30.0):
    client.wait_for_workers(n, timeout=timeout)
    return set(client.run(os.getpid).values())


# --- the command line ---------------------------------------------------------------------------
def _cli_fit(capsys, corpus_dir, output, *options):
    capsys.readouterr()
    assert main(["fit", str(corpus_dir), "-k", "3", "--batch-size", str(BATCH),
                 "--local-passes", "4", "--passes", "1", "--seed", "5", "-o", str(output),
                 "--json", *options]) == 0
    return json.loads(capsys.readouterr().out)


def test_cli_fit_on_a_scheduler_and_on_local_workers_writes_the_serial_model(
        tmp_path, corpus, cluster, capsys):
    """``--backend dask --scheduler ADDRESS`` (a running cluster) and ``--backend dask
    --workers 2`` (a LocalCluster of two processes) write the serial command's model file."""
    folder = tmp_path / "corpus"
    write_corpus_dir(corpus, folder)
    for method, options in (("g-oem", ["--scheduler", cluster.scheduler.address]),
                            ("v-oem", ["--workers", "2"])):
        serial = _cli_fit(capsys, folder, tmp_path / "serial.npz", "--method", method)
        on_dask = _cli_fit(capsys, folder, tmp_path / "dask.npz", "--method", method,
                           "--backend", "dask", *options)
        assert serial["backend"] == "serial" and on_dask["backend"]["workers"] == 2
        assert on_dask["backend"]["bytes_sent_per_step"] > 0
        assert load_model(tmp_path / "serial.npz")[0]["beta"].tobytes() == \
            load_model(tmp_path / "dask.npz")[0]["beta"].tobytes()


def test_cli_backend_options_that_do_not_go_together(tmp_path, capsys):
    for options, message in ((["--scheduler", "tcp://x:1"], "needs --backend dask"),
                             (["--workers", "2"], "needs --backend dask or threads"),
                             (["--method", "cvb0", "--backend", "threads"], "do not split")):
        assert main(["fit", str(tmp_path), "-k", "3", "-o", str(tmp_path / "m.npz"),
                     *options]) != 0
        assert message in capsys.readouterr().err
