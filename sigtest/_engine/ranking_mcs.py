r"""The model confidence set by certified incremental elimination: the bits of the exact one.

The elimination of :func:`sigtest._engine.ranking.model_confidence_set`
recomputed, after every elimination, every surviving system's relative loss
``dstar = mean_M(T_b) - T_bi``, its standard deviation and the bootstrap
maximum: ``O(B m)`` per step, ``O(B k^2)`` for ``k`` systems (38 s of CPU
for 1,000 systems). Most steps are not close calls: the system eliminated is
far worse than the next one, and the observed :math:`T_{max}` far above every
bootstrap maximum. Here each step is first decided from *bounds* of the
quantities the exact step computes (:mod:`sigtest._engine.ranking_mcs_exact`),
kept up to date in ``O(B + m)`` per elimination, and computed exactly only
when the bounds cannot decide it; the decisions, hence the set and the
p-values, are those of the exact elimination bit for bit.

The bounds, with :math:`u = 2^{-53}` the unit roundoff, ``mx = max|T| +
max|theta|`` bounding every score and difference, and :math:`\rho = 4 (B + 8)
u`, :math:`\alpha = 4 (B + 1) u\, mx` the relative and absolute error of a
standard deviation computed in two passes (the rounding of the sums,
:math:`B u` relative, and of the mean, at most :math:`B u \max|x|` absolute):

* the row means: ``S_b``, the sum of the survivors' ``T_b``, is kept by
  subtracting the eliminated system's column (error bound ``E`` grown by
  :math:`u\, m\, mx` each time, and ``S`` summed afresh when the set has
  halved); NumPy's pairwise mean is within :math:`\delta_\mu = (E + m^2 u\,
  mx) / m + 2 u\, mx` of ``S_b / m``;
* the standard deviation of ``dstar_i`` (a seminorm: the triangle
  inequality): within ``sd(mu)`` of that of ``T_i`` (computed once) for
  every system, and, for the few systems that could be the worst, from
  ``S_b / m - T_bi`` directly, within :math:`\delta_\mu + 4 u\, mx`;
  for strongly correlated systems (where ``sd(mu)`` is as large as the
  deviations themselves) from the covariance matrix of the replicates
  (:class:`_Cov`), built once the exact steps have cost about as much;
* the bootstrap maximum: :math:`(d^*_{bi} - \hat d_i) \le \max_b \mu_b +
  \delta_\mu - \min_b T_{bi} - \hat d_i` (+ rounding), so no resample reaches
  the observed :math:`T_{max}` when the largest of these over the
  standard deviations' lower bounds stays below it: the p-value is then
  ``1 / (B + 1)`` exactly.

A step is decided from the bounds when every system is certainly live
(standard deviation above the tolerance) or certainly not, the worst system
is certain (its lower bound of ``t`` above every other upper bound, or the
infinite ``t`` decided exactly) and the p-value is certain; otherwise
it is computed exactly (:func:`~sigtest._engine.ranking_mcs_step.fast_exact_step`,
the bits of :func:`~sigtest._engine.ranking_mcs_exact.exact_step`).

References
----------
P. R. Hansen, A. Lunde and J. M. Nason (2011). The model confidence set.
Econometrica 79(2), 453-497.
"""

from __future__ import annotations

import math

import numpy as np

from sigtest._engine.jit import cached_jit
from sigtest._engine.ranking_mcs_exact import (
    mcs_tolerance,
    model_confidence_set_exact,
    step_pvalue,
    worst_of,
)
from sigtest._engine.ranking_mcs_step import fast_exact_step

__all__ = ["incremental_mcs"]

_U = 2.0 ** -53
#: Relative widening of the final comparisons (far above the rounding of the bounds).
_GROW = 1e-9
#: Smallest ``d / sd`` trusted not to underflow in the exact step.
_TINY = 1e-290


