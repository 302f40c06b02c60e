"""Validation of soft-label arrays (distributions and multilabel memberships).

Soft metrics take two ``(n_samples, n_classes)`` arrays: the true judgement
distribution ``P`` (``y_true``) and the prediction ``Q`` (``y_proba``), in the
notation of Kurniawan et al. (2025, sec. 3). Two kinds are accepted:

``"proba"`` (multiclass)
    Every entry in ``[0, 1]`` and every row summing to 1 within an *absolute*
    tolerance of ``1e-6`` (:data:`ROW_SUM_ATOL`): ``|sum_k P_ik - 1| <= 1e-6``.
    Rows are used as given, never renormalised.
``"multilabel"``
    Every entry in ``[0, 1]`` (the membership degree of each label); rows
    need not sum to anything.

Both kinds reject NaN, infinity, negative mass, values above 1, empty input,
1-D input (hard labels go to the hard metrics), arrays with more than two
dimensions, non-numeric dtypes, and a ``y_true``/``y_proba`` shape mismatch,
with a :class:`ValueError` or :class:`TypeError` naming the argument. Values
are checked exactly: no tolerance is applied to the ``[0, 1]`` bounds.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ._check_labels import check_sample_weight

__all__ = ["ROW_SUM_ATOL", "check_proba", "check_proba_pair", "check_sample_weight"]

#: Absolute tolerance on multiclass row sums: ``|sum_k P_ik - 1| <= ROW_SUM_ATOL``.
ROW_SUM_ATOL = 1e-6


def check_proba(y, name="y_proba", *, multilabel=False):
    """Validate one soft array and return it as C-contiguous float64.

    Parameters
    ----------
    y : array-like of shape (n_samples, n_classes)
        Distributions (``multilabel=False``) or label memberships in [0, 1]
        (``multilabel=True``). A scipy sparse matrix is densified.
    name : str, default="y_proba"
        Argument name used in error messages.
    multilabel : bool, default=False
        If False, every row must sum to 1 within :data:`ROW_SUM_ATOL`.

    Returns
    -------
    y : ndarray of shape (n_samples, n_classes), dtype float64

    Raises
    ------
    TypeError
        Non-numeric (str, object, complex) input or a scalar.
    ValueError
        Wrong number of dimensions, empty input, NaN/inf, values outside
        [0, 1], or (multiclass) a row whose sum differs from 1 by more than
        :data:`ROW_SUM_ATOL`.
    """
    kind = "label memberships" if multilabel else "probability distributions"
    if isinstance(y, (str, bytes)):
        raise TypeError(
            f"The '{name}' parameter must be a 2-D array-like of {kind}. Got a str."
        )
    if sp.issparse(y):
        y = y.toarray()
    try:
        arr = np.asarray(y)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"The '{name}' parameter could not be converted to an array: {exc}")
    if arr.ndim == 0:
        raise TypeError(
            f"The '{name}' parameter must be a 2-D array-like of {kind}. Got a scalar."
        )
    if arr.dtype.kind not in "biuf":
        raise TypeError(
            f"The '{name}' parameter must be numeric (float {kind}). Got dtype "
            f"{arr.dtype} instead."
        )
    if arr.ndim == 1:
        raise ValueError(
            f"The '{name}' parameter must be 2-D of shape (n_samples, n_classes) holding "
            f"{kind}; got a 1-D array of shape {arr.shape}. Hard labels belong to the hard "
            "metrics (accuracy_score, f1_score, ...); for a soft metric pass one-hot rows."
        )
    if arr.ndim != 2:
        raise ValueError(
            f"The '{name}' parameter must be 2-D of shape (n_samples, n_classes). Got "
            f"shape {arr.shape} instead."
        )
    if arr.shape[0] == 0:
        raise ValueError(f"The '{name}' parameter is empty; at least one sample is required.")
    if arr.shape[1] == 0:
        raise ValueError(f"The '{name}' parameter has no columns; at least one class is required.")
    arr = np.ascontiguousarray(arr, dtype=np.float64)
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"The '{name}' parameter must not contain NaN or infinity.")
    if np.any(arr < 0):
        raise ValueError(
            f"The '{name}' parameter must not contain negative mass. Got minimum "
            f"{arr.min()!r}."
        )
    if np.any(arr > 1):
        raise ValueError(
            f"The '{name}' parameter must hold values in [0, 1]. Got maximum {arr.max()!r}."
        )
    if not multilabel:
        dev = np.abs(arr.sum(axis=1) - 1.0)
        bad = int(np.argmax(dev))
        if dev[bad] > ROW_SUM_ATOL:
            raise ValueError(
                f"The '{name}' parameter must hold probability distributions: every row must "
                f"sum to 1 within an absolute tolerance of {ROW_SUM_ATOL:g}. Row {bad} sums to "
                f"{arr[bad].sum()!r}. For multilabel memberships use multilabel=True."
            )
    return arr


def check_proba_pair(y_true, y_proba, *, multilabel=False, pred_name="y_proba"):
    """Validate ``(P, Q)`` with :func:`check_proba` and check they match in shape.

    Parameters
    ----------
    y_true, y_proba : array-like of shape (n_samples, n_classes)
    multilabel : bool, default=False
    pred_name : str, default="y_proba"
        Name of the prediction argument in messages (``"y_pred"`` when called
        through the registry contract).

    Returns
    -------
    P, Q : ndarray of shape (n_samples, n_classes), dtype float64
    """
    P = check_proba(y_true, "y_true", multilabel=multilabel)
    Q = check_proba(y_proba, pred_name, multilabel=multilabel)
    if P.shape != Q.shape:
        if P.shape[0] != Q.shape[0]:
            what = f"{P.shape[0]} vs {Q.shape[0]} samples"
        else:
            what = f"{P.shape[1]} vs {Q.shape[1]} classes"
        raise ValueError(
            f"The 'y_true' and '{pred_name}' parameters must have the same shape. Got "
            f"{P.shape} and {Q.shape} ({what}). If a model's predict_proba misses a class, "
            "align its columns to the full class set first."
        )
    return P, Q
