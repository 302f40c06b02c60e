"""Plain NumPy twins of the resampling kernels in :mod:`sigtest._engine.kernels`.

Every function here returns *bit-identical* output to its jitted counterpart
for the same inputs: the tests assert it. The twins are written
independently of the loop kernels (vectorised NumPy for the generic and exact
kernels; scalar Python for the per-draw binomial sampler used by the cell
kernels), so the equality test checks two implementations against each other. They are
used when ``SIGTEST_DISABLE_NUMBA=1`` is set or numba's JIT is disabled.

Random numbers
--------------
Every resample ``b`` owns a 64-bit key ``keys[b]`` (from ``SeedSequence``)
and draws from a counter-based generator: its ``j``-th 64-bit word is
``splitmix64(keys[b] + (j + 1) * 0x9E3779B97F4A7C15)`` (SplitMix64; Steele,
Lea & Flood 2014). Streams belong to resamples, never to threads, so results
do not depend on the thread count. A uniform double is ``(z >> 11) * 2**-53``.

An index in ``[0, n)`` (``n < 2**32``) comes from a 32-bit half of a word by
Lemire's multiply-shift with rejection (Lemire 2019, "Fast random integer
generation in an interval", ACM TOMACS 29(1)): word ``j`` gives the
candidates ``h = z_j & (2**32 - 1)`` then ``h = z_j >> 32``; a candidate is
accepted when ``(h * n) mod 2**32 >= 2**32 mod n`` and is then the index
``(h * n) >> 32``. Exactly ``floor(2**32 / n)`` of the ``2**32`` values of
``h`` are accepted for every index, so draws are exactly uniform (no
modulo bias); a candidate is rejected with probability ``(2**32 mod n) /
2**32 < n / 2**32`` (2.3e-4 at ``n = 1e6``). The ``t``-th draw of a resample is
its ``t``-th accepted candidate (:func:`_indices`). One multiply per draw and two draws per
SplitMix64 word, where a 64-bit ``floor(z * n / 2**64)`` needs two
multiplies and a word per draw.

Bootstrap sums (:func:`bootstrap_sums_generic`) draw their rows in one of
two documented ways. Up to ``2**15`` rows, resample ``b`` draws the rows
``_indices(keys[b], m, n)`` and adds them in draw order. Beyond (the segment
path, :func:`segment_path`: the rule depends on ``n`` only), the rows are cut
into segments of ``2**13`` rows and resample ``b`` first draws how many of its
``m`` draws fall in each segment (a Multinomial(m, sizes / n) by conditional
binomials, the cells kernel's sampler), then that many rows inside each
segment, in segment order, each segment's draws from a fresh word of the
same stream (:func:`_segment_rows`); the rows drawn from low halves of words
and those from high halves are added in that order in two sums, then added.
Both give ``m`` i.i.d. uniform rows (the same bootstrap distribution); the
segment path keeps the gathers of a block of resamples inside one segment,
in cache (see :mod:`sigtest._engine.kernels`). Compare's shared sums may
instead count the draws ``_indices`` and add ``float(count_i) * stats[i]``
row by row (:func:`count_path`, :mod:`sigtest._engine.kernels_counts`).

Why not numba's ``np.random`` (reseeded per block)? On the reference
machine numba's Mersenne-Twister ``randint`` costs ~17 ns per draw, three
times NumPy's PCG64, which would make the generic bootstrap slower than a
bare NumPy gather, and ``np.random.binomial`` ~250 ns (it re-derives the BTPE
constants on every call), which dominated the compressed bootstrap. Binomial
variates here use inversion for ``n p < 10`` and Hormann's BTRS
transformed rejection otherwise (Hormann 1993, "The generation of binomial
random variates", J. Stat. Comput. Simul. 46; the version of TensorFlow's
``random_binomial_op``), 1.5-2x faster than numba's and with no MT state.

Summation order is sequential (resample by resample, draw by draw) in both
implementations: ``np.cumsum`` accumulates strictly left to right.
"""

