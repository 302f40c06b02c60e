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
  numpy's pairwise order, the pairs of one system with consecutive others
  as SIMD lanes, so the values are ``numpy.std``'s of each column bit for
  bit, without a block of differences in memory);
* the exceedance counts in a numba kernel over ranges of resamples
  (:func:`_count_range`): for each pair in decreasing order of ``t``, its
  studentized differences on a block of resamples (lanes of SIMD vectors:
  each system's scores on the block are one contiguous row of a ``k x
  block`` copy of ``T``) with every resample's running maximum from the end
  (the maximum over the hypotheses not yet rejected), computed with the
  float operations of :func:`~sigtest._engine.maxt.maxt_pvalues`, so the
  integer counts are the same; the single-step counts from the sorted
  maxima. Ranges run on threads (``nogil``); integer counts summed in any
  order give the same result. Only the pairs whose ``t`` the block's
  largest maximum ``M`` reaches need the ordered pass: a pair with ``t >
  M`` exceeds on no resample of the block, and only its part in the maxima
  is needed, which does not depend on the order. Those maxima
  (:func:`_block_maxima`) skip a group of pairs, then a pair, on a few
  resamples when a bound of its statistics there (from the systems' largest
  deviations on them, :func:`_groups`) is below every one of their maxima
  so far. At 1,000 systems about a quarter of the pairs take the ordered
  pass and the counts cost 1.9-2.4x less CPU than every pair in order (one
  thread; ``benchmarks/bench_leaderboard.py --only maxt``).

Memory: ``T`` and its transpose (for the standard deviations), one ``k x
block`` copy of its columns and one count array per thread: ``O(B k + m)``,
not ``O(B m)``.

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


#: Lanes of a sub-block of the maxima pass (:func:`_block_maxima`): the
#: systems' extreme scores over so few resamples bound most pairs below the
#: lanes' maxima.
_MAX_LANES = 8

#: Other systems per group of pairs of one system in the maxima pass (one
#: bound for the group: the largest deviation of the group's other systems).
_GROUP_WIDTH = 16

#: Relative slack of the groups' bounds: covers the rounding of the
#: statistic's operations and of the bound's own (a few units of 2**-53).
_BOUND_SLACK = 1e-9


@cached_jit(nogil=True)
def _count_pairs(rows, w, I, J, centre, scale, t_sorted, sign, two_sided, p_lo, p_hi, tails,
                 spare, count_sd, count_m):  # pragma: no cover - compiled by numba
    # the pairs p_hi - 1 down to p_lo, each on the block's w resamples
    # (lanes l, independent: LLVM vectorises the inner loop), every lane with
    # its running maximum from the end; the same float operations per
    # (resample, pair) as maxt_pvalues, so the same integer counts. The
    # running maxima alternate between ``tails`` and ``spare`` (read one,
    # write the other): a select stored to the array it was loaded from
    # would become a masked store, several times slower
    src, dst = tails, spare
    for p in range(p_hi - 1, p_lo - 1, -1):
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
def _lowest(x, n):  # pragma: no cover - compiled by numba
    low = x[0]
    for lane in range(1, n):
        low = x[lane] if x[lane] < low else low
    return low


@cached_jit(nogil=True)
def _deviations(rows, l0, n, mu, sub, dev, dev_block):  # pragma: no cover - compiled by numba
    # sub[s]: system s's scores on lanes l0 .. l0 + n - 1 (a k x _MAX_LANES
    # copy, in cache); dev[s]: their largest |T - mu|; dev_block[b]: the
    # largest over the systems of block b (_GROUP_WIDTH systems)
    k = rows.shape[0]
    for s in range(k):
        d = 0.0
        for lane in range(n):
            x = rows[s, l0 + lane]
            sub[s, lane] = x
            v = abs(x - mu[s])
            d = v if v > d else d
        dev[s] = d
    for b in range(dev_block.shape[0]):
        d = 0.0
        for s in range(b * _GROUP_WIDTH, min(k, (b + 1) * _GROUP_WIDTH)):
            d = dev[s] if dev[s] > d else d
        dev_block[b] = d


