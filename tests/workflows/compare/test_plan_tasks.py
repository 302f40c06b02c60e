"""The plan's tasks as columns (PairTasks) and the shared draws per spec (SharedSupplies)
against naive twins: the per-pair tuples and TaskDeltas the plan built before, one by one."""

import copy

import numpy as np
import pytest

import sigtest
from sigtest._workflows.compare import api
from sigtest._workflows.compare.plan import seeded_job
from sigtest._workflows.compare.shared import SharedSupplies, TaskDeltas
from sigtest.tests_ import BCaInterval, PairedPermutation
from sigtest.utils.validation import spawn_seeds

from _shared_data import hard_systems


def _captured(monkeypatch, y, preds, **kwargs):
    """``(plan, shared)`` of ``compare(y, preds, **kwargs)``."""
    seen = {}
    plan_inputs, shared_deltas = api.plan_inputs, api.shared_deltas

    def plan_spy(*args, **kw):
        seen["plan"] = plan_inputs(*args, **kw)
        return seen["plan"]

    def shared_spy(*args, **kw):
        seen["shared"] = shared_deltas(*args, **kw)
        return seen["shared"]

    monkeypatch.setattr(api, "plan_inputs", plan_spy)
    monkeypatch.setattr(api, "shared_deltas", shared_spy)
    sigtest.compare(y, preds, **kwargs)
    return seen["plan"], seen["shared"]


def _naive_order(plan):
    """The (run, pair index) of every task: run, then pairs sorted by their canonical names."""
    names = plan.names
    order = sorted(range(len(plan.canon)),
                   key=lambda p: (names[plan.canon[p][0]], names[plan.canon[p][1]]))
    return [(r, p) for r in range(len(plan.comparisons)) for p in order]


_TESTS = {"bca": BCaInterval(n_resamples=99),
          "permutation+bca": (PairedPermutation(n_resamples=99), BCaInterval(n_resamples=99))}


def test_tasks_are_the_pairs_jobs_in_seed_order(monkeypatch):
    y, preds = hard_systems(7, n=120)
    plan, _ = _captured(monkeypatch, y, dict(reversed(list(preds.items()))),
                        metrics=["accuracy", "f1_macro"], test=list(_TESTS.values()),
                        random_state=3)
    tasks = plan.tasks
    order = _naive_order(plan)
    assert len(tasks) == len(order) == 21
    # seeds per pair: one per p-value test, one more per interval test, in spec order
    stride = sum(1 if it is None else 2 for _, _, it, _ in plan.run_specs)
    seeds = spawn_seeds(3, len(order) * stride + 1)
    for t, (r, p) in enumerate(order):
        view, i, j, jobs = tasks[t]
        assert (i, j) == tuple(plan.canon[p]) and view is tasks.view(r)
        assert (tasks.run[t], tasks.pair[t], tasks.i[t], tasks.j[t]) == (r, p, i, j)
        assert tasks.index(r, p) == t
        assert [job[0] for job in jobs] == [(r, mi, p, si) for mi in range(2) for si in range(2)]
        first = t * stride
        for q, job in enumerate(jobs):
            si = job[0][3]
            at = first + sum(1 if it is None else 2 for _, _, it, _ in plan.run_specs[:si])
            seeded = seeded_job(job)
            got = [seeded[3].random_state] + ([] if seeded[4] is None else [seeded[4].random_state])
            want = [seeds[at]] + ([] if seeded[4] is None else [seeds[at + 1]])
            for a, b in zip(got, want):
                assert (a.entropy, a.spawn_key) == (b.entropy, b.spawn_key)
            template = tasks.jobs(r)[q]
            assert template[0] == (r, job[0][1], None, si) and template[1:8] == job[1:8]
            assert tasks.keys([t], q) == [job[0]]


def test_tasks_index_like_a_list(monkeypatch):
    y, preds = hard_systems(6, n=100)
    plan, _ = _captured(monkeypatch, y, preds, random_state=0)
    tasks = plan.tasks
    listed = list(tasks)
    assert len(listed) == 15
    for t in (0, 7, 14, -1, -15):
        got, want = tasks[t], listed[t]
        assert got[1:3] == want[1:3] and [j[0] for j in got[3]] == [j[0] for j in want[3]]
    assert [task[1:3] for task in tasks[2:9:3]] == [task[1:3] for task in listed[2:9:3]]
    for bad in (15, -16):
        with pytest.raises(IndexError, match="out of range"):
            tasks[bad]
    shared = SharedSupplies(tasks, {})
    assert len(shared[-3:]) == 3 and not shared[-1]
    with pytest.raises(IndexError, match="out of range"):
        shared[15]


@pytest.mark.parametrize("test", ["bca", "permutation+bca"])
def test_shared_supplies_are_the_per_task_deltas(monkeypatch, test):
    if test == "bca":
        y, preds = hard_systems(7, n=150, seed=1)
        metrics = ["accuracy", "f1_macro"]
    else:  # permutations are shared on metrics that are not functions of a few cells
        rng = np.random.default_rng(1)
        y = rng.normal(size=150)
        preds = {f"r{s}": y + rng.normal(scale=0.5 + 0.1 * s, size=150) for s in range(7)}
        metrics = ["neg_mean_absolute_error", "neg_mean_squared_error"]
    plan, shared = _captured(monkeypatch, y, preds, metrics=metrics,
                             test=copy.deepcopy(_TESTS[test]), random_state=5)
    tasks = plan.tasks
    assert len(shared) == len(tasks) and shared.supplied()
    for t in range(len(tasks)):
        _, i, j, jobs = tasks[t]
        # naive twin: the task's mapping built job by job from the per-spec supplies
        want = TaskDeltas()
        for job in jobs:
            r, mi, _, si = job[0]
            for role in (0, 1):
                found = shared.supply(r, mi, si, role)
                if found is not None:
                    array, seed, scheme = found
                    where = (tasks.index(r, job[0][2]) - tasks.run_tasks(r).start
                             if scheme == "permutation" else (i, j))
                    want.add((job[0], role), array, where, seed, scheme)
        got = shared[t]
        assert [e[0] for e in got.entries()] == [e[0] for e in want.entries()]
        for a, b in zip(got.entries(), want.entries()):
            assert a[1] is b[1] and a[2:] == b[2:]
        for key in want:
            np.testing.assert_array_equal(got[key].deltas, want[key].deltas)
    if test == "permutation+bca":  # each pair reads its own row of the permuted deltas
        array = next(f[4] for f in shared.supplied() if f[6] == "permutation")
        rows = [shared[t].entry((tasks[t][3][0][0], 0))[1] for t in range(len(tasks))]
        assert rows == list(range(len(tasks))) and array.shape[0] == len(tasks)
