"""Command-line (and library) messages that point the right way.

* a misspelt metric, test or scorer name gets "Did you mean ...?" before the
  list of valid names, in Python and on the command line alike, and so does
  a misspelt choice of an option or command;
* a table of ids and labels given without ``--id-column`` hints at
  ``--id-column`` / ``--label-column``, and the hinted command runs;
* ``--encoding`` reads files in other encodings;
* no message of a battery of bad inputs shows a numpy repr (``np.str_('id')``,
  ``np.int64(297)``).
"""

import io

import numpy as np
import pandas as pd
import pytest

import sigtest
from sigtest import read_scores
from sigtest.cli import main


def _cli(argv, capsys):
    out = io.StringIO()
    status = main([str(a) for a in argv], out=out)
    return status, out.getvalue(), capsys.readouterr().err


def _error(func):
    with pytest.raises((ValueError, TypeError)) as info:
        func()
    return str(info.value)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Gold and two prediction files: id,label tables (text and 0/1 labels) and plain ones."""
    path = tmp_path_factory.mktemp("messages")
    rng = np.random.default_rng(5)
    n = 40
    gold = rng.integers(0, 2, n)
    preds = {s: np.where(rng.random(n) < p, gold, 1 - gold) for s, p in (("a", .7), ("b", .8))}
    words = np.array(["neg", "pos"])
    for name, labels in (("gold", gold), *preds.items()):
        pd.DataFrame({"id": [f"d{i:03d}" for i in range(n)], "label": words[labels]}).to_csv(
            path / f"{name}.csv", index=False)
        pd.DataFrame({"id": np.arange(297, 297 + n), "label": labels}).to_csv(
            path / f"{name}_num.csv", index=False)
        (path / f"{name}.txt").write_text("".join(f"{v}\n" for v in words[labels]))
    return path


@pytest.mark.parametrize("lookup, typo, meant", [
    (sigtest.get_metric, "f1_macr", "f1_macro"),
    (sigtest.get_metric, "Accuracy", "accuracy"),
    (sigtest.get_metric, "neg_log_los", "neg_log_loss"),
    (sigtest.get_test, "permutaton", "permutation"),
    (sigtest.get_scorer, "balanced_acuracy", "balanced_accuracy"),
])
def test_a_typo_gets_did_you_mean_before_the_list(lookup, typo, meant):
    message = _error(lambda: lookup(typo))
    assert f"Did you mean '{meant}'" in message
    assert message.index("Did you mean") < message.index("Valid names are")
    assert "Did you mean" not in _error(lambda: lookup("zzzzzzzz"))


@pytest.mark.parametrize("option, typo, meant", [("-m", "f1_macr", "f1_macro"),
                                                 ("--test", "permutaton", "permutation")])
def test_the_command_line_answers_did_you_mean(files, capsys, option, typo, meant):
    for argv in ([files / "gold.txt", files / "a.txt", files / "b.txt"],
                 ["--scores", files / "missing.csv"]):
        # the name is checked before any file is read
        status, _, err = _cli(["compare", *argv, option, typo], capsys)
        assert status == 2 and f"Did you mean '{meant}'" in err, err
        assert err.index("Did you mean") < err.index("Valid names are")


@pytest.mark.parametrize("argv, meant", [
    (["compar"], "compare"),
    (["compare", "g.txt", "a.txt", "--correction", "holmm"], "holm"),
    (["compare", "g.txt", "a.txt", "--format", "markdwn"], "markdown"),
])
def test_a_misspelt_choice_gets_did_you_mean_before_the_choices(capsys, argv, meant):
    status, _, err = _cli(argv, capsys)
    assert status == 2 and f"Did you mean '{meant}'" in err, err
    assert err.index("Did you mean") < err.index("choose from")
    status, _, err = _cli(["compare", "g.txt", "a.txt", "--format", "zzz"], capsys)
    assert status == 2 and "Did you mean" not in err and "choose from" in err


@pytest.mark.parametrize("suffix, header, hint", [
    ("", [], "--id-column id --label-column label"),
    ("_num", [], "--id-column id --label-column label"),
    ("_num", ["--header"], "--id-column 1 --label-column 2"),
])
def test_a_table_of_ids_and_labels_hints_at_the_column_options(files, capsys, suffix, header,
                                                               hint):
    argv = ["compare", files / f"gold{suffix}.csv", files / f"a{suffix}.csv",
            files / f"b{suffix}.csv", "-B", "99", "--no-progress", *header]
    status, _, err = _cli(argv, capsys)
    assert status == 2 and hint in err, err
    status, out, err = _cli(argv + hint.split(), capsys)
    assert status == 0 and "signature:" in out, err


def test_encoding_option_reads_other_encodings(tmp_path, capsys):
    for name in ("gold", "a", "b"):
        (tmp_path / f"{name}.txt").write_bytes("".join(
            f"{w}\n" for w in ["négatif", "positif"] * 10 + ["positif"] * (name == "b")
            + ["négatif"] * (name != "b")).encode("latin-1"))
    files = [tmp_path / f"{n}.txt" for n in ("gold", "a", "b")]
    status, _, err = _cli(["compare", *files, "-B", "99", "--no-progress"], capsys)
    assert status == 2 and "not a UTF-8 text file" in err and "--encoding" in err
    assert "(encoding=)" not in err
    status, _, err = _cli(["compare", *files, "-B", "99", "--no-progress", "--encoding",
                           "latin-1"], capsys)
    assert status == 0, err
    table = tmp_path / "s.csv"
    table.write_bytes("system,item,score\ncafé,1,1\nthé,1,0\n".encode("cp1252"))
    status, _, err = _cli(["compare", "--scores", table, "--no-progress"], capsys)
    assert status == 2 and "--encoding latin-1 or cp1252" in err, err
    status, out, err = _cli(["compare", "--scores", table, "--encoding", "cp1252",
                             "--test", "permutation", "--format", "csv", "--no-progress"],
                            capsys)
    assert status == 0 and "café" in out, err
    status, _, err = _cli(["compare", "--scores", table, "--encoding", "klingon"], capsys)
    assert status == 2 and "--encoding 'klingon' is not a known text encoding" in err


def test_dataset_option_needs_a_dataset_column(tmp_path, capsys):
    table = tmp_path / "s.csv"
    table.write_text("system,item,score\na,1,1\nb,1,0\n")
    status, _, err = _cli(["compare", "--scores", table, "--dataset", "x"], capsys)
    assert status == 2 and "--dataset x: the table has no dataset column" in err


def _library_battery():
    """Bad inputs whose values are numpy scalars (ids, labels, names)."""
    y = np.array([0, 1, 1, 0])
    preds = {np.str_("a"): np.array([0, 1, 1, 1]), np.str_("b"): np.array([0, 1, 0, 0])}
    ints = pd.DataFrame({"system": np.repeat(["a", "b"], 4),
                         "item": np.r_[np.arange(4), np.arange(4) + 297].astype(np.int64),
                         "score": np.arange(8) % 2})
    repeated = ints.assign(item=np.array([297, 297, 3, 3, 297, 3, 3, 3]))
    return [
        lambda: read_scores(ints),
        lambda: read_scores(repeated),
        lambda: read_scores(ints.assign(item=np.r_[np.arange(4), np.arange(4)],
                                        group=np.arange(8))),
        lambda: read_scores(ints.assign(dataset=np.repeat([7, 8], 4))).compare(),
        lambda: sigtest.compare(y, preds, baseline=np.str_("c")),
        lambda: sigtest.compare(y, preds, pairs="baseline", baseline=np.str_("c")),
        lambda: sigtest.compare(y, preds, metrics="f1", pos_label=np.int64(297)),
        lambda: sigtest.compare(np.array(["x", "y", "y", "x"]),
                                {"a": np.array(["x", "y", "y", "y"]),
                                 "b": np.array(["x", "y", "x", "x"])},
                                metrics="f1", pos_label=np.str_("q")),
        lambda: sigtest.compare(y, preds, metrics="roc_auc", pos_label=np.int64(297)),
        lambda: sigtest.get_metric(np.str_("f1_macr")),
        lambda: sigtest.get_test(np.str_("permutaton")),
        lambda: sigtest.get_scorer(np.str_("f1_macr")),
        # messages worded by scikit-learn's parameter validation
        lambda: sigtest.PairedPermutation(n_resamples=np.int64(-3)).test(y, y, y),
        lambda: sigtest.compare(y, preds, test=sigtest.BCaInterval(
            confidence_level=np.float64(1.5))),
    ]


def test_no_numpy_repr_in_library_messages():
    for bad in _library_battery():
        message = _error(bad)
        assert "np." not in message and "array(" not in message, message


def test_no_numpy_repr_in_command_line_messages(files, capsys):
    gold, a, b = (files / f"{n}_num.csv" for n in ("gold", "a", "b"))
    shifted = files / "shifted.csv"
    pd.read_csv(b).assign(id=lambda d: d.id + 1).to_csv(shifted, index=False)
    scores = files / "scores.csv"
    pd.DataFrame({"system": np.repeat(["a", "b"], 5), "item": np.r_[297:302, 298:303],
                  "score": np.arange(10) % 2}).to_csv(scores, index=False)
    cases = [
        [gold, a, "--label-column", "nope"],
        [gold, a, "--id-column", "nope", "--label-column", "label"],
        [gold, a, shifted, "--id-column", "id"],
        [files / "gold.txt", files / "a.txt", files / "b.txt", "-m", "f1", "--pos-label", "297"],
        [files / "gold.txt", files / "a.txt", files / "b.txt", "--baseline", "c"],
        ["--scores", scores],
    ]
    for argv in cases:
        status, _, err = _cli(["compare", *argv, "-B", "99", "--no-progress"], capsys)
        assert status == 2 and "np." not in err, err