@cached_jit(nogil=True)
def _block_maxima(rows, w, mu, groups, sign, two_sided, out, sub, dev, dev_block, bound, z):
    # pragma: no cover - compiled by numba
    # out[l] = max(out[l], every pair's statistic on lane l). The lanes in
    # sub-blocks of _MAX_LANES, each with the lowest of its maxima so far
    # (floor); a group of pairs (one system g_sys with the others of block
    # g_block), then a pair of it, is skipped when its bound is below the
    # floor. Bound: |T[j] - T[i] - c| <= dev[i] + dev[j] + |mu[j] - mu[i] - c|
    # (dev: the largest |T - mu| on the sub-block), so |z| <= (dev[i] +
    # dev[j] + g_add) * g_mul (g_add, g_mul: the group's largest |mu[j] -
    # mu[i] - c| and 1 / s, with slack for rounding; for the group, the
    # largest dev of its block for dev[j]). The groups' bounds are computed
    # first in one vectorised pass. A maximum does not depend on the order of
    # the pairs: the same values as the running maxima of _count_pairs. A NaN
    # bound (overflow) skips nothing
    _, g_sys, g_block, g_start, g_add, g_mul, pair = groups
    n_groups = g_sys.shape[0]
    for l0 in range(0, w, _MAX_LANES):
        n = min(_MAX_LANES, w - l0)
        _deviations(rows, l0, n, mu, sub, dev, dev_block)
        g = out[l0:l0 + n]
        floor = _lowest(g, n)
        for grp in range(n_groups):
            bound[grp] = (dev[g_sys[grp]] + dev_block[g_block[grp]] + g_add[grp]) * g_mul[grp]
        for grp in range(n_groups):
            if bound[grp] < floor:
                continue
            i = g_sys[grp]
            ga, gm = g_add[grp], g_mul[grp]
            ri = sub[i]
            for p in range(g_start[grp], g_start[grp + 1]):
                j = int(pair[p, 0])
                if (dev[i] + dev[j] + ga) * gm < floor:
                    continue
                rj = sub[j]
                c, s = pair[p, 1], pair[p, 2]
                for lane in range(n):
                    v = sign * ((rj[lane] - ri[lane]) - c) / s
                    z[lane] = abs(v) if two_sided else v
                for lane in range(n):
                    top = g[lane]
                    g[lane] = z[lane] if z[lane] > top else top
                floor = _lowest(g, n)


@cached_jit(nogil=True)
def _n_above(t_sorted, x):  # pragma: no cover - compiled by numba
    # the number of leading entries of the decreasing t_sorted above x
    lo, hi = 0, t_sorted.shape[0]
    while lo < hi:
        mid = (lo + hi) // 2
        if t_sorted[mid] > x:
            lo = mid + 1
        else:
            hi = mid
    return lo


