r"""Bootstrap-t (studentized) resamples: :func:`studentized_resamples`.

For each bootstrap resample :math:`b` the statistic :math:`\theta^*_b` and
its jackknife standard error :math:`\widehat{se}^*_b` computed *on that
resample* give :math:`t^*_b = (\theta^*_b - \hat\theta) / \widehat{se}^*_b`
(Efron & Tibshirani 1993, ch. 12.5, with the jackknife as the inner
estimate of the standard error instead of a nested bootstrap). On the
sufficient-statistic path a resample is a vector of row multiplicities
:math:`w_b` and its leave-one-out values are ``values(S_b - s_i)`` for the
occupied rows :math:`i` (:math:`S_b = \sum_i w_{bi} s_i`), so the inner
jackknife costs one metric evaluation per *occupied row* (cell of the
compressed path, item or cluster otherwise), not a refit: ``O(B R s)`` in
all, ``R`` rows of ``s`` statistics.

Stratified data (``strata=``) are resampled within each stratum, keeping
its size, and every standard error is the stratified jackknife's
(:func:`jackknife_se` with ``strata``; Shao & Tu 1995, §6.2.1; Wolter 2007,
§4.5): the leave-one-out values of stratum :math:`h` are centred on their
own mean and weighted by :math:`(n_h - 1) / n_h`.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["jackknife_se", "pseudo_distribution", "studentized_resamples"]

# Entries (resamples x rows) of one chunk of leave-one-out evaluations.
_CHUNK_ENTRIES = 1 << 18


def jackknife_se(theta, weights, strata=None):
    r"""Jackknife standard error of leave-one-out values with multiplicities.

    .. math:: \widehat{se}^2 = \sum_h \frac{n_h - 1}{n_h} \sum_{i \in h} w_i\,
              (\theta_{(i)} - \bar\theta_{(h)})^2,\quad
              \bar\theta_{(h)} = \sum_{i \in h} w_i \theta_{(i)} / n_h,\quad
              n_h = \sum_{i \in h} w_i

    over the strata :math:`h` (one stratum without ``strata``: Efron &
    Tibshirani 1993, eq. 11.5; stratified: Shao & Tu 1995, §6.2.1). Rows of
    weight 0 are ignored; a stratum of one unit adds nothing.

    Parameters
    ----------
    theta : array-like of shape (R,)
        Leave-one-out values :math:`\theta_{(i)}`.
    weights : array-like of shape (R,)
        Multiplicities :math:`w_i` of the rows.
    strata : array-like of int of shape (R,), optional
        Stratum code of every row.

    Returns
    -------
    se : float
        ``nan`` when fewer than two units are weighted (in every stratum).
    """
    theta = np.asarray(theta, dtype=np.float64)
    w = np.asarray(weights, dtype=np.float64)
    keep = w > 0
    theta, w = theta[keep], w[keep]
    if w.sum() < 2:
        return math.nan
    if strata is None:
        return float(math.sqrt(max(_jackknife_var(theta[None], w[None])[0], 0.0)))
    codes = np.asarray(strata)[keep]
    var = sum(_jackknife_var(theta[None, codes == h], w[None, codes == h])[0]
              for h in np.unique(codes))
    return float(math.sqrt(max(var, 0.0)))


def _jackknife_var(loo, W):
    r"""Row-wise jackknife variance :math:`\frac{n - 1}{n} \sum_i w_i (\theta_{(i)} - \bar\theta)^2`.

    ``loo`` and ``W`` of shape ``(k, R)``: ``k`` sets of leave-one-out values
    and their multiplicities (entries of weight 0 must hold a finite value,
    e.g. 0); ``n = W.sum(axis=1)``, 0 where ``n <= 1``.
    """
    n = W.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = np.where(n > 0, (W * loo).sum(axis=1) / n, 0.0)
        factor = np.where(n > 1, (n - 1.0) / n, 0.0)
    return factor * (W * (loo - mean[:, None]) ** 2).sum(axis=1)


def _check(paired):
    if not paired.has_statistics:
        raise ValueError(
            "The 'method' parameter 'studentized' needs a metric with sufficient statistics "
            f"(the inner jackknife of every resample); {paired.metric.name!r} has none. "
            "Use method='bca' or 'percentile'.")


def studentized_resamples(paired, n_resamples, seed, *, of="difference"):
    r"""Bootstrap statistics, their studentized values and the data's jackknife se.

    Parameters
    ----------
    paired : PairedData
        Prepared data with sufficient statistics (rows are items, cells with
        multiplicities, or clusters; with ``strata=`` each row belongs to
        one stratum).
    n_resamples : int
        Number of bootstrap resamples ``B``.
    seed : int
        Seed of ``numpy.random.default_rng``: row multiplicities
        ``multinomial(n, counts / n)``, ``n`` the number of units; with
        strata, per chunk of resamples one ``multinomial(n_h, counts_h /
        n_h)`` for each stratum ``h`` in the order of the codes.
    of : {"difference", "score"}, default="difference"
        :math:`\theta = ` ``score_b - score_a`` or the score of system A.

    Returns
    -------
    theta_star : ndarray of shape (B,)
        :math:`\theta^*_b`.
    t_star : ndarray of shape (B,)
        :math:`(\theta^*_b - \hat\theta)/\widehat{se}^*_b`; where
        :math:`\widehat{se}^*_b = 0` it is 0 if :math:`\theta^*_b =
        \hat\theta` and :math:`\pm\infty` otherwise.
    se : float
        Jackknife standard error of :math:`\hat\theta` on the data.

    Raises
    ------
    ValueError
        For a metric without statistics.
    """
    # the resampling drivers load the numba kernels: imported on first use (an import of the engine stays light)
    from sigtest._engine.resampling import jackknife_values

    _check(paired)
    stats_a = np.asarray(paired.stats_a, dtype=np.float64)
    stats_b = np.asarray(paired.stats_b, dtype=np.float64)
    R = stats_a.shape[0]
    counts = (np.ones(R) if paired.counts is None
              else np.asarray(paired.counts, dtype=np.float64))
    if of == "difference":
        theta_hat = float(paired.delta)
    else:
        theta_hat = float(paired.score_a)
    jack_a, jack_b, jack_w = jackknife_values(paired)
    jack = np.asarray(jack_a) if of == "score" else np.asarray(jack_b) - np.asarray(jack_a)
    # rows of each stratum (one "stratum" of all rows without strata)
    parts = ([np.arange(R)] if not paired.stratified else
             [np.flatnonzero(paired.row_strata == h) for h in range(int(paired.n_strata))])
    parts = [rows for rows in parts if rows.size]
    se = jackknife_se(jack, jack_w, None if len(parts) == 1 else paired.row_strata)

    def theta_of(sums_a, sums_b):
        if of == "score":
            return paired.values(sums_a)
        return paired.values(sums_b) - paired.values(sums_a)

    rng = np.random.default_rng(seed)
    B = int(n_resamples)
    theta_star = np.empty(B)
    se_star = np.empty(B)
    chunk = max(1, _CHUNK_ENTRIES // max(R, 1))
    for lo in range(0, B, chunk):
        k = min(chunk, B - lo)
        W = np.empty((k, R))
        for rows in parts:
            n_h = int(round(counts[rows].sum()))
            W[:, rows] = rng.multinomial(n_h, counts[rows] / n_h, size=k)
        S_a, S_b = W @ stats_a, W @ stats_b  # (k, s)
        theta_star[lo:lo + k] = theta_of(S_a, S_b)
        loo = theta_of((S_a[:, None, :] - stats_a[None]).reshape(k * R, -1),
                       (S_b[:, None, :] - stats_b[None]).reshape(k * R, -1)).reshape(k, R)
        loo = np.where(W > 0, loo, 0.0)
        var = sum(_jackknife_var(loo[:, rows], W[:, rows]) for rows in parts)
        se_star[lo:lo + k] = np.sqrt(np.maximum(var, 0.0))
    diff = theta_star - theta_hat
    with np.errstate(divide="ignore", invalid="ignore"):
        t_star = diff / se_star
    zero = se_star == 0.0
    t_star[zero] = np.where(diff[zero] == 0.0, 0.0, np.copysign(np.inf, diff[zero]))
    return theta_star, t_star, se


def pseudo_distribution(theta_hat, se, t_star):
    r""":math:`\hat\theta + \widehat{se}\, t^*_b`: the distribution whose *basic*
    interval is the studentized one (see
    :func:`sigtest._engine.intervals.bootstrap_interval`).

    Non-finite :math:`t^*_b` stay infinite; a ``nan`` ``se`` gives ``nan``.
    """
    t = np.asarray(t_star, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        out = float(theta_hat) + float(se) * t
    out[t == 0.0] = float(theta_hat)
    return out
