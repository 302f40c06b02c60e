r"""DeLong's test of two correlated ROC AUCs on the same items (Sun & Xu's fast algorithm)."""

from __future__ import annotations

import math
from numbers import Real

import numpy as np

from sigtest._engine.rank_metrics import auc_placements
from sigtest._results import TestOutcome
from sigtest.tests_._base import (
    _ALTERNATIVES_MARGIN,
    MARGIN_ALTERNATIVES,
    MARGIN_CONSTRAINT,
    SignificanceTest,
    margin_location_test,
    result_margin,
)
from sigtest.tests_._sign import warn_outside
from sigtest.utils._param_validation import lazy

__all__ = ["DeLong", "delong_components"]


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
        of the placements :math:`V_{01}` of the :math:`n` negatives.
    m, n : int
        Numbers of positives and negatives.
    """
    from sigtest.metrics import get_metric

    ranking = get_metric("roc_auc").ranking
    ra = ranking(y_true, score_a, **params)
    rb = ranking(y_true, score_b, **params)
    v10a, v01a = auc_placements(ra)
    v10b, v01b = auc_placements(rb)
    pos = ~np.isnan(v10a)
    m, n = int(pos.sum()), int((~pos).sum())
    V10 = np.stack([v10a[pos], v10b[pos]])
    V01 = np.stack([v01a[~pos], v01b[~pos]])
    auc = V10.mean(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        cov = (np.cov(V10) / m if m > 1 else np.full((2, 2), np.nan)) + (
            np.cov(V01) / n if n > 1 else np.full((2, 2), np.nan))
    return auc, cov, m, n


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
    DegenerateDistributionWarning
        Zero estimated variance (identical systems, or both systems
        separating the classes perfectly) or fewer than two positive or
        negative items: ``z`` is undefined, so ``p = 1`` (no evidence of a
        difference without an estimate of its spread) and the interval is
        ``(nan, nan)``.

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
    for moderate numbers of positives and negatives; the bootstrap and
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
            Prepared data of the metric ``"roc_auc"`` (raw scores kept).
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

        from sigtest._engine.pvalues import log10_normal_pvalue, tiny_pvalue

        self._check_suits(data.metric)
        for name, value in (("sample_weight", data.sample_weight),
                            ("groups", data.n_groups), ("strata", data.n_strata)):
            if value is not None:
                raise ValueError(
                    f"DeLong does not take the '{name}' parameter: its variance assumes "
                    "independent, unweighted items. Use BCaInterval or "
                    "BergKirkpatrickBootstrap (clusters, strata, weights) on metric "
                    "'roc_auc' instead."
                )
        y, a, b, _ = data.data
        params = {k: v for k, v in data.params.items() if k == "labels"}
        auc, cov, m, n = delong_components(y, a, b, **params)
        delta = float(auc[1] - auc[0])
        var = float(cov[0, 0] + cov[1, 1] - 2.0 * cov[0, 1])
        details = {"m_positive": m, "n_negative": n,
                   "auc_covariance": cov.tolist()}
        # zero (or rounding-negative) variance, or a class with < 2 items: z undefined
        if not (var > 1e-14 * max(1.0, float(cov[0, 0] + cov[1, 1]))) or m < 2 or n < 2:
            warn_outside(
                f"DeLong: the variance of the AUC difference is zero or cannot be estimated "
                f"({m} positive and {n} negative items; identical systems or perfect "
                "separation by both?), so z is undefined; p = 1 and there is no interval."
            )
            return TestOutcome(pvalue=1.0, log10_pvalue=0.0, statistic=math.nan,
                               confidence_interval=(math.nan, math.nan),
                               confidence_level=self.confidence_level,
                               details={**details, "standard_error": 0.0})
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
