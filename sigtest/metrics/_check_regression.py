"""Validation of continuous targets and predictions (regression metrics).

Regression metrics (``input_type="regression"``) take two 1-D float arrays of
equal length: the targets ``y_true`` and the predictions ``y_pred`` of a
regressor's ``predict``. :func:`check_regression` is the one check every
regression metric and the input path run. It refuses, with a
:class:`ValueError` naming the argument and the metric:

* strings or other non-numeric values (class labels given to a regression
  metric);
* arrays that are not 1-D: a column ``(n, 1)`` is raveled, a multi-output
  ``(n, k)`` array with ``k > 1`` is refused (sigtest compares single-output
  regressors; compare the outputs one at a time);
* NaN or infinity, empty input, a length mismatch;
* values outside the metric's domain (``domain=``), with scikit-learn's
  rules (version 1.9): ``"log"`` (mean squared log error) needs values
  ``> -1`` in both arrays; ``"poisson"`` needs ``y_true >= 0`` and
  ``y_pred > 0``; ``"gamma"`` needs both ``> 0``.
"""

from __future__ import annotations

import numpy as np

__all__ = ["REGRESSION_DOMAINS", "check_regression"]

#: The domain rules of :func:`check_regression`: ``domain -> (rule of y_true,
#: rule of y_pred)``; a rule is ``(kind, bound, text)`` with ``kind`` ``"gt"``
#: (values must be > bound) or ``"ge"`` (>= bound), or None.
REGRESSION_DOMAINS = {
    None: (None, None),
    "log": (("gt", -1.0, "greater than -1"), ("gt", -1.0, "greater than -1")),
    "poisson": (("ge", 0.0, "non-negative"), ("gt", 0.0, "strictly positive")),
    "gamma": (("gt", 0.0, "strictly positive"), ("gt", 0.0, "strictly positive")),
}


def _as_float(values, name, metric):
    arr = values.to_numpy() if hasattr(values, "to_numpy") else np.asarray(values)
    if arr.dtype.kind == "O":
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError):
            arr = arr.astype(str)
    if arr.dtype.kind not in "biuf":
        raise ValueError(
            f"The '{name}' parameter of the regression metric {metric!r} must hold real "
            f"numbers; got dtype {arr.dtype} (class labels? use a classification metric)."
        )
    arr = arr.astype(np.float64)
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr.ravel()
    if arr.ndim != 1:
        hint = (" (multi-output regression is not supported: compare one output at a "
                "time)" if arr.ndim == 2 else "")
        raise ValueError(
            f"The '{name}' parameter of the regression metric {metric!r} must be 1-D "
            f"(one value per sample); got shape {arr.shape}{hint}."
        )
    if not np.all(np.isfinite(arr)):
        raise ValueError(
            f"The '{name}' parameter of the regression metric {metric!r} must not contain "
            "NaN or infinity."
        )
    return arr


def _check_rule(arr, rule, name, metric):
    if rule is None:
        return
    kind, bound, what = rule
    bad = arr <= bound if kind == "gt" else arr < bound
    if np.any(bad):
        i = int(np.argmax(bad))
        raise ValueError(
            f"The '{name}' parameter of the regression metric {metric!r} must be {what}; "
            f"it has {int(bad.sum())} value(s) outside, e.g. {float(arr[i])!r} at index {i}."
        )


def check_regression(y_true, y_pred, metric, *, domain=None, pred_name="y_pred"):
    """Validate regression targets and predictions; return them as 1-D float64.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,) or (n_samples, 1)
        Targets and predictions, real numbers.
    metric : str
        The metric's name, shown in the messages.
    domain : {None, "log", "poisson", "gamma"}, default=None
        The metric's domain rule (see :data:`REGRESSION_DOMAINS`).
    pred_name : str, default="y_pred"
        The caller's name of ``y_pred`` in the messages (``"y_pred_a"``).

    Returns
    -------
    y_true, y_pred : ndarray of shape (n_samples,), dtype float64

    Raises
    ------
    ValueError
        Non-numeric values, not 1-D (multi-output), NaN or infinity, empty,
        lengths that differ, values outside ``domain``; each message names
        the argument and ``metric``.

    Examples
    --------
    >>> from sigtest.metrics._check_regression import check_regression
    >>> check_regression([1, 2.5], [[1.5], [2.0]], "r2")
    (array([1. , 2.5]), array([1.5, 2. ]))
    >>> check_regression([0.5, 2.0], [-1.0, 2.0], "mean_squared_log_error", domain="log")
    Traceback (most recent call last):
    ...
    ValueError: The 'y_pred' parameter of the regression metric 'mean_squared_log_error' must be greater than -1; it has 1 value(s) outside, e.g. -1.0 at index 0.
    """
    if domain not in REGRESSION_DOMAINS:
        raise ValueError(
            f"The 'domain' parameter must be one of {list(REGRESSION_DOMAINS)}. "
            f"Got {domain!r} instead."
        )
    y_true = _as_float(y_true, "y_true", metric)
    y_pred = _as_float(y_pred, pred_name, metric)
    if y_true.shape[0] == 0:
        raise ValueError(
            f"The 'y_true' parameter of the regression metric {metric!r} is empty; at least "
            "one sample is required."
        )
    if y_pred.shape[0] != y_true.shape[0]:
        raise ValueError(
            f"The '{pred_name}' parameter of the regression metric {metric!r} has "
            f"{y_pred.shape[0]} samples but 'y_true' has {y_true.shape[0]}."
        )
    rule_true, rule_pred = REGRESSION_DOMAINS[domain]
    _check_rule(y_true, rule_true, "y_true", metric)
    _check_rule(y_pred, rule_pred, pred_name, metric)
    return y_true, y_pred
