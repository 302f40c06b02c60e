"""Passive result objects: :class:`SignificanceResult`, :class:`TestOutcome`.

:class:`SignificanceResult` is what every :class:`~sigtest.SignificanceTest`
returns. It keeps the resampled distribution of the difference, so that
:meth:`SignificanceResult.ci` can recompute a confidence interval at another
level or by another method without resampling again (like
``scipy.stats.bootstrap(..., bootstrap_result=...)``); the interval maths live
in :mod:`sigtest._engine.intervals`. :class:`TestOutcome` is what the hook
:meth:`~sigtest.SignificanceTest.evaluate` of a test returns.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np

from ._engine.intervals import (
    NAN_INTERVAL,
    ConfidenceInterval,
    bootstrap_interval,
    excludes_zero,
)

__all__ = ["ConfidenceInterval", "SignificanceResult", "TestOutcome", "stars_of"]


def stars_of(pvalue):
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
    confidence_interval: ConfidenceInterval = NAN_INTERVAL
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
            ci = NAN_INTERVAL
        object.__setattr__(self, "confidence_interval",
                           ConfidenceInterval(float(ci[0]), float(ci[1])))
        object.__setattr__(self, "params", dict(self.params))
        object.__setattr__(self, "null_distribution", _readonly(self.null_distribution))
        object.__setattr__(self, "null_weights", _readonly(self.null_weights))

    @property
    def stars(self):
        """``"**"`` (p <= .01), ``"*"`` (p <= .05) or ``""``, as BooStSa prints."""
        return stars_of(self.pvalue)

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
            ``(low, high)`` of ``delta = score_b - score_a`` at
            ``confidence_level`` (nan bounds for a degenerate distribution).

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
        ci = bootstrap_interval(self.null_distribution, self.delta, confidence_level,
                                 method, self.acceleration)
        if (method == self.interval_method and "pvalue_floor" in self.params
                and self.pvalue > 1.0 - confidence_level and excludes_zero(ci)):
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

        Returns
        -------
        result : dict
            The fields of the result, ``ci_low``/``ci_high`` in place of
            ``confidence_interval``.
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
