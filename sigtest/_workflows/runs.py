"""Several runs per system: split, validate and combine them for ``compare``.

A system may be given as a list of prediction arrays, one per run (random
seed, training restart, CV repeat), every run predicting the same items in
the same order as ``y_true``. Four ways of using them, each testing its own
hypothesis:

``"average"`` (default)
    H0: "on average over runs, B is no better than A" (the expected score of
    a run of B equals that of a run of A, on these items). Per item, each
    system's sufficient statistics are averaged over its runs (A and B may
    have different run counts), then one paired test runs over the ``N``
    items (:func:`sigtest._engine.prepare.prepare_paired_runs`). The observed
    score is the pooled score (all runs together). The item is the
    resampling unit, so the correlation of the ``R`` copies of an item is
    respected: for additive statistics this is the cluster bootstrap /
    cluster permutation with the item as cluster, a valid test of the
    run-averaged difference (type-I error measured in
    ``tests/workflows/test_runs.py``). The runs are taken as given: the inference is
    over items, conditional on the seeds drawn, so it does not include the
    uncertainty of averaging only ``R`` seeds (with few, very different
    seeds, look at ``"each"`` too). It needs metrics with sufficient
    statistics and tests that do not override ``test()``; otherwise use
    ``"each"``.

``"each"``
    H0, for each run ``i`` separately: "run ``i`` of B is no better than run
    ``i`` of A". Every result is kept; the spread over runs (min/max p-value,
    how many runs are significant, min/max difference and CI bounds; Table 1
    of Bestgen 2022) shows how much a conclusion depends on the seed. Every
    system must have the same number of runs. Appropriate for paired runs
    (same seeds or same CV splits for every system).

``"mean"``
    H0: "the ensemble of B's runs (averaged probabilities) is no better than
    the ensemble of A's". One test of size ``N``; hard-label runs cannot be
    averaged and raise a ``ValueError``.

``"pool"`` (BooStSa compatibility only; warns)
    Concatenate the runs item-wise (``y_true`` repeated once per run) and run
    one test on the ``R * N`` pooled items, as BooStSa does (seed 001 sec.
    2.3). The score is the run-average, but the resampling treats the ``R``
    correlated copies of an item as independent items, so p-values are too
    small and intervals too narrow: with 5 runs that each re-draw 10 % of the
    predictions (N = 300) it rejected a true null 21-34 % of the time at
    alpha = .05. Only valid when the runs are evaluated on *different*
    items. Systems with a single run are repeated to match the others.
    With cluster ids (``compare(..., groups=)``) the ids are tiled with the
    runs, so the ``R`` copies of an item stay in its cluster and are
    resampled together: for a metric whose score does not change when every
    statistic is scaled by ``R`` (accuracy, F1, ...) this is the clustered
    ``"average"`` test (the pooled cluster sums are ``R`` times the
    run-averaged ones), and no warning is given.

``"nested"``
    H0: "the expected score of a freshly trained run of B equals that of a
    freshly trained run of A" (expectation over seeds *and* items). The
    hierarchical (two-stage) bootstrap
    (:class:`sigtest.tests_._nested.HierarchicalBootstrap`) resamples each
    system's runs with replacement (independently for A and B), then the
    items (the same items for both), so the seed variance counts: unlike
    ``"average"``, whose inference is conditional on the seeds drawn, it
    does not mistake two lucky seeds for a better system. Run counts may
    differ; fewer than 5 runs for a system give a ``SmallSampleWarning``
    (one run: its seed variance is taken as 0). Needs metrics with
    sufficient statistics; no ``sample_weight``, ``groups`` or ``strata``.
    Type-I error and power measured in ``tests/significance/test_nested.py`` and
    ``docs/seeds.md``.
"""

import numbers

import numpy as np

from sigtest._constants import RUNS_MODES
from sigtest.utils import warn_external

__all__ = ["RUNS_MODES", "split_runs", "combine_runs", "tile"]


def _is_array_like(x):
    if isinstance(x, (list, tuple)):  # np.ndim of a ragged list raises
        return True
    return hasattr(x, "__len__") and not isinstance(x, (str, bytes)) and np.ndim(x) >= 1


