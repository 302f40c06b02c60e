"""Selected order statistics give the bulk BCa code what sorted rows give it, bit for bit."""

import numpy as np
import pytest
from _bulk_rows import bootstrap_rows

from sigtest._engine.bulk_bca import (block_intervals, block_pvalues, block_quantiles, block_z0,
                                      interval_levels, quantile_positions, z0_from_counts)
from sigtest._engine import bulk_select
from sigtest._engine.bulk_select import (PairSummaries, SelectedRows, pair_summaries,
                                         scan_windows, select_positions, selected_rows,
                                         window_bounds, windowed_rows)


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


def _windowed(T, I, J, delta, a, method="bca", level=0.95, bounds=None):
    """The windowed path of ``PairOrder``: bounds, one scan, exact positions, rows."""
    if bounds is None:
        bounds = window_bounds(T, I, J, delta, level, method, a)
    w = scan_windows(T, I, J, delta, bounds)
    s = w.summaries
    z0 = z0_from_counts(s.below_delta, s.delta_or_below, T.shape[1]) if method == "bca" else None
    with np.errstate(invalid="ignore"):
        q_low, q_high, _ = interval_levels(level, method, z0, a, len(I))
    (il, jl, _), (ih, jh, _) = (quantile_positions(q, T.shape[1]) for q in (q_low, q_high))
    rows, missed = windowed_rows(T, I, J, w, np.column_stack([il, jl, ih, jh]))
    return w, z0, rows, missed


def _skewed_and_discrete(rng, m=40, B=999):
    """Rows far from normal: exponential, a few values with ties, all equal, one outlier."""
    rows = []
    for r in range(m):
        kind = r % 5
        if kind == 0:
            row = rng.exponential(1.0, B) ** 3 - 0.5
        elif kind == 1:
            row = rng.choice([-0.2, 0.0, 0.1, 0.3], B, p=[0.1, 0.5, 0.3, 0.1])
        elif kind == 2:
            row = np.full(B, 0.1)
        elif kind == 3:
            row = rng.normal(0, 1e-3, B)
            row[rng.integers(B)] = 50.0
        else:
            row = rng.binomial(3, 0.1, B) - 0.25
        rows.append(row)
    rows = np.array(rows)
    return rows, np.median(rows, axis=1) + rng.normal(0, 0.01, m)


@pytest.mark.parametrize("sides", [None, 0.0, 0.3])
@pytest.mark.parametrize("case", ["mixed", "skewed"])
@pytest.mark.parametrize("method", ["bca", "percentile"])
def test_windowed_rows_are_the_sorted_rows(monkeypatch, sides, case, method):
    # the windows' values (hits) and the buckets' (misses: every pair with
    # empty windows, some with narrow ones) against numpy.sort, and the
    # intervals and p-values the bulk BCa code reads from them
    if sides is not None:
        monkeypatch.setattr(bulk_select, "WINDOW_SIDES", sides)
    rng = np.random.default_rng(21)
    rows, delta = _rows(rng) if case == "mixed" else _skewed_and_discrete(rng)
    T, I, J = _as_pairs(rows)
    a = rng.normal(0, 0.05, len(I)) if method == "bca" else None
    w, z0, sel, missed = _windowed(T, I, J, delta, a, method)
    if sides == 0.0:
        assert missed.size == len(I)
    elif sides is None and case == "mixed":  # (the skewed rows' windows miss or overflow)
        assert missed.size < len(I) // 2
    ordered = np.sort(rows, axis=1)
    s = pair_summaries(T, I, J, delta)
    for got, want in zip(w.summaries, s):
        np.testing.assert_array_equal(got, want)
    every = np.arange(len(I))
    np.testing.assert_array_equal(sel._value, np.take_along_axis(ordered, sel._known, 1))
    with np.errstate(invalid="ignore"):
        np.testing.assert_array_equal(block_intervals(sel, 0.95, method, z0, a),
                                      block_intervals(ordered, 0.95, method, z0, a))
    live = every[np.isfinite(delta) & (ordered[:, -1] > ordered[:, 0])]
    if method == "bca":
        live = live[np.isfinite(z0[live])]
    np.testing.assert_array_equal(block_pvalues(sel, method, z0, a, live),
                                  block_pvalues(ordered, method, z0, a, live))


def test_any_windows_give_the_sorted_values():
    # the results never depend on where the windows are: random bounds
    # (some empty, some open, some holding one end only)
    rng = np.random.default_rng(22)
    rows, delta = _rows(rng)
    T, I, J = _as_pairs(rows)
    m = len(I)
    ordered = np.sort(rows, axis=1)
    for _ in range(4):
        edges = np.sort(rng.choice(ordered.ravel(), (m, 4)), axis=1)
        edges[::3, 0] = -np.inf
        edges[1::3, 3] = np.inf
        edges[2::5, 1] = edges[2::5, 0] - 1.0  # an empty window
        a = rng.normal(0, 0.05, m)
        w, z0, sel, missed = _windowed(T, I, J, delta, a, bounds=edges)
        np.testing.assert_array_equal(sel._value, np.take_along_axis(ordered, sel._known, 1))
        assert 0 < missed.size < m


def test_quickselect_with_ties():
    rng = np.random.default_rng(23)
    for size in [1, 2, 3, 7, 64, 301]:
        for values in (rng.normal(size=size), rng.integers(0, 4, size).astype(float),
                       np.zeros(size)):
            for k in {0, size // 3, size // 2, size - 1}:
                a = values.copy()
                bulk_select._kth(a, size, k)
                assert a[k] == np.sort(values)[k]
                assert (a[:k] <= a[k]).all() and (a[k + 1:] >= a[k]).all()


def test_trailing_zeros_stand_in():
    # the loop used where numba's cttz cannot be imported counts as cttz does
    words = [1, 2, 8, 256, 3 << 40, 1 << 63, 0x0100000000000000, 0xFFFF_0000]
    for word in words:
        w = np.uint64(word)
        assert bulk_select._count_trailing_zeros(w) == (word & -word).bit_length() - 1


@pytest.mark.parametrize("B", [1, 2, 5, 17])
def test_windowed_rows_with_tiny_B(B):
    # a few differences a pair: windows open or missed, NaN delta, all-equal rows
    rng = np.random.default_rng(24)
    rows = rng.normal(0, 1, (12, B))
    rows[3] = 0.0
    rows[4] = np.round(rows[4])
    delta = rows.mean(axis=1)
    delta[5] = np.nan
    T, I, J = _as_pairs(rows)
    for method, a in (("bca", rng.normal(0, 0.05, 12)), ("percentile", None)):
        _, _, sel, _ = _windowed(T, I, J, delta, a, method)
        np.testing.assert_array_equal(
            sel._value, np.take_along_axis(np.sort(rows, axis=1), sel._known, 1))
