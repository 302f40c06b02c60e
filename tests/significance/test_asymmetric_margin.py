"""Asymmetric margins ``margin=(low, high)`` of BCaInterval, PairedTTest and McNemar.

References written here: statsmodels' ``ttost_paired(x1, x2, low, upp)``
(test extra) and the R values of statsmodels' own ``test_tost.py``
(``equivalence::tost`` and ``multeq.diff`` on its ``clinic`` data); the
exact conditional binomial test with ``scipy.stats.binom``; Newcombe's
interval written out (``test_equivalence._naive_newcombe``) and inverted
with ``scipy.optimize.brentq``; the percentile bootstrap p as a proportion
of the bootstrap distribution. Then the interval-inclusion rule, the
validation of the pair, ``str`` and the CLI.
"""

import math

import numpy as np
import pytest
from scipy import optimize, stats
from scipy.special import ndtr, ndtri
from test_equivalence import _accuracy_data, _naive_newcombe, _table_data

from sigtest import BCaInterval, McNemar, PairedTTest
from sigtest.metrics import Metric
from sigtest.tests_._margins import margin_location_test

ALPHA = 0.05


def _value_metric(greater_is_better=True):
    """The mean of the predictions themselves: per-item values are the data."""
    return Metric("item_value_asym_margin", lambda y, p, **kw: float(np.mean(p)),
                  greater_is_better=greater_is_better,
                  statistics=lambda y, p, **kw: np.c_[np.asarray(p, float), np.ones(len(p))],
                  aggregate=lambda s, **kw: np.asarray(s)[..., 0] / np.asarray(s)[..., 1],
                  input_type="labels", decomposable=True)


def _inside(ci, low, high, gib, alternative):
    """The interval-inclusion rule on the oriented interval."""
    lo, hi = (ci[0], ci[1]) if gib else (-ci[1], -ci[0])
    return lo > low if alternative == "non-inferiority" else (lo > low and hi < high)


CASES = [(0, (-0.1, 0.3)), (1, (-0.5, 0.05)), (2, (-0.2, 0.2)), (3, (-0.02, 0.6)),
         (4, (-1.0, 0.15))]


@pytest.mark.parametrize("seed,margin", CASES)
@pytest.mark.parametrize("gib", [True, False])
def test_paired_t_equals_statsmodels_ttost_paired(seed, margin, gib):
    weightstats = pytest.importorskip("statsmodels.stats.weightstats")
    rng = np.random.default_rng(seed)
    n = 20 + 15 * seed
    xa = rng.normal(0.0, 1.0, n)
    xb = xa + rng.normal(0.1 * (seed - 2), 0.4, n)
    y = np.zeros(n)
    low, high = margin
    # oriented differences (positive: B better): b - a for a score, a - b for a loss
    x1, x2 = (xb, xa) if gib else (xa, xb)
    p_sm, (_, p_low_sm, _), (_, p_upp_sm, _) = weightstats.ttost_paired(x1, x2, low, high)
    metric = _value_metric(gib)
    eq = PairedTTest(alternative="equivalence", margin=margin).test(y, xa, xb, metric=metric)
    assert eq.pvalue == pytest.approx(p_sm, rel=1e-12, abs=1e-300)
    assert eq.params["pvalue_lower"] == pytest.approx(p_low_sm, rel=1e-12, abs=1e-300)
    assert eq.params["pvalue_upper"] == pytest.approx(p_upp_sm, rel=1e-12, abs=1e-300)
    assert eq.margin == (low, high)
    # non-inferiority uses the lower margin only: p_lower, as a scalar margin -low
    ni = PairedTTest(alternative="non-inferiority", margin=margin).test(y, xa, xb,
                                                                         metric=metric)
    ni_scalar = PairedTTest(alternative="non-inferiority", margin=-low).test(
        y, xa, xb, metric=metric)
    assert ni.pvalue == pytest.approx(p_low_sm, rel=1e-12, abs=1e-300)
    assert ni.pvalue == ni_scalar.pvalue
    for res, alt in ((eq, "equivalence"), (ni, "non-inferiority")):
        assert (res.pvalue <= ALPHA) == _inside(res.confidence_interval, low, high, gib, alt)


