"""Validation and integer encoding of hard labels.

Hard-label metrics accept

* 1-D labels: integers (or integral floats, or booleans) or strings, as
  lists, NumPy arrays or pandas objects;
* 2-D ``(n_samples, n_classes)`` numeric scores (e.g. ``predict_proba`` output
  or a soft true distribution ``P``), reduced to hard labels by ``argmax``
  over the columns. **Ties go to the lowest column index** (``numpy.argmax``
  returns the first maximum). The labels of such an input are the column
  indices ``0, ..., n_classes - 1``.

Every function raises :class:`ValueError` or :class:`TypeError` whose message
names the offending argument.
"""

from __future__ import annotations

import numbers
import sys

import numpy as np

from sigtest.utils._names import plain

__all__ = [
    "check_hard_labels",
    "check_label_pair",
    "check_labels_param",
    "check_multilabel_indicator",
    "check_sample_weight",
    "encode_checked_labels",
    "encode_labels",
]

# pandas.api.types.infer_dtype results accepted as numeric / string labels
_NUMERIC_KINDS = frozenset({"integer", "floating", "mixed-integer-float", "boolean", "decimal"})
_STRING_KINDS = frozenset({"string"})


def _label_kind(values, name):
    """Return ``"str"`` or ``"num"`` for a 1-D array of labels, else raise."""
    if values.dtype.kind in "US":
        if values.dtype.kind == "S":
            raise TypeError(
                f"The '{name}' parameter must hold str or numeric labels; got bytes "
                f"(dtype {values.dtype}). Decode them to str first."
            )
        return "str"
    if values.dtype.kind in "biuf":
        return "num"
    if values.dtype.kind != "O":
        raise TypeError(
            f"The '{name}' parameter must hold int or str labels. Got dtype "
            f"{values.dtype} instead."
        )
    from pandas.api.types import infer_dtype  # object arrays only: pandas on demand

    inferred = infer_dtype(values, skipna=False)
    if inferred in _STRING_KINDS:
        return "str"
    if inferred in _NUMERIC_KINDS:
        return "num"
    raise TypeError(
        f"The '{name}' parameter must hold labels of one type: all str or all "
        f"numeric. Got a mix (pandas infers {inferred!r}); None/NaN are not labels."
    )


def _finalize_numeric(values, name):
    """Check numeric labels are finite and integral; return a numeric array."""
    if values.dtype.kind == "O":
        values = np.asarray(values.tolist())  # int64, float64 or bool, as NumPy infers
    if values.dtype.kind == "f":
        if not np.all(np.isfinite(values)):
            raise ValueError(f"The '{name}' parameter must not contain NaN or infinity.")
        if not np.all(values == np.round(values)):
            raise ValueError(
                f"The '{name}' parameter holds non-integral numbers; it looks like "
                "continuous values, not class labels."
            )
    return values


def check_hard_labels(y, name="y_true"):
    """Validate hard labels; reduce 2-D scores by argmax.

    Parameters
    ----------
    y : array-like of shape (n_samples,) or (n_samples, n_classes)
        1-D int/str labels, or 2-D finite numeric scores with at least two
        columns, reduced to ``argmax`` over columns (ties -> lowest column
        index; the labels are then the column indices).
    name : str
        Argument name used in error messages.

    Returns
    -------
    labels : ndarray of shape (n_samples,)
        Numeric (int or integral float) or str labels.
    kind : {"num", "str"}

    Raises
    ------
    ValueError
        Empty input, NaN/inf, non-integral float labels, more than two
        dimensions, a 2-D array with fewer than two columns.
    TypeError
        Mixed str/numeric labels, bytes or other unsupported types, 2-D
        non-numeric arrays.
    """
    if isinstance(y, (str, bytes)) or np.isscalar(y):
        raise TypeError(
            f"The '{name}' parameter must be an array-like of labels. Got a scalar "
            f"{y!r} instead."
        )
    pd = sys.modules.get("pandas")  # a pandas object implies pandas is loaded
    if (
        pd is not None
        and isinstance(y, (pd.Series, pd.Index))
        and isinstance(y.dtype, pd.CategoricalDtype)
    ):
        y = y.astype(object)
    try:
        arr = np.asarray(y)
    except Exception as exc:  # ragged nested lists and the like
        raise ValueError(f"The '{name}' parameter could not be converted to an array: {exc}")
    if arr.ndim == 0:
        raise TypeError(f"The '{name}' parameter must be an array-like of labels. Got a scalar.")
    if arr.ndim > 2:
        raise ValueError(
            f"The '{name}' parameter must be 1-D labels or 2-D (n_samples, n_classes) "
            f"scores. Got an array with {arr.ndim} dimensions."
        )
    if arr.shape[0] == 0:
        raise ValueError(f"The '{name}' parameter is empty; at least one sample is required.")
    if arr.ndim == 2:
        if arr.dtype.kind not in "biuf":
            raise TypeError(
                f"The '{name}' parameter is 2-D, so it must hold numeric scores to be "
                f"reduced by argmax. Got dtype {arr.dtype} instead."
            )
        if arr.shape[1] < 2:
            raise ValueError(
                f"The '{name}' parameter is 2-D with {arr.shape[1]} column(s); pass 1-D "
                "labels, or 2-D (n_samples, n_classes) scores with n_classes >= 2."
            )
        if arr.dtype.kind == "f" and not np.all(np.isfinite(arr)):
            raise ValueError(f"The '{name}' parameter must not contain NaN or infinity.")
        return np.argmax(arr, axis=1), "num"
    kind = _label_kind(arr, name)
    if kind == "num":
        arr = _finalize_numeric(arr, name)
    return arr, kind


