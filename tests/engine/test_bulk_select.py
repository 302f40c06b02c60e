"""Selected order statistics give the bulk BCa code what sorted rows give it, bit for bit."""

import numpy as np
import pytest
from _bulk_rows import bootstrap_rows

from sigtest._engine.bulk_bca import (block_intervals, block_pvalues, block_quantiles, block_z0,
                                      interval_levels, quantile_positions, z0_from_counts)
from sigtest._engine.bulk_select import (PairSummaries, SelectedRows, pair_summaries,
                                         select_positions, selected_rows)


def _as_pairs(rows):
    """``T`` and pairs whose differences ``T[J] - T[I]`` are exactly ``rows`` (``x - 0.0``)."""
    T = np.vstack([np.zeros(rows.shape[1]), rows])
    m = rows.shape[0]
    return T, np.zeros(m, dtype=np.int64), np.arange(1, m + 1)


def _rows(rng, m=48, B=401):
    """Unsorted rows: those of ``bootstrap_rows`` shuffled, constant rows, a single value."""
    dist, delta = bootstrap_rows(rng, m, B)
    rows = rng.permuted(dist, axis=1)
    rows[5] = 0.0  # every difference 0 (the whole row sorted)
    rows[6] = 0.25
    rows[7, ::2] = -1e-3  # two values
    rows[7, 1::2] = 2e-3
    delta[[5, 6]] = [0.0, np.nan]
    return rows, delta


def test_summaries_count_what_searchsorted_counts():
    rng = np.random.default_rng(3)
    rows, delta = _rows(rng)
    T, I, J = _as_pairs(rows)
    s = pair_summaries(T, I, J, delta)
    ordered = np.sort(rows, axis=1)
    np.testing.assert_array_equal(s.lo, ordered[:, 0])
    np.testing.assert_array_equal(s.hi, ordered[:, -1])
    for value, below, at_or_below in ((np.zeros(len(delta)), s.below_zero, s.zero_or_below),
                                      (delta, s.below_delta, s.delta_or_below)):
        np.testing.assert_array_equal(
            below, [np.searchsorted(o, v, "left") for o, v in zip(ordered, value)])
        np.testing.assert_array_equal(
            at_or_below, [np.searchsorted(o, v, "right") for o, v in zip(ordered, value)])
    np.testing.assert_array_equal(z0_from_counts(s.below_delta, s.delta_or_below, rows.shape[1]),
                                  block_z0(ordered, delta))


@pytest.mark.parametrize("threads", [1, 3])
def test_selected_positions_are_the_sorted_rows(threads):
    rng = np.random.default_rng(4)
    rows, delta = _rows(rng)
    T, I, J = _as_pairs(rows)
    s = pair_summaries(T, I, J, delta, n_threads=threads)
    B = rows.shape[1]
    positions = rng.integers(0, B, (len(I), 7))
    positions[:, 0], positions[:, 1] = 0, B - 1
    positions[:, 2] = positions[:, 3]  # the same position twice
    got = select_positions(T, I, J, s, positions, n_threads=threads)
    np.testing.assert_array_equal(got, np.take_along_axis(np.sort(rows, axis=1), positions, 1))


def test_selection_of_a_heavily_tied_row_and_many_buckets():
    # 0/1 means: few distinct values, some buckets empty, one holding most rows
    rng = np.random.default_rng(8)
    T = rng.binomial(40, [[0.5], [0.55], [0.99], [1.0]], size=(4, 2001)) / 40
    I, J = np.array([0, 1, 2, 0]), np.array([1, 2, 3, 3])
    s = pair_summaries(T, I, J, np.zeros(4))
    positions = np.tile(np.arange(0, 2001, 50), (4, 1))
    np.testing.assert_array_equal(select_positions(T, I, J, s, positions),
                                  np.take_along_axis(np.sort(T[J] - T[I], axis=1), positions, 1))


@pytest.mark.parametrize("method", ["bca", "percentile"])
@pytest.mark.parametrize("level", [0.95, 0.8])
def test_intervals_and_pvalues_equal_those_of_the_sorted_rows(method, level):
    rng = np.random.default_rng(11)
    rows, delta = _rows(rng)
    T, I, J = _as_pairs(rows)
    ordered = np.sort(rows, axis=1)
    s = pair_summaries(T, I, J, delta)
    z0 = block_z0(ordered, delta) if method == "bca" else None
    a = rng.normal(0, 0.05, len(I)) if method == "bca" else None
    with np.errstate(invalid="ignore"):
        q_low, q_high, _ = interval_levels(level, method, z0, a, len(I))
    (il, jl, _), (ih, jh, _) = (quantile_positions(q, rows.shape[1]) for q in (q_low, q_high))
    sel = selected_rows(T, I, J, s, np.column_stack([il, jl, ih, jh]))
    assert sel.shape == ordered.shape
    with np.errstate(invalid="ignore"):
        want = block_intervals(ordered, level, method, z0, a)
        got = block_intervals(sel, level, method, z0, a)
    np.testing.assert_array_equal(got, want)
    live = np.flatnonzero(np.isfinite(delta) & (ordered[:, -1] > ordered[:, 0]))
    np.testing.assert_array_equal(block_pvalues(sel, method, z0, a, live),
                                  block_pvalues(ordered, method, z0, a, live))


def test_unknown_positions_keep_the_sign_of_every_quantile():
    # what the inversion asks at other levels: the sign of each quantile (and
    # whether it is 0), at every level on a fine grid, both ends
    rng = np.random.default_rng(12)
    rows, delta = _rows(rng)
    T, I, J = _as_pairs(rows)
    ordered = np.sort(rows, axis=1)
    s = pair_summaries(T, I, J, delta)
    some = np.column_stack([np.full(len(I), 3), np.full(len(I), 4)])
    sel = selected_rows(T, I, J, s, some)
    every = np.arange(len(I))
    for q in np.linspace(0.0, 1.0, 401):
        levels = np.full(len(I), q)
        want = block_quantiles(ordered, levels, every)
        got = block_quantiles(sel, levels, every)
        np.testing.assert_array_equal(np.sign(got), np.sign(want))
    # at the known positions, the values themselves
    i, j, _ = quantile_positions(np.full(len(I), 3 / (rows.shape[1] - 1)), rows.shape[1])
    np.testing.assert_array_equal(sel[every, i], ordered[every, i])
    zero_rank = sel.below_zero
    has = (zero_rank > 0)
    np.testing.assert_array_equal(sel[every[has], zero_rank[has] - 1],
                                  ordered[every[has], zero_rank[has] - 1])


def test_selected_rows_bad_positions():
    T = np.zeros((2, 5))
    s = PairSummaries(*(np.zeros(1) for _ in range(6)))
    with pytest.raises(ValueError, match="'positions'"):
        select_positions(T, np.array([0]), np.array([1]), s, np.array([[5]]))
    assert isinstance(selected_rows(T, np.array([0]), np.array([1]),
                                    pair_summaries(T, np.array([0]), np.array([1]), np.zeros(1)),
                                    np.array([[0, 4]])), SelectedRows)
