"""Issue 15 section 2: the experiment store survives kills and hostile or damaged files.

* the lock is released by the operating system when its holder dies (SIGKILL,
  SIGTERM), and still makes others wait for a live holder;
* every path taken from the manifest stays inside the store;
* a run's outputs are published as one unit: a crash at *every* file
  operation of ``run()``, ``feed()`` and ``remove()`` (forked children that
  ``os._exit`` just before the k-th ``os.replace`` / ``os.unlink`` /
  ``os.fsync``) leaves the previous complete state or the new one;
* leftovers of killed writers are cleaned on open (never user files);
  truncated tables and manifests are detected, and the previous manifest is
  kept and restored by ``Experiment.recover()``;
* damaged prediction files (short, ``.npz``, truncated, pickle, missing) and
  malformed manifests are ``ValueError`` naming the file.

The random-kill test of section 4 is in ``tests/store/test_store_kills.py``.
"""

import io
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import sigtest._workflows.compare.api
import sigtest._store.files as store_module
from sigtest import Experiment, PairedPermutation
from sigtest._store.store import ExperimentStore

posix_only = pytest.mark.skipif(os.name != "posix", reason="fork and signals (POSIX)")
N = 60


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, N)
    return y, {name: np.where(rng.random(N) < acc, y, rng.integers(0, 3, N))
               for name, acc in (("A", 0.6), ("B", 0.8))}


def _store(path, data):
    y, systems = data
    exp = Experiment(path)
    exp.feed("A", systems["A"], y_true=y)
    exp.feed("B", systems["B"])
    return exp


def _manifest(path):
    return json.loads((path / "manifest.json").read_text())


def _write_manifest(path, manifest):
    (path / "manifest.json").write_text(json.dumps(manifest))


def _files(path):
    """Every file below ``path`` (relative posix names), the lock file excluded."""
    return sorted(p.relative_to(path).as_posix() for p in path.rglob("*") if p.is_file())


# ---------------------------------------------------------------- the lock
_HOLDER = r"""
import sys, time
from sigtest._store.store import ExperimentStore
with ExperimentStore(sys.argv[1]).lock():
    print("locked", flush=True)
    time.sleep(120)
"""


