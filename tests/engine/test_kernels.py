"""The numba kernels against their NumPy twins, and their determinism."""

import json
import math
import os
import subprocess
import sys

import numba
import numpy as np
import pytest
from scipy import stats as sps
from scipy.stats import binom

from sigtest._engine import kernels as K
from sigtest._engine import kernels_counts as KC
from sigtest._engine import kernels_exact as KE
from sigtest._engine import kernels_numpy as P

pytestmark = pytest.mark.skipif(not K.NUMBA_ENABLED, reason="numba JIT disabled")


def _keys(n, seed=0):
    return np.random.SeedSequence(seed).generate_state(n, dtype=np.uint64)


# ---------------------------------------------------------------- RNG premises
def test_splitmix64_known_answer():
    # Reference SplitMix64 (Vigna's splitmix64.c) from state 0: first output.
    assert P.splitmix64(np.array([P.GOLDEN]))[0] == np.uint64(0xE220A8397B1DCDAF)


def test_indices_are_uniform():
    # 70k draws over 7 bins: a chi-square test; p < 1e-4 would flag a bias
    # (Lemire's rejection makes every index exactly floor(2**32 / 7) / (2**32 - 4) likely).
    idx = P._indices(_keys(10), 7000, 7).ravel()
    assert idx.min() == 0 and idx.max() == 6
    assert sps.chisquare(np.bincount(idx, minlength=7)).pvalue > 1e-4


def _naive_draws(z, m, n):
    """Lemire (2019) with rejection on the 32-bit halves, written with Python ints.

    The first ``m`` draws in ``[0, n)`` of the words after counter ``z``, the
    half each came from (0 low, 1 high), and the counter of the last word
    used (``z`` when ``m == 0``).
    """
    out, halves, thr = [], [], (1 << 32) % n
    while len(out) < m:
        z = (int(z) + 0x9E3779B97F4A7C15) & (2**64 - 1)
        w = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & (2**64 - 1)
        w = ((w ^ (w >> 27)) * 0x94D049BB133111EB) & (2**64 - 1)
        w ^= w >> 31
        for half, h in enumerate((w & 0xFFFFFFFF, w >> 32)):
            p = h * n
            if p & 0xFFFFFFFF >= thr and len(out) < m:
                out.append(p >> 32)
                halves.append(half)
    return out, halves, int(z)


def _naive_indices(key, m, n):
    return _naive_draws(key, m, n)[0]


def _naive_segment_rows(key, m, n, seg):
    """The segment path's draws, naively: Multinomial(m, sizes / n) over the
    ``seg``-row segments by conditional binomials (the documented sampler,
    ``P.binomial``, from the key's counter), then each segment's draws from
    a fresh word, in segment order. Returns the rows and their word halves."""
    sizes = [min(seg, n - lo) for lo in range(0, n, seg)]
    z, left, remaining, counts = int(key), n, m, []
    for size in sizes[:-1]:
        k, z = P.binomial(remaining, size / left, z)
        counts.append(k)
        remaining -= k
        left -= size
    counts.append(remaining)
    rows, halves = [], []
    for j, (size, c) in enumerate(zip(sizes, counts)):
        drawn, half, z = _naive_draws(z, c, size)
        rows += [j * seg + i for i in drawn]
        halves += half
    return rows, halves


@pytest.mark.parametrize("n", [1, 3, 7, 1000, 2**31 - 1, 3 * 2**30, 2**32 - 1])
def test_indices_equal_naive_lemire(n):
    # 3 * 2**30 rejects a quarter of the candidates: the rejection path is exercised
    keys = _keys(4, n % 1000)
    got = P._indices(keys, 301, n)
    for b in range(4):
        assert got[b].tolist() == _naive_indices(keys[b], 301, n)
    assert got.min() >= 0 and got.max() < n


def test_indices_reject_too_many_rows():
    with pytest.raises(ValueError, match="rows"):
        P._indices(_keys(1), 3, 2**32)


