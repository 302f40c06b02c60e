"""The BCa rows of many pairs from the systems' shared bootstrap scores, once their
per-pair quantities are known.

Both bulk BCa paths over all pairs (:mod:`~sigtest._workflows.compare.bulk`
for 0/1 means, :mod:`~sigtest._workflows.compare.bulk_statistics` for the
other metrics with sufficient statistics) compute per pair the scores, the
jackknife acceleration, the number ``d`` of discordant items and whether the
scalar test would treat the pair specially; :func:`bca_rows` turns them
into the rows :func:`~sigtest._workflows.compare.run.run_pairs` would give:

* the pairs' bootstrap differences ``T[j] - T[i]`` from the shared scores
  ``T`` (``k x B``), of which only the order statistics the interval reads
  are selected (:mod:`sigtest._engine.bulk_select`; sorted rows without
  numba: the same bits), and the interval and the p-value that inverts it by
  :mod:`sigtest._engine.bulk_bca` (the scalar code's operations on every row
  at once);
* the p-value floored at ``max(1 / (B + 1), 2**(1 - d))`` and the interval
  widened to 0 where the floor raised p above ``1 - level``, as
  :class:`~sigtest.BCaInterval` does.

A pair whose distribution is degenerate, whose p-value the sign-test floor
set, or whose acceleration is undefined gets no row (None): the caller
leaves it to the per-pair path.
"""

from concurrent.futures import ThreadPoolExecutor

import joblib
import numpy as np

from sigtest._engine.bulk_bca import block_intervals, block_pvalues, z0_from_counts
from sigtest._engine.bulk_select import PairOrder
from sigtest._engine.concentration import DISCORDANT_RATIO, N_EFFECTIVE_MIN
from sigtest._engine.intervals import TIE_RTOL
from sigtest._engine.small_sample import discreteness_floor
from sigtest._workflows.compare.pair_rows import RowBlock

__all__ = ["bca_rows", "finite_rows", "plain"]

#: A pair whose effective number of items is below this many times the
#: concentration limits goes to the per-pair path (which decides the warning).
_CONCENTRATION_MARGIN = 1.1


#: Rows of ``T`` checked at a time by :func:`finite_rows`.
_FINITE_CHUNK = 64


def finite_rows(T, rows):
    """``np.isfinite(T[rows]).all()`` without the copy ``T[rows]`` (80 MB at 1,000 systems).

    The rows are read ``_FINITE_CHUNK`` at a time.
    """
    rows = np.asarray(rows, dtype=np.int64).reshape(-1)
    return all(np.isfinite(T[rows[s:s + _FINITE_CHUNK]]).all()
               for s in range(0, rows.shape[0], _FINITE_CHUNK))


def plain(n_effective, d):
    """Whether pairs are clearly not concentrated: ``n_effective`` above 1.1 times the limit.

    :func:`~sigtest._engine.concentration.is_concentrated` holds below both
    :data:`~sigtest._engine.concentration.N_EFFECTIVE_MIN` and
    :data:`~sigtest._engine.concentration.DISCORDANT_RATIO` times ``d``;
    the pairs within the margin go to the per-pair path, which decides.
    """
    limit = np.minimum(N_EFFECTIVE_MIN, DISCORDANT_RATIO * np.maximum(d, 1))
    return n_effective > _CONCENTRATION_MARGIN * limit


