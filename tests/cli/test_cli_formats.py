"""CLI parity with the Python API (issue 14, section 5): formats, letters, signature, report."""

import io
import json
import warnings

import numpy as np
import pandas as pd
import pytest

from sigtest import (BCaInterval, BergKirkpatrickBootstrap, Experiment, PairedPermutation,
                     compare, score)
from sigtest.cli import main

B = 99


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    path = tmp_path_factory.mktemp("cli")
    rng = np.random.default_rng(5)
    n = 120
    y = rng.integers(0, 3, n)
    preds = {name: np.where(rng.random(n) < p, y, (y + 1) % 3)
             for name, p in (("a", 0.6), ("b", 0.75), ("c", 0.8))}
    np.savetxt(path / "gold.txt", y, fmt="%d")
    for name, arr in preds.items():
        np.savetxt(path / f"{name}.txt", arr, fmt="%d")
    return path, y, preds


def _args(path, *names):
    return [str(path / "gold.txt")] + [str(path / f"{n}.txt") for n in names or "abc"]


def _cli(*argv):
    out = io.StringIO()
    status = main([str(a) for a in argv], out=out)
    return status, out.getvalue()


def _python(y, preds, **kw):
    """What the CLI's ``-B 99 --seed 0`` runs, from Python."""
    kw.setdefault("metrics", ("accuracy", "f1_macro"))
    return compare(y, preds, test=(PairedPermutation(n_resamples=B),
                                   BCaInterval(n_resamples=B)), random_state=0, **kw)


@pytest.fixture(scope="module")
def python_result(files):
    _, y, preds = files
    return _python(y, preds)


# ------------------------------------------------------------------ formats
def test_table_prints_pairs_scores_letters_and_signature(files, python_result):
    path, _, _ = files
    status, text = _cli("compare", *_args(path), "-B", B)
    assert status == 0
    assert text.startswith(str(python_result))  # the pairs table with stars
    assert "scores of each system" in text
    block = text.split("letters (")[1].split("\n\n")[0].splitlines()[1:]
    got = pd.read_csv(io.StringIO("\n".join(block)), sep=r"\s+", index_col=0)
    for metric in python_result.metrics:
        want = python_result.letters(metric)["letters"]
        assert got[metric].to_dict() == want.to_dict()
    assert text.rstrip().splitlines()[-1] == "signature: " + python_result.signature()
    # "text" is the old name of "table"
    assert _cli("compare", *_args(path), "-B", B, "--format", "text")[1] == text


@pytest.mark.parametrize("fmt", ["markdown", "latex", "html"])
def test_report_formats_equal_the_python_report(files, python_result, fmt):
    path, _, _ = files
    status, text = _cli("compare", *_args(path), "-B", B, "--format", fmt)
    assert status == 0
    assert text == python_result.report(fmt)


def test_csv_and_json_carry_the_signature(files, python_result):
    path, _, _ = files
    want = python_result.to_frame()
    _, csv = _cli("compare", *_args(path), "-B", B, "--format", "csv")
    got = pd.read_csv(io.StringIO(csv))
    assert list(got.columns) == list(want.columns) + ["signature"]
    assert set(got["signature"]) == {python_result.signature()}
    np.testing.assert_allclose(got["pvalue_adj"], want["pvalue_adj"], rtol=1e-12)
    _, js = _cli("compare", *_args(path), "-B", B, "--format", "json")
    records = json.loads(js)
    assert [r["system_b"] for r in records] == list(want["system_b"])
    assert {r["signature"] for r in records} == {python_result.signature()}


def test_output_suffix_chooses_the_format(files, python_result, tmp_path):
    path, _, _ = files
    for suffix, fmt in ((".md", "markdown"), (".html", "html"), (".tex", "latex")):
        target = tmp_path / f"out{suffix}"
        assert _cli("compare", *_args(path), "-B", B, "-o", target)[0] == 0
        assert target.read_text() == python_result.report(fmt)


def test_baseline_implies_baseline_pairs(files):
    path, y, preds = files
    status, text = _cli("compare", *_args(path), "-B", B, "--baseline", "a", "--format", "csv")
    assert status == 0
    got = pd.read_csv(io.StringIO(text))
    assert set(zip(got["system_a"], got["system_b"])) == {("a", "b"), ("a", "c")}
    want = _python(y, preds, pairs="baseline", baseline="a")
    assert set(got["signature"]) == {want.signature()}
    assert "pairs:baseline:a" in want.signature()
    _, table = _cli("compare", *_args(path), "-B", B, "--baseline", "a")
    assert "letters (" not in table  # letters need every pair


def test_labels_pos_label_and_margin_reach_the_report(files):
    path, y, preds = files
    status, text = _cli("compare", *_args(path, "a", "b"), "-B", B, "-m", "f1",
                        "--pos-label", "1", "--labels", "0,1,2", "--format", "csv")
    assert status == 0
    want = _python(y, {"a": preds["a"], "b": preds["b"]}, metrics="f1", pos_label=1,
                   labels=[0, 1, 2])
    np.testing.assert_allclose(pd.read_csv(io.StringIO(text))["pvalue"],
                               want.to_frame()["pvalue"], rtol=1e-12)
    status, md = _cli("compare", *_args(path, "a", "b"), "-B", B, "-m", "accuracy",
                      "--baseline", "a", "--margin", "0.05", "--alternative",
                      "non-inferiority", "--format", "markdown")
    assert status == 0
    assert "margin 0.05" in md and "|margin:0.05" in md and "non-inferiority" in md


