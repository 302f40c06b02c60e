"""Soft accuracy and soft precision, recall and F1: the overlap of P and Q.

Notation of :mod:`sigtest.metrics._soft` (``P`` the true judgement
distributions, ``Q`` the prediction):

* soft accuracy: rows ``[sum_k min(P_ik, Q_ik), 1]``; aggregate ``s0 / s1``;
* soft precision / recall / F1: per class ``min(P, Q)``, ``P``, ``Q`` (3K
  columns); aggregate: per-class ratios, micro or macro averaged.

The input check (``_pair``), the weighted scoring (``_score``) and the mean
ratio are shared with the other soft-label metrics in :mod:`._soft`.
"""

from __future__ import annotations

from numbers import Real

import numpy as np

from sigtest.utils._param_validation import lazy, validate_params
from sigtest.metrics._common import divide, fill_doc, nan_mean, warn_undefined
from sigtest.metrics._soft import _ARRAY, _mean_ratio, _pair, _score

__all__ = ["soft_accuracy_score", "soft_f1_score", "soft_precision_score", "soft_recall_score"]

_ZERO_DIVISION = [lazy.StrOptions({"warn"}), lazy.Options(Real, {0.0, 1.0}), "nan"]


def _divide(num, den, zero_division, what):
    """``num / den`` with the rule of :func:`._common.divide`; warns for "warn"."""
    out, undefined = divide(num, den, zero_division)
    if isinstance(zero_division, str) and np.any(undefined):
        warn_undefined(
            f"{what} is ill-defined and being set to 0.0 where there is no "
            f"{_DENOMINATOR_NAMES[what]}."
        )
    return out


_DENOMINATOR_NAMES = {
    "Soft precision": "predicted mass (sum_i Q_ik = 0)",
    "Soft recall": "true mass (sum_i P_ik = 0)",
    "Soft F-score": "true nor predicted mass (sum_i P_ik + Q_ik = 0)",
}


# --------------------------------------------------------------------------- #
# statistics / aggregate pairs (registry contract)
# --------------------------------------------------------------------------- #
def _soft_accuracy_statistics(y_true, y_pred, **params):
    """Rows ``[sum_k min(P_ik, Q_ik), 1]``."""
    P, Q = _pair(y_true, y_pred, False, params)
    out = np.empty((P.shape[0], 2))
    out[:, 0] = np.minimum(P, Q).sum(axis=1)
    out[:, 1] = 1.0
    return out


def _soft_accuracy_aggregate(sums, **params):
    """Soft accuracy ``sum_i sum_k min / N``."""
    return _mean_ratio(sums)


def _soft_prf_statistics(y_true, y_pred, *, multilabel=False, average=None, **params):
    """Rows ``[min(P_i., Q_i.), P_i., Q_i.]`` (3K columns, class order kept).

    With ``average="micro"`` (which needs only the totals over items and
    classes) each of the three blocks is summed over the classes: 3 columns
    whatever ``K``, so a resample costs what the items cost.
    """
    P, Q = _pair(y_true, y_pred, multilabel, params)
    if average == "micro":
        return np.stack([np.minimum(P, Q).sum(axis=1), P.sum(axis=1), Q.sum(axis=1)], axis=1)
    K = P.shape[1]
    out = np.empty((P.shape[0], 3 * K))  # filled in place: no (N, K) temporaries
    np.minimum(P, Q, out=out[:, :K])
    out[:, K : 2 * K] = P
    out[:, 2 * K :] = Q
    return out


def _soft_prf_aggregate(sums, *, kind="f1", average="macro", zero_division="warn", **params):
    """Soft precision / recall / F1 from per-class sums of min, P and Q."""
    sums = np.asarray(sums, dtype=np.float64)
    K = sums.shape[-1] // 3
    m, sp, sq = sums[..., :K], sums[..., K : 2 * K], sums[..., 2 * K :]
    if average == "micro":
        m, sp, sq = (a.sum(axis=-1, keepdims=True) for a in (m, sp, sq))
    if kind == "precision":
        vals = _divide(m, sq, zero_division, "Soft precision")
    elif kind == "recall":
        vals = _divide(m, sp, zero_division, "Soft recall")
    elif kind == "f1":
        vals = _divide(2.0 * m, sp + sq, zero_division, "Soft F-score")
    else:
        raise ValueError(
            f"The 'kind' parameter must be 'precision', 'recall' or 'f1'. Got {kind!r}."
        )
    if average == "micro":
        return vals[..., 0]
    if average == "macro":
        # as scikit-learn: classes set to nan (zero_division=np.nan) are left out
        return nan_mean(vals)
    if average is None:
        return vals
    raise ValueError(f"The 'average' parameter must be 'micro', 'macro' or None. Got {average!r}.")


