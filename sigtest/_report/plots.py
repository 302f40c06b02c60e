"""The plots of :mod:`sigtest.plotting` (their public page is its docstring).

Each function imports matplotlib when it draws (:mod:`sigtest._report.pyplot`).
"""

from __future__ import annotations

from numbers import Integral

import numpy as np

from sigtest._report.pyplot import import_pyplot
from sigtest.metrics._common import fill_doc
from sigtest.utils._param_validation import lazy, validate_params

__all__ = ["plot_comparison", "plot_posterior", "plot_resampling_distribution"]
__all__ += ["plot_critical_difference"]  # the CD diagram lives in _plot_cd
from sigtest._report.plot_cd import plot_critical_difference  # noqa: E402


def _axes(ax, figsize=None):
    # constrained layout: a plain savefig keeps long tick labels and titles inside
    if ax is None:
        _, ax = import_pyplot().subplots(layout="constrained", figsize=figsize)
    return ax


def _check_comparison(result, func):
    """TypeError naming ``result`` unless it is a :func:`sigtest.compare` result."""
    if not (hasattr(result, "to_frame") and hasattr(result, "systems")):
        hint = (" For one test's SignificanceResult use plot_resampling_distribution "
                "(or plot_posterior for a Bayesian one)."
                if hasattr(result, "null_distribution") else "")
        raise TypeError(
            f"The 'result' parameter of {func} must be a ComparisonResult (from "
            f"sigtest.compare, cross_val_compare or Experiment.run). Got "
            f"{type(result).__name__} instead.{hint}"
        )


def _select_metric(frame, metric):
    """The metric (checked, or the only one) and its rows of a comparison's frame."""
    metrics = list(dict.fromkeys(frame["metric"]))
    if metric is None:
        if len(metrics) != 1:
            raise ValueError(
                f"The 'metric' parameter is required when the result holds several metrics "
                f"({metrics})."
            )
        metric = metrics[0]
    elif metric not in metrics:
        raise ValueError(f"The 'metric' parameter must be one of {metrics}. Got {metric!r}.")
    return metric, frame[frame["metric"] == metric]


def _metric_rows(result, metric, test=None, run=None):
    """The rows of one metric (and test, run) of a comparison's frame."""
    metric, rows = _select_metric(result.to_frame(), metric)
    tests = list(dict.fromkeys(rows["test"]))
    if test is None:
        test = tests[0]
    elif test not in tests:
        raise ValueError(f"The 'test' parameter must be one of {tests}. Got {test!r}.")
    rows = rows[rows["test"] == test]
    if "run" in rows:
        runs = sorted(set(rows["run"]))
        if run is None:
            raise ValueError(
                f"This result holds {len(runs)} runs tested separately; the 'run' parameter "
                "(0-based) is required."
            )
        if run not in runs:
            raise ValueError(f"The 'run' parameter must be one of {runs}. Got {run!r}.")
        rows = rows[rows["run"] == run]
    return metric, test, rows.reset_index(drop=True)


