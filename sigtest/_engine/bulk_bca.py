r"""BCa / percentile intervals and their inverted p-values for many pairs at once.

The vectorised twin of :func:`sigtest._engine.intervals.bootstrap_interval`
and :func:`sigtest._engine.intervals.interval_pvalue` (two-sided, null value
0) for a block of ``m`` pairs: the rows of a sorted ``(m, B)`` array of
bootstrap differences, each with its observed difference, its ``z0`` (BCa)
and its acceleration. Every step is the scalar code's, element by element
(the same float operations in the same order, the same scipy ufuncs), so
for the same inputs the intervals and p-values are the same bits:

* :func:`block_quantiles`: :func:`~sigtest._engine.intervals.quantile_sorted`
  of every row at its own level;
* :func:`block_intervals`: :func:`~sigtest._engine.intervals.interval_at`
  (levels held at their limit beyond the BCa pole);
* :func:`block_pvalues`: :func:`~sigtest._engine.intervals.invert_interval`
  with the guess of :func:`~sigtest._engine.intervals._guess_level`: the
  galloping bracket and the bisection on the bits of the level, with the
  same midpoints evaluated and the same ones inferred, run for every row at
  once (a row stops when its bisection has converged).

Degenerate distributions (every difference equal), non-finite differences
and undefined accelerations are the caller's to route to the scalar path.
"""

from __future__ import annotations

import numpy as np

from sigtest._engine.intervals import _HIGHEST, _LOWEST, _MARGIN, _special
from sigtest._engine.jit import cached_jit
from sigtest._engine.kernels import _numba_enabled

__all__ = ["block_intervals", "block_pvalues", "block_quantiles", "block_z0",
           "interval_levels", "pair_differences", "quantile_positions", "row_counts",
           "z0_from_counts"]


@cached_jit(nogil=True)
def _differences(T, I, J, out):  # pragma: no cover - compiled by numba
    for p in range(I.shape[0]):
        i, j = I[p], J[p]
        for b in range(T.shape[1]):
            out[p, b] = T[j, b] - T[i, b]


def pair_differences(T, I, J):
    """``T[J] - T[I]``: row ``p`` holds ``T[J[p]] - T[I[p]]`` (the same subtractions).

    One numba pass writing the block instead of two gathered copies and
    their difference (NumPy without numba).
    """
    if not _numba_enabled():
        return T[J] - T[I]
    T = np.ascontiguousarray(T, dtype=np.float64)
    out = np.empty((len(I), T.shape[1]))
    _differences(T, np.ascontiguousarray(I, dtype=np.int64),
                 np.ascontiguousarray(J, dtype=np.int64), out)
    return out


@cached_jit(nogil=True)
def _search_rows(sorted_dist, values, right, out):  # pragma: no cover - compiled by numba
    # numpy.searchsorted(row, value, side) per row: the first index whose
    # entry is >= value (left) or > value (right); a NaN value sorts last
    n = sorted_dist.shape[1]
    for r in range(sorted_dist.shape[0]):
        v = values[r]
        if np.isnan(v):
            out[r] = n
            continue
        lo, hi = 0, n
        while lo < hi:
            mid = (lo + hi) // 2
            x = sorted_dist[r, mid]
            if x < v or (right and x == v):
                lo = mid + 1
            else:
                hi = mid
        out[r] = lo


def row_counts(sorted_dist, values, side):
    """``#{row < value}`` (``side="left"``) or ``#{row <= value}`` (``"right"``) per sorted row.

    ``numpy.searchsorted`` of each finite sorted row: a binary search per
    row, in one numba call for the block (the same integers; a loop of
    ``numpy.searchsorted`` calls without numba).
    """
    values = np.broadcast_to(np.asarray(values, dtype=np.float64), (sorted_dist.shape[0],))
    if not _numba_enabled():
        return np.array([np.searchsorted(row, v, side=side)
                         for row, v in zip(sorted_dist, values)],
                        dtype=np.int64).reshape(sorted_dist.shape[0])
    out = np.empty(sorted_dist.shape[0], dtype=np.int64)
    _search_rows(np.ascontiguousarray(sorted_dist, dtype=np.float64),
                 np.ascontiguousarray(values), side == "right", out)
    return out


def block_z0(sorted_dist, delta):
    """``ndtri`` of ``(#{d* < delta} + #{d* <= delta}) / 2B`` per row (ties count one half)."""
    return z0_from_counts(row_counts(sorted_dist, delta, "left"),
                          row_counts(sorted_dist, delta, "right"), sorted_dist.shape[1])


def z0_from_counts(below, at_or_below, n):
    """:func:`block_z0` from the counts ``#{d* < delta}`` and ``#{d* <= delta}`` of ``n`` draws."""
    return _special().ndtri((below + at_or_below) / (2 * n))


