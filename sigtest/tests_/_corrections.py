"""Multiple-comparison corrections: :func:`sigtest.adjust_pvalues`, used by :func:`sigtest.compare`.

Comparing ``k`` systems pairwise runs ``k (k - 1) / 2`` tests per metric; at
``alpha = 0.05`` some "significant" differences then appear by chance alone.
The corrections below adjust the p-values of one family (one metric, one
test, one run) so that comparing the adjusted p-value to ``alpha`` controls
the family-wise error rate (Bonferroni, Sidak, Holm, Holm-Sidak, Hochberg,
Hommel) or the false discovery rate (Benjamini-Hochberg,
Benjamini-Yekutieli, the two-stage Benjamini-Hochberg and
Benjamini-Krieger-Yekutieli procedures, Gavrilov-Benjamini-Sarkar). Every
method name of statsmodels' ``multipletests`` is accepted.
"""

from numbers import Real

import numpy as np

from sigtest._constants import CORRECTION_ALIASES, CORRECTIONS, TWO_STAGE_CORRECTIONS
from sigtest.utils.validation import real_array

__all__ = ["CORRECTIONS", "adjust_pvalues", "check_correction"]

#: Names statsmodels' ``multipletests`` accepts that are not adjusted
#: p-values, with the closest sigtest method.
_REFUSED = {"lfdr": "fdr_bh", "lfdr_sl": "fdr_bh"}


def check_correction(method, name="method", caller="adjust_pvalues", alpha=None):
    """Validate a correction name; return the canonical method (aliases resolved).

    Parameters
    ----------
    method : str or None
    name : str, default="method"
        The parameter's name in the caller, for the message.
    caller : str, default="adjust_pvalues"
    alpha : float or None, default=None
        The level of the two-stage methods; ``None`` for the others.

    Returns
    -------
    method : str or None
    """
    if isinstance(method, str) and method in _REFUSED:
        raise ValueError(
            f"The {name!r} parameter of {caller}: statsmodels' {method!r} estimates local "
            "false discovery rates (a support-line procedure), not adjusted p-values; the "
            f"closest sigtest method is {_REFUSED[method]!r}."
        )
    if method is not None and (not isinstance(method, str) or method not in CORRECTIONS):
        raise ValueError(
            f"The {name!r} parameter of {caller} must be one of {CORRECTIONS} or None. "
            f"Got {method!r} instead."
        )
    method = CORRECTION_ALIASES.get(method, method)
    if alpha is not None:
        if method not in TWO_STAGE_CORRECTIONS:
            raise ValueError(
                f"The 'alpha' parameter of {caller} applies to the two-stage methods "
                f"{TWO_STAGE_CORRECTIONS} only (their adjusted p-values depend on the "
                f"level); {method!r} does not use it."
            )
        if isinstance(alpha, bool) or not isinstance(alpha, Real) or not 0 < alpha < 1:
            raise ValueError(f"The 'alpha' parameter of {caller} must be a number in "
                             f"(0, 1). Got {alpha!r} instead.")
    return method


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


def _bh_rejections(s, level):
    """Number of hypotheses Benjamini-Hochberg rejects at ``level`` (sorted ``s``)."""
    m = s.size
    below = np.flatnonzero(s <= level * np.arange(1, m + 1) / m)
    return 0 if below.size == 0 else int(below[-1]) + 1


def _two_stage(s, alpha, method):
    r"""Two-stage adaptive FDR adjusted p-values of the sorted ``s`` (one iteration).

    Stage one runs Benjamini-Hochberg at :math:`\alpha' = \alpha / (1 +
    \alpha)` (``"fdr_tsbky"``, Benjamini, Krieger and Yekutieli 2006) or at
    :math:`\alpha` (``"fdr_tsbh"``); its :math:`r_1` rejections estimate the
    number of true nulls :math:`m_0 = m - r_1`, and the adjusted p-values are
    BH's scaled by :math:`m_0 / m` (times :math:`1 + \alpha` for BKY), or
    BH's times :math:`1 + \alpha` (BKY) when :math:`r_1` is 0 or :math:`m`.
    """
    m = s.size
    fact = 1.0 + alpha if method == "fdr_tsbky" else 1.0
    bh = _step_up(s * m / np.arange(1, m + 1))
    r1 = _bh_rejections(s, alpha / fact)
    if r1 in (0, m):
        return np.minimum(1.0, bh * fact)
    return np.minimum(1.0, bh * ((m - r1) / m) * fact)


