"""sigtest.cv (tests on per-fold CV scores) and cross_val_compare(cv_test=...).

Every statistic is checked against a naive computation written here (loops
over folds, the formulas of the papers), against scipy's paired t-test in the
limit where the correction vanishes, against mlxtend's 5x2cv tests fed the
same fold scores, and against baycomp's correlated t-test.
"""

import dataclasses
import inspect
import math
import warnings

import numpy as np
import pytest
from scipy import stats
from sklearn.base import clone
from sklearn.datasets import load_iris, load_wine
from sklearn.dummy import DummyClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score, f1_score
from sklearn.model_selection import RepeatedKFold, RepeatedStratifiedKFold, ShuffleSplit
from sklearn.naive_bayes import GaussianNB
from sklearn.neighbors import KNeighborsClassifier
from sklearn.tree import DecisionTreeClassifier

import sigtest.cv as cv
from sigtest import (
    AntiConservativeWarning,
    DegenerateDistributionWarning,
    PairedPermutation,
    cross_val_compare,
)
from sigtest.cv import (
    BayesianCVResult,
    CVTestResult,
    bayesian_correlated_ttest,
    combined_ftest_5x2cv,
    corrected_resampled_ttest,
    five_by_two,
    paired_ttest_5x2cv,
)


def _scores(seed, shape, shift=0.01):
    rng = np.random.default_rng(seed)
    a = 0.8 + 0.03 * rng.standard_normal(shape)
    b = a + shift + 0.02 * rng.standard_normal(shape)
    return a, b


# ------------------------------------------------------------ naive twins
def naive_factor(j, n_train, n_test, variance="one-partition"):
    """1/J + n_test/n_train, with J capped at the folds of one partition by default."""
    folds_per_partition = (n_train + n_test) / n_test
    counted = j if variance == "all-folds" else min(j, folds_per_partition)
    return 1 / counted + n_test / n_train


def naive_corrected_t(a, b, n_train, n_test, greater_is_better=True, variance="one-partition"):
    d = [(y - x) if greater_is_better else (x - y)
         for x, y in zip(np.ravel(a).tolist(), np.ravel(b).tolist())]
    j = len(d)
    mean = sum(d) / j
    var = sum((x - mean) ** 2 for x in d) / (j - 1)
    t = mean / math.sqrt(naive_factor(j, n_train, n_test, variance) * var)
    return t, j - 1, mean, var


def naive_5x2(a, b, greater_is_better=True):
    """Dietterich's p_i^(j) and s_i^2, replication by replication."""
    p = [[(b[i][j] - a[i][j]) if greater_is_better else (a[i][j] - b[i][j])
          for j in range(2)] for i in range(5)]
    s2 = []
    for i in range(5):
        pbar = (p[i][0] + p[i][1]) / 2
        s2.append((p[i][0] - pbar) ** 2 + (p[i][1] - pbar) ** 2)
    t = p[0][0] / math.sqrt(sum(s2) / 5)
    f = sum(p[i][j] ** 2 for i in range(5) for j in range(2)) / (2 * sum(s2))
    return t, f


def two_sided(t, df):
    return 2 * min(stats.t.cdf(t, df), stats.t.sf(t, df))


# ---------------------------------------------------- corrected resampled t
@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("shape", [(10,), (3, 10), (10, 5)])
@pytest.mark.parametrize("greater_is_better", [True, False])
@pytest.mark.parametrize("variance", ["one-partition", "all-folds"])
def test_corrected_t_matches_the_naive_formula(seed, shape, greater_is_better, variance):
    a, b = _scores(seed, shape)
    n_train, n_test = 450, 50
    t, df, mean, _ = naive_corrected_t(a, b, n_train, n_test, greater_is_better, variance)
    for alt, p in [("two-sided", two_sided(t, df)), ("greater", stats.t.sf(t, df)),
                   ("less", stats.t.cdf(t, df))]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", AntiConservativeWarning)
            res = corrected_resampled_ttest(a, b, n_train=n_train, n_test=n_test,
                                            alternative=alt, greater_is_better=greater_is_better,
                                            variance=variance)
        assert res.statistic == pytest.approx(t, rel=1e-12)
        assert res.pvalue == pytest.approx(p, rel=1e-10)
        assert res.df == df and res.n_folds == a.size and res.alternative == alt
        assert res.mean_difference == pytest.approx(mean, rel=1e-12)
        assert res.test == "corrected_t"


def test_corrected_t_without_correction_is_scipys_paired_t():
    # n_test / n_train -> 0 removes the correction: the naive paired t-test
    a, b = _scores(7, (10,))
    res = corrected_resampled_ttest(a, b, n_train=1e15, n_test=1e-3)
    ref = stats.ttest_rel(b, a)
    assert res.statistic == pytest.approx(ref.statistic, rel=1e-9)
    assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-8)


