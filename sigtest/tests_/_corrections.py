"""Multiple-comparison corrections: :func:`sigtest.adjust_pvalues`, used by :func:`sigtest.compare`.

Comparing ``k`` systems pairwise runs ``k (k - 1) / 2`` tests per metric; at
``alpha = 0.05`` some "significant" differences then appear by chance alone.
The corrections below adjust the p-values of one family (one metric, one
test, one run) so that comparing the adjusted p-value to ``alpha`` controls
the family-wise error rate (Bonferroni, Sidak, Holm, Holm-Sidak, Hochberg,
Hommel) or the false discovery rate (Benjamini-Hochberg,
Benjamini-Yekutieli).
"""

import numpy as np

from sigtest._constants import CORRECTION_ALIASES, CORRECTIONS

__all__ = ["CORRECTIONS", "adjust_pvalues"]


def _step_down(raw):
    """Running maximum of sorted raw adjusted p-values, capped at 1 (step-down)."""
    return np.minimum(1.0, np.maximum.accumulate(raw))


def _step_up(raw):
    """Running minimum from the largest p-value down, capped at 1 (step-up)."""
    return np.minimum(1.0, np.minimum.accumulate(raw[::-1])[::-1])


def _sidak(p, m):
    """:math:`1 - (1 - p)^m` without cancellation for small ``p`` (1 at ``p = 1``)."""
    with np.errstate(divide="ignore"):  # log1p(-1) = -inf -> 1 - exp(-inf) = 1
        return -np.expm1(m * np.log1p(-p))


def _hommel(q):
    r"""Hommel's adjusted p-values of the sorted p-values ``q`` (closed Simes tests).

    The adjusted p-value of hypothesis :math:`H_i` is the largest Simes
    p-value :math:`p_S(I) = \min_j |I| p_{(j:I)} / j` over the intersections
    :math:`I \ni i`. Simes' p-value increases with every member's p-value,
    so among the sets of size :math:`s` the largest is the set of the
    :math:`s` largest p-values when it holds :math:`i`, else :math:`\{i\}`
    with the :math:`s - 1` largest; with
    :math:`c_s = \min_{j=1..s} s\,p_{(m-s+j)} / j` the latter's Simes value
    is :math:`\min(c_s, s\,p_i)`. So
    :math:`\tilde p_{(i)} = \max_{s} c_s` over the sizes :math:`s \ge m - i + 1`
    (``i`` among the ``s`` largest) and :math:`\min(c_s, s p_{(i)})` over the
    others (Wright 1992). O(m^2) operations.
    """
    m = q.size
    adj = q.copy()  # s = 1: the hypothesis alone
    for s in range(2, m + 1):
        c = np.min(s * q[m - s:] / np.arange(1, s + 1))
        adj[: m - s] = np.maximum(adj[: m - s], np.minimum(c, s * q[: m - s]))
        adj[m - s:] = np.maximum(adj[m - s:], c)
    return np.minimum(1.0, adj)


