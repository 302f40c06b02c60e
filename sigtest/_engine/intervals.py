"""Bootstrap interval maths: percentile, basic, BCa, normal and studentized intervals,
their p inversion.

One place computes an interval (:func:`interval_at`): :func:`bootstrap_interval`
and the inversion :func:`interval_pvalue` both call it, so a p-value and an
interval of the same distribution never disagree. Used by
:class:`~sigtest.BCaInterval` and by :meth:`sigtest.SignificanceResult.ci`.
"""

from __future__ import annotations

import functools
import math
from collections import namedtuple

import numpy as np

from sigtest.exceptions import DegenerateDistributionWarning
from sigtest.utils import warn_external

__all__ = [
    "ConfidenceInterval",
    "INTERVAL_METHODS",
    "NEEDS_RESAMPLE_SE",
    "NAN_INTERVAL",
    "acceleration_from_jackknife",
    "bootstrap_interval",
    "clopper_pearson",
    "excludes_zero",
    "interval_pvalue",
    "invert_interval",
    "is_degenerate",
    "jackknife_acceleration",
    "jackknife_strata",
    "point_interval",
    "quantile_sorted",
]


@functools.cache
def _special():
    """``scipy.special``, imported on first use (import time), looked up once."""
    import scipy.special

    return scipy.special


def _ndtri(p):
    return _special().ndtri(p)


ConfidenceInterval = namedtuple("ConfidenceInterval", ["low", "high"])
ConfidenceInterval.__doc__ = """Confidence interval of ``delta = score_b - score_a``.

Attributes
----------
low, high : float
    The endpoints; ``nan`` where the test gives no interval.
"""

NAN_INTERVAL = ConfidenceInterval(math.nan, math.nan)
INTERVAL_METHODS = ("bca", "percentile", "basic", "normal", "studentized")
#: Methods that need the per-resample standard errors of a bootstrap-t
#: (:mod:`sigtest._engine.studentized`), which a stored distribution lacks.
NEEDS_RESAMPLE_SE = ("studentized",)
# scipy's tolerance for ties of floating-point statistics (permutation_test).
TIE_RTOL = 100 * np.finfo(np.float64).eps


def is_degenerate(dist):
    """True if all finite values of ``dist`` are equal up to rounding."""
    if dist.size == 0:
        return True
    lo, hi = float(np.min(dist)), float(np.max(dist))
    return hi - lo <= TIE_RTOL * max(abs(lo), abs(hi))


def proportion_below(dist, value):
    """``(#{dist < value} + #{dist <= value}) / (2 B)``: ties count one half.

    The same convention as scipy's ``_percentile_of_score`` (``kind="mean"``).
    """
    return float((np.count_nonzero(dist < value) + np.count_nonzero(dist <= value))
                 / (2 * dist.size))


def acceleration_from_jackknife(jack_deltas, weights=None, strata=None):
    r"""BCa acceleration from leave-one-out differences.

    .. math:: a = \frac{\sum_i w_i d_i^3}{6 (\sum_i w_i d_i^2)^{3/2}},\quad
              d_i = \bar\theta_{(\cdot)} - \theta_{(i)},\quad
              \bar\theta_{(\cdot)} = \sum_i w_i \theta_{(i)} / \sum_i w_i

    (Efron & Tibshirani 1993, eq. 14.15). ``weights`` are cell multiplicities
    in the compressed path: items of one cell have identical leave-one-out
    values, so the weighted cell formula equals the item formula exactly.
    Returns ``nan`` when all leave-one-out values are equal.

    With ``strata`` (the stratum code of every row), the influence values
    are computed within each stratum :math:`h` of :math:`n_h` units, as R's
    ``boot::empinf(type="jack")`` does for a stratified bootstrap:

    .. math:: L_i = (n_h - 1)(\bar\theta_{(h)} - \theta_{(i)}),\quad
              a = \frac{\sum_i w_i L_i^3}{6 (\sum_i w_i L_i^2)^{3/2}}
    """
    theta = np.asarray(jack_deltas, dtype=np.float64)
    w = np.ones_like(theta) if weights is None else np.asarray(weights, dtype=np.float64)
    keep = w > 0
    theta, w = theta[keep], w[keep]
    if theta.size == 0 or not np.all(np.isfinite(theta)):
        return math.nan
    if strata is not None:
        strata = np.asarray(strata)[keep]
        d = np.empty_like(theta)
        for h in np.unique(strata):
            rows = strata == h
            n_h = w[rows].sum()
            d[rows] = (n_h - 1.0) * (np.dot(w[rows], theta[rows]) / n_h - theta[rows])
    else:
        d = np.dot(w, theta) / w.sum() - theta
    den = np.dot(w, d * d)
    if not den > 0:
        return math.nan
    return float(np.dot(w, d * d * d) / (6.0 * den**1.5))


