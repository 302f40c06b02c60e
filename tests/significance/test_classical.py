"""McNemar, SignTest, WilcoxonSignedRank and PairedTTest against their references.

References: scipy.stats.binomtest / wilcoxon / ttest_rel on per-item values
computed here by hand, statsmodels' mcnemar, a mid-p computed by enumeration
with exact fractions, and Newcombe's interval from Fagerland et al.'s R code
(package contingencytables). Then the plumbing: orientation, compressed
cells, integer weights, refused metrics, compare (order independence) and
the CLI, and the type-I error of each test by a short seeded simulation.
"""

import io
import math
import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import sigtest
from sigtest import (
    DegenerateDistributionWarning,
    McNemar,
    PairedTTest,
    SignTest,
    WilcoxonSignedRank,
    compare,
    get_test,
    get_test_names,
)
from sigtest.cli import main
from sigtest.metrics import get_metric, register_metric, unregister_metric
from sigtest.tests_._mcnemar import mcnemar_pvalue, newcombe_interval

from statsmodels.stats import contingency_tables as statsmodels_tables  # noqa: E402  (test extra)

ALTERNATIVES = ("two-sided", "greater", "less")
CLASSICAL = {"mcnemar": McNemar, "sign": SignTest, "wilcoxon": WilcoxonSignedRank,
             "paired_t": PairedTTest}


def _table_data(n11, n10, n01, n00, seed=0):
    """Binary labels with the given paired table (A right/wrong x B right/wrong), shuffled."""
    rng = np.random.default_rng(seed)
    right_a = np.repeat([1, 1, 0, 0], [n11, n10, n01, n00]).astype(bool)
    right_b = np.repeat([1, 0, 1, 0], [n11, n10, n01, n00]).astype(bool)
    order = rng.permutation(right_a.size)
    right_a, right_b = right_a[order], right_b[order]
    y = rng.integers(0, 2, right_a.size)
    return y, np.where(right_a, y, 1 - y), np.where(right_b, y, 1 - y)


def _soft_systems(n=40, seed=0, shift=0.0):
    rng = np.random.default_rng(seed)
    y = rng.dirichlet(np.ones(3), n)
    a = rng.dirichlet(np.ones(3), n)
    b = (1 - shift) * rng.dirichlet(np.ones(3), n) + shift * y
    return y, a, b


def _per_item_ce(y, p):
    """Cross entropy per item, by hand: -sum_k P log max(Q, eps)."""
    return -np.sum(y * np.log(np.maximum(p, np.finfo(np.float64).eps)), axis=1)


TABLES = [(10, 7, 1, 2), (30, 3, 9, 8), (50, 12, 12, 6), (5, 0, 4, 1), (200, 31, 47, 40),
          (3, 1, 0, 0), (100, 60, 35, 5)]


# ------------------------------------------------------------------ McNemar
@pytest.mark.parametrize("table", TABLES)
@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_mcnemar_exact_is_binomtest(table, alternative):
    n11, n10, n01, n00 = table
    y, a, b = _table_data(*table)
    res = McNemar(alternative=alternative).test(y, a, b)
    d = n10 + n01
    # B better = n01 (A wrong, B right); two-sided binomtest(n10, d) is the same value
    want = stats.binomtest(n01, d, 0.5, alternative=alternative).pvalue
    assert res.pvalue == pytest.approx(want, rel=1e-12, abs=0)
    if alternative == "two-sided":
        assert res.pvalue == pytest.approx(stats.binomtest(n10, d, 0.5).pvalue, rel=1e-12)
        sm = statsmodels_tables.mcnemar([[n11, n10], [n01, n00]], exact=True)
        assert res.pvalue == pytest.approx(sm.pvalue, rel=1e-12)
    assert (res.params["n_b_better"], res.params["n_a_better"]) == (n01, n10)