class _Survivors:
    """The surviving systems, the sum of their replicates per resample and its error bound."""

    def __init__(self, TT, mx):
        self.TT = TT
        self.mx = mx
        self.idx = np.arange(TT.shape[0])
        self.cov = None
        self._resum()

    def _resum(self):
        m = self.idx.shape[0]
        self.S = self.TT[self.idx].sum(axis=0)
        self.E = m * m * _U * self.mx  # any order of summation: (m - 1) u sum |T_b|
        self.m_resum = m

    def remove(self, j):
        m = self.idx.shape[0]
        self.idx = self.idx[self.idx != j]
        if self.cov is not None:
            self.cov.remove(j)
        if 2 * self.idx.shape[0] <= self.m_resum:
            self._resum()
        else:
            self.S = self.S - self.TT[j]
            self.E += _U * m * self.mx

    def mean_bound(self):
        """``(S / m, delta_mu)``: the row means and their distance to NumPy's."""
        m = self.idx.shape[0]
        return self.S / m, 2.0 * ((self.E + m * m * _U * self.mx) / m + 2.0 * _U * self.mx)


def _sd_range(sd, B, mx, shift):
    """Bounds of a computed standard deviation from another one at distance ``shift``."""
    rho, alpha = 4.0 * (B + 8) * _U, 4.0 * (B + 1) * _U * mx
    lo = (sd / (1.0 + rho) - alpha - shift) * (1.0 - rho) - alpha
    hi = (sd / (1.0 - rho) + alpha + shift) * (1.0 + rho) + alpha
    return np.maximum(lo, 0.0), hi


def _t_range(d, lo, hi):
    """Bounds of ``d / sd`` for ``lo <= sd <= hi`` (``lo > 0``), widened by the rounding."""
    q1, q2 = d / lo, d / hi
    pad = 4.0 * _U * np.maximum(np.abs(q1), np.abs(q2))
    return np.minimum(q1, q2) - pad, np.maximum(q1, q2) + pad


class _Consts:
    """Per-system constants of the bounds: ``sd(T_i)`` and ``min_b T_bi``; ``mx``, ``B``."""

    def __init__(self, theta, TT):
        self.TT = TT
        self.B = TT.shape[1]
        self.sd_T = TT.std(axis=1, ddof=1)
        self.t_min = TT.min(axis=1)
        self.mx = max(float(TT.max()), -float(self.t_min.min())) + float(np.max(np.abs(theta)))
        # sd(x) <= stretch max|x| (ddof=1): the shift of a standard deviation
        self.stretch = math.sqrt(self.B / (self.B - 1.0)) * (1.0 + 8.0 * _U)


@cached_jit(nogil=True, error_model="numpy")
def _sd_columns(TT, cols, mu):  # pragma: no cover - compiled by numba
    """Standard deviations (``ddof=1``, two passes) of ``mu - TT[i]`` for ``i`` in ``cols``."""
    B = TT.shape[1]
    out = np.empty(cols.shape[0])
    for c in range(cols.shape[0]):
        row = TT[cols[c]]
        s1 = 0.0
        for b in range(B):
            s1 += mu[b] - row[b]
        mean = s1 / B
        s2 = 0.0
        for b in range(B):
            x = (mu[b] - row[b]) - mean
            s2 += x * x
        out[c] = math.sqrt(s2 / (B - 1))
    return out


def _tight(c, mu, d_mu, cols):
    """Bounds of the standard deviations of ``dstar`` of the systems ``cols`` from ``mu - T``."""
    sd = _sd_columns(c.TT, np.ascontiguousarray(cols, dtype=np.int64), mu)
    return _sd_range(sd, c.B, c.mx, c.stretch * (d_mu + 4.0 * _U * c.mx))


