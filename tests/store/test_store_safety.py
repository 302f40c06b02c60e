"""Issue 20 (round 3): positional feeds, symlinks in the store, the size of a feed's writes."""

import io
import json
import os

import numpy as np
import pytest

from sigtest import Experiment
from sigtest.cli import main


def _cli(*argv):
    out = io.StringIO()
    status = main([str(a) for a in argv], out=out)
    return status, out.getvalue()


@pytest.fixture
def labels():
    rng = np.random.default_rng(11)
    y = rng.integers(0, 2, 800)
    good = np.where(rng.random(800) < 0.81, y, 1 - y)
    return y, good


# ------------------------------------------------------------ positional feeds
def test_positional_feed_one_row_short_is_refused(tmp_path, labels, capsys):
    y, good = labels
    np.savetxt(tmp_path / "gold.txt", y, fmt="%d")
    np.savetxt(tmp_path / "svm.txt", good, fmt="%d")
    np.savetxt(tmp_path / "svm_missing_line100.txt", np.delete(good, 99), fmt="%d")
    store = tmp_path / "store"
    assert _cli("feed", store, "base", tmp_path / "svm.txt", "--gold", tmp_path / "gold.txt")[0] == 0
    status, _ = _cli("feed", store, "svm", tmp_path / "svm_missing_line100.txt")
    err = capsys.readouterr().err
    assert status == 2
    assert "have 799 items but the store's gold has 800" in err and "--ids" in err
    assert Experiment.load(store).systems == ["base"]  # nothing stored
    exp = Experiment(store)
    for bad in (np.delete(good, 99), np.r_[good, 0]):
        with pytest.raises(ValueError, match="taken by position"):
            exp.feed("svm", bad)
    assert exp.systems == ["base"]
    # the whole file, or a subset with its ids, is accepted
    assert exp.feed("svm", good) == 0
    keep = np.delete(np.arange(800), 99)
    assert exp.feed("sub", good[keep], ids=keep) == 0


def test_intersect_is_suggested_only_for_runs_fed_with_ids(tmp_path, labels):
    y, good = labels
    exp = Experiment(tmp_path / "with_ids")
    exp.feed("base", good, y_true=y)
    keep = np.delete(np.arange(800), 99)
    exp.feed("sub", good[keep], ids=keep)
    with pytest.raises(ValueError, match="on_missing='intersect'"):
        exp.run(metrics="accuracy", test="permutation")
    # a store written before issue 20 may hold a short positional run (ids 0..798,
    # no 'positional' record): intersect would score the shifted file, so it is not
    # suggested
    old = Experiment(tmp_path / "old")
    old.feed("base", good, y_true=y)
    old.feed("svm", np.delete(good, 99), ids=np.arange(799))
    path = old.path / "manifest.json"
    manifest = json.loads(path.read_text())
    for entry in manifest["systems"].values():
        for run in entry["runs"].values():
            del run["positional"]
    path.write_text(json.dumps(manifest))
    with pytest.raises(ValueError, match="fed without ids") as info:
        old.run(metrics="accuracy", test="permutation")
    assert "intersect" not in str(info.value)
    # a run of the new format says so itself
    manifest["systems"]["svm"]["runs"]["0"]["positional"] = True
    path.write_text(json.dumps(manifest))
    with pytest.raises(ValueError, match="fed without ids"):
        old.run(metrics="accuracy", test="permutation")


# -------------------------------------------------------------------- symlinks
def _store(tmp_path, labels):
    y, good = labels
    exp = Experiment(tmp_path / "store")
    exp.feed("a", good, y_true=y)
    exp.feed("b", 1 - good)
    return exp


def test_linked_runs_folder_is_neither_written_nor_swept(tmp_path, labels):
    y, good = labels
    exp = _store(tmp_path, labels)
    outside = tmp_path / "outside"
    os.replace(exp.path / "runs", outside)
    os.symlink(outside, exp.path / "runs")
    victim = outside / "s007_r0.npy"  # store naming, not referenced by the manifest
    np.save(victim, np.arange(3))
    before = sorted(os.listdir(outside))
    with pytest.raises(ValueError, match="symbolic link"):
        Experiment.load(exp.path)
    with pytest.raises(ValueError, match="symbolic link"):
        exp.feed("c", good)
    with pytest.raises(ValueError, match="symbolic link"):
        exp.run(metrics="accuracy", test="permutation")
    with pytest.raises(ValueError, match="symbolic link"):
        exp.remove("b")
    assert sorted(os.listdir(outside)) == before and victim.exists()
    assert _cli("feed", exp.path, "c", tmp_path / "missing.txt")[0] == 2


def test_linked_run_file_is_not_read(tmp_path, labels):
    y, good = labels
    exp = _store(tmp_path, labels)
    outside = tmp_path / "secret.npy"
    np.save(outside, good)
    target = exp.path / "runs" / "s001_r0.npy"
    target.unlink()
    os.symlink(outside, target)
    with pytest.raises(ValueError, match="s001_r0.npy' is a symbolic link"):
        exp.load_run("b", 0)
    with pytest.raises(ValueError, match="symbolic link"):
        exp.run(metrics="accuracy", test="permutation")
    assert outside.exists()


@pytest.mark.parametrize("name", ["manifest.json", "results.tsv"])
def test_linked_manifest_or_output_is_not_read(tmp_path, labels, name):
    exp = _store(tmp_path, labels)
    exp.run(metrics="accuracy", test="permutation")
    moved = tmp_path / name
    os.replace(exp.path / name, moved)
    os.symlink(moved, exp.path / name)
    with pytest.raises(ValueError, match="symbolic link"):
        exp.systems
    if name == "results.tsv":
        with pytest.raises(ValueError, match="symbolic link"):
            exp.load_results()
    assert moved.exists()


