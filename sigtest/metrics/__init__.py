"""Evaluation metrics, their sufficient statistics, and scikit-learn scorers.

Hard-label metrics take ``(y_true, y_pred)``; soft-label metrics take
``(y_true, y_proba)`` with ``(n_samples, n_classes)`` distributions;
regression metrics (``_regression``, checked by ``_check_regression``) take
1-D real ``(y_true, y_pred)``. Every
built-in metric is registered (see :func:`get_metric_names`) and available as
a scikit-learn scorer through :func:`get_scorer`.
"""

from sigtest.metrics._as_metric import as_metric
from sigtest.metrics._registry import (
    Metric,
    get_metric,
    get_metric_names,
    register_metric,
    unregister_metric,
)
from sigtest.metrics._scorers import get_scorer, get_scorer_names
from sigtest.metrics import _builtin  # noqa: F401  (registers the built-in metrics)
from sigtest.metrics._soft import (
    cross_entropy_loss,
    jensen_shannon_distance,
    jensen_shannon_divergence,
    po_jsd_score,
)
from sigtest.metrics._soft_accuracy import (
    soft_accuracy_score,
    soft_f1_score,
    soft_precision_score,
    soft_recall_score,
)
from sigtest.metrics._soft_entropy import entropy_correlation_score, entropy_similarity_score
from sigtest.metrics._hard import accuracy_score, f1_score, precision_score, recall_score
from sigtest.metrics._hard_multilabel import multilabel_f1_score
from sigtest.metrics._scores import mean_score

__all__ = [
    "cross_entropy_loss",
    "entropy_correlation_score",
    "entropy_similarity_score",
    "jensen_shannon_distance",
    "jensen_shannon_divergence",
    "po_jsd_score",
    "soft_accuracy_score",
    "soft_f1_score",
    "soft_precision_score",
    "soft_recall_score",
    "Metric",
    "accuracy_score",
    "f1_score",
    "multilabel_f1_score",
    "mean_score",
    "precision_score",
    "recall_score",
    "as_metric",
    "get_metric",
    "get_metric_names",
    "get_scorer",
    "get_scorer_names",
    "register_metric",
    "unregister_metric",
]
