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
from collections.abc import Mapping

import joblib
import numpy as np

from sigtest._engine.design import check_design
from sigtest._engine import CellCache, prepare_paired, prepare_paired_runs
from sigtest._engine.paired import metric_values
from sigtest._engine.rng import check_seed
from sigtest._engine.multiplier import gaussian_fits, jackknife_covariance, multiplier_draws
from sigtest._engine.shared import SharedDeltas
from sigtest._engine.shared_blocks import (
    shared_dirichlet_sums_range,
    shared_flip_sums_range,
    shared_sums_range,
    shared_units,
    system_units,
)
from sigtest._workflows.compare.pool import run_calls
from sigtest.tests_ import shared_scheme

__all__ = ["BOOTSTRAP_SOURCES", "MULTIPLIER_TAG", "TaskDeltas", "canonical_order",
           "multiplier_scores",
           "resampled_scores", "shared_deltas", "shared_seed", "system_data", "system_view",
           "unit_strata_of"]

#: Spawn-key tag of the seed of compare's shared bootstrap (ASCII "shbs").
_SHARED_TAG = 0x73686273

#: compare shares the bootstrap resamples from this many systems on: below
#: it the pairs are few (k (k - 1) / 2 <= 10) and one bootstrap per pair
#: costs about as much as one per system, so each pair keeps its own draws
#: (its seed, as a single test with that seed).
MIN_SHARED_SYSTEMS = 6

#: The sources of compare's shared bootstrap draws (``compare(bootstrap=)``
#: once resolved): resampled units, or Gaussian multipliers on the
#: jackknife influence values (:mod:`sigtest._engine.multiplier`).
BOOTSTRAP_SOURCES = ("resample", "multiplier")

#: Spawn-key tag of the seed of the multiplier draws (ASCII "shmb").
MULTIPLIER_TAG = 0x73686d62


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

    The in-process form of what :func:`shared_deltas` spreads over
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


def _scores_range(units, n_resamples, seed, start, stop, spec, parallel=False,
                  scheme="bootstrap"):
    """Every system's raw scores on resamples ``start:stop``, per metric ``(stop - start, k)``.

    ``scheme``: ``"bootstrap"`` (shared draws of the units) or
    ``"bayesian"`` (shared Dirichlet weights).
    """
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")  # the pair tests give the metric's warnings
        if scheme == "bayesian":
            sums = shared_dirichlet_sums_range(units, n_resamples, seed, start, stop)
        else:
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


def canonical_order(names):
    """The systems' indices sorted by name: the order of the multiplier draws.

    The covariance is accumulated and the normals are drawn in this order,
    so the draws do not depend on the order the systems were given in.
    """
    return sorted(range(len(names)), key=lambda s: names[s])


def _small_codes(codes, n_rows):
    """Unit codes as uint8 (at most 256 distinct rows) or uint16: what a task sends back."""
    return codes.astype(np.uint8 if n_rows <= 256 else np.uint16)


def unit_strata_of(design):
    """Stratum code of every resampling unit (items, or clusters) of a design, or None."""
    if design is None or design.item_strata is None:
        return None
    return design.item_strata if design.item_groups is None else design.group_strata


def _system_jackknife(view, s, metrics, design):
    """One system's leave-one-unit-out scores on every metric (a worker's piece).

    Returns ``(codes, [(estimate, theta) per metric])``: ``theta`` the score
    without each distinct unit row (``codes``: the row of each unit, uint8
    or uint16), or without each unit (``codes`` None), from the totals minus
    the row (:func:`sigtest._engine.resampling.jackknife_values`' closed
    form), and ``estimate`` the score on all units.
    """
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")  # the pair tests give the metric's warnings
        if _by_cells(view, s, metrics, design):
            return _cells_jackknife(view, s, metrics)
        data = [system_data(view, s, metric, kwargs) for metric, kwargs in metrics]
        codes, rows, _ = system_units(np.hstack([d.stats_a for d in data]), design)
        if codes is None:
            total = rows.sum(axis=0)
        else:
            counts = np.bincount(codes, minlength=rows.shape[0]).astype(np.float64)
            total = (counts[:, None] * rows).sum(axis=0)
            codes = _small_codes(codes, rows.shape[0])
        out, start = [], 0
        for d in data:
            cols = slice(start, start + d.n_statistics)
            start = cols.stop
            estimate = float(metric_values(d.metric, d.resample_params, total[cols][None])[0])
            theta = metric_values(d.metric, d.resample_params, total[cols] - rows[:, cols])
            out.append((estimate, np.ascontiguousarray(theta, dtype=np.float64)))
    return codes, out


