"""Several runs per system: split, validate and combine them for ``compare``.

A system may be given as a list of prediction arrays, one per run (random
seed, training restart, CV repeat), every run predicting the same items in
the same order as ``y_true``. Three ways of using them:

``"pool"`` (BooStSa's choice, seed 001 sec. 2.3)
    Concatenate the runs item-wise (``y_true`` repeated once per run) and run
    one test on the ``R * N`` pooled items. The score is then the system's
    average over runs, which includes seed variability. Because the same test
    item appears ``R`` times, the resampling treats correlated copies as
    independent: p-values are smaller and intervals narrower than for one
    run of size ``N``. Appropriate when the runs are evaluated on *different*
    items, or to reproduce BooStSa; otherwise prefer ``"each"`` or
    ``"mean"``. Systems with a single run are repeated to match the others.

``"each"``
    Test run ``i`` of A against run ``i`` of B for every ``i`` and keep all
    results; the spread over runs (min/max p-value, how many runs are
    significant, min/max difference and CI bounds; Table 1 of Bestgen 2022,
    seed 002) shows how much a conclusion depends on the seed. Every system
    must have the same number of runs. Appropriate for paired runs (same
    seeds or same CV splits for every system).

``"mean"``
    Average the probability predictions of the runs (the ensemble of runs)
    and run one test of size ``N``. Appropriate when the question is about
    the averaged model, with probabilistic outputs; hard-label runs cannot be
    averaged and raise a ``ValueError``.
"""

import numbers

import numpy as np

__all__ = ["RUNS_MODES", "split_runs", "combine_runs"]

RUNS_MODES = ("pool", "each", "mean")


def _is_array_like(x):
    return hasattr(x, "__len__") and not isinstance(x, (str, bytes)) and np.ndim(x) >= 1


def split_runs(name, value, n_samples):
    """Return the runs of one system as a list of arrays of length ``n_samples``.

    A ``list`` or ``tuple`` whose elements are all array-likes of length
    ``n_samples`` is read as several runs; anything else is one run (a 1-D
    array of labels or an ``(n_samples, n_classes)`` array of probabilities,
    given as an array, a pandas object or nested lists).
    """
    is_runs = (
        isinstance(value, (list, tuple))
        and len(value) > 0
        and all(_is_array_like(v) and len(v) == n_samples for v in value)
        and not (len(value) == n_samples and all(isinstance(v, (list, tuple)) for v in value))
    )
    raw = list(value) if is_runs else [value]
    runs = []
    for i, run in enumerate(raw):
        arr = np.asarray(run)
        where = f"system {name!r}" + (f" (run {i})" if is_runs else "")
        if arr.ndim not in (1, 2):
            raise ValueError(
                f"The predictions of {where} must be 1-D labels or a 2-D (n_samples, "
                f"n_classes) array. Got shape {arr.shape} instead."
            )
        if arr.shape[0] != n_samples:
            raise ValueError(
                f"The predictions of {where} have {arr.shape[0]} samples but y_true has "
                f"{n_samples}."
            )
        runs.append(arr)
    return runs


def _n_runs_error(runs, mode):
    counts = {name: len(r) for name, r in runs.items()}
    return ValueError(
        f"runs={mode!r} needs the same number of runs for every system"
        + (" (or a single run)" if mode == "pool" else "")
        + f"; got {counts}."
    )


def _tile(y, n):
    return np.concatenate([np.asarray(y)] * n, axis=0)


def combine_runs(targets, runs, mode):
    """Turn the runs into one or more run-free comparisons.

    Parameters
    ----------
    targets : dict
        Ground truth by input type (``{"labels": y, "proba": P, ...}``).
    runs : dict of str -> list of ndarray
        Output of :func:`split_runs` for every system.
    mode : {"pool", "each", "mean"}

    Returns
    -------
    comparisons : list of (targets, systems)
        ``systems`` maps each name to one prediction array. One element,
        except for ``mode="each"`` with several runs (one element per run).
    """
    if mode not in RUNS_MODES:
        raise ValueError(
            f"The 'runs' parameter must be one of {RUNS_MODES}. Got {mode!r} instead."
        )
    counts = {len(r) for r in runs.values()}
    if counts == {1}:
        return [(targets, {name: r[0] for name, r in runs.items()})]
    if mode == "each":
        if len(counts) != 1:
            raise _n_runs_error(runs, mode)
        (n,) = counts
        return [(targets, {name: r[i] for name, r in runs.items()}) for i in range(n)]
    if mode == "pool":
        if len(counts - {1}) != 1:
            raise _n_runs_error(runs, mode)
        (n,) = counts - {1}
        pooled = {
            name: np.concatenate(r if len(r) == n else r * n, axis=0) for name, r in runs.items()
        }
        return [({k: _tile(y, n) for k, y in targets.items()}, pooled)]
    averaged = {}
    for name, r in runs.items():
        if len(r) > 1 and any(a.ndim != 2 or not _is_float(a) for a in r):
            raise ValueError(
                f"runs='mean' averages probability predictions, but system {name!r} has "
                "hard-label runs; use runs='pool' or runs='each'."
            )
        shapes = {a.shape for a in r}
        if len(shapes) > 1:
            raise ValueError(
                f"The runs of system {name!r} have different shapes {sorted(shapes)}; "
                "runs='mean' needs the same (n_samples, n_classes) in every run."
            )
        averaged[name] = r[0] if len(r) == 1 else np.mean(np.stack(r), axis=0)
    return [(targets, averaged)]


def _is_float(a):
    return np.issubdtype(a.dtype, np.floating) or (
        a.dtype == object and all(isinstance(v, numbers.Real) for v in a.ravel()[:10])
    )
