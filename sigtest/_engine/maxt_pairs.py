r"""Max-T adjusted p-values of the pairwise differences of a score matrix, without the columns.

:func:`sigtest._engine.maxt.maxt_pvalues` takes the family's ``B x m``
bootstrap differences; for every pair of 1,000 systems that is 499,500
columns of ``B`` floats (40 GB at ``B = 9999``). :func:`maxt_pairs_pvalues`
takes the systems' shared bootstrap scores ``T`` (``k x B``) and the pairs
``(i, j)`` instead, the difference of pair ``p`` on resample ``b`` being
``T[j, b] - T[i, b]``, and gives the same :class:`~sigtest._engine.maxt.MaxTResult`
bit for bit:

* the standard deviations of the differences (:func:`_std_pairs`: a numba
  kernel forming each pair's differences on the fly and summing them in
  numpy's pairwise order, so the values are ``numpy.std``'s of each column
  bit for bit, without a block of differences in memory);
* the exceedance counts in a numba kernel over ranges of resamples
  (:func:`_count_range`): for each pair in decreasing order of ``t``, its
  studentized differences on a block of resamples (lanes of SIMD vectors:
  each system's scores on the block are one contiguous row of a ``k x
  block`` copy of ``T``) with every resample's running maximum from the end
  (the maximum over the hypotheses not yet rejected), computed with the
  float operations of :func:`~sigtest._engine.maxt.maxt_pvalues`, so the
  integer counts are the same; the single-step counts from the sorted
  maxima. Ranges run on threads (``nogil``); integer counts summed in any
  order give the same result.

Memory: ``T``, one ``k x block`` copy of its columns and one count array per
thread: ``O(B k + m)``, not ``O(B m)``.

Only finite scores: the caller uses :func:`~sigtest._engine.maxt.maxt_pvalues`
when some resample of the family is undefined.
"""

from __future__ import annotations

import numpy as np

from sigtest._engine.jit import cached_jit
from sigtest._engine.kernels import _numba_enabled
from sigtest._engine.maxt import _ALTERNATIVES, maxt_result, studentized_order
from sigtest._engine.pairwise_sum import pairwise_program
from sigtest._engine.threads import part_bounds, run_parts

__all__ = ["maxt_pairs_pvalues"]

#: Bytes of one block of pair differences when computing their standard deviations.
_SE_BLOCK_BYTES = 32 * 2**20


#: Resamples per block of the exceedance kernel: every pair's differences on
#: the block's resamples are one contiguous run of each system's row (a
#: ``k x block`` copy of ``T``), processed lane by lane in SIMD.
_COUNT_BLOCK = 512


@cached_jit(nogil=True)
def _count_block(rows, w, I, J, centre, scale, t_sorted, sign, two_sided, tails, spare,
                 count_sd, count_m):  # pragma: no cover - compiled by numba
    # the pairs from the last to the first, each on the block's w resamples
    # (lanes l, independent: LLVM vectorises the inner loop), every lane with
    # its running maximum from the end; the same float operations per
    # (resample, pair) as maxt_pvalues, so the same integer counts. The
    # running maxima alternate between ``tails`` and ``spare`` (read one,
    # write the other): a select stored to the array it was loaded from
    # would become a masked store, several times slower
    src, dst = tails, spare
    for p in range(I.shape[0] - 1, -1, -1):
        rj, ri = rows[J[p]], rows[I[p]]
        c, s, t = centre[p], scale[p], t_sorted[p]
        n_m = 0
        n_sd = 0
        for lane in range(w):
            z = sign * ((rj[lane] - ri[lane]) - c) / s
            if two_sided:
                z = abs(z)
            n_m += z >= t
            tail = src[lane]
            tail = z if z > tail else tail
            dst[lane] = tail
            n_sd += tail >= t
        count_m[p] += n_m
        count_sd[p] += n_sd
        src, dst = dst, src
    if src is not tails:
        tails[:w] = src[:w]


@cached_jit(nogil=True)
def _count_range(T, I, J, centre, scale, t_sorted, sign, two_sided, start, stop,
                 count_sd, count_m, overall, block):  # pragma: no cover - compiled by numba
    # resamples start .. stop - 1 in blocks: the block's columns of T copied
    # into contiguous rows (k x block, in cache), then one pass over the pairs
    rows = np.empty((T.shape[0], block))
    spare = np.empty(block)
    overall[:] = -np.inf
    for lo in range(start, stop, block):
        w = min(stop, lo + block) - lo
        for s in range(T.shape[0]):
            rows[s, :w] = T[s, lo:lo + w]
        _count_block(rows, w, I, J, centre, scale, t_sorted, sign, two_sided,
                     overall[lo - start:lo - start + w], spare, count_sd, count_m)


