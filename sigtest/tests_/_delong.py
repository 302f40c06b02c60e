r"""DeLong's test of two correlated ROC AUCs on the same items (Sun & Xu's fast algorithm)."""

from __future__ import annotations

import math
from numbers import Real

from sigtest._engine.delong import DELONG_MIN_CLASS, auc_delong_interval, delong_covariance
from sigtest._engine.small_sample import point_mass_log10_pvalue, point_mass_pvalue
from sigtest._results import TestOutcome
from sigtest.exceptions import SmallSampleWarning
from sigtest.metrics import get_metric
from sigtest.tests_._base import SignificanceTest
from sigtest.tests_._margins import (
    _ALTERNATIVES_MARGIN,
    MARGIN_ALTERNATIVES,
    MARGIN_CONSTRAINT,
    margin_bounds,
    margin_location_test,
    result_margin,
)
from sigtest.tests_._sign import warn_outside
from sigtest.utils._param_validation import lazy
from sigtest._engine.pvalues import log10_normal_pvalue, tie_tolerance, tiny_pvalue

__all__ = ["DeLong", "auc_interval", "delong_components"]


def delong_components(y_true, score_a, score_b, **params):
    r"""DeLong's structural components of two binary AUCs on the same items.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Hard binary labels (the greater label is the positive class, as
        :func:`sklearn.metrics.roc_auc_score`).
    score_a, score_b : array-like of shape (n_samples,) or (n_samples, 2)
        The two systems' scores of the positive class.
    **params
        ``labels`` (the class set) for the metric's check.

    Returns
    -------
    auc : ndarray of shape (2,)
        AUC of A and of B.
    cov : ndarray of shape (2, 2)
        DeLong's covariance of the two AUCs,
        :math:`S = S_{10}/m + S_{01}/n` with :math:`S_{10}` the sample
        covariance (divisor :math:`m - 1`) of the placements
        :math:`V_{10}` of the :math:`m` positives and :math:`S_{01}` that
        of the placements :math:`V_{01}` of the :math:`n` negatives
        (:func:`sigtest._engine.delong.delong_covariance`; ``nan`` below two
        items of a class).
    m, n : int
        Numbers of positives and negatives.
    """
    ranking = get_metric("roc_auc").ranking
    return delong_covariance([ranking(y_true, score_a, **params),
                              ranking(y_true, score_b, **params)])


