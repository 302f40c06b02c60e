"""The result of a significance test, and bootstrap interval arithmetic.

:class:`SignificanceResult` is what every :class:`~sigtest.SignificanceTest`
returns. It keeps the resampled distribution of the difference, so that
:meth:`SignificanceResult.ci` can recompute a confidence interval at another
level or by another method without resampling again (like
``scipy.stats.bootstrap(..., bootstrap_result=...)``).

The interval functions live here (not in ``tests_/_bootstrap.py``) because
both :class:`~sigtest.BCaInterval` and :meth:`SignificanceResult.ci` use them.
"""

from __future__ import annotations

import math
import warnings
from collections import namedtuple
from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np
from scipy.special import ndtr, ndtri

from .exceptions import DegenerateDistributionWarning

__all__ = ["ConfidenceInterval", "SignificanceResult", "TestOutcome"]

ConfidenceInterval = namedtuple("ConfidenceInterval", ["low", "high"])
ConfidenceInterval.__doc__ = """Confidence interval of ``delta = score_b - score_a``.

Attributes
----------
low, high : float
    The endpoints; ``nan`` where the test gives no interval.
"""

_NAN_INTERVAL = ConfidenceInterval(math.nan, math.nan)
_INTERVAL_METHODS = ("bca", "percentile", "basic")
# scipy's tolerance for ties of floating-point statistics (permutation_test).
_TIE_RTOL = 100 * np.finfo(np.float64).eps


def _is_degenerate(dist):
    """True if all finite values of ``dist`` are equal up to rounding."""
    if dist.size == 0:
        return True
    lo, hi = float(np.min(dist)), float(np.max(dist))
    return hi - lo <= _TIE_RTOL * max(abs(lo), abs(hi))


def _proportion_below(dist, value):
    """``(#{dist < value} + #{dist <= value}) / (2 B)``: ties count one half.

    The same convention as scipy's ``_percentile_of_score`` (``kind="mean"``).
    """
    return float((np.count_nonzero(dist < value) + np.count_nonzero(dist <= value))
                 / (2 * dist.size))


def _acceleration(jack_deltas, weights=None):
    r"""BCa acceleration from leave-one-out differences.

    .. math:: a = \frac{\sum_i w_i d_i^3}{6 (\sum_i w_i d_i^2)^{3/2}},\quad
              d_i = \bar\theta_{(\cdot)} - \theta_{(i)},\quad
              \bar\theta_{(\cdot)} = \sum_i w_i \theta_{(i)} / \sum_i w_i

    (Efron & Tibshirani 1993, eq. 14.15). ``weights`` are cell multiplicities
    in the compressed path: items of one cell have identical leave-one-out
    values, so the weighted cell formula equals the item formula exactly.
    Returns ``nan`` when all leave-one-out values are equal.
    """
    theta = np.asarray(jack_deltas, dtype=np.float64)
    w = np.ones_like(theta) if weights is None else np.asarray(weights, dtype=np.float64)
    keep = w > 0
    theta, w = theta[keep], w[keep]
    if theta.size == 0 or not np.all(np.isfinite(theta)):
        return math.nan
    d = np.dot(w, theta) / w.sum() - theta
    den = np.dot(w, d * d)
    if not den > 0:
        return math.nan
    return float(np.dot(w, d * d * d) / (6.0 * den**1.5))


def _interval_quantiles(dist, delta, confidence_level, method, acceleration, z0=None):
    r"""The two quantile levels of ``dist`` that form the interval.

    For BCa the level of an endpoint is :math:`\Phi(z_0 + w / (1 - a w))`
    with :math:`w = z_0 \pm z_{1-\alpha/2}`. It increases with :math:`w`
    up to the pole :math:`w = 1/a`, where it reaches 1 (:math:`a > 0`) or,
    coming from the other side, 0 (:math:`a < 0`). Beyond the pole
    (:math:`1 - a w \le 0`) the formula would jump to the wrong end of the
    distribution; the level is held at its limit instead (1 beyond a
    positive pole, 0 beyond a negative one). The levels then move
    monotonically with the confidence level, so the interval grows with it.
    """
    alpha = (1.0 - confidence_level) / 2.0
    if method != "bca":
        return alpha, 1.0 - alpha
    if z0 is None:
        z0 = ndtri(_proportion_below(dist, delta))
    a = acceleration
    z = ndtri(alpha)
    return _bca_level(z0, z0 + z, a), _bca_level(z0, z0 - z, a)


