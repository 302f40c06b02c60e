"""The directory of an experiment: :class:`ExperimentStore`.

Opening, reading and recovering a store, its lock, the tidying of what
killed writers left, and the aligned predictions that ``Experiment.run``
tests. The on-disk format is described in :mod:`sigtest._store`; the file
helpers live in :mod:`sigtest._store.files`, the checks and writes of a feed
in :mod:`sigtest._store.feed` and the outputs of a run in
:mod:`sigtest._store.publish` (the methods ``feed``, ``remove``,
``publish``, ``load_results`` and ``load_outcomes`` delegate to them).
"""

import errno
import json
import os
import threading
import uuid
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pandas as pd

from sigtest._store import feed as _feed
from sigtest._store import publish as _publish
from sigtest._store.files import (
    _BACKUP,
    _COMMIT,
    _CORRUPT,
    _FORMAT,
    _FORMAT_VERSION,
    _GOLD_FILE,
    _GOLD_FORMAT_VERSION,
    _STORE_NPY,
    _STORE_TMP,
    DESIGN_KEYS,
    CorruptStoreError,
    acquire_lock,
    atomic_write,
    check_manifest,
    dump_manifest,
    fsync_dir,
    read_gold_file,
    refuse_links,
    release_lock,
    sha256,
    stage,
    write_json,
)
from sigtest.utils import warn_external

__all__ = ["ExperimentStore"]


def _positional(run):
    """Whether a run was fed without ids (its items taken by position).

    Recorded as ``positional`` since sigtest 0.1.0; a run of an older manifest is
    taken for positional when its ids are ``0..n-1``.
    """
    if "positional" in run:
        return bool(run["positional"])
    ids = run["ids"]
    return ids == list(range(len(ids)))


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

    def exists(self):
        """Whether ``path`` holds a manifest."""
        return self.manifest_path.is_file()

    @property
    def manifest_path(self):
        """Path of ``manifest.json``."""
        return self.path / "manifest.json"

    def _parse(self, raw, path):
        """``(manifest, gold_file)`` in the bytes ``raw`` of ``path``, checked.

        The structure is checked by :func:`~sigtest._store.files.check_manifest`.

        A manifest of version 3 gets its gold from its gold file (checked
        against the sha256 the manifest records) and the id lists of its runs
        fed without ids (``0..n-1``), so that the rest of the store sees one
        layout whatever the version; ``gold_file`` is ``(file, sha256)`` of that
        gold file, None for a manifest holding its gold.
        """
        try:
            manifest = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise CorruptStoreError(
                f"The store manifest {str(path)!r} is corrupt: it is not valid JSON "
                f"(truncated or damaged? {exc}).") from None
        verified = isinstance(manifest, dict) and manifest.get("format") == _FORMAT \
            and manifest.get("format_version") == _GOLD_FORMAT_VERSION
        gold_file = read_gold_file(self.path, manifest, path) if verified else None
        check_manifest(manifest, path, verified_gold=verified)
        return manifest, gold_file

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
        return self.read_for_update()[0]

    def read_for_update(self):
        """``(manifest, gold_file)``: :meth:`read`, and what :meth:`write_manifest` needs.

        ``gold_file`` is ``(file, sha256)`` of the gold file the manifest's
        gold was read from (a large gold), or None; a manifest read to be
        changed and written back passes it to :meth:`write_manifest`, so
        that an unchanged gold file is kept rather than written again.
        """
        refuse_links(self.path)
        try:
            raw = self.manifest_path.read_bytes()
        except FileNotFoundError:
            if (self.path / _BACKUP).is_file():
                raise CorruptStoreError(
                    f"The store manifest {str(self.manifest_path)!r} is missing."
                    + self._recover_hint()) from None
            return {"format": _FORMAT, "format_version": _FORMAT_VERSION, "gold": None,
                    "systems": {}}, None
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
            refuse_links(self.path)
            fd = acquire_lock(self.path, timeout)
            self._depth = 1
            try:
                _publish.finish_publication(self.path)
                self._sweep_tmp()
                yield
            finally:
                self._depth = 0
                release_lock(self.path, fd)

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

    def sweep_runs(self, manifest):
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
                    self.sweep_runs(manifest)
            except PermissionError:  # a read-only store is read as it is
                pass
            except OSError as exc:  # pragma: no cover - read-only file system
                if exc.errno != errno.EROFS:
                    raise
        return manifest

    def write_manifest(self, manifest, gold_file, gold_changed=True):
        """Replace ``manifest.json``, keeping the one it replaces as ``manifest.json.bak``.

        A large gold is written to its own file first, when it changed
        (:func:`~sigtest._store.files.dump_manifest`; ``gold_changed=False``
        only when ``manifest["gold"]`` is the gold read with ``gold_file``,
        the second item of :meth:`read_for_update`); gold files that neither
        the new manifest nor its backup references are deleted afterwards.
        """
        disk, new_gold = dump_manifest(manifest, gold_changed, gold_file)
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
                keep = stage(self.path / _BACKUP, lambda fh: fh.write(data))
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
        fsync_dir(self.path)
        if new_gold is not None:
            used = {new_gold[0]} | ({gold_file[0]} if gold_file is not None else set())
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
                manifest, gold_file = self._parse(bak.read_bytes(), bak)
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
            self.write_manifest(manifest, gold_file, gold_changed=False)
            self.sweep_runs(manifest)
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
        entry = self.run_entry(self.read(), system, run)
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
        refuse_links(self.path, "runs", entry["file"])
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

    def run_entry(self, manifest, system, run):
        runs = self.system(manifest, system)["runs"]
        if str(run) not in runs:
            raise ValueError(f"System {system!r} has no run {run!r}; its runs are "
                             f"{sorted(int(r) for r in runs)}.")
        return runs[str(run)]

    # --------------------------------------------------------- feed, remove
    def feed(self, system, predictions, *, y_true=None, ids=None, groups=None, strata=None,
             run=None, overwrite=False):
        """Validate and store one run (see :meth:`sigtest.experiment.Experiment.feed`)."""
        return _feed.feed(self, system, predictions, y_true=y_true, ids=ids, groups=groups,
                          strata=strata, run=run, overwrite=overwrite)

    def remove(self, system, run=None):
        """Remove runs (see :meth:`sigtest.experiment.Experiment.remove`)."""
        return _feed.remove(self, system, run)

    # ---------------------------------------------------------------- testing
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
        refuse_links(self.path, "runs", file)
        digest = sha256((self.path / file).read_bytes())
        return {"file": file, "sha256": digest}

    # ---------------------------------------------------------------- outputs
    def _outputs(self):
        """``(table bytes, outcomes)`` of the last run (:func:`sigtest._store.publish.outputs`)."""
        return _publish.outputs(self)

    def load_results(self):
        """The table of the last :meth:`run`, read from ``results.tsv`` (checked)."""
        return _publish.load_results(self)

    def load_outcomes(self):
        """The ``outcomes.json`` of the last :meth:`run`, as a dict (checked)."""
        return _publish.load_outcomes(self)

    def publish(self, frame, outcomes):
        """Write ``results.tsv`` and ``outcomes.json`` of one run as one unit.

        ``frame`` is the tidy table, ``outcomes`` the record of the run
        (:func:`sigtest._store.publish.publish`).
        """
        _publish.publish(self, frame, outcomes)
