"""The critical-difference diagram of Demšar (2006), for :func:`sigtest.compare_datasets`.

Re-exported by :mod:`sigtest.plotting`. The layout is computed in points from
the measured widths of the names, so a plain ``fig.savefig(path)`` clips
nothing. Besides a result, it draws from average ranks and any pairwise
p-value matrix (scikit-posthocs' ``critical_difference_diagram``).
"""

from __future__ import annotations

from collections.abc import Mapping
from numbers import Real

import numpy as np

from sigtest._report.letters import check_pvalue_matrix, letter_columns
from sigtest._report.pyplot import import_pyplot
from sigtest.tests_._rank_tests import nemenyi_critical_difference
from sigtest.utils._param_validation import lazy, validate_params

__all__ = ["nonsignificant_groups", "plot_critical_difference"]


def nonsignificant_groups(ranks, cd):
    """Maximal groups of systems whose average ranks differ by at most ``cd``.

    Systems sorted by rank form an interval graph ("not significantly
    different" = rank gap ``<= cd``), so its maximal cliques are the runs
    ``[i, j]`` with ``j`` the last system within ``cd`` of ``i``, kept when
    they are not inside the previous run and hold at least two systems.
    Returns ``(order, groups)``: the indices sorted by rank and the groups as
    ``(first, last)`` positions in that order.
    """
    ranks = np.asarray(ranks, dtype=np.float64)
    order = np.argsort(ranks, kind="stable")
    r = ranks[order]
    groups, last = [], -1
    for i in range(r.size):
        j = int(np.searchsorted(r, r[i] + cd * (1 + 1e-12), side="right") - 1)
        if j > i and j > last:
            groups.append((i, j))
            last = j
    return order, groups


def _text_width(fig, text, fontsize):
    """Width of ``text`` in points, measured with the figure's renderer."""
    renderer = fig.canvas.get_renderer()
    artist = fig.text(0, 0, text, fontsize=fontsize)
    width = artist.get_window_extent(renderer).width * 72.0 / fig.dpi
    artist.remove()
    return width


def _average_ranks(result):
    """``(ranks, names)`` of a result or of a mapping / Series name -> average rank."""
    if hasattr(result, "average_ranks") and hasattr(result, "pairwise"):
        series = result.average_ranks
        names, values = list(series.index), series.to_numpy()
    elif isinstance(result, Mapping) or hasattr(result, "keys"):  # dict or Series
        names, values = list(result.keys()), [result[n] for n in result.keys()]
    else:
        raise TypeError(
            "The 'result' parameter must be a DatasetComparisonResult or the average ranks "
            f"(a mapping or Series name -> rank). Got {type(result).__name__} instead."
        )
    try:
        ranks = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"The average ranks in 'result' must be numbers: {exc}") from exc
    k = ranks.size
    if k < 2 or len(set(names)) != k:
        raise ValueError(f"The 'result' parameter must rank at least 2 distinct systems. Got "
                         f"{names}.")
    if not np.all(np.isfinite(ranks)) or np.any((ranks < 1) | (ranks > k)):
        raise ValueError(f"The average ranks in 'result' must lie in [1, {k}] (1 = best). Got "
                         f"{ranks.tolist()}.")
    return ranks, names


def _matrix_groups(ranks, names, pvalues, alpha):
    """Groups (index arrays, >= 2 systems) of pairwise p > alpha: the letter columns."""
    if hasattr(pvalues, "dtypes") and all(d == bool for d in np.atleast_1d(pvalues.dtypes)):
        pvalues = (~pvalues).astype(np.float64)  # a significance matrix: True = different
    elif np.asarray(pvalues).dtype == bool:
        pvalues = (~np.asarray(pvalues)).astype(np.float64)
    p_names, p = check_pvalue_matrix(pvalues)
    if not hasattr(pvalues, "columns"):
        if p.shape[0] != len(names):
            raise ValueError(f"The 'pvalues' matrix must be {len(names)} x {len(names)} (one "
                             f"row per ranked system). Got shape {p.shape} instead.")
        p_names = names
    if set(p_names) != set(names) or len(p_names) != len(names):
        raise ValueError(f"The 'pvalues' matrix must name the systems ranked in 'result' "
                         f"{names}. Got {p_names}.")
    where = [p_names.index(n) for n in names]
    sig = p[np.ix_(where, where)] <= alpha  # NaN (diagonal, no test): not significant
    order = np.argsort(ranks, kind="stable")
    return [np.array(sorted(c)) for c in letter_columns(sig, order) if len(c) >= 2]


