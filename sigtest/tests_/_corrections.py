"""Multiple-comparison corrections applied by :func:`sigtest.compare`.

Comparing ``k`` systems pairwise runs ``k (k - 1) / 2`` tests per metric; at
``alpha = 0.05`` some "significant" differences then appear by chance alone.
The corrections below adjust the p-values of one family (one metric, one
test, one run) so that comparing the adjusted p-value to ``alpha`` controls
the family-wise error rate (Bonferroni, Holm) or the false discovery rate
(Benjamini-Hochberg).
"""

import numpy as np

__all__ = ["CORRECTIONS", "adjust_pvalues"]

CORRECTIONS = ("holm", "bonferroni", "fdr_bh")


def adjust_pvalues(pvalues, method="holm"):
    r"""Adjust a family of p-values for multiple comparisons.

    Parameters
    ----------
    pvalues : array-like of shape (m,)
        Raw p-values in [0, 1]. NaN entries (tests that could not be
        computed) are left NaN and do not count in the family size ``m``.
    method : {"holm", "bonferroni", "fdr_bh"} or None, default="holm"
        ``"bonferroni"``: :math:`\tilde p_i = \min(1, m p_i)`.
        ``"holm"`` (step-down, Holm 1979): with :math:`p_{(1)} \le \dots \le
        p_{(m)}`, :math:`\tilde p_{(i)} = \max_{j \le i} \min(1, (m - j + 1)
        p_{(j)})`; uniformly more powerful than Bonferroni, same family-wise
        error control.
        ``"fdr_bh"`` (Benjamini and Hochberg 1995): :math:`\tilde p_{(i)} =
        \min_{j \ge i} \min(1, m p_{(j)} / j)`, computed by
        :func:`scipy.stats.false_discovery_control`; controls the false
        discovery rate under independence or positive dependence.
        ``None`` returns the p-values unchanged.

    Returns
    -------
    adjusted : ndarray of shape (m,)
        Adjusted p-values in the input order.

    References
    ----------
    S. Holm (1979). A simple sequentially rejective multiple test procedure.
    Scandinavian Journal of Statistics 6(2), 65-70.
    Y. Benjamini and Y. Hochberg (1995). Controlling the false discovery rate.
    JRSS B 57(1), 289-300.

    Examples
    --------
    >>> from sigtest.tests_._corrections import adjust_pvalues
    >>> adjust_pvalues([0.01, 0.04, 0.03], "holm").round(4).tolist()
    [0.03, 0.06, 0.06]
    >>> adjust_pvalues([0.01, 0.04, 0.03], "bonferroni").round(4).tolist()
    [0.03, 0.12, 0.09]
    >>> adjust_pvalues([0.01, 0.04, 0.03], "fdr_bh").round(4).tolist()
    [0.03, 0.04, 0.04]
    """
    if method is not None and method not in CORRECTIONS:
        raise ValueError(
            f"The 'correction' parameter must be one of {CORRECTIONS} or None. "
            f"Got {method!r} instead."
        )
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
        adj = np.minimum(1.0, q * m)
    elif method == "holm":
        order = np.argsort(q, kind="stable")
        stepped = np.minimum(1.0, (m - np.arange(m)) * q[order])
        adj = np.empty(m)
        adj[order] = np.maximum.accumulate(stepped)
    else:
        from scipy.stats import false_discovery_control  # scipy.stats on first use

        adj = false_discovery_control(q, method="bh")
    out[finite] = adj
    return out
