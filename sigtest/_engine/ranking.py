r"""Rank inference from shared resamples: rank intervals, P(best), model confidence set.

Every function takes the *oriented* observed scores ``theta`` (shape ``(k,)``,
greater is better: a loss is negated) and their bootstrap replicates ``T``
(shape ``(B, k)``), all systems resampled on the same draws of the test
items (:mod:`sigtest._engine.shared`), so that ``T`` carries the correlation
between the systems' scores.

* :func:`rank_intervals`: simultaneous confidence intervals for all ranks
  from simultaneous (max-|t|, studentised) bootstrap intervals of all
  pairwise differences (Mogstad, Romano, Shaikh & Wilhelm 2024, sec. 3;
  Hall & Miller 2009 for the bootstrap of ranks).
* :func:`best_probability`: the share of resamples in which a system is
  best, ties split.
* :func:`model_confidence_set`: the set of systems not significantly worse
  than the best, by sequential elimination with the :math:`T_{max}`
  statistic (Hansen, Lunde & Nason 2011).

Pairs with a bootstrap standard deviation of exactly zero are decided by
their observed difference alone: equal (e.g. identical systems) means never
significantly different, unequal (every resample gives the same non-zero
difference: every item differs the same way) means significantly different;
such pairs are left out of the maximum that sets the critical value.
"""

from __future__ import annotations

import math

import numpy as np

from sigtest._engine.ranking_mcs import incremental_mcs
from sigtest._engine.ranking_mcs_exact import model_confidence_set_exact
from sigtest._engine.ranking_numpy import numpy_pairwise_t
from sigtest._engine.ranking_pairs import column_major, pair_max_t, pair_std

__all__ = ["best_probability", "model_confidence_set", "observed_ranks", "rank_intervals"]


#: Pairs x resamples up to which :func:`pairwise_t` and :func:`model_confidence_set`
#: run in NumPy (the same bits; loading their kernels would cost more than they save).
NUMPY_MAX_WORK = 5 * 10**7


def observed_ranks(theta):
    """Competition ranks, 1 = best: ``1 + #{l: theta_l > theta_j}`` (ties share the best rank)."""
    theta = np.asarray(theta, dtype=np.float64)
    return 1 + (theta[None, :] > theta[:, None]).sum(axis=1)


def _critical(stat, level):
    """Order statistic ``ceil(level (B + 1))`` of ``stat`` (conservative), capped at B."""
    B = stat.shape[0]
    r = min(B, max(1, math.ceil(level * (B + 1) - 1e-9)))
    return float(np.partition(stat, r - 1)[r - 1])


