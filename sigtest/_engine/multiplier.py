r"""Gaussian multiplier bootstrap of many systems' scores from their jackknife.

The shared bootstrap (:mod:`sigtest._engine.shared`) costs one pass over the
``U`` units of all ``k`` systems per resample, ``O(B U k)``. The multiplier
bootstrap replaces the draws of the units by Gaussian weights on the
influence values: conditionally on the data,

.. math:: T^*_s - \hat T_s = \sum_i e_i \psi_{s,i}, \qquad e_i \sim N(0, 1)\ \text{iid},

has exactly the distribution :math:`N(0, \Sigma)` with
:math:`\Sigma_{st} = \sum_i \psi_{s,i} \psi_{t,i}`, so ``B`` draws of all
systems' scores are :math:`T_b = \hat T + L z_b` with :math:`L L^\top =
\Sigma` and :math:`z_b \sim N(0, I_k)`: ``O(U k^2)`` once for
:math:`\Sigma` and ``O(B k^2)`` for the draws (Chernozhukov, Chetverikov &
Kato 2013: the Gaussian multiplier bootstrap approximates the distribution
of the maximum of many such sums, which is what max-T uses).

The influence values are the jackknife's (the empirical influence of BCa's
acceleration, :func:`sigtest._engine.intervals.acceleration_from_jackknife`):
with :math:`\theta_{s(i)}` system ``s``'s score without unit ``i`` (items, or
clusters), :math:`u_{s,i} = \theta_{s(i)} - \bar\theta_{s(\cdot)}` and

.. math:: \Sigma_{st} = \frac{n - 1}{n} \sum_i u_{s,i} u_{t,i},

the jackknife covariance (Efron & Tibshirani 1993, eq. 11.5); with strata
the values are centred within each stratum :math:`h` and weighted by
:math:`(n_h - 1) / n_h`. A pair's variance
:math:`\Sigma_{aa} + \Sigma_{bb} - 2 \Sigma_{ab}` is then the jackknife
variance of its difference.

Determinism: :math:`\Sigma` is accumulated over the units in order, in
chunks of a fixed size, each entry one sequential sum per chunk (no BLAS;
the kernel computes 4 x 4 entries at a time for speed, not another order), and
the draws are a fixed-order sum over the columns; the caller gives the
systems in a canonical order (``compare``: sorted names), so the output does
not depend on threads, workers or the order the systems were given in.
"""

from __future__ import annotations

import numpy as np

from sigtest._engine.jit import cached_jit
from sigtest._engine.kernels import _numba_enabled

__all__ = ["gaussian_fits", "jackknife_covariance", "multiplier_draws"]

#: Units per chunk of the covariance accumulation (memory ``chunk * k`` floats).
_CHUNK = 8192

#: Resamples per block of the draws (memory ``block * k`` floats per temporary:
#: 4 MB at 1,000 systems; the draws do not depend on it).
_DRAW_BLOCK = 512

#: Two systems whose difference has a jackknife variance at most this fraction
#: of their own variances are drawn as one (identical influence values, e.g.
#: identical predictions): their multiplier differences are exactly 0, as
#: their resampled ones would be.
_SAME = 1e-12


