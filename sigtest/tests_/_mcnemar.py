"""McNemar's test of two paired accuracies (exact, mid-p, chi-square) and Newcombe's square-and-add interval."""

from __future__ import annotations

import math
from numbers import Real

import numpy as np

from sigtest._results import TestOutcome
from sigtest.utils import renamed_keywords
from sigtest.utils._param_validation import lazy
from sigtest.tests_._base import SignificanceTest
from sigtest.tests_._margins import (
    _ALTERNATIVES_MARGIN,
    MARGIN_ALTERNATIVES,
    MARGIN_CONSTRAINT,
    _to_raw,
    margin_bounds,
    margin_from_intervals,
    margin_location_test,
    result_margin,
)
from sigtest.tests_._sign import binomial_half_pvalue, frequency_weights, warn_outside
from sigtest._engine.pvalues import log10_normal_pvalue, tiny_pvalue

__all__ = ["McNemar"]


def mcnemar_pvalue(n_better, n_worse, method="exact", continuity=True,
                   alternative="two-sided"):
    r"""p-value of McNemar's test from the two discordant counts.

    ``n_better``: items where B is right and A wrong (B better, oriented);
    ``n_worse``: A right and B wrong. With :math:`d = n_+ + n_-` and
    :math:`X \sim \mathrm{Bin}(d, 1/2)`:

    * ``"exact"``: the exact sign test, :func:`scipy.stats.binomtest`
      ``(n_+, d, 1/2)``.
    * ``"mid-p"`` (Lancaster 1961; Fagerland et al. 2013): one-sided
      :math:`P(X > n_+) + \tfrac12 P(X = n_+)` (``"greater"``), and
      two-sided :math:`2\,[P(X \le m) - \tfrac12 P(X = m)]`,
      :math:`m = \min(n_+, n_-)`.
    * ``"chi2"``: :math:`\chi^2 = (|n_+ - n_-| - c)^2 / d` on 1 degree of
      freedom, :math:`c = 1` with ``continuity`` (Edwards 1948) else 0, as
      ``statsmodels.stats.contingency_tables.mcnemar(exact=False)``;
      one-sided, the normal deviate :math:`z = (n_+ - n_- \mp c)/\sqrt d`
      (:math:`-c` for ``"greater"``, :math:`+c` for ``"less"``).

    ``d = 0`` gives 1. Returns ``(p, log10 p)``: a p-value below the
    normal double range (about 2.2e-308, e.g. 1200 discordant items all
    favouring B) is recomputed in log space
    (:func:`~sigtest._engine.pvalues.tiny_pvalue`; the binomial tails by
    ``logsumexp``, the normal ones by ``log_ndtr``) and is never 0.
    """
    n_better, n_worse = int(n_better), int(n_worse)
    d = n_better + n_worse
    if d == 0:
        return 1.0, 0.0
    if method in ("exact", "mid-p"):
        return binomial_half_pvalue(n_better, n_worse, alternative, mid_p=method == "mid-p")
    c = 1.0 if continuity else 0.0
    from scipy.special import ndtr

    if alternative == "greater":
        z = (n_better - n_worse - c) / math.sqrt(d)
        value = ndtr(-z)
    elif alternative == "less":
        z = (n_better - n_worse + c) / math.sqrt(d)
        value = ndtr(z)
    else:
        from scipy.stats import chi2

        z = (abs(n_better - n_worse) - c) / math.sqrt(d)
        value = chi2.sf((abs(n_better - n_worse) - c) ** 2 / d, 1)
    return tiny_pvalue(value, lambda: log10_normal_pvalue(z, alternative))


def durkalski_pvalue(total, sum_squares, alternative="two-sided"):
    r"""p-value of the clustered McNemar test of Durkalski et al. (2003).

    With :math:`b_k` (B right, A wrong) and :math:`c_k` (A right, B wrong)
    the discordant counts of cluster :math:`k`, ``total`` is
    :math:`\sum_k (b_k - c_k)` and ``sum_squares`` is
    :math:`\sum_k (b_k - c_k)^2`. Under the null hypothesis (equal
    accuracies, clusters independent)

    .. math:: X^2 = \frac{\bigl(\sum_k (b_k - c_k)\bigr)^2}{\sum_k (b_k - c_k)^2}
              \sim \chi^2_1 \ \text{asymptotically},

    two-sided; one-sided with the signed root :math:`z = \sum_k (b_k - c_k) /
    \sqrt{\sum_k (b_k - c_k)^2}` as a standard normal deviate
    (``"greater"``: :math:`P(Z \ge z)`). With clusters of one item it is
    McNemar's chi-square without correction. ``sum_squares = 0`` (no
    discordant cluster) gives 1.

    Returns ``(pvalue, X2, z, log10_pvalue)``; a p-value below the normal
    double range is recomputed in log space and never 0, as in
    :func:`mcnemar_pvalue`.
    """
    total, sum_squares = float(total), float(sum_squares)
    if sum_squares <= 0.0:
        return 1.0, math.nan, math.nan, 0.0
    from scipy.special import ndtr

    z = total / math.sqrt(sum_squares)
    if alternative == "greater":
        p = float(ndtr(-z))
    elif alternative == "less":
        p = float(ndtr(z))
    else:
        from scipy.stats import chi2

        p = float(chi2.sf(z * z, 1))
    p, log10_p = tiny_pvalue(min(1.0, p), lambda: log10_normal_pvalue(z, alternative))
    return p, z * z, z, log10_p