# ------------------------------------------------------------------- report
def test_report_from_files_equals_compare(files, python_result, tmp_path):
    path, _, _ = files
    target = tmp_path / "r.html"
    assert _cli("report", *_args(path), "-B", B, "-o", target)[0] == 0
    assert target.read_text() == python_result.report("html")
    status, text = _cli("report", *_args(path), "-B", B)  # default: markdown
    assert status == 0 and text == python_result.report("markdown")


def test_report_and_run_from_a_store(files, tmp_path):
    path, y, preds = files
    store = tmp_path / "store"
    for name in "abc":
        extra = ["--gold", path / "gold.txt"] if name == "a" else []
        assert _cli("feed", store, name, path / f"{name}.txt", *extra)[0] == 0
    status, text = _cli("report", store, "--systems", "c", "a", "-B", B, "--format", "latex")
    assert status == 0
    want = Experiment(tmp_path / "s2")
    want.feed("a", preds["a"], y_true=y)
    for name in "bc":
        want.feed(name, preds[name])
    result = want.run(systems=["c", "a"], test=(PairedPermutation(n_resamples=B),
                                                BCaInterval(n_resamples=B)))
    assert result.systems == ["c", "a"]
    assert text == result.report("latex")
    # run --systems
    status, js = _cli("run", store, "--systems", "b", "c", "-B", B, "--format", "json")
    assert status == 0
    assert {(r["system_a"], r["system_b"]) for r in json.loads(js)} == {("b", "c")}


@pytest.mark.parametrize("argv, message", [
    (["report", "{store}", "{gold}"], "is an experiment directory: give no prediction"),
    (["report", "{store}", "--groups", "{gold}"], "--groups is for prediction files"),
    (["report", "{gold}", "{a}", "{b}", "--runs", "each"], "--runs is for an experiment"),
    (["report", "{gold}", "{a}", "{b}", "--systems", "a"], "--systems is for an experiment"),
    (["report", "{gold}"], "is not a directory: give the gold file then"),
])
def test_report_usage_errors(files, tmp_path, capsys, argv, message):
    path, _, _ = files
    store = tmp_path / "st"
    store.mkdir()
    names = {"store": store, "gold": path / "gold.txt", "a": path / "a.txt",
             "b": path / "b.txt"}
    status, _ = _cli(*[a.format(**names) for a in argv])
    assert status == 2
    err = capsys.readouterr().err
    assert err.startswith("sigtest: error: ") and message in err, err


def test_report_refuses_table_formats(files, capsys):
    path, _, _ = files
    assert _cli("report", *_args(path), "--format", "csv")[0] == 2
    assert "invalid choice" in capsys.readouterr().err


# ----------------------------------------------------------------- warnings
def test_cli_warnings_are_one_line_each(tmp_path, capsys):
    gold = tmp_path / "g.txt"
    np.savetxt(gold, np.r_[np.zeros(20), np.ones(20)], fmt="%d")
    np.savetxt(tmp_path / "a.txt", np.zeros(40), fmt="%d")
    np.savetxt(tmp_path / "b.txt", np.r_[np.zeros(30), np.ones(10)], fmt="%d")
    status, _ = _cli("compare", gold, tmp_path / "a.txt", tmp_path / "b.txt", "-m",
                     "precision", "--pos-label", "1", "-B", B)
    assert status == 0
    err = capsys.readouterr().err.splitlines()
    assert err and all(line.startswith("sigtest: warning: ") for line in err)
    assert any("Precision is ill-defined" in line for line in err)


def test_python_warnings_point_at_the_users_call(tmp_path):
    """Warnings of the paths the CLI uses name the caller's file, not sklearn's or ours."""
    y = np.r_[np.zeros(30, int), np.ones(30, int)]
    a = np.zeros(60, int)
    b = np.r_[np.zeros(50, int), np.ones(10, int)]
    kw = dict(metrics=["precision"], pos_label=1)
    exp = Experiment(tmp_path / "s")
    exp.feed("a", a, y_true=y)
    exp.feed("b", b)
    calls = {
        "compare": lambda: compare(y, {"a": a, "b": b}, test=PairedPermutation(n_resamples=B),
                                   random_state=0, **kw),
        "scores": lambda: compare(y, {"a": a, "b": b}, test=BergKirkpatrickBootstrap(
            n_resamples=B), random_state=0, **kw).scores(),
        "test": lambda: PairedPermutation(n_resamples=B).test(y, a, b, metric="precision",
                                                               pos_label=1),
        "score": lambda: score(y, a, metric="precision", pos_label=1, n_resamples=B),
        "Experiment.run": lambda: exp.run(test=PairedPermutation(n_resamples=B), **kw),
    }
    for name, call in calls.items():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            call()
        assert caught, name
        assert all(w.filename == __file__ for w in caught), (
            name, [(w.filename, str(w.message)[:60]) for w in caught])
