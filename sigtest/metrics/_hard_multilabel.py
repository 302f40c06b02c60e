"""Hard-label multilabel F1: ``y_true`` and ``y_pred`` are indicator matrices.

Every entry is thresholded at 0.5 (``J = 1[x > 0.5]``); the per-instance
sufficient statistics are ``[TP, FP, FN]`` summed over the labels (micro)
or ``[TP_1..TP_K, FP_1..FP_K, FN_1..FN_K]`` (macro), and the aggregate is
the micro or macro F1 of the summed counts (see
:mod:`sigtest.metrics._registry`). The sums check and the ``zero_division``
constraint are shared with the single-label metrics of
:mod:`sigtest.metrics._hard`.
"""

from __future__ import annotations

import numpy as np

from sigtest.utils._param_validation import lazy, validate_params
from sigtest.metrics._check_labels import check_multilabel_indicator, check_sample_weight
from sigtest.metrics._common import check_zero_division, divide, nan_mean, warn_undefined
from sigtest.metrics._hard import _ZERO_DIVISION, _as_sums
from sigtest.metrics._registry import weighted_column_sums

__all__ = ["multilabel_f1_score"]


def _check_multilabel_pair(y_true, y_pred):
    y_true = check_multilabel_indicator(y_true, "y_true")
    y_pred = check_multilabel_indicator(y_pred, "y_pred")
    if y_true.shape != y_pred.shape:
        raise ValueError(
            f"The 'y_true' and 'y_pred' parameters must have the same shape. Got "
            f"{y_true.shape} and {y_pred.shape}."
        )
    return y_true, y_pred


def _multilabel_f1_statistics(y_true, y_pred, *, average=None, **params):
    """Per-instance counts of J = 1[x > 0.5], per label or summed over labels.

    ``average="micro"`` needs only the totals ``sum_ik TP_ik``,
    ``sum_ik FP_ik``, ``sum_ik FN_ik``, so its rows are the three
    per-instance sums over the labels ``[TP, FP, FN]`` (3 columns whatever
    ``K``: a resample costs what the items cost, not ``K`` times more). Any
    other ``average`` (``"macro"``, ``None``) gets them per label,
    ``[TP_1..TP_K, FP_1..FP_K, FN_1..FN_K]``, which every average of
    :func:`_multilabel_f1_aggregate` can use.
    """
    y_true, y_pred = _check_multilabel_pair(y_true, y_pred)
    jt = y_true > 0.5
    jp = y_pred > 0.5
    counts = (jt & jp, ~jt & jp, jt & ~jp)
    if average == "micro":
        return np.stack([c.sum(axis=1) for c in counts], axis=1).astype(np.float64)
    return np.concatenate(counts, axis=1).astype(np.float64)