def check_sample_weight(sample_weight, n_samples):
    """Validate ``sample_weight``: 1-D, length ``n_samples``, finite, >= 0, sum > 0.

    Returns ``None`` or a float64 array.
    """
    if sample_weight is None:
        return None
    if isinstance(sample_weight, (str, bytes)):
        raise TypeError("The 'sample_weight' parameter must be an array-like of numbers.")
    w = np.asarray(sample_weight)
    if w.dtype.kind not in "biuf":
        raise TypeError(
            f"The 'sample_weight' parameter must be numeric. Got dtype {w.dtype} instead."
        )
    w = w.astype(np.float64)
    if w.ndim != 1:
        raise ValueError(
            f"The 'sample_weight' parameter must be 1-D. Got shape {w.shape} instead."
        )
    if w.shape[0] != n_samples:
        raise ValueError(
            f"The 'sample_weight' parameter has {w.shape[0]} entries but there are "
            f"{n_samples} samples."
        )
    if not np.all(np.isfinite(w)):
        raise ValueError("The 'sample_weight' parameter must not contain NaN or infinity.")
    if np.any(w < 0):
        raise ValueError("The 'sample_weight' parameter must be non-negative.")
    if not w.sum() > 0:
        raise ValueError("The 'sample_weight' parameter must have a positive sum.")
    return w


def check_label_pair(y_true, y_pred):
    """Validate ``y_true`` and ``y_pred`` together.

    Returns
    -------
    y_true, y_pred : ndarray of shape (n_samples,)
    kind : {"num", "str"}
        The common label type.
    """
    y_true, kind_t = check_hard_labels(y_true, "y_true")
    y_pred, kind_p = check_hard_labels(y_pred, "y_pred")
    if y_true.shape[0] != y_pred.shape[0]:
        raise ValueError(
            f"The 'y_true' and 'y_pred' parameters have different lengths: "
            f"{y_true.shape[0]} != {y_pred.shape[0]}."
        )
    if kind_t != kind_p:
        raise TypeError(
            f"The 'y_true' ({'str' if kind_t == 'str' else 'numeric'} labels) and 'y_pred' "
            f"({'str' if kind_p == 'str' else 'numeric'} labels) parameters mix label "
            "types. A 2-D score array stands for the numeric labels 0..n_classes-1."
        )
    return y_true, y_pred, kind_t


def check_labels_param(labels, kind, name="labels"):
    """Validate a user-given label set: 1-D, non-empty, unique, of type ``kind``.

    The order is preserved (it fixes the class order of the statistics).
    """
    if isinstance(labels, (str, bytes)) or np.isscalar(labels):
        raise TypeError(
            f"The '{name}' parameter must be an array-like of labels. Got {plain(labels)!r} "
            "instead."
        )
    arr = np.asarray(labels)
    if arr.ndim != 1:
        raise ValueError(f"The '{name}' parameter must be 1-D. Got shape {arr.shape} instead.")
    if arr.shape[0] == 0:
        raise ValueError(f"The '{name}' parameter must not be empty.")
    kind_l = _label_kind(arr, name)
    if kind_l != kind:
        raise TypeError(
            f"The '{name}' parameter holds {'str' if kind_l == 'str' else 'numeric'} labels "
            f"but y_true/y_pred hold {'str' if kind == 'str' else 'numeric'} labels."
        )
    if kind == "num":
        arr = _finalize_numeric(arr, name)
    if _has_duplicates(arr):
        raise ValueError(f"The '{name}' parameter must not contain duplicates.")
    return arr


def _has_duplicates(values):
    """Whether a 1-D array repeats a value: equal neighbours once sorted.

    The same answer as ``np.unique(values).size != values.size`` for the
    finite numbers and strings labels are, by one sort: NumPy >= 2.3's
    hash-based ``np.unique`` takes seconds on millions of distinct integers
    (about 4 s per million against 0.1 s for a sort).
    """
    ordered = np.sort(values)
    return bool(np.any(ordered[1:] == ordered[:-1]))