def quantile_positions(q, n):
    """The positions ``(i, j)`` and weight ``g`` :func:`block_quantiles` reads at levels ``q``."""
    h = q * (n - 1)
    with np.errstate(invalid="ignore"):
        i = np.clip(np.floor(h), 0, n - 1)
    i = np.where(np.isfinite(i), i, 0).astype(np.int64)
    return i, np.minimum(i + 1, n - 1), h - i


def block_quantiles(sorted_dist, q, rows=None):
    """:func:`~sigtest._engine.intervals.quantile_sorted` of every row at its level ``q``.

    ``rows``: the rows of ``sorted_dist`` the levels are for (default: every row).
    """
    rows = np.arange(sorted_dist.shape[0]) if rows is None else rows
    i, j, g = quantile_positions(q, sorted_dist.shape[1])
    lo, hi = sorted_dist[rows, i], sorted_dist[rows, j]
    diff = hi - lo
    out = np.where(g < 0.5, lo + diff * g, hi - diff * (1.0 - g))
    return np.where((g == 0.0) | (lo == hi), lo, out)


def _bca_levels(z0, w, a):
    """:func:`~sigtest._engine.intervals.bca_level` per element."""
    den = 1.0 - a * w
    with np.errstate(all="ignore"):
        level = _special().ndtr(z0 + w / den)
    limit = np.where(a > 0, 1.0, 0.0)
    return np.where(den > 0.0, level, np.where(np.isnan(den), np.nan, limit))


def block_intervals(sorted_dist, level, method, z0=None, acceleration=None, rows=None):
    """``(low, high)`` of :func:`~sigtest._engine.intervals.interval_at` per row.

    ``level``: the confidence level of every row (an array, or one float);
    ``method``: ``"bca"`` (with ``z0`` and ``acceleration`` per row) or
    ``"percentile"``; ``rows``: the rows of ``sorted_dist`` that ``level``,
    ``z0`` and ``acceleration`` are for (default: every row).
    """
    m = sorted_dist.shape[0] if rows is None else rows.shape[0]
    q_low, q_high, ok = interval_levels(level, method, z0, acceleration, m)
    low = block_quantiles(sorted_dist, q_low, rows)
    high = block_quantiles(sorted_dist, q_high, rows)
    return np.where(ok, low, np.nan), np.where(ok, high, np.nan)


def interval_levels(level, method, z0, acceleration, m):
    """The levels ``(q_low, q_high)`` of the ends of ``m`` intervals, and whether they are finite.

    What :func:`block_intervals` reads its quantiles at (``0`` where a level
    is not finite: those intervals are NaN).
    """
    alpha = (1.0 - np.broadcast_to(np.asarray(level, dtype=np.float64), (m,))) / 2.0
    if method == "bca":
        z = _special().ndtri(alpha)
        q_low, q_high = _bca_levels(z0, z0 + z, acceleration), _bca_levels(z0, z0 - z,
                                                                            acceleration)
    else:
        q_low, q_high = alpha, 1.0 - alpha
    ok = np.isfinite(q_low) & np.isfinite(q_high)
    return np.where(ok, q_low, 0.0), np.where(ok, q_high, 0.0), ok


def _levels(bits):
    return np.asarray(bits, dtype=np.int64).view(np.float64)


def _bits(levels):
    return np.asarray(levels, dtype=np.float64).view(np.int64)


def _guess(sorted_dist, method, z0, acceleration):
    """:func:`~sigtest._engine.intervals._guess_level` (two-sided, ``t0 = 0``) per row; nan: None."""
    m, n = sorted_dist.shape
    if n < 2:
        return np.full(m, np.nan)
    k = getattr(sorted_dist, "below_zero", None)  # known (SelectedRows), or
    if k is None:
        k = row_counts(sorted_dist, np.zeros(m), "left")  # searchsorted(row, 0)
    ok = (k > 0) & (k < n)
    rows = np.arange(m)
    kk = np.clip(k, 1, n - 1)
    x0, x1 = sorted_dist[rows, kk - 1], sorted_dist[rows, kk]
    with np.errstate(all="ignore"):
        g = np.where(x1 > x0, (0.0 - x0) / (x1 - x0), 0.0)
        q0 = (kk - 1 + g) / (n - 1)
        if method == "bca":
            u = _special().ndtri(q0) - z0
            w = u / (1.0 + acceleration * u)
            lower = 1.0 - 2.0 * _special().ndtr(w - z0)
            upper = 1.0 - 2.0 * _special().ndtr(z0 - w)
        else:
            lower, upper = 1.0 - 2.0 * q0, 2.0 * q0 - 1.0
    valid_l = np.isfinite(lower) & (lower > 0.0) & (lower < 1.0)
    valid_u = np.isfinite(upper) & (upper > 0.0) & (upper < 1.0)
    guess = np.where(valid_l & valid_u, np.maximum(lower, upper),
                     np.where(valid_l, lower, np.where(valid_u, upper, np.nan)))
    return np.where(ok, guess, np.nan)


