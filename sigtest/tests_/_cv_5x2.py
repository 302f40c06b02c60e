r"""The two 5x2cv tests and their splitter (Dietterich 1998; Alpaydin 1999).

* :func:`paired_ttest_5x2cv`: the 5x2cv paired t-test (Dietterich 1998);
* :func:`combined_ftest_5x2cv`: the combined 5x2cv F-test (Alpaydin 1999);
* :func:`five_by_two`: the 5 x 2-fold splitter that gives their ten fold
  scores.

Both tests return a :class:`~sigtest.tests_._cv.CVTestResult` and take their
checks from :mod:`sigtest.tests_._cv`. Public path: :mod:`sigtest.cv`.
NumPy, SciPy and scikit-learn are imported when a function runs.
"""

import math

from sigtest.exceptions import DegenerateDistributionWarning
from sigtest.tests_._cv import (
    CVTestResult,
    _check_alternative,
    _check_flag,
    _check_scores,
    _check_splitter_seed,
    _differences,
    _t_pvalue,
)
from sigtest.utils import warn_external

__all__ = ["combined_ftest_5x2cv", "five_by_two", "paired_ttest_5x2cv"]

def _five_by_two(scores_a, scores_b, greater_is_better, caller):
    """Oriented differences (5, 2), per-replication variances s_i^2, rounding tolerance."""
    import numpy as np

    a, b = _check_scores(scores_a, scores_b, caller, shape=(5, 2))
    greater_is_better = _check_flag(greater_is_better, "greater_is_better", caller)
    d, tol = _differences(a, b, greater_is_better)
    pbar = d.mean(axis=1)
    s2 = ((d - pbar[:, None]) ** 2).sum(axis=1)
    # the two differences of every replication equal (s_i^2 = 0 for all i)
    degenerate = bool(np.all(np.abs(d[:, 0] - d[:, 1]) <= tol))
    return d, s2, tol, degenerate


def _warn_five_by_two(d, tol, caller):
    import numpy as np

    if float(np.max(np.abs(d))) <= tol:
        warn_external(f"{caller}: every fold difference is 0 (the two systems score the "
                      "same on every fold); statistic 0, p-value 1.",
                      DegenerateDistributionWarning)
        return "zero"
    warn_external(f"{caller}: the two fold differences of every replication are equal, so "
                  "every s_i^2 is 0 and the test is undefined; the statistic and p-value "
                  "are NaN (not a significant result).", DegenerateDistributionWarning)
    return "constant"


