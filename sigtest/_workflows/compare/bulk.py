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

from sigtest._engine.small_sample import BCA_SMALL_SAMPLE_LIMITS
from sigtest._workflows.compare.bulk_mcnemar import mcnemar_job, mcnemar_rows
from sigtest._workflows.compare.bulk_rows import bca_rows, plain
from sigtest._workflows.compare.bulk_statistics import statistics_metric, statistics_rows
from sigtest._workflows.compare.pair_rows import PairRows
from sigtest._workflows.compare.run import run_pairs
from sigtest._workflows.compare.shared import TaskDeltas
from sigtest._workflows.compare.zero_one import member_tables, zero_one_mean
from sigtest.tests_ import BCaInterval

__all__ = ["bulk_job", "run_all_pairs"]

#: Marks a job whose row is in a bulk :class:`PairRows` block.
_IN_BLOCK = object()

def bulk_job(task, memo=None):
    """``(job, shared array)`` when the task's pair can take the bulk path, else None.

    ``task`` is ``(view, i, j, jobs, shared)`` of the plan (with its
    :class:`~sigtest._workflows.compare.shared.TaskDeltas`), with one job:
    :func:`run_all_pairs` asks job by job. ``memo``: a dict kept across the
    tasks of one comparison, holding the answer for the job's metric and
    test spec (the pairs' seeded copies of one test differ only in their
    seeds), so the test's parameters are read once, not once per pair.
    """
    view, i, j, jobs, shared = task
    if len(jobs) != 1 or not isinstance(shared, TaskDeltas):
        return None
    key, metric, kwargs, ptest, itest, _, level = jobs[0][:7]
    memo = {} if memo is None else memo
    spec = (key[1], key[3])  # (metric, test spec): the same test up to its seed
    if spec not in memo:
        memo[spec] = _bulk_spec(metric, kwargs, ptest, itest, level)
    n_resamples = memo[spec]
    if n_resamples is None:
        return None
    stacks = view[metric.input_type][1]
    if len(stacks[i]) != 1 or len(stacks[j]) != 1:
        return None
    found = shared.entry((key, 0))
    if found is None or found[3] != "bootstrap" or tuple(found[1]) != (i, j):
        return None
    array = found[0]
    if array.ndim != 2 or array.shape[1] != n_resamples:
        return None
    return jobs[0], array


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
    """The rows of every pair task, in task order: bulk where it applies, else per pair.

    Parameters
    ----------
    tasks : list
        ``(view, i, j, jobs, shared)`` per pair (what
        :func:`~sigtest._workflows.compare.run.run_pairs` takes).
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
    # one unit a (pair, job): the jobs of a pair the bulk path cannot take (a
    # metric other than a 0/1 mean, say) run per pair, together
    units, owner = [], []
    for t, (view, i, j, jobs, shared) in enumerate(tasks):
        for q, job in enumerate(jobs):
            units.append((view, i, j, [job], shared))
            owner.append((t, q))
    rows = [[None] * len(task[3]) for task in tasks]
    blocks = _bulk_bca(units, owner, rows, n_jobs)
    _bulk_mcnemar(units, owner, rows)
    rest, where = [], []
    for t, (view, i, j, jobs, shared) in enumerate(tasks):
        left = [q for q, row in enumerate(rows[t]) if row is None]
        if left:
            rest.append((view, i, j, [jobs[q] for q in left], shared))
            where.append((t, left))
    if rest:
        for (t, left), task_rows in zip(where, run_pairs(rest, n_jobs, verbose)):
            for q, row in zip(left, task_rows):
                rows[t][q] = row
    return PairRows([row for task_rows in rows for row in task_rows if row is not _IN_BLOCK],
                    blocks)


def _bulk_bca(units, owner, rows, n_jobs):
    """The bulk BCa rows as RowBlocks (their jobs marked ``_IN_BLOCK`` in ``rows``)."""
    groups, memo = {}, {}
    for u, unit in enumerate(units):
        found = bulk_job(unit, memo)
        if found is not None:
            job, array = found
            # one shared array per (run, metric); one test per spec index
            groups.setdefault((id(array), job[0][1], job[0][3]), (array, []))[1].append(u)
    blocks = []
    for array, members in groups.values():
        metric, kwargs = units[members[0]][3][0][1:3]
        group_rows = _group_rows if zero_one_mean(metric, kwargs) else statistics_rows
        taken, block = group_rows(units, members, array, n_jobs)
        for c in taken:
            t, q = owner[members[c]]
            rows[t][q] = _IN_BLOCK
        if taken:
            blocks.append(block)
    return blocks


def _bulk_mcnemar(units, owner, rows):
    """McNemar's rows of the jobs not yet in ``rows``: every pair's table from one product
    of the 0/1 columns."""
    tables, memo = {}, {}
    for u, unit in enumerate(units):
        t, q = owner[u]
        if rows[t][q] is not None:  # taken by the bulk BCa path
            continue
        job = mcnemar_job(unit, memo)
        if job is not None:
            tables.setdefault((id(unit[0]), job[0][1], job[0][3]), []).append(u)
    for members in tables.values():
        for u, unit_rows in zip(members, mcnemar_rows(units, members)):
            if unit_rows is not None:
                t, q = owner[u]
                rows[t][q] = unit_rows[0]


def _group_rows(tasks, members, T, n_jobs):
    """``(taken, block)`` of tasks sharing one metric, test and shared array (:func:`bca_rows`)."""
    tables, keep = member_tables(tasks, members)
    if not keep or not np.isfinite(T[tables.order]).all():  # non-finite draws: per pair
        return [], None
    where, counts, sums, n, scores = tables[1:]
    keep = [members[c] for c in keep]
    I = np.array([where[tasks[t][1]] for t in keep])
    J = np.array([where[tasks[t][2]] for t in keep])
    n11 = counts[I, J]
    plus, minus = sums[J] - n11, sums[I] - n11  # n01 (B only) and n10 (A only)
    pair = _pair_moments(plus, minus, n)
    pair["regular"] = ((n >= BCA_SMALL_SAMPLE_LIMITS[0])
                       & (pair["d"] >= BCA_SMALL_SAMPLE_LIMITS[1])
                       & np.isfinite(pair["acceleration"]) & pair["plain"])
    pair["score_a"], pair["score_b"] = scores[I], scores[J]
    return bca_rows(tasks, members, keep, T, pair, n_jobs)


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
