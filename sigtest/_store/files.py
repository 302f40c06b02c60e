"""The files of a store: atomic writes, the lock, the manifest check, the gold file.

Everything here works on paths and plain manifests (dicts), never on an
:class:`~sigtest._store.store.ExperimentStore`: the constants of the on-disk
format (described in :mod:`sigtest._store`), :class:`CorruptStoreError`, the
atomic writes (:func:`atomic_write`, :func:`write_json`, :func:`stage`), the
lock of the store directory (:func:`acquire_lock`, :func:`release_lock`), the
refusal of symbolic links, the structural check of a manifest and the gold
file of a large gold (:func:`read_gold_file`, :func:`dump_manifest`).
"""

import errno
import hashlib
import json
import math
import os
import re
import tempfile
import time
import uuid
from pathlib import Path

import numpy as np

try:  # POSIX
    import fcntl
    msvcrt = None
except ImportError:  # pragma: no cover - Windows
    fcntl = None
    import msvcrt

__all__ = ["CorruptStoreError", "GOLD_INLINE_MAX", "DESIGN_KEYS", "atomic_write", "write_json",
           "finite", "stage", "fsync_dir", "sha256", "jsonable", "acquire_lock", "release_lock",
           "refuse_links", "check_manifest", "read_gold_file", "dump_manifest"]


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
def fsync_dir(path):
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


def stage(path, write):
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
    tmp = stage(path, write)
    try:
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_json(path, obj, *, compact=False):
    layout = {"separators": (",", ":")} if compact else {"indent": 1}
    text = json.dumps(obj, allow_nan=False, default=jsonable, **layout)
    atomic_write(path, lambda fh: fh.write(text.encode("utf-8")))


def jsonable(value):
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    return repr(value)


def sha256(data):
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


# ---------------------------------------------------------------------- lock
def acquire_lock(path, timeout):
    """Lock ``.manifest.lock`` of the store directory ``path``; return its descriptor.

    ``fcntl.flock`` (``msvcrt.locking`` on Windows), which the operating
    system releases when its holder dies; a live holder is waited for up to
    ``timeout`` seconds, then ``RuntimeError``.
    """
    lock = Path(path) / _LOCK
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


def release_lock(path, fd):
    """Release the lock ``fd`` of :func:`acquire_lock` (deleting the lock file on POSIX)."""
    try:
        if fcntl is not None:
            # delete while still holding it: a waiter then sees that it locked a
            # deleted file and retries, so two holders can never coexist
            try:
                os.unlink(Path(path) / _LOCK)
            except FileNotFoundError:  # pragma: no cover - removed by hand
                pass
        else:  # pragma: no cover - Windows
            os.lseek(fd, 0, os.SEEK_SET)
            msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
    finally:
        os.close(fd)


def refuse_links(path, *names):
    """Raise :class:`CorruptStoreError` if a store entry is a symbolic link.

    The store never follows a link inside it: a linked ``runs/`` folder
    would make ``feed`` write, and the tidying of leftovers delete,
    files elsewhere, and a linked run file or manifest would be read
    from outside the store. ``names`` default to the store's own
    entries (manifest, backup, lock, ``runs/``, outputs, commit record);
    the store directory itself may be a link.
    """
    for name in names or _ENTRIES:
        entry = Path(path) / name
        if entry.is_symlink():
            raise CorruptStoreError(
                f"{str(entry)!r} is a symbolic link (to {os.readlink(entry)!r}); sigtest "
                "does not follow links inside a store, which could make it read, write "
                "or delete files outside it. Replace the link with the file or folder "
                "itself.")


# ------------------------------------------------------------ manifest check
def check_manifest(manifest, path, verified_gold=False):
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
    if manifest["gold"] is not None:
        _check_gold(manifest["gold"], bad, verified_gold)
    systems = manifest["systems"]
    if not isinstance(systems, dict):
        bad("'systems'", "is not an object")
    keys = set()
    for name, entry in systems.items():
        _check_system(f"systems[{name!r}]", entry, keys, bad)