def _by_cells(view, s, metrics, design):
    """Whether :func:`_cells_jackknife` applies: cellwise hard-label metrics, one run,
    no weights, clusters or strata (the items are the units)."""
    if design is not None and not design.empty:
        return False
    for metric, kwargs in metrics:
        if (not metric.has_statistics or not metric.cellwise or metric.input_type != "labels"
                or kwargs.get("sample_weight") is not None
                or len(view[metric.input_type][1][s]) != 1):
            return False
    return True


def _cells_jackknife(view, s, metrics):
    """:func:`_system_jackknife` on the occupied cells ``(true, pred)`` of the system.

    The system as both sides of a compressed pair (:func:`prepare_paired`,
    ``compress=True``; one :class:`CellCache` for all metrics): the code of
    an item is its cell, ``theta`` the score without one item of each cell
    (at most ``K^2`` values), the estimate the score of the pair path.
    """
    cache = CellCache()
    y, stacks = view[metrics[0][0].input_type]
    pred = stacks[s][0]
    codes = cache.cells(y, pred, pred, with_rows=True)[5]  # first: the metrics reuse it
    out = []
    for metric, kwargs in metrics:
        kw = {k: v for k, v in kwargs.items() if k not in ("groups", "strata")}
        data = prepare_paired(y, pred, pred, metric, compress=True, cell_cache=cache, **kw)
        rows = np.asarray(data.stats_a, dtype=np.float64)
        total = data.totals()[0]
        theta = metric_values(metric, data.resample_params, total - rows)
        out.append((float(data.score_a), np.ascontiguousarray(theta, dtype=np.float64)))
    return _small_codes(codes, rows.shape[0]), out


def _multiplier_from_parts(parts, order, unit_strata, n_resamples, seed):
    """Every system's multiplier draws ``(B, k)`` per metric from :func:`_system_jackknife` parts.

    ``order``: the canonical order of the systems (sorted names), in which
    the covariance is accumulated and the normals are drawn; the columns of
    the output are in the systems' own order. ``None`` for a metric on
    which some system's influence values are too concentrated for the
    Gaussian approximation (:func:`~sigtest._engine.multiplier.gaussian_fits`):
    the caller resamples that metric instead.
    """
    k = len(parts)
    out = []
    for mi in range(len(parts[0][1])):
        columns = [(parts[s][0], parts[s][1][mi][1]) for s in order]
        with np.errstate(all="ignore"):
            sigma = jackknife_covariance(columns, unit_strata)
        if not gaussian_fits(columns, sigma, unit_strata):
            out.append(None)  # influence too concentrated: resampled draws instead
            continue
        drawn = multiplier_draws([parts[s][1][mi][0] for s in order], sigma, n_resamples, seed)
        scores = np.empty((int(n_resamples), k))
        scores[:, order] = drawn
        out.append(scores)
    return out


def multiplier_scores(view, metrics, design, n_resamples, seed, order):
    """Gaussian multiplier draws ``(B, k)`` of every system's score, per metric.

    The in-process form of the multiplier draws of :func:`shared_deltas`
    (the same pieces, the same output), used by the max-T correction when
    the family's test did not consume them.

    Parameters
    ----------
    view : dict
        ``{input type: (y, stacks)}`` of one run.
    metrics : list of (Metric, dict)
        Each metric with its keyword arguments.
    design : Design
    n_resamples : int
    seed : int
    order : sequence of int
        Canonical order of the systems (:func:`canonical_order` of their names).

    Returns
    -------
    scores : list of (ndarray of shape (B, k) or None)
        ``None`` for a metric whose influence values are too concentrated
        for the Gaussian draws (:func:`_multiplier_from_parts`).
    """
    parts = [_system_jackknife(view, s, metrics, design) for s in range(_n_systems(view))]
    return _multiplier_from_parts(parts, list(order), unit_strata_of(design), n_resamples,
                                  seed)


def system_view(view, *systems):
    """The part of a view (``{input type: (y, stacks)}``) that reads ``systems``.

    ``{input type: (y, {s: stacks[s]})}``: what a task sends a worker instead
    of every system's predictions.
    """
    return {itype: (y, {s: stacks[s] for s in systems}) for itype, (y, stacks) in view.items()}


def _n_systems(view):
    """Number of systems of a view (``{input type: (y, stacks)}``)."""
    return len(next(iter(view.values()))[1])


