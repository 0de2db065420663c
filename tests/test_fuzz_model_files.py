"""Hostile model files, fuzzed: `load_model`, `load_topic_parameters` and the
estimators' ``load`` either return the model that was saved (or, for a crafted file, a valid one)
or raise `ModelFileError` naming the file. Never another exception, a hang, a NaN in beta or
alpha, or an allocation sized by a forged ``.npy`` header.

Targets and budget, examples per target (derandomized, no example database; `fuzz_settings` and
`time_limit` come from test_fuzz_readers): random bytes 100, truncated model files 100,
corrupted model files (byte flips, deleted, duplicated or inserted byte ranges, numbers in the
uncompressed headers replaced by huge or negative ones) 250, crafted archives (well-formed zip
and checksum, arrays and metadata drawn from hostile values: empty, NaN, infinite, negative,
all-zero topics, wrong shapes and dtypes, huge JSON numbers, deep nesting) 200, crafted ``.npy``
headers (shapes up to 2^62 elements, zero-size and object dtypes, unknown versions) 150, each
checked with tracemalloc: 800 in all, about 10 s on 2 cores. Dedicated tests check with
tracemalloc that headers claiming 10^9 to 10^24 elements, or a zip member claiming 2 GiB,
allocate nothing.
"""

from __future__ import annotations

import io
import json
import re
import struct
import tracemalloc
import zipfile

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from test_fuzz_readers import MUTATIONS, fuzz_settings, mutate, time_limit

from streamtopics import persistence
from streamtopics.errors import ModelFileError
from streamtopics.estimators import CVB0LDA, GibbsLDA, load_estimator

pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")  # overflow, NaN: a failure

BETA = np.array([[0.5, 0.25, 0.25], [0.1, 0.2, 0.7]])
ALPHA = np.array([0.1, 0.3])
VOCABULARY = np.array(["apple", "naïve", "日本"])


def fitted(estimator_class):
    """An estimator with a known fitted state, made without fitting (no sampler compilation)."""
    model = estimator_class(n_topics=2, doc_topic_prior=0.2, topic_word_prior=0.01,
                            random_state=3)
    model.components_, model.doc_topic_prior_, model.vocabulary_ = BETA, ALPHA, VOCABULARY
    model.topic_word_prior_, model.n_iter_ = 0.01, 7
    if estimator_class is GibbsLDA:
        model.topic_word_counts_ = np.array([[5, 1, 2], [0, 3, 9]])
        model.topic_word_standard_ = BETA
        model.log_likelihood_, model.chain_log_likelihoods_ = -12.5, [-12.5]
        model.random_seed_ = 11
    return model


@pytest.fixture(scope="module")
def saved(tmp_path_factory) -> dict[str, bytes]:
    """The bytes of valid model files: each estimator's (compressed, as `save` writes them) and
    an uncompressed copy, whose JSON and .npy headers byte-level corruption hits directly."""
    directory = tmp_path_factory.mktemp("models")
    files = {}
    for estimator_class in (GibbsLDA, CVB0LDA):
        path = directory / f"{estimator_class.__name__}.npz"
        fitted(estimator_class).save(path)
        files[estimator_class.__name__] = path.read_bytes()
    with np.load(directory / "GibbsLDA.npz") as archive:
        members = {name: archive[name] for name in archive.files}
    np.savez(directory / "plain.npz", **members)
    files["GibbsLDA uncompressed"] = (directory / "plain.npz").read_bytes()
    return files


LOADERS = {"GibbsLDA": GibbsLDA.load, "CVB0LDA": CVB0LDA.load,
           "GibbsLDA uncompressed": load_estimator}


def load_all_or_reject(path, estimator_load):
    """Load ``path`` three ways; each must give the saved model or `ModelFileError` naming it."""
    for load in (persistence.load_model, persistence.load_topic_parameters, estimator_load):
        with time_limit():
            try:
                result = load(path)
            except ModelFileError as error:
                assert str(path) in str(error), f"the message does not name {path}: {error}"
                continue
        if load is persistence.load_model:
            np.testing.assert_array_equal(result[0]["beta"], BETA)
        elif load is persistence.load_topic_parameters:
            np.testing.assert_allclose(result[0], BETA)
            np.testing.assert_array_equal(result[2], VOCABULARY)
        else:
            np.testing.assert_array_equal(result.components_, BETA)
            np.testing.assert_array_equal(result.doc_topic_prior_, ALPHA)