def paired_ttest_5x2cv(scores_a, scores_b, *, alternative="two-sided", greater_is_better=True):
    r"""5x2cv paired t-test (Dietterich 1998).

    Five replications of 2-fold cross-validation (see :func:`five_by_two`).
    With :math:`p_i^{(j)}` the oriented difference on fold :math:`j` of
    replication :math:`i` (:math:`b - a` for a score, :math:`a - b` for a
    loss: positive means B is better), :math:`\bar p_i = (p_i^{(1)} +
    p_i^{(2)})/2` and :math:`s_i^2 = (p_i^{(1)} - \bar p_i)^2 + (p_i^{(2)} -
    \bar p_i)^2`,

    .. math::

        t = \frac{p_1^{(1)}}{\sqrt{\frac{1}{5}\sum_{i=1}^{5} s_i^2}}
        \sim t_5 \text{ under } H_0.

    Parameters
    ----------
    scores_a, scores_b : array-like of shape (5, 2)
        Score (or loss) of system A and of system B; row ``i`` is
        replication ``i``, column ``j`` its fold ``j`` (the first column
        of the first row is :math:`p_1^{(1)}`).
    alternative : {"two-sided", "greater", "less"}, default="two-sided"
        ``"greater"``: B is better than A; ``"less"``: B is worse.
    greater_is_better : bool, default=True
        False for a loss (lower is better).

    Returns
    -------
    result : CVTestResult
        ``statistic`` (t, positive means B is better), ``pvalue``,
        ``df=5``, ``test="5x2cv_t"``.

    Raises
    ------
    ValueError
        Scores not of shape (5, 2), non-finite scores, unknown
        ``alternative``.
    TypeError
        Non-numeric scores or ``greater_is_better``.

    Warns
    -----
    DegenerateDistributionWarning
        When every :math:`s_i^2` is 0: ``statistic=0, pvalue=1`` if every
        difference is 0, else NaN statistic and p-value (undefined, not
        significant).

    See Also
    --------
    combined_ftest_5x2cv : Alpaydin's F-test on the same ten differences.
    five_by_two : The splitter of the five replications.

    Notes
    -----
    Sign convention: mlxtend's ``paired_ttest_5x2cv(estimator1,
    estimator2, ...)`` uses :math:`p = \text{score}_1 - \text{score}_2`
    (A - B); here the difference is B relative to A, so for a score the t
    statistic is the negative of mlxtend's with ``estimator1`` = A, and the
    two-sided p-values are equal.

    References
    ----------
    T. G. Dietterich (1998). Approximate statistical tests for comparing
    supervised classification learning algorithms. Neural Computation
    10(7), 1895-1923.

    Examples
    --------
    >>> from sigtest.cv import paired_ttest_5x2cv
    >>> a = [[0.80, 0.82], [0.79, 0.81], [0.83, 0.80], [0.81, 0.80], [0.78, 0.82]]
    >>> b = [[0.84, 0.83], [0.82, 0.84], [0.84, 0.83], [0.83, 0.84], [0.81, 0.83]]
    >>> res = paired_ttest_5x2cv(a, b)
    >>> round(res.statistic, 3), round(res.pvalue, 4)
    (2.76, 0.0398)
    """
    caller = "paired_ttest_5x2cv"
    import numpy as np

    alternative = _check_alternative(alternative, caller)
    d, s2, tol, degenerate = _five_by_two(scores_a, scores_b, greater_is_better, caller)
    if degenerate:
        kind = _warn_five_by_two(d, tol, caller)
        t, p = (0.0, 1.0) if kind == "zero" else (math.nan, math.nan)
    else:
        t = float(d[0, 0] / math.sqrt(float(np.mean(s2))))
        p = _t_pvalue(t, 5, alternative)
    return CVTestResult(statistic=t, pvalue=p, df=5, test="5x2cv_t", alternative=alternative,
                        n_folds=10, mean_difference=float(np.mean(d)))


def combined_ftest_5x2cv(scores_a, scores_b, *, greater_is_better=True):
    r"""Combined 5x2cv F-test (Alpaydin 1999).

    With the notation of :func:`paired_ttest_5x2cv` (ten fold differences
    :math:`p_i^{(j)}` and five replication variances :math:`s_i^2`),

    .. math::

        F = \frac{\sum_{i=1}^{5}\sum_{j=1}^{2} \left(p_i^{(j)}\right)^2}
                 {2 \sum_{i=1}^{5} s_i^2} \sim F_{10, 5} \text{ under } H_0,

    and :math:`p = P(F_{10,5} \ge F)`. It uses all ten differences instead
    of :math:`p_1^{(1)}` only, which makes it more stable and less
    dependent on the order of the replications than the 5x2cv t-test.

    Parameters
    ----------
    scores_a, scores_b : array-like of shape (5, 2)
        Score (or loss) of system A and of system B; row ``i`` is
        replication ``i``, column ``j`` its fold ``j``.
    greater_is_better : bool, default=True
        False for a loss. The statistic does not depend on it (squares);
        ``mean_difference`` does.

    Returns
    -------
    result : CVTestResult
        ``statistic`` (F, non-negative: it has no direction),
        ``pvalue``, ``df=(10, 5)``, ``test="5x2cv_f"``,
        ``alternative="two-sided"``.

    Raises
    ------
    ValueError
        Scores not of shape (5, 2) or non-finite.
    TypeError
        Non-numeric scores or ``greater_is_better``.

    Warns
    -----
    DegenerateDistributionWarning
        When every :math:`s_i^2` is 0: ``statistic=0, pvalue=1`` if every
        difference is 0, else NaN (undefined, not significant).

    See Also
    --------
    paired_ttest_5x2cv : Dietterich's t-test on the same differences.

    Notes
    -----
    mlxtend's ``combined_ftest_5x2cv`` computes the same statistic (its
    A - B orientation does not matter: the differences are squared).

    References
    ----------
    E. Alpaydin (1999). Combined 5 x 2 cv F test for comparing supervised
    classification learning algorithms. Neural Computation 11(8),
    1885-1892.

    Examples
    --------
    >>> from sigtest.cv import combined_ftest_5x2cv
    >>> a = [[0.80, 0.82], [0.79, 0.81], [0.83, 0.80], [0.81, 0.80], [0.78, 0.82]]
    >>> b = [[0.84, 0.83], [0.82, 0.84], [0.84, 0.83], [0.83, 0.84], [0.81, 0.83]]
    >>> res = combined_ftest_5x2cv(a, b)
    >>> round(res.statistic, 3), round(res.pvalue, 4), res.df
    (3.571, 0.0863, (10, 5))
    """
    caller = "combined_ftest_5x2cv"
    import numpy as np
    from scipy import stats

    d, s2, tol, degenerate = _five_by_two(scores_a, scores_b, greater_is_better, caller)
    if degenerate:
        kind = _warn_five_by_two(d, tol, caller)
        f, p = (0.0, 1.0) if kind == "zero" else (math.nan, math.nan)
    else:
        f = float(np.sum(d ** 2) / (2.0 * np.sum(s2)))
        p = float(stats.f.sf(f, 10, 5))
    return CVTestResult(statistic=f, pvalue=p, df=(10, 5), test="5x2cv_f",
                        alternative="two-sided", n_folds=10,
                        mean_difference=float(np.mean(d)))


