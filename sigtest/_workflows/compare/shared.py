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
from sigtest._engine.rng import check_seed
from sigtest._engine.shared import SharedDeltas, shared_bootstrap_sums, shared_unit_rows
from sigtest.tests_ import accepts_resamples

__all__ = ["resampled_scores", "shared_bootstrap_deltas", "shared_seed", "system_data"]

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

    Returns
    -------
    scores : list of ndarray of shape (B, k)
    """
    widths = [data[0].n_statistics for data in data_by_metric]
    k = len(data_by_metric[0])
    item_stats = [np.hstack([data[s].stats_a for data in data_by_metric]) for s in range(k)]
    stats, unit_strata = shared_unit_rows(item_stats, design)
    del item_stats
    sums = shared_bootstrap_sums(stats, n_resamples, seed, unit_strata=unit_strata,
                                 parallel=threads)
    out, start = [], 0
    for data, width in zip(data_by_metric, widths):
        cols = slice(start, start + width)
        out.append(np.stack([data[s].values(sums[:, s, cols]) for s in range(k)], axis=1))
        start += width
    return out


def _n_systems(view):
    """Number of systems of a view (``{input type: (y, stacks)}``)."""
    return len(next(iter(view.values()))[1])


def _shared_resamples(test):
    """``n_resamples`` of a test that accepts shared resamples, else None."""
    if not accepts_resamples(test):
        return None
    return int(test.n_resamples)


def shared_bootstrap_deltas(tasks, score_seed, n_jobs):
    """The bootstrap differences every pair's BCa interval runs on, from shared resamples.

    Parameters
    ----------
    tasks : list
        The pair tasks of the plan: ``(view, i, j, jobs)``, jobs ``(key,
        metric, kwargs, pvalue_test, interval_test, ...)`` with ``key = (run,
        metric index, pair index, spec index)``.
    score_seed : SeedSequence or int
        The comparison's score seed (``plan.scores["seed"]``).
    n_jobs : int or None
        Threads of the resampling kernel (the output does not depend on it).

    Returns
    -------
    shared : list of dict
        One dict per task: ``{(key, role): SharedDeltas}`` with ``role`` 0
        (the p-value test) or 1 (the interval test) and the deltas the RAW
        ``score_j* - score_i*`` of the task's pair (``i`` = A, ``j`` = B),
        with the seed of the shared draws.
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
                B = None if test is None else _shared_resamples(test)
                if B is not None:
                    wanted.setdefault((key[0], B), {})[key[1]] = (metric, kwargs)
                    views[key[0]] = view
    scores, seeds = {}, {}
    threads = max(1, joblib.effective_n_jobs(n_jobs))
    for (r, B), metrics in sorted(wanted.items()):
        view = views[r]
        order = sorted(metrics)
        k = len(view[metrics[order[0]][0].input_type][1])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the pair tests give the metric's warnings
            data = [[system_data(view, s, *metrics[mi]) for s in range(k)] for mi in order]
        kwargs = metrics[order[0]][1]
        design = check_design(kwargs.get("groups"), kwargs.get("strata"), data[0][0].n_samples)
        seeds[r] = shared_seed(score_seed, _SHARED_TAG, r)
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            per_metric = resampled_scores(data, design, B, seeds[r], threads=threads > 1)
        for mi, T in zip(order, per_metric):
            scores[r, B, mi] = T
    shared = []
    for _, i, j, jobs in tasks:
        supplied = {}
        for key, _, _, ptest, itest, *_ in jobs:
            for role, test in enumerate((ptest, itest)):
                B = None if test is None else _shared_resamples(test)
                T = scores.get((key[0], B, key[1]))
                if T is not None:
                    supplied[key, role] = SharedDeltas(T[:, j] - T[:, i], seeds[key[0]])
        shared.append(supplied)
    return shared
