"""One exact elimination test of the model confidence set in numba, the bits of NumPy's.

:func:`sigtest._engine.ranking_mcs_exact.exact_step` in three passes over the
survivors' ``B x m`` replicates instead of NumPy's dozen, with the same float
operations in the same order:

* ``T[:, idx]`` is laid out column by column (NumPy's fancy indexing puts
  the indexed axis last in memory): its row means add the systems one
  after the other (from 0, in the order of ``idx``), divided by ``m``;
* the standard deviations of ``dstar`` along the resamples as
  ``numpy.std(axis=0, ddof=1)`` of that layout: each system's ``B``
  deviations summed pairwise (:func:`_pairwise`: blocks of 8 partial sums
  up to 128 terms, halves above), two passes;
* ``t``, and the count of resamples whose largest studentised
  ``(dstar - d) / sd`` reaches ``t_max`` (a maximum and a count do not
  depend on the order).

The replicates are read from ``TT = T.T`` (``k x B``): a system's resamples
are contiguous, so that a step reads only the survivors'. The incremental
elimination (:mod:`sigtest._engine.ranking_mcs`) calls it on
the steps its bounds do not decide.
"""

from __future__ import annotations

import math

import numpy as np

from sigtest._engine.jit import cached_jit
from sigtest._engine.ranking_mcs_exact import step_pvalue

__all__ = ["fast_exact_step"]


@cached_jit(nogil=True, error_model="numpy")
def _block(a, lo, n):  # pragma: no cover - compiled by numba
    """NumPy's ``pairwise_sum`` of ``a[lo:lo + n]`` for ``n <= 128``: 8 partial sums."""
    if n < 8:
        res = 0.0
        for i in range(lo, lo + n):
            res += a[i]
        return res
    r0, r1, r2, r3 = a[lo], a[lo + 1], a[lo + 2], a[lo + 3]
    r4, r5, r6, r7 = a[lo + 4], a[lo + 5], a[lo + 6], a[lo + 7]
    i = 8
    stop = n - n % 8
    while i < stop:
        j = lo + i
        r0 += a[j]
        r1 += a[j + 1]
        r2 += a[j + 2]
        r3 += a[j + 3]
        r4 += a[j + 4]
        r5 += a[j + 5]
        r6 += a[j + 6]
        r7 += a[j + 7]
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        res += a[lo + i]
        i += 1
    return res


@cached_jit(nogil=True, error_model="numpy")
def _pairwise(a, n, nodes, vals):  # pragma: no cover - compiled by numba
    """NumPy's ``pairwise_sum`` of ``a[:n]`` (``numpy/_core/src/umath/loops_utils.h``).

    Blocks of at most 128 terms by :func:`_block`; above, the sum of the
    first ``n2 = n // 2 - (n // 2) % 8`` terms plus that of the rest, the
    tree evaluated in post-order on explicit stacks (``nodes``: rows
    ``(start, length, children done)``; ``vals``: partial sums), without
    recursion (numba's cache does not keep recursive functions).
    """
    if n <= 128:
        return _block(a, 0, n)
    top, nv = 1, 0
    nodes[0, 0], nodes[0, 1], nodes[0, 2] = 0, n, 0
    while top > 0:
        top -= 1
        lo, c, done = nodes[top, 0], nodes[top, 1], nodes[top, 2]
        if c <= 128:
            vals[nv] = _block(a, lo, c)
            nv += 1
        elif done:
            vals[nv - 2] = vals[nv - 2] + vals[nv - 1]
            nv -= 1
        else:
            n2 = c // 2
            n2 -= n2 % 8
            nodes[top, 2] = 1
            nodes[top + 1, 0], nodes[top + 1, 1], nodes[top + 1, 2] = lo + n2, c - n2, 0
            nodes[top + 2, 0], nodes[top + 2, 1], nodes[top + 2, 2] = lo, n2, 0
            top += 3
    return vals[0]


@cached_jit(nogil=True, error_model="numpy")
def _means_sd(TT, idx):  # pragma: no cover - compiled by numba
    """``(mu, sd)``: the row means ``T[:, idx].mean(axis=1)`` and the standard deviations
    ``std(axis=0, ddof=1)`` of ``dstar = mu[:, None] - T[:, idx]``, as NumPy computes them.

    ``T[:, idx]`` is laid out column by column (NumPy puts the indexed axis
    last in memory), so its row means add the systems one after the other
    (from 0, in the order of ``idx``) and the standard deviations sum each
    system's ``B`` deviations pairwise.
    """
    B, m = TT.shape[1], idx.shape[0]
    mu = np.zeros(B)
    for i in range(m):
        src = TT[idx[i]]
        for b in range(B):
            mu[b] += src[b]
    mu /= m
    nodes = np.zeros((192, 3), dtype=np.int64)  # 3 per level of the tree (< 64 levels)
    vals = np.zeros(96)
    buf = np.empty(B)
    sd = np.empty(m)
    for i in range(m):
        src = TT[idx[i]]
        for b in range(B):
            buf[b] = mu[b] - src[b]
        mean = _pairwise(buf, B, nodes, vals) / B
        for b in range(B):
            x = buf[b] - mean
            buf[b] = x * x
        sd[i] = np.sqrt(_pairwise(buf, B, nodes, vals) / (B - 1))
    return mu, sd


@cached_jit(nogil=True, error_model="numpy")
def _exceedances(TT, idx, mu, d, sd, live, t_max):  # pragma: no cover - compiled by numba
    """Resamples whose ``max_{i live} ((mu_b - T_bi) - d_i) / sd_i`` is at least ``t_max``."""
    B = TT.shape[1]
    top = np.full(B, -np.inf)
    for i in range(idx.shape[0]):
        if not live[i]:
            continue
        src = TT[idx[i]]
        di, si = d[i], sd[i]
        for b in range(B):
            z = ((mu[b] - src[b]) - di) / si
            top[b] = z if z > top[b] else top[b]
    count = 0
    for b in range(B):
        if top[b] >= t_max:
            count += 1
    return count


def fast_exact_step(theta, TT, idx, tol):
    """:func:`~sigtest._engine.ranking_mcs_exact.exact_step` of ``T = TT.T`` (same bits).

    ``TT`` is ``T`` transposed (``k x B``, C-contiguous float64, ``B >= 2``):
    a system's replicates are contiguous, so that a step reads only the
    survivors'; ``len(idx) >= 2``.
    """
    B = TT.shape[1]
    th = theta[idx]
    d = th.mean() - th
    idx = np.ascontiguousarray(idx, dtype=np.int64)
    mu, sd = _means_sd(TT, idx)
    live = sd > tol
    t = np.where(d > tol, math.inf, 0.0)
    t[live] = d[live] / sd[live]
    t_max = float(t.max())
    count = _exceedances(TT, idx, mu, d, sd, live, t_max) if 0.0 < t_max < math.inf else 0
    return t, t_max, step_pvalue(t_max, count, B)