def _shared_kind(test, metric, bootstrap_only=False):
    """``(scheme, n_resamples)`` of the shared resamples ``test`` consumes on ``metric``, or None.

    Bootstrap differences for every metric with statistics; permutations
    and Bayesian-bootstrap draws only for metrics whose statistics are per
    item (not ``cellwise``): for hard labels the pair's own kernels draw one
    binomial (permutation) or Gamma (Dirichlet) variable per occupied cell,
    ``B x cells`` per pair, less than the shared pass over ``B x N x k``
    (see ``docs/leaderboards.md``). ``bootstrap_only``: bootstrap
    differences only (fewer than :data:`MIN_SHARED_SYSTEMS` systems, shared
    only for the multiplier draws).
    """
    scheme = None if test is None else shared_scheme(test)
    if scheme is None or not metric.has_statistics:
        return None
    if bootstrap_only and scheme != "bootstrap":  # few systems: only the multiplier draws
        return None
    if scheme in ("permutation", "bayesian") and metric.cellwise:
        return None
    return scheme, int(test.n_resamples)


#: Resamples per task of the shared resamples (a multiple of the count
#: kernel's block of 64): enough work per task, enough tasks for the workers.
_RANGE = 1024

#: Spawn-key tags of the seeds of compare's shared permutations (ASCII "shpf")
#: and Bayesian bootstrap (ASCII "shbb").
_FLIP_TAG = 0x73687066
_DIRICHLET_TAG = 0x73686262
_TAGS = {"bootstrap": _SHARED_TAG, "permutation": _FLIP_TAG, "bayesian": _DIRICHLET_TAG}


def _flip_deltas_range(units, totals, n_resamples, seed, start, stop, spec, pairs):
    """Every pair's permuted differences on resamples ``start:stop``, per metric ``(m, nb)``.

    ``totals`` ``(k, s)``: every system's column sums; pair ``(i, j)`` (A, B)
    has ``A* = S_i + F_j - F_i`` and ``B* = S_j + F_i - F_j`` on the shared
    swaps ``F`` (:func:`shared_flip_sums_range`), and the RAW differences
    ``values(B*) - values(A*)``.
    """
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")  # the pair tests give the metric's warnings
        flips = shared_flip_sums_range(units, n_resamples, seed, start, stop)
        out = []
        for metric, cols, params in spec:
            F, S = flips[:, :, cols], totals[:, cols]
            deltas = np.empty((len(pairs), stop - start))
            for p, (i, j) in enumerate(pairs):
                swap = F[:, j] - F[:, i]
                deltas[p] = (metric_values(metric, params[j], S[j] - swap)
                             - metric_values(metric, params[i], S[i] + swap))
            out.append(deltas)
        return out


def _first_call(system, views, wanted, multiplier):
    """The round-1 task of one (group, system) of :func:`shared_deltas`."""
    gkey, order, design, s = system
    task = _system_jackknife if multiplier and gkey[1] == "bootstrap" else _system_task
    return joblib.delayed(task)(system_view(views[gkey[0]], s), s,
                                [wanted[gkey][mi] for mi in order], design)


