r"""What the bulk BCa path reads of each pair's sorted bootstrap differences, without sorting.

:mod:`sigtest._engine.bulk_bca` computes the BCa (or percentile) interval and
the p-value that inverts it for many pairs at once from their sorted
bootstrap differences ``d* = T[j] - T[i]`` (``B`` each). Of a sorted row it
reads only

* its extremes (is every difference equal?);
* the ranks of the observed difference (``z0``) and of 0 (the first guess of
  the inversion), i.e. counts;
* the order statistics at the four positions of the interval's ends at the
  nominal level, and next to the rank of 0 (the guess);
* in the bisection that inverts the interval, the *sign* of the quantile at
  other levels: whether the interval excludes 0.

Sorting each row (``O(B log B)``, ~0.1 ms at ``B = 9999``, 499,500 rows for
1,000 systems) is therefore replaced by one read of each pair
(:func:`scan_windows`, when the interval's level is known beforehand, as in
the compare): one vectorised loop counts the differences below 0, below
the observed difference and below two value *windows*, and flags the
differences inside them; then the extremes and zero's two neighbours
(integer reductions of order keys) and the flagged differences are taken
from the row just written. The windows are placed around the interval's
two ends as a normal approximation of the pair's differences predicts them
(:func:`window_bounds`: the mean and sd of the pair's own draws from the
systems' row means and Gram matrix, ``z0`` from them); once the counts give
the exact ``z0`` and so the exact positions, a window holding a wanted
position gives its order statistic as the rank ``position - below`` of its
few values (:func:`windowed_rows`, a quickselect). A window holds every
difference between its bounds, so that is the sorted row's value whatever
the estimates were: they only decide how many pairs miss a window, which
then take the bucket selection of the pair's row (:func:`select_positions`:
a histogram of 1,024 value buckets between the extremes, then the
differences of the buckets holding a wanted position, gathered in one pass
and sorted), the path of every pair when the level is not given
(:func:`pair_summaries` first, for the extremes and the counts).

A row of a sorted array and a :class:`SelectedRows` row give the same
value at every position they both know, and at any other position a value
of the same sign as the true order statistic's whose interpolation with
its neighbour has that sign too (the value of the nearest known position
below, which is 0 in the run of zeros, and of the same sign elsewhere): so
every interval at the nominal level and every answer of the inversion's
predicate are the same bits as from the sorted rows, hence the same
p-values.

Why a neighbour's value keeps the sign (``quantile_sorted``'s interpolation
of ``lo <= hi`` with weight ``g``): if ``lo <= hi < 0`` then
``lo + (hi - lo) g`` with ``g < 1/2`` is at most ``lo / 2 + 1.5 eps |lo|``
after rounding, and ``hi - (hi - lo)(1 - g)`` is at most ``hi``: negative
either way; symmetrically for ``0 < lo <= hi``; and equal ends give the end.
A pair of positions whose true values differ in sign (or one of them is 0)
lies next to the rank of 0, whose values are kept exactly.
"""

from __future__ import annotations

import threading
import weakref
from typing import NamedTuple

import numpy as np

from sigtest._engine.bulk_bca import (interval_levels, pair_differences, quantile_positions,
                                      row_counts)
from sigtest._engine.intervals import _special
from sigtest._engine.jit import cached_jit
from sigtest._engine.kernels import _numba_enabled
from sigtest._engine.threads import part_bounds, run_parts


@cached_jit(nogil=True)
def _count_trailing_zeros(word):  # pragma: no cover - compiled by numba
    # the trailing zero bits of a nonzero uint64, one at a time (the
    # stand-in where numba's cttz intrinsic cannot be imported)
    count = 0
    while (word & np.uint64(1)) == 0:
        word >>= np.uint64(1)
        count += 1
    return count


try:  # numba's count of a word's trailing zero bits (cttz)
    from numba.cpython.unsafe.numbers import trailing_zeros as _trailing_zeros
except ImportError:  # pragma: no cover - another numba
    _trailing_zeros = _count_trailing_zeros


__all__ = ["PairOrder", "PairSummaries", "SelectedRows", "Windows", "forget_moments",
           "pair_moments",
           "pair_summaries", "scan_windows", "select_positions", "selected_rows", "window_bounds",
           "windowed_rows"]

#: Bytes of one block of sorted differences (``m x B`` floats), without numba.
SORTED_BLOCK_BYTES = 32 * 2**20

#: Value buckets of the selection: a bucket holds ``B / 1024`` differences
#: on average (about 10 at ``B = 9999``), sorted when it holds a wanted position.
_BUCKETS = 1024


