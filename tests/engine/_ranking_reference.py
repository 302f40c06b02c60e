"""The NumPy rank inference of sigtest before its kernels: the reference of the tests.

``pairwise_t``, ``rank_intervals`` and ``model_confidence_set`` as
``sigtest/_engine/ranking.py`` had them (every pair's differences formed by
NumPy, the model confidence set recomputed from scratch after every
elimination). The package's versions must give the same bits.
"""

import math

import numpy as np

def _critical(stat, level):
    """Order statistic ``ceil(level (B + 1))`` of ``stat`` (conservative), capped at B."""
    B = stat.shape[0]
    r = min(B, max(1, math.ceil(level * (B + 1) - 1e-9)))
    return float(np.partition(stat, r - 1)[r - 1])


def pairwise_t(theta, T):
    """Observed differences, their bootstrap standard deviations and the max-|t| replicates.

    Returns
    -------
    diff : ndarray (k, k)
        ``theta_j - theta_l``.
    sd : ndarray (k, k)
        Bootstrap standard deviation of ``T_j - T_l`` (``ddof=1``).
    max_t : ndarray (B,)
        :math:`\\max_{j<l,\\ sd_{jl}>0} |(T_{bj} - T_{bl}) - (\\theta_j - \\theta_l)| / sd_{jl}`
        (0 when no pair has a positive standard deviation).
    """
    theta = np.asarray(theta, dtype=np.float64)
    T = np.asarray(T, dtype=np.float64)
    B, k = T.shape
    diff = theta[:, None] - theta[None, :]
    sd = np.zeros((k, k))
    max_t = np.zeros(B)
    for j in range(k - 1):  # one system at a time: O(B k) memory
        D = T[:, j, None] - T[:, j + 1:]
        s = D.std(axis=0, ddof=1) if B > 1 else np.zeros(k - j - 1)
        sd[j, j + 1:] = sd[j + 1:, j] = s
        live = s > 0
        if np.any(live):
            z = np.abs(D[:, live] - diff[j, j + 1:][live]) / s[live]
            np.maximum(max_t, z.max(axis=1), out=max_t)
    return diff, sd, max_t


def rank_intervals(theta, T, confidence_level=0.95):
    r"""Simultaneous confidence intervals for the ranks of all systems.

    Parameters
    ----------
    theta : array-like of shape (k,)
        Oriented observed scores (greater is better).
    T : array-like of shape (B, k)
        Their bootstrap replicates on shared resamples.
    confidence_level : float, default=0.95
        Joint level :math:`1 - \alpha` of all the intervals.

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
    diff, sd, max_t = pairwise_t(theta, T)
    k = diff.shape[0]
    c = _critical(max_t, confidence_level) if max_t.shape[0] else math.inf
    with np.errstate(divide="ignore", invalid="ignore"):
        better = np.where(sd > 0, diff - c * sd > 0, diff > 0)
    np.fill_diagonal(better, False)
    rank_low = 1 + better.sum(axis=0)
    rank_high = k - better.sum(axis=1)
    return rank_low.astype(np.int64), rank_high.astype(np.int64), better


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

    References
    ----------
    P. R. Hansen, A. Lunde and J. M. Nason (2011). The model confidence set.
    Econometrica 79(2), 453-497.
    """
    theta = np.asarray(theta, dtype=np.float64)
    T = np.asarray(T, dtype=np.float64)
    B, k = T.shape
    alpha = 1.0 - confidence_level
    order = np.arange(k) if tie_order is None else np.asarray(tie_order)
    alive = list(range(k))
    pvalues = np.ones(k)
    running = 0.0
    scale = 1.0 + float(np.max(np.abs(theta))) if k else 1.0
    tol = 1e-12 * scale
    while len(alive) > 1:
        idx = np.asarray(alive)
        th, Tm = theta[idx], T[:, idx]
        d = th.mean() - th
        dstar = Tm.mean(axis=1, keepdims=True) - Tm
        sd = dstar.std(axis=0, ddof=1) if B > 1 else np.zeros(idx.shape[0])
        live = sd > tol
        t = np.where(d > tol, math.inf, 0.0)
        t[live] = d[live] / sd[live]
        if np.any(live):
            tstar = ((dstar[:, live] - d[live]) / sd[live]).max(axis=1)
        else:
            tstar = np.zeros(B)
        t_max = float(t.max())
        p = (1.0 + np.count_nonzero(tstar >= t_max)) / (B + 1.0) if t_max < math.inf \
            else 1.0 / (B + 1.0)
        if t_max <= 0.0:
            p = 1.0  # nothing is worse than the average of the set
        running = max(running, p)
        if running >= alpha:
            break
        # eliminate the largest t; exact ties: the lower score, then the name
        worst = max(range(idx.shape[0]), key=lambda i: (t[i], -th[i], order[idx[i]]))
        pvalues[idx[worst]] = running
        alive.remove(int(idx[worst]))
    in_set = np.zeros(k, dtype=bool)
    in_set[alive] = True
    return in_set, pvalues
