"""Passive result objects: :class:`SignificanceResult`, :class:`TestOutcome`.

:class:`SignificanceResult` is what every :class:`~sigtest.SignificanceTest`
returns. It keeps the resampled distribution of the difference, so that
:meth:`SignificanceResult.ci` can recompute a confidence interval at another
level or by another method without resampling again (like
``scipy.stats.bootstrap(..., bootstrap_result=...)``); the interval maths live
in :mod:`sigtest._engine.intervals`. :class:`TestOutcome` is what the hook
:meth:`~sigtest.SignificanceTest.evaluate` of a test returns. The helpers
``readonly_array``, ``optional_count``, ``sampling_design`` and
``design_lines`` are shared with :class:`~sigtest.ScoreResult`, which lives
next to :func:`sigtest.score` in :mod:`sigtest.tests_._score`.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field, fields
from typing import Any, Mapping

import numpy as np

from sigtest._engine.intervals import (
    NAN_INTERVAL,
    ConfidenceInterval,
    bootstrap_interval,
    check_interval_args,
    excludes_zero,
    is_degenerate,
)
from sigtest._engine.pvalues import tie_tolerance
from sigtest.utils import renamed_keywords

__all__ = [
    "ConfidenceInterval",
    "FieldsDictMixin",
    "SignificanceResult",
    "TestOutcome",
    "TextSummaryMixin",
    "design_lines",
    "optional_count",
    "readonly_array",
    "renamed_fields",
    "sampling_design",
    "stars_of",
    "to_plain",
]


def stars_of(pvalue):
    """BooStSa's marks: ``**`` for p <= .01, ``*`` for p <= .05, else ``""``."""
    if pvalue is None or not math.isfinite(pvalue):
        return ""
    return "**" if pvalue <= 0.01 else "*" if pvalue <= 0.05 else ""


def readonly_array(array):
    if array is None:
        return None
    array = np.array(array, dtype=np.float64)
    array.setflags(write=False)
    return array


