"""CGS_p estimators from a MALLET ``--output-state`` file (Papanikolaou et al. 2017, section 5.7)."""

import gzip

import numpy as np
import pytest

import naive
from streamtopics import InputError
from streamtopics.estimators.gibbs_lda import GibbsLDA
from streamtopics.inference.mallet_state import estimate_from_mallet_state, read_mallet_state

HEADER = "#doc source pos typeindex type topic\n#alpha : 0.1 0.3 0.2\n#beta : 0.05\n"
# (doc, word index, word, topic); document 1 is empty and absent, as MALLET writes it.
TOKENS = [(0, 0, "apple", 2), (0, 1, "pear", 0), (0, 0, "apple", 2), (0, 3, "plum", 1),
          (2, 1, "pear", 0), (2, 2, "fig", 1), (2, 3, "plum", 1), (3, 2, "fig", 0)]


def write_state(path, tokens=TOKENS, header=HEADER, source="NA", compress=True):
    lines = header + "".join(f"{d} {source} {i} {w} {word} {k}\n"
                             for i, (d, w, word, k) in enumerate(tokens))
    if compress:
        with gzip.open(path, "wt", encoding="utf-8") as handle:
            handle.write(lines)
    else:
        path.write_text(lines, encoding="utf-8")
    return path


def test_reads_tokens_topics_vocabulary_and_priors(tmp_path):
    state = read_mallet_state(write_state(tmp_path / "state.gz", source="file:/data/a b.txt"))
    np.testing.assert_array_equal(state.offsets, [0, 4, 4, 7, 8])
    np.testing.assert_array_equal(state.tokens, [0, 1, 0, 3, 1, 2, 3, 2])
    np.testing.assert_array_equal(state.assignments, [2, 0, 2, 1, 0, 1, 1, 0])
    assert list(state.vocabulary) == ["apple", "pear", "fig", "plum"]
    np.testing.assert_allclose(state.alpha, [0.1, 0.3, 0.2])
    assert state.eta == 0.05 and state.n_topics == 3


@pytest.mark.parametrize("compress", [True, False])
def test_estimators_of_the_sample(tmp_path, compress):
    """phi^p, theta^p (eq. 41, 40) from the file equal the brute-force soft counts; the
    standard estimators are equations 2-3 of the counts."""
    path = write_state(tmp_path / "state", compress=compress)
    state = read_mallet_state(path)
    alpha, eta = state.alpha, state.eta
    doc_soft, word_soft = naive.soft_counts_dense(state.tokens, state.offsets,
                                                  state.assignments, 3, 4, alpha, eta)
    phi_p, theta_p = estimate_from_mallet_state(path, "p")
    np.testing.assert_allclose(phi_p, (word_soft.T + eta) / (word_soft.T + eta).sum(1)[:, None])
    np.testing.assert_allclose(theta_p, (doc_soft + alpha) / (doc_soft + alpha).sum(1)[:, None])
    np.testing.assert_allclose(theta_p[1], alpha / alpha.sum())
    phi, theta = estimate_from_mallet_state(state, "standard")
    np.testing.assert_allclose(phi[2], (np.array([2, 0, 0, 0]) + eta) / (2 + 4 * eta))
    np.testing.assert_allclose(theta[0], (np.array([1, 1, 2]) + alpha) / (4 + alpha.sum()))


def test_gibbs_model_from_a_mallet_state(tmp_path):
    path = write_state(tmp_path / "state.gz")
    model = GibbsLDA.from_mallet_state(path, n_samples=2, burn_in=3, random_state=0)
    np.testing.assert_allclose(model.components_, estimate_from_mallet_state(path)[0])
    assert model.top_words(1) == [["pear"], ["plum"], ["apple"]]
    theta = model.transform([[0, 0, 0], [2, 3]])
    np.testing.assert_allclose(theta.sum(axis=1), 1.0)
    model.save(tmp_path / "model.npz")
    np.testing.assert_array_equal(GibbsLDA.load(tmp_path / "model.npz").components_,
                                  model.components_)


@pytest.mark.parametrize("line,problem", [
    ("0 NA 0 0 apple two", "must be integers"),
    ("0 NA 0 0 apple 3", "topic 3 outside"),
    ("0 NA 0 apple 1", "expected 6 fields"),
    ("0 NA 0 0 banana 1", "word index 0 is 'banana'"),
    ("-1 NA 0 0 apple 1", "negative"),
])
def test_bad_lines_name_the_file_and_line(tmp_path, line, problem):
    path = tmp_path / "bad.gz"
    with gzip.open(path, "wt") as handle:
        handle.write(HEADER + "0 NA 0 0 apple 1\n" + line + "\n")
    with pytest.raises(InputError, match=problem) as error:
        read_mallet_state(path)
    assert error.value.line == 5 and error.value.path == str(path)
    assert f"{path}, line 5" in str(error.value)


def test_files_that_are_not_states_fail_clearly(tmp_path):
    with pytest.raises(InputError, match="before the '#alpha"):
        read_mallet_state(write_state(tmp_path / "a", header="#doc source pos\n"))
    with pytest.raises(InputError, match="no token lines"):
        read_mallet_state(write_state(tmp_path / "b", tokens=[]))
    with pytest.raises(InputError, match="cannot open"):
        read_mallet_state(tmp_path / "missing.gz")
    (tmp_path / "c.gz").write_bytes(b"\x1f\x8b\x08\x00garbage")
    with pytest.raises(InputError, match="unreadable"):
        read_mallet_state(tmp_path / "c.gz")
