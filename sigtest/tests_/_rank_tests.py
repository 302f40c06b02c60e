r"""Rank statistics for comparing ``k`` systems over ``N`` datasets (Demšar 2006).

Pure functions on an ``(N, k)`` matrix of scores oriented so that **higher is
better** (the caller negates losses). They back
:func:`sigtest.compare_datasets` and :func:`sigtest.plotting.plot_critical_difference`.

* :func:`average_ranks` — rank 1 = best on each dataset, ties get the average
  rank, averaged over datasets;
* :func:`friedman_test` — Friedman's :math:`\chi^2_F` (with the tie
  correction of :func:`scipy.stats.friedmanchisquare`) and the Iman-Davenport
  :math:`F_F`;
* :func:`nemenyi_critical_difference`, :func:`nemenyi_pvalues` — Nemenyi's
  all-pairs test on average ranks;
* :func:`rank_z_pvalues` — the z statistics of rank differences, adjusted
  (Holm by default; all pairs, or against a control);
* :func:`wilcoxon_pvalues` — pairwise Wilcoxon signed-rank tests on the
  scores across datasets, adjusted (Benavoli, Corani and Mangili 2016);
* :func:`adjust_pairs` — picks the pairs of a raw ``(k, k)`` p-value matrix
  (all, or against a control) and adjusts them as one family;
* :func:`partial_conjunction` — the replicability count of Dror et al. (2017).

References
----------
J. Demšar (2006). Statistical comparisons of classifiers over multiple data
sets. JMLR 7, 1-30.
A. Benavoli, G. Corani and F. Mangili (2016). Should we really use post-hoc
tests based on mean-ranks? JMLR 17(5), 1-10.
R. Dror, G. Baumer, M. Bogomolov and R. Reichart (2017). Replicability
analysis for natural language processing: testing significance with multiple
datasets. TACL 5, 471-486.
"""

from collections import namedtuple

import numpy as np

from sigtest.tests_._corrections import adjust_pvalues

__all__ = ["RankTestResult", "adjust_pairs", "average_ranks", "friedman_test", "nemenyi_critical_difference",
           "nemenyi_pvalues", "partial_conjunction", "rank_matrix", "rank_z_pvalues",
           "wilcoxon_pvalues"]

#: ``statistic`` and ``pvalue`` of an omnibus test (with its degrees of freedom).
RankTestResult = namedtuple("RankTestResult", ["statistic", "pvalue", "df"])


def rank_matrix(scores):
    """Ranks per dataset (row): 1 = highest score, ties get their average rank."""
    from scipy.stats import rankdata

    return rankdata(-np.asarray(scores, dtype=np.float64), axis=1, method="average")


def average_ranks(scores):
    """Average rank of each system (column) over the datasets (rows)."""
    return rank_matrix(scores).mean(axis=0)


def friedman_test(scores, tie_correction=True):
    r"""Friedman's :math:`\chi^2_F` and the Iman-Davenport :math:`F_F`.

    With :math:`R_j` the average ranks of ``k`` systems over ``N`` datasets,

    .. math::

        \chi^2_F = \frac{12 N}{k(k+1)}\Big[\sum_j R_j^2 - \frac{k(k+1)^2}{4}\Big]
        \Big/ \Big(1 - \frac{\sum (t^3 - t)}{N k (k^2 - 1)}\Big),

    the denominator correcting for ties (``t``: the sizes of the groups of tied
    scores within a dataset; 1 without ties), as
    :func:`scipy.stats.friedmanchisquare` does; :math:`\chi^2_F \sim
    \chi^2_{k-1}`. Iman and Davenport's :math:`F_F = (N-1)\chi^2_F / (N(k-1) -
    \chi^2_F) \sim F_{k-1, (k-1)(N-1)}` (Demšar 2006, eq. 2). When every
    dataset ranks the systems in the same order :math:`F_F = \infty` and its
    p-value is 0. When every score is tied on every dataset both statistics
    are 0 and both p-values 1. ``tie_correction=False`` gives Demšar's
    formula as printed (no denominator), used to check his worked example.
    """
    from scipy.stats import chi2, f

    scores = np.asarray(scores, dtype=np.float64)
    n, k = scores.shape
    ranks = rank_matrix(scores)
    mean = ranks.mean(axis=0)
    # sum over tie groups of t^3 - t = sum over scores of t(score)^2 - 1
    t = (scores[:, :, None] == scores[:, None, :]).sum(axis=2).astype(np.float64)
    ties = float(np.sum(t * t - 1.0))
    denom = 1.0 - ties / (n * k * (k * k - 1.0)) if tie_correction else 1.0
    raw = 12.0 * n / (k * (k + 1.0)) * (np.sum(mean ** 2) - k * (k + 1.0) ** 2 / 4.0)
    if denom <= 0:  # every dataset ties every system: no evidence at all
        stat = 0.0
    else:
        stat = max(float(raw / denom), 0.0)
    p_chi = float(chi2.sf(stat, k - 1))
    df1, df2 = k - 1.0, (k - 1.0) * (n - 1.0)
    gap = n * (k - 1.0) - stat
    if gap <= 1e-12 * max(1.0, n * (k - 1.0)):
        f_stat, p_f = np.inf, 0.0
    else:
        f_stat = (n - 1.0) * stat / gap
        p_f = float(f.sf(f_stat, df1, df2)) if n > 1 else np.nan
    return (RankTestResult(stat, p_chi, float(k - 1)),
            RankTestResult(float(f_stat), p_f, (df1, df2)))


