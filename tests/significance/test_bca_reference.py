"""BCa / percentile / basic intervals against scipy.stats.bootstrap.

Same distribution -> same interval: scipy recomputes the interval from *our*
bootstrap distribution (``bootstrap_result=..., n_resamples=0``) with its own
item jackknife (N metric calls) for the acceleration and its own tie rule
for z0 (ties count one half, which is ours). Our jackknife is closed-form and,
for compressed hard labels, per cell weighted by counts; items of one cell
are identical, so both jackknifes are equal and the endpoints agree to
rounding.
"""

import types
import warnings

import numpy as np
import pytest
from scipy import stats

from sigtest import BCaInterval, get_metric
from sigtest.exceptions import DegenerateDistributionWarning


def _systems(seed, n, k, acc_a, acc_b):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    a = np.where(rng.random(n) < acc_a, y, (y + rng.integers(1, k, n)) % k)
    b = np.where(rng.random(n) < acc_b, y, (y + rng.integers(1, k, n)) % k)
    return y, a, b


def _scipy_interval(res, y, a, b, metric, method, confidence_level, **params):
    m = get_metric(metric)
    labels = np.unique(np.concatenate([y, a, b]))

    def delta(yy, aa, bb):
        return m(yy, bb, labels=labels, **params) - m(yy, aa, labels=labels, **params)

    # the observed statistic is computed identically, so ties with it agree
    assert delta(y, a, b) == res.delta
    boot = types.SimpleNamespace(bootstrap_distribution=np.array(res.null_distribution))
    ref = stats.bootstrap((y, a, b), delta, paired=True, vectorized=False,
                          n_resamples=0, bootstrap_result=boot, method=method,
                          confidence_level=confidence_level)
    return ref.confidence_interval


CASES = [
    # seed, N, K, metric, params
    (0, 150, 2, "accuracy", {}),
    (1, 120, 3, "f1_macro", {"zero_division": 0.0}),
    (2, 200, 4, "recall_macro", {"zero_division": 0.0}),
    (3, 90, 3, "precision_weighted", {"zero_division": 0.0}),
    (4, 40, 2, "accuracy", {}),  # coarse distribution: many ties with delta
]


@pytest.mark.parametrize("method", ["bca", "percentile", "basic"])
@pytest.mark.parametrize("seed, n, k, metric, params", CASES)
def test_same_distribution_same_interval(method, seed, n, k, metric, params):
    y, a, b = _systems(seed, n, k, 0.65, 0.75)
    level = 0.9 if seed % 2 else 0.95
    res = BCaInterval(n_resamples=1500, method=method, confidence_level=level,
                      random_state=seed).test(y, a, b, metric=metric, **params)
    ref = _scipy_interval(res, y, a, b, metric, method, level, **params)
    np.testing.assert_allclose(res.confidence_interval, (ref.low, ref.high),
                               rtol=1e-9, atol=1e-12)
    # and ci() recomputes the same from the stored distribution
    np.testing.assert_allclose(res.ci(level, method), res.confidence_interval, rtol=0, atol=0)


def test_tied_case_really_has_ties():
    # guard for the tie-rule comparison above: with N=40 the distribution of
    # accuracy differences is on a 1/40 grid, so many resamples equal delta
    y, a, b = _systems(4, 40, 2, 0.65, 0.75)
    res = BCaInterval(n_resamples=1500, random_state=4).test(y, a, b)
    n_ties = np.count_nonzero(res.null_distribution == res.delta)
    assert n_ties > 50


def test_acceleration_equals_item_jackknife():
    y, a, b = _systems(5, 100, 3, 0.6, 0.7)
    res = BCaInterval(n_resamples=200, random_state=0).test(y, a, b, metric="f1_macro",
                                                            zero_division=0.0)
    m = get_metric("f1_macro")
    labels = np.unique(np.concatenate([y, a, b]))
    keep = np.ones(len(y), bool)
    theta = np.empty(len(y))
    for i in range(len(y)):
        keep[i] = False
        theta[i] = (m(y[keep], b[keep], labels=labels, zero_division=0.0)
                    - m(y[keep], a[keep], labels=labels, zero_division=0.0))
        keep[i] = True
    d = theta.mean() - theta
    ref = (d**3).sum() / (6 * (d**2).sum() ** 1.5)
    assert res.acceleration == pytest.approx(ref, rel=1e-9, abs=1e-15)


def test_generic_path_matches_scipy():
    # sample weights (all ones) disable compression: per-item closed-form jackknife
    y, a, b = _systems(6, 80, 3, 0.6, 0.75)
    res = BCaInterval(n_resamples=1000, random_state=1).test(
        y, a, b, metric="f1_macro", sample_weight=np.ones(80), zero_division=0.0)
    ref = _scipy_interval(res, y, a, b, "f1_macro", "bca", 0.95, zero_division=0.0)
    np.testing.assert_allclose(res.confidence_interval, (ref.low, ref.high), rtol=1e-9)


@pytest.mark.parametrize("seed", [0, 1])
def test_scipy_own_bca_within_monte_carlo_error(seed):
    y, a, b = _systems(10 + seed, 300, 3, 0.7, 0.76)
    res = BCaInterval(n_resamples=4000, random_state=seed).test(
        y, a, b, metric="f1_macro", zero_division=0.0)
    m = get_metric("f1_macro")
    labels = np.unique(np.concatenate([y, a, b]))

    def delta(yy, aa, bb):
        return (m(yy, bb, labels=labels, zero_division=0.0)
                - m(yy, aa, labels=labels, zero_division=0.0))

    ref = stats.bootstrap((y, a, b), delta, paired=True, vectorized=False, n_resamples=1000,
                          method="BCa", rng=np.random.default_rng(seed))
    se = np.std(res.null_distribution)
    # MC sd of a 2.5 % quantile with B draws ~ 0.06 se * sqrt(10000 / B); the
    # difference of ours (B=4000) and scipy's (B=1000) has sd ~ 0.21 se, so
    # 0.8 se is ~4 sd
    assert abs(res.confidence_interval.low - ref.confidence_interval.low) < 0.8 * se
    assert abs(res.confidence_interval.high - ref.confidence_interval.high) < 0.8 * se


def test_degenerate_identical_systems():
    y, a, _ = _systems(7, 60, 3, 0.7, 0.7)
    for method in ("bca", "percentile", "basic"):
        with pytest.warns(DegenerateDistributionWarning):
            res = BCaInterval(n_resamples=300, method=method, random_state=0).test(y, a, a)
        assert np.isnan(res.confidence_interval.low) and np.isnan(res.confidence_interval.high)
        assert res.pvalue == 1.0 and res.stars == ""


def test_pvalue_by_inversion_is_consistent_with_interval():
    y, a, b = _systems(8, 400, 3, 0.7, 0.75)
    for method in ("bca", "percentile", "basic"):
        res = BCaInterval(n_resamples=4000, method=method, random_state=2).test(y, a, b)
        p = res.pvalue
        assert 0 < p < 1
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            wide = res.ci(confidence_level=1 - p * 0.8)   # alpha below p: contains 0
            narrow = res.ci(confidence_level=1 - min(0.99, p * 1.25))  # alpha above p
        assert wide.low <= 0 <= wide.high
        assert not (narrow.low <= 0 <= narrow.high)
