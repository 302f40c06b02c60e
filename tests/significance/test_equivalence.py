"""Non-inferiority and equivalence (TOST) tests: BCaInterval, PairedTTest, McNemar.

References written here: the one-sided percentile p as a proportion of the
bootstrap distribution; a TOST on the per-item differences with
``scipy.stats.t`` and statsmodels' ``ttost_paired``; Newcombe's interval
(method 10) re-implemented from Newcombe (1998) and inverted with
``scipy.optimize.brentq``; Durkalski's Wald test by hand. Then the
orientation of losses, the validation, the floors, ``str``, ``compare`` and
the CLI; the type-I error at the margin boundary is in the slow tests at
the end.
"""

import io
import math
import warnings

import numpy as np
import pytest
from scipy import optimize, stats
from scipy.special import ndtr, ndtri

from sigtest import (
    BCaInterval,
    BergKirkpatrickBootstrap,
    DegenerateDistributionWarning,
    McNemar,
    PairedPermutation,
    PairedTTest,
    SignTest,
    WilcoxonSignedRank,
    compare,
)
from sigtest._engine.intervals import bootstrap_interval, interval_pvalue, invert_interval
from sigtest.cli import main
from sigtest.exceptions import SmallSampleWarning
from sigtest.metrics import get_metric, register_metric, unregister_metric

METHODS = ("bca", "percentile", "basic")
ALTS = ("non-inferiority", "equivalence")


