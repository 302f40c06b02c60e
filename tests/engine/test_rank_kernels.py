"""Rank-metric kernels (ROC AUC, average precision) against scikit-learn on the same draws.

The kernels of ``sigtest._engine.rank_metrics`` never sort a resample: each
resample is a weight vector over the orders sorted once. The reference is
scikit-learn's ``roc_auc_score`` / ``average_precision_score`` called on the
resampled data itself (``y[idx], s[idx]``, the swapped predictions, or the
weights), with the draws rebuilt here from the documented streams.
"""

import warnings

import numba
import numpy as np
import pytest
from sklearn import metrics as skm

from sigtest._engine import prepare_paired
from sigtest._engine.bayesian import dirichlet_scores
from sigtest._engine.kernels_numpy import _indices, _stream_indices
from sigtest._engine.rank_metrics import (
    auc_jackknife,
    rank_bootstrap_scores,
    rank_permutation_scores,
    rank_weighted_scores,
    ranked_pair,
)
from sigtest._engine.resampling.jackknife import _jackknife_slow, jackknife_values
from sigtest._engine.rng import GOLDEN, resample_keys, splitmix64
from sigtest.metrics import get_metric

SK = {"roc_auc": skm.roc_auc_score, "average_precision": skm.average_precision_score}
B = 40