def _check_gold(gold, bad, verified_gold):
    """The manifest's ``gold``: ids, one label per id, design lists (see check_manifest)."""
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


def _check_system(where, entry, keys, bad):
    """One entry of the manifest's ``systems``: a unique store key and its runs."""
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
        _check_run(f"{where}['runs'][{number!r}]", number, run, bad)


def _check_run(at, number, run, bad):
    """One run of a system: its number, its file inside runs/, one id per row."""
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


# ----------------------------------------------------------------- gold file
def read_gold_file(path, manifest, where):
    """Read the gold file of a version-3 manifest and the ids of its positional runs.

    ``path`` is the store directory and ``manifest`` the parsed JSON of its
    manifest file ``where``: its ``gold`` entry (the reference to the gold
    file) is replaced by the gold read back. Returns ``(file, sha256)`` of
    the gold file, for :func:`dump_manifest` when the manifest is written
    again.
    """
    def bad(problem):
        raise CorruptStoreError(f"The store manifest {str(where)!r} is corrupt: {problem}.")

    ref = manifest.get("gold")
    if not isinstance(ref, dict) or not isinstance(ref.get("file"), str) \
            or not _GOLD_FILE.fullmatch(ref["file"]) or not isinstance(ref.get("sha256"), str):
        bad(f"'gold' is {str(ref)[:80]!r}, not a reference to a gold file "
            "({'file': 'gold-<hex>.json', 'sha256': ...})")
    refuse_links(path, ref["file"])
    gold_path = Path(path) / ref["file"]
    try:
        raw = gold_path.read_bytes()
    except FileNotFoundError:
        bad(f"its gold file {str(gold_path)!r} is missing")
    if sha256(raw) != ref["sha256"]:
        bad(f"its gold file {str(gold_path)!r} does not match the sha256 it records "
            "(truncated, edited or replaced)")
    try:
        gold = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:  # pragma: no cover - sha ok
        bad(f"its gold file {str(gold_path)!r} is not valid JSON ({exc})")
    if not isinstance(gold, dict):
        bad(f"its gold file {str(gold_path)!r} does not hold a JSON object")
    manifest["gold"] = gold
    systems = manifest.get("systems")
    for entry in systems.values() if isinstance(systems, dict) else ():
        runs = entry.get("runs") if isinstance(entry, dict) else None
        for run in runs.values() if isinstance(runs, dict) else ():
            shape = run.get("shape") if isinstance(run, dict) else None
            if run.get("ids") is None and run.get("positional") is True \
                    and isinstance(shape, list) and shape and type(shape[0]) is int:
                run["ids"] = list(range(shape[0]))
    return ref["file"], ref["sha256"]


def dump_manifest(manifest, gold_changed, gold_file):
    """``(manifest as written, new gold file or None)``.

    Up to :data:`GOLD_INLINE_MAX` gold items the manifest is written as it
    is (version 1 or 2). Above, the gold goes to ``gold-<hex>.json``
    (version 3), written only when ``gold_changed`` or when the manifest
    read had its gold inline, and runs fed without ids record no id list.
    ``gold_file``: ``(file, sha256)`` of the gold file that ``manifest`` was
    read with (:func:`read_gold_file`), or None (its gold was inline).
    """
    gold = manifest["gold"]
    if gold is None or len(gold["ids"]) <= GOLD_INLINE_MAX:
        return manifest, None
    snap, new = gold_file, None
    if snap is not None and not gold_changed:
        file, digest = snap
    else:
        data = json.dumps(gold, allow_nan=False, default=jsonable,
                          separators=(",", ":")).encode("utf-8")
        file, digest = f"gold-{uuid.uuid4().hex[:8]}.json", sha256(data)
        new = (file, digest, data)
    disk = dict(manifest, format_version=_GOLD_FORMAT_VERSION,
                gold={"file": file, "sha256": digest, "n_items": len(gold["ids"])})
    disk["systems"] = {
        name: dict(entry, runs={
            number: dict(run, ids=None) if run.get("positional") is True else run
            for number, run in entry["runs"].items()})
        for name, entry in manifest["systems"].items()}
    return disk, new
