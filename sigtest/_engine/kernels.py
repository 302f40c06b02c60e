"""numba resampling kernels (metric-agnostic: they only see float arrays).

Each public function here has a NumPy twin of the same name and signature in
:mod:`sigtest._engine.kernels_numpy` that returns bit-identical output (see that
module for the random-number design). The jitted kernels are compiled with
``cache=True, nogil=True`` and no ``fastmath``; ``parallel=True`` selects a
``prange`` variant over resamples. Because every random stream belongs to a
resample, never to a thread, results do not depend on the number of threads.

The generic bootstrap has two paths (the rule is
:func:`sigtest._engine.kernels_numpy.count_path`): rows that fit in a core's
L2 cache are gathered in draw order; larger rows take the count path
(``_bootstrap_sums_counts``: the draws of 8 resamples are counted in uint8
rows, then the rows are streamed once, ``sum_i float(count_i) * stats[i]`` in
row order), which replaces a cache miss per draw by one sequential pass per 8
resamples: ~7x the old gather at N = 1e6 (``benchmarks/bench_peritem.py``).
Indices come from Lemire's multiply-shift with rejection on 32-bit halves of
the SplitMix64 words (one multiply per draw, two draws per word).

Set the environment variable ``SIGTEST_DISABLE_NUMBA=1`` (or numba's own
``NUMBA_DISABLE_JIT=1``) to run the NumPy twins instead.
"""

import math
import os

import numpy as np

from sigtest._engine import kernels_numpy as _py

__all__ = [
    "NUMBA_ENABLED",
    "bootstrap_sums_generic",
    "bootstrap_sums_cells",
    "count_sums_range",
    "permutation_sums_generic",
    "permutation_sums_cells",
]



def _numba_enabled():
    if os.environ.get("SIGTEST_DISABLE_NUMBA", "").strip() not in ("", "0"):
        return False
    try:
        import numba
    except ImportError:  # pragma: no cover - numba is a hard dependency
        return False
    return not numba.config.DISABLE_JIT


NUMBA_ENABLED = _numba_enabled()

try:
    from numba import njit, prange
except ImportError:  # pragma: no cover

    def njit(*args, **kwargs):
        return (lambda f: f) if not args or not callable(args[0]) else args[0]

    prange = range

# Each kernel comes as a serial ``_jit`` and a ``prange`` ``_pjit`` driver of the
# same per-resample function (``*_one``). The two short drivers stay separate
# functions on purpose: numba's on-disk cache (``cache=True``) names its entries
# after the Python function, not after the compile flags, so one function jitted
# twice (serial and parallel) would share, and overwrite, one cache entry.
_jit = njit(cache=True, nogil=True)
_pjit = njit(cache=True, nogil=True, parallel=True)

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_M32 = np.uint64(0xFFFFFFFF)
_U1 = np.uint64(1)
_U27 = np.uint64(27)
_U30 = np.uint64(30)
_U31 = np.uint64(31)
_U32 = np.uint64(32)


@_jit
def _splitmix(z):
    z = (z ^ (z >> _U30)) * _M1
    z = (z ^ (z >> _U27)) * _M2
    return z ^ (z >> _U31)


@_jit
def _bounded(z, n):
    """``floor(z * n / 2**64)`` of a 64-bit word ``z`` (multiply-shift, no rejection).

    The draws of the rank-metric kernels (:mod:`sigtest._engine.rank_metrics`):
    one SplitMix64 word per index, bias below ``n / 2**64``.
    """
    hi = (z >> _U32) * n
    lo = ((z & _M32) * n) >> _U32
    return np.intp((hi + lo) >> _U32)


_TWO32 = np.uint64(1 << 32)


@_jit
def _threshold(nn):
    """``2**32 mod n``: Lemire's rejection threshold for ``0 < n < 2**32``."""
    return _TWO32 % nn


