"""The command-line interface reads files correctly and reproduces ``compare``."""

import io
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from sigtest import BCaInterval, BergKirkpatrickBootstrap, compare
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


# ------------------------------------------------------------ header rows
def _lines(path, rows):
    path.write_text("".join(f"{r}\n" for r in rows))
    return path


def test_header_row_is_detected_not_scored(tmp_path, capsys):
    """Issue 8: a header without --header was scored as one more item."""
    rng = np.random.default_rng(0)
    labels = rng.choice(["pos", "neg", "neu"], 40)
    ints = rng.integers(0, 3, 40)
    proba = rng.dirichlet(np.ones(3), 40).round(6)
    cases = {
        "labels.txt": ["label", *labels],               # label column, unique first value
        "ints.txt": ["prediction", *ints],               # text over numbers
        "proba.csv": ["neg,neu,pos", *(",".join(map(str, r)) for r in proba)],
        "cols.csv": ["0,1,2", *(",".join(map(str, r)) for r in proba)],  # column numbers
        "two_words.txt": ["gold label", *ints],          # more fields than the rest
    }
    for name, rows in cases.items():
        path = _lines(tmp_path / name, rows)
        with pytest.raises(ValueError, match=r"seems to have a header row.*--header") as info:
            read_predictions(path)
        assert repr(str(path)) in str(info.value)
        # --header skips it; the values are the rows after it
        got = read_predictions(path, header=True)
        assert len(got) == 40
    np.testing.assert_array_equal(read_predictions(tmp_path / "labels.txt", header=True), labels)
    # through the CLI: exit 2 and one line naming the file and --header
    gold = _lines(tmp_path / "gold.txt", ints)
    status = main(["compare", str(gold), str(tmp_path / "ints.txt"), str(gold)],
                  out=io.StringIO())
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1 and "ints.txt" in err and "--header" in err
    assert "(header=True)" not in err


def test_short_files_with_headers_are_caught_across_files(tmp_path, capsys):
    rows = {"gold": ["gold", "pos", "neg", "pos", "neg"], "a": ["pred", "pos", "pos", "neg",
                                                                  "neg"],
            "b": ["label", "neg", "pos", "neg", "pos"]}
    paths = []
    for name, values in rows.items():
        paths.append(str(_lines(tmp_path / f"{name}.txt", values)))
    assert main(["compare", *paths, "-B", "99"], out=io.StringIO()) == 2
    err = capsys.readouterr().err
    assert "seem to have header rows" in err and "--header" in err and "gold.txt" in err
    out = io.StringIO()
    assert main(["compare", *paths, "-B", "99", "--header", "-m", "accuracy",
                 "--format", "csv"], out=out) == 0
    got = pd.read_csv(io.StringIO(out.getvalue()))
    assert got.loc[0, "score_a"] == 0.5 and got.loc[0, "score_b"] == 0.0
    # real data whose first item is a shared label passes
    _lines(tmp_path / "a.txt", ["pos", "pos", "pos", "neg", "neg"])
    _lines(tmp_path / "gold.txt", ["pos", "pos", "neg", "pos", "neg"])
    _lines(tmp_path / "b.txt", ["neg", "neg", "neg", "pos", "pos"])
    assert main(["compare", *paths, "-B", "99", "-m", "accuracy"], out=io.StringIO()) == 0


def test_header_detection_leaves_data_alone(tmp_path):
    rng = np.random.default_rng(1)
    # a rare real label that also occurs later, ids (all distinct), few rows
    rows = ["neu", *rng.choice(["pos", "neg"], 30), "neu"]
    assert read_predictions(_lines(tmp_path / "a.txt", rows)).tolist() == rows
    ids = [f"doc{i}" for i in range(50)]
    assert read_predictions(_lines(tmp_path / "ids.txt", ids)).tolist() == ids
    short = ["x", "pos", "neg", "pos"]  # too few rows to judge a label column
    assert read_predictions(_lines(tmp_path / "s.txt", short)).tolist() == short
    # a singleton first label is data when the user says so
    single = ["rare", *rng.choice(["pos", "neg"], 30)]
    path = _lines(tmp_path / "rare.txt", single)
    with pytest.raises(ValueError, match="header"):
        read_predictions(path)
    assert read_predictions(path, header=False).tolist() == single
    # one-hot and probability rows are never mistaken for a header
    onehot = np.eye(3)[rng.integers(0, 3, 20)]
    np.savetxt(tmp_path / "o.csv", onehot, delimiter=",", fmt="%d")
    np.testing.assert_array_equal(read_predictions(tmp_path / "o.csv"), onehot)