# --- byte-level damage ---------------------------------------------------------------------------
@fuzz_settings(100)
@given(data=st.binary(max_size=2000) | st.sampled_from([b"PK\x05\x06" + b"\x00" * 18,
                                                        b"\x93NUMPY\x01\x00"]).map(lambda b: b * 3))
def test_random_bytes(tmp_path, data):
    path = tmp_path / "random.npz"
    path.write_bytes(data)
    load_all_or_reject(path, GibbsLDA.load)


@fuzz_settings(100)
@given(which=st.sampled_from(sorted(LOADERS)), fraction=st.floats(0, 1, exclude_max=True))
def test_truncated_model_files(tmp_path, saved, which, fraction):
    path = tmp_path / "truncated.npz"
    data = saved[which]
    path.write_bytes(data[:int(fraction * len(data))])
    with time_limit(), pytest.raises(ModelFileError, match=str(path.name)):
        persistence.load_model(path)
    load_all_or_reject(path, LOADERS[which])


RANGE_DAMAGE = st.lists(st.one_of(
    st.tuples(st.just("delete"), st.integers(0, 2**16), st.integers(1, 64)),
    st.tuples(st.just("duplicate"), st.integers(0, 2**16), st.integers(1, 64)),
), max_size=2)


def damage_ranges(data: bytes, damage) -> bytes:
    for kind, position, length in damage:
        at = position % (len(data) + 1)
        piece = data[at:at + length]
        data = data[:at] + data[at + length:] if kind == "delete" else data[:at] + piece + data[at:]
    return data


@fuzz_settings(250)
@given(which=st.sampled_from(sorted(LOADERS)), mutations=MUTATIONS, damage=RANGE_DAMAGE)
def test_corrupted_model_files(tmp_path, saved, which, mutations, damage):
    path = tmp_path / "corrupted.npz"
    path.write_bytes(damage_ranges(mutate(saved[which], mutations), damage))
    load_all_or_reject(path, LOADERS[which])


# --- crafted archives: well-formed zip and checksum, hostile content ------------------------------
NUMBERS = st.floats(allow_nan=True, allow_infinity=True) | st.sampled_from([0.0, -1.0, 1e308, 5e-324])
REAL_DTYPES = st.sampled_from(["<f8", "<f4", ">f8", "<i8", "|u1"])


@st.composite
def hostile_arrays(draw) -> dict[str, np.ndarray]:
    """beta, alpha, vocabulary and a method array with hostile shapes, dtypes and values."""
    n_topics, n_words = draw(st.integers(0, 3)), draw(st.integers(0, 4))
    beta_shape = draw(st.sampled_from([(n_topics, n_words), (n_words,), (n_topics, n_words, 1)]))
    beta_dtype = draw(REAL_DTYPES | st.sampled_from(["<c16", "|b1", "<U3", "|S2", "<m8"]))
    elements = NUMBERS if beta_dtype in ("<f8", ">f8") else None  # else hypothesis' defaults
    arrays = {"beta": draw(hnp.arrays(beta_dtype, beta_shape, elements=elements))}
    alpha_shape = draw(st.sampled_from([(n_topics,), (n_topics + 1,), (), (n_topics, 1)]))
    arrays["alpha"] = draw(hnp.arrays("<f8", alpha_shape, elements=NUMBERS))
    vocabulary = draw(st.sampled_from(["words", "short", "numbers", "none", "2-d"]))
    if vocabulary != "none":
        size = n_words - (vocabulary == "short")
        arrays["vocabulary"] = {
            "words": np.array([f"w{i}" for i in range(n_words)], dtype="<U8"),
            "short": np.array([f"w{i}" for i in range(max(size, 0))], dtype="<U8"),
            "numbers": np.arange(n_words),
            "2-d": np.array([[f"w{i}" for i in range(n_words)]], dtype="<U8"),
        }[vocabulary]
    if draw(st.booleans()):
        arrays["topic_word_counts"] = draw(hnp.arrays("<i8", (n_topics, n_words)))
    if draw(st.booleans()):
        del arrays[draw(st.sampled_from(sorted(arrays)))]
    return arrays


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children,
                                                                      max_size=3),
    max_leaves=8)
PARAMETER_NAMES = ["n_topics", "doc_topic_prior", "topic_word_prior", "n_passes", "random_state",
                   "estimator", "bogus"]


