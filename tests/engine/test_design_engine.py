"""The sampling design in the engine (issue 10): clusters (``groups=``) and strata.

Every check compares the engine with a naive NumPy twin written here: cluster
rows against a loop group-by of the items' statistics, the cluster bootstrap
and permutation against item-level recomputations on the same draws, the
stratified bootstrap against per-stratum draws, the delete-one-cluster
jackknife and the stratified BCa acceleration against explicit leave-one-out
loops on the raw items, and the slow path (a metric without statistics)
against the fast path within Monte Carlo error.
"""

import collections
import contextlib
import io
import re
from pathlib import Path

import numpy as np
import pytest
from sklearn.metrics import accuracy_score, f1_score, matthews_corrcoef

from sigtest import BCaInterval, BergKirkpatrickBootstrap, PairedPermutation
from sigtest._engine import kernels_numpy as P
from sigtest._engine import resampling as R
from sigtest._engine.design import check_design
from sigtest._engine.intervals import jackknife_acceleration
from sigtest._engine import prepare_paired, prepare_paired_runs
from sigtest._engine.rng import resample_keys
from sigtest.metrics import Metric, get_metric

ACCURACY = get_metric("accuracy")
F1_MACRO = get_metric("f1_macro")
SOFT_ACCURACY = get_metric("soft_accuracy")
# metrics without statistics: the slow path calls score_func on resampled items


def _accuracy_score(y_true, y_pred, sample_weight=None):
    """scikit-learn's accuracy_score in NumPy (checked equal below): the slow path
    calls it on every resample, ~30x cheaper than scikit-learn's validated one."""
    return float(np.average(np.asarray(y_true) == np.asarray(y_pred), weights=sample_weight))


ACC_SLOW = Metric("acc_slow", _accuracy_score)
MCC_SLOW = Metric("mcc_slow", matthews_corrcoef)


def test_slow_accuracy_twin_equals_sklearn():
    rng = np.random.default_rng(1)
    y, p = rng.integers(0, 3, 50), rng.integers(0, 3, 50)
    w = rng.uniform(0.5, 2.0, 50)
    assert _accuracy_score(y, p) == pytest.approx(accuracy_score(y, p), abs=1e-15)
    assert _accuracy_score(y, p, sample_weight=w) == pytest.approx(
        accuracy_score(y, p, sample_weight=w), abs=1e-15)


# ------------------------------------------------------------------- data
def _clustered(G=40, k=3, seed=0, max_size=6, shuffle=True):
    """Hard labels in ``G`` clusters of 1..max_size items; per-cluster accuracies.

    Ids are zero-padded strings (their sorted order is the numeric order),
    items shuffled so that clusters are not contiguous.
    """
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, max_size + 1, G)
    ids = np.repeat(np.arange(G), sizes)
    n = ids.size
    p_a, p_b = rng.uniform(0.3, 0.9, G)[ids], rng.uniform(0.3, 0.9, G)[ids]
    y = rng.integers(0, k, n)
    a = np.where(rng.random(n) < p_a, y, (y + rng.integers(1, k, n)) % k)
    b = np.where(rng.random(n) < p_b, y, (y + rng.integers(1, k, n)) % k)
    groups = np.array([f"doc{g:03d}" for g in ids])
    order = rng.permutation(n) if shuffle else np.arange(n)
    return y[order], a[order], b[order], groups[order]


def _soft(G=30, k=3, seed=1):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 7, G)
    groups = np.repeat(np.arange(G), sizes)
    n = groups.size
    y = np.eye(k)[rng.integers(0, k, n)]
    return y, rng.dirichlet(np.ones(k), n), rng.dirichlet(np.ones(k), n), groups


def _item_stats(metric, paired, y, pred):
    return np.asarray(metric.statistics(y, pred, **paired.params), dtype=np.float64)


def _groupby_sum(values, keys):
    """Sums of the rows of ``values`` per key, keys in sorted order (explicit loop)."""
    out = {}
    for i, key in enumerate(keys.tolist()):
        out[key] = out.get(key, 0.0) + values[i]
    return np.array([out[key] for key in sorted(out)])


def _expanded(stats_a, stats_b, counts=None, strata=None):
    """Rows (A | B [| stratum]) repeated by their multiplicity, sorted (a multiset)."""
    cols = [stats_a, stats_b] + ([] if strata is None else [np.asarray(strata)[:, None]])
    rows = np.hstack(cols).astype(np.float64)
    if counts is not None:
        rows = np.repeat(rows, np.rint(counts).astype(int), axis=0)
    return rows[np.lexsort(rows.T[::-1])]


def _members(groups):
    """Item indices of every cluster, clusters in the sorted order of their ids."""
    return [np.flatnonzero(groups == g) for g in np.unique(groups)]


def _acc(y, pred):
    return float(np.mean(y == pred))


def _f1(labels):
    return lambda y, pred: float(
        f1_score(y, pred, labels=labels, average="macro", zero_division=0.0))


def _soft_acc(y, pred):
    return float(np.mean(np.sum(y * pred, axis=1)))