def test_corrected_t_is_more_conservative_than_the_naive_t():
    a, b = _scores(1, (10,), shift=0.02)
    naive = stats.ttest_rel(b, a)
    res = corrected_resampled_ttest(a, b, n_train=900, n_test=100)
    # variance x (1/J + 1/9) / (1/J) = 2.11 -> t / sqrt(2.11)
    assert res.statistic == pytest.approx(naive.statistic / math.sqrt(1 + 10 / 9), rel=1e-12)
    assert res.pvalue > naive.pvalue


def test_corrected_t_repeated_equals_flattened():
    a, b = _scores(3, (10, 10))
    two_d = corrected_resampled_ttest(a, b, n_train=90, n_test=10)
    flat = corrected_resampled_ttest(a.ravel(), b.ravel(), n_train=90, n_test=10)
    assert two_d == flat and two_d.n_folds == 100 and two_d.df == 99


def test_repeated_folds_keep_the_variance_of_one_partition():
    # 10 x 10-fold CV on n = 100 items: the default variance is one 10-fold
    # run's (1/10 + 1/9) s^2, not (1/100 + 1/9) s^2 (issue 20: the latter
    # rejected 0.12 of true nulls at alpha = 0.05, tests/significance/test_cv_tests_slow.py)
    a, b = _scores(3, (10, 10))
    d = (b - a).ravel()
    res = corrected_resampled_ttest(a, b, n_train=90, n_test=10)
    assert res.statistic == pytest.approx(
        d.mean() / math.sqrt((1 / 10 + 1 / 9) * d.var(ddof=1)), rel=1e-12)
    assert res.df == 99
    with pytest.warns(AntiConservativeWarning, match=r"variance='all-folds' on 100 folds"):
        old = corrected_resampled_ttest(a, b, n_train=90, n_test=10, variance="all-folds")
    assert old.statistic == pytest.approx(
        d.mean() / math.sqrt((1 / 100 + 1 / 9) * d.var(ddof=1)), rel=1e-12)
    assert old.pvalue < res.pvalue
    bay = bayesian_correlated_ttest(a, b, n_train=90, n_test=10, rope=0.01)
    assert bay.scale == pytest.approx(math.sqrt((1 / 10 + 1 / 9) * d.var(ddof=1)), rel=1e-12)


@pytest.mark.parametrize("j, n_train, n_test", [
    (10, 90, 10),        # one 10-fold partition of 100 items
    (10, 512.1, 56.9),   # 569 items in folds of 56 and 57 (mean sizes)
    (10, 512, 57),       # the same with sizes rounded to whole items
    (5, 400, 100),
    (2, 50, 50),
])
def test_one_partition_needs_no_warning_and_both_variances_agree(j, n_train, n_test):
    a, b = _scores(j, (j,))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        new = corrected_resampled_ttest(a, b, n_train=n_train, n_test=n_test)
        old = corrected_resampled_ttest(a, b, n_train=n_train, n_test=n_test,
                                        variance="all-folds")
        bay = bayesian_correlated_ttest(a, b, n_train=n_train, n_test=n_test, rope=0.01,
                                        variance="all-folds")
    assert new.statistic == pytest.approx(old.statistic, rel=2e-3)
    t, _, _, _ = naive_corrected_t(a, b, n_train, n_test)
    assert new.statistic == pytest.approx(t, rel=1e-12)
    assert bay.scale ** 2 * old.statistic ** 2 == pytest.approx(old.mean_difference ** 2,
                                                               rel=1e-12)


@pytest.mark.parametrize("shape, n_train, n_test", [
    ((2, 10), 90, 10),    # 2 x 10-fold
    ((5, 2), 50, 50),     # 5 x 2-fold
    ((15,), 180, 20),     # 15 random splits of 10 %
])
def test_all_folds_warns_beyond_one_partition(shape, n_train, n_test):
    a, b = _scores(1, shape)
    for func, kw in [(corrected_resampled_ttest, {}), (bayesian_correlated_ttest,
                                                      {"rope": 0.01})]:
        with pytest.warns(AntiConservativeWarning, match="one-partition"):
            func(a, b, n_train=n_train, n_test=n_test, variance="all-folds", **kw)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            func(a, b, n_train=n_train, n_test=n_test, **kw)


def test_swapping_a_and_b_and_loss_orientation():
    a, b = _scores(5, (10,))
    ab = corrected_resampled_ttest(a, b, n_train=9, n_test=1)
    ba = corrected_resampled_ttest(b, a, n_train=9, n_test=1)
    assert ba.statistic == pytest.approx(-ab.statistic, rel=1e-12)
    assert ba.pvalue == pytest.approx(ab.pvalue, rel=1e-12)
    # a loss: lower is better, so B with the lower loss gets a positive statistic
    loss = corrected_resampled_ttest(-a, -b, n_train=9, n_test=1, greater_is_better=False)
    assert loss.statistic == pytest.approx(ab.statistic, rel=1e-12)
    bay = bayesian_correlated_ttest(a, b, n_train=9, n_test=1, rope=0.005)
    bay_ba = bayesian_correlated_ttest(b, a, n_train=9, n_test=1, rope=0.005)
    assert bay_ba.prob_worse == pytest.approx(bay.prob_better, rel=1e-12)
    assert bay_ba.prob_better == pytest.approx(bay.prob_worse, rel=1e-12)