# ------------------------------------------------------------- soft rows
def test_soft_rows_rounded_in_a_file_are_renormalised(tmp_path):
    """Issue 8: rows written with a few decimals (sum 0.999999) were rejected."""
    from sigtest.metrics._check_proba import ProbabilityRoundingWarning

    proba = np.random.default_rng(2).dirichlet(np.ones(4), 30)
    np.savetxt(tmp_path / "p.csv", proba, delimiter=",", fmt="%.6f")
    written = np.loadtxt(tmp_path / "p.csv", delimiter=",")
    assert np.abs(written.sum(axis=1) - 1).max() > 1e-6  # the old check failed here
    with pytest.warns(ProbabilityRoundingWarning, match=r"The file '.*p\.csv'.*row\(s\)"):
        got = read_predictions(tmp_path / "p.csv")
    off = np.abs(written.sum(axis=1) - 1) > 1e-6
    np.testing.assert_allclose(got[off].sum(axis=1), 1.0, rtol=0, atol=1e-15)
    np.testing.assert_array_equal(got[~off], written[~off])  # noise-level rows as written
    np.testing.assert_allclose(got, proba, atol=5e-6)


def test_soft_rows_off_name_file_line_and_plain_sum(tmp_path):
    path = _lines(tmp_path / "p.tsv", ["a\tb", "0.5\t0.5", "0.5\t0.47", "0.2\t0.8"])
    with pytest.raises(ValueError) as info:
        read_predictions(path, header=True)
    msg = str(info.value)
    assert repr(str(path)) in msg and "line 3 sums to 0.97" in msg and "np.float64" not in msg
    np.save(tmp_path / "p.npy", np.array([[0.5, 0.5], [0.5, 0.47]]))
    with pytest.raises(ValueError, match=r"p\.npy'.*row 2 sums to 0\.97"):
        read_predictions(tmp_path / "p.npy")
    # label memberships (multilabel metrics) need not sum to 1
    got = read_predictions(path, header=True, multilabel=True)
    np.testing.assert_array_equal(got[1], [0.5, 0.47])
    bad = _lines(tmp_path / "b.csv", ["0.5,0.5", "1.5,-0.5"])
    with pytest.raises(ValueError, match=r"b\.csv'.*\[0, 1\].*line 2 holds 1\.5"):
        read_predictions(bad)


# ------------------------------------------------------------ file errors
def test_file_errors_name_the_file(tmp_path):
    cases = []
    (tmp_path / "empty.txt").write_text("")
    cases.append(("empty.txt", "is empty"))
    (tmp_path / "blank.csv").write_text("\n\n")
    cases.append(("blank.csv", "is empty"))
    np.save(tmp_path / "obj.npy", np.array([{"a": 1}, None], dtype=object), allow_pickle=True)
    cases.append(("obj.npy", "object array"))
    (tmp_path / "junk.npy").write_bytes(b"not a numpy file")
    cases.append(("junk.npy", "not a valid .npy"))
    np.save(tmp_path / "cube.npy", np.zeros((2, 2, 2)))
    cases.append(("cube.npy", "1-D or 2-D"))
    (tmp_path / "ragged.csv").write_text("0.5,0.5\n0.2,0.3,0.5\n")
    cases.append(("ragged.csv", "could not be read.*line 2"))
    (tmp_path / "short.csv").write_text("0.5,0.5\n1.0\n0.2,0.8\n")
    cases.append(("short.csv", "2 columns but its line 2 has 1 fields"))
    (tmp_path / "bin.txt").write_bytes(b"\xff\xfe\x00\x81\n")
    cases.append(("bin.txt", "not a UTF-8 text file"))
    (tmp_path / "hdr.txt").write_text("label\n")
    cases.append(("hdr.txt", None))
    for name, match in cases:
        if match is None:
            with pytest.raises(ValueError, match="holds no rows after its header"):
                read_predictions(tmp_path / name, header=True)
            continue
        with pytest.raises(ValueError, match=match) as info:
            read_predictions(tmp_path / name)
        assert name in str(info.value), name
    with pytest.raises(ValueError, match="is a directory"):
        read_predictions(tmp_path)


