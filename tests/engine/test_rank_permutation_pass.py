"""The one-pass permutation kernel of rank metrics against the two passes it replaced.

``rank_permutation_scores`` scores both mixed systems of a permutation in one
pass over the pooled order (``sigtest._engine.rank_permutation_pass``). The
reference here is the path before it, kept as a naive twin: per resample the
swap bits rebuilt from the documented stream, each system's weight vector
built as it was (``s`` replaced by ``1 - s`` for the second) and one
``rank_metrics._value`` call per system. The scores must be the same bits.
"""

import numba
import numpy as np
import pytest

from sigtest._engine import prepare_paired
from sigtest._engine.rank_inputs import ranked_pair_of_ranks
from sigtest._engine.rank_metrics import _pooled, _value, rank_permutation_scores, ranked_pair
from sigtest._engine.rng import GOLDEN, resample_keys, splitmix64

B = 37


def _two_passes(rp, n_resamples, seed):
    """The scores as computed before: two weight vectors, two ``_value`` calls."""
    items, pos, ties, starts = _pooled(rp)
    U = rp.n_resampling_units
    keys = resample_keys(seed, n_resamples)
    words = splitmix64(keys[:, None] + np.arange(1, U // 64 + 2, dtype=np.uint64) * GOLDEN)
    u = np.arange(U)
    swap = ((words[:, u // 64] >> (u % 64).astype(np.uint64)) & np.uint64(1)).astype(float)
    w = rp.item_weight
    scratch = np.zeros((3, rp.n_units))
    out = np.empty((n_resamples, 2))
    for b in range(n_resamples):
        for t in range(2):
            s = swap[b, rp.unit_of_item]
            if t == 1:
                s = 1.0 - s
            q = np.concatenate([w * (1.0 - s), w * s])
            out[b, t] = _value(rp.kind, items, pos, ties, starts, rp.unit, rp.weighting, q,
                               scratch)
    return out


def _same_bits(x, y):
    return x.shape == y.shape and np.array_equal(x.view(np.uint64), y.view(np.uint64))


def _check(paired, seed=3):
    for rp in (ranked_pair(paired), ranked_pair_of_ranks(paired)):
        fast = rank_permutation_scores(paired, B, seed, parallel=False, ranked=rp)
        assert _same_bits(fast, _two_passes(rp, B, seed))


def _binary(n, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    a = np.round(rng.normal(size=n) + y, 1)  # ties within and across systems
    b = np.round(rng.normal(size=n) + 2 * y, 1)
    # weights that are no integers (inexact sums: the order of the operations shows)
    # and zeros (empty tie groups)
    w = rng.random(n) * rng.integers(0, 4, n)
    return y, a, b, w


@pytest.mark.parametrize("name", ["roc_auc", "average_precision"])
@pytest.mark.parametrize("n", [7, 67, 131])
@pytest.mark.parametrize("weighted", [False, True])
def test_binary_scores_equal_the_two_passes(name, n, weighted):
    y, a, b, w = _binary(n)
    y[:2] = [0, 1]
    _check(prepare_paired(y, a, b, name, sample_weight=w if weighted else None))


def test_continuous_scores_without_ties_equal_the_two_passes():
    rng = np.random.default_rng(5)
    y = rng.integers(0, 2, 200)
    a, b = rng.normal(size=200) + y, rng.normal(size=200) + 0.5 * y
    for name in ("roc_auc", "average_precision"):
        _check(prepare_paired(y, a, b, name))
    # the raw scores' order (not the ranks): AUC components without ties
    paired = prepare_paired(y, a, b, "roc_auc", sample_weight=rng.random(200))
    rp = ranked_pair(paired)
    assert _same_bits(rank_permutation_scores(paired, B, 1, parallel=False, ranked=rp),
                      _two_passes(rp, B, 1))


@pytest.mark.parametrize("name", ["roc_auc", "average_precision"])
def test_clusters_and_strata_equal_the_two_passes(name):
    y, a, b, w = _binary(131, seed=2)
    groups = np.arange(131) // 3  # 44 clusters, the last of two items
    strata = (np.arange(131) < 69).astype(int)  # whole clusters
    _check(prepare_paired(y, a, b, name, groups=groups, sample_weight=w))
    _check(prepare_paired(y, a, b, name, strata=strata))
    _check(prepare_paired(y, a, b, name, groups=groups, strata=strata))


MULTICLASS = [("roc_auc_ovr", {}), ("roc_auc_ovr_weighted", {}), ("roc_auc_ovo", {}),
              ("roc_auc_ovo_weighted", {}), ("average_precision", {"average": "macro"}),
              ("average_precision", {"average": "weighted"}),
              ("average_precision", {"average": "micro"})]


@pytest.mark.parametrize("name, params, weighted", [
    (name, params, weighted) for name, params in MULTICLASS for weighted in (False, True)
    if not (weighted and "ovo" in name)])  # one-vs-one takes no sample_weight (scikit-learn)
def test_multiclass_scores_equal_the_two_passes(name, params, weighted):
    rng = np.random.default_rng(4)
    n, K = 53, 4
    y = rng.integers(0, K, n)
    y[:K] = np.arange(K)
    pa = rng.multinomial(8, np.ones(K) / K, size=n) / 8.0  # tied class scores
    pb = 0.6 * pa + 0.4 * np.eye(K)[y]
    w = 0.1 + rng.random(n) if weighted else None
    _check(prepare_paired(y, pa, pb, name, sample_weight=w, **params))
    groups = np.arange(n) % 9
    _check(prepare_paired(y, pa, pb, name, sample_weight=w, groups=groups, **params))


def test_threads_give_the_same_bits():
    y, a, b, w = _binary(131, seed=1)
    paired = prepare_paired(y, a, b, "average_precision", sample_weight=w)
    rp = ranked_pair(paired)
    ref = _two_passes(rp, 300, 9)
    before = numba.get_num_threads()
    try:
        for t in sorted({1, numba.config.NUMBA_NUM_THREADS}):
            numba.set_num_threads(t)
            got = rank_permutation_scores(paired, 300, 9, parallel=True, ranked=rp)
            assert _same_bits(got, ref)
    finally:
        numba.set_num_threads(before)
