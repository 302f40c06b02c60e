r"""Score intervals from the comparison's shared draws (``scores(intervals="shared")``).

A comparison whose tests resample the systems together keeps every
system's bootstrap scores on those shared draws (:mod:`.draws`: a ``(k,
B)`` array per metric, ``ComparisonData.kept_scores``). The percentile
interval of a system's row of those draws is a bootstrap interval of its
score that costs a sort of ``B`` numbers, instead of a bootstrap of its own
(:func:`sigtest._workflows.compare.scores.score_table`, about one pair's
interval per system and metric: 1.5 s of CPU for 50 systems x 2 metrics x
10^5 items, more than the rest of the report).

The leaderboard and the report read these intervals; ``scores()`` gives
them with ``intervals="shared"`` and, by default, the BCa intervals of
:func:`sigtest.score` on resamples of their own. A row falls back to that
own interval (and says so in ``ci_method``) where the shared draws cannot
give one: no draws kept for the metric (one run only; a test that drew
none), an undefined observed score, a non-finite draw, or draws all equal
(a perfect system, whose own interval is the exact Clopper-Pearson one).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from sigtest._engine.intervals import bootstrap_interval, is_degenerate
from sigtest._workflows.compare.scores import SCORE_COLUMNS
from sigtest._workflows.compare.tables import observed_scores

__all__ = ["SHARED_METHODS", "percentile_rows", "shared_score_table"]

#: ``ci_method`` of a row whose interval is the percentile of the shared draws, by their source.
SHARED_METHODS = {"resample": "percentile of shared resamples",
                  "multiplier": "percentile of shared multiplier draws"}


def percentile_rows(draws, theta, confidence_level):
    r"""Percentile interval of each system's row of shared draws.

    Parameters
    ----------
    draws : ndarray of shape (k, B)
        Row ``s``: the scores of system ``s`` on the ``B`` shared draws.
    theta : ndarray of shape (k,)
        The observed scores.
    confidence_level : float in (0, 1)

    Returns
    -------
    bounds : list of (low, high) or None
        ``[\theta^*_{(\alpha/2)}, \theta^*_{(1-\alpha/2)}]``, the quantiles
        of the row with linear interpolation
        (:func:`sigtest._engine.intervals.bootstrap_interval`,
        ``method="percentile"``: what :func:`sigtest.score` gives with
        ``method="percentile"`` on the same draws); ``None`` for a row that
        cannot give one (undefined observed score, a non-finite draw, all
        draws equal).
    """
    out = []
    for s in range(draws.shape[0]):
        row = draws[s]
        estimate = float(theta[s])
        if not math.isfinite(estimate) or not np.isfinite(row).all() or is_degenerate(row):
            out.append(None)
            continue
        ci = bootstrap_interval(row, estimate, confidence_level, "percentile", of="score",
                                warn=False)
        out.append((float(ci.low), float(ci.high)))
    return out


def shared_score_table(frame, *, systems, metrics, kept, confidence_level, own):
    """The table of ``scores(intervals="shared")`` (columns :data:`SCORE_COLUMNS`).

    Parameters
    ----------
    frame : pandas.DataFrame
        The comparison's pair rows (the observed scores, as ``ranks()`` reads them).
    systems, metrics : sequence of str
    kept : dict
        ``{metric name: KeptScores}`` (``ComparisonData.kept_scores``).
    confidence_level : float
        The level of the score intervals (the comparison's score settings).
    own : callable
        Returns the table of the own intervals (``scores()``); called only
        when a row falls back to it.
    """
    systems = list(systems)
    rows = {}  # (system index, metric index) -> record, None where it falls back
    for mi, metric in enumerate(metrics):
        found = kept.get(metric)
        theta = observed_scores(frame[frame["metric"] == metric], systems)
        bounds = ([None] * len(systems) if found is None else
                  percentile_rows(found.scores, theta, confidence_level))
        for s, name in enumerate(systems):
            rows[s, mi] = None if bounds[s] is None else {
                "system": name, "metric": metric, "score": float(theta[s]),
                "ci_low": bounds[s][0], "ci_high": bounds[s][1],
                "ci_level": float(confidence_level), "n_resamples": int(found.n_resamples),
                "ci_method": SHARED_METHODS[found.source]}
    missing = [key for key, row in rows.items() if row is None]
    if missing:
        table = own()
        by_key = dict(zip(zip(table["system"], table["metric"]), table.to_dict("records")))
        for s, mi in missing:
            rows[s, mi] = by_key[systems[s], metrics[mi]]
    records = [rows[key] for key in sorted(rows)]  # systems in order, then metrics
    return pd.DataFrame.from_records(records, columns=SCORE_COLUMNS)
