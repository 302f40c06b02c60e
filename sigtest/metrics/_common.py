"""Helpers shared by the hard-label and the soft-label metrics.

* :func:`check_zero_division` and :func:`divide`: the one rule for ratios
  whose denominator vanishes (precision of a class never predicted, F1 of a
  class neither true nor predicted, soft precision of a class with no
  predicted mass, ...);
* :func:`nan_mean`: the mean over classes that leaves undefined (NaN)
  per-class values out, scikit-learn's ``_nanaverage``;
* :func:`warn_undefined`: scikit-learn's ``UndefinedMetricWarning``, pointed
  at the user's line;
* :func:`fill_doc`: docstring templating (one parameter block shared by
  several public functions);
* :data:`SOFT_TARGET_PARAM` and :func:`union_labels`, shared by the scorer
  factory and the scorer classes;
* :func:`xlogy` and :func:`entr`: ``scipy.special``'s functions, imported on
  first use so that ``import sigtest.metrics`` does not load SciPy.
"""

from __future__ import annotations

from numbers import Real

import numpy as np

from sigtest.utils import warn_external

__all__ = [
    "SOFT_TARGET_PARAM",
    "ZERO_DIVISION_DOC",
    "check_zero_division",
    "divide",
    "entr",
    "fill_doc",
    "nan_mean",
    "union_labels",
    "warn_undefined",
    "xlogy",
]

#: Name of the metadata carrying the true distributions ``P`` of soft metrics.
SOFT_TARGET_PARAM = "y_true_soft"

ZERO_DIVISION_DOC = """\
A ratio ``num / den`` is *undefined* where ``den <= 0``. Every denominator
here is a sum of non-negative weights or masses, so this means exactly zero
mass (a class never predicted, never true, ...); a denominator that is
merely tiny is divided as usual. Undefined ratios take the value of
``zero_division``: ``0.0`` or ``1.0``, or ``np.nan`` to leave them out of
means over classes; ``"warn"`` gives ``0.0`` and one
``UndefinedMetricWarning`` per call of the public function (resamples are
filled silently: the significance engine passes ``zero_division=0.0``).
"""


def check_zero_division(zero_division):
    """Return the fill value of an undefined ratio for ``zero_division``.

    Parameters
    ----------
    zero_division : {"warn", 0.0, 1.0, np.nan}
        ``"warn"`` fills with 0.0 (the caller warns); bools are refused.

    Returns
    -------
    fill : float

    Raises
    ------
    ValueError
        For any other value, naming the parameter.
    """
    if isinstance(zero_division, str):
        if zero_division == "warn":
            return 0.0
    elif isinstance(zero_division, Real) and not isinstance(zero_division, bool):
        value = float(zero_division)
        if value in (0.0, 1.0) or np.isnan(value):
            return value
    raise ValueError(
        "The 'zero_division' parameter must be 'warn', 0.0, 1.0 or np.nan. "
        f"Got {zero_division!r} instead."
    )


def divide(numerator, denominator, zero_division):
    """``numerator / denominator`` with the ``zero_division`` rule; see module doc.

    Parameters
    ----------
    numerator, denominator : array-like
        Broadcastable float arrays (sums of statistics).
    zero_division : {"warn", 0.0, 1.0, np.nan}
        Value of an undefined ratio (``den <= 0``); ``"warn"`` means 0.0
        here, the caller decides whether to warn from the returned mask.

    Returns
    -------
    ratio : ndarray of float64
    undefined : ndarray of bool
        Where ``den <= 0``.
    """
    fill = check_zero_division(zero_division)
    numerator = np.asarray(numerator, dtype=np.float64)
    denominator = np.asarray(denominator, dtype=np.float64)
    undefined = denominator <= 0
    if not undefined.any():  # fast path, same values: nothing to fill
        return np.asarray(numerator / denominator), undefined
    with np.errstate(divide="ignore", invalid="ignore"):
        out = numerator / np.where(undefined, 1.0, denominator)
    return np.where(undefined, fill, out), undefined


