"""McNemar on tiny N: exact conditional margin tests, and intervals that agree with the p-value.

Issue 20: ``McNemar(alternative="non-inferiority", margin=0.2).test([0,1],[1,0],[0,1])``
gave p = .0004 where no valid test can go below .16 (two discordant items
for B, each going to B with probability at most (1 - m)/2 = .4 at the
margin), and its size at the margin was 8 % at N = 5; its plain two-sided
test gave p = .5 with a 95 % interval (.07, 1) that excluded 0.

The size is computed exactly: the probability of every table of N items
under the trinomial law of (B right & A wrong, A right & B wrong, concordant)
on the boundary theta = q_+ - q_- = -m, maximised over a grid of the
nuisance parameter (the discordance rate), summed naively in the test.
"""

import math
import warnings

import numpy as np
import pytest
from scipy import stats
from scipy.special import gammaln

from sigtest import McNemar
from sigtest._engine.intervals import excludes_zero
from sigtest.tests_._mcnemar import MARGIN_EXACT_BELOW

from _error_rate import error_rate_metric

ALPHA = 0.05


def _table_data(n11, n10, n01, n00):
    """Labels with the paired table (n11 both right, n10 A right only, n01 B right only)."""
    a = np.r_[np.ones(n11 + n10, int), np.zeros(n01 + n00, int)]
    b = np.r_[np.ones(n11, int), np.zeros(n10, int), np.ones(n01, int), np.zeros(n00, int)]
    return np.ones(a.size, int), a, b


def _run(test, *data):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return test.test(*data)


def test_issue_example_non_inferiority():
    res = _run(McNemar(alternative="non-inferiority", margin=0.2), [0, 1], [1, 0], [0, 1])
    # the exact bound: both discordant items for B, each with probability (1 - .2)/2
    assert res.pvalue == pytest.approx(0.4 ** 2, rel=1e-12)
    assert res.interval_method == "exact conditional"
    # one-sided 95 % Clopper-Pearson lower bound of pi with 2 of 2: .05 ** (1/2)
    assert res.confidence_interval.low == pytest.approx(2 * 0.05 ** 0.5 - 1, rel=1e-12)
    assert res.confidence_interval.high == math.inf
    assert res.confidence_interval.low < -0.2 and res.pvalue > ALPHA  # they agree


def test_issue_example_two_sided_interval_agrees():
    res = _run(McNemar(), [0, 1], [1, 0], [0, 1])
    assert res.pvalue == 0.5
    assert not excludes_zero(res.confidence_interval)
    assert res.params["interval_extended"]
    assert res.params["newcombe_low"] > 0  # Newcombe's own interval excluded 0


@pytest.mark.parametrize("method", ["exact", "mid-p", "chi2"])
@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_plain_interval_excludes_zero_iff_p_below_alpha(method, alternative):
    # every table of N = 1..12 items: p <= alpha exactly when the interval excludes 0
    test = McNemar(method=method, alternative=alternative)
    for n in range(1, 13, 3):
        for n10 in range(n + 1):
            for n01 in range(n + 1 - n10):
                n11 = (n - n10 - n01) // 2
                res = _run(test, *_table_data(n11, n10, n01, n - n10 - n01 - n11))
                assert (res.pvalue <= ALPHA) == excludes_zero(res.confidence_interval), (
                    n, n10, n01, res.pvalue, res.confidence_interval)


def _decisions(n, alternative, margin):
    """Reject (p <= alpha) for every (n_better, n_worse) of N items, checking the interval."""
    test = McNemar(alternative=alternative, margin=margin)
    reject = {}
    for better in range(n + 1):
        for worse in range(n + 1 - better):
            # B right & A wrong on `better` items, A right & B wrong on `worse`
            res = _run(test, *_table_data(n - better - worse, worse, better, 0))
            low, high = res.confidence_interval
            inside = low > -margin and (alternative == "non-inferiority" or high < margin)
            assert (res.pvalue <= ALPHA) == inside, (n, better, worse, res.pvalue, low, high)
            reject[better, worse] = res.pvalue <= ALPHA
    return reject