def interval_quantiles(dist, delta, confidence_level, method, acceleration, z0=None):
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
        z0 = _ndtri(proportion_below(dist, delta))
    a = acceleration
    z = _ndtri(alpha)
    return bca_level(z0, z0 + z, a), bca_level(z0, z0 - z, a)


def bca_level(z0, w, a):
    """BCa quantile level for ``w = z0 + z``, held at its limit beyond the pole."""
    den = 1.0 - a * w
    if not den > 0.0:
        if math.isnan(den):
            return math.nan
        return 1.0 if a > 0 else 0.0
    return float(_special().ndtr(z0 + w / den))


def check_interval_args(confidence_level, method):
    if method not in INTERVAL_METHODS:
        raise ValueError(
            f"The 'method' parameter must be one of {INTERVAL_METHODS}. Got {method!r} instead."
        )
    if not (isinstance(confidence_level, (int, float, np.floating))
            and 0.0 < confidence_level < 1.0):
        raise ValueError(
            "The 'confidence_level' parameter must be a float in the open interval (0, 1). "
            f"Got {confidence_level!r} instead."
        )


def quantile_sorted(sorted_dist, q):
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
    if g == 0.0 or lo == hi:  # the same number for finite values; exact for infinite ones
        return lo
    diff = hi - lo
    return lo + diff * g if g < 0.5 else hi - diff * (1.0 - g)


def interval_at(sorted_dist, delta, confidence_level, method, acceleration, z0):
    """The interval from a sorted, non-degenerate distribution (no checks, no warnings).

    The one place where an interval is computed: :func:`bootstrap_interval`
    and the inversion :func:`interval_pvalue` both call it, so a p-value and
    an interval of the same distribution can never disagree.
    """
    if method == "normal":
        return normal_interval(sorted_dist, delta, confidence_level)
    q_low, q_high = interval_quantiles(sorted_dist, delta, confidence_level, method,
                                       acceleration, z0)
    if not (math.isfinite(q_low) and math.isfinite(q_high)):
        return NAN_INTERVAL
    low, high = quantile_sorted(sorted_dist, q_low), quantile_sorted(sorted_dist, q_high)
    if method in ("basic", "studentized"):
        # studentized: ``sorted_dist`` is delta + se * t* (studentized.pseudo_distribution),
        # so 2 delta - q_hi = delta - se t*_(1-alpha/2) and 2 delta - q_lo = delta - se t*_(alpha/2)
        low, high = 2.0 * delta - high, 2.0 * delta - low
    return ConfidenceInterval(float(low), float(high))


def normal_interval(dist, delta, confidence_level):
    r"""Bias-corrected normal bootstrap interval (R ``boot.ci(type="norm")``).

    .. math:: \hat	heta - b \mp z_{1-lpha/2}\, s,\quad
              b = ar	heta^* - \hat	heta,\quad
              s^2 = rac{1}{B - 1}\sum_b (	heta^*_b - ar	heta^*)^2

    (Davison & Hinkley 1997, eq. 5.5; Efron & Tibshirani 1993, eq. 12.8 with
    the bias correction of §10.6). Nested in the level, so the p-value that
    inverts it is :math:`2\,(1 - \Phi(|\hat	heta - b| / s))` up to the
    float bisection. ``nan`` for ``B < 2``.
    """
    dist = np.asarray(dist, dtype=np.float64)
    if dist.size < 2:
        return NAN_INTERVAL
    centre = 2.0 * float(delta) - float(np.mean(dist))  # delta - bias
    merr = float(np.std(dist, ddof=1)) * float(_ndtri(0.5 + confidence_level / 2.0))
    return ConfidenceInterval(centre - merr, centre + merr)


