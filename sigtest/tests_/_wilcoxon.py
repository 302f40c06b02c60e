"""Wilcoxon signed-rank test of per-item differences."""

from __future__ import annotations

import math

import numpy as np

from sigtest._results import TestOutcome
from sigtest.utils import renamed_keywords
from sigtest.utils._param_validation import lazy
from sigtest.tests_._base import SignificanceTest
from sigtest.tests_._sign import _ALTERNATIVES, item_differences, warn_outside
from sigtest._engine.pvalues import log10_normal_pvalue, tiny_pvalue
from sigtest.metrics._common import fill_doc
from sigtest.tests_._shared_docs import ALTERNATIVE_WITHOUT_INTERVAL

__all__ = ["WilcoxonSignedRank"]


def wilcoxon_test(diff, weights, zero_method="wilcox", alternative="two-sided",
                  method="auto", continuity=False):
    r""":func:`scipy.stats.wilcoxon` of the differences, each repeated ``weights`` times.

    Returns ``(statistic, pvalue, zstatistic, log10_pvalue)`` (``zstatistic``
    ``nan`` for the exact distribution). A p-value of the normal
    approximation below the normal double range (about 2.2e-308, e.g. 1500
    items all favouring B) is recomputed from ``zstatistic`` in log space
    (:func:`~sigtest._engine.pvalues.log10_normal_pvalue`, scipy's sign
    convention: ``"greater"`` is :math:`P(Z \ge z)`) and is never 0.
    """
    from scipy.stats import wilcoxon

    d = np.repeat(np.asarray(diff, dtype=np.float64), np.asarray(weights, dtype=np.int64))
    res = wilcoxon(d, zero_method=zero_method, alternative=alternative, method=method,
                   correction=continuity)
    z = float(getattr(res, "zstatistic", math.nan))

    def log10_p():
        # an underflowing p comes from the normal approximation (the exact
        # distribution stops at n = 50); scipy exposes its z only when asked for it
        zz = z if math.isfinite(z) else float(getattr(
            wilcoxon(d, zero_method=zero_method, alternative=alternative,
                     method="asymptotic", correction=continuity), "zstatistic", math.nan))
        return log10_normal_pvalue(zz, alternative) if math.isfinite(zz) else math.nan

    pvalue, log10 = tiny_pvalue(res.pvalue, log10_p)
    return float(res.statistic), pvalue, z, log10