# statsmodels/stats/tests/test_tost.py: the clinic data, column var1, rows 1-15 and 16-30
VAR1 = np.array([2.84, 2.51, 2.41, 2.95, 3.14, 3.79, 4.14, 3.85, 3.02, 3.45, 5.37, 3.81, 4.19,
                 3.16, 3.84, 2.60, 2.82, 2.18, 3.46, 4.01, 3.04, 3.47, 4.06, 2.91, 3.59, 4.51,
                 3.16, 3.86, 3.31, 3.02])


def test_published_paired_tost_with_an_asymmetric_margin():
    """R ``equivalence::tost(var1[1:15] - var1[16:30], eps=0.6)``: p = 0.003166881489265175,
    90 % interval (-0.0744336620516462, 0.4037669953849797) (statsmodels' test_tost.py,
    ``tost_clinic_paired_1``). Its p is the upper side's (the mean 0.1647 is nearer 0.6);
    moving the lower margin to -1.5 leaves it: the asymmetric (-1.5, 0.6) gives the same."""
    b, a = VAR1[:15], VAR1[15:]
    res = PairedTTest(alternative="equivalence", margin=(-1.5, 0.6)).test(
        np.zeros(15), a, b, metric=_value_metric())
    assert res.delta == pytest.approx(0.1646666666666667, rel=1e-12)
    assert res.pvalue == pytest.approx(0.003166881489265175, rel=1e-9)
    assert tuple(res.confidence_interval) == pytest.approx(
        (-0.0744336620516462, 0.4037669953849797), rel=1e-9)
    assert res.params["pvalue_lower"] < 1e-6  # (0.1647 + 1.5) / 0.1358 = 12.3 on 14 df


def test_published_asymmetric_welch_tost_through_the_shared_helper():
    """R ``multeq.diff(..., margin.lo=-1.5, margin.up=0.6)`` on var1 (statsmodels'
    ``tost_clinic_1_asym``): estimate -0.1646666666666667, Welch df 26.74847875823152,
    statistic 3.020456692101513, p 0.00274867705173331, interval (-0.596019631405587,
    0.2666862980722534). The standard error is that of ``tost_clinic_indep_1``."""
    est, se, df = -0.1646666666666667, 0.2531625991083627, 26.74847875823152
    p, (lo, hi), p_lower, p_upper = margin_location_test(
        est, se, "equivalence", (-1.5, 0.6), 0.95, df=df)
    assert (0.6 - est) / se == pytest.approx(3.020456692101513, rel=1e-12)
    assert p == p_upper
    assert p == pytest.approx(0.00274867705173331, rel=1e-9)
    assert (lo, hi) == pytest.approx((-0.596019631405587, 0.2666862980722534), rel=1e-9)


@pytest.mark.parametrize("cls", [PairedTTest, McNemar, BCaInterval])
@pytest.mark.parametrize("alternative", ["non-inferiority", "equivalence"])
def test_a_symmetric_pair_is_the_scalar(cls, alternative):
    y, a, b = _accuracy_data(n=300, seed=4)
    kw = {"n_resamples": 400, "random_state": 0} if cls is BCaInterval else {}
    pair = cls(alternative=alternative, margin=(-0.04, 0.04), **kw).test(y, a, b)
    scalar = cls(alternative=alternative, margin=0.04, **kw).test(y, a, b)
    assert pair.pvalue == scalar.pvalue
    assert tuple(pair.confidence_interval) == tuple(scalar.confidence_interval)
    assert pair.margin == (-0.04, 0.04) and scalar.margin == 0.04


def _brentq_p(table, end, target, sign):
    """p of H0 at ``target`` inverting the naive Newcombe interval: Phi(-z) at its end = target."""
    f = lambda z: sign * (_naive_newcombe(*table, z)[end] - target)  # noqa: E731
    assert f(0.0) > 0 and f(40.0) < 0
    return float(ndtr(-optimize.brentq(f, 0.0, 40.0, xtol=1e-13)))