@numba.njit(cache=False)
def _jit_binomials(ns, ps, key):
    out = np.empty(ns.shape[0], dtype=np.int64)
    z = key
    for i in range(ns.shape[0]):
        out[i], z = K._binomial(ns[i], ps[i], z)
    return out, z


def _py_binomials(ns, ps, key):
    out = np.empty(len(ns), dtype=np.int64)
    z = int(key)
    for i, (n, p) in enumerate(zip(ns, ps)):
        out[i], z = P.binomial(int(n), float(p), z)
    return out, z


def test_binomial_twin_equals_jitted():
    rng = np.random.default_rng(8)
    ns = rng.choice([0, 1, 2, 9, 25, 300, 10_000, 2_000_000], 4000)
    ps = rng.choice([0.0, 1.0, 0.5, 1e-4, 0.03, 0.3, 0.77, 0.999], 4000)
    got, z_jit = _jit_binomials(ns.astype(np.int64), ps, np.uint64(12345))
    want, z_py = _py_binomials(ns, ps, 12345)
    np.testing.assert_array_equal(got, want)
    assert int(z_jit) == z_py  # same number of uniforms consumed


@pytest.mark.parametrize(
    "n,p",
    [(7, 0.3), (40, 0.2), (49, 0.2), (51, 0.2), (1000, 0.5), (3000, 0.97), (200_000, 0.013)],
)
def test_binomial_sampler_distribution(n, p):
    # 40k draws: chi-square against the exact pmf on bins with expected
    # count >= 5 (tails pooled). A correct sampler fails with prob 1e-4;
    # a slip in the BTRS constants or the inversion recurrence distorts the
    # pmf by far more than the ~1 % resolution of 40k draws.
    draws, _ = _jit_binomials(np.full(40_000, n, np.int64), np.full(40_000, p), np.uint64(n))
    assert draws.min() >= 0 and draws.max() <= n
    lo, hi = binom.ppf(1e-4, n, p), binom.ppf(1 - 1e-4, n, p)
    edges = np.arange(lo, hi + 1)
    expected = np.diff(np.concatenate([[0.0], binom.cdf(edges, n, p)[:-1], [1.0]])) * 40_000
    observed = np.bincount(np.searchsorted(edges, draws, side="left").clip(0, edges.size - 1),
                           minlength=edges.size)
    # pool bins so that every expected count is >= 5
    obs_p, exp_p, acc_o, acc_e = [], [], 0.0, 0.0
    for o, e in zip(observed, expected):
        acc_o, acc_e = acc_o + o, acc_e + e
        if acc_e >= 5:
            obs_p.append(acc_o), exp_p.append(acc_e)
            acc_o = acc_e = 0.0
    obs_p[-1] += acc_o
    exp_p[-1] += acc_e
    assert sps.chisquare(obs_p, exp_p).pvalue > 1e-4
    assert abs(draws.mean() - n * p) < 5 * np.sqrt(n * p * (1 - p) / 40_000)


# ---------------------------------------------------------------- twin == jit
@pytest.mark.parametrize("s", [1, 2, 5])
@pytest.mark.parametrize("parallel", [False, True])
@pytest.mark.parametrize("n,m", [(1, 3), (37, 37), (500, 120), (9, 17)])
def test_bootstrap_generic_twin(s, parallel, n, m):
    stats = np.random.default_rng(n + s).normal(size=(n, s))
    keys = _keys(300, s)
    np.testing.assert_array_equal(
        K.bootstrap_sums_generic(stats, m, keys, parallel=parallel),
        P.bootstrap_sums_generic(stats, m, keys),
    )


def _count_kernel(stats, m, keys, parts):
    """``count_sums_range`` on one stratum, resamples computed in ``parts`` ranges."""
    B = keys.shape[0]
    out = np.zeros((B, stats.shape[1]))
    offsets = np.array([0, stats.shape[0]], dtype=np.int64)
    sizes = np.array([m], dtype=np.int64)
    cuts = np.linspace(0, B, parts + 1).astype(np.int64)
    for lo, hi in zip(cuts[:-1], cuts[1:]):
        KC.count_sums_range(stats, keys.reshape(1, -1), np.zeros(0, dtype=np.int64), offsets,
                            sizes, out, lo, hi)
    return out


