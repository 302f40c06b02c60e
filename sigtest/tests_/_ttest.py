"""Paired t-test of per-item values, with the t interval of the mean difference."""

from __future__ import annotations

import math
from numbers import Real

import numpy as np

from sigtest._results import TestOutcome
from sigtest.utils._param_validation import lazy
from sigtest.tests_._base import SignificanceTest
from sigtest.tests_._margins import (
    _ALTERNATIVES_MARGIN,
    MARGIN_ALTERNATIVES,
    MARGIN_CONSTRAINT,
    _to_raw,
    margin_location_test,
    result_margin,
)
from sigtest.tests_._sign import item_differences, sign_test_pvalue, warn_outside
from sigtest._engine.pvalues import log10_t_pvalue, tiny_pvalue

__all__ = ["PairedTTest"]


def paired_t(diff, weights, alternative="two-sided", confidence_level=0.95):
    r"""One-sample t-test of differences ``diff`` repeated ``weights`` times.

    With :math:`W = \sum_i w_i` items, :math:`\bar d = \sum_i w_i d_i / W`,
    :math:`s^2 = \sum_i w_i (d_i - \bar d)^2 / (W - 1)`,
    :math:`t = \bar d / (s / \sqrt W)` on :math:`W - 1` degrees of freedom,
    and the interval :math:`\bar d \pm t_{W-1} s/\sqrt W` (one-sided for a
    one-sided ``alternative``), as :func:`scipy.stats.ttest_rel` and its
    ``confidence_interval`` on the expanded data, without expanding.

    A p-value below the normal double range (about 2.2e-308) is recomputed
    from :func:`scipy.stats.t.logsf` and is never 0
    (:func:`~sigtest._engine.pvalues.tiny_pvalue`).

    Returns ``(t, pvalue, (low, high), df, mean, sd, log10_pvalue)``.
    """
    from scipy.special import stdtr, stdtrit

    d = np.asarray(diff, dtype=np.float64)
    w = np.asarray(weights, dtype=np.float64)
    W = float(w.sum())
    mean = float(np.dot(w, d) / W)
    sd = math.sqrt(float(np.dot(w, (d - mean) ** 2)) / (W - 1))
    se = sd / math.sqrt(W)
    df = W - 1
    t = mean / se
    if alternative == "greater":
        p = float(stdtr(df, -t))
        q = float(stdtrit(df, confidence_level))
        ci = (mean - q * se, math.inf)
    elif alternative == "less":
        p = float(stdtr(df, t))
        q = float(stdtrit(df, confidence_level))
        ci = (-math.inf, mean + q * se)
    else:
        p = float(2.0 * stdtr(df, -abs(t)))
        q = float(stdtrit(df, 0.5 + confidence_level / 2))
        ci = (mean - q * se, mean + q * se)
    p, log10_p = tiny_pvalue(min(1.0, p), lambda: log10_t_pvalue(t, df, alternative))
    return t, p, ci, df, mean, sd, log10_p