def pairwise_t(theta, T, n_threads=1):
    """Observed differences, their bootstrap standard deviations and the max-|t| replicates.

    Parameters
    ----------
    theta : array-like of shape (k,)
    T : array-like of shape (B, k)
        Finite bootstrap replicates.
    n_threads : int, default=1
        Threads of the kernels (:mod:`sigtest._engine.ranking_pairs`); the
        output does not depend on it.

    Returns
    -------
    diff : ndarray (k, k)
        ``theta_j - theta_l``.
    sd : ndarray (k, k)
        Bootstrap standard deviation of ``T_j - T_l`` (``ddof=1``).
    max_t : ndarray (B,)
        :math:`\\max_{j<l,\\ sd_{jl}>0} |(T_{bj} - T_{bl}) - (\\theta_j - \\theta_l)| / sd_{jl}`
        (0 when no pair has a positive standard deviation).

    Notes
    -----
    The values are those of ``numpy.std(T[:, j, None] - T[:, j + 1:], axis=0,
    ddof=1)`` and of the maximum of the studentised deviations, system
    ``j`` after system ``j``, bit for bit (NumPy's sums, hence the last bits,
    depend on the memory layout of ``T``: C- or F-contiguous, both followed); the kernels of
    :mod:`sigtest._engine.ranking_pairs` compute them in cache-sized tiles
    without forming the differences, and skip the tiles that cannot reach a
    resample's maximum; up to :data:`NUMPY_MAX_WORK` pairs x resamples
    NumPy computes them (:mod:`sigtest._engine.ranking_numpy`).
    """
    theta = np.ascontiguousarray(theta, dtype=np.float64)
    T = np.asarray(T, dtype=np.float64)
    B, k = T.shape
    diff = theta[:, None] - theta[None, :]
    if B < 2:
        return diff, np.zeros((k, k)), np.zeros(B)
    if (k * (k - 1) // 2) * B <= NUMPY_MAX_WORK:  # small: NumPy, no kernel to load
        return numpy_pairwise_t(theta, T)
    pairwise = column_major(T)  # how NumPy would have summed (the layout of T)
    T = np.ascontiguousarray(T)
    sd = pair_std(T, n_threads, pairwise)
    return diff, sd, pair_max_t(T, theta, diff, sd, n_threads)


def rank_intervals(theta, T, confidence_level=0.95, *, n_threads=1):
    r"""Simultaneous confidence intervals for the ranks of all systems.

    Parameters
    ----------
    theta : array-like of shape (k,)
        Oriented observed scores (greater is better).
    T : array-like of shape (B, k)
        Their bootstrap replicates on shared resamples.
    confidence_level : float, default=0.95
        Joint level :math:`1 - \alpha` of all the intervals.
    n_threads : int, default=1
        Threads of :func:`pairwise_t` (the output does not depend on it).

    Returns
    -------
    rank_low, rank_high : ndarray of int, shape (k,)
        ``rank_low = 1 + #{systems significantly better}``,
        ``rank_high = k - #{systems significantly worse}``.
    better : ndarray of bool, shape (k, k)
        ``better[l, j]``: system ``l`` is significantly better than ``j``.

    Notes
    -----
    With :math:`\hat\Delta_{jl} = \hat\theta_j - \hat\theta_l`,
    :math:`\hat\sigma_{jl}` the bootstrap standard deviation of
    :math:`\Delta^*_{jl}` and :math:`\hat c` the :math:`1-\alpha` quantile
    of :math:`\max_{j<l} |\Delta^*_{jl} - \hat\Delta_{jl}| / \hat\sigma_{jl}`,
    the intervals :math:`\hat\Delta_{jl} \pm \hat c \hat\sigma_{jl}` hold
    jointly with probability :math:`\to 1-\alpha`; on that event every rank
    lies in its interval, so the rank intervals are simultaneous (Mogstad et
    al. 2024, Theorem 3.1; the step-down refinement is not applied, which
    only makes the intervals conservative).

    References
    ----------
    M. Mogstad, J. P. Romano, A. M. Shaikh and D. Wilhelm (2024). Inference
    for ranks with applications to mobility across neighbourhoods and
    academic achievement across countries. Review of Economic Studies 91(1).
    P. Hall and H. Miller (2009). Using the bootstrap to quantify the
    authority of an empirical ranking. Annals of Statistics 37(6B).
    """
    diff, sd, max_t = pairwise_t(theta, T, n_threads)
    k = diff.shape[0]
    c = _critical(max_t, confidence_level) if max_t.shape[0] else math.inf
    with np.errstate(divide="ignore", invalid="ignore"):
        better = np.where(sd > 0, diff - c * sd > 0, diff > 0)
    np.fill_diagonal(better, False)
    rank_low = 1 + better.sum(axis=0)
    rank_high = k - better.sum(axis=1)
    return rank_low.astype(np.int64), rank_high.astype(np.int64), better


def best_probability(T):
    """Share of resamples in which each system is best (ties split equally).

    Parameters
    ----------
    T : array-like of shape (B, k)

    Returns
    -------
    p_best : ndarray of shape (k,)
        Sums to 1.
    """
    T = np.asarray(T, dtype=np.float64)
    best = T == T.max(axis=1, keepdims=True)
    share = best / best.sum(axis=1, keepdims=True)
    return share.mean(axis=0)


def model_confidence_set(theta, T, confidence_level=0.95, *, tie_order=None):
    r"""Model confidence set of the best system(s) by elimination (T_max statistic).

    Parameters
    ----------
    theta : array-like of shape (k,)
        Oriented observed scores (greater is better).
    T : array-like of shape (B, k)
        Bootstrap replicates on shared resamples.
    confidence_level : float, default=0.95
        :math:`1 - \alpha`: the set contains the best system with
        probability at least :math:`1 - \alpha` asymptotically.
    tie_order : array-like of shape (k,), optional
        Rank of each system's name, to break exact ties in what is
        eliminated independently of the order of the systems.

    Returns
    -------
    in_set : ndarray of bool, shape (k,)
    pvalues : ndarray of shape (k,)
        MCS p-values (the running maximum of the elimination tests; 1 for
        the systems left in the set).

    Notes
    -----
    On the surviving set :math:`M` (size :math:`m`), the relative loss of
    system :math:`i` is :math:`\hat d_{i} = \bar\theta_M - \hat\theta_i`
    (positive: worse than the average of the set), its bootstrap
    counterpart :math:`d^*_{i}` from the same resample, and
    :math:`t_i = \hat d_i / \hat\sigma_i` with :math:`\hat\sigma_i` the
    bootstrap standard deviation of :math:`d^*_i`. The test of equal
    performance of :math:`M` rejects when :math:`T_{max} = \max_i t_i`
    exceeds the bootstrap distribution of
    :math:`\max_i (d^*_i - \hat d_i)/\hat\sigma_i`, with p-value
    :math:`(1 + \#\{T^*_{max} \ge T_{max}\}) / (B + 1)`; then the system
    with the largest :math:`t_i` is eliminated, and the procedure repeats
    until a test does not reject at :math:`\alpha` or one system is left
    (Hansen, Lunde & Nason 2011, sec. 3.1). Relative losses whose standard
    deviation is zero (up to rounding) count as ``+inf`` when positive, 0
    otherwise, and are left out of the bootstrap maximum.

    Each step is decided from bounds kept up to date in ``O(B + m)`` per
    elimination, and computed exactly (``O(B m)``) only when the bounds do
    not decide it (:mod:`sigtest._engine.ranking_mcs`): the set and the
    p-values are those of recomputing every step from scratch
    (:func:`sigtest._engine.ranking_mcs_exact.model_confidence_set_exact`,
    which small problems, up to :data:`NUMPY_MAX_WORK` pairs x resamples,
    run instead: no kernel to load), bit for bit.

    References
    ----------
    P. R. Hansen, A. Lunde and J. M. Nason (2011). The model confidence set.
    Econometrica 79(2), 453-497.
    """
    T = np.asarray(T, dtype=np.float64)
    if (T.shape[1] * (T.shape[1] - 1) // 2) * T.shape[0] <= NUMPY_MAX_WORK:
        # small: every step in NumPy (the same bits), no kernel to load
        return model_confidence_set_exact(theta, T, confidence_level, tie_order=tie_order)
    in_set, pvalues, _ = incremental_mcs(theta, T, confidence_level, tie_order=tie_order)
    return in_set, pvalues