def bca_rows(group, keep, T, pair, n_jobs):
    """The rows of the ``keep`` pairs of ``group`` the bulk path can give.

    Parameters
    ----------
    group : JobGroup
        Pair tasks of one run, metric and test spec
        (:class:`~sigtest._workflows.compare.plan_tasks.JobGroup`); their
        systems ``group.i`` and ``group.j`` index the rows of ``T``.
    keep : ndarray of int
        The positions in ``group`` of the pairs with their per-pair
        quantities in ``pair`` (in order).
    T : ndarray of shape (k, B)
        The systems' shared bootstrap scores (finite).
    pair : dict
        Per kept pair: ``score_a``, ``score_b``, ``acceleration``, ``d``
        (discordant items) and ``regular`` (False: the scalar test treats
        the pair specially).
    n_jobs : int or None
        Threads over the blocks of pairs (the rows do not depend on it).

    Returns
    -------
    taken : ndarray of int
        The positions in ``group`` of the pairs that got a row.
    block : RowBlock
        Their rows (in the order of ``taken``); the other pairs are left to
        the per-pair path.
    """
    params = group.test.get_params(deep=False)
    method, level = params["method"], float(params["confidence_level"])
    B = T.shape[1]
    keep = np.asarray(keep, dtype=np.int64)
    Ti, Tj = group.i[keep], group.j[keep]
    score_a, score_b = pair["score_a"], pair["score_b"]
    delta = score_b - score_a
    block = PairOrder.block_rows(B)
    starts = range(0, len(keep), block)
    floor_d, regular = _floors(pair["d"]), pair["regular"]

    def run(start):
        sl = slice(start, start + block)
        low, high, raw, usable = _block(T, Ti[sl], Tj[sl], delta[sl], pair["acceleration"][sl],
                                        method, level)
        return _kept_rows(low, high, raw, regular[sl] & usable, floor_d[sl], B, level, start)

    n_threads = max(1, joblib.effective_n_jobs(n_jobs))
    if n_threads > 1 and len(starts) > 1:  # the kernels and numpy's sort release the GIL
        with ThreadPoolExecutor(max_workers=n_threads) as pool:
            blocks = list(pool.map(run, starts))
    else:
        blocks = [run(s) for s in starts]
    rows, ci_low, ci_high, pvalue = (np.concatenate(parts) for parts in zip(*blocks))
    n = rows.shape[0]
    finite = np.isfinite(ci_low) | np.isfinite(ci_high)  # an interval of no finite end has no level
    # constant columns as read-only broadcast views (no memory until the frame takes
    # them; np.full of a str would make one str object per row: 28 MB at 499,500 pairs)
    alternative = np.broadcast_to(np.array("two-sided", dtype=object), (n,))
    columns = {"alternative": alternative,
               "score_a": score_a[rows], "score_b": score_b[rows], "delta": delta[rows],
               "ci_low": ci_low, "ci_high": ci_high,
               "ci_level": np.where(finite, level, np.nan), "pvalue": pvalue,
               "n_resamples": np.broadcast_to(np.int64(B), (n,))}
    # no column for the fields undefined here (UNDEFINED_FIELDS, NaN in every row): the
    # frame keeps an optional column only where some row has a value, and reads a
    # missing one as NaN (7 columns, 28 MB at 499,500 pairs, not built)
    taken = keep[rows]
    return taken, RowBlock(group.key_table(taken), columns, "bootstrap")


def _kept_rows(low, high, raw, regular, floor_d, B, level, start):
    """``(positions, ci_low, ci_high, pvalue)`` of the rows of a block the bulk path gives.

    The raw p-value floored at ``max(1 / (B + 1), floor_d)``; a row whose
    floor set it, or not ``regular``, is left out (the per-pair path);
    the interval widened to 0 where the floored p-value exceeds ``1 -
    level``. Element by element, so the blocks' rows are those of all pairs
    at once (no ``m``-long temporaries); ``positions`` are ``start`` plus
    the rows' indices in the block.
    """
    floor = np.maximum(1.0 / (B + 1), floor_d)
    pvalue = np.where(np.isfinite(raw), np.maximum(raw, floor), raw)
    floored = np.isfinite(raw) & (floor_d > np.maximum(raw, 1.0 / (B + 1)))
    widen = (pvalue > 1.0 - level) & ((low > 0.0) | (high < 0.0))
    rows = np.flatnonzero(regular & ~floored)
    low = np.where(widen, np.minimum(low, 0.0), low)[rows]
    high = np.where(widen, np.maximum(high, 0.0), high)[rows]
    return rows + start, low, high, pvalue[rows]


def _floors(d):
    """:func:`discreteness_floor` (two-sided) of every pair's ``d``."""
    values, inverse = np.unique(np.asarray(d).astype(np.int64), return_inverse=True)
    return np.array([discreteness_floor(int(v), "two-sided") for v in values])[inverse]


def _block(T, I, J, delta, acceleration, method, level):
    """Interval, raw p-value and whether the row is usable, for a block of pairs.

    The pairs' differences are read through a
    :class:`~sigtest._engine.bulk_select.PairOrder` (selected order
    statistics with numba, sorted rows without: the same bits).
    """
    order = PairOrder(T, I, J, delta, level, method, acceleration)
    s = order.summaries
    degenerate = s.hi - s.lo <= TIE_RTOL * np.maximum(np.abs(s.lo), np.abs(s.hi))
    ok = ~degenerate & np.isfinite(delta)
    z0 = z0_from_counts(s.below_delta, s.delta_or_below, T.shape[1]) if method == "bca" else None
    a = acceleration if method == "bca" else None
    if method == "bca":
        ok &= np.isfinite(a)
        a = np.where(ok, a, 0.0)
    dist = order.rows(level, method, z0, a)
    low, high = block_intervals(dist, level, method, z0, a)
    raw = np.full(dist.shape[0], np.nan)
    rows = np.flatnonzero(ok)
    if rows.size:
        raw[rows] = block_pvalues(dist, method, z0, a, rows)
    return low, high, raw, ok
