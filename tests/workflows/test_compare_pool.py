"""compare starts a cold pool of worker processes only when the work pays for it.

:func:`sigtest._workflows.compare.pool.run_calls` runs tasks in the calling
process while the rest is estimated cheaper than starting the workers; the
results never depend on where a task ran.
"""

import os
import threading
import types

import joblib
import numpy as np
import pandas as pd
import pytest
from joblib.externals.loky import reusable_executor

from sigtest import BergKirkpatrickBootstrap, compare
from sigtest._workflows.compare import pool


def _task(t):
    return t * t, os.getpid(), threading.get_ident()


def _calls(t):
    return joblib.delayed(_task)(t)


@pytest.fixture
def cold(monkeypatch):
    """A process whose loky pool has not started and that has run nothing yet."""
    monkeypatch.setattr(reusable_executor, "_executor", None)
    monkeypatch.setattr(pool, "_SPENT_HERE", 0.0)


def test_cold_pool_rule():
    assert not pool.cold_process_pool(1)
    assert not pool.cold_process_pool(None)
    with joblib.parallel_config(backend="threading"):
        assert not pool.cold_process_pool(2)  # another backend: as configured


def test_cold_loky_pool_is_detected(cold):
    assert pool.cold_process_pool(2)


def test_cheap_tasks_of_a_cold_pool_run_here_in_order(cold):
    out = pool.run_calls(_calls, [1] * 7, 2)
    assert [r[0] for r in out] == [t * t for t in range(7)]
    assert {r[1] for r in out} == {os.getpid()}
    assert reusable_executor._executor is None  # no worker process started
    it = pool.run_calls(_calls, [1] * 3, 2, return_as="generator")
    assert [r[0] for r in it] == [0, 1, 4]


def test_costly_rest_goes_to_joblib(cold, monkeypatch):
    # a zero start cost: after the first task the rest is worth the workers
    # (threads here, so that no process starts; the rule is forced cold)
    monkeypatch.setattr(pool, "WORKER_START_SECONDS", 0.0)
    monkeypatch.setattr(pool, "cold_process_pool", lambda n_jobs: True)
    with joblib.parallel_config(backend="threading"):
        out = pool.run_calls(_calls, [1] * 6, 2)
    assert [r[0] for r in out] == [t * t for t in range(6)]
    main = threading.get_ident()
    assert out[0][2] == main
    assert all(r[2] != main for r in out[1:])


@pytest.mark.parametrize("later_cost, n_here", [(0.1, 10), (1.0, 2)])
def test_the_first_tasks_one_time_cost_does_not_start_the_workers(cold, monkeypatch,
                                                                   later_cost, n_here):
    # a CPU clock the tasks advance: the first task pays a one-time set-up of 3 s
    # (numba loading its compiler, say); the rate comes from the tasks after it.
    # Limit with 2 workers: 2 * WORKER_START_SECONDS = 4 s. Cheap later tasks
    # (9 x 0.1 s left) all run here; costly ones (8 x 1 s left after the second)
    # go to the workers after the second task.
    clock = [0.0]
    monkeypatch.setattr(pool, "time", types.SimpleNamespace(process_time=lambda: clock[0]))
    monkeypatch.setattr(pool, "cold_process_pool", lambda n_jobs: True)

    def task(t):
        clock[0] += 3.0 if t == 0 else later_cost
        return threading.get_ident()

    with joblib.parallel_config(backend="threading"):
        out = pool.run_calls(lambda t: joblib.delayed(task)(t), [1] * 10, 2)
    main = threading.get_ident()
    assert [r == main for r in out] == [True] * n_here + [False] * (10 - n_here)


def test_spent_time_over_calls_starts_the_workers(cold, monkeypatch):
    # repeated small calls: once the CPU time run here exceeds the start cost,
    # the next call hands its tasks to joblib
    monkeypatch.setattr(pool, "cold_process_pool", lambda n_jobs: True)
    monkeypatch.setattr(pool, "_SPENT_HERE", 2 * pool.WORKER_START_SECONDS + 1.0)
    with joblib.parallel_config(backend="threading"):
        out = pool.run_calls(_calls, [1] * 4, 2)
    main = threading.get_ident()
    assert all(r[2] != main for r in out)


def test_first_small_parallel_compare_starts_no_worker_process(cold):
    # the first n_jobs=2 call of a process: a small comparison runs here, with
    # the same frame as n_jobs=1 (before, it started two cold loky workers)
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 600)
    preds = {f"s{i}": np.where(rng.random(600) < 0.6 + 0.05 * i, y, rng.integers(0, 3, 600))
             for i in range(4)}
    test = BergKirkpatrickBootstrap(n_resamples=199, alternative="two-sided")
    two = compare(y, preds, metrics=["accuracy", "f1_macro"], test=test, n_jobs=2,
                  random_state=0).to_frame()
    assert reusable_executor._executor is None
    one = compare(y, preds, metrics=["accuracy", "f1_macro"], test=test, n_jobs=1,
                  random_state=0).to_frame()
    pd.testing.assert_frame_equal(one, two, check_exact=True)