@validate_params(
    {
        "result": [lazy.HasMethods(["ci"])],
        "ax": "no_validation",
        "bins": [lazy.Interval(Integral, 1, None, closed="left"), str, "array-like"],
    },
    prefer_skip_nested_validation=True,
)
def plot_resampling_distribution(result, *, ax=None, bins=50):
    """Histogram of the resampled differences ``delta*`` of a test.

    Parameters
    ----------
    result : SignificanceResult
        A result whose test stored its resampled distribution
        (``result.null_distribution``; with ``result.null_weights`` for an
        exact permutation test, drawn as probabilities).
    ax : matplotlib Axes, optional
        Where to draw; a new figure if omitted.
    bins : int, str or array-like, default=50
        Histogram bins, as for :meth:`matplotlib.axes.Axes.hist`.

    Returns
    -------
    ax : matplotlib Axes
        With the histogram, a solid line at the observed ``delta`` and dashed
        lines at the interval bounds when they are finite.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from sigtest import BCaInterval
    >>> from sigtest.plotting import plot_resampling_distribution
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 300)
    >>> a = np.where(rng.random(300) < 0.7, y, 1 - y)
    >>> b = np.where(rng.random(300) < 0.8, y, 1 - y)
    >>> ax = plot_resampling_distribution(BCaInterval(n_resamples=999, random_state=0).test(y, a, b))
    >>> ax.get_xlabel()
    'accuracy difference (B - A)'
    """
    deltas = getattr(result, "null_distribution", None)
    if deltas is None:
        raise ValueError(
            "The 'result' parameter holds no resampled distribution "
            f"(test {getattr(result, 'test', '?')!r} stored none)."
        )
    deltas = np.asarray(deltas, dtype=np.float64)
    ax = _axes(ax)
    weights = getattr(result, "null_weights", None)
    if weights is None:
        ax.hist(deltas, bins=bins, color="0.75", edgecolor="0.5",
                label=f"resampled ({deltas.size})")
    else:  # exact permutation: every pattern with its probability
        ax.hist(deltas, bins=bins, weights=np.asarray(weights, dtype=np.float64), color="0.75",
                edgecolor="0.5", label="exact distribution")
    ax.axvline(result.delta, color="C3", lw=2, label=f"observed {result.delta:+.4f}")
    low, high = result.confidence_interval
    if np.isfinite(low) and np.isfinite(high):
        ax.axvline(low, color="C0", ls="--", label=f"CI [{low:+.4f}, {high:+.4f}]")
        ax.axvline(high, color="C0", ls="--")
    ax.set_xlabel(f"{result.metric} difference (B - A)")
    ax.set_ylabel("count" if weights is None else "probability")
    title = f"{result.test}: p = {result.pvalue:.4g}" if np.isfinite(result.pvalue) else result.test
    ax.set_title(title)
    ax.legend(loc="best", fontsize="small")
    return ax


@validate_params(
    {"result": "no_validation", "metric": [str, None], "ax": "no_validation"},
    prefer_skip_nested_validation=True,
)
def plot_comparison(result, metric=None, *, ax=None):
    """Forest plot of the pairwise differences of a :func:`sigtest.compare` result.

    One row per pair ``B vs A``: a point at ``delta = score_b - score_a`` and a
    bar for its confidence interval (when the test gave one). Pairs whose
    adjusted p-value is significant (``pvalue_adj <= alpha``) are drawn in
    colour, the others in grey, as the legend says; a vertical line marks 0
    (no difference).

    Parameters
    ----------
    result : ComparisonResult
        The result of :func:`sigtest.compare` (or ``recompare``).
    metric : str, optional
        Which metric to plot; required when the result holds several.
    ax : matplotlib Axes, optional
        Where to draw; a new figure with constrained layout if omitted (a
        plain ``fig.savefig(path)`` then keeps every name inside the image).

    Returns
    -------
    ax : matplotlib Axes
        One row per pair, significant pairs in colour.

    Raises
    ------
    TypeError
        If ``result`` is not a comparison result (e.g. one test's
        :class:`~sigtest.SignificanceResult`).

    See Also
    --------
    plot_pvalue_heatmap : The adjusted p-values of every pair.
    plot_letters : The systems by score with their letters.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from sigtest import PairedPermutation, compare
    >>> from sigtest.plotting import plot_comparison
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 3, 500)
    >>> preds = {f"s{q}": np.where(rng.random(500) < q, y, (y + 1) % 3) for q in (0.6, 0.7, 0.8)}
    >>> res = compare(y, preds, metrics="accuracy", random_state=0)
    >>> ax = plot_comparison(res)
    >>> len(ax.get_yticklabels())
    3
    """
    _check_comparison(result, "plot_comparison")
    metric, rows = _select_metric(result.to_frame(), metric)
    rows = rows.reset_index(drop=True)
    # long pairs on two lines; the new figure is as wide as its longest label needs
    labels = [f"{r.system_b} vs {r.system_a}" for r in rows.itertuples()]
    labels = [label if len(label) <= 30 else f"{r.system_b}\nvs {r.system_a}"
              for label, r in zip(labels, rows.itertuples())]
    longest = max((len(line) for label in labels for line in label.split("\n")), default=0)
    lines = sum(label.count("\n") + 1 for label in labels)
    ax = _axes(ax, figsize=(max(6.4, 3.6 + 0.085 * longest), max(2.5, 1.4 + 0.3 * lines)))
    y = np.arange(len(rows))[::-1]
    for yi, (_, row) in zip(y, rows.iterrows()):
        sig = bool(row.get("significant", False))
        color = "C3" if sig else "0.5"
        if np.isfinite(row["ci_low"]) and np.isfinite(row["ci_high"]):
            ax.plot([row["ci_low"], row["ci_high"]], [yi, yi], color=color, lw=2)
        ax.plot([row["delta"]], [yi], "o", color=color)
    ax.axvline(0.0, color="k", lw=0.8)
    ax.set_yticks(y)
    ax.set_yticklabels(labels)
    ax.set_xlabel(f"{metric} difference (B - A)")

    from matplotlib.lines import Line2D

    alpha = getattr(result, "alpha", None)
    level = f" (p_adj <= {alpha:g})" if alpha is not None else ""
    handles = [Line2D([], [], color="C3", marker="o", lw=2,
                      label=f"significant after correction{level}"),
               Line2D([], [], color="0.5", marker="o", lw=2, label="not significant"),
               Line2D([], [], color="k", lw=0.8, label="no difference (0)")]
    # above the axes (no title there), so it never hides a pair
    # (right-aligned: it may extend left over the empty space above the names)
    ax.legend(handles=handles, loc="lower right", bbox_to_anchor=(1.0, 1.0), ncols=1,
              fontsize="small", frameon=False, borderaxespad=0.2)
    return ax


