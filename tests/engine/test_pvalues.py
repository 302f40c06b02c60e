"""Unit tests of the p-value and interval formulas on hand-made distributions."""

import math
import warnings

import numpy as np
import pytest
from scipy.special import ndtr, ndtri

from sigtest._engine.intervals import (
    acceleration_from_jackknife as _acceleration,
    bootstrap_interval as _bootstrap_interval,
    interval_pvalue as _interval_pvalue,
    proportion_below as _proportion_below,
)
from sigtest.exceptions import DegenerateDistributionWarning
from sigtest._engine.pvalues import berg_kirkpatrick_pvalue
from sigtest._engine.pvalues import permutation_pvalue


def test_berg_kirkpatrick_counts_ties_with_tolerance():
    t = 0.1
    thr = 2 * t
    t_star = np.array([thr, thr * (1 - 1e-15), thr * (1 - 1e-9), 0.0, 0.5])
    # exact tie and a rounding-level tie count; 1e-9 below does not:
    # k = 3 of B = 5, p = (k + 1)/(B + 1)
    assert berg_kirkpatrick_pvalue(t_star, t, "greater") == (3 + 1) / (5 + 1)
    # mirror image for "less"
    assert berg_kirkpatrick_pvalue(-t_star, -t, "less") == (3 + 1) / (5 + 1)


def test_absolute_tolerance_for_rounded_scores():
    # delta = 0.7083333 - 0.708 (N = 3000): 2 delta and delta* computed from
    # other scores differ in the last bits of the *scores*, not of delta
    n = 3000
    t = 2125 / n - 2124 / n
    t_star = np.array([2130 / n - 2128 / n, 2000 / n - 1998 / n, 2100 / n - 2099 / n])
    # scipy rule alone loses ties
    assert berg_kirkpatrick_pvalue(t_star, t, "greater") < (2 + 1) / (3 + 1)
    atol = 100 * np.finfo(float).eps * (2125 / n + 2124 / n)
    assert berg_kirkpatrick_pvalue(t_star, t, "greater", atol=atol) == (2 + 1) / (3 + 1)
    assert permutation_pvalue(t_star[2:] * -1, t, "two-sided", atol=atol) == 1.0


def test_berg_kirkpatrick_no_evidence_is_one():
    t_star = np.array([-1.0, 0.0, 1.0])
    assert berg_kirkpatrick_pvalue(t_star, 0.0, "greater") == 1.0
    assert berg_kirkpatrick_pvalue(t_star, -0.3, "greater") == 1.0
    assert berg_kirkpatrick_pvalue(t_star, 0.3, "less") == 1.0
    assert berg_kirkpatrick_pvalue(np.zeros(10), 0.0, "two-sided") == 1.0
    assert math.isnan(berg_kirkpatrick_pvalue(t_star, math.nan, "greater"))


def test_berg_kirkpatrick_two_sided_centred():
    rng = np.random.default_rng(0)
    t = 0.05
    t_star = t + rng.normal(0, 0.03, 5000)
    p2 = berg_kirkpatrick_pvalue(t_star, t, "two-sided")
    assert p2 == (np.count_nonzero(np.abs(t_star - t) >= t) + 1) / (t_star.size + 1)
    # symmetric in A and B
    assert berg_kirkpatrick_pvalue(-t_star, -t, "two-sided") == p2
    # at least the one-sided p on the observed side, close to twice it here
    p1 = berg_kirkpatrick_pvalue(t_star, t, "greater")
    assert p1 <= p2 <= 1
    assert p2 == pytest.approx(2 * p1, abs=0.02)


def test_permutation_pvalue_monte_carlo_and_exact():
    t_star = np.array([-0.2, -0.1, 0.0, 0.1, 0.2 * (1 - 1e-15)])
    assert permutation_pvalue(t_star, 0.2, "two-sided") == (2 + 1) / (5 + 1)
    assert permutation_pvalue(t_star, 0.2, "greater") == (1 + 1) / 6
    assert permutation_pvalue(t_star, -0.2, "less") == (1 + 1) / 6
    w = np.array([0.1, 0.2, 0.4, 0.2, 0.1])
    assert permutation_pvalue(t_star, 0.2, "two-sided", w) == pytest.approx(0.2)
    assert permutation_pvalue(t_star, 0.1, "greater", w) == pytest.approx(0.3)
    assert permutation_pvalue(t_star, 0.0, "two-sided", w) == pytest.approx(1.0)
    assert math.isnan(permutation_pvalue(t_star, math.nan, "two-sided"))


def test_z0_tie_rule_counts_half():
    # 10 values below delta, 4 equal, 6 above: z0 = ndtri((10 + 2) / 20)
    dist = np.r_[np.linspace(-1, -0.1, 10), np.zeros(4), np.linspace(0.1, 1, 6)]
    assert _proportion_below(dist, 0.0) == 12 / 20
    a = 0.05
    ci = _bootstrap_interval(dist, 0.0, 0.9, "bca", a)
    z0 = ndtri(12 / 20)
    za = ndtri(0.05)
    levels = [ndtr(z0 + (z0 + z) / (1 - a * (z0 + z))) for z in (za, -za)]
    np.testing.assert_allclose(ci, np.quantile(dist, levels), rtol=1e-12)
    # a strict rule (#{< delta}/B) would give another interval: the rule matters here
    z0s = ndtri(10 / 20)
    strict = [ndtr(z0s + (z0s + z) / (1 - a * (z0s + z))) for z in (za, -za)]
    assert not np.allclose(ci, np.quantile(dist, strict))