def _check_scalar_label(value, kind, name):
    """Check a single label value (e.g. ``pos_label``) against ``kind``."""
    if kind == "str":
        ok = isinstance(value, str)
    else:
        ok = isinstance(value, numbers.Number) and not isinstance(value, complex)
        if ok and not np.isfinite(value):
            raise ValueError(f"The '{name}' parameter must be finite. Got {value!r}.")
    if not ok:
        raise TypeError(
            f"The '{name}' parameter must be a {'str' if kind == 'str' else 'numeric'} "
            f"label like the labels of y_true/y_pred. Got {value!r} instead."
        )
    return value


def _codes(values, labels, sorter, name, unknown):
    """Map ``values`` to positions in ``labels`` (``-1`` for unlisted values)."""
    sorted_labels = labels[sorter]
    pos = np.searchsorted(sorted_labels, values)
    pos_clip = np.minimum(pos, labels.shape[0] - 1)
    found = sorted_labels[pos_clip] == values
    if not np.all(found):
        if unknown == "error":
            missing = np.unique(values[~found])
            raise ValueError(
                f"The '{name}' parameter contains labels not in 'labels': "
                f"{missing[:10].tolist()}{' ...' if missing.size > 10 else ''}."
            )
    return np.where(found, sorter[pos_clip], -1).astype(np.intp)


def encode_labels(y_true, y_pred, labels=None, *, unknown="error"):
    """Validate ``y_true``/``y_pred`` and encode them as integer class codes.

    Parameters
    ----------
    y_true, y_pred : array-like
        Hard labels (see :func:`check_hard_labels`).
    labels : array-like of shape (n_classes,), default=None
        The class set and its order. ``None`` uses the sorted union of the
        classes in ``y_true`` and ``y_pred`` (``numpy.unique`` order).
    unknown : {"error", "ignore"}, default="error"
        What to do with values of ``y_true``/``y_pred`` absent from ``labels``:
        raise ``ValueError`` naming the argument, or encode them as ``-1``
        (they then count for no class; scikit-learn's behaviour for
        precision/recall/F1 with a subset of ``labels``).

    Returns
    -------
    true_codes, pred_codes : ndarray of intp, shape (n_samples,)
        Codes in ``0..n_classes-1`` (or ``-1``), positions in ``labels``.
    labels : ndarray of shape (n_classes,)

    Examples
    --------
    >>> from sigtest.metrics._check_labels import encode_labels
    >>> t, p, labels = encode_labels(["b", "a", "c"], ["a", "a", "b"])
    >>> t.tolist(), p.tolist(), labels.tolist()
    ([1, 0, 2], [0, 0, 1], ['a', 'b', 'c'])
    """
    y_true, y_pred, kind = check_label_pair(y_true, y_pred)
    if labels is None:
        labels, inverse = np.unique(np.concatenate([y_true, y_pred]), return_inverse=True)
        n = y_true.shape[0]
        inverse = inverse.reshape(-1).astype(np.intp)
        return inverse[:n], inverse[n:], labels
    labels = check_labels_param(labels, kind)
    return encode_checked_labels(y_true, y_pred, labels, unknown=unknown)


def encode_checked_labels(y_true, y_pred, labels, *, unknown="error"):
    """:func:`encode_labels` of arrays and a label set that are already checked.

    ``y_true`` and ``y_pred`` as :func:`check_label_pair` returns them,
    ``labels`` as :func:`check_labels_param` returns it (or
    ``numpy.unique`` of checked labels); nothing is validated again (the
    metrics that validate them first call this, not :func:`encode_labels`,
    so that a statistic of a few cell rows does not check them twice).
    """
    sorter = np.argsort(labels, kind="stable")
    t = _codes(y_true, labels, sorter, "y_true", unknown)
    p = _codes(y_pred, labels, sorter, "y_pred", unknown)
    return t, p, labels


def check_multilabel_indicator(y, name="y_true"):
    """Validate a multilabel array ``(n_samples, n_labels)`` with values in [0, 1].

    Returns a float64 array. ``bool`` and integer 0/1 arrays are accepted.
    """
    if isinstance(y, (str, bytes)) or np.isscalar(y):
        raise TypeError(f"The '{name}' parameter must be a 2-D array-like. Got {y!r}.")
    arr = np.asarray(y)
    if arr.dtype.kind not in "biuf":
        raise TypeError(
            f"The '{name}' parameter must be numeric (values in [0, 1]). Got dtype "
            f"{arr.dtype} instead."
        )
    if arr.ndim != 2:
        raise ValueError(
            f"The '{name}' parameter must be 2-D (n_samples, n_labels). Got an array "
            f"with {arr.ndim} dimension(s)."
        )
    if arr.shape[0] == 0 or arr.shape[1] == 0:
        raise ValueError(
            f"The '{name}' parameter is empty (shape {arr.shape}); at least one sample "
            "and one label are required."
        )
    arr = arr.astype(np.float64)
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"The '{name}' parameter must not contain NaN or infinity.")
    if np.any(arr < 0) or np.any(arr > 1):
        raise ValueError(f"The '{name}' parameter must hold values in [0, 1].")
    return arr
