"""Helpers of the tests of compare's shared resamples: data and naive twins."""

import numpy as np

from sigtest.metrics import get_metric


def hard_systems(k, n=300, n_classes=3, seed=0, spread=(0.5, 0.8)):
    """Gold labels and ``k`` systems right on each item with accuracies over ``spread``."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n)
    preds = {f"s{i}": np.where(rng.random(n) < acc, y, rng.integers(0, n_classes, n))
             for i, acc in enumerate(np.linspace(*spread, k))}
    return y, preds


def naive_shared_scores(y, preds, draws, metric, labels):
    """``(B, k)``: every system scored by the metric's own function on the same drawn items."""
    func = get_metric(metric)
    kw = {"labels": labels, "zero_division": 0.0} if metric == "f1_macro" else {}
    return np.array([[func(y[d], p[d], **kw) for p in preds.values()] for d in draws])


def pair_row(frame, metric, a, b):
    """The frame's row of the pair ``(a, b)`` on ``metric``."""
    return frame[(frame.metric == metric) & (frame.system_a == a)
                 & (frame.system_b == b)].iloc[0]
