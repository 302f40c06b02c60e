"""Confusion-matrix metrics of scikit-learn: balanced accuracy, MCC, Cohen's kappa,
Jaccard, the class likelihood ratios, and the multilabel ``samples`` averages.

Every metric equals the scikit-learn function of the same name (the
registry names are scikit-learn's scorer strings) and is defined, like the
other built-ins, by additive per-instance statistics and a vectorised
aggregate (:mod:`sigtest.metrics._registry`).

**No K x K confusion matrix.** Each single-label metric here is a function
of the diagonal ``TP_k``, the predicted counts ``pred_k``, the true counts
``true_k`` and at most one more per-item column, so the statistics have
``O(K)`` columns (the ``3 K + 1`` of precision/recall/F1, see
:func:`._hard.prf_rows`) instead of the ``K**2`` cells of the matrix:

=============================  ============================================  ========
registry name                  statistics (per item, classes of ``labels``)  columns
=============================  ============================================  ========
``balanced_accuracy``          ``TP_k, pred_k, true_k, 1``                   3K + 1
``matthews_corrcoef``          ``TP_k, pred_k, true_k, 1``                   3K + 1
``cohen_kappa``                ``TP_k, pred_k, true_k, 1, w(t, p)``          3K + 2
``jaccard``, ``jaccard_*``     ``TP_k, pred_k, true_k, 1`` (P/R/F1's)        3K + 1
``*_likelihood_ratio``         ``tp, fp, fn, tn`` of the positive class      4
``*_samples`` (multilabel)     ``v_i, 1[v_i undefined], 1``                  3
=============================  ============================================  ========

All single-label ones are *cellwise* (a row depends only on the pair (true,
predicted)): the engine compresses ``N`` items into the occupied cells
``(true, A, B)`` and resamples cells, so the cost after one encoding pass is
flat in ``N``; many-class cell rows are stored sparsely (at most four
nonzeros a row). The ``samples`` averages are means of per-item values
(``decomposable``): three columns whatever the number of labels.

An item whose true or predicted label is not in a user-given ``labels`` is
left out of balanced accuracy, MCC, kappa and the likelihood ratios, as
:func:`sklearn.metrics.confusion_matrix` (``labels=``) leaves it out; for
Jaccard it counts for no class, as in :func:`sklearn.metrics.jaccard_score`.
The significance tests fix ``labels`` to the union over the gold and both
systems, so no item is left out there.

``zero_division="warn"`` (the default, as for every hard metric) makes an
aggregate warn about an undefined value; the engine passes
``zero_division=0.0`` on resamples, which silences the warning. For the
metrics without scikit-learn's ``zero_division`` (balanced accuracy, kappa,
the likelihood ratios) it only switches the warning: their undefined values
follow ``replace_undefined_by`` or scikit-learn's fixed rule.
"""

from __future__ import annotations

from numbers import Real

import numpy as np

from sigtest.utils._param_validation import validate_params
from sigtest.metrics._common import check_zero_division, divide, fill_doc, warn_undefined
from sigtest.metrics._hard import (
    _PRF_CONSTRAINTS,
    _PRF_PARAMS_DOC,
    _as_sums,
    _prf_aggregate,
    _prf_class_of_columns,
    _prf_score,
    _resolve_prf_labels,
    prf_rows,
    prf_sparse_rows,
)
from sigtest.metrics._hard_multilabel import _check_multilabel_pair

__all__ = ["jaccard_score"]

_KAPPA_WEIGHTS = (None, "linear", "quadratic")


# --------------------------------------------------------------------------- statistics
def _confusion_codes(y_true, y_pred, labels, pos_label=None):
    """Class codes of both sides, ``-1`` on both for an item not fully in ``labels``."""
    t, p, labels = _resolve_prf_labels(y_true, y_pred, labels, pos_label)
    out = (t < 0) | (p < 0)
    if out.any():  # confusion_matrix(labels=) drops the item
        t = np.where(out, -1, t)
        p = np.where(out, -1, p)
    return t, p, labels


