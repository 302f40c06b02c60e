"""Slow, obviously-correct references for the resampling engine tests.

Also defines small self-contained metrics (so the engine tests do not depend on
the built-in metric modules): hard accuracy and macro-F1 (cellwise), a soft
"expected accuracy" (generic path) and a metric without statistics.
"""

import itertools
import warnings

import numpy as np

from sigtest.exceptions import UndefinedMetricWarning
from sigtest.metrics import Metric


# -------------------------------------------------------------------- metrics
def _acc_stats(y_true, y_pred, **params):
    y_true, y_pred = np.asarray(y_true), np.asarray(y_pred)
    return np.column_stack([y_true == y_pred, np.ones(len(y_true))]).astype(np.float64)


def _acc_agg(sums, **params):
    sums = np.asarray(sums, dtype=np.float64)
    return sums[..., 0] / sums[..., 1]


def _f1_stats(y_true, y_pred, *, labels=None, **params):
    """(tp_k, fp_k, fn_k) per class k of ``labels``."""
    y_true, y_pred = np.asarray(y_true), np.asarray(y_pred)
    if labels is None:
        labels = np.unique(np.concatenate([y_true, y_pred]))
    labels = np.asarray(labels)
    t = y_true[:, None] == labels[None, :]
    p = y_pred[:, None] == labels[None, :]
    return np.hstack([t & p, ~t & p, t & ~p]).astype(np.float64)


def _f1_agg(sums, *, zero_division="warn", **params):
    sums = np.asarray(sums, dtype=np.float64)
    K = sums.shape[-1] // 3
    tp, fp, fn = sums[..., :K], sums[..., K : 2 * K], sums[..., 2 * K :]
    den = 2 * tp + fp + fn
    fill = 0.0 if zero_division == "warn" else zero_division
    if isinstance(zero_division, str) and zero_division == "warn" and np.any(den == 0):
        warnings.warn("F1 is ill-defined for a class with no true or predicted samples.",
                      UndefinedMetricWarning, stacklevel=2)
    with np.errstate(invalid="ignore", divide="ignore"):
        f1 = np.where(den > 0, 2 * tp / np.where(den > 0, den, 1.0), fill)
    return f1.mean(axis=-1)


def _soft_stats(y_true, y_proba, **params):
    """Expected accuracy: probability mass on the true class, and a count."""
    y_true = np.asarray(y_true)
    q = np.asarray(y_proba, dtype=np.float64)
    return np.column_stack([q[np.arange(len(y_true)), y_true], np.ones(len(y_true))])


def _score(stats_f, agg_f):
    def score(y_true, y_pred, *, sample_weight=None, **params):
        st = stats_f(y_true, y_pred, **params)
        sums = st.sum(0) if sample_weight is None else np.asarray(sample_weight) @ st
        return float(agg_f(sums, **params))

    return score


ACC = Metric("t_accuracy", _score(_acc_stats, _acc_agg), statistics=_acc_stats,
             aggregate=_acc_agg, cellwise=True)
F1 = Metric("t_f1_macro", _score(_f1_stats, _f1_agg), statistics=_f1_stats,
            aggregate=_f1_agg, cellwise=True)
SOFT = Metric("t_soft_accuracy", _score(_soft_stats, _acc_agg), input_type="proba",
              statistics=_soft_stats, aggregate=_acc_agg)
# Same accuracy, but without statistics: forces the slow path.
ACC_SLOW = Metric("t_accuracy_slow", _score(_acc_stats, _acc_agg))


def metric_value(metric, y_true, y_pred, labels=None, sample_weight=None):
    """The metric on raw data, labels fixed, resample zero_division (0.0)."""
    params = {"zero_division": 0.0}
    if labels is not None:
        params["labels"] = labels
    return metric.score_func(y_true, y_pred, sample_weight=sample_weight, **params)


# ----------------------------------------------------------------- references
def naive_jackknife(metric, y_true, a, b, labels=None):
    """Leave-one-out values by N metric calls on the raw data."""
    n = len(y_true)
    ta, tb = np.empty(n), np.empty(n)
    for i in range(n):
        keep = np.arange(n) != i
        ta[i] = metric_value(metric, y_true[keep], a[keep], labels)
        tb[i] = metric_value(metric, y_true[keep], b[keep], labels)
    return ta, tb


def naive_exact_permutation(metric, y_true, a, b, labels=None, sample_weight=None):
    """All 2**N swap patterns: {rounded delta: probability}."""
    n = len(y_true)
    dist = {}
    for pattern in itertools.product([False, True], repeat=n):
        sw = np.array(pattern)
        sw_ = sw.reshape((n,) + (1,) * (np.ndim(a) - 1))
        a_s, b_s = np.where(sw_, b, a), np.where(sw_, a, b)
        d = metric_value(metric, y_true, b_s, labels, sample_weight) - metric_value(
            metric, y_true, a_s, labels, sample_weight
        )
        key = round(float(d), 9)
        dist[key] = dist.get(key, 0.0) + 0.5**n
    return dist


def naive_bootstrap_deltas(metric, y_true, a, b, idx, labels=None):
    """Deltas for explicit (B, m) index rows."""
    return np.array([
        metric_value(metric, y_true[i], b[i], labels) - metric_value(metric, y_true[i], a[i], labels)
        for i in idx
    ])