class PairSummaries(NamedTuple):
    """What one pass over each pair's differences gives (arrays of shape ``(m,)``).

    ``lo`` / ``hi``: the smallest and largest difference; ``below_zero`` /
    ``zero_or_below``: ``#{d* < 0}`` and ``#{d* <= 0}``; ``below_delta`` /
    ``delta_or_below``: the same for the observed difference (``B`` for a
    NaN one, as ``numpy.searchsorted`` counts it).
    """

    lo: np.ndarray
    hi: np.ndarray
    below_zero: np.ndarray
    zero_or_below: np.ndarray
    below_delta: np.ndarray
    delta_or_below: np.ndarray


@cached_jit(nogil=True)
def _summaries(T, I, J, delta, start, stop, floats, counts):  # pragma: no cover - numba
    # branch-free: comparisons summed as integers and selects (vectorised)
    n = T.shape[1]
    for r in range(start, stop):
        first, second, d = T[I[r]], T[J[r]], delta[r]
        nan = np.isnan(d)
        d = 0.0 if nan else d
        lo, hi = np.inf, -np.inf
        lt0 = le0 = ltd = led = 0
        for b in range(n):
            x = second[b] - first[b]
            lo = x if x < lo else lo
            hi = x if x > hi else hi
            lt0 += np.int64(x < 0.0)
            le0 += np.int64(x <= 0.0)
            ltd += np.int64(x < d)
            led += np.int64(x <= d)
        if nan:  # numpy.searchsorted puts NaN after every number
            ltd = led = n
        floats[r, 0], floats[r, 1] = lo, hi
        counts[r, 0], counts[r, 1], counts[r, 2], counts[r, 3] = lt0, le0, ltd, led


def pair_summaries(T, I, J, delta, n_threads=1):
    """:class:`PairSummaries` of the differences ``T[J[r]] - T[I[r]]`` of every row ``r``.

    Parameters
    ----------
    T : ndarray of shape (k, B)
        The systems' bootstrap scores (finite).
    I, J : ndarray of int, shape (m,)
        The rows of ``T`` whose difference each pair is.
    delta : ndarray of shape (m,)
        The observed difference of each pair.
    n_threads : int, default=1
        Threads over parts of the pairs (the result does not depend on it).
    """
    T = np.ascontiguousarray(T, dtype=np.float64)
    I, J = (np.ascontiguousarray(x, dtype=np.int64) for x in (I, J))
    delta = np.ascontiguousarray(delta, dtype=np.float64)
    m = I.shape[0]
    floats, counts = np.empty((m, 2)), np.empty((m, 4), dtype=np.int64)
    run_parts(lambda a, b: _summaries(T, I, J, delta, a, b, floats, counts),
              part_bounds(m, n_threads), n_threads)
    return PairSummaries(*floats.T, *counts.T)


@cached_jit(nogil=True)
def _bucket_range(lo, hi):  # pragma: no cover - compiled by numba
    # the scale of the buckets, 0 when the row cannot be bucketed (every
    # difference equal, or unbounded); (x - lo) * scale is non-decreasing in
    # x, so the buckets keep the order of the differences
    scale = (_BUCKETS - 1) / (hi - lo) if hi > lo else 0.0
    if not (np.isfinite(scale) and np.isfinite(lo) and np.isfinite(hi)):
        return 0.0
    return scale


@cached_jit(nogil=True)
def _find(below, k):  # pragma: no cover - compiled by numba
    # the bucket q holding position k: below[q] <= k < below[q + 1], with
    # below[q] the differences in the buckets under q (a binary search)
    lo, hi = 0, below.shape[0] - 1
    while hi - lo > 1:
        mid = (lo + hi) >> 1
        if below[mid] <= k:
            lo = mid
        else:
            hi = mid
    return lo


