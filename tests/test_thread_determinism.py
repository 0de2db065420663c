"""Same seed, same model, whatever the number of threads (``n_jobs``, ``--threads``).

The alpha used here (K = 12, random) has sums that are not exact in floating point, so a
reduction whose rounding depends on how the work is split between threads (numba turns a
top-level ``array.sum()`` in a ``parallel=True`` kernel into such a reduction) would show.
"""

import json

import numba
import numpy as np
import pytest

from streamtopics import (CVB0LDA, GibbsLDA, LabeledCVB0LDA, LabeledLDA, LabeledOnlineLDA,
                          OnlineHDP, OnlineLDA, generate_synthetic, shuffle_split,
                          write_corpus_dir)
from streamtopics.cli.main import main
from streamtopics.corpus.synthetic import generate_labeled_synthetic
from streamtopics.kernels.local_gibbs import balanced_parts
from streamtopics.threads import resolve_n_jobs, using_threads
from streamtopics.validation import ParameterError

from helpers import numba_threads

ALPHA = np.random.default_rng(5).uniform(0.05, 0.3, size=12)


def _fit(method: str, threads: int, **options) -> np.ndarray:
    corpus, _ = generate_synthetic(12, 80, 1200, mean_length=30, alpha=ALPHA, seed=11)
    with numba_threads(threads):
        model = OnlineLDA(**{"n_topics": 12, "method": method, "batch_size": 100,
                             "local_passes": 6, "doc_topic_prior": ALPHA, "random_state": 3,
                             **options}).fit(corpus)
    return model.components_, model.doc_topic_prior_


@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="needs two numba threads")
@pytest.mark.parametrize("method, options", [
    ("g-oem", {}), ("v-oem", {}),
    ("g-oem", {"local_sampler": "sparse"}), ("g-oem++", {"local_sampler": "sparse"}),
    ("g-oem", {"local_sampler": "sparse", "batch_size": 300})])
def test_components_are_bit_identical_for_one_and_two_threads(method, options):
    beta_one, alpha_one = _fit(method, 1, **options)
    beta_two, alpha_two = _fit(method, 2, **options)
    assert np.array_equal(beta_one, beta_two)
    assert np.array_equal(alpha_one, alpha_two)


@pytest.mark.parametrize("n_parts", [0, 1, 2, 3, 7])
def test_balanced_parts_deal_every_document_once_longest_first(n_parts):
    lengths = np.random.default_rng(2).geometric(0.02, size=40)
    lengths[[3, 17]] = [5000, 0]
    ptr = np.concatenate([[0], np.cumsum(lengths)])
    part_ptr, documents = balanced_parts(ptr, n_parts)
    assert np.array_equal(np.sort(documents), np.arange(40))
    parts = [documents[part_ptr[p]:part_ptr[p + 1]] for p in range(part_ptr.size - 1)]
    assert all(np.all(np.diff(part) > 0) for part in parts)
    if n_parts < 1:
        assert len(parts) == 40
        return
    assert len(parts) == n_parts
    load = np.array([np.sum(lengths[part] + 8) for part in parts])
    # LPT: the longest document alone, or no part more than the lightest plus one document
    assert load.max() == 5008 or load.max() - load.min() <= lengths.max() + 8


TWO_THREADS = pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="needs two threads")

# Each estimator, made with a given n_jobs, and what it computes: (fit, then the outputs of its
# methods that run kernels).
TOPIC_MODELS = {
    "OnlineLDA": lambda n_jobs: OnlineLDA(6, batch_size=50, n_passes=2, random_state=1,
                                          n_jobs=n_jobs),
    "OnlineHDP": lambda n_jobs: OnlineHDP(max_topics=12, initial_topics=3, batch_size=50,
                                          random_state=1, n_jobs=n_jobs),
    "GibbsLDA": lambda n_jobs: GibbsLDA(6, n_passes=30, burn_in=20, lag=5, n_samples=2,
                                        random_state=1, n_jobs=n_jobs),
    "GibbsLDA AD-LDA": lambda n_jobs: GibbsLDA(6, n_passes=30, burn_in=20, lag=5, n_samples=2,
                                               parallel_blocks=2, random_state=1,
                                               n_jobs=n_jobs),
    "CVB0LDA": lambda n_jobs: CVB0LDA(6, n_passes=20, random_state=1, n_jobs=n_jobs),
}
LABEL_MODELS = {
    "LabeledLDA": lambda n_jobs: LabeledLDA(burn_in=10, lag=2, n_samples=2, random_state=1,
                                            n_jobs=n_jobs),
    "LabeledCVB0LDA": lambda n_jobs: LabeledCVB0LDA(n_passes=10, random_state=1, n_jobs=n_jobs),
    "LabeledOnlineLDA": lambda n_jobs: LabeledOnlineLDA(batch_size=50, random_state=1,
                                                        n_jobs=n_jobs),
}


def _topic_model_outputs(name: str, n_jobs) -> list[np.ndarray]:
    corpus, _ = generate_synthetic(6, 120, 420, mean_length=40, alpha=0.2, seed=4)
    model = TOPIC_MODELS[name](n_jobs).fit(corpus[:320])
    return [model.components_, model.transform(corpus[320:]),
            np.array([model.score(corpus[320:])])]