import math

import numpy as np

from sigtest._engine.rng import GOLDEN, splitmix64

__all__ = [
    "COUNT_MAX_ROWS",
    "COUNT_MIN_BYTES",
    "count_path",
    "uniform",
    "binomial",
    "bootstrap_sums_generic",
    "bootstrap_sums_cells",
    "bootstrap_sums_cells_sparse",
    "permutation_sums_generic",
    "permutation_sums_cells",
    "permutation_sums_cells_sparse",
    "exact_swap_sums",
    "weighted_sums",
]

_M32 = np.uint64(0xFFFFFFFF)
_S32 = np.uint64(32)

# Items gathered per vectorised chunk (bounds the twins' temporary memory).
_CHUNK_ITEMS = 1 << 20


def _draws(keys, n_draws):
    """(len(keys), n_draws) uint64 draws of the counter generator."""
    steps = (np.arange(1, n_draws + 1, dtype=np.uint64) * GOLDEN)[None, :]
    return splitmix64(keys[:, None] + steps)


def _indices(keys, m, n):
    """(len(keys), m) intp: the first ``m`` draws in ``[0, n)`` of each key's stream.

    Lemire's multiply-shift with rejection on the 32-bit halves of the
    words (low half first), for ``0 < n < 2**32``: see the module docstring.
    """
    keys = np.asarray(keys, dtype=np.uint64)
    B, m, n = keys.shape[0], int(m), int(n)
    out = np.empty((B, m), dtype=np.intp)
    if B == 0 or m == 0:
        return out
    if not 0 < n < 2**32:
        raise ValueError(f"The number of rows must be in [1, 2**32). Got {n}.")
    nn, thr = np.uint64(n), np.uint64((1 << 32) % n)
    # words for m draws plus > 6 standard deviations of rejections
    rate = (1 << 32) % n / 2.0**32
    n_words = (m + 1) // 2 + int(m * rate + 6 * math.sqrt(m * rate + 1.0)) + 8
    step = max(1, _CHUNK_ITEMS // n_words)  # keys per block: bounded temporaries
    for start in range(0, B, step):
        block = keys[start:start + step]
        b, w = block.shape[0], n_words
        while True:
            z = _draws(block, w)
            p = np.stack([z & _M32, z >> _S32], axis=2).reshape(b, 2 * w) * nn
            ok = (p & _M32) >= thr
            rank = np.cumsum(ok, axis=1)
            if (rank[:, -1] >= m).all():
                break
            w *= 2  # pragma: no cover - more than 6 sd of rejections
        take = ok & (rank <= m)
        rows, _ = np.nonzero(take)
        out[start + rows, rank[take] - 1] = (p[take] >> _S32).astype(np.intp)
    return out


#: The count path of compare's shared sums is used up to this many rows (its
#: count rows take 8 bytes per row and thread); beyond it, drawn rows are gathered.
COUNT_MAX_ROWS = 1 << 23

#: ... and from this many bytes of rows: smaller rows fit in a core's L2
#: cache (512 KiB on the reference machine), where gathering them is faster.
COUNT_MIN_BYTES = 1 << 19


#: Rows per segment of the segment path of :func:`bootstrap_sums_generic`
#: (128 KiB of two-column rows: a segment stays in a core's L2 cache).
SEGMENT_ROWS = 1 << 13

#: The segment path is used above this many rows (four segments).
SEGMENT_MIN_ROWS = 1 << 15


def segment_path(n):
    """True when :func:`bootstrap_sums_generic` draws ``n`` rows segment by segment.

    The rule depends on the number of rows only, so that calls on the same
    rows with different columns (the two systems of a pair called apart)
    draw the same rows.
    """
    return int(n) > SEGMENT_MIN_ROWS


def count_path(stats, m):
    """True when compare's shared sums add ``float(count_i) * stats[i]`` in row order.

    That is when the rows outgrow the cache (``8 n s >= 2**19`` bytes), ``4 m
    >= n``, ``n <= 2**23`` and every statistic is finite (``0 * inf`` would
    turn an undrawn infinite row into NaN); otherwise the drawn rows are added
    in draw order (:mod:`sigtest._engine.shared`; the jitted kernel
    :func:`sigtest._engine.kernels_counts.count_sums_range`).
    """
    n, s = stats.shape
    return (0 < n <= COUNT_MAX_ROWS and 8 * n * s >= COUNT_MIN_BYTES and 4 * int(m) >= n
            and bool(np.isfinite(stats).all()))


# --------------------------------------------------------------------------
# scalar generator and binomial sampler (Python ints; mirrored in _kernels)
# --------------------------------------------------------------------------
_MASK64 = (1 << 64) - 1
_GOLDEN_INT = 0x9E3779B97F4A7C15
_INV_2_53 = 1.0 / 9007199254740992.0
_STIRLING_TAIL = (
    0.0810614667953272,
    0.0413406959554092,
    0.0276779256849983,
    0.02079067210376509,
    0.0166446911898211,
    0.0138761288230707,
    0.0118967099458917,
    0.0104112652619720,
    0.00925546218271273,
    0.00833056343336287,
)


def uniform(z):
    """Advance counter ``z`` (int) and return ``(u, z)`` with u in [0, 1)."""
    z = (z + _GOLDEN_INT) & _MASK64
    x = z
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _MASK64
    x = x ^ (x >> 31)
    return (x >> 11) * _INV_2_53, z


def _stirling_tail(k):
    """log(k!) - Stirling's approximation of it (Hormann 1993, table + series)."""
    if k <= 9:
        return _STIRLING_TAIL[int(k)]
    kp1sq = (k + 1.0) * (k + 1.0)
    return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1.0)


