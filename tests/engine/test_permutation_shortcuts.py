"""Shortcuts of the permutation engine give exactly what the plain code gave.

The exact-test attempt is rejected from the merged discordant rows before the
groups are built, the discordant rows are computed once per paired data, rows
are grouped through a projection, and the permuted sums are filled in column
by column: each is checked here against the plain computation it replaces.
"""

import numpy as np
import pytest

from _naive_engine import ACC, F1
from sigtest._engine import resampling as R
from sigtest._engine.resampling import permutation as RP
from sigtest._engine.resampling import rows as RR
from sigtest._engine import prepare_paired


def _hard(n=400, k=4, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    a = np.where(rng.random(n) < 0.6, y, rng.integers(0, k, n))
    b = np.where(rng.random(n) < 0.7, y, rng.integers(0, k, n))
    return y, a, b


def _merge_rows_plain(M, counts):
    """The former ``_merge_rows``: ``np.unique(axis=0)``, first-occurrence order."""
    _, first, inverse = np.unique(M, axis=0, return_index=True, return_inverse=True)
    order = np.argsort(first)
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    merged = np.bincount(rank[inverse.ravel()], weights=counts, minlength=order.size)
    return M[np.sort(first)], np.rint(merged).astype(np.int64)


def _same_bits(x, y):
    x, y = np.asarray(x), np.asarray(y)
    return x.shape == y.shape and x.dtype == y.dtype and np.array_equal(
        x.view(np.uint8), y.view(np.uint8))


@pytest.mark.parametrize("seed", range(5))
def test_merge_rows_equals_unique_along_rows(seed):
    rng = np.random.default_rng(seed)
    M = rng.integers(-2, 3, (200, 6)).astype(np.float64)  # many equal rows
    M[::7] = M[3]
    M[5, 0] = -0.0 if M[3, 0] == 0 else M[5, 0]  # -0.0 equals 0.0, as in np.unique
    counts = rng.integers(1, 9, 200).astype(np.float64)
    got, want = RR._merge_rows(M, counts), _merge_rows_plain(M, counts)
    assert _same_bits(got[1], want[1]) and np.array_equal(got[0], want[0])


def test_merge_rows_falls_back_on_a_projection_collision(monkeypatch):
    # a zero probe projects every row to 0: the exact check must catch it
    monkeypatch.setattr(RR, "_PROBE", np.zeros_like(RR._PROBE))
    M = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0], [np.nan, 1.0], [2.0, 2.0]])
    counts = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    got, want = RR._merge_rows(M, counts), _merge_rows_plain(M, counts)
    assert np.array_equal(got[0], want[0], equal_nan=True)
    assert np.array_equal(got[1], want[1])
    assert got[1].tolist() == [4, 2, 4, 5]  # the two [1, 0] rows merged, nothing else


