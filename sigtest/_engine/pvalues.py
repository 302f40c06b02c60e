"""p-values from resampled distributions: permutation and Berg-Kirkpatrick counting.

Ties of a resampled difference with the observed one count, with scipy's
tolerance ``100 * eps`` relative to the threshold plus :func:`tie_tolerance`
(the rounding of the scores themselves).

Tiny p-values: a p-value is never 0. The classical tests compute a p-value
below the normal floating-point range (:data:`LOG_SPACE_BELOW`, about
2.2e-308) in log space (:func:`tiny_pvalue` with :func:`log10_binomial_half_tail`,
:func:`log10_normal_pvalue`, :func:`log10_t_pvalue`), return
``max(10**log10_p, SMALLEST_PVALUE)`` and record ``log10_p`` (the result's
``log10_pvalue``).
"""

from __future__ import annotations

import math
import sys

import numpy as np

from sigtest.exceptions import DegenerateDistributionWarning
from sigtest.utils import warn_external
from sigtest._engine.intervals import IDENTICAL_MESSAGE, ONE_WAY_MESSAGE, is_degenerate, point_interval
from sigtest._engine.small_sample import SMALLEST_PVALUE

__all__ = [
    "LOG_SPACE_BELOW",
    "SMALLEST_PVALUE",
    "TIE_RTOL",
    "as_extreme",
    "berg_kirkpatrick_pvalue",
    "log10_binomial_half_tail",
    "log10_normal_pvalue",
    "log10_t_pvalue",
    "null_pvalue",
    "permutation_pvalue",
    "tie_tolerance",
    "tiny_pvalue",
    "warn_degenerate",
    "warn_point_mass",
]

#: Below the smallest normal double (about 2.2e-308) a p-value computed in
#: linear space has lost its precision (or is 0): the tests recompute it in log space.
LOG_SPACE_BELOW = sys.float_info.min
_LN10 = math.log(10.0)


def tiny_pvalue(pvalue, log10_fn):
    r"""``(p, log10 p)`` of a p-value, recomputed in log space when it underflows.

    ``pvalue`` is the value computed in linear space (e.g. by scipy). In
    the normal range (:math:`p \ge` :data:`LOG_SPACE_BELOW`) it is kept
    bit for bit and :math:`\log_{10} p` is ``math.log10(p)``. Below it
    (subnormal or 0) ``log10_fn()`` gives :math:`\log_{10} p` computed in
    log space and the p-value is :math:`\max(10^{\log_{10} p},`
    :data:`SMALLEST_PVALUE` :math:`)`: the correct tiny value while it is
    representable, else the smallest positive double, never 0. ``nan``
    stays ``(nan, nan)``; a ``log10_fn`` that cannot tell (``nan``) gives
    ``(max(p, SMALLEST_PVALUE), nan)``.
    """
    pvalue = float(pvalue)
    if math.isnan(pvalue):
        return math.nan, math.nan
    if pvalue >= LOG_SPACE_BELOW:
        return pvalue, math.log10(pvalue)
    log10_p = float(log10_fn())
    if math.isnan(log10_p):
        return max(pvalue, SMALLEST_PVALUE), math.nan
    return max(10.0 ** log10_p, SMALLEST_PVALUE), log10_p


def log10_binomial_half_tail(k, n, half_at_k=False):
    r""":math:`\log_{10} P(X \le k)` for :math:`X \sim \mathrm{Bin}(n, 1/2)`, in log space.

    .. math:: \log P(X \le k) = \log \sum_{j=0}^{k} \binom{n}{j} - n \log 2,

    the sum by ``logsumexp`` of :math:`\log\binom{n}{j}` (``gammaln``), so
    it does not underflow (:math:`P(X \le 0) = 2^{-n}` at any n). With
    ``half_at_k`` the term :math:`j = k` counts one half (the mid-p tail
    :math:`P(X < k) + \tfrac12 P(X = k)`). ``k < 0`` gives ``-inf``.
    """
    from scipy.special import gammaln, logsumexp

    k, n = int(k), int(n)
    if k < 0:
        return -math.inf
    j = np.arange(min(k, n) + 1, dtype=np.float64)
    terms = gammaln(n + 1.0) - gammaln(j + 1.0) - gammaln(n - j + 1.0)
    weights = np.ones_like(terms)
    if half_at_k and k <= n:
        weights[-1] = 0.5
    return float((logsumexp(terms, b=weights) - n * math.log(2.0)) / _LN10)


