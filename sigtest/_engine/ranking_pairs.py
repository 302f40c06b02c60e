r"""The pairwise statistics of the rank intervals in numba tiles, bit for bit those of NumPy.

:func:`sigtest._engine.ranking.pairwise_t` needs, for every pair ``j < l`` of
``k`` systems, the bootstrap standard deviation of ``D = T[:, j] - T[:, l]``
and, for every resample ``b``, the largest studentised deviation
:math:`\max_{j<l} |D_{bjl} - \hat\Delta_{jl}| / \hat\sigma_{jl}`: three passes
over ``k (k - 1) / 2 x B`` differences (499,500 x 9,999 for 1,000 systems).
The NumPy formulation forms each system's ``B x (k - j - 1)`` block of
differences and reads it several times; here every pass runs over tiles of
a few systems ``j`` by a few hundred systems ``l`` whose accumulators stay
in the first-level cache, and the differences are formed on the fly.

The float operations are those of NumPy, in the same order, so the results
are the same bits:

* ``numpy.std(D, axis=0, ddof=1)`` of a ``B x m`` block: the mean is
  ``(sum_b D_b) / B``, the variance ``(sum_b (D_b - mean)^2) / (B - 1)``.
  How NumPy adds follows the memory layout: when ``T`` is C-contiguous the
  block is laid out row by row and each sum adds one resample after the
  other (``m >= 2``; the last pair's block of one column is summed pairwise:
  that pair is left to NumPy); when ``T`` is F-contiguous (``ranks()``
  passes the comparison's kept draws so) the block is laid out column by
  column and each sum is pairwise. The kernel follows a summation program
  (:mod:`sigtest._engine.pairwise_sum`) that gives either order.
* each studentised deviation is ``abs((T_bj - T_bl) - diff_jl) / sd_jl``
  (one rounding per operation; numba does not contract to fused
  multiply-adds without ``fastmath``); a maximum does not depend on the
  order in which it is taken.

Tiles are independent (each pair's sums are made by one tile, over all
resamples in the program's order), so the rows of systems run on threads
(:func:`sigtest._engine.threads.run_parts`) and the output does not depend
on the number of threads.
"""

from __future__ import annotations

import numpy as np

from sigtest._engine.jit import cached_jit
from sigtest._engine.pairwise_sum import pairwise_program, sequential_program
from sigtest._engine.threads import part_bounds, run_parts

__all__ = ["pair_max_t", "pair_std"]

#: Systems ``l`` of one tile (a multiple of the vector width).
_COLS = 128
#: Systems ``j`` of one tile: ``_ROWS x _COLS`` accumulators (32 KB each) stay in cache.
_ROWS = 32
#: Systems of one group of rows of the maximum's tiles (small: tight bounds).
_GROUP = 8
#: Columns of one tile of the maximum (a multiple of ``_GROUP``).
_MAX_COLS = 64
#: Relative slack of the bound that skips a tile's resample (rounding: a few ulps).
_BOUND_SLACK = 1e-12


@cached_jit(nogil=True, error_model="numpy")
def _add_terms(T, b, r0, l0, centre, squares, dst, assign):  # pragma: no cover - numba
    """``dst[jj, i] (+)= v`` with ``v = T_bj - T_bl`` (or ``((T_bj - T_bl) - centre)^2``)."""
    R, L = dst.shape
    seg = T[b, l0:l0 + L]
    for jj in range(R):
        tj = T[b, r0 + jj]
        d = dst[jj]
        if squares:
            c = centre[jj]
            if assign:
                for i in range(L):
                    x = (tj - seg[i]) - c[i]
                    d[i] = x * x
            else:
                for i in range(L):
                    x = (tj - seg[i]) - c[i]
                    d[i] += x * x
        elif assign:
            for i in range(L):
                d[i] = tj - seg[i]
        else:
            for i in range(L):
                d[i] += tj - seg[i]


