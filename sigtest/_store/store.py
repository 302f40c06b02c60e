"""The files of an :class:`~sigtest.experiment.Experiment` store.

Store layout (a directory)::

    manifest.json        gold ids and labels (and cluster / stratum ids),
                         systems, runs (ids, file, shape)
    manifest.json.bak    the previous manifest (see "Recovery" below)
    gold-<hex>.json      a large gold (see below)
    runs/s000_r0.npy     predictions of system 0, run 0 (no pickle)
    results.tsv          tidy table of the last run() (tab separated)
    outcomes.json        parameters, versions, seed, records, summary, letters,
                         and the sha256 of results.tsv (``outputs``)

A large gold (more than :data:`GOLD_INLINE_MAX` items) lives in its own
file ``gold-<hex>.json`` instead: the manifest (format version 3) records
its name and sha256, it is rewritten (under a new name, the previous one
kept for the backup manifest) only when a feed changes the gold, and runs
fed without ids store ``"ids": null`` (``0..n-1``). A feed then writes what
it adds, not the whole gold. Reading a version-3 manifest reads its gold
file back into the same in-memory layout, so the rest of the store sees one
format; a gold file that does not match its sha256 makes the store corrupt.

Cluster (``groups``) and stratum (``strata``) ids are item annotations like
the gold labels: given with a feed for its ``ids``, stored in the manifest's
``gold`` entry aligned with the gold ids, checked to agree on the ids that
later feeds share, and passed to :func:`sigtest.compare` by ``run``. A
manifest holding them has format version 2 (older sigtest versions, which
would ignore them, refuse it); one without them stays version 1.

Writes. Every file is written to a temporary file, flushed to disk and moved
into place with ``os.replace`` (:func:`atomic_write`); ``feed``, ``remove``
and the publication of ``run``'s outputs happen under the store's lock, so
several processes of one pipeline may feed the same store. A feed is checked
against the stored gold and runs (kind, dtype, number of columns, ids)
before anything is written, so a store never holds a run it cannot test.

Lock. ``.manifest.lock`` is locked with ``fcntl.flock`` (POSIX), a lock the
operating system releases when its holder dies, so a writer killed by
SIGKILL or SIGTERM never blocks the next one; a live holder makes others
wait up to ``timeout`` seconds (then ``RuntimeError``). The holder deletes
the file when it is done (a waiter that locked the deleted file notices
and locks the new one). On Windows ``msvcrt.locking`` locks the file
instead (also released by the system when the process ends); there the
empty file stays.

Publication of a run. ``results.tsv`` and ``outcomes.json`` are one unit:
both are first written to temporary files, then a commit record
``.outputs.commit`` (their names and sha256) is written atomically, then
both are moved into place and the record deleted. A process killed before
the record exists leaves the previous outputs untouched (its temporary
files are deleted on the next open); one killed after is completed on the
next open or read (roll forward). ``outcomes.json`` records the sha256 of
``results.tsv``, so a truncated, edited or mismatched table is an error,
never a garbled row.

Hostile or damaged files. Every path taken from the manifest is checked: a
system key must look like ``s000`` and a run file must be a plain
``runs/<name>.npy`` (no folder, no ``..``), else the manifest is reported
as corrupt (``ValueError`` naming the file and the key) and nothing is
read or written; so is a manifest that is not valid JSON or lacks a key.
A prediction file that is missing, not a ``.npy`` array (e.g. an ``.npz``
archive), truncated, or of another shape than its ids is a ``ValueError``
naming the file.

Symbolic links. The store's own entries (``manifest.json``, its backup,
the lock, ``runs/`` and the files in it, ``results.tsv``, ``outcomes.json``,
the commit record) must not be symbolic links: every read, lock and load
checks them and raises :class:`CorruptStoreError` naming the link, before
anything is read, written or deleted, so a linked ``runs/`` can neither
receive predictions nor lose files to the tidying below, and a linked run
file is never read. The store directory itself may be a link.

Hygiene. On open (:meth:`ExperimentStore.open`, called by
``Experiment.load``) and whenever the lock is taken, the temporary files
that killed writers left (``.<name>.<random>.tmp`` of the store's own file
names) are deleted, and so, under the lock with a valid manifest, are
prediction files with the store's naming (``runs/s<key>_r<run>[-<hex>].npy``)
that the manifest does not reference, and gold files (``gold-<hex>.json``)
that neither the manifest nor its backup references. No other file is ever
deleted.

Recovery. Before each replacement of ``manifest.json`` the previous one is
kept as ``manifest.json.bak``. A corrupt (e.g. truncated) or missing
manifest is never repaired silently: reading it raises a ``ValueError``
that says so, and :meth:`ExperimentStore.recover`
(``Experiment.recover()``) puts the backup back, keeping the damaged file
as ``manifest.json.corrupt`` and dropping (with a warning) the runs whose
prediction files are gone. The last feed or remove before the damage is
lost.
"""

import csv
import datetime
import errno
import hashlib
import io
import json
import math
import os
import re
import tempfile
import threading
import time
import uuid
from contextlib import contextmanager
from numbers import Integral
from pathlib import Path

import numpy as np
import pandas as pd

from sigtest._engine.checks import check_array_like
from sigtest._engine.design import check_ids
from sigtest._report.format import csv_safe, csv_unsafe
from sigtest.metrics._check_proba import check_proba
from sigtest.utils import warn_external

try:  # POSIX
    import fcntl
    msvcrt = None
except ImportError:  # pragma: no cover - Windows
    fcntl = None
    import msvcrt

__all__ = ["ExperimentStore", "atomic_write", "write_json", "finite"]

_FORMAT = "sigtest.experiment"
_FORMAT_VERSION = 1
#: Version of a manifest that holds cluster or stratum ids; both are read.
_DESIGN_FORMAT_VERSION = 2
#: Version of a manifest whose gold lives in its own file (a large gold).
_GOLD_FORMAT_VERSION = 3
_READABLE_VERSIONS = (_FORMAT_VERSION, _DESIGN_FORMAT_VERSION, _GOLD_FORMAT_VERSION)
#: Gold items above which the gold (ids, labels, cluster / stratum ids) is kept
#: in its own file, rewritten only when it changes, and runs fed without ids
#: record no id list: a feed then writes what it adds, not the whole gold.
GOLD_INLINE_MAX = 20_000
#: The gold file of a manifest of version 3.
_GOLD_FILE = re.compile(r"gold-[0-9a-f]{8}\.json")
#: Item annotations of the sampling design, stored next to the gold labels.
DESIGN_KEYS = ("groups", "strata")
_TEXT_COLUMNS = ("system_a", "system_b", "metric", "test", "alternative")

_LOCK = ".manifest.lock"
_BACKUP = "manifest.json.bak"
_CORRUPT = "manifest.json.corrupt"
_COMMIT = ".outputs.commit"
_OUTPUTS = ("results.tsv", "outcomes.json")
#: The store's own entries, none of which may be a symbolic link.
_ENTRIES = ("manifest.json", _BACKUP, _LOCK, _COMMIT, "runs", *_OUTPUTS)
#: A system key (``s000``): the stem of its run files.
_KEY = re.compile(r"s[0-9]{3,}")
#: A run file as the manifest may name it: a plain file in ``runs/``.
_RUN_FILE = re.compile(r"runs/[A-Za-z0-9_][A-Za-z0-9_.-]*\.npy")
#: Names of the prediction files that ``feed`` creates.
_STORE_NPY = re.compile(r"s[0-9]{3,}_r[0-9]+(-[0-9a-f]{8})?\.npy")
#: Temporary files of the store's own writes (``atomic_write``, the backup link).
_STORE_TMP = re.compile(r"\.(manifest\.json(\.bak)?|results\.tsv|outcomes\.json|gold-[0-9a-f]{8}\.json|"
                        r"\.?outputs\.commit|s[0-9]{3,}_r[0-9]+(-[0-9a-f]{8})?\.npy)"
                        r"\.[A-Za-z0-9_]+\.tmp")