def _size(n, reject, margin, which):
    """Largest rejection probability on the boundary (grid over the discordance rate).

    ``which="lower"``: theta = -m (q_- = q_+ + m); ``"upper"``: theta = +m.
    """
    worst = 0.0
    for q in np.linspace(0.0, (1.0 - margin) / 2.0, 401):
        q_plus, q_minus = (q, q + margin) if which == "lower" else (q + margin, q)
        q_rest = 1.0 - q_plus - q_minus
        total = 0.0
        for (better, worse), rej in reject.items():
            if not rej:
                continue
            rest = n - better - worse
            log_p = gammaln(n + 1) - gammaln(better + 1) - gammaln(worse + 1) - gammaln(rest + 1)
            for count, prob in ((better, q_plus), (worse, q_minus), (rest, q_rest)):
                if count:
                    log_p += count * math.log(prob) if prob > 0 else -math.inf
            total += math.exp(log_p)
        worst = max(worst, total)
    return worst


def test_size_at_the_margin_n5():
    # the issue's size: 8 % at N = 5 with Newcombe's interval
    for margin in (0.1, 0.2):
        reject = _decisions(5, "non-inferiority", margin)
        assert _size(5, reject, margin, "lower") <= ALPHA


@pytest.mark.slow
@pytest.mark.parametrize("alternative", ["non-inferiority", "equivalence"])
def test_size_at_the_margin_n5_to_20(alternative):
    # exact size (no simulation): max over a 401-point grid of the nuisance parameter on
    # the boundary of the probability of rejecting, for every N = 5..20; the test is
    # exact-conditional, so the size must be <= alpha (no tolerance beyond rounding).
    # Measured maximum: see docs/equivalence.md (.050 at the all-discordant corner).
    for margin in (0.05, 0.2):
        for n in range(5, 21):
            reject = _decisions(n, alternative, margin)
            assert _size(n, reject, margin, "lower") <= ALPHA + 1e-12, (n, margin)
            if alternative == "equivalence":
                assert _size(n, reject, margin, "upper") <= ALPHA + 1e-12, (n, margin)


def test_conditional_test_values_and_switch_to_newcombe():
    # 3 for B, 1 for A among N = 10, margin .1: p_lower = P(Bin(4, .45) >= 3),
    # p_upper = P(Bin(4, .45) >= 1); naive binomial sums
    def tail(k, d, p):
        return sum(math.comb(d, j) * p ** j * (1 - p) ** (d - j) for j in range(k, d + 1))

    data = _table_data(3, 1, 3, 3)
    res = _run(McNemar(alternative="equivalence", margin=0.1), *data)
    assert res.params["pvalue_lower"] == pytest.approx(tail(3, 4, 0.45), rel=1e-12)
    assert res.params["pvalue_upper"] == pytest.approx(tail(1, 4, 0.45), rel=1e-12)
    assert res.pvalue == max(res.params["pvalue_lower"], res.params["pvalue_upper"])
    assert res.confidence_level == pytest.approx(0.90)
    # 90 % two-sided Clopper-Pearson bounds of pi = 3/4, mapped to theta, 0 kept inside
    lo = stats.beta.ppf(0.05, 3, 2)
    hi = stats.beta.ppf(0.95, 4, 1)
    assert res.confidence_interval.low == pytest.approx(min(0.0, 2 * lo - 1), rel=1e-12)
    assert res.confidence_interval.high == pytest.approx(max(0.0, 2 * hi - 1), rel=1e-12)
    # from MARGIN_EXACT_BELOW items on: Newcombe's interval, as before
    n = MARGIN_EXACT_BELOW
    res = _run(McNemar(alternative="non-inferiority", margin=0.1), *_table_data(n - 10, 4, 6, 0))
    assert res.interval_method == "newcombe"
    res = _run(McNemar(alternative="non-inferiority", margin=0.1),
               *_table_data(n - 11, 4, 6, 0))
    assert res.interval_method == "exact conditional"


def test_conditional_margin_test_with_an_error_rate_and_no_discordant_item():
    # a loss flips the orientation: B better means a lower error rate
    data = _table_data(3, 0, 3, 4)  # B right on 3 items where A is wrong
    test = McNemar(alternative="non-inferiority", margin=0.2)
    r_acc = _run(test, *data)
    with error_rate_metric("error_rate_small_n") as metric, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r_err = test.test(*data, metric=metric)
    assert r_err.pvalue == r_acc.pvalue == pytest.approx(0.4 ** 3, rel=1e-12)
    assert r_err.confidence_interval.high == pytest.approx(-r_acc.confidence_interval.low)
    assert r_err.confidence_interval.low == -math.inf
    with pytest.warns(Warning, match="no discordant item"):
        res = McNemar(alternative="equivalence", margin=0.2).test(*_table_data(5, 0, 0, 5))
    assert res.pvalue == 1.0 and tuple(res.confidence_interval) == (-1.0, 1.0)