# Wording of the degenerate-interval warnings, by what is bootstrapped.
_DEGENERATE = {
    "difference": (
        "The observed difference is not finite (or no resample is); the confidence "
        "interval is undefined and set to nan.",
        "The BCa acceleration is undefined (all leave-one-out differences are "
        "equal); the BCa interval is set to nan. Use method='percentile'.",
    ),
    "score": (
        "score: the score is not finite; the confidence interval is undefined and set "
        "to nan.",
        "score: the BCa acceleration is undefined (all leave-one-out scores are equal); "
        "the BCa interval is set to nan. Use method='percentile'.",
    ),
}

#: Warning for a bootstrap distribution of the difference that is the point 0.
IDENTICAL_MESSAGE = (
    "Every resampled difference is 0 (identical systems, e.g. the same predictions: the "
    "difference is 0 everywhere); the test carries no information: p = 1 and the "
    "interval is undefined (nan)."
)

#: Warning for a bootstrap distribution of the difference that is one point
#: ``delta != 0``: every resample gives the observed difference.
ONE_WAY_MESSAGE = (
    "Every resampled difference equals the observed delta = {delta:+.6g} != 0: every "
    "item favours the same system by the same amount, the strongest evidence there is. "
    "The interval is the single point [delta, delta] (widened to 0 where the p-value "
    "exceeds 1 - confidence_level) and the p-value is the exact sign test's with all "
    "{d} discordant units going one way (2**(1 - d) two-sided, 2**-d one-sided), the "
    "exact permutation p-value of such data. A point has no width: for accuracy, "
    "McNemar() gives Newcombe's interval of the difference."
)

#: Warnings for one system's score whose bootstrap distribution is one point.
CONSTANT_SCORE_MESSAGES = {
    "exact": (
        "score: every item scored {estimate:g} (the bootstrap distribution is the single "
        "point {estimate:g}); the interval is the exact Clopper-Pearson interval of "
        "{k} successes in n = {n} items instead of a bootstrap interval."
    ),
    "point": (
        "score: every resample gives the same score {estimate:.6g} (e.g. a system that is "
        "right on every item, or every cluster or item has the same value); the interval "
        "is the single point [{estimate:.6g}, {estimate:.6g}], which has no width. For a "
        "0/1 metric of independent unweighted items score() gives the exact "
        "Clopper-Pearson interval instead."
    ),
}


def clopper_pearson(k, n, level=0.95):
    r"""Clopper-Pearson interval of a binomial proportion ``k / n``.

    .. math:: \big[B^{-1}(\tfrac{1-c}{2}; k, n - k + 1),\;
              B^{-1}(\tfrac{1+c}{2}; k + 1, n - k)\big]

    with :math:`B^{-1}` the beta quantile (0 and 1 at the ends): at
    :math:`k = n`, :math:`[((1-c)/2)^{1/n}, 1]`; at :math:`k = 0`,
    :math:`[0, 1 - ((1-c)/2)^{1/n}]`. Exact: it covers the true proportion
    with probability at least :math:`c` for every proportion and ``n``.

    References
    ----------
    Clopper, Pearson (1934). The use of confidence or fiducial limits
    illustrated in the case of the binomial. Biometrika 26(4).
    """
    from scipy.special import betaincinv

    tail = (1.0 - level) / 2.0
    low = 0.0 if k == 0 else float(betaincinv(k, n - k + 1, tail))
    high = 1.0 if k == n else float(betaincinv(k + 1, n - k, 1.0 - tail))
    return ConfidenceInterval(low, high)


def point_interval(delta, atol=0.0):
    """Interval of a degenerate bootstrap distribution of a difference: one rule.

    Every resample gave the observed ``delta``. If ``|delta| <= atol`` (the
    difference is 0 everywhere: identical systems) there is no information:
    ``(nan, nan)``. Otherwise every item favours one system by the same
    amount and the interval is the single point ``(delta, delta)``: every
    percentile, basic or BCa interval of a point mass is that point.
    """
    if not math.isfinite(delta) or abs(delta) <= atol:
        return NAN_INTERVAL
    return ConfidenceInterval(float(delta), float(delta))