def binomial(n, p, z):
    """One Binomial(n, p) variate from counter ``z``: returns ``(k, z)``.

    Inversion by sequential search for ``n * min(p, 1-p) < 10``, else BTRS
    (Hormann 1993), with ``p > 1/2`` handled as ``n - Binomial(n, 1 - p)``.
    """
    if n <= 0 or p <= 0.0:
        return 0, z
    if p >= 1.0:
        return n, z
    flip = p > 0.5
    if flip:
        p = 1.0 - p
    q = 1.0 - p
    if n * p < 10.0:
        u, z = uniform(z)
        pk = math.exp(n * math.log1p(-p))
        F = pk
        k = 0
        ratio = p / q
        while u > F and k < n:
            pk = pk * ratio * (n - k) / (k + 1)
            k += 1
            F += pk
    else:
        stddev = math.sqrt(n * p * q)
        b = 1.15 + 2.53 * stddev
        a = -0.0873 + 0.0248 * b + 0.01 * p
        c = n * p + 0.5
        v_r = 0.92 - 4.2 / b
        r = p / q
        alpha = (2.83 + 5.1 / b) * stddev
        m = math.floor((n + 1) * p)
        while True:
            u, z = uniform(z)
            v, z = uniform(z)
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
        k = int(k)
    return (n - k if flip else k), z


# Largest n for which Binomial(n, 1/2) is drawn as a popcount of n random bits
# (at most 8 words; above it BTRS is cheaper).
HALF_POPCOUNT_MAX = 512


def binomial_half(n, z):
    """One Binomial(n, 1/2) variate from counter ``z``: returns ``(k, z)``.

    For ``n <= HALF_POPCOUNT_MAX`` it counts the ones among ``n`` fair random
    bits (one 64-bit counter draw per 64 bits, the last one masked), which is
    exact and several times faster than the general sampler; larger ``n``
    use :func:`binomial`.
    """
    if n <= 0:
        return 0, z
    if n > HALF_POPCOUNT_MAX:
        return binomial(n, 0.5, z)
    k = 0
    rem = n
    while rem > 0:
        z = (z + _GOLDEN_INT) & _MASK64
        x = z
        x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
        x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _MASK64
        x = x ^ (x >> 31)
        if rem < 64:
            x &= (1 << rem) - 1
        k += bin(x).count("1")
        rem -= 64
    return k, z