HOSTILE_METADATA = st.fixed_dictionaries({
    "estimator": st.sampled_from(["GibbsLDA", "CVB0LDA", "OnlineLDA", None, 3]),
    "parameters": st.dictionaries(st.sampled_from(PARAMETER_NAMES), JSON_VALUES, max_size=3)
    | JSON_VALUES,
    "fitted": st.dictionaries(st.sampled_from(["n_iter", "topic_word_prior", "other"]),
                              JSON_VALUES, max_size=3) | JSON_VALUES,
})
HOSTILE_ENVELOPE = st.fixed_dictionaries({  # None: the right format, version and checksum
    "format": st.sampled_from([persistence.FORMAT_NAME, "other", 7]),
    "format_version": st.sampled_from([1, 0, -1, 2, True, "1", 1.0, None]),
    "checksum": st.sampled_from(["0" * 64, None]),
})


def write_archive(path, members: dict[str, bytes], compress: bool = True) -> None:
    """A zip of raw members (valid CRCs), as `np.savez` lays it out."""
    method = zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED
    with zipfile.ZipFile(path, "w", compression=method) as archive:
        for name, data in members.items():
            archive.writestr(name, data)


def npy_bytes(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, array, allow_pickle=False)
    return buffer.getvalue()


def check_topic_parameters(beta, alpha, vocabulary) -> None:
    assert beta.dtype == np.float64 and beta.ndim == 2 and beta.size > 0
    assert np.isfinite(beta).all() and (beta >= 0).all()
    np.testing.assert_allclose(beta.sum(axis=1), 1.0)
    assert alpha.shape == beta.shape[:1] and np.isfinite(alpha).all() and (alpha > 0).all()
    assert vocabulary is None or (vocabulary.dtype.kind == "U" and vocabulary.shape == beta.shape[1:])


@fuzz_settings(200)
@given(arrays=hostile_arrays(), metadata=st.none() | HOSTILE_METADATA,
       envelope=st.none() | HOSTILE_ENVELOPE,
       metadata_text=st.none() | st.sampled_from([b"", b"\xff\xfe", b"[" * 100_000,
                                                  b'{"x": 1' + b"0" * 5000 + b"}", b"null"]),
       compress=st.booleans())
def test_crafted_archives(tmp_path, arrays, metadata, envelope, metadata_text, compress):
    """No metadata: a plain .npz from another tool (load_topic_parameters accepts it if beta
    and alpha are sound); with metadata, every check of load_model must hold, and the
    estimators' loaders must give a model or `ModelFileError`."""
    members = {name + ".npy": npy_bytes(array) for name, array in arrays.items()}
    if metadata is not None:
        metadata.update(envelope or {"format": persistence.FORMAT_NAME, "format_version": 1,
                                     "checksum": persistence._checksum(arrays)})
        text = json.dumps(metadata).encode() if metadata_text is None else metadata_text
        members["__metadata__.npy"] = npy_bytes(np.frombuffer(text, dtype=np.uint8))
    path = tmp_path / "crafted.npz"
    write_archive(path, members, compress)
    with time_limit():
        try:
            loaded, header = persistence.load_model(path)
        except ModelFileError as error:
            assert str(path) in str(error)
        else:
            assert isinstance(header, dict) and header["format_version"] == 1
            assert set(loaded) == set(arrays)
            for name, array in arrays.items():
                np.testing.assert_array_equal(loaded[name], array)
        try:
            parameters = persistence.load_topic_parameters(path)
        except ModelFileError as error:
            assert str(path) in str(error)
        else:
            check_topic_parameters(*parameters)
        for load in (load_estimator, GibbsLDA.load, CVB0LDA.load):  # a model or ModelFileError
            try:
                load(path)
            except ModelFileError as error:
                assert str(path) in str(error)


# --- forged .npy headers -------------------------------------------------------------------------
HUGE_SHAPES = [(10**9,), (10**12,), (2**31, 2**31), (10**6, 10**6), (2**62,), (-1,), (-3, -5),
               (10**24,)]


def npy_header(descr: str, shape: tuple, fortran: bool = False, version: bytes = b"\x01\x00") -> bytes:
    """A hand-written .npy header (magic, version, length, dict), padded as NumPy does."""
    text = f"{{'descr': {descr!r}, 'fortran_order': {fortran}, 'shape': {shape}, }}".encode()
    length_format = "<H" if version == b"\x01\x00" else "<I"
    prefix = 6 + 2 + struct.calcsize(length_format)
    text += b" " * (-(prefix + len(text) + 1) % 64) + b"\n"
    return b"\x93NUMPY" + version + struct.pack(length_format, len(text)) + text