#: Below this many items, McNemar's non-inferiority and equivalence tests use
#: the exact conditional test of :func:`conditional_margin_test`, valid at every
#: nuisance value, instead of inverting Newcombe's asymptotic interval.
MARGIN_EXACT_BELOW = 50


def conditional_margin_test(n_better, n_worse, alternative, margin, confidence_level):
    r"""Exact conditional non-inferiority / equivalence test of paired accuracies, and its interval.

    Oriented counts: :math:`n_+` discordant items where B is right and A
    wrong, :math:`n_-` the reverse, :math:`d = n_+ + n_-`. With
    :math:`q_\pm` their probabilities, :math:`\theta = q_+ - q_-` and
    :math:`\pi = q_+ / (q_+ + q_-)`, given :math:`d` the count
    :math:`n_+ \sim \mathrm{Bin}(d, \pi)`, and
    :math:`\theta = (2\pi - 1)(q_+ + q_-)`. Under :math:`H_0: \theta \le
    m_L` (B worse by :math:`|m_L|` or more; :math:`(m_L, m_U)` the margins
    of :func:`~sigtest.tests_._base.margin_bounds`, :math:`(-m, m)` for a
    scalar ``margin``, :math:`m_L < 0 < m_U`), :math:`2\pi - 1 \le m_L /
    (q_+ + q_-) \le m_L`, so :math:`\pi \le \pi_L^0 = (1 + m_L)/2`
    whatever the discordance rate (the nuisance parameter), and

    .. math:: p_{\text{lower}} = P(\mathrm{Bin}(d, \pi_L^0) \ge n_+),
              \qquad
              p_{\text{upper}} = P(\mathrm{Bin}(d, \pi_U^0) \ge n_-),
              \quad \pi_U^0 = (1 - m_U)/2

    (the mirror test of :math:`H_0: \theta \ge m_U`) are valid p-values at
    every :math:`N`, conditionally on :math:`d` and hence unconditionally;
    their size is at most :math:`\alpha` for every table probability
    (sharp when every item is discordant). Non-inferiority:
    :math:`p = p_{\text{lower}}`; equivalence (TOST): :math:`\max`. The
    interval inverts the same test: with :math:`\pi_L` the one-sided
    :math:`1 - \alpha` Clopper-Pearson lower bound of :math:`\pi`
    (``beta.ppf(alpha, n_+, n_- + 1)``, 0 when :math:`n_+ = 0`) and
    :math:`\pi_U` the upper one, the bounds of :math:`\theta` are
    :math:`\min(0, 2\pi_L - 1)` and :math:`\max(0, 2\pi_U - 1)` (a
    conditional test cannot exclude values of :math:`\theta` of its own
    sign: :math:`q_+ + q_-` may be small). Hence ``p_lower <= alpha``
    exactly when the lower bound is above :math:`m_L` (Clopper & Pearson
    1934: :math:`P(\mathrm{Bin}(d, \pi_L^0) \ge n_+) \le \alpha \iff
    \pi_L^0 \le \pi_L`). It is conservative when few items are discordant
    (:math:`\pi_L^0` assumes every item is), which is why McNemar uses it
    only below :data:`MARGIN_EXACT_BELOW` items. ``d = 0`` gives ``p = 1``
    and the interval (-1, 1).

    Returns ``(pvalue, (low, high), p_lower, p_upper)``, the interval
    oriented (non-inferiority: ``(low, inf)``).
    """
    from scipy.stats import beta, binom

    alpha = 1.0 - float(confidence_level)
    d = int(n_better) + int(n_worse)
    m_low, m_high = margin_bounds(margin)
    # pi <= (1 + m_low) / 2 under theta <= m_low; 1 - pi <= (1 - m_high) / 2 under theta >= m_high
    pi_lower, pi_upper = (1.0 + m_low) / 2.0, (1.0 - m_high) / 2.0

    def tail(k, pi0):  # P(Bin(d, pi0) >= k)
        return 1.0 if k <= 0 else float(binom.sf(k - 1, d, pi0))

    def lower_pi(k):  # one-sided 1 - alpha Clopper-Pearson lower bound of k / d
        return 0.0 if k <= 0 else float(beta.ppf(alpha, k, d - k + 1))

    p_lower, p_upper = tail(n_better, pi_lower), tail(n_worse, pi_upper)
    low = min(0.0, 2.0 * lower_pi(n_better) - 1.0)
    high = max(0.0, 1.0 - 2.0 * lower_pi(n_worse))
    if alternative == "non-inferiority":
        return p_lower, (low, math.inf), p_lower, p_upper
    return max(p_lower, p_upper), (low, high), p_lower, p_upper


