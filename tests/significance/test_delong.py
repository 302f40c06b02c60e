"""DeLong's test of two correlated AUCs: naive O(N^2) twin and pROC's reference values.

References: a naive implementation of DeLong, DeLong & Clarke-Pearson (1988)
written here (placements by the double loop over positives and negatives,
S10/S01 as sample covariances), and pROC's own test file
(``tests/testthat/test-roc.test.R`` of xrobin/pROC: ``roc.test`` on the
``aSAH`` data with ``method="delong"``, the default), whose printed values
are copied below (the data they were computed on are in ``_asah.py``).
"""

import math
import warnings

import numpy as np
import pytest

import sigtest
from sigtest import BCaInterval, DeLong
from sigtest._engine.delong import DELONG_MIN_CLASS
from sigtest._engine.pvalues import SMALLEST_PVALUE
from sigtest.exceptions import (DegenerateDistributionWarning, SmallSampleWarning,
                                UndefinedMetricWarning)
from sigtest.tests_._delong import delong_components

from _asah import NDKA, OUTCOME_POOR, S100B, WFNS


@pytest.fixture(scope="module")
def asah():
    y = np.array([int(c) for c in OUTCOME_POOR])
    return y, np.array(WFNS, dtype=float), np.array(S100B), np.array(NDKA)


def _naive_delong(y, a, b):
    """DeLong et al. (1988) by their definition: O(m n) placements, sample covariances."""
    X = [(a[y == 1], a[y == 0]), (b[y == 1], b[y == 0])]
    m, n = int((y == 1).sum()), int((y == 0).sum())
    V10 = np.zeros((2, m))
    V01 = np.zeros((2, n))
    for r, (pos, neg) in enumerate(X):
        for i in range(m):
            for j in range(n):
                psi = 1.0 if pos[i] > neg[j] else 0.5 if pos[i] == neg[j] else 0.0
                V10[r, i] += psi / n
                V01[r, j] += psi / m
    auc = V10.mean(axis=1)
    S10 = np.array([[np.sum((V10[k] - auc[k]) * (V10[l] - auc[l])) / (m - 1)
                     for l in range(2)] for k in range(2)])
    S01 = np.array([[np.sum((V01[k] - auc[k]) * (V01[l] - auc[l])) / (n - 1)
                     for l in range(2)] for k in range(2)])
    return auc, S10 / m + S01 / n, V10, V01


@pytest.mark.filterwarnings("ignore::sigtest.exceptions.SmallSampleWarning")
@pytest.mark.parametrize("seed", range(4))
def test_components_equal_the_naive_definition(seed):
    rng = np.random.default_rng(seed)
    n = 60
    y = rng.integers(0, 2, n)
    a = np.round(rng.normal(size=n) + y, 1)  # ties
    b = np.round(rng.normal(size=n) + 2 * y, 1) if seed % 2 else rng.normal(size=n) * 3 + y
    auc, cov, m, nn = delong_components(y, a, b)
    ref_auc, ref_cov, V10, V01 = _naive_delong(y, a, b)
    assert (m, nn) == (int(y.sum()), int(n - y.sum()))
    np.testing.assert_allclose(auc, ref_auc, rtol=0, atol=1e-10)
    np.testing.assert_allclose(cov, ref_cov, rtol=0, atol=1e-10)
    # the placements themselves
    from sigtest._engine.rank_metrics import auc_placements
    from sigtest.metrics import get_metric

    v10, v01 = auc_placements(get_metric("roc_auc").ranking(y, a))
    np.testing.assert_allclose(v10[y == 1], V10[0], atol=1e-12)
    np.testing.assert_allclose(v01[y == 0], V01[0], atol=1e-12)
    # z and p from the naive covariance
    res = DeLong().test(y, a, b)
    se = math.sqrt(ref_cov[0, 0] + ref_cov[1, 1] - 2 * ref_cov[0, 1])
    z = (ref_auc[1] - ref_auc[0]) / se
    assert res.params["test_statistic"] == pytest.approx(z, abs=1e-10)
    assert res.pvalue == pytest.approx(math.erfc(abs(z) / math.sqrt(2)), abs=1e-12)


