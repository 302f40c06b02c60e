"""Hard-label metrics: accuracy, precision, recall, F1.

Every metric is defined through additive per-instance sufficient statistics
and a vectorised aggregate (see :mod:`sigtest.metrics._registry`):

========================  =====================================  ===============
metric                    statistics columns (per instance)      cellwise
========================  =====================================  ===============
accuracy                  ``[correct, 1]``                        yes
precision / recall / F1   ``[TP_1..TP_K, pred_1..pred_K,          yes
                          true_1..true_K, 1]`` (one-hot)
========================  =====================================  ===============

The class order of the columns is the order of ``labels``. The public
``*_score`` functions compute exactly ``aggregate(weighted column sums)``.
The multilabel F1 of indicator matrices is in
:mod:`sigtest.metrics._hard_multilabel`.
"""

from __future__ import annotations

from numbers import Real

import numpy as np

from sigtest.utils._names import plain
from sigtest.utils._param_validation import lazy, validate_params
from sigtest.metrics._check_labels import (
    _check_scalar_label,
    check_label_pair,
    check_labels_param,
    check_sample_weight,
    encode_checked_labels,
    encode_labels,
)
from sigtest.metrics._common import check_zero_division, divide, fill_doc, nan_mean, warn_undefined
from sigtest.metrics._registry import weighted_column_sums

__all__ = ["accuracy_score", "f1_score", "precision_score", "recall_score"]

_AVERAGES = ("macro", "micro", "weighted", "binary", None)
_ZERO_DIVISION = [lazy.Options(Real, {0.0, 1.0}), "nan", lazy.StrOptions({"warn"})]


# --------------------------------------------------------------------------- helpers
def _as_sums(sums, name="sums"):
    sums = np.asarray(sums, dtype=np.float64)
    if sums.ndim == 0:
        raise ValueError(f"The '{name}' parameter must have at least one dimension.")
    return sums


# --------------------------------------------------------------------------- accuracy
def _accuracy_statistics(y_true, y_pred, *, labels=None, **params):
    """Per-instance statistics of accuracy: ``[1(y_true == y_pred), 1]``.

    ``labels`` (if given) only validates that every label is listed.
    """
    if labels is None:
        y_true, y_pred, _ = check_label_pair(y_true, y_pred)
        correct = y_true == y_pred
    else:
        t, p, _ = encode_labels(y_true, y_pred, labels, unknown="error")
        correct = t == p
    stats = np.ones((correct.shape[0], 2), dtype=np.float64)
    stats[:, 0] = correct
    return stats


def _accuracy_aggregate(sums, **params):
    """Accuracy from column sums ``[..., (correct, count)]`` -> ``correct / count``.

    A zero total weight gives NaN (it cannot occur for a non-empty resample).
    """
    sums = _as_sums(sums)
    if sums.shape[-1] != 2:
        raise ValueError(
            f"The 'sums' parameter of accuracy must have 2 columns. Got {sums.shape[-1]}."
        )
    count = sums[..., 1]
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(count > 0, sums[..., 0] / np.where(count > 0, count, 1.0), np.nan)


