r"""Regression metrics: scikit-learn's regression scorers on per-item statistics.

Every metric takes 1-D float ``y_true`` and ``y_pred`` (a regressor's
``predict``), checked by :func:`sigtest.metrics._check_regression.check_regression`,
and equals scikit-learn's function of the same name on the same input (with
and without ``sample_weight``). With ``e_i = y_i - \hat y_i`` and weights
``w_i`` (1 by default), ``W = sum_i w_i``:

* the means of a per-item loss, ``sum_i w_i v_i / W``, rows ``[v_i, 1]``
  (decomposable): absolute error ``|e_i|``, squared error ``e_i^2``, squared
  log error ``(log1p y_i - log1p \hat y_i)^2``, absolute percentage error
  ``|e_i| / max(|y_i|, eps)`` (``eps`` = float64 machine epsilon, as
  scikit-learn), Poisson deviance ``2 (y ln(y / \hat y) - y + \hat y)`` and
  Gamma deviance ``2 (ln(\hat y / y) + y / \hat y - 1)``;
* the root of a mean (RMSE, RMSLE): the same rows, ``sqrt(s0 / s1)`` of the
  resampled sums (the root of the resampled mean, not a mean of roots);
* :math:`R^2 = 1 - \sum w e^2 / \sum w (y - \bar y_w)^2` from the rows
  ``[1, y', y'^2, e^2]`` with ``y' = y - c``: the denominator is
  ``s2 - s1^2 / s0``;
* explained variance ``1 - Var_w(e) / Var_w(y)`` from
  ``[1, y', y'^2, e', e'^2]`` (``e' = e - c_e``).

The shifts ``c`` and ``c_e`` are the medians of ``y_true`` and of ``e`` on
the data given (one value shared by both systems and every resample, so
the sums stay additive). A shift changes no variance but keeps the one-pass
formula ``s2 - s1^2 / s0`` accurate (unweighted, ``|mean - median| <= sd``,
so ``s2 <= 2 W Var``), and makes a constant ``y_true`` give exactly zero. A
variance below ``1e-12 * s2`` (the rounding of a constant resample) counts
as zero. Zero variance follows scikit-learn's ``force_finite=True``: a
zero numerator scores 1.0 (perfect predictions), else a zero denominator
scores 0.0; ``force_finite=False`` gives ``1 - num / den`` (NaN or -inf).
A constant ``y_true`` warns (``UndefinedMetricWarning``).

Three metrics have no additive statistics and take the slow path (one call
per resample): the median absolute error and the maximum error (order
statistics of ``|e|``), and :math:`D^2` of the absolute error,
``1 - sum |e| / sum |y - median_w(y)|``, whose denominator needs the
weighted median of ``y`` of each resample. Their unweighted forms are
computed with NumPy; weighted ones call scikit-learn's function (its
weighted percentile).

References
----------
scikit-learn, "Regression metrics", User Guide sec. 3.4.6
(https://scikit-learn.org/stable/modules/model_evaluation.html#regression-metrics).
"""

from __future__ import annotations

import math

import numpy as np

from sigtest.metrics._check_labels import check_sample_weight
from sigtest.metrics._check_regression import check_regression
from sigtest.metrics._common import warn_undefined, xlogy
from sigtest.metrics._soft import _mean_ratio

__all__ = ["RegressionStatistics", "d2_absolute_error_score", "max_error",
           "median_absolute_error"]  # registered by sigtest.metrics._builtin

_EPS = float(np.finfo(np.float64).eps)
#: A weighted sum of squares below this fraction of its raw sum is rounding: zero.
_VARIANCE_RTOL = 1e-12


def _loss_values(kind, y, p):
    """Per-item losses ``v_i`` of a mean-of-losses metric."""
    e = y - p
    if kind == "absolute":
        return np.abs(e)
    if kind == "squared":
        return e * e
    if kind == "squared_log":
        d = np.log1p(y) - np.log1p(p)
        return d * d
    if kind == "absolute_percentage":
        return np.abs(e) / np.maximum(np.abs(y), _EPS)
    if kind == "poisson":
        return 2.0 * (xlogy(y, y / p) - y + p)
    if kind == "gamma":
        return 2.0 * (np.log(p / y) + y / p - 1.0)
    raise ValueError(f"unknown loss kind {kind!r}")  # pragma: no cover (registration)


