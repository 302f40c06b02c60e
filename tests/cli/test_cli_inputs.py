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


# ------------------------------------------------------------ files people have
def test_txt_label_with_a_space_is_one_label(tmp_path):
    from sigtest._cli.io import read_predictions

    labels = ["very positive", "positive", "neutral", "very negative", "positive"]
    for order in (labels, labels[::-1]):  # the spaced label in line 1 or later
        (tmp_path / "l.txt").write_text("\n".join(order) + "\n\n")
        assert read_predictions(tmp_path / "l.txt", header=False).tolist() == order
    gold = ["very positive", "positive", "very negative", "neutral"] * 10
    pred = list(gold)
    pred[:4] = ["positive", "very positive", "neutral", "neutral"]
    (tmp_path / "gold.txt").write_text("\n".join(gold) + "\n")
    (tmp_path / "pred.txt").write_text("\n".join(pred) + "\n")
    (tmp_path / "same.txt").write_text("\n".join(gold) + "\n")
    status, text = _cli("compare", tmp_path / "gold.txt", tmp_path / "same.txt",
                        tmp_path / "pred.txt", "-m", "accuracy", "-B", 99, "--format", "csv")
    assert status == 0
    got = pd.read_csv(io.StringIO(text))
    assert got["score_a"][0] == 1.0 and got["score_b"][0] == 1 - 3 / 40  # naive count


def test_txt_with_an_id_column_is_refused_not_read_as_labels(tmp_path):
    from sigtest._cli.io import read_predictions

    (tmp_path / "c.txt").write_text("1 pos\n2 neg\n3 pos\n4 neg\n")
    with pytest.raises(ValueError, match="--id-column"):
        read_predictions(tmp_path / "c.txt")
    (tmp_path / "p.txt").write_text("0.2 0.8\n0.5 0.5\n1 0\n")  # numbers: probabilities
    np.testing.assert_array_equal(read_predictions(tmp_path / "p.txt"),
                                  [[0.2, 0.8], [0.5, 0.5], [1, 0]])


def test_numeric_labels_written_as_floats_are_numbers(tmp_path):
    from sigtest._cli.io import read_ids, read_predictions

    (tmp_path / "f.txt").write_text("1.0\n0\n2.0\n1\n")
    got = read_predictions(tmp_path / "f.txt")
    assert got.dtype == np.int64 and got.tolist() == [1, 0, 2, 1]
    (tmp_path / "h.csv").write_text("0.5\n1\n")  # not whole: float64 (1-D: refused later)
    assert read_predictions(tmp_path / "h.csv").dtype == np.float64
    (tmp_path / "z.txt").write_text("01\n2.0\n")  # a leading zero keeps text
    assert read_predictions(tmp_path / "z.txt").tolist() == ["01", "2.0"]
    (tmp_path / "i.txt").write_text("1.0\n1\n")  # ids keep their exact text
    assert read_ids(tmp_path / "i.txt").tolist() == ["1.0", "1"]
    y = np.array([1, 0, 2, 1] * 20)
    np.savetxt(tmp_path / "gold.txt", y, fmt="%d")
    np.savetxt(tmp_path / "a.txt", y, fmt="%.1f")  # 1.0, 0.0, ...
    pred = y.copy()
    pred[:6] = (pred[:6] + 1) % 3
    np.savetxt(tmp_path / "b.txt", pred, fmt="%d")
    status, text = _cli("compare", tmp_path / "gold.txt", tmp_path / "a.txt", tmp_path / "b.txt",
                        "-m", "accuracy", "-B", 99, "--format", "csv")
    assert status == 0
    got = pd.read_csv(io.StringIO(text))
    assert got["score_a"][0] == 1.0 and got["score_b"][0] == 1 - 6 / 80


def test_compare_id_and_label_columns_align_by_ids(tmp_path, files):
    path, y, preds = files
    ids = np.array([f"doc{k}" for k in range(len(y))])
    want = pd.read_csv(io.StringIO(_cli(
        "compare", path / "gold.txt", path / "a.txt", path / "b.txt", "-m", "accuracy",
        "-B", B, "--format", "csv")[1]))
    rng = np.random.default_rng(0)
    pd.DataFrame({"id": ids, "label": y}).to_csv(tmp_path / "gold.csv", index=False)
    for name, arr in preds.items():  # each file in its own order, extra column
        order = rng.permutation(len(y))
        pd.DataFrame({"score": rng.random(len(y)), "label": arr[order], "id": ids[order]}) \
            .to_csv(tmp_path / f"{name}.csv", index=False)
    status, text = _cli("compare", tmp_path / "gold.csv", tmp_path / "a.csv", tmp_path / "b.csv",
                        "-m", "accuracy", "-B", B, "--id-column", "id", "--label-column",
                        "label", "--format", "csv")
    assert status == 0
    got = pd.read_csv(io.StringIO(text))
    for column in ("score_a", "score_b", "delta", "pvalue"):
        np.testing.assert_allclose(got[column], want[column], rtol=1e-12)
    # by number (1-based) with --header, and the label column by default in 2 columns
    for name, arr in preds.items():
        order = rng.permutation(len(y))
        pd.DataFrame({"id": ids[order], "label": arr[order]}).to_csv(tmp_path / f"{name}2.csv",
                                                                     index=False)
    args = ("compare", tmp_path / "gold.csv", tmp_path / "a2.csv", tmp_path / "b2.csv",
            "-m", "accuracy", "-B", B, "--id-column", "1", "--format", "csv")
    assert _cli(*args)[0] == 2  # line 1 is a header: detected in the label column
    status, text = _cli(*args, "--header")
    assert status == 0
    np.testing.assert_allclose(pd.read_csv(io.StringIO(text))["pvalue"], want["pvalue"])


def test_compare_columns_errors(tmp_path, capsys):
    pd.DataFrame({"id": [1, 2, 3, 4], "label": [0, 1, 0, 1]}).to_csv(tmp_path / "g.csv",
                                                                      index=False)
    pd.DataFrame({"id": [1, 2, 3, 5], "label": [0, 1, 0, 1]}).to_csv(tmp_path / "p.csv",
                                                                      index=False)
    pd.DataFrame({"id": [1, 2, 2, 4], "label": [0, 1, 0, 1]}).to_csv(tmp_path / "d.csv",
                                                                      index=False)
    base = ("compare", tmp_path / "g.csv", tmp_path / "g.csv")
    assert _cli(*base, tmp_path / "p.csv", "--id-column", "id")[0] == 2
    assert "lacks 1 ids" in capsys.readouterr().err
    assert _cli(*base, tmp_path / "d.csv", "--id-column", "id")[0] == 2
    assert "more than once" in capsys.readouterr().err
    assert _cli(*base, tmp_path / "p.csv", "--label-column", "nope")[0] == 2
    assert "no such column" in capsys.readouterr().err
    assert _cli(*base, tmp_path / "p.csv", "--label-column", "3")[0] == 2
    assert "has 2 columns" in capsys.readouterr().err
    assert _cli(*base, tmp_path / "p.csv", "--label-column", "label", "--no-header")[0] == 2
    assert "needs a header row" in capsys.readouterr().err