def bootstrap_sums_generic(stats, m, keys):
    """Column sums of ``m`` rows drawn with replacement, one resample per key.

    Up to :data:`SEGMENT_MIN_ROWS` rows, resample ``b`` draws the ``m`` rows
    ``_indices(keys[b], m, n)`` and adds them in draw order. Above it (the
    segment path, :func:`segment_path`), the rows are cut into segments of
    :data:`SEGMENT_ROWS` rows and resample ``b`` draws, from its stream, the
    number of draws in each segment (a Multinomial(m, sizes / n) by
    conditional binomials, :func:`_multinomial_rows`), then that many rows
    inside each segment in segment order (:func:`_segment_rows`): the same
    bootstrap distribution, other draws. The rows drawn from the low halves
    of words are added in that order, those from the high halves too, and
    the second sum is added to the first (two chains of additions). Adding
    the other chain's rows as ``0.0`` changes no sum: a chain started at
    ``+0.0`` is never ``-0.0``.

    Parameters
    ----------
    stats : ndarray of shape (n, s), float64
    m : int
        Rows per resample.
    keys : ndarray of shape (B,), uint64
        Per-resample keys of the counter generator.

    Returns
    -------
    sums : ndarray of shape (B, s)
    """
    return _bootstrap_sums(stats, m, keys, seg=SEGMENT_ROWS if segment_path(stats.shape[0]) else 0)


