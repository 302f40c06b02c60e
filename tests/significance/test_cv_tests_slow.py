"""Type-I error of the tests on fold scores, by seeded simulation (slow).

Task: two equally good learners. Every replicate draws a fresh data set of
n = 200 items from one distribution (y in {0, 1} with probability 1/2; ten
standard normal features, the first two shifted by +-0.6 with the class);
learner A is 1-nearest-neighbour on feature 0, learner B the same on feature
1. The two features have the same distribution, so the expected accuracy of
A and of B over training sets of any size is the same: H0 holds exactly (by
symmetry), yet on one data set one feature is "luckier", and every fold
shares that luck through the overlapping training sets: the fold
differences are positively correlated, which the naive paired t-test on
fold scores ignores (Nadeau and Bengio 2003; Dietterich 1998).

Measured (seed 0, R = 2000 replicates, alpha = 0.05; printed with ``-s``;
about 11 s): naive paired t on 10-fold scores 0.1265, corrected resampled t
0.040, 5x2cv t 0.1185, 5x2cv F 0.148, corrected t on the 5 x 2 scores
0.012 (0.0265 with ``variance="all-folds"``, d99da9b's default). The 99.9 %
binomial band around 0.05 is +-0.016.

Repeated CV (issue 20), the same design with 10 x 10 folds: the corrected t
counting all 100 folds (``variance="all-folds"``, Bouckaert and Frank's
corrected repeated k-fold cv test) rejects 0.1175 of true nulls; the default
``variance="one-partition"`` 0.0355 (one 10-fold run of the same data sets:
0.040). Its power when B's feature is more informative (shift 0.8 instead of
0.6; seed 1, 1000 replicates) is 0.183 against 0.136 for one 10-fold run
(and 0.329 for "all-folds", whose level is wrong). About 25 s of CPU.
"""

import math
import time
import warnings

import numpy as np
import pytest
from scipy import stats
from sklearn.model_selection import KFold, RepeatedKFold

from sigtest.cv import (
    bayesian_correlated_ttest,
    combined_ftest_5x2cv,
    corrected_resampled_ttest,
    five_by_two,
    paired_ttest_5x2cv,
)

ALPHA = 0.05
R = 2000
N = 200
#: 99.9 % two-sided binomial band half-width around alpha for R replicates
BAND = 3.29 * math.sqrt(ALPHA * (1 - ALPHA) / R)  # 0.0160
#: allowance for the corrected t being a heuristic (its variance correction
#: is exact only for its idealised model); "not by much" = at most 2 points
HEURISTIC = 0.02


def _data(rng, shift_b=0.6):
    """Feature 0 shifted by +-0.6 with the class, feature 1 by +-shift_b."""
    y = rng.integers(0, 2, N)
    X = rng.standard_normal((N, 10))
    X[:, :2] += np.array([0.6, shift_b]) * (2 * y[:, None] - 1)
    return X, y


def _one_nn_accuracy(x, y, train, test):
    nearest = np.abs(x[test][:, None] - x[train][None, :]).argmin(axis=1)
    return float(np.mean(y[train][nearest] == y[test]))


def _fold_scores(X, y, folds):
    a = np.array([_one_nn_accuracy(X[:, 0], y, tr, te) for tr, te in folds])
    b = np.array([_one_nn_accuracy(X[:, 1], y, tr, te) for tr, te in folds])
    return a, b


