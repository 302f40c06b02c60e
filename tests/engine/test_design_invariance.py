"""Strata leave the permutation untouched, and run-averaged clusters keep exact zeros."""

import numpy as np
import pytest

from sigtest import PairedPermutation
from sigtest._engine import prepare_paired_runs


@pytest.mark.parametrize("metric", ["accuracy", "f1_macro", "precision_macro"])
def test_strata_change_nothing_in_the_permutation(metric):
    # the permutation conditions on the items: strata must not change its draws,
    # bit for bit, on the compressed path where cells are split by stratum
    # (with cells split stratum-major, these data gave other draws for f1_macro)
    rng = np.random.default_rng(0)
    n, k = 517, 4
    y = rng.integers(0, k, n)
    a = np.where(rng.random(n) < 0.7, y, (y + 1) % k)
    b = np.where(rng.random(n) < 0.75, y, rng.integers(0, k, n))
    strata = rng.integers(0, 3, n)
    for seed in (0, 1):
        test = PairedPermutation(n_resamples=299, exact=False, random_state=seed)
        plain = test.test(y, a, b, metric=metric)
        split = test.test(y, a, b, metric=metric, strata=strata)
        np.testing.assert_array_equal(plain.null_distribution, split.null_distribution)
        assert plain.pvalue == split.pvalue


def _runs_with_correct_counts(correct, n_runs):
    """Runs of labels for y = 0 where item i is right in correct[i] of the runs."""
    return [np.where(np.asarray(correct) > r, 0, 1) for r in range(n_runs)]


def test_run_averaged_clusters_keep_exact_zero_differences():
    # cluster 0: A right in 3, 1, 3, 2 of 3 runs, B in 3, 0, 3, 3: the same 9/3
    # correct items, yet 3/3 + 1/3 + 3/3 + 2/3 - (3/3 + 0 + 3/3 + 3/3) is
    # -4.4e-16 in floating point; cluster 1 differs truly (A 2 of 3, B 0 of 3)
    correct_a, correct_b = [3, 1, 3, 2, 2, 2], [3, 0, 3, 3, 0, 0]
    y = np.zeros(6, dtype=int)
    groups = [0, 0, 0, 0, 1, 1]
    paired = prepare_paired_runs(y, _runs_with_correct_counts(correct_a, 3),
                                 _runs_with_correct_counts(correct_b, 3), "accuracy",
                                 groups=groups)
    D = paired.stats_b[:, 0] - paired.stats_a[:, 0]
    np.testing.assert_array_equal(D, [0.0, -4.0 / 3.0])
    assert paired.n_discordant == 1


@pytest.mark.parametrize("ids", [
    np.random.default_rng(0).integers(0, 1000, 5000),      # small range: presence table
    np.random.default_rng(1).integers(-50, 50, 300),
    np.array([5, 5, 7, -3], dtype=np.int16),
    np.random.default_rng(2).integers(0, 2**40, 300),      # wide range: np.unique
    np.array(["b", "a", "b", "c"]),
])
def test_id_codes_equal_numpy_unique(ids):
    from sigtest._engine.design import _encode

    codes, n_levels, values = _encode(ids, "groups", ids.shape[0])
    want_values, want_codes = np.unique(ids, return_inverse=True)
    np.testing.assert_array_equal(codes, want_codes.ravel())
    np.testing.assert_array_equal(values, want_values)
    assert n_levels == want_values.shape[0] and values.dtype == want_values.dtype