@cached_jit(nogil=True, error_model="numpy")
def _tile_sums(T, r0, r1, l0, l1, centre, squares, p_lo, p_n, p_seq, ops,
               depth):  # pragma: no cover - compiled by numba
    """The sums over the resamples of a tile's terms, in the order of a summation program
    (:mod:`sigtest._engine.pairwise_sum`)."""
    R, L = r1 - r0, l1 - l0
    stack = np.empty((depth, R, L))
    part = np.empty((8, R, L))
    sp = 0
    for op in ops:
        if op < 0:
            stack[sp - 2] += stack[sp - 1]
            sp -= 1
            continue
        lo, n = p_lo[op], p_n[op]
        top = stack[sp]
        if p_seq[op]:
            top[:] = 0.0
            for b in range(lo, lo + n):
                _add_terms(T, b, r0, l0, centre, squares, top, False)
        else:
            for q in range(8):
                _add_terms(T, lo + q, r0, l0, centre, squares, part[q], True)
            stop = lo + n - n % 8
            for b in range(lo + 8, stop):
                _add_terms(T, b, r0, l0, centre, squares, part[(b - lo) % 8], False)
            for jj in range(R):
                for i in range(L):
                    top[jj, i] = (((part[0, jj, i] + part[1, jj, i])
                                   + (part[2, jj, i] + part[3, jj, i]))
                                  + ((part[4, jj, i] + part[5, jj, i])
                                     + (part[6, jj, i] + part[7, jj, i])))
            for b in range(stop, lo + n):
                _add_terms(T, b, r0, l0, centre, squares, top, False)
        sp += 1
    return stack[0]


@cached_jit(nogil=True, error_model="numpy")
def _pair_sums(T, j0, j1, mean, squares, p_lo, p_n, p_seq, ops, depth, out):  # pragma: no cover
    """``out[j, l] = sum_b v_bjl`` for ``j0 <= j < j1``, ``j < l``: ``v = T_bj - T_bl``, or
    ``((T_bj - T_bl) - mean_jl)^2`` when ``squares``; summed as the program says.

    Every tile is a full rectangle of rows ``r0 <= j < r1`` and columns
    ``r0 < l < l1`` (the few entries ``l <= j`` of the first column tile are
    computed and not kept), so that the loop over ``l`` is vectorised.
    """
    k = T.shape[1]
    for r0 in range(j0, j1, _ROWS):
        r1 = min(j1, r0 + _ROWS)
        for l0 in range(r0 + 1, k, _COLS):
            l1 = min(k, l0 + _COLS)
            centre = np.ascontiguousarray(mean[r0:r1, l0:l1])
            acc = _tile_sums(T, r0, r1, l0, l1, centre, squares, p_lo, p_n, p_seq, ops, depth)
            _keep_upper(acc, r0, r1, l0, l1, out)


@cached_jit(nogil=True)
def _keep_upper(acc, r0, r1, l0, l1, out):  # pragma: no cover - compiled by numba
    """``out[j, l] = acc[j - r0, l - l0]`` for the pairs ``j < l`` of the tile."""
    for j in range(r0, r1):
        for l in range(max(l0, j + 1), l1):
            out[j, l] = acc[j - r0, l - l0]


@cached_jit(nogil=True, error_model="numpy")
def _group_extremes(T, theta, gmax, gmin):  # pragma: no cover - compiled by numba
    """Largest and smallest ``u = T_b - theta`` of each group of ``_GROUP`` systems, per resample."""
    B, k = T.shape
    for b in range(B):
        for g in range(gmax.shape[1]):
            hi, lo = -np.inf, np.inf
            for j in range(g * _GROUP, min(k, (g + 1) * _GROUP)):
                u = T[b, j] - theta[j]
                hi = max(hi, u)
                lo = min(lo, u)
            gmax[b, g] = hi
            gmin[b, g] = lo