def _multilabel_class_of_columns(n_columns):
    """Label index of every column of :func:`_multilabel_f1_statistics` (``TP_k, FP_k, FN_k``)."""
    return np.tile(np.arange(int(n_columns) // 3), 3)


_multilabel_f1_statistics.class_of_columns = _multilabel_class_of_columns


def _multilabel_f1_aggregate(
    sums, *, average="micro", zero_division="warn", **params
):
    """Multilabel F1 from summed ``[TP, FP, FN]`` per label.

    ``micro``: ``2 sum TP / (2 sum TP + sum FP + sum FN)`` (also from the three
    label-summed columns of the micro statistics); ``macro``: mean over
    labels of ``2 TP_k / (2 TP_k + FP_k + FN_k)``; ``None``: per-label values.
    """
    sums = _as_sums(sums)
    s = sums.shape[-1]
    if s < 3 or s % 3:
        raise ValueError(f"The 'sums' parameter must have 3*n_labels columns. Got {s}.")
    if average not in ("micro", "macro", None):
        raise ValueError(
            f"The 'average' parameter must be 'micro', 'macro' or None. Got {average!r}."
        )
    check_zero_division(zero_division)
    k = s // 3
    tp, fp, fn = sums[..., :k], sums[..., k : 2 * k], sums[..., 2 * k :]
    if average == "micro":
        tp, fp, fn = (x.sum(axis=-1, keepdims=True) for x in (tp, fp, fn))
    values, undefined = divide(2.0 * tp, 2.0 * tp + fp + fn, zero_division)
    if isinstance(zero_division, str) and np.any(undefined):
        where = "due to" if undefined.shape[-1] == 1 else "in labels with"
        warn_undefined(
            f"F-score is ill-defined and being set to 0.0 {where} no true nor predicted samples."
        )
    if average is None:
        return values
    return nan_mean(values)


@validate_params(
    {
        "y_true": ["array-like"],
        "y_pred": ["array-like"],
        "average": [lazy.StrOptions({"micro", "macro"}), None],
        "sample_weight": ["array-like", None],
        "zero_division": _ZERO_DIVISION,
    },
    prefer_skip_nested_validation=True,
)
def multilabel_f1_score(
    y_true, y_pred, *, average="micro", sample_weight=None, zero_division="warn"
):
    """F1 of multilabel predictions thresholded at 0.5 (strictly).

    Both the true ``P`` and the predicted ``Q`` (values in [0, 1], e.g. label
    proportions and probabilities) are binarised by
    :math:`J^P_{ik} = \\mathbb{1}[P_{ik} > 0.5]`, :math:`J^Q_{ik} = \\mathbb{1}[Q_{ik} > 0.5]`
    (0.5 itself is negative). Then

    .. math:: F1_{\\mathrm{micro}} = \\frac{2\\sum_{ik} J^P_{ik} J^Q_{ik}}
              {\\sum_{ik} (J^P_{ik} + J^Q_{ik})},\\qquad
              F1_{\\mathrm{macro}} = \\frac{1}{K}\\sum_k
              \\frac{2\\sum_i J^P_{ik} J^Q_{ik}}{\\sum_i (J^P_{ik} + J^Q_{ik})}

    Parameters
    ----------
    y_true : array-like of shape (n_samples, n_labels)
        True label memberships ``P`` in [0, 1].
    y_pred : array-like of shape (n_samples, n_labels)
        Predicted memberships ``Q`` in [0, 1] (a 0/1 ``predict`` output works).
    average : {"micro", "macro"} or None, default="micro"
        ``None`` returns the per-label F1 scores.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights with a positive sum.
    zero_division : {"warn", 0.0, 1.0, np.nan}, default="warn"
        Value of 0/0 (a label neither true nor predicted anywhere); ``"warn"``
        uses 0.0 and emits one ``UndefinedMetricWarning``. NaN values are left
        out of the macro average.

    Returns
    -------
    score : float or ndarray of shape (n_labels,)
        In [0, 1]; higher is better.

    Warns
    -----
    UndefinedMetricWarning
        Once per call, when a value is 0/0 and ``zero_division="warn"``.

    Notes
    -----
    Sufficient statistics per instance (not cellwise): ``[TP, FP, FN]``
    summed over the labels for the micro average (three columns, so the
    cost of a resample does not grow with ``K``), ``[TP_1..TP_K,
    FP_1..FP_K, FN_1..FN_K]`` for the macro average. Registry names
    ``multilabel_f1_micro``, ``multilabel_f1_macro``.

    References
    ----------
    .. [1] Kurniawan, Mistica, Baldwin and Lau (2025). Training and Evaluating
       with Human Label Variation, sec. 3.2.

    Examples
    --------
    >>> from sigtest.metrics import multilabel_f1_score
    >>> P = [[1.0, 0.6, 0.0], [0.2, 0.5, 0.9]]
    >>> Q = [[0.7, 0.4, 0.1], [0.0, 0.8, 0.6]]
    >>> multilabel_f1_score(P, Q)  # J^P = [[1,1,0],[0,0,1]], J^Q = [[1,0,0],[0,1,1]]
    0.6666666666666666
    """
    check_zero_division(zero_division)
    stats = _multilabel_f1_statistics(y_true, y_pred, average=average)
    w = check_sample_weight(sample_weight, stats.shape[0])
    value = _multilabel_f1_aggregate(
        weighted_column_sums(stats, w),
        average=average,
        zero_division=zero_division,
    )
    return value if average is None else float(value)