@validate_params(
    {
        "result": "no_validation",
        "ax": "no_validation",
        "bins": [lazy.Interval(Integral, 1, None, closed="left"), str, "array-like"],
    },
    prefer_skip_nested_validation=True,
)
def plot_posterior(result, *, ax=None, bins=60):
    """Posterior of ``B - A`` of a Bayesian result, with the ROPE and the three probabilities.

    Draws the posterior draws of ``delta = score_b - score_a`` as a density
    histogram, shades the region of practical equivalence ``[-rope, rope]``
    (metric units, from ``result.params["rope"]``), marks 0 and the
    credible interval, and writes ``P(B better)``, ``P(practically
    equivalent)`` and ``P(B worse)`` in the corner. For a loss (lower is
    better) "B better" is the left side: the probabilities are oriented,
    the axis shows the raw difference.

    Parameters
    ----------
    result : SignificanceResult
        A result that holds a posterior: from :class:`~sigtest.BayesianBootstrap`
        (``result.prob_better`` set and the draws in
        ``result.null_distribution``).
    ax : matplotlib Axes, optional
        Where to draw; a new figure if omitted.
    bins : int, str or array-like, default=60
        Histogram bins, as for :meth:`matplotlib.axes.Axes.hist`.

    Returns
    -------
    ax : matplotlib Axes
        The axes drawn on (``ax``, or the axes of a new figure).

    Raises
    ------
    ValueError
        If ``result`` holds no posterior (a frequentist test's result, or a
        result whose draws were dropped).

    See Also
    --------
    plot_resampling_distribution : The resampled differences of a frequentist test.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from sigtest import BayesianBootstrap
    >>> from sigtest.plotting import plot_posterior
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 500)
    >>> a = np.where(rng.random(500) < 0.75, y, 1 - y)
    >>> b = np.where(rng.random(500) < 0.80, y, 1 - y)
    >>> res = BayesianBootstrap(rope=0.01, n_resamples=2000, random_state=0).test(y, a, b)
    >>> ax = plot_posterior(res)
    >>> ax.get_xlabel()
    'accuracy difference (B - A)'
    """
    draws = getattr(result, "null_distribution", None)
    probs = [getattr(result, name, None) for name in ("prob_better", "prob_equivalent",
                                                       "prob_worse")]
    if draws is None or any(p is None for p in probs):
        raise ValueError(
            "The 'result' parameter holds no posterior: plot_posterior needs the result of a "
            "Bayesian test (sigtest.BayesianBootstrap) with its posterior draws and "
            f"probabilities; got test {getattr(result, 'test', type(result).__name__)!r}. "
            "Use plot_resampling_distribution for a frequentist test."
        )
    draws = np.asarray(draws, dtype=np.float64)
    rope = float(dict(getattr(result, "params", {}) or {}).get("rope", 0.0))
    ax = _axes(ax)
    ax.hist(draws, bins=bins, density=True, color="0.75", edgecolor="0.5",
            label=f"posterior ({draws.size} draws)")
    if rope > 0:
        ax.axvspan(-rope, rope, color="C2", alpha=0.25, label=f"ROPE [{-rope:g}, {rope:g}]",
                   gid="rope", zorder=0)
    ax.axvline(0.0, color="k", lw=0.8)
    low, high = result.confidence_interval
    if np.isfinite(low) and np.isfinite(high):
        level = getattr(result, "confidence_level", None)
        name = f"{100 * level:g}% credible" if level else "credible"
        ax.axvline(low, color="C0", ls="--", label=f"{name} [{low:+.4f}, {high:+.4f}]")
        ax.axvline(high, color="C0", ls="--")
    better, equivalent, worse = (float(p) for p in probs)
    ax.text(0.02, 0.97,
            f"P(B better) = {better:.3f}\nP(practically equivalent) = {equivalent:.3f}\n"
            f"P(B worse) = {worse:.3f}",
            transform=ax.transAxes, va="top", ha="left", fontsize="small",
            bbox={"boxstyle": "round", "facecolor": "white", "alpha": 0.8})
    orient = "higher" if getattr(result, "greater_is_better", True) else "lower"
    ax.set_xlabel(f"{result.metric} difference (B - A)")
    ax.set_ylabel("posterior density")
    ax.set_title(f"{result.test}: posterior of B - A ({orient} is better)")
    ax.legend(loc="upper right", fontsize="small")
    return ax


