"""Max-T over the pairs of a score matrix equals max-T over the pairs' columns, bit for bit."""

import numpy as np
import pytest

from sigtest._engine.maxt import maxt_pvalues
from sigtest._engine.maxt_pairs import maxt_pairs_pvalues

_FIELDS = ("step_down", "single_step", "marginal", "t", "se", "max_stat", "degenerate")


@pytest.mark.parametrize("block", [512, 256, 8, 7, 1])
@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_maxt_pairs_equals_maxt_on_the_columns(alternative, block, monkeypatch):
    # block: resamples per pass of the exceedance kernel over the pairs (one
    # block with a remainder, one for all, SIMD-sized, odd, one resample a
    # block), and ranges of resamples on threads split the blocks again
    from sigtest._engine import maxt_pairs

    monkeypatch.setattr(maxt_pairs, "_COUNT_BLOCK", block)
    rng = np.random.default_rng(3)
    k, B = 14, 399
    # scores on a grid of 1/500: ties between the resampled and observed statistics
    T = rng.binomial(500, rng.uniform(.5, .8, k)[:, None], size=(k, B)) / 500.0
    T[3] = T[4]  # a pair without spread: degenerate
    pairs = np.array([(i, j) for i in range(k) for j in range(i + 1, k)])
    delta = np.round((T[pairs[:, 1]].mean(1) - T[pairs[:, 0]].mean(1)) * 500) / 500
    delta[5] = np.nan
    want = maxt_pvalues(delta, [T[j] - T[i] for i, j in pairs], alternative=alternative)
    for threads in (1, 2, 3):
        got = maxt_pairs_pvalues(delta, T, pairs, alternative=alternative, n_threads=threads)
        for field in _FIELDS:
            assert np.array_equal(getattr(got, field), getattr(want, field), equal_nan=True), \
                field
        assert got.n_dropped == 0
    assert want.degenerate.sum() == 1 and np.isnan(want.step_down[5])


def test_maxt_pairs_same_pvalues_for_any_order_of_the_pairs():
    rng = np.random.default_rng(5)
    T = rng.normal(0, 1, (9, 299))
    pairs = np.array([(i, j) for i in range(9) for j in range(i + 1, 9)])
    delta = rng.normal(0, 0.3, len(pairs))
    first = maxt_pairs_pvalues(delta, T, pairs)
    perm = rng.permutation(len(pairs))
    again = maxt_pairs_pvalues(delta[perm], T, pairs[perm])
    assert np.array_equal(first.step_down[perm], again.step_down)


def test_maxt_pairs_bad_inputs():
    T = np.zeros((3, 10))
    with pytest.raises(ValueError, match="alternative"):
        maxt_pairs_pvalues([0.0], T, [(0, 1)], alternative="both")
    with pytest.raises(ValueError, match="'delta'"):
        maxt_pairs_pvalues([0.0, 1.0], T, [(0, 1)])
    T[1, 2] = np.nan
    with pytest.raises(ValueError, match="finite"):
        maxt_pairs_pvalues([0.0], T, [(0, 1)])


@pytest.mark.parametrize("B", [2, 3, 7, 8, 9, 15, 16, 17, 127, 128, 129, 255, 256, 257, 1000,
                               1023, 1031, 4097, 9999])
def test_std_pairs_is_numpys_std_bit_for_bit(B):
    # the kernel sums in numpy's pairwise order: every size class of that
    # order (< 8, <= 128 with and without a remainder, halves at multiples
    # of 8 above) against numpy.std of each row, and of each pair's differences alone
    from sigtest._engine.maxt_pairs import _std_pairs, _std_pairs_numpy

    rng = np.random.default_rng(B)
    T = rng.normal(size=(7, B)) * rng.uniform(1e-3, 1e3, size=(7, 1))
    T[4] = T[3] + rng.normal(size=B) * 1e-9  # nearly identical systems
    T[5] = T[2]  # identical: sd 0
    T[6] = np.round(T[6])  # ties
    I, J = np.triu_indices(7, 1)
    for n_threads in (1, 3):
        got = _std_pairs(T, I, J, n_threads)
        assert np.array_equal(got, np.std(T[J] - T[I], axis=1, ddof=1))
        assert np.array_equal(got, _std_pairs_numpy(T, I, J))
    # a column-major T (read as its rows' offsets in the flat C-order copy)
    assert np.array_equal(_std_pairs(np.asfortranarray(T), I, J), got)
    alone = [np.std(np.ascontiguousarray(T[j] - T[i]), ddof=1) for i, j in zip(I, J)]
    assert np.array_equal(got, np.array(alone))


@pytest.mark.parametrize("lanes, tile, slab", [(128, 4096, 256), (3, 5, 256), (3, 5, 4),
                                               (1, 1, 1), (4, 8, 0)])