@cached_jit(nogil=True)
def _select(T, I, J, lo, hi, positions, start, stop, out):  # pragma: no cover - numba
    n, width = T.shape[1], positions.shape[1]
    row = np.empty(n)
    where = np.empty(n, dtype=np.int32)
    tally = np.empty(_BUCKETS, dtype=np.int32)
    below = np.empty(_BUCKETS + 1, dtype=np.int64)
    slot = np.full(_BUCKETS, -1, dtype=np.int32)
    bucket = np.empty(width, dtype=np.int64)
    size = np.empty(width, dtype=np.int64)
    of = np.empty(width, dtype=np.int64)  # the slot of each wanted position
    held = np.empty(width * n)  # the differences of slot s from s * n on
    for r in range(start, stop):
        first_row, second_row, low = T[I[r]], T[J[r]], lo[r]
        scale = _bucket_range(low, hi[r])
        if scale == 0.0:  # equal or unbounded differences: the whole row
            ordered = np.sort(second_row - first_row)
            for t in range(width):
                out[r, t] = ordered[positions[r, t]]
            continue
        for b in range(n):
            x = second_row[b] - first_row[b]
            row[b] = x
            where[b] = min(np.int32((x - low) * scale), _BUCKETS - 1)
        tally[:] = 0
        for b in range(n):
            tally[where[b]] += 1
        below[0] = 0
        for q in range(_BUCKETS):
            below[q + 1] = below[q] + tally[q]
        used = 0  # the buckets holding a wanted position, each gathered once
        for t in range(width):
            q = _find(below, positions[r, t])
            if slot[q] < 0:
                slot[q], bucket[used], size[used] = used, q, 0
                used += 1
            of[t] = slot[q]
        for b in range(n):
            s = slot[where[b]]
            if s >= 0:
                held[s * n + size[s]] = row[b]
                size[s] += 1
        for s in range(used):
            held[s * n:s * n + size[s]].sort()
        for t in range(width):
            s = of[t]
            out[r, t] = held[s * n + positions[r, t] - below[bucket[s]]]
        for s in range(used):
            slot[bucket[s]] = -1


def select_positions(T, I, J, summaries, positions, n_threads=1):
    """The order statistics of each pair's differences at ``positions`` (``(m, w)`` ints).

    ``out[r, t]`` is ``numpy.sort(T[J[r]] - T[I[r]])[positions[r, t]]`` (the
    same value; equal values are the same bits, ``-0.0`` and ``0.0`` aside).
    ``summaries``: the pairs' :class:`PairSummaries` (their extremes bound
    the buckets).
    """
    T = np.ascontiguousarray(T, dtype=np.float64)
    I, J = (np.ascontiguousarray(x, dtype=np.int64) for x in (I, J))
    positions = np.ascontiguousarray(positions, dtype=np.int64)
    if positions.size and (positions.min() < 0 or positions.max() >= T.shape[1]):
        raise ValueError(f"The 'positions' parameter must lie in [0, {T.shape[1]}).")
    out = np.empty(positions.shape)
    lo, hi = (np.ascontiguousarray(x) for x in (summaries.lo, summaries.hi))
    run_parts(lambda a, b: _select(T, I, J, lo, hi, positions, a, b, out),
              part_bounds(I.shape[0], n_threads), n_threads)
    return out


class SelectedRows:
    """Sorted rows of bootstrap differences as far as the bulk BCa code reads them.

    Indexing ``rows_[rows, positions]`` (integer arrays of one length) gives
    the order statistic where it is known: the extremes, the run of zeros and
    its two neighbours (the largest negative and the smallest positive
    difference), and the positions selected (:func:`select_positions`);
    elsewhere the value of the nearest known position below, which has the
    true value's sign (see the module text). ``below_zero``: ``#{d* < 0}``
    per row; ``shape``: ``(m, B)``.

    Parameters
    ----------
    summaries : PairSummaries
    positions, values : ndarray of shape (m, w)
        Selected positions and their order statistics.
    n : int
        ``B``, the differences per row.
    """

    def __init__(self, summaries, positions, values, n):
        s = summaries
        m = s.lo.shape[0]
        self.shape = (m, int(n))
        self.below_zero = s.below_zero
        has_zero = s.zero_or_below > s.below_zero
        first = np.zeros(m, dtype=np.int64)  # a known entry stands in for one that is absent
        known = np.column_stack([first, np.full(m, n - 1),
                                 np.where(has_zero, s.below_zero, first), positions])
        value = np.column_stack([s.lo, s.hi, np.where(has_zero, 0.0, s.lo), values])
        order = np.argsort(known, axis=1, kind="stable")
        self._known = np.take_along_axis(known, order, axis=1)
        self._value = np.take_along_axis(value, order, axis=1)

    def __getitem__(self, index):
        rows, positions = index
        rows = np.asarray(rows, dtype=np.int64)
        positions = np.broadcast_to(np.asarray(positions, dtype=np.int64), rows.shape)
        known = self._known[rows]
        # the last known position at or below each asked position (the first is 0)
        at = (known <= positions[:, None]).sum(axis=1) - 1
        return self._value[rows, at]


