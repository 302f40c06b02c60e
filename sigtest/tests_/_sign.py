"""Sign test of per-item differences (exact binomial), and helpers of the classical tests."""

from __future__ import annotations

import math

import numpy as np

from sigtest._results import TestOutcome
from sigtest.exceptions import DegenerateDistributionWarning
from sigtest.utils import warn_external
from sigtest.utils._param_validation import lazy
from sigtest.tests_._base import SignificanceTest
from sigtest._engine.pvalues import log10_binomial_half_tail, tiny_pvalue
from sigtest.metrics._common import fill_doc
from sigtest.tests_._shared_docs import ALTERNATIVE_WITHOUT_INTERVAL

__all__ = ["SignTest"]

_ALTERNATIVES = lazy.StrOptions({"two-sided", "greater", "less"})


def warn_outside(message, category=DegenerateDistributionWarning):
    """Warn at the first frame outside sigtest (:func:`sigtest.utils.warn_external`)."""
    warn_external(message, category)


def frequency_weights(weights, test_name):
    """Row weights as integer frequencies (cell multiplicities or integer sample weights).

    The classical tests count items: a row of weight ``w`` stands for ``w``
    identical items. Non-integer ``sample_weight`` has no such meaning.

    Raises
    ------
    ValueError
        If a weight is not a non-negative integer.
    """
    w = np.asarray(weights, dtype=np.float64)
    if not np.all((w >= 0) & (w == np.floor(w)) & np.isfinite(w)):
        raise ValueError(
            f"{test_name} counts items: the 'sample_weight' parameter must hold integer "
            "frequency weights (item i counted w_i times). Got non-integer weights. For "
            "real-valued weights use PairedPermutation or BCaInterval."
        )
    return w.astype(np.int64)


def item_differences(data, test_name):
    """Oriented per-item differences (positive: B better) and integer frequencies.

    Rows of weight 0 are dropped. ``ValueError`` for a metric that is not a
    weighted mean of per-item values (raised by ``data.item_differences``).
    """
    diff, weights = data.item_differences()
    weights = frequency_weights(weights, test_name)
    keep = weights > 0
    return np.asarray(diff, dtype=np.float64)[keep], weights[keep]


def binomial_half_pvalue(n_better, n_worse, alternative, mid_p=False):
    r"""``(p, log10 p)`` of the exact (or mid-p) binomial test of :math:`X = n_+ \sim \mathrm{Bin}(n, 1/2)`.

    The tail is :math:`P(X \le k)` with :math:`k = n_-` for ``"greater"``
    (:math:`P(X \ge n_+) = P(X \le n_-)` by symmetry), :math:`k = n_+` for
    ``"less"`` and :math:`k = \min(n_+, n_-)` doubled (at most 1) for
    ``"two-sided"``; with ``mid_p`` the term :math:`X = k` counts one half.
    Exactly :func:`scipy.stats.binomtest` (``scipy.stats.binom`` for the
    mid-p) while the value is a normal double; below about 2.2e-308 it is
    recomputed in log space (:func:`~sigtest._engine.pvalues.tiny_pvalue`),
    never 0. ``n = 0`` gives ``(1, 0)``.
    """
    n_better, n_worse = int(n_better), int(n_worse)
    n = n_better + n_worse
    if n == 0:
        return 1.0, 0.0
    k = {"greater": n_worse, "less": n_better}.get(alternative, min(n_better, n_worse))
    doubled = alternative not in ("greater", "less")
    if not mid_p:
        from scipy.stats import binomtest

        value = binomtest(n_better, n, 0.5, alternative=alternative).pvalue
    else:
        from scipy.stats import binom

        if alternative == "greater":
            value = binom.sf(n_better, n, 0.5) + 0.5 * binom.pmf(n_better, n, 0.5)
        elif alternative == "less":
            value = binom.cdf(n_better, n, 0.5) - 0.5 * binom.pmf(n_better, n, 0.5)
        else:
            value = 2.0 * (binom.cdf(k, n, 0.5) - 0.5 * binom.pmf(k, n, 0.5))
        value = min(1.0, max(0.0, value))

    def log10_p():
        return log10_binomial_half_tail(k, n, half_at_k=mid_p) + (
            math.log10(2.0) if doubled else 0.0)

    return tiny_pvalue(value, log10_p)


def sign_test_pvalue(n_better, n_worse, alternative):
    r"""Exact sign test: :math:`X \sim \mathrm{Bin}(n, 1/2)` with :math:`n` = nonzero signs.

    ``n_better`` counts the items where B is better (oriented), ``n_worse``
    those where A is better. ``"greater"``: :math:`P(X \ge n_+)`; ``"less"``:
    :math:`P(X \le n_+)`; ``"two-sided"``: :func:`scipy.stats.binomtest`'s
    two-sided p (for p = 1/2, :math:`\min(1, 2 P(X \le \min(n_+, n_-)))`).
    ``n = 0`` gives 1. Returns ``(p, log10 p)``: below the normal double
    range computed in log space (:func:`binomial_half_pvalue`), never 0,
    e.g. :math:`\log_{10} p = \log_{10} 2 - 1200 \log_{10} 2` two-sided
    for 1200 items all favouring B.
    """
    return binomial_half_pvalue(n_better, n_worse, alternative)