def _rank_se(k, n):
    return np.sqrt(k * (k + 1.0) / (6.0 * n))


def nemenyi_critical_difference(k, n, alpha=0.05):
    r"""Nemenyi's critical difference :math:`CD = q_\alpha \sqrt{k(k+1)/(6N)}`.

    :math:`q_\alpha` is the :math:`1-\alpha` quantile of the Studentized range
    of ``k`` means with infinite degrees of freedom divided by
    :math:`\sqrt 2` (Demšar 2006, Table 5: 2.569 for ``k = 4``, alpha = .05).
    Returns ``(cd, q_alpha)``.
    """
    from scipy.stats import studentized_range

    q = float(studentized_range.ppf(1.0 - alpha, k, np.inf) / np.sqrt(2.0))
    return q * float(_rank_se(k, n)), q


def nemenyi_pvalues(mean_ranks, n):
    r"""Nemenyi p-values of every pair, a ``(k, k)`` array (1 on the diagonal).

    :math:`p_{ij} = P(Q_{k,\infty} \ge \sqrt 2\,|R_i - R_j| / \sqrt{k(k+1)/(6N)})`,
    ``Q`` the Studentized range; already adjusted for the ``k(k-1)/2`` pairs.
    """
    from scipy.stats import studentized_range

    r = np.asarray(mean_ranks, dtype=np.float64)
    k = r.size
    q = np.abs(r[:, None] - r[None, :]) / _rank_se(k, n)
    p = studentized_range.sf(q * np.sqrt(2.0), k, np.inf)
    p = np.minimum(p, 1.0)
    np.fill_diagonal(p, 1.0)
    return p


def _pairs(k, control):
    if control is None:
        return [(i, j) for i in range(k) for j in range(i + 1, k)]
    return [(control, j) for j in range(k) if j != control]


def _fill(k, pairs, adjusted):
    out = np.full((k, k), np.nan)
    np.fill_diagonal(out, 1.0)
    for (i, j), p in zip(pairs, adjusted):
        out[i, j] = out[j, i] = p
    return out


def adjust_pairs(raw, control=None, correction="holm"):
    """Adjust the pairs of a raw ``(k, k)`` p-value matrix as one family.

    The family is the ``k - 1`` pairs with ``control`` (an index), or all
    ``k(k-1)/2`` pairs when ``control`` is None; ``correction`` is any method
    of :func:`~sigtest.tests_._corrections.adjust_pvalues` (None: raw p-values).
    Returns the symmetric matrix with 1 on the diagonal and NaN for the
    pairs not tested.
    """
    raw = np.asarray(raw, dtype=np.float64)
    k = raw.shape[0]
    pairs = _pairs(k, control)
    family = np.array([raw[i, j] for i, j in pairs])
    return _fill(k, pairs, adjust_pvalues(family, correction))


def rank_z_pvalues(mean_ranks, n, control=None, correction="holm"):
    r"""Adjusted p-values of :math:`z = (R_i - R_j)/\sqrt{k(k+1)/(6N)}`.

    Two-sided normal p-values (Demšar 2006, sec. 3.2.2), adjusted with
    ``correction`` (Holm's step-down procedure by default) over the ``k - 1``
    comparisons with ``control`` (an index), or over all ``k(k-1)/2`` pairs
    when ``control`` is None. Pairs that were not tested are NaN.
    """
    from scipy.stats import norm

    r = np.asarray(mean_ranks, dtype=np.float64)
    z = np.abs(r[:, None] - r[None, :]) / _rank_se(r.size, n)
    return adjust_pairs(np.minimum(2.0 * norm.sf(z), 1.0), control, correction)


