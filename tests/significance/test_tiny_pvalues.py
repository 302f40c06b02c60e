"""A p-value is never 0: the classical tests compute p-values below the double range in log space.

Issue 20: with 1200 items all favouring B (``zeros(1200), ones(1200),
zeros(1200)``: A wrong everywhere, B right) McNemar (exact, mid-p), the sign
test, the exact permutation test and the t-test returned ``p = 0.0``, and
Wilcoxon at N = 1600. The references below are naive: binomial tails of
Bin(N, 1/2) written out by hand, the normal tail from its asymptotic (Mills
ratio) series and Student's tail from the incomplete-beta series.
"""

import math
import warnings

import numpy as np
import pytest
from scipy import stats
from scipy.special import gammaln

from sigtest import (
    McNemar,
    PairedPermutation,
    PairedTTest,
    SignificanceResult,
    SignTest,
    WilcoxonSignedRank,
    compare,
)
from sigtest._engine.pvalues import SMALLEST_PVALUE

LOG10_2 = math.log10(2.0)


def _all_for_b(n):
    """``y, a, b`` of n items where A is wrong and B right on every item."""
    return np.zeros(n, dtype=int), np.ones(n, dtype=int), np.zeros(n, dtype=int)


def _run(test, *data):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return test.test(*data)


def _log10_normal_sf(x):
    """log10 P(Z >= x) for large x by the Mills-ratio series (Abramowitz & Stegun 26.2.12)."""
    series = sum((-1) ** k * math.exp(gammaln(2 * k + 1) - gammaln(k + 1) - k * math.log(2))
                 / x ** (2 * k) for k in range(8))
    log_sf = -x * x / 2 - math.log(x * math.sqrt(2 * math.pi)) + math.log(series)
    return log_sf / math.log(10)


def _log10_t_sf(t, df):
    """log10 P(T_df >= t) = log10(I_x(df/2, 1/2) / 2), x = df/(df + t^2), by the series
    I_x(a, b) = x^a (1-x)^b / (a B(a, b)) * sum_k (a+b)_k / (a+1)_k x^k (small x)."""
    a, b = df / 2.0, 0.5
    x = df / (df + t * t)
    total, term = 0.0, 1.0
    for k in range(200):
        total += term
        term *= (a + b + k) / (a + 1 + k) * x
    log_beta = gammaln(a) + gammaln(b) - gammaln(a + b)
    log_i = a * math.log(x) + b * math.log1p(-x) - math.log(a) - log_beta + math.log(total)
    return (log_i - math.log(2.0)) / math.log(10)


def _check_tiny(res, expected_log10, rel=1e-10):
    assert res.pvalue > 0.0
    assert res.log10_pvalue == pytest.approx(expected_log10, rel=rel)
    expected = 10.0 ** expected_log10  # 0.0 when it underflows
    if expected == 0.0:
        assert res.pvalue == SMALLEST_PVALUE
    else:
        assert res.pvalue == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize("alternative, expected", [
    ("two-sided", LOG10_2 - 1200 * LOG10_2),  # 2 * 2**-1200
    ("greater", -1200 * LOG10_2),             # P(X >= 1200) = 2**-1200
])
def test_sign_test_and_exact_mcnemar_never_zero(alternative, expected):
    data = _all_for_b(1200)
    for test in (SignTest(alternative=alternative), McNemar(alternative=alternative)):
        _check_tiny(_run(test, *data), expected)
    # the other side: p = 1, log10 p = 0
    other = "less" if alternative == "greater" else alternative
    if other == "less":
        res = _run(SignTest(alternative="less"), *data)
        assert res.pvalue == 1.0 and res.log10_pvalue == 0.0


@pytest.mark.parametrize("alternative, expected", [
    # 2 * (P(X <= 0) - P(X = 0) / 2) = 2**-1200
    ("two-sided", -1200 * LOG10_2),
    # P(X > 1200) + P(X = 1200) / 2 = 2**-1201
    ("greater", -1201 * LOG10_2),
])
def test_mid_p_mcnemar_never_zero(alternative, expected):
    _check_tiny(_run(McNemar(method="mid-p", alternative=alternative), *_all_for_b(1200)),
                expected)


def test_mid_p_log_space_matches_the_tail_sum():
    # 30 of 1300 discordant items for A: log10 of 2 (P(X < 30) + P(X = 30) / 2), written out
    n, k = 1300, 30
    y = np.zeros(n, dtype=int)
    a = np.r_[np.zeros(k, dtype=int), np.ones(n - k, dtype=int)]
    b = 1 - a
    log_terms = [gammaln(n + 1) - gammaln(j + 1) - gammaln(n - j + 1) for j in range(k + 1)]
    top = max(log_terms)
    total = sum(math.exp(t - top) for t in log_terms[:-1]) + 0.5 * math.exp(log_terms[-1] - top)
    expected = (math.log(2) + top + math.log(total) - n * math.log(2)) / math.log(10)
    _check_tiny(_run(McNemar(method="mid-p"), y, a, b), expected)


