"""The pair tasks of a comparison's plan, as columns: made one by one only when read.

Every (run, pair) of a comparison has the same jobs up to the pair: one per
(metric, test spec), the spec's unseeded tests and where the pair's seeds
are. At 1,000 systems (499,500 pairs) a list of per-pair task tuples costs
more than the tests the bulk paths run on them, so :class:`PairTasks` keeps
the pairs as integer columns and the jobs as one template per (metric,
spec): ``tasks[t]`` builds the task ``(view, i, j, jobs)`` the per-pair path
runs, and the bulk paths read the columns and the templates.
"""

from abc import abstractmethod
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

__all__ = ["BuiltWhenRead", "JobGroup", "PairTasks", "TaskView"]


class BuiltWhenRead(Sequence):
    """A sequence whose items are built when read: ``self._item(t)`` for ``0 <= t < len``.

    Indexing takes negative indices and slices (a list) as a list does and
    raises :class:`IndexError` out of range.
    """

    @abstractmethod
    def _item(self, t):
        """Item ``t`` (``0 <= t < len(self)``)."""

    def __getitem__(self, t):
        if isinstance(t, slice):
            return [self._item(u) for u in range(*t.indices(len(self)))]
        n = len(self)
        if not -n <= t < n:
            raise IndexError(f"{type(self).__name__} index out of range")
        return self._item(t + n if t < 0 else t)


class PairTasks(BuiltWhenRead):
    """One task ``(view, i, j, jobs)`` per (run, pair), in the order run -> seed order.

    Parameters
    ----------
    views : list of dict
        The systems' view of each run.
    canon : array-like of int, shape (n_pairs, 2)
        Each pair's ``(i, j)`` in its canonical orientation.
    seed_order : array-like of int
        The pair indices in the order of their seeds (the canonical sorted
        pair order): the tasks of a run are in this order.
    templates : list of tuple
        One per (metric, spec): ``(metric index, spec index, metric,
        metric_kwargs, pvalue_test, interval_test, two_sided, level,
        has_level, seeders, offset)``; the job of task ``t`` takes seeds from
        ``t * stride + offset`` on
        (:func:`~sigtest._workflows.compare.plan.seeded_job`).
    seeds : SpawnedSeeds
    stride : int
        Seeds per task.

    Attributes
    ----------
    run, pair, i, j : ndarray of int64, shape (n_tasks,)
        Each task's run, pair index and systems (canonical orientation);
        read-only views where one run makes them so.
    """

    def __init__(self, views, canon, seed_order, templates, seeds, stride):
        self._views = list(views)
        self._canon = np.asarray(canon, dtype=np.int64).reshape(-1, 2)
        self._order = order = np.asarray(seed_order, dtype=np.int64).reshape(-1)
        self._templates, self._seeds, self._stride = list(templates), seeds, int(stride)
        m, n_runs = len(self._order), len(self._views)
        self._m = m
        # one run (the common case): no m-long copies (1,000 systems: 4 MB each)
        self.run = (np.broadcast_to(np.int64(0), (m,)) if n_runs == 1
                    else np.repeat(np.arange(n_runs, dtype=np.int64), m))
        self.pair = order if n_runs == 1 else np.tile(order, n_runs)
        self.i, self.j = self._canon[self.pair, 0], self._canon[self.pair, 1]
        self._position = np.empty(len(self._canon), dtype=np.int64)
        self._position[order] = np.arange(m)

    def __len__(self):
        return self._m * len(self._views)

    def _item(self, t):
        r, p = divmod(t, self._m)
        pi = int(self._order[p])
        first = t * self._stride
        jobs = [((r, mi, pi, si), metric, kwargs, pt, it, two_sided, level, has_level,
                 (seeders, self._seeds, first + offset))
                for (mi, si, metric, kwargs, pt, it, two_sided, level, has_level, seeders,
                     offset) in self._templates]
        i, j = self._canon[pi].tolist()
        return self._views[r], i, j, jobs

    @property
    def n_runs(self):
        """The number of runs (comparisons) the tasks belong to."""
        return len(self._views)

    @property
    def n_jobs(self):
        """The jobs of every task (one per metric and test spec)."""
        return len(self._templates)

    def view(self, r):
        """The systems' view of run ``r``."""
        return self._views[r]

    def run_tasks(self, r):
        """The task indices of run ``r`` (a range)."""
        return range(r * self._m, (r + 1) * self._m)

    def index(self, r, pi):
        """The task of run ``r`` and pair index ``pi``."""
        return r * self._m + int(self._position[pi])

    def jobs(self, r):
        """The jobs of run ``r`` with no pair: ``key = (r, metric index, None, spec index)``.

        What a job's test does with the data depends on (run, metric, spec)
        only: these answer it once for every pair.
        """
        return [((r, mi, None, si), metric, kwargs, pt, it, two_sided, level, has_level,
                 (seeders, self._seeds, None))
                for (mi, si, metric, kwargs, pt, it, two_sided, level, has_level, seeders,
                     _) in self._templates]

    def keys(self, tasks, q):
        """The keys ``(run, metric index, pair index, spec index)`` of job ``q`` of ``tasks``."""
        return list(map(tuple, self.key_table(tasks, q).tolist()))

    def key_table(self, tasks, q):
        """:meth:`keys` as an ``(n, 4)`` int64 array (no tuple per key)."""
        mi, si = self._templates[q][:2]
        tasks = np.asarray(tasks, dtype=np.int64).reshape(-1)
        table = np.empty((tasks.shape[0], 4), dtype=np.int64)
        table[:, 0], table[:, 1] = self.run[tasks], mi
        table[:, 2], table[:, 3] = self.pair[tasks], si
        return table