def _bca_level(z0, w, a):
    """BCa quantile level for ``w = z0 + z``, held at its limit beyond the pole."""
    den = 1.0 - a * w
    if not den > 0.0:
        if math.isnan(den):
            return math.nan
        return 1.0 if a > 0 else 0.0
    return float(ndtr(z0 + w / den))


def _check_interval_args(confidence_level, method):
    if method not in _INTERVAL_METHODS:
        raise ValueError(
            f"The 'method' parameter must be one of {_INTERVAL_METHODS}. Got {method!r} instead."
        )
    if not (isinstance(confidence_level, (int, float, np.floating))
            and 0.0 < confidence_level < 1.0):
        raise ValueError(
            "The 'confidence_level' parameter must be a float in the open interval (0, 1). "
            f"Got {confidence_level!r} instead."
        )


def _quantile_sorted(sorted_dist, q):
    """Quantile ``q`` of sorted data, linear interpolation (``numpy.quantile``'s default).

    Virtual index ``h = q (n - 1)``; between the order statistics ``x[i]``
    and ``x[i + 1]`` (``i = floor(h)``, ``g = h - i``) it returns numpy's
    ``_lerp``: ``x[i] + (x[i+1] - x[i]) g`` for ``g < 1/2``, else
    ``x[i+1] - (x[i+1] - x[i]) (1 - g)``. A scalar function (about a
    microsecond): the p-value inversion evaluates the interval ~60 times.
    """
    n = sorted_dist.shape[0]
    h = float(q) * (n - 1)
    i = min(max(int(math.floor(h)), 0), n - 1)
    j = min(i + 1, n - 1)
    g = h - i
    lo, hi = float(sorted_dist[i]), float(sorted_dist[j])
    diff = hi - lo
    return lo + diff * g if g < 0.5 else hi - diff * (1.0 - g)


def _interval_at(sorted_dist, delta, confidence_level, method, acceleration, z0):
    """The interval from a sorted, non-degenerate distribution (no checks, no warnings).

    The one place where an interval is computed: :func:`_bootstrap_interval`
    and the inversion :func:`_interval_pvalue` both call it, so a p-value and
    an interval of the same distribution can never disagree.
    """
    levels = _interval_quantiles(sorted_dist, delta, confidence_level, method,
                                 acceleration, z0)
    if not all(np.isfinite(levels)):
        return _NAN_INTERVAL
    low, high = (_quantile_sorted(sorted_dist, q) for q in levels)
    if method == "basic":
        low, high = 2.0 * delta - high, 2.0 * delta - low
    return ConfidenceInterval(float(low), float(high))