@pytest.mark.slow
def test_type_one_error_naive_vs_corrected_t_and_5x2cv():
    rng = np.random.default_rng(0)
    rejects = {"naive_t": 0, "corrected_t": 0, "5x2cv_t": 0, "5x2cv_f": 0,
               "corrected_t_5x2": 0}
    start = time.perf_counter()
    with warnings.catch_warnings():
        # a replicate where the two learners tie on every fold warns and gives p = 1
        warnings.simplefilter("ignore")
        for rep in range(R):
            X, y = _data(rng)
            folds = list(KFold(10, shuffle=True, random_state=rep).split(X))
            a, b = _fold_scores(X, y, folds)
            if np.ptp(b - a) > 0:
                rejects["naive_t"] += stats.ttest_rel(b, a).pvalue <= ALPHA
            rejects["corrected_t"] += corrected_resampled_ttest(
                a, b, n_train=N * 9 / 10, n_test=N / 10).pvalue <= ALPHA
            a52, b52 = _fold_scores(X, y, list(five_by_two(random_state=rep,
                                                           stratify=False).split(X)))
            a52, b52 = a52.reshape(5, 2), b52.reshape(5, 2)
            rejects["5x2cv_t"] += paired_ttest_5x2cv(a52, b52).pvalue <= ALPHA
            rejects["5x2cv_f"] += combined_ftest_5x2cv(a52, b52).pvalue <= ALPHA
            rejects["corrected_t_5x2"] += corrected_resampled_ttest(
                a52, b52, n_train=N / 2, n_test=N / 2).pvalue <= ALPHA
    rates = {k: v / R for k, v in rejects.items()}
    print(f"type-I rates at alpha={ALPHA}, R={R}, seed 0: {rates} "
          f"({time.perf_counter() - start:.1f} s)")
    # the naive paired t on 10 fold scores exceeds alpha beyond the 99.9 %
    # binomial band: it is anti-conservative
    assert rates["naive_t"] > ALPHA + BAND
    # the corrected t stays within the band plus the heuristic allowance
    assert rates["corrected_t"] <= ALPHA + BAND + HEURISTIC
    assert rates["corrected_t"] < rates["naive_t"]
    # the corrected t on the 5 x 2 fold scores (J = 10, n_test/n_train = 1)
    # holds its level as well (it is conservative there)
    assert rates["corrected_t_5x2"] <= ALPHA + BAND
    # Dietterich's and Alpaydin's 5x2cv tests do NOT hold it in this design
    # (measured 0.1185 and 0.148): their variance estimate s_i^2 is the
    # spread between the two halves of one replication, so a difference
    # shared by every fold of the data set (feature 0 luckier than feature 1
    # on these 200 items) is not in it. They answer "do A and B differ on
    # this data set?", not "do the learners differ over training sets?"
    # (the question of Nadeau and Bengio 2003).
    # Kept as a measured property, so that a change of behaviour is seen.
    assert rates["5x2cv_t"] > ALPHA + BAND
    assert rates["5x2cv_f"] > ALPHA + BAND


def _repeated_cv_rejections(rng, replicates, shift_b):
    """Rejections at ALPHA of the tests on 10 x 10-fold scores, over fresh data sets."""
    rejects = {"one_run": 0, "all_folds": 0, "one_partition": 0, "bayesian": 0}
    sizes = dict(n_train=N * 9 / 10, n_test=N / 10)
    with warnings.catch_warnings():
        # the AntiConservativeWarning of variance="all-folds" (what is measured
        # here), and the tie warning of a replicate with equal fold scores
        warnings.simplefilter("ignore")
        for rep in range(replicates):
            X, y = _data(rng, shift_b)
            folds = list(RepeatedKFold(n_splits=10, n_repeats=10, random_state=rep).split(X))
            a, b = (s.reshape(10, 10) for s in _fold_scores(X, y, folds))
            rejects["one_run"] += corrected_resampled_ttest(
                a[0], b[0], **sizes).pvalue <= ALPHA
            rejects["all_folds"] += corrected_resampled_ttest(
                a, b, variance="all-folds", **sizes).pvalue <= ALPHA
            rejects["one_partition"] += corrected_resampled_ttest(a, b, **sizes).pvalue <= ALPHA
            # the Bayesian correlated t with rope 0 decides "B better" or "B
            # worse" with posterior probability >= 1 - ALPHA/2 exactly when
            # the corrected t rejects (the same scale; improper prior)
            post = bayesian_correlated_ttest(a, b, rope=0.0, **sizes)
            rejects["bayesian"] += max(post.prob_better, post.prob_worse) >= 1 - ALPHA / 2
    return {k: v / replicates for k, v in rejects.items()}


@pytest.mark.slow
def test_repeated_cv_one_partition_variance_holds_the_level():
    start = time.perf_counter()
    size = _repeated_cv_rejections(np.random.default_rng(0), R, shift_b=0.6)
    r_power = 1000
    power = _repeated_cv_rejections(np.random.default_rng(1), r_power, shift_b=0.8)
    print(f"10 x 10-fold CV, alpha={ALPHA}: size (R={R}, seed 0) {size}; power "
          f"(shift 0.8, R={r_power}, seed 1) {power} ({time.perf_counter() - start:.1f} s)")
    # counting the 100 folds of 10 repetitions as if their correlation were
    # that of one partition's folds (1/J + n_test/n_train with J = 100) is
    # anti-conservative (measured 0.1175; d99da9b's default)
    assert size["all_folds"] > ALPHA + BAND
    # one partition's variance (1/10 + n_test/n_train) holds the level, as
    # one 10-fold run does (measured 0.0355 and 0.040; 99.9 % band +-0.016)
    assert size["one_partition"] <= ALPHA + BAND
    assert size["one_run"] <= ALPHA + BAND
    assert size["bayesian"] == size["one_partition"]
    # ... and keeps the power of repetition: at least one run's on the same
    # data sets (measured 0.183 vs 0.136), far above alpha (99.9 % band of
    # 1000 replicates: +-0.023)
    assert power["one_partition"] >= power["one_run"]
    assert power["one_partition"] > ALPHA + 3.29 * math.sqrt(ALPHA * (1 - ALPHA) / r_power)
    assert power["bayesian"] == power["one_partition"]
