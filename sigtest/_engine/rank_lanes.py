r"""The rank-metric bootstrap on count lanes: several resamples per pass over the sorted orders.

Without clusters and sample weights, a bootstrap resample of a rank metric
(:mod:`sigtest._engine.rank_metrics`) is a vector of item counts, and the
metric is one pass over each system's sorted order reading the counts of its
items. Item ``i``'s counts of ``L`` consecutive resamples are stored side by
side (``uint8``, ``cnt[i * L + r]`` for lane ``r``), so a pass reads one
``L``-byte word per entry for ``L`` resamples: the random reads of B's order
(and the scattered increments of the draws) touch ``L`` times fewer cache
lines per resample than the one-row-per-resample kernel, and the ``L``
lanes' additions are independent chains.

``L`` is the largest power of two up to :data:`MAX_LANES` whose count block
``N L`` bytes fits :data:`LANE_BYTES` (a core's L2 share; at least one lane:
a one-byte count row, half the ``uint16`` row of the item kernel). Lane
``r`` does exactly the item kernel's operations on resample ``b0 + r``
(the same draws of ``kernels_counts._count_row``: Lemire's multiply-shift on
the halves of the words of that resample's SplitMix64 stream, strata one
after the other; the same floating-point sums in the same order), so the
scores are bit-identical to it for any ``L``, block and thread count. A
count above 255 wraps its byte: the draw loop records it and the caller
recomputes that resample with the item kernel (wide counts).
"""

from __future__ import annotations

import numpy as np

from sigtest._engine.kernels import _GOLDEN, _ir_inline, _jit, _pair, _threshold
from sigtest._engine.threads import split_rows

__all__ = ["LANE_BYTES", "MAX_LANES", "lanes_for", "lane_bootstrap"]

#: Most resamples per pass (8 bytes of counts per item).
MAX_LANES = 8
#: Largest count block of a pass, ``N L`` bytes (half a core's L2 on the reference machine).
LANE_BYTES = 1 << 19


def lanes_for(n_items):
    """Lanes of a pass over ``n_items`` items: a power of two in ``[1, MAX_LANES]``."""
    lanes = 1
    while lanes < MAX_LANES and 2 * lanes * int(n_items) <= LANE_BYTES:
        lanes *= 2
    return lanes


@_ir_inline
def _store_unit(kind, weighting, lanes, num, P, N0, scratch, u):
    """Add every lane's value of one component (AUC: ``num / (P N0)``, nan without both
    classes; AP: ``num / P``, 0 without positives) to unit ``u``'s sums in ``scratch``."""
    for r in range(lanes):
        if kind == 0:
            value = num[r] / (P[r] * N0[r]) if P[r] * N0[r] > 0.0 else np.nan
        else:
            value = num[r] / P[r] if P[r] > 0.0 else 0.0
        scratch[0, u, r] += value
        scratch[1, u, r] += 1.0
        scratch[2, u, r] = P[r] if weighting == 1 else P[r] + N0[r]


@_jit
def _combine(scratch, weighting):
    """Average of the components' values per averaging unit (rows: sum, count, weight)."""
    n_units = scratch.shape[1]
    total = 0.0
    size = 0.0
    for u in range(n_units):
        v = scratch[0, u] / scratch[1, u]
        if weighting == 0:
            total += v
            size += 1.0
        else:
            total += scratch[2, u] * v
            size += scratch[2, u]
    return total / size if size > 0.0 else np.nan


@_jit
def _count_lane(cnt, lanes, r, key, n, m, members, lo):
    """Lane ``r``'s counts of the ``m`` draws of ``key`` from ``[0, n)``: ``(counter, wrapped)``.

    The draws of ``kernels_counts._count_row`` (mapped to ``members[lo +
    index]`` when ``members`` is non-empty), counted in ``cnt[unit * lanes +
    r]``; ``wrapped`` is non-zero when a count passed 255.
    """
    if m <= 0:
        return key, 0
    nn = np.uint64(n)
    thr = _threshold(nn)
    mapped = members.shape[0] > 0
    z = key
    got = 0
    high = 0  # or of the new counts: bit 8 set once one reached 256
    while got < m:
        z = z + _GOLDEN
        i0, i1 = _pair(z, nn, thr)
        if i0 >= 0:
            j = (members[lo + i0] if mapped else i0) * lanes + r
            c = np.int64(cnt[j]) + 1
            cnt[j] = c
            high |= c
            got += 1
        if i1 >= 0 and got < m:
            j = (members[lo + i1] if mapped else i1) * lanes + r
            c = np.int64(cnt[j]) + 1
            cnt[j] = c
            high |= c
            got += 1
    return z, high >> 8


