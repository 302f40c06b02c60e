"""sigtest.score: one system's score with a bootstrap interval (issue 10, section 3).

Checked against scipy on the same bootstrap distribution (same interval
code), against naive NumPy bootstraps written here (plain, cluster,
stratified: within Monte Carlo error), against the Wilson interval of a
proportion at large N, against naive jackknifes for the BCa acceleration,
and by a seeded coverage simulation on clustered data (slow suite).
"""

import dataclasses
import inspect
import math
import time
import types
import warnings

import numpy as np
import pytest
from scipy import stats

import sigtest
from sigtest import ConfidenceInterval, ScoreResult, SignificanceResult, get_metric
from sigtest._engine import prepare_paired
from sigtest.tests_._score import score_acceleration, score_paired
from sigtest.exceptions import DegenerateDistributionWarning, SmallSampleWarning
from sigtest.metrics import Metric


def _system(seed, n, k=2, acc=0.8):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    p = np.where(rng.random(n) < acc, y, (y + rng.integers(1, k, n)) % k)
    return y, p


def _clustered(seed, G, lo=10, hi=50, mu=1.4, sigma=1.0):
    """G clusters of lo..hi items; P(correct) = expit(mu + sigma * u_g) per cluster."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(lo, hi + 1, G)
    prob = 1.0 / (1.0 + np.exp(-(mu + sigma * rng.standard_normal(G))))
    groups = np.repeat(np.arange(G), sizes)
    correct = rng.random(groups.size) < prob[groups]
    y = rng.integers(0, 2, groups.size)
    return y, np.where(correct, y, 1 - y), groups


def _quiet(**kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SmallSampleWarning)
        return sigtest.score(**kw)


# ------------------------------------------------------------------ API contract
def test_public_names_and_signatures():
    assert "score" in sigtest.__all__ and "ScoreResult" in sigtest.__all__
    params = inspect.signature(sigtest.score).parameters
    assert list(params)[:3] == ["y_true", "y_pred", "metric"]
    assert params["metric"].default == "accuracy"
    expected = {"confidence_level": 0.95, "method": "bca", "n_resamples": 9999,
                "groups": None, "strata": None, "random_state": None,
                "sample_weight": None, "labels": None, "n_jobs": None}
    for name, default in expected.items():
        assert params[name].kind is inspect.Parameter.KEYWORD_ONLY
        assert params[name].default == default
    # the engine-level core that ComparisonResult.scores() uses
    sp = inspect.signature(score_paired).parameters
    assert list(sp) == ["paired", "confidence_level", "method", "n_resamples", "seed",
                        "n_jobs"]
    assert (sp["confidence_level"].default, sp["method"].default, sp["n_resamples"].default,
            sp["seed"].default, sp["n_jobs"].default) == (0.95, "bca", 9999, 0, None)


def test_result_fields_and_immutability():
    y, p = _system(0, 400)
    res = sigtest.score(y, p, n_resamples=500, random_state=0)
    assert isinstance(res, ScoreResult)
    assert isinstance(res.confidence_interval, ConfidenceInterval)
    assert res.estimate == np.mean(y == p)
    assert res.metric == "accuracy" and res.method == "bca" and res.confidence_level == 0.95
    assert res.n_resamples == 500 and res.n_samples == 400
    assert res.n_groups is None and res.n_strata is None
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.estimate = 1.0
    with pytest.raises(ValueError):
        res.bootstrap_distribution[0] = 0.0
    d = res.to_dict()
    assert d["ci_low"] == res.confidence_interval.low and d["ci_high"] == res.confidence_interval.high
    assert "n_groups" not in d and "n_strata" not in d and "bootstrap_distribution" not in d
    assert len(res.to_dict(include_distribution=True)["bootstrap_distribution"]) == 500
    text = str(res)
    assert "accuracy" in text and "95% CI (bca)" in text and "clustered" not in text
    # ci() recomputes the same interval from the stored distribution, another on request
    assert res.ci() == res.confidence_interval
    wide = res.ci(0.99)
    assert wide.low <= res.confidence_interval.low and wide.high >= res.confidence_interval.high


def test_design_is_reported():
    y, p, g = _clustered(1, 40)
    strata = g % 3
    res = sigtest.score(y, p, groups=g, strata=strata, n_resamples=300, random_state=0)
    assert (res.n_groups, res.n_strata) == (40, 3)
    assert "clustered: 40 groups" in str(res) and "stratified: 3 strata" in str(res)
    assert res.to_dict()["n_groups"] == 40 and res.to_dict()["n_strata"] == 3
    # the same fields on the result of a test, filled by whoever runs the test
    r = SignificanceResult(metric="accuracy", test="bca", score_a=0.5, score_b=0.6, delta=0.1,
                           statistic=0.1, pvalue=0.01, n_groups=60, n_strata=3)
    assert "clustered: 60 groups" in str(r) and "stratified: 3 strata" in str(r)
    assert r.to_dict()["n_groups"] == 60 and r.to_dict()["n_strata"] == 3
    plain = SignificanceResult(metric="accuracy", test="bca", score_a=0.5, score_b=0.6,
                               delta=0.1, statistic=0.1, pvalue=0.01)
    assert plain.n_groups is None and "n_groups" not in plain.to_dict()
    assert "clustered" not in str(plain)


# ------------------------------------------------------------------ determinism
@pytest.mark.parametrize("metric, kw", [("accuracy", {}), ("f1_macro", {"zero_division": 0.0})])
def test_same_seed_bit_identical(metric, kw):
    y, p, g = _clustered(2, 50)
    for design in ({}, {"groups": g}, {"strata": g % 4}, {"groups": g, "strata": g % 4}):
        r1 = sigtest.score(y, p, metric, n_resamples=700, random_state=3, **design, **kw)
        r2 = sigtest.score(y, p, metric, n_resamples=700, random_state=3, **design, **kw)
        assert np.array_equal(r1.bootstrap_distribution, r2.bootstrap_distribution)
        assert r1.confidence_interval == r2.confidence_interval
        assert r1.acceleration == r2.acceleration
        r3 = sigtest.score(y, p, metric, n_resamples=700, random_state=4, **design, **kw)
        assert not np.array_equal(r1.bootstrap_distribution, r3.bootstrap_distribution)


def test_score_is_the_engine_score_paired():
    y, p = _system(3, 300, k=3)
    res = sigtest.score(y, p, "f1_macro", n_resamples=400, random_state=5)
    direct = score_paired(prepare_paired(y, p, p, "f1_macro"), n_resamples=400, seed=res.seed)
    assert np.array_equal(res.bootstrap_distribution, direct.bootstrap_distribution)
    assert res.confidence_interval == direct.confidence_interval


# ------------------------------------------------------------------ scipy, same distribution
def _scipy_ci(res, data, statistic, method, level):
    boot = types.SimpleNamespace(bootstrap_distribution=np.array(res.bootstrap_distribution))
    assert statistic(*data) == res.estimate  # ties with the estimate count alike
    return stats.bootstrap(data, statistic, paired=True, vectorized=False, n_resamples=0,
                           bootstrap_result=boot, method=method,
                           confidence_level=level).confidence_interval


CASES = [
    # seed, N, K, metric, params, weighted (generic rows instead of cells)
    (0, 150, 2, "accuracy", {}, False),
    (1, 120, 3, "f1_macro", {"zero_division": 0.0}, False),
    (2, 90, 3, "precision_weighted", {"zero_division": 0.0}, False),
    (3, 40, 2, "accuracy", {}, False),  # coarse distribution: many ties with the estimate
    (4, 100, 3, "recall_macro", {"zero_division": 0.0}, True),
]


@pytest.mark.parametrize("method", ["bca", "percentile", "basic"])
@pytest.mark.parametrize("seed, n, k, metric, params, weighted", CASES)
def test_same_distribution_same_interval_as_scipy(method, seed, n, k, metric, params,
                                                  weighted):
    # scipy recomputes the interval from our distribution with its own item
    # jackknife (N metric calls) and tie rule: the endpoints agree to rounding
    y, p = _system(seed, n, k, 0.7)
    level = 0.9 if seed % 2 else 0.95
    w = np.ones(n) if weighted else None
    res = _quiet(y_true=y, y_pred=p, metric=metric, method=method, confidence_level=level,
                 n_resamples=1500, random_state=seed, sample_weight=w, **params)
    m = get_metric(metric)
    labels = np.unique(np.concatenate([y, p]))

    def stat(yy, pp):
        return m(yy, pp, labels=labels, **params)

    ref = _scipy_ci(res, (y, p), stat, method, level)
    np.testing.assert_allclose(res.confidence_interval, (ref.low, ref.high), rtol=1e-9,
                               atol=1e-12)


def test_soft_metric_same_interval_as_scipy():
    rng = np.random.default_rng(5)
    n, k = 200, 3
    y = rng.dirichlet(np.ones(k), n)
    proba = 0.6 * y + 0.4 * rng.dirichlet(np.ones(k), n)
    res = sigtest.score(y, proba, "cross_entropy", n_resamples=1000, random_state=0)
    assert not res.greater_is_better and "lower is better" in str(res)
    m = get_metric("cross_entropy")
    # rows of 2-D data: scipy resamples (and jackknifes) the item indices
    ref = _scipy_ci(res, (np.arange(n),), lambda i: m(y[i], proba[i]), "BCa", 0.95)
    np.testing.assert_allclose(res.confidence_interval, (ref.low, ref.high), rtol=1e-9)


@pytest.mark.parametrize("metric", ["accuracy", "f1_macro"])
def test_weighted_items_same_interval_as_scipy(metric):
    # integer weights 1..3: the generic (weighted rows) path; scipy resamples
    # (y, p, w) together and jackknifes items with their weights
    y, p = _system(23, 150, k=3, acc=0.7)
    w = np.random.default_rng(23).integers(1, 4, 150).astype(float)
    params = {"zero_division": 0.0} if metric == "f1_macro" else {}
    res = sigtest.score(y, p, metric, sample_weight=w, n_resamples=1200, random_state=2,
                        **params)
    m = get_metric(metric)
    labels = np.unique(np.concatenate([y, p]))

    def stat(yy, pp, ww):
        return m(yy, pp, sample_weight=ww, labels=labels, **params)

    ref = _scipy_ci(res, (y, p, w), stat, "BCa", 0.95)
    np.testing.assert_allclose(res.confidence_interval, (ref.low, ref.high), rtol=1e-9)


def test_labels_fix_the_class_set():
    # a class nobody predicts nor has in the gold still counts in the macro average
    y, p = _system(24, 200, k=3, acc=0.7)
    own = sigtest.score(y, p, "f1_macro", n_resamples=300, random_state=0)
    wider = sigtest.score(y, p, "f1_macro", labels=[0, 1, 2, 3], n_resamples=300,
                          random_state=0, zero_division=0.0)
    m = get_metric("f1_macro")
    assert wider.estimate == pytest.approx(m(y, p, labels=[0, 1, 2, 3], zero_division=0.0))
    assert wider.estimate == pytest.approx(own.estimate * 3 / 4)
    assert np.all(wider.bootstrap_distribution <= 0.75 + 1e-12)


def _plain_accuracy(y_true, y_pred, *, sample_weight=None):
    return float(np.average(np.asarray(y_true) == np.asarray(y_pred), weights=sample_weight))


SLOW_ACC = Metric("plain_accuracy_for_score", _plain_accuracy)


def test_custom_metric_without_statistics():
    y, p = _system(6, 200, k=3)
    assert not SLOW_ACC.has_statistics
    res = sigtest.score(y, p, SLOW_ACC, n_resamples=800, random_state=1)
    assert res.estimate == np.mean(y == p)
    # its resamples are genuine accuracies of resamples: multiples of 1/N
    np.testing.assert_allclose(res.bootstrap_distribution * 200,
                               np.rint(res.bootstrap_distribution * 200), atol=1e-9)
    ref = _scipy_ci(res, (y, p), _plain_accuracy, "BCa", 0.95)
    np.testing.assert_allclose(res.confidence_interval, (ref.low, ref.high), rtol=1e-9)
    # same answer as the fast path within Monte Carlo error (0.2 se: ~5 sd of the
    # difference of two 2.5 % quantiles with B = 800, see test_naive_percentile)
    fast = sigtest.score(y, p, n_resamples=800, random_state=1)
    se = np.std(fast.bootstrap_distribution)
    assert abs(res.confidence_interval.low - fast.confidence_interval.low) < 0.35 * se
    assert abs(res.confidence_interval.high - fast.confidence_interval.high) < 0.35 * se
    # and bit-identical with the same seed
    again = sigtest.score(y, p, SLOW_ACC, n_resamples=800, random_state=1)
    assert np.array_equal(again.bootstrap_distribution, res.bootstrap_distribution)


def test_custom_metric_clustered_slow_path_matches_fast_path():
    y, p, g = _clustered(7, 60)
    slow = _quiet(y_true=y, y_pred=p, metric=SLOW_ACC, groups=g, n_resamples=600,
                  random_state=2)
    fast = _quiet(y_true=y, y_pred=p, groups=g, n_resamples=600, random_state=2)
    assert slow.n_groups == fast.n_groups == 60
    assert slow.estimate == pytest.approx(fast.estimate, abs=1e-15)
    # the delete-one-cluster jackknife: identical whichever path computes it
    assert slow.acceleration == pytest.approx(fast.acceleration, rel=1e-9)
    se = np.std(fast.bootstrap_distribution)
    # independent draws, B = 600: sd of the difference of two 2.5 % quantiles
    # ~0.044 se (see test_naive_percentile); 0.3 se is ~7 sd
    assert abs(slow.confidence_interval.low - fast.confidence_interval.low) < 0.3 * se
    assert abs(slow.confidence_interval.high - fast.confidence_interval.high) < 0.3 * se


# ------------------------------------------------------------------ naive NumPy twins
def _naive_percentile(values, B, seed, level=0.95, groups=None, strata=None):
    """Plain NumPy bootstrap of sum(values) / sum(sizes) over units (items or clusters)."""
    rng = np.random.default_rng(seed)
    if groups is None:
        tot, size = values.astype(float), np.ones(values.size)
        unit_strata = strata
    else:
        G = groups.max() + 1
        tot = np.bincount(groups, weights=values, minlength=G)
        size = np.bincount(groups, minlength=G).astype(float)
        unit_strata = None
        if strata is not None:
            unit_strata = np.empty(G, dtype=int)
            unit_strata[groups] = strata
    if unit_strata is None:
        idx = rng.integers(0, tot.size, (B, tot.size))
    else:  # within each stratum, keeping its size
        idx = np.hstack([own[rng.integers(0, own.size, (B, own.size))]
                         for own in (np.flatnonzero(unit_strata == h)
                                     for h in np.unique(unit_strata))])
    dist = tot[idx].sum(axis=1) / size[idx].sum(axis=1)
    alpha = (1 - level) / 2
    return np.quantile(dist, [alpha, 1 - alpha]), dist


@pytest.mark.parametrize("design", ["items", "clusters", "strata", "clusters+strata"])
def test_naive_percentile(design):
    # Monte Carlo error of a bootstrap quantile: with B draws the 2.5 % quantile
    # has sd ~ sqrt(q (1 - q) / B) / f(x_q) = 0.156 / (sqrt(B) * 0.058) se
    # ~ 0.027 se at B = 10 000 (normal shape), so the difference of two
    # independent runs has sd ~ 0.038 se; 0.2 se is ~5 sd. Plus the grid of
    # the discrete distribution (1/N at most).
    y, p, g = _clustered(8, 150)
    correct = (y == p).astype(float)
    kw = {"items": {}, "clusters": {"groups": g}, "strata": {"strata": g % 3},
          "clusters+strata": {"groups": g, "strata": g % 3}}[design]
    res = sigtest.score(y, p, method="percentile", n_resamples=10_000, random_state=0, **kw)
    (low, high), dist = _naive_percentile(correct, 10_000, 1, groups=kw.get("groups"),
                                          strata=kw.get("strata"))
    se = dist.std()
    tol = 0.2 * se + 1.0 / y.size
    assert abs(res.confidence_interval.low - low) < tol
    assert abs(res.confidence_interval.high - high) < tol
    # the spread of the whole distribution agrees too (sd of a sample sd ~ se/sqrt(2B))
    assert np.std(res.bootstrap_distribution) == pytest.approx(se, rel=0.05)


def test_strata_keep_their_sizes():
    # stratified resamples keep each stratum's size: with strata = the gold
    # class, every resample has exactly n_1 items of class 1, so its recall
    # of class 1 (correct_1 / n_1) lies on the grid 1/n_1; without strata the
    # class size varies and it does not
    y, p = _system(9, 301)
    n1 = int(np.sum(y == 1))
    strat = sigtest.score(y, p, "recall", strata=y, n_resamples=500, random_state=0,
                          method="percentile", pos_label=1)
    assert strat.n_strata == 2
    on_grid = lambda d: np.abs(d * n1 - np.rint(d * n1)) < 1e-9  # noqa: E731
    assert np.all(on_grid(strat.bootstrap_distribution))
    free = sigtest.score(y, p, "recall", n_resamples=500, random_state=0, method="percentile",
                         pos_label=1)
    assert not np.all(on_grid(free.bootstrap_distribution))
    # stratification removes the class-size variation: a (weakly) narrower spread
    assert np.std(strat.bootstrap_distribution) <= np.std(free.bootstrap_distribution) * 1.1


# ------------------------------------------------------------------ Wilson at large N
@pytest.mark.parametrize("seed, acc", [(0, 0.8), (1, 0.93)])
def test_accuracy_agrees_with_wilson_at_large_n(seed, acc):
    # N = 20 000: the bootstrap (BCa) and Wilson intervals of a proportion agree
    # to O(1/N); what remains is Monte Carlo error of the endpoints, sd ~ 0.03 se
    # at B = 10 000 (see test_naive_percentile). 0.15 se is ~5 sd.
    n = 20_000
    y, p = _system(seed, n, acc=acc)
    k = int(np.sum(y == p))
    res = sigtest.score(y, p, n_resamples=10_000, random_state=seed)
    wilson = stats.binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    se = math.sqrt(res.estimate * (1 - res.estimate) / n)
    assert abs(res.confidence_interval.low - wilson.low) < 0.15 * se
    assert abs(res.confidence_interval.high - wilson.high) < 0.15 * se


# ------------------------------------------------------------------ jackknife acceleration
def test_acceleration_equals_naive_item_jackknife():
    y, p = _system(10, 100, k=3, acc=0.6)
    res = sigtest.score(y, p, "f1_macro", n_resamples=200, random_state=0, zero_division=0.0)
    m = get_metric("f1_macro")
    labels = np.unique(np.concatenate([y, p]))
    keep = np.ones(y.size, bool)
    theta = np.empty(y.size)
    for i in range(y.size):
        keep[i] = False
        theta[i] = m(y[keep], p[keep], labels=labels, zero_division=0.0)
        keep[i] = True
    d = theta.mean() - theta
    assert res.acceleration == pytest.approx((d**3).sum() / (6 * (d**2).sum() ** 1.5),
                                             rel=1e-9)


def test_acceleration_equals_naive_cluster_jackknife():
    y, p, g = _clustered(11, 30)
    res = _quiet(y_true=y, y_pred=p, groups=g, n_resamples=200, random_state=0)
    theta = np.array([np.mean(y[g != h] == p[g != h]) for h in range(30)])
    d = theta.mean() - theta
    assert res.acceleration == pytest.approx((d**3).sum() / (6 * (d**2).sum() ** 1.5),
                                             rel=1e-9)


def test_acceleration_stratified_influence_values():
    # boot::empinf(type="jack") with strata: L_i = (n_h - 1)(mean_h - theta_(i))
    y, p, g = _clustered(12, 45)
    strata = g % 3
    paired = prepare_paired(y, p, p, "accuracy", groups=g, strata=strata)
    theta = np.array([np.mean(y[g != h] == p[g != h]) for h in range(45)])
    group_strata = np.array([strata[g == h][0] for h in range(45)])
    L = np.empty(45)
    for s in range(3):
        own = group_strata == s
        L[own] = (own.sum() - 1) * (theta[own].mean() - theta[own])
    expected = (L**3).sum() / (6 * (L**2).sum() ** 1.5)
    assert score_acceleration(paired) == pytest.approx(expected, rel=1e-9)


# ------------------------------------------------------------------ clusters widen
def test_groups_widen_the_interval_on_clustered_data():
    y, p, g = _clustered(13, 80, sigma=1.5)
    items = sigtest.score(y, p, n_resamples=3000, random_state=0)
    clusters = sigtest.score(y, p, groups=g, n_resamples=3000, random_state=0)
    width = lambda r: r.confidence_interval.high - r.confidence_interval.low  # noqa: E731
    # intra-cluster correlation of this design gives a design effect well above 2
    assert width(clusters) > 1.5 * width(items)
    assert clusters.estimate == items.estimate


def test_groups_of_singletons_are_the_item_bootstrap():
    # every item its own cluster: the same statistics rows, hence the same interval
    # in distribution (within Monte Carlo error; the rows are not cells here)
    y, p = _system(14, 500)
    res = sigtest.score(y, p, groups=np.arange(500), n_resamples=4000, random_state=0,
                        method="percentile")
    ref = sigtest.score(y, p, n_resamples=4000, random_state=1, method="percentile")
    se = np.std(ref.bootstrap_distribution)
    assert res.n_groups == 500
    # B = 4000: sd of the difference of two 2.5 % quantiles ~0.06 se; 0.3 se ~5 sd
    assert abs(res.confidence_interval.low - ref.confidence_interval.low) < 0.3 * se + 1 / 500
    assert abs(res.confidence_interval.high - ref.confidence_interval.high) < 0.3 * se + 1 / 500


# ------------------------------------------------------------------ degenerate / small
@pytest.mark.parametrize("n", [1, 7, 30, 100])
def test_perfect_or_all_wrong_system_gets_the_clopper_pearson_interval(n):
    """Every item right (or every one wrong): the bootstrap distribution is one
    point, so no bootstrap interval has width (it was nan, issue 20). The score
    is a proportion of n independent items: the exact Clopper-Pearson interval,
    checked against scipy, at the result's level and through ci()."""
    y, _ = _system(15, n)
    wrong = (y + 1) % 2
    for pred, k in ((y, n), (wrong, 0)):
        for method in ("bca", "percentile", "basic"):
            with pytest.warns(DegenerateDistributionWarning, match="Clopper-Pearson"):
                res = sigtest.score(y, pred, method=method, n_resamples=200, random_state=0)
            assert res.estimate == k / n and res.n_trials == n
            for level in (0.95, 0.8):
                ref = stats.binomtest(k, n).proportion_ci(level, method="exact")
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", DegenerateDistributionWarning)
                    ci = res.confidence_interval if level == 0.95 else res.ci(level)
                assert tuple(ci) == pytest.approx((ref.low, ref.high), rel=1e-12, abs=1e-15)
            assert res.confidence_interval.low <= res.estimate <= res.confidence_interval.high
        assert "Clopper-Pearson" in str(res)


