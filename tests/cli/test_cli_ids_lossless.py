"""Item ids of the command line's files are labels: their exact text is kept."""

import io

import numpy as np

from sigtest import Experiment
from sigtest.cli import main


def test_feed_ids_keep_their_text(tmp_path, capsys):
    (tmp_path / "ids.txt").write_text("1e3\n1000\n2.5\n2.50\n3\n4\n")
    (tmp_path / "pred.txt").write_text("0\n1\n1\n0\n1\n0\n")
    store = tmp_path / "store"
    status = main(["feed", str(store), "s1", str(tmp_path / "pred.txt"), "--gold",
                   str(tmp_path / "pred.txt"), "--ids", str(tmp_path / "ids.txt"),
                   "--no-header"], out=io.StringIO())
    assert status == 0, capsys.readouterr().err
    ids, gold = Experiment.load(store).gold()
    assert [str(i) for i in ids] == ["1e3", "1000", "2.5", "2.50", "3", "4"]
    np.testing.assert_array_equal(gold, [0, 1, 1, 0, 1, 0])
    # integer ids written plainly stay integers
    (tmp_path / "ints.txt").write_text("".join(f"{i}\n" for i in (10, 2, 1, 3, 4, 5)))
    status = main(["feed", str(tmp_path / "s2"), "s1", str(tmp_path / "pred.txt"), "--gold",
                   str(tmp_path / "pred.txt"), "--ids", str(tmp_path / "ints.txt"),
                   "--no-header"], out=io.StringIO())
    assert status == 0
    ids, _ = Experiment.load(tmp_path / "s2").gold()
    assert ids.dtype.kind == "i" and ids.tolist() == [10, 2, 1, 3, 4, 5]