def _groups_and_cd(result, ranks, names, pvalues, alpha):
    """``(groups, cd, label)``: the bars' groups, the CD (0 for p-values) and its label.

    Without ``pvalues`` the groups are Nemenyi's, from the CD of ``result``
    (a DatasetComparisonResult, None for bare ranks); with them, the maximal
    groups of systems whose pairwise p-values all exceed ``alpha``.
    """
    if pvalues is None:
        if result is None:
            raise ValueError("Average ranks need the 'pvalues' parameter (a pairwise p-value "
                             "matrix) to draw the groups; a DatasetComparisonResult has "
                             "Nemenyi's critical difference.")
        cd, _ = nemenyi_critical_difference(ranks.size, result.n_datasets, alpha)
        order, runs = nonsignificant_groups(ranks, cd)
        return [order[i:j + 1] for i, j in runs], cd, f"CD = {cd:.3f} (alpha = {alpha:g})"
    return _matrix_groups(ranks, names, pvalues, alpha), 0.0, f"bars: pairwise p > {alpha:g}"


def _draw_groups(ax, ranks, groups, y_group0):
    """A thick bar per group of systems not significantly different, one row each.

    A group that skips a system between its ends marks its members with dots.
    """
    for g, members in enumerate(groups):
        y = y_group0 + 0.45 * g
        low, high = ranks[members].min(), ranks[members].max()
        ax.plot([low - 0.03, high + 0.03], [y, y], color="k", lw=4, solid_capstyle="round")
        inside = (ranks > low) & (ranks < high)
        inside[members] = False
        if inside.any():  # not an interval of the ranks: show who is in
            ax.plot(ranks[members], np.full(len(members), y), ls="none", marker="o",
                    ms=4, color="w", markeredgecolor="k", markeredgewidth=0.8)