@cached_jit(nogil=True)
def _count_range(T, I, J, centre, scale, t_sorted, sign, two_sided, start, stop,
                 count_sd, count_m, overall, block, groups):
    # pragma: no cover - compiled by numba
    # resamples start .. stop - 1 in blocks: the block's columns of T copied
    # into contiguous rows (k x block, in cache); per block, the pairs whose t
    # does not exceed the largest maximum M of the block's lanes in order
    # (_count_pairs); the others (t > M) exceed on no lane of the block: only
    # their maxima count (_block_maxima, in any order, most groups skipped).
    # M is known only after the maxima: the pairs from the last block's cut
    # first, then the ones between the two cuts. A lane whose maximum is 0
    # (its sign depends on the order) takes every pair in order
    k, m = T.shape[0], I.shape[0]
    rows = np.empty((k, block))
    spare = np.empty(block)
    top = np.empty(block)
    z = np.empty(_MAX_LANES)
    sub = np.empty((k, _MAX_LANES))
    dev = np.empty(k)
    dev_block = np.empty(-(-k // _GROUP_WIDTH))
    bound = np.empty(groups[1].shape[0])
    cut = m
    for lo in range(start, stop, block):
        w = min(stop, lo + block) - lo
        for s in range(k):
            rows[s, :w] = T[s, lo:lo + w]
        tails = overall[lo - start:lo - start + w]
        tails[:] = -np.inf
        _count_pairs(rows, w, I, J, centre, scale, t_sorted, sign, two_sided, cut, m, tails,
                     spare, count_sd, count_m)
        top[:w] = tails
        _block_maxima(rows, w, groups[0], groups, sign, two_sided, top, sub, dev, dev_block,
                      bound, z)
        highest = -np.inf
        zero = False
        for lane in range(w):
            highest = max(highest, top[lane])
            zero |= top[lane] == 0.0
        new = 0 if zero else _n_above(t_sorted, highest)
        if new < cut:
            _count_pairs(rows, w, I, J, centre, scale, t_sorted, sign, two_sided, new, cut,
                         tails, spare, count_sd, count_m)
        if not zero:
            tails[:] = top[:w]
        cut = new


def _groups(T, I, J, centre, scale):
    """The pairs in groups for :func:`_block_maxima`, with each group's bound terms.

    Groups: the pairs of one system ``I`` with the others ``J`` of one block
    of :data:`_GROUP_WIDTH` systems. Returns ``(mu, g_sys, g_block, g_start,
    g_add, g_mul, pair)``: every system's mean score; each group's system,
    block, first pair (with the end), the largest ``|mu[j] - mu[i] - c|``
    and ``1 / s`` of its pairs (each enlarged by :data:`_BOUND_SLACK` and a
    tiny absolute slack); ``pair``: the rows ``(J, centre, scale)`` of the
    pairs in group order (one cache line holds a pair's three: the maxima
    pass reads few groups, scattered).
    """
    mu = T.mean(axis=1)
    block = J // _GROUP_WIDTH
    order = np.lexsort((J, block, I))
    Ig, Jg, cg, sg = (np.ascontiguousarray(a[order]) for a in (I, J, centre, scale))
    key = Ig * (block.max(initial=0) + 1) + block[order]
    first = np.flatnonzero(np.diff(key, prepend=-1))
    with np.errstate(all="ignore"):
        # the slack: relative for the sums and the reciprocal, absolute for the
        # rounding of T[j] - T[i] (a few units of |mu| + |c|) and tiny values
        add = (np.abs(mu[Jg] - mu[Ig] - cg)
               + _BOUND_SLACK * (np.abs(mu[Jg]) + np.abs(mu[Ig]) + np.abs(cg)) + 1e-290)
        add *= 1.0 + _BOUND_SLACK
        mul = (1.0 / sg) * (1.0 + _BOUND_SLACK)
    # a NaN term (overflow) makes the group's bound NaN: nothing skipped
    g_add = _group_max(add, first)
    g_mul = _group_max(mul, first)
    small = np.int32 if T.shape[0] < 2**31 else np.int64
    return (mu, Ig[first].astype(small), block[order][first].astype(small),
            np.append(first, key.size).astype(np.int64), g_add, g_mul,
            np.ascontiguousarray(np.stack([Jg.astype(np.float64), cg, sg], axis=1)))


def _group_max(values, first):
    """The largest of ``values`` per group (groups start at ``first``), NaN if one is NaN."""
    if not first.size:
        return np.zeros(0)
    out = np.maximum.reduceat(values, first)  # maximum propagates NaN
    return out


#: Pairs of one anchor system summed together (SIMD lanes over the other
#: systems, consecutive columns of ``T.T``), and lanes of a tile of such
#: runs (the tile's columns of a leaf's rows stay in cache) in ``_std_pairs``.
_STD_LANES = 128
_STD_TILE = 4096

#: Columns of ``T.T`` (other systems) copied at a time for ``_std_pairs``: its
#: tiles in groups whose runs span at most this many (a run of one column block of
#: ``_STD_LANES`` spans at most twice that), so that ``B x 256`` floats (20 MB at
#: ``B = 9,999``) rather than the whole ``T.T`` (80 MB at 1,000 systems) are held.
_STD_SLAB = 2 * _STD_LANES


@cached_jit(nogil=True)
def _leaf_lanes(TB, xa, o, w, lo, n, mean, squares, acc, res):
    # pragma: no cover - compiled by numba
    # one leaf of numpy's pairwise sum for the w pairs (a, o + l):
    # d = TB[b, o + l] - T[a, b], b = lo .. lo + n - 1, lane by lane (xa: the
    # anchor's row of T, read in order rather than one cache line of TB per
    # resample); the lanes' 8 partial sums in acc (8 x lanes), numpy's order
    # within a lane
    full = n - n % 8 if n >= 8 else 0
    for lane in range(w):
        res[lane] = 0.0
    for b in range(lo, lo + full):
        row = TB[b]
        x = xa[b]
        seg = row[o:o + w]
        part = acc[(b - lo) % 8]
        first = b < lo + 8  # numpy starts the partial sums at the first 8 terms
        for lane in range(w):
            d = seg[lane] - x
            if squares:
                d = (d - mean[lane]) * (d - mean[lane])
            part[lane] = d if first else part[lane] + d
    if full:
        for lane in range(w):
            res[lane] = (((acc[0, lane] + acc[1, lane]) + (acc[2, lane] + acc[3, lane]))
                         + ((acc[4, lane] + acc[5, lane]) + (acc[6, lane] + acc[7, lane])))
    for b in range(lo + full, lo + n):
        row = TB[b]
        x = xa[b]
        seg = row[o:o + w]
        for lane in range(w):
            d = seg[lane] - x
            if squares:
                d = d - mean[lane]
                d = d * d
            res[lane] += d


@cached_jit(nogil=True)
def _std_tiles(T, TB, run_a, run_o, run_w, run_off, tiles, starts, sizes, program, depth,
               t_lo, t_hi, out):  # pragma: no cover - compiled by numba
    # tiles t_lo .. t_hi - 1 of runs; a tile's lanes (its runs' pairs) go
    # through numpy's summation program together: each leaf for every run of
    # the tile, each addition of two partial sums for every lane
    B = TB.shape[0]
    lanes = 0
    for t in range(t_lo, t_hi):
        r0, r1 = tiles[t], tiles[t + 1]
        lanes = max(lanes, run_off[r1 - 1] + run_w[r1 - 1] - run_off[r0])
    stack = np.empty((depth, lanes))
    mean = np.empty(lanes)
    acc = np.empty((8, run_w.max()))
    for t in range(t_lo, t_hi):
        r0, r1 = tiles[t], tiles[t + 1]
        base = run_off[r0]
        width = run_off[r1 - 1] + run_w[r1 - 1] - base
        for phase in range(2):
            squares = phase == 1
            top = 0
            for code in program:
                if code >= 0:
                    for r in range(r0, r1):
                        lo, w = run_off[r] - base, run_w[r]
                        _leaf_lanes(TB, T[run_a[r]], run_o[r], w, starts[code], sizes[code],
                                    mean[lo:lo + w], squares, acc, stack[top, lo:lo + w])
                    top += 1
                else:
                    for lane in range(width):
                        stack[top - 2, lane] = stack[top - 2, lane] + stack[top - 1, lane]
                    top -= 1
            for lane in range(width):
                if squares:
                    out[base + lane] = np.sqrt(stack[0, lane] / (B - 1))
                else:
                    mean[lane] = stack[0, lane] / B


def _runs(I, J, k):
    """Pairs as runs ``(anchor, first other, width)`` of consecutive other systems, in tiles.

    Each pair ``(i, j)`` gets as anchor its system in more pairs (the
    smaller index on ties; the standard deviation of ``T[i] - T[j]`` is that
    of ``T[j] - T[i]`` bit for bit: rounding is symmetric); pairs of one
    anchor with consecutive others form runs of at most ``_STD_LANES``; runs
    are ordered by block of ``_STD_LANES`` other systems, then anchor, and cut into
    tiles of about ``_STD_TILE`` pairs. Returns the pairs' order and the
    runs' anchors, first others, widths, offsets in that order, and the
    tiles' first runs (with the end).
    """
    m = I.shape[0]
    deg = np.bincount(I, minlength=k) + np.bincount(J, minlength=k)
    swap = (deg[J] > deg[I]) | ((deg[J] == deg[I]) & (J < I))
    A, O = np.where(swap, J, I), np.where(swap, I, J)
    order = np.lexsort((O, A))
    A, O = A[order], O[order]
    new = np.ones(m, dtype=bool)
    new[1:] = (A[1:] != A[:-1]) | (O[1:] != O[:-1] + 1)
    first = np.flatnonzero(new)
    new |= (np.arange(m) - first[np.cumsum(new) - 1]) % _STD_LANES == 0
    first = np.flatnonzero(new)
    width = np.diff(np.append(first, m))
    by_block = np.lexsort((A[first], O[first] // _STD_LANES))
    first, width = first[by_block], width[by_block]
    offset = np.concatenate(([0], np.cumsum(width)[:-1]))
    order = order[np.repeat(first - offset, width) + np.arange(m)]
    tiles = np.flatnonzero(np.diff(offset // _STD_TILE, prepend=-1))
    return order, A[first], O[first], width, offset, np.append(tiles, first.size)


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
    built: the pairs of one system with consecutive others as SIMD lanes
    (rows of ``T.T``), in tiles of pairs that go through numpy's summation
    tree together (:func:`_runs`); tiles run on threads. Without numba:
    numpy on blocks of pairs.
    """
    if not _numba_enabled() or T.shape[1] < 2:
        return _std_pairs_numpy(T, I, J)
    out = np.empty(I.shape[0])
    if not out.size:
        return out
    I, J = np.ascontiguousarray(I, dtype=np.int64), np.ascontiguousarray(J, dtype=np.int64)
    program = pairwise_program(T.shape[1])  # numpy's summation tree of B terms
    plan = (program.lo, program.n, program.ops, program.depth)
    order, run_a, run_o, run_w, run_off, tiles = _runs(I, J, T.shape[0])
    T64 = np.ascontiguousarray(T, dtype=np.float64)  # an anchor's scores: one row
    sd = np.empty(I.shape[0])
    n_parts = max(1, int(n_threads))
    for t0, t1, c0, c1 in _slab_groups(run_o, run_w, tiles):
        # the group's columns of T.T (the same values: the kernel's sums unchanged)
        TB, shifted = np.ascontiguousarray(T64[c0:c1].T), run_o - c0
        run_parts(lambda lo, hi: _std_tiles(T64, TB, run_a, shifted, run_w, run_off, tiles,
                                            *plan, lo, hi, sd),
                  [(t0 + s, t0 + e) for s, e in part_bounds(t1 - t0, n_parts)], n_parts)
    out[order] = sd
    return out


def _slab_groups(run_o, run_w, tiles):
    """``(first tile, end tile, first column, end column)`` of consecutive tiles of runs.

    Each group's runs read the other systems ``c0 .. c1 - 1`` (columns of
    ``T.T``), at most :data:`_STD_SLAB` of them unless one tile alone spans
    more (then it is its own group).
    """
    starts = tiles[:-1]
    lo = np.minimum.reduceat(run_o, starts).tolist()
    hi = np.maximum.reduceat(run_o + run_w, starts).tolist()
    groups, t0 = [], 0
    c0, c1 = lo[0], hi[0]
    for t in range(1, len(starts)):
        if max(c1, hi[t]) - min(c0, lo[t]) > _STD_SLAB:
            groups.append((t0, t, c0, c1))
            t0, c0, c1 = t, lo[t], hi[t]
        else:
            c0, c1 = min(c0, lo[t]), max(c1, hi[t])
    groups.append((t0, len(starts), c0, c1))
    return groups


def _count_all(T, ordered, sign, two_sided, n_threads):
    """``(count_sd, count_m, max_stat)`` of the pairs ``ordered`` by decreasing statistic.

    ``ordered`` is ``(Io, Jo, centre, scale, t_sorted)``; the resamples are
    counted in ranges on ``n_threads`` threads (:func:`_count_range`), whose
    integer counts are added in place (no stacked copy per thread).
    """
    Io, Jo, centre, scale, t_sorted = ordered
    n_used, B = t_sorted.shape[0], T.shape[1]
    if not n_used:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), np.full(B, -np.inf)
    groups = _groups(T, Io, Jo, centre, scale)

    def call(start, stop):
        count_sd = np.zeros(n_used, dtype=np.int64)
        count_m = np.zeros(n_used, dtype=np.int64)
        overall = np.empty(stop - start)
        _count_range(T, Io, Jo, centre, scale, t_sorted, sign, two_sided,
                     start, stop, count_sd, count_m, overall, _COUNT_BLOCK, groups)
        return count_sd, count_m, overall

    parts = run_parts(call, part_bounds(B, max(1, int(n_threads))), max(1, int(n_threads)))
    count_sd, count_m, _ = parts[0]
    for other in parts[1:]:
        count_sd += other[0]
        count_m += other[1]
    return count_sd, count_m, np.concatenate([p[2] for p in parts])


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
    I, J = np.ascontiguousarray(pairs[:, 0]), np.ascontiguousarray(pairs[:, 1])
    finite = np.isfinite(d)
    live = np.flatnonzero(finite)
    se = np.full(m, np.nan)
    if live.size == m:  # every pair (no copies of I and J)
        se[:] = _std_pairs(T, I, J, n_threads)
    else:
        se[live] = _std_pairs(T, I[live], J[live], n_threads)
    del finite
    t, degenerate, order = studentized_order(d, se, live, alternative)
    sign = -1.0 if alternative == "less" else 1.0
    t_sorted = np.ascontiguousarray(t[order])
    Io, Jo = np.ascontiguousarray(I[order]), np.ascontiguousarray(J[order])
    del I, J  # the pairs in order only from here (1,000 systems: 8 MB)
    centre, scale = np.ascontiguousarray(d[order]), np.ascontiguousarray(se[order])
    count_sd, count_m, max_stat = _count_all(
        T, (Io, Jo, centre, scale, t_sorted), sign, alternative == "two-sided", n_threads)
    del Io, Jo, centre, scale  # before the p-values are built (the peak of a large family)
    # single step: resamples whose overall maximum reaches t (the same integers)
    count_ss = B - np.searchsorted(np.sort(max_stat), t_sorted, side="left")
    del t_sorted
    return maxt_result((count_sd, count_ss, count_m), B, m, live, order, t=t, se=se,
                       max_stat=max_stat, degenerate=degenerate, n_dropped=0)
