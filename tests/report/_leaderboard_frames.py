"""Frames shaped as ``ComparisonResult.leaderboard()`` and ``to_frame()`` return them.

Built from a known ranking so that the page's tests can check the order,
the tiers and the pairs it shows without running a comparison: scores fall
with the rank, tiers change every 0.03 of score, the first two systems are
the best set, and one name (``<b>&_%``) must stay text.
"""

import numpy as np
import pandas as pd

ODD_NAME = "<b>&_%"


def board_and_pairs(k, seed=0, metric="accuracy"):
    """(leaderboard frame, pairwise frame) of ``k`` systems, best first."""
    rng = np.random.default_rng(seed)
    score = np.sort(rng.uniform(0.5, 0.9, k))[::-1]
    names = [f"sys-{i:04d}" for i in range(k)]
    names[min(3, k - 1)] = ODD_NAME
    ranks = np.arange(1, k + 1)
    tier = np.floor((score[0] - score) / 0.03).astype(int) + 1
    board = pd.DataFrame(
        {"rank": ranks, "rank_low": np.maximum(1, ranks - 2),
         "rank_high": np.minimum(k, ranks + 2), "score": score,
         "ci_low": score - 0.02, "ci_high": score + 0.02, "tier": [str(t) for t in tier],
         "p_best": np.r_[0.6, 0.4, np.zeros(k - 2)][:k],
         "in_best_set": np.r_[True, True, np.zeros(k - 2, bool)][:k]},
        index=pd.Index(names, name="system"))
    a, b = np.triu_indices(k, 1)
    delta = score[b] - score[a]
    pairs = pd.DataFrame({"system_a": np.array(names, dtype=object)[a],
                          "system_b": np.array(names, dtype=object)[b], "metric": metric,
                          "test": "bootstrap", "delta": delta, "ci_low": delta - 0.03,
                          "ci_high": delta + 0.03,
                          "pvalue_adj": np.minimum(1.0, np.exp(-100 * np.abs(delta)))})
    pairs["significant"] = pairs["pvalue_adj"] <= 0.05
    board.attrs.update(metric=metric, confidence_level=0.95, n_systems=k,
                       n_significant_pairs=int(pairs["significant"].sum()))
    return board, pairs
