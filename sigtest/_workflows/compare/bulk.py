"""Every pair of a comparison at once, for 0/1 per-item scores on shared bootstrap draws.

The per-pair path (:func:`sigtest._workflows.compare.run.run_pairs`) runs
one test per pair: prepared statistics, a test object, captured warnings,
about 4-7 ms of Python a pair, which is the whole cost of a leaderboard of
1,000 systems (499,500 pairs). :func:`run_all_pairs` computes instead, for
the pairs whose only job is a two-sided :class:`~sigtest.BCaInterval`
(``method="bca"`` or ``"percentile"``, no margin, no simultaneous interval)
of the ``"mean"`` of 0/1 per-item scores (no weights, clusters or strata,
one run per system) on the comparison's shared bootstrap draws, the rows in
blocks of pairs:

* the cell counts of every pair from one matrix product of the systems' 0/1
  columns (``n11``; ``n01`` and ``n10`` from the systems' sums), hence the
  scores, the number ``d`` of discordant items and the jackknife acceleration
  and influence concentration of the difference in closed form (per-item
  differences ``e`` in ``{-1, 0, 1}``: their central moments from ``d`` and
  ``n01 - n10``);
* the pairs' bootstrap differences ``T[j] - T[i]`` from the shared scores
  ``T`` (``k x B``: the per-system draws, not per-pair differences, are what
  the comparison keeps), sorted per block, and the interval and the p-value
  that inverts it by :mod:`sigtest._engine.bulk_bca` (the scalar code's
  operations on every row at once).

A pair the scalar test would treat specially (few items or discordant
items, a p-value floored by the sign-test bound, every difference equal, a
concentrated or nearly concentrated difference, an undefined acceleration)
goes to the per-pair path, as does every other task: the per-pair path
stays the reference, and the bulk rows equal its rows (scores, ``delta``
and ``n_resamples`` bit for bit; intervals and p-values to rounding of the
acceleration, whose closed form sums in another order: see
``tests/workflows/compare/test_bulk_pairs.py``).
"""

import numpy as np

from sigtest._engine.bulk_select import forget_moments
from sigtest._engine.small_sample import BCA_SMALL_SAMPLE_LIMITS
from sigtest._workflows.compare.bulk_mcnemar import mcnemar_rows, mcnemar_spec
from sigtest._workflows.compare.bulk_rows import bca_rows, finite_rows, plain
from sigtest._workflows.compare.bulk_statistics import statistics_metric, statistics_rows
from sigtest._workflows.compare.pair_rows import PairRows
from sigtest._workflows.compare.plan_tasks import JobGroup
from sigtest._workflows.compare.run import run_pairs
from sigtest._workflows.compare.zero_one import member_tables, zero_one_mean
from sigtest.tests_ import BCaInterval

__all__ = ["run_all_pairs"]


def _bulk_spec(metric, kwargs, ptest, itest, level):
    """The ``n_resamples`` of a (metric, test) the bulk path takes, else None."""
    if (not (zero_one_mean(metric, kwargs) or statistics_metric(metric, kwargs))
            or itest is not None or level is not None or type(ptest) is not BCaInterval):
        return None
    params = ptest.get_params(deep=False)
    if (params["method"] not in ("bca", "percentile") or params["alternative"] != "two-sided"
            or params["margin"] is not None):
        return None
    return int(params["n_resamples"])


def run_all_pairs(tasks, n_jobs, verbose):
    """The rows of every pair task: bulk where it applies, else per pair.

    Parameters
    ----------
    tasks : TaskView
        The plan's :class:`~sigtest._workflows.compare.plan_tasks.PairTasks`
        with their shared differences: ``(view, i, j, jobs, shared)`` per
        pair (what :func:`~sigtest._workflows.compare.run.run_pairs` takes).
        The bulk paths read them per (run, job) as columns; only the tasks
        left to the per-pair path are built one by one.
    n_jobs : int or None
        Threads over the blocks of bulk pairs (the rows do not depend on
        it), and joblib's ``n_jobs`` of the per-pair path.
    verbose : bool

    Returns
    -------
    rows : PairRows
        The per-job rows ``(key, values, resampling, notes)`` in task order,
        and the bulk rows as column blocks.
    """
    source, shared = tasks.tasks, tasks.shared
    done = np.zeros((len(source), source.n_jobs), dtype=bool)
    rows = {}  # (task, job) -> row, for the rows not in a block
    blocks = _bulk_bca(source, shared, done, n_jobs)
    _bulk_mcnemar(source, done, rows)
    left = np.flatnonzero(~done.all(axis=1)).tolist()
    rest, where = [], []
    for t in left:
        view, i, j, jobs = source[t]
        qs = np.flatnonzero(~done[t]).tolist()
        rest.append((view, i, j, [jobs[q] for q in qs], shared[t]))
        where.append((t, qs))
    if rest:
        for (t, qs), task_rows in zip(where, run_pairs(rest, n_jobs, verbose)):
            rows.update(((t, q), row) for q, row in zip(qs, task_rows))
    return PairRows([rows[at] for at in sorted(rows)], blocks)


