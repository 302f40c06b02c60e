"""Per-item scores: the ``"mean"`` metric and the checks of ``input_type="scores"``.

Evaluation harnesses (lm-evaluation-harness, inspect_ai, a judge model, a
per-sentence BLEU) write one score per item and system: 0/1 for exact match
or pass/fail, a number for a judge or a sentence-level metric. Such a score
needs no gold labels: ``y_true`` is ``None`` and ``y_pred`` holds the
scores. The metric of a system is their (weighted) mean,

.. math:: \\bar s = \\sum_i w_i s_i / \\sum_i w_i ,

with per-item statistics ``[s_i, 1]`` (additive, so every resample is
``s0 / s1`` of its column sums) and per-item value ``s_i``: decomposable,
so the sign, Wilcoxon and paired t-tests run on the per-item differences
``s_{B,i} - s_{A,i}`` and McNemar's test on 0/1 scores. The statistics of a
row depend only on the score, so equal scores share a cell
(``cellwise=True``): 0/1 scores compress to at most four cells ``(A, B)``,
exactly as accuracy with ``y_true`` all 1 and ``y_pred`` the scores. Graded
scores with about as many pairs of values as items keep one row per item
(the engine compresses scores only when there are at most 1/20 as many
cells as items).

:func:`check_y_true` is the one check of ``y_true`` against a metric's input
type (``None`` exactly for score metrics), :func:`check_scores` the one check
of per-item scores (1-D, numeric, finite, equal lengths).
"""

from __future__ import annotations

import numpy as np

from sigtest.metrics._registry import weighted_column_sums

__all__ = ["check_scores", "check_y_true", "is_no_targets", "mean_score"]


def is_no_targets(y_true):
    """Whether ``y_true`` says "no gold labels": ``None``, or an array of ``None`` only.

    The array form (one ``None`` per item) is what a workflow carries where
    it needs an array per input type (tiled over runs, copied per task);
    it means the same as ``None``.
    """
    if y_true is None:
        return True
    if isinstance(y_true, np.ndarray) and y_true.dtype == object and y_true.ndim == 1:
        return y_true.shape[0] > 0 and bool(np.all(np.equal(y_true, None)))
    return False


def check_y_true(metric, y_true):
    """``y_true`` against the input type of ``metric``: ``None`` exactly for per-item scores.

    Parameters
    ----------
    metric : Metric
    y_true : array-like or None

    Returns
    -------
    y_true : array-like or None
        ``None`` for a metric of ``input_type="scores"``, else ``y_true``
        unchanged (its own checks follow).

    Raises
    ------
    ValueError
        Naming ``y_true``: gold labels given to a score metric (``"mean"``
        averages the per-item scores given as the predictions), or
        ``y_true=None`` for a metric that needs them.
    """
    if metric.input_type == "scores":
        if not is_no_targets(y_true):
            raise ValueError(
                f"Metric {metric.name!r} averages per-item scores: the 'y_true' parameter "
                "must be None and the predictions must be the scores (e.g. "
                "test(None, scores_a, scores_b, metric='mean')). Got a y_true of type "
                f"{type(y_true).__name__} instead."
            )
        return None
    if is_no_targets(y_true):
        raise ValueError(
            f"The 'y_true' parameter is None, but metric {metric.name!r} compares "
            "predictions with gold labels (targets). y_true=None is for per-item scores "
            "only: pass the scores as the predictions with metric='mean'."
        )
    return y_true


def check_scores(scores, names):
    """Per-item scores as 1-D float64 arrays of equal length.

    Parameters
    ----------
    scores : sequence of array-like
        One array of per-item scores per system (a list, an array, a pandas
        Series).
    names : sequence of str
        The caller's argument names, for the messages.

    Returns
    -------
    scores : list of ndarray of shape (n_samples,)
        Float64 copies (or views) of the inputs.

    Raises
    ------
    ValueError
        Naming the argument: not 1-D (a column vector is raveled), not
        numeric (bools count as 0/1), NaN or infinity, empty, or lengths
        that differ.
    """
    out = []
    for value, name in zip(scores, names):
        if value is None:
            raise ValueError(f"The '{name}' parameter must be per-item scores. Got None.")
        arr = np.asarray(value.to_numpy() if hasattr(value, "to_numpy") else value)
        if arr.ndim == 2 and arr.shape[1] == 1:
            arr = arr.ravel()
        if arr.ndim != 1:
            raise ValueError(
                f"The '{name}' parameter must be 1-D per-item scores (one number per item). "
                f"Got shape {arr.shape} instead."
            )
        if arr.dtype.kind not in "biuf":
            raise ValueError(
                f"The '{name}' parameter must hold numeric per-item scores. Got an array of "
                f"dtype {arr.dtype} instead."
            )
        arr = arr.astype(np.float64, copy=False)
        if arr.shape[0] == 0:
            raise ValueError(f"The '{name}' parameter is empty; at least one item is required.")
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"The '{name}' parameter must not contain NaN or infinity.")
        if out and arr.shape[0] != out[0].shape[0]:
            raise ValueError(
                f"The '{name}' parameter has {arr.shape[0]} items but '{names[0]}' has "
                f"{out[0].shape[0]}; every system must score the same items."
            )
        out.append(arr)
    return out


def _mean_statistics(y_true, y_pred, **params):
    """Rows ``[s_i, 1]`` of per-item scores ``y_pred`` (``y_true`` is ignored)."""
    (s,) = check_scores([y_pred], ["y_pred"])
    stats = np.ones((s.shape[0], 2), dtype=np.float64)
    stats[:, 0] = s
    return stats


def mean_score(y_true, y_pred, *, sample_weight=None):
    r"""Weighted mean of per-item scores.

    The metric ``"mean"`` of :func:`sigtest.get_metric`: per-item scores
    of an evaluation harness (exact match, pass/fail, a judge's rating, a
    sentence-level BLEU) need no gold labels.

    Parameters
    ----------
    y_true : None
        Must be ``None`` (the scores are already per-item evaluations).
    y_pred : array-like of shape (n_samples,)
        Finite per-item scores.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative item weights with a positive sum.

    Returns
    -------
    score : float
        :math:`\bar s = \sum_i w_i s_i / \sum_i w_i` (:math:`w_i = 1`
        without weights).

    Raises
    ------
    ValueError
        ``y_true`` not ``None``, scores that are not 1-D finite numbers, bad
        weights (naming the argument).

    Examples
    --------
    >>> from sigtest.metrics import mean_score
    >>> mean_score(None, [1, 0, 1, 1])
    0.75
    >>> mean_score(None, [8.0, 6.0], sample_weight=[1, 3])
    6.5
    """
    if not is_no_targets(y_true):
        raise ValueError(
            "The 'y_true' parameter of mean_score must be None: the per-item scores are "
            f"'y_pred'. Got a y_true of type {type(y_true).__name__} instead."
        )
    stats = _mean_statistics(None, y_pred)
    if sample_weight is not None:
        (w,) = check_scores([sample_weight], ["sample_weight"])
        if w.shape[0] != stats.shape[0]:
            raise ValueError(
                f"The 'sample_weight' parameter has {w.shape[0]} entries but 'y_pred' has "
                f"{stats.shape[0]} items."
            )
        if np.any(w < 0) or not w.sum() > 0:
            raise ValueError("The 'sample_weight' parameter must be non-negative with a "
                             "positive sum.")
        sample_weight = w
    sums = weighted_column_sums(stats, sample_weight)
    return float(sums[0] / sums[1])