# ------------------------------------------------------- cluster rows
@pytest.mark.parametrize("metric", [ACCURACY, F1_MACRO])
@pytest.mark.parametrize("compress", ["auto", False])
def test_cluster_rows_are_groupby_sums_of_item_statistics(metric, compress):
    y, a, b, groups = _clustered(G=40, seed=3)
    paired = prepare_paired(y, a, b, metric, groups=groups, compress=compress)
    assert paired.clustered and paired.n_groups == 40 and paired.n_units == 40
    assert paired.n_samples == y.size
    assert paired.counts is None  # 40 distinct clusters: nothing to merge
    # rows are the clusters in the sorted order of their ids
    np.testing.assert_allclose(paired.stats_a, _groupby_sum(_item_stats(metric, paired, y, a),
                                                            groups), rtol=0, atol=1e-12)
    np.testing.assert_allclose(paired.stats_b, _groupby_sum(_item_stats(metric, paired, y, b),
                                                            groups), rtol=0, atol=1e-12)
    plain = prepare_paired(y, a, b, metric)
    assert paired.score_a == pytest.approx(plain.score_a, abs=1e-15)
    assert paired.score_b == pytest.approx(plain.score_b, abs=1e-15)


def test_cluster_rows_of_a_soft_metric_generic_path():
    y, qa, qb, groups = _soft()
    paired = prepare_paired(y, qa, qb, SOFT_ACCURACY, groups=groups)
    assert paired.n_groups == 30 and paired.counts is None
    np.testing.assert_allclose(
        paired.stats_a, _groupby_sum(_item_stats(SOFT_ACCURACY, paired, y, qa), groups),
        rtol=0, atol=1e-12)
    np.testing.assert_allclose(
        paired.stats_b, _groupby_sum(_item_stats(SOFT_ACCURACY, paired, y, qb), groups),
        rtol=0, atol=1e-12)