@fill_doc(alternative=ALTERNATIVE_WITHOUT_INTERVAL)
class SignTest(SignificanceTest):
    r"""Sign test of the per-item differences of a per-item decomposable metric.

    Per item :math:`i`, the oriented difference :math:`d_i` of the metric's
    per-item values (``B - A`` for a score, ``A - B`` for a loss: positive
    means B is better on that item; see :meth:`~sigtest.PairedData.item_differences`).
    Zeros are dropped; under the null hypothesis each nonzero difference is
    positive with probability 1/2, so the number :math:`n_+` of positive
    ones among the :math:`n` nonzero ones is :math:`\mathrm{Bin}(n, 1/2)` and

    .. math:: p_{\text{greater}} = P(X \ge n_+), \quad
              p_{\text{less}} = P(X \le n_+), \quad
              p_{\text{two-sided}} = \min\bigl(1, 2 P(X \le \min(n_+, n_-))\bigr),

    exactly :func:`scipy.stats.binomtest` on the signs. The test is exact at
    any N (conservative on discrete data); it tests the median of the
    differences, not their mean, so it uses only their signs. For accuracy
    it equals the exact McNemar test.

    Parameters
    ----------
    {alternative}

    Warns
    -----
    DegenerateDistributionWarning
        No nonzero difference (e.g. identical systems): ``p = 1``.
    SmallSampleWarning
        With ``groups=`` and fewer than 20 clusters.

    Notes
    -----
    The metric must be a weighted mean of per-item values
    (``Metric.decomposable``: accuracy, soft accuracy, PO-JSD, cross entropy,
    JSD, ...); for macro-F1 or an entropy correlation the per-item
    differences are not defined and a ``ValueError`` names the tests to use
    instead (:class:`~sigtest.PairedPermutation`, :class:`~sigtest.BCaInterval`).
    Compressed cells count with their multiplicity; ``sample_weight`` must
    hold integer frequencies. No confidence interval: the interval a sign
    test gives is one of the median difference, not of
    ``delta = score_b - score_a`` (use :class:`~sigtest.BCaInterval`).

    **Clusters and strata.** With ``groups=`` the test runs on per-cluster
    values (the cluster-summary approach, Donner & Klar 2000, ch. 6): the
    value of cluster :math:`k` is the metric of its items' summed
    statistics (e.g. its accuracy), :math:`d_k` the oriented difference of
    the two systems' cluster values, and the sign test is applied to the
    :math:`G` values :math:`d_k`, each cluster counting once whatever its
    size. It is valid for independent clusters whatever the dependence
    inside them, and tests that a cluster's difference is as likely
    positive as negative. Fewer than 20 clusters warn
    (``SmallSampleWarning``). ``strata=`` is accepted and changes nothing:
    the test conditions on the items (each item or cluster keeps its
    place; only the sign of its difference is random under the null
    hypothesis).

    References
    ----------
    Conover (1999). Practical Nonparametric Statistics, 3rd ed., section 3.4. Wiley.
    Donner, Klar (2000). Design and Analysis of Cluster Randomization Trials
    in Health Research, ch. 6. Arnold.

    Examples
    --------
    >>> import numpy as np
    >>> from sigtest import SignTest
    >>> y = np.array([0, 1] * 10)
    >>> a = np.where(np.arange(20) < 7, 1 - y, y)  # A wrong on items 0-6
    >>> b = np.where(np.arange(20) == 19, 1 - y, y)  # B wrong on item 19
    >>> res = SignTest().test(y, a, b)
    >>> round(res.pvalue, 4), res.params["n_positive"], res.params["n_negative"]
    (0.0703, 7, 1)
    """

    name = "sign"
    _per_item = True
    _parameter_constraints: dict = {"alternative": [_ALTERNATIVES]}

    def __init__(self, *, alternative="two-sided"):
        self.alternative = alternative

    def evaluate(self, data, random_state):
        """Exact binomial p of the signs of the per-item differences.

        Parameters
        ----------
        data : PairedData
            Prepared paired data of a per-item decomposable metric.
        random_state : int
            Unused (the test is deterministic).

        Returns
        -------
        TestOutcome
            ``pvalue``, ``statistic`` (the number of positive differences),
            ``details`` with ``n_positive``, ``n_negative``, ``n_zero``.
        """
        diff, w = item_differences(data, "SignTest")
        n_pos, n_neg = int(w[diff > 0].sum()), int(w[diff < 0].sum())
        n_zero = int(w[diff == 0].sum())
        if n_pos + n_neg == 0:
            warn_outside("SignTest: every per-item difference is zero (e.g. identical "
                         "systems); the test carries no information and p = 1.")
        pvalue, log10_p = sign_test_pvalue(n_pos, n_neg, self.alternative)
        finite = math.isfinite(data.statistic)
        return TestOutcome(
            pvalue=pvalue if finite else math.nan,
            log10_pvalue=log10_p if finite else math.nan,
            statistic=float(n_pos),
            resampling="exact binomial",
            details={"n_positive": n_pos, "n_negative": n_neg, "n_zero": n_zero},
        )