@fuzz_settings(150)
@given(descr=st.sampled_from(["<f8", "<i4", "|u1", "<U0", "|S0", "|V0", "|O", "<U5", ">f4"]),
       shape=st.sampled_from(HUGE_SHAPES) | st.lists(st.integers(0, 6), max_size=3).map(tuple),
       fortran=st.booleans(), version=st.sampled_from([b"\x01\x00", b"\x02\x00", b"\x03\x00",
                                                        b"\x09\x00"]),
       data_bytes=st.integers(0, 256), as_model=st.booleans(), compress=st.booleans())
def test_forged_npy_headers(tmp_path, descr, shape, fortran, version, data_bytes, as_model,
                            compress):
    """A beta whose header says anything: refused or read as exactly what the bytes hold, and
    never an allocation beyond the data (tracemalloc)."""
    beta = npy_header(descr, shape, fortran, version) + bytes(range(256))[:data_bytes]
    members = {"beta.npy": beta, "alpha.npy": npy_bytes(np.ones(2))}
    if as_model:
        members["__metadata__.npy"] = npy_bytes(np.frombuffer(b"{}", dtype=np.uint8))
    path = tmp_path / "forged.npz"
    write_archive(path, members, compress)
    tracemalloc.start()
    try:
        with time_limit():
            for load in (persistence.load_model, persistence.load_topic_parameters):
                try:
                    result = load(path)
                except ModelFileError as error:
                    assert str(path) in str(error)
                else:  # only a plain archive whose header tells the truth
                    assert not as_model
                    check_topic_parameters(*result)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 * 2**20, f"{peak / 2**20:.0f} MiB allocated for a {len(beta)}-byte array"


def zip_claiming(path, member: str, data: bytes, claimed_size: int) -> None:
    """A stored zip member whose central directory claims ``claimed_size`` uncompressed bytes."""
    write_archive(path, {member: data}, compress=False)
    raw = bytearray(path.read_bytes())
    entry = raw.index(b"PK\x01\x02")
    raw[entry + 24:entry + 28] = struct.pack("<I", claimed_size)
    path.write_bytes(bytes(raw))


FORGED_SIZES = [("header", (10**9,)), ("header", (10**12,)), ("header", (10**6, 10**6)),
                ("header", (2**62,)), ("zip directory", (2**28,))]


