"""``sigtest compare --scores TABLE``: a long table of per-item scores (issue 22 s4).

Reference: ``sigtest.compare`` on the same scores built by hand in the test.
"""

import io

import numpy as np
import pandas as pd
import pytest

from sigtest import compare
from sigtest.cli import main


@pytest.fixture
def table(tmp_path):
    rng = np.random.default_rng(0)
    rows = [("b1" if q < 30 else "b2", m, f"q{q:02d}", int(rng.random() < p))
            for m, p in (("m1", 0.5), ("m2", 0.75), ("m3", 0.6)) for q in range(60)]
    df = pd.DataFrame(rows, columns=["task", "model", "doc_id", "acc"])
    path = tmp_path / "runs.csv"
    df.sample(frac=1.0, random_state=2).to_csv(path, index=False)
    return df, path


def _run(argv, capsys=None):
    out = io.StringIO()
    status = main(argv, out=out)
    err = capsys.readouterr().err if capsys is not None else ""
    return status, out.getvalue(), err


def test_compare_scores_matches_python_api(table):
    df, path = table
    status, out, _ = _run(["compare", "--scores", str(path), "--system-column", "model",
                           "--item-column", "doc_id", "--score-column", "acc",
                           "--dataset-column", "task", "--dataset", "b1", "-B", "999",
                           "--seed", "3", "--format", "csv", "--no-progress"])
    assert status == 0
    got = pd.read_csv(io.StringIO(out))
    part = df[df.task == "b1"].sort_values("doc_id")
    order = pd.read_csv(path)["model"].unique()  # systems in order of first appearance
    preds = {m: part.loc[part.model == m, "acc"].to_numpy(float) for m in order}
    want = compare(None, preds, metrics="mean", random_state=3,
                   test=("permutation", "bca")).to_frame()
    # the default test with -B 999 is the permutation p-value and the BCa interval
    for col in ("system_a", "system_b"):
        assert got[col].tolist() == want[col].tolist()
    np.testing.assert_allclose(got["delta"], want["delta"], rtol=0, atol=1e-12)
    assert (got["metric"] == "mean").all()


def test_compare_scores_default_columns_and_groups(tmp_path):
    df = pd.DataFrame({"system": np.repeat(["a", "b"], 40), "item": np.tile(np.arange(40), 2),
                       "group": np.tile(np.arange(40) // 4, 2),
                       "score": np.r_[np.arange(40) % 3 == 0, np.arange(40) % 2 == 0]
                       .astype(int)})
    path = tmp_path / "s.tsv"
    df.to_csv(path, sep="\t", index=False)
    status, out, _ = _run(["compare", "--scores", str(path), "--test", "permutation",
                           "--format", "json", "--no-progress"])
    assert status == 0
    got = pd.read_json(io.StringIO(out))
    preds = {s: df.loc[df.system == s, "score"].to_numpy(float) for s in ("a", "b")}
    want = compare(None, preds, metrics="mean", test="permutation", random_state=0,
                   groups=np.arange(40) // 4).to_frame()
    np.testing.assert_allclose(got["pvalue"], want["pvalue"], rtol=1e-12)


@pytest.mark.parametrize("extra, message", [
    (["gold.txt"], "give no gold file"),
    (["--groups", "g.txt"], "--groups is for gold and prediction files"),
    (["--labels", "0,1"], "--labels is for gold and prediction files"),
    (["--system-column", "nope"], "no system column 'nope' (--system-column)"),
    ([], "holds 2 datasets"),
    (["--dataset", "b9"], "'dataset' parameter 'b9'"),
])
def test_compare_scores_usage_errors(table, capsys, extra, message):
    _, path = table
    argv = ["compare", "--scores", str(path), "--system-column", "model", "--item-column",
            "doc_id", "--score-column", "acc", "--dataset-column", "task", *extra]
    if extra and extra[0] == "--system-column":
        argv = ["compare", "--scores", str(path), *extra]
    status, _, err = _run(argv, capsys)
    assert status == 2 and message in err and "Traceback" not in err


def test_scores_options_need_scores_and_files_need_both(tmp_path, capsys):
    status, _, err = _run(["compare", "gold.txt", "a.txt", "--item-column", "id"], capsys)
    assert status == 2 and "--item-column is for --scores TABLE" in err
    status, _, err = _run(["compare", "gold.txt"], capsys)
    assert status == 2 and "sigtest compare: error:" in err and "--scores TABLE" in err
    status, _, err = _run(["compare", "--scores", str(tmp_path / "none.csv")], capsys)
    assert status == 2 and "does not exist" in err


def test_missing_items_and_intersection(table, capsys):
    df, path = table
    df[~((df.model == "m2") & (df.doc_id == "q03"))].to_csv(path, index=False)
    base = ["compare", "--scores", str(path), "--system-column", "model", "--item-column",
            "doc_id", "--score-column", "acc", "--dataset-column", "task", "--dataset", "b1",
            "-B", "199", "--format", "csv", "--no-progress"]
    status, _, err = _run(base, capsys)
    assert status == 2 and "--on-missing intersect" in err
    status, out, err = _run(base + ["--on-missing", "intersect"], capsys)
    assert status == 0 and "dropped" in err
    assert "|n:29|" in pd.read_csv(io.StringIO(out))["signature"].iloc[0]  # q03 dropped
