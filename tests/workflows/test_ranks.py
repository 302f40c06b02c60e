"""Shared resamples and leaderboard inference: ComparisonResult.ranks() (issue 13, section 2).

The engine is checked against naive NumPy twins written here (the draws, the
sums, the max-|t| rank intervals, the T_max elimination of the model
confidence set); the statistical claims by seeded simulation with binomial
bands.
"""

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

import sigtest
from sigtest import PairedPermutation
from sigtest._engine import kernels_numpy, shared
from sigtest._engine.design import check_design
from sigtest._engine.ranking import (
    best_probability,
    model_confidence_set,
    observed_ranks,
    rank_intervals,
)
from sigtest._engine.rng import resample_keys
from sigtest.exceptions import DegenerateDistributionWarning
from sigtest.metrics import Metric

FAST = PairedPermutation(n_resamples=999)  # the pair tests are not what is tested here


def _systems(accs, n, seed, n_classes=2):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n)
    preds = {}
    for i, acc in enumerate(accs):
        wrong = (y + rng.integers(1, n_classes, n)) % n_classes
        preds[f"s{i}"] = np.where(rng.random(n) < acc, y, wrong)
    return y, preds


# ------------------------------------------------------------------ engine
@pytest.mark.parametrize("strata", [False, True])
@pytest.mark.parametrize("method", ["counts", "generic"])
def test_kernels_equal_numpy_twins_and_naive_sums(monkeypatch, strata, method):
    rng = np.random.default_rng(0)
    U, k, s = 150, 4, 3
    stats = rng.integers(0, 3, (U, k, s)).astype(float)
    unit_strata = rng.integers(0, 3, U) if strata else None
    serial = shared.shared_bootstrap_sums(stats, 40, 7, unit_strata=unit_strata,
                                          method=method, parallel=False)
    threads = shared.shared_bootstrap_sums(stats, 40, 7, unit_strata=unit_strata,
                                           method=method, parallel=True)
    monkeypatch.setenv("SIGTEST_DISABLE_NUMBA", "1")
    twin = shared.shared_bootstrap_sums(stats, 40, 7, unit_strata=unit_strata, method=method)
    assert np.array_equal(serial, twin)
    assert np.array_equal(serial, threads)
    draws = shared.shared_draws(U, 40, 7, unit_strata)
    # naive: the units each resample draws, added; strata keep their sizes
    np.testing.assert_allclose(serial, stats[draws].sum(axis=1), rtol=1e-12)
    if strata:
        for h in range(3):
            n_h = int(np.sum(unit_strata == h))
            assert np.all(np.sum(unit_strata[draws] == h, axis=1) == n_h)


@pytest.mark.parametrize("strata", [False, True])
def test_generic_count_path_equals_twin_and_naive_sums(monkeypatch, strata):
    # rows of 20,000 units x 2 systems x 2 statistics (640 KB): beyond L2, so the
    # generic method counts the draws and streams the rows (the count path)
    rng = np.random.default_rng(1)
    U, k, s, B = 20_000, 2, 2, 130  # B * U * k >= 2e6: two threads, ranges split at 128
    stats = rng.normal(size=(U, k, s))
    unit_strata = rng.integers(0, 3, U) if strata else None
    from sigtest._engine.kernels_numpy import count_path
    assert count_path(stats.reshape(U, k * s), U)
    serial = shared.shared_bootstrap_sums(stats, B, 5, unit_strata=unit_strata,
                                          method="generic", parallel=False)
    threads = shared.shared_bootstrap_sums(stats, B, 5, unit_strata=unit_strata,
                                           method="generic", parallel=True)
    monkeypatch.setenv("SIGTEST_DISABLE_NUMBA", "1")
    twin = shared.shared_bootstrap_sums(stats, B, 5, unit_strata=unit_strata, method="generic")
    assert np.array_equal(serial, twin)
    assert np.array_equal(serial, threads)
    draws = shared.shared_draws(U, B, 5, unit_strata)
    np.testing.assert_allclose(serial, stats[draws].sum(axis=1), rtol=1e-10, atol=1e-9)