@_jit
def _pair(z, nn, thr):
    """The two candidates of the word of counter ``z`` (low half, then high): index or -1.

    A 32-bit half ``h`` is accepted when ``(h * n) mod 2**32 >= thr`` and is
    then the index ``(h * n) >> 32`` (Lemire 2019, with rejection).
    """
    w = _splitmix(z)
    p0 = (w & _M32) * nn
    p1 = (w >> _U32) * nn
    i0 = np.intp(p0 >> _U32) if (p0 & _M32) >= thr else np.intp(-1)
    i1 = np.intp(p1 >> _U32) if (p1 & _M32) >= thr else np.intp(-1)
    return i0, i1


# --------------------------------------------------------------------------
# generic bootstrap, gather path: m drawn rows added in draw order
# --------------------------------------------------------------------------
@_jit
def _boot_one(stats, m, key, out, b):
    # three copies of the draw loop (s = 1, s = 2 in registers, any s): the
    # low 32-bit half of a word is drawn first, then the high one (the twin's
    # ``_indices``); m draws, each added in draw order
    n, s = stats.shape
    nn = np.uint64(n)
    thr = _threshold(nn)
    z = key
    got = 0
    if s == 1:
        a0 = 0.0
        while got < m:
            z = z + _GOLDEN
            i0, i1 = _pair(z, nn, thr)
            if i0 >= 0:
                a0 += stats[i0, 0]
                got += 1
            if i1 >= 0 and got < m:
                a0 += stats[i1, 0]
                got += 1
        out[b, 0] = a0
    elif s == 2:
        a0 = 0.0
        a1 = 0.0
        while got < m:
            z = z + _GOLDEN
            i0, i1 = _pair(z, nn, thr)
            if i0 >= 0:
                a0 += stats[i0, 0]
                a1 += stats[i0, 1]
                got += 1
            if i1 >= 0 and got < m:
                a0 += stats[i1, 0]
                a1 += stats[i1, 1]
                got += 1
        out[b, 0] = a0
        out[b, 1] = a1
    else:
        acc = np.zeros(s)
        while got < m:
            z = z + _GOLDEN
            i0, i1 = _pair(z, nn, thr)
            if i0 >= 0:
                for c in range(s):
                    acc[c] += stats[i0, c]
                got += 1
            if i1 >= 0 and got < m:
                for c in range(s):
                    acc[c] += stats[i1, c]
                got += 1
        for c in range(s):
            out[b, c] = acc[c]


@_jit
def _bootstrap_sums_generic(stats, m, keys):
    out = np.zeros((keys.shape[0], stats.shape[1]))
    for b in range(keys.shape[0]):
        _boot_one(stats, m, keys[b], out, b)
    return out


@_pjit
def _bootstrap_sums_generic_parallel(stats, m, keys):
    out = np.zeros((keys.shape[0], stats.shape[1]))
    for b in prange(keys.shape[0]):
        _boot_one(stats, m, keys[b], out, b)
    return out


