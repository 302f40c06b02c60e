"""Shared bootstrap sums of few-valued rows (0/1 and small-integer scores) as a matrix product.

The product path (multiplicities of a block of resamples times the
indicators of every system's codes) must give the count kernel's output bit
for bit: same draws, exact integer counts, the same order of the final sums.
"""

import numpy as np
import pytest

from sigtest._engine import shared as sh
from sigtest._engine.shared import shared_bootstrap_sums, shared_draws

pytestmark = pytest.mark.skipif(not sh._numba_enabled(), reason="the product path is numba's")


def _coded(rng, U, k, C, s=2):
    codes = rng.integers(0, C, size=(U, k)).astype(np.int32)
    table = rng.normal(size=(k, C, s))
    return codes, table


def _run(kernel, keys, members, offsets, codes, table, threads):
    out = np.zeros((keys.shape[1], codes.shape[1], table.shape[2]))
    sh._run_blocks(kernel, keys.shape[1], threads, keys, members, offsets, codes, table, out)
    return out


@pytest.mark.parametrize("U,k,C,strata", [(800, 6, 2, False), (611, 5, 3, True),
                                          (1500, 9, 7, True), (257, 2, 16, False)])
@pytest.mark.parametrize("threads", [1, 2])
def test_product_path_equals_the_count_kernel_bit_for_bit(U, k, C, strata, threads, monkeypatch):
    rng = np.random.default_rng(U + C)
    codes, table = _coded(rng, U, k, C)
    codes[:, 0] = 0  # a system with one distinct row
    codes[0, 0] = C - 1
    unit_strata = rng.integers(0, 3, size=U) if strata else None
    members, offsets = sh._strata_layout(U, unit_strata)
    keys = sh._keys(2024, 301, offsets.shape[0] - 1)
    counted = _run(sh._shared_counts, keys, members, offsets, codes, table, 1)
    # small blocks: several blocks per part, a last block shorter than the others
    monkeypatch.setattr(sh, "_PRODUCT_BLOCK_BYTES", 4 * U * 17)
    product = _run(sh._product_sums, keys, members, offsets, codes, table, threads)
    np.testing.assert_array_equal(product.view(np.uint64), counted.view(np.uint64))


def test_zero_one_scores_take_the_product_path_and_match_a_naive_twin():
    rng = np.random.default_rng(5)
    U, k, B = 3000, 8, 130
    scores = (rng.random((U, k)) < np.linspace(.3, .9, k)).astype(np.float64)
    rows = [scores[:, [j]] for j in range(k)]
    codes, table, _ = sh._codes(rows)
    assert sh._product_plan(codes, table)
    unit_strata = rng.integers(0, 4, size=U)
    sums = shared_bootstrap_sums(rows, B, 77, unit_strata=unit_strata)
    draws = shared_draws(U, B, 77, unit_strata=unit_strata)
    # naive twin: every draw added; integer sums are exact in any order
    naive = scores[draws].sum(axis=1)
    np.testing.assert_array_equal(sums[:, :, 0], naive)
    # permuting the systems permutes the output
    perm = rng.permutation(k)
    again = shared_bootstrap_sums([rows[j] for j in perm], B, 77, unit_strata=unit_strata,
                                  parallel=False)
    np.testing.assert_array_equal(again.view(np.uint64), sums[:, perm].view(np.uint64))


def test_product_path_equals_the_numpy_twin(monkeypatch):
    rng = np.random.default_rng(9)
    U, k, B = 700, 4, 90
    scores = rng.integers(0, 5, size=(U, k)).astype(np.float64) * 0.25
    rows = [np.column_stack([scores[:, j], scores[:, j] ** 2]) for j in range(k)]
    fast = shared_bootstrap_sums(rows, B, 3)
    monkeypatch.setenv("SIGTEST_DISABLE_NUMBA", "1")
    twin = shared_bootstrap_sums(rows, B, 3)
    np.testing.assert_array_equal(fast.view(np.uint64), twin.view(np.uint64))


def test_many_codes_keep_the_count_kernel():
    rng = np.random.default_rng(1)
    codes, table = _coded(rng, 500, 3, sh._PRODUCT_MAX_CODES + 1)
    assert not sh._product_plan(codes, table)
    codes, table = _coded(rng, 500, 3, 1)
    assert not sh._product_plan(codes, table)
