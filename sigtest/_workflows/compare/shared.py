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

import functools
from collections.abc import Mapping

import numpy as np

from sigtest._engine.design import check_design
from sigtest._engine.rng import check_seed
from sigtest._engine.multiplier import gaussian_fits, jackknife_covariance, multiplier_draws
from sigtest._engine.shared import SharedDeltas
from sigtest._engine.shared_job import (
    SharedGroup,
    SharedJob,
    run_shared_job,
    system_jackknife,
    unit_strata_of,
)
from sigtest._workflows.compare.plan_tasks import BuiltWhenRead
from sigtest._workflows.compare.pool import execute_calls
from sigtest.tests_ import shared_scheme

__all__ = ["BOOTSTRAP_SOURCES", "MULTIPLIER_TAG", "SharedSupplies", "TaskDeltas",
           "canonical_order", "multiplier_scores", "shared_deltas", "shared_seed"]

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


def canonical_order(names):
    """The systems' indices sorted by name: the order of the multiplier draws.

    The covariance is accumulated and the normals are drawn in this order,
    so the draws do not depend on the order the systems were given in.
    """
    return sorted(range(len(names)), key=lambda s: names[s])


def _multiplier_from_parts(parts, order, unit_strata, n_resamples, seed, system_major=False):
    """Every system's multiplier draws ``(B, k)`` per metric from :func:`_system_jackknife` parts.

    ``order``: the canonical order of the systems (sorted names), in which
    the covariance is accumulated and the normals are drawn; the columns of
    the output are in the systems' own order. ``None`` for a metric on
    which some system's influence values are too concentrated for the
    Gaussian approximation (:func:`~sigtest._engine.multiplier.gaussian_fits`):
    the caller resamples that metric instead. ``parts``: one
    :func:`~sigtest._engine.shared_job.system_jackknife` per system.
    ``system_major``: each metric's draws as ``(k, B)`` C-contiguous (the
    transpose, written in place by :func:`multiplier_draws`).
    """
    out = []
    for mi in range(len(parts[0][1])):
        columns = [(parts[s][0], parts[s][1][mi][1]) for s in order]
        with np.errstate(all="ignore"):
            sigma = jackknife_covariance(columns, unit_strata)
        if not gaussian_fits(columns, sigma, unit_strata):
            out.append(None)  # influence too concentrated: resampled draws instead
            continue
        # system c of the canonical order is column (row) order[c] of the output
        out.append(multiplier_draws([parts[s][1][mi][0] for s in order], sigma, n_resamples,
                                    seed, positions=order, system_major=system_major))
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
    parts = [system_jackknife(view, s, metrics, design) for s in range(_n_systems(view))]
    return _multiplier_from_parts(parts, list(order), unit_strata_of(design), n_resamples,
                                  seed)


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


def _job_kind(kinds, job, role, few):
    """:func:`_shared_kind` of a planned job's test ``role`` (0: p-value, 1: interval) on its metric.

    The plan's jobs share their test spec's tests, so the answer depends only
    on (run, metric, spec, role): computed once per such key (``kinds``, a
    dict kept for one comparison), not once per pair.
    """
    key = job[0]
    spec = (key[0], key[1], key[3], role)
    if spec not in kinds:
        kinds[spec] = _shared_kind(job[3 + role], job[1], few)
    return kinds[spec]


#: Spawn-key tags of the seeds of compare's shared permutations (ASCII "shpf")
#: and Bayesian bootstrap (ASCII "shbb").
_FLIP_TAG = 0x73687066
_DIRICHLET_TAG = 0x73686262
_TAGS = {"bootstrap": _SHARED_TAG, "permutation": _FLIP_TAG, "bayesian": _DIRICHLET_TAG}