@_jit
def _values_lanes(lanes, kind, items, pos, ties, starts, unit, weighting, cnt, acc, scratch,
                  vals):
    """``rank_metrics._value`` of every lane: ``vals[r]`` from the counts of lane ``r``.

    ``acc`` (5, lanes) holds each lane's numerator, P, N0 and the current
    tie group's positive and negative weights; ``scratch`` (3, n_units,
    lanes) the per-unit sums of ``_value``.
    """
    scratch[:, :, :] = 0.0
    num = acc[0]
    P = acc[1]
    N0 = acc[2]
    gp = acc[3]
    gn = acc[4]
    for c in range(starts.shape[0] - 1):
        lo = starts[c]
        hi = starts[c + 1]
        g0 = ties[c]
        g1 = ties[c + 1]
        for r in range(lanes):
            num[r] = 0.0
            P[r] = 0.0
            N0[r] = 0.0
        if kind == 0 and g1 - g0 == hi - lo:  # AUC without ties
            for k in range(lo, hi):
                base = items[k] * lanes
                pk = pos[k]
                for r in range(lanes):
                    w = float(cnt[base + r])
                    wp = w * pk
                    wn = w - wp
                    num[r] += wn * P[r]
                    P[r] += wp
                    N0[r] += wn
        else:
            for g in range(g0, g1):
                end = ties[g + 1] if g + 1 < g1 else hi
                for r in range(lanes):
                    gp[r] = 0.0
                    gn[r] = 0.0
                for k in range(ties[g], end):
                    base = items[k] * lanes
                    pk = pos[k]
                    for r in range(lanes):
                        w = float(cnt[base + r])
                        wp = w * pk
                        gp[r] += wp
                        gn[r] += w - wp
                if kind == 0:
                    for r in range(lanes):
                        num[r] += gn[r] * (P[r] + 0.5 * gp[r])
                        P[r] += gp[r]
                        N0[r] += gn[r]
                else:
                    # _value skips an empty group; here it adds +0.0 to P, N0 and num
                    # (all >= +0.0: unchanged bits) unless P + N0 is still 0
                    for r in range(lanes):
                        P[r] += gp[r]
                        N0[r] += gn[r]
                        d = P[r] + N0[r]
                        if d > 0.0:
                            num[r] += gp[r] * P[r] / d
        _store_unit(kind, weighting, lanes, num, P, N0, scratch, unit[c])
    for r in range(lanes):
        vals[r] = _combine(scratch[:, :, r], weighting)


@_jit
def _lane_block(lanes, lo_b, hi_b, keys, kind, items, pos, ties, starts, unit, weighting,
                n_units, strat_units, strat_starts, strat_draws, direct, n_count, out,
                wrapped):
    cnt = np.zeros(n_count * lanes, dtype=np.uint8)
    acc = np.zeros((5, lanes))
    scratch = np.zeros((3, n_units, lanes))
    vals = np.zeros(lanes)
    no_units = np.zeros(0, dtype=np.int64)
    for b0 in range(lo_b, hi_b, lanes):
        nb = min(lanes, hi_b - b0)
        cnt[:] = 0
        for r in range(nb):
            z = keys[b0 + r]
            high = 0
            for h in range(strat_draws.shape[0]):
                z, wr = _count_lane(cnt, lanes, r, z, strat_starts[h + 1] - strat_starts[h],
                                    strat_draws[h], no_units if direct else strat_units,
                                    strat_starts[h])
                high |= wr
            wrapped[b0 + r] = high != 0
        for s in range(2):
            _values_lanes(lanes, kind, items[s], pos[s], ties[s], starts, unit, weighting, cnt,
                          acc, scratch, vals)
            for r in range(nb):
                out[b0 + r, s] = vals[r]


@_jit
def _lane_bootstrap(lanes, keys, kind, items, pos, ties, starts, unit, weighting, n_units,
                    strat_units, strat_starts, strat_draws, direct, n_count):
    B = keys.shape[0]
    out = np.empty((B, 2))
    wrapped = np.zeros(B, dtype=np.bool_)
    _lane_block(lanes, 0, B, keys, kind, items, pos, ties, starts, unit, weighting, n_units,
                strat_units, strat_starts, strat_draws, direct, n_count, out, wrapped)
    return out, wrapped


def lane_bootstrap(lanes, keys, kind, items, pos, ties, starts, unit, weighting, n_units,
                   strat_units, strat_starts, strat_draws, direct, n_count, *, parallel=False):
    """Scores of A and B on the resamples of ``keys``, ``lanes`` resamples per pass.

    Parameters
    ----------
    lanes : int
        Resamples per pass (:func:`lanes_for`).
    keys : ndarray of shape (B,), uint64
    kind, items, pos, ties, starts, unit, weighting, n_units
        The :class:`~sigtest._engine.rank_metrics.RankedPair` of the pair.
    strat_units, strat_starts, strat_draws, direct
        The draws (``rank_metrics._strata_layout``).
    n_count : int
        Length of a lane's count row (the resampling units, relabelled items).
    parallel : bool, default=False
        Parts of the resamples (whole passes of ``lanes``) in threads
        (:mod:`sigtest._engine.threads`); results identical.

    Returns
    -------
    scores : ndarray of shape (B, 2)
    wrapped : ndarray of shape (B,), bool
        Resamples whose one-byte counts wrapped: their scores are wrong and
        must be recomputed with wide counts.
    """
    rest = (kind, items, pos, ties, starts, unit, weighting, n_units, strat_units, strat_starts,
            strat_draws, direct, np.int64(n_count))
    return split_rows(lambda s, e: _lane_bootstrap(np.int64(lanes), keys[s:e], *rest),
                      keys.shape[0], parallel, align=lanes)
