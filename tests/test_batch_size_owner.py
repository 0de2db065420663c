"""``batch_size`` has one owner, the model: `train_stream` trains at the size the model saves,
the full-batch chunk is not a model parameter, s_0 is sized by the first minibatch."""

import numpy as np
import pytest

from streamtopics.corpus.synthetic import generate_synthetic
from streamtopics.corpus.writer import write_corpus_dir
from streamtopics.estimators import OnlineLDA
from streamtopics.estimators.online_lda import FULL_BATCH_CHUNK
from streamtopics.persistence import load_model
from streamtopics.training import train_stream

pytestmark = pytest.mark.usefixtures("one_thread")


@pytest.fixture(scope="module")
def docword(tmp_path_factory):
    corpus, _ = generate_synthetic(n_topics=3, n_words=30, n_documents=120, mean_length=12, seed=3)
    return write_corpus_dir(corpus, tmp_path_factory.mktemp("owner")) / "train.docword.txt"


def _model(batch_size):
    return OnlineLDA(3, batch_size=batch_size, local_passes=3, n_passes=1, random_state=1)


def test_train_stream_trains_at_the_batch_size_the_model_saves(docword, tmp_path):
    """The model owns its batch size: `train_stream` takes no other, trains at the model's and
    the model file says what was trained."""
    model = _model(40)
    result = train_stream(model, docword)
    assert result.steps == 3 and model.n_steps_ == 3
    model.save(tmp_path / "model.npz")
    _, metadata = load_model(tmp_path / "model.npz")
    assert metadata["parameters"]["batch_size"] == 40
    with pytest.raises(TypeError, match="unexpected keyword argument 'batch_size'"):
        train_stream(_model(100), docword, batch_size=40)


def test_the_model_batch_size_sizes_the_stream(docword):
    model = _model(50)
    assert train_stream(model, docword).steps == 3  # 50 + 50 + 20 documents


def test_the_full_batch_chunk_is_not_the_batch_size(docword):
    """batch-vb has no minibatch: its E-step chunks are `FULL_BATCH_CHUNK` documents whatever
    ``batch_size`` says, so ``batch_size`` cannot change a full-batch model."""
    from streamtopics.corpus.readers import read_uci
    corpus = read_uci(docword)
    fits = [OnlineLDA(3, method="batch-vb", batch_size=size, local_passes=3, n_passes=2,
                      random_state=1).fit(corpus).components_ for size in (7, FULL_BATCH_CHUNK)]
    np.testing.assert_array_equal(fits[0], fits[1])
