"""The popcount Binomial(n, 1/2) sampler of the permutation kernel, and the kernel memo."""

import numpy as np
import pytest
from scipy import stats

from sigtest.metrics import get_metric
from sigtest._engine import kernels as _kernels
from sigtest._engine import kernels_numpy as _kernels_py
from sigtest._engine import resampling as _resampling
from sigtest._engine.resampling import rows as _rows
from sigtest._engine import prepare_paired


def _draws(n, reps, seed):
    z, out = seed, np.empty(reps, dtype=np.int64)
    for i in range(reps):
        out[i], z = _kernels_py.binomial_half(n, z)
    return out


@pytest.mark.parametrize("n", [1, 7, 63, 64, 65, 200, 512, 513, 3000])
def test_binomial_half_goodness_of_fit(n):
    # 20 000 seeded draws; chi-square against Binomial(n, 1/2) with the bins
    # pooled so that every expected count is >= 20. The seed is fixed, so the
    # test is deterministic; a correct sampler fails it with probability 1e-4
    # per n, while a bias of one bit per 64 (e.g. a wrong mask) gives p ~ 0.
    reps = 20_000
    x = _draws(n, reps, 12345 + n)
    assert x.min() >= 0 and x.max() <= n
    pmf = stats.binom.pmf(np.arange(n + 1), n, 0.5) * reps
    obs = np.bincount(x, minlength=n + 1).astype(float)
    edges, acc = [], 0.0
    for k in range(n + 1):  # pool consecutive bins until each expects >= 20
        acc += pmf[k]
        if acc >= 20:
            edges.append(k + 1)
            acc = 0.0
    edges[-1] = n + 1
    starts = [0, *edges[:-1]]
    e = np.array([pmf[a:b].sum() for a, b in zip(starts, edges)])
    o = np.array([obs[a:b].sum() for a, b in zip(starts, edges)])
    if len(e) < 2:
        pytest.skip("a single bin")
    assert stats.chisquare(o, e * o.sum() / e.sum()).pvalue > 1e-4


def test_binomial_half_twin_matches_kernel():
    counts = np.array([1, 3, 63, 64, 65, 511, 512, 513, 4000], dtype=np.int64)
    diff = np.random.default_rng(0).normal(size=(counts.size, 3))
    keys = np.random.SeedSequence(7).generate_state(300, dtype=np.uint64)
    np.testing.assert_array_equal(
        _kernels.permutation_sums_cells(diff, counts, keys),
        _kernels_py.permutation_sums_cells(diff, counts, keys),
    )


def test_memo_returns_what_the_kernel_returns():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 4, 2000)
    a = np.where(rng.random(2000) < 0.7, y, rng.integers(0, 4, 2000))
    b = np.where(rng.random(2000) < 0.8, y, rng.integers(0, 4, 2000))
    labels = np.arange(4)
    f1 = prepare_paired(y, a, b, get_metric("f1_macro"), labels=labels)
    recall = prepare_paired(y, a, b, get_metric("recall_macro"), labels=labels)
    _rows._MEMO.clear()
    for scheme in (_resampling.bootstrap_sums, _resampling.permutation_sums):
        cold = scheme(f1, 500, seed=11)
        assert len(_rows._MEMO._data) >= 1
        warm = scheme(recall, 500, seed=11)  # same statistics: served by the memo
        for x, y_ in zip(cold, warm):
            np.testing.assert_array_equal(x, y_)
            assert x.flags.writeable  # callers get fresh arrays
        _rows._MEMO.clear()
        np.testing.assert_array_equal(scheme(recall, 500, seed=11)[0], cold[0])
        # another seed is another key
        assert not np.array_equal(scheme(f1, 500, seed=12)[0], cold[0])
