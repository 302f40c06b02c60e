r"""Cross-validation tests: the result classes, the checks and the corrected t-test.

The public page is the docstring of :mod:`sigtest.cv`; the 5x2cv tests live
in :mod:`sigtest.tests_._cv_5x2`, the Bayesian correlated t-test in
:mod:`sigtest.tests_._cv_bayesian`.
"""

import math
from dataclasses import dataclass
from numbers import Integral, Real

from sigtest._results import FieldsDictMixin, renamed_fields
from sigtest.exceptions import AntiConservativeWarning, DegenerateDistributionWarning
from sigtest.utils import warn_external

__all__ = ["BayesianCVResult", "CVTestResult", "corrected_resampled_ttest"]

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


@renamed_fields(mean="mean_difference")
@dataclass(frozen=True)
class BayesianCVResult(FieldsDictMixin):
    r"""Posterior of the mean fold difference, with a region of practical equivalence.

    Returned by :func:`bayesian_correlated_ttest`; not meant to be built by
    hand. The posterior of the mean difference :math:`\delta` (positive
    means B is better) is a Student t with ``df`` degrees of freedom,
    location ``mean_difference`` and scale ``scale``.

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
    mean_difference : float
        Posterior location: the mean of the oriented fold differences (B - A
        for a score, A - B for a loss), as in :class:`CVTestResult`.
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
    mean_difference: float
    scale: float
    df: int
    n_folds: int

    def __str__(self):
        return (f"bayesian correlated t (rope {self.rope:g}): P(B worse) = "
                f"{_fmt(self.prob_worse)}, P(practically equivalent) = "
                f"{_fmt(self.prob_equivalent)}, P(B better) = {_fmt(self.prob_better)}; "
                f"posterior t({self.df}) at {self.mean_difference:+.4g}, scale {_fmt(self.scale)}, "
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


def _fold_differences(a, b, n_train, n_test, greater_is_better, variance, caller):
    """The checked orientation and variance, then the fold differences of both tests.

    Returns ``(d, j, mean, factor, kind)``: the oriented differences, their
    number, their mean, the variance factor of :func:`_variance_factor` and
    the degenerate kind of :func:`_degenerate` (None when the test is defined).
    """
    import numpy as np

    greater_is_better = _check_flag(greater_is_better, "greater_is_better", caller)
    variance = _check_variance(variance, caller)
    d, tol = _differences(a.ravel(), b.ravel(), greater_is_better)
    j = d.shape[0]
    factor = _variance_factor(j, n_train, n_test, variance, caller)
    return d, j, float(np.mean(d)), factor, _degenerate(d, tol, "fold difference", caller)


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
    d, j, mean, factor, kind = _fold_differences(a, b, n_train, n_test, greater_is_better,
                                                 variance, caller)
    if kind == "zero":
        t, p = 0.0, 1.0
    elif kind == "constant":
        t, p = math.nan, math.nan
    else:
        t = mean / math.sqrt(factor * float(np.var(d, ddof=1)))
        p = _t_pvalue(t, j - 1, alternative)
    return CVTestResult(statistic=float(t), pvalue=p, df=j - 1, test="corrected_t",
                        alternative=alternative, n_folds=j, mean_difference=mean)
