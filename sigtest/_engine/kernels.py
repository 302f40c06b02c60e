"""numba resampling kernels (metric-agnostic: they only see float arrays).

Each public function here has a NumPy twin of the same name and signature in
:mod:`sigtest._engine.kernels_numpy` that returns bit-identical output (see that
module for the random-number design). The jitted kernels are compiled with
``cache=True, nogil=True`` and no ``fastmath``; ``parallel=True`` runs the
same kernel on parts of the resamples in threads
(:func:`sigtest._engine.threads.split_rows`). Because every random stream
belongs to a resample, never to a thread, results do not depend on the number
of threads.

The generic bootstrap has two paths (the rule is
:func:`sigtest._engine.kernels_numpy.segment_path`, on the number of rows
only): up to ``2**15`` rows, the drawn rows are gathered in draw order; beyond,
the segment path (``_bootstrap_sums_segments``) draws how many of a
resample's draws fall in each 8192-row segment (a multinomial by conditional
binomials, exact), then uniform rows inside each segment, and processes a
block of up to 128 resamples segment by segment, so that a segment (128 KiB
of two-column rows) serves them all from L2 instead of a cache miss per
draw; each resample adds its rows in two chains (low and high word halves).
At N = 1e6 this is ~12x the plain gather and 2.8x the count path of the
previous round, within 1.2x of the items/s of the gather at N = 1e4
(``benchmarks/bench_peritem.py``, 2 idle cores). Compare's shared sums keep the count
path (:mod:`sigtest._engine.kernels_counts`). Indices come from Lemire's
multiply-shift with rejection on 32-bit halves of the SplitMix64 words (one
multiply per draw, two draws per word).

Set the environment variable ``SIGTEST_DISABLE_NUMBA=1`` (or numba's own
``NUMBA_DISABLE_JIT=1``) to run the NumPy twins instead.
"""

import math
import os

import numpy as np

from sigtest._engine import kernels_numpy as _py
from sigtest._engine.jit import cached_jit
from sigtest._engine.threads import split_rows

