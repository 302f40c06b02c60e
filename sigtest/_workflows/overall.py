r"""An overall comparison across the tasks of a benchmark suite (``compare(overall=)``).

An LLM benchmark suite scores every system on the items of a few tasks (2-10:
MMLU, GSM8K, HumanEval, ...). The overall leaderboard of such a suite is an
average over the tasks, and the question "is B better than A overall?" is a
question about that average, answered at the level of the items: each task's
items are resampled within the task (``strata=`` the task), so that the
interval of the overall difference carries the item noise of every task.

* **macro** (``overall="macro"``): the mean of the task means, every task
  weighing the same whatever its size,

  .. math:: \bar s^{\mathrm{macro}} = \frac1T \sum_{t=1}^T
     \frac{\sum_{i \in t} w_i s_i}{\sum_{i \in t} w_i} ,

  which is the weighted mean of the per-item values with item weights
  :math:`w_i / W_{t(i)}` (:math:`W_t` the weight of task :math:`t`). A
  resample within strata keeps every task's items, so its weighted mean is
  the macro average of the resampled task means: the stratified bootstrap
  of this weighted mean is the bootstrap of the macro average (Davison &
  Hinkley 1997, sec. 3.7, stratified sampling), and the paired permutation
  swaps A and B per item under any weights. It needs a metric that is a
  mean of per-item values (``Metric.decomposable``: ``"mean"``,
  ``"accuracy"``, ...); a macro average of per-task F1 scores is not a
  weighted mean of items and is refused.
* **micro** (``overall="micro"``): the metric on the pooled items (every
  item weighing the same, a large task more than a small one), resampled
  within the tasks (the tasks' sizes are fixed by the design, not drawn).
  Any metric.

:func:`overall_weights` turns ``overall`` into the item weights that
:func:`sigtest.compare` passes on; :func:`table_inputs` joins the datasets
of a :class:`~sigtest.ScoreTable` into one comparison with the dataset as
the stratum.
"""

from __future__ import annotations

import numpy as np

from sigtest._engine.design import check_design
from sigtest.metrics._check_labels import check_sample_weight
from sigtest.utils import warn_external

__all__ = ["OVERALL_OPTIONS", "overall_weights", "table_inputs"]

#: The values of ``compare(overall=)`` besides ``None``.
OVERALL_OPTIONS = ("macro", "micro")


def _check_overall(overall):
    if overall is not None and (not isinstance(overall, str) or overall not in OVERALL_OPTIONS):
        raise ValueError(
            f"The 'overall' parameter must be one of {list(OVERALL_OPTIONS)} or None. Got "
            f"{overall!r} instead."
        )
    return overall