# -------------------------------------------------------------------- 5x2cv
@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("greater_is_better", [True, False])
def test_5x2cv_matches_the_naive_formulas(seed, greater_is_better):
    a, b = _scores(seed, (5, 2))
    t, f = naive_5x2(a.tolist(), b.tolist(), greater_is_better)
    res_t = paired_ttest_5x2cv(a, b, greater_is_better=greater_is_better)
    assert res_t.statistic == pytest.approx(t, rel=1e-12)
    assert res_t.pvalue == pytest.approx(two_sided(t, 5), rel=1e-10)
    assert res_t.df == 5 and res_t.n_folds == 10 and res_t.test == "5x2cv_t"
    for alt, p in [("greater", stats.t.sf(t, 5)), ("less", stats.t.cdf(t, 5))]:
        assert paired_ttest_5x2cv(a, b, alternative=alt, greater_is_better=greater_is_better
                                  ).pvalue == pytest.approx(p, rel=1e-10)
    res_f = combined_ftest_5x2cv(a, b, greater_is_better=greater_is_better)
    assert res_f.statistic == pytest.approx(f, rel=1e-12)
    assert res_f.pvalue == pytest.approx(stats.f.sf(f, 10, 5), rel=1e-10)
    assert res_f.df == (10, 5) and res_f.test == "5x2cv_f"


def _mlxtend_feed(a, b):
    """mlxtend's 5x2cv functions fed prescribed fold scores.

    mlxtend fits its two estimators on each half and calls
    ``scoring(estimator, X_test, y_test)`` in the order: replication i, fold
    1 (estimator1 then estimator2), fold 2 (estimator1 then estimator2). A
    scorer that returns the next prescribed score of the estimator it gets
    makes mlxtend compute its statistic from our fold scores; the data only
    need to be fittable.
    """
    e1, e2 = DummyClassifier(), DummyClassifier()
    queues = {id(e1): iter(np.ravel(a).tolist()), id(e2): iter(np.ravel(b).tolist())}

    def scoring(estimator, X, y):
        return next(queues[id(estimator)])

    X = np.zeros((20, 1))
    y = np.tile([0, 1], 10)
    return e1, e2, X, y, scoring


@pytest.mark.parametrize("seed", range(3))
def test_5x2cv_against_mlxtend(seed):
    evaluate = pytest.importorskip("mlxtend.evaluate")
    a, b = _scores(seed, (5, 2))
    e1, e2, X, y, scoring = _mlxtend_feed(a, b)
    t_ml, p_ml = evaluate.paired_ttest_5x2cv(e1, e2, X, y, scoring=scoring, random_seed=0)
    e1, e2, X, y, scoring = _mlxtend_feed(a, b)
    f_ml, pf_ml = evaluate.combined_ftest_5x2cv(e1, e2, X, y, scoring=scoring, random_seed=0)
    res_t = paired_ttest_5x2cv(a, b)
    res_f = combined_ftest_5x2cv(a, b)
    # mlxtend orients A - B (estimator1 - estimator2); ours is B relative to A
    assert res_t.statistic == pytest.approx(-t_ml, rel=1e-12)
    assert res_t.pvalue == pytest.approx(p_ml, rel=1e-10)
    assert res_f.statistic == pytest.approx(f_ml, rel=1e-12)
    assert res_f.pvalue == pytest.approx(pf_ml, rel=1e-10)


# ------------------------------------------------------------- Bayesian t
@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("rope", [0.0, 0.005, 0.02])
def test_bayesian_matches_the_naive_posterior(seed, rope):
    a, b = _scores(seed, (2, 10))
    n_train, n_test = 180, 20
    _, df, mean, var = naive_corrected_t(a, b, n_train, n_test)
    # 2 x 10 folds: the first term of one partition, 1/10, not 1/20
    rho = n_test / (n_train + n_test)
    scale = math.sqrt((1 / 10 + rho / (1 - rho)) * var)
    post = stats.t(df, loc=mean, scale=scale)
    res = bayesian_correlated_ttest(a, b, n_train=n_train, n_test=n_test, rope=rope)
    assert res.mean_difference == pytest.approx(mean, rel=1e-12)
    assert res.scale == pytest.approx(scale, rel=1e-12)
    assert res.df == df == 19 and res.n_folds == 20
    assert res.prob_worse == pytest.approx(post.cdf(-rope), rel=1e-9)
    assert res.prob_better == pytest.approx(1 - post.cdf(rope), rel=1e-9)
    assert res.prob_equivalent == pytest.approx(post.cdf(rope) - post.cdf(-rope), abs=1e-12)
    assert res.prob_worse + res.prob_equivalent + res.prob_better == pytest.approx(1.0)
    # its scale is the corrected t's: the posterior P(delta > 0) is the
    # one-sided p-value of the corrected t for "less" (improper-prior identity)
    ct = corrected_resampled_ttest(a, b, n_train=n_train, n_test=n_test, alternative="less")
    if rope == 0:
        assert res.prob_better == pytest.approx(ct.pvalue, rel=1e-9)