__all__ = [
    "NUMBA_ENABLED",
    "bootstrap_sums_generic",
    "bootstrap_sums_cells",
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

# One serial ``_jit`` driver per kernel; ``parallel=True`` runs it on parts of the
# resamples in threads (nogil; :mod:`sigtest._engine.threads`), so one compiled
# kernel serves both (the rank kernels too).
_jit = cached_jit(nogil=True)
# Helpers only other kernels call: no CPython or C entry point to build (numba
# compiles one for every function it compiles otherwise; not callable from Python).
_inner = cached_jit(nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
# Small helpers typed into their callers (numba IR inlining): no compiled level of their own.
_ir_inline = cached_jit(nogil=True, inline="always")

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_M32 = np.uint64(0xFFFFFFFF)
_U1 = np.uint64(1)
_U27 = np.uint64(27)
_U30 = np.uint64(30)
_U31 = np.uint64(31)
_U32 = np.uint64(32)


@_inner
def _splitmix(z):
    z = (z ^ (z >> _U30)) * _M1
    z = (z ^ (z >> _U27)) * _M2
    return z ^ (z >> _U31)


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
@_inner
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



# --------------------------------------------------------------------------
# generic bootstrap, segment path: a multinomial over segments, then gathers
# that stay in cache
# --------------------------------------------------------------------------
# Rows beyond a core's L2 (16 MB of soft-accuracy rows at N = 1e6) make every
# draw of the gather path a cache miss. The segment path splits the rows into
# segments of SEGMENT_ROWS rows (the last one shorter) and draws a resample
# in two exact stages: the number of draws falling in each segment (a
# Multinomial(m, sizes / n) by conditional binomials, the cells kernel's
# sampler), then that many uniform rows inside each segment. A block of
# resamples (up to _SEG_BLOCK) is drawn segment by segment, so one segment
# (128 KiB of two-column rows) serves the whole block from L2: it is read
# from memory once per block (32 resamples per block were measured ~15 %
# slower than 128). Each resample keeps its own stream and its own two sums
# (rows drawn from low halves of words, and from high halves; each in
# segment order, then draw order; added at the end), whatever the block or
# thread. Two chains of additions instead of one: the add latency bounds a
# single chain (measured ~1.3x faster).
_SEG_BLOCK = 128


@_inner
def _segment_draws(stats, base, size, c, z, acc, r):
    """Add ``c`` rows drawn from ``stats[base:base + size]`` to ``acc[r]``; return the counter.

    The draws start at the word after counter ``z`` (a fresh word: the high
    half of a segment's last word is not used by the next segment). Rows
    drawn from a word's low half are added to ``acc[r, :s]``, those from its
    high half to ``acc[r, s:]``: two independent chains of additions. The
    candidates are :func:`_pair`'s, as unsigned row numbers (numba adds no
    negative-index check to them: measured 2.05 -> 1.54 ns per draw).
    """
    s = stats.shape[1]
    nn = np.uint64(size)
    thr = _threshold(nn)
    ub = np.uint64(base)
    got = 0
    if s == 1:
        a0 = acc[r, 0]
        c0 = acc[r, 1]
        while got < c:
            z = z + _GOLDEN
            w = _splitmix(z)
            p0 = (w & _M32) * nn
            p1 = (w >> _U32) * nn
            if (p0 & _M32) >= thr:
                i0 = ub + (p0 >> _U32)
                a0 += stats[i0, 0]
                got += 1
            if (p1 & _M32) >= thr and got < c:
                i1 = ub + (p1 >> _U32)
                c0 += stats[i1, 0]
                got += 1
        acc[r, 0] = a0
        acc[r, 1] = c0
    elif s == 2:
        a0 = acc[r, 0]
        a1 = acc[r, 1]
        c0 = acc[r, 2]
        c1 = acc[r, 3]
        while got < c:
            z = z + _GOLDEN
            w = _splitmix(z)
            p0 = (w & _M32) * nn
            p1 = (w >> _U32) * nn
            if (p0 & _M32) >= thr:
                i0 = ub + (p0 >> _U32)
                a0 += stats[i0, 0]
                a1 += stats[i0, 1]
                got += 1
            if (p1 & _M32) >= thr and got < c:
                i1 = ub + (p1 >> _U32)
                c0 += stats[i1, 0]
                c1 += stats[i1, 1]
                got += 1
        acc[r, 0] = a0
        acc[r, 1] = a1
        acc[r, 2] = c0
        acc[r, 3] = c1
    else:
        while got < c:
            z = z + _GOLDEN
            w = _splitmix(z)
            p0 = (w & _M32) * nn
            p1 = (w >> _U32) * nn
            if (p0 & _M32) >= thr:
                i0 = ub + (p0 >> _U32)
                for k in range(s):
                    acc[r, k] += stats[i0, k]
                got += 1
            if (p1 & _M32) >= thr and got < c:
                i1 = ub + (p1 >> _U32)
                for k in range(s):
                    acc[r, s + k] += stats[i1, k]
                got += 1
    return z


@_inner
def _segment_block(stats, m, keys, consts, seg, out, b0, nb):
    """Resamples ``b0 .. b0 + nb - 1`` of the segment path into ``out``."""
    n, s = stats.shape
    n_seg = consts.shape[0]
    counts = np.empty((n_seg, nb), dtype=np.int64)
    zs = np.empty(nb, dtype=np.uint64)
    acc = np.zeros((nb, 2 * s))  # the low-half and the high-half chains
    for r in range(nb):  # stage 1: the draws per segment (conditional binomials)
        z = keys[b0 + r]
        remaining = m
        for j in range(n_seg):
            if j < n_seg - 1:
                x, z = _binomial_pre(remaining, consts[j, 0], consts[j, 1], consts[j, 2],
                                     consts[j, 3], consts[j, 4], z)
            else:
                x = remaining
            counts[j, r] = x
            remaining -= x
        zs[r] = z
    for j in range(n_seg):  # stage 2: segment by segment, every resample of the block
        base = j * seg
        size = min(seg, n - base)
        for r in range(nb):
            zs[r] = _segment_draws(stats, base, size, counts[j, r], zs[r], acc, r)
    for r in range(nb):
        for k in range(s):
            out[b0 + r, k] = acc[r, k] + acc[r, s + k]


@_jit
def _segments_into(stats, m, keys, consts, seg, block, out):
    B = keys.shape[0]
    for blk in range((B + block - 1) // block):
        _segment_block(stats, m, keys, consts, seg, out, blk * block,
                       min(block, B - blk * block))


def _bootstrap_sums_segments(stats, m, keys, seg, block):
    n = stats.shape[0]
    sizes = np.full((n + seg - 1) // seg, seg, dtype=np.int64)
    sizes[-1] = n - seg * (sizes.shape[0] - 1)
    out = np.zeros((keys.shape[0], stats.shape[1]))
    _segments_into(stats, m, keys, _cell_probabilities(sizes), seg, block, out)
    return out



# --------------------------------------------------------------------------
# the draws of a key in draw order (the wrap fallback of the count path and
# compare's shared draws)
# --------------------------------------------------------------------------
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



# --------------------------------------------------------------------------
# scalar binomial (mirror of kernels_numpy.binomial; its uniforms, kernels_numpy.uniform,
# written out in _binomial_pre)
# --------------------------------------------------------------------------
_INV_2_53 = 1.0 / 9007199254740992.0
_U11 = np.uint64(11)
_STIRLING_TAIL = np.array(_py._STIRLING_TAIL)


@_inner
def _stirling_tail(k):
    if k <= 9:
        return _STIRLING_TAIL[k]  # k is an integer: no int() overload to compile
    kp1sq = (k + 1.0) * (k + 1.0)
    return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1.0)


@_inner
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


@_inner
def _binomial(n, p, z):
    p0, pe, q, ratio, lg = _binomial_consts(p)
    return _binomial_pre(n, p0, pe, q, ratio, lg, z)


@_inner
def _binomial_pre(n, p0, p, q, r, lg, z):
    """Binomial(n, p0) from counter ``z``; ``p, q, r, lg`` from :func:`_binomial_consts`."""
    if n <= 0 or p0 <= 0.0:
        return 0, z
    if p0 >= 1.0:
        return n, z
    k = 0
    if n * p < 10.0:
        z = z + _GOLDEN  # _uniform(z), written out: one compiled level less
        u = float(_splitmix(z) >> _U11) * _INV_2_53
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
            z = z + _GOLDEN
            u = float(_splitmix(z) >> _U11) * _INV_2_53
            z = z + _GOLDEN
            v = float(_splitmix(z) >> _U11) * _INV_2_53
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
def _cell_probabilities(counts):
    """Per-cell constants of the conditional binomials, shape (C, 5).

    Cell ``c < C - 1`` is drawn as Binomial(remaining, counts[c] / left_c)
    with ``left_c = counts[c:].sum()``, the same in every resample; row ``c``
    holds :func:`_binomial_consts` of that probability (the last row is
    zero: the last cell takes the remainder, no draw).

    Computed here, once per call, instead of in the kernels (a compiled
    helper of its own cost ~0.4 s of CPU in a new environment), with the
    operations of :func:`_binomial_consts`: int64 counts converted to float64
    and divided, ``1 - p`` and ``pe / q`` are IEEE operations that NumPy
    and numba round alike, and ``log1p`` is the C library's, which numba's
    ``math.log1p`` calls too, so the values are those of the jitted
    computation bit for bit (``tests/engine/test_kernels.py`` compares them
    with a jitted twin).
    """
    counts = np.asarray(counts, dtype=np.int64)
    consts = np.zeros((counts.shape[0], 5))
    if counts.shape[0] < 2:
        return consts
    left = np.cumsum(counts[::-1])[::-1][:-1]  # counts[c:].sum(), exact integers
    # left = 0 only after the last non-empty cell, whose p = 1 leaves nothing to
    # draw (the draws after it are 0 whatever p): p = 0 there
    p = np.zeros(left.shape[0])
    np.divide(counts[:-1].astype(np.float64), left.astype(np.float64), out=p, where=left > 0)
    pe = np.where(p > 0.5, 1.0 - p, p)
    q = 1.0 - pe
    consts[:-1, 0] = p
    consts[:-1, 1] = pe
    consts[:-1, 2] = q
    np.divide(pe, q, out=consts[:-1, 3], where=q > 0.0)
    consts[:-1, 4] = [math.log1p(-x) if 0.0 < x < 1.0 else 0.0 for x in pe.tolist()]
    return consts


# The cells kernel is one loop nest, with no per-resample helper (every compiled
# level that holds the sampler optimises and emits its machine code again), and
# writes into arrays allocated here in Python (``np.zeros`` in a kernel compiles
# numba's allocation overloads, ~0.4 s of CPU per process). The bootstrap and the
# permutation share it (one call site of the sampler): a first ``compare``, whose
# default tests run both, compiles the sampler's callers once (~0.4-0.6 s of CPU).
@_jit
def _cells_into(rows, counts, m, keys, consts, half, out):
    """``out[b] += x[b, c] * rows[c]`` over the cells ``c`` in order, ``x`` drawn per resample.

    ``half`` False (the bootstrap): ``x[b, c]`` is Binomial(remaining, p_c)
    with the constants ``consts[c]`` of :func:`_cell_probabilities`, the last
    cell taking the remainder of the ``m`` draws. ``half`` True (the
    permutation): ``x[b, c]`` is Binomial(counts[c], 1/2), by the popcount
    of :func:`_binomial_half` up to ``_HALF_POPCOUNT_MAX`` items and by
    :func:`_binomial_pre` with the constants of 1/2 beyond (``consts`` and
    ``m`` unused). The words drawn and the sums are those of the former
    ``_bootstrap_cells_into`` and ``_permutation_cells_into``.
    """
    C, s = rows.shape
    for b in range(keys.shape[0]):
        z = keys[b]
        remaining = m
        for c in range(C):
            x = 0
            if half:
                n = counts[c]
                p0, pe, q, r, lg = 0.5, 0.5, 0.5, 1.0, _LOG_HALF
            else:
                n = remaining
                p0, pe, q, r, lg = consts[c, 0], consts[c, 1], consts[c, 2], consts[c, 3], \
                    consts[c, 4]
            if half and n <= _HALF_POPCOUNT_MAX:
                x, z = _popcount_bits(n, z)
            elif not half and c == C - 1:
                x = remaining
            else:
                x, z = _binomial_pre(n, p0, pe, q, r, lg, z)
            remaining -= x
            fx = float(x)
            for j in range(s):
                out[b, j] = out[b, j] + fx * rows[c, j]


# the arguments of :func:`_cells_into` one of its two uses does not read (one signature)
_NO_COUNTS = np.zeros(0, dtype=np.int64)
_NO_CONSTS = np.zeros((0, 5))


def _bootstrap_sums_cells(cell_stats, counts, m, keys, consts=None):
    out = np.zeros((keys.shape[0], cell_stats.shape[1]))
    consts = _cell_probabilities(counts) if consts is None else consts
    _cells_into(cell_stats, _NO_COUNTS, np.int64(m), keys, consts, False, out)
    return out


@_jit
def _bootstrap_cells_sparse_into(indptr, indices, data, m, keys, consts, out):
    C = indptr.shape[0] - 1
    for b in range(keys.shape[0]):
        z = keys[b]
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


def _bootstrap_sums_cells_sparse(indptr, indices, data, n_cols, counts, m, keys, consts=None):
    out = np.zeros((keys.shape[0], n_cols))
    consts = _cell_probabilities(counts) if consts is None else consts
    _bootstrap_cells_sparse_into(indptr, indices, data, m, keys, consts, out)
    return out


# --------------------------------------------------------------------------
# generic permutation: one swap bit per differing item
# --------------------------------------------------------------------------
@_inner
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



# --------------------------------------------------------------------------
# compressed permutation: Binomial(n_c, 1/2) swaps per discordant cell
# --------------------------------------------------------------------------
_HALF_POPCOUNT_MAX = _py.HALF_POPCOUNT_MAX
#: ``log1p(-0.5)`` (= log(1/2), exactly rounded), the last constant of
#: ``_binomial_consts(0.5)``; the others are ``0.5, 0.5, 0.5, 1.0``.
_LOG_HALF = math.log1p(-0.5)
_C1 = np.uint64(0x5555555555555555)
_C2 = np.uint64(0x3333333333333333)
_C4 = np.uint64(0x0F0F0F0F0F0F0F0F)
_C8 = np.uint64(0x0101010101010101)
_U2 = np.uint64(2)
_U4 = np.uint64(4)
_U56 = np.uint64(56)


@_inner
def _popcount(x):
    x = x - ((x >> _U1) & _C1)
    x = (x & _C2) + ((x >> _U2) & _C2)
    x = (x + (x >> _U4)) & _C4
    return np.int64((x * _C8) >> _U56)


@_ir_inline
def _binomial_half(n, z):
    if n <= 0:
        return 0, z
    if n > _HALF_POPCOUNT_MAX:  # _binomial(n, 0.5, z) without its extra level
        return _binomial_pre(n, 0.5, 0.5, 0.5, 1.0, _LOG_HALF, z)
    return _popcount_bits(n, z)


@_inner
def _popcount_bits(n, z):
    """Binomial(n, 1/2) as the set bits of ``n`` random bits: ``(count, z)`` after
    ``ceil(n / 64)`` words of the stream at ``z``."""
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


def _permutation_sums_cells(diff, counts, keys):
    out = np.zeros((keys.shape[0], diff.shape[1]))
    _cells_into(diff, np.asarray(counts, dtype=np.int64), np.int64(0), keys, _NO_CONSTS, True,
                out)
    return out


@_jit
def _permutation_cells_sparse_into(indptr, indices, data, counts, keys, out):
    G = indptr.shape[0] - 1
    for b in range(keys.shape[0]):
        z = keys[b]
        for g in range(G):
            x, z = _binomial_half(counts[g], z)
            if x != 0:
                fx = float(x)
                for e in range(indptr[g], indptr[g + 1]):
                    j = indices[e]
                    out[b, j] = out[b, j] + fx * data[e]


def _permutation_sums_cells_sparse(indptr, indices, data, n_cols, counts, keys):
    out = np.zeros((keys.shape[0], n_cols))
    _permutation_cells_sparse_into(indptr, indices, data, counts, keys, out)
    return out


# --------------------------------------------------------------------------
# dispatch (same signatures as the twins, plus ``parallel``: the serial kernel
# on parts of the resamples in threads, :func:`sigtest._engine.threads.split_rows`)
# --------------------------------------------------------------------------
def bootstrap_sums_generic(stats, m, keys, parallel=False):
    """Jitted :func:`sigtest._engine.kernels_numpy.bootstrap_sums_generic`."""
    if not NUMBA_ENABLED:
        return _py.bootstrap_sums_generic(stats, m, keys)
    if stats.shape[0] >= 2**32:
        raise ValueError("The generic bootstrap supports at most 2**32 - 1 rows.")
    m = np.int64(m)
    if _py.segment_path(stats.shape[0]):
        # blocks of up to _SEG_BLOCK resamples (the block size does not change
        # the result: streams belong to resamples)
        seg, block = np.int64(_py.SEGMENT_ROWS), np.int64(_SEG_BLOCK)
        return split_rows(lambda s, e: _bootstrap_sums_segments(stats, m, keys[s:e], seg, block),
                          keys.shape[0], parallel)
    return split_rows(lambda s, e: _bootstrap_sums_generic(stats, m, keys[s:e]),
                      keys.shape[0], parallel)


def bootstrap_sums_cells(cell_stats, counts, m, keys, parallel=False):
    """Jitted :func:`sigtest._engine.kernels_numpy.bootstrap_sums_cells`."""
    if not NUMBA_ENABLED:
        return _py.bootstrap_sums_cells(cell_stats, counts, m, keys)
    m, consts = np.int64(m), _cell_probabilities(counts)
    return split_rows(lambda s, e: _bootstrap_sums_cells(cell_stats, counts, m, keys[s:e], consts),
                      keys.shape[0], parallel)


def bootstrap_sums_cells_sparse(indptr, indices, data, n_cols, counts, m, keys,
                                parallel=False):
    """Jitted :func:`sigtest._engine.kernels_numpy.bootstrap_sums_cells_sparse`."""
    if not NUMBA_ENABLED:
        return _py.bootstrap_sums_cells_sparse(indptr, indices, data, n_cols, counts, m, keys)
    m, consts = np.int64(m), _cell_probabilities(counts)
    return split_rows(lambda s, e: _bootstrap_sums_cells_sparse(
        indptr, indices, data, n_cols, counts, m, keys[s:e], consts), keys.shape[0], parallel)


def permutation_sums_cells_sparse(indptr, indices, data, n_cols, counts, keys,
                                  parallel=False):
    """Jitted :func:`sigtest._engine.kernels_numpy.permutation_sums_cells_sparse`."""
    if not NUMBA_ENABLED:
        return _py.permutation_sums_cells_sparse(indptr, indices, data, n_cols, counts, keys)
    n_cols = np.int64(n_cols)
    return split_rows(lambda s, e: _permutation_sums_cells_sparse(
        indptr, indices, data, n_cols, counts, keys[s:e]), keys.shape[0], parallel)


def permutation_sums_generic(diff, keys, parallel=False):
    """Jitted :func:`sigtest._engine.kernels_numpy.permutation_sums_generic`."""
    if not NUMBA_ENABLED:
        return _py.permutation_sums_generic(diff, keys)
    return split_rows(lambda s, e: _permutation_sums_generic(diff, keys[s:e]),
                      keys.shape[0], parallel)


def permutation_sums_cells(diff, counts, keys, parallel=False):
    """Jitted :func:`sigtest._engine.kernels_numpy.permutation_sums_cells`."""
    if not NUMBA_ENABLED:
        return _py.permutation_sums_cells(diff, counts, keys)
    return split_rows(lambda s, e: _permutation_sums_cells(diff, counts, keys[s:e]),
                      keys.shape[0], parallel)