def _label_model_outputs(name: str, n_jobs) -> list[np.ndarray]:
    corpus, truth = generate_labeled_synthetic(n_labels=5, n_words=120, n_documents=360,
                                               mean_length=40, seed=4)
    model = LABEL_MODELS[name](n_jobs).fit(corpus[:300], truth.labels[:300])
    return [model.components_, model.predict_proba(corpus[300:])]


@TWO_THREADS
@pytest.mark.parametrize("name", sorted(TOPIC_MODELS))
def test_every_topic_model_computes_the_same_numbers_for_any_n_jobs(name):
    one = _topic_model_outputs(name, None)
    for n_jobs in (2, -1):
        for a, b in zip(one, _topic_model_outputs(name, n_jobs)):
            assert np.array_equal(a, b)


@TWO_THREADS
@pytest.mark.parametrize("name", sorted(LABEL_MODELS))
def test_every_label_model_computes_the_same_numbers_for_any_n_jobs(name):
    one = _label_model_outputs(name, 1)
    for a, b in zip(one, _label_model_outputs(name, 2)):
        assert np.array_equal(a, b)


@TWO_THREADS
def test_n_jobs_sets_the_threads_the_kernels_run_on_and_none_means_one():
    """Inside `fit`, numba runs on the threads ``n_jobs`` means, whatever numba's own setting;
    None is one thread, or the count of an enclosing `using_threads` block."""
    corpus, _ = generate_synthetic(4, 60, 200, mean_length=20, seed=2)
    seen = []
    record = lambda model, report: seen.append(numba.get_num_threads())  # noqa: E731
    for n_jobs in (None, 2, -1):
        OnlineLDA(4, batch_size=100, n_passes=1, n_jobs=n_jobs).fit(corpus, callback=record)
    with using_threads(2):
        OnlineLDA(4, batch_size=100, n_passes=1).fit(corpus, callback=record)
    cores = numba.config.NUMBA_NUM_THREADS
    assert seen == [1, 1, 2, 2, cores, cores, 2, 2]


def test_n_jobs_follows_scikit_learn_and_refuses_zero():
    cores = numba.config.NUMBA_NUM_THREADS
    assert [resolve_n_jobs(n) for n in (None, 1, -1, 10 * cores)] == [1, 1, cores, cores]
    assert resolve_n_jobs(-2) == max(cores - 1, 1)
    for bad in (0, 1.5, True, "2"):
        with pytest.raises(ParameterError, match="OnlineLDA: n_jobs"):
            OnlineLDA(3, n_jobs=bad).fit(np.ones((4, 5), dtype=int))


@TWO_THREADS
def test_every_command_gives_the_same_output_for_any_threads(tmp_path, capsys):
    """``--threads`` on fit, transform and evaluate: the same files and the same scores."""
    corpus, _ = generate_synthetic(5, 80, 300, mean_length=30, seed=3)
    train, test = shuffle_split(corpus, 0.2, seed=0)
    write_corpus_dir(train, tmp_path / "corpus", "train")
    write_corpus_dir(test, tmp_path / "corpus", "test")
    outputs = []
    for threads in ("1", "2"):
        model, topics = tmp_path / f"{threads}.model", tmp_path / f"{threads}.csv"
        assert main(["fit", str(tmp_path / "corpus"), "-k", "5", "--seed", "0", "--threads",
                     threads, "-o", str(model)]) == 0
        assert main(["transform", str(model), str(tmp_path / "corpus"), "--threads", threads,
                     "-o", str(topics)]) == 0
        capsys.readouterr()
        assert main(["evaluate", str(model), str(tmp_path / "corpus"), "--json",
                     "--threads", threads]) == 0
        scores = json.loads(capsys.readouterr().out)
        scores.pop("model")
        outputs.append((np.load(model)["beta"], topics.read_text(), scores))
    assert np.array_equal(outputs[0][0], outputs[1][0])
    assert outputs[0][1:] == outputs[1][1:]


@pytest.mark.parametrize("environment, expected", [
    ({}, "3000"), ({"GOMP_SPINCOUNT": "50"}, "50"), ({"OMP_WAIT_POLICY": "PASSIVE"}, None)])
def test_the_package_shortens_openmp_spins_unless_the_user_set_them(environment, expected):
    """Before numba loads OpenMP, the import sets ``GOMP_SPINCOUNT`` to `threads.SPIN_COUNT`,
    leaving a user's own spin count or wait policy alone."""
    import os
    import subprocess
    import sys
    clean = {key: value for key, value in os.environ.items()
             if key not in ("GOMP_SPINCOUNT", "OMP_WAIT_POLICY")}
    shown = subprocess.run(
        [sys.executable, "-c", "import os, streamtopics; print(os.environ.get('GOMP_SPINCOUNT'))"],
        env={**clean, **environment}, capture_output=True, text=True, check=True).stdout.strip()
    assert shown == str(expected)