def _soft_precision_aggregate(sums, *, average="macro", zero_division="warn", **params):
    """Soft precision per class ``Smin_k / SQ_k`` (micro: sums over k), averaged."""
    return _soft_prf_aggregate(sums, kind="precision", average=average, zero_division=zero_division)


def _soft_recall_aggregate(sums, *, average="macro", zero_division="warn", **params):
    """Soft recall per class ``Smin_k / SP_k`` (micro: sums over k), averaged."""
    return _soft_prf_aggregate(sums, kind="recall", average=average, zero_division=zero_division)


def _soft_f1_aggregate(sums, *, average="macro", zero_division="warn", **params):
    """Soft F1 per class ``2 Smin_k / (SP_k + SQ_k)`` (micro: sums over k), averaged."""
    return _soft_prf_aggregate(sums, kind="f1", average=average, zero_division=zero_division)


# --------------------------------------------------------------------------- #
# public functions
# --------------------------------------------------------------------------- #
@validate_params(
    {"y_true": _ARRAY, "y_proba": _ARRAY, "sample_weight": ["array-like", None]},
    prefer_skip_nested_validation=True,
)
def soft_accuracy_score(y_true, y_proba, *, sample_weight=None):
    """Soft accuracy: the share of the judgement mass that is predicted.

    .. math:: \\mathrm{SoftAcc}(P, Q) = \\frac{1}{N}\\sum_{i}\\sum_{k} \\min(P_{ik}, Q_{ik})

    (Kurniawan et al., 2025, sec. 3.1, metric 3). Range [0, 1], higher is
    better; 1 iff ``P == Q``, 0 iff ``P_ik Q_ik = 0`` everywhere. Symmetric in
    ``P`` and ``Q``. On one-hot rows it equals (hard) accuracy, and it equals
    :func:`soft_f1_score` with ``average="micro"`` when rows sum to 1. It never
    exceeds :func:`po_jsd_score`, per instance (Theorem 3.1).

    Parameters
    ----------
    y_true : array-like of shape (n_samples, n_classes)
        True judgement distributions ``P``; rows sum to 1 (within 1e-6 used as given; within
        1e-3, e.g. printed with four decimals, renormalised with a warning).
    y_proba : array-like of shape (n_samples, n_classes)
        Predicted distributions ``Q``, columns in the same class order.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights; the score is ``sum_i w_i m_i / sum_i w_i``.

    Returns
    -------
    score : float
        In [0, 1]; higher is better.

    See Also
    --------
    po_jsd_score : Never below soft accuracy, per instance.
    soft_f1_score : Equals soft accuracy with ``average="micro"``.

    References
    ----------
    .. [1] Kurniawan, Mistica, Baldwin, Lau (2025). Training and Evaluating with
       Human Label Variation. Sec. 3.1.

    Examples
    --------
    >>> from sigtest.metrics import soft_accuracy_score
    >>> P = [[0.5, 0.5], [1.0, 0.0]]
    >>> Q = [[0.2, 0.8], [0.6, 0.4]]
    >>> round(soft_accuracy_score(P, Q), 6)   # (0.7 + 0.6) / 2
    0.65
    """
    return float(
        _score(_soft_accuracy_statistics, _soft_accuracy_aggregate, y_true, y_proba, sample_weight)
    )


_PRF_CONSTRAINTS = {
    "y_true": _ARRAY,
    "y_proba": _ARRAY,
    "average": [lazy.StrOptions({"micro", "macro"}), None],
    "multilabel": ["boolean"],
    "sample_weight": ["array-like", None],
    "zero_division": _ZERO_DIVISION,
}


_PRF_DOC = """
    Parameters
    ----------
    y_true : array-like of shape (n_samples, n_classes)
        True judgement ``P``: distributions (rows sum to 1 within 1e-6; within 1e-3
        renormalised with a warning) or,
        with ``multilabel=True``, label memberships in [0, 1].
    y_proba : array-like of shape (n_samples, n_classes)
        Prediction ``Q``, columns in the same class order as ``y_true``.
    average : {"micro", "macro"} or None, default="macro"
        ``"micro"`` sums the numerator and denominator over samples *and*
        classes; ``"macro"`` is the unweighted mean of the per-class scores
        over all ``n_classes`` columns; ``None`` returns the per-class scores.
    multilabel : bool, default=False
        Accept rows that do not sum to 1 (entries in [0, 1]).
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights multiplying each row's contributions.
    zero_division : {"warn", 0.0, 1.0, np.nan}, default="warn"
        Value for a class (or the micro total) whose denominator is 0. "warn"
        gives 0.0 and an :class:`~sklearn.exceptions.UndefinedMetricWarning`.
        With ``np.nan`` such classes are left out of the macro mean (as in
        scikit-learn); nan if every class is undefined.

    Returns
    -------
    score : float or ndarray of shape (n_classes,)
        In [0, 1]; higher is better. An array when ``average=None``.
"""