def _write_systems(tmp_path, systems):
    y, a, b = systems
    for name, arr in (("gold", y), ("a", a), ("b", b)):
        np.savetxt(tmp_path / f"{name}.txt", arr, fmt="%d")
    return [str(tmp_path / f"{n}.txt") for n in ("gold", "a", "b")]


def test_cli_input_errors_are_one_line_with_status_2(tmp_path, systems, capsys):
    gold, a, b = _write_systems(tmp_path, systems)
    np.savetxt(tmp_path / "short.txt", systems[1][:-1], fmt="%d")
    (tmp_path / "empty.txt").write_text("")
    np.save(tmp_path / "obj.npy", np.array(["x", 1], dtype=object), allow_pickle=True)
    cases = [
        ([gold, a, str(tmp_path / "short.txt")], r"short\.txt' has 299 rows but the gold "
                                                 r"file '.*gold\.txt' has 300"),
        ([gold, a, str(tmp_path / "empty.txt")], r"empty\.txt' is empty"),
        ([gold, a, str(tmp_path / "obj.npy")], r"obj\.npy' holds a NumPy object array"),
        ([str(tmp_path / "empty.txt"), a, b], r"empty\.txt' is empty"),
        ([gold, a, b, "--labels", "0,x"], "--labels holds 'x', but the gold labels are "
                                          "integers"),
        ([gold, a, b, "--pos-label", "pos"], "--pos-label holds 'pos'"),
    ]
    for args, match in cases:
        assert main(["compare", *args], out=io.StringIO()) == 2, args
        err = capsys.readouterr().err
        assert err.startswith("sigtest: error: ") and err.count("\n") == 1, err
        assert "Traceback" not in err
        import re

        assert re.search(match, err), (match, err)
    # argparse usage errors: status 2 as well, returned (not raised) by main
    assert main(["compare"], out=io.StringIO()) == 2
    assert "sigtest compare: error:" in capsys.readouterr().err


def test_outputs_are_checked_before_computing(tmp_path, systems, capsys, monkeypatch):
    """Issue 8: -o /missing/dir/out.csv failed after all the computing."""
    import sigtest._workflows.compare.api

    gold, a, b = _write_systems(tmp_path, systems)

    def no_compare(*args, **kwargs):  # pragma: no cover - must not be reached
        raise AssertionError("compare ran before the output was checked")

    monkeypatch.setattr(sigtest._workflows.compare.api, "compare", no_compare)
    (tmp_path / "taken.csv").write_text("old\n")
    cases = [
        (str(tmp_path / "missing" / "out.csv"), "directory .*missing' of -o/--output does "
                                                "not exist"),
        (str(tmp_path), "is a directory"),
        (str(tmp_path / "taken.csv"), "taken.csv' exists; pass --overwrite"),
        (str(tmp_path / "gold.txt" / "out.csv"), "gold.txt' .*is not a directory"),
    ]
    for output, match in cases:
        status = main(["compare", gold, a, b, "-o", output], out=io.StringIO())
        err = capsys.readouterr().err
        assert status == 2 and err.count("\n") == 1, err
        import re

        assert re.search(match, err), (match, err)
    assert (tmp_path / "taken.csv").read_text() == "old\n"
    # an unwritable directory (simulated: the tests may run as root, who can write anywhere)
    import sigtest._cli.commands

    monkeypatch.setattr(sigtest._cli.commands.os, "access", lambda path, mode: False)
    assert main(["compare", gold, a, b, "-o", str(tmp_path / "new.csv")],
                out=io.StringIO()) == 2
    assert "of -o/--output is not writable" in capsys.readouterr().err
    assert main(["compare", gold, a, b, "-o", str(tmp_path / "taken.csv"), "--overwrite"],
                out=io.StringIO()) == 2
    assert "taken.csv' is not writable" in capsys.readouterr().err
    monkeypatch.undo()
    out = io.StringIO()
    assert main(["compare", gold, a, b, "-m", "accuracy", "-B", "99", "--format", "csv",
                 "-o", str(tmp_path / "taken.csv"), "--overwrite"], out=out) == 0
    assert out.getvalue() == ""
    assert pd.read_csv(tmp_path / "taken.csv").shape[0] == 1


