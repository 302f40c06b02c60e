"""The engine's one job of shared draws: two rounds on the caller's executor, the in-process result."""

import numpy as np
import pytest

from sigtest._engine.design import check_design
from sigtest._engine.shared_job import (
    RANGE,
    SharedGroup,
    SharedJob,
    resampled_scores,
    run_shared_job,
    system_data,
)
from sigtest.metrics import get_metric


@pytest.fixture
def group():
    rng = np.random.default_rng(0)
    n, k = 300, 4
    y = rng.integers(0, 3, n)
    preds = [np.where(rng.random(n) < 0.5 + 0.1 * s, y, rng.integers(0, 3, n)) for s in range(k)]
    view = {"labels": (y, [p[None] for p in preds])}
    metrics = ((get_metric("accuracy"), {}), (get_metric("f1_macro"), {"labels": np.arange(3)}))
    design = check_design(rng.integers(0, 30, n), None, n)
    return SharedGroup(key=(0, "bootstrap", 2 * RANGE + 100), metrics=metrics, view=view,
                       design=design, seed=7)


def _serial(rounds, order=1):
    """An executor that runs the calls here (in the given order) and records each round."""
    def execute(calls, weights):
        assert len(weights) == len(calls)
        rounds.append(len(calls))
        done = {t: calls[t][0](*calls[t][1], **calls[t][2]) for t in range(len(calls))[::order]}
        return [done[t] for t in range(len(calls))]
    return execute


def test_one_job_runs_in_two_rounds_and_equals_the_in_process_draws(group):
    rounds = []
    out, = run_shared_job(SharedJob((group,)), _serial(rounds))
    # round 1: one task per system; round 2: one per range of RANGE resamples
    assert rounds == [4, 3]
    data = [[system_data(group.view, s, m, kw) for s in range(4)] for m, kw in group.metrics]
    want = resampled_scores(data, group.design, group.key[2], group.seed)
    assert len(out) == 2
    for got, ref in zip(out, want):
        assert got.shape == (4, group.key[2]) and got.flags.c_contiguous
        np.testing.assert_array_equal(got, ref.T)


def test_the_order_the_executor_runs_the_calls_in_changes_nothing(group):
    forward, backward = [], []
    one = run_shared_job(SharedJob((group,)), _serial(forward))
    two = run_shared_job(SharedJob((group,)), _serial(backward, order=-1))
    for a, b in zip(one[0], two[0]):
        np.testing.assert_array_equal(a, b)
