"""Evaluation metrics, their sufficient statistics, and scikit-learn scorers.

Hard-label metrics take ``(y_true, y_pred)``; soft-label metrics take
``(y_true, y_proba)`` with ``(n_samples, n_classes)`` distributions. Every
built-in metric is registered (see :func:`get_metric_names`) and available as
a scikit-learn scorer through :func:`get_scorer`.
"""

from ._registry import (
    Metric,
    get_metric,
    get_metric_names,
    register_metric,
    unregister_metric,
)

__all__ = [
    "Metric",
    "get_metric",
    "get_metric_names",
    "register_metric",
    "unregister_metric",
]