@pytest.mark.parametrize("table,margin", [((200, 31, 47, 40), (-0.02, 0.12)),
                                          ((300, 20, 14, 66), (-0.06, 0.03)),
                                          ((120, 9, 3, 30), (-0.1, 0.05)),
                                          ((250, 30, 22, 48), (-0.08, 0.02))])
def test_mcnemar_newcombe_matches_a_naive_twin(table, margin):
    y, a, b = _table_data(*table)
    low, high = margin
    p_lower, p_upper = _brentq_p(table, 0, low, +1), _brentq_p(table, 1, high, -1)
    ni = McNemar(alternative="non-inferiority", margin=margin).test(y, a, b)
    eq = McNemar(alternative="equivalence", margin=margin).test(y, a, b)
    assert ni.pvalue == pytest.approx(p_lower, rel=1e-6, abs=1e-12)
    assert eq.pvalue == pytest.approx(max(p_lower, p_upper), rel=1e-6, abs=1e-12)
    naive = _naive_newcombe(*table, ndtri(1 - ALPHA))
    assert tuple(eq.confidence_interval) == pytest.approx(naive, rel=1e-6, abs=1e-9)
    # the decision is the interval-inclusion rule on the naive interval
    assert (ni.pvalue <= ALPHA) == (naive[0] > low)
    assert (eq.pvalue <= ALPHA) == (naive[0] > low and naive[1] < high)


@pytest.mark.parametrize("n_better,n_worse,margin", [(9, 3, (-0.1, 0.4)), (2, 6, (-0.5, 0.2)),
                                                     (12, 1, (-0.3, 0.8)), (5, 5, (-0.6, 0.3))])
def test_mcnemar_exact_conditional_matches_binomial_tails(n_better, n_worse, margin):
    """Below 50 items: P(Bin(d, (1 + low)/2) >= n+) and P(Bin(d, (1 - high)/2) >= n-)."""
    low, high = margin
    table = (30 - n_better - n_worse, n_worse, n_better, 5)
    y, a, b = _table_data(*table)
    d = n_better + n_worse
    p_lower = stats.binom.sf(n_better - 1, d, (1 + low) / 2)
    p_upper = stats.binom.sf(n_worse - 1, d, (1 - high) / 2)
    eq = McNemar(alternative="equivalence", margin=margin).test(y, a, b)
    ni = McNemar(alternative="non-inferiority", margin=margin).test(y, a, b)
    assert eq.interval_method == "exact conditional"
    assert ni.pvalue == pytest.approx(p_lower, rel=1e-12)
    assert eq.pvalue == pytest.approx(max(p_lower, p_upper), rel=1e-12)
    assert (ni.pvalue <= ALPHA) == _inside(ni.confidence_interval, low, high, True,
                                           "non-inferiority")
    assert (eq.pvalue <= ALPHA) == _inside(eq.confidence_interval, low, high, True,
                                           "equivalence")


@pytest.mark.parametrize("seed,margin", [(0, (-0.02, 0.09)), (1, (-0.07, 0.02)),
                                         (2, (-0.01, 0.12)), (5, (-0.1, 0.03))])
def test_bca_percentile_matches_the_bootstrap_proportions(seed, margin):
    """Naive twin: p_lower is the share of bootstrap deltas at or below low, p_upper at or
    above high (within 1.5/B), and p <= alpha exactly when the naive percentile interval
    (alpha and 1 - alpha quantiles) lies inside the margins."""
    y, a, b = _accuracy_data(n=400, p_b=0.8 - 0.01 * seed, seed=seed)
    low, high = margin
    B = 4000
    eq = BCaInterval(method="percentile", alternative="equivalence", margin=margin,
                     n_resamples=B, random_state=seed).test(y, a, b)
    deltas = np.asarray(eq.null_distribution)
    p_lower, p_upper = np.mean(deltas <= low), np.mean(deltas >= high)
    assert eq.params["pvalue_lower"] == pytest.approx(max(p_lower, 1 / (B + 1)),
                                                      abs=1.5 / B)
    assert eq.params["pvalue_upper"] == pytest.approx(max(p_upper, 1 / (B + 1)),
                                                      abs=1.5 / B)
    q_lo, q_hi = np.quantile(deltas, [ALPHA, 1 - ALPHA])
    if min(abs(q_lo - low), abs(q_hi - high)) > 2e-3:  # the rule away from ties
        assert (eq.pvalue <= ALPHA) == (q_lo > low and q_hi < high)
    assert (eq.pvalue <= ALPHA) == _inside(eq.confidence_interval, low, high, True,
                                           "equivalence")