@cached_jit(nogil=True, error_model="numpy")
def _pair_max(T, g0, g1, diff, scale, gmax, gmin, slack, out):  # pragma: no cover - numba
    """``out[b] = max(out[b], max |(T_bj - T_bl) - diff_jl| / scale_jl)`` over rows ``j`` of
    the groups ``g0 <= g < g1`` and columns ``l`` from the row's group on.

    ``out`` holds on entry a value reached by some pair (or 0). A tile
    (one group of rows, ``_MAX_COLS`` columns) is skipped on resample ``b``
    when a bound of all its studentised deviations, ``(max |u_j - u_l| +
    slack) / min scale`` with ``u = T_b - theta`` (from the groups' extremes
    ``gmax, gmin``; ``slack`` covers the rounding of the differences), does
    not exceed ``out[b]``: the maximum is the same. ``diff`` antisymmetric
    and ``scale`` symmetric (``inf`` on the diagonal): the entries ``l <= j``
    give the deviations of the pairs ``(l, j)`` (or 0).
    """
    B, k = T.shape
    grow = 1.0 + _BOUND_SLACK
    per = _MAX_COLS // _GROUP
    n_groups = gmax.shape[1]
    for g in range(g0, g1):
        r0, r1 = g * _GROUP, min(k, (g + 1) * _GROUP)
        for c0 in range(g, n_groups, per):
            c1 = min(n_groups, c0 + per)
            l0, l1 = c0 * _GROUP, min(k, c1 * _GROUP)
            sc = np.ascontiguousarray(scale[r0:r1, l0:l1])
            smin = sc.min()
            if smin == np.inf:
                continue  # no pair of positive deviation
            dc = np.ascontiguousarray(diff[r0:r1, l0:l1])
            lane = np.zeros(l1 - l0)
            for b in range(B):
                cmax, cmin = gmax[b, c0], gmin[b, c0]
                for c in range(c0 + 1, c1):
                    cmax = max(cmax, gmax[b, c])
                    cmin = min(cmin, gmin[b, c])
                gap = max(gmax[b, g] - cmin, cmax - gmin[b, g])
                if (gap + slack) * grow / smin <= out[b]:
                    continue
                seg = T[b, l0:l1]
                lane[:] = 0.0
                for jj in range(r1 - r0):
                    tj = T[b, r0 + jj]
                    d = dc[jj]
                    s = sc[jj]
                    for i in range(l1 - l0):
                        z = abs((tj - seg[i]) - d[i]) / s[i]
                        lane[i] = z if z > lane[i] else lane[i]
                top = out[b]
                for v in lane:
                    top = v if v > top else top
                out[b] = top