def shared_deltas(tasks, score_seed, n_jobs, *, bootstrap="resample", names=None):
    """The differences every pair's tests run on, from resamples shared by all pairs.

    For the tests that consume shared resamples
    (:func:`sigtest.tests_.shared_scheme`): bootstrap differences
    (:class:`~sigtest.BCaInterval`, :class:`~sigtest.BergKirkpatrickBootstrap`)
    permuted differences (:class:`~sigtest.PairedPermutation`) and
    posterior draws (:class:`~sigtest.BayesianBootstrap`), the last two on
    metrics with per-item statistics. It decides which draws the pairs' tests
    consume and hands the engine one job describing them
    (:class:`~sigtest._engine.shared_job.SharedJob`, one group per (run,
    scheme, resamples)); :func:`~sigtest._engine.shared_job.run_shared_job`
    runs it in two rounds of small joblib tasks (:func:`execute_calls`; the same
    on any backend, dask included): one per system (its unit codes: the
    system's predictions go to one task), then one per range of 1,024
    resamples (the ``N x k`` int32 codes or unit rows and the small tables
    go to each task): every system's bootstrap scores on them, or on
    Dirichlet weights (the parent then takes each pair's differences of two
    columns), or every pair's permuted differences (the pairs' aggregates
    computed in the workers).

    With ``bootstrap="multiplier"`` the bootstrap differences are Gaussian
    multiplier draws instead (:mod:`sigtest._engine.multiplier`): one task
    per system computes its leave-one-unit-out scores
    (:func:`~sigtest._engine.shared_job.system_jackknife`: the unit codes,
    uint8/uint16, and one small table per metric come back), and the
    parent accumulates the jackknife
    covariance ``O(U k^2)`` and draws ``T = T_hat + L z`` ``O(B k^2)``, the
    systems in the canonical order of ``names`` (sorted), so that the output
    does not depend on the order they were given in. Used also with fewer
    than :data:`MIN_SHARED_SYSTEMS` systems. A metric on which a system's
    influence values are too concentrated for the Gaussian approximation
    gets no shared draws: its pairs' tests draw their own resamples
    (:func:`uses_multiplier` tells whether any pair got multiplier draws).

    Parameters
    ----------
    tasks : PairTasks
        The pair tasks of the plan
        (:class:`~sigtest._workflows.compare.plan_tasks.PairTasks`: ``(view,
        i, j, jobs)``, jobs ``(key, metric, kwargs, pvalue_test,
        interval_test, ...)`` with ``key = (run, metric index, pair index,
        spec index)``); what the draws serve is decided once per (run,
        metric, spec), not per pair.
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
    shared : SharedSupplies
        One :class:`TaskDeltas` per task (built when read): ``{(key, role):
        SharedDeltas}`` with ``role`` 0 (the p-value test) or 1 (the interval
        test) and the RAW differences ``score_j* - score_i*`` of the task's
        pair (``i`` = A, ``j`` = B), the seed of the shared draws and their
        scheme.
    """
    if bootstrap not in BOOTSTRAP_SOURCES:
        raise ValueError(f"The 'bootstrap' parameter must be one of {BOOTSTRAP_SOURCES}. "
                         f"Got {bootstrap!r} instead.")
    multiplier = bootstrap == "multiplier"
    few = len(tasks) > 0 and _n_systems(tasks.view(0)) < MIN_SHARED_SYSTEMS
    if not len(tasks) or (few and not multiplier):
        return SharedSupplies(tasks, {})
    kinds = {}  # _job_kind per (run, metric, spec, role)
    wanted, views = _wanted(tasks, few, kinds)
    if not wanted:
        return SharedSupplies(tasks, {})
    # one job for the engine: every group of draws, its systems' views, metrics,
    # design and seed; the engine runs it in two rounds of small tasks on
    # run_calls (a cold worker pool is started only when the tasks pay for it)
    groups, orders = _draw_groups(wanted, views, score_seed, multiplier, tasks)
    out = run_shared_job(SharedJob(tuple(groups)), functools.partial(execute_calls,
                                                                      n_jobs=n_jobs))
    canonical = None if names is None else canonical_order(names)
    arrays = {}
    for group, order, result in zip(groups, orders, out):
        if group.jackknife:  # Gaussian multiplier draws, from the systems' jackknife parts
            k = group.n_systems
            result = _multiplier_from_parts(  # (k, B): no transposed copy
                result, list(range(k)) if canonical is None else canonical,
                unit_strata_of(group.design), group.key[2], group.seed, system_major=True)
        for mi, array in zip(order, result):
            if array is not None:  # else: the pairs draw their own resamples
                arrays[(*group.key, mi)] = array
    seeds = {group.key: group.seed for group in groups}
    supplies = {}  # _supplied_array per (run, metric, spec, role)
    for r in range(tasks.n_runs):
        for job in tasks.jobs(r):
            key = job[0]
            for role in (0, 1):
                supplies[key[0], key[1], key[3], role] = _supplied_array(
                    job, role, arrays, seeds, few, kinds)
    return SharedSupplies(tasks, supplies)