@validate_params(
    {
        "y_true": ["array-like"],
        "y_pred": ["array-like"],
        "labels": ["array-like", None],
        "sample_weight": ["array-like", None],
    },
    prefer_skip_nested_validation=True,
)
def accuracy_score(y_true, y_pred, *, labels=None, sample_weight=None):
    """Accuracy: the (weighted) fraction of correctly predicted labels.

    .. math:: \\mathrm{Acc} = \\frac{\\sum_i w_i\\,\\mathbb{1}[y_i = \\hat y_i]}{\\sum_i w_i}

    Hard accuracy of Kurniawan et al. (2025, sec. 3.1); for one-hot ``P`` and
    ``Q`` it equals their soft accuracy.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_classes)
        True labels (int or str). A 2-D numeric array is reduced by ``argmax``
        over columns (ties -> lowest column index; labels are then the column
        indices ``0..n_classes-1``).
    y_pred : array-like of shape (n_samples,) or (n_samples, n_classes)
        Predicted labels, same conventions.
    labels : array-like of shape (n_classes,), default=None
        Accepted for uniformity with the other hard metrics. The value does not
        depend on it, but every label in ``y_true`` and ``y_pred`` must be
        listed (``ValueError`` otherwise).
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights with a positive sum.

    Returns
    -------
    score : float
        In [0, 1]; higher is better.

    Notes
    -----
    Sufficient statistics ``[1(y_i = yhat_i), 1]`` (cellwise); registry name
    ``"accuracy"``. Unlike :func:`sklearn.metrics.accuracy_score`, a 2-D
    input is never read as a multilabel indicator matrix.

    References
    ----------
    .. [1] Kurniawan, Mistica, Baldwin and Lau (2025). Training and Evaluating
       with Human Label Variation, sec. 3.1.

    Examples
    --------
    >>> from sigtest.metrics import accuracy_score
    >>> accuracy_score(["a", "b", "b", "c"], ["a", "b", "c", "c"])
    0.75
    >>> accuracy_score([0, 1], [[0.9, 0.1], [0.5, 0.5]])  # argmax; tie -> column 0
    0.5
    """
    stats = _accuracy_statistics(y_true, y_pred, labels=labels)
    w = check_sample_weight(sample_weight, stats.shape[0])
    return float(_accuracy_aggregate(weighted_column_sums(stats, w)))


# --------------------------------------------------------------------------- P / R / F1
#: Label sets whose positive class defaults to 1, as in scikit-learn's scorers.
_BINARY_LABEL_SETS = ({0, 1}, {-1, 1})


def default_pos_label(labels):
    """The positive class of a one-class score (``average="binary"``) not given one.

    The one rule of every entry point (the metric functions, their scorers,
    the tests, :func:`sigtest.score` and :func:`sigtest.compare`): when every
    label is in {0, 1} or in {-1, 1}, the positive class is 1 (of the
    labels' type), as scikit-learn's ``pos_label=1``; any other label set
    needs ``pos_label`` (sigtest never picks a class by position).

    Parameters
    ----------
    labels : array-like
        Every label seen (the gold labels, the predictions, ``labels``).

    Returns
    -------
    pos_label : int

    Raises
    ------
    ValueError
        Another label set, naming the 'pos_label' parameter.
    """
    values = np.asarray([] if labels is None else labels)
    if values.dtype.kind in "biuf" and values.size and any(
            set(values.tolist()) <= allowed for allowed in _BINARY_LABEL_SETS):
        return values.dtype.type(1).item()
    seen = "" if labels is None else f" (labels seen: {values[:10].tolist()})"
    raise ValueError(
        "average='binary' scores one class: pass its label with the 'pos_label' parameter. "
        f"It defaults to 1 only for the labels {{0, 1}} or {{-1, 1}}{seen}."
    )


def uses_pos_label(metric):
    """Whether ``metric`` scores one class (``average="binary"``) and so takes ``pos_label``."""
    return metric.kwargs.get("average") == "binary"


def pos_label_params(metric, pos_params, union):
    """The ``pos_label`` keyword of one metric: given, defaulted, or none.

    A one-class metric gets ``pos_label``: the one given (``pos_params``,
    ``{"pos_label": value}`` or ``{}``), its own fixed one, or the default of
    :func:`default_pos_label` over every label seen (``union``: ``y_true``,
    the systems' predictions and ``labels``), the rule of every entry point
    (:func:`sigtest.compare` and the minimum detectable effects of its
    result). Other metrics get nothing.
    """
    if not uses_pos_label(metric):
        return {}
    if pos_params:
        return dict(pos_params)
    if metric.kwargs.get("pos_label") is not None:
        return {}
    try:
        return {"pos_label": default_pos_label(union)}
    except ValueError as exc:
        raise ValueError(f"Metric {metric.name!r}: {exc}") from None


