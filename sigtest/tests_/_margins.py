r"""Tests against a margin: non-inferiority and equivalence (TOST) of the paired difference.

The margins of the oriented difference (positive: B better), the constraint
of a test's ``margin`` parameter, and the two ways a test turns an estimate
into a margin test: a location test on its standard error
(:func:`margin_location_test`) or the inversion of a family of intervals
(:func:`margin_from_intervals`). :class:`~sigtest.tests_._base.SignificanceTest`
checks the parameters; the tests call these.
"""

from __future__ import annotations

import math
from numbers import Real

from sigtest._engine.intervals import invert_interval
from sigtest._engine.pvalues import SMALLEST_PVALUE
from sigtest.utils._param_validation import lazy

__all__ = ["MARGIN_ALTERNATIVES", "MARGIN_CONSTRAINT", "margin_bounds", "margin_from_intervals",
           "margin_location_test", "result_margin"]

#: Alternatives that test the difference against a margin (equivalence tests).
MARGIN_ALTERNATIVES = ("non-inferiority", "equivalence")

#: ``margin`` of the tests with an interval: a positive real or a pair ``(low, high)``
#: (its values are checked by ``SignificanceTest._check_margin_params``).
MARGIN_CONSTRAINT = [None, lazy.Interval(Real, 0, None, closed="neither"), tuple, list]


def margin_bounds(margin):
    r"""The margins :math:`(m_L, m_U)` of the oriented difference (positive: B better).

    A scalar ``margin`` :math:`m > 0` is the symmetric pair :math:`(-m, m)`;
    a pair ``(low, high)`` (checked by the test: :math:`low < 0 < high`) is
    returned as floats. Non-inferiority tests :math:`H_0: \theta \le m_L`,
    equivalence :math:`H_0: \theta \le m_L` or :math:`\theta \ge m_U`.
    """
    if isinstance(margin, (tuple, list)):
        low, high = margin
        return float(low), float(high)
    m = float(margin)
    return -m, m


def result_margin(margin):
    """A test's ``margin`` as results store it: a float, or a ``(low, high)`` pair of floats."""
    if isinstance(margin, (tuple, list)):
        return margin_bounds(margin)
    return float(margin)


#: ``alternative`` of the tests with an interval: the usual three and the margin ones.
_ALTERNATIVES_MARGIN = lazy.StrOptions({"two-sided", "greater", "less", *MARGIN_ALTERNATIVES})


def _to_raw(low, high, greater_is_better):
    """An interval of the oriented difference (positive: B better) as one of ``delta``."""
    return (low, high) if greater_is_better else (-high, -low)


def margin_location_test(estimate, se, alternative, margin, confidence_level, df=None):
    r"""Non-inferiority or equivalence (TOST) test of an oriented location estimate.

    With the oriented estimate :math:`\hat\theta` (positive: B better), its
    standard error :math:`s` and the margins :math:`(m_L, m_U)` of
    :func:`margin_bounds` (:math:`(-m, m)` for a scalar ``margin`` :math:`m`),
    on a t distribution with ``df`` degrees of freedom (the normal for
    ``df=None``):

    .. math:: p_{\text{lower}} = P\Big(T \ge \frac{\hat\theta - m_L}{s}\Big),
              \qquad
              p_{\text{upper}} = P\Big(T \le \frac{\hat\theta - m_U}{s}\Big),

    the one-sided tests of :math:`H_0: \theta \le m_L` (B worse by
    :math:`|m_L|` or more) and :math:`H_0: \theta \ge m_U`, as statsmodels'
    ``ttost_paired(x1, x2, low, upp)`` with ``low`` :math:`= m_L`, ``upp``
    :math:`= m_U` and the oriented differences as ``x1 - x2``. Non-inferiority: :math:`p =
    p_{\text{lower}}` with the one-sided interval :math:`(\hat\theta -
    q_{1-\alpha} s, \infty)`; equivalence (Schuirmann 1987): :math:`p =
    \max(p_{\text{lower}}, p_{\text{upper}})` with the two-sided
    :math:`1 - 2\alpha` interval :math:`\hat\theta \pm q_{1-\alpha} s`,
    :math:`\alpha = 1 -` ``confidence_level``. So ``p <= alpha`` exactly
    when the interval lies beyond :math:`m_L` (inside :math:`(m_L, m_U)`).

    The p-values are never 0 (at least
    :data:`~sigtest._engine.pvalues.SMALLEST_PVALUE`, the smallest positive double).

    Returns ``(pvalue, (low, high), p_lower, p_upper)``, the interval oriented.
    """
    from scipy.special import ndtr, ndtri, stdtr, stdtrit

    if df is None:
        sf, q = (lambda x: float(ndtr(-x))), float(ndtri(confidence_level))
    else:
        sf, q = (lambda x: float(stdtr(df, -x))), float(stdtrit(df, confidence_level))
    low, high = margin_bounds(margin)
    p_lower = max(SMALLEST_PVALUE, sf((estimate - low) / se))
    p_upper = max(SMALLEST_PVALUE, sf(-(estimate - high) / se))
    if alternative == "non-inferiority":
        return p_lower, (estimate - q * se, math.inf), p_lower, p_upper
    return (max(p_lower, p_upper), (estimate - q * se, estimate + q * se), p_lower,
            p_upper)


def margin_from_intervals(interval_fn, alternative, margin, confidence_level,
                          greater_is_better):
    r"""Non-inferiority or equivalence (TOST) test by inverting a family of intervals.

    ``interval_fn(c)`` is the two-sided interval of the raw ``delta`` at
    level ``c`` (nested in ``c``). With the margins :math:`(m_L, m_U)` of
    :func:`margin_bounds` (oriented; :math:`(-m, m)` for a scalar), the
    one-sided p-values of :math:`H_0: \theta \le m_L` (B worse by
    :math:`|m_L|` or more, ``p_lower``) and :math:`H_0: \theta \ge m_U`
    (``p_upper``), :math:`\theta` the oriented difference (a loss flips the
    sides: :math:`\theta = -\delta`), come from
    :func:`~sigtest._engine.intervals.invert_interval` at those null values;
    the reported interval is the two-sided
    :math:`1 - 2\alpha` interval (its lower end, oriented, is the one-sided
    :math:`1 - \alpha` bound), one-sided for non-inferiority.

    Returns ``(pvalue, (low, high), p_lower, p_upper)``, the interval of the raw ``delta``.
    """
    gib = bool(greater_is_better)
    m_low, m_high = margin_bounds(margin)
    lower = ("greater", m_low) if gib else ("less", -m_low)
    upper = ("less", m_high) if gib else ("greater", -m_high)
    p_lower = invert_interval(interval_fn, lower[1], lower[0])
    p_upper = invert_interval(interval_fn, upper[1], upper[0])
    raw_low, raw_high = interval_fn(2.0 * confidence_level - 1.0)
    low, high = _to_raw(raw_low, raw_high, gib)  # oriented (the map is an involution)
    if alternative == "non-inferiority":
        return p_lower, _to_raw(low, math.inf, gib), p_lower, p_upper
    return max(p_lower, p_upper), _to_raw(low, high, gib), p_lower, p_upper
