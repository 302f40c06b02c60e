"""A persisted experiment: feed predictions as they are produced, test them later.

BooStSa's ``feed`` / ``loadjson`` / ``run`` workflow (Fornaciari et al. 2022,
sec. 4.4) done right: every run is stored with the ids of the items it
predicts, and :meth:`Experiment.run` aligns every run to the gold labels *by
those ids*, whatever order the items were predicted in (BooStSa stores the
indexes but pools the runs in feed order and never uses them).

Store layout (a directory)::

    manifest.json        gold ids and labels, systems, runs (ids, file, shape)
    runs/s000_r0.npy     predictions of system 0, run 0 (no pickle)
    results.tsv          tidy table of the last run() (tab separated)
    outcomes.json        parameters, versions, seed, records, summary, letters

Every file is written to a temporary file and moved into place with
``os.replace``, and ``feed`` and ``remove`` re-read the manifest under a lock
file, so a crash never leaves a half-written manifest and several processes
of one pipeline may feed the same store. A feed is checked against the
stored gold and runs (kind, dtype, number of columns, ids) before anything
is written, so a store never holds a run it cannot test.
"""

import datetime
import hashlib
import json
import math
import os
import platform
import tempfile
import time
import uuid
import warnings
from contextlib import contextmanager
from numbers import Integral
from pathlib import Path

import numpy as np
import pandas as pd

from .metrics._check_proba import check_proba

__all__ = ["Experiment"]

_FORMAT = "sigtest.experiment"
_FORMAT_VERSION = 1
_MISSING = ("error", "intersect")
_TEXT_COLUMNS = ("system_a", "system_b", "metric", "test", "alternative")


# -------------------------------------------------------------- file helpers
def _atomic_write(path, write):
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


def _write_json(path, obj, *, compact=False):
    layout = {"separators": (",", ":")} if compact else {"indent": 1}
    text = json.dumps(obj, allow_nan=False, default=_jsonable, **layout)
    _atomic_write(path, lambda fh: fh.write(text.encode("utf-8")))


def _jsonable(value):
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    return repr(value)


def _finite(obj):
    """Replace NaN/inf by None, recursively, so the JSON is strict."""
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    if isinstance(obj, dict):
        return {str(k): _finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_finite(v) for v in obj]
    if isinstance(obj, np.generic):
        return _finite(obj.item())
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


def _describe_test(test):
    if test is None:
        return None
    if isinstance(test, str):
        return test
    if isinstance(test, (list, tuple)):
        return [_describe_test(t) for t in test]
    params = test.get_params(deep=False) if hasattr(test, "get_params") else {}
    return {"class": type(test).__name__, "params": params}


def _versions():
    import numba
    import scipy
    import sklearn

    from ._version import __version__

    return {"sigtest": __version__, "python": platform.python_version(),
            "numpy": np.__version__, "scipy": scipy.__version__, "pandas": pd.__version__,
            "scikit-learn": sklearn.__version__, "numba": numba.__version__}