def five_by_two(random_state=None, *, stratify=True):
    """The 5 x 2-fold splitter of the 5x2cv tests (Dietterich 1998).

    Five repetitions of 2-fold cross-validation, each with its own
    shuffle: ``RepeatedStratifiedKFold(n_splits=2, n_repeats=5)`` (the
    default, for classification: each half keeps the class proportions,
    which lowers the variance of the fold scores without changing the
    test) or ``RepeatedKFold(n_splits=2, n_repeats=5)`` with
    ``stratify=False`` (regression, or Dietterich's plain random halves).
    Its ten folds come in order: replication 1 fold 1, replication 1 fold
    2, replication 2 fold 1, ...; the fold scores reshaped to (5, 2) are
    the input of :func:`paired_ttest_5x2cv` and
    :func:`combined_ftest_5x2cv`. :func:`sigtest.cross_val_compare`
    accepts it as ``cv`` (as it accepts ``cv=2, n_repeats=5``).

    Parameters
    ----------
    random_state : None, int or numpy.random.RandomState, default=None
        Seeds the shuffles (as in scikit-learn; None gives different folds
        at every ``split``).
    stratify : bool, default=True
        Stratify the halves by class (classification) or not.

    Returns
    -------
    cv : sklearn.model_selection.RepeatedStratifiedKFold or RepeatedKFold
        The splitter; ``cv.get_n_splits()`` is 10.

    Raises
    ------
    TypeError
        ``stratify`` not a bool; ``random_state`` not None, an int or a
        ``RandomState`` (e.g. a str).
    ValueError
        An int ``random_state`` outside ``[0, 2**32)``.

    See Also
    --------
    paired_ttest_5x2cv : Dietterich's t-test on the ten fold scores.
    combined_ftest_5x2cv : Alpaydin's F-test on the ten fold scores.

    References
    ----------
    T. G. Dietterich (1998). Approximate statistical tests for comparing
    supervised classification learning algorithms. Neural Computation
    10(7), 1895-1923.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.model_selection import cross_val_score
    >>> from sklearn.naive_bayes import GaussianNB
    >>> from sigtest.cv import five_by_two
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> cv = five_by_two(random_state=0)
    >>> cross_val_score(GaussianNB(), X, y, cv=cv).reshape(5, 2).shape
    (5, 2)
    """
    stratify = _check_flag(stratify, "stratify", "five_by_two")
    random_state = _check_splitter_seed(random_state, "five_by_two")
    from sklearn.model_selection import RepeatedKFold, RepeatedStratifiedKFold

    splitter = RepeatedStratifiedKFold if stratify else RepeatedKFold
    return splitter(n_splits=2, n_repeats=5, random_state=random_state)