@validate_params(
    {"result": "no_validation", "pvalues": "no_validation",
     "alpha": [lazy.Interval(Real, 0, 1, closed="neither"), None], "ax": "no_validation"},
    prefer_skip_nested_validation=True,
)
def plot_critical_difference(result, pvalues=None, *, alpha=None, ax=None):
    """Critical-difference diagram: average ranks, the CD, groups not significantly different.

    Systems sit on the average-rank axis (rank 1, the best, at the left);
    their names hang from their rank, the better half on the left, the other
    half on the right. Without ``pvalues``, the bar at the top has the length
    of Nemenyi's critical difference; thick bars join each maximal group of
    systems whose average ranks differ by at most the CD (not significantly
    different by Nemenyi's test), as in Demšar (2006, Fig. 1).

    With ``pvalues`` (any post-hoc: ``result.pairwise("wilcoxon")``, a
    Conover or Wilcoxon matrix of scikit-posthocs, adjusted p-values of
    :func:`sigtest.adjust_pvalues`), the thick bars join the maximal groups
    of systems whose pairwise p-values all exceed ``alpha`` (the columns of
    the compact letter display, :func:`sigtest.compact_letters`), as
    scikit-posthocs' ``critical_difference_diagram``; no CD bar is drawn (a
    p-value matrix has no single critical difference). A group that skips a
    system between its ends marks its members with dots on its bar.

    Parameters
    ----------
    result : DatasetComparisonResult or mapping or Series
        From :func:`sigtest.compare_datasets`, or the average rank of each
        system (name -> rank in [1, k], 1 = best; then ``pvalues`` is
        required).
    pvalues : DataFrame or array-like of shape (k, k), optional
        Symmetric pairwise p-values in [0, 1] (names in the index and
        columns, as the ranks'; an array follows the ranks' order), or a
        boolean matrix, True where two systems differ significantly.
    alpha : float, optional
        Level of the critical difference or of the p-values; default: the
        result's ``alpha``, 0.05 for ranks.
    ax : matplotlib Axes, optional
        Where to draw (its axis lines are hidden and its limits set); a new
        figure sized for the names if omitted.

    Returns
    -------
    ax : matplotlib Axes
        The axes holding the diagram (``ax``, or the axes of a new figure
        sized for the names).

    Raises
    ------
    TypeError
        ``result`` neither a result nor a mapping of ranks.
    ValueError
        Ranks outside [1, k]; average ranks without ``pvalues``; a p-value
        matrix that is not square, not symmetric, outside [0, 1] or names
        other systems.

    References
    ----------
    J. Demšar (2006). Statistical comparisons of classifiers over multiple
    data sets. JMLR 7, 1-30.
    H.-P. Piepho (2004). An algorithm for a letter-based representation of
    all-pairwise comparisons. JCGS 13(2), 456-466.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import pandas as pd
    >>> from sigtest import compare_datasets
    >>> from sigtest.plotting import plot_critical_difference
    >>> table = pd.DataFrame({"A": [.81, .72, .90, .65, .77], "B": [.84, .75, .91, .70, .79],
    ...                       "C": [.80, .70, .88, .66, .74]})
    >>> ax = plot_critical_difference(compare_datasets(table))
    >>> sorted(t.get_text() for t in ax.texts if t.get_text()[1:2] == " ")
    ['A (2.20)', 'B (1.00)', 'C (2.80)']
    >>> ax = plot_critical_difference({"A": 2.2, "B": 1.0, "C": 2.8},
    ...                               pd.DataFrame([[1, .03, .4], [.03, 1, .01], [.4, .01, 1]],
    ...                                            index=list("ABC"), columns=list("ABC")))
    """
    is_result = hasattr(result, "average_ranks") and hasattr(result, "pairwise")
    ranks, names = _average_ranks(result)
    if alpha is None:
        alpha = result.alpha if is_result else 0.05
    alpha = float(alpha)
    k = ranks.size
    order = np.argsort(ranks, kind="stable")
    groups, cd, cd_label = _groups_and_cd(result if is_result else None, ranks, names,
                                          pvalues, alpha)
    names = [str(s) for s in names]
    plt = import_pyplot()

    fontsize = 10.0
    line = 1.6 * fontsize  # points per row
    n_left = (k + 1) // 2
    n_right = k - n_left
    rows_labels = max(n_left, n_right)
    # vertical layout in rows (0 at the top)
    y_title, y_cd, y_axis = 0.7, 1.6, 3.2
    y_group0 = y_axis + 0.9
    y_label0 = y_group0 + 0.45 * len(groups) + 0.6
    height_rows = y_label0 + rows_labels + 0.4

    labels = [f"{names[i]} ({ranks[i]:.2f})" for i in order]
    if ax is None:
        fig = plt.figure(figsize=(6.0, height_rows * line / 72.0))
        ax = fig.add_axes((0, 0, 1, 1))
        own_figure = True
    else:
        fig, own_figure = ax.figure, False
    widths = [_text_width(fig, s, fontsize) for s in labels]
    w_left = max(widths[:n_left]) if n_left else 0.0
    w_right = max(widths[n_left:]) if n_right else 0.0
    title = "average rank (1 = best)"
    w_cd = _text_width(fig, cd_label, fontsize - 1)
    w_title = _text_width(fig, title, fontsize - 1)
    lo, hi = 1.0, float(max(k, 2))
    frac = cd / (hi - lo)
    pad, stub, gap = 8.0, 16.0, 4.0

    def margins(span):
        """Points needed left of rank 1 and right of rank k for an axis of ``span`` points."""
        left = max(w_left + pad + stub, w_title / 2 - span / 2)
        right = max(w_right + pad + stub, (frac - 1) * span + gap + w_cd + pad,
                    w_title / 2 - span / 2)
        return left, right

    def widest_span(total):
        """Largest axis length whose diagram fits in ``total`` points (bisection)."""
        low, high = 0.0, total
        for _ in range(60):
            mid = (low + high) / 2
            if mid + sum(margins(mid)) <= total:
                low = mid
            else:
                high = mid
        return low

    bbox = ax.get_position()
    ax_w = bbox.width * fig.get_size_inches()[0] * 72.0  # points
    span_pts = widest_span(ax_w)
    min_span = 40.0 * max(k - 1, 1)
    if span_pts < min_span and own_figure:
        # a figure of our own: widen it so the names fit
        span_pts = min_span
        fig.set_size_inches((span_pts + sum(margins(span_pts))) / 72.0 / bbox.width,
                            fig.get_size_inches()[1])
    span_pts = max(span_pts, 1.0)
    left_pts, right_pts = margins(span_pts)
    per_pt = (hi - lo) / span_pts  # rank units per point
    left_edge = lo - left_pts * per_pt
    right_edge = hi + right_pts * per_pt
    ax.set_xlim(left_edge, right_edge)
    ax.set_ylim(height_rows, 0)
    ax.set_axis_off()

    # rank axis with ticks
    ax.plot([lo, hi], [y_axis, y_axis], color="k", lw=1)
    for t in range(1, int(hi) + 1):
        ax.plot([t, t], [y_axis - 0.25, y_axis], color="k", lw=1)
        ax.text(t, y_axis - 0.35, str(t), ha="center", va="bottom", fontsize=fontsize - 1)
    for t in np.arange(1.5, hi, 1.0):
        ax.plot([t, t], [y_axis - 0.12, y_axis], color="k", lw=0.7)
    ax.text((lo + hi) / 2, y_title, title, ha="center", va="center",
            fontsize=fontsize - 1)
    # the CD bar (none for a p-value matrix)
    if cd > 0:
        ax.plot([lo, lo + cd], [y_cd, y_cd], color="k", lw=1.5)
        for x in (lo, lo + cd):
            ax.plot([x, x], [y_cd - 0.15, y_cd + 0.15], color="k", lw=1.5)
    ax.text(lo + cd + gap * per_pt, y_cd, cd_label, ha="left",
            va="center", fontsize=fontsize - 1)
    # system names hanging from their ranks
    for pos, idx in enumerate(order):
        left = pos < n_left
        row = pos if left else k - 1 - pos
        y = y_label0 + row
        x_end = lo - stub * per_pt if left else hi + stub * per_pt
        ax.plot([ranks[idx], ranks[idx], x_end], [y_axis, y, y], color="0.3", lw=0.8)
        ax.text(x_end - 3 * per_pt if left else x_end + 3 * per_pt, y, labels[pos],
                ha="right" if left else "left", va="center", fontsize=fontsize)
    _draw_groups(ax, ranks, groups, y_group0)
    return ax