def log10_normal_pvalue(z, alternative):
    r""":math:`\log_{10}` of the normal p-value of the deviate ``z``, in log space.

    ``"greater"``: :math:`P(Z \ge z)`; ``"less"``: :math:`P(Z \le z)`;
    ``"two-sided"``: :math:`2 P(Z \ge |z|)` (also the :math:`\chi^2_1`
    survival function at :math:`z^2`), by ``scipy.special.log_ndtr``.
    """
    from scipy.special import log_ndtr

    if alternative == "greater":
        return float(log_ndtr(-z) / _LN10)
    if alternative == "less":
        return float(log_ndtr(z) / _LN10)
    return float((math.log(2.0) + log_ndtr(-abs(z))) / _LN10)


def _log_student_sf(t, df):
    r""":math:`\log P(T_{df} \ge t)` for :math:`t > 0`, where scipy's ``logsf`` underflows.

    :math:`P(T \ge t) = \tfrac12 I_x(a, b)`, :math:`x = df/(df + t^2)`,
    :math:`a = df/2`, :math:`b = 1/2`, with the regularized incomplete beta
    function in log space from its continued fraction (modified Lentz;
    Abramowitz & Stegun 26.5.8; it converges fast for :math:`x <
    (a + 1)/(a + b + 2)`, i.e. :math:`t^2 > 3` or so, which holds wherever
    the p-value underflows):

    .. math:: \log I_x(a, b) = a \log x + b \log(1 - x) - \log a
              - \log B(a, b) + \log \mathrm{CF}.
    """
    from scipy.special import betaln

    a, b = df / 2.0, 0.5
    x = df / (df + t * t)
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 100_000):
        for num in (m * (b - m) * x / ((a + 2 * m - 1.0) * (a + 2 * m)),
                    -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1.0))):
            d = 1.0 + num * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + num / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-15:
            break
    log_i = (a * math.log(x) + b * math.log1p(-x) - math.log(a) - float(betaln(a, b))
             + math.log(h))
    return log_i - math.log(2.0)


def log10_t_pvalue(t, df, alternative):
    r""":math:`\log_{10}` of the p-value of Student's ``t`` on ``df`` degrees of freedom.

    As :func:`log10_normal_pvalue` with :func:`scipy.stats.t.logsf`
    (``"two-sided"``: :math:`\log 2 + \log P(T \ge |t|)`); where that
    underflows to ``-inf`` (e.g. t = 1199 on 1199 degrees of freedom), from
    the continued fraction of the incomplete beta function
    (:func:`_log_student_sf`).
    """
    from scipy.stats import t as student

    def log_sf(x):
        value = float(student.logsf(x, df))
        return value if math.isfinite(value) or x <= 0 else _log_student_sf(x, df)

    if alternative == "greater":
        return log_sf(t) / _LN10
    if alternative == "less":
        return log_sf(-t) / _LN10
    return (math.log(2.0) + log_sf(abs(t))) / _LN10


# scipy's tolerance for ties of floating-point statistics (permutation_test).
TIE_RTOL = 100 * np.finfo(np.float64).eps


def tie_tolerance(paired):
    """Absolute tolerance for ties of resampled differences with the observed one.

    ``paired`` is anything with ``score_a`` and ``score_b`` (a
    :class:`~sigtest.PairedData` or a :class:`~sigtest.SignificanceResult`).

    ``100 * eps * (|score_a| + |score_b|)``: a difference of two scores is
    exact only up to the rounding of the scores themselves, which can exceed
    scipy's relative tolerance ``100 * eps * |delta|`` when ``delta`` is
    small next to the scores (one differing item among N = 3000: delta =
    1/3000, scores ~0.7). Genuine differences between resampled values are
    far larger (at least 1/N for counting metrics).
    """
    scale = abs(float(paired.score_a)) + abs(float(paired.score_b))
    return TIE_RTOL * scale if math.isfinite(scale) else 0.0


def warn_degenerate(what):
    """Emit the standard :class:`DegenerateDistributionWarning` at the user's call.

    The warning is attributed to the first frame outside sigtest
    (:func:`sigtest.utils.warn_external`), whatever the call path.
    """
    warn_external(what, DegenerateDistributionWarning)