def test_bayesian_monte_carlo_twin():
    # the posterior probabilities by sampling the t posterior (50,000 draws:
    # binomial sd <= 0.0023, tolerance 0.01 ~ 4.4 sd)
    a, b = _scores(11, (10,))
    res = bayesian_correlated_ttest(a, b, n_train=90, n_test=10, rope=0.01)
    rng = np.random.default_rng(0)
    draws = res.mean_difference + res.scale * rng.standard_t(res.df, 50_000)
    assert np.mean(draws < -0.01) == pytest.approx(res.prob_worse, abs=0.01)
    assert np.mean(draws > 0.01) == pytest.approx(res.prob_better, abs=0.01)


@pytest.mark.parametrize("runs, k", [(1, 10), (10, 10), (5, 2), (3, 5)])
@pytest.mark.parametrize("rope", [0.0, 0.01])
def test_bayesian_against_baycomp(runs, k, rope):
    baycomp = pytest.importorskip("baycomp")
    a, b = _scores(runs * k, (runs * k,))
    # baycomp: rho = 1/k, i.e. rho / (1 - rho) = 1/(k - 1) = n_test / n_train
    # with n_train = k - 1, n_test = 1 (or N (k-1)/k and N/k for N items)
    mean, var, df = baycomp.CorrelatedTTest.compute_statistics(a, b, runs=runs)
    for n_train, n_test in [(k - 1, 1), (1000 * (k - 1), 1000)]:
        # baycomp's scale for runs > 1 is variance="all-folds" (which warns);
        # for one run both variances are the same
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", AntiConservativeWarning)
            res = bayesian_correlated_ttest(a, b, n_train=n_train, n_test=n_test, rope=rope,
                                            variance="all-folds")
        if runs == 1:
            assert bayesian_correlated_ttest(a, b, n_train=n_train, n_test=n_test,
                                             rope=rope) == res
        assert res.mean_difference == pytest.approx(mean, rel=1e-12)
        assert res.scale ** 2 == pytest.approx(var, rel=1e-12)
        assert res.df == df
        probs = baycomp.two_on_single(a, b, rope=rope, runs=runs)
        if rope > 0:
            expected = (res.prob_worse, res.prob_equivalent, res.prob_better)
        else:
            expected = (res.prob_worse, res.prob_better)
        assert np.allclose(probs, expected, rtol=1e-9, atol=1e-12)


# -------------------------------------------------------------- degenerate
def test_identical_scores_give_p_one_with_a_warning():
    a = np.linspace(0.7, 0.9, 10)
    with pytest.warns(DegenerateDistributionWarning, match="every fold difference is 0"):
        res = corrected_resampled_ttest(a, a.copy(), n_train=9, n_test=1)
    assert (res.statistic, res.pvalue) == (0.0, 1.0)
    a52 = a.reshape(5, 2)
    for func in (paired_ttest_5x2cv, combined_ftest_5x2cv):
        with pytest.warns(DegenerateDistributionWarning):
            res = func(a52, a52)
        assert (res.statistic, res.pvalue) == (0.0, 1.0)
    with pytest.warns(DegenerateDistributionWarning):
        bay = bayesian_correlated_ttest(a, a, n_train=9, n_test=1, rope=0.01)
    assert (bay.prob_worse, bay.prob_equivalent, bay.prob_better) == (0.0, 1.0, 0.0)
    with pytest.warns(DegenerateDistributionWarning):
        bay = bayesian_correlated_ttest(a, a, n_train=9, n_test=1, rope=0)
    assert (bay.prob_worse, bay.prob_equivalent, bay.prob_better) == (0.5, 0.0, 0.5)


def test_constant_nonzero_difference_is_undefined_not_significant():
    # B gets 5 more items right out of 47 on every fold: the differences are
    # all 5/47 up to rounding (s^2 ~ 4e-33, a naive t of ~5.6e15); the
    # answer is NaN with a warning, never p = 0
    a = np.array([41, 43, 40, 44, 42, 45, 39, 43, 42, 41]) / 47
    b = (np.array([41, 43, 40, 44, 42, 45, 39, 43, 42, 41]) + 5) / 47
    assert np.ptp(b - a) > 0  # rounding makes the differences not exactly equal
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # scipy: catastrophic cancellation
        assert stats.ttest_rel(b, a).pvalue < 1e-30  # what the naive t would say
    with pytest.warns(DegenerateDistributionWarning, match="undefined"):
        res = corrected_resampled_ttest(a, b, n_train=9, n_test=1)
    assert math.isnan(res.statistic) and math.isnan(res.pvalue)
    assert res.mean_difference == pytest.approx(5 / 47)
    # 5x2: equal differences within each replication (s_i^2 = 0), not across
    d = np.repeat([0.01, 0.02, 0.03, 0.02, 0.01], 2).reshape(5, 2)
    a52 = np.full((5, 2), 0.8)
    for func in (paired_ttest_5x2cv, combined_ftest_5x2cv):
        with pytest.warns(DegenerateDistributionWarning, match="undefined"):
            res = func(a52, a52 + d)
        assert math.isnan(res.statistic) and math.isnan(res.pvalue)
    with pytest.warns(DegenerateDistributionWarning):
        bay = bayesian_correlated_ttest(a, b, n_train=9, n_test=1, rope=0.01)
    assert all(math.isnan(p) for p in (bay.prob_worse, bay.prob_equivalent, bay.prob_better))