class _Cov:
    r"""Bounds of every survivor's standard deviation from the covariance matrix of ``T``.

    With :math:`C` the covariance of the systems' replicates, :math:`r_i =
    \sum_{l \in M} C_{il}` (kept by subtracting the eliminated system's
    column) and :math:`q = \sum_{i \in M} r_i`, the variance of
    :math:`\mu - T_i` is :math:`C_{ii} - 2 r_i / m + q / m^2`: ``O(m)`` per
    step after ``O(k^2 B)`` once, and tight where the triangle inequality is
    not (strongly correlated systems). Rounding: :math:`|\Delta C_{jl}| \le
    \epsilon_C s_j s_l` (:math:`s` the standard deviations, :math:`\epsilon_C
    = 2 (B + 8) u`, the bound of a sum of ``B`` products by Cauchy-Schwarz),
    so :math:`\epsilon_C (s_i + \bar s_M)^2` on the variance, plus the
    rounding of ``r`` and ``q`` (tracked) and of the centring.
    """

    def __init__(self, TT, idx, c):
        X = TT - TT.mean(axis=1, keepdims=True)
        self.C = (X @ X.T) / (c.B - 1.0)
        self.s = np.sqrt(np.maximum(np.diag(self.C), 0.0))
        k = TT.shape[0]
        self.unit = _U * k * float(self.s.max()) ** 2  # rounding of one update of r
        self.r = self.C[:, idx].sum(axis=1)
        self.E = 4.0 * k * self.unit
        self.floor = 4.0 * c.B ** 2 * _U ** 2 * c.mx ** 2  # the centring's shift

    def remove(self, j):
        self.r = self.r - self.C[:, j]
        self.E += 2.0 * self.unit

    def sd_range(self, idx, c):
        """Lower and upper bounds of NumPy's standard deviations of ``dstar`` of ``idx``."""
        m = idx.shape[0]
        r = self.r[idx]
        q = float(r.sum())
        diag = np.diag(self.C)[idx]
        v = diag - 2.0 * r / m + q / m ** 2
        eps = 2.0 * (c.B + 8) * _U
        s = self.s[idx]
        err = (eps * (s + s.mean()) ** 2 + self.floor + 2.0 * self.E / m
               + (self.E + m * self.unit) / m + 8.0 * _U * (diag + 2.0 * np.abs(r) / m
                                                          + abs(q) / m ** 2))
        lo_r = np.sqrt(np.maximum(v - err, 0.0)) * (1.0 - 2.0 * _U)
        hi_r = np.sqrt(v + err) * (1.0 + 2.0 * _U)
        shift = c.stretch * (m + 8.0) * _U * c.mx  # NumPy's row means and dstar's rounding
        rho, alpha = 4.0 * (c.B + 8) * _U, 4.0 * (c.B + 1) * _U * c.mx
        lo = (lo_r - shift) * (1.0 - rho) - alpha
        hi = (hi_r + shift + alpha) * (1.0 + rho) + alpha
        return np.maximum(lo, 0.0), hi


def _bounds(c, surv, tol, d):
    """Lower and upper bounds of every survivor's standard deviation; None when undecidable.

    Crude bounds for all (triangle inequality around ``sd(T_i)``), tight ones
    for the systems whose status (live or not) is unsure and for those that
    could have the largest ``t``.
    """
    idx = surv.idx
    mu, d_mu = surv.mean_bound()
    sd_mu = float(mu.std(ddof=1)) / (1.0 - 4.0 * (c.B + 8) * _U) + c.stretch * d_mu
    lo, hi = _sd_range(c.sd_T[idx], c.B, c.mx, sd_mu + c.stretch * 4.0 * _U * c.mx)
    if surv.cov is not None:
        lo_c, hi_c = surv.cov.sd_range(idx, c)
        lo, hi = np.maximum(lo, lo_c), np.minimum(hi, hi_c)
    live = lo > tol
    t_lo, t_hi = _t_range(d, np.where(live, lo, 1.0), np.where(live, hi, 1.0))
    top = np.max(t_lo, where=live, initial=-math.inf)
    need = np.flatnonzero(((hi > tol) & ~live) | (live & (t_hi >= top)))
    if need.shape[0] > 64:
        return None  # too many close calls: the exact step is as cheap
    lo[need], hi[need] = _tight(c, mu, d_mu, idx[need])
    if np.any((lo <= tol) & (hi > tol)):
        return None
    return lo, hi, mu, d_mu