@cached_jit(nogil=True)
def _leaf_sum(F, ui, uj, lo, n, mean, squares):  # pragma: no cover - compiled by numba
    # one leaf of numpy's pairwise sum of d = T[j, b] - T[i, b] (squares:
    # of (d - mean)**2), b = lo .. lo + n - 1, read from the flat scores F
    # at the unsigned offsets ui = i B, uj = j B (unsigned indices: no
    # wraparound test for negative ones on every read): from 8 terms on, 8
    # partial sums started at the first 8 terms and combined as numpy
    # combines them; then the remaining terms (all of them below 8) one
    # after the other
    res = 0.0
    full = n - n % 8 if n >= 8 else 0
    r0 = r1 = r2 = r3 = r4 = r5 = r6 = r7 = 0.0
    u1, u2, u3, u4 = np.uint64(1), np.uint64(2), np.uint64(3), np.uint64(4)
    u5, u6, u7 = np.uint64(5), np.uint64(6), np.uint64(7)
    for b in range(lo, lo + full, 8):
        x = uj + np.uint64(b)
        y = ui + np.uint64(b)
        d0 = F[x] - F[y]
        d1 = F[x + u1] - F[y + u1]
        d2 = F[x + u2] - F[y + u2]
        d3 = F[x + u3] - F[y + u3]
        d4 = F[x + u4] - F[y + u4]
        d5 = F[x + u5] - F[y + u5]
        d6 = F[x + u6] - F[y + u6]
        d7 = F[x + u7] - F[y + u7]
        if squares:
            d0 = (d0 - mean) * (d0 - mean)
            d1 = (d1 - mean) * (d1 - mean)
            d2 = (d2 - mean) * (d2 - mean)
            d3 = (d3 - mean) * (d3 - mean)
            d4 = (d4 - mean) * (d4 - mean)
            d5 = (d5 - mean) * (d5 - mean)
            d6 = (d6 - mean) * (d6 - mean)
            d7 = (d7 - mean) * (d7 - mean)
        if b == lo:  # numpy starts the partial sums at the first 8 terms
            r0, r1, r2, r3, r4, r5, r6, r7 = d0, d1, d2, d3, d4, d5, d6, d7
        else:
            r0 += d0
            r1 += d1
            r2 += d2
            r3 += d3
            r4 += d4
            r5 += d5
            r6 += d6
            r7 += d7
    if full:
        res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    for b in range(lo + full, lo + n):
        d = F[uj + np.uint64(b)] - F[ui + np.uint64(b)]
        if squares:
            d = d - mean
            d = d * d
        res += d
    return res


@cached_jit(nogil=True)
def _pairwise_sum(F, ui, uj, starts, sizes, program, mean, squares, stack):
    # pragma: no cover - compiled by numba
    top = 0
    for code in program:
        if code >= 0:
            stack[top] = _leaf_sum(F, ui, uj, starts[code], sizes[code], mean, squares)
            top += 1
        else:
            stack[top - 2] = stack[top - 2] + stack[top - 1]
            top -= 1
    return stack[0]


@cached_jit(nogil=True)
def _std_range(T, I, J, starts, sizes, program, start, stop, out):
    # pragma: no cover - compiled by numba
    B = T.shape[1]
    F = T.ravel()  # T is C-contiguous: row s starts at s B
    stack = np.empty(program.shape[0] + 1)
    for p in range(start, stop):
        ui, uj = np.uint64(I[p] * B), np.uint64(J[p] * B)
        mean = _pairwise_sum(F, ui, uj, starts, sizes, program, 0.0, False, stack) / B
        out[p] = np.sqrt(_pairwise_sum(F, ui, uj, starts, sizes, program, mean, True,
                                       stack) / (B - 1))