__all__ += ["plot_letters", "plot_pvalue_heatmap"]  # systems x systems views

#: Significance levels of :func:`plot_pvalue_heatmap` and their colours
#: (scikit-posthocs' sign plot): p < 0.001, p < 0.01, p < 0.05, not significant.
_LEVEL_COLOURS = ("#08306b", "#4292c6", "#c6dbef", "#fb6a4a")


#: Parameters of the systems x systems views (:func:`plot_pvalue_heatmap`,
#: :func:`plot_letters`): their constraints and their shared descriptions.
_PAIRS_VIEW_CONSTRAINTS = {
    "result": "no_validation",
    "metric": [str, None],
    "test": [str, None],
    "run": [lazy.Interval(Integral, 0, None, closed="left"), None],
    "ax": "no_validation",
}
_PAIRS_VIEW_DOC = {
    "comparison_result": """\
        result : ComparisonResult
            The result of :func:`sigtest.compare` (or ``cross_val_compare``,
            ``Experiment.run``).
        """,
    "test_run_ax": """\
        test : str, optional
            Which test (see ``result.tests``); defaults to the first.
        run : int, optional
            Which run or CV repeat, required when several were tested separately.
        ax : matplotlib Axes, optional
            Where to draw; a new figure with constrained layout if omitted.
        """,
}


@validate_params({**_PAIRS_VIEW_CONSTRAINTS, "annotate": ["boolean"]},
                 prefer_skip_nested_validation=True)
