"""``streamtopics export``: plain arrays out, clear errors in."""

import numpy as np

from streamtopics import persistence
from streamtopics.cli.main import main


def test_export_writes_plain_normalised_arrays(tmp_path, capsys):
    model = tmp_path / "model.stm"
    beta = np.array([[0.2, 0.8], [0.5, 0.5]])
    persistence.save_model(model, {"beta": beta, "alpha": np.array([0.1, 0.3]),
                                   "vocabulary": np.array(["cat", "dog"])}, {"estimator": "X"})
    out = tmp_path / "plain.npz"
    assert main(["export", str(model), "-o", str(out)]) == 0
    with np.load(out, allow_pickle=False) as archive:
        assert sorted(archive.files) == ["alpha", "beta", "vocabulary"]
        np.testing.assert_allclose(archive["beta"].sum(axis=1), 1.0)
        assert archive["vocabulary"].tolist() == ["cat", "dog"]
    assert "beta 2 x 2" in capsys.readouterr().out


def test_export_of_a_corrupt_file_exits_2_without_traceback(tmp_path, capsys):
    bad = tmp_path / "bad.stm"
    bad.write_bytes(b"PK\x03\x04 not really a zip")
    assert main(["export", str(bad), "-o", str(tmp_path / "out.npz")]) == 2
    err = capsys.readouterr().err
    assert "bad.stm" in err and "Traceback" not in err
