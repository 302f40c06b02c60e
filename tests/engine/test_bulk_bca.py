"""The vectorised BCa / percentile intervals and p-values equal the scalar ones bit for bit."""

import numpy as np
import pytest
from _bulk_rows import bootstrap_rows

from sigtest._engine.bulk_bca import block_intervals, block_pvalues, block_z0
from sigtest._engine.intervals import (
    _special,
    bootstrap_interval,
    interval_pvalue,
    proportion_below,
)


@pytest.mark.parametrize("method", ["bca", "percentile"])
@pytest.mark.parametrize("level", [0.95, 0.9])
def test_block_intervals_and_pvalues_equal_the_scalar_code(method, level):
    rng = np.random.default_rng(7)
    dist, delta = bootstrap_rows(rng)
    accel = rng.normal(0, 0.05, dist.shape[0]) if method == "bca" else None
    z0 = block_z0(dist, delta) if method == "bca" else None
    if method == "bca":  # z0 as the scalar code computes it
        assert np.array_equal(z0, [_special().ndtri(proportion_below(row, d))
                                   for row, d in zip(dist, delta)])
    low, high = block_intervals(dist, level, method, z0, accel)
    pvalues = block_pvalues(dist, method, z0, accel)
    some = np.arange(0, dist.shape[0], 3)
    assert np.array_equal(block_pvalues(dist, method, z0, accel, some), pvalues[some])
    for r in range(dist.shape[0]):
        a = None if accel is None else float(accel[r])
        ci = bootstrap_interval(dist[r], delta[r], level, method, a, presorted=True, warn=False)
        p = interval_pvalue(dist[r], delta[r], method, a, presorted=True)
        assert (low[r], high[r]) == (ci.low, ci.high), r
        assert pvalues[r] == p, (r, pvalues[r], p)
    assert np.all(pvalues[2::4] == 1.0 - np.nextafter(1.0, 0.0))  # every level excludes 0


def test_block_intervals_hold_the_bca_level_beyond_the_pole():
    rng = np.random.default_rng(1)
    dist = np.sort(rng.normal(0.01, 0.02, (3, 999)), axis=1)
    delta = np.full(3, 0.01)
    accel = np.array([0.6, -0.6, np.nan])  # 1 - a w <= 0 at the 95 % level; nan: no interval
    z0 = block_z0(dist, delta)
    low, high = block_intervals(dist, 0.95, "bca", z0, accel)
    for r in range(2):
        ci = bootstrap_interval(dist[r], delta[r], 0.95, "bca", float(accel[r]), presorted=True)
        assert (low[r], high[r]) == (ci.low, ci.high)
    assert np.isnan(low[2]) and np.isnan(high[2])


def test_row_counts_are_numpys_searchsorted():
    # the kernel's binary search against numpy.searchsorted, both sides, on
    # sorted rows with ties, at values that are entries, between entries,
    # beyond both ends, infinite and NaN (NaN sorts last)
    from sigtest._engine.bulk_bca import row_counts

    rng = np.random.default_rng(5)
    rows = np.sort(np.round(rng.normal(size=(40, 257)), 1), axis=1)
    picks = rows[np.arange(40), rng.integers(0, 257, 40)]
    for values in (picks, picks + 0.05, np.full(40, -9.0), np.full(40, 9.0),
                   np.full(40, np.inf), np.full(40, -np.inf), np.full(40, np.nan),
                   np.zeros(40), np.full(40, -0.0)):
        for side in ("left", "right"):
            want = [np.searchsorted(row, v, side=side) for row, v in zip(rows, values)]
            np.testing.assert_array_equal(row_counts(rows, values, side), want)


def test_pair_differences_are_numpys():
    from sigtest._engine.bulk_bca import pair_differences

    rng = np.random.default_rng(2)
    T = rng.normal(size=(6, 37)) * 1e3
    I, J = np.array([0, 5, 2, 2]), np.array([1, 0, 3, 2])
    np.testing.assert_array_equal(pair_differences(T, I, J), T[J] - T[I])
    assert pair_differences(T, I[:0], J[:0]).shape == (0, 37)
