r"""One job of shared draws for every pair of a comparison, run by the caller's executor.

:func:`sigtest.compare` (``_workflows/compare/shared.py``) decides which
draws its pairs' tests consume and describes them as one :class:`SharedJob`:
one :class:`SharedGroup` per (run, scheme, resamples), each with its
systems' view of the predictions, the metrics with their keyword arguments,
the design, the seed and, for the permutation, the pairs. :func:`run_shared_job`
runs it in two rounds of small tasks (the same on any joblib backend, dask
included), handed to the caller's ``execute`` as ``(function, args,
kwargs)`` triples (``joblib.delayed``'s form; the engine imports no joblib):

1. one task per (group, system): its unit codes (:func:`_system_task`:
   :func:`~sigtest._engine.shared_blocks.system_units` of the system's
   statistics of every metric side by side), or, for a group of Gaussian
   multiplier draws, its leave-one-unit-out scores
   (:func:`system_jackknife`);
2. one task per range of :data:`RANGE` resamples of a resampled group
   (the ``N x k`` codes and small tables go to each task): every system's
   bootstrap scores on them, or on Dirichlet weights (:func:`_scores_range`),
   or every pair's permuted differences (:func:`_flip_deltas_range`).

The parent gets, per group, the joined arrays (bootstrap or Bayesian scores
``(k, B)``, permuted differences ``(m, B)``) or the multiplier group's
jackknife parts, from which ``compare`` draws. :func:`resampled_scores` is
the in-process form of a resampled group (``ComparisonResult.ranks``, the
max-T step). Each resample owns its random stream
(:mod:`sigtest._engine.shared`), so the output does not depend on the
executor, the number of workers or the order of the systems.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from sigtest._engine.cells import CellCache
from sigtest._engine.paired import metric_values
from sigtest._engine.prepare import prepare_paired, prepare_paired_runs
from sigtest._engine.shared_blocks import (
    shared_dirichlet_sums_range,
    shared_flip_sums_range,
    shared_sums_range,
    shared_units,
    system_units,
)

__all__ = ["RANGE", "SharedGroup", "SharedJob", "resampled_scores", "run_shared_job",
           "system_data", "system_jackknife", "system_view", "unit_strata_of"]

#: Resamples per task of the shared resamples (a multiple of the count
#: kernel's block of 64): enough work per task, enough tasks for the workers.
RANGE = 1024


@dataclass(frozen=True)
class SharedGroup:
    """One group of shared draws: one run, one scheme, one number of resamples.

    Attributes
    ----------
    key : tuple
        ``(run, scheme, n_resamples)``; ``scheme`` is ``"bootstrap"``,
        ``"permutation"`` or ``"bayesian"``.
    metrics : tuple of (Metric, dict)
        The metrics the group's draws score, with their keyword arguments.
    view : dict
        ``{input type: (y, stacks)}``: every system's runs of the run.
    design : Design or None
        Clusters / strata of the items.
    seed : int
        Seed of the draws.
    jackknife : bool
        Gaussian multiplier draws: round 1 gives the systems' jackknife
        parts and the caller draws; no round 2.
    pairs : tuple of (int, int)
        The run's pairs in row order (the rows of the permuted differences).
    """

    key: tuple
    metrics: tuple
    view: Any
    design: Any
    seed: int
    jackknife: bool = False
    pairs: tuple = ()

    @property
    def n_systems(self):
        """Number of systems of the group's view."""
        return len(next(iter(self.view.values()))[1])


@dataclass(frozen=True)
class SharedJob:
    """Every group of shared draws of one comparison (see :func:`run_shared_job`)."""

    groups: tuple


def run_shared_job(job, execute):
    """Run every group of ``job`` in two rounds of tasks given to ``execute``.

    Parameters
    ----------
    job : SharedJob
    execute : callable
        ``execute(calls, weights)``: the results of the ``(function, args,
        kwargs)`` triples ``calls`` in their order (``weights`` their
        relative costs), run here or by workers.

    Returns
    -------
    out : list
        One entry per group: for a resampled group, per metric the joined
        array (bootstrap or Bayesian scores ``(k, B)``, a system's resamples
        contiguous; permuted differences ``(m, B)``); for a ``jackknife``
        group, the ``k`` systems' :func:`system_jackknife` parts.
    """
    systems = [(group, s) for group in job.groups for s in range(group.n_systems)]
    firsts = execute([_first_call(group, s) for group, s in systems], [1] * len(systems))
    calls, per_group, at = [], [], 0
    for group in job.groups:
        per = firsts[at:at + group.n_systems]
        at += group.n_systems
        per_group.append(per)
        if not group.jackknife:
            calls.extend((len(per_group) - 1, call) for call in _range_calls(group, per))
    blocks = execute([call for _, call in calls], [RANGE] * len(calls))
    chunks = {}
    for (g, _), block in zip(calls, blocks):
        chunks.setdefault(g, []).append(block)
    out = []
    for g, group in enumerate(job.groups):
        if group.jackknife:
            out.append(per_group[g])
            continue
        scores = group.key[1] != "permutation"
        joined = [np.concatenate([chunk[pos] for chunk in chunks[g]], axis=0 if scores else 1)
                  for pos in range(len(group.metrics))]
        # scores: (k, B), a system's resamples contiguous for the pairs' differences
        out.append([np.ascontiguousarray(j.T if scores else j) for j in joined])
    return out


def _first_call(group, s):
    """The round-1 task of system ``s`` of ``group`` (only its predictions are sent)."""
    task = system_jackknife if group.jackknife else _system_task
    return task, (system_view(group.view, s), s, list(group.metrics), group.design), {}


def _range_calls(group, per):
    """The round-2 tasks of a resampled group: one per range of :data:`RANGE` resamples."""
    _, scheme, B = group.key
    units = shared_units([u for u, _ in per])
    spec = _values_spec([metric for metric, _ in group.metrics], [info for _, info in per])
    if scheme == "permutation":
        totals = units.rows().sum(axis=0)
        pair_list = list(group.pairs)
    calls = []
    for b0 in range(0, B, RANGE):
        b1 = min(B, b0 + RANGE)
        if scheme != "permutation":
            calls.append((_scores_range, (units, B, group.seed, b0, b1, spec, False, scheme), {}))
        else:
            calls.append((_flip_deltas_range,
                          (units, totals, B, group.seed, b0, b1, spec, pair_list), {}))
    return calls


def system_view(view, *systems):
    """The part of a view (``{input type: (y, stacks)}``) that reads ``systems``.

    ``{input type: (y, {s: stacks[s]})}``: what a task sends a worker instead
    of every system's predictions.
    """
    return {itype: (y, {s: stacks[s] for s in systems}) for itype, (y, stacks) in view.items()}


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

    The in-process form of what :func:`run_shared_job` spreads over
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


def _small_codes(codes, n_rows):
    """Unit codes as uint8 (at most 256 distinct rows) or uint16: what a task sends back."""
    return codes.astype(np.uint8 if n_rows <= 256 else np.uint16)


def unit_strata_of(design):
    """Stratum code of every resampling unit (items, or clusters) of a design, or None."""
    if design is None or design.item_strata is None:
        return None
    return design.item_strata if design.item_groups is None else design.group_strata


def system_jackknife(view, s, metrics, design):
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
    """:func:`system_jackknife` on the occupied cells ``(true, pred)`` of the system.

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