@pytest.mark.slow
def test_coverage_near_a_perfect_system():
    """Coverage of the 95 % interval of an accuracy of .99 on N = 30 items (1000
    seeded replications): 74 % of the samples are all correct, where the interval
    was nan (coverage .249 measured on the old code); now Clopper-Pearson there.
    Band: at least .95 - 3.09 sd of a binomial proportion over 1000 replications
    (sd = sqrt(.95 * .05 / 1000) = .0069; one-sided 99.9 %: .929). Measured .998."""
    rng = np.random.default_rng([2025, 30])
    reps, n, p = 1000, 30, 0.99
    y = np.zeros(n, int)
    covered = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(reps):
            pred = np.where(rng.random(n) < p, 0, 1)
            res = sigtest.score(y, pred, n_resamples=999, random_state=int(rng.integers(2**31)))
            covered += res.confidence_interval.low <= p <= res.confidence_interval.high
    assert covered / reps >= 0.95 - 3.09 * math.sqrt(0.95 * 0.05 / reps)


def test_constant_score_that_is_not_a_proportion_is_a_point_with_warning():
    """No independent 0/1 items (weights, clusters, a soft score): the point."""
    y, _ = _system(15, 60)
    groups = np.repeat(np.arange(20), 3)
    for kw in ({"sample_weight": np.full(60, 2.0)}, {"groups": groups}):
        with pytest.warns(DegenerateDistributionWarning, match="single point"):
            res = sigtest.score(y, y, n_resamples=200, random_state=0, **kw)
        assert res.n_trials is None and tuple(res.confidence_interval) == (1.0, 1.0)
    soft_y = np.tile([[1.0, 0.0]], (60, 1))
    soft_p = np.tile([[0.7, 0.3]], (60, 1))
    with pytest.warns(DegenerateDistributionWarning, match="single point"):
        res = sigtest.score(soft_y, soft_p, "soft_accuracy", n_resamples=200, random_state=0)
    assert res.n_trials is None
    assert tuple(res.confidence_interval) == pytest.approx((0.7, 0.7), rel=1e-12)


