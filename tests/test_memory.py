"""Limits said before they are hit: the memory estimates against the arrays they count, the
refusal and the warning of `memory.check_memory` in the estimators and at the CLI, the
warnings on a K out of proportion with the data, MemoryError at the CLI boundary (one line,
exit 2, no output file) and the reader of the available memory."""

import gc
import tracemalloc
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from streamtopics import CVB0LDA, GibbsLDA, OnlineLDA, memory, persistence
from streamtopics.atomic import AtomicFile
from streamtopics.cli.main import main
from streamtopics.corpus import write_corpus_dir
from streamtopics.corpus.synthetic import generate_synthetic
from streamtopics.errors import (InputError, MemoryWarning, ResourceError, StreamtopicsError,
                                 TopicCountWarning)
from streamtopics.evaluation import left_to_right
from streamtopics.inference.presets import PRESETS

MIB = 2 ** 20
# Small corpora under many topics, on purpose, in the tests of the estimates.
MANY_TOPICS = pytest.mark.filterwarnings("ignore::streamtopics.errors.TopicCountWarning")


@pytest.fixture(scope="module")
def wide():
    """120 documents over 1,000 words: a vocabulary wide enough for K x V arrays to dominate."""
    corpus, _ = generate_synthetic(n_topics=5, n_words=1000, n_documents=120, mean_length=30,
                                   seed=2)
    return corpus


def traced_peak(run) -> int:
    """The peak bytes allocated while ``run()`` runs (`tracemalloc`: every NumPy array)."""
    gc.collect()
    tracemalloc.start()
    try:
        run()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def recorded_estimates(monkeypatch) -> list:
    """The estimates the estimators check, recorded instead of checked."""
    estimates = []
    monkeypatch.setattr(memory, "check_memory", lambda estimate, available=None:
                        estimates.append(estimate))
    return estimates


# --- the estimates ---------------------------------------------------------------------------
def test_largest_minibatch_is_counted_exactly():
    counts = sp.csr_matrix(np.array([[1, 0, 2, 0], [0, 0, 0, 0], [3, 1, 1, 1], [0, 5, 0, 0],
                                     [1, 1, 0, 0]]))
    # blocks of 2 documents: {0, 1}: 2 entries, 3 tokens; {2, 3}: 5 entries, 11; {4}: 2, 2
    assert memory.Minibatches.largest(counts, 2) == memory.Minibatches(2, 5, 11)
    assert memory.Minibatches.largest(counts, 10) == memory.Minibatches(5, 9, 16)
    assert memory.Minibatches.largest(counts[1:2], 1) == memory.Minibatches(1, 0, 0)
    trailing = sp.vstack([counts, sp.csr_matrix((3, 4), dtype=np.int64)]).tocsr()  # empty last
    assert memory.Minibatches.largest(trailing, 2) == memory.Minibatches(2, 5, 11)


def test_a_start_dominated_fit_is_three_topic_word_arrays():
    """beta_0, its transposed temporary and s_0 (four with lambda_0 of Bayesian topics), when
    the minibatch's arrays are smaller than them."""
    batch = memory.Minibatches(documents=10, entries=50, tokens=80)
    for method, count in (("g-oem", 3), ("v-oem", 3), ("olda", 4), ("batch-vb", 4)):
        estimate = memory.online_training(1000, 5000, batch, PRESETS[method])
        assert estimate.nbytes == count * 1000 * 5000 * 8, method


@MANY_TOPICS
@pytest.mark.parametrize("method", ["g-oem", "g-oem++", "v-oem", "olda"])
def test_online_fit_estimate_against_its_arrays(wide, monkeypatch, method):
    """On a model whose K x V arrays dominate, the estimate is within [0.8, 1.5] of the peak
    of the arrays the fit allocates."""
    def fit():
        OnlineLDA(n_topics=200, method=method, n_passes=1, local_passes=4,
                  random_state=0).fit(wide)
    fit()  # compiled before the measurement
    estimates = recorded_estimates(monkeypatch)
    peak = traced_peak(fit)
    assert 0.8 <= estimates[0].nbytes / peak <= 1.5, (estimates[0], peak)


@MANY_TOPICS
def test_collapsed_gibbs_estimate_against_its_arrays(wide, monkeypatch):
    def fit():
        GibbsLDA(n_topics=200, n_passes=3, burn_in=1, lag=1, n_samples=2,
                 random_state=0).fit(wide)
    fit()
    estimates = recorded_estimates(monkeypatch)
    peak = traced_peak(fit)
    assert 0.8 <= estimates[0].nbytes / peak <= 1.5, (estimates[0], peak)


