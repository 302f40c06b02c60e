"""Validation of hard labels scored by probabilities or decision scores.

The input of scikit-learn's probability scorers (``neg_log_loss``,
``neg_brier_score``, ``d2_log_loss_score``, ``d2_brier_score``,
``top_k_accuracy``, ``roc_auc``, ``average_precision``, ...) is the metric
input type ``"labels_proba"``: ``y_true`` holds **hard labels** (1-D, int or
str) and ``y_pred`` holds, per item,

* a 2-D ``(n_samples, n_classes)`` array, column ``k`` for the ``k``-th class
  of the sorted class set (``predict_proba`` output, scikit-learn's
  ``LabelBinarizer`` order), or
* for a binary task, a 1-D ``(n_samples,)`` score of the positive class, the
  second class of the sorted class set (what scikit-learn's scorers pass
  for ``response_method="predict_proba"`` or ``"decision_function"``).

The class set is ``labels`` (1-D, distinct, sorted as :func:`numpy.unique`
sorts) or the classes present in ``y_true``; it must hold at least two
classes. :func:`check_labels_proba` is the one check of this input for
every such metric; ``kind="proba"`` requires probabilities (values in
``[0, 1]``, 2-D rows summing to 1 by the rule of
:func:`sigtest.metrics._check_proba.normalize_rows`), ``kind="scores"``
any finite real scores (decision values, for rankings such as ROC AUC or
top-k accuracy).
"""

from __future__ import annotations

import numpy as np

from sigtest.metrics._check_labels import check_hard_labels, check_labels_param
from sigtest.metrics._check_proba import check_proba

__all__ = ["LABELS_PROBA", "binary_columns", "check_labels_proba"]

#: The metric input type of hard ``y_true`` with probabilities/scores ``y_pred``.
LABELS_PROBA = "labels_proba"

_KINDS = ("proba", "scores")


def _subject(metric):
    return "" if metric is None else f" of metric {metric!r}"


def _check_target(y_true, metric):
    arr = y_true if isinstance(y_true, np.ndarray) else None
    if arr is None:
        try:
            arr = np.asarray(y_true)
        except Exception:  # ragged input: check_hard_labels words the error
            arr = None
    if arr is not None and arr.ndim == 2:
        if arr.shape[1] == 1:
            y_true = arr.ravel()
        else:
            raise ValueError(
                f"The 'y_true' parameter{_subject(metric)} must hold hard labels (1-D), "
                f"scored by the probabilities in y_pred; got a 2-D array of shape "
                f"{arr.shape}. True distributions belong to the soft metrics "
                "(cross_entropy, soft_accuracy, ...)."
            )
    return check_hard_labels(y_true, "y_true")


def _class_set(y_true, kind_t, labels, metric, binary_1d, complete_binary):
    if labels is not None:
        classes = check_labels_param(labels, kind_t)
        if classes.shape[0] > 1 and np.any(classes[1:] <= classes[:-1]):
            raise ValueError(
                f"The 'labels' parameter{_subject(metric)} must be sorted as numpy.unique "
                f"sorts them (the column order of y_pred); got {classes.tolist()!r}, pass "
                f"{np.unique(classes).tolist()!r} with the columns in that order."
            )
        missing = np.setdiff1d(y_true, classes)
        if missing.size:
            raise ValueError(
                f"The 'y_true' parameter{_subject(metric)} contains labels not in "
                f"'labels': {missing[:10].tolist()}."
            )
        return classes
    classes = np.unique(y_true)
    if classes.shape[0] == 1 and binary_1d and complete_binary and kind_t == "num":
        # scikit-learn's brier_score_loss: pos_label 1 for y_true in {0, 1} or {-1, 1}
        c = classes[0]
        if c in (0, 1):
            return np.array([0, 1], dtype=classes.dtype)
        if c == -1:
            return np.array([-1, 1], dtype=classes.dtype)
    return classes


