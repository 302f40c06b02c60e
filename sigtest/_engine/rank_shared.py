r"""Rank metrics of many systems on shared resamples: each system sorted once.

:meth:`ComparisonResult.ranks` resamples every system on the *same* draws of
the test items (or clusters, within strata): :func:`sigtest._engine.shared.shared_draws`.
A metric with sufficient statistics adds their rows; a rank metric (ROC AUC,
average precision, :mod:`sigtest.metrics._ranking`) has none, and calling
its ``score_func`` on every resample and system sorts the scores again each
time (``O(B k N log N)``). Here each system's scores are sorted once
(:class:`~sigtest.metrics._ranking.RankedScores`) and a resample is the vector
of its units' counts :math:`c_u`: the item weights :math:`q_i = w_i\,c_{u(i)}`
(sample weights :math:`w`) over that fixed order, one pass per system
(:func:`sigtest._engine.rank_metrics.rank_weighted_scores`, two systems per
pass). ``O(B k N)``, the draws made block by block (``block`` resamples at a
time), so no ``(B, N)`` array is held.

The value of a resample repeated as data (the slow path: ``score_func`` on
the drawn items) and as counts is the same sum in another order: equal to
1e-12 (``tests/engine/test_rank_shared.py``).
"""

from __future__ import annotations

import numpy as np

from sigtest._engine.rank_metrics import RankedPair, rank_weighted_scores, uses_ranking
from sigtest._engine.shared import shared_draw_blocks

__all__ = ["rank_shared_scores", "uses_shared_ranking"]

#: Resamples whose unit counts are held at once (``block x units`` floats).
BLOCK = 256


def uses_shared_ranking(data):
    """Whether every system of ``data`` (list of ``PairedData``) takes the rank kernels."""
    return len(data) > 0 and all(uses_ranking(p) for p in data)


def _ranked(paired):
    """System A's ranking: the one the input path kept (``paired.rankings``), or sorted now."""
    if getattr(paired, "rankings", None) is not None:
        return paired.rankings[0]
    y, a, _, _ = paired.data
    return paired.metric.ranking(y, a, **dict(paired.params))


def rank_shared_scores(data, n_resamples, seed, *, unit_of_item=None, n_units=None,
                       unit_strata=None, block=BLOCK):
    """``(B, k)`` scores of ``k`` systems of a rank metric on shared bootstrap resamples.

    Parameters
    ----------
    data : list of PairedData
        One per system, each with ``data = (y_true, scores, _, sample_weight)``
        on the same items and the same metric (:func:`uses_shared_ranking`).
    n_resamples : int
    seed : int
        The seed of :func:`sigtest._engine.shared.shared_draws`: the same
        draws as the slow path.
    unit_of_item : ndarray of shape (n_items,), optional
        The cluster of every item (``groups=``); default: the items are the
        units.
    n_units : int, optional
        Number of clusters (with ``unit_of_item``).
    unit_strata : ndarray of shape (n_units,), optional
        Stratum of every unit (draws within strata).
    block : int, default=BLOCK
        Resamples drawn and counted at a time (memory ``block x n_units``).

    Returns
    -------
    scores : ndarray of shape (n_resamples, k)
        Column ``j``: system ``j``'s metric on every resample.
    """
    ranked = [_ranked(p) for p in data]
    n_items = ranked[0].n_items
    _, _, _, w = data[0].data
    weight = np.ones(n_items) if w is None else np.asarray(w, dtype=np.float64)
    U = n_items if unit_of_item is None else int(n_units)
    pairs = [RankedPair(ranked[j], ranked[min(j + 1, len(ranked) - 1)], unit_of_item, U,
                        weight, None) for j in range(0, len(ranked), 2)]
    k = len(ranked)
    out = np.empty((int(n_resamples), k))
    for start, draws in shared_draw_blocks(U, int(n_resamples), seed, unit_strata, block):
        R = draws.shape[0]
        flat = (np.arange(R, dtype=np.int64)[:, None] * U + draws).ravel()  # row r: r U + unit
        counts = np.bincount(flat, minlength=R * U).reshape(R, U).astype(np.float64)
        for p, rp in enumerate(pairs):
            scores = rank_weighted_scores(rp, counts)
            out[start:start + R, 2 * p] = scores[:, 0]
            if 2 * p + 1 < k:
                out[start:start + R, 2 * p + 1] = scores[:, 1]
    return out