def _resolve_average(average, pos_label):
    """Validate ``average`` with ``pos_label``; return the effective mode."""
    if average not in _AVERAGES:
        raise ValueError(
            f"The 'average' parameter must be one of {_AVERAGES}. Got {average!r} instead."
        )
    if pos_label is None:
        if average == "binary":
            raise ValueError(
                "average='binary' needs the target class: pass it by label with the "
                "'pos_label' parameter (sigtest never picks a class by position)."
            )
        return average
    if average not in ("binary", "macro"):
        raise ValueError(
            f"The 'pos_label' parameter selects one class; it cannot be combined with "
            f"average={average!r}. Use average='binary' (or the default 'macro'), or "
            "pass labels=[...] to average over a subset of classes."
        )
    return "single"


def _resolve_prf_labels(y_true, y_pred, labels, pos_label):
    """Encode labels for P/R/F1; return ``(true_codes, pred_codes, labels)``.

    ``labels=None`` -> union of y_true and y_pred (plus ``pos_label``, which may
    be absent from the data). Given ``labels``: values outside it count for no
    class; ``pos_label`` must be one of them.
    """
    y_true, y_pred, kind = check_label_pair(y_true, y_pred)
    if pos_label is not None:
        _check_scalar_label(pos_label, kind, "pos_label")
    if labels is None:
        parts = [y_true, y_pred]
        if pos_label is not None:
            parts.append(np.asarray([pos_label]))
        labels = np.unique(np.concatenate(parts))
    else:
        labels = check_labels_param(labels, kind)
        if pos_label is not None and not np.any(labels == pos_label):
            raise ValueError(
                f"The 'pos_label' parameter ({plain(pos_label)!r}) is not in 'labels' "
                f"({labels.tolist()[:20]})."
            )
    # validated above: encode without checking y_true, y_pred and labels again
    return encode_checked_labels(y_true, y_pred, labels, unknown="ignore")


def _prf_statistics(y_true, y_pred, *, labels=None, pos_label=None, **params):
    """Per-instance statistics shared by precision, recall and F1.

    Columns: ``TP_k = 1[y=k, yhat=k]`` (K), ``pred_k = 1[yhat=k]`` (K),
    ``true_k = 1[y=k]`` (K), then a count column of ones; classes in the order
    of ``labels`` (default: sorted union of y_true, y_pred and ``pos_label``).
    A row depends only on (y_true, y_pred): the statistics are cellwise.
    """
    t, p, labels = _resolve_prf_labels(y_true, y_pred, labels, pos_label)
    return prf_rows(t, p, labels.shape[0])


def prf_rows(t, p, k):
    """The rows of :func:`_prf_statistics` from class codes (``-1``: no class).

    Shared with the confusion-matrix metrics (:mod:`._confusion`), which
    code an item out of ``labels`` as ``-1`` on both sides.
    """
    n = t.shape[0]
    rows = np.arange(n)
    stats = np.zeros((n, 3 * k + 1), dtype=np.float64)
    hit = (t == p) & (t >= 0)
    stats[rows[hit], t[hit]] = 1.0
    has_p = p >= 0
    stats[rows[has_p], k + p[has_p]] = 1.0
    has_t = t >= 0
    stats[rows[has_t], 2 * k + t[has_t]] = 1.0
    stats[:, 3 * k] = 1.0
    return stats


def _prf_sparse_statistics(y_true, y_pred, *, labels=None, pos_label=None, **params):
    """:func:`_prf_statistics` in compressed sparse row form, without the dense array.

    A row has at most four nonzero entries (``TP_t``, ``pred_p``, ``true_t``
    and the count), all 1.0, in increasing column order. Used by the engine
    for many-class cell rows (``O(n)`` instead of ``O(n K)`` memory).

    Returns
    -------
    indptr : ndarray of shape (n + 1,), int64
    indices : ndarray of shape (nnz,), int64
    data : ndarray of shape (nnz,), float64
    n_cols : int
        ``3 K + 1``.
    """
    t, p, labels = _resolve_prf_labels(y_true, y_pred, labels, pos_label)
    return prf_sparse_rows(t, p, labels.shape[0])


