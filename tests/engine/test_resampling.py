"""Resampling schemes: against naive references, across paths, and bad input."""

import numba
import numpy as np
import pytest
from scipy import stats as sps

from _naive_engine import (
    ACC,
    ACC_SLOW,
    F1,
    SOFT,
    metric_value,
    naive_bootstrap_deltas,
    naive_exact_permutation,
    naive_jackknife,
)
from sigtest._engine import kernels_numpy as P
from sigtest._engine import resampling as R
from sigtest._engine.rng import resample_keys
from sigtest._engine import prepare_paired


def _hard_data(n=300, k=3, seed=0, p_a=0.6, p_b=0.75):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    a = np.where(rng.random(n) < p_a, y, rng.integers(0, k, n))
    b = np.where(rng.random(n) < p_b, y, rng.integers(0, k, n))
    return y, a, b


def _soft_data(n=60, k=3, seed=1):
    rng = np.random.default_rng(seed)
    return rng.integers(0, k, n), rng.dirichlet(np.ones(k), n), rng.dirichlet(np.ones(k), n)


# ---------------------------------------------------------- against references
@pytest.mark.parametrize("metric", [ACC, F1])
@pytest.mark.parametrize("sample_size", [None, 0.3, 17])
def test_generic_bootstrap_equals_naive_on_the_same_indices(metric, sample_size):
    y, a, b = _hard_data(80)
    paired = prepare_paired(y, a, b, metric, compress=False)
    sums_a, sums_b = R.bootstrap_sums(paired, 50, sample_size, seed=9, parallel=False)
    m = R.resolve_sample_size(sample_size, 80)
    assert np.all(sums_a[:, -1 if metric is ACC else 0] >= 0)
    # Rebuild the kernel's indices from its documented counter generator.
    idx = P._indices(resample_keys(9, 50), m, 80)
    labels = paired.params.get("labels")
    want = naive_bootstrap_deltas(metric, y, a, b, idx, labels)
    np.testing.assert_allclose(paired.deltas(sums_a, sums_b), want, rtol=0, atol=1e-12)


def test_generic_permutation_equals_naive_on_the_same_swaps():
    y, qa, qb = _soft_data(70)
    qb[:5] = qa[:5]  # five items where A and B agree: they get no swap bit
    paired = prepare_paired(y, qa, qb, SOFT)
    sums_a, sums_b = R.permutation_sums(paired, 40, seed=3, parallel=False)
    differ = np.flatnonzero(np.any(qa != qb, axis=1))
    bits = P._swap_bits(resample_keys(3, 40), differ.size)
    for r in range(40):
        swap = np.zeros(70, dtype=bool)
        swap[differ[bits[r]]] = True
        a_s = np.where(swap[:, None], qb, qa)
        b_s = np.where(swap[:, None], qa, qb)
        want = metric_value(SOFT, y, b_s) - metric_value(SOFT, y, a_s)
        assert paired.deltas(sums_a[r], sums_b[r]) == pytest.approx(want, abs=1e-12)


@pytest.mark.parametrize("metric", [ACC, F1])
@pytest.mark.parametrize("compress", [True, False])
def test_exact_permutation_matches_brute_force(metric, compress):
    y = np.array([0, 1, 2, 0, 1, 2, 0, 1, 1])
    a = np.array([0, 1, 2, 1, 1, 0, 0, 2, 2])
    b = np.array([0, 2, 2, 0, 1, 2, 1, 1, 2])
    paired = prepare_paired(y, a, b, metric, compress=compress, zero_division=0.0)
    sums_a, sums_b, prob = R.exact_permutation_sums(paired)
    got = {}
    for d, p in zip(paired.deltas(sums_a, sums_b), prob):
        key = round(float(d), 9)
        got[key] = got.get(key, 0.0) + p
    want = naive_exact_permutation(metric, y, a, b, labels=np.array([0, 1, 2]))
    assert got.keys() == want.keys()
    for key in want:
        assert got[key] == pytest.approx(want[key], abs=1e-12)


