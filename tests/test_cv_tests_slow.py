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
0.0265. The 99.9 % binomial band around 0.05 is +-0.016.
"""

import math
import time
import warnings

import numpy as np
import pytest
from scipy import stats
from sklearn.model_selection import KFold

from sigtest.cv import (
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


def _data(rng):
    y = rng.integers(0, 2, N)
    X = rng.standard_normal((N, 10))
    X[:, :2] += 0.6 * (2 * y[:, None] - 1)
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
