"""The multiplier draws' noise kernel against its NumPy twin."""

import numpy as np
import pytest


@pytest.mark.parametrize("shape", [(1, 1), (5, 3), (31, 255), (33, 257), (70, 600)])
def test_noise_kernel_is_the_numpy_loop_bit_for_bit(shape):
    # each entry summed over the columns in the same order, with no fused
    # multiply-add: tiles of 8 resamples x 256 systems, with remainders
    from sigtest._engine.multiplier import _noise, _noise_numpy

    rng = np.random.default_rng(shape[1])
    z = rng.standard_normal(shape)
    L = rng.normal(size=(shape[1], shape[1])) * rng.uniform(1e-6, 1.0, size=shape[1])
    np.testing.assert_array_equal(_noise(z, L), _noise_numpy(z, L))


def test_representatives_equal_the_pair_loop():
    # identical systems (chains of them, one drawn as the first), nearly
    # identical ones at the threshold, NaN rows, and a random covariance
    from sigtest._engine.multiplier import _SAME, _representatives, _representatives_loop

    rng = np.random.default_rng(0)
    psi = rng.normal(size=(12, 50))
    psi[3] = psi[1]
    psi[7] = psi[1]
    psi[5] = psi[2] * (1 + 1e-7)
    psi[9] = psi[8] + 1e-9
    sigma = psi @ psi.T
    sigma[10, :] = sigma[:, 10] = np.nan
    for case in (sigma, np.eye(6), np.zeros((4, 4)), np.ones((1, 1)),
                 rng.normal(size=(30, 30)), sigma * (1 + _SAME)):
        want = _representatives_loop(case)
        assert np.array_equal(_representatives(case), want)
    assert list(_representatives(sigma)[[3, 7]]) == [1, 1]


def _draws_naive(estimates, sigma, n_resamples, seed, block):
    # multiplier_draws one system column at a time, with the loop twins
    from sigtest._engine.multiplier import _noise_numpy, _representatives_loop

    est, k = np.asarray(estimates, dtype=np.float64), len(estimates)
    out = np.full((n_resamples, k), np.nan)
    idx = np.flatnonzero(np.isfinite(est) & np.isfinite(np.diag(sigma)))
    sub = sigma[np.ix_(idx, idx)]
    rep = _representatives_loop(sub)
    distinct = np.flatnonzero(rep == np.arange(idx.size))
    w, V = np.linalg.eigh(sub[np.ix_(distinct, distinct)])
    L = V * np.sqrt(np.clip(w, 0.0, None))[None, :]
    rng = np.random.default_rng(seed)
    where = {d: p for p, d in enumerate(distinct)}
    for b0 in range(0, n_resamples, block):
        b1 = min(n_resamples, b0 + block)
        noise = _noise_numpy(rng.standard_normal((b1 - b0, distinct.size)), L)
        for p, s in enumerate(idx):
            out[b0:b1, s] = est[s] + noise[:, where[rep[p]]]
    return out


def test_multiplier_draws_equal_the_column_loop(monkeypatch):
    # identical systems share their representative's noise, a NaN system
    # stays NaN; blocks of resamples with a remainder
    from sigtest._engine import multiplier

    monkeypatch.setattr(multiplier, "_DRAW_BLOCK", 64)
    rng = np.random.default_rng(5)
    psi = rng.normal(size=(9, 40)) * 0.01
    psi[4] = psi[1]
    psi[6] = psi[2]
    sigma = psi @ psi.T
    est = rng.uniform(0.5, 0.8, 9)
    est[7] = np.nan
    got = multiplier.multiplier_draws(est, sigma, 150, seed=11)
    np.testing.assert_array_equal(got, _draws_naive(est, sigma, 150, 11, 64))
    assert np.isnan(got[:, 7]).all() and np.isfinite(np.delete(got, 7, axis=1)).all()


@pytest.mark.parametrize("block", [64, 512, 4096])
def test_system_major_draws_are_the_permuted_transpose(monkeypatch, block):
    # what compare's shared draws were: the (B, k) draws, column c put at
    # positions[c], then a C-contiguous transposed copy; any block of resamples
    from sigtest._engine import multiplier

    monkeypatch.setattr(multiplier, "_DRAW_BLOCK", block)
    rng = np.random.default_rng(8)
    psi = rng.normal(size=(9, 40)) * 0.01
    psi[5] = psi[0]
    sigma = psi @ psi.T
    est = rng.uniform(0.5, 0.8, 9)
    est[3] = np.nan
    positions = rng.permutation(9)
    drawn = _draws_naive(est, sigma, 1000, 2, 64)
    want = np.empty((1000, 9))
    want[:, positions] = drawn
    got = multiplier.multiplier_draws(est, sigma, 1000, seed=2, positions=positions,
                                      system_major=True)
    assert got.shape == (9, 1000) and got.flags.c_contiguous
    np.testing.assert_array_equal(got, np.ascontiguousarray(want.T))
    np.testing.assert_array_equal(
        multiplier.multiplier_draws(est, sigma, 1000, seed=2, positions=positions), want)
