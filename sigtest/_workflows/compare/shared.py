r"""Shared bootstrap resamples of all systems: once per comparison, not once per pair.

A paired bootstrap of one pair draws items with replacement and scores both
systems on the drawn items. Drawing the items once per resample for *all*
systems at the same time (:mod:`sigtest._engine.shared`) gives every system's
resampled score ``T[b, s]``, and the bootstrap differences of any pair are
``T[:, b] - T[:, a]``: the same paired bootstrap for that pair (its marginal
distribution is unchanged), at the cost of one pass over the items per
resample for the whole comparison instead of one per pair.

Used by :func:`sigtest.compare` with :data:`MIN_SHARED_SYSTEMS` (6) systems
or more, for the tests that accept resamples drawn elsewhere
(:func:`sigtest.tests_.accepts_resamples`: :class:`~sigtest.BCaInterval`,
not a subclass that overrides ``evaluate``) on metrics with additive
statistics, handed to them as :class:`~sigtest._engine.shared.SharedDeltas`, and by
:meth:`ComparisonResult.ranks`. The draws of one run are
shared by every metric and every pair; their seed is a tagged child of the
comparison's score seed (:func:`shared_seed`), so results do not depend on
``n_jobs`` or on the order of the systems.
"""

from __future__ import annotations

import warnings

import joblib
import numpy as np

from sigtest._engine.design import check_design
from sigtest._engine import prepare_paired, prepare_paired_runs
from sigtest._engine.paired import metric_values
from sigtest._engine.rng import check_seed
from sigtest._engine.shared import SharedDeltas
from sigtest._engine.shared_blocks import shared_sums_range, shared_units, system_units
from sigtest.tests_ import shared_scheme

__all__ = ["resampled_scores", "shared_bootstrap_deltas", "shared_seed", "system_data",
           "system_view"]

#: Spawn-key tag of the seed of compare's shared bootstrap (ASCII "shbs").
_SHARED_TAG = 0x73686273

#: compare shares the bootstrap resamples from this many systems on: below
#: it the pairs are few (k (k - 1) / 2 <= 10) and one bootstrap per pair
#: costs about as much as one per system, so each pair keeps its own draws
#: (its seed, as a single test with that seed).
MIN_SHARED_SYSTEMS = 6


def shared_seed(score_seed, tag, *extra):
    """An int seed: the child ``(tag, *extra)`` of the comparison's score seed."""
    if isinstance(score_seed, np.random.SeedSequence):
        child = np.random.SeedSequence(score_seed.entropy,
                                       spawn_key=(*score_seed.spawn_key, tag, *extra))
    else:
        child = np.random.SeedSequence([check_seed(score_seed), tag, *extra])
    return int(child.generate_state(1, np.uint64)[0] >> np.uint64(1))


def system_data(view, s, metric, kwargs):
    """One system's :class:`PairedData` (the system as both sides) on one metric.

    The per-item statistics the pair tests use for this system: the same
    class set, ``pos_label``, ``sample_weight`` (multiplied in), runs
    averaged per item; uncompressed (one row per item, in the items' order,
    for one system with runs as for one without), and without the design (clusters and
    strata are applied to all systems together by :func:`resampled_scores`).
    """
    y, stacks = view[metric.input_type]
    runs = np.array(stacks[s])
    kw = {k: v for k, v in kwargs.items() if k not in ("groups", "strata")}
    if len(runs) > 1:  # one row per item, as every other system has
        return prepare_paired_runs(y, runs, runs, metric, compress=False, **kw)
    return prepare_paired(y, runs[0], runs[0], metric, compress=False, **kw)