def _confusion_statistics(y_true, y_pred, *, labels=None, **params):
    """Per-item ``[TP_1..TP_K, pred_1..pred_K, true_1..true_K, 1]`` (one-hot).

    The layout of :func:`._hard._prf_statistics`, except that an item whose
    true or predicted label is not in ``labels`` has no class on either side
    (``confusion_matrix(labels=)``). Cellwise.
    """
    t, p, labels = _confusion_codes(y_true, y_pred, labels)
    return prf_rows(t, p, labels.shape[0])


def _confusion_sparse_statistics(y_true, y_pred, *, labels=None, **params):
    """:func:`_confusion_statistics` in the engine's sparse row form."""
    t, p, labels = _confusion_codes(y_true, y_pred, labels)
    return prf_sparse_rows(t, p, labels.shape[0])


_confusion_statistics.sparse = _confusion_sparse_statistics
_confusion_statistics.class_of_columns = _prf_class_of_columns


def _confusion_parts(sums, extra=0):
    """``(TP, pred, true)`` blocks of summed :func:`_confusion_statistics` (+ ``extra`` columns)."""
    sums = _as_sums(sums)
    s = sums.shape[-1] - extra
    if s < 4 or (s - 1) % 3:
        raise ValueError(
            f"The 'sums' parameter must have 3*n_classes + {1 + extra} columns. Got "
            f"{sums.shape[-1]} columns."
        )
    k = (s - 1) // 3
    return sums, sums[..., :k], sums[..., k : 2 * k], sums[..., 2 * k : 3 * k]


def _check_weights(weights):
    if not (weights is None or isinstance(weights, str) and weights in _KAPPA_WEIGHTS):
        raise ValueError(
            f"The 'weights' parameter must be None, 'linear' or 'quadratic'. Got {weights!r}."
        )
    return weights


def _kappa_statistics(y_true, y_pred, *, labels=None, weights=None, **params):
    """Per-item :func:`_confusion_statistics` plus the disagreement weight ``w(t, p)``.

    With class positions ``i, j`` in ``labels``: ``w = 1[i != j]`` (``weights=None``),
    ``|i - j|`` (``"linear"``) or ``(i - j)**2`` (``"quadratic"``); 0 for an item
    left out. Cellwise.
    """
    _check_weights(weights)
    t, p, labels = _confusion_codes(y_true, y_pred, labels)
    stats = np.empty((t.shape[0], 3 * labels.shape[0] + 2), dtype=np.float64)
    stats[:, :-1] = prf_rows(t, p, labels.shape[0])
    diff = np.abs(t.astype(np.float64) - p)  # 0 where left out (both -1)
    stats[:, -1] = (diff > 0) if weights is None else diff if weights == "linear" else diff**2
    return stats


# --------------------------------------------------------------------------- aggregates
def _balanced_accuracy_aggregate(sums, *, adjusted=False, zero_division="warn", **params):
    """Balanced accuracy: mean recall ``TP_k / true_k`` over the classes with ``true_k > 0``.

    ``adjusted=True``: ``(BA - 1/K') / (1 - 1/K')`` with ``K'`` those classes
    (scikit-learn). NaN when ``K' = 0`` (no item) or, adjusted, ``K' = 1``.
    """
    if not isinstance(adjusted, (bool, np.bool_)):
        raise TypeError(f"The 'adjusted' parameter must be a bool. Got {adjusted!r}.")
    check_zero_division(zero_division)
    sums, tp, pred, true = _confusion_parts(sums)
    present = true > 0
    n_present = present.sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        recall = np.where(present, tp / np.where(present, true, 1.0), 0.0)
        score = recall.sum(axis=-1) / n_present
        if adjusted:
            chance = 1.0 / n_present
            score = (score - chance) / (1.0 - chance)
    undefined = n_present < (2 if adjusted else 1)
    warn = isinstance(zero_division, str)
    if warn and np.any(~present & (pred > 0)):
        warn_undefined("y_pred contains classes not in y_true: balanced accuracy averages "
                       "the recall over the classes present in y_true.", hint=False)
    if warn and np.any(undefined):
        warn_undefined("Balanced accuracy is undefined (nan) with no class (adjusted: fewer "
                       "than two classes) present in y_true.", hint=False)
    return np.where(undefined, np.nan, score)