def prf_sparse_rows(t, p, k):
    """:func:`prf_rows` in the sparse form of :func:`_prf_sparse_statistics`."""
    n = t.shape[0]
    t = t.astype(np.int64, copy=False)
    p = p.astype(np.int64, copy=False)
    cols = np.full((n, 4), -1, dtype=np.int64)
    hit = (t == p) & (t >= 0)
    cols[hit, 0] = t[hit]
    cols[:, 1] = np.where(p >= 0, k + p, -1)
    cols[:, 2] = np.where(t >= 0, 2 * k + t, -1)
    cols[:, 3] = 3 * k
    keep = cols >= 0
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(keep.sum(axis=1), out=indptr[1:])
    indices = cols[keep]
    return indptr, indices, np.ones(indices.shape[0]), 3 * k + 1


def _prf_class_of_columns(n_columns):
    """Class index (position in ``labels``) of every column of :func:`_prf_statistics`.

    ``TP_k``, ``pred_k`` and ``true_k`` belong to class ``k``; the count
    column to none (``-1``). The engine counts per class the items whose
    class columns differ between A and B (``class_discordant_counts``).
    """
    k = (int(n_columns) - 1) // 3
    return np.concatenate([np.tile(np.arange(k), 3), [-1]])


_prf_statistics.sparse = _prf_sparse_statistics
_prf_statistics.class_of_columns = _prf_class_of_columns
_precision_statistics = _recall_statistics = _f1_statistics = _prf_statistics


def _prf_sums(t, p, k, w):
    """Weighted column sums of :func:`_prf_statistics` without the (n, 3K+1) array."""
    if w is None:
        w = np.ones(t.shape[0], dtype=np.float64)
    hit = (t == p) & (t >= 0)
    tp = np.bincount(t[hit], weights=w[hit], minlength=k)
    has_p = p >= 0
    pred = np.bincount(p[has_p], weights=w[has_p], minlength=k)
    has_t = t >= 0
    true = np.bincount(t[has_t], weights=w[has_t], minlength=k)
    return np.concatenate([tp, pred, true, [w.sum()]])


_PRF_TEXT = {
    "precision": ("Precision", "predicted"),
    "recall": ("Recall", "true"),
    "f1": ("F-score", "true nor predicted"),
    "fbeta": ("F-score", "true nor predicted"),
    "jaccard": ("Jaccard", "true or predicted"),
}


def _prf_aggregate(
    which,
    sums,
    *,
    labels=None,
    average="macro",
    pos_label=None,
    zero_division="warn",
    beta=1.0,
    **params,
):
    sums = _as_sums(sums)
    s = sums.shape[-1]
    if s < 4 or (s - 1) % 3:
        raise ValueError(
            f"The 'sums' parameter must have 3*n_classes + 1 columns. Got {s} columns."
        )
    k = (s - 1) // 3
    check_zero_division(zero_division)  # fail before any work
    if average == "binary" and pos_label is None and labels is not None:
        pos_label = default_pos_label(labels)
    mode = _resolve_average(average, pos_label)
    tp, pred, true = sums[..., :k], sums[..., k : 2 * k], sums[..., 2 * k : 3 * k]
    if mode == "single":
        if labels is None:
            raise ValueError(
                "The 'labels' parameter is required by the aggregate when 'pos_label' "
                "is given (it locates the class of pos_label)."
            )
        labels = np.asarray(labels)
        if labels.shape != (k,):
            raise ValueError(
                f"The 'labels' parameter has {labels.size} entries but the sums hold "
                f"{k} classes."
            )
        idx = np.flatnonzero(labels == pos_label)
        if idx.size != 1:
            raise ValueError(f"The 'pos_label' parameter ({plain(pos_label)!r}) is not in "
                             "'labels'.")
        sl = slice(int(idx[0]), int(idx[0]) + 1)
        tp, pred, true = tp[..., sl], pred[..., sl], true[..., sl]
    elif labels is not None and np.asarray(labels).shape != (k,):
        raise ValueError(
            f"The 'labels' parameter has {np.asarray(labels).size} entries but the sums "
            f"hold {k} classes."
        )
    support = true
    if mode == "micro":
        tp, pred, true = (x.sum(axis=-1, keepdims=True) for x in (tp, pred, true))
    if which == "precision":
        values, undefined = divide(tp, pred, zero_division)
    elif which == "recall":
        values, undefined = divide(tp, true, zero_division)
    elif which == "jaccard":  # |T and P| / |T or P| (sklearn's jaccard_score)
        values, undefined = divide(tp, pred + true - tp, zero_division)
    elif which == "fbeta":  # (1 + b^2) TP / ((1 + b^2) TP + b^2 FN + FP), as scikit-learn
        b2 = float(beta) ** 2
        values, undefined = divide((1.0 + b2) * tp, b2 * true + pred, zero_division)
    else:
        values, undefined = divide(2.0 * tp, pred + true, zero_division)
    if isinstance(zero_division, str) and np.any(undefined):
        title, modifier = _PRF_TEXT[which]
        where = "due to" if undefined.shape[-1] == 1 else "in labels with"
        warn_undefined(
            f"{title} is ill-defined and being set to 0.0 {where} no {modifier} samples."
        )
    if mode is None:
        return values
    if mode == "weighted":
        return nan_mean(values, support)
    return nan_mean(values)