def test_small_but_real_variance_is_not_degenerate():
    a = np.linspace(0.7, 0.9, 10)
    b = a + 0.05 + 1e-9 * np.arange(10)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = corrected_resampled_ttest(a, b, n_train=9, n_test=1)
    assert np.isfinite(res.statistic) and res.pvalue < 1e-6


# -------------------------------------------------------------- validation
@pytest.mark.parametrize("kwargs, exc, match", [
    (dict(scores_a=np.zeros(10), scores_b=np.zeros(9)), ValueError, "same shape"),
    (dict(scores_a=np.zeros(1), scores_b=np.zeros(1)), ValueError, "at least 2"),
    (dict(scores_a=np.zeros((2, 2, 2)), scores_b=np.zeros((2, 2, 2))), ValueError, "1-D"),
    (dict(scores_a=[0.1, np.nan], scores_b=[0.1, 0.2]), ValueError, "'scores_a'.*finite"),
    (dict(scores_b=[0.1, np.inf]), ValueError, "'scores_b'.*finite"),
    (dict(scores_a=["a", "b"]), TypeError, "'scores_a'"),
    (dict(scores_a=[True, False]), TypeError, "'scores_a'"),
    (dict(n_train=0), ValueError, "'n_train'"),
    (dict(n_test=-1), ValueError, "'n_test'"),
    (dict(n_test=np.nan), ValueError, "'n_test'"),
    (dict(n_train="9"), TypeError, "'n_train'"),
    (dict(n_train=True), TypeError, "'n_train'"),
    (dict(alternative="two_sided"), ValueError, "'alternative'"),
    (dict(greater_is_better=1), TypeError, "'greater_is_better'"),
    (dict(variance="bouckaert"), ValueError, "'variance'"),
    (dict(variance=None), ValueError, "'variance'"),
    (dict(variance=["all-folds"]), ValueError, "'variance'"),
    (dict(variance=np.array(["all-folds", "one-partition"])), ValueError, "'variance'"),
])
def test_corrected_t_validation(kwargs, exc, match):
    args = dict(scores_a=[0.1, 0.2, 0.3], scores_b=[0.2, 0.2, 0.4], n_train=9, n_test=1)
    args.update(kwargs)
    with pytest.raises(exc, match=match):
        corrected_resampled_ttest(**args)


@pytest.mark.parametrize("kwargs, exc, match", [
    (dict(rope=-0.01), ValueError, "'rope'"),
    (dict(rope=np.inf), ValueError, "'rope'"),
    (dict(rope=None), TypeError, "'rope'"),
    (dict(n_train=0), ValueError, "'n_train'"),
    (dict(scores_b=[0.1, 0.2]), ValueError, "same shape"),
    (dict(variance="one_partition"), ValueError, "'variance'"),
])
def test_bayesian_validation(kwargs, exc, match):
    args = dict(scores_a=[0.1, 0.2, 0.3], scores_b=[0.2, 0.2, 0.4], n_train=9, n_test=1,
                rope=0.01)
    args.update(kwargs)
    with pytest.raises(exc, match=match):
        bayesian_correlated_ttest(**args)


@pytest.mark.parametrize("func", [paired_ttest_5x2cv, combined_ftest_5x2cv])
def test_5x2cv_validation(func):
    a, b = _scores(0, (5, 2))
    with pytest.raises(ValueError, match=r"'scores_a'.*shape \(5, 2\)"):
        func(a.ravel(), b.ravel())
    with pytest.raises(ValueError, match=r"'scores_b'.*shape \(5, 2\)"):
        func(a, b.T)
    with pytest.raises(TypeError, match="'greater_is_better'"):
        func(a, b, greater_is_better="yes")
    with pytest.raises(ValueError, match="'alternative'"):
        paired_ttest_5x2cv(a, b, alternative="both")