def overall_weights(overall, strata, sample_weight, metrics, *, n_samples, several_runs=False,
                    runs_mode="average"):
    """The item weights of an overall comparison across the tasks ``strata``.

    Parameters
    ----------
    overall : {"macro", "micro"} or None
        ``None``: ``sample_weight`` unchanged (no check).
    strata : array-like of shape (n_samples,) or None
        The task of every item; required with ``overall``.
    sample_weight : array-like of shape (n_samples,) or None
        The user's item weights (1 each when ``None``): within a task, the
        macro average weighs the items by them.
    metrics : list of Metric
        The metrics compared (``"macro"`` needs every one decomposable).
    n_samples : int
    several_runs : bool, default=False
        Some system has several runs.
    runs_mode : str, default="average"

    Returns
    -------
    sample_weight : ndarray of shape (n_samples,) or None
        ``"macro"``: :math:`w_i \\bar n / W_{t(i)}` with :math:`\\bar n = N /
        T` (each task's weights sum to :math:`\\bar n`), or the user's
        weights unchanged when every task already has the same total weight
        (to a relative 1e-12; equal sizes without weights: macro is micro);
        ``"micro"``: the user's weights.

    Raises
    ------
    ValueError
        ``overall`` not one of ``"macro"``, ``"micro"`` or None; no
        ``strata``; ``"macro"`` with a metric that is not a mean of per-item
        values, with several runs averaged or pooled, or a task of zero
        weight (each message names ``overall``).

    Warns
    -----
    UserWarning
        A single task: the overall comparison is that task's.
    """
    if _check_overall(overall) is None:
        return sample_weight
    if strata is None:
        raise ValueError(
            f"The 'overall' parameter ({overall!r}) averages over tasks: give the task of "
            "every item as strata= (or use ScoreTable.compare(overall=...), which takes "
            "it from the dataset column)."
        )
    design = check_design(None, strata, n_samples)
    codes, n_tasks = design.item_strata, design.n_strata
    if n_tasks == 1:
        warn_external(
            f"compare(overall={overall!r}): the items lie in a single task (one stratum), so "
            "the overall comparison is the comparison on that task.", UserWarning)
    weights = check_sample_weight(sample_weight, n_samples)
    if overall == "micro":
        return weights
    bad = [m.name for m in metrics if not m.decomposable]
    if bad:
        raise ValueError(
            f"The 'overall' parameter 'macro' averages the task means of a metric that is a "
            f"mean of per-item values (decomposable, e.g. 'mean' or 'accuracy'); {bad} are "
            "not. Use overall='micro' (the metric on the pooled items, resampled within "
            "tasks), compare each task on its own, or compare_datasets over many datasets."
        )
    if several_runs and runs_mode in ("average", "pool"):
        raise ValueError(
            f"The 'overall' parameter 'macro' weighs the items, which runs={runs_mode!r} "
            "with several runs per system cannot (the run-averaged and pooled statistics "
            "are unweighted); use runs='each' or runs='mean', or average the runs' "
            "per-item scores first."
        )
    given = weights
    if weights is None:
        weights = np.ones(n_samples)
    per_task = np.bincount(codes, weights=weights, minlength=n_tasks)
    if np.any(per_task <= 0):
        empty = int(np.flatnonzero(per_task <= 0)[0])
        raise ValueError(
            f"The 'overall' parameter 'macro' gives every task the same weight, but the "
            f"task of the item at index {int(np.flatnonzero(codes == empty)[0])} ('strata') "
            "has items of total weight 0 (sample_weight)."
        )
    # every task weighs the same already (up to rounding: the weights this
    # derived sum to N / T per task within a few ulps, so that deriving again
    # from them, as compare(**result.options.asdict()) does, changes nothing):
    # macro is micro, bit for bit
    if np.allclose(per_task, per_task[0], rtol=1e-12, atol=0):
        return given
    return weights * ((n_samples / n_tasks) / per_task[codes])


def _units(data, dataset):
    """Systems' scores, groups and size of one dataset of a ScoreTable."""
    _, scores, groups, items = data[dataset]
    return scores, groups, items.shape[0]


def table_inputs(data, systems):
    """One comparison of a :class:`~sigtest.ScoreTable`'s datasets, the dataset as stratum.

    Parameters
    ----------
    data : dict
        ``{dataset: (None, {system: scores}, groups, items)}`` (the table's
        aligned datasets).
    systems : list of str
        The table's systems.

    Returns
    -------
    scores : dict of str -> ndarray
        Every system's scores, the datasets one after the other.
    groups : ndarray of int or None
        Clusters, numbered across datasets (a cluster lies in one dataset;
        an item of a dataset without clusters is its own); ``None`` when no
        dataset has clusters.
    strata : ndarray of int
        The dataset of every unit: its index in ``data``.

    Raises
    ------
    ValueError
        A system missing from a dataset (``on_missing="intersect"``).
    """
    import pandas as pd

    datasets = list(data)
    missing = {d: [s for s in systems if s not in data[d][1]] for d in datasets}
    missing = {d: m for d, m in missing.items() if m}
    if missing:
        detail = "; ".join(f"{d!r}: {m}" for d, m in missing.items())
        raise ValueError(
            "The 'overall' parameter compares every system over every dataset, but some "
            f"systems have no rows in some datasets ({detail}). Leave those systems out of "
            "the table, or compare the datasets one by one."
        )
    scores = {s: np.concatenate([data[d][1][s] for d in datasets]).astype(np.float64)
              for s in systems}
    sizes = [_units(data, d)[2] for d in datasets]
    strata = np.repeat(np.arange(len(datasets), dtype=np.int64), sizes)
    if all(data[d][2] is None for d in datasets):
        return scores, None, strata
    parts, offset = [], 0
    for d, n in zip(datasets, sizes):
        groups = data[d][2]
        codes = np.arange(n) if groups is None else pd.factorize(groups)[0]
        parts.append(codes.astype(np.int64) + offset)
        offset += int(codes.max()) + 1 if n else 0
    return scores, np.concatenate(parts), strata