# --------------------------------------------------------------------- store
class Experiment:
    """A directory that stores predictions run by run and tests them.

    Feed each run of each system as soon as it is produced (:meth:`feed`),
    possibly from several processes and sessions, then compare all of them
    at once (:meth:`run`), which aligns every run to the gold labels by item
    id and calls :func:`sigtest.compare`. The store keeps the gold labels
    and item ids in ``manifest.json``, the predictions as ``.npy`` files,
    and the last results in ``results.tsv`` and ``outcomes.json``.

    Parameters
    ----------
    path : str or os.PathLike
        Directory of the store; created by the first :meth:`feed` if needed.

    See Also
    --------
    sigtest.compare : the comparison that :meth:`run` performs.

    Notes
    -----
    Systems keep the order of their first feed: with ``pairs="all"``
    system A of each pair is the one fed first (choose another order with
    ``run(systems=[...])``). Runs are numbered ``0, 1, ...`` per system
    unless ``run=`` is given; ``runs="each"`` pairs runs by number.

    References
    ----------
    T. Fornaciari, A. Uma, M. Poesio and D. Hovy (2022). Hard and soft
    evaluation of NLP models with BOOtSTrap SAmpling - BooStSa. ACL System
    Demonstrations, sec. 4.4.

    Examples
    --------
    >>> import tempfile
    >>> import numpy as np
    >>> from sigtest import Experiment, PairedPermutation
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 200)
    >>> tmp = tempfile.TemporaryDirectory()
    >>> exp = Experiment(tmp.name)
    >>> exp.feed("h0", np.where(rng.random(200) < 0.6, y, 1 - y), y_true=y)
    0
    >>> order = rng.permutation(200)        # h1 predicted the items shuffled
    >>> h1 = np.where(rng.random(200) < 0.9, y, 1 - y)
    >>> exp.feed("h1", h1[order], ids=order)
    0
    >>> res = exp.run(metrics="accuracy", test=PairedPermutation(n_resamples=999))
    >>> res.to_frame()[["system_a", "system_b", "score_a", "score_b"]]
      system_a system_b  score_a  score_b
    0       h0       h1    0.565     0.94
    >>> bool(exp.load_results()["significant"][0])
    True
    >>> tmp.cleanup()
    """

    def __init__(self, path):
        if not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"The 'path' parameter must be a str or path; got {path!r}.")
        self.path = Path(path)

    @classmethod
    def load(cls, path):
        """Open an existing store (``ValueError`` if ``path`` holds none)."""
        exp = cls(path)
        if not exp._manifest_path.is_file():
            raise ValueError(f"No sigtest experiment at {str(exp.path)!r} (no manifest.json).")
        exp._read()
        return exp

    def __repr__(self):
        return f"Experiment({str(self.path)!r})"

    # ---------------------------------------------------------------- manifest
    @property
    def _manifest_path(self):
        return self.path / "manifest.json"

    def _read(self):
        if not self._manifest_path.is_file():
            return {"format": _FORMAT, "format_version": _FORMAT_VERSION, "gold": None,
                    "systems": {}}
        manifest = json.loads(self._manifest_path.read_text(encoding="utf-8"))
        if manifest.get("format") != _FORMAT or manifest.get("format_version") != _FORMAT_VERSION:
            raise ValueError(f"{str(self._manifest_path)!r} is not a sigtest experiment "
                             f"manifest of version {_FORMAT_VERSION}.")
        return manifest

    @contextmanager
    def _lock(self, timeout=60.0):
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

    @property
    def systems(self):
        """Names of the systems fed so far, in order of first feed."""
        return list(self._read()["systems"])

    def runs(self, system):
        """Sorted run numbers of ``system``."""
        return sorted(int(r) for r in self._system(self._read(), system)["runs"])

    def gold(self):
        """Return ``(ids, y_true)``: every item id with its gold label, in store order."""
        manifest = self._read()
        if manifest["gold"] is None:
            raise ValueError("Nothing has been fed to this experiment yet.")
        return np.asarray(manifest["gold"]["ids"]), np.asarray(manifest["gold"]["y_true"])

    def load_run(self, system, run):
        """Return ``(ids, predictions)`` of one run, as fed."""
        entry = self._run_entry(self._read(), system, run)
        return np.asarray(entry["ids"]), np.load(self.path / entry["file"], allow_pickle=False)

    def _system(self, manifest, system):
        if system not in manifest["systems"]:
            raise ValueError(
                f"Unknown system {system!r}; the store has {list(manifest['systems'])}.")
        return manifest["systems"][system]

    def _run_entry(self, manifest, system, run):
        runs = self._system(manifest, system)["runs"]
        if str(run) not in runs:
            raise ValueError(f"System {system!r} has no run {run!r}; its runs are "
                             f"{sorted(int(r) for r in runs)}.")
        return runs[str(run)]

    # -------------------------------------------------------------------- feed
    def feed(self, system, predictions, *, y_true=None, ids=None, run=None, overwrite=False):
        """Store one run of one system.

        Parameters
        ----------
        system : str
            System (condition) name, e.g. ``"h0"`` or ``"mtl"``.
        predictions : array-like of shape (n_items,) or (n_items, n_classes)
            Hard labels or probabilities for the items ``ids``, in that order.
        y_true : array-like of shape (n_items,) or (n_items, n_classes), optional
            Gold labels (or distributions) of the items ``ids``. Required on
            the first feed. Later values must equal the stored ones on the
            ids they share; new ids extend the gold.
        ids : array-like of int or str, optional
            Item identifiers (e.g. dataset indexes after shuffling), unique.
            Default ``0 .. n_items - 1``. Every id must have a gold label.
        run : int, optional
            Run number (>= 0); default: one more than the system's largest.
        overwrite : bool, default=False
            Replace an existing ``(system, run)`` instead of raising.

        Returns
        -------
        run : int
            The run number stored.

        Raises
        ------
        ValueError
            No gold yet, gold disagreeing with the stored gold, ids without
            gold, duplicate ids, lengths that differ, an existing run
            without ``overwrite=True``, or a feed the store could not be
            run with: hard labels of another type than the gold's (strings
            vs numbers), 1-D predictions holding non-integer numbers
            (probabilities belong in an ``(n_items, n_classes)`` array),
            probability columns that do not match the gold's classes,
            values outside [0, 1], ids of another type than the store's, or
            new gold ids that add a class while probability runs of the old
            class count are stored. Nothing is written when a feed is
            refused (a failed first feed leaves no directory behind).

        Notes
        -----
        With 1-D gold labels, column ``k`` of a probability array is the
        ``k``-th class of the sorted gold labels (as in
        :func:`sigtest.compare`); with 2-D gold distributions, the classes
        are its columns and hard predictions are column indices.
        """
        if not isinstance(system, str) or not system:
            raise TypeError(f"The 'system' parameter must be a non-empty str; got {system!r}.")
        preds = _canonical(predictions, "predictions")
        item_ids = _check_ids(ids, preds.shape[0], system)
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
            with self._lock():
                manifest = self._read()
                self._check_against_store(manifest, system, preds, gold, item_ids, run)
                self._merge_gold(manifest, item_ids, gold, system)
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
        _atomic_write(self.path / file, lambda fh: np.save(fh, preds, allow_pickle=False))
        runs[str(run)] = {"file": file, "ids": item_ids, "shape": list(preds.shape),
                          "dtype": preds.dtype.str,
                          "fed_at": datetime.datetime.now(datetime.timezone.utc).isoformat()}
        try:
            _write_json(self._manifest_path, manifest, compact=True)  # ids on one line
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

    # ------------------------------------------------------------------ remove
    def remove(self, system, run=None):
        """Remove one run of a system, or the whole system, from the store.

        The manifest is rewritten atomically (under the feed lock) before
        the prediction files are deleted, so a crash never leaves the
        manifest pointing at a missing file. Removing the last run of a
        system removes the system. The gold is kept, and so are
        ``results.tsv`` and ``outcomes.json`` of the last :meth:`run`.

        Parameters
        ----------
        system : str
            Name of a stored system.
        run : int, optional
            Run number to remove; default: every run of ``system``.

        Returns
        -------
        removed : list of int
            The run numbers removed.

        Raises
        ------
        ValueError
            No store at ``path``, an unknown system, or a run the system
            does not have (the message names it and lists what exists).
        """
        if not isinstance(system, str):
            raise TypeError(f"The 'system' parameter must be a str; got {system!r}.")
        if run is not None and (not isinstance(run, Integral) or isinstance(run, bool)):
            raise TypeError(f"The 'run' parameter must be an int or None; got {run!r}.")
        if not self._manifest_path.is_file():
            raise ValueError(f"No sigtest experiment at {str(self.path)!r} (no manifest.json).")
        with self._lock():
            manifest = self._read()
            entry = self._system(manifest, system)
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
            _write_json(self._manifest_path, manifest, compact=True)
            for file in files:
                (self.path / file).unlink(missing_ok=True)
        return numbers

    # --------------------------------------------------------------------- run
    def _aligned(self, manifest, names, on_missing):
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
            warnings.warn(f"on_missing='intersect': testing on the {int(keep.sum())} ids that "
                          f"every run has; {int((~keep).sum())} of {len(gold_ids)} gold ids "
                          "dropped.", UserWarning, stacklevel=3)
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

    def run(self, *, metrics=("accuracy", "f1_macro"), test=None, pairs="all", baseline=None,
            correction="holm", runs="average", alpha=0.05, systems=None, on_missing="error",
            n_jobs=None, random_state=0, verbose=False, labels=None, pos_label=None):
        """Compare every stored system and save ``results.tsv`` and ``outcomes.json``.

        Every run is aligned to the gold by its item ids (not by feed order),
        the items taken in sorted-id order (so the order in which the gold
        was fed does not matter either), then :func:`sigtest.compare` tests
        the systems; see it for
        ``metrics``, ``test``, ``pairs``, ``baseline``, ``correction``,
        ``runs``, ``alpha``, ``n_jobs``, ``verbose``, ``labels`` and
        ``pos_label``.

        Parameters
        ----------
        test : SignificanceTest, str, tuple or list, optional
            As in :func:`sigtest.compare`; a str is a registry name
            (:func:`sigtest.get_test`).
        runs : {"average", "each", "mean", "pool"}, default="average"
            How several runs per system are used, as in
            :func:`sigtest.compare` (whose default this follows): the
            per-item statistics averaged over runs; ``"pool"`` is BooStSa's
            mode and warns.
        labels : array-like, optional
            Class set of the label metrics (e.g. the classes macro-F1
            averages over), passed to :func:`sigtest.compare`; recorded in
            ``outcomes.json``.
        pos_label : int or str, optional
            Positive class of one-class scores, passed to
            :func:`sigtest.compare`.
        systems : list of str, optional
            Systems to compare, in this order; default: all, in feed order.
        on_missing : {"error", "intersect"}, default="error"
            A run that lacks some gold ids raises a ``ValueError`` naming the
            system and run, or (``"intersect"``) every run is tested on the
            ids that all of them have, with a warning.
        random_state : int or None, default=0
            Seed of :func:`sigtest.compare`; ``None`` draws one from the OS
            and records it in ``outcomes.json`` so the run can be repeated.

        Returns
        -------
        result : ComparisonResult
            With ``runs="each"``, its ``run`` column is the position of the
            run among the sorted run numbers (``outcomes.json`` lists them
            under ``data.runs``); it equals the run number for runs fed with
            the default numbering.
        """
        if on_missing not in _MISSING:
            raise ValueError(f"The 'on_missing' parameter must be one of {_MISSING}; got "
                             f"{on_missing!r} instead.")
        if random_state is not None and (not isinstance(random_state, Integral)
                                         or isinstance(random_state, bool)):
            raise TypeError("The 'random_state' parameter of Experiment.run must be an int "
                            f"or None (it is saved in outcomes.json); got {random_state!r}.")
        from ._compare import compare
        from .tests_ import get_test

        manifest = self._read()
        if manifest["gold"] is None:
            raise ValueError("Nothing has been fed to this experiment yet.")
        if isinstance(systems, str):
            raise TypeError("The 'systems' parameter must be a list of system names, not a str.")
        names = list(manifest["systems"]) if systems is None else list(systems)
        if len(set(names)) != len(names):
            raise ValueError(f"The 'systems' parameter names a system twice: {names}.")
        for name in names:
            self._system(manifest, name)
        with self._lock():  # no feed may replace a file while it is read
            manifest = self._read()
            y, common, preds, run_numbers = self._aligned(manifest, names, on_missing)
            files = {n: {str(r): self._digest(manifest, n, r) for r in rs}
                     for n, rs in run_numbers.items()}
        several = any(len(v) > 1 for v in run_numbers.values())
        if runs == "each" and several and len({tuple(v) for v in run_numbers.values()}) > 1:
            raise ValueError(f"runs='each' pairs runs by number, so every system needs the "
                             f"same run numbers; got {run_numbers}.")
        seed = (int(np.random.SeedSequence().generate_state(1)[0]) if random_state is None
                else int(random_state))
        test_obj = get_test(test) if isinstance(test, str) else test
        extra = {k: v for k, v in (("labels", labels), ("pos_label", pos_label))
                 if v is not None}
        result = compare(y, preds, metrics=metrics, test=test_obj, pairs=pairs,
                         baseline=baseline, correction=correction, alpha=alpha, n_jobs=n_jobs,
                         random_state=seed, verbose=verbose, runs=runs, **extra)
        frame = result.to_frame()
        _atomic_write(self.path / "results.tsv", lambda fh: fh.write(
            frame.to_csv(sep="\t", index=False, na_rep="NaN").encode("utf-8")))
        params = dict(metrics=result.metrics, test=_describe_test(test), tests=result.tests,
                      pairs=pairs, baseline=baseline, correction=correction, runs=runs,
                      alpha=alpha, systems=names, on_missing=on_missing, n_jobs=n_jobs,
                      labels=None if labels is None else np.asarray(labels).tolist(),
                      pos_label=pos_label)
        outcomes = {
            "created": datetime.datetime.now(datetime.timezone.utc).isoformat(),
            "parameters": params,
            "seeds": {"random_state": seed, "drawn": random_state is None,
                      "scheme": "compare: spawn_seeds(random_state, n) in the order "
                                "run -> metric -> pair -> test"},
            "versions": _versions(),
            "data": {"n_items": len(common), "n_gold": len(manifest["gold"]["ids"]),
                     "runs": run_numbers,
                     "files": files},
            "records": frame.to_dict(orient="records"),
            "summary": result.summary().to_dict(orient="index"),
            "letters": self._letters(result, run_numbers),
        }
        if result.n_runs > 1:
            outcomes["runs_summary"] = result.runs_summary().to_dict(orient="records")
        _write_json(self.path / "outcomes.json", _finite(outcomes))
        return result

    def _digest(self, manifest, system, run):
        file = manifest["systems"][system]["runs"][str(run)]["file"]
        digest = hashlib.sha256((self.path / file).read_bytes()).hexdigest()
        return {"file": file, "sha256": digest}

    @staticmethod
    def _letters(result, run_numbers):
        """``{metric: {system: letters}}`` (per run number with several runs), or None."""
        if result.pairs != "all":
            return None
        out = {}
        for metric in result.metrics:
            if result.n_runs == 1:
                out[metric] = result.letters(metric)["letters"].to_dict()
            else:
                numbers = next(v for v in run_numbers.values() if len(v) > 1)
                out[metric] = {str(numbers[r]): result.letters(metric, run=r)["letters"].to_dict()
                               for r in range(result.n_runs)}
        return out

    # ----------------------------------------------------------------- results
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