def test_subprocess_error_has_no_traceback(tmp_path, systems):
    gold, a, b = _write_systems(tmp_path, systems)
    (tmp_path / "empty.csv").write_text("")
    proc = subprocess.run(
        [sys.executable, "-m", "sigtest", "compare", gold, a, str(tmp_path / "empty.csv"),
         "-o", str(tmp_path / "nowhere" / "out.csv")],
        capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr and proc.stderr.count("\n") == 1
    assert proc.stderr.startswith("sigtest: error: ") and "nowhere" in proc.stderr


# ------------------------------------------------------- labels, printing
def test_compare_labels_and_pos_label(tmp_path, capsys):
    """Issue 8: --labels fixes the class set, --pos-label the one-class F1."""
    from sklearn.metrics import f1_score

    rng = np.random.default_rng(3)
    y = rng.choice(["neg", "neu", "pos"], 300)
    a = np.where(rng.random(300) < 0.7, y, rng.choice(["neg", "neu", "pos"], 300))
    b = np.where(rng.random(300) < 0.1, "other", a[::-1])  # a label the gold lacks
    for name, arr in (("gold", y), ("a", a), ("b", b)):
        (tmp_path / f"{name}.txt").write_text("\n".join(arr) + "\n")
    (tmp_path / "labels.txt").write_text("neg\nneu\npos\n")
    files = [str(tmp_path / f"{n}.txt") for n in ("gold", "a", "b")]
    for spec in ("neg,neu,pos", str(tmp_path / "labels.txt")):
        out = io.StringIO()
        assert main(["compare", *files, "-m", "f1_macro", "-B", "99", "--format", "csv",
                     "--labels", spec], out=out) == 0
        got = pd.read_csv(io.StringIO(out.getvalue()))
        want = f1_score(y, b, labels=["neg", "neu", "pos"], average="macro")
        assert got.loc[0, "score_b"] == pytest.approx(want, abs=1e-12)
        err = capsys.readouterr().err
        assert "sigtest: warning:" in err and "'other'" in err and "Traceback" not in err
    out = io.StringIO()
    assert main(["compare", *files, "-m", "f1", "-B", "99", "--format", "csv",
                 "--pos-label", "pos"], out=out) == 0
    got = pd.read_csv(io.StringIO(out.getvalue()))
    want = f1_score(y, a, labels=["pos"], average="macro")  # F1 of the class "pos"
    assert got.loc[0, "score_a"] == pytest.approx(want, abs=1e-12)



def test_cli_accuracy_and_f1_with_and_without_pos_label(tmp_path, capsys):
    """Issue 20: --pos-label goes to the one-class metrics only; default 1 for 0/1 labels."""
    from sklearn.metrics import f1_score

    rng = np.random.default_rng(5)
    y = rng.integers(0, 2, 200)
    a = np.where(rng.random(200) < 0.7, y, 1 - y)
    b = np.where(rng.random(200) < 0.8, y, 1 - y)
    for name, arr in (("gold", y), ("a", a), ("b", b)):
        np.savetxt(tmp_path / f"{name}.txt", arr, fmt="%d")
    files = [str(tmp_path / f"{n}.txt") for n in ("gold", "a", "b")]
    args = ["compare", *files, "-m", "accuracy", "-m", "f1", "-B", "99", "--format", "csv"]
    frames = []
    for extra in ([], ["--pos-label", "1"]):
        out = io.StringIO()
        assert main([*args, *extra], out=out) == 0
        frames.append(pd.read_csv(io.StringIO(out.getvalue())))
    pd.testing.assert_frame_equal(frames[0], frames[1])
    f1_row = frames[0][frames[0].metric == "f1"].iloc[0]
    assert f1_row.score_a == pytest.approx(f1_score(y, a), abs=1e-12)
    capsys.readouterr()
    assert main([*args, "--pos-label", "7"], out=io.StringIO()) == 2
    err = capsys.readouterr().err
    assert "--pos-label" in err and "Traceback" not in err


def test_pvalues_never_print_as_zero(tmp_path):
    """Issue 8: tiny p-values printed as 0.0000."""
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 2000)
    a = np.where(rng.random(2000) < 0.6, y, rng.integers(0, 3, 2000))
    b = np.where(rng.random(2000) < 0.9, y, rng.integers(0, 3, 2000))
    files = []
    for name, arr in (("gold", y), ("a", a), ("b", b)):
        np.savetxt(tmp_path / f"{name}.txt", arr, fmt="%d")
        files.append(str(tmp_path / f"{name}.txt"))
    for fmt in ("text", "latex"):
        out = io.StringIO()
        # delta ~ .19 at N = 2000: no bootstrap resample reaches it (p = 1/(B+1))
        assert main(["compare", *files, "-m", "accuracy", "--test", "bootstrap",
                     "-B", "20000", "--format", fmt], out=out) == 0
        text = out.getvalue()
        # the LaTeX report escapes "<" (it prints as "<" in any font encoding)
        tiny = "<0.0001" if fmt == "text" else r"\textless{}0.0001"
        assert tiny in text and "0.0000" not in text, text


