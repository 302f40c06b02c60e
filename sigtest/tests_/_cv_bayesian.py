r"""The Bayesian correlated t-test on per-fold scores (Corani and Benavoli 2015).

:func:`bayesian_correlated_ttest` returns a
:class:`~sigtest.tests_._cv.BayesianCVResult`; it shares the checks and the
variance factor of the corrected resampled t-test in
:mod:`sigtest.tests_._cv`. Public path: :mod:`sigtest.cv`. NumPy and SciPy
are imported when the function runs.
"""

import math

from sigtest.tests_._cv import (
    BayesianCVResult,
    _check_rope,
    _check_scores,
    _check_size,
    _fold_differences,
)

__all__ = ["bayesian_correlated_ttest"]

def bayesian_correlated_ttest(scores_a, scores_b, *, n_train, n_test, rope=0.0,
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
    rope : float, default=0.0
        Half-width of the region of practical equivalence, in units of
        the score (e.g. 0.01 for one point of accuracy); 0 for none, the
        default of every sigtest Bayesian comparison.
    greater_is_better : bool, default=True
        False for a loss (lower is better).
    variance : {"one-partition", "all-folds"}, default="one-partition"
        The squared scale's factor, as in :func:`corrected_resampled_ttest`:
        ``"all-folds"`` reproduces baycomp's posterior for repeated CV.

    Returns
    -------
    result : BayesianCVResult
        ``prob_worse``, ``prob_equivalent``, ``prob_better`` (B relative
        to A; they sum to 1), and the posterior ``mean_difference``, ``scale``,
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
    d, j, mean, factor, kind = _fold_differences(a, b, n_train, n_test, greater_is_better,
                                                 variance, caller)
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
                            rope=rope, mean_difference=mean, scale=scale, df=j - 1, n_folds=j)