class TaskView(BuiltWhenRead):
    """The plan's tasks with each one's shared differences: ``(view, i, j, jobs, shared)``.

    What :func:`~sigtest._workflows.compare.bulk.run_all_pairs` takes; built
    when read, as :class:`PairTasks`.
    """

    def __init__(self, tasks, shared):
        if len(shared) != len(tasks):
            raise ValueError(f"{len(shared)} shared entries for {len(tasks)} tasks.")
        self.tasks, self.shared = tasks, shared

    def __len__(self):
        return len(self.tasks)

    def _item(self, t):
        return (*self.tasks[t], self.shared[t])


class JobGroup(NamedTuple):
    """One job (a metric and a test spec) of many pair tasks of one run: what a bulk path takes.

    Attributes
    ----------
    view : dict
        The run's systems' view.
    metric, kwargs
        The job's metric and its keyword arguments.
    test : object
        The spec's p-value test (unseeded: the bulk paths read its parameters).
    tasks : ndarray of int64
        The task indices of the pairs.
    i, j : ndarray of int64
        Their systems, in each pair's canonical orientation.
    source : PairTasks
    q : int
        The job's index in each task's jobs.
    """

    view: dict
    metric: object
    kwargs: dict
    test: object
    tasks: np.ndarray
    i: np.ndarray
    j: np.ndarray
    source: PairTasks
    q: int

    def job_keys(self, positions):
        """The keys ``(run, metric index, pair index, spec index)`` of the pairs at ``positions``."""
        return self.source.keys(self.tasks[np.asarray(positions, dtype=np.int64)], self.q)

    def key_table(self, positions):
        """:meth:`job_keys` as an ``(n, 4)`` int64 array."""
        return self.source.key_table(self.tasks[np.asarray(positions, dtype=np.int64)], self.q)

    def positions(self, where):
        """``(a, b, both)``: each pair's systems' positions in ``where`` (a dict system ->
        position; -1 where absent), and whether both systems are in it."""
        size = int(max(self.i.max(initial=-1), self.j.max(initial=-1))) + 1
        lookup = np.full(size, -1, dtype=np.int64)
        for s, c in where.items():
            if s < size:
                lookup[s] = c
        a, b = lookup[self.i], lookup[self.j]
        return a, b, (a >= 0) & (b >= 0)

    def systems(self):
        """The systems of the pairs, sorted (a list of int)."""
        return np.unique(np.concatenate([self.i, self.j])).tolist()