def split_runs(name, value, n_samples, *, check_length=True):
    """Return the runs of one system as a list of arrays of length ``n_samples``.

    A ``list`` or ``tuple`` whose elements are all array-likes of length
    ``n_samples`` is read as several runs; anything else is one run (a 1-D
    array of labels or an ``(n_samples, n_classes)`` array of probabilities,
    given as an array, a pandas object or nested lists). With
    ``check_length=False`` a run of another length is returned as is:
    :func:`sigtest.compare` leaves that check to the engine's input path.
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
        where = f"system {name!r}" + (f" (run {i})" if is_runs else "")
        try:
            arr = np.asarray(run)
        except ValueError as exc:  # e.g. ragged rows of probabilities
            raise ValueError(
                f"The predictions of {where} could not be read as an array (rows of "
                f"different lengths?): {exc}"
            ) from exc
        if arr.ndim not in (1, 2):
            raise ValueError(
                f"The predictions of {where} must be 1-D labels or a 2-D (n_samples, "
                f"n_classes) array. Got shape {arr.shape} instead."
            )
        if check_length and arr.shape[0] != n_samples:
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


def tile(y, n):
    """``y`` repeated ``n`` times along the items (``runs="pool"``: targets and ids)."""
    return np.concatenate([np.asarray(y)] * n, axis=0)


def combine_runs(targets, runs, mode, *, clustered=False):
    """Turn the runs into one or more run-free comparisons.

    Parameters
    ----------
    targets : dict
        Ground truth by input type (``{"labels": y, "proba": P, ...}``).
    runs : dict of str -> list of ndarray
        Output of :func:`split_runs` for every system.
    mode : {"average", "each", "mean", "pool", "nested"}
    clustered : bool, default=False
        Whether the items come with cluster ids, tiled with the pooled runs
        by the caller (the pooled copies of an item then stay in its cluster
        and ``mode="pool"`` does not warn).

    Returns
    -------
    comparisons : list of (targets, systems)
        ``systems`` maps each name to one prediction array, or for
        ``mode="average"`` or ``"nested"`` with several runs to the list of its runs. One
        element, except for ``mode="each"`` with several runs (one element
        per run).

    Warns
    -----
    UserWarning
        ``mode="pool"`` with several runs and no clusters: the pooled test
        is anti-conservative (see the module docstring).
    """
    if mode not in RUNS_MODES:
        raise ValueError(
            f"The 'runs' parameter must be one of {RUNS_MODES}. Got {mode!r} instead."
        )
    counts = {len(r) for r in runs.values()}
    if counts == {1}:
        return [(targets, {name: r[0] for name, r in runs.items()})]
    if mode in ("average", "nested"):
        return [(targets, {name: list(r) for name, r in runs.items()})]
    if mode == "each":
        if len(counts) != 1:
            raise _n_runs_error(runs, mode)
        (n,) = counts
        return [(targets, {name: r[i] for name, r in runs.items()}) for i in range(n)]
    if mode == "pool":
        if len(counts - {1}) != 1:
            raise _n_runs_error(runs, mode)
        if not clustered:
            warn_external(
                "runs='pool' (BooStSa compatibility) resamples the R copies of each item as "
                "independent items, although they share the item: its p-values are too "
                "small (a true null was rejected 21-34 % of the time at alpha=.05 with 5 "
                "runs). Use runs='average' (the default) to test the run-averaged "
                "difference, or give groups= (the copies of an item stay in its cluster).",
                UserWarning,
            )
        (n,) = counts - {1}
        pooled = {
            name: np.concatenate(r if len(r) == n else r * n, axis=0) for name, r in runs.items()
        }
        return [({k: tile(y, n) for k, y in targets.items()}, pooled)]
    averaged = {}
    for name, r in runs.items():
        if len(r) > 1 and any(a.ndim != 2 or not _is_float(a) for a in r):
            raise ValueError(
                f"runs='mean' averages probability predictions, but system {name!r} has "
                "hard-label runs; use runs='average' or runs='each'."
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
