"""Feeding and removing runs: every check against the stored gold and runs, then the writes.

A feed is checked as given (kinds, shapes, ids, probabilities), then under
the store's lock against the stored gold and runs (kind, dtype, number of
columns, ids, cluster and stratum ids), and only then written: the
predictions first, then the manifest, both atomically, so a store never holds
a run it cannot test. :func:`feed` and :func:`remove` take the
:class:`~sigtest._store.store.ExperimentStore` they work on (its methods
``feed`` and ``remove`` call them).
"""

import datetime
import uuid
from numbers import Integral

import numpy as np
import pandas as pd

from sigtest._engine.checks import check_array_like
from sigtest._engine.design import check_ids
from sigtest._store.files import _DESIGN_FORMAT_VERSION, DESIGN_KEYS, atomic_write
from sigtest.metrics._check_proba import check_proba

__all__ = ["feed", "remove"]

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


# ---------------------------------------------------------------- feed and remove
def feed(store, system, predictions, *, y_true=None, ids=None, groups=None, strata=None,
         run=None, overwrite=False):
    """Validate and store one run in ``store`` (see :meth:`sigtest.experiment.Experiment.feed`)."""
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
    existed = store.path.exists()
    try:
        with store.lock():
            manifest, gold_file = store.read_for_update()
            store.sweep_runs(manifest)
            _check_against_store(manifest, system, preds, gold, item_ids, run)
            if ids is None and gold is None:
                _check_positional(manifest, system, preds.shape[0])
            n_gold = 0 if manifest["gold"] is None else len(manifest["gold"]["ids"])
            _merge_gold(manifest, item_ids, gold, system)
            _merge_design(manifest, item_ids, design, n_gold, system)
            _check_classes(manifest, system, preds, run)
            changed = (n_gold != len(manifest["gold"]["ids"])
                       or any(v is not None for v in design.values()))
            return _store_run(store, manifest, gold_file, system, preds, item_ids, run,
                              overwrite, positional=ids is None, gold_changed=changed)
    except BaseException:
        if not existed:  # a failed first feed leaves no empty store behind
            for leftover in (store.path / "runs", store.path):
                try:
                    leftover.rmdir()
                except OSError:
                    pass
        raise


def remove(store, system, run=None):
    """Remove runs from ``store`` (see :meth:`sigtest.experiment.Experiment.remove`)."""
    if not isinstance(system, str):
        raise TypeError(f"The 'system' parameter must be a str; got {system!r}.")
    if run is not None and (not isinstance(run, Integral) or isinstance(run, bool)):
        raise TypeError(f"The 'run' parameter must be an int or None; got {run!r}.")
    if not store.manifest_path.is_file():
        store.read()  # raises when a backup says that the manifest went missing
        raise ValueError(f"No sigtest experiment at {str(store.path)!r} (no manifest.json).")
    with store.lock():
        manifest, gold_file = store.read_for_update()
        store.sweep_runs(manifest)
        entry = store.system(manifest, system)
        if run is None:
            numbers = sorted(int(r) for r in entry["runs"])
        else:
            store.run_entry(manifest, system, run)
            numbers = [int(run)]
        files = [entry["runs"][str(r)]["file"] for r in numbers]
        for r in numbers:
            del entry["runs"][str(r)]
        if not entry["runs"]:
            del manifest["systems"][system]
        store.write_manifest(manifest, gold_file, gold_changed=False)
        for file in files:
            (store.path / file).unlink(missing_ok=True)
    return numbers


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


def _store_run(store, manifest, gold_file, system, preds, item_ids, run, overwrite,
               positional=False, gold_changed=True):
    """Write the predictions, then the manifest (both atomically).

    ``gold_file``: that of the manifest as read (:meth:`ExperimentStore.read_for_update
    <sigtest._store.store.ExperimentStore.read_for_update>`).
    """
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
    (store.path / "runs").mkdir(exist_ok=True)
    atomic_write(store.path / file, lambda fh: np.save(fh, preds, allow_pickle=False))
    runs[str(run)] = {"file": file, "ids": item_ids, "shape": list(preds.shape),
                      "dtype": preds.dtype.str, "positional": positional,
                      "fed_at": datetime.datetime.now(datetime.timezone.utc).isoformat()}
    if any(manifest["gold"].get(key) is not None for key in DESIGN_KEYS):
        manifest["format_version"] = _DESIGN_FORMAT_VERSION
    try:
        store.write_manifest(manifest, gold_file, gold_changed)
    except BaseException:
        (store.path / file).unlink(missing_ok=True)
        raise
    if old:
        (store.path / old).unlink(missing_ok=True)
    return run


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
    for key in DESIGN_KEYS:
        _merge_design_key(gold, key, ids, design[key], n_old, system)
    _check_clusters_in_strata(gold)


def _merge_design_key(gold, key, ids, given, n_old, system):
    """Merge the ``key`` ids (``"groups"`` or ``"strata"``) of one feed into ``gold``."""
    where = {i: k for k, i in enumerate(gold["ids"])}
    n = len(gold["ids"])
    stored = gold.get(key)
    if given is None:
        if stored is not None and n > n_old:
            raise ValueError(
                f"The store holds '{key}' ids for its items but this feed of system "
                f"{system!r} adds {n - n_old} gold ids without them; pass {key}= "
                "with these predictions.")
        if stored is not None:
            stored.extend([None] * (n - len(stored)))
        return
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


def _check_clusters_in_strata(gold):
    """Each cluster of the stored ids lies in one stratum."""
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
