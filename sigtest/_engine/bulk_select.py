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
1,000 systems) is therefore replaced by two kernels (:func:`pair_summaries`,
:func:`select_positions`): one branch-free pass for the extremes and the
counts; then the order statistics at the wanted positions (the interval's
four and the two next to the run of zeros) by a bucket selection: a
histogram of 1,024 value buckets between the extremes, then the few
differences of the buckets holding a wanted position, gathered in one pass
and sorted. A row of a sorted array and a
:class:`SelectedRows` row give the same value at every position they both
know, and at any other position a value of the same sign as the true order
statistic's whose interpolation with its neighbour has that sign too (the
value of the nearest known position below, which is 0 in the run of zeros,
and of the same sign elsewhere): so every interval at the nominal level and
every answer of the inversion's predicate are the same bits as from the
sorted rows, hence the same p-values.

Why a neighbour's value keeps the sign (``quantile_sorted``'s interpolation
of ``lo <= hi`` with weight ``g``): if ``lo <= hi < 0`` then
``lo + (hi - lo) g`` with ``g < 1/2`` is at most ``lo / 2 + 1.5 eps |lo|``
after rounding, and ``hi - (hi - lo)(1 - g)`` is at most ``hi``: negative
either way; symmetrically for ``0 < lo <= hi``; and equal ends give the end.
A pair of positions whose true values differ in sign (or one of them is 0)
lies next to the rank of 0, whose values are kept exactly.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from sigtest._engine.bulk_bca import (interval_levels, pair_differences, quantile_positions,
                                      row_counts)
from sigtest._engine.jit import cached_jit
from sigtest._engine.kernels import _numba_enabled
from sigtest._engine.threads import part_bounds, run_parts

__all__ = ["PairOrder", "PairSummaries", "SelectedRows", "pair_summaries", "select_positions",
           "selected_rows"]

#: Bytes of one block of sorted differences (``m x B`` floats), without numba.
SORTED_BLOCK_BYTES = 32 * 2**20

#: Pairs per block when the order statistics are selected: a few dozen bytes a pair.
SELECTED_BLOCK = 32768

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


class PairOrder:
    """Each pair's differences ``T[J] - T[I]`` as far as the bulk BCa code reads them.

    With numba, summarised and selected (:func:`pair_summaries`, then
    :meth:`rows` selects the interval's order statistics); without, sorted.
    Both give the same bits to the bulk BCa code.

    Attributes
    ----------
    summaries : PairSummaries
        The extremes and the counts below 0 and below the observed difference.
    """

    def __init__(self, T, I, J, delta):
        self._pairs = (T, I, J)
        self._sorted = None
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
        """Pairs per block of ``n`` differences each (memory: selected rows are small)."""
        return SELECTED_BLOCK if _numba_enabled() else max(1, SORTED_BLOCK_BYTES // (8 * n))

    def rows(self, level, method, z0, acceleration):
        """The rows to read the interval at ``level`` and its p-value from (``(m, B)``-indexable)."""
        if self._sorted is not None:
            return self._sorted
        T, I, J = self._pairs
        with np.errstate(invalid="ignore"):  # block_intervals warns, once
            q_low, q_high, _ = interval_levels(level, method, z0, acceleration, I.shape[0])
        n = T.shape[1]
        (i_low, j_low, _), (i_high, j_high, _) = (quantile_positions(q, n) for q in (q_low, q_high))
        return selected_rows(T, I, J, self.summaries,
                             np.column_stack([i_low, j_low, i_high, j_high]))
