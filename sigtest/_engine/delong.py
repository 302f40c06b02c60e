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
computes once) by the tie-group sums of
:func:`~sigtest._engine.rank_metrics.auc_placements`, which equal Sun & Xu's
(2014) midrank formula: ``O(N)`` after the sort instead of DeLong's
``O(m n)``.

:data:`DELONG_MIN_CLASS` is the smallest number of positives and of
negatives at which the test holds its level (measured by
``benchmarks/bench_delong.py``, see ``docs/which_test.md``).
"""

from __future__ import annotations

import math

import numpy as np

from sigtest._engine.rank_metrics import auc_placements

__all__ = ["DELONG_MIN_CLASS", "auc_delong_interval", "delong_covariance"]

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
    placements = [auc_placements(r) for r in rankings]
    k = len(placements)
    pos = ~np.isnan(placements[0][0])
    m, n = int(pos.sum()), int(pos.size - pos.sum())
    if m == 0 or n == 0:
        return np.full(k, np.nan), np.full((k, k), np.nan), m, n
    V10 = np.stack([v10[pos] for v10, _ in placements])
    V01 = np.stack([v01[~pos] for _, v01 in placements])
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