def nan_mean(values, weights=None):
    """Mean over the last axis ignoring NaN (scikit-learn's ``_nanaverage``).

    Parameters
    ----------
    values : ndarray of float64
        Per-class values, classes on the last axis; NaN marks an undefined
        value (``zero_division=np.nan``) that is left out.
    weights : ndarray, default=None
        Per-class weights (e.g. supports), broadcastable to ``values``. The
        weighted mean over non-NaN entries; if their weights sum to 0, the
        plain mean over non-NaN entries.

    Returns
    -------
    mean : ndarray of float64
        Shape ``values.shape[:-1]``; NaN where every value is NaN.
    """
    isnan = np.isnan(values)
    if weights is None and values.shape[-1] and not isnan.any():
        # fast path, same values: no NaN to drop, every count is the length
        return np.asarray(values.sum(axis=-1) / values.shape[-1])
    filled = np.where(isnan, 0.0, values)
    count = (~isnan).sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        plain = np.where(count > 0, filled.sum(axis=-1) / np.maximum(count, 1), np.nan)
        if weights is None:
            return plain
        w = np.where(isnan, 0.0, weights)
        wsum = w.sum(axis=-1)
        weighted = (w * filled).sum(axis=-1) / np.where(wsum > 0, wsum, 1.0)
    return np.where(wsum > 0, weighted, plain)


def undefined_metric_warning():
    """scikit-learn's ``UndefinedMetricWarning`` class (imported on first use)."""
    from sklearn.exceptions import UndefinedMetricWarning

    return UndefinedMetricWarning


def warn_undefined(message, *, hint=True):
    """Warn ``UndefinedMetricWarning`` at the first frame outside sigtest.

    Parameters
    ----------
    message : str
        What is undefined and what it was set to.
    hint : bool, default=True
        Append scikit-learn's hint about the ``zero_division`` parameter.
    """
    if hint:
        message += " Use the `zero_division` parameter to control this behavior."
    warn_external(message, undefined_metric_warning())


def fill_doc(**sections):
    """Decorator replacing ``{name}`` lines of a docstring by shared text.

    A line holding only ``{name}`` (any indentation) is replaced by
    ``sections[name]``, dedented to column 0 and re-indented like the
    placeholder, so a shared block reads as if written in each docstring.
    Apply it *below* any wrapping decorator, so the wrapped function carries
    the final text.

    Parameters
    ----------
    **sections : str
        Text of each placeholder.

    Returns
    -------
    decorator : callable
        Returns the function, its ``__doc__`` filled.

    Raises
    ------
    ValueError
        If a placeholder named in ``sections`` is missing from the docstring.
    """
    import textwrap

    def decorator(func):
        lines = (func.__doc__ or "").split("\n")
        out = []
        found = set()
        for line in lines:
            key = line.strip()
            if key.startswith("{") and key.endswith("}") and key[1:-1] in sections:
                name = key[1:-1]
                found.add(name)
                indent = line[: len(line) - len(line.lstrip())]
                text = textwrap.dedent(sections[name]).strip("\n")
                out.extend(indent + s if s else "" for s in text.split("\n"))
            else:
                out.append(line)
        missing = set(sections) - found
        if missing:
            raise ValueError(f"{func.__name__}: no placeholder line for {sorted(missing)}.")
        func.__doc__ = "\n".join(out)
        return func

    return decorator


def xlogy(x, y):
    """``x * log(y)``, 0 where ``x == 0`` (``scipy.special.xlogy``, lazily imported).

    Parameters
    ----------
    x, y : array-like

    Returns
    -------
    out : ndarray
    """
    from scipy.special import xlogy as _xlogy

    return _xlogy(x, y)


def entr(x):
    """``-x * log(x)``, 0 at 0 (``scipy.special.entr``, lazily imported).

    Parameters
    ----------
    x : array-like

    Returns
    -------
    out : ndarray
    """
    from scipy.special import entr as _entr

    return _entr(x)


def _unique_labels(values):
    values = np.asarray(values)
    if values.dtype.kind == "O":
        return np.array(sorted(set(values.tolist())), dtype=object)
    return np.unique(values)


def union_labels(*arrays):
    """Sorted union of the labels of ``arrays`` (``None`` entries skipped).

    Parameters
    ----------
    *arrays : array-like or None
        Label arrays of any shape; object arrays are sorted as Python objects.

    Returns
    -------
    labels : ndarray
        1-D, sorted, distinct.
    """
    arrays = [np.asarray(a).ravel() for a in arrays if a is not None]
    if any(a.dtype.kind == "O" for a in arrays):
        arrays = [a.astype(object) for a in arrays]
    return _unique_labels(np.concatenate(arrays))