def _gbs(s):
    r"""Gavrilov, Benjamini and Sarkar's (2009) adaptive step-down adjusted p-values.

    :math:`q_{(i)} = \frac{m + 1 - i}{i} \frac{p_{(i)}}{1 - p_{(i)}}`, made
    monotone as statsmodels does (running maximum, then the running minimum
    from the top), capped at 1.
    """
    m = s.size
    i = np.arange(1, m + 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        q = (m + 1.0 - i) / i * s / (1.0 - s)
    q = np.where(s >= 1.0, np.inf, q)
    return np.minimum(1.0, np.minimum.accumulate(np.maximum.accumulate(q)[::-1])[::-1])


def adjust_pvalues(pvalues, method="holm", *, alpha=None):
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
      :math:`c_m = \sum_{l=1}^m 1/l`; FDR under any dependence;
    * ``"fdr_tsbky"`` (Benjamini, Krieger and Yekutieli 2006) and
      ``"fdr_tsbh"``: two-stage adaptive FDR. Stage one, Benjamini-Hochberg
      at :math:`\alpha / (1 + \alpha)` (BKY) or :math:`\alpha` (BH),
      rejects :math:`r_1` hypotheses; the adjusted p-values are BH's times
      :math:`(m - r_1) / m` (times :math:`1 + \alpha` for BKY), or BH's
      (times :math:`1 + \alpha`) when :math:`r_1` is 0 or :math:`m`. They
      depend on the level ``alpha``: compare them to that level only.
      statsmodels' default (one iteration, ``maxiter=1``);
    * ``"fdr_gbs"`` (Gavrilov, Benjamini and Sarkar 2009): adaptive
      step-down, :math:`q_{(i)} = \frac{m + 1 - i}{i}
      \frac{p_{(i)}}{1 - p_{(i)}}` made monotone (running maximum, then
      running minimum from the top, as statsmodels).

    Every other method name of statsmodels' ``multipletests`` is accepted
    as an alias (``"simes-hochberg"`` and ``"sh"`` for ``"hochberg"``,
    ``"b"``, ``"h"``, ``"hs"``, ``"fdr_i"``, ``"fdr_n"``, ``"fdr_2sbh"``,
    ...). Its ``"lfdr"`` (local false discovery rates, not adjusted
    p-values) is refused with the closest method, ``"fdr_bh"``.

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
        (``"by"``), ``"fdr_tsbh"``, ``"fdr_tsbky"``, ``"fdr_gbs"``, or a
        statsmodels alias of one of them. ``None`` returns a copy of the
        p-values.
    alpha : float in (0, 1), default=None
        The FDR level of the two-stage methods (``"fdr_tsbh"``,
        ``"fdr_tsbky"``; ``None``: 0.05, statsmodels' default); an error
        with the other methods, whose adjusted p-values do not depend on it.

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
        [0, 1]; ``alpha`` given to a method that does not use it.
    TypeError
        ``pvalues`` holding strings, booleans or complex numbers.

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
    Y. Benjamini, A. M. Krieger and D. Yekutieli (2006). Adaptive linear
    step-up procedures that control the false discovery rate. Biometrika
    93(3), 491-507.
    Y. Gavrilov, Y. Benjamini and S. K. Sarkar (2009). An adaptive step-down
    procedure with proven FDR control under independence. Annals of
    Statistics 37(2), 619-629.

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
    >>> adjust_pvalues([0.01, 0.04, 0.03], "simes-hochberg").round(4).tolist()
    [0.03, 0.04, 0.04]
    """
    method = check_correction(method, alpha=alpha)
    if method in TWO_STAGE_CORRECTIONS and alpha is None:
        alpha = 0.05
    p = real_array(pvalues, "pvalues", "p-values (real numbers in [0, 1])")
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
    elif method in TWO_STAGE_CORRECTIONS:
        adj = _two_stage(s, alpha, method)
    elif method == "fdr_gbs":
        adj = _gbs(s)
    else:  # fdr_by
        adj = _step_up(m * np.sum(1.0 / rank) * s / rank)
    sorted_adj = np.empty(m)
    sorted_adj[order] = adj
    out[finite] = sorted_adj
    return out