def selected_rows(T, I, J, summaries, positions, n_threads=1):
    """:class:`SelectedRows` of the pairs knowing ``positions`` and the neighbours of the zeros.

    The order statistics at ``positions`` (``(m, w)``: those of the interval
    at the nominal level) and at the ranks next to the run of zeros (the
    largest negative and the smallest positive difference), by
    :func:`select_positions`.
    """
    s, n = summaries, T.shape[1]
    negative = np.where(s.below_zero > 0, s.below_zero - 1, 0)
    positive = np.where(s.zero_or_below < n, s.zero_or_below, n - 1)
    every = np.column_stack([positions, negative, positive])
    return SelectedRows(s, every, select_positions(T, I, J, s, every, n_threads), n)


#: Half-width of the windows in standard deviations of the estimated rank
#: (see :func:`_window_ranks`); 0 leaves every window empty (every pair then
#: takes the bucket selection: the tests' switch).
WINDOW_SIDES = 3.5

#: Differences kept per window; a fuller window falls back to the buckets.
WINDOW_CAP = 320

#: Bytes a pair's windows take in a block: its ``2 * WINDOW_CAP`` held
#: differences (until the exact positions are known), bounds and counts.
_WINDOW_PAIR_BYTES = 8 * (2 * WINDOW_CAP + 16)

#: Bytes of the window buffers of one block of pairs (one block per thread at
#: a time): blocks of ``WINDOW_BLOCK_BYTES // _WINDOW_PAIR_BYTES`` pairs
#: (6,393). The results do not depend on it.
WINDOW_BLOCK_BYTES = 32 * 2**20

#: Pairs per block when the order statistics are read in windows (the default).
WINDOWED_BLOCK = WINDOW_BLOCK_BYTES // _WINDOW_PAIR_BYTES

#: The sub-Gram matrix of a block of pairs is computed when it has at most
#: this many entries per pair (else no windows: the buckets for every pair).
_GRAM_PER_PAIR = 8

_KEY = np.int64(0x7FFFFFFFFFFFFFFF)


@cached_jit(nogil=True)
def _from_key(key, scratch):  # pragma: no cover - compiled by numba
    # the float whose order key is key (the key map is its own inverse)
    scratch[0] = key ^ ((key >> 63) & _KEY)
    return scratch.view(np.float64)[0]


@cached_jit(nogil=True)
def _extremes(row, bits, scratch):  # pragma: no cover - compiled by numba
    # lo and hi of row, as integer order keys (the bits, the magnitude's
    # flipped when negative): integer reductions vectorise, float ones do not
    lo, hi = _KEY, -_KEY - 1
    for b in range(row.shape[0]):
        k = bits[b]
        k = k ^ ((k >> 63) & _KEY)
        lo = k if k < lo else lo
        hi = k if k > hi else hi
    return _from_key(lo, scratch), _from_key(hi, scratch)


@cached_jit(nogil=True)
def _next_to_zero(row, bits, scratch):  # pragma: no cover - compiled by numba
    # the largest negative and the smallest positive value of row (keys)
    neg, pos = -_KEY - 1, _KEY
    for b in range(row.shape[0]):
        x, k = row[b], bits[b]
        k = k ^ ((k >> 63) & _KEY)
        kn = k if x < 0.0 else -_KEY - 1
        kp = k if x > 0.0 else _KEY
        neg = kn if kn > neg else neg
        pos = kp if kp < pos else pos
    return _from_key(neg, scratch), _from_key(pos, scratch)


@cached_jit(nogil=True)
def _gather(row, flag, words, buffers):  # pragma: no cover - compiled by numba
    # the values flagged 1 (window 0) and 2 (window 1) to buffers[0] and
    # buffers[1] (room for the whole row): the flags read eight at a time
    # and, in a word with any set (a window holds a few percent of the row),
    # the set bits one by one (bit 8 t + e: value t of the word, window e)
    first, second = buffers[0], buffers[1]
    size0 = size1 = 0
    for w in range(words.shape[0]):
        word = words[w]
        while word != 0:
            t = np.int64(_trailing_zeros(word))
            x, e = row[8 * w + (t >> 3)], t & 1
            first[size0] = x
            size0 += 1 - e
            second[size1] = x
            size1 += e
            word &= word - np.uint64(1)
    return size0, size1