def _decide(theta, c, surv, tol, order):
    """``(worst, t_max, p)`` of the step on the survivors from bounds, or None."""
    idx = surv.idx
    th = theta[idx]
    d = th.mean() - th
    found = _bounds(c, surv, tol, d)
    if found is None:
        return None
    lo, hi, mu, d_mu = found
    live = lo > tol
    inf = ~live & (d > tol)
    if np.any(inf):  # t = inf: decided exactly, the p-value is 1 / (B + 1)
        pos = np.flatnonzero(inf)
        t = np.zeros(pos.shape[0])
        return int(idx[pos[worst_of(t, th[pos], order[idx[pos]])]]), math.inf, 1.0 / (c.B + 1.0)
    if not np.any(live & (d > 0.0)):
        return -1, 0.0, 1.0  # every t <= 0: nothing is worse than the average
    t_lo, t_hi = _t_range(d, np.where(live, lo, 1.0), np.where(live, hi, 1.0))
    t_lo, t_hi = np.where(live, t_lo, 0.0), np.where(live, t_hi, 0.0)
    best = int(np.argmax(t_lo))
    others = np.delete(t_hi, best)
    if t_lo[best] <= _TINY or (others.shape[0] and others.max() * (1 + _GROW) >= t_lo[best]):
        return None
    # no resample reaches t_max: the bound of every live system's bootstrap deviation
    num = (mu.max() + d_mu) - c.t_min[idx] - d + 16.0 * _U * c.mx
    reach = np.max(num[live] / lo[live]) * (1.0 + _GROW)
    if reach >= t_lo[best]:
        return None
    return int(idx[best]), float(t_lo[best]), step_pvalue(t_lo[best], 0, c.B)


def incremental_mcs(theta, T, confidence_level=0.95, *, tie_order=None):
    """:func:`sigtest._engine.ranking.model_confidence_set` (see its docstring), step by
    step from bounds, and exactly where they do not decide.

    Returns
    -------
    in_set, pvalues : ndarray
        As :func:`~sigtest._engine.ranking_mcs_exact.model_confidence_set_exact`, bit for bit.
    n_exact : int
        The number of steps computed exactly.
    """
    theta = np.asarray(theta, dtype=np.float64)
    T = np.asarray(T, dtype=np.float64)
    B, k = T.shape
    alpha = 1.0 - confidence_level
    order = np.arange(k) if tie_order is None else np.asarray(tie_order)
    pvalues = np.ones(k)
    running = 0.0
    tol = mcs_tolerance(theta)
    if k < 2 or B < 2:  # nothing to bound: every step is exact (and cheap)
        in_set, pvalues = model_confidence_set_exact(theta, T, confidence_level,
                                                     tie_order=tie_order)
        return in_set, pvalues, max(0, k - 1)
    TT = np.ascontiguousarray(T.T)  # no copy when T is a transposed (k, B) array
    c = _Consts(theta, TT)
    surv = _Survivors(TT, c.mx)
    n_exact = work = 0
    while surv.idx.shape[0] > 1:
        decided = _decide(theta, c, surv, tol, order)
        if decided is None:
            n_exact += 1
            idx = surv.idx
            work += idx.shape[0]
            if surv.cov is None and 32 * work >= k * k and idx.shape[0] >= 32:
                # the exact steps have cost about what the covariance matrix costs:
                # its bounds are tight where the triangle inequality is not
                surv.cov = _Cov(TT, idx, c)
            t, _, p = fast_exact_step(theta, TT, idx, tol)
            worst = int(idx[worst_of(t, theta[idx], order[idx])])
        else:
            worst, _, p = decided
        running = max(running, p)
        if running >= alpha:
            break
        pvalues[worst] = running
        surv.remove(worst)
    in_set = np.zeros(k, dtype=bool)
    in_set[surv.idx] = True
    return in_set, pvalues, n_exact
