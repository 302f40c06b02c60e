"""The files of an :class:`~sigtest.experiment.Experiment` store.

Store layout (a directory)::

    manifest.json        gold ids and labels (and cluster / stratum ids),
                         systems, runs (ids, file, shape)
    runs/s000_r0.npy     predictions of system 0, run 0 (no pickle)
    results.tsv          tidy table of the last run() (tab separated)
    outcomes.json        parameters, versions, seed, records, summary, letters

Cluster (``groups``) and stratum (``strata``) ids are item annotations like
the gold labels: given with a feed for its ``ids``, stored in the manifest's
``gold`` entry aligned with the gold ids, checked to agree on the ids that
later feeds share, and passed to :func:`sigtest.compare` by ``run``. A
manifest holding them has format version 2 (older sigtest versions, which
would ignore them, refuse it); one without them stays version 1.

Every file is written to a temporary file and moved into place with
``os.replace`` (:func:`atomic_write`), and ``feed`` and ``remove`` re-read
the manifest under a lock file, so a crash never leaves a half-written
manifest and several processes of one pipeline may feed the same store. A
feed is checked against the stored gold and runs (kind, dtype, number of
columns, ids) before anything is written, so a store never holds a run it
cannot test. :class:`ExperimentStore` holds all of this (files, manifest,
lock, atomic writes, feed validation); :class:`sigtest.experiment.Experiment`
is the thin public object that tests what it holds.
"""

import datetime
import hashlib
import json
import math
import os
import tempfile
import time
import uuid
from contextlib import contextmanager
from numbers import Integral
from pathlib import Path

import numpy as np
import pandas as pd

from ._engine.design import check_ids
from .metrics._check_proba import check_proba
from .utils import warn_external

__all__ = ["ExperimentStore", "atomic_write", "write_json", "finite"]

_FORMAT = "sigtest.experiment"
_FORMAT_VERSION = 1
#: Version of a manifest that holds cluster or stratum ids; both are read.
_DESIGN_FORMAT_VERSION = 2
_READABLE_VERSIONS = (_FORMAT_VERSION, _DESIGN_FORMAT_VERSION)
#: Item annotations of the sampling design, stored next to the gold labels.
DESIGN_KEYS = ("groups", "strata")
_TEXT_COLUMNS = ("system_a", "system_b", "metric", "test", "alternative")