def _exact_plain(paired, max_patterns, max_seconds):
    """The pattern-count and time checks as the former code made them (np.unique groups)."""
    discordant = RP.discordant_rows(paired)
    D, weights = discordant.D, discordant.weights
    groups, inverse = np.unique(D, axis=0, return_inverse=True)
    counts = np.rint(np.bincount(inverse.ravel(), weights=weights)).astype(np.int64)
    limit = min(max_patterns, RP._MAX_EXACT_CELLS // paired.n_statistics)
    n_patterns = int(np.prod((counts + 1).astype(object)))
    seconds = n_patterns * (groups.shape[0] * RP._COST_PATTERN_GROUP
                            + paired.n_statistics * RP._COST_AGGREGATE)
    return n_patterns <= limit and seconds <= (np.inf if max_seconds is None else max_seconds)


@pytest.mark.parametrize("n", [12, 18, 40])
def test_early_rejection_of_the_enumeration_matches_the_full_check(n):
    y, a, b = _hard(n, k=3, seed=n)
    paired = prepare_paired(y, a, b, F1)  # several varying columns: no lattice
    discordant = RP.discordant_rows(paired)
    D, weights = discordant.D, discordant.weights
    counts = np.rint(np.bincount(np.unique(D, axis=0, return_inverse=True)[1].ravel(),
                                 weights=weights)).astype(np.int64)
    P = int(np.prod(counts + 1))
    for max_patterns in (1, P - 1, P, P + 1, 2**20):
        for max_seconds in (None, 1e-9, 1.0):
            want = _exact_plain(paired, max(max_patterns, 1), max_seconds)
            got = R.exact_permutation_sums(paired, max(max_patterns, 1),
                                           max_seconds=max_seconds)
            assert (got is not None) == want, (max_patterns, max_seconds, P)


def test_enumeration_that_fits_is_the_plain_pattern_sum():
    y, a, b = _hard(14, k=3, seed=3)
    paired = prepare_paired(y, a, b, F1)
    sums_a, sums_b, prob = R.exact_permutation_sums(paired)
    assert prob.sum() == pytest.approx(1.0)
    # every pattern's probability is prod_g Binom(n_g, 1/2) pmf: the number of
    # patterns is prod_g (n_g + 1)
    discordant = RP.discordant_rows(paired)
    D, weights = discordant.D, discordant.weights
    counts = np.rint(np.bincount(np.unique(D, axis=0, return_inverse=True)[1].ravel(),
                                 weights=weights)).astype(np.int64)
    assert prob.shape[0] == int(np.prod(counts + 1))


def test_add_swapped_is_the_full_operation_bit_for_bit():
    rng = np.random.default_rng(0)
    sums_a = np.array([-0.0, 3.0, 0.0, 7.5, -2.0])
    sums_b = np.array([0.0, -0.0, 4.0, 1.0, 2.0])
    cols = np.array([1, 3])
    red = rng.integers(-5, 6, (50, 2)).astype(np.float64)
    swapped = np.zeros((50, 5))
    swapped[:, cols] = red
    got_a, got_b = RP._add_swapped((sums_a, sums_b), 50, cols, red)
    assert _same_bits(got_a, sums_a + swapped) and _same_bits(got_b, sums_b - swapped)
    none_a, none_b = RP._add_swapped((sums_a, sums_b), 3, cols[:0], None)
    zero = np.zeros((3, 5))
    assert _same_bits(none_a, sums_a + zero) and _same_bits(none_b, sums_b - zero)


@pytest.mark.parametrize("metric", [ACC, F1])
def test_cached_discordant_rows_follow_the_paired_data(metric):
    # two paired data in alternation: each call must use its own rows
    p1 = prepare_paired(*_hard(300, seed=1), metric)
    p2 = prepare_paired(*_hard(300, seed=2), metric)
    fresh = []
    for p in (p1, p2):
        fresh.append(R.permutation_sums(p, 300, seed=4))
    for p, want in [(p1, fresh[0]), (p2, fresh[1]), (p1, fresh[0]), (p2, fresh[1])]:
        R.monte_carlo_permutation_seconds(p, 300)
        got = R.permutation_sums(p, 300, seed=4)
        assert _same_bits(got[0], want[0]) and _same_bits(got[1], want[1])
    assert not np.array_equal(fresh[0][0], fresh[1][0])


@pytest.mark.parametrize("metric", [ACC, F1])
def test_discordant_rows_passed_in_give_the_same_bits(metric):
    # the rows are an argument now (no module-level cache): passing them changes nothing,
    # and rows of other paired data are a caller bug
    p1 = prepare_paired(*_hard(300, seed=1), metric)
    p2 = prepare_paired(*_hard(300, seed=2), metric)
    d1 = RP.discordant_rows(p1)
    assert not hasattr(RP, "_LAST_DISCORDANT")
    want = R.permutation_sums(p1, 300, seed=4)
    got = R.permutation_sums(p1, 300, seed=4, discordant=d1)
    assert _same_bits(got[0], want[0]) and _same_bits(got[1], want[1])
    got = R.resampled_deltas(p1, 300, 4, scheme="permutation", discordant=d1)
    assert _same_bits(got, R.resampled_deltas(p1, 300, 4, scheme="permutation"))
    assert (R.monte_carlo_permutation_seconds(p1, 300, discordant=d1)
            == R.monte_carlo_permutation_seconds(p1, 300))
    for max_patterns in (2**10, 2**20):
        plain = R.exact_permutation_sums(p1, max_patterns)
        given = R.exact_permutation_sums(p1, max_patterns, discordant=d1)
        assert (plain is None) == (given is None)
        if plain is not None:
            assert all(_same_bits(x, y) for x, y in zip(plain, given))
    with pytest.raises(ValueError, match="discordant"):
        R.permutation_sums(p2, 300, seed=4, discordant=d1)
    with pytest.raises(ValueError, match="discordant"):
        R.resampled_deltas(p1, 300, 4, scheme="bootstrap", discordant=d1)


def test_paired_permutation_computes_the_discordant_rows_once(monkeypatch):
    from sigtest import PairedPermutation

    calls = []
    original = RP.discordant_rows

    def counting(paired):
        calls.append(paired)
        return original(paired)

    monkeypatch.setattr(RP, "discordant_rows", counting)
    y, a, b = _hard(400, k=4, seed=5)
    for exact in ("auto", False):
        calls.clear()
        PairedPermutation(n_resamples=299, exact=exact, random_state=0).test(
            y, a, b, metric=F1)
        assert len(calls) == 1, exact