def warn_point_mass(delta, n_discordant, atol=0.0):
    """Warn that every resampled difference equals the observed ``delta``.

    The wording of :func:`~sigtest._engine.intervals.bootstrap_interval` for
    a point-mass distribution of a difference: identical systems
    (``|delta| <= atol``: no information, ``p = 1``) or every item favouring
    one system (the exact sign-test p-value, the point interval; see
    :func:`~sigtest._engine.small_sample.point_mass_pvalue`).
    """
    if not math.isfinite(delta):
        return
    if math.isnan(point_interval(delta, atol).low):
        warn_degenerate(IDENTICAL_MESSAGE)
    else:
        warn_degenerate(ONE_WAY_MESSAGE.format(delta=delta, d=f"d = {int(n_discordant)}"))


def berg_kirkpatrick_pvalue(t_star, t, alternative, *, atol=0.0):
    r"""p-value of the paired bootstrap test from oriented differences.

    ``t`` is the observed oriented difference (positive: B better) and
    ``t_star`` the :math:`B` bootstrap ones. With :math:`k` the number of
    bootstrap differences at least as extreme as the null-centred threshold,

    .. math:: p = \frac{k + 1}{B + 1},

    which counts the observed sample among the :math:`B + 1` and is never 0
    (Davison & Hinkley 1997, eq. 4.11; Phipson & Smyth 2010):

    * ``"greater"`` (Berg-Kirkpatrick et al. 2012; Jurafsky & Martin eq. 4.22):
      :math:`k = \#\{t^* \ge 2t\}` if :math:`t > 0`, else :math:`p = 1`
      (no evidence for B).
    * ``"less"``: the mirror image, :math:`k = \#\{t^* \le 2t\}` if
      :math:`t < 0`, else 1.
    * ``"two-sided"``: :math:`k = \#\{|t^* - t| \ge |t|\}`, the centred
      (shift) bootstrap test: :math:`t^* - t` estimates the null distribution
      of :math:`t`, exactly as in the one-sided rule (:math:`t^* \ge 2t \iff
      t^* - t \ge t`), counted in both tails. It is symmetric in A and B,
      never exceeds 1, is at least the one-sided p on the observed side, and
      equals 1 when :math:`t = 0`.

    Ties count, with scipy's tolerance :math:`100\,\mathrm{eps}` relative to
    the threshold plus ``atol``: a difference of two scores carries the
    rounding error of the *scores* (e.g. 0.7083 - 0.7080 at N = 3000), so the
    tests pass ``atol = 100 eps (|score_a| + |score_b|)`` (:func:`tie_tolerance`).
    ``nan`` if ``t`` is not finite.

    References
    ----------
    Davison, Hinkley (1997). Bootstrap Methods and their Application, eq. 4.11.
    Phipson, Smyth (2010). Permutation p-values should never be zero. SAGMB 9(1).
    """
    t_star = np.asarray(t_star, dtype=np.float64)
    if not math.isfinite(t) or t_star.size == 0:
        return math.nan
    if alternative == "greater":
        if t <= 0:
            return 1.0
        thr = 2.0 * t
        k = np.count_nonzero(t_star >= thr - TIE_RTOL * abs(thr) - atol)
    elif alternative == "less":
        if t >= 0:
            return 1.0
        thr = 2.0 * t
        k = np.count_nonzero(t_star <= thr + TIE_RTOL * abs(thr) + atol)
    else:
        dev = np.abs(t_star - t)
        k = np.count_nonzero(dev >= abs(t) - TIE_RTOL * abs(t) - atol)
    return float(min(1.0, (k + 1) / (t_star.size + 1)))