class PairedTTest(SignificanceTest):
    r"""Paired t-test of the per-item values of a decomposable metric, with its t interval.

    Per item :math:`i`, the oriented difference :math:`d_i` of the metric's
    per-item values (``B - A`` for a score, ``A - B`` for a loss: positive
    means B is better). For a per-item decomposable metric their mean is
    the oriented difference of the scores, so the test is one of
    ``delta = score_b - score_a`` itself:

    .. math:: t = \frac{\bar d}{s / \sqrt N}, \qquad
              \bar d \pm t_{N-1,\,1-\alpha/2}\, \frac{s}{\sqrt N},

    with :math:`s` the standard deviation of the :math:`d_i`
    (:math:`N - 1` in the denominator) on :math:`N - 1` degrees of freedom:
    :func:`scipy.stats.ttest_rel` on the per-item values and its
    ``confidence_interval`` (of the raw ``delta``).

    Parameters
    ----------
    alternative : str, default="two-sided"
        ``"two-sided"``, ``"greater"``, ``"less"``, ``"non-inferiority"`` or
        ``"equivalence"``. ``"greater"``: B better than A (oriented). A one-sided test has a
        one-sided interval, as scipy's. The last two need ``margin``.
    confidence_level : float, default=0.95
        Level of the interval, in (0, 1); with a margin ``alternative`` the
        test's level is :math:`\alpha = 1 -` ``confidence_level`` (above 0.5).
    margin : float > 0 or (low, high), default=None
        With ``alternative="non-inferiority"`` or ``"equivalence"`` (and only
        then), the largest difference that does not matter, in metric units.
        A pair ``(low, high)``, ``low < 0 < high``: asymmetric margins of the
        oriented difference (a scalar :math:`m` is :math:`(-m, m)`);
        non-inferiority uses ``low`` (see ``docs/equivalence.md``).
        Equivalence with ``(low, high)`` equals statsmodels'
        ``ttost_paired(x1, x2, low, high)`` with ``x1 - x2`` the oriented
        per-item differences.
        Non-inferiority: :math:`H_0: \theta \le -m` (B worse by ``margin``
        or more, :math:`\theta` the oriented mean difference), :math:`p =
        P(T_{N-1} \ge (\bar d + m)/(s/\sqrt N))`, with the one-sided
        interval :math:`(\bar d - t_{N-1,1-\alpha} s/\sqrt N, \infty)`
        (oriented; on the raw ``delta`` of a loss, :math:`(-\infty, \cdot)`).
        Equivalence: TOST (Schuirmann 1987), :math:`p = \max` of the two
        one-sided p-values, with the two-sided :math:`1 - 2\alpha` interval;
        as statsmodels' ``ttost_paired``. ``p <= alpha`` exactly when the
        bound is beyond the margin. With zero variance (t undefined) ``p =
        1``: nothing is shown without an estimate of the spread. See
        ``docs/equivalence.md``.

    Warns
    -----
    DegenerateDistributionWarning
        Every difference equal (zero standard deviation, e.g. identical
        systems) or a single item: ``t`` is undefined or infinite, where
        scipy gives ``nan`` or ``p = 0``. The p-value is then the exact sign
        test's (``p = 1`` when every difference is 0, :math:`2^{1-N}`
        two-sided when all N go one way) and the interval is ``(nan, nan)``.
    SmallSampleWarning
        With ``groups=`` and fewer than 20 clusters.

    Notes
    -----
    Valid when the mean difference is approximately normal: by the central
    limit theorem for moderate N (the differences of a bounded metric such
    as accuracy lie in [-1, 1]; N of 30 or more is the usual rule), at any
    N for normal differences. For 0/1 accuracy it is close to McNemar's
    chi-square test without correction. The metric must be a weighted mean
    of per-item values (``Metric.decomposable``); for macro-F1 or an
    entropy correlation a ``ValueError`` names the tests to use instead
    (:class:`~sigtest.PairedPermutation`, :class:`~sigtest.BCaInterval`).
    Compressed cells count with their multiplicity; ``sample_weight`` must
    hold integer frequencies (the equivalent of repeating items).

    **Clusters.** With ``groups=`` the test runs on per-cluster values (the
    cluster-summary approach, Donner & Klar 2000, ch. 6): the value of
    cluster :math:`k` is the metric of its items' summed statistics (e.g.
    its accuracy), :math:`d_k` the oriented difference of the two systems'
    cluster values, and ``t`` is that of the :math:`G` values :math:`d_k`
    on :math:`G - 1` degrees of freedom, each cluster counting once. It is
    valid for independent clusters whatever the dependence inside them. The
    interval is then one of the mean cluster difference
    :math:`\bar d = G^{-1} \sum_k d_k`, which equals ``delta`` when the
    clusters have equal sizes, not in general (``delta`` weights clusters by
    their sizes; :class:`~sigtest.BCaInterval` with ``groups=`` gives an
    interval of ``delta`` itself). Fewer than 20 clusters warn
    (``SmallSampleWarning``): the t approximation needs enough clusters.

    **Strata.** ``strata=`` raises ``ValueError``: the paired t-test is not
    a permutation test, so strata would change its variance (a stratified
    design has the variance :math:`\sum_h (n_h/N)^2 s_h^2 / n_h`), which
    this test does not implement. Use :class:`~sigtest.BCaInterval` or
    :class:`~sigtest.BergKirkpatrickBootstrap` (stratified bootstrap), or
    :class:`~sigtest.PairedPermutation` (unchanged by strata).

    References
    ----------
    Student (1908). The probable error of a mean. Biometrika 6(1).
    Dietterich (1998). Approximate statistical tests for comparing supervised
    classification learning algorithms. Neural Computation 10(7).
    Donner, Klar (2000). Design and Analysis of Cluster Randomization Trials
    in Health Research, ch. 6. Arnold.
    Schuirmann (1987). A comparison of the two one-sided tests procedure and
    the power approach for assessing the equivalence of average
    bioavailability. J. Pharmacokinetics and Biopharmaceutics 15(6).

    Examples
    --------
    >>> import numpy as np
    >>> from sigtest import PairedTTest
    >>> y = np.array([0, 1] * 20)
    >>> a = np.where(np.arange(40) < 10, 1 - y, y)  # A wrong on 10 items
    >>> b = np.where(np.arange(40) >= 37, 1 - y, y)  # B wrong on 3 others
    >>> res = PairedTTest().test(y, a, b)
    >>> round(res.delta, 3), round(res.pvalue, 4)
    (0.175, 0.0509)
    >>> [round(x, 3) for x in res.confidence_interval]
    [-0.001, 0.351]
    >>> res = PairedTTest(alternative="non-inferiority", margin=0.05).test(y, a, b)
    >>> round(res.pvalue, 4), round(res.confidence_interval.low, 3)
    (0.0067, 0.029)
    """

    name = "paired_t"
    _per_item = True
    _parameter_constraints: dict = {
        "alternative": [_ALTERNATIVES_MARGIN],
        "confidence_level": [lazy.Interval(Real, 0, 1, closed="neither")],
        "margin": MARGIN_CONSTRAINT,
    }

    def __init__(self, *, alternative="two-sided", confidence_level=0.95, margin=None):
        self.alternative = alternative
        self.confidence_level = confidence_level
        self.margin = margin

    def evaluate(self, data, random_state):
        """The t-test and interval of the mean per-item difference.

        Parameters
        ----------
        data : PairedData
            Prepared paired data of a per-item decomposable metric.
        random_state : int
            Unused (the test is deterministic).

        Returns
        -------
        TestOutcome
            ``pvalue``, ``statistic`` (t, oriented), the interval of the raw
            ``delta``, ``details`` with ``df``.
        """
        if data.stratified:
            raise ValueError(
                "PairedTTest does not take the 'strata' parameter: the paired t-test is not "
                "a permutation test, so strata would change its variance, which it does not "
                "model. Use BCaInterval or BergKirkpatrickBootstrap (stratified bootstrap) "
                "or PairedPermutation (unchanged by strata), or leave strata=None."
            )
        diff, w = item_differences(data, "PairedTTest")
        n = int(w.sum())
        values = diff[w > 0]
        if n < 2 or np.all(values == values[0]):
            n_pos, n_neg = int(w[diff > 0].sum()), int(w[diff < 0].sum())
            warn_outside(
                "PairedTTest: the per-item differences have zero variance (every one equal, "
                f"here {n_pos} positive and {n_neg} negative of {n}; e.g. identical systems) "
                "or there is a single item, so t is undefined; "
                + ("non-inferiority or equivalence cannot be shown without an estimate of "
                   "the spread: p = 1"
                   if self.alternative in MARGIN_ALTERNATIVES else
                   "the p-value is the exact sign test's")
                + " and there is no interval."
            )
            pvalue, log10_p = self._zero_variance_pvalue(diff, w)
            return TestOutcome(pvalue=pvalue, log10_pvalue=log10_p,
                               confidence_interval=(math.nan, math.nan),
                               details={"df": n - 1})
        if self.alternative in MARGIN_ALTERNATIVES:
            return self._evaluate_margin(data, diff, w)
        t, pvalue, (low, high), df, _, _, log10_p = paired_t(
            diff, w, self.alternative, float(self.confidence_level))
        if not data.metric.greater_is_better:  # the interval is of the raw delta
            low, high = -high, -low
        return TestOutcome(pvalue=pvalue, log10_pvalue=log10_p, statistic=t,
                           confidence_interval=(low, high),
                           confidence_level=self.confidence_level,
                           details={"df": df})

    def _zero_variance_pvalue(self, diff, w):
        """``(p, log10 p)`` when t is undefined: the exact sign test's; 1 with a margin.

        With a margin the sign test at the shifted null would be a test of
        the median, not of the mean, and would show non-inferiority for 12
        identical predictions at ``p = 2**-12``, where for 0/1 accuracy
        the probability of 12 concordant items at the boundary (discordance
        rate at least the margin :math:`m`) is :math:`(1 - m)^{12}` (.54 for
        :math:`m = .05`). Without a spread there is no evidence about the
        mean difference: ``p = 1`` (``McNemar`` handles accuracy with no
        discordant item through Newcombe's interval).
        """
        if self.alternative in MARGIN_ALTERNATIVES:
            return 1.0, 0.0
        n_pos, n_neg = int(w[diff > 0].sum()), int(w[diff < 0].sum())
        return sign_test_pvalue(n_pos, n_neg, self.alternative)

    def _evaluate_margin(self, data, diff, w):
        """Non-inferiority or equivalence (TOST) with the paired t statistic."""
        level = float(self.confidence_level)
        t, _, _, df, mean, sd, _ = paired_t(diff, w, "two-sided", level)
        se = sd / math.sqrt(float(w.sum()))
        pvalue, (low, high), p_lower, p_upper = margin_location_test(
            mean, se, self.alternative, self.margin, level, df=df)
        details = {"df": df, "pvalue_lower": p_lower}
        if self.alternative == "equivalence":
            details["pvalue_upper"] = p_upper
        equivalence = self.alternative == "equivalence"
        return TestOutcome(
            pvalue=pvalue, statistic=t,
            confidence_interval=_to_raw(low, high, data.metric.greater_is_better),
            confidence_level=2 * level - 1 if equivalence else level,
            margin=result_margin(self.margin), details=details)