def _bootstrap_interval(dist, delta, confidence_level, method, acceleration=None,
                        *, warn=True, stacklevel=3):
    r"""Two-sided bootstrap confidence interval of ``delta``.

    ``percentile``: the :math:`\alpha/2` and :math:`1-\alpha/2` quantiles of
    the bootstrap differences :math:`\delta^*` (linear interpolation, as
    ``scipy.stats.quantile``). ``basic``: :math:`(2\delta - q_{hi},
    2\delta - q_{lo})`. ``bca``: quantile levels
    :math:`\Phi(z_0 + (z_0 + z_\alpha)/(1 - a (z_0 + z_\alpha)))` with
    :math:`z_0 = \Phi^{-1}((\#\{\delta^* < \delta\} + \#\{\delta^* \le
    \delta\})/2B)` (ties count one half, as scipy) and the jackknife
    acceleration :math:`a` (Efron & Tibshirani 1993, ch. 14); where
    :math:`1 - a (z_0 + z_\alpha) \le 0` the level is held at its limit (0 or
    1, see :func:`_interval_quantiles`; scipy returns a level from the wrong
    tail there).

    A degenerate distribution (all :math:`\delta^*` equal) or an undefined
    acceleration gives a ``nan`` interval and a
    :class:`~sigtest.exceptions.DegenerateDistributionWarning`.
    """
    dist = np.asarray(dist, dtype=np.float64)
    _check_interval_args(confidence_level, method)
    if not math.isfinite(delta) or dist.size == 0 or _is_degenerate(dist):
        if warn:
            warnings.warn(
                "The bootstrap distribution of the difference is degenerate (all resampled "
                "differences are equal, e.g. identical systems) or the observed difference "
                "is not finite; the confidence interval is undefined and set to nan.",
                DegenerateDistributionWarning,
                stacklevel=stacklevel,
            )
        return _NAN_INTERVAL
    if method == "bca" and (acceleration is None or not math.isfinite(acceleration)):
        if warn:
            warnings.warn(
                "The BCa acceleration is undefined (all leave-one-out differences are "
                "equal); the BCa interval is set to nan. Use method='percentile'.",
                DegenerateDistributionWarning,
                stacklevel=stacklevel,
            )
        return _NAN_INTERVAL
    z0 = ndtri(_proportion_below(dist, delta)) if method == "bca" else None
    return _interval_at(np.sort(dist), delta, float(confidence_level), method,
                        acceleration, z0)


def _excludes_zero(ci):
    """Whether an interval excludes 0 (``low > 0`` or ``high < 0``; nan: no)."""
    return bool(ci[0] > 0.0 or ci[1] < 0.0)


def _interval_pvalue(dist, delta, method, acceleration=None):
    r"""Two-sided p-value by inverting the bootstrap interval.

    :math:`p = 1 - c^*` with :math:`c^*` the largest confidence level whose
    interval (the very same computation as :func:`_bootstrap_interval`: same
    resamples, tie rule and interpolated quantiles) excludes 0. The interval
    grows with :math:`c` (for BCa because the levels are held at their limit
    beyond the pole :math:`1 - a(z_0 + z) \le 0`), so "excludes 0" holds for
    every :math:`c \le c^*` and for no :math:`c > c^*`; :math:`c^*` is found
    by bisection on the binary representation of the float :math:`c`, down
    to adjacent floats (at most 64 interval evaluations). Hence, for every
    float level :math:`c \in [1/2, 1)` (where :math:`1 - c` is exact)::

        (p <= 1 - c) == (interval at c excludes 0)

    Returns 1 when no level excludes 0 and :math:`2^{-53}` (one float step
    below 1) when every level does (0 outside the range of :math:`\delta^*`);
    the caller floors it at :math:`1/(B+1)`. 1 for a degenerate distribution,
    ``nan`` for a non-finite ``delta`` or an undefined BCa acceleration.
    """
    dist = np.asarray(dist, dtype=np.float64)
    if not math.isfinite(delta) or dist.size == 0:
        return math.nan
    if _is_degenerate(dist):
        return 1.0
    if method == "bca" and (acceleration is None or not math.isfinite(acceleration)):
        return math.nan
    z0 = ndtri(_proportion_below(dist, delta)) if method == "bca" else None
    sorted_dist = np.sort(dist)

    def excludes(bits):
        c = float(np.int64(bits).view(np.float64))
        return _excludes_zero(_interval_at(sorted_dist, delta, c, method, acceleration, z0))

    lo = int(np.float64(np.nextafter(0.0, 1.0)).view(np.int64))  # smallest level
    hi = int(np.float64(np.nextafter(1.0, 0.0)).view(np.int64))  # largest level < 1
    if not excludes(lo):
        return 1.0
    if excludes(hi):
        return float(1.0 - np.int64(hi).view(np.float64))
    while hi - lo > 1:  # invariant: excludes(lo) and not excludes(hi)
        mid = (lo + hi) // 2
        if excludes(mid):
            lo = mid
        else:
            hi = mid
    return float(1.0 - np.int64(lo).view(np.float64))