def test_small_samples_warn():
    y, p = _system(16, 20)
    with pytest.warns(SmallSampleWarning, match="N = 20 items"):
        sigtest.score(y, p, n_resamples=200, random_state=0)
    y, p, g = _clustered(17, 12)
    with pytest.warns(SmallSampleWarning, match="12 clusters"):
        sigtest.score(y, p, groups=g, n_resamples=200, random_state=0)
    y, p, g = _clustered(18, 40)
    with warnings.catch_warnings():
        warnings.simplefilter("error", SmallSampleWarning)
        sigtest.score(y, p, groups=g, n_resamples=200, random_state=0)


def test_lone_stratum_warns():
    y, p, g = _clustered(25, 40)
    strata = np.where(g == 0, 1, 0)  # cluster 0 alone in its stratum
    with pytest.warns(SmallSampleWarning, match="1 of 2 strata hold a single cluster"):
        res = sigtest.score(y, p, groups=g, strata=strata, n_resamples=300, random_state=0)
    assert res.n_strata == 2
    with warnings.catch_warnings():
        warnings.simplefilter("error", SmallSampleWarning)
        sigtest.score(y, p, groups=g, strata=g % 2, n_resamples=300, random_state=0)


def test_undefined_resamples_are_dropped_with_warning():
    # precision of class 1 is 0/0 on resamples without a predicted 1
    y = np.array([0] * 30 + [1] * 2)
    p = np.array([0] * 31 + [1])
    with pytest.warns(DegenerateDistributionWarning, match="not finite"):
        res = sigtest.score(y, p, "precision", n_resamples=500, random_state=0,
                            zero_division=np.nan, method="percentile", pos_label=1)
    assert 0 < res.n_resamples < 500
    assert res.n_resamples == res.bootstrap_distribution.size