# pROC test-roc.test.R: roc.test(roc1, roc2) is sigtest's DeLong().test(y, roc2, roc1)
PROC = [
    # (B = roc1, A = roc2, Z, p, conf.int)
    ("wfns", "s100b", 2.20898359144091, 0.0271757822291882,
     (0.0104061769564846, 0.174214419249478)),
    ("wfns", "ndka", 2.79777591868904, 0.00514557970691098,
     (0.0634011709339876, 0.3600405634833566)),
    ("ndka", "s100b", -1.39077002573558, 0.164295175223054,
     (-0.2876917446341914, 0.0488706064228094)),
]


@pytest.mark.parametrize("b_name, a_name, z, p, ci", PROC)
def test_matches_proc_roc_test(asah, b_name, a_name, z, p, ci):
    y, wfns, s100b, ndka = asah
    cols = {"wfns": wfns, "s100b": s100b, "ndka": ndka}
    res = DeLong().test(y, cols[a_name], cols[b_name])
    assert res.test == "delong" and res.metric == "roc_auc"
    assert res.params["test_statistic"] == pytest.approx(z, abs=1e-12)
    assert res.pvalue == pytest.approx(p, abs=1e-12)
    assert tuple(res.confidence_interval) == pytest.approx(ci, abs=1e-12)
    # reversed: same p, opposite z (pROC's "reversed" test)
    rev = DeLong().test(y, cols[b_name], cols[a_name])
    assert rev.pvalue == pytest.approx(res.pvalue, abs=1e-15)
    assert rev.params["test_statistic"] == pytest.approx(-z, abs=1e-12)


def test_one_sided_matches_proc(asah):
    y, wfns, s100b, _ = asah
    # pROC: roc.test(r.wfns, r.s100b, alternative="greater"/"less")
    assert DeLong(alternative="greater").test(y, s100b, wfns).pvalue == pytest.approx(
        0.0135878911145941, abs=1e-12)
    assert DeLong(alternative="less").test(y, s100b, wfns).pvalue == pytest.approx(
        0.986412108885406, abs=1e-12)
    res = DeLong(alternative="greater").test(y, s100b, wfns)
    assert res.confidence_interval.high == math.inf
    assert res.confidence_interval.low > 0  # p < 0.05 one-sided: the bound is above 0


def test_string_labels_and_predict_proba_columns(asah):
    y, wfns, s100b, _ = asah
    labels = np.where(y == 1, "Poor", "Good")  # "Poor" > "Good": the positive class
    ref = DeLong().test(y, s100b, wfns)
    res = DeLong().test(labels, np.stack([1 - s100b, s100b], 1), np.stack([-wfns, wfns], 1))
    assert res.pvalue == ref.pvalue and res.delta == ref.delta


def test_degenerate_identical_systems_give_p_one(asah):
    y, wfns, _, _ = asah
    with pytest.warns(DegenerateDistributionWarning, match="variance"):
        res = DeLong().test(y, wfns, wfns)
    assert res.pvalue == 1.0 and res.delta == 0.0
    assert res.params["test_statistic"] == 0.0  # pROC's z for identical curves, not nan
    assert math.isnan(res.confidence_interval.low)
    # both perfect: zero variance although the AUCs are equal to 1
    with pytest.warns(DegenerateDistributionWarning):
        res = DeLong().test(y, y + 0.5, 2.0 * y)
    assert res.pvalue == 1.0