@pytest.mark.parametrize("s", [1, 2, 5])
@pytest.mark.parametrize("parts", [1, 3])
@pytest.mark.parametrize("n,m", [(1, 3), (37, 37), (3, 700), (9, 17), (300, 80)])
def test_count_kernel_twin(s, parts, n, m):
    # compare's count path on one stratum; (3, 700): uint8 counts wrap (> 255)
    # and the resample is redone with int32 counts; 300 keys: a partial block
    # of 8 lanes at the end; 3 parts: ranges that do not start on a block
    stats = np.random.default_rng(n + s).normal(size=(n, s))
    keys = _keys(300, s)
    got = _count_kernel(stats, m, keys, parts)
    np.testing.assert_array_equal(got, P._bootstrap_sums(stats, m, keys, counted=True))
    # the documented draws, summed naively in draw order (another order: rounding only)
    want = np.array([stats[_naive_indices(k, m, n)].sum(axis=0) for k in keys[:5]])
    np.testing.assert_allclose(got[:5], want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("s", [1, 2, 3])
@pytest.mark.parametrize("n,m,seg", [(23, 23, 4), (40, 7, 8), (9, 300, 2), (50, 50, 50),
                                     (17, 0, 4), (1, 5, 1)])
def test_segment_kernel_twin_and_naive_draws(s, n, m, seg):
    # the segment path with small segments on small rows (the dispatch takes it
    # beyond 2**15 rows): the last segment shorter (23 = 5 * 4 + 3), more draws
    # than rows, one segment, m = 0; 70 keys in blocks of 32 (a partial last
    # block), 1 or 128: the block size does not change the sums
    stats = np.random.default_rng(n + s).normal(size=(n, s))
    keys = _keys(70, s + 1)
    kernel = K._bootstrap_sums_segments
    got = kernel(stats, np.int64(m), keys, np.int64(seg), np.int64(32))
    np.testing.assert_array_equal(got, P._bootstrap_sums(stats, m, keys, seg=seg))
    for block in (1, 128):
        np.testing.assert_array_equal(
            kernel(stats, np.int64(m), keys, np.int64(seg), np.int64(block)), got)
    for b in (0, 33, 69):  # the documented draws rebuilt naively, two chains in draw order
        rows, halves = _naive_segment_rows(keys[b], m, n, seg)
        assert len(rows) == m
        twin_rows, twin_high = P._segment_rows(keys[b:b + 1], m, n, seg)
        assert twin_rows[0].tolist() == rows and twin_high[0].tolist() == [h == 1 for h in halves]
        chains = np.zeros((2, s))
        for i, h in zip(rows, halves):
            chains[h] = chains[h] + stats[i]
        np.testing.assert_array_equal(got[b], chains[0] + chains[1])


@pytest.mark.parametrize("parallel", [False, True])
def test_bootstrap_segment_path_dispatch_and_naive_draws(parallel):
    # 70,001 rows: 9 segments of 8192 rows, the last one of 4,465; 37 keys: a
    # partial block; the two-column rows and one of their columns alone draw the
    # same rows (the rule depends on n only: a pair's systems called apart)
    n = 70_001
    stats = np.random.default_rng(3).normal(size=(n, 2))
    keys = _keys(37, 5)
    assert P.segment_path(n) and not P.segment_path(P.SEGMENT_MIN_ROWS)
    got = K.bootstrap_sums_generic(stats, n, keys, parallel=parallel)
    np.testing.assert_array_equal(got, P.bootstrap_sums_generic(stats, n, keys))
    np.testing.assert_array_equal(
        K.bootstrap_sums_generic(np.ascontiguousarray(stats[:, 1:]), n, keys), got[:, 1:])
    for b in (0, 36):  # the documented draws, summed naively
        want = stats[_naive_segment_rows(keys[b], n, n, P.SEGMENT_ROWS)[0]].sum(axis=0)
        np.testing.assert_allclose(got[b], want, rtol=1e-12)
    m = 500  # fewer draws than rows (sample_size)
    np.testing.assert_array_equal(K.bootstrap_sums_generic(stats, m, keys[:3], parallel=parallel),
                                  P.bootstrap_sums_generic(stats, m, keys[:3]))


def test_bootstrap_non_finite_rows_only_where_drawn():
    # rows are gathered on every path: only the resamples that draw the
    # infinite row are infinite (a count path would make 0 * inf = NaN)
    n = 40_000
    stats = np.random.default_rng(4).normal(size=(n, 2))
    stats[7, 1] = np.inf
    keys = _keys(12, 6)
    assert P.segment_path(n)
    got = K.bootstrap_sums_generic(stats, n, keys)
    np.testing.assert_array_equal(got, P.bootstrap_sums_generic(stats, n, keys))
    drew = np.array([7 in P._segment_rows(keys[b:b + 1], n, n)[0][0] for b in range(12)])
    assert 0 < drew.sum() < 12
    np.testing.assert_array_equal(np.isinf(got[:, 1]), drew)
    assert np.isfinite(got[:, 0]).all()


@pytest.mark.parametrize("s", [1, 6])
@pytest.mark.parametrize("parallel", [False, True])
@pytest.mark.parametrize("rows", [1, 300, 2000])
def test_weighted_sums_twin_and_naive_sum(s, parallel, rows):
    rng = np.random.default_rng(rows + s)
    weights, stats = rng.standard_exponential((50, rows)), rng.normal(size=(rows, s))
    got = KE.weighted_sums(weights, stats, parallel=parallel)
    np.testing.assert_array_equal(got, P.weighted_sums(weights, stats))
    naive = np.zeros((50, s))  # the row-order sum written out with Python floats
    for b in range(50):
        for j in range(s):
            total = 0.0
            for r in range(rows):
                total += float(weights[b, r]) * float(stats[r, j])
            naive[b, j] = total
    np.testing.assert_array_equal(got, naive)


@pytest.mark.parametrize("s", [1, 3])
@pytest.mark.parametrize("parallel", [False, True])
@pytest.mark.parametrize("d", [1, 63, 64, 65, 300])
def test_permutation_generic_twin(s, parallel, d):
    diff = np.random.default_rng(d).normal(size=(d, s))
    keys = _keys(300, d)
    np.testing.assert_array_equal(
        K.permutation_sums_generic(diff, keys, parallel=parallel),
        P.permutation_sums_generic(diff, keys),
    )


@pytest.mark.parametrize("parallel", [False, True])
def test_bootstrap_cells_twin(parallel):
    rng = np.random.default_rng(3)
    cell_stats = rng.random((6, 4))
    counts = np.array([5, 1, 3000, 2, 70, 1], dtype=np.int64)
    keys = _keys(200, 1)
    for m in (1, 46, 3079, 100_000):
        np.testing.assert_array_equal(
            K.bootstrap_sums_cells(cell_stats, counts, m, keys, parallel=parallel),
            P.bootstrap_sums_cells(cell_stats, counts, m, keys),
        )


@pytest.mark.parametrize("parallel", [False, True])
def test_permutation_cells_twin(parallel):
    rng = np.random.default_rng(4)
    diff = rng.normal(size=(5, 3))
    counts = np.array([1, 2, 500, 31, 100_000], dtype=np.int64)
    keys = _keys(200, 2)
    np.testing.assert_array_equal(
        K.permutation_sums_cells(diff, counts, keys, parallel=parallel),
        P.permutation_sums_cells(diff, counts, keys),
    )


def test_one_cells_kernel_serves_both_tests_with_the_twins_bits():
    # _cells_into replaced _bootstrap_cells_into and _permutation_cells_into (one
    # compiled sampler for compare's default tests): on random cell sets crossing
    # every branch (empty and single cells, zero counts, the popcount up to 512
    # items and the general sampler beyond, inversion and BTRS) both uses equal
    # the NumPy twins bit for bit, with one signature for both
    rng = np.random.default_rng(11)
    for trial in range(60):
        C = int(rng.integers(1, 12))
        s = int(rng.integers(1, 4))
        rows = rng.normal(size=(C, s))
        counts = rng.choice([0, 1, 5, 63, 64, 65, 511, 512, 513, 2000, 40_000], size=C)
        counts = counts.astype(np.int64)
        keys = _keys(int(rng.integers(1, 60)), trial)
        np.testing.assert_array_equal(K._permutation_sums_cells(rows, counts, keys),
                                      P.permutation_sums_cells(rows, counts, keys))
        counts = np.maximum(counts, 1)
        m = int(rng.choice([1, 7, int(counts.sum()), 3 * int(counts.sum())]))
        np.testing.assert_array_equal(
            K._bootstrap_sums_cells(rows, counts, np.int64(m), keys),
            P.bootstrap_sums_cells(rows, counts, m, keys))
    assert len(K._cells_into.signatures) == 1


def _exact_inputs():
    diff = np.random.default_rng(5).normal(size=(3, 2))
    counts = np.array([3, 1, 4], dtype=np.int64)
    pmf = np.concatenate([binom.pmf(np.arange(c + 1), c, 0.5) for c in counts])
    offsets = np.array([0, 4, 6], dtype=np.int64)
    return diff, counts, pmf, offsets


@pytest.mark.parametrize("parallel", [False, True])
def test_exact_twin(parallel):
    args = _exact_inputs()
    got = KE.exact_swap_sums(*args, parallel=parallel)
    want = P.exact_swap_sums(*args)
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])
    assert got[0].shape == (4 * 2 * 5, 2)
    assert got[1].sum() == pytest.approx(1.0, abs=1e-12)