# ----------------------------------------------------------------- results
def test_results_are_frozen_and_print():
    a, b = _scores(0, (5, 2))
    res = paired_ttest_5x2cv(a, b)
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.pvalue = 0.0
    d = res.to_dict()
    assert list(d) == ["statistic", "pvalue", "df", "test", "alternative", "n_folds",
                       "mean_difference"]
    assert d["pvalue"] == res.pvalue and isinstance(res, CVTestResult)
    assert str(res).startswith("5x2cv_t: t(5) = ") and "positive = B better" in str(res)
    assert "F(10, 5)" in str(combined_ftest_5x2cv(a, b))
    bay = bayesian_correlated_ttest(a, b, n_train=1, n_test=1, rope=0.01)
    assert isinstance(bay, BayesianCVResult)
    assert set(bay.to_dict()) == {"prob_worse", "prob_equivalent", "prob_better", "rope",
                                  "mean_difference", "scale", "df", "n_folds"}
    assert "P(B better) = " in str(bay) and "rope 0.01" in str(bay)


# ------------------------------------------------------------- five_by_two
def test_five_by_two_is_five_partitions_in_two():
    X, y = load_wine(return_X_y=True)
    splitter = five_by_two(random_state=0)
    assert isinstance(splitter, RepeatedStratifiedKFold) and splitter.get_n_splits() == 10
    folds = list(splitter.split(X, y))
    for i in range(5):
        (tr1, te1), (tr2, te2) = folds[2 * i], folds[2 * i + 1]
        assert np.array_equal(np.sort(np.concatenate([te1, te2])), np.arange(len(y)))
        assert np.array_equal(np.sort(tr1), np.sort(te2))
    # stratified: each half has about half of every class
    for _, te in folds:
        assert np.all(np.abs(np.bincount(y[te]) - np.bincount(y) / 2) <= 1)
    again = list(five_by_two(random_state=0).split(X, y))
    assert all(np.array_equal(f[1], g[1]) for f, g in zip(folds, again))
    assert isinstance(five_by_two(stratify=False), RepeatedKFold)
    with pytest.raises(TypeError, match="'stratify'"):
        five_by_two(stratify="no")


# ---------------------------------------------------------- numpydoc names
def _cv_public_names():
    names = []
    for name in cv.__all__:
        obj = getattr(cv, name)
        names.append(f"sigtest.cv.{name}")
        if inspect.isclass(obj):
            names += [f"sigtest.cv.{name}.{attr}" for attr, v in vars(obj).items()
                      if not attr.startswith("_") and inspect.isfunction(v)]
    return names


@pytest.mark.parametrize("name", _cv_public_names())
def test_numpydoc_of_sigtest_cv(name):
    # tests/test_docstrings.py walks sigtest, metrics, plotting and utils only;
    # the same ignore list, applied to this module
    validate = pytest.importorskip("numpydoc.validate").validate
    ignored = {"ES01", "SA01", "EX01", "RT02"}
    errors = [(c, m) for c, m in validate(name)["errors"] if c not in ignored]
    if name.rsplit(".", 1)[-1] in {"CVTestResult", "BayesianCVResult"}:
        errors = [(c, m) for c, m in errors if c != "PR01"]  # fields are Attributes
    assert not errors, errors


# ------------------------------------------------------- cross_val_compare
def _naive_fold_scores(res, name, score):
    """Per-fold scores recomputed from the stored out-of-fold predictions."""
    preds = res.predictions[name]
    preds = preds if isinstance(preds, list) else [preds]
    return np.array([[score(fold_test, preds[r][fold_test]) for _, fold_test in folds]
                     for r, folds in enumerate(res.cv_splits)])


def _three_estimators():
    return {"tree": DecisionTreeClassifier(max_depth=2, random_state=0), "nb": GaussianNB(),
            "knn": KNeighborsClassifier(n_neighbors=15)}


def test_cross_val_compare_cv_tests_match_the_functions_on_naive_fold_scores():
    X, y = load_wine(return_X_y=True)
    res = cross_val_compare(_three_estimators(), X, y, cv=5, n_repeats=2,
                            metrics=["accuracy", "f1_macro"],
                            test=PairedPermutation(n_resamples=199),
                            cv_test=["corrected_t", "bayesian"], rope=0.01, random_state=0)
    table = res.cv_tests()
    assert list(table.columns) == ["system_a", "system_b", "metric", "cv_test", "delta",
                                   "statistic", "pvalue", "prob_worse", "prob_equivalent",
                                   "prob_better", "n_folds"]
    assert len(table) == 3 * 2 * 2
    frame = res.to_frame()
    # same pair orientation as the item-level rows
    assert set(zip(table.system_a, table.system_b)) == set(zip(frame.system_a, frame.system_b))
    scorers = {"accuracy": lambda idx, p: accuracy_score(y[idx], p),
               "f1_macro": lambda idx, p: f1_score(y[idx], p, average="macro")}
    n_train = np.mean([len(tr) for folds in res.cv_splits for tr, _ in folds])
    n_test = np.mean([len(te) for folds in res.cv_splits for _, te in folds])
    for row in table.itertuples(index=False):
        sa = _naive_fold_scores(res, row.system_a, scorers[row.metric])
        sb = _naive_fold_scores(res, row.system_b, scorers[row.metric])
        assert sa.shape == (2, 5) and row.n_folds == 10
        assert row.delta == pytest.approx(np.mean(sb - sa), abs=1e-12)
        t, df, mean, var = naive_corrected_t(sa, sb, n_train, n_test)
        if row.cv_test == "corrected_t":
            assert row.statistic == pytest.approx(t, rel=1e-9)
            assert row.pvalue == pytest.approx(two_sided(t, df), rel=1e-8)
            assert np.isnan(row.prob_better)
        else:
            scale = math.sqrt(naive_factor(10, n_train, n_test) * var)
            post = stats.t(df, loc=mean, scale=scale)
            assert row.prob_worse == pytest.approx(post.cdf(-0.01), rel=1e-8, abs=1e-14)
            assert row.prob_better == pytest.approx(post.sf(0.01), rel=1e-8, abs=1e-14)
            assert np.isnan(row.pvalue)
    text = str(res)
    assert "per-fold CV tests (10 folds" in text and "corrected_t" in text
    # recompare keeps the per-fold tests, for its own metrics
    again = res.recompare(metrics="accuracy", correction=None)
    assert again.cv_tests().equals(table[table.metric == "accuracy"].reset_index(drop=True))