def permutation_pvalue(t_star, t, alternative, weights=None, *, atol=0.0, mid_p=False):
    r"""p-value of the paired permutation test from oriented differences.

    Counts the permuted differences more extreme than the observed ``t``
    (positive: B better) and those as extreme (ties, with scipy's tolerance
    :math:`100\,\mathrm{eps}\,|t|` plus ``atol``, the rounding of the
    scores, see :func:`tie_tolerance`).
    "As extreme" is :math:`|t^*| \ge |t|` for ``"two-sided"``,
    :math:`t^* \ge t` for ``"greater"`` and :math:`t^* \le t` for ``"less"``.

    * Monte Carlo (``weights is None``): :math:`p = (c + 1)/(B + 1)` with
      :math:`c` the permutations at least as extreme, a valid p-value (the
      observed assignment counts among the B + 1; Phipson & Smyth 2010).
      Mid-p: :math:`p = (c_> + (c_= + 1)/2) / (B + 1)`, the same count in
      which every tie, the observed assignment included, counts one half.
    * Exact enumeration: :math:`p = P(\text{as extreme}) = \sum_k w_k
      1(\text{pattern } k \text{ as extreme})` with the pattern
      probabilities :math:`w_k`. Mid-p (Lancaster 1961):
      :math:`p = P(\text{more extreme}) + \tfrac12 P(\text{as extreme, tied})`.
      The observed pattern is as extreme as itself, so :math:`p > 0`: when
      the weights of every pattern as extreme underflow (e.g. 2**-1200),
      the p-value is :data:`SMALLEST_PVALUE`, the smallest positive double
      (:class:`~sigtest.PairedPermutation` then recomputes it in log space,
      :func:`~sigtest._engine.resampling.exact_log.exact_permutation_log10_pvalue`,
      for the result's ``log10_pvalue``).

    The mid-p value is not conservative: its size is close to the nominal
    level on average but may exceed it at some levels and sample sizes
    (measured in ``docs/which_test.md``). ``nan`` if ``t`` is not finite.

    References
    ----------
    Lancaster (1961). Significance tests in discrete distributions. JASA 56.
    Phipson, Smyth (2010). Permutation p-values should never be zero. SAGMB 9(1).
    """
    t_star = np.asarray(t_star, dtype=np.float64)
    if not math.isfinite(t) or t_star.size == 0:
        return math.nan
    hit, more = as_extreme(t_star, t, alternative, atol)
    if weights is None:
        if not mid_p:
            return float((np.count_nonzero(hit) + 1) / (t_star.size + 1))
        n_more = np.count_nonzero(more)
        n_tie = np.count_nonzero(hit) - n_more
        return float((n_more + (n_tie + 1) / 2) / (t_star.size + 1))
    w = np.asarray(weights, dtype=np.float64)
    if not mid_p:
        value = math.fsum(w[hit])
    else:
        value = math.fsum(w[more]) + 0.5 * math.fsum(w[hit & ~more])
    # the observed pattern is as extreme as itself, so the true p is positive; when
    # the weights of every hit underflowed, the smallest positive double
    return float(min(1.0, max(SMALLEST_PVALUE, value)))


def as_extreme(t_star, t, alternative, atol=0.0):
    r"""Which permuted differences are as extreme as ``t``, and which more extreme.

    The rule of :func:`permutation_pvalue`: ties within
    :math:`100\,\mathrm{eps}\,|t|` plus ``atol``; ``"two-sided"`` compares
    :math:`|t^*|` with :math:`|t|`.

    Returns
    -------
    hit, more : ndarray of bool
        :math:`t^*` as extreme as :math:`t` (ties included), and more extreme.
    """
    tol = TIE_RTOL * abs(t) + atol
    if alternative == "two-sided":
        return np.abs(t_star) >= abs(t) - tol, np.abs(t_star) > abs(t) + tol
    if alternative == "greater":
        return t_star >= t - tol, t_star > t + tol
    return t_star <= t + tol, t_star < t - tol


def null_pvalue(data, null_distribution, alternative, weights=None, *, mid_p=False):
    """p-value of the observed oriented difference from a RAW null distribution.

    The rule the base class :class:`~sigtest.SignificanceTest` applies when a
    test's :meth:`~sigtest.SignificanceTest.evaluate` returns a null
    distribution without a p-value: :func:`permutation_pvalue` on the
    oriented values ``data.orient(null_distribution)`` against
    ``data.statistic``, ties within :func:`tie_tolerance`. A single-point
    distribution carries no information: ``p = 1`` with a
    :class:`~sigtest.exceptions.DegenerateDistributionWarning`.

    Parameters
    ----------
    data : PairedData
    null_distribution : ndarray of shape (B,)
        Raw differences ``score_b* - score_a*``.
    alternative : {"two-sided", "greater", "less"}
    weights : ndarray of shape (B,), optional
        Exact probabilities of the entries.
    mid_p : bool, default=False

    Returns
    -------
    float
    """
    t = data.statistic
    if is_degenerate(null_distribution):
        warn_degenerate(
            "The permutation (null) distribution is a single point (e.g. the systems "
            "make identical predictions); the test carries no information and p = 1."
        )
        return 1.0 if math.isfinite(t) else math.nan
    return permutation_pvalue(data.orient(null_distribution), t, alternative, weights,
                              atol=tie_tolerance(data), mid_p=mid_p)
