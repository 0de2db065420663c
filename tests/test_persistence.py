"""Safe model files: round trip, atomicity, and one clear ModelFileError for every defect."""

import json
import zipfile

import numpy as np
import pytest

from streamtopics import persistence
from streamtopics.errors import ModelFileError


@pytest.fixture
def model_file(tmp_path):
    path = tmp_path / "model.npz"
    rng = np.random.default_rng(0)
    beta = rng.dirichlet(np.ones(7), size=3)
    arrays = {"beta": beta, "alpha": np.array([0.1, 0.2, 0.3]),
              "vocabulary": np.array([f"word{i}" for i in range(7)])}
    persistence.save_model(path, arrays, {"estimator": "Dummy", "parameters": {"k": 3}})
    return path, arrays


def test_round_trip_keeps_arrays_and_metadata(model_file):
    path, arrays = model_file
    loaded, metadata = persistence.load_model(path)
    assert set(loaded) == set(arrays)
    for name in arrays:
        np.testing.assert_array_equal(loaded[name], arrays[name])
    assert metadata["estimator"] == "Dummy" and metadata["parameters"] == {"k": 3}
    assert metadata["format_version"] == persistence.FORMAT_VERSION


def test_no_temporary_file_is_left_behind(model_file):
    path, _ = model_file
    assert [p.name for p in path.parent.iterdir()] == [path.name]


def test_failed_write_keeps_the_old_file(model_file):
    path, arrays = model_file
    before = path.read_bytes()
    with pytest.raises(ValueError):
        persistence.save_model(path, {"bad": np.array([object()], dtype=object)}, {})
    assert path.read_bytes() == before
    assert [p.name for p in path.parent.iterdir()] == [path.name]


@pytest.mark.parametrize("cut", [0, 10, 100, -20])
def test_truncated_file_is_rejected(model_file, cut):
    path, _ = model_file
    data = path.read_bytes()
    path.write_bytes(data[:cut] if cut >= 0 else data[:cut])
    with pytest.raises(ModelFileError, match=str(path.name)):
        persistence.load_model(path)


def test_flipped_bytes_are_rejected(model_file):
    path, _ = model_file
    data = bytearray(path.read_bytes())
    for position in range(60, len(data) - 60, 97):
        data[position] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(ModelFileError):
        persistence.load_model(path)


def _rewrite_metadata(path, change):
    with np.load(path, allow_pickle=False) as archive:
        arrays = {name: archive[name] for name in archive.files}
    metadata = json.loads(arrays["__metadata__"].tobytes())
    change(metadata, arrays)
    arrays["__metadata__"] = np.frombuffer(json.dumps(metadata).encode(), dtype=np.uint8)
    np.savez(path, **arrays)


def test_changed_array_fails_the_checksum(model_file):
    path, _ = model_file
    _rewrite_metadata(path, lambda metadata, arrays: arrays.__setitem__("alpha", arrays["alpha"] * 2))
    with pytest.raises(ModelFileError, match="checksum"):
        persistence.load_model(path)


def test_newer_format_version_is_rejected(model_file):
    path, _ = model_file
    _rewrite_metadata(path, lambda metadata, arrays: metadata.__setitem__("format_version", 99))
    with pytest.raises(ModelFileError, match="newer"):
        persistence.load_model(path)


def test_foreign_files_are_rejected(tmp_path):
    plain = tmp_path / "plain.npz"
    np.savez(plain, x=np.arange(3))
    text = tmp_path / "notes.txt"
    text.write_text("hello")
    pickled = tmp_path / "pickled.npz"
    np.savez(pickled, x=np.array([{"a": 1}], dtype=object))
    for path in (plain, text, pickled, tmp_path / "missing.npz"):
        with pytest.raises(ModelFileError):
            persistence.load_model(path)


def test_pickle_inside_a_model_file_is_never_loaded(model_file):
    path, _ = model_file
    with zipfile.ZipFile(path, "a") as archive:
        archive.writestr("evil.npy", b"\x93NUMPY\x01\x00v\x00{'descr': '|O', 'fortran_order': False, "
                         b"'shape': (1,), }" + b" " * 40 + b"\ncos\nsystem\n")
    with pytest.raises(ModelFileError):
        persistence.load_model(path)


def test_topic_parameters_from_a_plain_npz(tmp_path):
    path = tmp_path / "other_tool.npz"
    np.savez(path, beta=np.array([[2.0, 2.0], [1.0, 3.0]]), alpha=np.array([0.5, 0.5]))
    beta, alpha, vocabulary = persistence.load_topic_parameters(path)
    np.testing.assert_allclose(beta, [[0.5, 0.5], [0.25, 0.75]])
    assert vocabulary is None
    np.savez(path, beta=np.ones((2, 3)))
    with pytest.raises(ModelFileError, match="alpha"):
        persistence.load_topic_parameters(path)