def _naive_mid_p(n_b, n_a, alternative):
    """Mid-p by enumeration of Bin(d, 1/2) with exact fractions (Fagerland et al. 2013)."""
    d = n_b + n_a
    pmf = [Fraction(math.comb(d, k), 2**d) for k in range(d + 1)]
    greater = sum(pmf[n_b + 1:]) + pmf[n_b] / 2
    less = sum(pmf[:n_b]) + pmf[n_b] / 2
    if alternative == "greater":
        return float(greater)
    if alternative == "less":
        return float(less)
    return float(min(1, 2 * min(greater, less)))


@pytest.mark.parametrize("table", TABLES)
@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_mcnemar_mid_p_matches_enumeration(table, alternative):
    y, a, b = _table_data(*table)
    res = McNemar(method="mid-p", alternative=alternative).test(y, a, b)
    want = _naive_mid_p(table[2], table[1], alternative)
    assert res.pvalue == pytest.approx(want, rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("table", TABLES)
@pytest.mark.parametrize("correction", [True, False])
def test_mcnemar_chi2_matches_statsmodels(table, correction):
    n11, n10, n01, n00 = table
    y, a, b = _table_data(*table)
    res = McNemar(method="chi2", continuity=correction).test(y, a, b)
    sm = statsmodels_tables.mcnemar([[n11, n10], [n01, n00]], exact=False,
                                    correction=correction)
    assert res.pvalue == pytest.approx(sm.pvalue, rel=1e-12)
    assert res.params["test_statistic"] == pytest.approx(sm.statistic, rel=1e-12)
    # one-sided: the signed normal deviate; both tails add up to the chi-square p
    greater = McNemar(method="chi2", continuity=correction, alternative="greater")
    less = McNemar(method="chi2", continuity=correction, alternative="less")
    pg, pl = greater.test(y, a, b).pvalue, less.test(y, a, b).pvalue
    if abs(n01 - n10) >= (1 if correction else 0):
        assert 2 * min(pg, pl) == pytest.approx(sm.pvalue, rel=1e-12)


def test_mcnemar_newcombe_interval_matches_published_example():
    # Cavo et al. (2012) in Fagerland, Lydersen, Laake (2014); contingencytables' test:
    # n = [[59, 6], [16, 80]] (rows: first measurement) -> -0.0621 (95% CI -0.1186 to -0.0046)
    # here B is the first measurement: both right 59, B right/A wrong 6, B wrong/A right 16
    y, a, b = _table_data(n11=59, n10=16, n01=6, n00=80)
    res = McNemar(method="mid-p").test(y, a, b)  # mid-p .035 rejects, as the interval
    assert res.delta == pytest.approx(-10 / 161)
    assert res.confidence_interval.low == pytest.approx(-0.1186, abs=5e-5)
    assert res.confidence_interval.high == pytest.approx(-0.0046, abs=5e-5)
    assert res.confidence_level == 0.95 and res.interval_method == "newcombe"
    assert not res.params["interval_extended"]
    # the exact test does not reject (p = .052 > .05): the interval is extended to 0,
    # Newcombe's own bounds stay in params
    exact = McNemar().test(y, a, b)
    assert exact.pvalue == pytest.approx(stats.binomtest(6, 22).pvalue, rel=1e-12)
    assert exact.pvalue > 0.05 and exact.params["interval_extended"]
    assert exact.confidence_interval == (res.confidence_interval.low, 0.0)
    assert exact.params["newcombe_high"] == pytest.approx(-0.0046, abs=5e-5)


def test_newcombe_interval_coverage():
    # 4000 seeded tables (N = 60, p_A = .70, p_B = .75, positively correlated); coverage
    # of the 95 % interval: Fagerland et al. report ~.94-.96 for Newcombe at such N;
    # the 99.9 % binomial band around .95 for 4000 draws is +-0.011.
    rng = np.random.default_rng(12)
    probs = [0.60, 0.10, 0.15, 0.15]  # n11, n10, n01, n00
    true = (probs[0] + probs[2]) - (probs[0] + probs[1])
    z = stats.norm.ppf(0.975)
    hits = 0
    tables = rng.multinomial(60, probs, size=4000)
    for t in tables:
        low, high = newcombe_interval(*map(int, t), z)
        hits += low <= true <= high
    assert 0.935 <= hits / tables.shape[0] <= 0.975


def test_mcnemar_one_sided_interval_and_symmetry():
    y, a, b = _table_data(40, 5, 14, 11)
    two = McNemar().test(y, a, b)
    swapped = McNemar().test(y, b, a)
    assert swapped.pvalue == two.pvalue
    assert swapped.confidence_interval.low == pytest.approx(-two.confidence_interval.high)
    greater = McNemar(alternative="greater", confidence_level=0.975).test(y, a, b)
    assert greater.confidence_interval.high == math.inf
    assert greater.confidence_interval.low == pytest.approx(two.confidence_interval.low)


def test_mcnemar_identical_systems():
    y, a, _ = _table_data(30, 5, 4, 11)
    for method in ("exact", "mid-p", "chi2"):
        with pytest.warns(DegenerateDistributionWarning, match="no discordant item"):
            res = McNemar(method=method).test(y, a, a.copy())
        assert res.pvalue == 1.0 and res.params["n_discordant"] == 0


def test_mcnemar_refuses_other_metrics_and_fractional_values():
    y, a, b = _soft_systems()
    with pytest.raises(ValueError, match="McNemar compares accuracies.*PairedPermutation"):
        McNemar().test(y, a, b, metric="soft_accuracy")
    yh, ah, bh = _table_data(20, 4, 6, 10)
    with pytest.raises(ValueError, match="McNemar compares accuracies"):
        McNemar().test(yh, ah, bh, metric="f1_macro")
    with pytest.raises(ValueError, match="integer frequency weights"):
        McNemar().test(yh, ah, bh, sample_weight=np.full(yh.size, 0.5))


@pytest.mark.parametrize("name", sorted(CLASSICAL))
def test_integer_weights_are_repeated_items(name):
    y, a, b = _table_data(40, 6, 13, 9, seed=7)
    w = np.random.default_rng(2).integers(0, 4, y.size)
    rep = np.repeat(np.arange(y.size), w)
    res = get_test(name).test(y, a, b, sample_weight=w)  # generic rows, weighted
    want = get_test(name).test(y[rep], a[rep], b[rep])  # compressed cells
    assert res.pvalue == pytest.approx(want.pvalue, rel=1e-12)
    np.testing.assert_allclose(res.confidence_interval, want.confidence_interval, rtol=1e-12)


def test_mcnemar_respects_the_orientation_of_an_error_rate():
    acc = get_metric("accuracy")

    def wrong_stats(y_true, y_pred, **params):
        s = acc.statistics(y_true, y_pred, **params)
        s[:, 0] = 1 - s[:, 0]
        return s

    register_metric("error_rate_test", statistics=wrong_stats, aggregate=acc.aggregate,
                    greater_is_better=False, cellwise=True, decomposable=True)
    try:
        y, a, b = _table_data(30, 3, 11, 6)
        for alternative in ALTERNATIVES:
            for method in ("exact", "mid-p", "chi2"):
                test = McNemar(method=method, alternative=alternative)
                r_acc = test.test(y, a, b)
                r_err = test.test(y, a, b, metric="error_rate_test")
                assert r_err.pvalue == pytest.approx(r_acc.pvalue, rel=1e-14)
                assert r_err.statistic == pytest.approx(r_acc.statistic)
                assert r_err.delta == pytest.approx(-r_acc.delta)
        lo, hi = McNemar().test(y, a, b, metric="error_rate_test").confidence_interval
        lo_acc, hi_acc = McNemar().test(y, a, b).confidence_interval
        assert (lo, hi) == pytest.approx((-hi_acc, -lo_acc))
    finally:
        unregister_metric("error_rate_test")


# ------------------------------------------------------------------ sign test
@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_sign_test_is_binomtest_on_signs(alternative):
    y, a, b = _soft_systems(n=35, seed=3, shift=0.3)
    b[:5] = a[:5]  # five zero differences, dropped
    res = SignTest(alternative=alternative).test(y, a, b, metric="cross_entropy")
    d = _per_item_ce(y, a) - _per_item_ce(y, b)  # a loss: A - B, positive = B better
    n_pos, n_neg = int(np.sum(d > 0)), int(np.sum(d < 0))
    assert n_pos + n_neg == 30 and res.params["n_zero"] == 5
    want = stats.binomtest(n_pos, n_pos + n_neg, 0.5, alternative=alternative).pvalue
    assert res.pvalue == pytest.approx(want, rel=1e-12)
    assert math.isnan(res.confidence_interval.low)


@pytest.mark.parametrize("table", TABLES)
def test_sign_test_on_accuracy_is_exact_mcnemar(table):
    y, a, b = _table_data(*table)
    for alternative in ALTERNATIVES:
        assert (SignTest(alternative=alternative).test(y, a, b).pvalue
                == McNemar(alternative=alternative).test(y, a, b).pvalue)


# ------------------------------------------------------------------ Wilcoxon
@pytest.mark.parametrize("zero_method", ["wilcox", "pratt", "zsplit"])
@pytest.mark.parametrize("alternative", ALTERNATIVES)
@pytest.mark.parametrize("method", ["auto", "asymptotic"])
def test_wilcoxon_matches_scipy_on_soft_differences(zero_method, alternative, method):
    y, a, b = _soft_systems(n=60, seed=5, shift=0.2)
    b[:4] = a[:4]  # zero differences
    test = WilcoxonSignedRank(zero_method=zero_method, alternative=alternative, method=method)
    res = test.test(y, a, b, metric="cross_entropy")
    d = _per_item_ce(y, a) - _per_item_ce(y, b)
    want = stats.wilcoxon(d, zero_method=zero_method, alternative=alternative, method=method)
    assert res.pvalue == pytest.approx(want.pvalue, rel=1e-12)
    assert res.params["test_statistic"] == pytest.approx(want.statistic, rel=1e-12)


@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_wilcoxon_exact_small_sample(alternative):
    y, a, b = _soft_systems(n=12, seed=8, shift=0.4)
    res = WilcoxonSignedRank(alternative=alternative).test(y, a, b, metric="soft_accuracy")
    va = np.minimum(y, a).sum(1)
    vb = np.minimum(y, b).sum(1)
    want = stats.wilcoxon(vb - va, alternative=alternative)  # exact: n = 12, no ties
    assert res.pvalue == pytest.approx(want.pvalue, rel=1e-12)


@pytest.mark.parametrize("zero_method", ["wilcox", "pratt", "zsplit"])
def test_wilcoxon_compressed_cells_are_expanded(zero_method):
    y, a, b = _table_data(80, 9, 21, 10, seed=2)
    res = WilcoxonSignedRank(zero_method=zero_method).test(y, a, b)  # compressed cells
    d = (b == y).astype(float) - (a == y).astype(float)
    want = stats.wilcoxon(d, zero_method=zero_method)
    assert res.pvalue == pytest.approx(want.pvalue, rel=1e-12)
    # the uncompressed path (unit weights) gives the same answer
    weighted = WilcoxonSignedRank(zero_method=zero_method).test(
        y, a, b, sample_weight=np.ones(y.size))
    assert weighted.pvalue == pytest.approx(res.pvalue, rel=1e-12)


@pytest.mark.parametrize("zero_method", ["wilcox", "pratt", "zsplit"])
@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_wilcoxon_continuity_correction_matches_scipy(zero_method, alternative):
    y, a, b = _soft_systems(n=60, seed=5, shift=0.2)
    b[:4] = a[:4]  # zero differences
    d = _per_item_ce(y, a) - _per_item_ce(y, b)
    for method in ("auto", "asymptotic"):
        res = WilcoxonSignedRank(zero_method=zero_method, alternative=alternative,
                                 method=method, continuity=True).test(y, a, b,
                                                                      metric="cross_entropy")
        want = stats.wilcoxon(d, zero_method=zero_method, alternative=alternative,
                              method=method, correction=True)
        assert res.pvalue == pytest.approx(want.pvalue, rel=1e-12)
        plain = stats.wilcoxon(d, zero_method=zero_method, alternative=alternative,
                               method=method)
        assert res.pvalue > plain.pvalue  # the correction is conservative here


def test_wilcoxon_correction_reproduces_r():
    # R's wilcox.test(..., exact = FALSE, correct = TRUE), the reference values of
    # scipy's own tests (test_morestats.py, TestWilcoxon.test_wilcoxon_tie, gh-2391,
    # and test_onesided). The test is invariant to a positive scaling of the
    # differences. 1) rep(0.1, 10): B right where A is wrong on 10 items.
    y = np.zeros(10, dtype=int)
    res = WilcoxonSignedRank(method="asymptotic", continuity=True).test(y, 1 - y, y)
    assert res.pvalue == pytest.approx(0.001904195, rel=1e-6)
    res = WilcoxonSignedRank(method="asymptotic").test(y, 1 - y, y)
    assert res.pvalue == pytest.approx(0.001565402, rel=1e-6)  # correct = FALSE
    # 2) x - y of two paired samples, as per-item soft accuracies x / 256 (B)
    # and y / 256 (A): exact in binary, so the tied |differences| stay tied
    x = np.array([125, 115, 130, 140, 140, 115, 140, 125, 140, 135]) / 256
    z = np.array([110, 122, 125, 120, 140, 124, 123, 137, 135, 145]) / 256
    truth = np.tile([1.0, 0.0], (10, 1))
    b, a = np.column_stack([x, 1 - x]), np.column_stack([z, 1 - z])
    for alternative, want in (("less", 0.7233656), ("greater", 0.3176447)):
        res = WilcoxonSignedRank(alternative=alternative, method="asymptotic",
                                 continuity=True).test(truth, a, b, metric="soft_accuracy")
        assert res.pvalue == pytest.approx(want, abs=1e-7)


def test_wilcoxon_correction_ignored_by_the_exact_distribution():
    y, a, b = _soft_systems(n=12, seed=8, shift=0.4)
    for method in ("exact", "auto"):  # n = 12 without ties: exact
        p = [WilcoxonSignedRank(method=method, continuity=c).test(
            y, a, b, metric="soft_accuracy").pvalue for c in (False, True)]
        assert p[0] == p[1]


def test_wilcoxon_continuity_must_be_boolean():
    y, a, b = _soft_systems(n=12, seed=8, shift=0.4)
    with pytest.raises(ValueError, match="'continuity' parameter"):
        WilcoxonSignedRank(continuity="yes").test(y, a, b, metric="soft_accuracy")


# ------------------------------------------------------------------ paired t
@pytest.mark.parametrize("alternative", ALTERNATIVES)
@pytest.mark.parametrize("level", [0.9, 0.95])
def test_paired_t_matches_ttest_rel(alternative, level):
    y, a, b = _soft_systems(n=50, seed=9, shift=0.1)
    res = PairedTTest(alternative=alternative, confidence_level=level).test(
        y, a, b, metric="soft_accuracy")
    va, vb = np.minimum(y, a).sum(1), np.minimum(y, b).sum(1)
    want = stats.ttest_rel(vb, va, alternative=alternative)
    assert res.pvalue == pytest.approx(want.pvalue, rel=1e-12)
    assert res.params["test_statistic"] == pytest.approx(want.statistic, rel=1e-12)
    ci = want.confidence_interval(level)
    np.testing.assert_allclose(res.confidence_interval, (ci.low, ci.high), rtol=1e-12)
    assert res.delta == pytest.approx(np.mean(vb - va), rel=1e-12)


@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_paired_t_loss_is_oriented(alternative):
    y, a, b = _soft_systems(n=45, seed=4, shift=0.2)
    res = PairedTTest(alternative=alternative).test(y, a, b, metric="cross_entropy")
    ca, cb = _per_item_ce(y, a), _per_item_ce(y, b)
    # "greater" = B better = lower cross entropy: the t-test of A - B
    want = stats.ttest_rel(ca, cb, alternative=alternative)
    assert res.pvalue == pytest.approx(want.pvalue, rel=1e-12)
    # the interval is of the raw delta = score_b - score_a, two-sided
    if alternative == "two-sided":
        ci = stats.ttest_rel(cb, ca).confidence_interval(0.95)
        np.testing.assert_allclose(res.confidence_interval, (ci.low, ci.high), rtol=1e-12)


def test_paired_t_integer_weights_are_repeated_items():
    y, a, b = _soft_systems(n=30, seed=6, shift=0.15)
    w = np.random.default_rng(1).integers(0, 4, 30)
    res = PairedTTest().test(y, a, b, metric="jsd", sample_weight=w)
    rep = np.repeat(np.arange(30), w)
    want = PairedTTest().test(y[rep], a[rep], b[rep], metric="jsd")
    assert res.pvalue == pytest.approx(want.pvalue, rel=1e-12)
    np.testing.assert_allclose(res.confidence_interval, want.confidence_interval, rtol=1e-12)
    with pytest.raises(ValueError, match="integer frequency weights"):
        PairedTTest().test(y, a, b, metric="jsd", sample_weight=w + 0.5)


def test_paired_t_accuracy_cells_match_ttest_rel():
    y, a, b = _table_data(70, 8, 17, 5, seed=4)
    res = PairedTTest().test(y, a, b)
    want = stats.ttest_rel((b == y).astype(float), (a == y).astype(float))
    assert res.pvalue == pytest.approx(want.pvalue, rel=1e-12)


def test_paired_t_zero_variance():
    y, a, _ = _table_data(20, 3, 4, 3)
    with pytest.warns(DegenerateDistributionWarning, match="zero variance"):
        res = PairedTTest().test(y, a, a.copy())
    assert res.pvalue == 1.0 and math.isnan(res.confidence_interval.low)
    # every item goes to B by the same amount: t is infinite (scipy: p = 0); the exact
    # sign-test p 2^(1-N) is reported instead
    y, a, b = _table_data(0, 0, 6, 0)
    with pytest.warns(DegenerateDistributionWarning):
        res = PairedTTest().test(y, a, b)
    assert res.pvalue == pytest.approx(2.0 ** -5)


# ------------------------------------------------------------------ shared rules
@pytest.mark.parametrize("name", sorted(CLASSICAL))
@pytest.mark.parametrize("metric", ["f1_macro", "entropy_correlation"])
def test_non_decomposable_metrics_are_refused(name, metric):
    if metric == "f1_macro":
        y, a, b = _table_data(20, 4, 6, 10)
    else:
        y, a, b = _soft_systems()
    with pytest.raises(ValueError, match="PairedPermutation"):
        get_test(name).test(y, a, b, metric=metric)


@pytest.mark.parametrize("name", sorted(CLASSICAL))
def test_registered_and_exported(name):
    assert name in get_test_names()
    cls = CLASSICAL[name]
    assert isinstance(get_test(name), cls) and cls.name == name
    assert cls.__name__ in sigtest.__all__ and getattr(sigtest, cls.__name__) is cls


@pytest.mark.parametrize("name", ["sign", "wilcoxon", "paired_t"])
def test_identical_systems_give_one(name):
    y, a, _ = _soft_systems()
    with pytest.warns(DegenerateDistributionWarning) as record:
        res = get_test(name).test(y, a, a.copy(), metric="jsd")
    assert res.pvalue == 1.0
    assert record[0].filename == __file__  # the warning points at the caller


def _rows_by_pair(frame):
    return {frozenset((r.system_a, r.system_b)): r for r in frame.itertuples()}


@pytest.mark.parametrize("name", sorted(CLASSICAL))
def test_compare_is_order_independent_and_two_sided(name):
    y, a, b = _table_data(60, 6, 15, 9, seed=1)
    c = np.where(np.arange(y.size) % 7 == 0, 1 - y, y)
    preds = {"zeta": a, "alpha": b, "mid": c}
    test = get_test(name, alternative="greater")  # pairs="all" makes it two-sided
    ref = _rows_by_pair(compare(y, preds, metrics=("accuracy",), test=test).to_frame())
    for order in (["alpha", "mid", "zeta"], ["mid", "zeta", "alpha"]):
        got = _rows_by_pair(compare(y, {k: preds[k] for k in order}, metrics=("accuracy",),
                                    test=test).to_frame())
        assert got.keys() == ref.keys()
        for key, r1 in ref.items():
            r2 = got[key]
            assert (r1.pvalue, r1.alternative) == (r2.pvalue, "two-sided")
            if r1.system_a == r2.system_a:
                assert r1.delta == r2.delta
                np.testing.assert_array_equal([r1.ci_low, r1.ci_high], [r2.ci_low, r2.ci_high])
            else:
                assert r1.delta == -r2.delta
                np.testing.assert_array_equal([r1.ci_low, r1.ci_high],
                                              [-r2.ci_high, -r2.ci_low])
    row = ref[frozenset(("zeta", "alpha"))]
    direct = get_test(name).test(y, preds[row.system_a], preds[row.system_b])
    assert row.pvalue == pytest.approx(direct.pvalue, rel=1e-12)


@pytest.mark.parametrize("name", sorted(CLASSICAL))
def test_cli_runs_each_test(tmp_path, name):
    y, a, b = _table_data(50, 5, 12, 8, seed=3)
    for fname, arr in (("gold", y), ("a", a), ("b", b)):
        np.savetxt(tmp_path / f"{fname}.txt", arr, fmt="%d")
    out = io.StringIO()
    status = main(["compare", str(tmp_path / "gold.txt"), str(tmp_path / "a.txt"),
                   str(tmp_path / "b.txt"), "-m", "accuracy", "--test", name,
                   "--format", "csv"], out=out)
    assert status == 0
    got = pd.read_csv(io.StringIO(out.getvalue()))
    assert got["pvalue"].iloc[0] == pytest.approx(get_test(name).test(y, a, b).pvalue,
                                                  rel=1e-9)


@pytest.mark.parametrize("name", sorted(CLASSICAL))
def test_cross_val_compare_and_experiment(tmp_path, name):
    from sklearn.dummy import DummyClassifier
    from sklearn.linear_model import LogisticRegression

    from sigtest import Experiment, cross_val_compare

    rng = np.random.default_rng(3)
    X = rng.normal(size=(120, 3))
    yx = (X[:, 0] + 0.5 * rng.normal(size=120) > 0).astype(int)
    est = {"dummy": DummyClassifier(strategy="most_frequent"), "lr": LogisticRegression()}
    frame = cross_val_compare(est, X, yx, cv=3, metrics=["accuracy"], test=get_test(name),
                              random_state=0, correction=None).to_frame()
    assert frame.loc[0, "test"] == name
    assert 0.0 <= frame.loc[0, "pvalue"] < 1e-3  # logistic regression is far better
    y, a, b = _table_data(50, 5, 12, 8, seed=3)
    exp = Experiment(tmp_path / "store")
    exp.feed("a", a, y_true=y)
    exp.feed("b", b, y_true=y)
    res = exp.run(metrics=["accuracy"], test=get_test(name), correction=None).to_frame()
    assert res.loc[0, "pvalue"] == pytest.approx(get_test(name).test(y, a, b).pvalue,
                                                 rel=1e-12)


def test_run_averaged_values():
    # runs='average': per-item accuracies are fractions (mean over runs). McNemar refuses
    # them; the t-test takes them (ttest_rel on the run-averaged per-item values).
    y, a1, b = _table_data(50, 5, 12, 8, seed=3)
    a2 = np.where(np.arange(y.size) % 5 == 0, 1 - a1, a1)
    with pytest.raises(ValueError, match="fractional per-item values"):
        compare(y, {"a": [a1, a2], "b": b}, metrics=("accuracy",), test=McNemar())
    res = compare(y, {"a": [a1, a2], "b": b}, metrics=("accuracy",),
                  test=PairedTTest()).to_frame()
    va = ((a1 == y).astype(float) + (a2 == y).astype(float)) / 2
    want = stats.ttest_rel((b == y).astype(float), va)
    assert res.loc[0, "pvalue"] == pytest.approx(want.pvalue, rel=1e-12)


# ------------------------------------------------------------------ type-I error
def _size(test, make, n_reps, metric):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateDistributionWarning)
        p = np.array([test.test(*make(k), metric=metric).pvalue for k in range(n_reps)])
    return float(np.mean(p <= 0.05))