def _stream_indices(z, c, n):
    """The draws that follow counters ``z``: ``c[b]`` indices in ``[0, n)`` each.

    Returns ``(idx, rank, z_next)``: ``idx`` (B, w) holds candidate indices,
    ``rank`` (B, w) the draw number (1-based) of an accepted candidate taken
    by its resample, 0 elsewhere, and ``z_next`` the counters after the last
    word used (``z`` itself when ``c[b] == 0``). Word ``j`` of a resample is
    ``splitmix64(z + j * GOLDEN)``, ``j = 1, 2, ...``, as in :func:`_indices`.
    """
    c = np.asarray(c, dtype=np.int64)
    cmax = int(c.max()) if c.size else 0
    nn, thr = np.uint64(n), np.uint64((1 << 32) % n)
    rate = (1 << 32) % n / 2.0**32
    w = (cmax + 1) // 2 + int(cmax * rate + 6 * math.sqrt(cmax * rate + 1.0)) + 8
    while True:
        words = _draws(z, w)
        p = np.stack([words & _M32, words >> _S32], axis=2).reshape(z.shape[0], 2 * w) * nn
        ok = (p & _M32) >= thr
        rank = np.cumsum(ok, axis=1)
        if (rank[:, -1] >= c).all():
            break
        w *= 2  # pragma: no cover - more than 6 sd of rejections
    rank = np.where(ok & (rank <= c[:, None]), rank, 0)
    last = np.argmax(rank == np.maximum(c, 1)[:, None], axis=1)  # the c-th draw's candidate
    used = np.where(c > 0, last // 2 + 1, 0).astype(np.uint64)
    return (p >> _S32).astype(np.intp), rank, z + used * GOLDEN


def _segment_rows(keys, m, n, seg=SEGMENT_ROWS):
    """The rows drawn on the segment path (segments of ``seg`` rows), in draw order.

    Returns ``(rows, high)``, both (len(keys), m): the row indices (intp) and
    whether each was drawn from the high half of its word (bool).
    """
    keys = np.asarray(keys, dtype=np.uint64)
    n_seg = -(-n // seg)
    sizes = np.full(n_seg, seg, dtype=np.int64)
    sizes[-1] = n - seg * (n_seg - 1)
    x, z = _multinomial_rows(sizes, m, keys)
    out = np.empty((keys.shape[0], int(m)), dtype=np.intp)
    high = np.empty((keys.shape[0], int(m)), dtype=bool)
    filled = np.zeros(keys.shape[0], dtype=np.int64)
    for j in range(n_seg):
        idx, rank, z = _stream_indices(z, x[:, j], int(sizes[j]))
        rows, cols = np.nonzero(rank)
        at = filled[rows] + rank[rows, cols] - 1
        out[rows, at] = j * seg + idx[rows, cols]
        high[rows, at] = cols % 2 == 1
        filled += x[:, j]
    return out, high


def _bootstrap_sums(stats, m, keys, counted=False, seg=0):
    """:func:`bootstrap_sums_generic` in one of its orders.

    ``seg > 0``: the segment path with segments of ``seg`` rows; ``counted``:
    the count path (:func:`sigtest._engine.kernels_counts.count_sums_range`
    on one stratum: ``float(count_i) * stats[i]`` in row order, the counts of
    the draws ``_indices``); otherwise the draws ``_indices`` in draw order.
    """
    n, s = stats.shape
    B = keys.shape[0]
    out = np.zeros((B, s))
    if m == 0 or B == 0:
        return out
    chunk = max(1, _CHUNK_ITEMS // (max(m, n if counted else 1) * max(s, 1)))
    for start in range(0, B, chunk):
        stop = min(B, start + chunk)
        if seg and not counted:  # two chains: rows of low halves, of high halves
            idx, high = _segment_rows(keys[start:stop], m, n, seg)
            terms = stats[idx]
            low_sum = np.cumsum(np.where(high[:, :, None], 0.0, terms), axis=1)[:, -1]
            high_sum = np.cumsum(np.where(high[:, :, None], terms, 0.0), axis=1)[:, -1]
            out[start:stop] = low_sum + high_sum
            continue
        idx = _indices(keys[start:stop], m, n)
        if counted:  # sum_i float(count_i) * stats[i], i in row order, from 0.0
            b = stop - start
            flat = (idx + (np.arange(b) * n)[:, None]).ravel()
            counts = np.bincount(flat, minlength=b * n).reshape(b, n).astype(np.float64)
            terms = np.concatenate([np.zeros((b, 1, s)), counts[:, :, None] * stats[None]],
                                   axis=1)
        else:  # the drawn rows in draw order
            terms = stats[idx]
        out[start:stop] = np.cumsum(terms, axis=1)[:, -1]
    return out


def bootstrap_sums_cells(cell_stats, counts, m, keys):
    """Column sums of a Multinomial(m, counts / counts.sum()) draw of cells.

    The multinomial is drawn as sequential conditional binomials, cell by
    cell (the last cell takes the remainder); resample ``b`` uses the stream
    of ``keys[b]``.

    Parameters
    ----------
    cell_stats : ndarray of shape (C, s), float64
    counts : ndarray of shape (C,), int64, all >= 1
    m : int
    keys : ndarray of shape (B,), uint64

    Returns
    -------
    sums : ndarray of shape (B, s)
    """
    C, s = cell_stats.shape
    B = keys.shape[0]
    x = _multinomial_draws(counts, m, keys)
    vals = x[:, :, None].astype(np.float64) * cell_stats[None, :, :]
    return np.cumsum(vals, axis=1)[:, -1] if C else np.zeros((B, s))


def _multinomial_draws(counts, m, keys):
    """(B, C) int64 cell counts of the sequential-binomial multinomial draws."""
    return _multinomial_rows(counts, m, keys)[0]


def _multinomial_rows(counts, m, keys):
    """:func:`_multinomial_draws` and the (B,) uint64 counters after each resample's draws."""
    C = counts.shape[0]
    B = keys.shape[0]
    x = np.zeros((B, C), dtype=np.int64)
    after = np.array(keys, dtype=np.uint64)
    if C == 0:
        return x, after
    total = int(counts.sum())
    cnt = [int(c) for c in counts]
    for b in range(B):
        z = int(keys[b])
        remaining = int(m)
        left = total
        for c in range(C - 1):
            k, z = binomial(remaining, cnt[c] / left, z)
            x[b, c] = k
            remaining -= k
            left -= cnt[c]
        x[b, C - 1] = remaining
        after[b] = z
    return x, after


def _scatter_rows(x, indptr, indices, data, n_cols):
    """``out[b] = sum_c x[b, c] * row_c`` for sparse rows, added in row order.

    ``np.add.at`` is unbuffered and adds in index order, so every column sum
    is accumulated cell by cell, as the dense twins' ``cumsum`` does.
    """
    B = x.shape[0]
    out = np.zeros((B, n_cols))
    rows = np.repeat(np.arange(indptr.shape[0] - 1), np.diff(indptr))
    chunk = max(1, _CHUNK_ITEMS // max(indices.shape[0], 1))
    for start in range(0, B, chunk):
        stop = min(B, start + chunk)
        vals = x[start:stop, rows].astype(np.float64) * data[None, :]
        target = (np.repeat(np.arange(stop - start), indices.shape[0]),
                  np.tile(indices, stop - start))
        np.add.at(out[start:stop], target, vals.ravel())
    return out


def bootstrap_sums_cells_sparse(indptr, indices, data, n_cols, counts, m, keys):
    """:func:`bootstrap_sums_cells` of cell rows stored sparsely (CSR).

    Parameters
    ----------
    indptr : ndarray of shape (C + 1,), int64
    indices : ndarray of shape (nnz,), int64
    data : ndarray of shape (nnz,), float64
        Cell ``c`` holds ``data[indptr[c]:indptr[c + 1]]`` in the columns
        ``indices[indptr[c]:indptr[c + 1]]`` (increasing).
    n_cols : int
    counts : ndarray of shape (C,), int64, all >= 1
    m : int
    keys : ndarray of shape (B,), uint64

    Returns
    -------
    sums : ndarray of shape (B, n_cols)
        Equal to ``bootstrap_sums_cells`` of the dense rows (same draws, same
        summation order of the nonzero terms).
    """
    x = _multinomial_draws(counts, m, keys)
    return _scatter_rows(x, indptr, indices, data, n_cols)

def _swap_bits(keys, d):
    """(B, d) bool: item i of resample b is swapped (bit i of its draws)."""
    n_words = (d + 63) // 64
    z = _draws(keys, n_words)
    items = np.arange(d)
    shifts = (items % 64).astype(np.uint64)
    return ((z[:, items // 64] >> shifts[None, :]) & np.uint64(1)).astype(bool)


def permutation_sums_generic(diff, keys):
    """Sums of the rows of ``diff`` whose swap bit is set, one resample per key.

    Parameters
    ----------
    diff : ndarray of shape (d, s), float64
        ``stats_b - stats_a`` of the items where the two systems differ.
    keys : ndarray of shape (B,), uint64

    Returns
    -------
    swapped : ndarray of shape (B, s)
        ``sum_{i swapped} diff[i]``; the permuted sums are
        ``sums_a + swapped`` and ``sums_b - swapped``.
    """
    d, s = diff.shape
    B = keys.shape[0]
    out = np.zeros((B, s))
    if d == 0 or B == 0:
        return out
    chunk = max(1, _CHUNK_ITEMS // (d * max(s, 1)))
    for start in range(0, B, chunk):
        stop = min(B, start + chunk)
        bits = _swap_bits(keys[start:stop], d)
        vals = np.where(bits[:, :, None], diff[None, :, :], 0.0)
        out[start:stop] = np.cumsum(vals, axis=1)[:, -1]
    return out


def permutation_sums_cells(diff, counts, keys):
    """Swap a Binomial(n_g, 1/2) number of items of every discordant group.

    Parameters
    ----------
    diff : ndarray of shape (G, s), float64
        ``stats_b - stats_a`` per discordant cell (group).
    counts : ndarray of shape (G,), int64, all >= 1
    keys : ndarray of shape (B,), uint64

    Returns
    -------
    swapped : ndarray of shape (B, s)
    """
    G, s = diff.shape
    B = keys.shape[0]
    x = _half_binomial_draws(counts, keys)
    vals = x[:, :, None].astype(np.float64) * diff[None, :, :]
    return np.cumsum(vals, axis=1)[:, -1] if G else np.zeros((B, s))


def _half_binomial_draws(counts, keys):
    """(B, G) int64 Binomial(counts[g], 1/2) swap counts, group by group."""
    B, G = keys.shape[0], counts.shape[0]
    x = np.zeros((B, G), dtype=np.int64)
    cnt = [int(c) for c in counts]
    for b in range(B):
        z = int(keys[b])
        for g in range(G):
            x[b, g], z = binomial_half(cnt[g], z)
    return x


def permutation_sums_cells_sparse(indptr, indices, data, n_cols, counts, keys):
    """:func:`permutation_sums_cells` of difference rows stored sparsely (CSR).

    Parameters
    ----------
    indptr, indices, data : ndarray
        CSR rows of ``stats_b - stats_a`` per discordant group (see
        :func:`bootstrap_sums_cells_sparse`).
    n_cols : int
    counts : ndarray of shape (G,), int64, all >= 1
    keys : ndarray of shape (B,), uint64

    Returns
    -------
    swapped : ndarray of shape (B, n_cols)
    """
    x = _half_binomial_draws(counts, keys)
    return _scatter_rows(x, indptr, indices, data, n_cols)

def exact_swap_sums(diff, counts, pmf, offsets):
    """Enumerate every combination of swap counts ``k_g in [0, n_g]``.

    Pattern ``p`` is decoded in mixed radix (group 0 fastest). Its swapped
    sum is ``sum_g k_g * diff[g]`` and its probability
    ``prod_g pmf[offsets[g] + k_g]`` (the Binomial(n_g, 1/2) pmf).

    Returns
    -------
    swapped : ndarray of shape (P, s)
    prob : ndarray of shape (P,)
    """
    G, s = diff.shape
    radix = counts + 1
    P = int(np.prod(radix)) if G else 1
    pattern = np.arange(P, dtype=np.int64)
    swapped = np.zeros((P, s))
    prob = np.ones(P)
    for g in range(G):
        k = pattern % radix[g]
        pattern = pattern // radix[g]
        swapped = swapped + k[:, None].astype(np.float64) * diff[g][None, :]
        prob = prob * pmf[offsets[g] + k]
    return swapped, prob


def weighted_sums(weights, stats):
    r"""Row-weighted column sums ``out[b] = sum_r weights[b, r] * stats[r]``, in row order.

    The sum over rows ``r`` runs strictly in row order from 0.0 for every
    ``(b, j)``, so the result does not depend on a BLAS library or its thread
    count (``weights @ stats`` does: a multi-threaded BLAS splits the sum
    differently, which changed the last bit of the Bayesian bootstrap
    between ``n_jobs=1`` and ``n_jobs=2`` in :func:`sigtest.compare`).

    Parameters
    ----------
    weights : ndarray of shape (B, R)
    stats : ndarray of shape (R, s)

    Returns
    -------
    sums : ndarray of shape (B, s)
    """
    out = np.zeros((weights.shape[0], stats.shape[1]))
    for r in range(stats.shape[0]):
        out = out + weights[:, r, None] * stats[r][None, :]
    return out
