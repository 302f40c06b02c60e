"""The command-line interface reads files correctly and reproduces ``compare``."""

import io
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from sigtest import BergKirkpatrickBootstrap, compare
from sigtest.cli import main, read_predictions


@pytest.fixture
def systems():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 300)
    a = np.where(rng.random(300) < 0.7, y, rng.integers(0, 3, 300))
    b = np.where(rng.random(300) < 0.8, y, rng.integers(0, 3, 300))
    return y, a, b


def test_read_formats(tmp_path):
    labels = np.array(["pos", "neg", "pos"])
    (tmp_path / "l.txt").write_text("\n".join(labels) + "\n")
    np.testing.assert_array_equal(read_predictions(tmp_path / "l.txt"), labels)
    (tmp_path / "i.txt").write_text("1\n0\n2\n")
    out = read_predictions(tmp_path / "i.txt")
    assert out.dtype == np.int64 and out.tolist() == [1, 0, 2]
    proba = np.array([[0.25, 0.75], [1.0, 0.0]])
    # A .tsv is tab separated (BooStSa split it on commas).
    (tmp_path / "p.tsv").write_text("a\tb\n0.25\t0.75\n1.0\t0.0\n")
    np.testing.assert_array_equal(read_predictions(tmp_path / "p.tsv", header=True), proba)
    (tmp_path / "p.csv").write_text("0.25,0.75\n1.0,0.0\n")
    np.testing.assert_array_equal(read_predictions(tmp_path / "p.csv"), proba)
    np.save(tmp_path / "p.npy", proba)
    np.testing.assert_array_equal(read_predictions(tmp_path / "p.npy"), proba)
    # Leading zeros are labels, not integers.
    (tmp_path / "z.txt").write_text("01\n02\n")
    assert read_predictions(tmp_path / "z.txt").tolist() == ["01", "02"]


def test_read_errors(tmp_path):
    with pytest.raises(ValueError, match="does not exist"):
        read_predictions(tmp_path / "missing.txt")
    (tmp_path / "bad.csv").write_text("0.5,x\n0.5,0.5\n")
    with pytest.raises(ValueError, match="must hold numbers"):
        read_predictions(tmp_path / "bad.csv")


def test_compare_matches_python_api(tmp_path, systems):
    y, a, b = systems
    for name, arr in (("gold", y), ("base", a), ("new", b)):
        np.savetxt(tmp_path / f"{name}.txt", arr, fmt="%d")
    out = io.StringIO()
    status = main([
        "compare", str(tmp_path / "gold.txt"), str(tmp_path / "base.txt"),
        f"cand={tmp_path / 'new.txt'}", "-m", "accuracy", "--test", "bootstrap",
        "-B", "999", "--seed", "3", "--format", "csv",
    ], out=out)
    assert status == 0
    got = pd.read_csv(io.StringIO(out.getvalue()))
    want = compare(y, {"base": a, "cand": b}, metrics=("accuracy",),
                   test=BergKirkpatrickBootstrap(n_resamples=999), random_state=3).to_frame()
    assert got.loc[0, "system_a"] == "base" and got.loc[0, "system_b"] == "cand"
    np.testing.assert_allclose(got["pvalue"], want["pvalue"])
    np.testing.assert_allclose(got["delta"], want["delta"])


def test_text_output_and_errors(tmp_path, systems, capsys):
    y, a, b = systems
    for name, arr in (("gold", y), ("a", a), ("b", b)):
        np.savetxt(tmp_path / f"{name}.txt", arr, fmt="%d")
    out = io.StringIO()
    assert main(["compare", str(tmp_path / "gold.txt"), str(tmp_path / "a.txt"),
                 str(tmp_path / "b.txt"), "-B", "199"], out=out) == 0
    assert "f1_macro" in out.getvalue() and "accuracy" in out.getvalue()
    # Bad input: a clear message on stderr and exit status 2, not a traceback.
    assert main(["compare", str(tmp_path / "gold.txt"), str(tmp_path / "a.txt"),
                 str(tmp_path / "nope.txt")], out=io.StringIO()) == 2
    assert "does not exist" in capsys.readouterr().err
    assert main(["compare", str(tmp_path / "gold.txt"), str(tmp_path / "a.txt"),
                 str(tmp_path / "b.txt"), "-m", "no_such_metric"], out=io.StringIO()) == 2
    assert "not a known metric" in capsys.readouterr().err


def test_listing_commands():
    out = io.StringIO()
    assert main(["metrics"], out=out) == 0
    assert "f1_macro" in out.getvalue() and "lower is better" in out.getvalue()
    out = io.StringIO()
    assert main(["tests"], out=out) == 0
    assert "permutation" in out.getvalue()


def test_module_entry_point():
    proc = subprocess.run([sys.executable, "-m", "sigtest", "tests"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and "bca" in proc.stdout
