"""Tests on per-fold cross-validation scores.

The fold scores of k-fold cross-validation are not independent: every two
training sets share :math:`(k - 2)/(k - 1)` of their items, so the plain
paired t-test on fold scores underestimates the variance of the mean
difference and rejects far too often (Dietterich 1998; Nadeau and Bengio
2003). This module holds the tests built for fold scores:

* :func:`corrected_resampled_ttest`: the corrected resampled t-test of
  Nadeau and Bengio (2003), also for repeated k-fold (Bouckaert and Frank
  2004);
* :func:`paired_ttest_5x2cv`: the 5x2cv paired t-test (Dietterich 1998);
* :func:`combined_ftest_5x2cv`: the combined 5x2cv F-test (Alpaydin 1999);
* :func:`bayesian_correlated_ttest`: the Bayesian correlated t-test with a
  region of practical equivalence (Corani and Benavoli 2015);
* :func:`five_by_two`: the 5 x 2-fold splitter of the two 5x2cv tests.

Every function takes the scores of system A and of system B on the *same*
folds and orients the differences so that a positive difference means that
B is better: :math:`d_j = b_j - a_j` for a score (``greater_is_better=True``),
:math:`d_j = a_j - b_j` for a loss. :func:`sigtest.cross_val_compare` runs
them on the folds it fits (``cv_test=``).

NumPy and SciPy are imported when a function runs, not with the module.
"""

from sigtest.tests_._cv import (  # noqa: F401
    BayesianCVResult,
    CVTestResult,
    corrected_resampled_ttest,
)
from sigtest.tests_._cv_5x2 import (  # noqa: F401
    combined_ftest_5x2cv,
    five_by_two,
    paired_ttest_5x2cv,
)
from sigtest.tests_._cv_bayesian import bayesian_correlated_ttest  # noqa: F401

__all__ = [
    "BayesianCVResult",
    "CVTestResult",
    "bayesian_correlated_ttest",
    "combined_ftest_5x2cv",
    "corrected_resampled_ttest",
    "five_by_two",
    "paired_ttest_5x2cv",
]