def _job_groups(source, done, check, pick=None):
    """The :class:`JobGroup` of each (run, job) a bulk path takes, with the pairs not yet
    ``done`` whose two systems have one stack of predictions each.

    ``check(metric, kwargs, pvalue_test, interval_test, level)`` answers once
    per (metric, spec): the pairs' copies of a spec's test differ only in
    their seeds. ``pick(r, job, answer)``, if given, turns a true answer into
    what the group carries (None: the job is not taken). Yields ``(answer,
    group)``.
    """
    answers = {}
    for r in range(source.n_runs):
        view = source.view(r)
        span = source.run_tasks(r)
        for q, job in enumerate(source.jobs(r)):
            key, metric, kwargs, ptest, itest, _, level = job[:7]
            if (key[1], key[3]) not in answers:
                answers[key[1], key[3]] = check(metric, kwargs, ptest, itest, level)
            found = answers[key[1], key[3]]
            if found and pick is not None:
                found = pick(r, job, found)
            if found is None or found is False:
                continue
            single = np.array([len(stack) == 1 for stack in view[metric.input_type][1]])
            t = np.arange(span.start, span.stop)
            t = t[single[source.i[t]] & single[source.j[t]] & ~done[t, q]]
            if t.size:
                yield found, JobGroup(view, metric, kwargs, ptest, t, source.i[t],
                                      source.j[t], source, q)


def _bulk_bca(source, shared, done, n_jobs):
    """The bulk BCa rows as RowBlocks (their jobs marked in ``done``)."""

    def shared_array(r, job, n_resamples):
        # the shared bootstrap scores (k, B) the job's p-value test consumes
        key = job[0]
        found = shared.supply(r, key[1], key[3], 0)
        if found is None or found[2] != "bootstrap":
            return None
        array = found[0]
        return array if array.ndim == 2 and array.shape[1] == n_resamples else None

    blocks, arrays = [], {}
    for array, group in _job_groups(source, done, _bulk_spec, shared_array):
        arrays[id(array)] = array
        group_rows = _group_rows if zero_one_mean(group.metric, group.kwargs) else statistics_rows
        taken, block = group_rows(group, array, n_jobs)
        if len(taken):
            done[group.tasks[taken], group.q] = True
            blocks.append(block)
    for array in arrays.values():  # their pairs' Gram matrices: not kept with the result's T
        forget_moments(array)
    return blocks


def _bulk_mcnemar(source, done, rows):
    """McNemar's rows of the jobs not yet done: every pair's table from one product of the
    0/1 columns (into ``rows``, marked in ``done``)."""
    for _, group in _job_groups(source, done, mcnemar_spec):
        for c, row in mcnemar_rows(group):
            t = int(group.tasks[c])
            rows[t, group.q] = row
            done[t, group.q] = True


def _group_rows(group, T, n_jobs):
    """``(taken, block)`` of a :class:`JobGroup` of 0/1 means on the shared array ``T``
    (:func:`bca_rows`)."""
    tables, keep = member_tables(group)
    if not keep.size or not finite_rows(T, tables.order):  # non-finite draws: per pair
        return [], None
    _, counts, sums, n, scores = tables[1:]
    a, b, _ = group.positions(tables.where)
    I, J = a[keep], b[keep]
    n11 = counts[I, J]
    plus, minus = sums[J] - n11, sums[I] - n11  # n01 (B only) and n10 (A only)
    pair = _pair_moments(plus, minus, n)
    pair["regular"] = ((n >= BCA_SMALL_SAMPLE_LIMITS[0])
                       & (pair["d"] >= BCA_SMALL_SAMPLE_LIMITS[1])
                       & np.isfinite(pair["acceleration"]) & pair["plain"])
    pair["score_a"], pair["score_b"] = scores[I], scores[J]
    return bca_rows(group, keep, T, pair, n_jobs)


def _pair_moments(plus, minus, n):
    """Acceleration and concentration of every pair's difference in closed form.

    ``plus`` (``n01``) and ``minus`` (``n10``): the items only B, only A
    scores 1 on; the per-item differences ``e`` are 1, -1 or 0. The
    leave-one-out differences are ``(sum e - e_u) / (n - 1)``, so the BCa
    acceleration is ``M3 / (6 M2^1.5)`` and the effective number of items
    ``M2^2 / M4`` with ``Mp`` the ``p``-th central moment sums of ``e``
    (:func:`~sigtest._engine.intervals.acceleration_from_jackknife`,
    :func:`~sigtest._engine.concentration.influence_concentration`).
    ``plain``: not concentrated, with a margin (the per-pair path decides
    the others).
    """
    d = plus + minus
    s1 = plus - minus
    mean = s1 / n
    with np.errstate(all="ignore"):
        m2 = d - n * mean * mean
        m3 = s1 - 3.0 * mean * d + 2.0 * n * mean**3
        m4 = d - 4.0 * mean * s1 + 6.0 * mean * mean * d - 3.0 * n * mean**4
        acceleration = np.where(m2 > 0, m3 / (6.0 * m2**1.5), np.nan)
        n_eff = np.where((m2 > 0) & (m4 > 0), m2 * m2 / m4, np.inf)
    return {"d": d, "acceleration": acceleration, "plain": plain(n_eff, d)}