def resampled_scores(data_by_metric, design, n_resamples, seed, *, threads=True):
    """Raw bootstrap scores ``(B, k)`` of every system, per metric, on the same draws.

    The in-process form of what :func:`shared_bootstrap_deltas` spreads over
    workers (the same pieces, the same output), used by
    :meth:`ComparisonResult.ranks`.

    Parameters
    ----------
    data_by_metric : list of list of PairedData
        For each metric, one :func:`system_data` per system (all with
        statistics).
    design : Design
        Clusters / strata of the items.
    n_resamples : int
    seed : int
    threads : bool, default=True
        Run the kernel on numba's thread count (the output does not depend
        on it).

    Returns
    -------
    scores : list of ndarray of shape (B, k)
    """
    k = len(data_by_metric[0])
    units = shared_units([system_units(np.hstack([data[s].stats_a for data in data_by_metric]),
                                       design) for s in range(k)])
    spec = _values_spec([data[0].metric for data in data_by_metric],
                        [_system_info([data[s] for data in data_by_metric]) for s in range(k)])
    return _scores_range(units, n_resamples, seed, 0, int(n_resamples), spec, threads)


def _system_info(data):
    """``[(width, resample params)]`` of one system's data, one per metric."""
    return [(d.n_statistics, d.resample_params) for d in data]


def _values_spec(metrics, info_by_system):
    """``[(metric, columns, [resample params of each system])]``: how to score the sums.

    ``info_by_system``: one :func:`_system_info` per system.
    """
    spec, start = [], 0
    for mi, metric in enumerate(metrics):
        width = info_by_system[0][mi][0]
        spec.append((metric, slice(start, start + width),
                     [info[mi][1] for info in info_by_system]))
        start += width
    return spec


def _scores_range(units, n_resamples, seed, start, stop, spec, parallel=False):
    """Every system's raw scores on resamples ``start:stop``, per metric ``(stop - start, k)``."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")  # the pair tests give the metric's warnings
        sums = shared_sums_range(units, n_resamples, seed, start, stop, parallel=parallel)
        return [np.stack([metric_values(metric, params[s], sums[:, s, cols])
                          for s in range(len(params))], axis=1)
                for metric, cols, params in spec]


def _system_task(view, s, metrics, design):
    """One system's units on every metric (a worker's piece of the shared bootstrap).

    Returns ``(codes, rows, unit_strata)`` of :func:`system_units` on the
    system's statistics of all ``metrics`` side by side, and per metric its
    width and resample parameters (what :func:`_scores_range` needs).
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the pair tests give the metric's warnings
        data = [system_data(view, s, metric, kwargs) for metric, kwargs in metrics]
    return system_units(np.hstack([d.stats_a for d in data]), design), _system_info(data)


def system_view(view, *systems):
    """The part of a view (``{input type: (y, stacks)}``) that reads ``systems``.

    ``{input type: (y, {s: stacks[s]})}``: what a task sends a worker instead
    of every system's predictions.
    """
    return {itype: (y, {s: stacks[s] for s in systems}) for itype, (y, stacks) in view.items()}


def _n_systems(view):
    """Number of systems of a view (``{input type: (y, stacks)}``)."""
    return len(next(iter(view.values()))[1])


def _shared_resamples(test):
    """``n_resamples`` of a test that consumes shared bootstrap differences, else None."""
    if test is None or shared_scheme(test) != "bootstrap":
        return None
    return int(test.n_resamples)


#: Resamples per task of the shared bootstrap (a multiple of the count
#: kernel's block of 64): enough work per task, enough tasks for the workers.
_RANGE = 1024


