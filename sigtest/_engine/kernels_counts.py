"""The count path of the bootstrap sums (numba): count the draws, then stream the rows.

Used by compare's shared resamples (:mod:`sigtest._engine.shared`) when the
``(U, k s)`` unit rows of all systems outgrow a core's L2 cache
(:func:`sigtest._engine.kernels_numpy.count_path`): ``out[b, c] = sum_u
float(count_{b,u}) * stats[u, c]`` over the units in order, the order of the
NumPy twin ``kernels_numpy._bootstrap_sums(..., counted=True)``. The draws
are those of :func:`sigtest._engine.kernels._draw_units` (Lemire's
multiply-shift with rejection on 32-bit halves of SplitMix64 words, per
resample and stratum), so results do not depend on the thread count.
"""

import numpy as np

from sigtest._engine.kernels import _GOLDEN, _draw_units, _jit, _pair, _threshold

__all__ = ["count_sums_range"]  # _count_row: also the rank kernels' draws


# A random gather of ``stats[i]`` misses the cache once the rows outgrow it
# (16 MB of soft-accuracy rows at N = 1e6). The count path never gathers:
# 1. the m draws of a resample are tallied in a uint8 count row (n bytes,
#    16 times smaller than 16-byte rows: mostly L2 hits instead of L3 misses);
# 2. _LANES resamples are counted, then the rows are streamed once,
#    sequentially, for all of them: lane r adds float(count_r[i]) * stats[i, c]
#    for i = 0 .. n-1 (a fixed order, the twin's), eight independent
#    accumulators per column instead of one dependent chain.
# A count above 255 wraps the uint8: the total of the stored counts is then
# below the number of draws, and that resample is recomputed with int32
# counts and the same sum (_wide_one), so the result is exact. (Queueing the
# draws by 32 KiB slice of the count row and flushing a queue into its slice
# was measured and was slower: a flush touches more lines than it reuses.)
_LANES = 8
_CHUNK = 256


@_jit
def _count_row(row, key, n, m, members, lo):
    """Add the multiplicities of the ``m`` draws of ``key`` from ``[0, n)`` to ``row``.

    Draw ``t`` is the ``t``-th accepted index (the twin's ``_indices``), or
    ``members[lo + index]`` when ``members`` is non-empty (a stratum's
    units). A uint8 ``row`` stores counts modulo 256: the caller detects a
    wrap from the total (:func:`_count_lanes`). Returns the counter of the
    last word used (``key`` when ``m == 0``): the rank kernels draw their
    strata one after the other from it.
    """
    if m <= 0:
        return key
    nn = np.uint64(n)
    thr = _threshold(nn)
    mapped = members.shape[0] > 0
    z = key
    got = 0
    while got < m:
        z = z + _GOLDEN
        i0, i1 = _pair(z, nn, thr)
        if i0 >= 0:
            row[members[lo + i0] if mapped else i0] += 1  # uint8: stored modulo 256
            got += 1
        if i1 >= 0 and got < m:
            row[members[lo + i1] if mapped else i1] += 1
            got += 1
    return z


@_jit
def _wide_one(stats, keys, members, offsets, sizes, out, b):
    """One resample of the count path with int32 counts (after a uint8 count wrapped)."""
    n, s = stats.shape
    counts = np.zeros(n, dtype=np.int32)
    units = np.empty(sizes.max(), dtype=np.int64)
    for h in range(offsets.shape[0] - 1):
        if offsets[h + 1] > offsets[h]:
            _draw_units(keys[h, b], offsets[h + 1] - offsets[h], sizes[h], members,
                        offsets[h], units)
            for t in range(sizes[h]):
                counts[units[t]] += 1
    for c in range(s):
        a = 0.0
        for i in range(n):
            a += float(counts[i]) * stats[i, c]
        out[b, c] = a


@_jit
def _count_lanes(stats, keys, members, offsets, sizes, out, b0, rows, w):
    """Resamples ``b0 .. b0 + _LANES - 1`` of the count path (all strata)."""
    n, s = stats.shape
    nb = min(_LANES, keys.shape[1] - b0)
    rows[:, :] = 0
    drawn = 0
    for h in range(offsets.shape[0] - 1):
        if offsets[h + 1] > offsets[h]:
            drawn += sizes[h]
    for r in range(nb):
        for h in range(offsets.shape[0] - 1):
            n_h = offsets[h + 1] - offsets[h]
            if n_h > 0:
                _count_row(rows[r], keys[h, b0 + r], n_h, sizes[h], members, offsets[h])
    acc = np.zeros((s, _LANES))
    total = np.zeros(_LANES, dtype=np.int64)  # sum of the stored counts: < drawn iff one wrapped
    for i0 in range(0, n, _CHUNK):
        i1 = min(n, i0 + _CHUNK)
        for r in range(_LANES):  # counts of a chunk, row-major by item, as floats
            row = rows[r]
            t = 0
            for i in range(i0, i1):
                t += row[i]
                w[i - i0, r] = row[i]
            total[r] += t
        for c in range(s):
            a = acc[c]
            a0, a1, a2, a3 = a[0], a[1], a[2], a[3]
            a4, a5, a6, a7 = a[4], a[5], a[6], a[7]
            for i in range(i0, i1):
                x = stats[i, c]
                wi = w[i - i0]
                a0 += wi[0] * x
                a1 += wi[1] * x
                a2 += wi[2] * x
                a3 += wi[3] * x
                a4 += wi[4] * x
                a5 += wi[5] * x
                a6 += wi[6] * x
                a7 += wi[7] * x
            a[0], a[1], a[2], a[3] = a0, a1, a2, a3
            a[4], a[5], a[6], a[7] = a4, a5, a6, a7
    for r in range(nb):
        if total[r] != drawn:
            _wide_one(stats, keys, members, offsets, sizes, out, b0 + r)
        else:
            for c in range(s):
                out[b0 + r, c] = acc[c, r]


@_jit
def count_sums_range(stats, keys, members, offsets, sizes, out, start, stop):
    """Count-path sums of resamples ``start <= b < stop`` into ``out`` (B, s).

    ``keys`` (H, B): stratum ``h`` draws ``sizes[h]`` times from its
    ``offsets[h+1] - offsets[h]`` units ``members[offsets[h]:offsets[h+1]]``
    (``members`` empty: the units are the indices themselves, one stratum).
    ``out[b, c] = sum_i float(count_{b,i}) * stats[i, c]``, ``i`` in row order
    from 0.0, for every ``b``: independent of ``start``/``stop`` and threads.
    """
    n = stats.shape[0]
    rows = np.empty((_LANES, n), dtype=np.uint8)
    w = np.empty((_CHUNK, _LANES))
    for b0 in range(start, stop, _LANES):
        _count_lanes(stats, keys[:, :stop], members, offsets, sizes, out, b0, rows, w)
    return out