@fill_doc(**_PAIRS_VIEW_DOC)
def plot_pvalue_heatmap(result, metric=None, *, test=None, run=None, ax=None, annotate=True):
    """Draw the systems x systems adjusted p-values as a heatmap of significance levels.

    Cell ``(i, j)`` shows the adjusted p-value ``pvalue_adj`` of the pair of
    systems ``i`` and ``j`` (the matrix is symmetric), coloured by level as
    in scikit-posthocs' ``sign_plot``: ``p < 0.001``, ``p < 0.01``,
    ``p < 0.05``, not significant (``NS``). The diagonal and pairs that were
    not tested (``pairs="baseline"``) are left white. A result without a
    correction (``correction=None``) shows its raw p-values.

    Parameters
    ----------
    {comparison_result}
    metric : str, optional
        Which metric to plot; required when the result holds several.
    {test_run_ax}
    annotate : bool, default=True
        Write the p-value in each tested cell.

    Returns
    -------
    ax : matplotlib Axes
        The heatmap, systems in input order on both axes, with a colour bar
        naming the levels.

    Raises
    ------
    TypeError
        If ``result`` is not a comparison result.
    ValueError
        Unknown ``metric``, ``test`` or ``run``.

    See Also
    --------
    plot_letters : The systems by score with their compact letter display.
    plot_comparison : Forest plot of the differences and their intervals.

    Notes
    -----
    The levels are fixed (0.001, 0.01, 0.05) as in scikit-posthocs, whatever
    the result's ``alpha``; ``result.to_frame()["significant"]`` applies
    ``pvalue_adj <= alpha``.

    References
    ----------
    M. Terpilowski (2019). scikit-posthocs: Pairwise multiple comparison
    tests in Python. Journal of Open Source Software 4(36), 1169.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from sigtest import compare
    >>> from sigtest.plotting import plot_pvalue_heatmap
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 3, 500)
    >>> preds = {f"s{q}": np.where(rng.random(500) < q, y, (y + 1) % 3) for q in (0.6, 0.7, 0.8)}
    >>> res = compare(y, preds, metrics="accuracy", random_state=0)
    >>> ax = plot_pvalue_heatmap(res)
    >>> [t.get_text() for t in ax.get_xticklabels()]
    ['s0.6', 's0.7', 's0.8']
    """
    _check_comparison(result, "plot_pvalue_heatmap")
    metric, test, rows = _metric_rows(result, metric, test, run)
    systems = list(result.systems)
    index = {name: i for i, name in enumerate(systems)}
    column = "pvalue_adj" if "pvalue_adj" in rows and rows["pvalue_adj"].notna().any() \
        else "pvalue"
    k = len(systems)
    p = np.full((k, k), np.nan)
    for row in rows.itertuples(index=False):
        i, j = index[row.system_a], index[row.system_b]
        p[i, j] = p[j, i] = getattr(row, column)
    # level codes: 0 p<0.001, 1 p<0.01, 2 p<0.05, 3 NS; nan stays blank
    codes = np.where(np.isnan(p), np.nan, np.digitize(p, [0.001, 0.01, 0.05], right=False))
    from matplotlib.colors import BoundaryNorm, ListedColormap

    cmap = ListedColormap(_LEVEL_COLOURS).with_extremes(bad="white")
    norm = BoundaryNorm(np.arange(-0.5, 4.5), cmap.N)
    longest = max((len(str(name)) for name in systems), default=0)
    # room for the cells, the (rotated) names and the colour bar
    ax = _axes(ax, figsize=(max(5.0, 2.6 + 0.6 * k + 0.085 * longest),
                            max(3.8, 1.0 + 0.55 * k + 0.065 * longest)))
    image = ax.imshow(np.ma.masked_invalid(codes), cmap=cmap, norm=norm)
    ax.set_xticks(np.arange(k), labels=systems, rotation=45, ha="right",
                  rotation_mode="anchor")
    ax.set_yticks(np.arange(k), labels=systems)
    ax.set_xticks(np.arange(k + 1) - 0.5, minor=True)
    ax.set_yticks(np.arange(k + 1) - 0.5, minor=True)
    ax.grid(which="minor", color="white", lw=1.5)
    ax.tick_params(which="minor", length=0)
    if annotate:
        for i in range(k):
            for j in range(k):
                if np.isfinite(p[i, j]):
                    ax.text(j, i, f"{p[i, j]:.2g}", ha="center", va="center", fontsize="small",
                            color="white" if codes[i, j] < 2 else "black")
    bar = ax.figure.colorbar(image, ax=ax, ticks=np.arange(4), shrink=0.8)
    bar.ax.set_yticklabels(["p < 0.001", "p < 0.01", "p < 0.05", "NS"])
    what = "adjusted p" if column == "pvalue_adj" else "p (no correction)"
    correction = getattr(result, "correction", None)
    ax.set_title(f"{metric}: {what}" + (f" ({correction})" if column == "pvalue_adj"
                                        and correction else ""))
    return ax