@pytest.mark.parametrize("gib", [True, False])
def test_bca_sides_are_the_scalar_tests_at_each_margin(gib):
    """BCa: p_lower of (low, high) is that of the scalar margin -low, p_upper that of high."""
    rng = np.random.default_rng(7)
    xa = rng.normal(0, 1, 120)
    xb = xa + rng.normal(0.05, 0.3, 120)
    y, metric = np.zeros(120), _value_metric(gib)
    kw = {"n_resamples": 1000, "random_state": 3}
    low, high = -0.02, 0.15
    pair = BCaInterval(alternative="equivalence", margin=(low, high), **kw).test(
        y, xa, xb, metric=metric)
    lower = BCaInterval(alternative="equivalence", margin=-low, **kw).test(y, xa, xb,
                                                                         metric=metric)
    upper = BCaInterval(alternative="equivalence", margin=high, **kw).test(y, xa, xb,
                                                                         metric=metric)
    assert pair.params["pvalue_lower"] == lower.params["pvalue_lower"]
    assert pair.params["pvalue_upper"] == upper.params["pvalue_upper"]
    assert (pair.pvalue <= ALPHA) == _inside(pair.confidence_interval, low, high, gib,
                                             "equivalence")


@pytest.mark.parametrize("cls", [PairedTTest, McNemar, BCaInterval])
@pytest.mark.parametrize("margin", [(0.05, 0.01), (0.03, 0.03), (0.01, 0.05), (-0.05, -0.01),
                                    (-0.01, 0.0), (-0.1, math.inf), (-0.1,), (-0.1, 0.1, 0.2),
                                    ("a", 0.1), (True, 0.1), (-0.1, float("nan"))])
def test_bad_pairs_name_margin(cls, margin):
    y, a, b = _accuracy_data(n=100)
    with pytest.raises(ValueError, match="'margin'"):
        cls(alternative="equivalence", margin=margin).test(y, a, b)


def test_low_not_below_high_says_so():
    y, a, b = _accuracy_data(n=100)
    with pytest.raises(ValueError, match="low < high"):
        PairedTTest(alternative="equivalence", margin=(0.05, -0.01)).test(y, a, b)


def test_a_list_is_a_pair_and_str_says_the_bounds():
    y, a, b = _accuracy_data(n=300, seed=2)
    res = PairedTTest(alternative="equivalence", margin=[-0.05, 0.1]).test(y, a, b)
    assert res.margin == (-0.05, 0.1)
    assert "-0.05 < B - A < 0.1 (equivalence" in str(res)
    ni = PairedTTest(alternative="non-inferiority", margin=(-0.05, 0.1)).test(y, a, b)
    assert "B is not worse than A by 0.05 or more" in str(ni)
    assert res.to_dict()["margin"] == [-0.05, 0.1]  # plain JSON types: a list