def shared_bootstrap_deltas(tasks, score_seed, n_jobs):
    """The bootstrap differences every pair's tests run on, from shared resamples.

    Two rounds of small joblib tasks (the same on any backend, dask
    included): one per system (its unit codes, :func:`_system_task`: the
    system's predictions go to one task), then one per range of 1,024
    resamples (every system's scores on them, :func:`_scores_range`: the
    ``N x k`` int32 codes and the small tables go to each task). The
    parent then takes each pair's differences of two columns.

    Parameters
    ----------
    tasks : list
        The pair tasks of the plan: ``(view, i, j, jobs)``, jobs ``(key,
        metric, kwargs, pvalue_test, interval_test, ...)`` with ``key = (run,
        metric index, pair index, spec index)``.
    score_seed : SeedSequence or int
        The comparison's score seed (``plan.scores["seed"]``).
    n_jobs : int or None
        joblib's ``n_jobs`` (the output does not depend on it).

    Returns
    -------
    shared : list of dict
        One dict per task: ``{(key, role): SharedDeltas}`` with ``role`` 0
        (the p-value test) or 1 (the interval test) and the deltas the RAW
        ``score_j* - score_i*`` of the task's pair (``i`` = A, ``j`` = B),
        with the seed of the shared draws, for each test that consumes
        shared bootstrap differences (:func:`sigtest.tests_.shared_scheme`).
    """
    # (run, B) -> {metric index: (metric, kwargs)}, and the view of each run
    wanted, views = {}, {}
    if not tasks or _n_systems(tasks[0][0]) < MIN_SHARED_SYSTEMS:
        return [{} for _ in tasks]
    for view, _, _, jobs in tasks:
        for key, metric, kwargs, ptest, itest, *_ in jobs:
            if not metric.has_statistics:
                continue
            for test in (ptest, itest):
                B = _shared_resamples(test)
                if B is not None:
                    wanted.setdefault((key[0], B), {})[key[1]] = (metric, kwargs)
                    views[key[0]] = view
    if not wanted:
        return [{} for _ in tasks]
    groups = []  # (r, B, metric order, k, design, seed)
    for (r, B), metrics in sorted(wanted.items()):
        order = sorted(metrics)
        view = views[r]
        k = _n_systems(view)
        kwargs = metrics[order[0]][1]
        n = next(iter(view.values()))[0].shape[0]
        design = check_design(kwargs.get("groups"), kwargs.get("strata"), n)
        groups.append((r, B, order, k, design, shared_seed(score_seed, _SHARED_TAG, r)))
    parallel = joblib.Parallel(n_jobs=n_jobs, return_as="list")
    # round 1: every system's unit codes (one task per (group, system))
    firsts = parallel(
        joblib.delayed(_system_task)(system_view(views[r], s), s,
                                     [wanted[r, B][mi] for mi in order], design)
        for r, B, order, k, design, _ in groups for s in range(k))
    # round 2: every system's scores on ranges of resamples
    calls, at = [], 0
    for r, B, order, k, design, seed in groups:
        per = firsts[at:at + k]
        at += k
        units = shared_units([u for u, _ in per])
        spec = _values_spec([wanted[r, B][mi][0] for mi in order], [info for _, info in per])
        for b0 in range(0, B, _RANGE):
            calls.append(((r, B, order), (units, B, seed, b0, min(B, b0 + _RANGE), spec)))
    blocks = parallel(joblib.delayed(_scores_range)(*args) for _, args in calls)
    scores, seeds = {}, {r: seed for r, _, _, _, _, seed in groups}
    parts = {}
    for (r, B, order), block in zip((c for c, _ in calls), blocks):
        parts.setdefault((r, B, tuple(order)), []).append(block)
    for (r, B, order), chunks in parts.items():
        for pos, mi in enumerate(order):
            # (k, B): a system's resamples contiguous, for the pairs' differences
            scores[r, B, mi] = np.ascontiguousarray(
                np.concatenate([chunk[pos] for chunk in chunks], axis=0).T)
    shared = []
    for _, i, j, jobs in tasks:
        supplied = {}
        for key, _, _, ptest, itest, *_ in jobs:
            for role, test in enumerate((ptest, itest)):
                T = scores.get((key[0], _shared_resamples(test), key[1]))
                if T is not None:
                    supplied[key, role] = SharedDeltas(T[j] - T[i], seeds[key[0]], "bootstrap")
        shared.append(supplied)
    return shared
