"""Issue 20 (round 3): files people really have, ``--alternative`` and CSV injection."""

import io

import numpy as np
import pandas as pd
import pytest

from sigtest import Experiment, PairedPermutation, compare
from sigtest.cli import main

B = 199


def _cli(*argv):
    out = io.StringIO()
    status = main([str(a) for a in argv], out=out)
    return status, out.getvalue()


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    path = tmp_path_factory.mktemp("inputs")
    rng = np.random.default_rng(7)
    n = 150
    y = rng.integers(0, 3, n)
    preds = {name: np.where(rng.random(n) < p, y, (y + 1) % 3)
             for name, p in (("a", 0.6), ("b", 0.7))}
    np.savetxt(path / "gold.txt", y, fmt="%d")
    for name, arr in preds.items():
        np.savetxt(path / f"{name}.txt", arr, fmt="%d")
    return path, y, preds


# ------------------------------------------------------------ --alternative
@pytest.mark.parametrize("alternative", ["greater", "less", "two-sided"])
def test_alternative_reaches_the_test_in_compare_and_run(files, tmp_path, alternative):
    path, y, preds = files
    want = compare(y, preds, metrics="accuracy", pairs="baseline", baseline="a",
                   test=PairedPermutation(n_resamples=B, alternative=alternative),
                   random_state=0).to_frame()
    status, text = _cli("compare", path / "gold.txt", path / "a.txt", path / "b.txt",
                        "-m", "accuracy", "--test", "permutation", "-B", B, "--baseline", "a",
                        "--alternative", alternative, "--format", "csv")
    assert status == 0
    got = pd.read_csv(io.StringIO(text))
    assert got["alternative"].tolist() == [alternative]
    np.testing.assert_allclose(got["pvalue"], want["pvalue"], rtol=1e-12)
    store = tmp_path / "store"
    assert _cli("feed", store, "a", path / "a.txt", "--gold", path / "gold.txt")[0] == 0
    assert _cli("feed", store, "b", path / "b.txt")[0] == 0
    status, text = _cli("run", store, "-m", "accuracy", "--test", "permutation", "-B", B,
                        "--baseline", "a", "--alternative", alternative, "--format", "csv")
    assert status == 0
    got = pd.read_csv(io.StringIO(text))
    assert got["alternative"].tolist() == [alternative]
    np.testing.assert_allclose(got["pvalue"], want["pvalue"], rtol=1e-12)


def test_alternative_default_test_is_one_sided_on_both_roles(files):
    path, y, preds = files
    status, text = _cli("compare", path / "gold.txt", path / "a.txt", path / "b.txt",
                        "-m", "accuracy", "-B", B, "--baseline", "a", "--alternative", "greater",
                        "--format", "csv")
    assert status == 0
    got = pd.read_csv(io.StringIO(text))
    two = pd.read_csv(io.StringIO(_cli(
        "compare", path / "gold.txt", path / "a.txt", path / "b.txt", "-m", "accuracy",
        "-B", B, "--baseline", "a", "--format", "csv")[1]))
    assert got["alternative"].tolist() == ["greater"] and two["alternative"].tolist() == [
        "two-sided"]
    # one-sided in the direction of the observed difference: about half the p-value
    assert got["delta"][0] > 0 and got["pvalue"][0] < two["pvalue"][0]


def test_alternative_errors(files, capsys):
    path, _, _ = files
    args = ("compare", path / "gold.txt", path / "a.txt", path / "b.txt", "-B", B)
    assert _cli(*args, "--alternative", "greater")[0] == 2
    assert "--alternative greater needs --baseline" in capsys.readouterr().err
    assert _cli(*args, "--baseline", "a", "--alternative", "less", "--test",
                "bayesian_bootstrap")[0] == 2
    assert "has no alternative" in capsys.readouterr().err
    assert _cli(*args, "--baseline", "a", "--alternative", "greater", "--margin", "0.1")[0] == 2
    assert "--margin needs --alternative" in capsys.readouterr().err
    assert _cli(*args, "--baseline", "a", "--alternative", "equivalence")[0] == 2
    assert "--alternative equivalence needs --margin" in capsys.readouterr().err
    assert _cli(*args, "--baseline", "a", "--alternative", "greater", "--test", "bca")[0] == 2
    assert "--alternative greater: The 'alternative' parameter" in capsys.readouterr().err
