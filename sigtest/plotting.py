"""Plots of significance results.

They need matplotlib: ``pip install matplotlib``, or sigtest's ``plot`` extra
from a clone (``pip install "/path/to/sigtest[plot]"``).

Three views a paper needs:

* :func:`plot_resampling_distribution` — the resampled differences of one test
  with the observed difference and its confidence interval;
* :func:`plot_comparison` — a forest plot of every pair's difference and
  interval from :func:`sigtest.compare`, significant pairs highlighted;
* :func:`plot_posterior` — the posterior of the difference of a
  :class:`~sigtest.BayesianBootstrap` result with its region of practical
  equivalence and the three probabilities.
"""

from __future__ import annotations

from numbers import Integral

import numpy as np

from .utils._param_validation import lazy, validate_params

__all__ = ["plot_comparison", "plot_posterior", "plot_resampling_distribution"]
__all__ += ["plot_critical_difference"]  # issue 11: the CD diagram lives in _plot_cd
from ._plot_cd import plot_critical_difference  # noqa: E402


def _pyplot():
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "sigtest's plots need matplotlib; install it with `pip install matplotlib` "
            "(or sigtest's `plot` extra from the clone: `pip install '/path/to/sigtest[plot]'`)."
        ) from exc
    return plt


def _axes(ax):
    if ax is None:
        _, ax = _pyplot().subplots()
    return ax


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
    {"result": [lazy.HasMethods(["to_frame"])], "metric": [str, None], "ax": "no_validation"},
    prefer_skip_nested_validation=True,
)
def plot_comparison(result, metric=None, *, ax=None):
    """Forest plot of the pairwise differences of a :func:`sigtest.compare` result.

    One row per pair ``B vs A``: a point at ``delta = score_b - score_a`` and a
    bar for its confidence interval (when the test gave one). Pairs whose
    adjusted p-value is significant are drawn in colour, the others in grey; a
    vertical line marks 0.

    Parameters
    ----------
    result : ComparisonResult
        The result of :func:`sigtest.compare` (or ``recompare``).
    metric : str, optional
        Which metric to plot; required when the result holds several.
    ax : matplotlib Axes, optional
        Where to draw; a new figure if omitted.

    Returns
    -------
    ax : matplotlib Axes
        One row per pair, significant pairs in colour.

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
    frame = result.to_frame()
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
    rows = frame[frame["metric"] == metric].reset_index(drop=True)
    ax = _axes(ax)
    y = np.arange(len(rows))[::-1]
    for yi, (_, row) in zip(y, rows.iterrows()):
        sig = bool(row.get("significant", False))
        color = "C3" if sig else "0.5"
        if np.isfinite(row["ci_low"]) and np.isfinite(row["ci_high"]):
            ax.plot([row["ci_low"], row["ci_high"]], [yi, yi], color=color, lw=2)
        ax.plot([row["delta"]], [yi], "o", color=color)
    ax.axvline(0.0, color="k", lw=0.8)
    ax.set_yticks(y)
    ax.set_yticklabels([f"{r.system_b} vs {r.system_a}" for r in rows.itertuples()])
    ax.set_xlabel(f"{metric} difference (B - A)")
    ax.set_title(f"{metric}: coloured = significant after correction")
    return ax


@validate_params(
    {
        "result": "no_validation",
        "ax": "no_validation",
        "bins": [lazy.Interval(Integral, 1, None, closed="left"), str, "array-like"],
    },
    prefer_skip_nested_validation=True,
)
def plot_posterior(result, ax=None, *, bins=60):
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
    fig : matplotlib Figure
        The figure of ``ax`` (``fig.axes[0]`` when ``ax`` was omitted).

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
    >>> fig = plot_posterior(res)
    >>> fig.axes[0].get_xlabel()
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
    return ax.figure