@fill_doc(alternative=ALTERNATIVE_WITHOUT_INTERVAL)
class WilcoxonSignedRank(SignificanceTest):
    r"""Wilcoxon signed-rank test of the per-item differences of a decomposable metric.

    Per item :math:`i`, the oriented difference :math:`d_i` of the metric's
    per-item values (``B - A`` for a score, ``A - B`` for a loss: positive
    means B is better; see :meth:`~sigtest.PairedData.item_differences`).
    The :math:`|d_i|` are ranked (mid-ranks for ties) and
    :math:`T^+ = \sum_{d_i > 0} \mathrm{rank}(|d_i|)`; under the null
    hypothesis that the differences are symmetric about 0 every sign
    pattern is equally likely. The test is
    :func:`scipy.stats.wilcoxon` on these differences with the same options:
    the exact null distribution for small samples without ties or zeros
    (``method="auto"``), else the normal approximation with the tie
    correction.

    Parameters
    ----------
    zero_method : {"wilcox", "pratt", "zsplit"}, default="wilcox"
        Zero differences: dropped before ranking (``"wilcox"``), ranked then
        dropped (``"pratt"``, Pratt 1959), or ranked and split half to each
        sign (``"zsplit"``). As :func:`scipy.stats.wilcoxon`.
    {alternative}
    method : {"auto", "exact", "asymptotic"}, default="auto"
        Null distribution, as :func:`scipy.stats.wilcoxon`.
    continuity : bool, default=False
        Continuity correction of the normal approximation (scipy's
        ``correction=True``, R's ``wilcox.test(correct=TRUE)``; named
        ``continuity`` because sigtest's ``correction`` is a
        multiple-comparison correction):
        :math:`z = (T^+ - \mu - c) / \sigma` with :math:`\mu = n(n+1)/4`,
        :math:`\sigma` the tie-corrected standard deviation and
        :math:`c = \tfrac12 \operatorname{sign}(T^+ - \mu)` (two-sided),
        :math:`+\tfrac12` (``"greater"``) or :math:`-\tfrac12` (``"less"``);
        slightly conservative. Ignored by the exact distribution
        (``method="exact"``, or ``"auto"`` on small samples without ties or
        zeros), as in scipy.

    Warns
    -----
    DegenerateDistributionWarning
        No nonzero difference (e.g. identical systems): ``p = 1``.
    SmallSampleWarning
        With ``groups=`` and fewer than 20 clusters.

    Notes
    -----
    Valid when the differences are symmetric about their center under the
    null hypothesis; it then tests a shift in location (not the mean of the
    differences of asymmetric data). For 0/1 accuracy differences it
    reduces to a sign test (all nonzero absolute differences tie) with the normal
    approximation: prefer :class:`McNemar`. The metric must be a weighted mean
    of per-item values (``Metric.decomposable``); for macro-F1 or an
    entropy correlation a ``ValueError`` names the tests to use instead
    (:class:`~sigtest.PairedPermutation`, :class:`~sigtest.BCaInterval`).
    Compressed cells count with their multiplicity (repeated);
    ``sample_weight`` must hold integer frequencies. No confidence interval:
    the Hodges-Lehmann interval is one of the pseudo-median of the
    differences, not of ``delta = score_b - score_a``.

    **Clusters and strata.** With ``groups=`` the test runs on per-cluster
    values (the cluster-summary approach, Donner & Klar 2000, ch. 6): the
    value of cluster :math:`k` is the metric of its items' summed
    statistics (e.g. its accuracy), :math:`d_k` the oriented difference of
    the two systems' cluster values, and the signed-rank test is applied
    to the :math:`G` values :math:`d_k`, each cluster counting once
    whatever its size. It is valid for independent clusters whatever the
    dependence inside them, and tests that the cluster differences are
    symmetric about 0. Fewer than 20 clusters warn
    (``SmallSampleWarning``). ``strata=`` is accepted and changes nothing:
    the test conditions on the items (each item or cluster keeps its
    place; only the sign of its difference is random under the null
    hypothesis).

    References
    ----------
    Wilcoxon (1945). Individual comparisons by ranking methods. Biometrics 1(6).
    Hollander, Wolfe, Chicken (2014). Nonparametric Statistical Methods,
    3rd ed., section 3.1 (the large-sample approximation and its continuity
    correction). Wiley.
    Pratt (1959). Remarks on zeros and ties in the Wilcoxon signed rank
    procedures. JASA 54.
    Donner, Klar (2000). Design and Analysis of Cluster Randomization Trials
    in Health Research, ch. 6. Arnold.

    Examples
    --------
    >>> import numpy as np
    >>> from sigtest import WilcoxonSignedRank
    >>> rng = np.random.default_rng(0)
    >>> y = rng.dirichlet([1, 1, 1], 30)
    >>> a = rng.dirichlet([1, 1, 1], 30)
    >>> b = 0.5 * y + 0.5 * a  # B moves every item towards the truth
    >>> res = WilcoxonSignedRank().test(y, a, b, metric="jsd")
    >>> res.pvalue < 1e-5, res.statistic > 0
    (True, True)
    """

    name = "wilcoxon"
    _per_item = True
    _parameter_constraints: dict = {
        "zero_method": [lazy.StrOptions({"wilcox", "pratt", "zsplit"})],
        "alternative": [_ALTERNATIVES],
        "method": [lazy.StrOptions({"auto", "exact", "asymptotic"})],
        "continuity": ["boolean"],
    }

    @renamed_keywords(correction="continuity")
    def __init__(self, *, zero_method="wilcox", alternative="two-sided", method="auto",
                 continuity=False):
        self.zero_method = zero_method
        self.alternative = alternative
        self.method = method
        self.continuity = continuity

    def evaluate(self, data, random_state):
        """:func:`scipy.stats.wilcoxon` on the oriented per-item differences.

        Parameters
        ----------
        data : PairedData
            Prepared paired data of a per-item decomposable metric.
        random_state : int
            Unused (the test is deterministic).

        Returns
        -------
        TestOutcome
            ``pvalue``, ``statistic`` (scipy's), ``details`` with
            ``n_nonzero`` and ``zstatistic``.
        """
        diff, w = item_differences(data, "WilcoxonSignedRank")
        nonzero = diff != 0
        n_nonzero = int(w[nonzero].sum())
        if n_nonzero == 0:
            warn_outside("WilcoxonSignedRank: every per-item difference is zero (e.g. "
                         "identical systems); the test carries no information and p = 1.")
            return TestOutcome(pvalue=1.0, details={"n_nonzero": 0})
        statistic, pvalue, z, log10_p = wilcoxon_test(diff, w, self.zero_method,
                                                      self.alternative, self.method,
                                                      self.continuity)
        return TestOutcome(pvalue=pvalue, log10_pvalue=log10_p, statistic=statistic,
                           details={"n_nonzero": n_nonzero, "zstatistic": z})
