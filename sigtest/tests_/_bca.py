"""The paired bootstrap confidence interval of the difference (BCa, percentile, ...) as a test."""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np

from sigtest._constants import N_RESAMPLES
from sigtest._engine.intervals import (
    INTERVAL_METHODS,
    ConfidenceInterval,
    bootstrap_interval,
    excludes_zero,
    interval_pvalue,
    is_degenerate,
    jackknife_acceleration,
)
from sigtest._engine.pvalues import tie_tolerance
from sigtest._engine.small_sample import (
    BCA_SMALL_SAMPLE_LIMITS,
    bca_cluster_reasons,
    bca_metric_reasons,
    class_small_sample_reasons,
    discreteness_floor,
    metric_kind_reasons,
    point_mass_log10_pvalue,
    point_mass_pvalue,
    small_sample_reasons,
    warn_small_sample,
)
from sigtest._results import TestOutcome
from sigtest.utils._param_validation import lazy
from sigtest.tests_._base import _N_JOBS, _RANDOM_STATE, SignificanceTest
from sigtest.tests_._margins import (
    MARGIN_ALTERNATIVES,
    MARGIN_CONSTRAINT,
    margin_bounds,
    result_margin,
)

__all__ = ["BCaInterval"]


class BCaInterval(SignificanceTest):
    r"""Bootstrap confidence interval of ``delta = score_b - score_a`` (BCa by default).

    The paired bootstrap distribution :math:`\delta^*` (same items for gold,
    A and B) gives, at level :math:`1 - \alpha`:

    * ``"percentile"``: quantiles :math:`\alpha/2`, :math:`1-\alpha/2` of :math:`\delta^*`;
    * ``"basic"``: :math:`(2\delta - q_{1-\alpha/2},\ 2\delta - q_{\alpha/2})`;
    * ``"bca"``: quantile levels :math:`\Phi\big(z_0 + \frac{z_0 + z_{\alpha/2}}
      {1 - a (z_0 + z_{\alpha/2})}\big)` and the mirror one, with

      .. math:: z_0 = \Phi^{-1}\Big(\frac{\#\{\delta^* < \delta\} + \tfrac12\,
                \#\{\delta^* = \delta\}}{B}\Big), \qquad
                a = \frac{\sum_i w_i d_i^3}{6\,(\sum_i w_i d_i^2)^{3/2}},

      :math:`d_i = \bar\delta_{(\cdot)} - \delta_{(i)}` from the closed-form
      jackknife (leave-one-out sums = total - row; per cell with weights
      :math:`w_i` = multiplicities for compressed hard labels, which equals
      the item jackknife exactly). **Tie rule**: ties of :math:`\delta^*` with
      :math:`\delta` count one half, as scipy, so the interval equals
      ``scipy.stats.bootstrap(..., method="BCa", bootstrap_result=...)`` on the
      same distribution. Quantiles use linear interpolation.
    * ``"normal"``: :math:`\delta - b \mp z_{1-\alpha/2}\, s` with the
      bootstrap bias :math:`b = \bar\delta^* - \delta` and standard
      deviation :math:`s` of :math:`\delta^*` (``ddof=1``), R
      ``boot.ci(type="norm")``;
    * ``"studentized"`` (bootstrap-t, Efron & Tibshirani 1993, ch. 12.5):
      :math:`t^*_b = (\delta^*_b - \delta)/\widehat{se}^*_b` with
      :math:`\widehat{se}^*_b` the jackknife standard error computed on
      resample :math:`b` (one metric evaluation per occupied row of the
      resample: ``O(B R s)``, :mod:`sigtest._engine.studentized`), and the
      interval :math:`(\delta - \widehat{se}\, t^*_{(1-\alpha/2)},\
      \delta - \widehat{se}\, t^*_{(\alpha/2)})`, :math:`\widehat{se}`
      the jackknife standard error of the data (R ``boot.ci(type="stud")``
      with jackknife variances). It draws its own resamples
      (``numpy.random.default_rng(seed).multinomial`` over rows, within
      each stratum with ``strata=``, where the standard errors are the
      stratified jackknife's) and needs a metric with sufficient
      statistics; ``compare``
      does not share its resamples.

    Every method's p-value inverts the same interval code, so ``p <= 1 -
    confidence_level`` exactly when the interval excludes 0 (before the
    floors below, which widen the interval where they raise p).

    **Clusters and strata.** With ``groups=`` every resample draws ``G``
    whole clusters with replacement (the cluster bootstrap, Davison &
    Hinkley 1997, §3.8; Field & Welsh 2007), the jackknife deletes one
    cluster at a time, and :math:`d` counts discordant clusters. With
    ``strata=`` each stratum is resampled on its own, keeping its size, and
    :math:`a` uses the per-stratum influence values
    :math:`L_i = (n_h - 1)(\bar\theta_{(\cdot), h} - \theta_{(i)})` of item
    (or cluster) :math:`i` of stratum :math:`h` (R ``boot::empinf``).

    Where :math:`1 - a (z_0 + z) \le 0` the BCa level is held at its limit
    (1 beyond a positive pole, 0 beyond a negative one) instead of jumping to
    the other tail, so the interval grows with the confidence level.

    **p-value** (two-sided). It inverts the very same interval function
    (same resamples, tie rule and interpolated quantiles): :math:`p = 1 -
    c^*` with :math:`c^*` the largest level whose interval excludes 0, found
    by bisection down to adjacent floats. It is then floored:

    * at :math:`1/(B+1)` (a Monte Carlo p is never 0; Davison & Hinkley
      1997);
    * at :math:`2^{1-d}` with :math:`d` discordant items (items whose
      per-item statistics differ between A and B): the exact two-sided sign
      test with all :math:`d` items one way, below which no test valid
      conditionally on the discordant items can go. With 3 vs 0 discordant
      items the raw BCa p is about .01, the exact McNemar p is .25.

    **Guarantee.** At the test's own ``confidence_level`` :math:`c`,
    ``pvalue <= 1 - c`` holds exactly when the reported interval excludes 0
    (``low > 0`` or ``high < 0``): when a floor raises p above :math:`1 - c`
    while the interval would exclude 0, the interval is extended to 0 (its
    nearer endpoint becomes 0) and, for the sign-test floor, a
    ``SmallSampleWarning`` says so. :meth:`SignificanceResult.ci` does the
    same at any level with the test's method. Without that extension the
    raw interval agrees with p at every level :math:`c \le 1 - \max(1/(B+1),
    2^{1-d})`. ``params`` records ``n_discordant``, ``pvalue_floor`` and
    ``pvalue_unfloored`` (the inverted p).

    **Non-inferiority and equivalence** (``alternative`` with ``margin``
    :math:`m > 0`, in metric units). With :math:`\theta` the oriented
    difference (positive: B better; :math:`-\delta` for a loss) and
    :math:`\alpha = 1 -` ``confidence_level``:

    * ``"non-inferiority"``: :math:`H_0: \theta \le -m` (B worse than A by
      :math:`m` or more) against :math:`\theta > -m`; rejected when the
      one-sided :math:`1 - \alpha` lower bound of :math:`\theta` (the lower
      end, oriented, of the two-sided :math:`1 - 2\alpha` interval) is above
      :math:`-m`. ``confidence_interval`` is that one-sided interval on the
      raw ``delta``: :math:`(\text{low}, \infty)` for a score,
      :math:`(-\infty, \text{high})` with :math:`\text{high} < m` for a
      loss.
    * ``"equivalence"``: two one-sided tests (TOST, Schuirmann 1987) of
      :math:`\theta \le -m` and :math:`\theta \ge m`, each at level
      :math:`\alpha`; :math:`p = \max(p_{\text{lower}},
      p_{\text{upper}})`, rejected exactly when the two-sided :math:`1 -
      2\alpha` interval (90 % for :math:`\alpha = .05`, the reported
      ``confidence_interval`` and ``confidence_level``) lies inside
      :math:`(-m, m)`.

    The one-sided p-values invert the same interval code at the null values
    :math:`\mp m` (:func:`~sigtest._engine.intervals.interval_pvalue` with
    ``null_value`` and ``side``), so ``p <= alpha`` exactly when the bound
    is beyond the margin. Each one-sided p is floored at :math:`\max(1/(B+1),
    2^{-d})`. For the shifted null the bound :math:`2^{-d}` is conservative,
    not sharp: a test conditional on :math:`d` discordant 0/1 items at the
    boundary :math:`\theta = -m` sees B win a discordant item with
    probability at most :math:`(1 - m)/2`, so the sharp bound is
    :math:`((1 - m)/2)^d \le 2^{-d}`; the floor keeps the bootstrap, which
    ignores discreteness, from a small p on a handful of discordant items.
    A floor that raises p above :math:`\alpha` moves the bound to the
    margin (with a ``SmallSampleWarning``). Identical systems give a
    degenerate distribution: ``p = 1``, never shown; a distribution that is
    the single point :math:`\delta \ne 0` (every item favours one system)
    gives :math:`2^{-d}` for each side the point lies beyond and 1 for the
    other. ``params`` records
    ``pvalue_lower`` (and ``pvalue_upper``). See ``docs/equivalence.md``.

    Parameters
    ----------
    confidence_level : float in (0, 1), default=0.95
        Level of the two-sided interval of ``delta``; with a margin
        ``alternative`` the test's level is :math:`\alpha = 1 -`
        ``confidence_level`` (it must then be above 0.5).
    n_resamples : int, default=9999
        Number of bootstrap resamples B (>= 1).
    method : {"bca", "percentile", "basic", "normal", "studentized"}, default="bca"
        Interval method (R ``boot.ci``'s types); the p-value inverts the same
        method.
    alternative : {"two-sided", "non-inferiority", "equivalence"}, default="two-sided"
        ``"two-sided"``: the interval of ``delta`` and the p-value of
        :math:`\delta = 0`; the other two test ``delta`` against ``margin``
        (above).
    margin : float > 0 or (low, high), default=None
        Largest difference that does not matter, in metric units (e.g.
        ``0.01``: one accuracy point); required with ``"non-inferiority"``
        and ``"equivalence"``, refused otherwise (``ValueError``).
        A pair ``(low, high)``, ``low < 0 < high``: asymmetric margins of the
        oriented difference (a scalar :math:`m` is :math:`(-m, m)`);
        non-inferiority uses ``low`` (see ``docs/equivalence.md``).
    random_state : None, int, SeedSequence or Generator, default=None
        Seed of the resamples; the base class turns it into one integer
        seed, so equal seeds give bit-identical results for any ``n_jobs``.
    n_jobs : int, default=None
        Number of numba threads while the test runs (``None``: numba's
        default; results do not depend on it).

    Warns
    -----
    DegenerateDistributionWarning
        Every resampled difference equal. At 0 (identical systems: the
        difference is 0 everywhere) the interval is ``(nan, nan)`` and the
        p-value 1. At the observed :math:`\delta \ne 0` (every item favours
        one system by the same amount: A wrong and B right on all 30 items
        gives :math:`2^{-29}`) the p-value is the exact sign test's,
        :math:`2^{1-d}` with :math:`d` discordant items (no Monte Carlo
        floor), and the interval is the point :math:`[\delta, \delta]`,
        widened to 0 where that p exceeds ``1 - confidence_level``.
    SmallSampleWarning
        If N < 30 or fewer than 20 items are discordant (the limits measured
        in ``docs/which_test.md``: below them BCa rejected a true null up to
        7.7 % of the time at the 5 % level; with ``groups=`` the same limits
        count clusters), or fewer than 20 items are discordant about the
        tested (``pos_label``) or rarest (macro) class of precision/recall/F1,
        or N is below the minimum measured for an entropy/divergence soft
        metric (``BCA_SOFT_MIN_N``: e.g. 200 for ``entropy_correlation``,
        400 for ``po_jsd``), or a ROC AUC has fewer than 50 items of its
        rarer class (``RANK_MIN_CLASS_ITEMS``; 200 for average precision),
        or N is below the minimum measured for a regression metric
        (``REGRESSION_MIN_N``: 200 for ``root_mean_squared_error`` and
        ``mean_squared_error``, 150 for ``r2``, 100 for
        ``mean_absolute_error``), or the sign-test floor raised the p-value;
        the message names :class:`PairedPermutation` as the remedy.

    References
    ----------
    Efron, Tibshirani (1993). An Introduction to the Bootstrap, ch. 14.3.
    Bestgen (2022). Please, don't forget the difference and the confidence
    interval when seeking for the state-of-the-art status. LREC.
    Davison, Hinkley (1997). Bootstrap Methods and their Application, eq. 4.11
    and §3.7-3.8 (stratified and cluster bootstrap).
    Field, Welsh (2007). Bootstrapping clustered data. JRSS B 69(3).
    Schuirmann (1987). A comparison of the two one-sided tests procedure and
    the power approach for assessing the equivalence of average
    bioavailability. J. Pharmacokinetics and Biopharmaceutics 15(6).

    Examples
    --------
    >>> import numpy as np
    >>> from sigtest import BCaInterval
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 400)
    >>> a = np.where(rng.random(400) < 0.75, y, 1 - y)
    >>> b = np.where(rng.random(400) < 0.85, y, 1 - y)
    >>> res = BCaInterval(n_resamples=2000, random_state=0).test(y, a, b)
    >>> low, high = res.confidence_interval
    >>> bool(low < res.delta < high), bool(low > 0)
    (True, True)

    Is a cheaper A' not worse than A by 3 accuracy points or more?

    >>> c = np.where(rng.random(400) < 0.75, y, 1 - y)
    >>> for margin in (0.03, 0.08):
    ...     res = BCaInterval(n_resamples=2000, random_state=0, margin=margin,
    ...                       alternative="non-inferiority").test(y, a, c)
    ...     print(str(res).splitlines()[-1].strip())
    not shown: B is not worse than A by 0.03 or more (non-inferiority, p = 0.1319 > 0.05)
    shown: B is not worse than A by 0.08 or more (non-inferiority, p = 0.002353 <= 0.05)
    >>> low, high = res.confidence_interval  # one-sided: (low, inf)
    >>> round(low, 4), high
    (-0.0475, inf)
    """

    name = "bca"
    _warns_few_clusters = True  # small_sample_reasons: G < 30; bca_cluster_reasons: G < 60
    _parameter_constraints: dict = {
        "confidence_level": [lazy.Interval(Real, 0, 1, closed="neither")],
        "n_resamples": [lazy.Interval(Integral, 1, None, closed="left")],
        "method": [lazy.StrOptions(set(INTERVAL_METHODS))],
        "alternative": [lazy.StrOptions({"two-sided", *MARGIN_ALTERNATIVES})],
        "margin": MARGIN_CONSTRAINT,
        "random_state": _RANDOM_STATE,
        "n_jobs": _N_JOBS,
    }

    def __init__(self, *, confidence_level=0.95, n_resamples=N_RESAMPLES, method="bca",
                 alternative="two-sided", margin=None, random_state=None, n_jobs=None):
        self.confidence_level = confidence_level
        self.n_resamples = n_resamples
        self.method = method
        self.alternative = alternative
        self.margin = margin
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _shared_scheme(self):
        """Shared bootstrap differences, except for a bootstrap-t (per-resample SEs)."""
        return None if self.method == "studentized" else "bootstrap"

    def evaluate(self, data, random_state, *, resamples=None):
        """Bootstrap the paired data; the interval and the p-value that inverts it.

        Parameters
        ----------
        data : PairedData
            The validated paired data (from :meth:`test` or :meth:`test_paired`).
        random_state : int
            The integer seed the base class derived from ``self.random_state``.
        resamples : SharedDeltas or None, default=None
            The pair's bootstrap differences on resamples drawn elsewhere
            (:func:`sigtest.compare`'s shared resamples, given through
            :meth:`test_paired`), used instead of the test's own draws; their
            length must be ``n_resamples``.

        Returns
        -------
        TestOutcome
            The interval, the p-value that inverts it (floored), the
            bootstrap differences, the jackknife acceleration and the floor
            details.
        """
        n = data.n_units
        if self.method == "studentized":
            if resamples is not None:
                raise ValueError("BCaInterval(method='studentized') draws its own resamples "
                                 "(each needs its jackknife standard error); shared "
                                 "resamples cannot be used.")
            # only method='studentized' needs the studentized bootstrap (and its jackknife drivers)
            from sigtest._engine.studentized import pseudo_distribution, studentized_resamples

            deltas, t_star, se = studentized_resamples(data, self.n_resamples, random_state)
            # the interval and its p-value are the basic ones of delta + se t*
            dist = pseudo_distribution(data.delta, se, t_star)
            if is_degenerate(deltas):
                dist = deltas
        else:
            deltas = self._resampled_deltas(data, "bootstrap", self.n_resamples, random_state,
                                            sample_size=None, supplied=resamples)
            dist = deltas
        delta = data.delta
        acceleration = None
        if np.isfinite(delta) and (self.method == "bca" or data.has_statistics):
            acceleration = jackknife_acceleration(data)
        if self.alternative in MARGIN_ALTERNATIVES:
            return self._evaluate_margin(data, deltas, acceleration, dist)
        level = float(self.confidence_level)
        d = data.n_discordant
        atol = tie_tolerance(data)
        # a point mass (every resample equal): nan for identical systems, else the
        # point [delta, delta]; its warning says which
        dist = np.sort(dist)  # once for the interval and its p-value (order not used)
        ci = bootstrap_interval(dist, delta, level, self.method, acceleration, atol=atol,
                                n_discordant=d, presorted=True)
        floor = max(1.0 / (deltas.size + 1), discreteness_floor(d, "two-sided"))
        log10_p = None  # the result takes log10(p) of a p-value in the normal range
        if is_degenerate(deltas):
            # every item favours one system: the exact sign-test p (no Monte Carlo
            # floor: more resamples would all be equal too), with its exact log10
            # (2**(1 - d) underflows beyond d = 1075); identical systems: 1
            raw = pvalue = floor = point_mass_pvalue(delta, d, "two-sided", atol=atol)
            log10_p = point_mass_log10_pvalue(delta, d, "two-sided", atol=atol)
        else:
            raw = interval_pvalue(dist, delta, self.method, acceleration, presorted=True)
            pvalue = max(raw, floor) if math.isfinite(raw) else raw
            reasons = (small_sample_reasons(n, d, BCA_SMALL_SAMPLE_LIMITS,
                                            unit="clusters" if data.clustered else "items")
                       + class_small_sample_reasons(data, BCA_SMALL_SAMPLE_LIMITS)
                       + bca_metric_reasons(data) + bca_cluster_reasons(data)
                       + metric_kind_reasons(data, "bca"))
            # warn when the sign-test floor set p; not when the Monte Carlo
            # floor 1/(B+1) alone did (many discordant units, a tiny raw p)
            floored = (math.isfinite(raw) and discreteness_floor(d, "two-sided")
                       > max(raw, 1.0 / (deltas.size + 1)))
            if reasons or floored:
                warn_small_sample(type(self).__name__, reasons, floored=floored)
        if pvalue > 1.0 - level and excludes_zero(ci):
            # the floor raised p above 1 - level: widen the interval to 0 so that
            # "p <= 1 - level" and "the interval excludes 0" still agree
            ci = ConfidenceInterval(min(ci.low, 0.0), max(ci.high, 0.0))
        return TestOutcome(
            pvalue=pvalue,
            log10_pvalue=log10_p,
            confidence_interval=ci,
            n_resamples=int(deltas.size),
            confidence_level=level,
            null_distribution=deltas,
            resampling="bootstrap",
            acceleration=acceleration,
            interval_method=self.method,
            details={"n_discordant": d, "pvalue_floor": floor, "pvalue_unfloored": raw},
        )

    def _warn_margin_small_sample(self, data, raw_p, n_resamples):
        """The small-sample warning of a margin test (too few items, classes, clusters)."""
        d = data.n_discordant
        reasons = (small_sample_reasons(data.n_units, d, BCA_SMALL_SAMPLE_LIMITS,
                                        unit="clusters" if data.clustered else "items")
                   + class_small_sample_reasons(data, BCA_SMALL_SAMPLE_LIMITS)
                   + bca_metric_reasons(data) + bca_cluster_reasons(data)
                   + metric_kind_reasons(data, "bca"))
        floored = (math.isfinite(raw_p) and discreteness_floor(d, "greater")
                   > max(raw_p, 1.0 / (n_resamples + 1)))
        if reasons or floored:
            warn_small_sample(type(self).__name__, reasons, floored=floored)

    def _evaluate_margin(self, data, deltas, acceleration, dist):
        """Non-inferiority / equivalence (TOST) by inverting the interval at the margins.

        ``dist`` is what the interval is computed from: ``deltas``, or the
        studentized pseudo-distribution.
        """
        delta, d = data.delta, data.n_discordant
        m_low, m_high = margin_bounds(self.margin)  # oriented: (-m, m) for a scalar
        level = float(self.confidence_level)
        alpha = 1.0 - level
        gib = bool(data.metric.greater_is_better)
        # the two-sided 1 - 2 alpha interval of the raw delta: its lower end is the
        # one-sided 1 - alpha bound (exact: 2 level - 1 and 1 - level are floats)
        atol = tie_tolerance(data)
        dist = np.sort(dist)  # once for the interval and its p-values (order not used)
        ci2 = bootstrap_interval(dist, delta, 2.0 * level - 1.0, self.method, acceleration,
                                 atol=atol, n_discordant=d, presorted=True)
        # oriented hypotheses on the raw delta: "lower" is H0: theta <= m_low, B worse
        # by |m_low| or more (delta <= m_low for a score, delta >= -m_low for a loss),
        # "upper" is H0: theta >= m_high; their one-sided p-values invert the interval
        sides = {"lower": ("greater", m_low) if gib else ("less", -m_low),
                 "upper": ("less", m_high) if gib else ("greater", -m_high)}
        degenerate = is_degenerate(deltas)
        # a point mass: the exact sign-test p where the point is beyond the margin
        # (no Monte Carlo floor); identical systems (d = 0): 1
        floor = (discreteness_floor(d, "greater") if degenerate
                 else max(1.0 / (deltas.size + 1), discreteness_floor(d, "greater")))
        raw, pvals = {}, {}
        for key, (side, null_value) in sides.items():
            if degenerate:
                raw[key] = point_mass_pvalue(delta, d, side, null_value, atol=atol)
            else:
                raw[key] = interval_pvalue(dist, delta, self.method, acceleration,
                                           null_value=null_value, side=side, presorted=True)
            pvals[key] = max(raw[key], floor) if math.isfinite(raw[key]) else raw[key]
        keys = ("lower",) if self.alternative == "non-inferiority" else ("lower", "upper")
        pvalue = max(pvals[k] for k in keys)
        raw_p = max(raw[k] for k in keys)
        # a point mass: the exact log10 of 2**-d, which underflows beyond d = 1074
        log10_p = (max(point_mass_log10_pvalue(delta, d, *sides[k], atol=atol) for k in keys)
                   if degenerate else None)
        if not degenerate:
            self._warn_margin_small_sample(data, raw_p, deltas.size)
        low, high = (ci2.low, ci2.high) if gib else (-ci2.high, -ci2.low)  # oriented
        # a floor that raised p above alpha moves the bound to the margin, so that
        # "p <= alpha" iff "the bound is beyond the margin" still holds
        if pvals["lower"] > alpha and low > m_low:
            low = m_low
        if self.alternative == "non-inferiority":
            high = math.inf
        elif pvals["upper"] > alpha and high < m_high:
            high = m_high
        ci = ConfidenceInterval(low, high) if gib else ConfidenceInterval(-high, -low)
        details = {"n_discordant": d, "pvalue_floor": floor, "pvalue_unfloored": raw_p,
                   "pvalue_lower": pvals["lower"]}
        if self.alternative == "equivalence":
            details["pvalue_upper"] = pvals["upper"]
        return TestOutcome(
            pvalue=pvalue,
            log10_pvalue=log10_p,
            confidence_interval=ci,
            n_resamples=int(deltas.size),
            confidence_level=level if self.alternative == "non-inferiority" else 2 * level - 1,
            null_distribution=deltas,
            resampling="bootstrap",
            acceleration=acceleration,
            interval_method=self.method,
            margin=result_margin(self.margin),
            details=details,
        )