# ------------------------------------------------------------- determinism
def test_results_do_not_depend_on_thread_count():
    rng = np.random.default_rng(6)
    stats = rng.random((400, 3))
    counts = np.array([10, 200, 3, 187], dtype=np.int64)
    keys = _keys(1500)
    before = numba.get_num_threads()
    runs = []
    try:
        for threads in sorted({1, min(2, numba.config.NUMBA_NUM_THREADS)}):
            numba.set_num_threads(threads)
            runs.append([
                K.bootstrap_sums_generic(stats, 400, keys, parallel=True),
                K.permutation_sums_generic(stats, keys, parallel=True),
                K.bootstrap_sums_cells(stats[:4], counts, 400, keys, parallel=True),
                K.permutation_sums_cells(stats[:4], counts, keys, parallel=True),
            ])
    finally:
        numba.set_num_threads(before)
    serial = [
        K.bootstrap_sums_generic(stats, 400, keys),
        K.permutation_sums_generic(stats, keys),
        K.bootstrap_sums_cells(stats[:4], counts, 400, keys),
        K.permutation_sums_cells(stats[:4], counts, keys),
    ]
    for run in runs:
        for got, want in zip(run, serial):
            np.testing.assert_array_equal(got, want)


def test_segment_path_does_not_depend_on_thread_count():
    # the dispatch sizes the blocks of resamples by the thread count: 1 and 2
    # threads (blocks of 10 and 5 resamples here) and the serial kernel
    # (blocks of 128) give the same sums
    n = 40_000
    stats = np.random.default_rng(8).normal(size=(n, 1))
    keys = _keys(40, 9)
    before = numba.get_num_threads()
    runs = []
    try:
        for threads in sorted({1, min(2, numba.config.NUMBA_NUM_THREADS)}):
            numba.set_num_threads(threads)
            runs.append(K.bootstrap_sums_generic(stats, n, keys, parallel=True))
    finally:
        numba.set_num_threads(before)
    serial = K.bootstrap_sums_generic(stats, n, keys)
    for got in runs:
        np.testing.assert_array_equal(got, serial)