@cached_jit(nogil=True)
def _scan(T, I, J, delta, windows, order, floats, counts, held):  # pragma: no cover
    # one read of each pair's differences: the counts below 0 and delta and
    # below each window, flags of the window members (one vectorised loop),
    # the extremes and zero's neighbours (a second, on the row just written),
    # then the window members gathered
    n = T.shape[1]
    row = np.empty(n)
    bits = row.view(np.int64)
    flag = np.zeros(8 * ((n + 7) // 8), dtype=np.uint8)
    words = flag.view(np.uint64)
    scratch = np.empty(1, dtype=np.int64)
    buffers = np.empty((2, n + 1))
    cap = held.shape[2]
    for r in order:
        first, second, d = T[I[r]], T[J[r]], delta[r]
        nan = np.isnan(d)
        d = 0.0 if nan else d
        a0, b0, a1, b1 = windows[r, 0], windows[r, 1], windows[r, 2], windows[r, 3]
        lt0 = le0 = ltd = led = u0 = u1 = 0
        for b in range(n):
            x = second[b] - first[b]
            row[b] = x
            lt0 += np.int64(x < 0.0)
            le0 += np.int64(x <= 0.0)
            ltd += np.int64(x < d)
            led += np.int64(x <= d)
            in0, in1 = x >= a0, x >= a1
            u0 += np.int64(in0)  # n - #{x < a0}
            u1 += np.int64(in1)
            flag[b] = np.uint8(in0 & (x <= b0)) | (np.uint8(in1 & (x <= b1)) << 1)
        u0, u1 = n - u0, n - u1
        lo, hi = _extremes(row, bits, scratch)
        # sorted[below_zero - 1] (sorted[0] if none) and sorted[zero_or_below]
        # (sorted[-1] if none): the extremes when every difference has one sign
        if le0 == 0:
            neg, pos = lo, lo
        elif lt0 == n:
            neg, pos = hi, hi
        else:
            neg, pos = _next_to_zero(row, bits, scratch)
            neg, pos = (neg if lt0 > 0 else lo), (pos if le0 < n else hi)
        size0, size1 = _gather(row, flag, words, buffers)
        held[r, 0, :min(size0, cap)] = buffers[0, :min(size0, cap)]
        held[r, 1, :min(size1, cap)] = buffers[1, :min(size1, cap)]
        if nan:  # numpy.searchsorted puts NaN after every number
            ltd = led = n
        floats[r, 0], floats[r, 1], floats[r, 2], floats[r, 3] = lo, hi, neg, pos
        counts[r, 0], counts[r, 1], counts[r, 2], counts[r, 3] = lt0, le0, ltd, led
        counts[r, 4], counts[r, 5], counts[r, 6], counts[r, 7] = u0, size0, u1, size1


@cached_jit(nogil=True)
def _kth(a, size, k):  # pragma: no cover - compiled by numba
    # quickselect: afterwards a[:k] <= a[k] <= a[k + 1:size]; each step two
    # branch-free Lomuto passes over [lo, hi) (the values below the pivot to
    # the front, then those equal to it: ties are common), so the window's
    # unpredictable comparisons cost no mispredicted branches
    lo, hi = 0, size
    while hi - lo > 1:
        x, y, z = a[lo], a[(lo + hi) >> 1], a[hi - 1]
        pivot = max(min(x, y), min(max(x, y), z))  # the median of three
        low = lo
        for i in range(lo, hi):
            v = a[i]
            a[i] = a[low]
            a[low] = v
            low += np.int64(v < pivot)
        if k < low:
            hi = low
            continue
        equal = low
        for i in range(low, hi):
            v = a[i]
            a[i] = a[equal]
            a[equal] = v
            equal += np.int64(v <= pivot)
        if k < equal:
            return
        lo = equal


@cached_jit(nogil=True)
def _pick(held, counts, positions, hit, out):  # pragma: no cover - compiled by numba
    # the order statistics at positions (i_low, j_low, i_high, j_high) from
    # the windows that hold them: rank p - below of the window's values
    work = np.empty(held.shape[2])
    for r in range(held.shape[0]):
        for e in range(2):
            if not hit[r, e]:
                continue
            size, below = counts[r, 5 + 2 * e], counts[r, 4 + 2 * e]
            work[:size] = held[r, e, :size]
            i, j = positions[r, 2 * e] - below, positions[r, 2 * e + 1] - below
            _kth(work, size, i)
            out[r, 2 * e] = work[i]
            out[r, 2 * e + 1] = work[i] if j == i else work[i + 1:size].min()


#: How many times an entry of a block's narrow product (memory-bound: a few
#: rows against many) costs one of the whole Gram matrix (a compute-bound
#: product): about 10 at 1,000 x 9,999 (13 ms for 5 x 1,000, 280 ms for
#: 1,000 x 1,000, one thread).
_NARROW_COST = 10

#: The systems whose Gram matrix may be kept whole (``k^2`` floats).
_GRAM_SYSTEMS = 4096

_KEPT = [None]  # what pair_moments keeps of the last T (one dict)
_KEPT_LOCK = threading.Lock()


def _forget(last):
    with _KEPT_LOCK:
        if _KEPT[0] is last:
            _KEPT[0] = None


def forget_moments(T):
    """Drop what :func:`pair_moments` keeps of ``T`` (its row moments, its Gram matrix).

    They go with ``T`` anyway; a caller that keeps ``T`` (a comparison keeps
    its shared scores for ``ranks()``) calls this when no more pairs of
    ``T`` follow: the Gram matrix is ``8 k^2`` bytes (8 MB at 1,000 systems).
    """
    with _KEPT_LOCK:
        last = _KEPT[0]
        if last is not None and last["T"]() is T:
            _KEPT[0] = None
            last["gram"] = None  # T's finalizer holds ``last`` as long as T lives


def _kept(T):
    """Row means and mean squares of ``T``, kept with the Gram work done for it so far."""
    with _KEPT_LOCK:
        last = _KEPT[0]
        if last is None or last["T"]() is not T:
            last = {"T": weakref.ref(T), "means": T.mean(axis=1),
                    "squares": np.einsum("ij,ij->i", T, T) / T.shape[1], "spent": 0, "gram": None}
            _KEPT[0] = last
            weakref.finalize(T, _forget, last)  # the Gram matrix goes with T
        return last


def _gram_entries(T, I, J, kept):
    """``T[I[r]] . T[J[r]] / B`` per pair (None: not worth it for this block), BLAS.

    The block's sub-Gram matrix (its fewer distinct rows against the others,
    or against all of ``T`` when they are most of it), until the entries
    computed (or declined) for this ``T`` cost as much as its whole Gram
    matrix (:data:`_NARROW_COST`): then the whole one, kept for the next
    blocks (at most about twice the cheaper of the two, whatever the order
    of the pairs).
    """
    n, k = T.shape[1], T.shape[0]
    ua, ia = np.unique(I, return_inverse=True)
    ub, ib = np.unique(J, return_inverse=True)
    if ua.size > ub.size:
        ua, ia, ub, ib = ub, ib, ua, ia
    full = 2 * ub.size > k  # the whole of T rather than a copy of most of it
    cost = ua.size * (k if full else ub.size)
    with _KEPT_LOCK:
        whole = (kept["gram"] is None and k <= _GRAM_SYSTEMS
                 and _NARROW_COST * (kept["spent"] + cost) >= k * k)
        if whole:
            kept["gram"] = T @ T.T / n
        gram = kept["gram"]
        if gram is None:
            kept["spent"] += cost
    if gram is not None:
        return gram[I, J]
    if cost > _GRAM_PER_PAIR * max(I.size, 1):
        return None
    right = T if full else T[ub]
    # (rows x few) rather than (few x rows): OpenBLAS threads the latter badly
    return (right @ T[ua].T)[ub[ib] if full else ib, ia] / n


def pair_moments(T, I, J):
    """Mean and standard deviation of each pair's differences ``T[J] - T[I]`` (or None).

    From the systems' row means and the Gram matrix of their rows (BLAS):
    ``var = G_ii + G_jj - 2 G_ij`` with ``G`` the covariances
    (:func:`_gram_entries`). Estimates for placing the windows only: the
    results never depend on them (BLAS's bits may depend on its threads).
    None when a block's Gram entries are not worth computing.
    """
    kept = _kept(T)
    products = _gram_entries(T, I, J, kept)
    if products is None:
        return None
    means, squares = kept["means"], kept["squares"]
    mean_a, mean_b = means[I], means[J]
    var = (squares[I] - mean_a**2 + squares[J] - mean_b**2
           - 2.0 * (products - mean_a * mean_b))
    return mean_b - mean_a, np.sqrt(np.maximum(var, 0.0))


def _window_ranks(n, m, level, method, z0, acceleration):
    """The ranks ``h`` of the interval's two ends and their spread, from estimated ``z0``.

    The spread, in ranks: the Monte Carlo sd of an empirical quantile at
    level ``q`` of ``n`` draws, ``sqrt(n q (1 - q))``, and that of ``z0``'s
    count (``#{d* < delta}``, sd ``sqrt(n p (1 - p))``, ``p = Phi(z0)``)
    carried to the level, ``n |dq/dz0| sqrt(p (1 - p) / n) / phi(z0)``, in
    quadrature. At ``B = 9999``, ``q = 0.025`` and ``z0 = 0``: 15.6 and
    about 14.6 ranks (``dq/dz0 = 2 phi(1.96)``), 21 in all. Both are upper
    bounds here: the windows are placed from the pair's own mean and sd
    (the normal shape is the only approximation), which the empirical
    quantile and count share, and the exact ranks of the benchmark's pairs
    (``benchmarks/bench_select.py``) differ from the estimates by 0.47
    spreads (sd; at most 1.75 in 8,192 pairs). A window of
    :data:`WINDOW_SIDES` (3.5) spreads each side, about 150 differences,
    missed 3 of 100,000 pairs there (they take the buckets).
    """
    step = 1e-4
    q = interval_levels(level, method, z0, acceleration, m)[:2]
    if method == "bca":
        up = interval_levels(level, method, z0 + step, acceleration, m)[:2]
        down = interval_levels(level, method, z0 - step, acceleration, m)[:2]
        p = _special().ndtr(z0)
        sd_z0 = np.sqrt(p * (1.0 - p) / n) / np.exp(-0.5 * z0**2) * np.sqrt(2.0 * np.pi)
    out = []
    for e in range(2):
        var = n * q[e] * (1.0 - q[e])
        if method == "bca":
            var = var + (n * (up[e] - down[e]) / (2.0 * step) * sd_z0) ** 2
        out.append((q[e] * (n - 1), np.sqrt(var)))
    return out


def window_bounds(T, I, J, delta, level, method, acceleration=None):
    """``(m, 4)``: the value windows ``[a0, b0]``, ``[a1, b1]`` around the interval's two ends.

    Placed from a normal approximation of each pair's differences
    (:func:`pair_moments`) and the ends' levels at the estimated
    ``z0 = (delta - mean) / sd``, each :data:`WINDOW_SIDES` rank spreads wide
    (:func:`_window_ranks`), open on the side of an end near the row's
    extremes. Empty windows (every pair to the buckets) when the moments
    are not computed or :data:`WINDOW_SIDES` is 0.
    """
    m, n = I.shape[0], T.shape[1]
    out = np.tile([np.inf, -np.inf], (m, 2))
    moments = pair_moments(T, I, J) if WINDOW_SIDES > 0 and m else None
    if moments is None:
        return out
    mean, sd = moments
    special = _special()
    with np.errstate(all="ignore"):
        z0 = np.where(sd > 0, (delta - mean) / sd, 0.0)
        z0 = np.where(np.isfinite(z0), z0, 0.0)
        a = None if method != "bca" else np.nan_to_num(np.broadcast_to(acceleration, (m,)))
        ends = _window_ranks(n, m, level, method, z0 if method == "bca" else None, a)
        for e, (h, spread) in enumerate(ends):
            half = WINDOW_SIDES * spread + 2.0
            below, above = h - half, h + 1.0 + half
            lo = np.where(below < 0, -np.inf, mean + sd * special.ndtri((below + 0.5) / n))
            hi = np.where(above > n - 1, np.inf, mean + sd * special.ndtri((above + 0.5) / n))
            usable = (sd > 0) & np.isfinite(mean) & np.isfinite(sd) & ~np.isnan(lo + hi)
            out[:, 2 * e] = np.where(usable, lo, np.inf)  # else empty
            out[:, 2 * e + 1] = np.where(usable, hi, -np.inf)
    return out


class Windows(NamedTuple):
    """What :func:`scan_windows` gives: the summaries, zero's neighbours and the windows' values.

    ``neighbours``: ``(m, 2)``, the largest negative and the smallest
    positive difference (``lo`` / ``hi`` when there is none); ``counts``:
    ``(m, 8)``, ``#{d* < 0}``, ``#{d* <= 0}``, ``#{d* < delta}``,
    ``#{d* <= delta}``, then per window the differences below it and in it;
    ``held``: ``(m, 2, WINDOW_CAP)``, each window's differences (unordered,
    the first ``WINDOW_CAP``).
    """

    summaries: PairSummaries
    neighbours: np.ndarray
    counts: np.ndarray
    held: np.ndarray


def scan_windows(T, I, J, delta, bounds):
    """:class:`Windows` of the differences ``T[J[r]] - T[I[r]]``, in one read of each pair.

    ``bounds``: ``(m, 4)`` value windows ``[a0, b0]`` and ``[a1, b1]``
    (:func:`window_bounds`; any values: they only decide which positions
    :func:`windowed_rows` finds in them).
    """
    T = np.ascontiguousarray(T, dtype=np.float64)
    I, J = (np.ascontiguousarray(x, dtype=np.int64) for x in (I, J))
    delta = np.ascontiguousarray(delta, dtype=np.float64)
    m = I.shape[0]
    floats, counts = np.empty((m, 4)), np.empty((m, 8), dtype=np.int64)
    held = np.empty((m, 2, WINDOW_CAP))
    # the pairs by their second row, then their first: the block's few rows
    # stay in the cache while each other row is read once (the pairs in
    # any order give the same results)
    order = np.lexsort((I, J))
    _scan(T, I, J, delta, np.ascontiguousarray(bounds, dtype=np.float64), order, floats, counts,
          held)
    summaries = PairSummaries(floats[:, 0], floats[:, 1], *counts[:, :4].T)
    return Windows(summaries, floats[:, 2:], counts, held)


def windowed_rows(T, I, J, windows, positions):
    """:class:`SelectedRows` knowing ``positions`` (``(m, 4)``, two a window) and zero's neighbours.

    A pair whose window ``e`` holds both positions ``2e, 2e + 1`` (``below
    <= p < below + size``, every value kept) reads them there, as the ranks
    ``p - below`` of the window's values (a quickselect): the same values
    as the sorted row's, the window holding exactly the differences between
    its bounds. The other pairs take the bucket selection
    (:func:`select_positions`). Returns the rows and the pairs that did.
    """
    s, counts, n = windows.summaries, windows.counts, T.shape[1]
    positions = np.ascontiguousarray(positions, dtype=np.int64)
    below, size = counts[:, [4, 6]], counts[:, [5, 7]]
    hit = ((size <= WINDOW_CAP) & (below <= positions[:, [0, 2]])
           & (positions[:, [1, 3]] < below + size))
    values = np.empty(positions.shape)
    _pick(windows.held, counts, positions, hit, values)
    missed = np.flatnonzero(~hit.all(axis=1))
    if missed.size:
        part = PairSummaries(*(x[missed] for x in s))
        values[missed] = select_positions(T, I[missed], J[missed], part, positions[missed])
    negative = np.where(s.below_zero > 0, s.below_zero - 1, 0)
    positive = np.where(s.zero_or_below < n, s.zero_or_below, n - 1)
    every = np.column_stack([positions, negative, positive])
    return SelectedRows(s, every, np.column_stack([values, windows.neighbours]), n), missed


class PairOrder:
    """Each pair's differences ``T[J] - T[I]`` as far as the bulk BCa code reads them.

    With numba and the interval's ``level`` and ``method`` (and the
    accelerations, for BCa), read once with windows around the interval's
    ends (:func:`scan_windows`; :meth:`rows` reads the order statistics in
    them, or selects them for the pairs a window missed); with numba alone,
    summarised then selected (:func:`pair_summaries`,
    :func:`selected_rows`); without numba, sorted. All give the same bits
    to the bulk BCa code (the accelerations only place the windows).

    Attributes
    ----------
    summaries : PairSummaries
        The extremes and the counts below 0 and below the observed difference.
    """

    def __init__(self, T, I, J, delta, level=None, method=None, acceleration=None):
        self._pairs = (T, I, J)
        self._sorted = self._windows = None
        if _numba_enabled() and level is not None:
            bounds = window_bounds(T, I, J, delta, level, method, acceleration)
            self._windows = scan_windows(T, I, J, delta, bounds)
            self.summaries = self._windows.summaries
            return
        if _numba_enabled():
            self.summaries = pair_summaries(T, I, J, delta)
            return
        dist = pair_differences(T, I, J)
        dist.sort(axis=1)
        zero = np.zeros(dist.shape[0])
        self._sorted = dist
        self.summaries = PairSummaries(
            dist[:, 0], dist[:, -1], row_counts(dist, zero, "left"),
            row_counts(dist, zero, "right"), row_counts(dist, delta, "left"),
            row_counts(dist, delta, "right"))

    @staticmethod
    def block_rows(n):
        """Pairs per block of ``n`` differences each: the window buffers of a block (with
        numba) within :data:`WINDOW_BLOCK_BYTES`, its sorted rows (without) within
        :data:`SORTED_BLOCK_BYTES`."""
        if _numba_enabled():
            return max(1, WINDOW_BLOCK_BYTES // _WINDOW_PAIR_BYTES)
        return max(1, SORTED_BLOCK_BYTES // (8 * n))

    def rows(self, level, method, z0, acceleration):
        """The rows to read the interval at ``level`` and its p-value from (``(m, B)``-indexable)."""
        if self._sorted is not None:
            return self._sorted
        T, I, J = self._pairs
        with np.errstate(invalid="ignore"):  # block_intervals warns, once
            q_low, q_high, _ = interval_levels(level, method, z0, acceleration, I.shape[0])
        n = T.shape[1]
        (i_low, j_low, _), (i_high, j_high, _) = (quantile_positions(q, n) for q in (q_low, q_high))
        positions = np.column_stack([i_low, j_low, i_high, j_high])
        if self._windows is not None:
            return windowed_rows(T, I, J, self._windows, positions)[0]
        return selected_rows(T, I, J, self.summaries, positions)