def _row_parts(k, n_threads, rows=_ROWS):
    """Bounds of the rows ``j`` of the threads' parts (multiples of ``rows``): about equal
    numbers of pairs ``j < l``."""
    n_threads = max(1, int(n_threads))
    if n_threads == 1 or k < 4 * rows:
        return [(0, k)]
    n_parts = len(part_bounds(k, n_threads, rows))
    pairs_before = np.arange(k + 1) * (2 * k - 1 - np.arange(k + 1)) // 2
    cuts = np.searchsorted(pairs_before, np.linspace(0, pairs_before[-1], n_parts + 1)[1:-1])
    cuts = np.unique(np.concatenate([[0], -(-cuts // rows) * rows, [k]]).clip(0, k))
    return [(int(s), int(e)) for s, e in zip(cuts[:-1], cuts[1:]) if e > s]


def pair_std(T, n_threads=1, pairwise=False):
    """``sd[j, l]``: the standard deviation of ``T[:, j] - T[:, l]`` as the NumPy formulation
    computes it from ``T[:, j, None] - T[:, j + 1:]``.

    Parameters
    ----------
    T : ndarray of shape (B, k), C-contiguous float64, ``B >= 2``
    n_threads : int, default=1
    pairwise : bool, default=False
        NumPy sums the differences along the resamples one after the other
        when they are laid out row by row (``T`` C-contiguous; except the
        last pair's single column, summed pairwise), and pairwise when
        column by column (``T`` F-contiguous, :func:`column_major`;
        :mod:`sigtest._engine.pairwise_sum`): the sums of the latter when
        True.

    Returns
    -------
    sd : ndarray of shape (k, k)
        Symmetric, zero on the diagonal.
    """
    B, k = T.shape
    sd = np.zeros((k, k))
    if k < 2:
        return sd
    program = pairwise_program(B) if pairwise else sequential_program(B)
    parts = _row_parts(k, n_threads)
    prog = (program.lo, program.n, program.seq, program.ops, program.depth)
    sums = np.zeros((k, k))
    run_parts(lambda s, e: _pair_sums(T, s, e, sums, False, *prog, sums), parts, n_threads)
    mean = sums / B  # numpy.mean: the sum divided by the count
    squares = np.zeros((k, k))
    run_parts(lambda s, e: _pair_sums(T, s, e, mean, True, *prog, squares), parts, n_threads)
    upper = np.sqrt(squares / (B - 1))
    iu = np.triu_indices(k, 1)
    sd[iu] = upper[iu]
    # the last pair is a block of one column: NumPy sums it pairwise
    last = T[:, k - 2] - T[:, k - 1]
    sd[k - 2, k - 1] = last.std(ddof=1)
    sd.T[iu] = sd[iu]
    return sd


def column_major(T):
    """Whether NumPy's differences ``T[:, j, None] - T[:, j + 1:]`` are laid out column by
    column (the resamples of a pair contiguous, summed pairwise): ``T``'s first axis has
    the smaller stride."""
    return T.shape[0] > 1 and T.shape[1] > 1 and abs(T.strides[0]) < abs(T.strides[1])


def _probe(T, theta, diff, scale, rows=1024):
    """Per resample, the studentised deviation of the pair of the largest and smallest ``T_b - theta``.

    A value reached by a pair (the same float operations as the kernel), near
    the maximum: the starting point below which tiles are skipped.
    """
    B = T.shape[0]
    out = np.zeros(B)
    for s in range(0, B, rows):
        part = T[s:s + rows]
        u = part - theta
        j, l = u.argmax(axis=1), u.argmin(axis=1)
        b = np.arange(part.shape[0])
        out[s:s + rows] = np.abs((part[b, j] - part[b, l]) - diff[j, l]) / scale[j, l]
    return out


def pair_max_t(T, theta, diff, sd, n_threads=1):
    r"""``max_t[b] = max_{j<l, sd_jl > 0} |(T_bj - T_bl) - diff_jl| / sd_jl`` (0 when none).

    Parameters
    ----------
    T : ndarray of shape (B, k), C-contiguous float64, finite
    theta : ndarray of shape (k,)
        The observed scores (``diff = theta[:, None] - theta[None, :]``).
    diff, sd : ndarray of shape (k, k)
        ``theta_j - theta_l`` and the standard deviations (:func:`pair_std`).
    n_threads : int, default=1

    Returns
    -------
    max_t : ndarray of shape (B,)
        The maxima of the NumPy formulation, bit for bit: each is a
        deviation of one pair computed with the same operations.

    Notes
    -----
    Most tiles of pairs cannot reach a resample's maximum: with
    :math:`u_j = T_{bj} - \theta_j`, every deviation of a tile is at most
    :math:`(\max |u_j - u_l| + \delta) / \min \hat\sigma_{jl}` over the
    tile, :math:`\delta = 32 \epsilon (\max|T| + \max|\theta|)` bounding
    the rounding of the differences (:math:`\epsilon` the machine epsilon).
    Starting from the deviation of the pair of the largest and smallest
    :math:`u` (:func:`_probe`), the kernel computes a tile's deviations on
    a resample only when that bound exceeds the maximum found so far.
    """
    B, k = T.shape
    if k < 2:
        return np.zeros(B)
    theta = np.ascontiguousarray(theta, dtype=np.float64)
    # pairs of zero deviation divide by +inf: 0, which never raises the maximum (>= 0)
    scale = np.where(sd > 0, sd, np.inf)
    diff = np.ascontiguousarray(diff, dtype=np.float64)
    slack = 32 * np.finfo(np.float64).eps * (np.abs(T).max() + np.abs(theta).max())
    start = _probe(T, theta, diff, scale)
    n_groups = -(-k // _GROUP)
    gmax, gmin = np.empty((B, n_groups)), np.empty((B, n_groups))
    _group_extremes(T, theta, gmax, gmin)
    parts = _row_parts(n_groups, n_threads, 1)

    def call(s, e):
        out = start.copy()
        _pair_max(T, s, e, diff, scale, gmax, gmin, slack, out)
        return out

    return np.max(run_parts(call, parts, n_threads), axis=0)