class _Excludes:
    """``pred(c)`` of the two-sided inversion for a subset of rows: the interval excludes 0."""

    def __init__(self, sorted_dist, method, z0, acceleration):
        self.dist, self.method, self.z0, self.a = sorted_dist, method, z0, acceleration

    def __call__(self, rows, bits):
        if rows.size == 0:
            return np.zeros(0, dtype=bool)
        z0 = None if self.z0 is None else self.z0[rows]
        a = None if self.a is None else self.a[rows]
        low, high = block_intervals(self.dist, _levels(bits), self.method, z0, a, rows)
        return (low > 0.0) | (high < 0.0)


def _bracket(pred, start, true_at, false_at, rows):
    """:func:`~sigtest._engine.intervals._bracket` for the rows ``rows`` (in place)."""
    start = np.minimum(np.maximum(start, true_at[rows] + 1), false_at[rows] - 1)
    go = start > true_at[rows]
    rows, start = rows[go], start[go]
    holds = pred(rows, start)
    up, down = rows[holds], rows[~holds]
    true_at[up] = start[holds]
    false_at[down] = start[~holds]
    for side, moving in (("up", up), ("down", down)):
        step = np.full(moving.size, 64, dtype=np.int64)
        while moving.size:
            if side == "up":
                room = true_at[moving] + step < false_at[moving]
                moving, step = moving[room], step[room]
                probe = true_at[moving] + step
                ok = pred(moving, probe)
                false_at[moving[~ok]] = probe[~ok]
                true_at[moving[ok]] = probe[ok]
            else:
                room = false_at[moving] - step > true_at[moving]
                moving, step = moving[room], step[room]
                probe = false_at[moving] - step
                ok = pred(moving, probe)
                true_at[moving[ok]] = probe[ok]
                false_at[moving[~ok]] = probe[~ok]
                ok = ~ok  # keep galloping where pred is still false
            moving, step = moving[ok], step[ok] * 8


def block_pvalues(sorted_dist, method, z0=None, acceleration=None, rows=None):
    """Two-sided p-values of 0 inverting the interval, per row (:func:`interval_pvalue`).

    The rows must be non-degenerate with finite ``delta`` (and a finite
    acceleration for BCa); the p-value is ``1 - c*``, ``c*`` the largest
    float level whose interval excludes 0 (1 when none does). ``z0`` and
    ``acceleration`` hold one value per row of ``sorted_dist``; ``rows``:
    the rows whose p-values are returned (default: every row).
    """
    m = sorted_dist.shape[0]
    pred = _Excludes(sorted_dist, method, z0, acceleration)
    every = np.arange(m) if rows is None else np.asarray(rows, dtype=np.int64)
    answer = np.full(m, np.nan)
    answer[every] = _pvalues(pred, sorted_dist, method, z0, acceleration, every)[every]
    return answer[every]


def _pvalues(pred, sorted_dist, method, z0, acceleration, every):
    """The p-values of :func:`block_pvalues` at the positions ``every`` (nan elsewhere)."""
    m = sorted_dist.shape[0]
    at_lowest = pred(every, np.full(every.size, _LOWEST, dtype=np.int64))
    at_highest = pred(every, np.full(every.size, _HIGHEST, dtype=np.int64))
    answer = np.full(m, np.nan)
    answer[every[at_lowest & at_highest]] = 1.0 - _levels(_HIGHEST)
    answer[every[~at_lowest]] = 1.0
    todo = every[at_lowest & ~at_highest]
    lo = np.full(m, _LOWEST, dtype=np.int64)
    hi = np.full(m, _HIGHEST, dtype=np.int64)
    true_at, false_at = lo.copy(), hi.copy()
    guess = _guess(sorted_dist, method, z0, acceleration)
    guessed = todo[np.isfinite(guess[todo]) & (guess[todo] > 0.0) & (guess[todo] < 1.0)]
    if guessed.size:
        _bracket(pred, _bits(guess[guessed]), true_at, false_at, guessed)
    active = todo
    while active.size:
        mid = lo[active] + (hi[active] - lo[active]) // 2
        holds = np.zeros(active.size, dtype=bool)
        known_true = mid <= true_at[active] - _MARGIN
        known_false = mid >= false_at[active] + _MARGIN
        holds[known_true] = True
        ask = ~known_true & ~known_false
        if ask.any():
            rows = active[ask]
            got = pred(rows, mid[ask])
            holds[ask] = got
            true_at[rows[got]] = mid[ask][got]
            false_at[rows[~got]] = mid[ask][~got]
        lo[active[holds]] = mid[holds]
        hi[active[~holds]] = mid[~holds]
        active = active[hi[active] - lo[active] > 1]
    answer[todo] = 1.0 - _levels(lo[todo])
    return answer