def test_chi2_mcnemar_never_zero():
    # N = 2000: chi2 = (2000 - 1)^2 / 2000, p = 2 P(Z >= 1999 / sqrt(2000)) underflows
    n = 2000
    x = (n - 1) / math.sqrt(n)
    _check_tiny(_run(McNemar(method="chi2"), *_all_for_b(n)), LOG10_2 + _log10_normal_sf(x),
                rel=1e-9)
    res = _run(McNemar(method="chi2", continuity=False, alternative="greater"), *_all_for_b(n))
    _check_tiny(res, _log10_normal_sf(math.sqrt(n)), rel=1e-9)


def test_paired_t_never_zero():
    # zero variance (every difference +1): the exact sign test's 2**(1 - N)
    _check_tiny(_run(PairedTTest(), *_all_for_b(1200)), LOG10_2 - 1200 * LOG10_2)
    # one tie among 1200: mean 1199/1200, sd sqrt(1/1200), t = 1199 / sqrt(1199/1200 ... )
    y, a, b = _all_for_b(1200)
    a[0] = 0
    d = np.r_[0.0, np.ones(1199)]
    t = d.mean() / (d.std(ddof=1) / math.sqrt(d.size))
    res = _run(PairedTTest(), y, a, b)
    assert res.params["test_statistic"] == pytest.approx(t, rel=1e-12)
    _check_tiny(res, LOG10_2 + _log10_t_sf(t, 1199), rel=1e-9)
    res = _run(PairedTTest(alternative="greater"), y, a, b)
    _check_tiny(res, _log10_t_sf(t, 1199), rel=1e-9)


def test_wilcoxon_never_zero():
    # every |d| ties: T+ = n(n+1)/2, mean n(n+1)/4, sd sqrt(n)(n+1)/4 -> z = sqrt(n) = 40
    n = 1600
    _check_tiny(_run(WilcoxonSignedRank(), *_all_for_b(n)), LOG10_2 + _log10_normal_sf(40.0),
                rel=1e-9)
    res = _run(WilcoxonSignedRank(alternative="greater"), *_all_for_b(n))
    _check_tiny(res, _log10_normal_sf(40.0), rel=1e-9)
    # at N = 1200 the p-value is a normal double: scipy's value, bit for bit
    res = _run(WilcoxonSignedRank(), *_all_for_b(1200))
    ref = stats.wilcoxon(np.ones(1200)).pvalue
    assert res.pvalue == ref and res.log10_pvalue == math.log10(ref)


def test_exact_permutation_never_zero():
    res = _run(PairedPermutation(random_state=0), *_all_for_b(1200))
    assert res.resampling == "exact permutation"
    # every pattern weight as extreme underflows (2**-1200): the smallest positive
    # double, and the log10 recomputed in log space is the sign test's 2 * 2**-1200
    assert res.pvalue == SMALLEST_PVALUE > 0.0
    assert res.log10_pvalue == pytest.approx(LOG10_2 - 1200 * LOG10_2, rel=1e-13)


def test_normal_range_unchanged_and_log10_field():
    # p-values in the normal range stay scipy's, bit for bit; log10_pvalue is their log10
    y, a, b = _all_for_b(60)
    a[:25] = 0  # 35 discordant items, all for B
    res = _run(McNemar(), y, a, b)
    ref = stats.binomtest(35, 35, 0.5).pvalue
    assert res.pvalue == ref and res.log10_pvalue == math.log10(ref)
    d = res.to_dict()
    assert d["log10_pvalue"] == res.log10_pvalue and d["pvalue"] == res.pvalue
    bare = SignificanceResult(metric="m", test="t", score_a=0, score_b=0, delta=0,
                              statistic=0, pvalue=math.nan)
    assert math.isnan(bare.log10_pvalue)
    subnormal = SignificanceResult(metric="m", test="t", score_a=0, score_b=0, delta=0,
                                   statistic=0, pvalue=1e-320)
    assert math.isnan(subnormal.log10_pvalue)  # precision lost, not claimed


def test_compare_frame_with_a_tiny_pvalue():
    y, a, b = _all_for_b(1200)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = compare(y, {"a": a, "b": b}, metrics="accuracy", test=SignTest(),
                      correction=None)
    frame = res.to_frame() if hasattr(res, "to_frame") else res.frame
    assert (frame["pvalue"] > 0).all()
    assert frame["pvalue"].iloc[0] == SMALLEST_PVALUE


@pytest.mark.parametrize("t, df", [(3.0, 10), (10.0, 5), (40.0, 30), (60.0, 3), (8.0, 400)])
def test_student_log_tail_matches_scipy_where_scipy_is_finite(t, df):
    from sigtest._engine.pvalues import _log_student_sf

    assert _log_student_sf(t, df) == pytest.approx(stats.t.logsf(t, df), rel=1e-12)


def test_str_shows_log10_of_a_tiny_pvalue():
    text = str(_run(SignTest(), *_all_for_b(1200)))
    assert "log10 p = -360.935" in text
    assert "log10" not in str(_run(SignTest(), *_all_for_b(20)))