def check_labels_proba(y_true, y_pred, *, labels=None, metric=None, kind="proba",
                       pred_name="y_pred", complete_binary=False):
    """Validate hard labels ``y_true`` and the probabilities/scores ``y_pred`` of a system.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Hard labels (int or str; see
        :func:`sigtest.metrics._check_labels.check_hard_labels`).
    y_pred : array-like of shape (n_samples, n_classes) or (n_samples,)
        Column ``k`` scores the ``k``-th class of the class set; a 1-D array
        (or one column) is the score of the positive class (the second of
        the two classes) of a binary task.
    labels : array-like of shape (n_classes,), default=None
        The class set, sorted as :func:`numpy.unique` sorts (needed when
        ``y_true`` misses a class). Default: the classes of ``y_true``.
    metric : str, default=None
        The metric's name, for the messages.
    kind : {"proba", "scores"}, default="proba"
        ``"proba"``: values in ``[0, 1]``, and 2-D rows summing to 1 (within
        the rounding rule of ``normalize_rows``, renormalised with a
        warning). ``"scores"``: any finite reals.
    pred_name : str, default="y_pred"
        Name of the prediction argument in messages.
    complete_binary : bool, default=False
        With a 1-D ``y_pred``, ``labels=None`` and one class in ``y_true``:
        complete ``{0}`` or ``{1}`` to ``[0, 1]`` and ``{-1}`` to
        ``[-1, 1]`` (:func:`sklearn.metrics.brier_score_loss` takes the
        positive class to be 1 then) instead of raising.

    Returns
    -------
    codes : ndarray of intp, shape (n_samples,)
        Position of each item's true class in ``classes``.
    y_pred : ndarray of float64, shape (n_samples, n_classes) or (n_samples,)
        C-contiguous; 1-D only for a binary task given 1-D (or one column).
    classes : ndarray of shape (n_classes,)
        The sorted class set, at least two classes.

    Raises
    ------
    ValueError
        Naming the argument and the metric: ``y_true`` 2-D (distributions),
        non-integral or NaN labels, fewer than two classes, a label of
        ``y_true`` outside ``labels``, unsorted ``labels``; ``y_pred`` of
        another length, a 1-D score for more than two classes, a number of
        columns other than the number of classes, NaN/inf, and for
        ``kind="proba"`` values outside ``[0, 1]`` or rows not summing to 1.
    TypeError
        String (label) predictions, or non-numeric input.

    Examples
    --------
    >>> from sigtest.metrics._check_scores import check_labels_proba
    >>> codes, proba, classes = check_labels_proba(["b", "a"], [[0.2, 0.8], [0.6, 0.4]])
    >>> codes.tolist(), classes.tolist()
    ([1, 0], ['a', 'b'])
    >>> check_labels_proba([0, 1, 2], [0.1, 0.5, 0.9], metric="log_loss")
    Traceback (most recent call last):
    ...
    ValueError: The 'y_pred' parameter of metric 'log_loss' is 1-D (one score per item), which only a binary task allows, but the class set has 3 classes [0, 1, 2]; pass the (n_samples, 3) predict_proba array.
    """
    if kind not in _KINDS:
        raise ValueError(f"The 'kind' parameter must be one of {_KINDS}. Got {kind!r}.")
    y_true, kind_t = _check_target(y_true, metric)
    n = y_true.shape[0]
    if isinstance(y_pred, (str, bytes)) or np.isscalar(y_pred):
        raise TypeError(
            f"The '{pred_name}' parameter{_subject(metric)} must be an array of "
            f"probabilities or scores. Got {y_pred!r} instead."
        )
    try:
        raw = np.asarray(y_pred)
    except Exception as exc:
        raise ValueError(
            f"The '{pred_name}' parameter could not be converted to an array: {exc}"
        ) from None
    if raw.dtype.kind not in "biuf":
        raise TypeError(
            f"The '{pred_name}' parameter{_subject(metric)} must hold numeric "
            f"probabilities or scores, not labels; got dtype {raw.dtype}. Hard predicted "
            "labels belong to the label metrics (accuracy, f1_macro, ...)."
        )
    if raw.ndim == 2 and raw.shape[1] == 1:
        raw = raw.ravel()
    if raw.ndim not in (1, 2):
        raise ValueError(
            f"The '{pred_name}' parameter{_subject(metric)} must be 1-D (binary: the "
            "positive class's score) or 2-D (n_samples, n_classes). Got shape "
            f"{raw.shape} instead."
        )
    if raw.shape[0] != n:
        raise ValueError(
            f"The '{pred_name}' parameter{_subject(metric)} has {raw.shape[0]} samples "
            f"but 'y_true' has {n}."
        )
    classes = _class_set(y_true, kind_t, labels, metric, raw.ndim == 1, complete_binary)
    k = classes.shape[0]
    if k < 2:
        raise ValueError(
            f"The 'y_true' parameter{_subject(metric)} contains only one class "
            f"({classes[0]!r}); the metric needs the full class set: pass it as 'labels' "
            "(scikit-learn's rule)."
        )
    if raw.ndim == 1 and k != 2:
        raise ValueError(
            f"The '{pred_name}' parameter{_subject(metric)} is 1-D (one score per item), "
            f"which only a binary task allows, but the class set has {k} classes "
            f"{classes[:10].tolist()}; pass the (n_samples, {k}) predict_proba array."
        )
    if raw.ndim == 2 and raw.shape[1] != k:
        raise ValueError(
            f"The '{pred_name}' parameter{_subject(metric)} has {raw.shape[1]} columns "
            f"but the class set has {k} classes {classes[:10].tolist()}"
            f"{' (the classes of y_true; pass labels= for the full set)' if labels is None else ''}."
        )
    arr = np.ascontiguousarray(raw, dtype=np.float64)
    if not np.all(np.isfinite(arr)):
        raise ValueError(
            f"The '{pred_name}' parameter{_subject(metric)} must not contain NaN or infinity."
        )
    if kind == "proba":
        if arr.ndim == 2:
            arr = check_proba(arr, pred_name)
        elif arr.min() < 0 or arr.max() > 1:
            raise ValueError(
                f"The '{pred_name}' parameter{_subject(metric)} must hold probabilities "
                f"in [0, 1]; got values in [{float(arr.min())!r}, {float(arr.max())!r}]"
                " (decision scores or labels?)."
            )
    codes = np.searchsorted(classes, y_true).astype(np.intp)
    return codes, arr, classes


def binary_columns(p):
    """``(n, 2)`` probabilities ``[1 - p, p]`` of a 1-D positive-class probability ``p``.

    Parameters
    ----------
    p : ndarray of shape (n_samples,) or (n_samples, n_classes)
        A 2-D array is returned unchanged.

    Returns
    -------
    proba : ndarray of shape (n_samples, n_classes)
    """
    if p.ndim == 2:
        return p
    return np.ascontiguousarray(np.stack([1.0 - p, p], axis=1))