class DeLong(SignificanceTest):
    r"""DeLong's test of two correlated ROC AUCs on the same items, with the interval.

    The two systems score the same items; their AUCs are correlated. With
    the placement values (structural components) of the :math:`m` positive
    items :math:`X_i` and the :math:`n` negative items :math:`Y_j` of
    system :math:`r`, :math:`\psi(x, y) = 1` if :math:`x > y`, :math:`1/2`
    if equal, 0 otherwise,

    .. math:: V^r_{10}(X_i) = \frac1n \sum_j \psi(X^r_i, Y^r_j), \qquad
              V^r_{01}(Y_j) = \frac1m \sum_i \psi(X^r_i, Y^r_j),

    :math:`\widehat{\mathrm{AUC}}_r` is their mean and DeLong, DeLong &
    Clarke-Pearson (1988) estimate the covariance of the two AUCs by
    :math:`S = S_{10}/m + S_{01}/n` (the sample covariance matrices of the
    :math:`V_{10}` and :math:`V_{01}` pairs). The statistic on
    ``delta`` :math:`= \mathrm{AUC}_B - \mathrm{AUC}_A` is

    .. math:: z = \frac{\delta}{\sqrt{S_{AA} + S_{BB} - 2 S_{AB}}},

    normal under :math:`H_0: \mathrm{AUC}_A = \mathrm{AUC}_B`, with the
    interval :math:`\delta \pm z_{1-\alpha/2}\,\mathrm{se}` (one-sided for a
    one-sided ``alternative``). The placements come from one sort per system
    (Sun & Xu 2014: :math:`V_{10}(X_i) = (T_Z(X_i) - T_X(X_i))/n` with the
    midranks :math:`T` among all items and among the positives), so the
    test costs :math:`O(N \log N)` instead of DeLong's :math:`O(mn)`.
    pROC's ``roc.test(roc1, roc2, method="delong")`` gives the same
    :math:`z` with ``roc1`` = B and ``roc2`` = A.

    Parameters
    ----------
    alternative : str, default="two-sided"
        ``"two-sided"``, ``"greater"`` (B's AUC above A's), ``"less"``,
        ``"non-inferiority"`` or ``"equivalence"`` (these two need
        ``margin``).
    confidence_level : float, default=0.95
        Level of the interval of ``delta``, in (0, 1); with a margin
        ``alternative`` the test's level is :math:`\alpha = 1 -`
        ``confidence_level`` (above 0.5).
    margin : float > 0 or (low, high), default=None
        With ``alternative="non-inferiority"`` or ``"equivalence"`` (and only
        then), the largest AUC difference that does not matter (a pair:
        asymmetric margins, ``low < 0 < high``). Non-inferiority:
        :math:`p = P(Z \ge (\delta - m_L)/\mathrm{se})` with the one-sided
        interval; equivalence: TOST (Schuirmann 1987), the larger of the two
        one-sided p-values, with the :math:`1 - 2\alpha` interval (see
        ``docs/equivalence.md``).

    Warns
    -----
    SmallSampleWarning
        Fewer than ``DELONG_MIN_CLASS`` (40) positive or negative items: the
        normal approximation can then exceed the level (two equally good
        scorers among 1,000 items, two-sided .05: .107 with 5 positives,
        .073 with 10, .063 with 30; .050 with 40) and the interval
        under-cover; the warning recommends :class:`~sigtest.PairedPermutation`,
        which holds its level there.
    DegenerateDistributionWarning
        Zero estimated variance of the difference. With ``delta = 0``
        (identical systems, or both separating the classes perfectly)
        :math:`z = 0` (pROC's value), ``p = 1`` and the interval is
        ``(nan, nan)``. With ``delta != 0`` (a constant-score system against
        a perfect one, a system against its mirror image) :math:`z = \pm\infty`
        and ``p`` is the smallest the data allow, the exact sign test's
        :math:`2^{1-d}` with all :math:`d` discordant items one way (as the
        bootstrap tests); the interval is the point ``delta``. Fewer than two
        positive or negative items: the variance cannot be estimated
        (pROC's ``NA``), ``p = 1``, no interval.

    A ``y_true`` with one class gives ``p = nan`` (the AUCs are undefined;
    the scores warn ``UndefinedMetricWarning``), as the other tests.

    Notes
    -----
    Binary tasks only, with the metric ``"roc_auc"`` (the default of this
    test's :meth:`test`): ``y_true`` with two classes and one real score
    per item and system (a decision function, or a 2-column
    ``predict_proba``). A multiclass one-vs-rest version is not provided;
    compare multiclass AUCs (``roc_auc_ovr``, ...) with
    :class:`~sigtest.BCaInterval` or :class:`~sigtest.PairedPermutation`,
    which resample them without sorting again.

    Not with ``sample_weight``, ``groups`` or ``strata`` (``ValueError``):
    DeLong's variance assumes independent, unweighted items (as pROC,
    which refuses weights); the bootstrap tests handle clusters and strata.
    When to prefer it: see ``docs/which_test.md`` (an asymptotic test, valid
    from about 40 positives and 40 negatives; the bootstrap and
    permutation tests of the AUC difference make no normal assumption).

    References
    ----------
    DeLong, DeLong, Clarke-Pearson (1988). Comparing the areas under two or
    more correlated receiver operating characteristic curves: a
    nonparametric approach. Biometrics 44(3), 837-845.
    Sun, Xu (2014). Fast implementation of DeLong's algorithm for comparing
    the areas under correlated receiver operating characteristic curves.
    IEEE Signal Processing Letters 21(11), 1389-1393.
    Schuirmann (1987). A comparison of the two one-sided tests procedure and
    the power approach for assessing the equivalence of average
    bioavailability. J. Pharmacokinetics and Biopharmaceutics 15(6).
    Robin et al. (2011). pROC: an open-source package for R and S+ to
    analyze and compare ROC curves. BMC Bioinformatics 12, 77.

    Examples
    --------
    >>> import numpy as np
    >>> from sigtest import DeLong
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 200)
    >>> a = rng.normal(size=200) + 0.5 * y      # weaker scorer
    >>> b = rng.normal(size=200) + 1.5 * y
    >>> res = DeLong().test(y, a, b)
    >>> res.metric, round(res.score_a, 3), round(res.score_b, 3)
    ('roc_auc', 0.646, 0.857)
    >>> bool(res.pvalue < 0.001), [round(x, 3) for x in res.confidence_interval]
    (True, [0.116, 0.307])
    """

    name = "delong"
    _rank_once = True  # test() sorts each system once; the placements reuse that sort
    _parameter_constraints: dict = {
        "alternative": [_ALTERNATIVES_MARGIN],
        "confidence_level": [lazy.Interval(Real, 0, 1, closed="neither")],
        "margin": MARGIN_CONSTRAINT,
    }

    def __init__(self, *, alternative="two-sided", confidence_level=0.95, margin=None):
        self.alternative = alternative
        self.confidence_level = confidence_level
        self.margin = margin

    def test(self, y_true, y_pred_a, y_pred_b, *, metric="roc_auc", sample_weight=None,
             labels=None, groups=None, strata=None, **metric_params):
        """Test ``AUC(B) - AUC(A)`` by DeLong's z; see :meth:`SignificanceTest.test`.

        Parameters
        ----------
        y_true : array-like of shape (n_samples,)
            Binary hard labels.
        y_pred_a, y_pred_b : array-like of shape (n_samples,) or (n_samples, 2)
            Scores of the positive class (any real scale).
        metric : str, default="roc_auc"
            Must be ``"roc_auc"``.
        sample_weight : None
            Not supported (``ValueError`` if given).
        labels : array-like, optional
            The two classes, sorted.
        groups, strata : None
            Not supported (``ValueError`` if given).
        **metric_params
            Passed to the metric.

        Returns
        -------
        SignificanceResult
            AUCs of A and B, ``delta``, the p-value, the interval of ``delta``
            and, in ``params``, ``test_statistic`` (z) and the standard error.
        """
        return super().test(y_true, y_pred_a, y_pred_b, metric=metric,
                            sample_weight=sample_weight, labels=labels, groups=groups,
                            strata=strata, **metric_params)

    def _check_suits(self, metric):
        if getattr(metric, "name", None) != "roc_auc":
            raise ValueError(
                f"DeLong tests the binary ROC AUC only (metric='roc_auc'); got metric "
                f"{getattr(metric, 'name', metric)!r}. For other metrics use "
                "PairedPermutation or BCaInterval."
            )

    def evaluate(self, data, random_state):
        """Compute DeLong's z, its normal p-value and the interval of ``delta``.

        Parameters
        ----------
        data : PairedData
            Prepared data of the metric ``"roc_auc"`` (raw scores kept; the
            systems' rankings too when :meth:`test` prepared them).
        random_state : int
            Unused (the test is deterministic).

        Returns
        -------
        TestOutcome
            ``pvalue``, ``statistic`` (z), the interval of ``delta``, and
            ``details`` with the standard error, the AUC covariance and the
            numbers of positives and negatives.
        """
        from scipy.special import ndtr, ndtri

        self._check_suits(data.metric)
        _refuse_design(data, "DeLong does not take")
        auc, cov, m, n = delong_covariance(_rankings(data, 2))
        details = {"m_positive": m, "n_negative": n, "auc_covariance": cov.tolist()}
        if m == 0 or n == 0:
            # the AUCs are undefined (the scores warned UndefinedMetricWarning)
            return TestOutcome(pvalue=math.nan, log10_pvalue=math.nan, statistic=math.nan,
                               confidence_interval=(math.nan, math.nan),
                               confidence_level=self.confidence_level,
                               details={**details, "standard_error": math.nan})
        if min(m, n) < DELONG_MIN_CLASS:
            warn_outside(
                f"DeLong: {m} positive and {n} negative items. With fewer than "
                f"{DELONG_MIN_CLASS} items of a class its normal approximation can exceed "
                "the level and its interval under-cover (two equally good scorers among "
                "1,000 items, two-sided .05: .107 with 5 positives, .073 with 10, .063 "
                "with 30); PairedPermutation on metric 'roc_auc' holds its level there.",
                SmallSampleWarning,
            )
        delta = float(auc[1] - auc[0])
        var = float(cov[0, 0] + cov[1, 1] - 2.0 * cov[0, 1])
        if m < 2 or n < 2:  # a sample covariance needs two items of each class
            warn_outside(
                f"DeLong: the variance of the AUC difference cannot be estimated from {m} "
                f"positive and {n} negative items (two of each are needed), so z is "
                "undefined; p = 1 and there is no interval. Use PairedPermutation on "
                "metric 'roc_auc'."
            )
            return TestOutcome(pvalue=1.0, log10_pvalue=0.0, statistic=math.nan,
                               confidence_interval=(math.nan, math.nan),
                               confidence_level=self.confidence_level,
                               details={**details, "standard_error": math.nan})
        # zero (or rounding-negative) variance: z is 0/0 or infinite
        if not var > 1e-14 * max(1.0, float(cov[0, 0] + cov[1, 1])):
            return self._zero_variance(data, delta, details)
        se = math.sqrt(var)
        z = delta / se
        level = float(self.confidence_level)
        details["standard_error"] = se
        if self.alternative in MARGIN_ALTERNATIVES:  # the AUC is a score: raw = oriented
            pvalue, ci, p_lower, p_upper = margin_location_test(
                delta, se, self.alternative, self.margin, level)
            details["pvalue_lower"] = p_lower
            if self.alternative == "equivalence":
                details["pvalue_upper"] = p_upper
            return TestOutcome(
                pvalue=pvalue, statistic=z, confidence_interval=ci,
                confidence_level=2 * level - 1 if self.alternative == "equivalence" else level,
                margin=result_margin(self.margin), details=details)
        if self.alternative == "greater":
            p = float(ndtr(-z))
            ci = (delta - float(ndtri(level)) * se, math.inf)
        elif self.alternative == "less":
            p = float(ndtr(z))
            ci = (-math.inf, delta + float(ndtri(level)) * se)
        else:
            p = float(2.0 * ndtr(-abs(z)))
            q = float(ndtri(0.5 + level / 2))
            ci = (delta - q * se, delta + q * se)
        p, log10_p = tiny_pvalue(min(1.0, p),
                                 lambda: log10_normal_pvalue(z, self.alternative))
        return TestOutcome(pvalue=p, log10_pvalue=log10_p, statistic=z,
                           confidence_interval=ci, confidence_level=self.confidence_level,
                           details=details)

    def _zero_variance(self, data, delta, details):
        r"""The outcome when DeLong's variance of the difference is zero.

        :math:`\delta = 0` (identical systems, or both separating the classes
        perfectly): :math:`z = 0` (pROC's value), ``p = 1``, no interval.
        :math:`\delta \ne 0` (a constant-score system against a perfect one,
        a system against its mirror image): every positive and every negative
        item moves the difference by the same amount, as when every resample
        of a bootstrap gives :math:`\delta`; the p-value is the smallest the
        data allow, the exact sign test's with all :math:`d` discordant items
        one way (:func:`~sigtest._engine.small_sample.point_mass_pvalue`,
        as the bootstrap tests), :math:`z = \pm\infty`, and the interval is
        the point :math:`\delta` (widened to 0 when that p-value exceeds
        :math:`\alpha`).
        """
        details = {**details, "standard_error": 0.0}
        level = float(self.confidence_level)
        if abs(delta) <= tie_tolerance(data):
            warn_outside(
                "DeLong: the AUC difference and its variance are both zero (identical "
                "systems, or both separating the classes perfectly): z = 0, p = 1 and "
                "there is no interval."
            )
            return TestOutcome(pvalue=1.0, log10_pvalue=0.0, statistic=0.0,
                               confidence_interval=(math.nan, math.nan),
                               confidence_level=level, details=details)
        d = data.n_discordant
        alternative = self.alternative
        if alternative in MARGIN_ALTERNATIVES:
            m_low, m_high = margin_bounds(self.margin)
            sides = [("greater", m_low)]
            if alternative == "equivalence":
                sides.append(("less", m_high))
        else:
            sides = [(alternative, 0.0)]
        pvalues = [point_mass_pvalue(delta, d, side, null) for side, null in sides]
        p = max(pvalues)
        p, log10_p = tiny_pvalue(p, lambda: max(point_mass_log10_pvalue(delta, d, side, null)
                                                for side, null in sides))
        alpha = 1.0 - level
        if alternative in ("greater", "non-inferiority"):
            ci = (delta if p <= alpha else min(delta, sides[0][1]), math.inf)
        elif alternative == "less":
            ci = (-math.inf, delta if p <= alpha else max(delta, 0.0))
        elif alternative == "equivalence":
            ci = ((delta, delta) if p <= alpha
                  else (min(delta, sides[0][1]), max(delta, sides[1][1])))
        else:
            ci = (delta, delta) if p <= alpha else (min(delta, 0.0), max(delta, 0.0))
        warn_outside(
            f"DeLong: the variance of the AUC difference is zero while delta = {delta:.6g} "
            "(e.g. a constant-score system against a perfect one, or a system against "
            f"its mirror image): z is infinite; p is the smallest the d = {d} discordant "
            "items allow (the exact sign test with all of them one way, as the bootstrap "
            "tests give) and the interval is the point delta."
        )
        if alternative in MARGIN_ALTERNATIVES:
            details["pvalue_lower"] = pvalues[0]
            if alternative == "equivalence":
                details["pvalue_upper"] = pvalues[1]
        return TestOutcome(
            pvalue=p, log10_pvalue=log10_p, statistic=math.copysign(math.inf, delta),
            confidence_interval=ci,
            confidence_level=2 * level - 1 if alternative == "equivalence" else level,
            margin=result_margin(self.margin) if alternative in MARGIN_ALTERNATIVES else None,
            details=details)