def test_defaults_and_output_format_follow_the_python_api(tmp_path, systems):
    """No --test/-B: compare's own default (B chosen for the family), not a CLI copy of
    it; no --format: the -o suffix chooses csv/json/latex (a .csv file holding the text
    table was a new user's surprise)."""
    y, a, b = systems
    for name, arr in (("gold", y), ("base", a), ("new", b)):
        np.savetxt(tmp_path / f"{name}.txt", arr, fmt="%d")
    files = [str(tmp_path / f"{n}.txt") for n in ("gold", "base", "new")]
    status = main(["compare", *files, "-m", "f1_macro", "--seed", "1",
                   "-o", str(tmp_path / "out.csv")], out=io.StringIO())
    assert status == 0
    got = pd.read_csv(tmp_path / "out.csv")
    want = compare(y, {"base": a, "new": b}, metrics="f1_macro", random_state=1).to_frame()
    # the columns of to_frame, then the reproducibility signature (issue 14)
    assert list(got.columns) == list(want.columns) + ["signature"]
    np.testing.assert_array_equal(got["n_resamples"], want["n_resamples"])
    np.testing.assert_allclose(got["pvalue"], want["pvalue"], rtol=1e-12)
    assert main(["compare", *files, "-m", "accuracy", "-o", str(tmp_path / "o.json")],
                out=io.StringIO()) == 0
    assert pd.read_json(tmp_path / "o.json").loc[0, "system_b"] == "new"
    assert main(["compare", *files, "-m", "accuracy", "-o", str(tmp_path / "o.txt")],
                out=io.StringIO()) == 0
    assert (tmp_path / "o.txt").read_text().startswith("ComparisonResult")


# ------------------------------------------------------------------ --help is light
_HELP_PROBE = """
import sys
from sigtest.cli import main
for argv in ({argvs}):
    try:
        main(list(argv))
    except SystemExit as exc:
        assert exc.code == 0, (argv, exc.code)
print(sorted(m for m in ("numpy", "pandas", "sklearn", "scipy", "numba") if m in sys.modules))
"""


@pytest.mark.parametrize("argv", [["--help"], ["run", "--help"], ["compare", "--help"],
                                  ["--version"]])