def _precision_aggregate(sums, **params):
    """Precision from summed :func:`_prf_statistics`: ``TP_k / pred_k``, averaged."""
    return _prf_aggregate("precision", sums, **params)


def _recall_aggregate(sums, **params):
    """Recall from summed :func:`_prf_statistics`: ``TP_k / true_k``, averaged."""
    return _prf_aggregate("recall", sums, **params)


def _f1_aggregate(sums, **params):
    """F1 from summed :func:`_prf_statistics`: ``2 TP_k / (pred_k + true_k)``, averaged."""
    return _prf_aggregate("f1", sums, **params)


def _check_beta(beta):
    if isinstance(beta, bool) or not isinstance(beta, Real) or not 0 <= beta < np.inf:
        raise ValueError(f"The 'beta' parameter must be a finite number >= 0. Got {beta!r} "
                         "instead.")


def _fbeta_aggregate(sums, *, beta=1.0, **params):
    """F-beta from summed :func:`_prf_statistics`: ``(1 + b^2) TP_k / (b^2 true_k + pred_k)``.

    The denominator is scikit-learn's ``(1 + b^2) TP + b^2 FN + FP``; a zero
    one is ``zero_division``. ``beta = 1`` is F1, ``beta = 0`` precision.
    """
    _check_beta(beta)
    return _prf_aggregate("fbeta", sums, beta=beta, **params)


_AGGREGATES = {"precision": _precision_aggregate, "recall": _recall_aggregate, "f1": _f1_aggregate}


def _prf_score(which, y_true, y_pred, labels, pos_label, average, sample_weight, zero_division,
               **extra):
    check_zero_division(zero_division)
    if average == "binary" and pos_label is None:
        if labels is None:
            y_t, y_p, _ = check_label_pair(y_true, y_pred)
            labels = np.unique(np.concatenate([y_t, y_p]))
        pos_label = default_pos_label(labels)
    _resolve_average(average, pos_label)
    t, p, labels = _resolve_prf_labels(y_true, y_pred, labels, pos_label)
    w = check_sample_weight(sample_weight, t.shape[0])
    sums = _prf_sums(t, p, labels.shape[0], w)
    value = _prf_aggregate(
        which,
        sums,
        labels=labels,
        average=average,
        pos_label=pos_label,
        zero_division=zero_division,
        **extra,
    )
    return value if average is None else float(value)


def _fbeta_score(y_true, y_pred, *, beta, labels=None, pos_label=None, average="macro",
                 sample_weight=None, zero_division="warn"):
    """F-beta, ``(1 + b^2) TP / ((1 + b^2) TP + b^2 FN + FP)`` per class, averaged.

    The score function of a scikit-learn ``fbeta_score`` scorer mapped to the
    fast path (:func:`sigtest.metrics.as_metric`); parameters as
    :func:`f1_score`, plus ``beta`` (a finite number >= 0).
    """
    _check_beta(beta)
    return _prf_score("fbeta", y_true, y_pred, labels, pos_label, average, sample_weight,
                      zero_division, beta=beta)


