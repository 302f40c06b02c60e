"""Metrics that are the mean of per-item 0/1 values, and those values: what the bulk paths read.

Both bulk paths over all pairs (:mod:`~sigtest._workflows.compare.bulk`, the
BCa interval on shared draws, and :mod:`~sigtest._workflows.compare.bulk_mcnemar`)
need of each system only a 0/1 column per item: its per-item score, or
whether its hard label is right.
"""

import math
from typing import NamedTuple

import numpy as np

from sigtest._engine.paired import metric_values
from sigtest._engine.shared_job import system_data

__all__ = ["UNDEFINED_FIELDS", "ZeroOneTables", "binary_columns", "member_tables", "row_values",
           "zero_one_mean", "zero_one_tables"]


def zero_one_mean(metric, kwargs):
    """Whether ``metric`` (with ``kwargs``) is the mean of per-item 0/1 values.

    ``"mean"`` of per-item scores (no keyword), and ``"accuracy"`` of hard
    labels (the mean of ``y_pred == y_true``; its only keyword, ``labels``,
    is the class set, which does not change it): both have the statistics
    ``[value, 1]`` per item.
    """
    if not metric.has_statistics:
        return False
    if metric.name == "mean":
        return not kwargs
    return (metric.name == "accuracy" and metric.input_type == "labels"
            and set(kwargs) <= {"labels"})


def binary_columns(y, stacks, systems, labels):
    """``{system: 0/1 float32 column}``: per-item scores that are all 0 or 1, or
    for hard labels (``labels`` True) whether each prediction equals ``y``."""
    out = {}
    for s in systems:
        x = np.asarray(stacks[s][0])
        if labels:
            if x.shape == y.shape and x.ndim == 1:
                out[s] = (x == y).astype(np.float32)
        elif x.dtype.kind in "biuf" and x.ndim == 1 and np.all((x == 0) | (x == 1)):
            out[s] = x.astype(np.float32)
    return out


class ZeroOneTables(NamedTuple):
    """The 2 x 2 tables of every pair of systems with 0/1 columns.

    Attributes
    ----------
    order : list
        The systems with 0/1 columns, sorted.
    where : dict
        ``{system: index into order}``.
    counts : ndarray of float64, shape (k, k)
        ``counts[a, b]``: items both ``order[a]`` and ``order[b]`` got right
        (``n11``); the diagonal holds each system's number of right items.
    sums : ndarray of float64, shape (k,)
        The diagonal of ``counts``.
    n : int
        The number of items.
    scores : ndarray of float64, shape (k,)
        Each system's metric value.
    """

    order: list
    where: dict
    counts: np.ndarray
    sums: np.ndarray
    n: int
    scores: np.ndarray


def zero_one_tables(view, metric, kwargs, systems):
    """The :class:`ZeroOneTables` of ``systems`` in ``view`` (None: no 0/1 column).

    One product ``X^T X`` of the systems' 0/1 columns ``X`` (float32: its
    sums of ones are exact below ``2**24`` items, float64 above) gives every
    pair's ``n11``; the systems' scores are the metric of their sums.
    Systems whose values are not all 0 or 1 are left out of ``order``.
    """
    y, stacks = view[metric.input_type]
    columns = binary_columns(np.asarray(y), stacks, systems, metric.input_type == "labels")
    if not columns:
        return None
    order = sorted(columns)
    X = np.stack([columns[s] for s in order], axis=1)  # (N, k') 0/1
    n = X.shape[0]
    if n >= 2**24:
        X = X.astype(np.float64)
    counts = (X.T @ X).astype(np.float64)
    sums = np.diag(counts).copy()
    data = system_data(view, order[0], metric, kwargs)
    if data.n_statistics != 2:  # the mean's (value, weight) statistics
        return None
    totals = np.stack([sums, np.full(len(order), float(n))], axis=1)
    scores = metric_values(metric, data.resample_params, totals)
    return ZeroOneTables(order, {s: c for c, s in enumerate(order)}, counts, sums, n, scores)


def member_tables(group):
    """The :class:`ZeroOneTables` of the systems of a
    :class:`~sigtest._workflows.compare.plan_tasks.JobGroup` and the positions of its pairs
    both of whose systems have a 0/1 column (an int array, empty with None if none).
    """
    tables = zero_one_tables(group.view, group.metric, group.kwargs, group.systems())
    if tables is None:
        return None, np.empty(0, dtype=np.int64)
    return tables, np.flatnonzero(group.positions(tables.where)[2])


#: The fields a two-sided row without a margin, a posterior or a concentration has undefined.
UNDEFINED_FIELDS = ("margin", "margin_low", "margin_high", "prob_worse", "prob_equivalent",
                    "prob_better", "n_effective")
_UNDEFINED = dict.fromkeys(UNDEFINED_FIELDS, math.nan)


def row_values(score_a, score_b, delta, low, high, level, pvalue, n_resamples):
    """One two-sided row's values, as :func:`~sigtest._workflows.compare.run._pair_rows`
    gives them (an interval of no finite end has no level)."""
    finite = math.isfinite(low) or math.isfinite(high)
    return {
        "alternative": "two-sided",
        "score_a": float(score_a),
        "score_b": float(score_b),
        "delta": float(delta),
        "ci_low": float(low),
        "ci_high": float(high),
        "ci_level": level if finite else math.nan,
        "pvalue": float(pvalue),
        "n_resamples": int(n_resamples),
        **_UNDEFINED,
    }

