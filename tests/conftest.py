import sys
from pathlib import Path

import pytest

# Make tests/naive.py and tests/helpers.py importable from every test module.
sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture
def one_thread():
    """Run single-threaded (fast on a shared machine); thread tests set their own count with
    `helpers.numba_threads`."""
    from helpers import numba_threads
    with numba_threads(1):
        yield


@pytest.fixture(scope="module")
def small():
    """A small synthetic corpus: 3 topics, 40 words, 250 documents of ~20 tokens. (Modules
    that need another size define their own ``small``, which overrides this one.)"""
    from streamtopics.corpus.synthetic import generate_synthetic

    corpus, _ = generate_synthetic(n_topics=3, n_words=40, n_documents=250, mean_length=20, seed=1)
    return corpus


@pytest.fixture(scope="session")
def planted():
    """A synthetic corpus with 4 planted topics over 100 words, and its truth."""
    from streamtopics.corpus.synthetic import generate_synthetic

    return generate_synthetic(n_topics=4, n_words=100, n_documents=2000, alpha=0.1,
                              topic_concentration=0.05, seed=0)