def _mcc_aggregate(sums, **params):
    """Matthews correlation from the confusion totals (Gorodkin 2004), 0 when undefined.

    ``(c n - sum_k t_k p_k) / sqrt((n^2 - sum_k p_k^2)(n^2 - sum_k t_k^2))`` with
    ``c = sum_k TP_k``, ``n = sum_k t_k``; 0.0 where every true or every
    predicted label is one class (scikit-learn returns 0.0 there, silently).
    """
    sums, tp, pred, true = _confusion_parts(sums)
    n = true.sum(axis=-1)
    cov_tp = tp.sum(axis=-1) * n - (true * pred).sum(axis=-1)
    cov_pp = n * n - (pred * pred).sum(axis=-1)
    cov_tt = n * n - (true * true).sum(axis=-1)
    # zero exactly when one class holds all the mass (tested structurally, not by rounding)
    undefined = ((pred > 0).sum(axis=-1) <= 1) | ((true > 0).sum(axis=-1) <= 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        value = cov_tp / np.sqrt(np.where(undefined, 1.0, cov_pp * cov_tt))
    return np.where(undefined, 0.0, value)


def _check_kappa_replace(value):
    if isinstance(value, Real) and not isinstance(value, bool):
        value = float(value)
        if np.isnan(value) or -1.0 <= value <= 1.0:
            return value
    raise ValueError(
        "The 'replace_undefined_by' parameter of cohen_kappa must be np.nan or a float in "
        f"[-1, 1]. Got {value!r}."
    )


def _kappa_aggregate(sums, *, weights=None, replace_undefined_by=np.nan,
                     zero_division="warn", **params):
    """Cohen's kappa ``1 - sum w_ij C_ij / sum w_ij E_ij`` with ``E = outer(pred, true) / n``.

    The numerator is the summed ``w(t, p)`` column; the expected disagreement
    is computed from the marginals in ``O(K)``: ``(n^2 - sum_k p_k t_k) / n``
    (unweighted), with prefix sums for ``|i - j|``, and with the first two
    moments of the class positions for ``(i - j)^2``. Undefined (no item, or
    every item's true and predicted label the same single class):
    ``replace_undefined_by`` (scikit-learn's default NaN) and a warning.
    """
    _check_weights(weights)
    fill = _check_kappa_replace(replace_undefined_by)
    check_zero_division(zero_division)
    sums, _, pred, true = _confusion_parts(sums, extra=1)
    disagree = sums[..., -1]
    n = true.sum(axis=-1)
    pos = np.arange(pred.shape[-1], dtype=np.float64)
    if weights is None:
        expected_n = n * n - (pred * true).sum(axis=-1)
    elif weights == "quadratic":  # sum_ij (i - j)^2 p_i t_j
        m1p, m1t = pred @ pos, true @ pos
        expected_n = n * (pred @ pos**2) - 2.0 * m1p * m1t + n * (true @ pos**2)
    else:  # sum_i p_i sum_j |i - j| t_j, by prefix sums of t and i t
        ct, cit = np.cumsum(true, axis=-1), np.cumsum(true * pos, axis=-1)
        below = pos * ct - cit
        above = (cit[..., -1:] - cit) - pos * (ct[..., -1:] - ct)
        expected_n = (pred * (below + above)).sum(axis=-1)
    # sum w E = 0 exactly when the marginals share one class, or there is no item
    undefined = ((pred + true) > 0).sum(axis=-1) <= 1
    if isinstance(zero_division, str) and np.any(undefined):
        warn_undefined(
            "Cohen's kappa is undefined when no item is left or the true and predicted "
            f"labels are all one class; set to replace_undefined_by={fill}.", hint=False)
    with np.errstate(divide="ignore", invalid="ignore"):
        value = 1.0 - disagree * n / np.where(undefined, 1.0, expected_n)
    return np.where(undefined, fill, value)


def _jaccard_aggregate(sums, **params):
    """Jaccard from summed P/R/F1 statistics: ``TP_k / (pred_k + true_k - TP_k)``, averaged."""
    return _prf_aggregate("jaccard", sums, **params)


# --------------------------------------------------------------------------- likelihood ratios
def _lr_statistics(y_true, y_pred, *, labels=None, pos_label=None, **params):
    """Per-item ``[tp, fp, fn, tn]`` of the positive class (one-hot). Cellwise.

    ``pos_label=None``: binary data, the second class of ``labels`` is positive
    (scikit-learn's ``labels=[negative, positive]``). ``pos_label=c``: class
    ``c`` against all the others (one-vs-rest). An item with a label outside
    ``labels`` is left out.
    """
    t, p, labels = _confusion_codes(y_true, y_pred, labels, pos_label)
    if pos_label is None:
        if labels.shape[0] != 2:
            raise ValueError(
                "The likelihood ratios are binary: with pos_label=None the labels (given "
                f"or the union of y_true and y_pred) must be exactly 2 classes [negative, "
                f"positive]. Got {labels.tolist()[:10]}; pass pos_label= to score one "
                "class against the rest."
            )
        pos = 1
    else:
        pos = int(np.flatnonzero(labels == pos_label)[0])
    keep = t >= 0
    true_pos, pred_pos = keep & (t == pos), keep & (p == pos)
    true_neg, pred_neg = keep & (t != pos), keep & (p != pos)
    return np.stack(
        [true_pos & pred_pos, true_neg & pred_pos, true_pos & pred_neg, true_neg & pred_neg],
        axis=1,
    ).astype(np.float64)


def _check_lr_replace(value):
    """``replace_undefined_by`` of the likelihood ratios -> ``(LR+ fill, LR- fill)``."""
    if isinstance(value, dict):
        if set(value) == {"LR+", "LR-"}:
            pos, neg = value["LR+"], value["LR-"]
            ok = all(isinstance(v, Real) and not isinstance(v, bool) for v in (pos, neg))
            if ok and (np.isnan(pos) or pos >= 1.0) and (np.isnan(neg) or 0.0 <= neg <= 1.0):
                return float(pos), float(neg)
    elif isinstance(value, Real) and not isinstance(value, bool):
        if np.isnan(value) or value == 1.0:
            return float(value), float(value)
    raise ValueError(
        "The 'replace_undefined_by' parameter of the likelihood ratios must be np.nan, 1.0 "
        "or a dict {'LR+': value >= 1 (inf allowed) or nan, 'LR-': value in [0, 1] or nan}. "
        f"Got {value!r}."
    )


def _likelihood_ratio(which, sums, replace_undefined_by, zero_division):
    fills = _check_lr_replace(replace_undefined_by)
    check_zero_division(zero_division)
    sums = _as_sums(sums)
    if sums.shape[-1] != 4:
        raise ValueError(
            f"The 'sums' parameter of a likelihood ratio must have 4 columns (tp, fp, fn, "
            f"tn). Got {sums.shape[-1]}."
        )
    tp, fp, fn, tn = (sums[..., j] for j in range(4))
    support_pos, support_neg = tp + fn, tn + fp
    if which == "positive":  # (tp / (tp + fn)) / (fp / (fp + tn))
        num, den, fill = tp * support_neg, fp * support_pos, fills[0]
        replaced = fp == 0
    else:  # (fn / (tp + fn)) / (tn / (tn + fp))
        num, den, fill = fn * support_neg, tn * support_pos, fills[1]
        replaced = tn == 0
    undefined = replaced | (support_pos == 0)
    if isinstance(zero_division, str) and np.any(undefined):
        warn_undefined(
            f"The {which} likelihood ratio is undefined (no "
            f"{'false positive' if which == 'positive' else 'true negative'} or no true "
            "sample of the positive class): set to replace_undefined_by "
            f"({fill} where the {'fp' if which == 'positive' else 'tn'} count is 0, nan "
            "where only the positive class is missing).", hint=False)
    with np.errstate(divide="ignore", invalid="ignore"):
        value = num / np.where(undefined, 1.0, den)
    return np.where(replaced, fill, np.where(undefined, np.nan, value))


def _positive_lr_aggregate(sums, *, replace_undefined_by=1.0, zero_division="warn", **params):
    """``LR+ = tp (tn + fp) / (fp (tp + fn))`` from summed :func:`_lr_statistics`.

    ``fp = 0``: ``replace_undefined_by`` (default 1.0, scikit-learn's scorer);
    otherwise no positive item: NaN.
    """
    return _likelihood_ratio("positive", sums, replace_undefined_by, zero_division)


def _negative_lr_aggregate(sums, *, replace_undefined_by=1.0, zero_division="warn", **params):
    """``LR- = fn (tn + fp) / (tn (tp + fn))`` from summed :func:`_lr_statistics`.

    ``tn = 0``: ``replace_undefined_by`` (default 1.0, scikit-learn's scorer);
    otherwise no positive item: NaN.
    """
    return _likelihood_ratio("negative", sums, replace_undefined_by, zero_division)


# --------------------------------------------------------------------------- samples averages
_SAMPLES_TEXT = {
    "precision": ("Precision", "predicted"),
    "recall": ("Recall", "true"),
    "f1": ("F-score", "true nor predicted"),
    "jaccard": ("Jaccard", "true or predicted"),
}


def _samples_statistics(which, y_true, y_pred):
    """Per-item ``[v_i, u_i, 1]``: the item's value (0 if undefined) and ``1[undefined]``.

    Labels are thresholded like :func:`._hard.multilabel_f1_score`
    (``x > 0.5``); per item ``tp``, ``pred``, ``true`` count its labels, and
    ``v`` = ``tp/pred``, ``tp/true``, ``2 tp/(pred + true)`` or
    ``tp/(pred + true - tp)``.
    """
    y_true, y_pred = _check_multilabel_pair(y_true, y_pred)
    jt, jp = y_true > 0.5, y_pred > 0.5
    tp = (jt & jp).sum(axis=1).astype(np.float64)
    true, pred = jt.sum(axis=1).astype(np.float64), jp.sum(axis=1).astype(np.float64)
    num, den = {
        "precision": (tp, pred),
        "recall": (tp, true),
        "f1": (2.0 * tp, pred + true),
        "jaccard": (tp, pred + true - tp),
    }[which]
    value, undefined = divide(num, den, 0.0)
    return np.stack([value, undefined, np.ones_like(value)], axis=1)


def _samples_aggregate(which, sums, zero_division):
    """Weighted mean of the per-item values; undefined items get ``zero_division``.

    ``np.nan`` leaves them out (scikit-learn's ``_nanaverage``); all undefined
    gives NaN.
    """
    fill = check_zero_division(zero_division)
    sums = _as_sums(sums)
    if sums.shape[-1] != 3:
        raise ValueError(
            f"The 'sums' parameter of a samples average must have 3 columns. Got "
            f"{sums.shape[-1]}."
        )
    total, n_undefined, n = sums[..., 0], sums[..., 1], sums[..., 2]
    if isinstance(zero_division, str) and np.any(n_undefined > 0):
        title, modifier = _SAMPLES_TEXT[which]
        warn_undefined(f"{title} is ill-defined and being set to 0.0 in samples with no "
                       f"{modifier} labels.")
    with np.errstate(divide="ignore", invalid="ignore"):
        if np.isnan(fill):  # the mean over the defined items; nan if there is none
            return total / (n - n_undefined)
        return (total + fill * n_undefined) / n


def _precision_samples_statistics(y_true, y_pred, **params):
    """Per-item precision ``tp_i / pred_i`` (see :func:`_samples_statistics`)."""
    return _samples_statistics("precision", y_true, y_pred)


def _recall_samples_statistics(y_true, y_pred, **params):
    """Per-item recall ``tp_i / true_i`` (see :func:`_samples_statistics`)."""
    return _samples_statistics("recall", y_true, y_pred)


def _f1_samples_statistics(y_true, y_pred, **params):
    """Per-item F1 ``2 tp_i / (pred_i + true_i)`` (see :func:`_samples_statistics`)."""
    return _samples_statistics("f1", y_true, y_pred)


def _jaccard_samples_statistics(y_true, y_pred, **params):
    """Per-item Jaccard ``tp_i / (pred_i + true_i - tp_i)`` (see :func:`_samples_statistics`)."""
    return _samples_statistics("jaccard", y_true, y_pred)


def _precision_samples_aggregate(sums, *, zero_division="warn", **params):
    """Mean per-item precision (see :func:`_samples_aggregate`)."""
    return _samples_aggregate("precision", sums, zero_division)


def _recall_samples_aggregate(sums, *, zero_division="warn", **params):
    """Mean per-item recall (see :func:`_samples_aggregate`)."""
    return _samples_aggregate("recall", sums, zero_division)


def _f1_samples_aggregate(sums, *, zero_division="warn", **params):
    """Mean per-item F1 (see :func:`_samples_aggregate`)."""
    return _samples_aggregate("f1", sums, zero_division)


def _jaccard_samples_aggregate(sums, *, zero_division="warn", **params):
    """Mean per-item Jaccard (see :func:`_samples_aggregate`)."""
    return _samples_aggregate("jaccard", sums, zero_division)


# --------------------------------------------------------------------------- Jaccard score
@validate_params(_PRF_CONSTRAINTS, prefer_skip_nested_validation=True)
@fill_doc(params=_PRF_PARAMS_DOC)
def jaccard_score(
    y_true,
    y_pred,
    *,
    labels=None,
    pos_label=None,
    average="macro",
    sample_weight=None,
    zero_division="warn",
):
    """Jaccard index of each class, averaged: ``TP_k / (pred_k + true_k - TP_k)``.

    .. math:: J_k = \\frac{|T_k \\cap P_k|}{|T_k \\cup P_k|}
              = \\frac{TP_k}{\\mathrm{pred}_k + \\mathrm{true}_k - TP_k}

    The value of :func:`sklearn.metrics.jaccard_score` with the same
    ``labels`` and ``average`` (the class of ``average="binary"`` is given by
    ``pos_label``, which has no default here).

    {params}

    Notes
    -----
    Sufficient statistics: those of precision, recall and F1
    (``[TP_k, pred_k, true_k, 1]``, cellwise). Registry names ``jaccard``
    (``average="binary"``, needs ``pos_label``), ``jaccard_macro``,
    ``jaccard_micro``, ``jaccard_weighted``; ``jaccard_samples`` is the
    multilabel per-item average.

    References
    ----------
    .. [1] Jaccard, P. (1912). The distribution of the flora in the alpine
       zone. New Phytologist 11(2), 37-50.

    Examples
    --------
    >>> from sigtest.metrics._confusion import jaccard_score
    >>> jaccard_score([0, 1, 1, 2], [0, 1, 2, 2])  # (1 + 1/2 + 1/2) / 3
    0.6666666666666666
    >>> jaccard_score([0, 1, 1, 2], [0, 1, 2, 2], pos_label=1, average="binary")
    0.5
    """
    return _prf_score(
        "jaccard", y_true, y_pred, labels, pos_label, average, sample_weight, zero_division
    )