def test_cross_val_compare_cv_tests_orient_losses():
    X, y = load_iris(return_X_y=True)
    onehot = np.eye(3)[y]
    res = cross_val_compare({"nb": GaussianNB(), "lr": LogisticRegression(max_iter=500)},
                            X, y, cv=5, metrics="cross_entropy", soft_targets=onehot,
                            test=PairedPermutation(n_resamples=99), cv_test="corrected_t",
                            random_state=0)
    from sigtest import get_metric

    loss = get_metric("cross_entropy")
    (row,) = res.cv_tests().itertuples(index=False)
    sa = _naive_fold_scores(res, row.system_a, lambda idx, p: loss(onehot[idx], p))
    sb = _naive_fold_scores(res, row.system_b, lambda idx, p: loss(onehot[idx], p))
    t, *_ = naive_corrected_t(sa, sb, 120, 30, greater_is_better=False)
    assert row.statistic == pytest.approx(t, rel=1e-9)
    # positive statistic <=> B has the lower mean loss
    assert np.sign(row.statistic) == np.sign(np.mean(sa) - np.mean(sb))
    assert row.delta == pytest.approx(np.mean(sb - sa))


@pytest.mark.parametrize("cv_kw", [dict(cv=2, n_repeats=5), dict(cv=five_by_two(random_state=3))])
def test_cross_val_compare_5x2cv(cv_kw):
    X, y = load_wine(return_X_y=True)
    est = {"nb": GaussianNB(), "tree": DecisionTreeClassifier(max_depth=2, random_state=0)}
    res = cross_val_compare(est, X, y, metrics="accuracy", random_state=0,
                            test=PairedPermutation(n_resamples=99),
                            cv_test=["5x2cv_t", "5x2cv_f"], **cv_kw)
    assert res.n_runs == 5 and [len(f) for f in res.cv_splits] == [2] * 5
    table = res.cv_tests()
    score = lambda idx, p: accuracy_score(y[idx], p)  # noqa: E731
    sa = _naive_fold_scores(res, "nb", score)
    sb = _naive_fold_scores(res, "tree", score)
    t, f = naive_5x2(sa.tolist(), sb.tolist())
    rows = table.set_index("cv_test")
    assert rows.loc["5x2cv_t", "statistic"] == pytest.approx(t, rel=1e-9)
    assert rows.loc["5x2cv_f", "statistic"] == pytest.approx(f, rel=1e-9)
    assert rows.loc["5x2cv_f", "pvalue"] == pytest.approx(stats.f.sf(f, 10, 5), rel=1e-8)


def test_repeated_splitter_gives_one_repeat_per_partition():
    X, y = load_iris(return_X_y=True)
    splitter = RepeatedStratifiedKFold(n_splits=3, n_repeats=4, random_state=0)
    res = cross_val_compare({"nb": GaussianNB(), "dummy": DummyClassifier()}, X, y,
                            cv=splitter, metrics="accuracy",
                            test=PairedPermutation(n_resamples=99), random_state=0)
    assert res.n_runs == 4 and [len(f) for f in res.cv_splits] == [3] * 4
    expected = list(splitter.split(X, y))
    got = [fold for folds in res.cv_splits for fold in folds]
    assert all(np.array_equal(g[1], e[1]) for g, e in zip(got, expected))
    # folds that are not partitions are still refused by cross_val_predict
    with pytest.raises(ValueError, match="partition"):
        cross_val_compare({"nb": GaussianNB(), "dummy": DummyClassifier()}, X, y,
                          cv=ShuffleSplit(n_splits=3, random_state=0), metrics="accuracy")


