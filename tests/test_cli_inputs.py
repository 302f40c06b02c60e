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


# ------------------------------------------------------------ CSV injection
_EVIL = ["=cmd|' /C calc'!A0", "+1", "-2+3", "@SUM(A1)", "'=quoted", "\tx", "plain"]


def _naive_safe(text):
    """OWASP: quote a cell starting with = + - @ tab CR; one more quote on quoted ones."""
    if text[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + text
    if text[:1] == "'":
        rest = _naive_safe(text[1:])
        return "'" + text if rest != text[1:] else text
    return text


def _evil_preds():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 300)
    return y, {name: np.where(rng.random(300) < 0.6 + 0.03 * k, y, 1 - y)
               for k, name in enumerate(_EVIL)}


def test_to_csv_quotes_formula_names():
    y, preds = _evil_preds()
    res = compare(y, preds, metrics="accuracy", test=PairedPermutation(n_resamples=99),
                  random_state=0)
    got = pd.read_csv(io.StringIO(res.to_csv()), keep_default_na=False)
    frame = res.to_frame()
    for column in ("system_a", "system_b"):
        assert got[column].tolist() == [_naive_safe(v) for v in frame[column]]
    np.testing.assert_allclose(got["delta"], frame["delta"])  # negative numbers untouched
    assert (frame["delta"] < 0).any()


def test_cli_csv_and_results_tsv_quote_formula_names(tmp_path):
    y, preds = _evil_preds()
    store = tmp_path / "store"
    exp = Experiment(store)
    for name, arr in preds.items():
        exp.feed(name, arr, y_true=y)
    status, text = _cli("run", store, "-m", "accuracy", "-B", 99, "--format", "csv")
    assert status == 0
    got = pd.read_csv(io.StringIO(text), keep_default_na=False)
    assert set(got["system_a"]) | set(got["system_b"]) == {_naive_safe(v) for v in _EVIL}
    raw = pd.read_csv(store / "results.tsv", sep="\t", keep_default_na=False)
    assert set(raw["system_a"]) | set(raw["system_b"]) == {_naive_safe(v) for v in _EVIL}
    # read back by the store: the names as fed
    back = Experiment.load(store).load_results()
    assert set(back["system_a"]) | set(back["system_b"]) == set(_EVIL)
    # compare on files: a file stem starting with @ or +
    np.savetxt(tmp_path / "gold.txt", y, fmt="%d")
    for name in ("@SUM(A1)", "+1"):
        np.savetxt(tmp_path / f"{name}.txt", preds[name], fmt="%d")
    status, text = _cli("compare", tmp_path / "gold.txt", tmp_path / "@SUM(A1).txt",
                        tmp_path / "+1.txt", "-m", "accuracy", "-B", 99, "--format", "csv")
    got = pd.read_csv(io.StringIO(text), keep_default_na=False)
    assert status == 0 and set(got["system_a"]) | set(got["system_b"]) == {"'@SUM(A1)", "'+1"}