def optional_count(value, name):
    """``value`` as an int >= 1, or ``None``."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"The '{name}' field must be an int >= 1 or None. Got {value!r}.")
    return int(value)


def sampling_design(n_groups, n_strata):
    """The ``n_groups`` / ``n_strata`` entries of ``to_dict`` (only those that are set)."""
    out = {}
    if n_groups is not None:
        out["n_groups"] = n_groups
    if n_strata is not None:
        out["n_strata"] = n_strata
    return out


def design_lines(n_groups, n_strata):
    """Lines of ``__str__`` saying that the resampling was clustered / stratified."""
    lines = []
    if n_groups is not None:
        lines.append(f"  clustered: {n_groups} groups")
    if n_strata is not None:
        lines.append(f"  stratified: {n_strata} strata")
    return lines


def to_plain(value):
    """``value`` in plain Python types, as every ``to_dict()`` returns it (JSON-serialisable).

    Dicts keep their keys as text, lists and tuples become lists, NumPy
    scalars and arrays their Python values; NaN stays a float (``json.dumps``
    writes it as ``NaN``).
    """
    if isinstance(value, dict):
        return {str(k): to_plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_plain(v) for v in value]
    if isinstance(value, np.ndarray):
        return to_plain(value.tolist())
    if isinstance(value, np.generic):
        return value.item()
    return value


def renamed_fields(**renames):
    """Class decorator of a result dataclass: an old field keyword raises ``TypeError``.

    ``renames`` maps each old field name to its new one; the generated
    ``__init__`` goes through :func:`sigtest.utils.renamed_keywords`, the one
    mechanism of every renamed keyword, so the message names the new field.
    A renamed field has no alias: the old attribute is gone.
    """
    def decorate(cls):
        cls.__init__ = renamed_keywords(**renames)(cls.__init__)
        return cls

    return decorate


class TextSummaryMixin:
    """``summary()`` of a result: the text that ``str(result)`` prints."""

    __slots__ = ()

    def summary(self):
        """The result in words: what ``str(result)`` prints.

        Returns
        -------
        text : str
            The result's fields, in sentences.
        """
        return str(self)


class FieldsDictMixin(TextSummaryMixin):
    """``to_dict()`` of a flat result dataclass (every field, in field order) and ``summary()``.

    For the results whose fields are all plain values (``CVTestResult``,
    ``BayesianCVResult``, ``ASOResult``, ``CochranQResult``); results with an
    interval tuple or a stored distribution (``SignificanceResult``,
    ``ScoreResult``, ``PowerResult``) flatten those and keep their own
    ``to_dict``.
    """

    __slots__ = ()

    def to_dict(self):
        """The fields as a plain dict.

        Returns
        -------
        record : dict
            ``{field name: value}`` in field order.
        """
        return to_plain({f.name: getattr(self, f.name) for f in fields(self)})


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
    margin : float, tuple of two floats or None
        Margin of a non-inferiority or equivalence test (in metric units; a
        pair ``(low, high)`` of the oriented difference when asymmetric),
        if the test used one (default: the test's ``margin`` parameter).
    prob_worse, prob_equivalent, prob_better : float or None
        Posterior probabilities that B is worse than A by more than the
        region of practical equivalence, within it, or better by more than
        it (Bayesian tests), in the oriented sense.
    details : dict
        Extra values recorded in the result's ``params`` (e.g.
        ``n_discordant``).
    log10_pvalue : float or None
        Base-10 logarithm of the p-value when the test computed it in log
        space (a p-value below the normal floating-point range, see
        :func:`~sigtest._engine.pvalues.tiny_pvalue`); ``None``: derived
        from ``pvalue`` by the result.

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
    margin: float | tuple[float, float] | None = None
    prob_worse: float | None = None
    prob_equivalent: float | None = None
    prob_better: float | None = None
    details: dict = field(default_factory=dict)
    log10_pvalue: float | None = None


@dataclass(frozen=True)
class SignificanceResult(TextSummaryMixin):
    r"""The outcome of comparing a baseline A with a candidate B on one metric.

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
        Number of resamples used; for an exact test (``resampling`` starting
        with ``"exact"``) the number of distinct values of the exact null
        distribution (``null_distribution``, with their probabilities in
        ``null_weights``), not of resamples. The tables of
        :func:`sigtest.compare` show 0 there (no Monte Carlo draw).
    alternative : str or None
        ``"greater"`` means "B is better", in the oriented sense;
        ``"non-inferiority"`` and ``"equivalence"`` test ``delta`` against
        ``margin`` (``str()`` then says in words what was shown).
    confidence_level : float or None
        Level of ``confidence_interval`` (for an equivalence test at level
        :math:`\alpha`, the :math:`1 - 2\alpha` of its two-sided interval).
    greater_is_better : bool
        Orientation of the metric.
    n_samples : int
        Number of test items N.
    params : dict
        Parameters of the test (``get_params()``), the integer ``seed`` drawn
        from ``random_state`` (``None`` for a test without ``random_state``,
        which is not seeded), and the metric parameters.
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
    n_groups : int or None
        Number of clusters G when the test resampled whole clusters
        (``groups=``), else ``None``.
    n_strata : int or None
        Number of strata H when the bootstrap resampled within strata
        (``strata=``), else ``None``.
    margin : float, tuple of two floats or None
        Margin of a non-inferiority or equivalence test, else ``None``: the
        test's ``margin`` :math:`m` (the oriented margins :math:`(-m, m)`),
        or its pair ``(low, high)`` of the oriented difference (positive: B
        better; non-inferiority uses ``low``).
    prob_worse, prob_equivalent, prob_better : float or None
        Posterior probabilities (Bayesian tests) that B is worse than A by
        more than the region of practical equivalence, within it, or better
        by more than it (oriented: "better" respects a loss), else ``None``.
    log10_pvalue : float
        :math:`\log_{10}` of the p-value, for p-values too small for a
        double: ``pvalue`` is never 0 (below about 2.2e-308 every test
        computes it in log space and reports
        :math:`\max(10^{\log_{10} p}, 5 \cdot 10^{-324})`, the smallest
        positive double when it underflows), and ``log10_pvalue`` keeps its
        exact size (e.g. :math:`-361.0` for the sign test of 1200 items all
        favouring B, and for the exact permutation, bootstrap and BCa tests
        on the same data, whose p-value is the sign test's). Given by the
        test, or ``math.log10(pvalue)`` when the p-value is a normal double;
        ``nan`` when the p-value is undefined.
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
    n_groups: int | None = None
    n_strata: int | None = None
    margin: float | tuple[float, float] | None = None
    prob_worse: float | None = None
    prob_equivalent: float | None = None
    prob_better: float | None = None
    log10_pvalue: float | None = None

    def __post_init__(self):
        ci = self.confidence_interval
        if ci is None:
            ci = NAN_INTERVAL
        object.__setattr__(self, "confidence_interval",
                           ConfidenceInterval(float(ci[0]), float(ci[1])))
        log10_p = self.log10_pvalue
        if log10_p is None:  # exact only where the p-value is a normal double
            p = self.pvalue
            log10_p = math.log10(p) if p >= sys.float_info.min else math.nan
        object.__setattr__(self, "log10_pvalue", float(log10_p))
        for name in ("margin", "prob_worse", "prob_equivalent", "prob_better"):
            value = getattr(self, name)
            if isinstance(value, (tuple, list)):  # an asymmetric margin (low, high)
                object.__setattr__(self, name, tuple(float(v) for v in value))
            elif value is not None:
                object.__setattr__(self, name, float(value))
        object.__setattr__(self, "params", dict(self.params))
        object.__setattr__(self, "null_distribution", readonly_array(self.null_distribution))
        object.__setattr__(self, "null_weights", readonly_array(self.null_weights))
        object.__setattr__(self, "n_groups", optional_count(self.n_groups, "n_groups"))
        object.__setattr__(self, "n_strata", optional_count(self.n_strata, "n_strata"))

    @property
    def stars(self):
        """``"**"`` (p <= .01), ``"*"`` (p <= .05) or ``""``, as BooStSa prints."""
        return stars_of(self.pvalue)

    def _credible_interval(self, confidence_level, method):
        """Equal-tailed credible interval of a Bayesian bootstrap posterior."""
        if method not in (None, "credible"):
            raise ValueError(
                "The 'method' parameter of ci() must be None or 'credible' for a Bayesian "
                f"bootstrap result (its posterior gives credible intervals). Got {method!r}."
            )
        check_interval_args(confidence_level, "percentile")
        alpha = 1.0 - float(confidence_level)
        low, high = np.quantile(self.null_distribution, [alpha / 2, 1.0 - alpha / 2])
        return ConfidenceInterval(float(low), float(high))

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
        method : {"bca", "percentile", "basic", "normal", "studentized"}, default=None
            Defaults to ``self.interval_method`` or ``"percentile"``. ``"bca"``
            needs the stored jackknife ``acceleration``; ``"studentized"``
            is only available at the stored level of a studentized
            :class:`~sigtest.BCaInterval` result (the per-resample standard
            errors are not stored).

        Returns
        -------
        ConfidenceInterval
            ``(low, high)`` of ``delta = score_b - score_a`` at
            ``confidence_level``. A degenerate distribution (every resample
            equal) gives nan bounds for identical systems (a difference of
            0) and the point ``[delta, delta]`` when every item favours one
            system (widened to 0 where the p-value exceeds ``1 -
            confidence_level``).

        Raises
        ------
        ValueError
            If no bootstrap distribution of size N is stored, or for a bad
            ``confidence_level`` / ``method``.

        Warns
        -----
        DegenerateDistributionWarning
            If the distribution is degenerate (identical systems: nan; every
            item favouring one system: the point ``[delta, delta]``).

        Notes
        -----
        For a :class:`~sigtest.BCaInterval` result and its own ``method``,
        ``pvalue <= 1 - confidence_level`` holds exactly when the returned
        interval excludes 0: where the p-value was floored (at ``1/(B+1)``
        or at the sign-test bound ``2**(1 - d)``) above ``1 -
        confidence_level``, an interval that would exclude 0 is extended to
        0, as :class:`~sigtest.BCaInterval` does at its own level. For a
        non-inferiority or equivalence result (``alternative`` with a
        ``margin``) the interval is the plain two-sided bootstrap interval at
        ``confidence_level``; its p-value is one of the margins, not of 0.
        For a :class:`~sigtest.BayesianBootstrap` result it is the
        equal-tailed credible interval of the stored posterior (``method``
        None or ``"credible"``).
        """
        if confidence_level is None:
            confidence_level = self.confidence_level or 0.95
        if self.resampling == "bayesian bootstrap" and self.null_distribution is not None:
            return self._credible_interval(confidence_level, method)
        if method is None:
            method = self.interval_method or "percentile"
        if self.null_distribution is None or self.resampling != "bootstrap":
            raise ValueError(
                f"This result (test={self.test!r}, resampling={self.resampling!r}) holds no "
                "paired bootstrap distribution of size N, so no confidence interval can be "
                "computed from it; use BCaInterval, or BergKirkpatrickBootstrap with "
                "sample_size=1.0."
            )
        if method == "studentized":
            if (method == self.interval_method
                    and confidence_level == self.confidence_level):
                return self.confidence_interval
            raise ValueError("method='studentized' needs the standard error of every "
                             "resample, which the result does not store; run "
                             "BCaInterval(method='studentized', confidence_level=...) "
                             "again.")
        if method == "bca" and self.acceleration is None:
            raise ValueError("method='bca' needs the jackknife acceleration, which this "
                             "result does not hold.")
        ci = bootstrap_interval(self.null_distribution, self.delta, confidence_level,
                                 method, self.acceleration,
                                 atol=tie_tolerance(self),
                                 n_discordant=self.params.get("n_discordant"))
        # a point mass gives the same point by every method (BergKirkpatrickBootstrap's
        # p is then the point's exact sign-test p)
        same = method == self.interval_method or is_degenerate(self.null_distribution)
        if (same and "pvalue_floor" in self.params
                and self.alternative in (None, "two-sided")
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
            "log10_pvalue": self.log10_pvalue,
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
        out.update(sampling_design(self.n_groups, self.n_strata))
        for name in ("margin", "prob_worse", "prob_equivalent", "prob_better"):
            if getattr(self, name) is not None:
                out[name] = getattr(self, name)
        if include_distribution:
            for name in ("null_distribution", "null_weights"):
                value = getattr(self, name)
                out[name] = None if value is None else value.tolist()
        return to_plain(out)

    def _margin_sentence(self):
        r"""What a non-inferiority or equivalence test showed, in words.

        The test's level is :math:`\alpha = 1 -` the confidence level of the
        test: the one-sided interval's level for non-inferiority, and
        :math:`(1 - c)/2` for the two-sided :math:`c = 1 - 2\alpha`
        interval of an equivalence test (TOST).
        """
        level = self.confidence_level
        if self.alternative == "non-inferiority":
            alpha = 1.0 - level if level else 0.05
        else:
            alpha = (1.0 - level) / 2.0 if level else 0.05
        pair = isinstance(self.margin, tuple)
        m = (f"{-self.margin[0]:.6g}" if pair else f"{self.margin:.6g}")
        if math.isnan(self.pvalue):
            verdict, cmp = "not shown", "p undefined"
        elif self.pvalue <= alpha:
            verdict, cmp = "shown", f"p = {self.pvalue:.4g} <= {alpha:.4g}"
        else:
            verdict, cmp = "not shown", f"p = {self.pvalue:.4g} > {alpha:.4g}"
        if self.alternative == "non-inferiority":
            return f"{verdict}: B is not worse than A by {m} or more (non-inferiority, {cmp})"
        if pair:  # the oriented difference: B - A for a score, A - B for a loss
            low, high = self.margin
            diff = "B - A" if self.greater_is_better else "A - B"
            return (f"{verdict}: {low:.6g} < {diff} < {high:.6g} (equivalence, TOST "
                    f"{cmp})")
        return f"{verdict}: |B - A| < {m} (equivalence, TOST {cmp})"

    def summary(self):
        """The result in words: what ``str(result)`` prints.

        Returns
        -------
        text : str
            Scores, difference, p-value, interval, what a margin test showed,
            posterior probabilities, and whether the test was clustered
            (``"clustered: 60 groups"``) or stratified.
        """
        return str(self)

    def __str__(self):
        better = "B better" if self.statistic > 0 else "A better" if self.statistic < 0 else "tie"
        orient = "higher" if self.greater_is_better else "lower"
        head = f"{self.test} test on {self.metric} ({orient} is better), N={self.n_samples}"
        if self.resampling and self.resampling.startswith("exact"):
            head += (f", {self.resampling} (exact null distribution: {self.n_resamples} "
                     "distinct values)")
        elif self.resampling:
            head += f", {self.n_resamples} resamples ({self.resampling})"
        lines = [
            head,
            f"  score A (baseline):  {self.score_a:.6g}",
            f"  score B (candidate): {self.score_b:.6g}",
            f"  delta = B - A:       {self.delta:+.6g} ({better})",
        ]
        if not math.isnan(self.pvalue):
            pline = f"  p-value ({self.alternative}): {self.pvalue:.4g} {self.stars}"
            if self.pvalue < sys.float_info.min and math.isfinite(self.log10_pvalue):
                pline += f" (log10 p = {self.log10_pvalue:.6g})"  # below the double range
            lines.append(pline.rstrip())
        low, high = self.confidence_interval
        if not (math.isnan(low) and math.isnan(high)):
            level = f"{100 * self.confidence_level:g}% " if self.confidence_level else ""
            method = f" ({self.interval_method})" if self.interval_method else ""
            lines.append(f"  {level}CI of delta{method}: [{low:.6g}, {high:.6g}]")
        if self.margin is not None and self.alternative in ("non-inferiority", "equivalence"):
            lines.append(f"  {self._margin_sentence()}")
        elif self.margin is not None:
            lines.append(f"  margin: {self.margin!s}" if isinstance(self.margin, tuple)
                         else f"  margin: {self.margin:.6g}")
        if self.prob_better is not None:
            lines.append(f"  P(B better) = {self.prob_better:.4g}, P(practically equivalent) = "
                         f"{self.prob_equivalent:.4g}, P(B worse) = {self.prob_worse:.4g}")
        lines.extend(design_lines(self.n_groups, self.n_strata))
        return "\n".join(lines)