# -------------------------------------------------------------- file helpers
def atomic_write(path, write):
    """Call ``write(file)`` on a temporary file next to ``path``, then replace ``path``."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
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


# ------------------------------------------------------------ input checking
def _canonical(values, name, *, ndims=(1, 2)):
    """A NumPy array whose dtype survives ``.tolist()`` -> JSON -> ``np.asarray``."""
    arr = np.asarray(values)
    if arr.dtype == object:
        arr = np.asarray(arr.tolist())
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

    def exists(self):
        """Whether ``path`` holds a manifest."""
        return self.manifest_path.is_file()

    @property
    def manifest_path(self):
        """Path of ``manifest.json``."""
        return self.path / "manifest.json"

    def read(self):
        """The manifest (an empty one when nothing was fed yet)."""
        if not self.manifest_path.is_file():
            return {"format": _FORMAT, "format_version": _FORMAT_VERSION, "gold": None,
                    "systems": {}}
        manifest = json.loads(self.manifest_path.read_text(encoding="utf-8"))
        if manifest.get("format") != _FORMAT \
                or manifest.get("format_version") not in _READABLE_VERSIONS:
            raise ValueError(f"{str(self.manifest_path)!r} is not a sigtest experiment "
                             f"manifest of version {' or '.join(map(str, _READABLE_VERSIONS))}.")
        return manifest

    @contextmanager
    def lock(self, timeout=60.0):
        """Exclusive lock file so that feeds from several processes do not race."""
        self.path.mkdir(parents=True, exist_ok=True)
        lock = self.path / ".manifest.lock"
        start = time.monotonic()
        while True:
            try:
                fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
                break
            except FileExistsError:
                if time.monotonic() - start > timeout:
                    raise RuntimeError(
                        f"Could not lock {str(lock)!r} within {timeout} s; if no other "
                        "process is feeding this store, delete the file.") from None
                time.sleep(0.05)
        try:
            os.close(fd)
            yield
        finally:
            os.unlink(lock)

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
        return np.asarray(entry["ids"]), np.load(self.path / entry["file"], allow_pickle=False)

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
                self._check_against_store(manifest, system, preds, gold, item_ids, run)
                n_gold = 0 if manifest["gold"] is None else len(manifest["gold"]["ids"])
                self._merge_gold(manifest, item_ids, gold, system)
                self._merge_design(manifest, item_ids, design, n_gold, system)
                self._check_classes(manifest, system, preds, run)
                return self._store_run(manifest, system, preds, item_ids, run, overwrite)
        except BaseException:
            if not existed:  # a failed first feed leaves no empty store behind
                for leftover in (self.path / "runs", self.path):
                    try:
                        leftover.rmdir()
                    except OSError:
                        pass
            raise

    def _store_run(self, manifest, system, preds, item_ids, run, overwrite):
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
                          "dtype": preds.dtype.str,
                          "fed_at": datetime.datetime.now(datetime.timezone.utc).isoformat()}
        if any(manifest["gold"].get(key) is not None for key in DESIGN_KEYS):
            manifest["format_version"] = _DESIGN_FORMAT_VERSION
        try:
            write_json(self.manifest_path, manifest, compact=True)  # ids on one line
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
        store_gold = np.asarray(stored["y_true"])
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
        gold = np.asarray(manifest["gold"]["y_true"])
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
        else:
            classes = np.unique(gold)
            k = len(classes)
            what = f"the gold has {k} classes {classes.tolist()[:10]}"
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
        where = {i: k for k, i in enumerate(stored["ids"])}
        if gold is None:
            unknown = [i for i in ids if i not in where]
            if unknown:
                raise ValueError(
                    f"{len(unknown)} ids of system {system!r} have no gold label (e.g. "
                    f"{unknown[:5]}); pass y_true with these predictions.")
            return
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
            raise ValueError(f"No sigtest experiment at {str(self.path)!r} (no manifest.json).")
        with self.lock():
            manifest = self.read()
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
            write_json(self.manifest_path, manifest, compact=True)
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
                covered[gold_ids.get_indexer(entry["ids"])] = True  # feed checked: all >= 0
                if not covered.all() and on_missing == "error":
                    miss = gold_ids[np.flatnonzero(~covered)[:5]].tolist()
                    raise ValueError(
                        f"Run {r} of system {name!r} lacks {int((~covered).sum())} of the "
                        f"{len(gold_ids)} gold ids (e.g. {miss}); feed them, or pass "
                        "on_missing='intersect' to test on the ids every run has.")
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
                values = np.load(self.path / entry["file"], allow_pickle=False)
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
        digest = hashlib.sha256((self.path / file).read_bytes()).hexdigest()
        return {"file": file, "sha256": digest}

    def load_results(self):
        """The table of the last :meth:`run`, read from ``results.tsv``."""
        path = self.path / "results.tsv"
        if not path.is_file():
            raise ValueError(f"No results in {str(self.path)!r}; call run() first.")
        columns = pd.read_csv(path, sep="\t", nrows=0).columns
        # names stay text (a system called "NA" or "NaN"); every other column is numeric
        return pd.read_csv(path, sep="\t", keep_default_na=False,
                           na_values={c: ["NaN"] for c in columns if c not in _TEXT_COLUMNS},
                           dtype={c: str for c in _TEXT_COLUMNS if c in columns})

    def load_outcomes(self):
        """The ``outcomes.json`` of the last :meth:`run`, as a dict."""
        path = self.path / "outcomes.json"
        if not path.is_file():
            raise ValueError(f"No outcomes in {str(self.path)!r}; call run() first.")
        return json.loads(path.read_text(encoding="utf-8"))

    def write_results(self, frame):
        """Write the tidy table of a run as ``results.tsv`` (atomically)."""
        atomic_write(self.path / "results.tsv", lambda fh: fh.write(
            frame.to_csv(sep="\t", index=False, na_rep="NaN").encode("utf-8")))

    def write_outcomes(self, outcomes):
        """Write ``outcomes.json`` (strict JSON: NaN and inf become null)."""
        write_json(self.path / "outcomes.json", finite(outcomes))