def _wilson(x, n, z):
    """Wilson score interval of a proportion ``x / n``."""
    center = (x + z * z / 2.0) / (n + z * z)
    half = z * math.sqrt(x * (n - x) / n + z * z / 4.0) / (n + z * z)
    return center - half, center + half


def newcombe_interval(n11, n10, n01, n00, z):
    r"""Newcombe's square-and-add interval of :math:`p_B - p_A` for paired proportions, φ shrunk by N/2.

    ``n11`` both 1, ``n10`` A = 1 and B = 0, ``n01`` A = 0 and B = 1,
    ``n00`` both 0. With Wilson intervals :math:`(l_A, u_A)`,
    :math:`(l_B, u_B)` of the two proportions at the normal deviate ``z``,

    .. math::
        L = \hat\Delta - \sqrt{(\hat p_B - l_B)^2 + (u_A - \hat p_A)^2
                       - 2\hat\psi (\hat p_B - l_B)(u_A - \hat p_A)},\\
        U = \hat\Delta + \sqrt{(\hat p_A - l_A)^2 + (u_B - \hat p_B)^2
                       - 2\hat\psi (\hat p_A - l_A)(u_B - \hat p_B)},

    with :math:`\hat\psi` the correlation (φ coefficient) of the pairs, its
    numerator :math:`n_{11} n_{00} - n_{10} n_{01}` set to 0 in
    :math:`[0, N/2]`, reduced by :math:`N/2` above, and :math:`\hat\psi =
    0` if a margin is empty. This is the square-and-add (MOVER) construction
    of Newcombe (1998) from the Wilson score limits, with the correlation
    shrunk by :math:`N/2` as Fagerland, Lydersen & Laake (2014, the
    "Newcombe square-and-add interval" of their section 5; their R package
    ``contingencytables``, ``Newcombe_square_and_add_CI_paired_2x2``) give
    it; the plain :math:`\hat\phi` (no shrinking) gives a narrower interval
    when :math:`n_{11} n_{00} > n_{10} n_{01}`. It matches their published
    example (Cavo et al. 2012: (-0.1186, -0.0046)).

    The limits are clipped to :math:`[-1, 1]`, the range of a difference of
    proportions (with every item favouring B the upper limit computes as
    :math:`1 + 2^{-52}` in floating point).
    """
    N = n11 + n10 + n01 + n00
    pa, pb = (n11 + n10) / N, (n11 + n01) / N
    la, ua = _wilson(n11 + n10, N, z)
    lb, ub = _wilson(n11 + n01, N, z)
    margins = (n11 + n10) * (n01 + n00) * (n11 + n01) * (n10 + n00)
    psi = 0.0
    if margins > 0:
        num = n11 * n00 - n10 * n01
        if num > N / 2:
            psi = (num - N / 2) / math.sqrt(margins)
        elif num < 0:
            psi = num / math.sqrt(margins)
    est = pb - pa
    low = est - math.sqrt(max(0.0, (pb - lb) ** 2 + (ua - pa) ** 2
                              - 2 * psi * (pb - lb) * (ua - pa)))
    high = est + math.sqrt(max(0.0, (pa - la) ** 2 + (ub - pb) ** 2
                               - 2 * psi * (pa - la) * (ub - pb)))
    return max(-1.0, low), min(1.0, high)