def bootstrap_interval(dist, delta, confidence_level, method, acceleration=None,
                        *, warn=True, of="difference", atol=0.0, n_discordant=None,
                        n_trials=None, presorted=False):
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
    1, see :func:`interval_quantiles`; scipy returns a level from the wrong
    tail there).

    ``normal``: :math:`\delta - b \mp z_{1-\alpha/2} s` with the bootstrap
    bias :math:`b` and standard deviation :math:`s` (:func:`normal_interval`,
    R ``boot.ci``'s ``"norm"``). ``studentized`` (bootstrap-t): ``dist`` is
    then the pseudo-distribution :math:`\delta + \widehat{se}\, t^*`
    (:func:`sigtest._engine.studentized.pseudo_distribution`) and the basic
    formula on it gives :math:`(\delta - \widehat{se}\, t^*_{(1-\alpha/2)},
    \delta - \widehat{se}\, t^*_{(\alpha/2)})` (Efron & Tibshirani 1993,
    eq. 12.22).

    A degenerate distribution (all :math:`\delta^*` equal) is a point mass
    at :math:`\delta`, whatever the method, and gives a
    :class:`~sigtest.exceptions.DegenerateDistributionWarning` (attributed to
    the first frame outside sigtest) unless ``warn=False``:

    * ``of="difference"`` (two systems, :func:`point_interval`): ``(nan,
      nan)`` when :math:`|\delta| \le` ``atol`` (identical systems), else
      the point :math:`[\delta, \delta]` (every item favours one system;
      ``n_discordant`` is named in the warning);
    * ``of="score"`` (one system): with ``n_trials`` (every one of
      ``n_trials`` independent items scored 0, or every one 1) the exact
      :func:`clopper_pearson` interval of :math:`k = \delta\,n` successes,
      else the point :math:`[\delta, \delta]`.

    A non-finite ``delta`` or an undefined BCa acceleration of a
    non-degenerate distribution gives ``(nan, nan)`` with that warning.

    ``presorted=True``: ``dist`` is already sorted (``numpy.sort``), e.g.
    for both the interval and :func:`interval_pvalue` of one distribution;
    the result is the same (only the order of ``dist`` is used).
    """
    dist = np.asarray(dist, dtype=np.float64)
    check_interval_args(confidence_level, method)
    not_finite, no_acceleration = _DEGENERATE[of]
    if math.isfinite(delta) and dist.size > 0 and is_degenerate(dist):
        return _degenerate_interval(delta, confidence_level, warn=warn, of=of, atol=atol,
                                    n_discordant=n_discordant, n_trials=n_trials)
    if not math.isfinite(delta) or dist.size == 0:
        if warn:
            warn_external(not_finite, DegenerateDistributionWarning)
        return NAN_INTERVAL
    if method == "bca" and (acceleration is None or not math.isfinite(acceleration)):
        if warn:
            warn_external(no_acceleration, DegenerateDistributionWarning)
        return NAN_INTERVAL
    z0 = _ndtri(proportion_below(dist, delta)) if method == "bca" else None
    return interval_at(dist if presorted else np.sort(dist), delta, float(confidence_level),
                       method, acceleration, z0)


def _degenerate_interval(delta, confidence_level, *, warn, of, atol, n_discordant,
                         n_trials):
    """The interval of a point-mass bootstrap distribution (see :func:`bootstrap_interval`)."""
    if of == "score":
        if n_trials is not None:
            n = int(n_trials)
            k = int(round(float(delta) * n))
            message = CONSTANT_SCORE_MESSAGES["exact"].format(estimate=delta, k=k, n=n)
            ci = clopper_pearson(k, n, float(confidence_level))
        else:
            message = CONSTANT_SCORE_MESSAGES["point"].format(estimate=delta)
            ci = ConfidenceInterval(float(delta), float(delta))
    else:
        ci = point_interval(delta, atol)
        message = (IDENTICAL_MESSAGE if math.isnan(ci.low) else
                   ONE_WAY_MESSAGE.format(delta=delta, d="d" if n_discordant is None
                                          else f"d = {n_discordant}"))
    if warn:
        warn_external(message, DegenerateDistributionWarning)
    return ci


def excludes_zero(ci):
    """Whether an interval excludes 0 (``low > 0`` or ``high < 0``; nan: no)."""
    return bool(ci[0] > 0.0 or ci[1] < 0.0)


#: Sides of :func:`invert_interval`: the alternative hypothesis about the estimand.
SIDES = ("two-sided", "greater", "less")


def _level(bits):
    return float(np.int64(bits).view(np.float64))


_LOWEST = int(np.float64(np.nextafter(0.0, 1.0)).view(np.int64))  # smallest level > 0
_HIGHEST = int(np.float64(np.nextafter(1.0, 0.0)).view(np.int64))  # largest level < 1


def _largest_true(pred, guess=None):
    """Largest float level ``c`` in (0, 1) with ``pred(c)``, for ``pred`` true on an
    initial segment; ``None`` if it is false at the smallest level.

    Bisection on the binary representation of the float ``c`` (positive
    floats are ordered like their bit patterns), down to adjacent floats: at
    most 64 calls of ``pred``. With ``guess`` (a level near the answer) the
    same bisection calls ``pred`` only at the midpoints that lie within
    ``_MARGIN`` (2**20) floats of the largest level known true and the
    smallest known false or between them, after galloping from ``guess`` to
    bracket the answer (:func:`_bracket`): for ``pred`` true on an initial
    segment (up to rounding within a few floats of its transition) the
    other midpoints' answers are known, so the result is the same, in about
    25 calls instead of 62 when the guess is close.
    """
    lo, hi = _LOWEST, _HIGHEST
    if not pred(_level(lo)):
        return None
    if pred(_level(hi)):
        return _level(hi)
    true_at, false_at = lo, hi  # pred is true at true_at, false at false_at
    if guess is not None and math.isfinite(guess) and 0.0 < guess < 1.0:
        true_at, false_at = _bracket(pred, _bits(guess), true_at, false_at)
    while hi - lo > 1:  # invariant: pred(lo) and not pred(hi)
        mid = (lo + hi) // 2
        if mid <= true_at - _MARGIN:
            holds = True
        elif mid >= false_at + _MARGIN:
            holds = False
        else:
            holds = bool(pred(_level(mid)))
            if holds:
                true_at = mid
            else:
                false_at = mid
        if holds:
            lo = mid
        else:
            hi = mid
    return _level(lo)


#: Floats around the levels known true / false within which :func:`_largest_true`
#: still evaluates every midpoint of the bisection. Rounding in the interval's
#: levels and quantiles can make ``pred`` flip more than once within a few floats
#: of its transition (3 floats seen in compare's BCa p-values); evaluating every
#: midpoint within 2**20 floats of a known level keeps the bisection's own answer
#: there, and infers only answers far outside that noise.
_MARGIN = 1 << 20


def _bits(level):
    return int(np.float64(level).view(np.int64))


def _bracket(pred, start, true_at, false_at):
    """Levels (as bits) where ``pred`` is true and false, galloping from ``start``.

    Steps of 64 floats, growing 8-fold, away from ``start`` until ``pred``
    changes (or the known bounds ``true_at``, ``false_at`` are met).
    """
    start = min(max(start, true_at + 1), false_at - 1)
    if start <= true_at:
        return true_at, false_at
    step = 64
    if pred(_level(start)):
        true_at = start
        while true_at + step < false_at:
            if not pred(_level(true_at + step)):
                return true_at, true_at + step
            true_at += step
            step *= 8
    else:
        false_at = start
        while false_at - step > true_at:
            if pred(_level(false_at - step)):
                return false_at - step, false_at
            false_at -= step
            step *= 8
    return true_at, false_at


def _guess_level(sorted_dist, method, acceleration, z0, t0, side):
    """An approximate answer of :func:`_largest_true` for :func:`interval_pvalue`, or None.

    The level ``c`` at which an endpoint of the BCa or percentile interval
    reaches ``t0``: ``t0`` sits at the interpolated quantile level ``q0`` of
    the distribution, and the endpoint's level ``Phi(z0 + w / (1 - a w))``,
    ``w = z0 -/+ z_{(1-c)/2}``, is solved for ``c``. Only a starting point:
    the search checks every answer it uses.
    """
    if method not in ("bca", "percentile") or sorted_dist.shape[0] < 2:
        return None
    n = sorted_dist.shape[0]
    k = int(np.searchsorted(sorted_dist, t0))
    if k == 0 or k >= n:
        return None
    x0, x1 = float(sorted_dist[k - 1]), float(sorted_dist[k])
    g = (t0 - x0) / (x1 - x0) if x1 > x0 else 0.0
    q0 = (k - 1 + g) / (n - 1)
    with np.errstate(all="ignore"):
        if method == "bca":
            u = float(_ndtri(q0)) - z0
            w = u / (1.0 + acceleration * u)
            ndtr = _special().ndtr
            lower, upper = 1.0 - 2.0 * float(ndtr(w - z0)), 1.0 - 2.0 * float(ndtr(z0 - w))
        else:
            lower, upper = 1.0 - 2.0 * q0, 2.0 * q0 - 1.0
    candidates = {"two-sided": (lower, upper), "greater": (lower,), "less": (upper,)}.get(side, ())
    valid = [c for c in candidates if math.isfinite(c) and 0.0 < c < 1.0]
    return max(valid) if valid else None


def invert_interval(interval_fn, null_value=0.0, side="two-sided", *, guess=None):
    r"""p-value of the null value ``null_value`` by inverting a family of intervals.

    ``interval_fn(c)`` returns the two-sided interval ``(low, high)`` at the
    confidence level ``c``; the intervals must be nested (grow with
    :math:`c`). With :math:`\theta_0` = ``null_value``:

    * ``"two-sided"`` (:math:`H_0: \theta = \theta_0`): :math:`p = 1 - c^*`
      with :math:`c^*` the largest level whose interval excludes
      :math:`\theta_0` (``low > θ0`` or ``high < θ0``); 1 if none does.
    * ``"greater"`` (:math:`H_0: \theta \le \theta_0`): the one-sided lower
      bound at level :math:`\gamma \ge 1/2` is the lower endpoint of the
      two-sided interval at :math:`2\gamma - 1`, and at :math:`\gamma < 1/2`
      the upper endpoint at :math:`1 - 2\gamma`. :math:`p = 1 - \gamma^*`,
      :math:`\gamma^*` the largest level whose lower bound exceeds
      :math:`\theta_0`: :math:`p = (1 - c^*)/2` if some interval lies
      above :math:`\theta_0` (:math:`c^*` the largest such level), else
      :math:`p = (1 + c^{**})/2` with :math:`c^{**}` the smallest level whose
      upper endpoint exceeds :math:`\theta_0` (1 if none does).
    * ``"less"`` (:math:`H_0: \theta \ge \theta_0`): the mirror image.

    The levels are found by bisection on the bits of the float :math:`c`
    (see :func:`_largest_true`), so for every float level :math:`c \in [1/2,
    1)`::

        two-sided:  (p <= 1 - c)       == (interval at c excludes θ0)
        greater:    (p <= (1 - c) / 2) == (low at c > θ0)
        less:       (p <= (1 - c) / 2) == (high at c < θ0)

    i.e. a one-sided test at level :math:`\alpha` rejects exactly when the
    two-sided :math:`1 - 2\alpha` interval lies beyond :math:`\theta_0`
    (the basis of TOST: Schuirmann 1987). When every level excludes
    :math:`\theta_0` the p-value is that of the largest level below 1
    (:math:`2^{-53}` two-sided, :math:`2^{-54}` one-sided); callers floor it.

    ``guess``: a level near :math:`c^*` (or None); the same p-value with
    fewer calls of ``interval_fn`` (see :func:`_largest_true`).
    """
    if side not in SIDES:
        raise ValueError(f"The 'side' parameter must be one of {SIDES}. Got {side!r} instead.")
    t0 = float(null_value)
    if side == "two-sided":
        c = _largest_true(lambda c: (lambda ci: ci[0] > t0 or ci[1] < t0)(interval_fn(c)),
                          guess)
        return 1.0 if c is None else float(1.0 - c)
    k = 0 if side == "greater" else 1  # the endpoint that must lie beyond t0

    def beyond(value):
        return value > t0 if side == "greater" else value < t0

    c = _largest_true(lambda c: beyond(interval_fn(c)[k]), guess)
    if c is not None:
        return float((1.0 - c) / 2.0)
    # no interval lies beyond t0: the other endpoint, smallest level beyond it
    other = 1 - k
    if not beyond(interval_fn(_level(_HIGHEST))[other]):
        return 1.0
    c_not = _largest_true(lambda c: not beyond(interval_fn(c)[other]))
    if c_not is None:  # already beyond at the smallest level
        return 0.5
    c_first = float(np.nextafter(c_not, 1.0))
    return float(min(1.0, (1.0 + c_first) / 2.0))


def interval_pvalue(dist, delta, method, acceleration=None, *, null_value=0.0,
                    side="two-sided", presorted=False):
    r"""p-value of ``null_value`` by inverting the bootstrap interval (two- or one-sided).

    :func:`invert_interval` applied to the very same computation as
    :func:`bootstrap_interval` (same resamples, tie rule and interpolated
    quantiles). Two-sided at 0 (the default): :math:`p = 1 - c^*` with
    :math:`c^*` the largest confidence level whose interval excludes 0. The
    interval grows with :math:`c` (for BCa because the levels are held at
    their limit beyond the pole :math:`1 - a(z_0 + z) \le 0`), so "excludes
    0" holds for every :math:`c \le c^*` and for no :math:`c > c^*`;
    :math:`c^*` is found by bisection on the binary representation of the
    float :math:`c`, down to adjacent floats (at most 64 interval
    evaluations). Hence, for every float level :math:`c \in [1/2, 1)`
    (where :math:`1 - c` is exact)::

        (p <= 1 - c) == (interval at c excludes 0)

    With ``null_value`` :math:`\theta_0` and ``side="greater"`` the p-value
    of :math:`H_0: \delta \le \theta_0` (``"less"``: :math:`H_0: \delta
    \ge \theta_0`), with ``(p <= (1 - c)/2) == (low at c > θ0)``: the
    non-inferiority and equivalence (TOST) tests of
    :class:`~sigtest.BCaInterval` use it at :math:`\theta_0 = \mp`
    ``margin``.

    Returns 1 when no level excludes :math:`\theta_0` (two-sided) and
    :math:`2^{-53}` (one float step below 1; :math:`2^{-54}` one-sided) when
    every level does; the caller floors it at :math:`1/(B+1)`. A degenerate
    distribution is the point mass at ``delta`` (every interval is
    :math:`[\delta, \delta]`, so identical systems, :math:`\delta = 0`, give
    1); the tests replace that case by
    :func:`~sigtest._engine.small_sample.point_mass_pvalue`. ``nan`` for a
    non-finite ``delta`` or an undefined BCa acceleration. ``presorted``: as
    in :func:`bootstrap_interval`.
    """
    dist = np.asarray(dist, dtype=np.float64)
    if not math.isfinite(delta) or dist.size == 0:
        return math.nan
    if is_degenerate(dist):
        return invert_interval(lambda c: (delta, delta), null_value, side)
    if method == "bca" and (acceleration is None or not math.isfinite(acceleration)):
        return math.nan
    z0 = _ndtri(proportion_below(dist, delta)) if method == "bca" else None
    sorted_dist = dist if presorted else np.sort(dist)
    return invert_interval(
        lambda c: interval_at(sorted_dist, delta, c, method, acceleration, z0),
        null_value, side,
        guess=_guess_level(sorted_dist, method, acceleration, z0, float(null_value), side))


def jackknife_acceleration(paired):
    """BCa acceleration of ``delta`` from the closed-form jackknife.

    Leave-one-out values come from ``jackknife_values`` (total minus row of
    the sufficient statistics, per cell with multiplicities in the compressed
    path); metrics without statistics fall back to N calls of ``score_func``.
    """
    # the resampling drivers load the numba kernels: imported on first use (an import of the engine stays light)
    from sigtest._engine.resampling import jackknife_values

    theta_a, theta_b, weights = jackknife_values(paired)
    return acceleration_from_jackknife(np.asarray(theta_b) - np.asarray(theta_a), weights,
                                       jackknife_strata(paired))


def jackknife_strata(paired):
    """Stratum code of every row of :func:`jackknife_values` (``None``: no strata).

    Fast path: ``paired.row_strata``; slow path: the stratum of every item,
    or of every cluster when clustered.
    """
    if not paired.stratified:
        return None
    if paired.has_statistics:
        return paired.row_strata
    if paired.item_groups is None:
        return paired.item_strata
    out = np.empty(int(paired.n_groups), dtype=np.int64)
    out[paired.item_groups] = paired.item_strata
    return out