def test_cv_tests_are_deterministic_and_ignore_system_order():
    X, y = load_wine(return_X_y=True)
    kw = dict(cv=3, n_repeats=2, metrics="accuracy", test=PairedPermutation(n_resamples=99),
              cv_test=["corrected_t", "bayesian"], rope=0.02, random_state=5)
    est = _three_estimators()
    one = cross_val_compare(est, X, y, **kw).cv_tests()
    assert one.equals(cross_val_compare(est, X, y, **kw).cv_tests())
    # listing the systems in reverse order flips each pair (as the item-level
    # rows do): same folds, so the statistic changes sign and the
    # probabilities mirror, exactly
    res_two = cross_val_compare(dict(reversed(list(est.items()))), X, y, **kw)
    two = res_two.cv_tests()
    frame = res_two.to_frame()
    assert list(dict.fromkeys(zip(two.system_a, two.system_b))) == list(
        dict.fromkeys(zip(frame.system_a, frame.system_b)))
    rows = {(r.system_b, r.system_a, r.cv_test): r for r in two.itertuples(index=False)}
    for r in one.itertuples(index=False):
        m = rows[r.system_a, r.system_b, r.cv_test]
        assert m.delta == pytest.approx(-r.delta, abs=1e-15)
        if r.cv_test == "corrected_t":
            assert m.statistic == -r.statistic and m.pvalue == r.pvalue
        else:
            assert (m.prob_worse, m.prob_better) == (r.prob_better, r.prob_worse)


@pytest.mark.parametrize("kwargs, match", [
    (dict(cv_test="corrected"), "'cv_test'"),
    (dict(cv_test=["corrected_t", "corrected_t"]), "more than once"),
    (dict(cv_test=[]), "'cv_test'"),
    (dict(cv_test="bayesian"), "'rope'"),
    (dict(cv_test="corrected_t", rope=0.01), "'rope'"),
    (dict(cv_test="bayesian", rope=-0.1), "'rope'"),
    (dict(cv_test="bayesian", rope=np.inf), "'rope'"),
    (dict(cv_test="5x2cv_t"), "5 repetitions of 2-fold"),
    (dict(cv_test="5x2cv_f", cv=2, n_repeats=4), "5 repetitions of 2-fold"),
])
def test_cross_val_compare_cv_test_validation(kwargs, match):
    X, y = load_iris(return_X_y=True)
    args = dict(metrics="accuracy", test=PairedPermutation(n_resamples=99))
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        cross_val_compare({"nb": GaussianNB(), "dummy": DummyClassifier()}, X, y, **args)


def test_cv_tests_needs_cv_test():
    X, y = load_iris(return_X_y=True)
    res = cross_val_compare({"nb": GaussianNB(), "dummy": DummyClassifier()}, X, y,
                            metrics="accuracy", test=PairedPermutation(n_resamples=99))
    with pytest.raises(ValueError, match="cv_test"):
        res.cv_tests()
    assert "per-fold" not in str(res)


def test_cv_tests_frame_is_a_copy():
    X, y = load_iris(return_X_y=True)
    res = cross_val_compare({"nb": GaussianNB(), "dummy": DummyClassifier()}, X, y,
                            metrics="accuracy", test=PairedPermutation(n_resamples=99),
                            cv_test="corrected_t", random_state=0)
    table = res.cv_tests()
    table.loc[0, "pvalue"] = -1.0
    assert res.cv_tests().loc[0, "pvalue"] >= 0


def test_degenerate_fold_scores_warn_naming_the_pair():
    X, y = load_iris(return_X_y=True)
    est = {"d1": DummyClassifier(), "d2": clone(DummyClassifier())}
    with pytest.warns(DegenerateDistributionWarning, match="d1 vs d2, accuracy"):
        res = cross_val_compare(est, X, y, metrics="accuracy",
                                test=PairedPermutation(n_resamples=99),
                                cv_test="corrected_t", random_state=0)
    (row,) = res.cv_tests().itertuples(index=False)
    assert (row.statistic, row.pvalue) == (0.0, 1.0)


def test_result_with_cv_tests_pickles_copies_and_stays_immutable():
    import copy
    import pickle

    X, y = load_iris(return_X_y=True)
    res = cross_val_compare({"nb": GaussianNB(), "dummy": DummyClassifier()}, X, y,
                            cv=3, n_repeats=2, metrics="accuracy",
                            test=PairedPermutation(n_resamples=99),
                            cv_test=["corrected_t", "bayesian"], rope=0.01, random_state=0)
    for other in (pickle.loads(pickle.dumps(res)), copy.deepcopy(res)):
        assert other.cv_tests().equals(res.cv_tests())
        assert other.recompare(alpha=0.01).cv_tests().equals(res.cv_tests())
    with pytest.raises(AttributeError, match="immutable"):
        res.cv_test = None
    # a cross_val_compare result without cv tests pickles too (its options
    # used to hold Metric objects, whose mappingproxy kwargs do not pickle)
    plain = res.recompare()
    assert pickle.loads(pickle.dumps(plain)).to_frame().equals(plain.to_frame())
    plain = cross_val_compare({"nb": GaussianNB(), "dummy": DummyClassifier()}, X, y, cv=3,
                              metrics="accuracy", test=PairedPermutation(n_resamples=99))
    assert pickle.loads(pickle.dumps(plain)).to_frame().equals(plain.to_frame())