class McNemar(SignificanceTest):
    r"""McNemar's test of two paired accuracies, with Newcombe's interval of their difference.

    Only the discordant items carry information: :math:`n_+` items where B
    is right and A wrong, :math:`n_-` where A is right and B wrong. Under
    the null hypothesis (equal accuracies, i.e. marginal homogeneity) each
    discordant item goes either way with probability 1/2, so
    :math:`n_+ \sim \mathrm{Bin}(n_+ + n_-, 1/2)`:

    * ``method="exact"``: the exact binomial (sign) test,
      ``scipy.stats.binomtest(n_+, n_+ + n_-, 0.5)``; valid at any N,
      conservative (size below the level on discrete data).
    * ``method="mid-p"``: the mid-p value, outcomes as extreme as the
      observed one counting one half (Fagerland et al. 2013 recommend it:
      size close to the level, rarely above it).
    * ``method="chi2"``: the asymptotic test
      :math:`(|n_+ - n_-| - c)^2/(n_+ + n_-) \sim \chi^2_1`, :math:`c = 1`
      with ``continuity=True`` (Edwards), else 0 (the original McNemar
      1947); as ``statsmodels.stats.contingency_tables.mcnemar``. Valid for
      large :math:`n_+ + n_-` (about 25 or more).

    The interval is Newcombe's square-and-add interval of
    ``delta = score_b - score_a`` (Newcombe 1998) from the Wilson score
    limits of the two accuracies and their correlation φ, in the form of
    Fagerland, Lydersen & Laake (2014), whose φ has its numerator
    :math:`n_{11} n_{00} - n_{10} n_{01}` shrunk by :math:`N/2`
    (:func:`newcombe_interval`); its coverage is close to the level for
    small and large N (Fagerland et al. 2014). One-sided for a one-sided
    ``alternative``. It is asymptotic and can exclude 0 where the test does
    not reject (N = 2, both items for B: exact p = .5, interval (.07, 1));
    then its nearer end is moved to 0, so that ``p <= 1 - confidence_level``
    holds exactly when the interval excludes 0 (``params["interval_extended"]``
    says so; ``params["newcombe_low"]``/``["newcombe_high"]`` keep
    Newcombe's own bounds).

    **Tiny p-values.** A p-value below the normal double range (about
    2.2e-308, e.g. 1200 discordant items all for B) is computed in log
    space: ``pvalue`` is never 0 (the smallest positive double when it
    underflows) and ``log10_pvalue`` of the result keeps its size
    (:func:`mcnemar_pvalue`).

    **Clusters.** With ``groups=`` the items of a cluster are not
    independent and the counts above are not binomial. The test is then the
    clustered McNemar test of Durkalski, Palesch, Lipsitz & Rust (2003):
    with :math:`b_k - c_k` the difference of the discordant counts of
    cluster :math:`k` (B right and A wrong, minus A right and B wrong;
    oriented) over the :math:`G` clusters,

    .. math:: X^2 = \frac{\bigl(\sum_k (b_k - c_k)\bigr)^2}{\sum_k (b_k - c_k)^2}
              \sim \chi^2_1,

    one-sided with the signed root as a normal deviate. It needs no model
    of the correlation inside clusters, and with clusters of one item it is
    the uncorrected chi-square test. It is asymptotic, so ``method`` must be
    ``"chi2"`` (``ValueError`` otherwise: the exact and mid-p tests count
    independent items; :class:`~sigtest.PairedPermutation` with ``groups=``
    is the exact test over clusters), and ``continuity`` is not applied.
    Newcombe's interval assumes independent items too; the interval is the
    cluster-robust Wald interval with Durkalski's variance,
    :math:`\hat\Delta \pm z \sqrt{\sum_k (b_k - c_k)^2} / N` with
    :math:`\hat\Delta = \sum_k (b_k - c_k)/N` (so it excludes 0 exactly
    when the two-sided test rejects at its level). ``statistic`` is
    :math:`X^2`; ``params`` records ``sum_b_minus_c``, ``sum_squares``,
    ``zstatistic`` and ``n_discordant`` (discordant clusters). Fewer than
    20 clusters warn (``SmallSampleWarning``).

    **Strata.** ``strata=`` is accepted and changes nothing: the test
    conditions on the items (or clusters); only which system is right on a
    discordant item is random under the null hypothesis.

    Parameters
    ----------
    method : {"exact", "mid-p", "chi2"}, default="exact"
    continuity : bool, default=True
        Continuity correction of ``method="chi2"`` (statsmodels'
        ``correction=True``; named ``continuity`` because sigtest's
        ``correction`` is a multiple-comparison correction), ignored otherwise (and
        with ``groups=``).
    alternative : str, default="two-sided"
        ``"two-sided"``, ``"greater"``, ``"less"``, ``"non-inferiority"`` or
        ``"equivalence"``. ``"greater"``: B better than A (oriented). The last two need
        ``margin``.
    confidence_level : float, default=0.95
        Level of the interval, in (0, 1); with a margin ``alternative`` the
        test's level is :math:`\alpha = 1 -` ``confidence_level`` (above 0.5).
    margin : float > 0 or (low, high), default=None
        With ``alternative="non-inferiority"`` or ``"equivalence"`` (and only
        then), the largest difference of accuracies that does not matter.
        A pair ``(low, high)``, ``low < 0 < high``: asymmetric margins of the
        oriented difference (a scalar :math:`m` is :math:`(-m, m)`);
        non-inferiority uses ``low`` (see ``docs/equivalence.md``).
        From ``MARGIN_EXACT_BELOW`` = 50 items on, the p-values invert the
        interval (``method`` and ``continuity`` are not used): non-inferiority, :math:`H_0`: B worse by ``margin`` or
        more, :math:`p = \Phi(-z^*)` with :math:`z^*` the normal deviate at
        which Newcombe's lower bound (oriented) equals :math:`-m`, found by
        bisection on the level (:func:`~sigtest._engine.intervals.invert_interval`),
        and the one-sided :math:`1 - \alpha` interval; equivalence, TOST
        (Schuirmann 1987): :math:`p = \max` of the two one-sided p-values,
        with the two-sided :math:`1 - 2\alpha` interval. With ``groups=``
        the same with Durkalski's Wald interval, :math:`p_{\text{lower}} =
        \Phi(-(\hat\Delta + m) / (\sqrt{\sum_k (b_k - c_k)^2}/N))` (any
        ``method``). ``p <= alpha`` exactly when the bound is beyond the
        margin. Newcombe's interval is not degenerate without discordant
        items (its Wilson parts are not), so identical systems on many
        items can show equivalence, as an exact bound on the discordance
        rate would (e.g. none discordant in 1000: rate < .003 at 95 %).
        Below 50 items the asymptotic interval is not safe (its size at the
        margin reached .08 at N = 5), so the test is the exact conditional
        one of :func:`conditional_margin_test` (``interval_method="exact
        conditional"``): given the :math:`d` discordant items,
        :math:`p_{\text{lower}} = P(\mathrm{Bin}(d, (1 - m)/2) \ge
        n_+)`, valid for every discordance rate, with the Clopper-Pearson
        interval of the discordant proportion mapped to ``delta`` (0 kept
        inside); ``p <= alpha`` exactly when its bound is beyond the margin.
        It is conservative when few items are discordant, and needs
        :math:`d \ge \log \alpha / \log((1 - m)/2)` (4 for ``m = .1``)
        discordant items to show anything; no discordant item gives
        ``p = 1`` with a warning.

    Warns
    -----
    DegenerateDistributionWarning
        No discordant item (e.g. identical systems): ``p = 1`` (for every
        method; the corrected chi-square is undefined at ``d = 0``), and
        for a margin ``alternative`` below 50 items.
    SmallSampleWarning
        With ``groups=`` and fewer than 20 clusters.

    Notes
    -----
    Accuracy only: the metric must score each item 1 (right) or 0 (wrong),
    i.e. be a per-item decomposable hard-label metric with 0/1 per-item
    values (``"accuracy"``, or an error rate, whose orientation is
    respected; the micro-averaged precision, recall and F1 of single-label
    data equal accuracy and are accepted). Any other metric raises
    ``ValueError`` naming the tests to use instead: :class:`SignTest`,
    :class:`WilcoxonSignedRank` or :class:`PairedTTest` for soft per-item
    metrics, :class:`~sigtest.PairedPermutation` or
    :class:`~sigtest.BCaInterval` for any metric. Items are counted:
    compressed cells with their multiplicities, ``sample_weight`` must hold
    integer frequencies (``ValueError`` otherwise), and run-averaged data
    (fractional per-item accuracies) are refused.

    References
    ----------
    McNemar (1947). Note on the sampling error of the difference between
    correlated proportions or percentages. Psychometrika 12(2).
    Edwards (1948). Note on the "correction for continuity" in testing the
    significance of the difference between correlated proportions.
    Psychometrika 13.
    Newcombe (1998). Improved confidence intervals for the difference between
    binomial proportions based on paired data. Statistics in Medicine 17.
    Fagerland, Lydersen, Laake (2013). The McNemar test for binary
    matched-pairs data: mid-p and asymptotic are better than exact
    conditional. BMC Medical Research Methodology 13:91.
    Fagerland, Lydersen, Laake (2014). Recommended tests and confidence
    intervals for paired binomial proportions. Statistics in Medicine 33(16).
    Clopper, Pearson (1934). The use of confidence or fiducial limits
    illustrated in the case of the binomial. Biometrika 26(4).
    Durkalski, Palesch, Lipsitz, Rust (2003). Analysis of clustered
    matched-pair data. Statistics in Medicine 22(15).

    Examples
    --------
    >>> import numpy as np
    >>> from sigtest import McNemar
    >>> y = np.array([0, 1] * 10)
    >>> a = np.where(np.arange(20) < 7, 1 - y, y)  # A wrong on items 0-6
    >>> b = np.where(np.arange(20) == 19, 1 - y, y)  # B wrong on item 19
    >>> res = McNemar().test(y, a, b)
    >>> round(res.pvalue, 4), res.params["n_b_better"], res.params["n_a_better"]
    (0.0703, 7, 1)
    >>> round(McNemar(method="mid-p").test(y, a, b).pvalue, 4)
    0.0391
    >>> [round(x, 3) for x in res.confidence_interval]  # Newcombe's (.028, .528), p > .05
    [0.0, 0.528]
    >>> res.params["interval_extended"], round(res.params["newcombe_low"], 3)
    (True, 0.028)

    Clustered (Durkalski's test; 4 items per cluster, 25 clusters):

    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 100)
    >>> a = np.where(rng.random(100) < 0.7, y, 1 - y)
    >>> b = np.where(rng.random(100) < 0.8, y, 1 - y)
    >>> res = McNemar(method="chi2").test(y, a, b, groups=np.arange(100) // 4)
    >>> res.n_groups, res.interval_method
    (25, 'durkalski')
    """

    name = "mcnemar"
    _parameter_constraints: dict = {
        "method": [lazy.StrOptions({"exact", "mid-p", "chi2"})],
        "continuity": ["boolean"],
        "alternative": [_ALTERNATIVES_MARGIN],
        "confidence_level": [lazy.Interval(Real, 0, 1, closed="neither")],
        "margin": MARGIN_CONSTRAINT,
    }

    @renamed_keywords(correction="continuity")
    def __init__(self, *, method="exact", continuity=True, alternative="two-sided",
                 confidence_level=0.95, margin=None):
        self.method = method
        self.continuity = continuity
        self.alternative = alternative
        self.confidence_level = confidence_level
        self.margin = margin

    def _margin_outcome(self, data, pvalue, ci, p_lower, p_upper, method, details):
        level = float(self.confidence_level)
        equivalence = self.alternative == "equivalence"
        details = {**details, "pvalue_lower": p_lower}
        if equivalence:
            details["pvalue_upper"] = p_upper
        return TestOutcome(
            pvalue=pvalue, confidence_interval=ci,
            confidence_level=2 * level - 1 if equivalence else level,
            resampling=None, interval_method=method, margin=result_margin(self.margin),
            details=details)

    def _check_suits(self, metric):
        """ValueError unless the metric scores each item right or wrong."""
        if (metric.input_type not in ("labels", "scores")
                or not getattr(metric, "decomposable", False)):
            raise ValueError(
                f"McNemar compares accuracies (each item right or wrong); metric "
                f"{metric.name!r} is not one. Use SignTest, WilcoxonSignedRank or "
                "PairedTTest for a per-item decomposable metric (soft accuracy, PO-JSD, "
                "cross entropy, ...), or PairedPermutation / BCaInterval for any metric."
            )

    def _table(self, data):
        """Counts ``(n11, n10, n01, n00)`` of raw per-item values (A, B) in {0, 1}."""
        metric = data.metric
        self._check_suits(data.metric)
        va, vb, w = data.item_values()
        w = frequency_weights(w, "McNemar")
        keep = w > 0
        va, vb, w = va[keep], vb[keep], w[keep]
        for values, name in ((va, "y_pred_a"), (vb, "y_pred_b")):
            if metric.input_type == "scores" and not np.all((values == 0) | (values == 1)):
                raise ValueError(
                    f"McNemar needs per-item scores 0 or 1 (right or wrong); the '{name}' "
                    f"parameter holds other values (e.g. {_first_not_binary(values)!r}). Use "
                    "SignTest, WilcoxonSignedRank, PairedTTest or PairedPermutation on "
                    "graded scores."
                )
        binary = np.all((va == 0) | (va == 1)) and np.all((vb == 0) | (vb == 1))
        if not binary:
            raise ValueError(
                f"McNemar needs per-item values 0 or 1 (right or wrong); metric "
                f"{metric.name!r} gave fractional per-item values (e.g. run-averaged "
                "predictions). Use SignTest, WilcoxonSignedRank or PairedTTest on the "
                "per-item values, or PairedPermutation."
            )
        a1, b1 = va == 1, vb == 1
        return (int(w[a1 & b1].sum()), int(w[a1 & ~b1].sum()),
                int(w[~a1 & b1].sum()), int(w[~a1 & ~b1].sum()))

    @staticmethod
    def _row_sizes(data):
        """Total item weight :math:`W_r` of every cluster row (clustered data).

        Carried by the input path as ``data.row_sizes``; for paired data
        built without it (``None``): unmerged cluster rows are the clusters in code order: their sizes
        come from ``item_groups`` (and ``sample_weight``). Merged rows
        (identical clusters collapsed, ``counts`` = multiplicities) hold
        clusters of equal statistics, hence of equal size; the size is read
        from the statistics column that A and B share and whose values,
        repeated by ``counts``, are exactly the clusters' sizes (the count
        column of accuracy and of the micro scores).
        """
        w = data.sample_weight
        if w is not None:
            frequency_weights(w, "McNemar")  # counts items, as without groups
        if data.row_sizes is not None:  # carried by the input path
            return np.asarray(data.row_sizes, dtype=np.float64)
        sizes = np.bincount(data.item_groups, weights=w, minlength=int(data.n_groups))
        if data.counts is None:
            return sizes
        reps = np.rint(data.counts).astype(np.int64)
        wanted = np.sort(sizes)
        for j in range(data.n_statistics - 1, -1, -1):
            col = data.stats_a[:, j]
            if np.array_equal(col, data.stats_b[:, j]) and np.allclose(
                    np.sort(np.repeat(col, reps)), wanted, rtol=0, atol=1e-9):
                return col.copy()
        raise ValueError(  # pragma: no cover - every built-in McNemar metric has one
            f"McNemar with groups= cannot find the cluster sizes in the statistics of metric "
            f"{data.metric.name!r}; use PairedPermutation with groups= instead."
        )

    def _clustered(self, data):
        """Oriented cluster differences :math:`b_k - c_k` of every row and row multiplicities."""
        if self.method != "chi2" and self.alternative not in MARGIN_ALTERNATIVES:
            raise ValueError(
                "With groups=, McNemar runs the clustered test of Durkalski et al. (2003), "
                "an asymptotic chi-square test: the 'method' parameter must be 'chi2' (the "
                f"exact and mid-p tests count independent items). Got method={self.method!r}. "
                "For an exact test over clusters use PairedPermutation(groups=...)."
            )
        self._check_suits(data.metric)
        diff, mult = data.item_differences()  # oriented cluster-value differences
        mult = frequency_weights(mult, "McNemar")
        sizes = self._row_sizes(data)
        va, vb, _ = data.item_values()
        for values in (va, vb):  # per-item values 0/1: cluster counts are integers
            counts = sizes * values
            if not np.allclose(counts, np.rint(counts), rtol=0, atol=1e-6):
                raise ValueError(
                    f"McNemar needs per-item values 0 or 1 (right or wrong); metric "
                    f"{data.metric.name!r} gave fractional per-item values (e.g. run-averaged "
                    "predictions). Use PairedPermutation or BCaInterval with groups=."
                )
        return np.rint(sizes * diff), mult, float(np.dot(mult, sizes))

    def _evaluate_clustered(self, data):
        """Durkalski's clustered McNemar test and its Wald interval."""
        bc, mult, n_items = self._clustered(data)
        total = float(np.dot(mult, bc))
        sum_squares = float(np.dot(mult, bc * bc))
        n_disc = int(mult[bc != 0].sum())
        if self.alternative in MARGIN_ALTERNATIVES:
            details = {"sum_b_minus_c": total, "sum_squares": sum_squares,
                       "n_discordant": n_disc}
            if sum_squares <= 0.0:
                warn_outside("McNemar: no discordant cluster, so Durkalski's variance is 0 "
                             "and the interval undefined; the test carries no information "
                             "and p = 1.")
                return self._margin_outcome(data, 1.0, (math.nan, math.nan), 1.0, 1.0,
                                            "durkalski", details)
            pvalue, (low, high), p_lower, p_upper = margin_location_test(
                total / n_items, math.sqrt(sum_squares) / n_items, self.alternative,
                self.margin, float(self.confidence_level))
            return self._margin_outcome(
                data, pvalue, _to_raw(low, high, data.metric.greater_is_better),
                p_lower, p_upper, "durkalski", details)
        if n_disc == 0:
            warn_outside("McNemar: no discordant cluster (A and B have the same number of "
                         "correct items in every cluster); the test carries no information "
                         "and p = 1.")
        pvalue, x2, z, log10_p = durkalski_pvalue(total, sum_squares, self.alternative)
        return TestOutcome(
            pvalue=pvalue,
            log10_pvalue=log10_p,
            statistic=x2,
            confidence_interval=self._wald_interval(data, total, sum_squares, n_items),
            confidence_level=self.confidence_level,
            resampling=None,
            interval_method="durkalski",
            details={"sum_b_minus_c": total, "sum_squares": sum_squares, "zstatistic": z,
                     "n_discordant": n_disc},
        )

    def _wald_interval(self, data, total, sum_squares, n_items):
        r"""Cluster-robust Wald interval of ``delta`` with Durkalski's variance.

        Oriented: :math:`\hat\Delta = \sum_k (b_k - c_k) / N \pm z\,
        \sqrt{\sum_k (b_k - c_k)^2} / N`, clipped to :math:`[-1, 1]`;
        ``(nan, nan)`` without discordant clusters.
        """
        from scipy.special import ndtri

        if sum_squares <= 0.0:
            return (math.nan, math.nan)
        level = float(self.confidence_level)
        two_sided = self.alternative == "two-sided"
        z = float(ndtri(0.5 + level / 2 if two_sided else level))
        est, half = total / n_items, z * math.sqrt(sum_squares) / n_items
        # oriented (positive: B better); a difference of proportions lies in [-1, 1]
        low, high = max(-1.0, est - half), min(1.0, est + half)
        if not two_sided:
            low, high = (low, math.inf) if self.alternative == "greater" else (-math.inf, high)
        if data.metric.greater_is_better:
            return low, high
        return -high, -low  # the interval is of the raw delta

    def evaluate(self, data, random_state):
        """Compute McNemar's p-value and Newcombe's interval from the discordant counts.

        Parameters
        ----------
        data : PairedData
            Prepared paired data of accuracy (0/1 per-item values).
        random_state : int
            Unused (the test is deterministic).

        Returns
        -------
        TestOutcome
            ``pvalue``; ``statistic`` (the chi-square value for
            ``method="chi2"``, else the count ``n_b_better``); the interval;
            ``details`` with ``n_b_better``, ``n_a_better`` (discordant
            counts, oriented) and ``n_discordant``.
        """
        if data.clustered:
            return self._evaluate_clustered(data)
        n11, n10, n01, n00 = self._table(data)
        # oriented: for a loss (error rate) value 1 is bad, so B is better where A = 1, B = 0
        better, worse = (n01, n10) if data.metric.greater_is_better else (n10, n01)
        d = better + worse
        counts = {"n_b_better": better, "n_a_better": worse, "n_discordant": d}
        if self.alternative in MARGIN_ALTERNATIVES:
            return self._evaluate_margin(data, (n11, n10, n01, n00), better, worse, counts)
        if d == 0:
            warn_outside("McNemar: no discordant item (A and B are right and wrong on the "
                         "same items); the test carries no information and p = 1.")
        pvalue, log10_p = mcnemar_pvalue(better, worse, self.method, self.continuity,
                                         self.alternative)
        if self.method == "chi2" and d > 0:
            c = 1.0 if self.continuity else 0.0
            statistic = (abs(better - worse) - c) ** 2 / d
        else:
            statistic = float(better)
        low0, high0 = low, high = self._interval(data, (n11, n10, n01, n00))
        # Newcombe's asymptotic interval can exclude 0 where the test does not reject
        # (N = 2, both items for B: p = .5, interval (.07, 1)): extend it to 0 then, so
        # that "p <= 1 - level" holds exactly when the interval excludes 0
        extended = pvalue > 1.0 - float(self.confidence_level) and (low > 0.0 or high < 0.0)
        if extended:
            low, high = min(low, 0.0), max(high, 0.0)
        return TestOutcome(
            pvalue=pvalue,
            log10_pvalue=log10_p,
            statistic=statistic,
            confidence_interval=(low, high),
            confidence_level=self.confidence_level,
            resampling=None,
            interval_method="newcombe",
            details={**counts, "interval_extended": extended, "newcombe_low": float(low0),
                     "newcombe_high": float(high0)},
        )

    def _evaluate_margin(self, data, table, better, worse, counts):
        """Non-inferiority / equivalence: exact conditional below MARGIN_EXACT_BELOW items."""
        margin, level = self.margin, float(self.confidence_level)
        gib = bool(data.metric.greater_is_better)
        if sum(table) < MARGIN_EXACT_BELOW:
            if better + worse == 0:
                warn_outside("McNemar: no discordant item among fewer than "
                             f"{MARGIN_EXACT_BELOW} items; the exact conditional margin test "
                             "carries no information: p = 1 and the interval is (-1, 1).")
            pvalue, (low, high), p_lower, p_upper = conditional_margin_test(
                better, worse, self.alternative, margin, level)
            return self._margin_outcome(data, pvalue, _to_raw(low, high, gib), p_lower,
                                        p_upper, "exact conditional", counts)
        from scipy.special import ndtri

        pvalue, ci, p_lower, p_upper = margin_from_intervals(
            lambda c: newcombe_interval(*table, -float(ndtri((1.0 - c) / 2.0))),
            self.alternative, margin, level, gib)
        return self._margin_outcome(data, pvalue, ci, p_lower, p_upper, "newcombe", counts)

    def _interval(self, data, table):
        from scipy.special import ndtri

        level = float(self.confidence_level)
        two_sided = self.alternative == "two-sided"
        z = float(ndtri(0.5 + level / 2 if two_sided else level))
        low, high = newcombe_interval(*table, z)
        if two_sided:
            return low, high
        # one-sided in the oriented sense; the interval is of the raw delta
        b_better = self.alternative == "greater"
        keep_low = b_better == bool(data.metric.greater_is_better)
        return (low, math.inf) if keep_low else (-math.inf, high)


def _first_not_binary(values):
    """The first per-item value that is neither 0 nor 1 (for the messages)."""
    return float(values[(values != 0) & (values != 1)][0])