def _stars(pvalue):
    """BooStSa's marks: ``**`` for p <= .01, ``*`` for p <= .05, else ``""``."""
    if pvalue is None or not math.isfinite(pvalue):
        return ""
    return "**" if pvalue <= 0.01 else "*" if pvalue <= 0.05 else ""


def _readonly(array):
    if array is None:
        return None
    array = np.array(array, dtype=np.float64)
    array.setflags(write=False)
    return array


@dataclass(frozen=True)
class TestOutcome:
    """What a significance test's :meth:`~sigtest.SignificanceTest.evaluate` returns.

    Every field is optional. The base class turns it into a
    :class:`SignificanceResult`: it adds the metric, the scores, the
    oriented statistic, the seed, the test's parameters and its
    ``alternative``.

    Parameters
    ----------
    pvalue : float or None
        The p-value. If ``None`` and ``null_distribution`` is given, the base
        class computes it from the null distribution with the test's
        ``alternative`` (Monte Carlo: :math:`(c + 1)/(B + 1)`; exact when
        ``null_weights`` are given; mid-p if the test has ``mid_p=True``).
        ``None`` and no null distribution: ``nan``.
    null_distribution : array-like of shape (B,) or None
        RAW resampled differences ``score_b* - score_a*`` (not oriented):
        a null distribution (permutation) or a bootstrap distribution.
    null_weights : array-like of shape (B,) or None
        Probabilities of the entries of an exactly enumerated null
        distribution (``None``: equally likely Monte Carlo draws).
    statistic : float or None
        The test's own statistic (e.g. a t or a chi-square value), recorded
        as ``params["test_statistic"]`` of the result; the result's
        ``statistic`` stays the oriented difference of the scores.
    confidence_interval : tuple (low, high) or None
        Interval of the raw ``delta = score_b - score_a``.
    confidence_level : float or None
        Level of ``confidence_interval`` (default: the test's
        ``confidence_level`` parameter, if any, when an interval is given).
    n_resamples : int, default=0
        Resamples used (default: the size of ``null_distribution``).
    resampling : str or None
        ``"bootstrap"``, ``"subsample bootstrap"``, ``"permutation"``,
        ``"exact permutation"`` or a test's own word; only ``"bootstrap"``
        lets :meth:`SignificanceResult.ci` recompute intervals.
    interval_method : str or None
        ``"bca"``, ``"percentile"``, ``"basic"`` or a test's own word.
    acceleration : float or None
        BCa acceleration, if computed.
    details : dict
        Extra values recorded in the result's ``params`` (e.g.
        ``n_discordant``).

    Examples
    --------
    >>> from sigtest import TestOutcome
    >>> TestOutcome(pvalue=0.03, details={"n_discordant": 12}).pvalue
    0.03
    """

    __test__ = False  # not a pytest test class

    pvalue: float | None = None
    null_distribution: np.ndarray | None = field(default=None, repr=False)
    null_weights: np.ndarray | None = field(default=None, repr=False)
    statistic: float | None = None
    confidence_interval: tuple | None = None
    confidence_level: float | None = None
    n_resamples: int = 0
    resampling: str | None = None
    interval_method: str | None = None
    acceleration: float | None = None
    details: dict = field(default_factory=dict)


