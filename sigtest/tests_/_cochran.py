"""Cochran's Q: do k systems have the same accuracy on the same items?"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from sigtest._results import FieldsDictMixin, renamed_fields
from sigtest.metrics import get_metric
from sigtest.tests_._sign import warn_outside

__all__ = ["CochranQResult", "cochrans_q"]


@renamed_fields(n_items="n_samples")
@dataclass(frozen=True)
class CochranQResult(FieldsDictMixin):
    """Result of :func:`cochrans_q`.

    Parameters
    ----------
    statistic : float
        Cochran's Q (0 when no item separates the systems).
    df : int
        Degrees of freedom of its chi-square null distribution, ``k - 1``.
    pvalue : float
        :math:`P(\\chi^2_{k-1} \\ge Q)` (1 when no item separates the systems).
    n_samples : int
        Number of items.
    n_discordant : int
        Items that some systems get right and others wrong: the only ones
        that carry information.
    systems : tuple of str
        System names, in input order.
    """

    statistic: float
    df: int
    pvalue: float
    n_samples: int
    n_discordant: int
    systems: tuple

    def __str__(self):
        return (f"Cochran's Q = {self.statistic:.4f}, df = {self.df}, p = {self.pvalue:.4g} "
                f"({len(self.systems)} systems, {self.n_samples} items, {self.n_discordant} "
                "discordant)")


def _correctness(y_true, predictions):
    """``(names, X)``: the (n_samples, k) 0/1 matrix of right answers, validated."""
    if isinstance(predictions, Mapping):
        items = [(str(name), value) for name, value in predictions.items()]
    elif hasattr(predictions, "columns") and hasattr(predictions, "to_numpy"):  # DataFrame
        items = [(str(col), predictions[col]) for col in predictions.columns]
    else:
        raise TypeError(
            "The 'predictions' parameter must be a mapping name -> predicted labels or a "
            f"DataFrame with one column per system. Got {type(predictions).__name__} instead."
        )
    names = [name for name, _ in items]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ValueError(f"Duplicate system names {dup} in 'predictions'.")
    if len(items) < 2:
        raise ValueError(
            "The 'predictions' parameter must hold at least 2 systems for Cochran's Q "
            f"(got {len(items)})."
        )
    y = np.asarray(y_true.to_numpy() if hasattr(y_true, "to_numpy") else y_true)
    if y.ndim != 1:
        raise ValueError(
            f"The 'y_true' parameter must be 1-D labels. Got shape {y.shape} instead.")
    accuracy = get_metric("accuracy")
    columns = []
    for name, value in items:
        pred = np.asarray(value.to_numpy() if hasattr(value, "to_numpy") else value)
        if pred.ndim != 1:
            raise ValueError(f"System {name!r} of 'predictions' must be 1-D labels. Got "
                             f"shape {pred.shape} instead.")
        try:  # the metrics' input checks: lengths, NaN, mixed label types
            columns.append(accuracy.statistics(y, pred)[:, 0])
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"System {name!r} of 'predictions': {exc}") from exc
    return tuple(names), np.column_stack(columns)


def cochrans_q(y_true, predictions):
    r"""Test whether ``k`` systems have the same accuracy on the same items (Cochran's Q).

    The omnibus test to run before pairwise McNemar tests (the gatekeeper:
    when Q is not significant, no pair is examined). With
    :math:`X_{ij} = 1` when system :math:`j` gets item :math:`i` right, the
    column totals :math:`C_j = \sum_i X_{ij}`, the row totals
    :math:`R_i = \sum_j X_{ij}` and :math:`N = \sum_{ij} X_{ij}`,

    .. math::

        Q = \frac{(k - 1)\,[\,k \sum_j C_j^2 - N^2\,]}{k N - \sum_i R_i^2},

    asymptotically :math:`\chi^2_{k-1}` under the null hypothesis that the
    systems are exchangeable on each item (equal accuracies). Items that all
    systems get right, or all wrong, do not change Q. For ``k = 2`` Q is
    McNemar's uncorrected chi-square :math:`(b - c)^2 / (b + c)` of the
    discordant counts, as in statsmodels' ``cochrans_q``.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels.
    predictions : mapping or DataFrame
        Predicted labels of each system, ``{name: y_pred}`` or one column per
        system (as :func:`sigtest.compare`); at least 2 systems. An item is
        right when the prediction equals ``y_true``.

    Returns
    -------
    CochranQResult
        ``statistic``, ``df`` (``k - 1``), ``pvalue``, ``n_samples``,
        ``n_discordant``, ``systems``.

    Raises
    ------
    ValueError
        Fewer than 2 systems, duplicate names, predictions not 1-D or of
        another length than ``y_true``, NaN labels.
    TypeError
        ``predictions`` neither a mapping nor a DataFrame; labels of mixed
        types.

    Warns
    -----
    DegenerateDistributionWarning
        No item that some systems get right and others wrong (e.g. identical
        systems): Q is 0/0, reported as ``statistic = 0``, ``pvalue = 1``.

    Notes
    -----
    The chi-square approximation is asymptotic in the number of discordant
    items (``n_discordant``); with a handful of them the p-value is only
    approximate. Equal to statsmodels' ``cochrans_q`` on the 0/1 matrix of
    right answers.

    References
    ----------
    W. G. Cochran (1950). The comparison of percentages in matched samples.
    Biometrika 37(3/4), 256-266.
    W. J. Conover (1999). Practical Nonparametric Statistics, 3rd ed.,
    section 4.6. Wiley.

    Examples
    --------
    >>> import numpy as np
    >>> from sigtest import cochrans_q
    >>> y = np.zeros(12, dtype=int)
    >>> right = {"A": [1, 1, 0, 1, 0, 1, 1, 1, 0, 0, 1, 1],
    ...          "B": [1, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1],
    ...          "C": [1, 1, 0, 0, 0, 1, 1, 0, 1, 0, 1, 1]}
    >>> res = cochrans_q(y, {name: 1 - np.array(r) for name, r in right.items()})
    >>> round(res.statistic, 4), res.df, round(res.pvalue, 6)   # Conover (1999), p. 253
    (2.8, 2, 0.246597)
    """
    from scipy.stats import chi2

    names, x = _correctness(y_true, predictions)
    n_items, k = x.shape
    rows = x.sum(axis=1)
    n_discordant = int(np.count_nonzero((rows > 0) & (rows < k)))
    if n_discordant == 0:
        warn_outside("cochrans_q: every item is right for all systems or wrong for all "
                     "(e.g. identical systems); the test carries no information and p = 1.")
        return CochranQResult(0.0, k - 1, 1.0, n_items, 0, names)
    cols = x.sum(axis=0)
    total = rows.sum()
    q = (k - 1) * (k * np.dot(cols, cols) - total ** 2) / (k * total - np.dot(rows, rows))
    q = max(float(q), 0.0)
    return CochranQResult(q, k - 1, float(chi2.sf(q, k - 1)), n_items, n_discordant, names)