@pytest.mark.parametrize("claim, shape", FORGED_SIZES, ids=[f"{c} {s}" for c, s in FORGED_SIZES])
def test_forged_sizes_allocate_nothing(tmp_path, claim, shape):
    """Before the guard, NumPy allocated the header's shape (8 GB for 10^9 float64) up front.
    "zip directory": the zip's directory also claims the 2 GiB the header describes."""
    path = tmp_path / "forged.npz"
    header = npy_header("<f8", shape)
    if claim == "header":
        write_archive(path, {"beta.npy": header + b"\x00" * 64})
    else:
        zip_claiming(path, "beta.npy", header + b"\x00" * 64, len(header) + 8 * shape[0])
    tracemalloc.start()
    try:
        with time_limit(), pytest.raises(ModelFileError, match="forged.npz"):
            persistence.load_topic_parameters(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 * 2**20, f"{peak / 2**20:.0f} MiB allocated"


# --- bugs the fuzzing found ----------------------------------------------------------------------
PLAIN_REGRESSIONS = [
    # load_topic_parameters divided an all-zero topic by its zero sum: NaN in beta.
    ("zero topic", {"beta": np.array([[0.0, 0.0], [1.0, 1.0]]), "alpha": np.ones(2)}, "all zeros"),
    # ... took the minimum of an empty beta: ValueError.
    ("empty beta", {"beta": np.zeros((0, 3)), "alpha": np.zeros(0)}, "K x V (K, V >= 1)"),
    # ... converted a string beta to float: ValueError.
    ("string beta", {"beta": np.array([["a"]]), "alpha": np.ones(1)}, "real numbers"),
    # ... returned a vocabulary of the wrong length.
    ("short vocabulary", {"beta": np.ones((1, 3)), "alpha": np.ones(1),
                          "vocabulary": np.array(["a", "b"])}, "V = 3 strings"),
    # ... summed 1e308 + 1e308 to infinity, making beta all zeros: now read correctly.
    ("huge beta", {"beta": np.array([[1e308, 1e308]]), "alpha": np.ones(1)}, None),
]


@pytest.mark.parametrize("name, arrays, message", PLAIN_REGRESSIONS,
                         ids=[r[0] for r in PLAIN_REGRESSIONS])
def test_topic_parameter_regressions(tmp_path, name, arrays, message):
    path = tmp_path / "other_tool.npz"
    np.savez(path, **arrays)
    if message is None:
        beta, alpha, vocabulary = persistence.load_topic_parameters(path)
        check_topic_parameters(beta, alpha, vocabulary)
        np.testing.assert_allclose(beta, arrays["beta"] / arrays["beta"].max() / 2)
    else:
        with pytest.raises(ModelFileError, match=re.escape(message)):
            persistence.load_topic_parameters(path)


@pytest.mark.parametrize("metadata_text", [b'{"x": 1' + b"0" * 5000 + b"}", b"[" * 100_000],
                         ids=["5000-digit number", "deep nesting"])
def test_metadata_regressions(tmp_path, metadata_text):
    """json.loads raised ValueError (more than 4300 digits) and RecursionError through load_model."""
    path = tmp_path / "model.npz"
    write_archive(path, {"beta.npy": npy_bytes(BETA),
                         "__metadata__.npy": npy_bytes(np.frombuffer(metadata_text, np.uint8))})
    with pytest.raises(ModelFileError, match="corrupted metadata"):
        persistence.load_model(path)


def test_member_that_is_not_an_array(tmp_path):
    """np.load hands back a non-.npy member as bytes: load_model raised AttributeError."""
    path = tmp_path / "model.npz"
    write_archive(path, {"__metadata__": b'{"format": "streamtopics-model"}'})
    with pytest.raises(ModelFileError, match="not an array"):
        persistence.load_model(path)


def test_a_corrupted_model_is_not_read_as_a_plain_archive(tmp_path):
    """A model file that fails load_model's checks (here its alpha does not match its checksum)
    is refused by load_topic_parameters too, never read as a plain .npz archive."""
    path = tmp_path / "model.npz"
    persistence.save_model(path, {"beta": BETA, "alpha": ALPHA}, {})
    with np.load(path) as archive:
        members = {name: archive[name] for name in archive.files}
    members["alpha"] = ALPHA * 2
    np.savez(path, **members)
    with pytest.raises(ModelFileError, match="checksum"):
        persistence.load_topic_parameters(path)


def _estimator_file(path, arrays: dict, **metadata) -> None:
    """A CVB0LDA model file with a valid checksum holding ``arrays``."""
    persistence.save_model(path, arrays, {"estimator": "CVB0LDA", "parameters": {"n_topics": 2},
                                          "fitted": {"topic_word_prior": 0.01, "n_iter": 1},
                                          **metadata})


SOUND = {"beta": BETA, "alpha": ALPHA, "vocabulary": VOCABULARY}
ESTIMATOR_FILES_REFUSED = [  # the estimators' load raised KeyError and TypeError (fixed in base.py)
    ("no beta", {"alpha": ALPHA, "vocabulary": VOCABULARY}, {}),
    ("unknown parameter", SOUND, {"parameters": {"bogus": 1}}),
    ("no fitted state", SOUND, {"fitted": {}}),
    ("fitted state not an object", SOUND, {"fitted": [1, 2]}),
]
INCONSISTENT_ESTIMATOR_FILES = [  # open: base.py does not check the arrays it restores
    ("NaN beta", {**SOUND, "beta": BETA * np.nan}, {}),
    ("alpha of K + 1 entries", {**SOUND, "alpha": np.ones(3)}, {}),
    ("vocabulary of V - 1 words", {**SOUND, "vocabulary": VOCABULARY[:2]}, {}),
]


@pytest.mark.parametrize("name, arrays, metadata", ESTIMATOR_FILES_REFUSED,
                         ids=[b[0] for b in ESTIMATOR_FILES_REFUSED])
def test_estimator_load_refuses_incomplete_model_files(tmp_path, name, arrays, metadata):
    path = tmp_path / "model.npz"
    _estimator_file(path, arrays, **metadata)
    for load in (CVB0LDA.load, load_estimator):
        with pytest.raises(ModelFileError, match="model.npz"):
            load(path)


@pytest.mark.parametrize("name, arrays, metadata", INCONSISTENT_ESTIMATOR_FILES,
                         ids=[b[0] for b in INCONSISTENT_ESTIMATOR_FILES])
def test_estimator_load_refuses_inconsistent_model_files(tmp_path, name, arrays, metadata):
    path = tmp_path / "model.npz"
    _estimator_file(path, arrays, **metadata)
    with pytest.raises(ModelFileError, match="model.npz"):
        CVB0LDA.load(path)