@MANY_TOPICS
def test_transform_estimate_against_its_arrays(monkeypatch, one_thread):
    training, _ = generate_synthetic(n_topics=3, n_words=20, n_documents=30, seed=0)
    documents, _ = generate_synthetic(n_topics=3, n_words=20, n_documents=400, mean_length=5,
                                      seed=1)
    model = OnlineLDA(n_topics=2000, n_passes=1, local_passes=2, random_state=0).fit(training)
    model.transform(documents[:2])
    estimates = recorded_estimates(monkeypatch)
    peak = traced_peak(lambda: model.transform(documents))
    assert 0.8 <= estimates[0].nbytes / peak <= 1.5, (estimates[0], peak)


# --- the check -------------------------------------------------------------------------------
def estimate_of(nbytes: int) -> memory.MemoryEstimate:
    return memory.MemoryEstimate("the test", (memory.Allocation("arrays", (nbytes // 8,)),))


def test_refuses_past_the_available_memory_and_warns_past_half():
    estimate = estimate_of(100 * MIB)
    with pytest.raises(ResourceError, match=r"the test would allocate about 0.0977 GiB .* but "
                                            r"0.0488 GiB of memory is available: use ") as error:
        memory.check_memory(estimate, available=50 * MIB)
    assert isinstance(error.value, MemoryError) and isinstance(error.value, StreamtopicsError)
    with pytest.warns(MemoryWarning, match="more than 50% of the 0.146 GiB"):
        memory.check_memory(estimate, available=150 * MIB)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        memory.check_memory(estimate, available=1024 * MIB)
        memory.check_memory(estimate_of(memory.UNCHECKED_BELOW - 8), available=MIB)


@pytest.mark.parametrize("value, limit", [("8G", 8 * 2 ** 30), ("512 MiB", 512 * MIB),
                                          ("1.5g", int(1.5 * 2 ** 30)), ("1000", 1000),
                                          ("off", 0)])
def test_the_limit_variable(monkeypatch, value, limit):
    monkeypatch.setenv(memory.LIMIT_VARIABLE, value)
    assert memory.memory_limit() == limit


def test_the_limit_variable_refuses_nonsense(monkeypatch):
    monkeypatch.setenv(memory.LIMIT_VARIABLE, "lots")
    with pytest.raises(InputError, match="STREAMTOPICS_MEMORY_LIMIT='lots'"):
        memory.memory_limit()


def test_off_checks_nothing(monkeypatch):
    monkeypatch.setenv(memory.LIMIT_VARIABLE, "off")
    memory.check_memory(estimate_of(2 ** 50))


@pytest.mark.parametrize("call", [
    lambda corpus: OnlineLDA(n_topics=100_000, n_passes=1).fit(corpus),
    lambda corpus: OnlineLDA(n_topics=100_000).partial_fit(corpus[:10]),
    lambda corpus: GibbsLDA(n_topics=100_000, n_passes=1).fit(corpus),
    lambda corpus: CVB0LDA(n_topics=100_000, n_passes=1).fit(corpus),
], ids=["OnlineLDA.fit", "OnlineLDA.partial_fit", "GibbsLDA.fit", "CVB0LDA.fit"])
def test_the_estimators_refuse_before_allocating(wide, monkeypatch, call):
    """K x V = 100,000 x 1,000 float64 is 0.75 GiB, several times over: refused under a
    limit of 1 GiB (the K > V warning comes first)."""
    monkeypatch.setenv(memory.LIMIT_VARIABLE, "1G")
    with pytest.raises(ResourceError, match=r"would allocate about \d.* but 1 GiB of memory "
                                            r"is available: use fewer topics"), \
            warnings.catch_warnings():
        warnings.simplefilter("ignore", TopicCountWarning)
        call(wide)


def test_evaluation_refuses_before_copying_the_topics(wide, monkeypatch):
    """Left-to-right copies beta word-major (10,000 x 1,000 float64: 76 MiB)."""
    monkeypatch.setenv(memory.LIMIT_VARIABLE, "50M")
    with pytest.raises(ResourceError, match=r"left-to-right evaluation of 120 documents under "
                                            r"10,000 topics would allocate about 0.0\d+ GiB \(the largest "
                                            r"part: word-major topics \(V x K\)"):
        left_to_right(np.full((10_000, 1000), 1e-3), 0.1, wide)


@MANY_TOPICS
def test_transform_refuses_too_many_documents_at_once(monkeypatch):
    corpus, _ = generate_synthetic(n_topics=3, n_words=20, n_documents=30, seed=0)
    model = OnlineLDA(n_topics=20, n_passes=1, local_passes=2, random_state=0).fit(corpus)
    many = sp.csr_matrix((1_000_000, 20), dtype=np.int64)  # D x K: 0.149 GiB
    monkeypatch.setenv(memory.LIMIT_VARIABLE, "100M")
    with pytest.raises(ResourceError, match="OnlineLDA.transform of 1,000,000 documents would "
                                            "allocate .* or fewer documents per call"):
        model.transform(many)


# --- K out of proportion with the data ---------------------------------------------------------
def test_more_topics_than_words_warns_at_the_users_line(small):
    with pytest.warns(TopicCountWarning, match="OnlineLDA: 41 topics for a vocabulary of 40 "
                                               "words") as caught:
        OnlineLDA(n_topics=41, n_passes=1, local_passes=2, random_state=0).fit(small)
    assert caught[0].filename == __file__


def test_more_topics_than_half_the_documents_warns(small):
    with pytest.warns(TopicCountWarning, match="CVB0LDA: 30 topics for 50 documents"):
        CVB0LDA(n_topics=30, n_passes=2, random_state=0).fit(small[:50])


def test_a_sensible_k_does_not_warn(small):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        OnlineLDA(n_topics=10, n_passes=1, local_passes=2, random_state=0).fit(small)
        GibbsLDA(n_topics=10, n_passes=2, burn_in=0, lag=1, n_samples=1).fit(small)


# --- the CLI -----------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def corpus_dir(tmp_path_factory, wide):
    return write_corpus_dir(wide, tmp_path_factory.mktemp("wide"))


def error_lines(err: str) -> list[str]:
    assert "Traceback" not in err
    return [line for line in err.splitlines() if ": error:" in line]


@pytest.mark.filterwarnings("default::streamtopics.errors.TopicCountWarning")
def test_fit_k_100000_is_refused_in_one_line(tmp_path, capsys, monkeypatch, corpus_dir):
    monkeypatch.setenv(memory.LIMIT_VARIABLE, "1G")
    output = tmp_path / "model.stm"
    assert main(["fit", str(corpus_dir), "-k", "100000", "-o", str(output)]) == 2
    err = capsys.readouterr().err
    (line,) = error_lines(err)
    assert line.startswith("streamtopics fit: error: OnlineLDA (g-oem) with 100,000 topics and "
                           "1,000 words would allocate about ")
    assert "GiB" in line and "but 1 GiB of memory is available" in line
    assert ("streamtopics fit: warning: OnlineLDA: 100,000 topics for a vocabulary of 1,000 "
            "words") in err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.filterwarnings("default::streamtopics.errors.TopicCountWarning")
def test_fit_k_above_the_vocabulary_warns_in_one_line(tmp_path, capsys, corpus_dir):
    output = tmp_path / "model.stm"
    assert main(["fit", str(corpus_dir), "-k", "1001", "--passes", "1", "--local-passes", "1",
                 "-o", str(output)]) == 0
    err = capsys.readouterr().err
    (line,) = [line for line in err.splitlines() if "vocabulary" in line]
    assert line == ("streamtopics fit: warning: OnlineLDA: 1,001 topics for a vocabulary of "
                    "1,000 words: more topics than words; use fewer topics")
    assert output.exists()


def test_a_memory_error_in_training_is_one_line(tmp_path, capsys, monkeypatch, corpus_dir):
    def fail(*args, **kwargs):
        raise MemoryError("Unable to allocate 7.45 GiB for an array with shape (100000, 10000) "
                          "and data type float64")
    monkeypatch.setattr(OnlineLDA, "fit", fail)
    assert main(["fit", str(corpus_dir), "-k", "5", "-o", str(tmp_path / "model.stm")]) == 2
    (line,) = error_lines(capsys.readouterr().err)
    assert line == ("streamtopics fit: error: out of memory: Unable to allocate 7.45 GiB for an "
                    "array with shape (100000, 10000) and data type float64 (use fewer topics, "
                    "a smaller vocabulary or fewer documents at once)")
    assert list(tmp_path.iterdir()) == []


def test_a_memory_error_while_writing_leaves_no_file(tmp_path, capsys, monkeypatch, corpus_dir):
    """The model file is half written when the allocation fails: nothing is left, neither the
    file nor its temporary."""
    def half_then_fail(handle, **arrays):
        handle.write(b"PK\x03\x04 half a model file")
        raise MemoryError()
    monkeypatch.setattr(np, "savez_compressed", half_then_fail)
    assert main(["fit", str(corpus_dir), "-k", "5", "--passes", "1", "--local-passes", "1",
                 "-o", str(tmp_path / "model.stm")]) == 2
    (line,) = error_lines(capsys.readouterr().err)
    assert line.startswith("streamtopics fit: error: out of memory: an allocation failed")
    assert list(tmp_path.iterdir()) == []


def test_a_model_too_large_to_load_is_not_called_damaged(tmp_path, monkeypatch, small):
    path = tmp_path / "model.stm"
    OnlineLDA(n_topics=3, n_passes=1, local_passes=2, random_state=0).fit(small).save(path)

    def fail(*args, **kwargs):
        raise MemoryError("Unable to allocate 80 GiB")
    monkeypatch.setattr(np.lib.format, "read_array", fail)
    with pytest.raises(MemoryError, match="Unable to allocate 80 GiB"):
        persistence.load_model(path)


@pytest.mark.parametrize("failing", ["fsync", "replace"])
def test_an_atomic_file_that_fails_to_commit_leaves_nothing(tmp_path, monkeypatch, failing):
    def fail(*args):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(f"streamtopics.atomic.os.{failing}", fail)
    with pytest.raises(OSError, match="No space left"):
        with AtomicFile(tmp_path / "out.bin") as handle:
            handle.write(b"data")
    assert list(tmp_path.iterdir()) == []


# --- the memory available ----------------------------------------------------------------------
MEMINFO = """MemTotal:       24608396 kB
MemFree:        19901240 kB
MemAvailable:   23333108 kB
Buffers:          190200 kB
"""


def test_meminfo_available_reads_kilobytes():
    assert memory.meminfo_available(MEMINFO) == 23333108 * 1024
    assert memory.meminfo_available("MemTotal: 1 kB\n") is None


def fake_system(tmp_path, cgroups: str, files: dict[str, str]):
    (tmp_path / "meminfo").write_text(MEMINFO)
    (tmp_path / "cgroup").write_text(cgroups)
    for name, text in files.items():
        path = tmp_path / "sys" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return dict(meminfo=tmp_path / "meminfo", cgroups=tmp_path / "cgroup",
                cgroup_root=tmp_path / "sys")


def test_a_lower_cgroup_v2_limit_wins_along_the_path(tmp_path):
    paths = fake_system(tmp_path, "0::/jobs/mine\n", {
        "jobs/mine/memory.max": "max\n", "jobs/mine/memory.current": "1000\n",
        "jobs/memory.max": "4294967296\n", "jobs/memory.current": "1073741824\n"})
    assert memory.available_memory(**paths) == 3 * 2 ** 30


def test_an_unlimited_cgroup_v1_leaves_meminfo(tmp_path):
    paths = fake_system(tmp_path, "4:memory:/job\n3:cpu:/job\n", {
        "memory/job/memory.limit_in_bytes": "9223372036854771712\n",
        "memory/job/memory.usage_in_bytes": "3452928\n"})
    assert memory.available_memory(**paths) == 23333108 * 1024


def test_a_cgroup_v1_limit_below_meminfo(tmp_path):
    paths = fake_system(tmp_path, "4:memory:/job\n", {
        "memory/memory.limit_in_bytes": "9223372036854771712\n",
        "memory/memory.usage_in_bytes": "5\n",
        "memory/job/memory.limit_in_bytes": "2147483648\n",
        "memory/job/memory.usage_in_bytes": "1073741824\n"})
    assert memory.available_memory(**paths) == 2 ** 30


def test_without_proc_the_free_pages(tmp_path, monkeypatch):
    monkeypatch.setattr(memory.os, "sysconf", {"SC_AVPHYS_PAGES": 1000,
                                               "SC_PAGE_SIZE": 4096}.__getitem__)
    assert memory.available_memory(meminfo=tmp_path / "none", cgroups=tmp_path / "none") == \
        4096 * 1000



# A process that imports the package and frees a 64 MB array: the MB it still holds of it.
KEPT_AFTER_FREE = """
import numpy as np
import streamtopics

def resident_mb():
    with open("/proc/self/status") as status:
        line = next(line for line in status if line.startswith("VmRSS:"))
    return int(line.split()[1]) / 1024

before = resident_mb()
np.ones(2 ** 23)  # allocated, written and freed
print(resident_mb() - before)
"""


def kept_after_free(**variables) -> float:
    import os
    import subprocess
    import sys
    env = {name: value for name, value in os.environ.items() if not name.startswith("MALLOC_")}
    env.update(variables, PYTHONPATH=os.pathsep.join(sys.path))
    done = subprocess.run([sys.executable, "-c", KEPT_AFTER_FREE], env=env, check=True,
                          capture_output=True, text=True)
    return float(done.stdout.split()[-1])


@pytest.mark.skipif(__import__("platform").libc_ver()[0] != "glibc"
                    or not __import__("os").path.exists("/proc/self/status"),
                    reason="glibc's allocator, Linux's /proc")
def test_freed_arrays_stay_for_the_next_unless_the_user_sets_the_allocator():
    # Imported, the package keeps the freed memory for the next arrays (no new pages); with the
    # user's own glibc setting (its default threshold, here) it is left alone, and the array's
    # pages go back to the system when it is freed.
    assert kept_after_free() > 48
    assert kept_after_free(MALLOC_MMAP_THRESHOLD_="131072") < 16