@pytest.mark.parametrize("metric", [ACCURACY, F1_MACRO])
def test_cluster_rows_with_sample_weight_are_weighted_sums(metric):
    y, a, b, groups = _clustered(G=35, seed=4)
    w = np.random.default_rng(5).uniform(0.2, 3.0, y.size)
    paired = prepare_paired(y, a, b, metric, groups=groups, sample_weight=w)
    want_a = _groupby_sum(w[:, None] * _item_stats(metric, paired, y, a), groups)
    want_b = _groupby_sum(w[:, None] * _item_stats(metric, paired, y, b), groups)
    np.testing.assert_allclose(paired.stats_a, want_a, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(paired.stats_b, want_b, rtol=1e-12, atol=1e-12)
    weighted = prepare_paired(y, a, b, metric, sample_weight=w)
    assert paired.score_b - paired.score_a == pytest.approx(
        weighted.score_b - weighted.score_a, abs=1e-12)


def test_runs_with_groups_sum_the_items_mean_statistics():
    rng = np.random.default_rng(6)
    y, a, b, groups = _clustered(G=25, seed=6)
    n = y.size
    runs_a = [a, np.where(rng.random(n) < 0.3, (a + 1) % 3, a), rng.integers(0, 3, n)]
    runs_b = [b, np.where(rng.random(n) < 0.2, y, b)]
    paired = prepare_paired_runs(y, runs_a, runs_b, F1_MACRO, groups=groups)
    assert paired.n_groups == 25
    mean_a = np.mean([_item_stats(F1_MACRO, paired, y, r) for r in runs_a], axis=0)
    mean_b = np.mean([_item_stats(F1_MACRO, paired, y, r) for r in runs_b], axis=0)
    np.testing.assert_allclose(paired.stats_a, _groupby_sum(mean_a, groups), atol=1e-12)
    np.testing.assert_allclose(paired.stats_b, _groupby_sum(mean_b, groups), atol=1e-12)


@pytest.mark.parametrize("with_strata", [False, True])
def test_identical_cluster_rows_merge_with_their_multiplicities(with_strata):
    # 600 clusters of 2 binary items: at most 3 x 3 x ... distinct cluster rows
    rng = np.random.default_rng(7)
    G = 600
    groups = np.repeat(np.arange(G), 2)
    y = rng.integers(0, 2, 2 * G)
    a, b = rng.integers(0, 2, 2 * G), rng.integers(0, 2, 2 * G)
    strata = (groups % 3) if with_strata else None
    paired = prepare_paired(y, a, b, ACCURACY, groups=groups, strata=strata)
    assert paired.counts is not None and paired.stats_a.shape[0] * 4 <= G
    assert paired.counts.sum() == G and paired.n_groups == G
    assert np.all(paired.counts == np.rint(paired.counts)) and np.all(paired.counts >= 1)
    want_a = _groupby_sum(_item_stats(ACCURACY, paired, y, a), groups)
    want_b = _groupby_sum(_item_stats(ACCURACY, paired, y, b), groups)
    group_strata = None if strata is None else np.arange(G) % 3
    np.testing.assert_array_equal(
        _expanded(paired.stats_a, paired.stats_b, paired.counts, paired.row_strata),
        _expanded(want_a, want_b, None, group_strata))
    # distinct rows only
    rows = np.hstack([paired.stats_a, paired.stats_b]
                     + ([] if strata is None else [paired.row_strata[:, None]]))
    assert np.unique(rows, axis=0).shape[0] == rows.shape[0]


@pytest.mark.parametrize("metric", [ACCURACY, F1_MACRO])
def test_strata_split_cells_with_item_counts(metric):
    y, a, b, _ = _clustered(G=80, seed=8)
    strata = np.array(["news", "web", "forum"])[np.random.default_rng(9).integers(0, 3, y.size)]
    paired = prepare_paired(y, a, b, metric, strata=strata)
    assert paired.compressed and paired.stratified and paired.n_strata == 3
    assert paired.n_groups is None and paired.n_units == y.size
    sa, sb = _item_stats(metric, paired, y, a), _item_stats(metric, paired, y, b)
    codes = np.unique(strata, return_inverse=True)[1].ravel()
    want = collections.Counter(
        (int(codes[i]),) + tuple(sa[i]) + tuple(sb[i]) for i in range(y.size))
    got = collections.Counter()
    for r in range(paired.stats_a.shape[0]):
        key = (int(paired.row_strata[r]),) + tuple(paired.stats_a[r]) + tuple(paired.stats_b[r])
        got[key] += int(paired.counts[r])
    assert got == want
    # the same cell in two strata is two rows
    assert paired.stats_a.shape[0] > prepare_paired(y, a, b, metric).stats_a.shape[0]


def test_strata_on_the_generic_path_tag_every_item_row():
    y, qa, qb, _ = _soft()
    strata = np.arange(y.shape[0]) % 4
    paired = prepare_paired(y, qa, qb, SOFT_ACCURACY, strata=strata)
    assert paired.counts is None
    np.testing.assert_array_equal(paired.row_strata, strata)
    np.testing.assert_allclose(paired.stats_a, _item_stats(SOFT_ACCURACY, paired, y, qa))


# ---------------------------------------------------------------- seeds
@pytest.mark.parametrize("seed", [0, 12345, 2**63 + 7])
@pytest.mark.parametrize("stream", [0, 1, 2, 9])
def test_resample_keys_stream_is_a_spawned_seed_sequence(seed, stream):
    key = (0,) if stream == 0 else (0, stream)
    # odd and even counts, below and above the multipliers' cache bound, each
    # twice (the second call reads the cached multipliers)
    for n in (1, 2, 257, 999, 1000, 20_001, 0, 257, 999, 20_001):
        want = np.random.SeedSequence(seed, spawn_key=key).generate_state(n, dtype=np.uint64)
        got = resample_keys(seed, n, stream)
        assert got.dtype == np.uint64 and got.flags.writeable
        np.testing.assert_array_equal(got, want)


# ------------------------------------------------------ cluster bootstrap
def _kernel_draws(seed, B, n_rows, m, stream=0):
    """The generic kernel's row indices (its documented counter generator)."""
    return P._indices(resample_keys(seed, B, stream), m, n_rows)


@pytest.mark.parametrize("metric", [ACCURACY, F1_MACRO])
def test_cluster_bootstrap_equals_item_recomputation_on_the_same_clusters(metric):
    y, a, b, groups = _clustered(G=30, seed=10)
    paired = prepare_paired(y, a, b, metric, groups=groups)
    assert paired.counts is None
    B = 60
    sums_a, sums_b = R.bootstrap_sums(paired, B, seed=11, parallel=False)
    # the resample size is G clusters, not N items
    members = _members(groups)
    score = _acc if metric is ACCURACY else _f1(paired.params["labels"])
    idx = _kernel_draws(11, B, 30, 30)
    want = []
    for row in idx:
        items = np.concatenate([members[g] for g in row])
        want.append(score(y[items], b[items]) - score(y[items], a[items]))
    np.testing.assert_allclose(paired.deltas(sums_a, sums_b), want, rtol=0, atol=1e-12)


def test_cluster_permutation_equals_item_recomputation_on_the_same_swaps():
    y, a, b, groups = _clustered(G=30, seed=12)
    paired = prepare_paired(y, a, b, ACCURACY, groups=groups)
    B = 50
    sums_a, sums_b = R.permutation_sums(paired, B, seed=13, parallel=False)
    members = _members(groups)
    # a cluster whose summed difference is 0 carries no swap bit
    D = (_groupby_sum(_item_stats(ACCURACY, paired, y, b), groups)
         - _groupby_sum(_item_stats(ACCURACY, paired, y, a), groups))
    differ = np.flatnonzero(np.any(D != 0, axis=1))
    bits = P._swap_bits(resample_keys(13, B), differ.size)
    for r in range(B):
        swap = np.zeros(y.size, dtype=bool)
        for g in differ[bits[r]]:
            swap[members[g]] = True
        a_s, b_s = np.where(swap, b, a), np.where(swap, a, b)
        want = _acc(y, b_s) - _acc(y, a_s)
        assert paired.deltas(sums_a[r], sums_b[r]) == pytest.approx(want, abs=1e-12)


# ----------------------------------------------------- stratified bootstrap
def test_stratified_bootstrap_equals_per_stratum_draws():
    """Generic path: stratum h draws n_h of its rows from the keys of stream h."""
    y, qa, qb, _ = _soft(G=40)
    strata = np.random.default_rng(14).integers(0, 3, y.shape[0])
    paired = prepare_paired(y, qa, qb, SOFT_ACCURACY, strata=strata)
    B = 40
    sums_a, sums_b = R.bootstrap_sums(paired, B, seed=15, parallel=False)
    want = np.zeros(B)
    parts_a, parts_b = np.zeros((B, 2)), np.zeros((B, 2))
    for h in range(3):
        rows = np.flatnonzero(strata == h)
        idx = rows[_kernel_draws(15, B, rows.size, rows.size, stream=h)]
        parts_a += _item_stats(SOFT_ACCURACY, paired, y, qa)[idx].sum(axis=1)
        parts_b += _item_stats(SOFT_ACCURACY, paired, y, qb)[idx].sum(axis=1)
    want = parts_b[:, 0] / parts_b[:, 1] - parts_a[:, 0] / parts_a[:, 1]
    np.testing.assert_allclose(paired.deltas(sums_a, sums_b), want, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(sums_a[:, 1], y.shape[0])


@pytest.mark.parametrize("fraction", [None, 0.5])
def test_stratified_bootstrap_joins_once_with_the_bits_of_per_stratum_calls(fraction):
    """The joined rows split by one sort of the codes: the sums of the naive twin
    (each stratum its own PairedData, joined and bootstrapped on its own)."""
    from sigtest._engine.resampling import bootstrap as BS

    y, qa, qb, _ = _soft(G=40)
    strata = np.random.default_rng(21).integers(0, 4, y.shape[0])
    qb[strata == 1] = qa[strata == 1]  # a stratum where A and B rows coincide
    paired = prepare_paired(y, qa, qb, SOFT_ACCURACY, strata=strata)
    assert paired.counts is None and paired.n_strata == 4
    B = 50
    got = R.bootstrap_sums(paired, B, sample_size=fraction, seed=22, parallel=False)
    want_a, want_b = np.zeros((B, 2)), np.zeros((B, 2))
    for h in range(4):
        rows = np.flatnonzero(paired.row_strata == h)
        sub = BS._stratum(paired, rows)
        m = rows.size if fraction is None else max(1, int(np.floor(fraction * rows.size + 1e-9)))
        part_a, part_b = BS._bootstrap_sums(sub, B, m, 22, h, False)
        want_a += part_a
        want_b += part_b
    np.testing.assert_array_equal(got[0], want_a)
    np.testing.assert_array_equal(got[1], want_b)


def test_reduce_columns_small_and_large_paths_agree(monkeypatch):
    from sigtest._engine.resampling import rows as RW

    rng = np.random.default_rng(23)
    x = rng.random(30)
    cases = [
        np.column_stack([x, np.ones(30), x, np.ones(30), rng.random(30), x]),
        np.column_stack([np.zeros(30), -np.zeros(30), np.full(30, np.nan), x]),
        np.column_stack([x, np.where(x > 0.5, 0.0, -0.0), np.where(x > 0.5, 0.0, 0.0)]),
        np.asfortranarray(np.column_stack([x, x * 2, x])),
        np.column_stack([x, rng.random(30)]),  # every column kept: M itself
        np.ones((1, 3)),
        rng.integers(0, 2, (30, 4)),
    ]
    small = [RW._reduce_columns(M) for M in cases]
    monkeypatch.setattr(RW, "_SMALL_REDUCE", 0)
    large = [RW._reduce_columns(M) for M in cases]
    for M, s, lg in zip(cases, small, large):
        for a, b in zip(s, lg):
            assert a.dtype == b.dtype and a.flags.c_contiguous == b.flags.c_contiguous
            np.testing.assert_array_equal(a, b)
        assert (s[0] is M) == (lg[0] is M)
    assert small[4][0] is cases[4]
    np.testing.assert_array_equal(small[0][1], [0, -1, 0, -1, 1, 0])


def test_stratified_cluster_bootstrap_equals_per_stratum_cluster_draws():
    y, a, b, groups = _clustered(G=45, seed=16, max_size=9)
    codes = np.unique(groups, return_inverse=True)[1].ravel()
    strata = np.array(["s0", "s1", "s2"])[codes % 3]  # clusters nest in strata
    paired = prepare_paired(y, a, b, ACCURACY, groups=groups, strata=strata)
    assert paired.counts is None and paired.n_units == 45
    B = 40
    sums_a, sums_b = R.bootstrap_sums(paired, B, seed=17, parallel=False)
    members = _members(groups)
    want = np.zeros((B, 2))
    for h in range(3):
        clusters = np.flatnonzero(np.arange(45) % 3 == h)
        drawn = clusters[_kernel_draws(17, B, clusters.size, clusters.size, stream=h)]
        for r in range(B):
            items = np.concatenate([members[g] for g in drawn[r]])
            want[r] += [np.sum(y[items] == a[items]), np.sum(y[items] == b[items])]
    np.testing.assert_array_equal(sums_a[:, 0], want[:, 0])
    np.testing.assert_array_equal(sums_b[:, 0], want[:, 1])


def test_stratified_bootstrap_keeps_every_stratum_size_compressed_cells():
    """strata = the gold class: f1's true-class count column k (statistics
    ``[tp_k, predicted_k, true_k, 1]``) is the size of stratum k, fixed."""
    y, a, b, _ = _clustered(G=150, seed=18)
    paired = prepare_paired(y, a, b, F1_MACRO, strata=y)
    assert paired.compressed
    K = 3
    sums_a, sums_b = R.bootstrap_sums(paired, 500, seed=19)
    n_k = np.bincount(y, minlength=K)
    for sums in (sums_a, sums_b):
        np.testing.assert_array_equal(sums[:, 2 * K:3 * K], np.tile(n_k, (500, 1)))
    # without strata the class sizes vary between resamples (the check can fail)
    plain_a, _ = R.bootstrap_sums(prepare_paired(y, a, b, F1_MACRO), 500, seed=19)
    assert np.ptp(plain_a[:, 2 * K]) > 0


def test_stratified_cluster_bootstrap_keeps_every_stratum_size_merged_clusters():
    """Clusters of one gold class h and size h + 2: stratum sizes in items are fixed."""
    rng = np.random.default_rng(20)
    cls = rng.integers(0, 3, 900)  # the class (= stratum) of each cluster
    sizes = cls + 2
    groups = np.repeat(np.arange(900), sizes)
    y = np.repeat(cls, sizes)
    a = np.where(rng.random(y.size) < 0.8, y, (y + 1) % 3)
    b = np.where(rng.random(y.size) < 0.8, y, (y + 2) % 3)
    paired = prepare_paired(y, a, b, F1_MACRO, groups=groups, strata=y)
    assert paired.counts is not None  # identical clusters merged
    sums_a, sums_b = R.bootstrap_sums(paired, 400, seed=21)
    n_k = np.bincount(y, minlength=3)
    for sums in (sums_a, sums_b):
        np.testing.assert_array_equal(sums[:, 6:9], np.tile(n_k, (400, 1)))


def test_stratified_bootstrap_sample_size_is_a_fraction_per_stratum():
    y, a, b, _ = _clustered(G=100, seed=22)
    paired = prepare_paired(y, a, b, F1_MACRO, strata=y)
    sums_a, _ = R.bootstrap_sums(paired, 100, sample_size=0.5, seed=23)
    n_k = np.bincount(y, minlength=3)
    np.testing.assert_array_equal(sums_a[:, 6:9],
                                  np.tile(np.floor(0.5 * n_k + 1e-9), (100, 1)))
    with pytest.raises(ValueError, match="sample_size"):
        R.bootstrap_sums(paired, 10, sample_size=7, seed=0)


# -------------------------------------------------------------- jackknife
def _loo_clusters(score, y, a, b, groups):
    """Delete-one-cluster values of A and B, explicit loop over the raw items."""
    ta, tb = [], []
    for items in _members(groups):
        keep = np.ones(len(y), dtype=bool)
        keep[items] = False
        ta.append(score(y[keep], a[keep]))
        tb.append(score(y[keep], b[keep]))
    return np.array(ta), np.array(tb)


def _acceleration(theta, strata=None):
    """BCa acceleration from leave-one-out values; per-stratum influence values
    ``L_i = (n_h - 1)(mean_h - theta_i)`` (boot::empinf, type="jack")."""
    theta = np.asarray(theta, dtype=np.float64)
    strata = np.zeros(theta.size, int) if strata is None else np.asarray(strata)
    L = np.empty_like(theta)
    for h in np.unique(strata):
        rows = strata == h
        n_h = rows.sum()
        L[rows] = (n_h - 1) * (theta[rows].mean() - theta[rows])
    if strata.max() == 0:  # unstratified: the usual d_i = mean - theta_i (scale-free)
        L = theta.mean() - theta
    return np.sum(L**3) / (6 * np.sum(L**2) ** 1.5)


@pytest.mark.parametrize("case", ["accuracy", "f1_macro", "soft", "slow"])
def test_delete_one_cluster_jackknife_equals_explicit_loops(case):
    if case == "soft":
        y, a, b, groups = _soft(G=25)
        metric, score = SOFT_ACCURACY, _soft_acc
    else:
        y, a, b, groups = _clustered(G=25, seed=24)
        metric = {"accuracy": ACCURACY, "f1_macro": F1_MACRO, "slow": ACC_SLOW}[case]
        score = _f1(np.arange(3)) if case == "f1_macro" else _acc
    paired = prepare_paired(y, a, b, metric, groups=groups)
    theta_a, theta_b, weights = R.jackknife_values(paired)
    want_a, want_b = _loo_clusters(score, y, a, b, groups)
    np.testing.assert_array_equal(weights, np.ones(25))
    np.testing.assert_allclose(theta_a, want_a, rtol=0, atol=1e-12)
    np.testing.assert_allclose(theta_b, want_b, rtol=0, atol=1e-12)
    assert jackknife_acceleration(paired) == pytest.approx(_acceleration(want_b - want_a),
                                                           rel=1e-9)


def test_delete_one_cluster_jackknife_of_merged_rows_weights_them():
    rng = np.random.default_rng(25)
    groups = np.repeat(np.arange(200), 2)
    y, a, b = rng.integers(0, 2, 400), rng.integers(0, 2, 400), rng.integers(0, 2, 400)
    paired = prepare_paired(y, a, b, ACCURACY, groups=groups)
    assert paired.counts is not None
    theta_a, theta_b, weights = R.jackknife_values(paired)
    want_a, want_b = _loo_clusters(_acc, y, a, b, groups)
    got = np.sort(np.repeat(theta_b - theta_a, np.rint(weights).astype(int)))
    np.testing.assert_allclose(got, np.sort(want_b - want_a), atol=1e-12)
    assert jackknife_acceleration(paired) == pytest.approx(_acceleration(want_b - want_a),
                                                           rel=1e-9)


@pytest.mark.parametrize("metric", [ACCURACY, F1_MACRO])
def test_stratified_acceleration_equals_empinf_jackknife_items(metric):
    y, a, b, _ = _clustered(G=40, seed=26)
    strata = np.random.default_rng(27).integers(0, 3, y.size)
    paired = prepare_paired(y, a, b, metric, strata=strata)
    assert paired.compressed
    score = _acc if metric is ACCURACY else _f1(np.arange(3))
    theta = []
    for i in range(y.size):
        keep = np.arange(y.size) != i
        theta.append(score(y[keep], b[keep]) - score(y[keep], a[keep]))
    want = _acceleration(theta, strata)
    assert jackknife_acceleration(paired) == pytest.approx(want, rel=1e-9)
    # the stratified influence values differ from the unstratified ones
    assert abs(want - _acceleration(theta)) > 1e-6 * abs(want)


@pytest.mark.parametrize("metric", [ACCURACY, ACC_SLOW])
def test_stratified_acceleration_equals_empinf_jackknife_clusters(metric):
    y, a, b, groups = _clustered(G=36, seed=28)
    codes = np.unique(groups, return_inverse=True)[1].ravel()
    cluster_strata = np.random.default_rng(29).integers(0, 2, 36)
    paired = prepare_paired(y, a, b, metric, groups=groups, strata=cluster_strata[codes])
    want_a, want_b = _loo_clusters(_acc, y, a, b, groups)
    want = _acceleration(want_b - want_a, cluster_strata)
    assert jackknife_acceleration(paired) == pytest.approx(want, rel=1e-9)


# ------------------------------------------------------------- slow path
def test_slow_path_cluster_bootstrap_equals_documented_draws():
    """bootstrap_scores: batches of (256, G) cluster indices from default_rng(seed)."""
    y, a, b, groups = _clustered(G=20, k=2, seed=30)
    paired = prepare_paired(y, a, b, MCC_SLOW, groups=groups)
    B = 40
    scores = R.bootstrap_scores(paired, B, seed=31)
    rng = np.random.default_rng(31)
    idx = rng.integers(0, 20, (B, 20))  # one batch (B < 256)
    members = _members(groups)
    for r in range(B):
        items = np.concatenate([members[g] for g in idx[r]])
        assert scores[r, 0] == pytest.approx(matthews_corrcoef(y[items], a[items]), abs=1e-12)
        assert scores[r, 1] == pytest.approx(matthews_corrcoef(y[items], b[items]), abs=1e-12)


def test_slow_path_cluster_permutation_equals_documented_swaps():
    y, a, b, groups = _clustered(G=20, k=2, seed=32)
    paired = prepare_paired(y, a, b, MCC_SLOW, groups=groups)
    B = 40
    deltas = R.permutation_deltas(paired, B, seed=33)
    codes = np.unique(groups, return_inverse=True)[1].ravel()
    swaps = (np.random.default_rng(33).random((B, 20)) < 0.5)[:, codes]
    for r in range(B):
        a_s, b_s = np.where(swaps[r], b, a), np.where(swaps[r], a, b)
        want = matthews_corrcoef(y, b_s) - matthews_corrcoef(y, a_s)
        assert deltas[r] == pytest.approx(want, abs=1e-12)


def test_slow_path_cluster_resampling_agrees_with_fast_path():
    """Slow (no statistics) and fast accuracy: same distributions within MC error.

    The two paths use different generators, so they agree only in law. With
    B = 1000 independent resamples each, the difference of the means has SE
    ``sd * sqrt(2 / B)`` and the log-ratio of two standard deviations has SE
    ``~ sqrt(1 / B) = 0.032`` (near-normal deltas); 5 SE (a two-sided normal
    tail of 6e-7 per check) gives the tolerances. The item-level distributions
    (sd ~0.69x the cluster ones here: log-ratio ~ -0.37) must lie beyond
    twice that tolerance, so the comparison can fail.
    """
    y, a, b, groups = _clustered(G=60, seed=34, max_size=24)
    B = 1000
    fast = prepare_paired(y, a, b, ACCURACY, groups=groups)
    slow = prepare_paired(y, a, b, ACC_SLOW, groups=groups)
    items = prepare_paired(y, a, b, ACCURACY)
    boot_fast = fast.deltas(*R.bootstrap_sums(fast, B, seed=35))
    boot_slow = R.bootstrap_deltas(slow, B, seed=36)
    boot_items = items.deltas(*R.bootstrap_sums(items, B, seed=37))
    perm_fast = fast.deltas(*R.permutation_sums(fast, B, seed=38))
    perm_slow = R.permutation_deltas(slow, B, seed=39)
    perm_items = items.deltas(*R.permutation_sums(items, B, seed=40))
    tol = 5 * np.sqrt(1 / B)
    for f, s, i in ((boot_fast, boot_slow, boot_items), (perm_fast, perm_slow, perm_items)):
        sd = f.std()
        assert abs(f.mean() - s.mean()) < 5 * sd * np.sqrt(2 / B)
        assert abs(np.log(s.std() / sd)) < tol
        assert abs(np.log(i.std() / sd)) > 2 * tol


# ------------------------------------------- public tests vs plain NumPy
def _strata_data(seed=41):
    """Two strata where B is far better (stratum 0) or far worse (stratum 1),
    120 clusters of 2-10 items, each cluster in one stratum with its own
    A-vs-B effect: the four designs (items, clusters, strata, both) give
    bootstrap sds at least ~0.37 apart on the log scale (measured)."""
    rng = np.random.default_rng(seed)
    G = 120
    sizes = rng.integers(2, 11, G)
    groups = np.repeat(np.arange(G), sizes)
    strata = groups % 2
    n = groups.size
    shift = rng.normal(0, 0.3, G)[groups]  # a per-cluster A-vs-B effect
    p_a = np.clip(np.where(strata == 0, 0.1, 0.9) - shift, 0, 1)
    p_b = np.clip(np.where(strata == 0, 0.9, 0.1) + shift, 0, 1)
    y = rng.integers(0, 2, n)
    a = np.where(rng.random(n) < p_a, y, 1 - y)
    b = np.where(rng.random(n) < p_b, y, 1 - y)
    return y, a, b, groups, strata


def _numpy_bootstrap(y, a, b, units, unit_strata, B, rng):
    """Plain NumPy bootstrap of accuracy(B) - accuracy(A) over ``units``
    (cluster or item ids), drawing within each stratum of ``unit_strata``."""
    n_units = int(units.max()) + 1
    right_a = np.bincount(units, weights=(a == y), minlength=n_units)
    right_b = np.bincount(units, weights=(b == y), minlength=n_units)
    size = np.bincount(units, minlength=n_units).astype(float)
    tot = np.zeros((3, B))
    for h in np.unique(unit_strata):
        members = np.flatnonzero(unit_strata == h)
        idx = members[rng.integers(0, members.size, (B, members.size))]
        tot += [right_a[idx].sum(1), right_b[idx].sum(1), size[idx].sum(1)]
    return (tot[1] - tot[0]) / tot[2]


@pytest.mark.parametrize("design", ["groups", "strata", "groups+strata"])
def test_public_bootstrap_null_equals_a_numpy_bootstrap_within_mc_error(design):
    """BK's (and BCa's) bootstrap differences follow the plain NumPy cluster /
    stratified bootstrap: the log-ratio of their standard deviations is within
    5 SE (``SE ~ sqrt(1 / B) = 0.016`` for two independent samples of B = 4000
    near-normal values; a two-sided normal tail of 6e-7), and the other
    designs' NumPy bootstraps lie beyond twice that tolerance (so a wrong
    resample size, a missing or spurious stratification would fail)."""
    y, a, b, groups, strata = _strata_data()
    G = int(groups.max()) + 1
    B = 4000
    kw = {"groups": groups if "groups" in design else None,
          "strata": strata if "strata" in design else None}
    bk = BergKirkpatrickBootstrap(n_resamples=B, random_state=42).test(y, a, b, **kw)
    bca = BCaInterval(n_resamples=B, random_state=43).test(y, a, b, **kw)
    assert bk.n_groups == (G if "groups" in design else None)
    assert bk.n_strata == (2 if "strata" in design else None)
    rng = np.random.default_rng(44)
    items = np.arange(y.size)
    twins = {
        "groups": _numpy_bootstrap(y, a, b, groups, np.zeros(G, int), B, rng),
        "strata": _numpy_bootstrap(y, a, b, items, strata, B, rng),
        "groups+strata": _numpy_bootstrap(y, a, b, groups, np.arange(G) % 2, B, rng),
        "items": _numpy_bootstrap(y, a, b, items, np.zeros(y.size, int), B, rng),
    }
    tol = 5 * np.sqrt(1 / B)
    for dist in (bk.null_distribution, bca.null_distribution):
        sd = np.std(dist)
        assert abs(np.mean(dist) - np.mean(twins[design])) < 5 * sd * np.sqrt(2 / B)
        assert abs(np.log(np.std(twins[design]) / sd)) < tol
        for other, twin in twins.items():
            if other != design:
                assert abs(np.log(np.std(twin) / sd)) > 2 * tol, other


def test_public_cluster_permutation_null_equals_numpy_cluster_sign_flips():
    """PairedPermutation(groups=) against plain NumPy swaps of whole clusters
    (same 5-SE tolerance on the log-ratio of the sds as above, B = 4000); the
    item-level swaps lie beyond twice the tolerance; strata change nothing."""
    y, a, b, groups, strata = _strata_data(seed=45)
    B = 4000
    res = PairedPermutation(n_resamples=B, exact=False, random_state=46).test(
        y, a, b, groups=groups)
    res_strata = PairedPermutation(n_resamples=B, exact=False, random_state=46).test(
        y, a, b, groups=groups, strata=strata)
    np.testing.assert_array_equal(res.null_distribution, res_strata.null_distribution)
    assert res.pvalue == res_strata.pvalue
    rng = np.random.default_rng(47)
    n = y.size

    def flips(units):
        d = np.bincount(units, weights=(b == y).astype(float) - (a == y))
        swap = rng.random((B, d.size)) < 0.5
        delta = d.sum() / n
        return delta - 2 * (swap * d).sum(axis=1) / n

    cluster, item = flips(groups), flips(np.arange(n))
    tol = 5 * np.sqrt(1 / B)
    sd = np.std(res.null_distribution)
    assert abs(np.log(np.std(cluster) / sd)) < tol
    assert abs(np.log(np.std(item) / sd)) > 2 * tol


# ----------------------------------------------------------- determinism
@pytest.mark.parametrize("design", ["groups", "strata", "groups+strata"])
def test_design_results_ignore_item_order_and_threads(design):
    """Rows are clusters in the sorted order of their ids (or cells), so
    shuffling the items with their ids, or running serial instead of
    threaded kernels, gives bit-identical distributions and p-values."""
    y, a, b, groups, strata = _strata_data(seed=48)
    kw = {"groups": groups if "groups" in design else None,
          "strata": strata if "strata" in design else None}
    order = np.random.default_rng(49).permutation(y.size)
    kw_shuffled = {k: None if v is None else v[order] for k, v in kw.items()}
    # 40 000 resamples x 120 clusters is above the engine's threading threshold
    # (4e6 kernel operations), so n_jobs=None runs the threaded kernels there
    for test in (BergKirkpatrickBootstrap(n_resamples=40_000, random_state=50),
                 BCaInterval(n_resamples=500, random_state=51),
                 PairedPermutation(n_resamples=40_000, exact=False, random_state=52)):
        res = test.test(y, a, b, **kw)
        shuffled = test.test(y[order], a[order], b[order], **kw_shuffled)
        serial = test.set_params(n_jobs=1).test(y, a, b, **kw)
        for other in (shuffled, serial):
            np.testing.assert_array_equal(other.null_distribution, res.null_distribution)
            assert other.pvalue == res.pvalue
            assert other.confidence_interval == res.confidence_interval


# ------------------------------------------------------------- bad design
@pytest.mark.parametrize(
    "groups, strata, match",
    [
        (np.arange(9), None, "'groups'.*9 ids"),
        (np.zeros((10, 2)), None, "'groups'.*1-D"),
        (np.r_[np.arange(9.0), np.nan], None, "'groups'.*NaN"),
        (np.array([None] + ["x"] * 9, dtype=object), None, "'groups'.*missing"),
        (np.zeros(10, int), None, "'groups'.*single cluster"),
        (np.array([1.5 + 1j] * 10), None, "'groups'.*ints or strings"),
        (None, np.arange(11), "'strata'.*11 ids"),
        (None, np.array([[0]] * 10), "'strata'.*1-D"),
        (np.arange(10) // 2, np.arange(10) % 2, "'groups'.*several strata"),
    ],
)
def test_check_design_rejects_bad_ids_naming_the_argument(groups, strata, match):
    with pytest.raises(ValueError, match=match):
        check_design(groups, strata, 10)
    y = np.arange(10) % 2
    with pytest.raises(ValueError, match=match):
        prepare_paired(y, y, 1 - y, ACCURACY, groups=groups, strata=strata)
    with pytest.raises(ValueError, match=match):
        prepare_paired_runs(y, [y], [1 - y], ACCURACY, groups=groups, strata=strata)


def test_check_design_encodes_ids_in_sorted_order():
    design = check_design(["b", "a", "c", "a"], [2, 1, 2, 1], 4)
    np.testing.assert_array_equal(design.item_groups, [1, 0, 2, 0])
    np.testing.assert_array_equal(design.item_strata, [1, 0, 1, 0])
    np.testing.assert_array_equal(design.group_strata, [0, 1, 1])
    assert (design.n_groups, design.n_strata) == (3, 2)
    assert check_design(None, None, 4).empty


# ------------------------------------------------------------------ docs
DOCS = Path(__file__).resolve().parents[2] / "docs" / "clustered.md"
# a python block directly followed (after an optional "Output:") by a text block
_EXAMPLE = re.compile(r"```python\n((?:(?!```).)*?)```\s*(?:Output:\s*)?```text\n(.*?)```", re.S)


def test_docs_clustered_examples_print_their_documented_output():
    """The examples of docs/clustered.md run and print exactly what the page shows."""
    examples = _EXAMPLE.findall(DOCS.read_text(encoding="utf-8"))
    assert len(examples) == 2
    for code, expected in examples:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(code, str(DOCS), "exec"), {"__name__": "docs_example"})
        assert out.getvalue().strip() == expected.strip()