_STAGED = re.compile(r"\.(results\.tsv|outcomes\.json)\.[A-Za-z0-9_]+\.tmp")


class CorruptStoreError(ValueError):
    """A file of the store is damaged or was edited into something invalid."""


# -------------------------------------------------------------- file helpers
def _fsync_dir(path):
    """Flush a directory entry change (a rename) to disk; a no-op where unsupported."""
    if os.name != "posix":  # pragma: no cover - Windows cannot open a directory
        return
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:  # pragma: no cover
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover - e.g. some network file systems
        pass
    finally:
        os.close(fd)


def _stage(path, write):
    """Write ``write(file)`` to a flushed temporary file next to ``path``; return its path."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return Path(tmp)


def atomic_write(path, write):
    """Call ``write(file)`` on a temporary file next to ``path``, then replace ``path``."""
    tmp = _stage(path, write)
    try:
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_json(path, obj, *, compact=False):
    layout = {"separators": (",", ":")} if compact else {"indent": 1}
    text = json.dumps(obj, allow_nan=False, default=_jsonable, **layout)
    atomic_write(path, lambda fh: fh.write(text.encode("utf-8")))


def _jsonable(value):
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    return repr(value)


def _sha256(data):
    return hashlib.sha256(data).hexdigest()


def finite(obj):
    """Replace NaN/inf by None, recursively, so the JSON is strict."""
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    if isinstance(obj, dict):
        return {str(k): finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [finite(v) for v in obj]
    if isinstance(obj, np.generic):
        return finite(obj.item())
    return obj


def _try_lock(fd):
    """Take the exclusive lock of ``fd`` without waiting; False if another holds it."""
    try:
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        else:  # pragma: no cover - Windows
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
    except OSError as exc:
        if exc.errno in (errno.EAGAIN, errno.EWOULDBLOCK, errno.EACCES,
                         getattr(errno, "EDEADLK", errno.EAGAIN)):
            return False
        raise
    return True


# ------------------------------------------------------------ manifest check
def _check_manifest(manifest, path, verified_gold=False):
    """Raise :class:`CorruptStoreError` (naming ``path`` and the key) unless well formed.

    Checks the structure that the store relies on: types, lengths (one
    label, cluster and stratum id per gold id; one id per row of a run),
    unique gold ids, and every path taken from the manifest (system keys,
    run files) lying inside the store. ``verified_gold``: the gold was read
    from a gold file whose sha256 matches the manifest's record, i.e. as
    sigtest wrote it from checked data; its values are not checked one by
    one again (the lengths and types of its lists are).
    """
    def bad(key, problem):
        raise CorruptStoreError(f"The store manifest {str(path)!r} is corrupt: {key} {problem}.")

    if not isinstance(manifest, dict):
        bad("its content", "is not a JSON object")
    if manifest.get("format") != _FORMAT \
            or manifest.get("format_version") not in _READABLE_VERSIONS:
        raise ValueError(f"{str(path)!r} is not a sigtest experiment manifest of version "
                         f"{' or '.join(map(str, _READABLE_VERSIONS))}.")
    for key in ("gold", "systems"):
        if key not in manifest:
            bad(f"the key {key!r}", "is missing")
    gold = manifest["gold"]
    if gold is not None:
        if not isinstance(gold, dict):
            bad("'gold'", "is not an object")
        ids = gold.get("ids")
        if not isinstance(ids, list) or not ids:
            bad("gold['ids']", "is not a non-empty list")
        if not verified_gold and not (all(type(i) is int for i in ids)
                                      or all(type(i) is str for i in ids)):
            bad("gold['ids']", "holds values that are not all integers or all strings")
        if not verified_gold and len(set(ids)) != len(ids):
            bad("gold['ids']", "holds duplicate ids")
        y_true = gold.get("y_true")
        if not isinstance(y_true, list) or len(y_true) != len(ids):
            bad("gold['y_true']", f"is not a list of {len(ids)} labels (one per gold id)")
        try:
            arr = np.asarray(y_true[:1] if verified_gold else y_true)
        except ValueError:
            arr = np.asarray([object()])
        if arr.ndim not in (1, 2) or arr.dtype.kind not in "biufU":
            bad("gold['y_true']", "does not hold labels (numbers or strings) or rows of "
                "probabilities of equal length")
        for key in DESIGN_KEYS:
            values = gold.get(key)
            if values is not None and (not isinstance(values, list) or len(values) > len(ids)):
                bad(f"gold[{key!r}]", f"is not a list of at most {len(ids)} ids")
    systems = manifest["systems"]
    if not isinstance(systems, dict):
        bad("'systems'", "is not an object")
    keys = set()
    for name, entry in systems.items():
        where = f"systems[{name!r}]"
        if not isinstance(entry, dict):
            bad(where, "is not an object")
        key = entry.get("key")
        if not isinstance(key, str) or not _KEY.fullmatch(key):
            bad(f"{where}['key']", f"is {key!r}, not a store key like 's000' (the stem of "
                "its run files, which must stay inside the store)")
        if key in keys:
            bad(f"{where}['key']", f"{key!r} is the key of another system too")
        keys.add(key)
        runs = entry.get("runs")
        if not isinstance(runs, dict):
            bad(f"{where}['runs']", "is not an object")
        for number, run in runs.items():
            at = f"{where}['runs'][{number!r}]"
            if not re.fullmatch(r"[0-9]+", number):
                bad(at, "is not a run number")
            if not isinstance(run, dict):
                bad(at, "is not an object")
            file = run.get("file")
            if not isinstance(file, str) or not _RUN_FILE.fullmatch(file):
                bad(f"{at}['file']", f"is {file!r}, not a file of the store's runs/ folder "
                    "(runs/<name>.npy: no other folder, no '..')")
            ids, shape = run.get("ids"), run.get("shape")
            if not isinstance(ids, list):
                bad(f"{at}['ids']", "is not a list")
            if not isinstance(shape, list) or len(shape) not in (1, 2) \
                    or not all(type(d) is int and d >= 0 for d in shape):
                bad(f"{at}['shape']", f"is {shape!r}, not the shape of a 1-D or 2-D array")
            if shape[0] != len(ids):
                bad(f"{at}['ids']", f"holds {len(ids)} ids but the run's shape is {shape}")


# ------------------------------------------------------------ input checking
def _canonical(values, name, *, ndims=(1, 2)):
    """A NumPy array whose dtype survives ``.tolist()`` -> JSON -> ``np.asarray``."""
    arr = check_array_like(values, name)  # a ragged list: an error naming the parameter
    if arr.dtype == object:
        arr = check_array_like(arr.tolist(), name)
    if arr.ndim not in ndims or arr.shape[0] == 0 or arr.dtype.kind not in "biufU":
        raise ValueError(
            f"The '{name}' parameter must be a non-empty {' or '.join(f'{d}-D' for d in ndims)} "
            f"array of numbers or strings. Got shape {arr.shape} and dtype {arr.dtype} instead."
        )
    return arr


def _check_ids(ids, n, system):
    if ids is None:
        return list(range(n))
    arr = _canonical(ids, "ids", ndims=(1,))
    if arr.dtype.kind not in "iuU":
        raise ValueError(f"The 'ids' parameter must hold integers or strings; got {arr.dtype}.")
    if arr.shape[0] != n:
        raise ValueError(
            f"The 'ids' parameter has {arr.shape[0]} ids but the predictions of system "
            f"{system!r} have {n} items."
        )
    ids = arr.tolist()
    if len(set(ids)) != n:
        dup = pd.Series(ids)[pd.Series(ids).duplicated()].unique()[:5].tolist()
        raise ValueError(f"The 'ids' parameter holds duplicate ids, e.g. {dup}.")
    return ids


def _check_design_ids(values, name, n, system):
    """Cluster or stratum ids of a feed: 1-D ints or strings, one per item."""
    if values is None:
        return None
    arr = check_ids(values, name, n, of=f"the predictions of system {system!r} have",
                    kinds="iuU")
    return arr.tolist()


def _positional(run):
    """Whether a run was fed without ids (its items taken by position).

    Recorded as ``positional`` since issue 20; a run of an older manifest is
    taken for positional when its ids are ``0..n-1``.
    """
    if "positional" in run:
        return bool(run["positional"])
    ids = run["ids"]
    return ids == list(range(len(ids)))


def _kind(values):
    """``"str"`` or ``"int"`` for a list of ids."""
    return "str" if values and isinstance(values[0], str) else "int"


def _describe(arr):
    """Plain words for what an array holds, for error messages."""
    if arr.ndim == 2:
        return f"{arr.shape[1]}-column probabilities"
    return "string labels" if arr.dtype.kind == "U" else "numeric labels"


def _check_labels_array(arr, name, system):
    """1-D labels: strings, integers, or floats with integer values."""
    if arr.ndim == 1 and arr.dtype.kind == "f" and not np.array_equal(arr, np.round(arr)):
        bad = arr[arr != np.round(arr)][0]
        raise ValueError(
            f"The '{name}' of system {system!r} is 1-D, so it holds labels, but it holds "
            f"non-integer numbers (e.g. {float(bad)!r}); for probabilities pass an "
            "(n_items, n_classes) array.")


# --------------------------------------------------------------------- store
class ExperimentStore:
    """The directory of an experiment: manifest, prediction files, lock, results.

    Parameters
    ----------
    path : str or os.PathLike
        Directory of the store; created by the first :meth:`feed` if needed.
    """

    def __init__(self, path):
        if not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"The 'path' parameter must be a str or path; got {path!r}.")
        self.path = Path(path)
        self._thread_lock = threading.RLock()
        self._depth = 0
        #: (file, sha256) of the gold file last read or written
        self._gold_snapshot = None

    def exists(self):
        """Whether ``path`` holds a manifest."""
        return self.manifest_path.is_file()

    @property
    def manifest_path(self):
        """Path of ``manifest.json``."""
        return self.path / "manifest.json"

    def _parse(self, raw, path):
        """The manifest in the bytes ``raw`` of ``path``, checked (:func:`_check_manifest`).

        A manifest of version 3 gets its gold from its gold file (checked
        against the sha256 the manifest records) and the id lists of its runs
        fed without ids (``0..n-1``), so that the rest of the store sees one
        layout whatever the version.
        """
        try:
            manifest = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise CorruptStoreError(
                f"The store manifest {str(path)!r} is corrupt: it is not valid JSON "
                f"(truncated or damaged? {exc}).") from None
        verified = isinstance(manifest, dict) and manifest.get("format") == _FORMAT \
            and manifest.get("format_version") == _GOLD_FORMAT_VERSION
        self._gold_snapshot = None  # the gold file of this manifest, if any
        if verified:
            self._expand(manifest, path)
        _check_manifest(manifest, path, verified_gold=verified)
        return manifest

    def _expand(self, manifest, path):
        """Read the gold file of a version-3 manifest and the ids of its positional runs."""
        def bad(problem):
            raise CorruptStoreError(f"The store manifest {str(path)!r} is corrupt: {problem}.")

        ref = manifest.get("gold")
        if not isinstance(ref, dict) or not isinstance(ref.get("file"), str) \
                or not _GOLD_FILE.fullmatch(ref["file"]) or not isinstance(ref.get("sha256"), str):
            bad(f"'gold' is {str(ref)[:80]!r}, not a reference to a gold file "
                "({'file': 'gold-<hex>.json', 'sha256': ...})")
        self._refuse_links(ref["file"])
        gold_path = self.path / ref["file"]
        try:
            raw = gold_path.read_bytes()
        except FileNotFoundError:
            bad(f"its gold file {str(gold_path)!r} is missing")
        if _sha256(raw) != ref["sha256"]:
            bad(f"its gold file {str(gold_path)!r} does not match the sha256 it records "
                "(truncated, edited or replaced)")
        try:
            gold = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:  # pragma: no cover - sha ok
            bad(f"its gold file {str(gold_path)!r} is not valid JSON ({exc})")
        if not isinstance(gold, dict):
            bad(f"its gold file {str(gold_path)!r} does not hold a JSON object")
        manifest["gold"] = gold
        self._gold_snapshot = (ref["file"], ref["sha256"])
        systems = manifest.get("systems")
        for entry in systems.values() if isinstance(systems, dict) else ():
            runs = entry.get("runs") if isinstance(entry, dict) else None
            for run in runs.values() if isinstance(runs, dict) else ():
                shape = run.get("shape") if isinstance(run, dict) else None
                if run.get("ids") is None and run.get("positional") is True \
                        and isinstance(shape, list) and shape and type(shape[0]) is int:
                    run["ids"] = list(range(shape[0]))

    def _dump(self, manifest, gold_changed):
        """``(manifest as written, new gold file or None)``.

        Up to :data:`GOLD_INLINE_MAX` gold items the manifest is written as it
        is (version 1 or 2). Above, the gold goes to ``gold-<hex>.json``
        (version 3), written only when ``gold_changed`` or when the manifest
        read had its gold inline, and runs fed without ids record no id list.
        """
        gold = manifest["gold"]
        if gold is None or len(gold["ids"]) <= GOLD_INLINE_MAX:
            return manifest, None
        snap, new = self._gold_snapshot, None
        if snap is not None and not gold_changed:
            file, digest = snap
        else:
            data = json.dumps(gold, allow_nan=False, default=_jsonable,
                              separators=(",", ":")).encode("utf-8")
            file, digest = f"gold-{uuid.uuid4().hex[:8]}.json", _sha256(data)
            new = (file, digest, data)
        disk = dict(manifest, format_version=_GOLD_FORMAT_VERSION,
                    gold={"file": file, "sha256": digest, "n_items": len(gold["ids"])})
        disk["systems"] = {
            name: dict(entry, runs={
                number: dict(run, ids=None) if run.get("positional") is True else run
                for number, run in entry["runs"].items()})
            for name, entry in manifest["systems"].items()}
        return disk, new

    def _refuse_links(self, *names):
        """Raise :class:`CorruptStoreError` if a store entry is a symbolic link.

        The store never follows a link inside it: a linked ``runs/`` folder
        would make ``feed`` write, and the tidying of leftovers delete,
        files elsewhere, and a linked run file or manifest would be read
        from outside the store. ``names`` default to the store's own
        entries (manifest, backup, lock, ``runs/``, outputs, commit record);
        the store directory itself may be a link.
        """
        for name in names or _ENTRIES:
            path = self.path / name
            if path.is_symlink():
                raise CorruptStoreError(
                    f"{str(path)!r} is a symbolic link (to {os.readlink(path)!r}); sigtest "
                    "does not follow links inside a store, which could make it read, write "
                    "or delete files outside it. Replace the link with the file or folder "
                    "itself.")

    def _recover_hint(self):
        bak = self.path / _BACKUP
        if bak.is_file():
            return (f" The previous manifest is kept in {str(bak)!r}: "
                    f"Experiment({str(self.path)!r}).recover() restores it (the last feed "
                    "or remove before the damage is lost).")
        return " No backup manifest (manifest.json.bak) exists."

    def read(self):
        """The manifest (an empty one when nothing was fed yet).

        Raises
        ------
        ValueError
            The manifest is corrupt (not JSON, a key missing or of the wrong
            type, a path outside the store), missing while its backup
            exists, or of another format; the message names the file and
            says how to recover.
        """
        self._refuse_links()
        try:
            raw = self.manifest_path.read_bytes()
        except FileNotFoundError:
            if (self.path / _BACKUP).is_file():
                raise CorruptStoreError(
                    f"The store manifest {str(self.manifest_path)!r} is missing."
                    + self._recover_hint()) from None
            return {"format": _FORMAT, "format_version": _FORMAT_VERSION, "gold": None,
                    "systems": {}}
        try:
            return self._parse(raw, self.manifest_path)
        except CorruptStoreError as exc:
            raise CorruptStoreError(str(exc) + self._recover_hint()) from None

    # --------------------------------------------------------------- locking
    @contextmanager
    def lock(self, timeout=60.0):
        """Hold the store's exclusive lock (reentrant within this object).

        The lock is ``fcntl.flock`` on ``.manifest.lock`` (``msvcrt.locking``
        on Windows): the operating system releases it when its holder dies,
        so a killed writer never blocks the next one. Taking it also
        completes an interrupted publication of ``run``'s outputs and
        deletes the temporary files of killed writers.

        Parameters
        ----------
        timeout : float, default=60.0
            Seconds to wait for a live holder before ``RuntimeError``.
        """
        with self._thread_lock:
            if self._depth:
                self._depth += 1
                try:
                    yield
                finally:
                    self._depth -= 1
                return
            self.path.mkdir(parents=True, exist_ok=True)
            self._refuse_links()
            fd = self._acquire(timeout)
            self._depth = 1
            try:
                self._finish_publication()
                self._sweep_tmp()
                yield
            finally:
                self._depth = 0
                self._release(fd)

    def _acquire(self, timeout):
        lock = self.path / _LOCK
        start = time.monotonic()
        delay = 0.002
        while True:
            try:
                fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o666)
            except PermissionError:  # another user's lock file: flock needs no write access
                if fcntl is None or not os.path.exists(lock):  # pragma: no cover
                    raise
                fd = os.open(lock, os.O_RDONLY)
            try:
                locked = _try_lock(fd)
                if locked and fcntl is not None:
                    # the holder we waited for deletes the file before it unlocks it:
                    # then we hold the lock of a deleted file; lock the new one instead
                    try:
                        current = os.stat(lock)
                    except FileNotFoundError:
                        locked = None
                    else:
                        mine = os.fstat(fd)
                        if (mine.st_ino, mine.st_dev) != (current.st_ino, current.st_dev):
                            locked = None
            except BaseException:
                os.close(fd)
                raise
            if locked:
                return fd
            os.close(fd)
            if locked is None:
                continue
            if time.monotonic() - start > timeout:
                raise RuntimeError(
                    f"Could not lock {str(lock)!r} within {timeout} s: another live process "
                    "is feeding or running this store (the lock of a process that died is "
                    "released by the operating system).")
            time.sleep(delay)
            delay = min(2 * delay, 0.05)

    def _release(self, fd):
        try:
            if fcntl is not None:
                # delete while still holding it: a waiter then sees that it locked a
                # deleted file and retries, so two holders can never coexist
                try:
                    os.unlink(self.path / _LOCK)
                except FileNotFoundError:  # pragma: no cover - removed by hand
                    pass
            else:  # pragma: no cover - Windows
                os.lseek(fd, 0, os.SEEK_SET)
                msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
        finally:
            os.close(fd)

    # -------------------------------------------------------------- hygiene
    def _sweep_tmp(self):
        """Delete the temporary files of the store's own writes (call under the lock)."""
        for folder in (self.path, self.path / "runs"):
            try:
                names = os.listdir(folder)
            except (FileNotFoundError, NotADirectoryError):
                continue
            for name in names:
                if _STORE_TMP.fullmatch(name):
                    (folder / name).unlink(missing_ok=True)

    def _sweep_runs(self, manifest):
        """Delete prediction files of the store's naming that ``manifest`` does not reference.

        Only under the lock and with a manifest read from disk: a killed
        feed leaves its new file (written before the manifest) or a
        replaced run's old file (deleted after it).
        """
        if not self.manifest_path.is_file():
            return
        try:
            names = os.listdir(self.path / "runs")
        except (FileNotFoundError, NotADirectoryError):
            return
        self._sweep_gold()
        used = {run["file"] for entry in manifest["systems"].values()
                for run in entry["runs"].values()}
        for name in names:
            if _STORE_NPY.fullmatch(name) and f"runs/{name}" not in used:
                (self.path / "runs" / name).unlink(missing_ok=True)

    def _leftovers(self, manifest):
        """Whether killed writers left something that :meth:`open` would tidy."""
        used = {run["file"] for entry in manifest["systems"].values()
                for run in entry["runs"].values()}
        for folder, prefix in ((self.path, ""), (self.path / "runs", "runs/")):
            try:
                names = os.listdir(folder)
            except (FileNotFoundError, NotADirectoryError):
                continue
            for name in names:
                if _STORE_TMP.fullmatch(name) or name == _COMMIT or (
                        prefix and _STORE_NPY.fullmatch(name) and prefix + name not in used):
                    return True
        return False

    def open(self):
        """Read and check the manifest, and tidy what killed writers left.

        Completes an interrupted publication of ``run``'s outputs, deletes
        the store's temporary files and its unreferenced prediction files
        (under the lock; skipped when the store is not writable).

        Returns
        -------
        manifest : dict
            The manifest.
        """
        manifest = self.read()
        if self.exists() and self._leftovers(manifest):
            try:
                with self.lock():
                    manifest = self.read()
                    self._sweep_runs(manifest)
            except PermissionError:  # a read-only store is read as it is
                pass
            except OSError as exc:  # pragma: no cover - read-only file system
                if exc.errno != errno.EROFS:
                    raise
        return manifest

    def _write_manifest(self, manifest, gold_changed=True):
        """Replace ``manifest.json``, keeping the one it replaces as ``manifest.json.bak``.

        A large gold is written to its own file first, when it changed
        (:meth:`_dump`; ``gold_changed=False`` only when ``manifest["gold"]``
        is the gold last read); gold files that neither the new manifest nor
        its backup references are deleted afterwards.
        """
        disk, new_gold = self._dump(manifest, gold_changed)
        previous = self._gold_snapshot
        if new_gold is not None:
            file, digest, data = new_gold
            atomic_write(self.path / file, lambda fh: fh.write(data))
        keep = None
        if self.manifest_path.is_file():
            keep = self.path / f".{_BACKUP}.{uuid.uuid4().hex[:8]}.tmp"
            try:  # the old file itself (its inode survives the replace), no copy
                os.link(self.manifest_path, keep)
            except OSError:  # pragma: no cover - no hard links on this file system
                data = self.manifest_path.read_bytes()
                keep = _stage(self.path / _BACKUP, lambda fh: fh.write(data))
        try:
            write_json(self.manifest_path, disk, compact=True)  # ids on one line
        except BaseException:
            if keep is not None:
                keep.unlink(missing_ok=True)
            if new_gold is not None:
                (self.path / new_gold[0]).unlink(missing_ok=True)
            raise
        if keep is not None:
            try:  # the feed is stored now: a backup that cannot be kept only warns
                os.replace(keep, self.path / _BACKUP)
            except OSError as exc:  # pragma: no cover - e.g. a read-only backup file
                keep.unlink(missing_ok=True)
                warn_external(f"Could not keep the previous manifest as "
                              f"{str(self.path / _BACKUP)!r}: {exc}.", UserWarning)
        _fsync_dir(self.path)
        if new_gold is not None:
            self._gold_snapshot = (new_gold[0], new_gold[1])
            used = {new_gold[0]} | ({previous[0]} if previous is not None else set())
            self._sweep_gold(used)

    def _sweep_gold(self, used=None):
        """Delete gold files (``gold-<hex>.json``) other than ``used`` (under the lock).

        ``used`` defaults to those of ``manifest.json`` and its backup: a
        killed feed may leave a gold file written before its manifest.
        """
        names = [n for n in os.listdir(self.path) if _GOLD_FILE.fullmatch(n)]
        if used is None:
            used = set()
            for path in (self.manifest_path, self.path / _BACKUP):
                if names and path.is_file() and not path.is_symlink():
                    try:
                        ref = json.loads(path.read_bytes().decode("utf-8")).get("gold")
                    except (ValueError, UnicodeDecodeError, AttributeError):
                        return  # a damaged manifest: leave every gold file for recover()
                    if isinstance(ref, dict) and isinstance(ref.get("file"), str):
                        used.add(ref["file"])
        for name in names:
            if name not in used:
                (self.path / name).unlink(missing_ok=True)

    def recover(self):
        """Put ``manifest.json.bak`` back when ``manifest.json`` is corrupt or missing.

        Returns
        -------
        report : dict
            ``restored`` (bool), ``dropped`` (``[system, run]`` pairs whose
            prediction file was missing or damaged) and ``corrupt_copy``
            (where the damaged manifest was kept, or None).
        """
        with self.lock():
            try:
                self.read()
                return {"restored": False, "dropped": [], "corrupt_copy": None}
            except CorruptStoreError as exc:
                damage = str(exc)
            bak = self.path / _BACKUP
            try:
                manifest = self._parse(bak.read_bytes(), bak)
            except FileNotFoundError:
                raise ValueError(f"{damage} It cannot be recovered: there is no backup "
                                 f"{str(bak)!r}.") from None
            except CorruptStoreError as exc:
                raise ValueError(f"{damage} It cannot be recovered: the backup is damaged "
                                 f"too ({exc}).") from None
            dropped = []
            for name, entry in list(manifest["systems"].items()):
                for number, run in list(entry["runs"].items()):
                    try:
                        self._load_file(run, name, number, header_only=True)
                    except ValueError:
                        dropped.append([name, int(number)])
                        del entry["runs"][number]
                if not entry["runs"]:
                    del manifest["systems"][name]
            copy = None
            if self.manifest_path.is_file():
                copy = self.path / _CORRUPT
                os.replace(self.manifest_path, copy)
            self._write_manifest(manifest, gold_changed=False)
            self._sweep_runs(manifest)
        if dropped:
            warn_external(f"Recovered {str(self.manifest_path)!r} from its backup without "
                          f"the runs whose prediction file is missing or damaged: {dropped}.",
                          UserWarning)
        return {"restored": True, "dropped": dropped,
                "corrupt_copy": None if copy is None else str(copy)}

    # --------------------------------------------------------------- reading
    def systems(self):
        """Names of the systems fed so far, in order of first feed."""
        return list(self.read()["systems"])

    def runs(self, system):
        """Sorted run numbers of ``system``."""
        return sorted(int(r) for r in self.system(self.read(), system)["runs"])

    def gold(self):
        """Return ``(ids, y_true)``: every item id with its gold label, in store order."""
        manifest = self.read()
        if manifest["gold"] is None:
            raise ValueError("Nothing has been fed to this experiment yet.")
        return np.asarray(manifest["gold"]["ids"]), np.asarray(manifest["gold"]["y_true"])

    def design(self):
        """Return ``(ids, groups, strata)``: the stored cluster and stratum id of every item.

        ``groups`` / ``strata`` are ``None`` when none were fed; an item fed
        without one holds ``None``.
        """
        manifest = self.read()
        if manifest["gold"] is None:
            raise ValueError("Nothing has been fed to this experiment yet.")
        gold = manifest["gold"]
        out = [np.asarray(gold["ids"])]
        for key in DESIGN_KEYS:
            values = gold.get(key)
            if values is not None:
                arr = np.asarray(values, dtype=object)
                if all(v is not None for v in values):
                    arr = np.asarray(values)
                values = arr
            out.append(values)
        return tuple(out)

    def load_run(self, system, run):
        """Return ``(ids, predictions)`` of one run, as fed."""
        entry = self._run_entry(self.read(), system, run)
        return np.asarray(entry["ids"]), self._load_file(entry, system, run)

    def _load_file(self, entry, system, run, *, header_only=False):
        """The predictions of one run, checked against the manifest (shape).

        Raises
        ------
        ValueError
            The file (named) is missing, not a ``.npy`` array (e.g. an
            ``.npz`` archive or a pickle), truncated, or of another shape
            than the manifest records for its ids.
        """
        path = self.path / entry["file"]  # checked by read(): inside runs/
        what = f"The prediction file {str(path)!r} of run {run} of system {system!r}"
        self._refuse_links("runs", entry["file"])
        try:
            with open(path, "rb") as fh:
                magic = fh.read(6)
                if magic != b"\x93NUMPY":
                    kind = ("a .npz (zip) archive" if magic[:4] == b"PK\x03\x04"
                            else "empty" if not magic else "not a .npy file")
                    raise CorruptStoreError(f"{what} is {kind}, not a .npy array.")
                fh.seek(0)
                try:
                    # header_only: mapped, not read (a truncated file cannot be mapped)
                    arr = np.load(path if header_only else fh, allow_pickle=False,
                                  mmap_mode="r" if header_only else None)
                    shape = arr.shape
                except (ValueError, EOFError, OSError, TypeError, SyntaxError) as exc:
                    raise CorruptStoreError(f"{what} is truncated or damaged: cannot read it "
                                            f"as a .npy array ({exc}).") from None
        except FileNotFoundError:
            raise CorruptStoreError(f"{what} is missing.") from None
        if tuple(shape) != tuple(entry["shape"]):
            raise CorruptStoreError(
                f"{what} holds an array of shape {tuple(shape)} but the manifest records "
                f"shape {tuple(entry['shape'])} for its {len(entry['ids'])} ids; the file is "
                "truncated or was replaced.")
        return arr

    def system(self, manifest, system):
        if system not in manifest["systems"]:
            raise ValueError(
                f"Unknown system {system!r}; the store has {list(manifest['systems'])}.")
        return manifest["systems"][system]

    def _run_entry(self, manifest, system, run):
        runs = self.system(manifest, system)["runs"]
        if str(run) not in runs:
            raise ValueError(f"System {system!r} has no run {run!r}; its runs are "
                             f"{sorted(int(r) for r in runs)}.")
        return runs[str(run)]

    def feed(self, system, predictions, *, y_true=None, ids=None, groups=None, strata=None,
             run=None, overwrite=False):
        """Validate and store one run (see :meth:`sigtest.experiment.Experiment.feed`)."""
        if not isinstance(system, str) or not system:
            raise TypeError(f"The 'system' parameter must be a non-empty str; got {system!r}.")
        preds = _canonical(predictions, "predictions")
        item_ids = _check_ids(ids, preds.shape[0], system)
        design = {key: _check_design_ids(values, key, preds.shape[0], system)
                  for key, values in (("groups", groups), ("strata", strata))}
        gold = None
        if y_true is not None:
            gold = _canonical(y_true, "y_true")
            if gold.shape[0] != preds.shape[0]:
                raise ValueError(f"The 'y_true' parameter has {gold.shape[0]} items but the "
                                 f"predictions of system {system!r} have {preds.shape[0]}.")
        if run is not None and (not isinstance(run, Integral) or isinstance(run, bool)
                                or run < 0):
            raise ValueError(f"The 'run' parameter must be an int >= 0; got {run!r}.")
        _check_labels_array(preds, "predictions", system)
        if gold is not None:
            _check_labels_array(gold, "y_true", system)
        if preds.ndim == 2:
            check_proba(preds, "predictions", multilabel=True)  # finite, in [0, 1]
        if gold is not None and gold.ndim == 2:
            check_proba(gold, "y_true", multilabel=True)
        existed = self.path.exists()
        try:
            with self.lock():
                manifest = self.read()
                self._sweep_runs(manifest)
                self._check_against_store(manifest, system, preds, gold, item_ids, run)
                if ids is None and gold is None:
                    self._check_positional(manifest, system, preds.shape[0])
                n_gold = 0 if manifest["gold"] is None else len(manifest["gold"]["ids"])
                self._merge_gold(manifest, item_ids, gold, system)
                self._merge_design(manifest, item_ids, design, n_gold, system)
                self._check_classes(manifest, system, preds, run)
                changed = (n_gold != len(manifest["gold"]["ids"])
                           or any(v is not None for v in design.values()))
                return self._store_run(manifest, system, preds, item_ids, run, overwrite,
                                       positional=ids is None, gold_changed=changed)
        except BaseException:
            if not existed:  # a failed first feed leaves no empty store behind
                for leftover in (self.path / "runs", self.path):
                    try:
                        leftover.rmdir()
                    except OSError:
                        pass
            raise

    @staticmethod
    def _check_positional(manifest, system, n):
        """A feed without ids nor gold must list every gold item, in the gold's order.

        Its items are taken by position (ids ``0..n-1``), so a file one row
        short or long would shift every later item onto another item's
        gold label; such a feed is refused, as ``sigtest compare`` refuses
        files of different lengths. (A feed with ``y_true`` is checked
        against the stored gold on the ids it shares instead, which a shift
        would contradict.)
        """
        stored = manifest["gold"]
        if stored is None or n == len(stored["ids"]):
            return
        raise ValueError(
            f"The predictions of system {system!r} have {n} items but the store's gold has "
            f"{len(stored['ids'])}. Without ids the items are taken by position (ids "
            f"0..{n - 1}), so a missing or extra row would misalign every later item; feed "
            "one prediction per gold item in the gold's order, or give the item ids (ids=, "
            "--ids) to feed a subset.")

    def _store_run(self, manifest, system, preds, item_ids, run, overwrite, positional=False,
                   gold_changed=True):
        """Write the predictions, then the manifest (both atomically)."""
        if system not in manifest["systems"]:
            used = [int(e["key"][1:]) for e in manifest["systems"].values()]
            # never reuse a key in use: a removed system frees its key and files
            manifest["systems"][system] = {"key": f"s{max(used, default=-1) + 1:03d}",
                                           "runs": {}}
        entry = manifest["systems"][system]
        runs = entry["runs"]
        if run is None:
            run = max((int(r) for r in runs), default=-1) + 1
        run = int(run)
        if str(run) in runs and not overwrite:
            raise ValueError(f"System {system!r} already has run {run}; pass "
                             "overwrite=True to replace it.")
        old = runs.get(str(run), {}).get("file")
        # a replaced run gets a new file, so that the manifest never points
        # at predictions that do not match its ids, even after a crash
        file = f"runs/{entry['key']}_r{run}" + (f"-{uuid.uuid4().hex[:8]}" if old else "")
        file += ".npy"
        (self.path / "runs").mkdir(exist_ok=True)
        atomic_write(self.path / file, lambda fh: np.save(fh, preds, allow_pickle=False))
        runs[str(run)] = {"file": file, "ids": item_ids, "shape": list(preds.shape),
                          "dtype": preds.dtype.str, "positional": positional,
                          "fed_at": datetime.datetime.now(datetime.timezone.utc).isoformat()}
        if any(manifest["gold"].get(key) is not None for key in DESIGN_KEYS):
            manifest["format_version"] = _DESIGN_FORMAT_VERSION
        try:
            self._write_manifest(manifest, gold_changed)
        except BaseException:
            (self.path / file).unlink(missing_ok=True)
            raise
        if old:
            (self.path / old).unlink(missing_ok=True)
        return run

    @staticmethod
    def _check_against_store(manifest, system, preds, gold, item_ids, run):
        """Refuse a feed that the stored gold and runs cannot be tested with."""
        stored = manifest["gold"]
        if stored is None:
            if gold is not None and gold.ndim == 1 and preds.ndim == 1 \
                    and (gold.dtype.kind == "U") != (preds.dtype.kind == "U"):
                raise ValueError(
                    f"The predictions of system {system!r} hold {_describe(preds)} but "
                    f"'y_true' holds {_describe(gold)}; they cannot be compared.")
            return
        store_gold = np.asarray(stored["y_true"][:1])  # kind and width (checked alike)
        if _kind(item_ids) != _kind(stored["ids"]):
            given = "default ids 0..n-1" if _kind(item_ids) == "int" else "string ids"
            raise ValueError(
                f"The 'ids' of system {system!r} are {given} but the store's item ids are "
                f"{'strings' if _kind(stored['ids']) == 'str' else 'integers'}.")
        if gold is not None:
            same = gold.ndim == store_gold.ndim and (
                gold.shape[1] == store_gold.shape[1] if gold.ndim == 2
                else (gold.dtype.kind == "U") == (store_gold.dtype.kind == "U"))
            if not same:
                raise ValueError(
                    f"The 'y_true' given with system {system!r} holds {_describe(gold)} but "
                    f"the store's gold holds {_describe(store_gold)}.")
        if preds.ndim == 1 and store_gold.ndim == 1 \
                and (preds.dtype.kind == "U") != (store_gold.dtype.kind == "U"):
            raise ValueError(
                f"The predictions of system {system!r} hold {_describe(preds)} but the "
                f"store's gold holds {_describe(store_gold)}; they cannot be compared.")

    @staticmethod
    def _check_classes(manifest, system, preds, run):
        """Probability columns must match the classes of the (merged) gold.

        With 2-D gold the classes are its columns (hard predictions are
        column indices); with 1-D gold, column ``k`` is the ``k``-th class of
        the sorted gold labels, so every stored probability run needs as many
        columns as the gold has classes, also after new ids extend the gold.
        """
        gold = np.asarray(manifest["gold"]["y_true"][:1])  # rows alike: ndim, width
        if gold.ndim == 2:
            k, what = gold.shape[1], f"the gold has {gold.shape[1]} columns"
            if preds.ndim == 1:
                if preds.dtype.kind not in "iub" and not (
                        preds.dtype.kind == "f" and np.array_equal(preds, np.round(preds))):
                    raise ValueError(
                        f"The store's gold holds {k}-column distributions, so hard predictions "
                        f"of system {system!r} must be class indices 0..{k - 1}; got "
                        f"{_describe(preds)}.")
                if preds.size and (preds.min() < 0 or preds.max() >= k):
                    raise ValueError(
                        f"The predictions of system {system!r} must be class indices "
                        f"0..{k - 1} ({what}); got values from {preds.min()} to {preds.max()}.")
        elif preds.ndim == 2 or any(len(stored["shape"]) == 2
                                    for entry in manifest["systems"].values()
                                    for stored in entry["runs"].values()):
            # only when probability columns are to be checked
            classes = np.unique(np.asarray(manifest["gold"]["y_true"]))
            k = len(classes)
            what = f"the gold has {k} classes {classes.tolist()[:10]}"
        else:
            return
        if preds.ndim == 2 and preds.shape[1] != k:
            raise ValueError(
                f"The predictions of system {system!r} have {preds.shape[1]} columns but "
                f"{what}; every probability column must be one class.")
        for name, entry in manifest["systems"].items():
            for r, stored in entry["runs"].items():
                if name == system and run is not None and int(r) == int(run):
                    continue  # about to be replaced
                if len(stored["shape"]) == 2 and stored["shape"][1] != k:
                    raise ValueError(
                        f"With the gold of this feed {what}, but run {r} of system {name!r} "
                        f"holds {stored['shape'][1]}-column probabilities; the store could "
                        "no longer be run. Start a new store or remove that run first.")

    @staticmethod
    def _merge_gold(manifest, ids, gold, system):
        if manifest["gold"] is None:
            if gold is None:
                raise ValueError("The first feed of an experiment needs 'y_true' (the gold).")
            manifest["gold"] = {"ids": list(ids), "y_true": gold.tolist()}
            return
        stored = manifest["gold"]
        if gold is None:
            found = pd.Index(stored["ids"]).get_indexer(pd.Index(ids))
            unknown = [ids[k] for k in np.flatnonzero(found < 0)]
            if unknown:
                raise ValueError(
                    f"{len(unknown)} ids of system {system!r} have no gold label (e.g. "
                    f"{unknown[:5]}); pass y_true with these predictions.")
            return
        where = {i: k for k, i in enumerate(stored["ids"])}
        new = gold.tolist()
        bad = [i for i, g in zip(ids, new) if i in where and stored["y_true"][where[i]] != g]
        if bad:
            raise ValueError(
                f"The 'y_true' given with system {system!r} disagrees with the stored gold on "
                f"{len(bad)} ids (e.g. {bad[:5]}).")
        for i, g in zip(ids, new):
            if i not in where:
                where[i] = len(stored["ids"])
                stored["ids"].append(i)
                stored["y_true"].append(g)

    @staticmethod
    def _merge_design(manifest, ids, design, n_old, system):
        """Store the cluster / stratum ids of a feed, aligned with the gold ids.

        Like the gold labels: a value must equal the stored one on an id that
        has one; ids the gold gained in this feed (from ``n_old`` on) need
        one when the store holds that annotation already, so that every item
        keeps its cluster; a cluster must lie in one stratum.
        """
        gold = manifest["gold"]
        if all(design[key] is None and gold.get(key) is None for key in DESIGN_KEYS):
            return
        where = {i: k for k, i in enumerate(gold["ids"])}
        n = len(gold["ids"])
        for key in DESIGN_KEYS:
            given = design[key]
            stored = gold.get(key)
            if given is None:
                if stored is not None and n > n_old:
                    raise ValueError(
                        f"The store holds '{key}' ids for its items but this feed of system "
                        f"{system!r} adds {n - n_old} gold ids without them; pass {key}= "
                        "with these predictions.")
                if stored is not None:
                    stored.extend([None] * (n - len(stored)))
                continue
            if stored is None:
                stored = [None] * n
            else:
                stored.extend([None] * (n - len(stored)))
                known = next((v for v in stored if v is not None), None)
                if known is not None and isinstance(known, str) != isinstance(given[0], str):
                    kind = "strings" if isinstance(known, str) else "integers"
                    raise ValueError(
                        f"The '{key}' ids given with system {system!r} are of another type "
                        f"than the stored ones ({kind}).")
            bad = [i for i, v in zip(ids, given)
                   if stored[where[i]] is not None and stored[where[i]] != v]
            if bad:
                raise ValueError(
                    f"The '{key}' given with system {system!r} disagree with the stored "
                    f"'{key}' on {len(bad)} ids (e.g. {bad[:5]}).")
            for i, v in zip(ids, given):
                stored[where[i]] = v
            gold[key] = stored
        groups, strata = gold.get("groups"), gold.get("strata")
        if groups is not None and strata is not None:
            seen = {}
            for i, g, h in zip(gold["ids"], groups, strata):
                if g is None or h is None:
                    continue
                if seen.setdefault(g, h) != h:
                    raise ValueError(
                        f"Cluster {g!r} of the 'groups' ids has items in the strata "
                        f"{seen[g]!r} and {h!r} (e.g. item {i!r}); clusters are resampled "
                        "within strata, so each cluster must lie in one stratum.")

    def remove(self, system, run=None):
        """Remove runs (see :meth:`sigtest.experiment.Experiment.remove`)."""
        if not isinstance(system, str):
            raise TypeError(f"The 'system' parameter must be a str; got {system!r}.")
        if run is not None and (not isinstance(run, Integral) or isinstance(run, bool)):
            raise TypeError(f"The 'run' parameter must be an int or None; got {run!r}.")
        if not self.manifest_path.is_file():
            self.read()  # raises when a backup says that the manifest went missing
            raise ValueError(f"No sigtest experiment at {str(self.path)!r} (no manifest.json).")
        with self.lock():
            manifest = self.read()
            self._sweep_runs(manifest)
            entry = self.system(manifest, system)
            if run is None:
                numbers = sorted(int(r) for r in entry["runs"])
            else:
                self._run_entry(manifest, system, run)
                numbers = [int(run)]
            files = [entry["runs"][str(r)]["file"] for r in numbers]
            for r in numbers:
                del entry["runs"][str(r)]
            if not entry["runs"]:
                del manifest["systems"][system]
            self._write_manifest(manifest, gold_changed=False)
            for file in files:
                (self.path / file).unlink(missing_ok=True)
        return numbers

    def aligned(self, manifest, names, on_missing):
        """Gold and every run's predictions on the common ids, in sorted-id order."""
        gold_ids = pd.Index(manifest["gold"]["ids"])
        keep = np.ones(len(gold_ids), dtype=bool)
        for name in names:
            for r, entry in manifest["systems"][name]["runs"].items():
                covered = np.zeros(len(gold_ids), dtype=bool)
                where = gold_ids.get_indexer(entry["ids"])
                if (where < 0).any() or len(set(entry["ids"])) != len(entry["ids"]):
                    raise CorruptStoreError(
                        f"The store manifest {str(self.manifest_path)!r} is corrupt: "
                        f"systems[{name!r}]['runs'][{r!r}]['ids'] holds ids without a gold "
                        "label or duplicate ids." + self._recover_hint())
                covered[where] = True
                if not covered.all() and on_missing == "error":
                    miss = gold_ids[np.flatnonzero(~covered)[:5]].tolist()
                    lacks = (f"Run {r} of system {name!r} lacks {int((~covered).sum())} of "
                             f"the {len(gold_ids)} gold ids (e.g. {miss})")
                    if _positional(entry):  # a short file: intersect would score it shifted
                        raise ValueError(
                            f"{lacks}: it was fed without ids, so its {len(entry['ids'])} "
                            "rows were taken as items 0..n-1 by position, and a missing row "
                            "misaligns every later item. Feed it again with its item ids "
                            "(ids=, --ids), or with one row per gold item.")
                    raise ValueError(f"{lacks}; feed them, or pass on_missing='intersect' to "
                                     "test on the ids every run has.")
                keep &= covered
        if not keep.any():
            raise ValueError(f"The runs of systems {names} have no item id in common.")
        if not keep.all():
            warn_external(f"on_missing='intersect': testing on the {int(keep.sum())} ids "
                          f"that every run has; {int((~keep).sum())} of {len(gold_ids)} gold "
                          "ids dropped.", UserWarning)
        # items in sorted-id order, whatever order the gold was fed in: the bootstrap
        # resamples positions, so a canonical order makes results independent of feeds
        where = np.flatnonzero(keep)
        where = where[np.argsort(np.asarray(gold_ids[where].tolist()), kind="stable")]
        common = gold_ids[where]
        y = np.asarray(manifest["gold"]["y_true"])[where]
        preds, run_numbers = {}, {}
        for name in names:
            runs = manifest["systems"][name]["runs"]
            run_numbers[name] = sorted(int(r) for r in runs)
            preds[name] = []
            for r in run_numbers[name]:
                entry = runs[str(r)]
                values = self._load_file(entry, name, r)
                preds[name].append(values[pd.Index(entry["ids"]).get_indexer(common)])
        return y, common, preds, run_numbers

    def aligned_design(self, manifest, common):
        """Cluster and stratum ids of the items ``common`` (in that order).

        Returns
        -------
        design : dict
            ``{"groups": array or None, "strata": array or None}``.

        Raises
        ------
        ValueError
            Some of these items were fed without one (naming a few ids).
        """
        gold = manifest["gold"]
        index = pd.Index(gold["ids"]).get_indexer(common)
        out = {}
        for key in DESIGN_KEYS:
            stored = gold.get(key)
            if stored is None:
                out[key] = None
                continue
            values = [stored[k] if k < len(stored) else None for k in index.tolist()]
            missing = [i for i, v in zip(common.tolist(), values) if v is None]
            if missing:
                raise ValueError(
                    f"{len(missing)} of the {len(values)} items to test have no '{key}' id "
                    f"(e.g. ids {missing[:5]}); feed {key}= for them (with overwrite=True "
                    "to re-feed a run).")
            out[key] = np.asarray(values)
        return out

    def digest(self, manifest, system, run):
        file = manifest["systems"][system]["runs"][str(run)]["file"]
        self._refuse_links("runs", file)
        digest = hashlib.sha256((self.path / file).read_bytes()).hexdigest()
        return {"file": file, "sha256": digest}

    def _read_outputs(self):
        """``(table bytes, outcomes)`` of the last run, checked to belong together.

        Raises
        ------
        ValueError
            Nothing published yet (names the missing file), ``outcomes.json``
            is not valid JSON, or ``results.tsv`` does not match the sha256
            that ``outcomes.json`` records for it (truncated, edited, or
            from another run), or (stores without that record) is not a
            complete table.
        """
        tsv, out = self.path / "results.tsv", self.path / "outcomes.json"
        self._refuse_links(*_OUTPUTS)
        try:
            table = tsv.read_bytes()
        except FileNotFoundError:
            table = None
        try:
            text = out.read_bytes()
        except FileNotFoundError:
            text = None
        outcomes = None
        if text is not None:
            try:
                outcomes = json.loads(text.decode("utf-8"))
                if not isinstance(outcomes, dict):
                    raise ValueError("not a JSON object")
            except (UnicodeDecodeError, ValueError) as exc:
                raise CorruptStoreError(
                    f"{str(out)!r} is damaged (truncated? {exc}); call run() again to "
                    "rewrite the results.") from None
        record = (outcomes or {}).get("outputs", {}).get("results.tsv")
        if table is not None and record is not None:
            if _sha256(table) != record.get("sha256"):
                raise CorruptStoreError(
                    f"{str(tsv)!r} does not match the run recorded in {str(out)!r} (its "
                    f"sha256 differs: {len(table)} bytes, {record.get('bytes')} expected; "
                    "truncated, edited or from another run); call run() again.")
        elif table is not None:  # written before outcomes.json recorded its digest
            _check_table(table, tsv)
        elif record is not None:
            raise CorruptStoreError(f"{str(tsv)!r} is missing but {str(out)!r} records it; "
                                    "call run() again.")
        return table, outcomes

    def _outputs(self):
        """:meth:`_read_outputs`, completing or waiting for a publication under way."""
        if (self.path / _COMMIT).exists():  # interrupted, or being written right now
            with self.lock():
                return self._read_outputs()
        try:
            return self._read_outputs()
        except CorruptStoreError as exc:
            if not (self.path / "outcomes.json").is_file():
                raise
            try:
                with self.lock():  # a run may have been published between the two reads
                    return self._read_outputs()
            except PermissionError:  # a read-only store cannot be locked
                raise exc from None

    def load_results(self):
        """The table of the last :meth:`run`, read from ``results.tsv`` (checked)."""
        table, _ = self._outputs()
        if table is None:
            raise ValueError(f"No results in {str(self.path)!r}; call run() first.")
        columns = pd.read_csv(io.BytesIO(table), sep="\t", nrows=0).columns
        # names stay text (a system called "NA" or "NaN"); every other column is numeric
        frame = pd.read_csv(io.BytesIO(table), sep="\t", keep_default_na=False,
                            na_values={c: ["NaN"] for c in columns if c not in _TEXT_COLUMNS},
                            dtype={c: str for c in _TEXT_COLUMNS if c in columns})
        for column in frame.columns.intersection(_TEXT_COLUMNS):
            frame[column] = csv_unsafe(frame[column])
        return frame

    def load_outcomes(self):
        """The ``outcomes.json`` of the last :meth:`run`, as a dict (checked)."""
        _, outcomes = self._outputs()
        if outcomes is None:
            raise ValueError(f"No outcomes in {str(self.path)!r}; call run() first.")
        return outcomes

    def publish(self, frame, outcomes):
        """Write ``results.tsv`` and ``outcomes.json`` of one run as one unit.

        Both are staged in flushed temporary files, then the commit record
        ``.outputs.commit`` (their names and sha256) is written atomically,
        then both are moved into place and the record deleted, all under
        the lock. Killed before the record exists, the previous outputs
        stay; after, the next lock completes the move
        (:meth:`_finish_publication`). ``outcomes.json`` gains
        ``outputs``: the sha256 and size of ``results.tsv``.

        Parameters
        ----------
        frame : pandas.DataFrame
            The tidy table (``ComparisonResult.to_frame()``).
        outcomes : dict
            The record of the run (NaN and inf become null).
        """
        # formula-like names quoted (CSV injection); load_results() removes the quote
        table = csv_safe(frame).to_csv(sep="\t", index=False, na_rep="NaN").encode("utf-8")
        outcomes = finite(outcomes)
        outcomes["outputs"] = {"results.tsv": {"sha256": _sha256(table), "bytes": len(table)}}
        text = json.dumps(outcomes, allow_nan=False, default=_jsonable,
                          indent=1).encode("utf-8")
        with self.lock():
            staged = {}
            try:
                for name, data in (("results.tsv", table), ("outcomes.json", text)):
                    staged[name] = (_stage(self.path / name, lambda fh, d=data: fh.write(d)),
                                    _sha256(data))
                write_json(self.path / _COMMIT, {"files": {
                    name: {"staged": tmp.name, "sha256": digest}
                    for name, (tmp, digest) in staged.items()}})
            except BaseException:
                for tmp, _ in staged.values():
                    tmp.unlink(missing_ok=True)
                raise
            _fsync_dir(self.path)
            self._finish_publication()

    def _finish_publication(self):
        """Move the staged outputs of a committed publication into place (under the lock)."""
        record_path = self.path / _COMMIT
        try:
            record = json.loads(record_path.read_bytes().decode("utf-8"))
            files = record["files"]
            moves = [(name, files[name]["staged"], files[name]["sha256"]) for name in files]
            if not all(name in _OUTPUTS and isinstance(tmp, str) and _STAGED.fullmatch(tmp)
                       for name, tmp, _ in moves):
                raise ValueError("unexpected file names")
        except FileNotFoundError:
            return
        except (ValueError, KeyError, TypeError, UnicodeDecodeError, AttributeError) as exc:
            # written atomically, so damaged by hand: nothing is moved, the staged
            # files go with the other temporary files
            warn_external(f"Ignored the damaged commit record {str(record_path)!r} of a run's "
                          f"outputs ({exc}); results.tsv and outcomes.json are left as they "
                          "are.", UserWarning)
            record_path.unlink(missing_ok=True)
            return
        for name, tmp, digest in moves:
            staged = self.path / tmp
            try:
                data = staged.read_bytes()
            except FileNotFoundError:
                continue  # moved already
            if _sha256(data) != digest:  # pragma: no cover - the disk lost a flushed write
                raise CorruptStoreError(
                    f"The staged output {str(staged)!r} of the last run does not match its "
                    f"commit record {str(record_path)!r}; delete both and call run() again.")
            os.replace(staged, self.path / name)
        _fsync_dir(self.path)
        record_path.unlink()
        _fsync_dir(self.path)


def _check_table(table, path):
    """Refuse a ``results.tsv`` that is not a complete table (cut mid-row or empty)."""
    text = table.decode("utf-8", errors="replace")
    rows = list(csv.reader(io.StringIO(text), delimiter="\t"))
    width = len(rows[0]) if rows else 0
    if not text.endswith("\n") or width == 0 or any(len(row) != width for row in rows):
        raise CorruptStoreError(
            f"{str(path)!r} is not a complete table (truncated or damaged: it must end with a "
            f"newline and every row must have the header's {width} fields); call run() again.")