def test_percentile_and_basic_intervals():
    rng = np.random.default_rng(1)
    dist = rng.gamma(2.0, 1.0, 999)
    lo, hi = np.quantile(dist, [0.05, 0.95])
    np.testing.assert_allclose(_bootstrap_interval(dist, 2.0, 0.9, "percentile"), (lo, hi),
                               rtol=1e-12)
    np.testing.assert_allclose(_bootstrap_interval(dist, 2.0, 0.9, "basic"),
                               (4.0 - hi, 4.0 - lo), rtol=1e-12)


def test_degenerate_interval_is_nan_with_warning():
    with pytest.warns(DegenerateDistributionWarning):
        ci = _bootstrap_interval(np.zeros(100), 0.0, 0.95, "percentile")
    assert math.isnan(ci.low) and math.isnan(ci.high)
    with pytest.warns(DegenerateDistributionWarning, match="acceleration"):
        ci = _bootstrap_interval(np.arange(10.0), 4.5, 0.95, "bca", math.nan)
    assert math.isnan(ci.low)


def test_acceleration_weighted_equals_expanded():
    theta = np.array([0.1, 0.3, 0.35, 0.9])
    w = np.array([3, 1, 5, 2])
    assert _acceleration(theta, w) == pytest.approx(_acceleration(np.repeat(theta, w)),
                                                    rel=1e-12)
    d = theta.mean() - theta
    assert _acceleration(theta) == pytest.approx((d**3).sum() / (6 * (d**2).sum() ** 1.5))
    assert math.isnan(_acceleration(np.ones(5)))


def _inverted_by_bisection(dist, delta, method, a):
    """Smallest alpha whose two-sided interval excludes 0, by bisection."""
    def excludes(alpha):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            lo, hi = _bootstrap_interval(dist, delta, 1 - alpha, method, a, warn=False)
        return lo > 0 or hi < 0

    lo, hi = 1e-9, 1 - 1e-9
    if not excludes(hi):
        return 1.0
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if excludes(mid) else (mid, hi)
    return hi


@pytest.mark.parametrize("method", ["percentile", "basic", "bca"])
@pytest.mark.parametrize("shift", [0.02, 0.05, -0.04])
def test_interval_pvalue_matches_bisection(method, shift):
    rng = np.random.default_rng(2)
    dist = shift + 0.02 * rng.standard_normal(4000) + 0.01 * rng.gamma(2, 1, 4000) - 0.02
    delta = float(np.median(dist)) + 0.002
    a = 0.03
    p = _interval_pvalue(dist, delta, method, a)
    ref = _inverted_by_bisection(dist, delta, method, a)
    # the p-value inverts the very same interval: equal up to the 2**-60
    # resolution of the reference bisection (the old closed form was off by
    # up to 3/B)
    assert p == pytest.approx(ref, abs=1e-12)
    for level in (0.5, 0.8, 0.9, 0.95, 0.99, 1 - p, 1 - p + 1e-15, 1 - p - 1e-15):
        if not 0.5 <= level < 1:
            continue
        ci = _bootstrap_interval(dist, delta, level, method, a, warn=False)
        assert (p <= 1 - level) == (ci.low > 0 or ci.high < 0), level


def test_interval_pvalue_edges():
    # 0 outside the bootstrap range: every level excludes 0; the inversion
    # gives one float step below 1 (the tests floor it at 1/(B + 1))
    assert _interval_pvalue(np.linspace(0.1, 1, 50), 0.5, "percentile") == 2.0**-53
    assert _interval_pvalue(np.zeros(50), 0.0, "percentile") == 1.0
    assert math.isnan(_interval_pvalue(np.ones(5), math.nan, "bca", 0.1))
    assert math.isnan(_interval_pvalue(np.arange(5.0), 2.0, "bca", math.nan))


@pytest.mark.parametrize("a", [0.4, -0.4, 2.0])
def test_bca_level_held_beyond_the_pole(a):
    """Where 1 - a (z0 + z) <= 0 the BCa level is held at its limit.

    The raw formula would send the upper endpoint to the low tail (a > 0) or
    the lower endpoint to the high tail (a < 0); held at 1 (or 0) the
    interval grows monotonically with the confidence level.
    """
    rng = np.random.default_rng(3)
    dist = rng.standard_normal(500)
    delta = 0.3
    lows, highs = [], []
    for level in np.linspace(0.5, 0.999999, 200):
        lo, hi = _bootstrap_interval(dist, delta, float(level), "bca", a, warn=False)
        lows.append(lo)
        highs.append(hi)
    assert np.all(np.diff(lows) <= 0) and np.all(np.diff(highs) >= 0)
    # at a level beyond the pole the endpoint is the distribution's extreme
    z0 = ndtri(_proportion_below(dist, delta))
    w = z0 - ndtri((1 - 0.999999) / 2)
    if 1 - a * w <= 0:
        end = highs[-1] if a > 0 else lows[-1]
        assert end == (dist.max() if a > 0 else dist.min())


def test_quantile_sorted_is_numpy_linear_quantile():
    """The scalar quantile of the interval code equals numpy.quantile bit for bit."""
    from sigtest._engine.intervals import quantile_sorted as _quantile_sorted

    rng = np.random.default_rng(13)
    for _ in range(500):
        n = int(rng.integers(1, 60))
        x = np.sort(rng.standard_normal(n) * 10.0 ** rng.integers(-5, 5))
        if rng.random() < 0.3:  # ties, as in counting metrics
            x = np.sort(rng.integers(-3, 3, n) / 7)
        for q in [*rng.random(5).tolist(), 0.0, 1.0, 0.5, 0.025, 0.975, 1 - 1e-16, 5e-324]:
            assert _quantile_sorted(x, q) == np.quantile(x, q)