def test_exact_permutation_weighted_lattice_matches_brute_force():
    # Integer weights give lattice steps d = +-1, +-2, +-3 (convolution path);
    # non-integer weights force the pattern enumeration.
    y = np.array([0, 1, 1, 0, 1, 0, 1, 1, 0, 0])
    a = np.array([1, 1, 0, 0, 1, 1, 0, 1, 0, 1])
    b = np.array([0, 1, 1, 1, 1, 0, 0, 0, 1, 0])
    for w in (np.array([1, 2, 3, 1, 2, 3, 1, 2, 3, 1.0]), np.linspace(0.5, 1.5, 10)):
        paired = prepare_paired(y, a, b, ACC, sample_weight=w)
        sums_a, sums_b, prob = R.exact_permutation_sums(paired)
        got = {}
        for d, p in zip(paired.deltas(sums_a, sums_b), prob):
            got[round(float(d), 9)] = got.get(round(float(d), 9), 0.0) + p
        want = naive_exact_permutation(ACC, y, a, b, sample_weight=w)
        assert got.keys() == want.keys()
        for key in want:
            assert got[key] == pytest.approx(want[key], abs=1e-12)


def test_exact_permutation_soft_is_2_to_the_d():
    y, qa, qb = _soft_data(9)
    qb[0] = qa[0]
    paired = prepare_paired(y, qa, qb, SOFT)
    sums_a, sums_b, prob = R.exact_permutation_sums(paired)
    assert prob.shape == (2**8,)
    np.testing.assert_allclose(prob, 2.0**-8)
    got = {}
    for d in paired.deltas(sums_a, sums_b):
        got[round(float(d), 9)] = got.get(round(float(d), 9), 0.0) + 2.0**-8
    want = naive_exact_permutation(SOFT, y, qa, qb)
    assert got.keys() == want.keys()
    for key in want:
        assert got[key] == pytest.approx(want[key], abs=1e-12)


def test_exact_permutation_of_accuracy_is_the_exact_mcnemar_test():
    y, a, b = _hard_data(400, p_a=0.7, p_b=0.74, seed=4)
    paired = prepare_paired(y, a, b, ACC)
    sums_a, sums_b, prob = R.exact_permutation_sums(paired)
    deltas = paired.deltas(sums_a, sums_b)
    obs = paired.delta
    p_exact = prob[np.abs(deltas) >= abs(obs) - 1e-12].sum()
    n01 = int(np.sum((a == y) & (b != y)))
    n10 = int(np.sum((a != y) & (b == y)))
    mcnemar = sps.binomtest(n10, n01 + n10, 0.5).pvalue
    assert p_exact == pytest.approx(mcnemar, rel=1e-9)


def test_exact_permutation_too_large_returns_none():
    y, a, b = _hard_data(2000)
    assert R.exact_permutation_sums(prepare_paired(y, a, b, F1), max_patterns=1000) is None
    y, qa, qb = _soft_data(30)
    assert R.exact_permutation_sums(prepare_paired(y, qa, qb, SOFT)) is None


@pytest.mark.parametrize("metric,compress", [(ACC, True), (F1, True), (F1, False), (SOFT, False)])
def test_jackknife_matches_n_metric_calls(metric, compress):
    if metric is SOFT:
        y, a, b = _soft_data(40)
    else:
        y, a, b = _hard_data(60)
    paired = prepare_paired(y, a, b, metric, compress=compress)
    theta_a, theta_b, w = R.jackknife_values(paired)
    assert w.sum() == 60 if metric is not SOFT else w.sum() == 40
    labels = paired.params.get("labels")
    ref_a, ref_b = naive_jackknife(metric, y, a, b, labels)
    if paired.compressed:
        # expand cells to items: item i belongs to the cell of (y_i, a_i, b_i)
        _, inv = np.unique(np.column_stack([y, a, b]), axis=0, return_inverse=True)
        theta_a, theta_b = theta_a[inv.ravel()], theta_b[inv.ravel()]
    np.testing.assert_allclose(theta_a, ref_a, atol=1e-12)
    np.testing.assert_allclose(theta_b, ref_b, atol=1e-12)


def test_jackknife_slow_path():
    y, a, b = _hard_data(30)
    theta_a, theta_b, w = R.jackknife_values(prepare_paired(y, a, b, ACC_SLOW))
    ref_a, ref_b = naive_jackknife(ACC, y, a, b)
    np.testing.assert_allclose(theta_a, ref_a)
    np.testing.assert_allclose(theta_b, ref_b)
    np.testing.assert_array_equal(w, 1.0)


def test_slow_path_uses_seeded_generator_indices():
    y, a, b = _hard_data(40)
    paired = prepare_paired(y, a, b, ACC_SLOW)
    got = R.bootstrap_deltas(paired, 20, 0.5, seed=5)
    idx = np.random.default_rng(5).integers(0, 40, (20, 20))
    np.testing.assert_allclose(got, naive_bootstrap_deltas(ACC, y, a, b, idx))
    np.testing.assert_array_equal(got, R.resampled_deltas(paired, 20, 5, sample_size=0.5))
    perm = R.permutation_deltas(paired, 20, seed=5)
    swaps = np.random.default_rng(5).random((20, 40)) < 0.5
    want = [np.mean(np.where(s, a, b) == y) - np.mean(np.where(s, b, a) == y) for s in swaps]
    np.testing.assert_allclose(perm, want)