def test_std_pairs_any_pairs_in_runs_and_tiles(lanes, tile, slab, monkeypatch):
    # pairs as runs of one anchor with consecutive others (SIMD lanes), cut
    # at `lanes` and cut into tiles, the tiles in groups of at most `slab`
    # columns of T.T (0: each tile alone): all pairs, both orientations, a
    # baseline in the middle of the systems, repeated and scattered pairs, no pair
    from sigtest._engine import maxt_pairs

    monkeypatch.setattr(maxt_pairs, "_STD_LANES", lanes)
    monkeypatch.setattr(maxt_pairs, "_STD_TILE", tile)
    monkeypatch.setattr(maxt_pairs, "_STD_SLAB", slab)
    rng = np.random.default_rng(11)
    k, B = 12, 257
    T = rng.normal(size=(k, B)) * rng.uniform(1e-3, 1e3, size=(k, 1))
    T[7] = T[2]
    upper = [(i, j) for i in range(k) for j in range(i + 1, k)]
    families = [upper, [(j, i) for i, j in upper[::-1]],
                [(i, 5) for i in range(5)] + [(5, j) for j in range(6, k)],
                [tuple(p) for p in rng.integers(0, k, (60, 2)) if p[0] != p[1]] + upper[:4] * 2]
    for pairs in families:
        I, J = np.array(pairs).T
        want = np.array([np.std(T[j] - T[i], ddof=1) for i, j in pairs])
        for n_threads in (1, 2):
            assert np.array_equal(maxt_pairs._std_pairs(T, I, J, n_threads), want)
    empty = np.zeros(0, dtype=np.int64)
    assert maxt_pairs._std_pairs(T, empty, empty).shape == (0,)


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
@pytest.mark.parametrize("block", [512, 37])
def test_maxt_pairs_many_far_apart_systems(alternative, block, monkeypatch):
    # most pairs far apart (t above every resample's maximum): their counts
    # are 0 and only their maxima are taken, in groups skipped by bounds;
    # scores far from 0 with a small spread (the rounding of T[j] - T[i]);
    # some close pairs, a tied block of systems; the same result as the columns
    from sigtest._engine import maxt_pairs

    monkeypatch.setattr(maxt_pairs, "_COUNT_BLOCK", block)
    rng = np.random.default_rng(7)
    k, B = 70, 600
    level = 1e6 + np.linspace(0.0, 0.3, k)
    level[1::9] = level[::9][:len(level[1::9])] + 1e-4  # some pairs close
    T = level[:, None] + 0.004 * rng.normal(size=(k, B)) * rng.uniform(0.5, 2, (k, 1))
    T[20:23] = T[20]  # identical systems: degenerate pairs
    pairs = np.array([(i, j) for i in range(k) for j in range(i + 1, k)])
    if alternative == "less":  # the pairs oriented for the alternative (large t)
        pairs = pairs[:, ::-1]
    delta = T[pairs[:, 1]].mean(1) - T[pairs[:, 0]].mean(1)
    want = maxt_pvalues(delta, [T[j] - T[i] for i, j in pairs], alternative=alternative)
    for threads in (1, 2):
        got = maxt_pairs_pvalues(delta, T, pairs, alternative=alternative, n_threads=threads)
        for field in _FIELDS:
            assert np.array_equal(getattr(got, field), getattr(want, field), equal_nan=True), \
                field
    assert (want.t > want.max_stat.max()).sum() > len(pairs) // 2  # most pairs far apart


@pytest.mark.parametrize("alternative", ["greater", "less"])
def test_maxt_pairs_zero_maximum_keeps_its_sign(alternative):
    # resamples on which every pair's statistic is 0 (the observed
    # differences): the maximum is +0.0 or -0.0 as the pairs give it in order
    rng = np.random.default_rng(2)
    k, B = 6, 50
    T = rng.normal(size=(k, B))
    T[:, 10] = T[:, 11] = np.arange(k) * 0.25
    pairs = np.array([(i, j) for i in range(k) for j in range(i + 1, k)])
    delta = (pairs[:, 1] - pairs[:, 0]) * 0.25
    want = maxt_pvalues(delta, [T[j] - T[i] for i, j in pairs], alternative=alternative)
    got = maxt_pairs_pvalues(delta, T, pairs, alternative=alternative)
    assert np.array_equal(np.signbit(got.max_stat), np.signbit(want.max_stat))
    assert np.array_equal(got.max_stat, want.max_stat)
    assert np.array_equal(got.step_down, want.step_down)


@pytest.mark.parametrize("scale", [1.0, 1e-12, 1e12])
def test_group_bounds_dominate_every_statistic(scale):
    # the bound of a group and of each of its pairs on a sub-block of lanes
    # (the largest |T - mu| of its systems there) is at least every pair's
    # statistic on every lane, as the kernel computes it
    from sigtest._engine import maxt_pairs

    rng = np.random.default_rng(4)
    k, B = 40, 64
    T = (3.0 + rng.normal(size=(k, B)) * rng.uniform(1e-9, 1, (k, 1))) * scale
    I, J = np.triu_indices(k, 1)
    swap = rng.random(I.size) < 0.3
    I, J = np.where(swap, J, I), np.where(swap, I, J)
    c = (T[J].mean(1) - T[I].mean(1)) * rng.uniform(-2, 2, I.size)
    s = np.std(T[J] - T[I], axis=1, ddof=1)
    mu, g_sys, g_block, g_start, g_add, g_mul, pair = maxt_pairs._groups(T, I, J, c, s)
    lanes = maxt_pairs._MAX_LANES
    for l0 in range(0, B, lanes):
        dev = np.abs(T[:, l0:l0 + lanes] - mu[:, None]).max(axis=1)
        width = maxt_pairs._GROUP_WIDTH
        dev_block = np.array([dev[b:b + width].max() for b in range(0, k, width)])
        for grp in range(g_sys.size):
            i = g_sys[grp]
            for p in range(g_start[grp], g_start[grp + 1]):
                j, cp, sp = int(pair[p, 0]), pair[p, 1], pair[p, 2]
                z = np.abs(((T[j, l0:l0 + lanes] - T[i, l0:l0 + lanes]) - cp) / sp).max()
                assert z <= (dev[i] + dev[j] + g_add[grp]) * g_mul[grp]
                assert z <= (dev[i] + dev_block[g_block[grp]] + g_add[grp]) * g_mul[grp]