def shared_deltas(tasks, score_seed, n_jobs, *, bootstrap="resample", names=None):
    """The differences every pair's tests run on, from resamples shared by all pairs.

    For the tests that consume shared resamples
    (:func:`sigtest.tests_.shared_scheme`): bootstrap differences
    (:class:`~sigtest.BCaInterval`, :class:`~sigtest.BergKirkpatrickBootstrap`)
    permuted differences (:class:`~sigtest.PairedPermutation`) and
    posterior draws (:class:`~sigtest.BayesianBootstrap`), the last two on
    metrics with per-item statistics. Two rounds of small joblib tasks (the same on
    any backend, dask included): one per system (its unit codes,
    :func:`_system_task`: the system's predictions go to one task), then one
    per range of 1,024 resamples (the ``N x k`` int32 codes or unit rows and
    the small tables go to each task): every system's bootstrap scores on
    them, or on Dirichlet weights (:func:`_scores_range`; the parent then
    takes each pair's differences of two columns), or every pair's permuted
    differences
    (:func:`_flip_deltas_range`, the pairs' aggregates computed in the
    workers).

    With ``bootstrap="multiplier"`` the bootstrap differences are Gaussian
    multiplier draws instead (:mod:`sigtest._engine.multiplier`): one task
    per system computes its leave-one-unit-out scores
    (:func:`_system_jackknife`: the unit codes, uint8/uint16, and one small
    table per metric come back), and the parent accumulates the jackknife
    covariance ``O(U k^2)`` and draws ``T = T_hat + L z`` ``O(B k^2)``, the
    systems in the canonical order of ``names`` (sorted), so that the output
    does not depend on the order they were given in. Used also with fewer
    than :data:`MIN_SHARED_SYSTEMS` systems. A metric on which a system's
    influence values are too concentrated for the Gaussian approximation
    gets no shared draws: its pairs' tests draw their own resamples
    (:func:`uses_multiplier` tells whether any pair got multiplier draws).

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
    bootstrap : {"resample", "multiplier"}, default="resample"
        Source of the bootstrap differences (:data:`BOOTSTRAP_SOURCES`).
    names : list of str, optional
        The systems' names (the canonical order of the multiplier draws);
        default: the systems' order.

    Returns
    -------
    shared : list of TaskDeltas
        One mapping per task: ``{(key, role): SharedDeltas}`` with ``role`` 0
        (the p-value test) or 1 (the interval test) and the RAW differences
        ``score_j* - score_i*`` of the task's pair (``i`` = A, ``j`` = B),
        the seed of the shared draws and their scheme (built when read).
    """
    if bootstrap not in BOOTSTRAP_SOURCES:
        raise ValueError(f"The 'bootstrap' parameter must be one of {BOOTSTRAP_SOURCES}. "
                         f"Got {bootstrap!r} instead.")
    multiplier = bootstrap == "multiplier"
    few = bool(tasks) and _n_systems(tasks[0][0]) < MIN_SHARED_SYSTEMS
    if not tasks or (few and not multiplier):
        return [{} for _ in tasks]
    wanted, views = _wanted(tasks, few)
    if not wanted:
        return [{} for _ in tasks]
    groups = _draw_groups(wanted, views, score_seed, multiplier)
    # round 1: every system's unit codes, or its leave-one-unit-out scores
    # (one task per (group, system)); a cold worker pool is started only when
    # the tasks left pay for it (run_calls)
    systems = [(gkey, order, design, s) for gkey, order, k, design, _ in groups
               for s in range(k)]
    firsts = run_calls(lambda t: _first_call(systems[t], views, wanted, multiplier),
                       [1] * len(systems), n_jobs)
    pairs = _pair_rows(tasks)
    # round 2: ranges of resamples (the multiplier groups are drawn here)
    canonical = None if names is None else canonical_order(names)
    calls, drawn = _range_calls(groups, firsts, wanted, pairs, multiplier, canonical)
    blocks = run_calls(lambda t: calls[t][1], [_RANGE] * len(calls), n_jobs)
    parts = {}
    for (gkey, _), block in zip(calls, blocks):
        parts.setdefault(gkey, []).append(block)
    arrays = _shared_arrays(groups, drawn, parts)
    seeds = {gkey: seed for gkey, _, _, _, seed in groups}
    return [_task_deltas(task, arrays, pairs, seeds, few) for task in tasks]


def _wanted(tasks, few):
    """``{(run, scheme, B): {metric index: (metric, kwargs)}}`` and the view of each run.

    The shared draws the tasks' tests consume (:func:`_shared_kind`), one
    group per (run, scheme, resamples).
    """
    wanted, views = {}, {}
    for view, _, _, jobs in tasks:
        for key, metric, kwargs, ptest, itest, *_ in jobs:
            for test in (ptest, itest):
                kind = _shared_kind(test, metric, few)
                if kind is not None:
                    wanted.setdefault((key[0], *kind), {})[key[1]] = (metric, kwargs)
                    views[key[0]] = view
    return wanted, views


def _draw_groups(wanted, views, score_seed, multiplier):
    """``[(group key, metric order, k, design, seed)]``, one per group of shared draws."""
    groups = []
    for gkey, metrics in sorted(wanted.items()):
        r, scheme, _ = gkey
        order = sorted(metrics)
        view = views[r]
        kwargs = metrics[order[0]][1]
        n = next(iter(view.values()))[0].shape[0]
        design = check_design(kwargs.get("groups"), kwargs.get("strata"), n)
        gauss = multiplier and scheme == "bootstrap"  # Gaussian multiplier draws
        seed = shared_seed(score_seed, MULTIPLIER_TAG if gauss else _TAGS[scheme], r)
        groups.append((gkey, order, _n_systems(view), design, seed))
    return groups


def _pair_rows(tasks):
    """``{run: {(i, j): row}}``: the pairs of each run in task order (rows of the permuted deltas)."""
    pairs = {}
    for _, i, j, jobs in tasks:
        rows = pairs.setdefault(jobs[0][0][0], {})
        rows.setdefault((i, j), len(rows))
    return pairs