def _signed_rank_pvalue(x, y):
    """Two-sided Wilcoxon signed-rank p-value with scipy's default rules.

    :func:`scipy.stats.wilcoxon` (``method="auto"``, zeros dropped) uses the
    exact null distribution without ties or zeros (``n <= 50``), the normal
    approximation with continuity and tie corrections above 50 items or with
    ties beyond 13, and with ties or zeros at ``n <= 13`` the exact
    conditional distribution over the ``2**n`` sign patterns, which it
    computes through ``permutation_test`` (about a second per pair). That
    last case is enumerated here directly (same p-value: the mass of
    patterns at least as extreme on either side, doubled, capped at 1).
    """
    from scipy.stats import rankdata, wilcoxon

    d = y - x
    n = d.size
    nz = d[d != 0]
    ties = np.unique(np.abs(nz)).size < nz.size
    if n > 13 or not (ties or nz.size < n):
        return float(wilcoxon(x, y).pvalue)
    r = rankdata(np.abs(nz))
    observed = r[nz > 0].sum()
    signs = ((np.arange(2 ** nz.size)[:, None] >> np.arange(nz.size)) & 1).astype(np.float64)
    dist = signs @ r  # the sums of ranks are multiples of 1/2: exact in float64
    less = np.mean(dist <= observed)
    greater = np.mean(dist >= observed)
    return float(min(1.0, 2.0 * min(less, greater)))


def wilcoxon_pvalues(scores, control=None, correction="holm"):
    """Adjusted (Holm by default) two-sided Wilcoxon signed-rank p-values across datasets.

    One signed-rank test per pair of columns with the p-value of
    :func:`scipy.stats.wilcoxon`'s defaults (zero differences dropped;
    exact distribution for small samples, conditional on ties); a pair whose
    differences are all zero gets p = 1. Returns the ``(k, k)`` matrix (NaN
    for pairs not tested) and the list of pairs with all-zero differences.
    """
    scores = np.asarray(scores, dtype=np.float64)
    k = scores.shape[1]
    pairs = _pairs(k, control)
    raw, flat = [], []
    for i, j in pairs:
        if np.all(scores[:, j] == scores[:, i]):
            raw.append(1.0)
            flat.append((i, j))
        else:
            raw.append(_signed_rank_pvalue(scores[:, i], scores[:, j]))
    return _fill(k, pairs, adjust_pvalues(np.asarray(raw), correction)), flat


def partial_conjunction(pvalues, alpha=0.05, method="bonferroni"):
    r"""Replicability count of Dror et al. (2017): in how many datasets the effect holds.

    With the ``N`` p-values sorted, :math:`p_{(1)} \le \dots \le p_{(N)}`, the
    partial-conjunction null :math:`H_0^{u/N}` ("the effect holds in fewer
    than ``u`` datasets") has the p-value

    * Bonferroni: :math:`p^{u/N} = \min(1, (N - u + 1)\,p_{(u)})`;
    * Fisher: :math:`p^{u/N} = P\big(\chi^2_{2(N-u+1)} \ge -2\sum_{i=u}^{N}
      \log p_{(i)}\big)` (valid for independent datasets).

    The count is :math:`\hat u = \max\{u : p^{i/N} \le \alpha \text{ for all }
    i \le u\}` (0 when :math:`p^{1/N} > \alpha`): with the monotone p-values
    :math:`\tilde p^{u/N} = \max_{i \le u} p^{i/N}`, the largest ``u`` with
    :math:`\tilde p^{u/N} \le \alpha`. Returns ``(u_hat, monotone p-values)``.
    NaN p-values are left out (``N`` counts the others).
    """
    from scipy.stats import chi2

    p = np.sort(np.asarray(pvalues, dtype=np.float64))
    p = p[~np.isnan(p)]
    n = p.size
    if n == 0:
        return 0, p
    u = np.arange(1, n + 1)
    if method == "bonferroni":
        pc = np.minimum(1.0, (n - u + 1) * p)
    elif method == "fisher":
        logs = np.log(np.maximum(p, np.finfo(np.float64).tiny))
        tail = np.cumsum(logs[::-1])[::-1]  # sum_{i >= u} log p_(i)
        pc = chi2.sf(-2.0 * tail, 2 * (n - u + 1))
    else:
        raise ValueError(
            f"The 'method' parameter must be 'bonferroni' or 'fisher'. Got {method!r} instead.")
    mono = np.maximum.accumulate(pc)
    return int(np.sum(mono <= alpha)), mono