@validate_params(_PAIRS_VIEW_CONSTRAINTS, prefer_skip_nested_validation=True)
@fill_doc(**_PAIRS_VIEW_DOC)
def plot_letters(result, metric=None, *, test=None, run=None, ax=None):
    """Draw the systems ordered by score, best on top, with their compact letters.

    One row per system: a point at its score and, right of the axis, the
    letters of :meth:`ComparisonResult.letters` (systems sharing a letter
    are not significantly different after correction; ``"a"`` marks the
    group of the best system). Every pair must have been tested
    (``pairs="all"``).

    Parameters
    ----------
    {comparison_result}
    metric : str, optional
        Which metric; defaults to the first one of the result.
    {test_run_ax}

    Returns
    -------
    ax : matplotlib Axes
        Systems as y tick labels (best on top), letters as the tick labels of
        a secondary axis on the right.

    Raises
    ------
    TypeError
        If ``result`` is not a comparison result.
    ValueError
        As :meth:`ComparisonResult.letters`: unknown metric, test or run, or
        not every pair tested.

    See Also
    --------
    plot_pvalue_heatmap : The adjusted p-values behind the letters.

    References
    ----------
    H.-P. Piepho (2004). An algorithm for a letter-based representation of
    all-pairwise comparisons. Journal of Computational and Graphical
    Statistics 13(2), 456-466.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from sigtest import compare
    >>> from sigtest.plotting import plot_letters
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 3, 500)
    >>> preds = {f"s{q}": np.where(rng.random(500) < q, y, (y + 1) % 3) for q in (0.6, 0.7, 0.8)}
    >>> res = compare(y, preds, metrics="accuracy", random_state=0)
    >>> ax = plot_letters(res)
    >>> [t.get_text() for t in ax.get_yticklabels()]
    ['s0.8', 's0.7', 's0.6']
    """
    _check_comparison(result, "plot_letters")
    metric = result.metrics[0] if metric is None else metric
    table = result.letters(metric, test=test, run=run)
    k = len(table)
    longest = max((len(str(name)) for name in table.index), default=0)
    ax = _axes(ax, figsize=(max(6.4, 4.0 + 0.085 * longest), max(2.5, 1.2 + 0.35 * k)))
    y = np.arange(k)[::-1]  # best on top
    ax.plot(table["score"].to_numpy(), y, "o", color="C0")
    ax.set_yticks(y, labels=list(table.index))
    ax.set_ylim(-0.7, k - 0.3)
    ax.grid(axis="y", color="0.9")
    right = ax.secondary_yaxis("right")
    right.set_yticks(y, labels=list(table["letters"]))
    right.tick_params(length=0)
    right.set_ylabel("letters")
    ax.set_xlabel(f"{metric} (best system on top)")
    ax.set_title("same letter = no significant difference")
    return ax


__all__ += ["plot_simplex"]  # Bayesian comparison over datasets