@dataclass(frozen=True)
class SignificanceResult:
    """The outcome of comparing a baseline A with a candidate B on one metric.

    Attributes
    ----------
    metric : str
        Metric name.
    test : str
        Registry name of the test (``"bootstrap"``, ``"bca"``, ``"permutation"``).
    score_a, score_b : float
        Observed metric of the baseline A and the candidate B.
    delta : float
        ``score_b - score_a`` (raw, not oriented).
    statistic : float
        The oriented difference: ``delta`` for a score, ``-delta`` for a loss,
        so that a positive value always means "B is better".
    pvalue : float
        ``nan`` where the test gives none.
    confidence_interval : ConfidenceInterval
        Interval of ``delta`` (raw orientation); ``(nan, nan)`` where the test
        gives none.
    n_resamples : int
        Number of resamples (or enumerated patterns for an exact test) used.
    alternative : str or None
        ``"greater"`` means "B is better", in the oriented sense.
    confidence_level : float or None
        Level of ``confidence_interval``.
    greater_is_better : bool
        Orientation of the metric.
    n_samples : int
        Number of test items N.
    params : dict
        Parameters of the test (``get_params()``), the integer ``seed`` drawn
        from ``random_state``, and the metric parameters.
    null_distribution : ndarray or None
        The resampled raw differences ``score_b* - score_a*``: the bootstrap
        distribution for bootstrap tests, the null distribution for the
        permutation test. Read-only.
    null_weights : ndarray or None
        Probabilities of the entries of ``null_distribution`` for an exact
        test (``None``: equally likely).
    resampling : str or None
        ``"bootstrap"`` (paired, size N), ``"subsample bootstrap"`` (size m <
        N), ``"permutation"``, ``"exact permutation"``, or ``None``.
    acceleration : float or None
        BCa acceleration from the closed-form jackknife, when computed.
    interval_method : str or None
        Method of ``confidence_interval`` (``"bca"``, ``"percentile"``, ``"basic"``).
    """

    metric: str
    test: str
    score_a: float
    score_b: float
    delta: float
    statistic: float
    pvalue: float
    confidence_interval: ConfidenceInterval = _NAN_INTERVAL
    n_resamples: int = 0
    alternative: str | None = None
    confidence_level: float | None = None
    greater_is_better: bool = True
    n_samples: int = 0
    params: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)
    null_distribution: np.ndarray | None = field(default=None, repr=False, compare=False)
    null_weights: np.ndarray | None = field(default=None, repr=False, compare=False)
    resampling: str | None = None
    acceleration: float | None = field(default=None, repr=False)
    interval_method: str | None = None

    def __post_init__(self):
        ci = self.confidence_interval
        if ci is None:
            ci = _NAN_INTERVAL
        object.__setattr__(self, "confidence_interval",
                           ConfidenceInterval(float(ci[0]), float(ci[1])))
        object.__setattr__(self, "params", dict(self.params))
        object.__setattr__(self, "null_distribution", _readonly(self.null_distribution))
        object.__setattr__(self, "null_weights", _readonly(self.null_weights))

    @property
    def stars(self):
        """``"**"`` (p <= .01), ``"*"`` (p <= .05) or ``""``, as BooStSa prints."""
        return _stars(self.pvalue)

    def ci(self, confidence_level=None, method=None):
        """Recompute the interval of ``delta`` from the stored bootstrap distribution.

        No new resampling: like ``scipy.stats.bootstrap(..., bootstrap_result=res,
        n_resamples=0)``. Only a paired bootstrap of size N (``resampling ==
        "bootstrap"``) gives a sampling distribution of ``delta``; a permutation
        null distribution or a sub-sample bootstrap does not.

        Parameters
        ----------
        confidence_level : float in (0, 1), default=None
            Defaults to ``self.confidence_level`` or 0.95.
        method : {"bca", "percentile", "basic"}, default=None
            Defaults to ``self.interval_method`` or ``"percentile"``. ``"bca"``
            needs the stored jackknife ``acceleration``.

        Returns
        -------
        ConfidenceInterval

        Raises
        ------
        ValueError
            If no bootstrap distribution of size N is stored, or for a bad
            ``confidence_level`` / ``method``.

        Warns
        -----
        DegenerateDistributionWarning
            If the distribution is degenerate (the interval is then nan).

        Notes
        -----
        For a :class:`~sigtest.BCaInterval` result and its own ``method``,
        ``pvalue <= 1 - confidence_level`` holds exactly when the returned
        interval excludes 0: where the p-value was floored (at ``1/(B+1)``
        or at the sign-test bound ``2**(1 - d)``) above ``1 -
        confidence_level``, an interval that would exclude 0 is extended to
        0, as :class:`~sigtest.BCaInterval` does at its own level.
        """
        if confidence_level is None:
            confidence_level = self.confidence_level or 0.95
        if method is None:
            method = self.interval_method or "percentile"
        if self.null_distribution is None or self.resampling != "bootstrap":
            raise ValueError(
                f"This result (test={self.test!r}, resampling={self.resampling!r}) holds no "
                "paired bootstrap distribution of size N, so no confidence interval can be "
                "computed from it; use BCaInterval, or BergKirkpatrickBootstrap with "
                "sample_size=1.0."
            )
        if method == "bca" and self.acceleration is None:
            raise ValueError("method='bca' needs the jackknife acceleration, which this "
                             "result does not hold.")
        ci = _bootstrap_interval(self.null_distribution, self.delta, confidence_level,
                                 method, self.acceleration)
        if (method == self.interval_method and "pvalue_floor" in self.params
                and self.pvalue > 1.0 - confidence_level and _excludes_zero(ci)):
            # the p-value was floored (1/(B+1) or the sign-test bound) above
            # 1 - level: widen to 0 as the test did, so that the interval and
            # p still agree ("p <= 1 - level" iff "excludes 0")
            ci = ConfidenceInterval(min(ci.low, 0.0), max(ci.high, 0.0))
        return ci

    def to_dict(self, include_distribution=False):
        """Flat ``dict`` of the result (``ci_low``/``ci_high`` instead of the tuple).

        Parameters
        ----------
        include_distribution : bool, default=False
            Also include ``null_distribution`` and ``null_weights`` (as lists).
        """
        out = {
            "metric": self.metric,
            "test": self.test,
            "score_a": self.score_a,
            "score_b": self.score_b,
            "delta": self.delta,
            "statistic": self.statistic,
            "pvalue": self.pvalue,
            "ci_low": self.confidence_interval.low,
            "ci_high": self.confidence_interval.high,
            "n_resamples": self.n_resamples,
            "alternative": self.alternative,
            "confidence_level": self.confidence_level,
            "greater_is_better": self.greater_is_better,
            "n_samples": self.n_samples,
            "resampling": self.resampling,
            "interval_method": self.interval_method,
            "acceleration": self.acceleration,
            "params": dict(self.params),
        }
        if include_distribution:
            for name in ("null_distribution", "null_weights"):
                value = getattr(self, name)
                out[name] = None if value is None else value.tolist()
        return out

    def __str__(self):
        better = "B better" if self.statistic > 0 else "A better" if self.statistic < 0 else "tie"
        orient = "higher" if self.greater_is_better else "lower"
        head = f"{self.test} test on {self.metric} ({orient} is better), N={self.n_samples}"
        if self.resampling:
            head += f", {self.n_resamples} resamples ({self.resampling})"
        lines = [
            head,
            f"  score A (baseline):  {self.score_a:.6g}",
            f"  score B (candidate): {self.score_b:.6g}",
            f"  delta = B - A:       {self.delta:+.6g} ({better})",
        ]
        if not math.isnan(self.pvalue):
            pline = f"  p-value ({self.alternative}): {self.pvalue:.4g} {self.stars}"
            lines.append(pline.rstrip())
        low, high = self.confidence_interval
        if not (math.isnan(low) and math.isnan(high)):
            level = f"{100 * self.confidence_level:g}% " if self.confidence_level else ""
            method = f" ({self.interval_method})" if self.interval_method else ""
            lines.append(f"  {level}CI of delta{method}: [{low:.6g}, {high:.6g}]")
        return "\n".join(lines)