def test_one_system_draws_are_the_generic_bootstrap_draws():
    # the shared draws are those of the generic bootstrap kernel (same keys,
    # same counter stream), so one system's sums are bit-identical to it
    rng = np.random.default_rng(1)
    x = rng.random((300, 2))
    out = shared.shared_bootstrap_sums(x[:, None, :], 50, 3, method="generic")
    ref = kernels_numpy.bootstrap_sums_generic(x, 300, resample_keys(3, 50))
    assert np.array_equal(out[:, 0, :], ref)


def test_system_order_and_count_of_systems_do_not_change_a_system():
    rng = np.random.default_rng(2)
    stats = rng.integers(0, 2, (400, 5, 2)).astype(float)
    out = shared.shared_bootstrap_sums(stats, 60, 11)
    perm = [3, 0, 4, 1, 2]
    assert np.array_equal(shared.shared_bootstrap_sums(stats[:, perm], 60, 11), out[:, perm])
    # a system's sums depend only on the shared draws and its own rows
    alone = shared.shared_bootstrap_sums(stats[:, [2]], 60, 11)
    assert np.array_equal(alone[:, 0], out[:, 2])


def test_cluster_unit_rows_are_cluster_sums():
    rng = np.random.default_rng(3)
    N = 60
    groups = rng.integers(0, 12, N)
    strata = (groups % 2).astype(int)
    items = [rng.random((N, 2)), rng.random((N, 2))]
    design = check_design(groups, strata, N)
    rows, unit_strata = shared.shared_unit_rows(items, design)
    assert [r.shape for r in rows] == [(12, 2), (12, 2)]
    for g in range(12):
        for j in range(2):
            np.testing.assert_allclose(rows[j][g], items[j][groups == g].sum(axis=0))
        assert unit_strata[g] == g % 2
    # the list form and the (U, k, s) stack give the same sums
    stacked = np.stack(rows, axis=1)
    for method in ("counts", "generic"):
        np.testing.assert_array_equal(
            shared.shared_bootstrap_sums(rows, 30, 2, unit_strata=unit_strata, method=method),
            shared.shared_bootstrap_sums(stacked, 30, 2, unit_strata=unit_strata,
                                         method=method))


def test_bad_method_and_shape():
    with pytest.raises(ValueError, match="method"):
        shared.shared_bootstrap_sums(np.zeros((3, 1, 1)), 5, 0, method="fast")
    with pytest.raises(ValueError, match="stats"):
        shared.shared_bootstrap_sums(np.zeros((3, 1)), 5, 0)
    with pytest.raises(ValueError, match="stats"):
        shared.shared_bootstrap_sums([np.zeros((3, 1)), np.zeros((4, 1))], 5, 0)


# -------------------------------------------------------- naive twins (maths)
def _naive_rank_intervals(theta, T, level):
    B, k = T.shape
    pairs = [(j, l) for j in range(k) for l in range(j + 1, k)]
    sd = {p: np.std(T[:, p[0]] - T[:, p[1]], ddof=1) for p in pairs}
    max_t = np.zeros(B)
    for b in range(B):
        for j, l in pairs:
            if sd[j, l] > 0:
                z = abs((T[b, j] - T[b, l]) - (theta[j] - theta[l])) / sd[j, l]
                max_t[b] = max(max_t[b], z)
    c = np.sort(max_t)[min(B, int(np.ceil(level * (B + 1)))) - 1]
    low, high = np.ones(k, int), np.full(k, k)
    for j, l in pairs:
        d = theta[j] - theta[l]
        if d - c * sd[j, l] > 0:  # j better than l
            low[l] += 1
            high[j] -= 1
        if -d - c * sd[j, l] > 0:
            low[j] += 1
            high[l] -= 1
    return low, high


def _naive_mcs(theta, T, level):
    B, k = T.shape
    alive = list(range(k))
    running = 0.0
    while len(alive) > 1:
        m = len(alive)
        d = np.array([np.mean(theta[alive]) - theta[i] for i in alive])
        dstar = np.array([[np.mean(T[b, alive]) - T[b, i] for i in alive] for b in range(B)])
        sd = np.array([np.std(dstar[:, c], ddof=1) for c in range(m)])
        t = d / sd
        tstar = np.array([max((dstar[b, c] - d[c]) / sd[c] for c in range(m))
                          for b in range(B)])
        p = (1 + np.sum(tstar >= t.max())) / (B + 1)
        running = max(running, p)
        if running >= 1 - level:
            break
        alive.pop(int(np.argmax(t)))
    return np.isin(np.arange(k), alive)