# --------------------------------------------------------------------------
# generic bootstrap, count path: count the draws, then stream the rows
# --------------------------------------------------------------------------
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
    units). Counts are stored modulo 256: the caller detects a wrap from the
    total (:func:`_count_lanes`).
    """
    nn = np.uint64(n)
    thr = _threshold(nn)
    mapped = members.shape[0] > 0
    z = key
    got = 0
    while got < m:
        z = z + _GOLDEN
        i0, i1 = _pair(z, nn, thr)
        if i0 >= 0:
            row[members[lo + i0] if mapped else i0] += 1  # stored modulo 256
            got += 1
        if i1 >= 0 and got < m:
            row[members[lo + i1] if mapped else i1] += 1
            got += 1


@_jit
def _draw_units(key, n, m, members, lo, units):
    """The ``m`` draws of ``key`` from ``[0, n)``, in draw order, into ``units[:m]``.

    Mapped to ``members[lo + index]`` when ``members`` is non-empty (the
    units of a stratum; compare's shared resamples use it too).
    """
    if m <= 0:
        return
    nn = np.uint64(n)
    thr = _threshold(nn)
    mapped = members.shape[0] > 0
    z = key
    got = 0
    while got < m:
        z = z + _GOLDEN
        i0, i1 = _pair(z, nn, thr)
        if i0 >= 0:
            units[got] = members[lo + i0] if mapped else i0
            got += 1
        if i1 >= 0 and got < m:
            units[got] = members[lo + i1] if mapped else i1
            got += 1


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


_NO_MEMBERS = np.zeros(0, dtype=np.int64)


@_jit
def _bootstrap_sums_counts(stats, m, keys, n_parts):
    out = np.zeros((keys.shape[0], stats.shape[1]))
    offsets = np.array([0, stats.shape[0]], dtype=np.int64)
    sizes = np.array([m], dtype=np.int64)
    count_sums_range(stats, keys.reshape(1, -1), _NO_MEMBERS, offsets, sizes, out, 0,
                     keys.shape[0])
    return out


@_pjit
def _bootstrap_sums_counts_parallel(stats, m, keys, n_parts):
    B = keys.shape[0]
    out = np.zeros((B, stats.shape[1]))
    offsets = np.array([0, stats.shape[0]], dtype=np.int64)
    sizes = np.array([m], dtype=np.int64)
    keys2 = keys.reshape(1, -1)
    n_blocks = (B + _LANES - 1) // _LANES
    per = (n_blocks + n_parts - 1) // n_parts * _LANES
    for t in prange(n_parts):  # one range of resamples (and one set of buffers) per part
        count_sums_range(stats, keys2, _NO_MEMBERS, offsets, sizes, out, min(B, t * per),
                         min(B, (t + 1) * per))
    return out


# --------------------------------------------------------------------------
# scalar uniform and binomial (mirror of kernels_numpy.uniform / binomial)
# --------------------------------------------------------------------------
_INV_2_53 = 1.0 / 9007199254740992.0
_U11 = np.uint64(11)
_STIRLING_TAIL = np.array(_py._STIRLING_TAIL)


@_jit
def _uniform(z):
    z = z + _GOLDEN
    return float(_splitmix(z) >> _U11) * _INV_2_53, z


@_jit
def _stirling_tail(k):
    if k <= 9:
        return _STIRLING_TAIL[int(k)]
    kp1sq = (k + 1.0) * (k + 1.0)
    return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1.0)


@_jit
def _binomial_consts(p):
    """``(p, min(p, 1-p), 1 - min(p, 1-p), ratio, log1p(-min(p, 1-p)))`` of :func:`_binomial`.

    They depend on ``p`` only, so the multinomial kernel computes them once
    per cell instead of once per draw (``p = counts[c] / left`` is the same in
    every resample); the values are bit-identical to computing them per draw.
    """
    pe = 1.0 - p if p > 0.5 else p
    q = 1.0 - pe
    ratio = pe / q if q > 0.0 else 0.0
    lg = math.log1p(-pe) if 0.0 < pe < 1.0 else 0.0
    return p, pe, q, ratio, lg


@_jit
def _binomial(n, p, z):
    p0, pe, q, ratio, lg = _binomial_consts(p)
    return _binomial_pre(n, p0, pe, q, ratio, lg, z)


@_jit
def _binomial_pre(n, p0, p, q, r, lg, z):
    """Binomial(n, p0) from counter ``z``; ``p, q, r, lg`` from :func:`_binomial_consts`."""
    if n <= 0 or p0 <= 0.0:
        return 0, z
    if p0 >= 1.0:
        return n, z
    k = 0
    if n * p < 10.0:
        u, z = _uniform(z)
        pk = math.exp(n * lg)
        F = pk
        while u > F and k < n:
            pk = pk * r * (n - k) / (k + 1)
            k += 1
            F += pk
    else:
        stddev = math.sqrt(n * p * q)
        b = 1.15 + 2.53 * stddev
        a = -0.0873 + 0.0248 * b + 0.01 * p
        c = n * p + 0.5
        v_r = 0.92 - 4.2 / b
        alpha = (2.83 + 5.1 / b) * stddev
        m = math.floor((n + 1) * p)
        while True:
            u, z = _uniform(z)
            v, z = _uniform(z)
            u = u - 0.5
            us = 0.5 - abs(u)
            k = math.floor((2.0 * a / us + b) * u + c)
            if us >= 0.07 and v <= v_r:
                break
            if k < 0 or k > n:
                continue
            v = math.log(v * alpha / (a / (us * us) + b))
            bound = (
                (m + 0.5) * math.log((m + 1) / (r * (n - m + 1)))
                + (n + 1) * math.log((n - m + 1) / (n - k + 1))
                + (k + 0.5) * math.log(r * (n - k + 1) / (k + 1))
                + _stirling_tail(m)
                + _stirling_tail(n - m)
                - _stirling_tail(k)
                - _stirling_tail(n - k)
            )
            if v <= bound:
                break
    if p0 > 0.5:
        return n - k, z
    return k, z


# --------------------------------------------------------------------------
# compressed bootstrap: multinomial over cells by conditional binomials
# --------------------------------------------------------------------------
@_jit
def _cell_probabilities(counts):
    """Per-cell constants of the conditional binomials, shape (C, 5).

    Cell ``c < C - 1`` is drawn as Binomial(remaining, counts[c] / left_c)
    with ``left_c = counts[c:].sum()``, the same in every resample; row ``c``
    holds :func:`_binomial_consts` of that probability (the last row is unused).
    """
    C = counts.shape[0]
    consts = np.zeros((C, 5))
    left = counts.sum()
    for c in range(C - 1):  # the last cell takes the remainder: no draw
        p0, pe, q, ratio, lg = _binomial_consts(counts[c] / left)
        consts[c, 0] = p0
        consts[c, 1] = pe
        consts[c, 2] = q
        consts[c, 3] = ratio
        consts[c, 4] = lg
        left -= counts[c]
    return consts


@_jit
def _boot_cells_one(cell_stats, consts, m, key, out, b):
    C, s = cell_stats.shape
    z = key
    remaining = m
    for c in range(C):
        if c < C - 1:
            x, z = _binomial_pre(remaining, consts[c, 0], consts[c, 1], consts[c, 2],
                                 consts[c, 3], consts[c, 4], z)
        else:
            x = remaining
        remaining -= x
        fx = float(x)
        for j in range(s):
            out[b, j] = out[b, j] + fx * cell_stats[c, j]


@_jit
def _bootstrap_sums_cells(cell_stats, counts, m, keys):
    out = np.zeros((keys.shape[0], cell_stats.shape[1]))
    consts = _cell_probabilities(counts)
    for b in range(keys.shape[0]):
        _boot_cells_one(cell_stats, consts, m, keys[b], out, b)
    return out


@_pjit
def _bootstrap_sums_cells_parallel(cell_stats, counts, m, keys):
    out = np.zeros((keys.shape[0], cell_stats.shape[1]))
    consts = _cell_probabilities(counts)
    for b in prange(keys.shape[0]):
        _boot_cells_one(cell_stats, consts, m, keys[b], out, b)
    return out


@_jit
def _boot_cells_sparse_one(indptr, indices, data, consts, m, key, out, b):
    C = indptr.shape[0] - 1
    z = key
    remaining = m
    for c in range(C):
        if c < C - 1:
            x, z = _binomial_pre(remaining, consts[c, 0], consts[c, 1], consts[c, 2],
                                 consts[c, 3], consts[c, 4], z)
        else:
            x = remaining
        remaining -= x
        if x != 0:  # adding 0 * value leaves every sum unchanged: skip
            fx = float(x)
            for e in range(indptr[c], indptr[c + 1]):
                j = indices[e]
                out[b, j] = out[b, j] + fx * data[e]


@_jit
def _bootstrap_sums_cells_sparse(indptr, indices, data, n_cols, counts, m, keys):
    out = np.zeros((keys.shape[0], n_cols))
    consts = _cell_probabilities(counts)
    for b in range(keys.shape[0]):
        _boot_cells_sparse_one(indptr, indices, data, consts, m, keys[b], out, b)
    return out


@_pjit
def _bootstrap_sums_cells_sparse_parallel(indptr, indices, data, n_cols, counts, m, keys):
    out = np.zeros((keys.shape[0], n_cols))
    consts = _cell_probabilities(counts)
    for b in prange(keys.shape[0]):
        _boot_cells_sparse_one(indptr, indices, data, consts, m, keys[b], out, b)
    return out


# --------------------------------------------------------------------------
# generic permutation: one swap bit per differing item
# --------------------------------------------------------------------------
@_jit
def _perm_one(diff, key, out, b):
    d, s = diff.shape
    z = key
    word = np.uint64(0)
    for i in range(d):
        r = i % 64
        if r == 0:
            z = z + _GOLDEN
            word = _splitmix(z)
        if (word >> np.uint64(r)) & _U1:
            for c in range(s):
                out[b, c] += diff[i, c]


@_jit
def _permutation_sums_generic(diff, keys):
    out = np.zeros((keys.shape[0], diff.shape[1]))
    for b in range(keys.shape[0]):
        _perm_one(diff, keys[b], out, b)
    return out


@_pjit
def _permutation_sums_generic_parallel(diff, keys):
    out = np.zeros((keys.shape[0], diff.shape[1]))
    for b in prange(keys.shape[0]):
        _perm_one(diff, keys[b], out, b)
    return out


# --------------------------------------------------------------------------
# compressed permutation: Binomial(n_c, 1/2) swaps per discordant cell
# --------------------------------------------------------------------------
_HALF_POPCOUNT_MAX = _py.HALF_POPCOUNT_MAX
_C1 = np.uint64(0x5555555555555555)
_C2 = np.uint64(0x3333333333333333)
_C4 = np.uint64(0x0F0F0F0F0F0F0F0F)
_C8 = np.uint64(0x0101010101010101)
_U2 = np.uint64(2)
_U4 = np.uint64(4)
_U56 = np.uint64(56)


@_jit
def _popcount(x):
    x = x - ((x >> _U1) & _C1)
    x = (x & _C2) + ((x >> _U2) & _C2)
    x = (x + (x >> _U4)) & _C4
    return np.int64((x * _C8) >> _U56)


@_jit
def _binomial_half(n, z):
    if n <= 0:
        return 0, z
    if n > _HALF_POPCOUNT_MAX:
        return _binomial(n, 0.5, z)
    k = 0
    rem = n
    while rem > 0:
        z = z + _GOLDEN
        x = _splitmix(z)
        if rem < 64:
            x = x & ((_U1 << np.uint64(rem)) - _U1)
        k += _popcount(x)
        rem -= 64
    return k, z


@_jit
def _perm_cells_one(diff, counts, key, out, b):
    G, s = diff.shape
    z = key
    for g in range(G):
        x, z = _binomial_half(counts[g], z)
        fx = float(x)
        for j in range(s):
            out[b, j] = out[b, j] + fx * diff[g, j]


@_jit
def _permutation_sums_cells(diff, counts, keys):
    out = np.zeros((keys.shape[0], diff.shape[1]))
    for b in range(keys.shape[0]):
        _perm_cells_one(diff, counts, keys[b], out, b)
    return out


@_pjit
def _permutation_sums_cells_parallel(diff, counts, keys):
    out = np.zeros((keys.shape[0], diff.shape[1]))
    for b in prange(keys.shape[0]):
        _perm_cells_one(diff, counts, keys[b], out, b)
    return out


@_jit
def _perm_cells_sparse_one(indptr, indices, data, counts, key, out, b):
    G = indptr.shape[0] - 1
    z = key
    for g in range(G):
        x, z = _binomial_half(counts[g], z)
        if x != 0:
            fx = float(x)
            for e in range(indptr[g], indptr[g + 1]):
                j = indices[e]
                out[b, j] = out[b, j] + fx * data[e]


@_jit
def _permutation_sums_cells_sparse(indptr, indices, data, n_cols, counts, keys):
    out = np.zeros((keys.shape[0], n_cols))
    for b in range(keys.shape[0]):
        _perm_cells_sparse_one(indptr, indices, data, counts, keys[b], out, b)
    return out


@_pjit
def _permutation_sums_cells_sparse_parallel(indptr, indices, data, n_cols, counts, keys):
    out = np.zeros((keys.shape[0], n_cols))
    for b in prange(keys.shape[0]):
        _perm_cells_sparse_one(indptr, indices, data, counts, keys[b], out, b)
    return out


# --------------------------------------------------------------------------
# dispatch (same signatures as the twins, plus ``parallel``)
# --------------------------------------------------------------------------
def bootstrap_sums_generic(stats, m, keys, parallel=False):
    """Jitted :func:`sigtest._engine.kernels_numpy.bootstrap_sums_generic`."""
    if not NUMBA_ENABLED:
        return _py.bootstrap_sums_generic(stats, m, keys)
    if stats.shape[0] >= 2**32:
        raise ValueError("The generic bootstrap supports at most 2**32 - 1 rows.")
    if keys.shape[0] and m and _py.count_path(stats, m):
        parts = _threads() if parallel else 1
        kernel = _bootstrap_sums_counts_parallel if parts > 1 else _bootstrap_sums_counts
        return kernel(stats, np.int64(m), keys, np.int64(parts))
    kernel = _bootstrap_sums_generic_parallel if parallel else _bootstrap_sums_generic
    return kernel(stats, np.int64(m), keys)


def _threads():
    import numba

    return int(numba.get_num_threads())


def bootstrap_sums_cells(cell_stats, counts, m, keys, parallel=False):
    """Jitted :func:`sigtest._engine.kernels_numpy.bootstrap_sums_cells`."""
    if not NUMBA_ENABLED:
        return _py.bootstrap_sums_cells(cell_stats, counts, m, keys)
    kernel = _bootstrap_sums_cells_parallel if parallel else _bootstrap_sums_cells
    return kernel(cell_stats, counts, np.int64(m), keys)


def bootstrap_sums_cells_sparse(indptr, indices, data, n_cols, counts, m, keys,
                                parallel=False):
    """Jitted :func:`sigtest._engine.kernels_numpy.bootstrap_sums_cells_sparse`."""
    if not NUMBA_ENABLED:
        return _py.bootstrap_sums_cells_sparse(indptr, indices, data, n_cols, counts, m, keys)
    kernel = _bootstrap_sums_cells_sparse_parallel if parallel else _bootstrap_sums_cells_sparse
    return kernel(indptr, indices, data, np.int64(n_cols), counts, np.int64(m), keys)


def permutation_sums_cells_sparse(indptr, indices, data, n_cols, counts, keys,
                                  parallel=False):
    """Jitted :func:`sigtest._engine.kernels_numpy.permutation_sums_cells_sparse`."""
    if not NUMBA_ENABLED:
        return _py.permutation_sums_cells_sparse(indptr, indices, data, n_cols, counts, keys)
    kernel = (_permutation_sums_cells_sparse_parallel if parallel
              else _permutation_sums_cells_sparse)
    return kernel(indptr, indices, data, np.int64(n_cols), counts, keys)


def permutation_sums_generic(diff, keys, parallel=False):
    """Jitted :func:`sigtest._engine.kernels_numpy.permutation_sums_generic`."""
    if not NUMBA_ENABLED:
        return _py.permutation_sums_generic(diff, keys)
    kernel = _permutation_sums_generic_parallel if parallel else _permutation_sums_generic
    return kernel(diff, keys)


def permutation_sums_cells(diff, counts, keys, parallel=False):
    """Jitted :func:`sigtest._engine.kernels_numpy.permutation_sums_cells`."""
    if not NUMBA_ENABLED:
        return _py.permutation_sums_cells(diff, counts, keys)
    kernel = _permutation_sums_cells_parallel if parallel else _permutation_sums_cells
    return kernel(diff, counts, keys)