def _dots_py(buf, acc):
    """Twin of :func:`_dots`: ``acc[s, t] += sum_i buf[s, i] buf[t, i]``, each sum in
    item order (sequential: ``cumsum``), for every entry of the tiles with ``t >= s``."""
    k = buf.shape[0]
    for s in range(k):
        for t in range(4 * (s // 4), k):
            acc[s, t] += np.cumsum(np.concatenate([[0.0], buf[s] * buf[t]]))[-1]
    return acc


def _make_dots():
    @cached_jit(nogil=True)
    def _dots(buf, acc):
        # tiles of 4 x 4 entries: 16 independent sums, each over the items in
        # order (the same numbers as one loop per entry); rows padded to 4
        k, n = buf.shape
        for s0 in range(0, k, 4):
            for t0 in range(s0, k, 4):
                a00 = 0.0
                a01 = 0.0
                a02 = 0.0
                a03 = 0.0
                a10 = 0.0
                a11 = 0.0
                a12 = 0.0
                a13 = 0.0
                a20 = 0.0
                a21 = 0.0
                a22 = 0.0
                a23 = 0.0
                a30 = 0.0
                a31 = 0.0
                a32 = 0.0
                a33 = 0.0
                for i in range(n):
                    x0 = buf[s0 + 0, i]
                    x1 = buf[s0 + 1, i]
                    x2 = buf[s0 + 2, i]
                    x3 = buf[s0 + 3, i]
                    y0 = buf[t0 + 0, i]
                    y1 = buf[t0 + 1, i]
                    y2 = buf[t0 + 2, i]
                    y3 = buf[t0 + 3, i]
                    a00 += x0 * y0
                    a01 += x0 * y1
                    a02 += x0 * y2
                    a03 += x0 * y3
                    a10 += x1 * y0
                    a11 += x1 * y1
                    a12 += x1 * y2
                    a13 += x1 * y3
                    a20 += x2 * y0
                    a21 += x2 * y1
                    a22 += x2 * y2
                    a23 += x2 * y3
                    a30 += x3 * y0
                    a31 += x3 * y1
                    a32 += x3 * y2
                    a33 += x3 * y3
                acc[s0 + 0, t0 + 0] += a00
                acc[s0 + 0, t0 + 1] += a01
                acc[s0 + 0, t0 + 2] += a02
                acc[s0 + 0, t0 + 3] += a03
                acc[s0 + 1, t0 + 0] += a10
                acc[s0 + 1, t0 + 1] += a11
                acc[s0 + 1, t0 + 2] += a12
                acc[s0 + 1, t0 + 3] += a13
                acc[s0 + 2, t0 + 0] += a20
                acc[s0 + 2, t0 + 1] += a21
                acc[s0 + 2, t0 + 2] += a22
                acc[s0 + 2, t0 + 3] += a23
                acc[s0 + 3, t0 + 0] += a30
                acc[s0 + 3, t0 + 1] += a31
                acc[s0 + 3, t0 + 2] += a32
                acc[s0 + 3, t0 + 3] += a33
        return acc

    return _dots


_dots = _make_dots()


def _centring(theta, codes, unit_strata, n_strata):
    """Per-stratum jackknife mean of one system and the per-stratum counts."""
    values = theta if codes is None else theta[codes]
    if unit_strata is None:
        return np.array([values.mean()])
    sums = np.bincount(unit_strata, weights=values, minlength=n_strata)
    return sums / np.bincount(unit_strata, minlength=n_strata)


def _centred(theta, codes, centre, strata):
    """One system's influence values per unit, centred (within strata)."""
    values = theta if codes is None else theta[codes]
    return values - (centre[0] if strata is None else centre[strata])


def gaussian_fits(columns, sigma, unit_strata=None):
    r"""Whether the Gaussian draws suit every pair: no difference's influence too concentrated.

    The multiplier draws replace the bootstrap distribution of a pair's
    :math:`\sum_i e_i v_i`, :math:`v_i = u_{b,i} - u_{a,i}` the difference
    of the two systems' influence values, by a normal one: a central-limit
    approximation that needs many units of comparable influence (Lindeberg).
    When a handful of units carry the :math:`v_i` (``r2`` on a target that
    is 0 except on one item; a loss with a few huge per-item values) the
    resampled distribution is far from normal and the two disagree. The
    measure is the effective number of units of
    :mod:`sigtest._engine.concentration`, :math:`n_{\mathrm{eff}} =
    (\sum_i v_i^2)^2 / \sum_i v_i^4`, and the draws are declined when some
    pair has :math:`n_{\mathrm{eff}}` below
    :data:`~sigtest._engine.concentration.N_EFFECTIVE_MIN` and below
    :data:`~sigtest._engine.concentration.DISCORDANT_RATIO` of its
    discordant units (the units whose :math:`v_i` differs from its most
    common value: the concordant items of hard labels share one), the rule
    of a pair's difference in ``compare``. A pair of hard-label systems
    that differ on a few items only is left to the small-sample rules.

    Cost: :math:`\sum_i v_i^2 = \frac{n}{n-1}(\Sigma_{aa} + \Sigma_{bb} -
    2\Sigma_{ab})` comes from the covariance (within strata the factor is
    :math:`n_h / (n_h - 1)`; the whole sample's is used), and since
    :math:`\sum_i v_i^4 \le \max_i v_i^2 \sum_i v_i^2`,
    :math:`n_{\mathrm{eff}} \ge \sum_i v_i^2 / (\max_i |u_{a,i}| + \max_i
    |u_{b,i}|)^2`: only the pairs whose bound is below the limits get the
    exact ``O(U)`` sum. Systems with non-finite values or no spread are left
    to :func:`multiplier_draws`.

    Parameters
    ----------
    columns : list of (codes, theta)
        As :func:`jackknife_covariance`'s.
    sigma : ndarray of shape (k, k)
        Their jackknife covariance (:func:`jackknife_covariance`).
    unit_strata : ndarray of shape (U,) or None

    Returns
    -------
    bool
    """
    from sigtest._engine.concentration import (  # noqa: PLC0415 - the pair rule's limits
        DISCORDANT_RATIO,
        N_EFFECTIVE_MIN,
    )

    codes0, theta0 = columns[0]
    n = theta0.shape[0] if codes0 is None else codes0.shape[0]
    if n < 2:
        return True
    limit = min(N_EFFECTIVE_MIN, DISCORDANT_RATIO * n)
    strata = None if unit_strata is None else np.asarray(unit_strata, dtype=np.int64)
    H = 1 if strata is None else int(strata.max()) + 1
    centres, largest = [], np.empty(len(columns))
    for s, (codes, theta) in enumerate(columns):
        theta = np.asarray(theta, dtype=np.float64)
        centres.append(_centring(theta, codes, strata, H))
        # the largest |u|: over the distinct rows without strata (no per-unit copy)
        largest[s] = (np.max(np.abs(theta - centres[-1][0])) if strata is None
                      else np.max(np.abs(_centred(theta, codes, centres[-1], strata))))
    with np.errstate(all="ignore"):
        diag = np.diag(sigma)
        pair_ss = (diag[:, None] + diag[None, :] - 2.0 * sigma) * (n / (n - 1.0))
        bound = pair_ss / (largest[:, None] + largest[None, :]) ** 2
        spread = pair_ss > _SAME * (diag[:, None] + diag[None, :])
        suspects = np.argwhere(np.triu(spread & np.isfinite(bound) & (bound < limit), 1))
    for a, b in suspects:  # per unit, for these pairs only
        v = (_centred(np.asarray(columns[a][1], dtype=np.float64), columns[a][0], centres[a],
                      strata)
             - _centred(np.asarray(columns[b][1], dtype=np.float64), columns[b][0],
                        centres[b], strata))
        s2, s4 = float(np.dot(v, v)), float(np.sum(v ** 4))
        if not (s4 > 0.0 and s2 * s2 / s4 < N_EFFECTIVE_MIN):
            continue
        # discordant units: where the leave-one-out difference leaves its most
        # common value (the concordant items of hard labels share one)
        _, counts = np.unique(v, return_counts=True)
        if s2 * s2 / s4 < DISCORDANT_RATIO * (v.size - counts.max()):
            return False
    return True


def jackknife_covariance(columns, unit_strata=None):
    r"""Jackknife covariance :math:`\Sigma` of ``k`` systems' scores.

    Parameters
    ----------
    columns : list of (codes, theta)
        One entry per system, in the order of the output: the leave-one-out
        score of every unit, either ``theta`` of shape ``(U,)`` with
        ``codes`` None, or ``theta`` of shape ``(C,)`` per distinct unit row
        with ``codes`` of shape ``(U,)`` (the row of each unit; hard labels:
        at most ``K^2`` cells).
    unit_strata : ndarray of shape (U,) or None
        Stratum code of every unit: values are centred within strata.

    Returns
    -------
    sigma : ndarray of shape (k, k)
        :math:`\Sigma_{st} = \sum_h \frac{n_h - 1}{n_h} \sum_{i \in h}
        u_{s,i} u_{t,i}`, :math:`u_{s,i} = \theta_{s(i)} - \bar\theta_{s(h)}`
        (symmetric; NaN rows for a system with a non-finite value).

    References
    ----------
    B. Efron and R. J. Tibshirani (1993). An Introduction to the Bootstrap,
    eq. 11.5 (the jackknife estimate of variance). Chapman & Hall.
    """
    k = len(columns)
    codes0, theta0 = columns[0]
    U = theta0.shape[0] if codes0 is None else codes0.shape[0]
    strata = None if unit_strata is None else np.asarray(unit_strata, dtype=np.int64)
    H = 1 if strata is None else int(strata.max()) + 1
    if strata is None:
        scale = np.array([np.sqrt((U - 1.0) / U)]) if U > 1 else np.zeros(1)
    else:
        n_h = np.bincount(strata, minlength=H).astype(np.float64)
        with np.errstate(all="ignore"):
            scale = np.where(n_h > 1, np.sqrt((n_h - 1.0) / n_h), 0.0)
    means = [_centring(np.asarray(theta, dtype=np.float64), codes, strata, H)
             for codes, theta in columns]
    dots = _dots if _numba_enabled() else _dots_py
    buf = np.zeros((-(-k // 4) * 4, min(_CHUNK, U)))  # rows padded to tiles of 4 (zeros)
    acc = np.zeros((buf.shape[0], buf.shape[0]))
    for lo in range(0, U, _CHUNK):
        hi = min(U, lo + _CHUNK)
        part = buf[:, : hi - lo]
        h = None if strata is None else strata[lo:hi]
        for s, (codes, theta) in enumerate(columns):
            values = theta[lo:hi] if codes is None else theta[codes[lo:hi]]
            if h is None:
                part[s] = (values - means[s][0]) * scale[0]
            else:
                part[s] = (values - means[s][h]) * scale[h]
        dots(part, acc)
    acc = acc[:k, :k]
    return np.triu(acc) + np.triu(acc, 1).T


def _representatives_loop(sigma):
    """Twin of :func:`_representatives`: one pair at a time."""
    k = sigma.shape[0]
    d = np.diag(sigma)
    rep = np.arange(k)
    for t in range(k):
        for s in range(t):
            if rep[s] != s:
                continue
            var = d[s] + d[t] - 2.0 * sigma[s, t]
            if var <= _SAME * (d[s] + d[t]):
                rep[t] = s
                break
    return rep


def _representatives(sigma):
    """``rep[s]``: the first system drawn as ``s`` (identical influence values).

    System ``t`` is drawn as the first ``s < t`` that is its own
    representative and whose difference with ``t`` has a jackknife variance
    ``d_s + d_t - 2 sigma_st <= _SAME (d_s + d_t)``; the same float
    operations as :func:`_representatives_loop`, one column at a time.
    """
    k = sigma.shape[0]
    d = np.diag(sigma)
    rep = np.arange(k)
    own = np.ones(k, dtype=bool)
    with np.errstate(invalid="ignore"):
        for t in range(1, k):
            total = d[:t] + d[t]
            close = own[:t] & (total - 2.0 * sigma[:t, t] <= _SAME * total)
            first = int(np.argmax(close))
            if close[first]:
                rep[t] = first
                own[t] = False
    return rep


#: Systems per tile of the draws' noise kernel (a row of ``L.T`` over the
#: tile is the vectorised inner loop; 8 resamples' rows of the output over
#: the tile stay in cache while ``c`` runs over the distinct systems).
_NOISE_WIDTH = 256


@cached_jit(nogil=True)
def _noise_block(zt, Lt, out, s0, s1):  # pragma: no cover - compiled by numba
    # out[b, s] = sum_c zt[c, b] * Lt[c, s], each entry one running sum from
    # 0.0 over c = 0, 1, ... in order: the multiplications and additions of
    # _noise_numpy in its order (no fused multiply-add: numba does not
    # contract without fastmath). 8 resamples at a time: for each c, the row
    # Lt[c, s0:s1] is read once and added, times each resample's z, to the
    # 8 output rows (contiguous lanes: LLVM vectorises over s); the last
    # resamples one entry at a time
    kd, nb = zt.shape
    nb8 = nb - nb % 8
    w = s1 - s0
    for b in range(0, nb8, 8):
        o0 = out[b, s0:s1]
        o1 = out[b + 1, s0:s1]
        o2 = out[b + 2, s0:s1]
        o3 = out[b + 3, s0:s1]
        o4 = out[b + 4, s0:s1]
        o5 = out[b + 5, s0:s1]
        o6 = out[b + 6, s0:s1]
        o7 = out[b + 7, s0:s1]
        for s in range(w):
            o0[s] = 0.0
            o1[s] = 0.0
            o2[s] = 0.0
            o3[s] = 0.0
            o4[s] = 0.0
            o5[s] = 0.0
            o6[s] = 0.0
            o7[s] = 0.0
        for c in range(kd):
            row = Lt[c, s0:s1]
            zc = zt[c]
            z0 = zc[b]
            z1 = zc[b + 1]
            z2 = zc[b + 2]
            z3 = zc[b + 3]
            z4 = zc[b + 4]
            z5 = zc[b + 5]
            z6 = zc[b + 6]
            z7 = zc[b + 7]
            for s in range(w):
                x = row[s]
                o0[s] += z0 * x
                o1[s] += z1 * x
                o2[s] += z2 * x
                o3[s] += z3 * x
                o4[s] += z4 * x
                o5[s] += z5 * x
                o6[s] += z6 * x
                o7[s] += z7 * x
    for b in range(nb8, nb):
        for s in range(s0, s1):
            acc = 0.0
            for c in range(kd):
                acc += zt[c, b] * Lt[c, s]
            out[b, s] = acc


def _noise_numpy(z, L):
    """``z @ L.T`` as a fixed-order sum over the columns (numba disabled; the kernel's twin)."""
    noise = np.zeros((z.shape[0], L.shape[0]))
    for c in range(L.shape[1]):
        noise += z[:, c, None] * L[None, :, c]
    return noise


def _noise(z, L, Lt=None):
    """``noise[b, s] = sum_c z[b, c] L[s, c]``, summed over ``c`` in order (no BLAS).

    The numba kernel runs tiles of columns, 8 resamples at a time, and gives
    :func:`_noise_numpy`'s values bit for bit, without its two passes over a
    ``block x k`` temporary per column. ``Lt``: ``L.T`` C-contiguous, if the
    caller made it once for all its blocks.
    """
    if not _numba_enabled():
        return _noise_numpy(z, L)
    zt = np.ascontiguousarray(np.asarray(z, dtype=np.float64).T)
    if Lt is None:
        Lt = np.ascontiguousarray(np.asarray(L, dtype=np.float64).T)
    out = np.empty((zt.shape[1], Lt.shape[1]))
    for s0 in range(0, Lt.shape[1], _NOISE_WIDTH):
        _noise_block(zt, Lt, out, s0, min(Lt.shape[1], s0 + _NOISE_WIDTH))
    return out


def multiplier_draws(estimates, sigma, n_resamples, seed, *, positions=None, system_major=False):
    r"""``B`` Gaussian multiplier draws of every system's score.

    Parameters
    ----------
    estimates : ndarray of shape (k,)
        :math:`\hat T`, each system's score on all units.
    sigma : ndarray of shape (k, k)
        :func:`jackknife_covariance`.
    n_resamples : int
        ``B``.
    seed : int
        Seed of :math:`z` (``numpy.random.default_rng(seed)``, ``B x k'``
        standard normals, ``k'`` the distinct systems).
    positions : array-like of int, optional
        The output column of each system (a permutation of ``0 .. k - 1``;
        default: its own index).
    system_major : bool, default=False
        Return ``scores.T`` C-contiguous, ``(k, B)``: each system's draws
        in one row, written in place (no ``(B, k)`` array and no transposed
        copy of it: 80 MB each at 1,000 systems and ``B = 9,999``).

    Returns
    -------
    scores : ndarray of shape (B, k)
        :math:`T_b = \hat T + L z_b`, :math:`L = V \operatorname{diag}(\sqrt{\max(\lambda, 0)})`
        from the eigen-decomposition :math:`\Sigma = V \Lambda V^\top` of
        the distinct systems (negative eigenvalues, rounding or identical
        systems, clipped to 0). Systems with identical influence values
        (a pair variance :math:`\le 10^{-12}` of their variances) share the
        noise of the first of them, so their differences are exactly
        :math:`\hat T_t - \hat T_s`. A system with a non-finite estimate
        or variance (a leave-one-out score undefined) gets NaN draws.

    References
    ----------
    V. Chernozhukov, D. Chetverikov and K. Kato (2013). Gaussian
    approximations and multiplier bootstrap for maxima of sums of
    high-dimensional random vectors. The Annals of Statistics 41(6),
    2786-2819.
    T. Hothorn, F. Bretz and P. Westfall (2008). Simultaneous inference in
    general parametric models. Biometrical Journal 50(3), 346-363.
    """
    est = np.asarray(estimates, dtype=np.float64)
    sigma = np.asarray(sigma, dtype=np.float64)
    k = est.shape[0]
    B = int(n_resamples)
    out = np.full((k, B) if system_major else (B, k), np.nan)
    # a non-finite influence value of system s makes row and column s non-finite
    finite = np.isfinite(est) & np.isfinite(np.diag(sigma))
    idx = np.flatnonzero(finite)
    if idx.size == 0:
        return out
    sub = sigma[np.ix_(idx, idx)]
    rep = _representatives(sub)
    distinct = np.flatnonzero(rep == np.arange(idx.size))
    w, V = np.linalg.eigh(sub[np.ix_(distinct, distinct)])
    L = V * np.sqrt(np.clip(w, 0.0, None))[None, :]
    rng = np.random.default_rng(int(seed))
    # the noise column of each finite system: that of its representative
    column = np.searchsorted(distinct, rep)
    dest = idx if positions is None else np.asarray(positions, dtype=np.int64)[idx]
    Lt = np.ascontiguousarray(L.T)
    for b0 in range(0, B, _DRAW_BLOCK):  # blocks of resamples: memory O(block k)
        b1 = min(B, b0 + _DRAW_BLOCK)
        z = rng.standard_normal((b1 - b0, distinct.size))  # the rows of one (B, k') draw
        noise = _noise(z, L, Lt)  # a fixed-order sum over the columns (no BLAS)
        block = est[idx] + noise[:, column]
        if system_major:
            out[dest, b0:b1] = block.T
        else:
            out[b0:b1, dest] = block
    return out