# ------------------------------------------------------- compressed == generic
def _same_distribution(x, z):
    """Moments within 5 standard errors and a two-sample KS test.

    The KS threshold 1e-3 is the false-alarm rate under the null for a
    continuous statistic; our deltas live on a lattice, which makes ks_2samp
    conservative (p larger), so a correct engine fails this with probability
    below 1e-3 per seed, while a wrong multinomial/binomial scheme (e.g.
    m = 0.95 N draws: p ~ 4e-8 at 20k draws, N = 400).
    """
    n = x.size
    se_mean = np.sqrt((x.var() + z.var()) / n)
    assert abs(x.mean() - z.mean()) < 5 * se_mean
    # SE of a variance ~ var * sqrt(2 / n) (near-normal deltas); 5 SE of the ratio.
    assert abs(np.log(x.var() / z.var())) < 5 * np.sqrt(4 / n)
    assert sps.ks_2samp(x, z).pvalue > 1e-3


@pytest.mark.parametrize("metric", [ACC, F1])
def test_bootstrap_compressed_and_generic_same_distribution(metric):
    y, a, b = _hard_data(400, k=3, seed=11)
    cells = prepare_paired(y, a, b, metric)
    rows = prepare_paired(y, a, b, metric, compress=False)
    x = R.resampled_deltas(cells, 20_000, seed=1)
    z = R.resampled_deltas(rows, 20_000, seed=2)
    _same_distribution(x, z)
    # sub-sampling too (BooStSa-style sample_size)
    _same_distribution(
        R.resampled_deltas(cells, 20_000, seed=3, sample_size=0.2),
        R.resampled_deltas(rows, 20_000, seed=4, sample_size=0.2),
    )


@pytest.mark.parametrize("metric", [ACC, F1])
def test_permutation_compressed_and_generic_same_distribution(metric):
    y, a, b = _hard_data(400, k=3, seed=12, p_a=0.7, p_b=0.73)  # p-values ~ 0.1-0.5
    cells = prepare_paired(y, a, b, metric)
    rows = prepare_paired(y, a, b, metric, compress=False)
    x = R.resampled_deltas(cells, 20_000, seed=1, scheme="permutation")
    z = R.resampled_deltas(rows, 20_000, seed=2, scheme="permutation")
    _same_distribution(x, z)
    # two-sided permutation p-values agree within 5 standard errors of the
    # difference of two independent Monte Carlo proportions
    obs = abs(cells.delta) - 1e-12
    p_x, p_z = np.mean(np.abs(x) >= obs), np.mean(np.abs(z) >= obs)
    p_bar = (p_x + p_z) / 2
    assert 0.02 < p_bar < 0.98
    assert abs(p_x - p_z) <= 5 * np.sqrt(2 * p_bar * (1 - p_bar) / 20_000) + 1e-12
    # and both agree with the exact distribution's moments (accuracy: small)
    if metric is ACC:
        sa, sb, prob = R.exact_permutation_sums(cells)
        d = cells.deltas(sa, sb)
        assert abs(x.mean() - prob @ d) < 5 * np.sqrt((prob @ d**2) / 20_000)


def test_slow_and_fast_paths_same_distribution():
    y, a, b = _hard_data(150, seed=13)
    fast = R.resampled_deltas(prepare_paired(y, a, b, ACC), 2000, seed=1)
    slow = R.resampled_deltas(prepare_paired(y, a, b, ACC_SLOW), 2000, seed=2)
    # 2000 draws: looser KS threshold of the same kind as _same_distribution
    assert abs(fast.mean() - slow.mean()) < 5 * np.sqrt((fast.var() + slow.var()) / 2000)
    assert sps.ks_2samp(fast, slow).pvalue > 1e-3


