"""The table of :meth:`ComparisonResult.leaderboard`: one row per system, best first.

It puts side by side what the result already computes (each read once and
kept by the result): the ranks with their simultaneous intervals, P(best)
and the best set (:meth:`ComparisonResult.ranks`), each system's score with
its interval (:meth:`ComparisonResult.scores` with ``intervals="shared"``:
the percentile of the comparison's shared draws where it kept them), and the tier of each system
from the pairwise tests (:func:`sigtest._report.tiers.group_labels`: the
compact letters, or numbered tiers when the letters would be too many).

The columns and ``attrs`` are a contract with the renderers of the
leaderboard (the text of ``print(result)``, the report, the HTML page):
:data:`LEADERBOARD_COLUMNS`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from sigtest._report.tiers import group_labels, significance_matrix

__all__ = ["LEADERBOARD_COLUMNS", "leaderboard_table"]

#: Columns of :meth:`ComparisonResult.leaderboard`, in order (index: ``system``).
LEADERBOARD_COLUMNS = ["rank", "rank_low", "rank_high", "score", "ci_low", "ci_high", "tier",
                       "p_best", "in_best_set"]

#: Joint level of the leaderboard's rank intervals and best set (``ranks()``'s default).
LEADERBOARD_LEVEL = 0.95


def _check_metric(metric, metrics):
    if metric is None:
        return metrics[0]
    if not isinstance(metric, str):
        raise TypeError(f"The 'metric' parameter must be None or a metric name (str). "
                        f"Got {metric!r} instead.")
    if metric not in metrics:
        raise ValueError(f"The 'metric' parameter names an unknown metric {metric!r}; this "
                         f"result has {list(metrics)}.")
    return metric


def _display_order(systems, ranks):
    """Positions of the systems best first: by rank (undefined last), ties by name."""
    rank = ranks.to_numpy(dtype=np.float64, na_value=np.inf)
    names = np.array([str(s) for s in systems], dtype=object)
    by_name = np.argsort(np.argsort(names, kind="stable"), kind="stable")
    return np.lexsort((by_name, rank))


def leaderboard_table(result, metric=None):
    """The table of :meth:`ComparisonResult.leaderboard` (see its docstring)."""
    metric = _check_metric(metric, result.metrics)
    systems = result.systems
    ranks = result.ranks(metric).set_index("system").loc[systems]
    scores = result.scores(intervals="shared")  # the comparison's draws where it kept them
    scores = scores[scores["metric"] == metric].set_index("system").loc[systems]
    test = result.tests[0]
    sig, complete, n_sig = significance_matrix(result._frame, systems, metric, test)
    order = _display_order(systems, ranks["rank"])
    if result.pairs == "all" and complete and len(systems) >= 2:
        shown = group_labels(sig, order)
        tiers, kind, n_letters, note = shown.labels, shown.kind, shown.n_letters, shown.note
    else:
        tiers, kind, n_letters = [""] * len(systems), "none", 0
        note = f"no tiers: not every pair of systems was tested (pairs={result.pairs!r})"
    table = pd.DataFrame({
        "rank": ranks["rank"].to_numpy(), "rank_low": ranks["rank_low"].to_numpy(),
        "rank_high": ranks["rank_high"].to_numpy(),
        "score": scores["score"].to_numpy(dtype=np.float64),
        "ci_low": scores["ci_low"].to_numpy(dtype=np.float64),
        "ci_high": scores["ci_high"].to_numpy(dtype=np.float64),
        "tier": pd.array(tiers, dtype=object),
        "p_best": ranks["p_best"].to_numpy(dtype=np.float64),
        "in_best_set": ranks["in_best_set"].to_numpy(dtype=bool),
    }, index=pd.Index(systems, name="system"))
    for col in ("rank", "rank_low", "rank_high"):
        table[col] = table[col].astype("Int64")
    table = table.iloc[order][LEADERBOARD_COLUMNS]
    levels = sorted({float(v) for v in scores["ci_level"] if np.isfinite(v)})
    table.attrs.update(
        metric=metric, confidence_level=LEADERBOARD_LEVEL, n_systems=len(systems),
        n_significant_pairs=n_sig, test=test, alpha=result.alpha,
        correction=result.correction, score_ci_level=levels[0] if levels else np.nan,
        score_ci_method=", ".join(sorted(set(scores["ci_method"].astype(str)))),
        tier_kind=kind, n_letters=n_letters, tier_note=note)
    return table