_SUBPROCESS = r"""
import json, numpy as np
from sigtest._engine import kernels as K, kernels_numpy as P
rng = np.random.default_rng(7)
stats = rng.random((23, 2)); keys = np.random.SeedSequence(1).generate_state(20, dtype=np.uint64)
counts = np.array([3, 9, 1], dtype=np.int64)
raw = [K._bootstrap_sums_segments(stats, np.int64(23), keys, np.int64(4), np.int64(3)),
       K._permutation_sums_generic(stats, keys),
       K._bootstrap_sums_cells(stats[:3], counts, np.int64(13), keys),
       K._permutation_sums_cells(stats[:3], counts, keys)]
twin = [P._bootstrap_sums(stats, 23, keys, seg=4), P.permutation_sums_generic(stats, keys),
        P.bootstrap_sums_cells(stats[:3], counts, 13, keys),
        P.permutation_sums_cells(stats[:3], counts, keys)]
raw.append(K._bootstrap_sums_generic(stats, np.int64(5), keys))  # the gather path
twin.append(P.bootstrap_sums_generic(stats, 5, keys))
from sigtest._engine import kernels_counts as KC  # compare's count path, one stratum
counted = np.zeros((20, 2))
KC.count_sums_range(stats, keys.reshape(1, -1), np.zeros(0, dtype=np.int64),
                    np.array([0, 23]), np.array([23]), counted, 0, 20)
raw.append(counted)
twin.append(P._bootstrap_sums(stats, 23, keys, counted=True))
dispatch = K.bootstrap_sums_generic(stats, 23, keys, parallel=True)
print(json.dumps({"enabled": K.NUMBA_ENABLED,
                  "equal": [bool(np.array_equal(r, t)) for r, t in zip(raw, twin)],
                  "dispatch": dispatch.tolist()}))
"""