# ------------------------------------------------------------- determinism etc
@pytest.mark.parametrize("metric,compress", [(ACC, True), (F1, False), (SOFT, False)])
def test_same_seed_same_result_any_threads(metric, compress):
    y, a, b = _soft_data(200) if metric is SOFT else _hard_data(200)
    paired = prepare_paired(y, a, b, metric, compress=compress)
    ref_boot = R.bootstrap_sums(paired, 700, None, 42, parallel=False)
    ref_perm = R.permutation_sums(paired, 700, 42, parallel=False)
    before = numba.get_num_threads()
    try:
        for threads in sorted({1, min(2, numba.config.NUMBA_NUM_THREADS)}):
            numba.set_num_threads(threads)
            for got, want in zip(R.bootstrap_sums(paired, 700, None, 42), ref_boot):
                np.testing.assert_array_equal(got, want)
            for got, want in zip(R.permutation_sums(paired, 700, 42), ref_perm):
                np.testing.assert_array_equal(got, want)
    finally:
        numba.set_num_threads(before)
    other = R.bootstrap_sums(paired, 700, None, 43, parallel=False)
    assert not np.array_equal(other[0], ref_boot[0])


def test_constant_columns_and_identical_systems():
    y, a, _ = _hard_data(100)
    for compress in (True, False):
        paired = prepare_paired(y, a, a.copy(), F1, compress=compress)
        sums_a, sums_b = R.bootstrap_sums(paired, 300, 0.5, 1)
        np.testing.assert_array_equal(sums_a, sums_b)
        np.testing.assert_array_equal(paired.deltas(sums_a, sums_b), 0.0)
        pa, pb = R.permutation_sums(paired, 300, 1)
        np.testing.assert_array_equal(pa, np.tile(paired.totals()[0], (300, 1)))
        np.testing.assert_array_equal(pb, pa)
        ea, eb, prob = R.exact_permutation_sums(paired)
        assert prob.tolist() == [1.0] and np.array_equal(ea, eb)
    accp = prepare_paired(y, a, _hard_data(100, seed=5)[2], ACC)
    sums_a, _ = R.bootstrap_sums(accp, 100, 33, 0)
    np.testing.assert_array_equal(sums_a[:, 1], 33.0)


# ------------------------------------------------------------------ bad input
def test_bad_input():
    y, a, b = _hard_data(50)
    paired = prepare_paired(y, a, b, ACC)
    for bad in (0, -1, 1.5, True, None):
        with pytest.raises(ValueError, match="'n_resamples'"):
            R.bootstrap_sums(paired, bad)
        with pytest.raises(ValueError, match="'n_resamples'"):
            R.permutation_sums(paired, bad)
    for bad in (0, -3, 0.0, 1.5, True, "half"):
        with pytest.raises(ValueError, match="'sample_size'"):
            R.bootstrap_sums(paired, 10, bad)
    with pytest.raises(ValueError, match="'seed'"):
        R.bootstrap_sums(paired, 10, None, -1)
    with pytest.raises(ValueError, match="'max_patterns'"):
        R.exact_permutation_sums(paired, max_patterns=0)
    with pytest.raises(ValueError, match="'scheme'"):
        R.resampled_deltas(paired, 10, 0, scheme="jackknife")
    with pytest.raises(ValueError, match="'sample_size'"):
        R.resampled_deltas(paired, 10, 0, scheme="permutation", sample_size=0.5)
    with pytest.raises(TypeError, match="'paired'"):
        R.bootstrap_sums((y, a, b), 10)
    slow = prepare_paired(y, a, b, ACC_SLOW)
    with pytest.raises(ValueError, match="no sufficient statistics"):
        R.bootstrap_sums(slow, 10)
    with pytest.raises(ValueError, match="no sufficient statistics"):
        R.exact_permutation_sums(slow)


def test_jackknife_values_are_computed_once_per_paired_data(monkeypatch):
    # the BCa acceleration and compare's influence concentration read the same
    # leave-one-out values: one computation, shared read-only; a replaced
    # PairedData (other data) starts afresh
    import dataclasses

    from sigtest._engine.resampling import jackknife as J
    from sigtest.metrics import get_metric

    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 300)
    a, b = (np.where(rng.random(300) < p, y, rng.integers(0, 3, 300)) for p in (.6, .7))
    paired = prepare_paired(y, a, b, get_metric("f1_macro"))
    calls = []
    compute = J._jackknife_values
    monkeypatch.setattr(J, "_jackknife_values", lambda *args: calls.append(1) or compute(*args))
    first = J.jackknife_values(paired)
    assert J.jackknife_values(paired, chunk_rows=7) is first and len(calls) == 1
    assert not any(array.flags.writeable for array in first)
    with pytest.raises(ValueError, match="read-only"):
        first[0][0] = 0.0
    other = dataclasses.replace(paired, score_a=paired.score_a)
    assert other.memo == {}
    again = J.jackknife_values(other, chunk_rows=7)  # chunks: the same values
    assert len(calls) == 2
    for x, z in zip(first, again):
        np.testing.assert_array_equal(x, z)
