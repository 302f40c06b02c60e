"""Contract of ``Metric.decomposable``: the score is the weighted mean of ``aggregate(row)``.

Tests on per-item differences (sign, Wilcoxon, paired t) rely on it, so the
flag is checked for every registered metric in both directions: a flagged
metric satisfies the identity, and a metric that satisfies it on generic
random data is flagged (nothing is left out by mistake).
"""

import warnings

import numpy as np
import pytest

from sigtest.metrics import get_metric, get_metric_names, register_metric, unregister_metric
from sigtest.metrics._registry import Metric

K = 3


def _data(metric, seed):
    rng = np.random.default_rng(seed)
    n = 57
    if metric.input_type == "labels":
        y_true, y_pred = rng.integers(0, K, n), rng.integers(0, K, n)
    elif metric.input_type == "regression":  # positive, for the deviances
        y_true, y_pred = rng.gamma(2.0, 1.0, n) + 0.1, rng.gamma(2.0, 1.0, n) + 0.1
    elif metric.input_type == "proba":
        y_true, y_pred = rng.dirichlet(np.ones(K), n), rng.dirichlet(np.ones(K), n)
    elif metric.input_type == "labels_proba":
        y_true, y_pred = rng.integers(0, K, n), rng.dirichlet(np.ones(K), n)
    elif metric.input_type == "scores":  # per-item scores, no gold labels
        y_true, y_pred = None, rng.uniform(0, 10, n)
    else:
        y_true, y_pred = rng.random((n, 4)), rng.random((n, 4))
    params = metric.params()
    if metric.input_type == "labels":
        params["labels"] = np.arange(K)
    if params.get("average") == "binary" or "likelihood_ratio" in metric.name:
        params["pos_label"] = 1
    weights = rng.integers(1, 6, n).astype(np.float64)
    return y_true, y_pred, params, weights


def _identity_gap(metric, seed):
    """max |score - weighted mean of aggregate(row)| over unit and random weights."""
    y_true, y_pred, params, weights = _data(metric, seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        values = np.asarray(metric.aggregate(metric.statistics(y_true, y_pred, **params),
                                             **params), dtype=np.float64)
        gaps = []
        for w in (np.ones_like(weights), weights):
            score = metric.score_func(y_true, y_pred, sample_weight=w, **params)
            gaps.append(abs(score - np.dot(w, values) / w.sum()))
    return max(gaps) if np.all(np.isfinite(gaps)) else np.inf


STAT_METRICS = [n for n in get_metric_names() if get_metric(n).has_statistics]


@pytest.mark.parametrize("name", STAT_METRICS)
def test_decomposable_flag_matches_the_weighted_mean_identity(name):
    metric = get_metric(name)
    gaps = [_identity_gap(metric, seed) for seed in range(3)]
    if metric.decomposable:
        # the same floating-point sums in two orders: a few ulps of a value <= ~3
        assert max(gaps) < 1e-12, gaps
    else:
        # a non-mean (ratio or correlation of totals) misses on generic data
        assert max(gaps) > 1e-6, f"{name} is a weighted mean of per-item values: flag it"


def test_expected_decomposable_metrics():
    flagged = {n for n in get_metric_names() if get_metric(n).decomposable}
    assert {"accuracy", "soft_accuracy", "po_jsd", "multilabel_po_jsd", "cross_entropy",
            "jsd", "mean"} <= flagged
    assert not flagged & {"f1_macro", "entropy_correlation", "entropy_similarity",
                          "multilabel_f1_micro", "f1"}


def test_decomposable_requires_statistics_and_a_bool():
    with pytest.raises(ValueError, match="decomposable=True"):
        Metric("plain", lambda y, p: 0.0, decomposable=True)
    acc = get_metric("accuracy")
    with pytest.raises(TypeError, match="decomposable"):
        Metric("acc2", acc.score_func, statistics=acc.statistics, aggregate=acc.aggregate,
               decomposable="yes")


def test_register_metric_passes_decomposable():
    acc = get_metric("accuracy")
    metric = register_metric("acc_decomposable_test", statistics=acc.statistics,
                             aggregate=acc.aggregate, decomposable=True)
    try:
        assert metric.decomposable and get_metric("acc_decomposable_test").decomposable
        assert not register_metric("acc_plain_test", statistics=acc.statistics,
                                   aggregate=acc.aggregate).decomposable
    finally:
        unregister_metric("acc_decomposable_test")
        unregister_metric("acc_plain_test")
