r"""DeLong's structural components: the covariance of ROC AUCs on the same items.

For :math:`k` systems scoring the same :math:`m` positive items :math:`X_i`
and :math:`n` negative items :math:`Y_j`, with :math:`\psi(x, y) = 1` if
:math:`x > y`, :math:`1/2` if equal, 0 otherwise, the placement values
(structural components) of system :math:`r` are

.. math:: V^r_{10}(X_i) = \frac1n \sum_j \psi(X^r_i, Y^r_j), \qquad
          V^r_{01}(Y_j) = \frac1m \sum_i \psi(X^r_i, Y^r_j),

:math:`\widehat{\mathrm{AUC}}_r` is their mean, and DeLong, DeLong &
Clarke-Pearson (1988) estimate the covariance of the :math:`k` AUCs by

.. math:: S = \frac{S_{10}}{m} + \frac{S_{01}}{n},

with :math:`S_{10}`, :math:`S_{01}` the sample covariance matrices (divisor
:math:`m - 1`, :math:`n - 1`) of the :math:`V_{10}` and the :math:`V_{01}`.
The placements come from each system's one sort
(:class:`~sigtest.metrics._ranking.RankedScores`, the ranking the metric
computes once) in one numba pass over its tie groups (:func:`placements`,
NumPy twin :func:`~sigtest._engine.rank_metrics.auc_placements`), which
equals Sun & Xu's (2014) midrank formula :math:`V_{10}(X_i) = (T_Z(X_i) -
T_X(X_i))/n`: ``O(N)`` after the sort instead of DeLong's ``O(m n)``, and
no midranks among the positives and the negatives (Sun & Xu's two further
sorts).

:data:`DELONG_MIN_CLASS` is the smallest number of positives and of
negatives at which the test holds its level (measured by
``benchmarks/bench_delong.py``, see ``docs/which_test.md``).
"""

from __future__ import annotations

import math

import numpy as np

from sigtest._engine.kernels import NUMBA_ENABLED, _jit
from sigtest._engine.rank_metrics import auc_placements
from sigtest.metrics._ranking import ranked_value

__all__ = ["DELONG_MIN_CLASS", "auc_delong_interval", "delong_covariance", "placements",
           "ranking_score"]

#: Below this number of positive (or negative) items DeLong's normal
#: approximation can exceed its level: its variance then rests on the few
#: placements of the small class (about a t with m - 1 degrees of freedom read
#: as a normal). Two equally good binormal scorers (AUC .76, correlation .5),
#: two-sided .05, N = 1,000, 4,000 data sets a cell (band [.041, .059]):
#: 5 positives .107, 10 .073, 15 .063, 20 .069, 25 .070, 30 .063, 40 .050,
#: 50 .055; 10 negatives .076, 25 .062. Smaller majorities or an AUC of .92
#: hold better (30 of 200 .046; 15 of 30 .043); ``PairedPermutation`` holds
#: (.034 at 5 positives, 1,000 data sets). ``benchmarks/bench_delong.py --only size``.
DELONG_MIN_CLASS = 40


def _placements_py(values, items, positive, n_items):
    r"""One pass over a sorted binary component: every item's placement, and the AUC.

    ``values`` descending; a tie group :math:`g` with :math:`p_g` positives
    and :math:`n_g` negatives, :math:`P_{<g}` positives above it and
    :math:`N_{>g}` negatives below it gives its positives
    :math:`V_{10} = (N_{>g} + n_g/2)/n` and its negatives
    :math:`V_{01} = (P_{<g} + p_g/2)/m`; the AUC is
    :math:`\sum_g n_g (P_{<g} + p_g/2) / (m n)`. With unit weights every sum
    is a multiple of 1/2 below :math:`2^{53}`, so the values are exact and
    equal, bit for bit, the NumPy tie-group sums of
    :func:`~sigtest._engine.rank_metrics.auc_placements` and
    :func:`~sigtest.metrics._ranking.ranked_value`.
    """
    L = values.shape[0]
    m = 0
    for k in range(L):
        if positive[k]:
            m += 1
    n = L - m
    place = np.empty(n_items)
    is_positive = np.zeros(n_items, dtype=np.uint8)
    above_pos = 0.0
    above_neg = 0.0
    numerator = 0.0
    i = 0
    while i < L:
        gp = 0.0
        gn = 0.0
        j = i
        while j < L and values[j] == values[i]:
            if positive[j]:
                gp += 1.0
            else:
                gn += 1.0
            j += 1
        v10 = (n - above_neg - gn + 0.5 * gn) / n
        v01 = (above_pos + 0.5 * gp) / m
        for k in range(i, j):
            if positive[k]:
                place[items[k]] = v10
                is_positive[items[k]] = 1
            else:
                place[items[k]] = v01
        numerator += gn * (above_pos + 0.5 * gp)
        above_pos += gp
        above_neg += gn
        i = j
    return place, is_positive, numerator / (float(m) * float(n))