@posix_only
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
def test_a_dead_holder_never_blocks_the_next_writer(tmp_path, data, sig):
    """Today's main: the lock file outlives a killed holder; every feed then waits 60 s."""
    exp = _store(tmp_path, data)
    child = subprocess.Popen([sys.executable, "-c", _HOLDER, str(tmp_path)],
                             stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "locked"
        # a live holder still makes others wait, then raise
        start = time.monotonic()
        with pytest.raises(RuntimeError, match="Could not lock .* within 0.3 s"):
            with ExperimentStore(tmp_path).lock(timeout=0.3):
                pass  # pragma: no cover
        assert time.monotonic() - start >= 0.3
    finally:
        child.send_signal(sig)
        child.wait(timeout=30)
    assert child.returncode == -sig
    start = time.monotonic()
    with ExperimentStore(tmp_path).lock(timeout=2.0):  # main: RuntimeError after 2 s
        pass
    assert time.monotonic() - start < 1.0
    assert exp.feed("B", data[1]["A"]) == 1
    assert not (tmp_path / ".manifest.lock").exists()


def test_lock_excludes_threads_and_processes_alike(tmp_path):
    """Read-modify-write of a counter under the lock from 4 threads, each its own store
    object (its own open file): no increment is lost, so no two holders ever coexist,
    also when a holder deletes the lock file on release while others wait for it."""
    counter = tmp_path / "count"
    counter.write_text("0")
    errors = []

    def worker():
        store = ExperimentStore(tmp_path)
        try:
            for _ in range(40):
                with store.lock(timeout=30):
                    value = int(counter.read_text())
                    time.sleep(0)
                    counter.write_text(str(value + 1))
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and counter.read_text() == "160"
    assert not (tmp_path / ".manifest.lock").exists()


def test_lock_is_reentrant_within_one_store_object(tmp_path):
    store = ExperimentStore(tmp_path)
    with store.lock(timeout=0.2):
        with store.lock(timeout=0.2):  # would time out if it locked the file again
            pass
        assert (tmp_path / ".manifest.lock").exists()
    assert not (tmp_path / ".manifest.lock").exists()


# ------------------------------------------------------------ path traversal
def _deep(tmp_path):
    return tmp_path / "a" / "b" / "store"


def test_a_system_key_cannot_make_feed_write_outside(tmp_path, data):
    """Today's main: feed writes ``store/runs/../../ESCAPED_r1.npy``, outside the store."""
    path = _deep(tmp_path)
    exp = _store(path, data)
    manifest = _manifest(path)
    manifest["systems"]["A"]["key"] = "../../ESCAPED"
    _write_manifest(path, manifest)
    before = _files(tmp_path)
    with pytest.raises(ValueError, match=r"manifest.json' is corrupt: systems\['A'\]\['key'\] "
                                         r"is '../../ESCAPED', not a store key"):
        exp.feed("A", data[1]["A"])
    with pytest.raises(ValueError, match="is corrupt"):
        exp.feed("C", data[1]["A"])
    assert _files(tmp_path) == before
    assert not [p for p in tmp_path.rglob("*") if "ESCAPED" in p.name]


@pytest.mark.parametrize("file", ["../../x.npy", "runs/../../x.npy", "runs/../../../x.npy",
                                  "/tmp/x.npy", "runs/sub/x.npy", "runs\\..\\x.npy",
                                  "manifest.json", "runs/.npy", 7])
def test_a_run_file_outside_runs_is_never_read(tmp_path, data, file):
    """Today's main: ``"../../x.npy"`` is read and tested like a stored run."""
    path = _deep(tmp_path)
    exp = _store(path, data)
    for outside in (tmp_path / "a" / "x.npy", tmp_path / "x.npy", path.parent / "x.npy"):
        np.save(outside, data[1]["A"])  # valid predictions: only the path is wrong
    manifest = _manifest(path)
    manifest["systems"]["B"]["runs"]["0"]["file"] = file
    _write_manifest(path, manifest)
    match = r"manifest.json' is corrupt: systems\['B'\]\['runs'\]\['0'\]\['file'\] is"
    for call in (lambda: exp.load_run("B", 0), lambda: exp.systems,
                 lambda: exp.run(metrics="accuracy", test=PairedPermutation(n_resamples=99)),
                 lambda: Experiment.load(path), lambda: exp.feed("C", data[1]["B"]),
                 lambda: exp.remove("B")):
        with pytest.raises(ValueError, match=match):
            call()
    assert not (path / "results.tsv").exists()


# ------------------------------------------------ crash at every file operation
class _Crash:
    """In a forked child: ``os._exit(86)`` just before the k-th file operation.

    Operations on the lock file are not counted (a kill while holding the
    lock is tested above), so each test here checks one property.
    """

    OPS = ("replace", "unlink", "fsync", "link")

    def __init__(self, k):
        self.k, self.calls = k, 0
        self.saved = {name: getattr(os, name) for name in self.OPS}

    def __enter__(self):
        for name, func in self.saved.items():
            setattr(os, name, self._wrap(func))

    def __exit__(self, *exc):
        for name, func in self.saved.items():
            setattr(os, name, func)

    def _wrap(self, func):
        def op(*args, **kwargs):
            if any(str(a).endswith(".manifest.lock") for a in args):
                return func(*args, **kwargs)  # the lock: tested on its own above
            if self.calls == self.k:
                os._exit(86)
            self.calls += 1
            return func(*args, **kwargs)
        return op


def _crash_points(action):
    """Yield ``k`` for each crash point of ``action`` (run in a forked child), then stop.

    The child exits 86 when it crashed before operation ``k`` and 0 when
    ``action`` completed (so there was no operation ``k``).
    """
    for k in range(200):
        pid = os.fork()
        if pid == 0:  # pragma: no cover - child
            code = 1
            try:
                with _Crash(k):
                    action()
                code = 0
            finally:
                os._exit(code)
        _, status = os.waitpid(pid, 0)
        code = os.waitstatus_to_exitcode(status)
        assert code in (0, 86), (k, code)
        yield k, code == 86
        if code == 0:
            return
    raise AssertionError("no end")  # pragma: no cover


def _leftovers(path):
    """Temporary files, commit records and unreferenced run files in the store."""
    used = {r["file"] for e in _manifest(path)["systems"].values() for r in e["runs"].values()}
    return [f for f in _files(path) if f.endswith(".tmp") or "commit" in f
            or (f.startswith("runs/") and f not in used)]


@posix_only
def test_run_outputs_are_published_as_one_unit(tmp_path, data, monkeypatch):
    """Today's main: a crash between writing results.tsv and outcomes.json leaves the new
    table beside the old outcomes (torn)."""
    exp = _store(tmp_path, data)
    test = PairedPermutation(n_resamples=99)
    new = exp.run(metrics=("accuracy", "f1_macro"), test=test, random_state=2)
    new_table = (tmp_path / "results.tsv").read_bytes()
    exp.run(metrics=("accuracy", "f1_macro"), test=test, random_state=1)
    old = {name: (tmp_path / name).read_bytes() for name in ("results.tsv", "outcomes.json")}
    assert old["results.tsv"] != new_table
    # the children skip compare (no numba after fork): it returns the result of seed 2
    monkeypatch.setattr(sigtest._workflows.compare.api, "compare", lambda *a, **k: new)
    outcomes_seen, torn, left = set(), [], []
    for k, crashed in _crash_points(lambda: exp.run(metrics=("accuracy", "f1_macro"),
                                                    test=test, random_state=2)):
        again = Experiment.load(tmp_path)  # completes or discards what the crash left
        table = (tmp_path / "results.tsv").read_bytes()
        text = (tmp_path / "outcomes.json").read_bytes()
        if table == old["results.tsv"] and text == old["outcomes.json"]:
            outcomes_seen.add("old")
        elif table == new_table and json.loads(text)["seeds"]["random_state"] == 2:
            outcomes_seen.add("new")
            outcomes = again.load_outcomes()
            pd.testing.assert_frame_equal(again.load_results(),
                                          pd.DataFrame(outcomes["records"]),
                                          check_exact=True, check_dtype=False)
        else:
            torn.append(k)
        assert crashed or table == new_table
        left += [(k, f) for f in _leftovers(tmp_path)]
        for name, content in old.items():  # back to the old pair for the next crash point
            (tmp_path / name).write_bytes(content)
    assert torn == []  # a mix of both runs
    assert left == []
    assert outcomes_seen == {"old", "new"} and k >= 5  # both outcomes of a crash occur


@posix_only
def test_a_crash_anywhere_in_feed_or_remove_leaves_a_usable_store(tmp_path, data):
    y, systems = data
    exp = _store(tmp_path, data)
    exp.feed("B", systems["A"])  # run 1
    base = {f: (tmp_path / f).read_bytes() for f in _files(tmp_path)}
    flipped = (systems["B"] + 1) % 3
    actions = {
        "new system": (lambda: exp.feed("C", flipped), ("C", 0), None, flipped),
        "overwrite": (lambda: exp.feed("B", flipped, run=0, overwrite=True), ("B", 0),
                      systems["B"], flipped),
        "remove": (lambda: exp.remove("B", run=0), ("B", 0), systems["B"], None),
    }
    for what, (action, (system, run), before, after) in actions.items():
        seen = set()
        for k, _ in _crash_points(action):
            again = Experiment.load(tmp_path)
            assert _leftovers(tmp_path) == [], (what, k)
            has = system in again.systems and run in again.runs(system)
            got = again.load_run(system, run)[1] if has else None
            state = ("old" if (got is None and before is None)
                     or (got is not None and before is not None and np.array_equal(got, before))
                     else "new")
            if state == "new":
                assert (got is None) == (after is None), (what, k)
                assert after is None or np.array_equal(got, after), (what, k)
            seen.add(state)
            np.testing.assert_array_equal(again.load_run("A", 0)[1], systems["A"])
            start = time.monotonic()
            assert again.feed("D", systems["A"]) == 0  # the next feed works at once
            assert time.monotonic() - start < 5
            # back to the base state for the next crash point
            for f in _files(tmp_path):
                if f not in base:
                    (tmp_path / f).unlink()
            for f, content in base.items():
                (tmp_path / f).parent.mkdir(exist_ok=True)
                (tmp_path / f).write_bytes(content)
        assert seen == {"old", "new"}, what


# -------------------------------------------------------------------- hygiene
def test_open_cleans_what_killed_writers_left_and_nothing_else(tmp_path, data):
    """Today's main: every leftover stays."""
    exp = _store(tmp_path, data)
    ours = [".manifest.json.k3j_x9ab.tmp", ".manifest.json.bak.1f2e3d4c.tmp",
            ".results.tsv.abcd1234.tmp", ".outcomes.json.zz_99xyz.tmp",
            "..outputs.commit.q1w2e3r4.tmp", "runs/.s000_r1.npy.a1b2c3d4.tmp",
            "runs/.s001_r0-0a1b2c3d.npy.xyzxyzab.tmp",
            "runs/s001_r7.npy", "runs/s004_r0-deadbeef.npy"]
    users = ["notes.txt", ".hidden.tmp", "x.tmp", "runs/mine.npy", "runs/s001_r7.txt",
             "runs/.s001.tmp", "runs/s1_r0.npy", "runs/S001_r0.npy", "sub/.manifest.json.a.tmp",
             "runs/s001_r0-XYZ.npy"]
    (tmp_path / "sub").mkdir()
    for name in ours + users:
        (tmp_path / name).write_bytes(b"x")
    Experiment.load(tmp_path)
    left = _files(tmp_path)
    assert not [f for f in ours if f in left]
    assert all(f in left for f in users)
    assert exp.runs("A") == [0] and exp.runs("B") == [0]


def test_a_truncated_results_table_is_an_error_not_a_garbled_row(tmp_path, data):
    """Today's main: the cut table loads as a short row (NaN p-value)."""
    exp = _store(tmp_path, data)
    exp.run(metrics=("accuracy", "f1_macro"), test=PairedPermutation(n_resamples=99))
    path = tmp_path / "results.tsv"
    full = path.read_bytes()
    for cut in (len(full) - 7, len(full) - 1, full.rindex(b"\n", 0, len(full) - 1) + 1, 10):
        path.write_bytes(full[:cut])
        for load in (exp.load_results, exp.load_outcomes):
            with pytest.raises(ValueError, match="results.tsv' does not match the run "
                                                 "recorded in .*outcomes.json"):
                load()
    # a table written before outcomes.json recorded its sha256: checked for completeness
    outcomes = json.loads((tmp_path / "outcomes.json").read_text())
    del outcomes["outputs"]
    (tmp_path / "outcomes.json").write_text(json.dumps(outcomes))
    path.write_bytes(full)
    pd.testing.assert_frame_equal(exp.load_results(), pd.DataFrame(outcomes["records"]),
                                  check_exact=True, check_dtype=False)
    for cut in (len(full) - 7, len(full) - 1):
        path.write_bytes(full[:cut])
        with pytest.raises(ValueError, match="results.tsv' is not a complete table"):
            exp.load_results()
    (tmp_path / "outcomes.json").write_text(json.dumps(outcomes)[:-20])
    with pytest.raises(ValueError, match="outcomes.json' is damaged"):
        exp.load_outcomes()


def test_each_manifest_write_keeps_the_previous_one(tmp_path, data):
    y, systems = data
    exp = Experiment(tmp_path)
    exp.feed("A", systems["A"], y_true=y)
    assert not (tmp_path / "manifest.json.bak").exists()
    first = (tmp_path / "manifest.json").read_bytes()
    exp.feed("B", systems["B"])
    assert (tmp_path / "manifest.json.bak").read_bytes() == first
    second = (tmp_path / "manifest.json").read_bytes()
    exp.remove("A")
    assert (tmp_path / "manifest.json.bak").read_bytes() == second


@pytest.mark.parametrize("damage", ["truncate", "garbage", "empty", "list", "delete"])
def test_a_damaged_manifest_is_detected_and_recovered(tmp_path, data, damage):
    """Today's main: JSONDecodeError deep inside, no backup, no way back."""
    y, systems = data
    exp = _store(tmp_path, data)
    exp.feed("C", systems["B"])  # the last feed: lost by the recovery
    path = tmp_path / "manifest.json"
    raw = path.read_bytes()
    if damage == "delete":
        path.unlink()
    else:
        path.write_bytes({"truncate": raw[:len(raw) // 2], "garbage": b"\x00\xff" * 40,
                          "empty": b"", "list": b"[1, 2]"}[damage])
    what = {"delete": "is missing", "list": "is corrupt: its content is not a JSON object"
            }.get(damage, "is corrupt: it is not valid JSON")
    for call in (lambda: Experiment.load(tmp_path), lambda: exp.systems,
                 lambda: exp.feed("D", systems["A"]), lambda: exp.gold(),
                 lambda: exp.run(metrics="accuracy"), lambda: exp.remove("A")):
        with pytest.raises(ValueError, match=rf"manifest.json' {what}.*manifest.json.bak'.*"
                                             r"recover\(\) restores it"):
            call()
    report = exp.recover()  # the backup: the manifest before C was fed
    assert report["restored"] and report["dropped"] == []
    assert (report["corrupt_copy"] is None) == (damage == "delete")
    if damage != "delete":
        assert (tmp_path / "manifest.json.corrupt").read_bytes() != raw
    assert exp.systems == ["A", "B"]
    assert not (tmp_path / "runs" / "s002_r0.npy").exists()  # its orphan file is cleaned
    np.testing.assert_array_equal(exp.load_run("B", 0)[1], systems["B"])
    assert exp.feed("C", systems["B"]) == 0
    assert exp.recover() == {"restored": False, "dropped": [], "corrupt_copy": None}


def test_recover_keeps_the_runs_whose_files_exist_and_needs_a_good_backup(tmp_path, data):
    y, systems = data
    exp = _store(tmp_path, data)
    exp.feed("A", systems["B"], run=0, overwrite=True)  # the backup's file for A/0 is gone
    (tmp_path / "manifest.json").write_text("{")
    with pytest.warns(UserWarning, match=r"\[\['A', 0\]\]"):
        assert exp.recover()["dropped"] == [["A", 0]]
    assert exp.systems == ["B"] and exp.gold()[0].tolist() == list(range(N))
    (tmp_path / "manifest.json").write_text("{")
    (tmp_path / "manifest.json.bak").write_text("[1, 2")
    with pytest.raises(ValueError, match="cannot be recovered: the backup is damaged too"):
        exp.recover()
    (tmp_path / "manifest.json.bak").unlink()
    with pytest.raises(ValueError, match="cannot be recovered: there is no backup"):
        exp.recover()
    with pytest.raises(ValueError, match=r"is corrupt.*No backup manifest"):
        Experiment.load(tmp_path)


def _malformed():
    """``(name, edit of the manifest, words of the message)``."""
    def at(*keys, value=None, drop=False):
        def edit(m):
            for key in keys[:-1]:
                m = m[key]
            if drop:
                del m[keys[-1]]
            else:
                m[keys[-1]] = value
        return edit
    return [
        ("not sigtest", lambda m: m.clear() or m.update({"x": 1}), "version 1 or 2"),
        ("no systems", at("systems", drop=True), "the key 'systems' is missing"),
        ("systems list", at("systems", value=[1]), "'systems' is not an object"),
        ("gold str", at("gold", value="x"), "'gold' is not an object"),
        ("no gold ids", at("gold", "ids", drop=True), r"gold\['ids'\] is not a non-empty"),
        ("short y_true", lambda m: m["gold"]["y_true"].pop(), r"gold\['y_true'\] is not a list"),
        ("ragged y_true", at("gold", "y_true", value=[[0, 1]] * (N - 1) + [[1]]),
         r"gold\['y_true'\] does not hold labels"),
        ("dup ids", at("gold", "ids", value=[0] * N), "duplicate ids"),
        ("mixed ids", at("gold", "ids", value=["a"] + list(range(1, N))), "not all integers"),
        ("long groups", at("gold", "groups", value=[0] * (N + 1)), r"gold\['groups'\]"),
        ("system list", at("systems", "A", value=[]), r"systems\['A'\] is not an object"),
        ("no key", at("systems", "A", "key", drop=True), r"systems\['A'\]\['key'\] is None"),
        ("same key", at("systems", "A", "key", value="s001"), "key of another system"),
        ("runs list", at("systems", "A", "runs", value=[]), r"\['runs'\] is not an object"),
        ("run name", lambda m: m["systems"]["A"]["runs"].update({"x": {}}), "not a run number"),
        ("run list", at("systems", "A", "runs", "0", value=[]), r"\['0'\] is not an object"),
        ("no ids", at("systems", "A", "runs", "0", "ids", drop=True), r"\['ids'\] is not a list"),
        ("no shape", at("systems", "A", "runs", "0", "shape", drop=True), r"\['shape'\] is None"),
        ("bad shape", at("systems", "A", "runs", "0", "shape", value=[N, 2, 1]), "not the shape"),
        ("short ids", lambda m: m["systems"]["A"]["runs"]["0"]["ids"].pop(),
         rf"holds {N - 1} ids but the run's shape is \[{N}\]"),
    ]


@pytest.mark.parametrize("name, edit, words", _malformed(), ids=[c[0] for c in _malformed()])
def test_a_malformed_manifest_is_a_value_error_naming_file_and_key(tmp_path, data, name,
                                                                   edit, words):
    """Today's main: AttributeError / KeyError / TypeError from deep inside."""
    exp = _store(tmp_path, data)
    manifest = _manifest(tmp_path)
    edit(manifest)
    _write_manifest(tmp_path, manifest)
    before = _files(tmp_path)
    for call in (lambda: Experiment.load(tmp_path), lambda: exp.systems,
                 lambda: exp.load_run("A", 0), lambda: exp.feed("B", data[1]["A"]),
                 lambda: exp.remove("B"), lambda: exp.run(metrics="accuracy")):
        with pytest.raises(ValueError, match=f"manifest.json.*{words}"):
            call()
    assert _files(tmp_path) == before


def test_run_ids_without_gold_in_the_manifest_are_reported(tmp_path, data):
    """Today's main: an unknown id indexes position -1 and the run is silently shifted."""
    exp = _store(tmp_path, data)
    manifest = _manifest(tmp_path)
    manifest["systems"]["B"]["runs"]["0"]["ids"][3] = 10_000
    _write_manifest(tmp_path, manifest)
    with pytest.raises(ValueError, match=r"manifest.json' is corrupt: systems\['B'\]\['runs'\]"
                                         r"\['0'\]\['ids'\] holds ids without a gold label"):
        exp.run(metrics="accuracy", test=PairedPermutation(n_resamples=99))


# ------------------------------------------------------- damaged prediction files
def _short(path):
    np.save(path, np.load(path)[:-5])


def _npz(path):
    arr = np.load(path)
    with open(path, "wb") as fh:
        np.savez(fh, arr)


def _truncated(path):
    raw = path.read_bytes()
    path.write_bytes(raw[:len(raw) - 9])


def _pickle(path):
    np.save(path, np.array([{"a": 1}] * N, dtype=object), allow_pickle=True)


def _text(path):
    path.write_text("0\n1\n2\n")


@pytest.mark.parametrize("damage, words", [
    (_short, rf"holds an array of shape \({N - 5},\) but the manifest records shape \({N},\) "
             rf"for its {N} ids"),
    (_npz, r"is a .npz \(zip\) archive, not a .npy array"),
    (_truncated, "is truncated or damaged: cannot read it as a .npy array"),
    (_pickle, "is truncated or damaged: cannot read it as a .npy array.*pickle"),
    (_text, "is not a .npy file"),
    (lambda p: p.write_bytes(b""), "is empty"),
    (lambda p: p.unlink(), "is missing"),
], ids=["short", "npz", "truncated", "pickle", "text", "empty", "missing"])
def test_a_damaged_prediction_file_is_a_value_error_naming_it(tmp_path, data, damage, words):
    """Today's main: IndexError (short), AttributeError (.npz), EOFError/ValueError without
    the file name."""
    exp = _store(tmp_path, data)
    damage(tmp_path / "runs" / "s001_r0.npy")
    match = rf"prediction file '.*runs/s001_r0.npy' of run 0 of system 'B' {words}"
    with pytest.raises(ValueError, match=match):
        exp.load_run("B", 0)
    with pytest.raises(ValueError, match=match):
        exp.run(metrics="accuracy", test=PairedPermutation(n_resamples=99))
    np.testing.assert_array_equal(exp.load_run("A", 0)[1], data[1]["A"])


def test_module_names_the_store_files():
    """The patterns of the files the store may delete: its own names only."""
    assert store_module._STORE_NPY.fullmatch("s000_r12-0a1b2c3d.npy")
    assert not store_module._STORE_NPY.fullmatch("s000_r1.npy.bak")
    assert not store_module._RUN_FILE.fullmatch("runs/../x.npy")
    assert not store_module._RUN_FILE.fullmatch("runs/..npy")
    assert store_module._RUN_FILE.fullmatch("runs/s000_r0-0a1b2c3d.npy")


def test_a_read_that_straddles_a_publication_is_retried(tmp_path, data, monkeypatch):
    """Another process publishes run 2 between the reader's reads of results.tsv (run 1)
    and outcomes.json (run 2): the reader notices (sha256) and reads again under the lock,
    returning run 2's table with run 2's outcomes, never a mix."""
    exp = _store(tmp_path, data)
    test = PairedPermutation(n_resamples=99)
    frames = {seed: exp.run(metrics=metrics, test=test, random_state=seed).to_frame()
              for seed, metrics in ((2, ("accuracy", "f1_macro")), (1, "accuracy"))}
    read_bytes, calls = Path.read_bytes, []

    def racing_read(self):
        out = read_bytes(self)
        if self.name == "results.tsv" and not calls:
            calls.append(self)
            ExperimentStore(tmp_path).publish(frames[2], {"seeds": {"random_state": 2}})
        return out

    monkeypatch.setattr(Path, "read_bytes", racing_read)
    table, outcomes = ExperimentStore(tmp_path)._outputs()
    assert calls and outcomes["seeds"]["random_state"] == 2
    pd.testing.assert_frame_equal(pd.read_csv(io.BytesIO(table), sep="\t"), frames[2],
                                  check_dtype=False)