def _refuse_design(data, what):
    """``ValueError`` for sample weights, clusters or strata: DeLong's variance has none."""
    for name, value in (("sample_weight", data.sample_weight),
                        ("groups", data.n_groups), ("strata", data.n_strata)):
        if value is not None:
            raise ValueError(
                f"{what} the '{name}' parameter: DeLong's variance assumes independent, "
                "unweighted items. Use the bootstrap (BCaInterval, "
                "BergKirkpatrickBootstrap, or score's method='bca'), which handles "
                "clusters, strata and weights, on metric 'roc_auc' instead."
            )


def _rankings(data, k):
    """The rankings of the first ``k`` systems of ``data``: kept by the input path, or sorted now.

    Data prepared without ``rank_once`` (``compare``, which shares them
    between tests) hold none: each system is sorted once here.
    """
    if data.rankings is not None:
        return data.rankings[:k]
    y, a, b, _ = data.data
    params = {key: v for key, v in data.params.items() if key == "labels"}
    return tuple(data.metric.ranking(y, s, **params) for s in (a, b)[:k])


def auc_interval(data, confidence_level):
    r"""DeLong's interval of the ROC AUC of system A of prepared data (pROC's ``ci.auc``).

    .. math:: \widehat{\mathrm{AUC}} \pm z_{1-\alpha/2} \sqrt{S},\qquad
              S = \frac{S_{10}}{m} + \frac{S_{01}}{n},

    DeLong's variance of one AUC (:func:`sigtest._engine.delong.delong_covariance`
    of one system: the sample variances of the placements of the :math:`m`
    positives and the :math:`n` negatives), the ends clipped to
    :math:`[0, 1]` as pROC's ``ci.auc(roc, method="delong")`` does (DeLong,
    DeLong & Clarke-Pearson 1988; Sun & Xu 2014).

    Parameters
    ----------
    data : PairedData
        Prepared data of metric ``"roc_auc"`` (system A is scored).
    confidence_level : float in (0, 1)

    Returns
    -------
    interval : tuple of float
        ``(low, high)``; ``(nan, nan)`` when a class is missing (the AUC is
        undefined) or holds a single item (no variance, pROC's ``NA``).
    standard_error : float
        :math:`\sqrt{S}` (``nan`` when undefined).

    Raises
    ------
    ValueError
        Another metric than ``"roc_auc"``, sample weights, clusters or strata.

    Warns
    -----
    SmallSampleWarning
        Fewer than ``DELONG_MIN_CLASS`` positive or negative items: the
        normal interval under-covers.
    DegenerateDistributionWarning
        A single positive or negative item, or a zero variance (AUC = 1 or
        0, or all scores tied): the interval is then the point (pROC:
        "ci.auc() of a ROC curve with AUC == 1 is always 1-1").
    """
    name = getattr(data.metric, "name", data.metric)
    if name != "roc_auc":
        raise ValueError(
            "The 'method' parameter of score can be 'delong' only with metric='roc_auc' "
            f"(DeLong's variance of a binary ROC AUC). Got metric {name!r}; use a "
            "bootstrap method ('bca', 'percentile', ...) for it."
        )
    _refuse_design(data, "score(method='delong') does not take")
    auc, cov, m, n = delong_covariance(_rankings(data, 1))
    if m == 0 or n == 0:  # the AUC is undefined (its score warned)
        return (math.nan, math.nan), math.nan
    if min(m, n) < DELONG_MIN_CLASS:
        warn_outside(
            f"score: {m} positive and {n} negative items. With fewer than "
            f"{DELONG_MIN_CLASS} items of a class DeLong's normal interval under-covers "
            "(as DeLong's test exceeds its level there).",
            SmallSampleWarning,
        )
    if m < 2 or n < 2:
        warn_outside(
            f"score: DeLong's variance of the AUC cannot be estimated from {m} positive "
            f"and {n} negative items (two of each are needed); the interval is (nan, nan)."
        )
        return (math.nan, math.nan), math.nan
    estimate, variance = float(data.score_a), float(cov[0, 0])
    if not variance > 0.0:
        warn_outside(
            f"score: DeLong's variance of the AUC is zero (AUC = {estimate:.6g}: the classes "
            "separated perfectly, or all scores tied), so the interval is the point; it "
            "says nothing of the AUC's uncertainty."
        )
    return auc_delong_interval(estimate, variance, confidence_level), math.sqrt(
        max(variance, 0.0))