_placements = _jit(_placements_py)


def placements(ranked):
    r"""Every item's placement value of a binary ROC AUC ranking, and the AUC, in one pass.

    Parameters
    ----------
    ranked : RankedScores
        A binary ROC AUC ranking (one component, both classes present).

    Returns
    -------
    place : ndarray of shape (n_items,)
        :math:`V_{10}` of every positive item, :math:`V_{01}` of every
        negative one.
    is_positive : ndarray of shape (n_items,), bool
    auc : float
        Equal, bit for bit, to the metric's value (``ranked_value``).
    """
    if ranked.n_components != 1:
        raise ValueError("Placement values are defined for a binary AUC (one component).")
    if NUMBA_ENABLED:
        place, is_positive, auc = _placements(ranked.values, ranked.items, ranked.positive,
                                              ranked.n_items)
        return place, is_positive.astype(bool), float(auc)
    # the NumPy twin: the tie-group sums of auc_placements and the metric's own value
    v10, v01 = auc_placements(ranked)
    is_positive = ~np.isnan(v10)
    return np.where(is_positive, v10, v01), is_positive, float(ranked_value(ranked))


def ranking_score(ranked):
    """The metric value of a ranking: :func:`placements`' one pass for a binary ROC AUC.

    Other rankings (average precision, multiclass AUCs) get
    :func:`~sigtest.metrics._ranking.ranked_value`. Used by the input path
    (``prepare_paired(rank_once=True)``) for the observed scores.
    """
    if ranked.kind == "roc_auc" and ranked.n_components == 1:
        return placements(ranked)[2]
    return float(ranked_value(ranked))


def delong_covariance(rankings):
    r"""AUCs and DeLong's covariance of systems ranked on the same binary items.

    Parameters
    ----------
    rankings : sequence of RankedScores
        One binary ROC AUC ranking (one component) per system, all of the
        same ``y_true`` (the metric's ``ranking``).

    Returns
    -------
    auc : ndarray of shape (k,)
        The AUC of every system (``nan`` without a positive or a negative).
    cov : ndarray of shape (k, k)
        :math:`S = S_{10}/m + S_{01}/n`; ``nan`` when :math:`m < 2` or
        :math:`n < 2` (a sample covariance needs two items, as pROC's
        ``NA``).
    m, n : int
        Numbers of positives and negatives.
    """
    k = len(rankings)
    positive = rankings[0].positive
    m = int(np.count_nonzero(positive))
    n = int(positive.size - m)
    if m == 0 or n == 0:
        return np.full(k, np.nan), np.full((k, k), np.nan), m, n
    parts = [placements(r) for r in rankings]
    pos = parts[0][1]
    V10 = np.stack([place[pos] for place, _, _ in parts])
    V01 = np.stack([place[~pos] for place, _, _ in parts])
    auc = V10.mean(axis=1)
    if m < 2 or n < 2:
        return auc, np.full((k, k), np.nan), m, n
    cov = np.atleast_2d(np.cov(V10)) / m + np.atleast_2d(np.cov(V01)) / n
    return auc, cov, m, n


def auc_delong_interval(auc, variance, confidence_level):
    r"""pROC's DeLong interval of one AUC: :math:`\widehat{\mathrm{AUC}} \pm z\,\sqrt{S}`, clipped.

    :math:`z = \Phi^{-1}(1/2 + \text{level}/2)` and :math:`S` DeLong's
    variance of the AUC (:func:`delong_covariance` of one system); the
    ends are clipped to :math:`[0, 1]` as pROC's ``ci.auc(method="delong")``
    does. ``(nan, nan)`` when the variance is not finite.

    Parameters
    ----------
    auc, variance, confidence_level : float

    Returns
    -------
    (low, high) : tuple of float
    """
    from scipy.special import ndtri

    if not (math.isfinite(auc) and math.isfinite(variance)):
        return math.nan, math.nan
    half = float(ndtri(0.5 + float(confidence_level) / 2)) * math.sqrt(max(variance, 0.0))
    return min(1.0, max(0.0, auc - half)), min(1.0, max(0.0, auc + half))
