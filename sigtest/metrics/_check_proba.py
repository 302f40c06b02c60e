"""Validation of soft-label arrays (distributions and multilabel memberships).

Soft metrics take two ``(n_samples, n_classes)`` arrays: the true judgement
distribution ``P`` (``y_true``) and the prediction ``Q`` (``y_proba``), in the
notation of Kurniawan et al. (2025, sec. 3). Two kinds are accepted:

``"proba"`` (multiclass)
    Every entry in ``[0, 1]`` and every row summing to 1. A row with
    ``|sum_k P_ik - 1| <= 1e-6`` (:data:`ROW_SUM_ATOL`, floating-point noise)
    is used as given. A row further off, but within the rounding of its
    printed decimals, is divided by its sum, with a
    :class:`ProbabilityRoundingWarning` that gives the number of such rows and
    the largest deviation. Each of ``K`` probabilities printed with ``d``
    decimals (``predict_proba(X).round(3)``, a file written with ``%.3f``) is
    off by at most ``h = 0.5 * 10**-d``, so the printed sum lies within
    ``[1 - K h, 1 + n h]`` (``n`` nonzero entries; an entry printed as 0 can
    only have lost mass); ``d`` is the fewest decimals (1 to 6) that print
    the row exactly, and the tolerance is never below ``1e-3``
    (:data:`ROW_SUM_RENORM_ATOL`, e.g. 4 decimals over 20 classes, or
    unrounded rows). A larger deviation is not rounding, and is an error
    naming the row (1-based, with its 0-based index) and its sum (all its
    digits). :func:`normalize_rows` is this one rule; the file reader of the
    command line uses it too, with line numbers.
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

import sys

import numpy as np

from sigtest.exceptions import ProbabilityRoundingWarning
from sigtest.utils import warn_external
from sigtest.metrics._check_labels import check_sample_weight

__all__ = ["MAX_PRINTED_DECIMALS", "ROW_SUM_ATOL", "ROW_SUM_RENORM_ATOL",
           "ProbabilityRoundingWarning", "check_proba", "check_proba_pair",
           "check_sample_weight", "normalize_rows", "rounding_tolerance"]

#: Absolute tolerance on multiclass row sums: ``|sum_k P_ik - 1| <= ROW_SUM_ATOL``
#: is floating-point noise and the row is used as given.
ROW_SUM_ATOL = 1e-6
#: Smallest tolerance on a row sum beyond :data:`ROW_SUM_ATOL` (rows within it
#: are renormalised): probabilities printed with 4 decimals over 20 classes, or
#: rows whose printed decimals are not recognised. Rows printed with fewer
#: decimals get the wider bound of :func:`rounding_tolerance`.
ROW_SUM_RENORM_ATOL = 1e-3
#: The most decimals :func:`rounding_tolerance` recognises.
MAX_PRINTED_DECIMALS = 6


def rounding_tolerance(arr):
    r"""Per-row bounds ``(below, above)`` on ``sum_k P_ik - 1`` due to printed decimals.

    Row ``i`` is printed with :math:`d_i` decimals, the fewest in
    ``1 .. MAX_PRINTED_DECIMALS`` that represent every entry exactly (up to
    the binary rounding of the parsed value). Each entry is then off by at
    most :math:`h_i = 0.5 \cdot 10^{-d_i}` and, since the true row sums to
    1,

    .. math:: -K h_i \le \textstyle\sum_k P_{ik} - 1 \le n_i h_i,

    with :math:`K` classes and :math:`n_i` nonzero printed entries (an entry
    printed as 0 was rounded down, never up). Both bounds are at least
    :data:`ROW_SUM_RENORM_ATOL`, which is also the bound of a row whose
    decimals are not recognised; a slack of ``1e-12`` absorbs the
    floating-point error of the sum.

    Parameters
    ----------
    arr : ndarray of shape (n_samples, n_classes), dtype float64

    Returns
    -------
    below, above : ndarray of shape (n_samples,)
        Largest allowed deficit ``1 - sum`` and excess ``sum - 1``.
    """
    n_rows, k = arr.shape
    decimals = np.full(n_rows, MAX_PRINTED_DECIMALS + 1)
    for d in range(MAX_PRINTED_DECIMALS, 0, -1):
        scaled = arr * 10.0 ** d
        exact = np.all(np.abs(scaled - np.rint(scaled)) <= 1e-6, axis=1)
        decimals[exact] = d
    half = np.where(decimals <= MAX_PRINTED_DECIMALS, 0.5 * 10.0 ** -decimals.astype(float),
                    0.0)
    slack = 1e-12
    below = np.maximum(ROW_SUM_RENORM_ATOL, k * half) + slack
    above = np.maximum(ROW_SUM_RENORM_ATOL, np.count_nonzero(arr, axis=1) * half) + slack
    return below, above


def _row_name(i):
    return f"row {i + 1} (index {i})"


def normalize_rows(arr, what, *, row_name=_row_name, hint=""):
    """Check that the rows of ``arr`` sum to 1; renormalise rows off by rounding.

    Parameters
    ----------
    arr : ndarray of shape (n_samples, n_classes), dtype float64
        Finite values in [0, 1] (checked by the caller).
    what : str
        Subject of the messages, e.g. ``"The 'y_proba' parameter"`` or
        ``"The file 'p.csv'"``.
    row_name : callable, default: ``"row {i+1} (index {i})"``
        Maps a 0-based row index to its name in messages (a file reader
        gives line numbers).
    hint : str, default=""
        Appended to the error message.

    Returns
    -------
    arr : ndarray
        ``arr`` itself when every row sums to 1 within :data:`ROW_SUM_ATOL`,
        else a copy whose rows off by rounding (within the bounds of
        :func:`rounding_tolerance`) are divided by their sums.

    Warns
    -----
    ProbabilityRoundingWarning
        When rows were renormalised: how many, and the largest deviation.

    Raises
    ------
    ValueError
        A row whose sum is not positive or differs from 1 by more than the
        rounding of its printed decimals (:func:`rounding_tolerance`); the
        message names the first such row and gives its sum with all its
        digits (``repr``) and the bound.
    """
    sums = arr.sum(axis=1)
    dev = np.abs(sums - 1.0)
    # both bounds of rounding_tolerance are at least ROW_SUM_RENORM_ATOL: only rows
    # further off (or not positive) need their printed decimals (O(N K) passes saved)
    suspect = np.flatnonzero((sums <= 0.0) | (dev > ROW_SUM_RENORM_ATOL))
    below, above = rounding_tolerance(arr[suspect])
    s_sums = sums[suspect]
    off = (s_sums <= 0.0) | (1.0 - s_sums > below) | (s_sums - 1.0 > above)
    too_far = suspect[off]
    if too_far.size:
        i = int(too_far[0])
        more = f" ({too_far.size} rows are off, in all)" if too_far.size > 1 else ""
        j = int(np.flatnonzero(off)[0])
        bound = below[j] if sums[i] < 1.0 else above[j]
        raise ValueError(
            f"{what} must hold probability distributions: every row must sum to 1 within "
            f"the rounding of its printed decimals (for this row {float(bound):.3g}; at least "
            f"{ROW_SUM_RENORM_ATOL:g}). Its {row_name(i)} sums to {float(sums[i])!r}{more}."
            f"{hint}"
        )
    fix = dev > ROW_SUM_ATOL
    if not fix.any():
        return arr
    warn_external(
        f"{what}: {int(fix.sum())} row(s) sum to 1 only up to rounding (largest deviation "
        f"{float(dev.max()):.3g}, within the rounding of the printed decimals); they were "
        "divided by "
        "their sums.", ProbabilityRoundingWarning,
    )
    arr = arr.copy()
    arr[fix] /= sums[fix, None]
    return arr


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
        If False, every row must sum to 1: within :data:`ROW_SUM_ATOL` it is
        used as given, within the rounding of its printed decimals it is
        renormalised with a warning (see :func:`normalize_rows`).

    Returns
    -------
    y : ndarray of shape (n_samples, n_classes), dtype float64

    Warns
    -----
    ProbabilityRoundingWarning
        Rows that sum to 1 only up to rounding were renormalised.

    Raises
    ------
    TypeError
        Non-numeric (str, object, complex) input or a scalar.
    ValueError
        Wrong number of dimensions, empty input, NaN/inf, values outside
        [0, 1], or (multiclass) a row whose sum differs from 1 by more than
        the rounding of its printed decimals.
    """
    kind = "label memberships" if multilabel else "probability distributions"
    if isinstance(y, (str, bytes)):
        raise TypeError(
            f"The '{name}' parameter must be a 2-D array-like of {kind}. Got a str."
        )
    # a SciPy sparse matrix implies that scipy.sparse is loaded: never import it here
    sparse = sys.modules.get("scipy.sparse")
    if sparse is not None and sparse.issparse(y):
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
    # one pass for the usual case (min and max in [0, 1]: NaN fails both
    # comparisons, -inf and inf one each); the checks below name the fault
    if not (arr.min() >= 0.0 and arr.max() <= 1.0):
        _check_values(arr, name)
    if not multilabel:
        arr = normalize_rows(arr, f"The '{name}' parameter",
                             hint=" For multilabel memberships use multilabel=True.")
    return arr


def _check_values(arr, name):
    """Raise the ValueError that names why ``arr`` is not in [0, 1] (NaN, inf, sign, > 1)."""
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"The '{name}' parameter must not contain NaN or infinity.")
    if np.any(arr < 0):
        raise ValueError(
            f"The '{name}' parameter must not contain negative mass. Got minimum "
            f"{float(arr.min())!r}."
        )
    if np.any(arr > 1):
        raise ValueError(
            f"The '{name}' parameter must hold values in [0, 1]. Got maximum {float(arr.max())!r}."
        )


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
