"""Metrics pickle (their fixed keyword arguments are a read-only view)."""

import pickle

import numpy as np
import pytest
from sklearn.metrics import matthews_corrcoef

import sigtest
from sigtest.metrics import Metric
from sigtest.metrics._registry import score_from_statistics


@pytest.mark.parametrize("name", sigtest.get_metric_names())
def test_registered_metrics_round_trip(name):
    metric = sigtest.get_metric(name)
    again = pickle.loads(pickle.dumps(metric))
    assert again == metric
    assert dict(again.kwargs) == dict(metric.kwargs)
    with pytest.raises(TypeError):
        again.kwargs["average"] = "micro"  # still read-only


def test_compare_result_with_a_user_metric_pickles():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 120)
    preds = {"a": np.where(rng.random(120) < 0.7, y, 1 - y),
             "b": np.where(rng.random(120) < 0.8, y, 1 - y)}
    mcc = Metric("mcc_user", matthews_corrcoef, kwargs={})
    res = sigtest.compare(y, preds, metrics=[mcc, sigtest.get_metric("f1_macro")],
                          test=sigtest.PairedPermutation(n_resamples=99), random_state=0)
    again = pickle.loads(pickle.dumps(res))
    assert again.to_frame().equals(res.to_frame())


def test_metric_from_statistics_only_round_trips():
    # score_func derived from statistics/aggregate (matthews_corrcoef, the user's
    # register_metric(name, statistics=..., aggregate=...)) equals its unpickled copy
    acc = sigtest.get_metric("accuracy")
    metric = Metric("acc_stats_only", score_from_statistics(acc.statistics, acc.aggregate),
                    statistics=acc.statistics, aggregate=acc.aggregate)
    assert pickle.loads(pickle.dumps(metric)) == metric
    assert score_from_statistics(acc.statistics, acc.aggregate) != score_from_statistics(
        acc.statistics, sigtest.get_metric("f1_macro").aggregate)