def _sk(name, y, s, w=None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if name in SK:
            return SK[name](y, s, sample_weight=w)
        if name.startswith("average_precision_"):  # multiclass, scikit-learn's average
            return skm.average_precision_score(y, s, average=name.rsplit("_", 1)[1],
                                               sample_weight=w)
        multi, average = name.split("_")[2], "weighted" if "weighted" in name else "macro"
        return skm.roc_auc_score(y, s, multi_class=multi, average=average, sample_weight=w)


@pytest.fixture(scope="module")
def binary():
    rng = np.random.default_rng(0)
    n = 50
    y = rng.integers(0, 2, n)
    a = np.round(rng.normal(size=n) + y, 1)        # ties within and across systems
    b = np.round(rng.normal(size=n) + 2 * y, 1)
    w = rng.integers(1, 4, n).astype(float)
    return y, a, b, w


def _close(x, y):
    x, y = np.asarray(x), np.asarray(y)
    both_nan = np.isnan(x) & np.isnan(y)
    return np.all(both_nan | (np.abs(x - y) <= 1e-12))


@pytest.mark.parametrize("name", ["roc_auc", "average_precision"])
@pytest.mark.parametrize("weighted", [False, True])
def test_bootstrap_equals_sklearn_on_the_same_draws(binary, name, weighted):
    y, a, b, w = binary
    sw = w if weighted else None
    paired = prepare_paired(y, a, b, name, sample_weight=sw)
    rp = ranked_pair(paired)
    scores = rank_bootstrap_scores(paired, B, seed=3, parallel=False, ranked=rp)
    # draws are relabelled item ids (positions in A's sorted order)
    idx = np.argsort(rp.relabel)[_indices(resample_keys(3, B), y.size, y.size)]
    ref = [[_sk(name, y[i], p[i], None if sw is None else sw[i]) for p in (a, b)] for i in idx]
    assert _close(scores, ref)


def _prepare_multiclass(y, pa, pb, name, **kwargs):
    if name.startswith("average_precision_"):  # one registered metric, scikit-learn's average
        return prepare_paired(y, pa, pb, "average_precision", average=name.rsplit("_", 1)[1],
                              **kwargs)
    return prepare_paired(y, pa, pb, name, **kwargs)


MULTICLASS = ["roc_auc_ovr", "roc_auc_ovr_weighted", "roc_auc_ovo", "roc_auc_ovo_weighted",
              "average_precision_macro", "average_precision_weighted",
              "average_precision_micro"]


@pytest.mark.parametrize("name", MULTICLASS)
def test_multiclass_bootstrap_equals_sklearn(name):
    rng = np.random.default_rng(1)
    n, K = 40, 3
    y = rng.integers(0, K, n)
    pa = rng.dirichlet(np.ones(K), n)
    pb = 0.6 * pa + 0.4 * np.eye(K)[y]
    paired = _prepare_multiclass(y, pa, pb, name)
    rp = ranked_pair(paired)
    scores = rank_bootstrap_scores(paired, 20, seed=5, parallel=False, ranked=rp)
    idx = np.argsort(rp.relabel)[_indices(resample_keys(5, 20), n, n)]
    # scikit-learn needs every class in a resample: labels fixes the columns
    ref = []
    for i in idx:
        row = []
        for p in (pa, pb):
            if np.unique(y[i]).size < K:
                row.append(np.nan)
            else:
                row.append(_sk(name, y[i], p[i]))
        ref.append(row)
    ref = np.array(ref)
    ok = ~np.isnan(ref[:, 0])
    assert ok.sum() > 10
    assert _close(scores[ok], ref[ok])


@pytest.mark.parametrize("name", [n for n in MULTICLASS if "ovo" not in n])
def test_multiclass_permutation_and_weights_equal_sklearn(name):
    # the pooled merge and weighted passes over K components (one for "micro"), with
    # sample weights and ties in the class scores
    rng = np.random.default_rng(4)
    n, K = 45, 4
    y = rng.integers(0, K, n)
    y[:K] = np.arange(K)
    pa = rng.multinomial(8, np.ones(K) / K, size=n) / 8.0  # tied class scores, sums of 1
    pb = 0.6 * pa + 0.4 * np.eye(K)[y]
    w = rng.integers(1, 4, n).astype(float)
    paired = _prepare_multiclass(y, pa, pb, name, sample_weight=w)
    rp = ranked_pair(paired)
    scores = rank_permutation_scores(paired, B, seed=7, parallel=False, ranked=rp)
    swaps = _swap_masks(7, n, rp.relabel)[:, :, None]
    ref = [[_sk(name, y, np.where(s, pb, pa), w), _sk(name, y, np.where(s, pa, pb), w)]
           for s in swaps]
    assert _close(scores, ref)
    W = np.random.default_rng(9).exponential(size=(6, n))
    ref = [[_sk(name, y, p, W[r] * w) for p in (pa, pb)] for r in range(6)]
    assert _close(rank_weighted_scores(rp, W), ref)


def _swap_masks(seed, n_units, relabel):
    """The kernel's swap of original unit ``k``: bit ``u % 64`` of word ``u // 64 + 1``."""
    keys = resample_keys(seed, B)
    words = splitmix64(keys[:, None] + np.arange(1, n_units // 64 + 2, dtype=np.uint64) * GOLDEN)
    u = np.arange(n_units)
    bits = (words[:, u // 64] >> (u % 64).astype(np.uint64)) & np.uint64(1)
    return bits[:, relabel].astype(bool)  # unit of original item k is relabel[k]


@pytest.mark.parametrize("name", ["roc_auc", "average_precision"])
@pytest.mark.parametrize("weighted", [False, True])
def test_permutation_merge_equals_sklearn_on_swapped_data(binary, name, weighted):
    y, a, b, w = binary
    sw = w if weighted else None
    paired = prepare_paired(y, a, b, name, sample_weight=sw)
    rp = ranked_pair(paired)
    scores = rank_permutation_scores(paired, B, seed=7, parallel=False, ranked=rp)
    swaps = _swap_masks(7, y.size, rp.relabel)
    ref = [[_sk(name, y, np.where(s, b, a), sw), _sk(name, y, np.where(s, a, b), sw)]
           for s in swaps]
    assert _close(scores, ref)


def test_permutation_of_clusters_swaps_whole_clusters(binary):
    y, a, b, _ = binary
    groups = np.arange(y.size) // 5
    paired = prepare_paired(y, a, b, "roc_auc", groups=groups)
    scores = rank_permutation_scores(paired, B, seed=2, parallel=False)
    G = groups.max() + 1
    swaps = _swap_masks(2, G, np.arange(G))[:, groups]
    ref = [[_sk("roc_auc", y, np.where(s, b, a)), _sk("roc_auc", y, np.where(s, a, b))]
           for s in swaps]
    assert _close(scores, ref)


def test_cluster_bootstrap_equals_sklearn_on_drawn_clusters(binary):
    y, a, b, _ = binary
    groups = np.arange(y.size) % 10
    paired = prepare_paired(y, a, b, "roc_auc", groups=groups)
    scores = rank_bootstrap_scores(paired, B, seed=4, parallel=False)
    drawn = _indices(resample_keys(4, B), 10, 10)
    members = [np.flatnonzero(groups == g) for g in range(10)]
    ref = []
    for d in drawn:
        i = np.concatenate([members[g] for g in d])
        ref.append([_sk("roc_auc", y[i], a[i]), _sk("roc_auc", y[i], b[i])])
    assert _close(scores, ref)


def test_stratified_bootstrap_keeps_strata_sizes(binary):
    y, a, b, _ = binary
    strata = (np.arange(y.size) < 20).astype(int)
    paired = prepare_paired(y, a, b, "roc_auc", strata=strata)
    scores = rank_bootstrap_scores(paired, B, seed=4, parallel=False)
    # rebuild: one stream per resample, stratum 0's 30 units then stratum 1's 20
    # from the next word (Lemire draws: the twin's _stream_indices, rank order)
    keys = resample_keys(4, B)
    idx0, rank0, after = _stream_indices(keys, np.full(B, 30), 30)
    idx1, rank1, _ = _stream_indices(after, np.full(B, 20), 20)
    units = [np.flatnonzero(strata == h) for h in (0, 1)]
    ref = []
    for r in range(B):
        i = np.concatenate([units[0][idx0[r][rank0[r] > 0]],
                            units[1][idx1[r][rank1[r] > 0]]])
        ref.append([_sk("roc_auc", y[i], a[i]), _sk("roc_auc", y[i], b[i])])
    assert _close(scores, ref)


@pytest.mark.parametrize("name", ["roc_auc", "average_precision", "roc_auc_ovr_weighted"])
def test_bayesian_bootstrap_weights_equal_the_slow_path(binary, name):
    y, a, b, w = binary
    if name == "roc_auc_ovr_weighted":
        rng = np.random.default_rng(2)
        y = rng.integers(0, 3, y.size)
        a = rng.dirichlet(np.ones(3), y.size)
        b = 0.5 * a + 0.5 * np.eye(3)[y]
    paired = prepare_paired(y, a, b, name, sample_weight=w)
    rp = ranked_pair(paired)
    W = np.random.default_rng(9).exponential(size=(6, y.size))
    scores = rank_weighted_scores(rp, W)
    ref = [[_sk(name, y, p, W[r] * w) for p in (a, b)] for r in range(6)]
    assert _close(scores, ref)
    # the engine's Bayesian bootstrap draws its weights in the kernel: equal to
    # score_func on the same weights (rebuilt by the NumPy twin; units: relabelled items)
    fast = dirichlet_scores(paired, 30, seed=1)
    metric = get_metric(name)
    assert metric.ranking is not None
    from sigtest._engine.bayesian import posterior_keys
    from sigtest._engine.rank_dirichlet import dirichlet_unit_weights

    weights = dirichlet_unit_weights(rp, posterior_keys(1, 30))[:, rp.relabel]
    ref = [[metric(y, p, sample_weight=weights[r] * w) for p in (a, b)] for r in range(30)]
    assert _close(fast, ref)


def test_results_do_not_depend_on_threads_or_parallel(binary):
    y, a, b, _ = binary
    paired = prepare_paired(y, a, b, "roc_auc", groups=np.arange(y.size) // 2)
    serial = rank_bootstrap_scores(paired, 300, seed=1, parallel=False)
    before = numba.get_num_threads()
    try:
        out = []
        for t in sorted({1, numba.config.NUMBA_NUM_THREADS}):
            numba.set_num_threads(t)
            out.append(rank_bootstrap_scores(paired, 300, seed=1, parallel=True))
            out.append(rank_permutation_scores(paired, 300, seed=1, parallel=True))
    finally:
        numba.set_num_threads(before)
    assert np.array_equal(out[0], serial) and np.array_equal(out[0], out[-2])
    assert np.array_equal(out[1], out[-1])
    assert np.array_equal(out[1], rank_permutation_scores(paired, 300, seed=1, parallel=False))


@pytest.mark.parametrize("weighted", [False, True])
def test_closed_form_jackknife_equals_leave_one_out(binary, weighted):
    y, a, b, w = binary
    paired = prepare_paired(y, a, b, "roc_auc", sample_weight=w if weighted else None)
    fast = jackknife_values(paired)
    slow = _jackknife_slow(paired)
    assert _close(fast[0], slow[0]) and _close(fast[1], slow[1])
    # and against scikit-learn deleting item i
    ra = get_metric("roc_auc").ranking(y, a)
    theta = auc_jackknife(ra)
    keep = np.ones(y.size, bool)
    for i in range(0, y.size, 7):
        keep[i] = False
        assert theta[i] == pytest.approx(skm.roc_auc_score(y[keep], a[keep]), abs=1e-12)
        keep[i] = True


@pytest.mark.parametrize("name", ["average_precision", "average_precision_macro",
                                  "average_precision_micro", "roc_auc_ovr_weighted",
                                  "roc_auc_ovo"])
@pytest.mark.parametrize("design", ["items", "weights", "clusters"])
def test_ranked_jackknife_equals_sklearn_leaving_out_each_unit(binary, name, design):
    # before: 2 U calls of score_func (a sort each); now one pass per left-out unit
    if name == "average_precision":
        y, a, b, _ = binary
    else:
        rng = np.random.default_rng(6)
        y = rng.integers(0, 3, 48)
        y[:3] = np.arange(3)
        a = rng.multinomial(8, np.ones(3) / 3, size=48) / 8.0  # tied class scores
        b = 0.6 * a + 0.4 * np.eye(3)[y]
    n = y.size
    if design == "weights" and "ovo" in name:
        pytest.skip("scikit-learn refuses sample_weight for one-vs-one")
    w = np.random.default_rng(2).integers(1, 4, n).astype(float) if design == "weights" else None
    groups = np.arange(n) % 8 if design == "clusters" else None
    paired = _prepare_multiclass(y, a, b, name, sample_weight=w, groups=groups)
    theta_a, theta_b, weights = jackknife_values(paired)
    U = n if groups is None else 8
    assert np.array_equal(weights, np.ones(U))
    for u in range(U):
        keep = np.arange(n) != u if groups is None else groups != u
        for theta, p in ((theta_a, a), (theta_b, b)):
            ref = _sk(name, y[keep], p[keep], None if w is None else w[keep])
            assert _close(theta[u], ref), (u, theta[u], ref)


def test_dispatch_uses_the_kernels_for_bca(binary):
    """BCa on roc_auc runs the kernels; its interval equals one from the slow path's
    bootstrap of the same metric within Monte Carlo error (different streams)."""
    import sigtest

    y, a, b, _ = binary
    res = sigtest.BCaInterval(n_resamples=2000, random_state=0).test(y, a, b, metric="roc_auc")
    paired = prepare_paired(y, a, b, "roc_auc")
    from sigtest._engine.resampling.dispatch import resampled_deltas

    deltas = resampled_deltas(paired, 2000, res.params["seed"])
    fast = rank_bootstrap_scores(paired, 2000, seed=res.params["seed"])
    assert np.array_equal(deltas, fast[:, 1] - fast[:, 0])
    assert res.confidence_interval.low < res.delta < res.confidence_interval.high


@pytest.mark.parametrize("weighted", [False, True])
def test_closed_form_cluster_jackknife_equals_deleting_each_cluster(binary, weighted):
    y, a, b, w = binary
    sw = w if weighted else None
    groups = np.arange(y.size) % 9
    paired = prepare_paired(y, a, b, "roc_auc", groups=groups, sample_weight=sw)
    theta_a, theta_b, weights = jackknife_values(paired)
    assert np.array_equal(weights, np.ones(9))
    for g in range(9):
        keep = groups != g
        for theta, p in ((theta_a, a), (theta_b, b)):
            ref = skm.roc_auc_score(y[keep], p[keep],
                                    sample_weight=None if sw is None else sw[keep])
            assert theta[g] == pytest.approx(ref, abs=1e-12)


@pytest.mark.slow
def test_permutation_test_of_auc_has_its_level_under_exchangeable_systems():
    """Two exchangeable scorers (the scores of an item swap without changing the law):
    the permutation test on roc_auc through the rank kernels rejects at 5 %.

    1000 data sets of N = 100, B = 199: the rejection rate's Monte Carlo
    standard error is sqrt(.05 * .95 / 1000) = 0.0069; the band [0.03, 0.07] is
    about three of them either side (the test is exact given the items).
    """
    import sigtest

    rng = np.random.default_rng(2024)
    test = sigtest.PairedPermutation(n_resamples=199, random_state=0)
    rejections = 0
    runs = 1000
    for r in range(runs):
        y = rng.integers(0, 2, 100)
        common = rng.normal(size=100) + y
        a = np.round(common + rng.normal(size=100), 1)
        b = np.round(common + rng.normal(size=100), 1)
        rejections += test.set_params(random_state=r).test(y, a, b, metric="roc_auc").pvalue < 0.05
    assert 0.03 <= rejections / runs <= 0.07
