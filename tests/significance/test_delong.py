"""DeLong's test of two correlated AUCs: naive O(N^2) twin and pROC's reference values.

References: a naive implementation of DeLong, DeLong & Clarke-Pearson (1988)
written here (placements by the double loop over positives and negatives,
S10/S01 as sample covariances), and pROC's own test file
(``tests/testthat/test-roc.test.R`` of xrobin/pROC: ``roc.test`` on the
``aSAH`` data with ``method="delong"``, the default), whose printed values
are copied below with the data they were computed on.
"""

import math
import warnings

import numpy as np
import pytest

import sigtest
from sigtest import DeLong
from sigtest.exceptions import DegenerateDistributionWarning
from sigtest.tests_._delong import delong_components

# pROC's aSAH data (Turck et al. 2010, 113 patients), the columns used by
# pROC's roc.test tests: outcome (1 = "Poor", the positive class), WFNS grade
# (ordered factor 1-5, compared as numbers as pROC does), S100B and NDKA.
OUTCOME_POOR = "00001101001011001011101000000000100110110000000001100010001010011101101111000110100000010000000000001111110001000"
WFNS = [
    1, 1, 1, 1, 3, 2, 5, 4, 1, 2, 5, 2, 5, 5, 1, 2, 5, 2, 2, 5, 2, 1, 1, 1, 1, 2, 1, 2, 1,
    1, 3, 4, 2, 1, 4, 5, 4, 1, 4, 2, 5, 5, 1, 1, 2, 4, 1, 1, 2, 5, 5, 2, 1, 2, 5, 1, 2, 2,
    2, 1, 5, 1, 1, 2, 5, 2, 1, 4, 5, 2, 4, 4, 1, 4, 1, 2, 1, 4, 2, 1, 2, 3, 2, 4, 2, 1, 4,
    5, 1, 1, 5, 4, 2, 2, 1, 1, 1, 3, 1, 2, 5, 2, 2, 5, 5, 5, 2, 4, 4, 5, 1, 1, 1
]
S100B = [
    0.13, 0.14, 0.1, 0.04, 0.13, 0.1, 0.47, 0.16, 0.18, 0.1, 0.12, 0.1, 0.44, 0.71, 0.04,
    0.08, 0.49, 0.04, 0.07, 0.33, 0.09, 0.09, 0.07, 0.11, 0.07, 0.17, 0.07, 0.11, 0.13,
    0.19, 0.05, 0.16, 0.41, 0.14, 0.34, 0.35, 0.48, 0.09, 0.96, 0.25, 0.5, 0.46, 0.16, 0.07,
    0.43, 0.45, 0.11, 0.08, 0.09, 0.86, 0.52, 0.08, 0.06, 0.13, 2.07, 0.1, 0.14, 0.15, 0.07,
    0.06, 0.77, 0.05, 0.09, 0.3, 0.03, 0.09, 0.04, 0.23, 0.7, 0.09, 0.27, 0.71, 0.08, 0.26,
    0.08, 0.16, 0.09, 0.13, 0.1, 0.08, 0.11, 0.33, 0.11, 0.28, 0.07, 0.1, 0.32, 0.22, 0.07,
    0.05, 0.24, 0.38, 0.1, 0.15, 0.08, 0.14, 0.1, 0.07, 0.04, 0.19, 0.56, 0.14, 0.58, 0.32,
    0.82, 0.74, 0.15, 0.47, 0.17, 0.44, 0.15, 0.5, 0.48
]
NDKA = [
    3.01, 8.54, 8.09, 10.42, 17.4, 12.75, 6.0, 13.2, 15.54, 6.01, 15.96, 17.86, 5.18, 8.9,
    13.41, 20.75, 11.6, 16.11, 32.37, 54.82, 32.41, 49.94, 40.34, 9.47, 6.29, 12.53, 6.54,
    6.3, 80.3, 12.8, 9.8, 9.81, 9.85, 18.21, 5.03, 14.04, 21.93, 8.02, 7.42, 8.38, 6.59,
    9.63, 13.12, 7.96, 14.34, 41.43, 7.63, 7.06, 12.59, 13.56, 3.87, 9.44, 7.66, 12.98,
    419.19, 27.19, 22.27, 9.95, 21.22, 11.73, 10.4, 58.83, 6.39, 11.09, 12.22, 13.67, 17.21,
    22.63, 12.9, 9.7, 21.57, 8.23, 72.57, 15.54, 10.51, 10.6, 14.57, 5.19, 9.63, 4.61,
    21.48, 17.3, 12.71, 9.44, 11.07, 19.46, 10.83, 5.37, 11.97, 7.75, 9.83, 10.55, 28.49,
    8.53, 12.57, 12.9, 46.83, 11.68, 12.67, 9.01, 9.57, 34.06, 11.72, 14.26, 47.61, 11.67,
    24.58, 10.33, 13.87, 15.89, 22.43, 6.79, 13.45
]


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