def _range_calls(groups, firsts, wanted, pairs, multiplier, canonical):
    """The round-2 calls ``[(group key, delayed call)]``, and the multiplier groups' draws.

    One call per range of :data:`_RANGE` resamples of a resampled group;
    a multiplier group is drawn here from its systems' round-1 jackknife
    parts (``drawn``: group key -> per metric ``(B, k)`` scores or None).
    """
    calls, drawn, at = [], {}, 0
    for gkey, order, k, design, seed in groups:
        r, scheme, B = gkey
        per = firsts[at:at + k]
        at += k
        if multiplier and scheme == "bootstrap":
            drawn[gkey] = _multiplier_from_parts(
                per, list(range(k)) if canonical is None else canonical,
                unit_strata_of(design), B, seed)
            continue
        units = shared_units([u for u, _ in per])
        spec = _values_spec([wanted[gkey][mi][0] for mi in order], [info for _, info in per])
        if scheme == "permutation":
            totals = units.rows().sum(axis=0)
            pair_list = list(pairs[r])
        for b0 in range(0, B, _RANGE):
            b1 = min(B, b0 + _RANGE)
            if scheme != "permutation":
                call = joblib.delayed(_scores_range)(units, B, seed, b0, b1, spec, False, scheme)
            else:
                call = joblib.delayed(_flip_deltas_range)(units, totals, B, seed, b0, b1, spec,
                                                          pair_list)
            calls.append((gkey, call))
    return calls, drawn


def _shared_arrays(groups, drawn, parts):
    """Per ``(run, scheme, B, metric)``: bootstrap ``(k, B)`` scores, or permutation ``(m, B)`` deltas."""
    arrays = {}
    for gkey, order, _, _, _ in groups:
        for pos, mi in enumerate(order):
            scores = gkey[1] != "permutation"
            if gkey in drawn:
                if drawn[gkey][pos] is not None:  # else: the pairs draw their own resamples
                    arrays[(*gkey, mi)] = np.ascontiguousarray(drawn[gkey][pos].T)
                continue
            joined = np.concatenate([chunk[pos] for chunk in parts[gkey]], axis=0 if scores else 1)
            # scores: (k, B), a system's resamples contiguous for the pairs' differences
            arrays[(*gkey, mi)] = np.ascontiguousarray(joined.T if scores else joined)
    return arrays


def _task_deltas(task, arrays, pairs, seeds, few):
    """The :class:`TaskDeltas` of one pair task: references to its columns of ``arrays``."""
    _, i, j, jobs = task
    supplied = TaskDeltas()
    for key, metric, _, ptest, itest, *_ in jobs:
        for role, test in enumerate((ptest, itest)):
            kind = _shared_kind(test, metric, few)
            if kind is None:
                continue
            gkey = (key[0], *kind)
            if (*gkey, key[1]) not in arrays:  # multiplier draws declined for the metric
                continue
            where = pairs[key[0]][i, j] if kind[0] == "permutation" else (i, j)
            supplied.add((key, role), arrays[(*gkey, key[1])], where, seeds[gkey], kind[0])
    return supplied


def uses_multiplier(shared, bootstrap):
    """Whether some pair of a comparison got multiplier draws (what ``result.bootstrap`` says).

    ``bootstrap="multiplier"`` supplies Gaussian draws to the tests that
    consume shared bootstrap differences, on metrics with statistics whose
    influence values suit them; a comparison where no pair got them (ROC AUC,
    which has no per-item statistics; concentrated influence values)
    resampled the items.
    """
    if bootstrap != "multiplier":
        return False
    return any(entry[4] == "bootstrap" for task in shared if isinstance(task, TaskDeltas)
               for entry in task.entries())


class TaskDeltas(Mapping):
    """One pair task's shared differences, built from the shared arrays when read.

    ``{(key, role): SharedDeltas}`` as a read-only mapping that holds only
    references to the comparison's arrays (every system's scores ``(k, B)``,
    or every pair's permuted differences ``(m, B)``): a pair's ``B``
    differences exist only while its task is sent (``dict(task_deltas)`` in
    :func:`~sigtest._workflows.compare.run.run_pairs`, which joblib calls as
    it dispatches), not for all pairs at once.
    """

    def __init__(self):
        self._entries = {}

    def add(self, key, array, where, seed, scheme):
        """Row ``where`` of ``array`` (permutation), or rows ``j - i`` of ``where = (i, j)``."""
        self._entries[key] = (array, where, seed, scheme)

    def entries(self):
        """``[(key, array, where, seed, scheme)]``: what :meth:`add` was given, in order."""
        return [(key, *entry) for key, entry in self._entries.items()]

    def __getitem__(self, key):
        array, where, seed, scheme = self._entries[key]
        deltas = array[where] if scheme == "permutation" else array[where[1]] - array[where[0]]
        return SharedDeltas(deltas, seed, scheme)

    def __iter__(self):
        return iter(self._entries)

    def __len__(self):
        return len(self._entries)