def _wanted(tasks, few, kinds):
    """``{(run, scheme, B): {metric index: (metric, kwargs)}}`` and the view of each run.

    The shared draws the tasks' tests consume (:func:`_shared_kind`), one
    group per (run, scheme, resamples).
    """
    wanted, views = {}, {}
    for r in range(tasks.n_runs):
        for job in tasks.jobs(r):
            key, metric, kwargs = job[:3]
            for role in (0, 1):
                kind = _job_kind(kinds, job, role, few)
                if kind is not None:
                    wanted.setdefault((key[0], *kind), {})[key[1]] = (metric, kwargs)
                    views[key[0]] = tasks.view(r)
    return wanted, views


def _draw_groups(wanted, views, score_seed, multiplier, tasks):
    """The :class:`~sigtest._engine.shared_job.SharedGroup` of every group of draws, and its metric indices."""
    groups, orders = [], []
    for gkey, metrics in sorted(wanted.items()):
        r, scheme, _ = gkey
        order = sorted(metrics)
        view = views[r]
        kwargs = metrics[order[0]][1]
        n = next(iter(view.values()))[0].shape[0]
        design = check_design(kwargs.get("groups"), kwargs.get("strata"), n)
        gauss = multiplier and scheme == "bootstrap"  # Gaussian multiplier draws
        seed = shared_seed(score_seed, MULTIPLIER_TAG if gauss else _TAGS[scheme], r)
        groups.append(SharedGroup(
            key=gkey, metrics=tuple(metrics[mi] for mi in order), view=view, design=design,
            seed=seed, jackknife=gauss,
            pairs=_run_pairs(tasks, r) if scheme == "permutation" else ()))
        orders.append(order)
    return groups, orders


def _run_pairs(tasks, r):
    """The pairs ``(i, j)`` of run ``r`` in task order (the rows of its permuted deltas)."""
    rows = tasks.run_tasks(r)
    span = slice(rows.start, rows.stop)
    return tuple(zip(tasks.i[span].tolist(), tasks.j[span].tolist()))


def _supplied_array(job, role, arrays, seeds, few, kinds):
    """``(array, seed, scheme)`` of the shared draws a job's test ``role`` consumes, or None."""
    kind = _job_kind(kinds, job, role, few)
    if kind is None:
        return None
    key = job[0]
    gkey = (key[0], *kind)
    if (*gkey, key[1]) not in arrays:  # multiplier draws declined for the metric
        return None
    return arrays[(*gkey, key[1])], seeds[gkey], kind[0]


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
    return any(scheme == "bootstrap" for *_, scheme in shared.supplied())


class SharedSupplies(BuiltWhenRead):
    """Every pair task's :class:`TaskDeltas`, built when read.

    What a job's test consumes depends only on its (run, metric, test spec,
    role), the same for every pair (the plan's jobs share their spec's
    tests): ``supplies`` holds it per such key, and ``shared[t]`` makes task
    ``t``'s mapping from it.

    Parameters
    ----------
    tasks : PairTasks
    supplies : dict
        ``(run, metric index, spec index, role) -> (array, seed, scheme)``
        or None (the job's test draws its own resamples).
    """

    def __init__(self, tasks, supplies):
        self._tasks, self._supplies = tasks, supplies

    def __len__(self):
        return len(self._tasks)

    def _item(self, t):
        tasks = self._tasks
        r, pi = int(tasks.run[t]), int(tasks.pair[t])
        i, j = int(tasks.i[t]), int(tasks.j[t])
        supplied = TaskDeltas()
        for job in tasks.jobs(r):
            _, mi, _, si = job[0]
            for role in (0, 1):
                found = self._supplies.get((r, mi, si, role))
                if found is None:
                    continue
                array, seed, scheme = found
                # the permuted deltas of a run have one row per task, in task order
                where = t - tasks.run_tasks(r).start if scheme == "permutation" else (i, j)
                supplied.add(((r, mi, pi, si), role), array, where, seed, scheme)
        return supplied

    def supply(self, r, mi, si, role):
        """``(array, seed, scheme)`` of the draws (run, metric, spec, role) consumes, or None."""
        return self._supplies.get((r, mi, si, role))

    def supplied(self):
        """``[(run, metric index, spec index, role, array, seed, scheme)]`` of every supply."""
        return [(*spec, *found) for spec, found in self._supplies.items() if found is not None]


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

    def entry(self, key):
        """``(array, where, seed, scheme)`` of ``key`` as :meth:`add` was given it, or None."""
        return self._entries.get(key)

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