def _accuracy_data(n=400, p_a=0.8, p_b=0.78, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    a = np.where(rng.random(n) < p_a, y, (y + 1) % 3)
    b = np.where(rng.random(n) < p_b, y, (y + 2) % 3)
    return y, a, b


def _soft_data(n=200, seed=0, shift=0.0):
    rng = np.random.default_rng(seed)
    y = rng.dirichlet(np.ones(3), n)
    a = 0.5 * rng.dirichlet(np.ones(3), n) + 0.5 * y
    b = (0.5 - shift) * rng.dirichlet(np.ones(3), n) + (0.5 + shift) * y
    return y, a, b


def _table_data(n11, n10, n01, n00, seed=0):
    """Binary labels with the given paired table (A right/wrong x B right/wrong), shuffled."""
    rng = np.random.default_rng(seed)
    right_a = np.repeat([1, 1, 0, 0], [n11, n10, n01, n00]).astype(bool)
    right_b = np.repeat([1, 0, 1, 0], [n11, n10, n01, n00]).astype(bool)
    order = rng.permutation(right_a.size)
    right_a, right_b = right_a[order], right_b[order]
    y = rng.integers(0, 2, right_a.size)
    return y, np.where(right_a, y, 1 - y), np.where(right_b, y, 1 - y)


def _oriented(ci, greater_is_better):
    low, high = ci
    return (low, high) if greater_is_better else (-high, -low)


def _shown(res, alternative, margin, gib):
    low, high = _oriented(res.confidence_interval, gib)
    if alternative == "non-inferiority":
        return bool(low > -margin)
    return bool(low > -margin and high < margin)


# ------------------------------------------------------------ the inversion
@pytest.mark.parametrize("seed", range(4))
def test_one_sided_inversion_agrees_with_the_interval_at_every_level(seed):
    """(p <= (1 - c)/2) == (low at c > t0), and the mirror, for every method."""
    rng = np.random.default_rng(seed)
    dist = rng.normal(0.01, 0.02, 999) + rng.exponential(0.005, 999)
    delta, acc = 0.012, 0.03
    levels = np.r_[np.linspace(0.5, 0.99, 40), 0.9, 0.95, 0.98]
    for method in METHODS:
        for t0 in (-0.03, -0.01, 0.0, 0.02, 0.05):
            p_g = interval_pvalue(dist, delta, method, acc, null_value=t0, side="greater")
            p_l = interval_pvalue(dist, delta, method, acc, null_value=t0, side="less")
            for c in levels:
                low, high = bootstrap_interval(dist, delta, c, method, acc, warn=False)
                assert (p_g <= (1 - c) / 2) == (low > t0)
                assert (p_l <= (1 - c) / 2) == (high < t0)


def test_one_sided_percentile_p_is_the_bootstrap_proportion():
    """Naive twin: the percentile lower bound at one-sided level g is the (1 - g)
    quantile, so p(H0: delta <= t0) is the proportion of delta* at or below t0
    (up to the interpolation between adjacent order statistics: 1/B)."""
    rng = np.random.default_rng(3)
    dist = rng.normal(0.0, 1.0, 4000)
    for t0 in (-2.0, -1.0, -0.3, 0.0, 0.4, 1.5):
        p = interval_pvalue(dist, 0.0, "percentile", null_value=t0, side="greater")
        assert p == pytest.approx(np.mean(dist <= t0), abs=1.5 / dist.size)
        p = interval_pvalue(dist, 0.0, "percentile", null_value=t0, side="less")
        assert p == pytest.approx(np.mean(dist >= t0), abs=1.5 / dist.size)


def test_two_sided_inversion_unchanged_at_zero():
    rng = np.random.default_rng(1)
    dist = rng.normal(0.02, 0.01, 999)
    for method in METHODS:
        assert interval_pvalue(dist, 0.02, method, 0.01) == interval_pvalue(
            dist, 0.02, method, 0.01, null_value=0.0, side="two-sided")


def test_invert_interval_of_a_normal_family_is_the_normal_p():
    """A closed-form family (estimate +- z se) inverts to the z-test's p-values."""
    est, se = 0.3, 0.2

    def fam(c):
        z = -ndtri((1 - c) / 2)
        return est - z * se, est + z * se

    for t0 in (-0.5, 0.0, 0.25, 0.9):
        assert invert_interval(fam, t0, "greater") == pytest.approx(
            ndtr(-(est - t0) / se), rel=1e-9, abs=1e-15)
        assert invert_interval(fam, t0, "less") == pytest.approx(
            ndtr((est - t0) / se), rel=1e-9, abs=1e-15)
        assert invert_interval(fam, t0, "two-sided") == pytest.approx(
            2 * ndtr(-abs(est - t0) / se), rel=1e-9, abs=1e-15)
    with pytest.raises(ValueError, match="side"):
        invert_interval(fam, 0.0, "up")


# ------------------------------------------------------------ BCaInterval
@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("alternative", ALTS)
def test_bca_pvalue_and_interval_agree(method, alternative):
    """p <= alpha iff the one-sided bound is above -margin (the 1 - 2 alpha
    interval inside the margins), on random data, at margins around the bounds."""
    for seed in range(3):
        y, a, b = _accuracy_data(n=300, p_a=0.8, p_b=0.8 - 0.02 * seed, seed=seed)
        for level in (0.9, 0.95):
            base = BCaInterval(n_resamples=999, method=method, random_state=seed,
                               confidence_level=level, alternative=alternative, margin=1.0)
            ref = base.test(y, a, b)
            lo, hi = ref.ci(2 * level - 1, method)
            ends = [abs(lo), abs(hi)]
            for margin in sorted({*np.linspace(0.005, 0.12, 12), *ends,
                                  *(e * (1 + s) for e in ends for s in (-1e-9, 1e-9))}):
                if margin <= 0:
                    continue
                res = base.set_params(margin=float(margin)).test(y, a, b)
                alpha = 1 - level
                assert (res.pvalue <= alpha) == _shown(res, alternative, margin, True)
                assert res.margin == margin and res.alternative == alternative
                if alternative == "non-inferiority":
                    assert res.confidence_interval.high == math.inf
                    assert res.confidence_level == level
                    assert res.pvalue == res.params["pvalue_lower"]
                else:
                    assert res.confidence_level == 2 * level - 1
                    assert res.pvalue == max(res.params["pvalue_lower"],
                                             res.params["pvalue_upper"])


def test_bca_interval_is_the_two_sided_one_at_one_minus_two_alpha():
    y, a, b = _accuracy_data(n=500, seed=4)
    for method in METHODS:
        res = BCaInterval(n_resamples=1999, method=method, random_state=1,
                          alternative="equivalence", margin=0.2).test(y, a, b)
        plain = BCaInterval(n_resamples=1999, method=method, random_state=1,
                            confidence_level=0.9).test(y, a, b)
        assert tuple(res.confidence_interval) == tuple(plain.confidence_interval)
        ni = BCaInterval(n_resamples=1999, method=method, random_state=1,
                         alternative="non-inferiority", margin=0.2).test(y, a, b)
        assert ni.confidence_interval.low == plain.confidence_interval.low


def _negated(name):
    """A copy of a loss metric turned into a score (values negated)."""
    m = get_metric(name)
    new = f"minus_{name}_equivalence_test"
    register_metric(new, statistics=m.statistics, aggregate=lambda s, **kw: -m.aggregate(s, **kw),
                    greater_is_better=True, input_type=m.input_type, cellwise=m.cellwise,
                    decomposable=m.decomposable)
    return new


@pytest.mark.parametrize("alternative", ALTS)
def test_loss_is_oriented(alternative):
    """A loss (jsd) and the same metric negated into a score give the same p;
    the interval of the loss is the mirror of the score's; B with the lower
    loss is the better one."""
    name = _negated("jsd")
    try:
        y, a, b = _soft_data(n=200, seed=2, shift=0.05)
        for method in METHODS:
            test = BCaInterval(n_resamples=999, method=method, random_state=0,
                               alternative=alternative, margin=0.02)
            loss, score = test.test(y, a, b, metric="jsd"), test.test(y, a, b, metric=name)
            assert loss.delta == pytest.approx(-score.delta, abs=1e-15)
            assert loss.pvalue == pytest.approx(score.pvalue, rel=1e-6, abs=1e-12)
            low, high = loss.confidence_interval
            assert (low, high) == pytest.approx(
                (-score.confidence_interval.high, -score.confidence_interval.low), rel=1e-9)
            if alternative == "non-inferiority":
                assert low == -math.inf and high < math.inf  # an upper bound on the loss
        # B has the lower loss here: non-inferiority is shown at a modest margin
        res = BCaInterval(n_resamples=999, random_state=0, alternative="non-inferiority",
                          margin=0.01).test(y, a, b, metric="jsd")
        assert res.delta < 0 and res.pvalue < 0.05
        assert res.confidence_interval.high < 0.01
        # ... and is not shown the other way round (A worse by a lot)
        res = BCaInterval(n_resamples=999, random_state=0, alternative="non-inferiority",
                          margin=0.001).test(y, b, a, metric="jsd")
        assert res.pvalue > 0.5
    finally:
        unregister_metric(name)


def test_bca_floor_keeps_its_meaning():
    """3 discordant items, all for B: the bootstrap alone would give a tiny p;
    it is floored at 2**-3 and the bound is moved to the margin (with a warning)."""
    y, a, b = _table_data(400, 0, 3, 97, seed=0)
    with pytest.warns(SmallSampleWarning):
        res = BCaInterval(n_resamples=1999, random_state=0, alternative="non-inferiority",
                          margin=0.01).test(y, a, b)
    assert res.params["n_discordant"] == 3
    assert res.params["pvalue_unfloored"] < 0.01
    assert res.pvalue == 2.0 ** -3
    assert res.confidence_interval.low == -0.01  # extended: not shown at .05
    assert "not shown" in str(res)


def test_bca_identical_systems_are_never_shown():
    y, a, _ = _accuracy_data(n=200)
    with pytest.warns(DegenerateDistributionWarning):
        res = BCaInterval(n_resamples=999, random_state=0, alternative="equivalence",
                          margin=0.05).test(y, a, a)
    assert res.pvalue == 1.0
    assert all(math.isnan(x) for x in res.confidence_interval)


def test_ci_of_a_margin_result_is_the_plain_bootstrap_interval():
    """ci() recomputes the two-sided interval; it is not widened towards 0 as for
    a two-sided result, since the p-value is one of the margins."""
    y, a, b = _table_data(400, 0, 3, 97, seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = BCaInterval(n_resamples=1999, random_state=0, alternative="non-inferiority",
                          margin=0.01).test(y, a, b)
        plain = BCaInterval(n_resamples=1999, random_state=0, confidence_level=0.9,
                            method="bca").test(y, a, b)
        ci = res.ci(0.9)
        raw = bootstrap_interval(plain.null_distribution, plain.delta, 0.9, "bca",
                                 plain.acceleration)
    assert tuple(ci) == tuple(raw)
    assert ci.low > 0  # the plain interval excludes 0; the floored two-sided one did not
    assert plain.confidence_interval.low == 0.0


@pytest.mark.parametrize("alternative", ALTS)
def test_clustered_margin_tests(alternative):
    """groups=: BCa resamples clusters (p and interval agree); PairedTTest is the
    naive TOST on per-cluster accuracy differences."""
    rng = np.random.default_rng(8)
    n, size = 600, 5
    groups = np.arange(n) // size
    skill = np.repeat(rng.normal(0, 0.7, n // size), size)
    y = rng.integers(0, 2, n)
    a = np.where(rng.random(n) < ndtr(0.9 + skill), y, 1 - y)
    b = np.where(rng.random(n) < ndtr(0.85 + skill), y, 1 - y)
    for margin in (0.02, 0.05, 0.1):
        res = BCaInterval(n_resamples=999, random_state=0, alternative=alternative,
                          margin=margin).test(y, a, b, groups=groups)
        assert res.n_groups == n // size
        assert (res.pvalue <= 0.05) == _shown(res, alternative, margin, True)
        d = (np.bincount(groups, (b == y)) - np.bincount(groups, (a == y))) / size
        p_lower, p_upper, (lo, hi) = _naive_tost(d, margin, 0.05)
        t = PairedTTest(alternative=alternative, margin=margin).test(y, a, b, groups=groups)
        want = p_lower if alternative == "non-inferiority" else max(p_lower, p_upper)
        assert t.pvalue == pytest.approx(want, rel=1e-9)
        assert t.confidence_interval.low == pytest.approx(lo, rel=1e-9)


def test_margin_results_do_not_depend_on_n_jobs():
    y, a, b = _accuracy_data(n=300)
    res = [BCaInterval(n_resamples=999, random_state=3, alternative="equivalence",
                       margin=0.05, n_jobs=k).test(y, a, b) for k in (1, 2)]
    assert res[0].pvalue == res[1].pvalue
    assert tuple(res[0].confidence_interval) == tuple(res[1].confidence_interval)


# ------------------------------------------------------------ PairedTTest
def _naive_tost(d, margin, alpha):
    """TOST on differences d (oriented) with scipy.stats.t, written out."""
    n = d.size
    mean, se = d.mean(), d.std(ddof=1) / math.sqrt(n)
    p_lower = stats.t.sf((mean + margin) / se, n - 1)
    p_upper = stats.t.cdf((mean - margin) / se, n - 1)
    q = stats.t.ppf(1 - alpha, n - 1)
    return p_lower, p_upper, (mean - q * se, mean + q * se)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("margin", [0.01, 0.04, 0.1])
def test_paired_t_matches_a_naive_tost(seed, margin):
    y, a, b = _accuracy_data(n=250, p_b=0.8 - 0.02 * seed, seed=seed)
    d = (b == y).astype(float) - (a == y).astype(float)
    p_lower, p_upper, (lo, hi) = _naive_tost(d, margin, 0.05)
    ni = PairedTTest(alternative="non-inferiority", margin=margin).test(y, a, b)
    eq = PairedTTest(alternative="equivalence", margin=margin).test(y, a, b)
    assert ni.pvalue == pytest.approx(p_lower, rel=1e-10, abs=1e-300)
    assert eq.pvalue == pytest.approx(max(p_lower, p_upper), rel=1e-10, abs=1e-300)
    assert tuple(eq.confidence_interval) == pytest.approx((lo, hi), rel=1e-12)
    assert ni.confidence_interval.low == pytest.approx(lo, rel=1e-12)
    # statsmodels (test extra): ttost_paired(x1, x2, low, upp) tests x1 - x2 in (low, upp)
    weightstats = pytest.importorskip("statsmodels.stats.weightstats")
    p_sm, _, _ = weightstats.ttost_paired((b == y).astype(float), (a == y).astype(float),
                                          -margin, margin)
    assert eq.pvalue == pytest.approx(p_sm, rel=1e-9, abs=1e-300)
    for res, alt in ((ni, "non-inferiority"), (eq, "equivalence")):
        assert (res.pvalue <= 0.05) == _shown(res, alt, margin, True)


def _per_item(metric, y, p):
    m = get_metric(metric)
    return np.array([m.score_func(y[i:i + 1], p[i:i + 1]) for i in range(len(y))])


def test_paired_t_loss_matches_naive_oriented_differences():
    """For a loss the oriented difference is A - B: B better when its loss is lower."""
    y, a, b = _soft_data(n=150, seed=5, shift=0.03)
    d = _per_item("jsd", y, a) - _per_item("jsd", y, b)
    for margin in (0.005, 0.02):
        p_lower, p_upper, (lo, hi) = _naive_tost(d, margin, 0.05)
        ni = PairedTTest(alternative="non-inferiority", margin=margin).test(
            y, a, b, metric="jsd")
        eq = PairedTTest(alternative="equivalence", margin=margin).test(y, a, b, metric="jsd")
        assert ni.pvalue == pytest.approx(p_lower, rel=1e-8)
        assert eq.pvalue == pytest.approx(max(p_lower, p_upper), rel=1e-8)
        # the interval is of the raw delta = loss_B - loss_A = -d
        assert ni.confidence_interval.low == -math.inf
        assert ni.confidence_interval.high == pytest.approx(-lo, rel=1e-8)
        assert tuple(eq.confidence_interval) == pytest.approx((-hi, -lo), rel=1e-8)


@pytest.mark.parametrize("alternative", ALTS)
def test_paired_t_zero_variance_shows_nothing(alternative):
    """Identical systems on 12 items: t is undefined; a sign test at the shifted null
    would give 2**-12, but 12 concordant 0/1 items have probability (1 - .05)**12 =
    .54 at the boundary. p = 1 with a warning."""
    y, a, _ = _accuracy_data(n=12)
    with pytest.warns(DegenerateDistributionWarning, match="p = 1"):
        res = PairedTTest(alternative=alternative, margin=0.05).test(y, a, a)
    assert res.pvalue == 1.0
    assert all(math.isnan(x) for x in res.confidence_interval)
    assert "not shown" in str(res)


# ------------------------------------------------------------ McNemar
def _naive_wilson(x, n, z):
    p = x / n
    den = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / den
    half = z / den * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return centre - half, centre + half


def _naive_newcombe(n11, n10, n01, n00, z):
    """Newcombe (1998) method 10, from the paper's formulas (p_B - p_A)."""
    n = n11 + n10 + n01 + n00
    pa, pb = (n11 + n10) / n, (n11 + n01) / n
    la, ua = _naive_wilson(n11 + n10, n, z)
    lb, ub = _naive_wilson(n11 + n01, n, z)
    prod = (n11 + n10) * (n01 + n00) * (n11 + n01) * (n10 + n00)
    num = n11 * n00 - n10 * n01
    if prod == 0:
        phi = 0.0
    elif num > n / 2:
        phi = (num - n / 2) / math.sqrt(prod)
    elif num >= 0:
        phi = 0.0
    else:
        phi = num / math.sqrt(prod)
    dl = math.sqrt((pb - lb) ** 2 - 2 * phi * (pb - lb) * (ua - pa) + (ua - pa) ** 2)
    du = math.sqrt((ub - pb) ** 2 - 2 * phi * (ub - pb) * (pa - la) + (pa - la) ** 2)
    return pb - pa - dl, pb - pa + du


@pytest.mark.parametrize("table", [(200, 31, 47, 40), (300, 20, 14, 66), (120, 9, 3, 30),
                                   (500, 0, 0, 100)])
@pytest.mark.parametrize("margin", [0.02, 0.05])
def test_mcnemar_matches_a_naive_newcombe_inversion(table, margin):
    """p_lower solves L(z) = -margin for z, p = Phi(-z) (brentq on the naive interval)."""
    y, a, b = _table_data(*table)

    def p_beyond(end, target, sign):
        f = lambda z: sign * (_naive_newcombe(*table, z)[end] - target)  # noqa: E731
        if f(0.0) <= 0:
            return None  # not beyond even at z = 0: p >= 1/2 (not used here)
        if f(40.0) > 0:
            return 0.0
        return float(ndtr(-optimize.brentq(f, 0.0, 40.0, xtol=1e-13)))

    p_lower = p_beyond(0, -margin, +1)
    p_upper = p_beyond(1, margin, -1)
    ni = McNemar(alternative="non-inferiority", margin=margin).test(y, a, b)
    eq = McNemar(alternative="equivalence", margin=margin).test(y, a, b)
    if p_lower is not None:
        assert ni.pvalue == pytest.approx(p_lower, rel=1e-6, abs=1e-12)
    else:
        assert ni.pvalue >= 0.5
    if p_lower is not None and p_upper is not None:
        assert eq.pvalue == pytest.approx(max(p_lower, p_upper), rel=1e-6, abs=1e-12)
    z = ndtri(0.95)
    lo, hi = _naive_newcombe(*table, z)
    assert ni.confidence_interval.low == pytest.approx(lo, rel=1e-9, abs=1e-12)
    assert tuple(eq.confidence_interval) == pytest.approx((lo, hi), rel=1e-6, abs=1e-9)
    assert (ni.pvalue <= 0.05) == _shown(ni, "non-inferiority", margin, True)
    assert (eq.pvalue <= 0.05) == _shown(eq, "equivalence", margin, True)


def test_mcnemar_error_rate_is_oriented():
    acc = get_metric("accuracy")

    def wrong_stats(y_true, y_pred, **params):
        s = acc.statistics(y_true, y_pred, **params)
        s[:, 0] = 1 - s[:, 0]
        return s

    register_metric("error_rate_equivalence_test", statistics=wrong_stats,
                    aggregate=acc.aggregate, greater_is_better=False, cellwise=True,
                    decomposable=True)
    try:
        y, a, b = _table_data(200, 31, 47, 40)
        for alternative in ALTS:
            test = McNemar(alternative=alternative, margin=0.03)
            r_acc = test.test(y, a, b)
            r_err = test.test(y, a, b, metric="error_rate_equivalence_test")
            assert r_err.pvalue == pytest.approx(r_acc.pvalue, rel=1e-9)
            lo, hi = r_acc.confidence_interval
            assert tuple(r_err.confidence_interval) == pytest.approx((-hi, -lo), rel=1e-9)
    finally:
        unregister_metric("error_rate_equivalence_test")


def test_durkalski_matches_a_naive_wald_test():
    rng = np.random.default_rng(7)
    n, size = 400, 4
    y = rng.integers(0, 2, n)
    cluster_skill = np.repeat(rng.normal(0, 1, n // size), size)
    a = np.where(rng.random(n) < ndtr(1.0 + cluster_skill), y, 1 - y)
    b = np.where(rng.random(n) < ndtr(0.95 + cluster_skill), y, 1 - y)
    groups = np.arange(n) // size
    right_a, right_b = (a == y).astype(float), (b == y).astype(float)
    bc = np.bincount(groups, right_b - right_a)
    est, se = bc.sum() / n, math.sqrt(np.sum(bc ** 2)) / n
    for margin in (0.02, 0.06):
        p_lower, p_upper = ndtr(-(est + margin) / se), ndtr((est - margin) / se)
        ni = McNemar(method="chi2", alternative="non-inferiority", margin=margin).test(
            y, a, b, groups=groups)
        eq = McNemar(alternative="equivalence", margin=margin).test(y, a, b, groups=groups)
        assert ni.pvalue == pytest.approx(p_lower, rel=1e-10)
        assert eq.pvalue == pytest.approx(max(p_lower, p_upper), rel=1e-10)
        q = ndtri(0.95)
        assert tuple(eq.confidence_interval) == pytest.approx((est - q * se, est + q * se))
        assert eq.interval_method == "durkalski"


# ------------------------------------------------------------ validation
@pytest.mark.parametrize("cls", [BCaInterval, PairedTTest, McNemar])
def test_margin_rules(cls):
    y, a, b = _accuracy_data(n=60)
    with pytest.raises(ValueError, match="'margin' parameter"):
        cls(alternative="equivalence").test(y, a, b)
    with pytest.raises(ValueError, match="'margin' parameter"):
        cls(margin=0.05).test(y, a, b)
    for bad in (-0.1, 0.0, math.inf, "0.1"):
        with pytest.raises(ValueError, match="'margin' parameter"):
            cls(alternative="non-inferiority", margin=bad).test(y, a, b)
    with pytest.raises(ValueError, match="'confidence_level' parameter"):
        cls(alternative="equivalence", margin=0.1, confidence_level=0.5).test(y, a, b)


@pytest.mark.parametrize("cls", [SignTest, WilcoxonSignedRank, PairedPermutation,
                                 BergKirkpatrickBootstrap])
@pytest.mark.parametrize("alternative", ALTS)
def test_tests_without_interval_refuse_margin_alternatives(cls, alternative):
    y, a, b = _accuracy_data(n=60)
    with pytest.raises(ValueError, match="'alternative' parameter.*BCaInterval"):
        cls(alternative=alternative).test(y, a, b)


# ------------------------------------------------------------ str
def test_str_says_what_was_shown():
    y, a, b = _accuracy_data(n=2000, p_a=0.8, p_b=0.8, seed=1)
    shown = str(PairedTTest(alternative="non-inferiority", margin=0.05).test(y, a, b))
    assert "shown: B is not worse than A by 0.05 or more (non-inferiority, p = " in shown
    assert "not shown" not in shown
    res = PairedTTest(alternative="non-inferiority", margin=0.001).test(y, a, b)
    assert res.pvalue > 0.05
    assert "not shown: B is not worse than A by 0.001 or more" in str(res)
    res = PairedTTest(alternative="equivalence", margin=0.05).test(y, a, b)
    assert "shown: |B - A| < 0.05 (equivalence, TOST p = " in str(res)
    assert "90% CI of delta" in str(res)
    res = BCaInterval(n_resamples=999, random_state=0, alternative="equivalence",
                      margin=0.002).test(y, a, b)
    assert "not shown: |B - A| < 0.002 (equivalence, TOST p = " in str(res)
    assert res.to_dict()["margin"] == 0.002


# ------------------------------------------------------------ compare and CLI
def _systems(n=600, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    preds = {name: np.where(rng.random(n) < p, y, 1 - y)
             for name, p in (("base", 0.8), ("same", 0.8), ("worse", 0.65))}
    return y, preds


def test_compare_against_baseline():
    y, preds = _systems()
    test = PairedTTest(alternative="non-inferiority", margin=0.03)
    res = compare(y, preds, metrics="accuracy", test=test, pairs="baseline",
                  baseline="base", random_state=0)
    frame = res.to_frame()
    assert list(frame["alternative"]) == ["non-inferiority"] * 2
    for _, row in frame.iterrows():
        direct = test.test(y, preds["base"], preds[row["system_b"]])
        assert row["pvalue"] == pytest.approx(direct.pvalue, rel=1e-12)
        assert row["ci_low"] == pytest.approx(direct.confidence_interval.low, rel=1e-12)
        assert row["ci_high"] == math.inf
    # Holm over the two candidates
    p = np.sort(frame["pvalue"].to_numpy())
    assert np.sort(frame["pvalue_adj"].to_numpy()) == pytest.approx(
        np.maximum.accumulate(np.minimum(1, p * [2, 1])))
    bca = compare(y, preds, metrics="accuracy", pairs="baseline", baseline="base",
                  test=BCaInterval(n_resamples=999, margin=0.03, alternative="equivalence"),
                  random_state=0).to_frame()
    assert list(bca["alternative"]) == ["equivalence"] * 2
    assert list(bca["ci_level"]) == pytest.approx([0.9, 0.9])
    assert bca.set_index("system_b").loc["worse", "pvalue"] > 0.5


def test_compare_refuses_margin_tests_with_all_pairs_and_mixed_pairs():
    y, preds = _systems(n=100)
    with pytest.raises(ValueError, match="pairs='baseline'"):
        compare(y, preds, metrics="accuracy",
                test=BCaInterval(margin=0.03, alternative="non-inferiority"))
    with pytest.raises(ValueError, match="same alternative and margin"):
        compare(y, preds, metrics="accuracy", pairs="baseline", baseline="base",
                test=(PairedPermutation(n_resamples=99),
                      BCaInterval(margin=0.03, alternative="non-inferiority")))


def _write(tmp_path, y, preds):
    np.savetxt(tmp_path / "gold.txt", y, fmt="%d")
    files = []
    for name, p in preds.items():
        np.savetxt(tmp_path / f"{name}.txt", p, fmt="%d")
        files.append(f"{name}={tmp_path / f'{name}.txt'}")
    return [str(tmp_path / "gold.txt"), *files]


def test_cli_margin(tmp_path, capsys):
    y, preds = _systems()
    args = _write(tmp_path, y, preds)
    out = io.StringIO()
    code = main(["compare", *args, "-m", "accuracy", "--baseline", "base", "--margin", "0.03",
                 "--alternative", "non-inferiority", "--test", "paired_t", "--format", "csv"],
                out=out)
    assert code == 0
    text = out.getvalue()
    assert "non-inferiority" in text
    direct = PairedTTest(alternative="non-inferiority", margin=0.03).test(
        y, preds["base"], preds["same"])
    assert f"{direct.pvalue:.6g}"[:6] in text
    out = io.StringIO()
    assert main(["compare", *args, "-m", "accuracy", "--baseline", "base", "--margin", "0.03",
                 "--alternative", "equivalence", "-B", "499"], out=out) == 0
    assert "bca (equivalence, margin 0.03)" in out.getvalue()
    for extra, message in (
            (["--margin", "0.03", "--alternative", "equivalence"], "--baseline"),
            (["--baseline", "base", "--margin", "0.03"], "--alternative"),
            (["--baseline", "base", "--alternative", "equivalence"], "--margin"),
            (["--baseline", "base", "--margin", "-1", "--alternative", "equivalence"],
             "positive"),
            (["--baseline", "base", "--margin", "0.03", "--alternative", "equivalence",
              "--test", "sign"], "confidence interval"),
            (["--baseline", "base", "--margin", "0.03", "--alternative", "equivalence",
              "--pairs", "all"], "pairs='baseline'")):
        capsys.readouterr()
        assert main(["compare", *args, "-m", "accuracy", *extra], out=io.StringIO()) == 2
        assert message in capsys.readouterr().err


# ------------------------------------------------------------ type-I error (slow)
# Paired correctness of A and B per item, P(A right, B wrong) = q10 and
# P(A wrong, B right) = q01: the true difference of accuracies is q01 - q10.
def _simulate(test, q, n, reps, seed):
    """Rejection rate at alpha = .05 of ``test`` over ``reps`` data sets."""
    probs = np.array(q, dtype=float)  # (q11, q10, q01, q00)
    rng = np.random.default_rng(seed)
    y = np.zeros(n, dtype=int)
    rejections = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for r in range(reps):
            cell = rng.choice(4, n, p=probs)
            a = np.where(cell <= 1, 0, 1)  # A right in cells 0 (11) and 1 (10)
            b = np.where((cell == 0) | (cell == 2), 0, 1)
            params = {"random_state": r} if "random_state" in test.get_params() else {}
            rejections += test.set_params(**params).test(y, a, b).pvalue <= 0.05
    return rejections / reps


MARGIN = 0.05
N_SIM = 400
# the true difference B - A is q01 - q10
AT_MINUS_MARGIN = (0.70, 0.10, 0.05, 0.15)  # B worse by exactly the margin
AT_PLUS_MARGIN = (0.70, 0.05, 0.10, 0.15)  # B better by exactly the margin
AT_ZERO = (0.70, 0.075, 0.075, 0.15)


def _band(alpha, reps):
    """One-sided 99.9 % binomial band above alpha: a test of size <= alpha exceeds it
    with probability <= .001 (normal approximation, z = 3.09)."""
    return alpha + 3.09 * math.sqrt(alpha * (1 - alpha) / reps)


@pytest.mark.slow
@pytest.mark.parametrize("name, test, reps", [
    ("bca", BCaInterval(n_resamples=999, n_jobs=1), 1000),
    ("percentile", BCaInterval(n_resamples=999, method="percentile", n_jobs=1), 600),
    ("paired_t", PairedTTest(), 2000),
    ("mcnemar", McNemar(), 1000),
])
def test_type_one_error_at_the_margin_and_power(name, test, reps):
    """Type-I error at the boundary (true difference exactly -margin for
    non-inferiority, exactly +-margin for equivalence) within the one-sided
    99.9 % binomial band above alpha = .05 (asymptotically the rate at the
    boundary is alpha for non-inferiority, and at most alpha for TOST, which
    is conservative); power at a true difference 0 well above alpha (expected
    about .65 for TOST: the per-item difference has variance .15, se =
    sqrt(.15/400) = .0194, power 2 Phi(.05/.0194 - 1.645) - 1 = .65; asserted
    > .5, at least 3.8 standard errors of the estimate below .65).

    Measured (N = 400, margin .05, the seeds below; NUMBA_NUM_THREADS=1):
    rejection rate NI at -m / EQ at -m / EQ at +m / EQ power at 0:
    bca .057 / .044 / .054 / .62; percentile .062 / .045 / .067 / .69;
    paired_t .058 / .055 / .054 / .67; mcnemar .056 / .043 / .052 / .63
    (bands: .071 for 1000 reps, .066 for 2000, .079 for 600, .089 for 300)."""
    params = test.get_params()
    ni = type(test)(**{**params, "alternative": "non-inferiority", "margin": MARGIN})
    rate_ni = _simulate(ni, AT_MINUS_MARGIN, N_SIM, reps, seed=11)
    eq = type(test)(**{**params, "alternative": "equivalence", "margin": MARGIN})
    rate_eq_minus = _simulate(eq, AT_MINUS_MARGIN, N_SIM, reps, seed=12)
    rate_eq_plus = _simulate(eq, AT_PLUS_MARGIN, N_SIM, reps // 2, seed=13)
    power_eq = _simulate(eq, AT_ZERO, N_SIM, reps // 4, seed=14)
    print(f"{name}: NI at -m {rate_ni:.4f}, EQ at -m {rate_eq_minus:.4f}, EQ at +m "
          f"{rate_eq_plus:.4f}, EQ power at 0 {power_eq:.4f}")
    assert rate_ni <= _band(0.05, reps)
    assert rate_eq_minus <= _band(0.05, reps)
    assert rate_eq_plus <= _band(0.05, reps // 2)
    assert power_eq > 0.5