def _null_hard(k, n=40):
    # A and B right with the same probability, independently: exchangeable per item
    rng = np.random.default_rng([2024, k])
    y = rng.integers(0, 3, n)
    a = np.where(rng.random(n) < 0.7, y, (y + 1) % 3)
    b = np.where(rng.random(n) < 0.7, y, (y + 1) % 3)
    return y, a, b


def _null_soft(k, n=30):
    rng = np.random.default_rng([2025, k])
    y = rng.dirichlet(np.ones(3), n)
    return y, rng.dirichlet(np.ones(3), n), rng.dirichlet(np.ones(3), n)


# 600 seeded null datasets each. The 99.9 % binomial band of an observed size when the
# true size is s <= .05 is below .05 + 3.3 sqrt(.05 .95 / 600) = .079; the exact tests
# (McNemar, sign) are conservative on discrete data (true size ~.02-.04 at N = 40).
@pytest.mark.parametrize("test, make, metric, upper", [
    (McNemar(), _null_hard, "accuracy", 0.079),
    (McNemar(method="mid-p"), _null_hard, "accuracy", 0.079),
    (SignTest(), _null_soft, "jsd", 0.079),
    (WilcoxonSignedRank(), _null_soft, "cross_entropy", 0.079),
    (PairedTTest(), _null_soft, "soft_accuracy", 0.079),
    (PairedTTest(), _null_hard, "accuracy", 0.079),
])
def test_type_one_error(test, make, metric, upper):
    size = _size(test, make, 600, metric)
    assert 0.005 <= size <= upper, size


