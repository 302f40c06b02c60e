"""p-values from resampled distributions: permutation and Berg-Kirkpatrick counting.

Ties of a resampled difference with the observed one count, with scipy's
tolerance ``100 * eps`` relative to the threshold plus :func:`tie_tolerance`
(the rounding of the scores themselves).
"""

from __future__ import annotations

import math

import numpy as np

from ..exceptions import DegenerateDistributionWarning
from ..utils import warn_external
from .intervals import IDENTICAL_MESSAGE, ONE_WAY_MESSAGE, is_degenerate, point_interval

__all__ = [
    "TIE_RTOL",
    "berg_kirkpatrick_pvalue",
    "null_pvalue",
    "permutation_pvalue",
    "tie_tolerance",
    "warn_degenerate",
    "warn_point_mass",
]

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
    tol = TIE_RTOL * abs(t) + atol
    if alternative == "two-sided":
        hit = np.abs(t_star) >= abs(t) - tol
        more = np.abs(t_star) > abs(t) + tol
    elif alternative == "greater":
        hit = t_star >= t - tol
        more = t_star > t + tol
    else:
        hit = t_star <= t + tol
        more = t_star < t - tol
    if weights is None:
        if not mid_p:
            return float((np.count_nonzero(hit) + 1) / (t_star.size + 1))
        n_more = np.count_nonzero(more)
        n_tie = np.count_nonzero(hit) - n_more
        return float((n_more + (n_tie + 1) / 2) / (t_star.size + 1))
    w = np.asarray(weights, dtype=np.float64)
    if not mid_p:
        return float(min(1.0, max(0.0, math.fsum(w[hit]))))
    value = math.fsum(w[more]) + 0.5 * math.fsum(w[hit & ~more])
    return float(min(1.0, max(0.0, value)))


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