@pytest.mark.parametrize("seed", range(4))
def test_rank_intervals_and_mcs_match_naive_twins(seed):
    rng = np.random.default_rng(seed)
    k, B = 6, 300
    mu = np.sort(rng.normal(0, 1, k))
    cov = 0.5 * np.eye(k) + 0.5  # correlated, as scores on shared resamples are
    T = rng.multivariate_normal(mu, cov * 0.2, B)
    theta = mu + rng.normal(0, 0.1, k)
    low, high, better = rank_intervals(theta, T, 0.9)
    ref_low, ref_high = _naive_rank_intervals(theta, T, 0.9)
    np.testing.assert_array_equal(low, ref_low)
    np.testing.assert_array_equal(high, ref_high)
    assert np.all(low <= observed_ranks(theta)) and np.all(observed_ranks(theta) <= high)
    in_set, pvalues = model_confidence_set(theta, T, 0.9)
    np.testing.assert_array_equal(in_set, _naive_mcs(theta, T, 0.9))
    assert in_set[np.argmax(theta)]
    assert np.all(pvalues[in_set] == 1) and np.all(pvalues[~in_set] < 0.1)


def test_best_probability_splits_ties():
    T = np.array([[1.0, 1.0, 0.0], [0.0, 2.0, 1.0], [3.0, 3.0, 3.0], [0.0, 0.0, 1.0]])
    np.testing.assert_allclose(best_probability(T), [(0.5 + 1 / 3) / 4, (0.5 + 1 + 1 / 3) / 4,
                                                     (1 / 3 + 1) / 4])
    assert best_probability(T).sum() == pytest.approx(1.0)


def test_observed_ranks_share_the_best_rank_on_ties():
    np.testing.assert_array_equal(observed_ranks([0.5, 0.9, 0.5, 0.1]), [2, 1, 2, 4])


# --------------------------------------------------------------- ranks()
def test_ranks_columns_clear_best_and_consistency_with_scores():
    y, preds = _systems([0.6, 0.7, 0.95], 600, 0)
    res = sigtest.compare(y, preds, metrics=["accuracy", "f1_macro"], test=FAST,
                          random_state=0)
    table = res.ranks(n_resamples=400)
    assert list(table.columns) == ["system", "metric", "rank", "rank_low", "rank_high",
                                   "p_best", "in_best_set"]
    assert list(table["metric"]) == ["accuracy"] * 3 + ["f1_macro"] * 3
    for metric, part in table.groupby("metric"):
        part = part.set_index("system")
        assert part.loc["s2", "rank"] == 1
        assert (part.loc["s2", "rank_low"], part.loc["s2", "rank_high"]) == (1, 1)
        assert part.loc["s2", "p_best"] == 1.0
        assert list(part.in_best_set) == [False, False, True]
        assert part.p_best.sum() == pytest.approx(1.0)
    # observed ranks follow the observed scores of the comparison
    frame = res.scores()
    acc = frame[frame.metric == "accuracy"].set_index("system")["score"]
    np.testing.assert_array_equal(table[table.metric == "accuracy"]["rank"],
                                  observed_ranks(acc.to_numpy()))


def test_identical_systems_are_all_tied():
    y, preds = _systems([0.8], 400, 1)
    same = {f"copy{i}": preds["s0"].copy() for i in range(4)}
    res = sigtest.compare(y, same, metrics="accuracy", test=FAST, random_state=0)
    with np.errstate(all="ignore"):
        table = res.ranks(n_resamples=200)
    assert table["rank"].tolist() == [1] * 4
    assert table["rank_low"].tolist() == [1] * 4
    assert table["rank_high"].tolist() == [4] * 4
    assert table["in_best_set"].all()
    np.testing.assert_allclose(table["p_best"], 0.25)