@pytest.mark.parametrize("test", [SignTest(), WilcoxonSignedRank(), PairedTTest(), McNemar()])
def test_a_label_set_that_breaks_decomposability_is_refused(test):
    """micro-F1 is flagged decomposable (it equals accuracy), but with labels=[0, 1] and
    predictions of class 2 it is no longer a mean of per-item values: the per-item tests
    would test other numbers (mean .40) than the score they report (.80). Refused."""
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 200)
    a = np.where(rng.random(200) < 0.7, y, 2)
    b = np.where(rng.random(200) < 0.8, y, 2)
    test.test(y, a, b, metric="f1_micro")  # every label in the set: a mean, accepted
    with pytest.raises(ValueError, match="not the mean of per-item values"):
        test.test(y, a, b, metric="f1_micro", labels=[0, 1])


@pytest.mark.parametrize("test", [SignTest(), WilcoxonSignedRank(), PairedTTest(),
                                  McNemar(method="exact"), McNemar(method="chi2")],
                         ids=["sign", "wilcoxon", "t", "mcnemar-exact", "mcnemar-chi2"])
def test_a_test_without_random_state_records_no_seed(test):
    """Issue 15 leftover: the classical tests draw no random numbers, so no seed is recorded.

    Before, the base class recorded a fresh entropy seed that the test never
    used, so two identical calls had different ``params``.
    """
    rng = np.random.default_rng(7)
    y = rng.integers(0, 2, 80)
    a = np.where(rng.random(80) < 0.7, y, 1 - y)
    b = np.where(rng.random(80) < 0.8, y, 1 - y)
    first, second = test.test(y, a, b), test.test(y, a, b)
    assert "random_state" not in test.get_params()
    assert first.params["seed"] is None
    assert first.params == second.params
    assert first.to_dict() == second.to_dict()


def test_a_seeded_test_still_records_its_integer_seed():
    from sigtest import PairedPermutation
    from sigtest.utils import check_random_state_seed

    rng = np.random.default_rng(8)
    y = rng.integers(0, 2, 60)
    a, b = np.where(rng.random((2, 60)) < 0.75, y, 1 - y)
    res = PairedPermutation(n_resamples=99, exact=False, random_state=5).test(y, a, b)
    assert res.params["seed"] == check_random_state_seed(5)
    unseeded = PairedPermutation(n_resamples=99, exact=False).test(y, a, b)
    assert isinstance(unseeded.params["seed"], int)  # drawn afresh and used: recorded