# ------------------------------------------------------------------ validation
@pytest.mark.parametrize("kw, name", [
    ({"confidence_level": 1.0}, "confidence_level"),
    ({"confidence_level": "0.9"}, "confidence_level"),
    ({"method": "student"}, "method"),
    ({"n_resamples": 0}, "n_resamples"),
    ({"n_resamples": 2.5}, "n_resamples"),
    ({"random_state": -1}, "random_state"),
    ({"random_state": "x"}, "random_state"),
    ({"metric": 3}, "metric"),
    ({"groups": 5}, "groups"),
])
def test_bad_parameters_name_themselves(kw, name):
    y, p = _system(19, 50)
    with pytest.raises((ValueError, TypeError), match=f"'{name}'"):
        sigtest.score(y, p, **kw)


def test_bad_data_name_the_argument():
    y, p, g = _clustered(20, 30)
    with pytest.raises(ValueError, match="'y_pred'"):
        sigtest.score(y, p[:-1])
    with pytest.raises(ValueError, match="'groups'"):
        sigtest.score(y, p, groups=g[:-1])
    with pytest.raises(ValueError, match="'strata'"):
        sigtest.score(y, p, strata=np.zeros((y.size, 2)))
    with pytest.raises(ValueError, match="single cluster"):
        sigtest.score(y, p, groups=np.zeros(y.size, int))
    with pytest.raises(ValueError, match="several"):  # a cluster spanning two strata
        sigtest.score(y, p, groups=g, strata=np.arange(y.size) % 2)
    with pytest.raises(ValueError, match="not a known metric"):
        sigtest.score(y, p, "no_such_metric")


