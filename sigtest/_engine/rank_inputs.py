r"""Within-system normalised ranks: what a permutation of a rank metric swaps.

A rank metric (ROC AUC, average precision: a :class:`~sigtest.metrics.Metric`
with a ``ranking``) depends on each system's scores only through their
order, so its value is unchanged by any strictly increasing transform of a
system's scores. A paired permutation that swaps the RAW scores of A and B
item by item is not: the permuted system mixes two scales, and its AUC
depends on how A's scores compare with B's (probabilities against their
fourth powers give another p-value for the same AUCs). Its null hypothesis
is "the two score vectors are exchangeable", not "the two AUCs are equal".

The permutation of a rank metric therefore swaps within-system normalised
ranks instead: each system's scores (each column of a score matrix) are
replaced by their average ranks divided by the number of items,

.. math:: r_i = \frac{1}{N}\Bigl(\#\{j : s_j < s_i\}
          + \tfrac{1}{2}\bigl(\#\{j : s_j = s_i\} + 1\bigr)\Bigr) \in (0, 1],

which keep the system's order and its ties (so its metric value is the
same) and put both systems on one scale, uniform over the items. The
permutation distribution is then a function of the two orders alone:
invariant to any strictly increasing transform of either system's scores.

A multiclass AUC (``roc_auc_ovr``, ``roc_auc_ovo``) is an average of binary
problems (one class against the rest, or one pair of classes), each a
component of the system's sorted scores: every component's scores are
replaced by their normalised ranks within the component
(:func:`ranked_pair_of_ranks`; for a binary metric and for one-vs-rest the
component holds every item, so these are the column's ranks). This is done
on the sorted scores rather than on the inputs because the mixed ranks of
a multiclass task are no probabilities, which the metric's input check
requires.
"""

from __future__ import annotations

import copy
import dataclasses

import numpy as np

from sigtest._engine.rank_metrics import ranked_pair

__all__ = ["average_ranks", "permutes_ranks", "ranked_pair_of_ranks", "within_system_ranks"]


def average_ranks(scores):
    """Average ranks (1-based, ties share their mean rank) of each column, divided by N.

    Parameters
    ----------
    scores : array-like of shape (n_samples,) or (n_samples, n_columns)

    Returns
    -------
    ranks : ndarray of the same shape, float64
        Values in ``(0, 1]``; equal scores of a column get equal ranks.

    Examples
    --------
    >>> average_ranks([0.3, 0.9, 0.3, 0.1])
    array([0.625, 1.   , 0.625, 0.25 ])
    """
    x = np.asarray(scores, dtype=np.float64)
    flat = x.reshape(x.shape[0], -1)
    n = flat.shape[0]
    out = np.empty(flat.shape, dtype=np.float64)
    for k in range(flat.shape[1]):
        col = flat[:, k]
        order = np.argsort(col, kind="stable")
        sorted_col = col[order]
        # start of every tie group, and its average 1-based rank
        starts = np.flatnonzero(np.r_[True, sorted_col[1:] != sorted_col[:-1]])
        ends = np.r_[starts[1:], n]
        mean_rank = (starts + ends + 1) / 2.0
        group = np.repeat(np.arange(starts.size), ends - starts)
        out[order, k] = mean_rank[group] / n
    return out.reshape(x.shape)


def permutes_ranks(paired):
    """Whether a permutation of ``paired`` swaps ranks: a metric with a ``ranking``, raw data."""
    return (getattr(paired.metric, "ranking", None) is not None
            and not paired.has_statistics and paired.data is not None)


def within_system_ranks(paired):
    """``paired`` with each system's scores replaced by their normalised ranks.

    Parameters
    ----------
    paired : PairedData
        Data of a rank metric (:func:`permutes_ranks`); other data are
        returned unchanged.

    Returns
    -------
    PairedData
        The same data, observed scores and design, with ``data = (y_true,
        ranks_a, ranks_b, sample_weight)`` (:func:`average_ranks`, per
        column of a score matrix), and no kept rankings (those of the raw
        scores).
    """
    if not permutes_ranks(paired):
        return paired
    y, a, b, w = paired.data
    return dataclasses.replace(paired, data=(y, average_ranks(a), average_ranks(b), w),
                               rankings=None)


def _component_ranks(values, starts):
    """Normalised average ranks, within every component, of scores sorted descending."""
    out = np.empty(values.shape[0], dtype=np.float64)
    for c in range(starts.shape[0] - 1):
        lo, hi = int(starts[c]), int(starts[c + 1])
        v = values[lo:hi]
        n = hi - lo
        if n == 0:
            continue
        first = np.flatnonzero(np.r_[True, v[1:] != v[:-1]])
        last = np.r_[first[1:], n]
        # descending position p has ascending 1-based rank n - p; a tie group averages them
        mean_rank = n - (first + last - 1) / 2.0
        out[lo:hi] = np.repeat(mean_rank, last - first) / n
    return out


def ranked_pair_of_ranks(paired):
    """The :class:`~sigtest._engine.rank_metrics.RankedPair` of ``paired`` on normalised ranks.

    Each system's scores are sorted once, by the input path (the rankings
    kept in ``paired.rankings``) or here
    (:func:`~sigtest._engine.rank_metrics.ranked_pair`); then, within every
    component, the sorted values are replaced by their average ranks over
    the component's size (the order and its ties are kept, so each
    system's metric is unchanged). What the permutation kernel
    (:func:`~sigtest._engine.rank_metrics.rank_permutation_scores`) pools
    and swaps.

    Parameters
    ----------
    paired : PairedData
        Data of a rank metric (:func:`permutes_ranks`).

    Returns
    -------
    RankedPair
    """
    rp = copy.copy(ranked_pair(paired))
    rp.values = np.ascontiguousarray(np.stack(
        [_component_ranks(rp.values[s], rp.starts) for s in range(2)]))
    rp._pooled_cache = None
    return rp
