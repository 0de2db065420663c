import sys
from pathlib import Path

import numba
import pytest

# Make tests/naive.py and tests/helpers.py importable from every test module.
sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture
def one_thread():
    """Run single-threaded (fast on a shared machine); thread tests set their own count."""
    before = numba.get_num_threads()
    numba.set_num_threads(1)
    yield
    numba.set_num_threads(before)


@pytest.fixture(scope="session")
def planted():
    """A synthetic corpus with 4 planted topics over 100 words, and its truth."""
    from streamtopics.corpus.synthetic import generate_synthetic

    return generate_synthetic(n_topics=4, n_words=100, n_documents=2000, alpha=0.1,
                              topic_concentration=0.05, seed=0)
