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


# ---------------------------------------------------------- rank intervals
@pytest.mark.parametrize("name,seed,k,B", _cases())
def test_pairwise_t_is_bit_identical_to_numpy(name, seed, k, B):
    theta, T = MATRICES[name](seed, k, B)
    want = ref.pairwise_t(theta, T)
    for n_threads in (1, 3):
        got = ranking.pairwise_t(theta, T, n_threads)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("name,seed,k,B", _cases())
@pytest.mark.parametrize("level", [0.5, 0.95])
def test_rank_intervals_are_bit_identical_to_numpy(name, seed, k, B, level):
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