_PRF_CONSTRAINTS = {
    "y_true": ["array-like"],
    "y_pred": ["array-like"],
    "labels": ["array-like", None],
    "pos_label": [Real, str, "boolean", None],
    "average": [lazy.StrOptions({"macro", "micro", "weighted", "binary"}), None],
    "sample_weight": ["array-like", None],
    "zero_division": _ZERO_DIVISION,
}

_PRF_PARAMS_DOC = """
    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_classes)
        True labels (int or str). A 2-D numeric array is reduced by ``argmax``
        over columns (ties -> lowest column index; labels are then the column
        indices ``0..n_classes-1``).
    y_pred : array-like of shape (n_samples,) or (n_samples, n_classes)
        Predicted labels, same conventions.
    labels : array-like of shape (n_classes,), default=None
        The classes to average over, in output order. ``None``: the sorted
        union of the classes in ``y_true`` and ``y_pred``, so two systems
        scored on the same ``y_true`` are averaged over the same classes only if
        you pass the union of both (the significance tests do). Labels of the
        data missing from ``labels`` count for no class (as in scikit-learn);
        listed classes absent from the data have zero support.
    pos_label : int or str, default=None
        One target class, **by label** (never by position). When given, the
        score of that class is returned (``average`` must be ``"binary"`` or
        ``"macro"``); ``labels`` then only fixes the class set, which must
        contain ``pos_label``. ``f1_score(y, p, pos_label=c)`` equals
        ``f1_score(y, p, labels=[c])``. A ``pos_label`` absent from the data is
        allowed (0/0 -> ``zero_division``).
    average : {"macro", "micro", "weighted", "binary"} or None, default="macro"
        ``"macro"``: unweighted mean of the per-class scores over all classes of
        ``labels``; ``"micro"``: from the TP, predicted and true counts summed
        over classes; ``"weighted"``: mean weighted by support (true count);
        ``"binary"``: the class ``pos_label`` (by default 1 when every label
        is in {0, 1} or {-1, 1}, as scikit-learn; required otherwise);
        ``None``: the array of per-class scores in the order of ``labels``. Unlike scikit-learn the
        default is ``"macro"``.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights with a positive sum; counts become weighted sums.
    zero_division : {"warn", 0.0, 1.0, np.nan}, default="warn"
        Value of a 0/0 per-class score; ``"warn"`` uses 0.0 and emits one
        :class:`~sklearn.exceptions.UndefinedMetricWarning`. ``np.nan`` scores
        are left out of the average (scikit-learn's convention); all-NaN
        gives NaN.

    Returns
    -------
    score : float or ndarray of shape (n_classes,)
        In [0, 1]; higher is better. An array when ``average=None``.

    Warns
    -----
    UndefinedMetricWarning
        Once per call, when a value is 0/0 and ``zero_division="warn"``.
"""


@validate_params(_PRF_CONSTRAINTS, prefer_skip_nested_validation=True)
@fill_doc(params=_PRF_PARAMS_DOC)
def precision_score(
    y_true,
    y_pred,
    *,
    labels=None,
    pos_label=None,
    average="macro",
    sample_weight=None,
    zero_division="warn",
):
    """Precision: the fraction of the predictions of a class that are correct.

    .. math:: P_k = \\frac{TP_k}{\\mathrm{pred}_k},\\qquad
              P_{\\mathrm{macro}} = \\frac{1}{K}\\sum_k P_k,\\qquad
              P_{\\mathrm{micro}} = \\frac{\\sum_k TP_k}{\\sum_k \\mathrm{pred}_k}

    with ``TP_k`` the (weighted) number of samples of class k predicted as k
    and ``pred_k`` the number predicted as k. A class never predicted has
    ``P_k = 0/0`` (-> ``zero_division``). Micro precision over all classes
    equals accuracy.

    {params}

    Notes
    -----
    Sufficient statistics: see :func:`f1_score`. Registry names
    ``precision_macro``, ``precision_micro``, ``precision_weighted``.

    References
    ----------
    .. [1] Jurafsky and Martin, Speech and Language Processing, sec. 4.7
       (micro- and macro-averaging).

    Examples
    --------
    >>> from sigtest.metrics import precision_score
    >>> y = ["spam", "ham", "ham", "spam"]
    >>> p = ["spam", "spam", "ham", "ham"]
    >>> precision_score(y, p, pos_label="spam")
    0.5
    """
    return _prf_score(
        "precision", y_true, y_pred, labels, pos_label, average, sample_weight, zero_division
    )