def test_compare_and_cli_pass_a_pair_through(tmp_path, capsys):
    import io

    from test_equivalence import _systems, _write

    from sigtest import compare
    from sigtest.cli import main

    y, preds = _systems()
    test = PairedTTest(alternative="equivalence", margin=(-0.03, 0.05))
    res = compare(y, preds, metrics="accuracy", test=test, pairs="baseline", baseline="base")
    frame = res.to_frame()
    assert "margin" not in frame  # a pair is in margin_low and margin_high
    assert list(frame["margin_low"]) == [-0.03, -0.03]
    assert list(frame["margin_high"]) == [0.05, 0.05]
    for _, row in frame.iterrows():
        direct = test.test(y, preds["base"], preds[row["system_b"]])
        assert row["pvalue"] == pytest.approx(direct.pvalue, rel=1e-12)
    assert "margin (-0.03, 0.05)" in str(res)
    assert "margin (-0.03, 0.05)" in res.report("markdown")
    assert "margin:-0.03..0.05" in res.signature()

    args = _write(tmp_path, y, preds)
    out = io.StringIO()
    assert main(["compare", *args, "-m", "accuracy", "--baseline", "base",
                 "--margin=-0.03,0.05", "--alternative", "equivalence", "--test", "paired_t",
                 "--format", "csv"], out=out) == 0
    direct = test.test(y, preds["base"], preds["same"])
    assert f"{direct.pvalue:.6g}"[:6] in out.getvalue()
    for bad, message in (("0.05,-0.03", "low < 0 < high"), ("0.01,0.05", "low < 0 < high"),
                         ("-0.1,0.1,0.2", "two numbers"), ("a,b", "low,high")):
        capsys.readouterr()
        assert main(["compare", *args, "-m", "accuracy", "--baseline", "base",
                     f"--margin={bad}", "--alternative", "equivalence"],
                    out=io.StringIO()) == 2
        assert message in capsys.readouterr().err


def test_report_marks_are_the_margins_on_the_raw_axis():
    """The chart's dotted margins sit on the B - A axis: for a loss (theta = -delta) the
    non-inferiority bound m is at +m, and the oriented pair (low, high) at (-high, -low)."""
    import re

    from _error_rate import error_rate_metric
    from test_equivalence import _systems

    from sigtest import compare

    y, preds = _systems()
    marks = {}
    with error_rate_metric("error_rate_asym_margin") as name:
        for metric in ("accuracy", name):
            for margin, alt in ((0.03, "non-inferiority"), ((-0.03, 0.05), "equivalence")):
                res = compare(y, preds, metrics=metric, pairs="baseline", baseline="base",
                              test=PairedTTest(alternative=alt, margin=margin))
                marks[metric != "accuracy", alt] = sorted(
                    re.findall(r'text-anchor="middle" fill="#555">([^<]*)<',
                               res.report("html")))
    assert marks[False, "non-inferiority"] == ["-0.03"]
    assert marks[False, "equivalence"] == ["+0.05", "-0.03"]
    assert marks[True, "non-inferiority"] == ["+0.03"]
    assert marks[True, "equivalence"] == ["+0.03", "-0.05"]


# ------------------------------------------------------------ type-I error (slow)
ASYM = (-0.05, 0.10)
AT_LOW = (0.70, 0.10, 0.05, 0.15)  # the true difference q01 - q10 = -0.05 = low
AT_HIGH = (0.70, 0.025, 0.125, 0.15)  # q01 - q10 = +0.10 = high


@pytest.mark.slow
@pytest.mark.parametrize("cls, reps", [(PairedTTest, 1000), (McNemar, 1000)])
def test_type_one_error_at_each_asymmetric_margin(cls, reps):
    """Equivalence with margins (-0.05, 0.10), N = 400, at a true difference exactly
    at either margin. The region is 0.15 wide, about 7.8 standard errors (se =
    sqrt(.15/400) = .0194), so the other one-sided test rejects almost surely and the
    rate is about alpha = .05 at both ends (normal approximation: .05 - Phi(1.645 -
    7.8) = .05); band .05 +- 3.09 sqrt(.05 .95 / reps) = [.029, .071] for 1000 reps.
    The pair's ends are used: the symmetric (-0.05, 0.05) would reject about 0 at
    +0.10 and (-0.10, 0.10) about .6 at -0.05.

    Measured (the seeds below): at low / at high, paired_t .057 / .054, mcnemar
    .056 / .051 (about 6 s each)."""
    from test_equivalence import _simulate

    eq = cls(alternative="equivalence", margin=ASYM)
    rate_low = _simulate(eq, AT_LOW, 400, reps, seed=21)
    rate_high = _simulate(eq, AT_HIGH, 400, reps, seed=22)
    print(f"{cls.__name__}: EQ at low {rate_low:.4f}, at high {rate_high:.4f}")
    half = 3.09 * math.sqrt(0.05 * 0.95 / reps)
    assert abs(rate_low - 0.05) <= half
    assert abs(rate_high - 0.05) <= half
