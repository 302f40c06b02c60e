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


@pytest.mark.parametrize("lanes, tile", [(128, 4096), (3, 5), (1, 1)])
def test_std_pairs_any_pairs_in_runs_and_tiles(lanes, tile, monkeypatch):
    # pairs as runs of one anchor with consecutive others (SIMD lanes), cut
    # at `lanes` and cut into tiles: all pairs, both orientations, a baseline
    # in the middle of the systems, repeated and scattered pairs, no pair
    from sigtest._engine import maxt_pairs

    monkeypatch.setattr(maxt_pairs, "_STD_LANES", lanes)
    monkeypatch.setattr(maxt_pairs, "_STD_TILE", tile)
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