def adjust_pvalues(pvalues, method="holm"):
    r"""Adjust a family of p-values for multiple comparisons.

    With the ``m`` non-NaN p-values sorted, :math:`p_{(1)} \le \dots \le
    p_{(m)}`, the adjusted p-values :math:`\tilde p` are (each capped at 1;
    :math:`\tilde p_i \le \alpha` rejects :math:`H_i`):

    * ``"bonferroni"``: :math:`\tilde p_i = m p_i` (family-wise error rate,
      FWER, under any dependence);
    * ``"sidak"``: :math:`\tilde p_i = 1 - (1 - p_i)^m` (FWER for independent
      or positively dependent tests; Sidak 1967);
    * ``"holm"`` (step-down; Holm 1979): :math:`\tilde p_{(i)} = \max_{j \le i}
      (m - j + 1) p_{(j)}`; uniformly more powerful than Bonferroni, same FWER
      control under any dependence;
    * ``"holm-sidak"``: step-down with Sidak's factor, :math:`\tilde p_{(i)} =
      \max_{j \le i} 1 - (1 - p_{(j)})^{m - j + 1}`;
    * ``"hochberg"`` (step-up; Hochberg 1988): :math:`\tilde p_{(i)} =
      \min_{j \ge i} (m - j + 1) p_{(j)}` (FWER under independence or
      positive dependence; statsmodels' ``"simes-hochberg"``);
    * ``"hommel"`` (Hommel 1988): the closed testing procedure of Simes'
      tests, :math:`\tilde p_i = \max_{I \ni i} \min_j |I| p_{(j:I)} / j`
      over the intersections :math:`I` that hold :math:`H_i`, computed
      by Wright's (1992) O(m^2) algorithm; at least as powerful as Hochberg,
      same assumptions;
    * ``"fdr_bh"`` (alias ``"bh"``; Benjamini and Hochberg 1995): step-up
      :math:`\tilde p_{(i)} = \min_{j \ge i} m p_{(j)} / j`; false discovery
      rate (FDR) under independence or positive dependence;
    * ``"fdr_by"`` (alias ``"by"``; Benjamini and Yekutieli 2001):
      :math:`\tilde p_{(i)} = \min_{j \ge i} m c_m p_{(j)} / j` with
      :math:`c_m = \sum_{l=1}^m 1/l`; FDR under any dependence.

    Parameters
    ----------
    pvalues : array-like of shape (m,)
        Raw p-values in [0, 1]. NaN entries (tests that could not be
        computed) stay NaN and do not count in the family size ``m``: the
        other p-values are adjusted as the family without them, where
        statsmodels' ``multipletests`` returns wrong values or NaN for every
        entry once one is NaN (statsmodels issue #2899).
    method : str or None, default="holm"
        One of ``"bonferroni"``, ``"sidak"``, ``"holm"``, ``"holm-sidak"``,
        ``"hochberg"``, ``"hommel"``, ``"fdr_bh"`` (``"bh"``), ``"fdr_by"``
        (``"by"``). ``None`` returns a copy of the p-values.

    Returns
    -------
    adjusted : ndarray of shape (m,)
        Adjusted p-values in the input order, equal to statsmodels'
        ``multipletests(pvalues, method=...)[1]`` (to rounding) when no
        p-value is NaN.

    Raises
    ------
    ValueError
        Unknown ``method``; ``pvalues`` not 1-D or with values outside
        [0, 1].

    References
    ----------
    Z. Sidak (1967). Rectangular confidence regions for the means of
    multivariate normal distributions. JASA 62(318), 626-633.
    S. Holm (1979). A simple sequentially rejective multiple test procedure.
    Scandinavian Journal of Statistics 6(2), 65-70.
    Y. Hochberg (1988). A sharper Bonferroni procedure for multiple tests of
    significance. Biometrika 75(4), 800-802.
    G. Hommel (1988). A stagewise rejective multiple test procedure based on
    a modified Bonferroni test. Biometrika 75(2), 383-386.
    S. P. Wright (1992). Adjusted p-values for simultaneous inference.
    Biometrics 48(4), 1005-1013.
    Y. Benjamini and Y. Hochberg (1995). Controlling the false discovery rate.
    JRSS B 57(1), 289-300.
    Y. Benjamini and D. Yekutieli (2001). The control of the false discovery
    rate in multiple testing under dependency. Annals of Statistics 29(4),
    1165-1188.

    Examples
    --------
    >>> from sigtest import adjust_pvalues
    >>> adjust_pvalues([0.01, 0.04, 0.03], "holm").round(4).tolist()
    [0.03, 0.06, 0.06]
    >>> adjust_pvalues([0.01, 0.04, 0.03], "bonferroni").round(4).tolist()
    [0.03, 0.12, 0.09]
    >>> adjust_pvalues([0.01, 0.04, 0.03], "hommel").round(4).tolist()
    [0.03, 0.04, 0.04]
    >>> adjust_pvalues([0.01, float("nan"), 0.04, 0.03], "fdr_bh").round(4).tolist()
    [0.03, nan, 0.04, 0.04]
    """
    if method is not None and (not isinstance(method, str) or method not in CORRECTIONS):
        raise ValueError(
            f"The 'method' (compare's 'correction') parameter must be one of {CORRECTIONS} "
            f"or None. Got {method!r} instead."
        )
    method = CORRECTION_ALIASES.get(method, method)
    p = np.asarray(pvalues, dtype=np.float64)
    if p.ndim != 1:
        raise ValueError(f"The 'pvalues' parameter must be 1-D. Got shape {p.shape} instead.")
    finite = ~np.isnan(p)
    if np.any((p[finite] < 0) | (p[finite] > 1)):
        raise ValueError("The 'pvalues' parameter must hold values in [0, 1] (or NaN).")
    out = p.copy()
    if method is None or not finite.any():
        return out
    q = p[finite]
    m = q.size
    if method == "bonferroni":
        out[finite] = np.minimum(1.0, m * q)
        return out
    if method == "sidak":
        out[finite] = _sidak(q, m)
        return out
    order = np.argsort(q, kind="stable")
    s = q[order]
    rank = np.arange(1, m + 1)
    if method == "holm":
        adj = _step_down((m - rank + 1) * s)
    elif method == "holm-sidak":
        adj = _step_down(_sidak(s, m - rank + 1))
    elif method == "hochberg":
        adj = _step_up((m - rank + 1) * s)
    elif method == "hommel":
        adj = _hommel(s)
    elif method == "fdr_bh":
        adj = _step_up(m * s / rank)
    else:  # fdr_by
        adj = _step_up(m * np.sum(1.0 / rank) * s / rank)
    sorted_adj = np.empty(m)
    sorted_adj[order] = adj
    out[finite] = sorted_adj
    return out
