"""Rank intervals and the model confidence set: the same bits as the NumPy reference.

The kernels of :mod:`sigtest._engine.ranking_pairs` (tiled sums, a maximum that
skips tiles) and the certified incremental model confidence set must give
exactly what the NumPy formulation gave (``tests/engine/_ranking_reference.py``,
the code they replaced), on random, tied and block-structured score matrices,
for any number of threads.
"""

import _ranking_reference as ref
import numpy as np
import pytest

from sigtest._engine import ranking, ranking_pairs
from sigtest._engine.pairwise_sum import pairwise_program, sequential_program
from sigtest._engine.ranking_mcs import incremental_mcs
from sigtest._engine.ranking_mcs_exact import exact_step, mcs_tolerance, model_confidence_set_exact
from sigtest._engine.ranking_mcs_step import fast_exact_step


# ----------------------------------------------------------------- matrices
def _random(seed, k, B):
    """Correlated normal replicates (shared resamples) around spread scores."""
    rng = np.random.default_rng(seed)
    mu = np.sort(rng.normal(0, 1, k))
    z = rng.standard_normal((B, k)) * 0.6 + rng.standard_normal((B, 1)) * 0.4
    return mu + rng.normal(0, 0.05, k), mu + 0.3 * z


def _binary(seed, k, B, n=40):
    """Means of 0/1 scores of few items: many exact ties within and between systems."""
    rng = np.random.default_rng(seed)
    p = np.linspace(0.4, 0.8, k)
    X = (rng.random((n, k)) < p).astype(np.float64)
    counts = rng.multinomial(n, np.full(n, 1 / n), size=B).astype(np.float64)
    return X.mean(axis=0), counts @ X / n


def _blocks(seed, k, B):
    """Blocks of identical systems, a system shifted by a constant (zero deviation of the
    difference, non-zero difference) and one constant system."""
    theta, T = _random(seed, k, B)
    for j in range(0, k - 2, 3):
        theta[j + 1], T[:, j + 1] = theta[j], T[:, j]
    theta[-2], T[:, -2] = theta[0] + 0.25, T[:, 0] + 0.25
    theta[-1], T[:, -1] = 0.1, 0.1
    return theta, T