def _prf(kind, y_true, y_proba, average, multilabel, sample_weight, zero_division):
    out = _score(
        _soft_prf_statistics,
        _soft_prf_aggregate,
        y_true,
        y_proba,
        sample_weight,
        kind=kind,
        average=average,
        multilabel=multilabel,
        zero_division=zero_division,
    )
    return out if average is None else float(out)


@validate_params(_PRF_CONSTRAINTS, prefer_skip_nested_validation=True)
@fill_doc(prf_doc=_PRF_DOC)
def soft_precision_score(
    y_true, y_proba, *, average="macro", multilabel=False, sample_weight=None, zero_division="warn"
):
    """Soft (fuzzy-set) precision.

    .. math:: \\mathrm{SoftPrec}_k = \\frac{\\sum_i \\min(P_{ik}, Q_{ik})}{\\sum_i Q_{ik}}

    (Kurniawan et al., 2025, appendix eq. 1; Harju and Mesaros, 2023). Micro:
    sums over ``i`` and ``k``. Range [0, 1], higher is better. On one-hot rows
    it equals scikit-learn's ``precision_score`` with ``labels=range(K)``.

    {prf_doc}

    Examples
    --------
    >>> from sigtest.metrics import soft_precision_score
    >>> P = [[1.0, 0.0], [0.5, 0.5]]
    >>> Q = [[0.8, 0.2], [0.5, 0.5]]
    >>> soft_precision_score(P, Q, average=None).round(4)   # [1.3/1.3, 0.5/0.7]
    array([1.    , 0.7143])
    """
    return _prf("precision", y_true, y_proba, average, multilabel, sample_weight, zero_division)


@validate_params(_PRF_CONSTRAINTS, prefer_skip_nested_validation=True)
@fill_doc(prf_doc=_PRF_DOC)
def soft_recall_score(
    y_true, y_proba, *, average="macro", multilabel=False, sample_weight=None, zero_division="warn"
):
    """Soft (fuzzy-set) recall.

    .. math:: \\mathrm{SoftRec}_k = \\frac{\\sum_i \\min(P_{ik}, Q_{ik})}{\\sum_i P_{ik}}

    (Kurniawan et al., 2025, appendix eq. 2). Micro: sums over ``i`` and ``k``.
    Range [0, 1], higher is better. On one-hot rows it equals scikit-learn's
    ``recall_score`` with ``labels=range(K)``.

    {prf_doc}

    Examples
    --------
    >>> from sigtest.metrics import soft_recall_score
    >>> P = [[1.0, 0.0], [0.5, 0.5]]
    >>> Q = [[0.8, 0.2], [0.5, 0.5]]
    >>> soft_recall_score(P, Q, average=None).round(4)   # [1.3/1.5, 0.5/0.5]
    array([0.8667, 1.    ])
    """
    return _prf("recall", y_true, y_proba, average, multilabel, sample_weight, zero_division)


@validate_params(_PRF_CONSTRAINTS, prefer_skip_nested_validation=True)
@fill_doc(prf_doc=_PRF_DOC)
def soft_f1_score(
    y_true, y_proba, *, average="macro", multilabel=False, sample_weight=None, zero_division="warn"
):
    """Soft (fuzzy-set) F1 score.

    .. math:: \\mathrm{SoftF1}_k = \\frac{2 \\sum_i \\min(P_{ik}, Q_{ik})}{\\sum_i (P_{ik} + Q_{ik})},
       \\qquad
       \\mathrm{SoftF1}_{micro} = \\frac{2 \\sum_{ik} \\min(P_{ik}, Q_{ik})}{\\sum_{ik} (P_{ik} + Q_{ik})}

    (Kurniawan et al., 2025, sec. 3.1 metric 4, sec. 3.2, appendix eq. 3).
    Macro is the mean of ``SoftF1_k`` over classes. Range [0, 1], higher is
    better, symmetric in ``P`` and ``Q``. Soft micro F1 equals
    :func:`soft_accuracy_score` when rows sum to 1, and hard micro F1 on 0/1
    input; per class it equals scikit-learn's ``f1_score`` on one-hot rows.

    {prf_doc}

    Examples
    --------
    >>> from sigtest.metrics import soft_f1_score
    >>> P = [[1.0, 0.0], [0.5, 0.5]]
    >>> Q = [[0.8, 0.2], [0.5, 0.5]]
    >>> round(soft_f1_score(P, Q, average="micro"), 6)    # 2 * 1.8 / 4
    0.9
    >>> soft_f1_score(P, Q, average=None).round(4)        # [2.6/2.8, 1.0/1.2]
    array([0.9286, 0.8333])
    """
    return _prf("f1", y_true, y_proba, average, multilabel, sample_weight, zero_division)
