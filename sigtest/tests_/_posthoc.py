r"""Rank-based post-hoc tests after Friedman: Conover, Quade and Miller.

Pure functions on an ``(N, k)`` matrix of scores (``N`` datasets = blocks,
``k`` systems = treatments). Each returns the ``(k, k)`` matrix of **raw**
two-sided p-values of every pair (1 on the diagonal); the caller
(:meth:`sigtest.DatasetComparisonResult.pairwise`) picks the pairs and
adjusts them with :func:`sigtest.tests_._corrections.adjust_pvalues`. Miller's test
is the exception: its p-values are simultaneous (Scheffé-type) already.

The statistics are invariant under reversing the orientation of the scores
(they use absolute differences of rank sums), so the caller may pass scores
with either orientation.

References
----------
W. J. Conover (1999). Practical Nonparametric Statistics, 3rd ed. Wiley,
sec. 5.8 (Friedman and Quade tests and their multiple comparisons).
D. Quade (1979). Using weighted rankings in the analysis of complete blocks
with additive block effects. JASA 74(367), 680-683.
R. G. Miller Jr. (1966, 1981). Simultaneous Statistical Inference. Springer.
T. Pohlert (2014). The pairwise multiple comparison of mean ranks package
(PMCMR), R package.
"""


import numpy as np

from sigtest.metrics._common import fill_doc
from sigtest.utils import warn_external

__all__ = ["conover_friedman_pvalues", "miller_friedman_pvalues", "quade_pvalues"]

#: the parameters and result every test of this module documents
_fill_doc = fill_doc(scores_to_pvalues="""\
    Parameters
    ----------
    scores : array-like of shape (N, k)

    Returns
    -------
    pvalues : ndarray of shape (k, k)
    """)


def _ranks(scores):
    from scipy.stats import rankdata

    return rankdata(np.asarray(scores, dtype=np.float64), axis=1, method="average")


def _t_pvalues(totals, denominator, df, name):
    """Two-sided Student-t p-values of ``|totals_i - totals_j| / denominator``.

    With a zero denominator (no residual variation: every dataset ranks the
    systems the same way, or every score ties) the t statistic is undefined:
    pairs with equal totals get p = 1, the others NaN, with a warning.
    """
    from scipy.stats import t

    diff = np.abs(totals[:, None] - totals[None, :])
    if not denominator > 0:
        warn_external(
            f"{name}: no residual variation (every dataset ranks the systems the same way, or "
            "every score ties); the t statistic is undefined: p = NaN for pairs with different "
            "rank totals, 1 for equal ones.")
        p = np.where(diff <= 1e-12 * max(1.0, np.abs(totals).max()), 1.0, np.nan)
    else:
        p = np.minimum(2.0 * t.sf(diff / denominator, df), 1.0)
    np.fill_diagonal(p, 1.0)
    return p


@_fill_doc
def conover_friedman_pvalues(scores):
    r"""Conover's all-pairs test after Friedman, raw two-sided p-values.

    With :math:`r_{ij}` the within-dataset ranks (ties averaged), the rank
    sums :math:`R_j = \sum_i r_{ij}` and :math:`A_1 = \sum_{ij} r_{ij}^2`,

    .. math::

        t_{ij} = \frac{|R_i - R_j|}{\sqrt{2 (N A_1 - \sum_j R_j^2) / ((N-1)(k-1))}}
        \sim t_{(N-1)(k-1)}

    (Conover 1999, eq. 5.8.6; scikit-posthocs' ``posthoc_conover_friedman``
    with ``p_adjust=None``). A zero denominator gives NaN p-values with a
    warning (see :func:`_t_pvalues`).

    {scores_to_pvalues}
    """
    ranks = _ranks(scores)
    n, k = ranks.shape
    totals = ranks.sum(axis=0)
    a1 = float(np.sum(ranks ** 2))
    df = (n - 1.0) * (k - 1.0)
    spread = max(n * a1 - float(np.sum(totals ** 2)), 0.0)
    return _t_pvalues(totals, np.sqrt(2.0 * spread / df), df, "Conover-Friedman")


@_fill_doc
def quade_pvalues(scores):
    r"""Quade's all-pairs test, raw two-sided p-values (Student-t form).

    Each dataset ``i`` gets the weight :math:`Q_i`, the rank (ties averaged)
    of its range :math:`\max_j x_{ij} - \min_j x_{ij}` among the ``N``
    datasets; :math:`S_{ij} = Q_i (r_{ij} - (k+1)/2)`, :math:`S_j =
    \sum_i S_{ij}`, :math:`A = \sum_{ij} S_{ij}^2`, :math:`B = \sum_j
    S_j^2 / N`, and

    .. math::

        t_{ij} = \frac{|S_i - S_j|}{\sqrt{2N(A - B)/((N-1)(k-1))}} \sim t_{(N-1)(k-1)}

    (Conover 1999, sec. 5.8; scikit-posthocs' ``posthoc_quade`` with
    ``dist="t"``, ``p_adjust=None``). Datasets on which the systems differ
    most weigh most. A zero denominator gives NaN p-values with a warning.

    {scores_to_pvalues}
    """
    from scipy.stats import rankdata

    values = np.asarray(scores, dtype=np.float64)
    ranks = _ranks(values)
    n, k = ranks.shape
    weights = rankdata(np.ptp(values, axis=1), method="average")
    s = weights[:, None] * (ranks - (k + 1.0) / 2.0)
    totals = s.sum(axis=0)
    a = float(np.sum(s ** 2))
    b = float(np.sum(totals ** 2)) / n
    df = (n - 1.0) * (k - 1.0)
    return _t_pvalues(totals, np.sqrt(max(2.0 * n * (a - b) / df, 0.0)), df, "Quade")


@_fill_doc
def miller_friedman_pvalues(scores):
    r"""Miller's simultaneous all-pairs test on Friedman ranks.

    With the average ranks :math:`\bar R_j`,

    .. math::

        p_{ij} = P\Big(\chi^2_{k-1} \ge \frac{(\bar R_i - \bar R_j)^2}{k(k+1)/(6N)}\Big),

    a Scheffé-type projection of Friedman's statistic: the p-values hold
    simultaneously for all pairs (no further adjustment; more conservative
    than Nemenyi's). Equal to scikit-posthocs' ``posthoc_miller_friedman``.

    {scores_to_pvalues}
    """
    from scipy.stats import chi2

    ranks = _ranks(scores)
    n, k = ranks.shape
    mean = ranks.mean(axis=0)
    q2 = (mean[:, None] - mean[None, :]) ** 2 / (k * (k + 1.0) / (6.0 * n))
    p = chi2.sf(q2, k - 1)
    np.fill_diagonal(p, 1.0)
    return p