@validate_params(_PRF_CONSTRAINTS, prefer_skip_nested_validation=True)
@fill_doc(params=_PRF_PARAMS_DOC)
def recall_score(
    y_true,
    y_pred,
    *,
    labels=None,
    pos_label=None,
    average="macro",
    sample_weight=None,
    zero_division="warn",
):
    """Recall: the fraction of the samples of a class that are found.

    .. math:: R_k = \\frac{TP_k}{\\mathrm{true}_k},\\qquad
              R_{\\mathrm{macro}} = \\frac{1}{K}\\sum_k R_k,\\qquad
              R_{\\mathrm{micro}} = \\frac{\\sum_k TP_k}{\\sum_k \\mathrm{true}_k}

    A listed class absent from ``y_true`` has ``R_k = 0/0``
    (-> ``zero_division``). Weighted recall over all classes equals accuracy.

    {params}

    Notes
    -----
    Sufficient statistics: see :func:`f1_score`. Registry names
    ``recall_macro``, ``recall_micro``, ``recall_weighted``.

    References
    ----------
    .. [1] Jurafsky and Martin, Speech and Language Processing, sec. 4.7.

    Examples
    --------
    >>> from sigtest.metrics import recall_score
    >>> recall_score([0, 0, 1, 2], [0, 1, 1, 1])  # (1/2 + 1 + 0) / 3
    0.5
    """
    return _prf_score(
        "recall", y_true, y_pred, labels, pos_label, average, sample_weight, zero_division
    )


@validate_params(_PRF_CONSTRAINTS, prefer_skip_nested_validation=True)
@fill_doc(params=_PRF_PARAMS_DOC)
def f1_score(
    y_true,
    y_pred,
    *,
    labels=None,
    pos_label=None,
    average="macro",
    sample_weight=None,
    zero_division="warn",
):
    """F1 score: the harmonic mean of precision and recall.

    .. math:: F1_k = \\frac{2\\,TP_k}{\\mathrm{pred}_k + \\mathrm{true}_k},\\qquad
              F1_{\\mathrm{macro}} = \\frac{1}{K}\\sum_k F1_k,\\qquad
              F1_{\\mathrm{micro}} = \\frac{2\\sum_k TP_k}
              {\\sum_k (\\mathrm{pred}_k + \\mathrm{true}_k)}

    ``F1_k`` is 0/0 (-> ``zero_division``) only for a class neither true nor
    predicted, which happens when ``labels`` (or ``pos_label``) lists a class
    absent from the data. Over all classes, micro F1 equals accuracy.

    {params}

    Notes
    -----
    Sufficient statistics per instance (cellwise: they depend only on the pair
    (true, predicted)): ``[TP_1..TP_K, pred_1..pred_K, true_1..true_K, 1]``,
    one-hot indicators in the order of ``labels``; the aggregate maps their
    column sums to the score (vectorised over leading axes). Registry names
    ``f1_macro``, ``f1_micro``, ``f1_weighted``.

    References
    ----------
    .. [1] Jurafsky and Martin, Speech and Language Processing, sec. 4.7.
    .. [2] Kurniawan, Mistica, Baldwin and Lau (2025). Training and Evaluating
       with Human Label Variation, sec. 3.

    Examples
    --------
    >>> from sigtest.metrics import f1_score
    >>> y = ["spam", "ham", "ham", "spam", "eggs"]
    >>> p = ["spam", "spam", "ham", "ham", "eggs"]
    >>> f1_score(y, p, pos_label="spam") == f1_score(y, p, labels=["spam"])
    True
    >>> round(f1_score(y, p), 4)  # (1/2 + 1/2 + 1) / 3
    0.6667
    """
    return _prf_score(
        "f1", y_true, y_pred, labels, pos_label, average, sample_weight, zero_division
    )
