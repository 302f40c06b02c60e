r"""The elimination test of the model confidence set, computed from scratch.

One step of the :math:`T_{max}` elimination of Hansen, Lunde & Nason (2011)
on the surviving systems ``idx`` (:func:`exact_step`), and the whole
elimination made of such steps (:func:`model_confidence_set_exact`): the
NumPy formulation that :func:`sigtest._engine.ranking.model_confidence_set`
had, ``O(B m)`` per step and ``O(B k^2)`` in all. The certified incremental
elimination (:mod:`sigtest._engine.ranking_mcs`) computes a step here when
its bounds cannot decide it, and the tests take this module as the
reference of its bits.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["exact_step", "mcs_tolerance", "model_confidence_set_exact", "step_pvalue",
           "worst_of"]


def mcs_tolerance(theta):
    """Standard deviations at most ``1e-12 (1 + max |theta|)`` count as zero (rounding)."""
    scale = 1.0 + float(np.max(np.abs(theta))) if len(theta) else 1.0
    return 1e-12 * scale


def step_pvalue(t_max, count, B):
    """``(1 + count) / (B + 1)``; ``1 / (B + 1)`` for an infinite ``t_max``, 1 when ``t_max <= 0``."""
    if t_max <= 0.0:
        return 1.0  # nothing is worse than the average of the set
    if t_max < math.inf:
        return (1.0 + count) / (B + 1.0)
    return 1.0 / (B + 1.0)


def worst_of(t, th, order):
    """Position of the largest ``t``; exact ties: the lower score ``th``, then ``order``."""
    return max(range(t.shape[0]), key=lambda i: (t[i], -th[i], order[i]))


def exact_step(theta, T, idx, tol):
    r"""One elimination test on the systems ``idx``: ``(t, t_max, p)``.

    Parameters
    ----------
    theta : ndarray of shape (k,)
    T : ndarray of shape (B, k)
    idx : ndarray of int
        The surviving systems, in increasing order.
    tol : float
        :func:`mcs_tolerance` of ``theta``.

    Returns
    -------
    t : ndarray of shape (len(idx),)
        :math:`t_i = \hat d_i / \hat\sigma_i` (``inf`` or 0 when
        :math:`\hat\sigma_i \le` ``tol``).
    t_max : float
    p : float
        :func:`step_pvalue` of the exceedances of
        :math:`\max_i (d^*_i - \hat d_i) / \hat\sigma_i`.
    """
    B = T.shape[0]
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
    count = np.count_nonzero(tstar >= t_max) if 0.0 < t_max < math.inf else 0
    return t, t_max, step_pvalue(t_max, count, B)


def model_confidence_set_exact(theta, T, confidence_level=0.95, *, tie_order=None):
    """:func:`sigtest._engine.ranking.model_confidence_set`, every step by :func:`exact_step`."""
    theta = np.asarray(theta, dtype=np.float64)
    T = np.asarray(T, dtype=np.float64)
    k = T.shape[1]
    alpha = 1.0 - confidence_level
    order = np.arange(k) if tie_order is None else np.asarray(tie_order)
    alive = list(range(k))
    pvalues = np.ones(k)
    running = 0.0
    tol = mcs_tolerance(theta)
    while len(alive) > 1:
        idx = np.asarray(alive)
        t, _, p = exact_step(theta, T, idx, tol)
        running = max(running, p)
        if running >= alpha:
            break
        worst = int(idx[worst_of(t, theta[idx], order[idx])])
        pvalues[worst] = running
        alive.remove(worst)
    in_set = np.zeros(k, dtype=bool)
    in_set[alive] = True
    return in_set, pvalues