def test_refuses_what_it_cannot_do(asah):
    y, wfns, s100b, ndka = asah
    with pytest.raises(ValueError, match="roc_auc"):
        DeLong().test(y, s100b, wfns, metric="average_precision")
    for kw in ({"sample_weight": np.ones(y.size)}, {"groups": np.arange(y.size) // 2},
               {"strata": y}):
        with pytest.raises(ValueError, match=next(iter(kw))):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                DeLong().test(y, s100b, wfns, **kw)
    with pytest.raises(ValueError, match="binary"):
        DeLong().test(np.arange(y.size) % 3, s100b, wfns)
    with pytest.raises(ValueError, match="alternative"):
        DeLong(alternative="bigger").test(y, s100b, wfns)


def test_bad_scores_are_named_and_results_deterministic(asah):
    y, wfns, s100b, _ = asah
    with pytest.raises(ValueError, match="y_pred_b"):
        DeLong().test(y, s100b, wfns[:-3])
    with pytest.raises(ValueError, match="y_pred_a"):
        DeLong().test(y, np.where(np.arange(y.size) == 4, np.nan, s100b), wfns)
    with pytest.raises(ValueError, match="y_pred_b"):
        DeLong().test(y, s100b, np.where(np.arange(y.size) == 7, np.inf, wfns))
    first, again = DeLong().test(y, s100b, wfns), DeLong().test(y, s100b.copy(), wfns.copy())
    assert (first.pvalue, first.confidence_interval) == (again.pvalue, again.confidence_interval)


def test_registered_and_public():
    assert isinstance(sigtest.get_test("delong"), DeLong)
    assert "delong" in sigtest.get_test_names()


@pytest.mark.slow
def test_size_under_the_null_is_nominal():
    """Two equally good, correlated scorers: rejection rate at alpha = 0.05.

    2000 data sets of N = 200 (about 100 positives): the Monte Carlo standard
    error of a rate of 0.05 is sqrt(.05 * .95 / 2000) = 0.0049, so the band
    [0.035, 0.065] is three standard errors either side; DeLong's test is
    known to be close to nominal at this size (DeLong et al. 1988).
    """
    rng = np.random.default_rng(20240)
    rejections = 0
    runs = 2000
    for _ in range(runs):
        y = rng.integers(0, 2, 200)
        common = rng.normal(size=200)
        a = common + rng.normal(size=200) + y
        b = common + rng.normal(size=200) + y
        rejections += DeLong().test(y, a, b).pvalue < 0.05
    assert 0.035 <= rejections / runs <= 0.065


def test_non_inferiority_and_equivalence_from_the_naive_variance(asah):
    """Margins: one-sided normal tests at delta - m_L and delta - m_U, as PairedTTest's
    margin_location_test with the normal law; the twin recomputes them from the naive
    DeLong variance."""
    from scipy.stats import norm

    y, wfns, s100b, _ = asah
    auc, cov, _, _ = _naive_delong(y, s100b, wfns)
    delta = auc[1] - auc[0]
    se = math.sqrt(cov[0, 0] + cov[1, 1] - 2 * cov[0, 1])
    res = DeLong(alternative="non-inferiority", margin=0.05).test(y, s100b, wfns)
    assert res.pvalue == pytest.approx(norm.sf((delta + 0.05) / se), abs=1e-12)
    assert res.confidence_interval.low == pytest.approx(delta - norm.ppf(0.95) * se,
                                                        abs=1e-12)
    assert res.confidence_interval.high == math.inf and res.margin == 0.05
    eq = DeLong(alternative="equivalence", margin=(-0.1, 0.2)).test(y, s100b, wfns)
    p_lower = norm.sf((delta + 0.1) / se)
    p_upper = norm.cdf((delta - 0.2) / se)
    assert eq.pvalue == pytest.approx(max(p_lower, p_upper), abs=1e-12)
    assert eq.confidence_level == pytest.approx(0.9)
    assert tuple(eq.confidence_interval) == pytest.approx(
        (delta - norm.ppf(0.95) * se, delta + norm.ppf(0.95) * se), abs=1e-12)
    with pytest.raises(ValueError, match="margin"):
        DeLong(alternative="equivalence").test(y, s100b, wfns)
    with pytest.raises(ValueError, match="margin"):
        DeLong(margin=0.05).test(y, s100b, wfns)


# --------------------------------------------------------------------------
# the edges: few positives or negatives, zero variance, one class
# --------------------------------------------------------------------------
def _binormal(rng, m, n, mu=1.0, rho=0.5):
    """Two equally good scorers: ``n`` negatives then ``m`` positives shifted by ``mu``."""
    e = rng.multivariate_normal([0.0, 0.0], [[1.0, rho], [rho, 1.0]], size=m + n)
    y = np.r_[np.zeros(n, dtype=int), np.ones(m, dtype=int)]
    return y, e[:, 0] + mu * y, e[:, 1] + mu * y


def test_few_positives_or_negatives_warn_and_name_the_permutation_test():
    rng = np.random.default_rng(3)
    k = DELONG_MIN_CLASS
    for m, n in ((k - 1, 300), (300, k - 1), (5, 25)):
        y, a, b = _binormal(rng, m, n)
        with pytest.warns(SmallSampleWarning, match="PairedPermutation") as caught:
            DeLong().test(y, a, b)
        assert f"{m} positive and {n} negative items" in str(caught[0].message)
        assert caught[0].filename == __file__  # points at the user's line
    y, a, b = _binormal(rng, k, k)
    with warnings.catch_warnings():
        warnings.simplefilter("error", SmallSampleWarning)
        assert DeLong().test(y, a, b).pvalue > 0


def _perfect_and_constant(n_neg, n_pos, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.permutation(np.r_[np.zeros(n_neg, dtype=int), np.ones(n_pos, dtype=int)])
    perfect = y + rng.uniform(0.0, 0.5, y.size)  # every positive above every negative
    return y, np.full(y.size, 0.25), perfect


def test_zero_variance_with_a_difference_gives_the_smallest_p_the_data_allow():
    y, constant, perfect = _perfect_and_constant(60, 40)
    d = y.size  # every item is scored differently by the two systems
    with pytest.warns(DegenerateDistributionWarning, match="variance"):
        res = DeLong().test(y, constant, perfect)
    assert res.delta == 0.5 and res.params["test_statistic"] == math.inf
    assert res.pvalue == 2.0 ** (1 - d)  # the exact sign test, all d items one way
    assert res.log10_pvalue == pytest.approx((1 - d) * math.log10(2.0), abs=1e-12)
    assert tuple(res.confidence_interval) == (0.5, 0.5)
    # the bootstrap's all-items-one-way rule gives the same p on the same data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        boot = BCaInterval(n_resamples=99, random_state=0).test(y, constant, perfect,
                                                                metric="roc_auc")
    assert boot.pvalue == res.pvalue
    # a system against its mirror image: delta = -1
    with pytest.warns(DegenerateDistributionWarning):
        mirror = DeLong().test(y, perfect, -perfect)
    assert mirror.delta == -1.0 and mirror.params["test_statistic"] == -math.inf
    assert mirror.pvalue == 2.0 ** (1 - d)
    with pytest.warns(DegenerateDistributionWarning):
        assert DeLong(alternative="greater").test(y, perfect, -perfect).pvalue == 1.0
    with pytest.warns(DegenerateDistributionWarning):
        less = DeLong(alternative="less").test(y, perfect, -perfect)
    assert less.pvalue == 2.0 ** -d and less.confidence_interval == (-math.inf, -1.0)
    # margins: B better by .5 is non-inferior at any margin, B worse by 1 is not
    with pytest.warns(DegenerateDistributionWarning):
        ni = DeLong(alternative="non-inferiority", margin=0.05).test(y, constant, perfect)
    assert ni.pvalue == 2.0 ** -d and ni.confidence_interval.low == 0.5
    with pytest.warns(DegenerateDistributionWarning):
        assert DeLong(alternative="non-inferiority", margin=0.05).test(
            y, perfect, -perfect).pvalue == 1.0


def test_zero_variance_p_is_never_zero_and_its_log_is_exact():
    y, constant, perfect = _perfect_and_constant(700, 500, seed=1)
    with pytest.warns(DegenerateDistributionWarning):
        res = DeLong().test(y, constant, perfect)
    assert res.pvalue == SMALLEST_PVALUE  # 2 ** -1199 underflows; p is never 0
    assert res.log10_pvalue == pytest.approx(-1199 * math.log10(2.0), abs=1e-9)


@pytest.mark.filterwarnings("ignore::sigtest.exceptions.SmallSampleWarning")
def test_zero_variance_with_few_discordant_items_widens_the_point_to_zero():
    # a constant system against a perfect one on 4 items: d = 4, p = 2 ** -3 > .05
    y = np.array([0, 0, 1, 1])
    with pytest.warns(DegenerateDistributionWarning, match="d = 4"):
        res = DeLong().test(y, np.full(4, 0.5), np.array([0.2, 0.2, 0.8, 0.8]))
    assert res.delta == 0.5 and res.pvalue == 0.125
    # p > 1 - level: the interval reaches 0, so that both say "not significant"
    assert tuple(res.confidence_interval) == (0.0, 0.5)
    # equal AUCs with zero variance (same order, other values): z = 0, p = 1
    a = np.array([0.1, 0.9] * 3)
    b = a.copy()
    b[:2] = [0.2, 0.8]
    with pytest.warns(DegenerateDistributionWarning, match="both zero"):
        res = DeLong().test(np.array([0, 1] * 3), a, b)
    assert res.pvalue == 1.0 and res.params["test_statistic"] == 0.0


def test_one_class_gives_nan_with_the_undefined_metric_warning_only():
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=50), rng.normal(size=50)
    for y in (np.ones(50, dtype=int), np.zeros(50, dtype=int)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            res = DeLong().test(y, a, b, labels=[0, 1])
        assert math.isnan(res.pvalue) and math.isnan(res.params["test_statistic"])
        assert math.isnan(res.confidence_interval.low)
        assert {w.category for w in caught} == {UndefinedMetricWarning}, [
            str(w.message) for w in caught]


def test_each_system_is_sorted_once(monkeypatch, asah):
    """The input path keeps each system's ranking; DeLong reuses it (2 sorts, not 4)."""
    from sigtest.metrics import _ranking

    calls = []
    original = _ranking._sorted_component
    monkeypatch.setattr(_ranking, "_sorted_component",
                        lambda *args: calls.append(1) or original(*args))
    y, wfns, s100b, _ = asah
    res = DeLong().test(y, s100b, wfns)
    assert len(calls) == 2
    assert res.params["test_statistic"] == pytest.approx(PROC[0][2], abs=1e-12)


def test_compare_sorts_each_system_once_per_pair(monkeypatch, asah):
    """compare sorts each system once for its score and once per pair side, same result."""
    from sigtest import compare
    from sigtest.metrics import _ranking

    y, wfns, s100b, _ = asah
    systems = {"s100b": s100b, "wfns": wfns}
    expected = DeLong().test(y, s100b, wfns)
    calls = []
    original = _ranking._sorted_component
    monkeypatch.setattr(_ranking, "_sorted_component",
                        lambda *args: calls.append(1) or original(*args))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frame = compare(y, systems, metrics="roc_auc", test=DeLong(), correction=None,
                        n_jobs=1).to_frame()
    row = frame.iloc[0]
    assert row["pvalue"] == expected.pvalue
    # each system's own score (a system on both sides is scored once): 2; the pair: 2
    assert len(calls) == 4


@pytest.mark.slow
def test_size_holds_at_the_warning_threshold():
    """Two equally good scorers with DELONG_MIN_CLASS positives among 500 items.

    The hardest case for DeLong's normal approximation is a small class
    beside a large one (its variance then rests on the small class's
    placements); below the threshold the rate exceeds .05 (among 1,000
    items, 10 positives: .073, 30: .063 over 4,000 data sets;
    ``benchmarks/bench_delong.py``). 2,000 data sets: the Monte Carlo
    standard error at .05 is .0049, so the band [.035, .065] is three
    standard errors either side.
    """
    rng = np.random.default_rng(40)
    runs, rejections = 2000, 0
    for _ in range(runs):
        y, a, b = _binormal(rng, DELONG_MIN_CLASS, 500 - DELONG_MIN_CLASS)
        rejections += DeLong().test(y, a, b).pvalue <= 0.05
    assert 0.035 <= rejections / runs <= 0.065