def test_ranks_deterministic_and_independent_of_order_and_n_jobs():
    y, preds = _systems([0.7, 0.72, 0.74, 0.8], 500, 2, n_classes=3)
    metrics = ["f1_macro", "accuracy"]
    res = sigtest.compare(y, preds, metrics=metrics, test=FAST, random_state=5)
    first = res.ranks(n_resamples=300)
    pd.testing.assert_frame_equal(first, res.ranks(n_resamples=300))  # default seed: stable
    backwards = dict(reversed(list(preds.items())))
    res2 = sigtest.compare(y, backwards, metrics=metrics, test=FAST, random_state=5, n_jobs=2)
    for kw in ({}, {"random_state": 1}):
        a = res.ranks(n_resamples=300, **kw).set_index(["metric", "system"])
        b = res2.ranks(n_resamples=300, **kw).set_index(["metric", "system"])
        pd.testing.assert_frame_equal(a, b.loc[a.index], check_exact=True)
    assert not res.ranks(n_resamples=300, random_state=1)["p_best"].equals(first["p_best"])


def test_loss_is_ranked_smaller_is_better():
    rng = np.random.default_rng(4)
    n = 400
    y = rng.dirichlet([1, 1, 1], n)
    preds = {"good": 0.9 * y + 0.1 / 3, "bad": 0.3 * y + 0.7 / 3,
             "noise": rng.dirichlet([1, 1, 1], n)}
    res = sigtest.compare(y, preds, metrics="cross_entropy", test=FAST, random_state=0)
    table = res.ranks(n_resamples=300).set_index("system")
    assert table.loc["good", "rank"] == 1 and table.loc["good", "in_best_set"]
    assert table.loc["noise", "rank"] == 3


def test_clusters_and_strata_resample_units():
    y, preds = _systems([0.7, 0.75, 0.9], 600, 5)
    groups = np.repeat(np.arange(60), 10)
    strata = np.repeat(np.arange(2), 300)
    res = sigtest.compare(y, preds, metrics="accuracy", test=FAST, random_state=0,
                          groups=groups, strata=strata)
    table = res.ranks(n_resamples=300)
    assert table.set_index("system").loc["s2", "rank_low"] == 1
    # the cluster resamples are the engine's on the cluster rows
    item = [np.c_[(preds[s] == y).astype(float), np.ones(600)] for s in preds]
    rows, unit_strata = shared.shared_unit_rows(item, check_design(groups, strata, 600))
    assert rows[0].shape[0] == 60 and unit_strata.tolist() == [0] * 30 + [1] * 30


def test_metric_without_statistics_uses_the_same_draws():
    def plain_accuracy(y_true, y_pred, *, sample_weight=None):
        return float(np.average(np.asarray(y_true) == np.asarray(y_pred),
                                weights=sample_weight))

    slow = Metric("plain_accuracy_for_ranks", plain_accuracy)
    y, preds = _systems([0.6, 0.65, 0.9], 300, 6)
    res = sigtest.compare(y, preds, metrics=[slow, "accuracy"], test=FAST, random_state=0)
    table = res.ranks(n_resamples=200, random_state=3)
    a = table[table.metric == "accuracy"].drop(columns="metric").reset_index(drop=True)
    b = table[table.metric == "plain_accuracy_for_ranks"].drop(columns="metric")
    # the same resamples and the same accuracies: the same table (sums of 0/1
    # and means agree up to rounding, which does not move any decision here)
    pd.testing.assert_frame_equal(a, b.reset_index(drop=True), check_exact=False)


def test_bad_arguments():
    y, preds = _systems([0.6, 0.7], 100, 7)
    res = sigtest.compare(y, preds, metrics="accuracy", test=FAST, random_state=0)
    with pytest.raises(ValueError, match="'metric'"):
        res.ranks("f1_macro")
    with pytest.raises(TypeError, match="'metric'"):
        res.ranks(3)
    with pytest.raises(ValueError, match="'confidence_level'"):
        res.ranks(confidence_level=1.0)
    with pytest.raises(ValueError, match="'n_resamples'"):
        res.ranks(n_resamples=1)
    with pytest.raises(TypeError):
        res.ranks(alpha=0.1)
    runs = {k: [v, v] for k, v in preds.items()}
    each = sigtest.compare(y, runs, metrics="accuracy", test=FAST, runs="each",
                           random_state=0)
    with pytest.raises(ValueError, match="runs"):
        each.ranks()


