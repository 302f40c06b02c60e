r"""Tests on per-fold cross-validation scores (issue 12).

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

import math
from dataclasses import dataclass
from numbers import Integral, Real

from sigtest._results import FieldsDictMixin
from sigtest.exceptions import AntiConservativeWarning, DegenerateDistributionWarning
from sigtest.utils import warn_external

__all__ = [
    "BayesianCVResult",
    "CVTestResult",
    "bayesian_correlated_ttest",
    "combined_ftest_5x2cv",
    "corrected_resampled_ttest",
    "five_by_two",
    "paired_ttest_5x2cv",
]

_ALTERNATIVES = ("two-sided", "greater", "less")
_VARIANCES = ("one-partition", "all-folds")


# ------------------------------------------------------------------- results
def _fmt(x):
    return "nan" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.4g}"


@dataclass(frozen=True)
class CVTestResult(FieldsDictMixin):
    """Result of a frequentist test on per-fold cross-validation scores.

    Returned by :func:`corrected_resampled_ttest`, :func:`paired_ttest_5x2cv`
    and :func:`combined_ftest_5x2cv`; not meant to be built by hand.

    Attributes
    ----------
    statistic : float
        The t statistic (positive means B is better) or, for the F-test,
        the F statistic (non-negative, sign-free). NaN when undefined (see
        the functions' Warns sections).
    pvalue : float
        p-value for ``alternative``; NaN when undefined.
    df : float or tuple of float
        Degrees of freedom of the reference distribution: ``J - 1`` for the
        corrected t, 5 for the 5x2cv t, ``(10, 5)`` for the 5x2cv F.
    test : str
        ``"corrected_t"``, ``"5x2cv_t"`` or ``"5x2cv_f"``.
    alternative : str
        ``"two-sided"``, ``"greater"`` (B better) or ``"less"`` (B worse).
    n_folds : int
        Number of folds ``J`` (all repeats together).
    mean_difference : float
        Mean of the oriented fold differences (B - A for a score, A - B for
        a loss: positive means B is better).
    """

    statistic: float
    pvalue: float
    df: object
    test: str
    alternative: str
    n_folds: int
    mean_difference: float

    def __str__(self):
        df = self.df
        dist = (f"F({_fmt(df[0])}, {_fmt(df[1])})" if isinstance(df, tuple)
                else f"t({_fmt(df)})")
        return (f"{self.test}: {dist} = {_fmt(self.statistic)}, p = {_fmt(self.pvalue)} "
                f"({self.alternative}; {self.n_folds} folds; mean difference "
                f"{self.mean_difference:+.4g}, positive = B better)")


@dataclass(frozen=True)
class BayesianCVResult(FieldsDictMixin):
    r"""Posterior of the mean fold difference, with a region of practical equivalence.

    Returned by :func:`bayesian_correlated_ttest`; not meant to be built by
    hand. The posterior of the mean difference :math:`\delta` (positive
    means B is better) is a Student t with ``df`` degrees of freedom,
    location ``mean`` and scale ``scale``.

    Attributes
    ----------
    prob_worse : float
        :math:`P(\delta < -\mathrm{rope})`: B is practically worse than A.
    prob_equivalent : float
        :math:`P(|\delta| \le \mathrm{rope})`: practically equivalent.
    prob_better : float
        :math:`P(\delta > \mathrm{rope})`: B is practically better than A.
    rope : float
        Half-width of the region of practical equivalence.
    mean : float
        Posterior location: the mean oriented fold difference.
    scale : float
        Posterior scale :math:`\sqrt{(\max(1/J, \rho) + \rho/(1-\rho))\, s^2}`
        (``variance="one-partition"``) or :math:`\sqrt{(1/J + \rho/(1-\rho))\, s^2}`
        (``"all-folds"``).
    df : int
        Posterior degrees of freedom, ``J - 1``.
    n_folds : int
        Number of folds ``J``.
    """

    prob_worse: float
    prob_equivalent: float
    prob_better: float
    rope: float
    mean: float
    scale: float
    df: int
    n_folds: int

    def __str__(self):
        return (f"bayesian correlated t (rope {self.rope:g}): P(B worse) = "
                f"{_fmt(self.prob_worse)}, P(practically equivalent) = "
                f"{_fmt(self.prob_equivalent)}, P(B better) = {_fmt(self.prob_better)}; "
                f"posterior t({self.df}) at {self.mean:+.4g}, scale {_fmt(self.scale)}, "
                f"{self.n_folds} folds")


# ---------------------------------------------------------------- validation
def _check_scores(scores_a, scores_b, caller, shape=None):
    """Both score arrays as float64, same shape, finite; 1-D or 2-D."""
    import numpy as np

    out = []
    for name, value in (("scores_a", scores_a), ("scores_b", scores_b)):
        arr = np.asarray(value)
        if arr.dtype.kind not in "iuf" or arr.dtype == bool:
            raise TypeError(
                f"The {name!r} parameter of {caller} must be an array of real numbers. "
                f"Got dtype {arr.dtype} instead.")
        arr = arr.astype(np.float64)
        if shape is not None and arr.shape != shape:
            raise ValueError(
                f"The {name!r} parameter of {caller} must have shape {shape} (5 repetitions "
                f"x 2 folds). Got shape {arr.shape} instead.")
        if arr.ndim not in (1, 2):
            raise ValueError(
                f"The {name!r} parameter of {caller} must be 1-D (J folds) or 2-D "
                f"(repeats, folds). Got shape {arr.shape} instead.")
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"The {name!r} parameter of {caller} must hold finite scores.")
        out.append(arr)
    a, b = out
    if a.shape != b.shape:
        raise ValueError(
            f"The 'scores_a' and 'scores_b' parameters of {caller} must have the same shape "
            f"(the same folds). Got {a.shape} and {b.shape} instead.")
    if a.size < 2:
        raise ValueError(
            f"The 'scores_a' parameter of {caller} must hold at least 2 folds. "
            f"Got {a.size} instead.")
    return a, b


def _check_flag(value, name, caller):
    if not isinstance(value, bool):
        raise TypeError(f"The {name!r} parameter of {caller} must be a bool. "
                        f"Got {value!r} instead.")
    return value


def _check_splitter_seed(random_state, caller):
    """A ``random_state`` scikit-learn's splitters take: None, an int in [0, 2**32), a RandomState.

    Checked when the splitter is built, not at its first ``split``.
    """
    import numpy as np

    if random_state is None or isinstance(random_state, np.random.RandomState):
        return random_state
    if isinstance(random_state, Integral) and not isinstance(random_state, (bool, np.bool_)):
        if 0 <= int(random_state) < 2**32:
            return random_state
        raise ValueError(f"The 'random_state' parameter of {caller} must be None, an int in "
                         f"[0, 2**32) or a numpy.random.RandomState. Got {random_state!r} "
                         "instead.")
    raise TypeError(f"The 'random_state' parameter of {caller} must be None, an int in "
                    f"[0, 2**32) or a numpy.random.RandomState. Got {random_state!r} instead.")


def _check_alternative(alternative, caller):
    if alternative not in _ALTERNATIVES:
        raise ValueError(f"The 'alternative' parameter of {caller} must be one of "
                         f"{list(_ALTERNATIVES)}. Got {alternative!r} instead.")
    return alternative


def _check_size(value, name, caller):
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(f"The {name!r} parameter of {caller} must be a positive number "
                        f"(items per fold). Got {value!r} instead.")
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"The {name!r} parameter of {caller} must be a positive number "
                         f"(items per fold). Got {value!r} instead.")
    return float(value)


def _check_rope(rope, caller):
    if isinstance(rope, bool) or not isinstance(rope, Real):
        raise TypeError(f"The 'rope' parameter of {caller} must be a non-negative number. "
                        f"Got {rope!r} instead.")
    if not (math.isfinite(rope) and rope >= 0):
        raise ValueError(f"The 'rope' parameter of {caller} must be a non-negative number. "
                         f"Got {rope!r} instead.")
    return float(rope)


def _check_variance(variance, caller):
    if not isinstance(variance, str) or variance not in _VARIANCES:
        raise ValueError(f"The 'variance' parameter of {caller} must be one of "
                         f"{list(_VARIANCES)}. Got {variance!r} instead.")
    return variance


def _variance_factor(j, n_train, n_test, variance, caller):
    r"""The factor :math:`c` of the corrected variance :math:`c\, s^2` of the mean difference.

    ``"all-folds"``: :math:`1/J + n_{test}/n_{train}` (Nadeau and Bengio
    2003; Bouckaert and Frank 2004 with all :math:`J = rk` folds).
    ``"one-partition"``: :math:`\max(1/J,\, n_{test}/n) + n_{test}/n_{train}`
    with :math:`n = n_{train} + n_{test}`: both are the same for the folds
    of one partition (:math:`J n_{test} = n`); folds beyond one partition
    (repetitions, random splits) lower the noise of the mean but bring no
    new items, so they do not lower the variance below one partition's.
    Warns (:class:`~sigtest.exceptions.AntiConservativeWarning`) for
    ``"all-folds"`` on folds beyond one partition.
    """
    share = n_test / (n_train + n_test)
    # (J - 1) n_test > n: the test folds hold at least one fold more than the
    # data set, so they come from several partitions (sizes rounded to whole
    # items do not trip it)
    beyond = (j - 1) * share > 1.0
    if variance == "all-folds":
        if beyond:
            warn_external(
                f"{caller}: variance='all-folds' on {j} folds of {n_test:g} test items out "
                f"of {n_train + n_test:g} (about {j * share:.3g} partitions of the data: "
                "repeated cross-validation or random splits) counts the repetitions as new "
                "data and rejects true null hypotheses more often than alpha (0.12 at alpha "
                "0.05 with 10 x 10 folds in the design of docs/cv_equivalence_bayesian.md). "
                "Use the default variance='one-partition', which holds the level.",
                AntiConservativeWarning)
        return 1.0 / j + n_test / n_train
    return max(1.0 / j, share) + n_test / n_train


def _differences(a, b, greater_is_better):
    """Oriented differences (positive = B better) and the rounding scale of the scores."""
    import numpy as np

    d = b - a if greater_is_better else a - b
    # subtracting scores of magnitude s rounds at about eps * s: differences
    # within a few of those units are equal (a variance made of rounding
    # errors would give a huge, spurious t)
    scale = max(float(np.max(np.abs(a))), float(np.max(np.abs(b))), 1e-300)
    tol = 16 * np.finfo(np.float64).eps * scale
    return d, tol


def _degenerate(d, tol, what, caller):
    """``"zero"``, ``"constant"`` or None; warns for the first two."""
    import numpy as np

    if float(np.ptp(d)) > tol:
        return None
    if float(np.max(np.abs(d))) <= tol:
        warn_external(
            f"{caller}: every {what} is 0 (the two systems score the same on every fold); "
            "statistic 0, p-value 1.", DegenerateDistributionWarning)
        return "zero"
    warn_external(
        f"{caller}: every {what} equals {float(np.mean(d)):+.6g}: their variance is 0 and "
        "the test is undefined; the statistic and p-value are NaN (not a significant "
        "result). Check that the fold scores are not copies of one another.",
        DegenerateDistributionWarning)
    return "constant"


def _t_pvalue(t, df, alternative):
    from scipy import stats

    if alternative == "greater":
        return float(stats.t.sf(t, df))
    if alternative == "less":
        return float(stats.t.cdf(t, df))
    return float(min(1.0, 2.0 * stats.t.sf(abs(t), df)))


# ---------------------------------------------------------------------- tests
def corrected_resampled_ttest(scores_a, scores_b, *, n_train, n_test, alternative="two-sided",
                              greater_is_better=True, variance="one-partition"):
    r"""Corrected resampled t-test on per-fold scores (Nadeau and Bengio 2003).

    With :math:`d_j` the oriented difference on fold :math:`j = 1..J`
    (:math:`b_j - a_j` for a score, :math:`a_j - b_j` for a loss, so that
    :math:`d_j > 0` means B is better), :math:`\bar d` their mean,
    :math:`s^2` their variance (``ddof=1``) and :math:`n = n_{train} +
    n_{test}`,

    .. math::

        t = \frac{\bar d}{\sqrt{c\, s^2}}, \qquad
        c = \max\left(\frac{1}{J}, \frac{n_{test}}{n}\right) + \frac{n_{test}}{n_{train}},
        \qquad t \sim t_{J-1} \text{ under } H_0: E[d] = 0.

    The term :math:`n_{test}/n_{train}` corrects for the correlation between
    folds whose training sets overlap; without it (the naive paired t-test,
    variance :math:`s^2 / J`) the test is badly anti-conservative. For the
    :math:`k` folds of one partition (:math:`J = k`, :math:`n_{test} = n/k`)
    :math:`c = 1/k + 1/(k-1)`, Nadeau and Bengio's corrected variance. For
    :math:`r` repetitions of k-fold CV (``J = rk``; give the :math:`r \times
    k` scores) the first term stays :math:`1/k`: the repetitions make the
    mean and :math:`s^2` less noisy but bring no new items, so they do not
    shrink the variance below one partition's (``variance="one-partition"``,
    the default). ``variance="all-folds"`` gives :math:`c = 1/J +
    n_{test}/n_{train}`, the corrected repeated k-fold cv test of Bouckaert
    and Frank (2004), which does not hold its level (see Notes).

    Parameters
    ----------
    scores_a, scores_b : array-like of shape (J,) or (r, k)
        Score (or loss) of system A and of system B on the same folds; a
        2-D array holds ``r`` repetitions of ``k`` folds (flattened).
    n_train : int or float
        Number of training items per fold (the mean, if folds differ by one).
    n_test : int or float
        Number of test items per fold (the mean, if folds differ by one).
    alternative : {"two-sided", "greater", "less"}, default="two-sided"
        ``"greater"``: B is better than A; ``"less"``: B is worse.
    greater_is_better : bool, default=True
        False for a loss (lower is better): the differences are then
        :math:`a_j - b_j`.
    variance : {"one-partition", "all-folds"}, default="one-partition"
        The factor :math:`c`: ``"one-partition"`` as above;
        ``"all-folds"``: :math:`1/J + n_{test}/n_{train}`, only to
        reproduce published numbers of the corrected repeated k-fold cv
        test (the same for the folds of one partition).

    Returns
    -------
    result : CVTestResult
        ``statistic`` (t, positive means B is better), ``pvalue``, ``df =
        J - 1``, ``test="corrected_t"``.

    Raises
    ------
    ValueError
        Scores of different shapes, fewer than 2 folds, non-finite scores,
        ``n_train``/``n_test`` not positive, an unknown ``alternative`` or
        ``variance``.
    TypeError
        Non-numeric scores, sizes or ``greater_is_better``.

    Warns
    -----
    DegenerateDistributionWarning
        When every difference is the same number, :math:`s^2 = 0`: if it
        is 0, the result is ``statistic=0``, ``pvalue=1``; otherwise the t
        statistic is undefined (not infinite: the fold scores carry no
        information on the variance) and the result has ``statistic`` and
        ``pvalue`` NaN rather than a spurious ``p = 0``.
    AntiConservativeWarning
        With ``variance="all-folds"`` on folds beyond one partition of the
        data (:math:`(J - 1)\, n_{test} > n`: repeated CV or repeated random
        splits).

    See Also
    --------
    bayesian_correlated_ttest : The Bayesian counterpart, with a ROPE.
    paired_ttest_5x2cv : Dietterich's 5x2cv t-test.

    Notes
    -----
    The correction is a heuristic: Nadeau and Bengio replace the naive
    variance :math:`\sigma^2/J` of the mean of :math:`J` correlated
    differences, :math:`(1/J + \rho/(1 - \rho))\sigma^2` with correlation
    :math:`\rho`, by its value at :math:`\rho = n_{test}/n`, i.e.
    :math:`\rho/(1-\rho) = n_{test}/n_{train}`. With ``"all-folds"`` on
    :math:`r` repetitions this assumes that every two of the :math:`rk`
    differences correlate that little, although folds of different
    repetitions share test items as well as training items and all share
    the luck of the one data set. The mean over :math:`r` partitions is an
    average of :math:`r` identically distributed run means, so its variance
    is at most one run's: ``"one-partition"`` keeps one run's factor and
    holds its level wherever the one-run test does. Measured type-I error
    at :math:`\alpha = 0.05` in design 1 of
    ``docs/cv_equivalence_bayesian.md`` (2,000 data sets, 99.9 % band
    :math:`\pm 0.016`): one 10-fold run 0.040; 10 x 10 folds 0.1175 with
    ``"all-folds"`` (5 x 10: 0.0995, 10 x 5: 0.1105), 0.0355 with
    ``"one-partition"`` (5 x 10: 0.035, 10 x 5: 0.032). Random splits
    (``ShuffleSplit``) are not a partition: the corrected t exceeds its
    level on them in that design even with :math:`J n_{test} \le n` (see the
    docs page); prefer (repeated) k-fold CV.

    References
    ----------
    C. Nadeau and Y. Bengio (2003). Inference for the generalization error.
    Machine Learning 52(3), 239-281.
    R. R. Bouckaert and E. Frank (2004). Evaluating the replicability of
    significance tests for comparing learning algorithms. PAKDD, 3-12.

    Examples
    --------
    >>> from sigtest.cv import corrected_resampled_ttest
    >>> a = [0.81, 0.79, 0.84, 0.80, 0.82, 0.78, 0.83, 0.80, 0.81, 0.79]
    >>> b = [0.83, 0.80, 0.85, 0.83, 0.82, 0.80, 0.86, 0.81, 0.82, 0.82]
    >>> res = corrected_resampled_ttest(a, b, n_train=900, n_test=100)
    >>> round(res.statistic, 3), round(res.pvalue, 4), res.df
    (3.493, 0.0068, 9)
    """
    import numpy as np

    caller = "corrected_resampled_ttest"
    a, b = _check_scores(scores_a, scores_b, caller)
    n_train = _check_size(n_train, "n_train", caller)
    n_test = _check_size(n_test, "n_test", caller)
    alternative = _check_alternative(alternative, caller)
    greater_is_better = _check_flag(greater_is_better, "greater_is_better", caller)
    variance = _check_variance(variance, caller)
    d, tol = _differences(a.ravel(), b.ravel(), greater_is_better)
    j = d.shape[0]
    mean = float(np.mean(d))
    factor = _variance_factor(j, n_train, n_test, variance, caller)
    kind = _degenerate(d, tol, "fold difference", caller)
    if kind == "zero":
        t, p = 0.0, 1.0
    elif kind == "constant":
        t, p = math.nan, math.nan
    else:
        t = mean / math.sqrt(factor * float(np.var(d, ddof=1)))
        p = _t_pvalue(t, j - 1, alternative)
    return CVTestResult(statistic=float(t), pvalue=p, df=j - 1, test="corrected_t",
                        alternative=alternative, n_folds=j, mean_difference=mean)


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


def bayesian_correlated_ttest(scores_a, scores_b, *, n_train, n_test, rope,
                              greater_is_better=True, variance="one-partition"):
    r"""Bayesian correlated t-test on per-fold scores (Corani and Benavoli 2015).

    The posterior of the mean oriented difference :math:`\delta` (positive
    means B is better) under the correlated normal model of the fold
    differences, with correlation :math:`\rho` and the non-informative
    prior of Corani and Benavoli, is the Student t

    .. math::

        \delta \mid d \sim t_{J-1}\left(\bar d,\;
        \sqrt{\left(\max\left(\frac{1}{J}, \rho\right) + \frac{\rho}{1-\rho}\right)
        s^2}\right), \qquad \rho = \frac{n_{test}}{n_{train} + n_{test}},

    with :math:`\bar d` and :math:`s^2` (``ddof=1``) the mean and variance
    of the :math:`J` oriented fold differences. Since :math:`\rho/(1-\rho)
    = n_{test}/n_{train}`, the squared scale is the variance of the
    corrected resampled t-test (:func:`corrected_resampled_ttest`), with
    the same ``variance`` option: for the folds of one partition
    (:math:`J = k`, :math:`\rho = 1/k`) it is Corani and Benavoli's
    :math:`(1/J + \rho/(1-\rho))\, s^2`; for :math:`r` repetitions of
    k-fold CV (:math:`J = rk`) the default keeps one partition's first
    term, :math:`1/k`, where ``variance="all-folds"`` (and baycomp) take
    :math:`1/(rk)`, a posterior too narrow for the data. The
    three probabilities are :math:`P(\delta < -r)`, :math:`P(|\delta| \le
    r)` and :math:`P(\delta > r)` for the half-width :math:`r` = ``rope``.

    Parameters
    ----------
    scores_a, scores_b : array-like of shape (J,) or (r, k)
        Score (or loss) of system A and of system B on the same folds
        (a 2-D array holds ``r`` repetitions of ``k`` folds, flattened).
    n_train : int or float
        Number of training items per fold (the mean, if folds differ).
    n_test : int or float
        Number of test items per fold (the mean, if folds differ).
    rope : float
        Half-width of the region of practical equivalence, in units of
        the score (e.g. 0.01 for one point of accuracy); 0 for none.
    greater_is_better : bool, default=True
        False for a loss (lower is better).
    variance : {"one-partition", "all-folds"}, default="one-partition"
        The squared scale's factor, as in :func:`corrected_resampled_ttest`:
        ``"all-folds"`` reproduces baycomp's posterior for repeated CV.

    Returns
    -------
    result : BayesianCVResult
        ``prob_worse``, ``prob_equivalent``, ``prob_better`` (B relative
        to A; they sum to 1), and the posterior ``mean``, ``scale``,
        ``df``.

    Raises
    ------
    ValueError
        Scores of different shapes, fewer than 2 folds, non-finite scores,
        sizes not positive, ``rope`` negative, an unknown ``variance``.
    TypeError
        Non-numeric scores, sizes, ``rope`` or ``greater_is_better``.

    Warns
    -----
    DegenerateDistributionWarning
        When every difference is the same number (:math:`s^2 = 0`): if it
        is 0, the posterior is taken as a point mass at 0
        (``prob_equivalent=1`` with ``rope > 0``; 1/2, 0, 1/2 with
        ``rope=0``, the limit of a symmetric posterior); otherwise the
        probabilities are NaN (the folds carry no information on the
        variance: no certainty is claimed).
    AntiConservativeWarning
        With ``variance="all-folds"`` on folds beyond one partition of the
        data (repeated CV or repeated random splits).

    See Also
    --------
    corrected_resampled_ttest : The frequentist test with the same scale.

    Notes
    -----
    baycomp (``two_on_single(x, y, rope, runs)``, ``CorrelatedTTest``)
    parameterises the correlation by the number of folds: with ``runs``
    repetitions of :math:`k`-fold CV it uses :math:`\rho = 1/k`, i.e.
    :math:`\rho/(1-\rho) = 1/(k-1)`, which is :math:`n_{test}/n_{train}`
    when the :math:`n` items split into :math:`k` equal folds. Here
    :math:`\rho` comes from the fold sizes, which also covers held-out
    designs that are not k-fold; ``n_train=k - 1, n_test=1`` gives
    baycomp's value exactly (for ``runs > 1`` with ``variance="all-folds"``:
    baycomp's scale is the one-run correlation applied to all
    :math:`rk` folds, see :func:`corrected_resampled_ttest` for why
    that is too narrow). baycomp's ``x, y`` are A, B: its ``p_left,
    p_rope, p_right`` are ``prob_worse, prob_equivalent, prob_better``
    for a score. baycomp is no longer maintained.

    References
    ----------
    G. Corani and A. Benavoli (2015). A Bayesian approach for comparing
    cross-validated algorithms on multiple data sets. Machine Learning
    100(2), 285-304.
    A. Benavoli, G. Corani, J. Demšar and M. Zaffalon (2017). Time for a
    change: a tutorial for comparing multiple classifiers through Bayesian
    analysis. JMLR 18(77), 1-36.

    Examples
    --------
    >>> from sigtest.cv import bayesian_correlated_ttest
    >>> a = [0.81, 0.79, 0.84, 0.80, 0.82, 0.78, 0.83, 0.80, 0.81, 0.79]
    >>> b = [0.83, 0.80, 0.85, 0.83, 0.82, 0.80, 0.86, 0.81, 0.82, 0.82]
    >>> res = bayesian_correlated_ttest(a, b, n_train=900, n_test=100, rope=0.01)
    >>> print(f"{res.prob_worse:.3f} {res.prob_equivalent:.3f} {res.prob_better:.3f}")
    0.000 0.092 0.908
    """
    import numpy as np
    from scipy import stats

    caller = "bayesian_correlated_ttest"
    a, b = _check_scores(scores_a, scores_b, caller)
    n_train = _check_size(n_train, "n_train", caller)
    n_test = _check_size(n_test, "n_test", caller)
    rope = _check_rope(rope, caller)
    greater_is_better = _check_flag(greater_is_better, "greater_is_better", caller)
    variance = _check_variance(variance, caller)
    d, tol = _differences(a.ravel(), b.ravel(), greater_is_better)
    j = d.shape[0]
    mean = float(np.mean(d))
    factor = _variance_factor(j, n_train, n_test, variance, caller)
    kind = _degenerate(d, tol, "fold difference", caller)
    if kind is not None:
        scale = 0.0
        if kind == "zero":
            mean = 0.0
            worse, better = (0.0, 0.0) if rope > 0 else (0.5, 0.5)
        else:
            worse = better = math.nan
    else:
        scale = math.sqrt(factor * float(np.var(d, ddof=1)))
        # each tail from its own side (no 1 - cdf cancellation)
        worse = float(stats.t.cdf(-rope, j - 1, loc=mean, scale=scale))
        better = float(stats.t.sf(rope, j - 1, loc=mean, scale=scale))
    equivalent = math.nan if math.isnan(worse) else max(0.0, 1.0 - worse - better)
    return BayesianCVResult(prob_worse=worse, prob_equivalent=equivalent, prob_better=better,
                            rope=rope, mean=mean, scale=scale, df=j - 1, n_folds=j)


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