@validate_params(
    {"posterior": "no_validation", "ax": "no_validation",
     "gridsize": [lazy.Interval(Integral, 2, None, closed="left")]},
    prefer_skip_nested_validation=True,
)
def plot_simplex(posterior, *, ax=None, gridsize=40):
    r"""The posterior of a Bayesian comparison over datasets in the probability simplex.

    Every posterior draw :math:`(p_\text{worse}, p_\text{equivalent}, p_\text{better})`
    is a point of the triangle whose corners are "x better" (bottom left),
    "equivalent" (top) and "y better" (bottom right), placed at
    :math:`(p_\text{better} + p_\text{equivalent}/2,\ \tfrac{\sqrt3}{2} p_\text{equivalent})`;
    the draws are shown as a hexagonal-bin density. The lines from the
    centre to the middles of the sides bound the three regions where one
    probability is the largest; the corners carry the posterior
    probability of each verdict (the share of draws in its region), as
    baycomp's ``plot_simplex`` does.

    Parameters
    ----------
    posterior : DatasetPosterior
        From :func:`sigtest.bayesian_signed_rank`,
        :func:`sigtest.hierarchical_bayes` or
        :meth:`sigtest.DatasetComparisonResult.bayesian`.
    ax : matplotlib Axes, optional
        Where to draw; a new figure if omitted.
    gridsize : int, default=40
        Hexagons across the triangle.

    Returns
    -------
    ax : matplotlib Axes
        The axes drawn on (``ax``, or the axes of a new figure).

    Raises
    ------
    ValueError
        If ``posterior`` holds no ``(n, 3)`` draws.

    References
    ----------
    A. Benavoli, G. Corani, J. Demšar and M. Zaffalon (2017). Time for a
    change: a tutorial for comparing multiple classifiers through Bayesian
    analysis. JMLR 18(77), 1-36 (Figure 6).

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from sigtest import bayesian_signed_rank
    >>> from sigtest.plotting import plot_simplex
    >>> rng = np.random.default_rng(0)
    >>> a = rng.uniform(0.7, 0.9, 20)
    >>> post = bayesian_signed_rank(a, a + rng.normal(0.01, 0.01, 20), rope=0.01,
    ...                             n_draws=2000, random_state=0)
    >>> ax = plot_simplex(post)
    >>> sorted(t.get_text().split(" =")[0] for t in ax.texts)
    ['P(A better)', 'P(B better)', 'P(equivalent)']
    """
    samples = np.asarray(getattr(posterior, "samples", None), dtype=np.float64)
    if samples.ndim != 2 or samples.shape[1] != 3 or samples.shape[0] == 0:
        raise ValueError("The 'posterior' parameter must be a DatasetPosterior (from "
                         "sigtest.bayesian_signed_rank or sigtest.hierarchical_bayes) with "
                         f"(n, 3) draws; got {type(posterior).__name__}.")
    ax = _axes(ax, figsize=(5.5, 5.0))
    h = np.sqrt(3.0) / 2.0
    _, equivalent, better = samples.T
    px, py = better + equivalent / 2.0, h * equivalent
    ax.hexbin(px, py, gridsize=gridsize, mincnt=1, cmap="Blues", extent=(0, 1, 0, h))
    ax.plot([0, 0.5, 1, 0], [0, h, 0, 0], color="C1", lw=1.2)
    centre = (0.5, h / 3.0)
    for mx, my in ((0.25, h / 2.0), (0.75, h / 2.0), (0.5, 0.0)):
        ax.plot([centre[0], mx], [centre[1], my], color="C1", lw=0.8)
    a, b = getattr(posterior, "names", ("x", "y"))
    ax.text(0.0, -0.04, f"P({a} better) = {posterior.prob_worse:.3f}", ha="center", va="top")
    ax.text(0.5, h + 0.02, f"P(equivalent) = {posterior.prob_equivalent:.3f}", ha="center",
            va="bottom")
    ax.text(1.0, -0.04, f"P({b} better) = {posterior.prob_better:.3f}", ha="center", va="top")
    ax.set_xlim(-0.2, 1.2)
    ax.set_ylim(-0.15, h + 0.12)
    ax.set_aspect("equal")
    ax.axis("off")
    ax.set_title(f"{getattr(posterior, 'method', 'Bayesian')} posterior, "
                 f"rope {getattr(posterior, 'rope', 0.0):g}")
    return ax