def test_undefined_score_gives_nan_ranks_with_a_warning():
    y = np.zeros(50, dtype=int)
    preds = {"a": np.zeros(50, dtype=int), "b": np.ones(50, dtype=int)}
    res = sigtest.compare(y, preds, metrics="accuracy", test=FAST, random_state=0,
                          labels=[0, 1])
    table = res.ranks(n_resamples=50)
    assert table["rank"].tolist() == [1, 2]
    # every item differs the same way: the bootstrap difference is constant
    # and non-zero, so a is significantly better (documented rule)
    assert table["rank_high"].tolist() == [1, 2]

    def always_nan(y_true, y_pred, *, sample_weight=None):
        return float("nan")

    nan_metric = Metric("nan_for_ranks", always_nan)
    res = sigtest.compare(y, preds, metrics=nan_metric, test=FAST, random_state=0)
    with pytest.warns(DegenerateDistributionWarning, match="undefined"):
        table = res.ranks(n_resamples=20)
    assert table["rank"].isna().all() and not table["in_best_set"].any()


# --------------------------------------------------------------- simulation
def _simulate(true_acc, n, B, reps, level, seed):
    """Share of replicates where the MCS holds every truly best system, where all
    true ranks lie in their intervals (jointly), and where the one best system is
    alone in the set with rank interval [1, 1] (power)."""
    true_acc = np.asarray(true_acc)
    k = true_acc.shape[0]
    true_rank = observed_ranks(true_acc)
    best = true_acc == true_acc.max()
    rng = np.random.default_rng(seed)
    mcs_cover = rank_cover = sharp = 0
    for r in range(reps):
        # correlated correctness: a shared item difficulty, then each system
        u = rng.random(n)
        correct = (0.5 * u[:, None] + 0.5 * rng.random((n, k))) < _threshold(true_acc)
        stats = np.stack([correct.astype(float), np.ones((n, k))], axis=2)
        sums = shared.shared_bootstrap_sums(stats, B, 1000 + r)
        T = sums[:, :, 0] / sums[:, :, 1]
        theta = correct.mean(axis=0)
        in_set, _ = model_confidence_set(theta, T, level)
        low, high, _ = rank_intervals(theta, T, level)
        mcs_cover += bool(np.all(in_set[best]))
        rank_cover += bool(np.all((low <= true_rank) & (true_rank <= high)))
        top = np.argmax(true_acc)
        sharp += bool(np.array_equal(in_set, best) and low[top] == high[top] == 1)
    return mcs_cover / reps, rank_cover / reps, sharp / reps


def _threshold(acc):
    """t with P(0.5 U + 0.5 V < t) = acc for U, V ~ U(0, 1) (triangular CDF)."""
    acc = np.asarray(acc, dtype=float)
    return np.where(acc <= 0.5, np.sqrt(acc / 2), 1 - np.sqrt((1 - acc) / 2))


def test_threshold_gives_the_true_accuracy():
    rng = np.random.default_rng(0)
    z = 0.5 * rng.random(200_000) + 0.5 * rng.random(200_000)
    for acc in (0.3, 0.7, 0.85):
        assert np.mean(z < _threshold(acc)) == pytest.approx(acc, abs=0.004)


# ~1-1.5 s each on a quiet 2-core machine: not slow-marked
@pytest.mark.parametrize("true_acc", [
    [0.80, 0.80, 0.78, 0.75, 0.70],  # two tied best, close followers
    [0.72, 0.72, 0.72, 0.72],  # all tied (least favourable): the set must keep all
    [0.90, 0.80, 0.75, 0.70],  # one clearly best system
])
def test_simulated_coverage(true_acc):
    # 400 replicates at the 90 % level: coverage >= 0.9 - 3.09 sd (binomial 99.9 %
    # one-sided band, sd = sqrt(.9 .1 / 400) = .015), i.e. >= 0.854. Measured
    # (seed 11, 500 replicates): MCS / ranks 0.976 / 0.986, 0.896 / 0.908 (all
    # tied), 1.0 / 1.0 (one best); at 95 %: 0.992 / 0.996, 0.95 / 0.938, 1 / 1.
    reps, level = 400, 0.9
    mcs, ranks, sharp = _simulate(true_acc, n=400, B=400, reps=reps, level=level, seed=11)
    band = level - sps.norm.ppf(0.999) * np.sqrt(level * (1 - level) / reps)
    assert mcs >= band, (mcs, band)
    assert ranks >= band, (ranks, band)
    if len(set(true_acc)) == len(true_acc):
        # power: the clearly best system (+10 points, se of a difference ~ .025)
        # is alone in the set with rank [1, 1] in nearly every replicate
        assert sharp >= 0.95, sharp