def _std_pairs_numpy(T, I, J):
    """``numpy.std(T[j] - T[i], ddof=1)`` of every pair, in blocks of pairs (numba disabled)."""
    B = T.shape[1]
    out = np.empty(I.shape[0])
    block = max(1, _SE_BLOCK_BYTES // (8 * B))
    for s in range(0, I.shape[0], block):
        out[s:s + block] = np.std(T[J[s:s + block]] - T[I[s:s + block]], axis=1, ddof=1)
    return out


def _std_pairs(T, I, J, n_threads=1):
    """``numpy.std(T[j] - T[i], ddof=1)`` of every pair, bit for bit.

    With numba, one kernel forms each pair's differences on the fly and sums
    them, then their squared deviations from the mean, in numpy's pairwise
    order (numpy's ``std``: the mean ``sum(d) / B``, then
    ``sqrt(sum((d - mean)**2) / (B - 1))``), so no block of differences is
    built; parts of the pairs run on threads. Without numba: numpy on blocks
    of pairs.
    """
    if not _numba_enabled() or T.shape[1] < 2:
        return _std_pairs_numpy(T, I, J)
    out = np.empty(I.shape[0])
    T = np.ascontiguousarray(T, dtype=np.float64)  # rows at multiples of B in T.ravel()
    I, J = np.ascontiguousarray(I, dtype=np.int64), np.ascontiguousarray(J, dtype=np.int64)
    program = pairwise_program(T.shape[1])  # numpy's summation tree of B terms
    plan = (program.lo, program.n, program.ops)
    run_parts(lambda start, stop: _std_range(T, I, J, *plan, start, stop, out),
              part_bounds(I.shape[0], max(1, int(n_threads))), max(1, int(n_threads)))
    return out


def maxt_pairs_pvalues(delta, scores, pairs, *, alternative="two-sided", n_threads=1):
    """:func:`~sigtest._engine.maxt.maxt_pvalues` of ``scores[j] - scores[i]`` per pair.

    Parameters
    ----------
    delta : array-like of shape (m,)
        Observed differences of the pairs, oriented as ``scores[j] - scores[i]``.
    scores : ndarray of shape (k, B)
        Every system's bootstrap scores on the shared resamples (finite).
    pairs : array-like of shape (m, 2)
        ``(i, j)`` of every hypothesis (rows of ``scores``).
    alternative : {"two-sided", "greater", "less"}, default="two-sided"
    n_threads : int, default=1
        Threads over the ranges of resamples (the output does not depend on it).

    Returns
    -------
    MaxTResult
        What :func:`~sigtest._engine.maxt.maxt_pvalues` returns for the
        columns ``scores[j] - scores[i]``.
    """
    if alternative not in _ALTERNATIVES:
        raise ValueError(
            f"The 'alternative' parameter must be one of {_ALTERNATIVES}. Got {alternative!r}.")
    T = np.ascontiguousarray(scores, dtype=np.float64)
    if T.ndim != 2 or T.shape[1] < 2:
        raise ValueError(f"The 'scores' parameter must have shape (k, B >= 2). Got {T.shape}.")
    if not np.all(np.isfinite(T)):
        raise ValueError("The 'scores' parameter must be finite (use maxt_pvalues otherwise).")
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    d = np.asarray(delta, dtype=np.float64)
    if d.shape != (pairs.shape[0],):
        raise ValueError(f"The 'delta' parameter must have shape ({pairs.shape[0]},). "
                         f"Got {d.shape} instead.")
    m, B = d.shape[0], T.shape[1]
    I, J = pairs[:, 0], pairs[:, 1]
    live = np.flatnonzero(np.isfinite(d))
    se = np.full(m, np.nan)
    se[live] = _std_pairs(T, I[live], J[live], n_threads)
    t, degenerate, order = studentized_order(d, se, live, alternative)
    sign = -1.0 if alternative == "less" else 1.0
    t_sorted = np.ascontiguousarray(t[order])
    n_used = order.size
    Io, Jo = np.ascontiguousarray(I[order]), np.ascontiguousarray(J[order])
    centre, scale = np.ascontiguousarray(d[order]), np.ascontiguousarray(se[order])
    bounds = part_bounds(B, max(1, int(n_threads)))

    def call(start, stop):
        count_sd = np.zeros(n_used, dtype=np.int64)
        count_m = np.zeros(n_used, dtype=np.int64)
        overall = np.empty(stop - start)
        _count_range(T, Io, Jo, centre, scale, t_sorted, sign, alternative == "two-sided",
                     start, stop, count_sd, count_m, overall, _COUNT_BLOCK)
        return count_sd, count_m, overall

    parts = run_parts(call, bounds, max(1, int(n_threads)))
    count_sd = np.sum([p[0] for p in parts], axis=0, dtype=np.int64).reshape(n_used)
    count_m = np.sum([p[1] for p in parts], axis=0, dtype=np.int64).reshape(n_used)
    max_stat = np.concatenate([p[2] for p in parts]) if n_used else np.full(B, -np.inf)
    # single step: resamples whose overall maximum reaches t (the same integers)
    count_ss = B - np.searchsorted(np.sort(max_stat), t_sorted, side="left")

    return maxt_result((count_sd, count_ss, count_m), B, m, live, order, t=t, se=se,
                       max_stat=max_stat, degenerate=degenerate, n_dropped=0)