def test_unknown_keyword_is_a_type_error():
    y, p = _system(21, 50)
    with pytest.raises(TypeError, match=r"score\(\) got unexpected keyword.*zero_divison"):
        sigtest.score(y, p, zero_divison=0.0)


def test_score_paired_validates():
    y, p = _system(22, 50)
    paired = prepare_paired(y, p, p, "accuracy")
    with pytest.raises(TypeError, match="'paired'"):
        score_paired((y, p))
    with pytest.raises(ValueError, match="'n_resamples'"):
        score_paired(paired, n_resamples=0)
    with pytest.raises(ValueError, match="'method'"):
        score_paired(paired, method="bc")
    with pytest.raises(ValueError, match="'confidence_level'"):
        score_paired(paired, confidence_level=0.0)
    with pytest.raises(ValueError, match="'seed'"):
        score_paired(paired, seed=-3)


# ------------------------------------------------------------------ coverage (slow)
def _logit_normal_mean(mu, sigma):
    # E[expit(mu + sigma Z)] by Gauss-Hermite quadrature (error < 1e-12 here)
    x, w = np.polynomial.hermite_e.hermegauss(80)
    return float(np.sum(w / (1 + np.exp(-(mu + sigma * x)))) / np.sqrt(2 * np.pi))


@pytest.mark.slow
def test_coverage_on_clustered_data():
    # 200 clusters of 10-50 items sharing a random effect on the logit of
    # P(correct); sizes are independent of the effects, so the pooled accuracy
    # estimates E[expit(mu + sigma Z)] (the ratio estimator, bias O(1/G)).
    # R = 2000 replications: a 95 % interval's coverage count is Binomial(2000,
    # 0.95), sd 0.0049; the 99.9 % band is 0.95 +- 3.29 sd = [0.934, 0.966].
    # The cluster bootstrap is first-order correct; with G = 200 its known
    # under-coverage ((G-1)/G variance, BCa at n = 200) is < 0.5 %, well
    # inside the band. The item-level interval ignores the intra-cluster
    # correlation (design effect ~ 1 + (m - 1) ICC ~ 4 here) and must cover
    # far less: reported, and checked below 0.8.
    mu, sigma, G, R = 1.4, 1.0, 200, 2000
    truth = _logit_normal_mean(mu, sigma)
    hits = np.zeros(2, dtype=int)
    start = time.perf_counter()
    for r in range(R):
        y, p, g = _clustered(1000 + r, G, mu=mu, sigma=sigma)
        cl = sigtest.score(y, p, groups=g, n_resamples=1000, random_state=r)
        it = sigtest.score(y, p, n_resamples=1000, random_state=r, method="percentile")
        hits[0] += cl.confidence_interval.low <= truth <= cl.confidence_interval.high
        hits[1] += it.confidence_interval.low <= truth <= it.confidence_interval.high
    elapsed = time.perf_counter() - start
    coverage = hits / R
    print(f"coverage clustered BCa {coverage[0]:.3f}, item-level {coverage[1]:.3f} "
          f"(R={R}, {elapsed:.1f} s)")
    assert 0.934 <= coverage[0] <= 0.966
    assert coverage[1] < 0.8
