"""A registered error rate (1 - accuracy, lower is better) for orientation tests of McNemar."""

import contextlib

from sigtest.metrics import get_metric, register_metric, unregister_metric


@contextlib.contextmanager
def error_rate_metric(name):
    """Register ``name`` as the per-item error rate (accuracy's statistics flipped) while inside."""
    acc = get_metric("accuracy")

    def wrong_stats(y_true, y_pred, **params):
        s = acc.statistics(y_true, y_pred, **params)
        s[:, 0] = 1 - s[:, 0]
        return s

    register_metric(name, statistics=wrong_stats, aggregate=acc.aggregate,
                    greater_is_better=False, cellwise=True, decomposable=True)
    try:
        yield name
    finally:
        unregister_metric(name)