@pytest.mark.parametrize("env", ["NUMBA_DISABLE_JIT", "SIGTEST_DISABLE_NUMBA"])
def test_disabled_jit_runs_twins_and_python_kernels(env):
    # Under NUMBA_DISABLE_JIT=1 the loop kernels run as plain Python: they
    # must equal the (independently written, vectorised) twins. Either
    # variable makes the dispatch use the twins.
    proc = subprocess.run(
        [sys.executable, "-c", _SUBPROCESS],
        env={**os.environ, env: "1"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["enabled"] is False
    if env == "NUMBA_DISABLE_JIT":
        assert out["equal"] == [True] * 6
    rng = np.random.default_rng(7)
    stats = rng.random((23, 2))
    keys = np.random.SeedSequence(1).generate_state(20, dtype=np.uint64)
    np.testing.assert_array_equal(
        np.array(out["dispatch"]), K.bootstrap_sums_generic(stats, 23, keys, parallel=True)
    )


@pytest.mark.slow
def test_segment_path_resamples_have_the_bootstrap_moments():
    # The segment path (N = 40,000 rows: 5 segments, the last of 7,232 rows)
    # must draw each resample as n i.i.d. uniform rows: the
    # resampled sums S* have mean n * xbar and variance n * sigma^2 (sigma^2
    # the population variance of the rows), and the two columns' covariance
    # n * cov. With B = 2000 the sample variance has relative s.e.
    # sqrt(2 / (B - 1)) = 3.2 %: a 5-s.e. band (16 %) keeps the false-alarm
    # rate < 1e-6 and fails counts that are not those of n i.i.d. uniform
    # draws (e.g. rows never or doubly counted: a 1 % region of rows missed
    # moves the mean by ~0.01 n xbar >= 400, 9 times the 5-s.e. band 5 sqrt(n)
    # sigma / sqrt(B) = 22 sigma <= 46). The correlation of the columns (Fisher's
    # s.e. (1 - rho^2) / sqrt(B - 3)) checks that both are read at the same rows.
    n, B = 40_000, 2000
    rng = np.random.default_rng(11)
    stats = np.column_stack([rng.exponential(1.0, n), rng.normal(1.0, 2.0, n)])
    stats[:, 1] += 0.5 * stats[:, 0]
    keys = _keys(B, 12)
    assert P.segment_path(n)
    S = K.bootstrap_sums_generic(stats, n, keys, parallel=True)
    mean, cov = stats.mean(axis=0), np.cov(stats.T, bias=True)
    se_mean = np.sqrt(n * np.diag(cov) / B)
    assert np.all(np.abs(S.mean(axis=0) - n * mean) < 5 * se_mean)
    got_cov = np.cov(S.T)
    assert np.all(np.abs(np.diag(got_cov) / (n * np.diag(cov)) - 1) < 5 * np.sqrt(2 / (B - 1)))
    corr = got_cov[0, 1] / np.sqrt(got_cov[0, 0] * got_cov[1, 1])
    want_corr = cov[0, 1] / np.sqrt(cov[0, 0] * cov[1, 1])
    assert abs(corr - want_corr) < 5 * (1 - want_corr**2) / np.sqrt(B - 3)


@pytest.mark.slow
def test_segment_path_draws_per_segment_are_multinomial():
    # Stage 1 of the segment path: the draws falling in each segment are
    # Multinomial(n, sizes / n). Indicator columns of the 5 segments (the
    # last one shorter: 7,232 of 40,000 rows) make the kernel's sums the
    # per-segment counts. Pearson's statistic of one resample is ~chi2(4);
    # the sum over B = 2000 independent resamples is ~chi2(4 B), compared
    # two-sided at 1e-4 (a false alarm once in 5,000 seeds; a wrong split
    # probability, e.g. 8192 / n for the short segment, moves the statistic
    # by B * n * (960 / n)^2 / (7232 / n) ~ 1e5 standard deviations).
    n, B = 40_000, 2000
    seg = P.SEGMENT_ROWS
    stats = np.zeros((n, 5))
    stats[np.arange(n), np.arange(n) // seg] = 1.0
    counts = K.bootstrap_sums_generic(stats, n, _keys(B, 13), parallel=True)
    sizes = stats.sum(axis=0)
    assert sizes[-1] == n - 4 * seg
    assert np.all(counts.sum(axis=1) == n)
    expected = n * sizes / n
    pearson = (((counts - expected) ** 2) / expected).sum()
    df = 4 * B
    p = sps.chi2.sf(pearson, df)
    assert 1e-4 / 2 < p < 1 - 1e-4 / 2


@numba.njit(cache=False)
def _jit_cell_probabilities(counts):
    # the per-cell constants as the kernels computed them before they moved to
    # NumPy: numba's int / int division, 1 - p, pe / q and math.log1p, in a loop
    C = counts.shape[0]
    consts = np.zeros((C, 5))
    left = 0
    for c in range(C):
        left += counts[c]
    for c in range(C - 1):
        p = counts[c] / left
        pe = 1.0 - p if p > 0.5 else p
        q = 1.0 - pe
        consts[c, 0] = p
        consts[c, 1] = pe
        consts[c, 2] = q
        consts[c, 3] = pe / q if q > 0.0 else 0.0
        consts[c, 4] = math.log1p(-pe) if 0.0 < pe < 1.0 else 0.0
        left -= counts[c]
    return consts


def test_cell_probabilities_equal_the_jitted_computation_bit_for_bit():
    rng = np.random.default_rng(21)
    cases = [rng.integers(1, 10**k, size) for k, size in ((1, 7), (3, 60), (6, 500), (9, 40))]
    cases += [np.array([5]), np.array([1, 1]), np.array([10**12, 3, 7 * 10**11]),
              np.array([2, 2, 4, 8, 16, 1])]
    for counts in cases:
        counts = counts.astype(np.int64)
        want = _jit_cell_probabilities(counts)
        got = K._cell_probabilities(counts)
        assert got.view(np.uint64).tolist() == want.view(np.uint64).tolist()
    # trailing empty cells (left = 0 after the last non-empty one): nothing left to draw
    consts = K._cell_probabilities(np.array([3, 4, 0, 0], dtype=np.int64))
    assert consts[1, 0] == 1.0 and consts[2, 0] == 0.0 and not consts[3].any()
    keys = _keys(50, 4)
    sums = K._bootstrap_sums_cells(np.eye(4), np.array([3, 4, 0, 0], dtype=np.int64),
                                   np.int64(7), keys)
    assert (sums[:, 2:] == 0).all() and (sums.sum(axis=1) == 7).all()