def _tied(seed, k, B):
    """Every system twice (exact ties of the scores and of the replicates)."""
    theta, T = _random(seed, (k + 1) // 2, B)
    return np.repeat(theta, 2)[:k], np.repeat(T, 2, axis=1)[:, :k]


MATRICES = {"random": _random, "binary": _binary, "blocks": _blocks, "tied": _tied}
SIZES = [(2, 50), (3, 7), (9, 200), (40, 301), (75, 120)]


def _cases():
    return [(name, seed, k, B) for name in MATRICES for seed, (k, B) in enumerate(SIZES)]


def _layouts(T):
    """``T`` C-contiguous and F-contiguous: NumPy's sums (so the reference's bits) differ."""
    return {"C": np.ascontiguousarray(T), "F": np.asfortranarray(T)}


@pytest.fixture(params=["kernels", "numpy"])
def path(request, monkeypatch):
    """The kernels (forced at every size) or the package's NumPy path of small problems."""
    if request.param == "kernels":
        monkeypatch.setattr(ranking, "NUMPY_MAX_WORK", -1)
    else:
        monkeypatch.setattr(ranking, "NUMPY_MAX_WORK", 10**12)
    return request.param


# ---------------------------------------------------------- rank intervals
@pytest.mark.parametrize("name,seed,k,B", _cases())
def test_pairwise_t_is_bit_identical_to_numpy(name, seed, k, B, path):
    theta, T = MATRICES[name](seed, k, B)
    for X in _layouts(T).values():
        want = ref.pairwise_t(theta, X)
        for n_threads in (1, 3):
            got = ranking.pairwise_t(theta, X, n_threads)
            for g, w in zip(got, want):
                np.testing.assert_array_equal(g, w)


def test_the_layout_of_T_changes_numpy_bits_and_both_are_followed(path):
    theta, T = _random(3, 30, 2000)
    c, f = (ref.pairwise_t(theta, X)[1] for X in _layouts(T).values())
    assert not np.array_equal(c, f)  # the reference sums differently (the test means something)
    for X, want in zip(_layouts(T).values(), (c, f)):
        np.testing.assert_array_equal(ranking.pairwise_t(theta, X)[1], want)


@pytest.mark.parametrize("n", [1, 5, 8, 9, 127, 128, 129, 136, 255, 1000, 9999, 20001])
def test_summation_programs_give_numpy_sums(n):
    rng = np.random.default_rng(n)
    x = rng.standard_normal(n) * 10.0 ** rng.integers(-3, 4, n)  # rounding shows the order

    def run(program):
        stack = []
        for op in program.ops:
            if op < 0:
                right = stack.pop()
                stack.append(stack.pop() + right)
                continue
            lo, m = program.lo[op], program.n[op]
            if program.seq[op]:
                total = 0.0
                for v in x[lo:lo + m]:
                    total += v
            else:
                part = list(x[lo:lo + 8])
                stop = lo + m - m % 8
                for b in range(lo + 8, stop):
                    part[(b - lo) % 8] += x[b]
                total = ((part[0] + part[1]) + (part[2] + part[3])) + (
                    (part[4] + part[5]) + (part[6] + part[7]))
                for v in x[stop:lo + m]:
                    total += v
            stack.append(total)
        return stack[0]

    assert run(pairwise_program(n)) == np.sum(x)
    column = np.zeros((n, 2))
    column[:, 0] = x
    assert run(sequential_program(n)) == column.sum(axis=0)[0]  # along a strided axis


@pytest.mark.parametrize("name,seed,k,B", _cases())
@pytest.mark.parametrize("level", [0.5, 0.95])
def test_rank_intervals_are_bit_identical_to_numpy(name, seed, k, B, level, path):
    theta, T = MATRICES[name](seed, k, B)
    want = ref.rank_intervals(theta, T, level)
    got = ranking.rank_intervals(theta, T, level, n_threads=2)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


def test_max_t_skips_tiles_yet_finds_every_maximum():
    # 300 systems: several tiles of the maximum, most of them skipped
    theta, T = _random(11, 300, 400)
    diff, sd, max_t = ref.pairwise_t(theta, T)
    got = ranking_pairs.pair_max_t(np.ascontiguousarray(T), theta, diff, sd)
    np.testing.assert_array_equal(got, max_t)
    # the start of the search (one pair per resample) is below the maximum somewhere
    start = ranking_pairs._probe(T, theta, diff, np.where(sd > 0, sd, np.inf))
    assert np.all(start <= max_t) and np.any(start < max_t)


def test_row_parts_cover_the_rows_once():
    for k, n in [(5, 4), (100, 2), (1000, 8), (64, 3)]:
        parts = ranking_pairs._row_parts(k, n, 8)
        assert parts[0][0] == 0 and parts[-1][1] == k
        assert all(a[1] == b[0] for a, b in zip(parts, parts[1:]))
        assert all(s % 8 == 0 for s, _ in parts)


# ------------------------------------------------------ model confidence set
@pytest.mark.parametrize("name,seed,k,B", _cases())
@pytest.mark.parametrize("level", [0.5, 0.95])
def test_mcs_is_bit_identical_to_numpy(name, seed, k, B, level, path):
    theta, T = MATRICES[name](seed, k, B)
    order = np.random.default_rng(seed).permutation(k)
    for X in _layouts(T).values():
        want = ref.model_confidence_set(theta, X, level, tie_order=order)
        got = ranking.model_confidence_set(theta, X, level, tie_order=order)
        np.testing.assert_array_equal(got[0], want[0])
        np.testing.assert_array_equal(got[1], want[1])
        exact = model_confidence_set_exact(theta, X, level, tie_order=order)
        np.testing.assert_array_equal(exact[1], want[1])


def _assert_mcs_mostly_from_bounds(theta, T):
    """The incremental set is the reference's, and fewer than half its steps were exact."""
    in_set, pvalues, n_exact = incremental_mcs(theta, T, 0.95)
    want = ref.model_confidence_set(theta, T, 0.95)
    np.testing.assert_array_equal(in_set, want[0])
    np.testing.assert_array_equal(pvalues, want[1])
    n_steps = int((~in_set).sum()) + 1
    assert n_exact < n_steps / 2


def test_mcs_decides_most_steps_from_bounds():
    # 120 systems of spread scores, weakly correlated: the early eliminations are clear calls
    rng = np.random.default_rng(5)
    mu = np.linspace(0, 10, 120)
    theta, T = mu + rng.normal(0, 0.01, 120), mu + 0.2 * rng.standard_normal((2000, 120))
    _assert_mcs_mostly_from_bounds(theta, T)


def test_mcs_ties_go_to_the_exact_steps_and_follow_tie_order():
    theta, T = _tied(2, 12, 300)
    for order in (np.arange(12), np.arange(12)[::-1]):
        got = incremental_mcs(theta, T, 0.99, tie_order=order)
        want = ref.model_confidence_set(theta, T, 0.99, tie_order=order)
        np.testing.assert_array_equal(got[0], want[0])
        np.testing.assert_array_equal(got[1], want[1])
        assert got[2] > 0


@pytest.mark.parametrize("name,seed,k,B", _cases())
def test_fast_exact_step_is_the_numpy_step(name, seed, k, B):
    theta, T = MATRICES[name](seed, k, B)
    if B < 2 or k < 2:
        pytest.skip("a step needs two resamples and two systems")
    tol = mcs_tolerance(theta)
    TT = np.ascontiguousarray(T.T)
    rng = np.random.default_rng(seed)
    for m in sorted({2, k, max(2, k // 2)}):
        idx = np.sort(rng.choice(k, m, replace=False))
        t, t_max, p = fast_exact_step(theta, TT, idx, tol)
        t0, t_max0, p0 = exact_step(theta, T, idx, tol)
        np.testing.assert_array_equal(t, t0)
        assert (t_max, p) == (t_max0, p0)


def test_mcs_of_strongly_correlated_systems_uses_the_covariance_bounds():
    # a common factor: the triangle inequality around sd(T_i) decides nothing, the
    # covariance matrix (built once the exact steps have cost about as much) does
    rng = np.random.default_rng(8)
    k, B = 150, 600
    z = np.sqrt(0.2) * rng.standard_normal((B, k)) + np.sqrt(0.8) * rng.standard_normal((B, 1))
    mu = np.linspace(0, 3, k)
    theta, T = mu + rng.normal(0, 0.002, k), mu + 0.02 * z
    _assert_mcs_mostly_from_bounds(theta, T)