def test_a_linked_store_directory_is_allowed(tmp_path, labels):
    exp = _store(tmp_path, labels)
    os.symlink(exp.path, tmp_path / "alias")
    assert Experiment.load(tmp_path / "alias").systems == ["a", "b"]


# ------------------------------------------------- a large gold is written once
@pytest.fixture
def small_inline(monkeypatch):
    """Stores above 50 gold items keep their gold in a gold file (format version 3)."""
    import sigtest._store.files

    monkeypatch.setattr(sigtest._store.files, "GOLD_INLINE_MAX", 50)


def _big(n=300, seed=0):
    rng = np.random.default_rng(seed)
    y = np.array([f"label {k}" for k in range(n)])  # every label distinct
    preds = {name: np.where(rng.random(n) < p, y, "label 0")
             for name, p in (("a", 0.6), ("b", 0.7), ("c", 0.8))}
    return y, preds


def _gold_files(path):
    return sorted(p.name for p in path.iterdir() if p.name.startswith("gold-"))


def test_a_feed_does_not_rewrite_a_large_gold(tmp_path, small_inline):
    y, preds = _big()
    exp = Experiment(tmp_path / "new")
    exp.feed("a", preds["a"], y_true=y)
    (gold,) = _gold_files(exp.path)
    before = os.stat(exp.path / gold)
    sizes = []
    for name in ("b", "c"):
        exp.feed(name, preds[name])
        assert _gold_files(exp.path) == [gold]
        after = os.stat(exp.path / gold)  # the same file, not rewritten
        assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
        text = (exp.path / "manifest.json").read_text()
        assert "label 1" not in text and json.loads(text)["format_version"] == 3
        sizes.append(len(text))
    assert sizes[1] - sizes[0] < 400  # one run entry, not its 300 ids
    # the same comparison as a store written inline (the format of small stores)
    import sigtest._store.files

    twin = Experiment(tmp_path / "inline")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(sigtest._store.files, "GOLD_INLINE_MAX", 10**9)
        for name, arr in preds.items():
            twin.feed(name, arr, y_true=y if name == "a" else None)
        assert json.loads((twin.path / "manifest.json").read_text())["format_version"] == 1
        want = twin.run(metrics="accuracy", test="permutation").to_frame()
    got = Experiment.load(exp.path).run(metrics="accuracy", test="permutation").to_frame()
    assert got.equals(want)
    np.testing.assert_array_equal(Experiment.load(exp.path).gold()[1], y)
    np.testing.assert_array_equal(Experiment.load(exp.path).load_run("b", 0)[0], np.arange(300))


def test_a_store_written_inline_is_read_and_moves_its_gold_out(tmp_path, monkeypatch):
    import sigtest._store.files

    y, preds = _big()
    monkeypatch.setattr(sigtest._store.files, "GOLD_INLINE_MAX", 10**9)  # the d99da9b layout
    exp = Experiment(tmp_path)
    exp.feed("a", preds["a"], y_true=y)
    exp.feed("b", preds["b"][:200], ids=np.arange(200))
    old = json.loads((tmp_path / "manifest.json").read_text())
    assert old["format_version"] == 1 and old["gold"]["y_true"] == y.tolist()
    monkeypatch.setattr(sigtest._store.files, "GOLD_INLINE_MAX", 50)
    exp = Experiment.load(tmp_path)
    assert exp.systems == ["a", "b"]
    exp.feed("c", preds["c"])
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["format_version"] == 3 and len(_gold_files(tmp_path)) == 1
    assert manifest["systems"]["b"]["runs"]["0"]["ids"] == list(range(200))  # given ids kept
    assert manifest["systems"]["c"]["runs"]["0"]["ids"] is None  # positional: 0..n-1
    np.testing.assert_array_equal(exp.gold()[1], y)
    np.testing.assert_array_equal(exp.load_run("c", 0)[0], np.arange(300))


def test_gold_file_changes_backups_and_damage(tmp_path, small_inline):
    y, preds = _big()
    exp = Experiment(tmp_path)
    exp.feed("a", preds["a"][:200], y_true=y[:200])
    first = _gold_files(tmp_path)
    exp.feed("b", preds["b"], y_true=y)  # new ids: a new gold file, the old one kept
    second = _gold_files(tmp_path)
    assert len(second) == 2 and set(first) < set(second)
    exp.feed("c", preds["c"][:250], y_true=y[:250], ids=np.arange(250))
    assert _gold_files(tmp_path) == second  # unchanged gold: nothing written
    (tmp_path / "manifest.json").write_text("{")  # damage: back to before the last feed
    assert exp.recover()["restored"]
    assert exp.systems == ["a", "b"]
    np.testing.assert_array_equal(exp.gold()[1], y)
    (new,) = set(second) - set(first)
    path = tmp_path / new
    path.write_text(path.read_text().replace("label 7", "label 8", 1))
    with pytest.raises(ValueError, match="does not match the sha256"):
        exp.systems
    path.unlink()
    with pytest.raises(ValueError, match="gold file .* is missing"):
        exp.systems


def test_a_linked_gold_file_is_not_read(tmp_path, small_inline):
    y, preds = _big()
    exp = Experiment(tmp_path / "s")
    exp.feed("a", preds["a"], y_true=y)
    (gold,) = _gold_files(exp.path)
    os.replace(exp.path / gold, tmp_path / gold)
    os.symlink(tmp_path / gold, exp.path / gold)
    with pytest.raises(ValueError, match="symbolic link"):
        exp.systems