class RegressionStatistics:
    """Per-item statistics of one regression metric (the registry's ``statistics``).

    Parameters
    ----------
    name : str
        The metric's name, shown in the messages of the input check.
    kind : str
        ``"r2"``, ``"explained_variance"`` or a loss (``"absolute"``,
        ``"squared"``, ``"squared_log"``, ``"absolute_percentage"``,
        ``"poisson"``, ``"gamma"``).
    domain : {None, "log", "poisson", "gamma"}, default=None
        The value rule of :func:`~sigtest.metrics._check_regression.check_regression`.

    Notes
    -----
    Called as ``statistics(y_true, y_pred, **params)``; returns float64 rows
    (see the module docstring): ``[v_i, 1]`` for a loss,
    ``[1, y', y'^2, e^2]`` for R², ``[1, y', y'^2, e', e'^2]`` for the
    explained variance.
    """

    def __init__(self, name, kind, domain=None):
        self.name = name
        self.kind = kind
        self.domain = domain
        self.__name__ = f"{name}_statistics"

    def __call__(self, y_true, y_pred, **params):
        y, p = check_regression(y_true, y_pred, self.name, domain=self.domain)
        if self.kind not in ("r2", "explained_variance"):
            v = _loss_values(self.kind, y, p)
            return np.column_stack([v, np.ones_like(v)])
        if y.shape[0] < 2:
            raise ValueError(
                f"The 'y_true' parameter of the regression metric {self.name!r} has "
                f"{y.shape[0]} sample; the metric needs at least 2 (scikit-learn returns "
                "NaN)."
            )
        centre = np.median(y)
        yc = y - centre
        if not np.any(yc):
            warn_undefined(
                f"{self.name}: y_true is constant, so its variance is 0; as scikit-learn "
                "(force_finite=True) the score is 1.0 for perfect predictions and 0.0 "
                "otherwise.", hint=False)
        e = y - p
        ones = np.ones_like(y)
        if self.kind == "r2":
            return np.column_stack([ones, yc, yc * yc, e * e])
        ec = e - np.median(e)
        return np.column_stack([ones, yc, yc * yc, ec, ec * ec])

    def __eq__(self, other):
        return (type(other) is type(self) and other.name == self.name
                and other.kind == self.kind and other.domain == self.domain)

    def __hash__(self):
        return hash((self.name, self.kind, self.domain))

    def __repr__(self):
        return f"RegressionStatistics({self.name!r}, {self.kind!r}, {self.domain!r})"


def _mean_loss_aggregate(sums, **params):
    """Weighted mean loss ``s0 / s1``."""
    return _mean_ratio(sums)


def _root_mean_loss_aggregate(sums, **params):
    """Root of the weighted mean loss, ``sqrt(s0 / s1)`` (RMSE, RMSLE)."""
    return np.sqrt(_mean_ratio(sums))


def _centred_sum_of_squares(s0, s1, s2):
    """``sum w (x - mean_w x)^2`` from ``s0 = sum w``, ``s1 = sum w x``, ``s2 = sum w x^2``.

    Rounding below ``_VARIANCE_RTOL * s2`` (a constant sample) is zero.
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        ss = s2 - s1 * s1 / s0
    return np.where(ss <= _VARIANCE_RTOL * s2, 0.0, ss)


def _fraction_explained(num, den, force_finite):
    """``1 - num / den`` with scikit-learn's ``force_finite`` rule for zeros."""
    with np.errstate(divide="ignore", invalid="ignore"):
        raw = 1.0 - num / den
    if not force_finite:
        return raw
    return np.where(num == 0, 1.0, np.where(den == 0, 0.0, raw))


def _check_force_finite(force_finite):
    if not isinstance(force_finite, (bool, np.bool_)):
        raise ValueError(
            f"The 'force_finite' parameter must be a bool. Got {force_finite!r} instead."
        )
    return bool(force_finite)


def _r2_aggregate(sums, *, force_finite=True, **params):
    """R² from the sums of ``[1, y', y'^2, e^2]``."""
    sums = np.asarray(sums, dtype=np.float64)
    den = _centred_sum_of_squares(sums[..., 0], sums[..., 1], sums[..., 2])
    return _fraction_explained(sums[..., 3], den, _check_force_finite(force_finite))


def _explained_variance_aggregate(sums, *, force_finite=True, **params):
    """Explained variance from the sums of ``[1, y', y'^2, e', e'^2]``."""
    sums = np.asarray(sums, dtype=np.float64)
    den = _centred_sum_of_squares(sums[..., 0], sums[..., 1], sums[..., 2])
    num = _centred_sum_of_squares(sums[..., 0], sums[..., 3], sums[..., 4])
    return _fraction_explained(num, den, _check_force_finite(force_finite))


# ------------------------------------------------------------------ slow path
def _sklearn_weighted(name, y, p, sample_weight):
    """scikit-learn's function ``name`` on checked arrays (its weighted percentile)."""
    from sklearn import metrics as skm  # only for weighted order statistics

    return float(getattr(skm, name)(y, p, sample_weight=sample_weight))


def median_absolute_error(y_true, y_pred, *, sample_weight=None):
    """Median of ``|y_true - y_pred|`` (weighted: scikit-learn's weighted median)."""
    y, p = check_regression(y_true, y_pred, "median_absolute_error")
    w = check_sample_weight(sample_weight, y.shape[0])
    if w is None:
        return float(np.median(np.abs(y - p)))
    return _sklearn_weighted("median_absolute_error", y, p, w)


def max_error(y_true, y_pred):
    """Largest ``|y_true - y_pred|`` (no ``sample_weight``, as scikit-learn)."""
    y, p = check_regression(y_true, y_pred, "max_error")
    return float(np.max(np.abs(y - p)))


def d2_absolute_error_score(y_true, y_pred, *, sample_weight=None):
    """D² of the absolute error, ``1 - sum w |e| / sum w |y - median_w(y)|``."""
    name = "d2_absolute_error_score"
    y, p = check_regression(y_true, y_pred, name)
    if y.shape[0] < 2:
        # as scikit-learn: undefined, NaN with a warning (a resample or a
        # leave-one-cluster-out jackknife of a test can hold a single item)
        warn_undefined(f"{name} is not well-defined with fewer than two samples; "
                       "the score is NaN (as scikit-learn).", hint=False)
        return math.nan
    w = check_sample_weight(sample_weight, y.shape[0])
    if w is not None:
        return _sklearn_weighted(name, y, p, w)
    num = np.abs(y - p).sum()
    den = np.abs(y - np.median(y)).sum()
    return float(_fraction_explained(num, den, True))