def test_help_imports_neither_numpy_nor_pandas(argv):
    # sigtest --help builds the whole parser (the 'run' choices included) from
    # numpy-free modules: no computing library is loaded (not a timing test)
    out = subprocess.run([sys.executable, "-c", _HELP_PROBE.format(argvs=f"{argv!r},")],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.strip().splitlines()
    assert lines[-1] == "[]", out.stdout
    if argv[0] == "run":
        assert "average" in out.stdout and "pool" in out.stdout  # choices are shown


def test_runs_modes_have_one_definition():
    # the CLI's numpy-free choices and the modes the workflows accept are the same
    from sigtest._constants import RUNS_MODES
    from sigtest._workflows.runs import RUNS_MODES as WORKFLOW_RUNS_MODES

    assert tuple(WORKFLOW_RUNS_MODES) == RUNS_MODES
    assert WORKFLOW_RUNS_MODES is RUNS_MODES  # one definition, not two equal copies


def test_every_correction_of_adjust_pvalues_is_a_cli_choice(tmp_path, systems):
    # issue 24: --correction offers the methods compare and adjust_pvalues accept
    from sigtest._constants import CORRECTIONS
    from sigtest.tests_._corrections import CORRECTIONS as ADJUST_CORRECTIONS

    assert ADJUST_CORRECTIONS is CORRECTIONS  # one definition
    y, a, b = systems
    c = np.where(np.random.default_rng(1).random(300) < 0.75, y, (y + 1) % 3)
    for name, arr in (("gold", y), ("base", a), ("new", b), ("other", c)):
        np.savetxt(tmp_path / f"{name}.txt", arr, fmt="%d")
    out = io.StringIO()
    status = main(["compare", str(tmp_path / "gold.txt"), str(tmp_path / "base.txt"),
                   str(tmp_path / "new.txt"), str(tmp_path / "other.txt"), "-m", "accuracy",
                   "--test", "mcnemar", "--correction", "hommel", "--format", "csv"], out=out)
    assert status == 0
    got = pd.read_csv(io.StringIO(out.getvalue()))
    want = compare(y, {"base": a, "new": b, "other": c}, metrics="accuracy", test="mcnemar",
                   correction="hommel").to_frame()
    np.testing.assert_allclose(got["pvalue_adj"], want["pvalue_adj"], rtol=1e-12)


def test_max_t_and_multiplier_draws_are_cli_choices(tmp_path, systems):
    # issue 23: --correction offers compare's max-T names and "auto" (the default, as
    # compare's), --bootstrap the source of the shared draws; one definition of each
    from sigtest._constants import BOOTSTRAP_OPTIONS, MAXT_CORRECTIONS
    from sigtest._workflows.compare import maxt

    assert maxt.BOOTSTRAP_OPTIONS is BOOTSTRAP_OPTIONS
    assert maxt.MAXT_CORRECTIONS is MAXT_CORRECTIONS
    y, a, b = systems
    rng = np.random.default_rng(2)
    cs = {f"c{i}": np.where(rng.random(300) < 0.6 + 0.05 * i, y, (y + 1) % 3)
          for i in range(4)}
    paths = [str(tmp_path / "gold.txt")]
    np.savetxt(paths[0], y, fmt="%d")
    for name, arr in (("base", a), ("new", b), *cs.items()):
        np.savetxt(tmp_path / f"{name}.txt", arr, fmt="%d")
        paths.append(str(tmp_path / f"{name}.txt"))
    out = io.StringIO()
    args = ["compare", *paths, "-m", "accuracy", "--test", "bca", "-B", "999",
            "--correction", "max-t", "--bootstrap", "multiplier", "--format", "csv"]
    assert main(args, out=out) == 0
    got = pd.read_csv(io.StringIO(out.getvalue()))
    res = compare(y, {"base": a, "new": b, **cs}, metrics="accuracy",
                  test=BCaInterval(n_resamples=999), correction="max-t",
                  bootstrap="multiplier", random_state=0)
    assert res.bootstrap == "multiplier"
    want = res.to_frame()
    np.testing.assert_allclose(got["pvalue_adj"], want["pvalue_adj"], rtol=1e-12)
    np.testing.assert_allclose(got["ci_low"], want["ci_low"], rtol=1e-12)
    # the default is compare's: "auto" (Holm on this small family)
    out = io.StringIO()
    assert main(["compare", *paths[:3], "-m", "accuracy", "--test", "mcnemar",
                 "--format", "csv"], out=out) == 0
    got = pd.read_csv(io.StringIO(out.getvalue()))
    want = compare(y, {"base": a, "new": b}, metrics="accuracy", test="mcnemar").to_frame()
    np.testing.assert_allclose(got["pvalue_adj"], want["pvalue_adj"], rtol=1e-12)
