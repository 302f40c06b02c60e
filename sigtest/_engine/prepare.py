"""The validated input path: paired predictions to :class:`~sigtest._engine.paired.PairedData`.

:func:`prepare_paired` validates ``(y_true, y_pred_a, y_pred_b)`` once, fixes
the label set, and turns the data into per-row statistics of A and B, either
one row per item (generic path) or one row per occupied cell
``(true, A, B)`` with its multiplicity (compressed path for ``cellwise``
hard-label metrics). :func:`prepare_paired_runs` does the same for systems
with several runs (rows averaged per item), on the per-run statistics of
:func:`run_statistics`. The resampling kernels then never see labels or
metrics, only float arrays.
"""

from __future__ import annotations

import numpy as np

from sigtest.metrics import as_metric
from sigtest.metrics._ranking import value_and_ranking
from sigtest._engine.cells import (
    CellCache,
    _cell_statistics,
    _cells,
    _statistics,
    _statistics_pair,
    _union_codes,
)
from sigtest._engine.checks import check_array_like as _as_array
from sigtest._engine.design import check_design, design_rows
from sigtest._engine.inputs import (
    _COMPRESS_OPTIONS,
    _check_compress,
    _check_hard_soft,
    _check_lengths,
    _check_runs,
    check_targets,
)
from sigtest._engine.paired import PairedData

__all__ = ["prepare_paired", "prepare_paired_runs", "run_statistics"]


def prepare_paired(
    y_true,
    y_pred_a,
    y_pred_b,
    metric,
    *,
    sample_weight=None,
    labels=None,
    compress="auto",
    groups=None,
    strata=None,
    cell_cache=None,
    rank_once=False,
    **metric_params,
):
    """Validate paired predictions and compute their sufficient statistics.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_classes)
        Gold labels (hard metrics) or true distributions (soft metrics).
    y_pred_a, y_pred_b : array-like
        Predictions of the baseline A and of the candidate B, of the same
        kind (hard labels or soft outputs).
    metric : str or Metric
        Registry name or :class:`~sigtest.metrics.Metric`.
    sample_weight : array-like of shape (n_samples,), optional
        Non-negative weights; the generic rows are multiplied by them.
    labels : array-like, optional
        Label set of a hard-label metric. Default: the union of the values
        in ``y_true``, ``y_pred_a`` and ``y_pred_b`` (sorted as
        :func:`numpy.unique` sorts), so that both systems and every
        resample average over the same classes.
    compress : {"auto", True, False}, default="auto"
        Compress items into occupied cells ``(true, A, B)``. ``"auto"``
        compresses when ``metric.cellwise`` and no ``sample_weight`` (for
        per-item scores, ``metric="mean"``, only when there are at most
        1/20 as many cells as items: 0/1 scores, not graded ones).
    groups : array-like of shape (n_samples,), optional
        Cluster id of every item (ints or strings): the rows become the
        clusters' summed statistics and every test resamples clusters
        (see :mod:`sigtest._engine.design`).
    strata : array-like of shape (n_samples,), optional
        Stratum id of every item: the bootstrap resamples within strata.
    cell_cache : CellCache, optional
        The occupied cells of the last ``(y_true, y_pred_a, y_pred_b)``
        compressed with this cache, reused when the same array objects come
        again (the metrics of one pair in :func:`sigtest.compare`); the
        result is the same as without it. ``None``: computed afresh.
    rank_once : bool, default=False
        For a metric with a ``ranking`` (ROC AUC, average precision) and no
        ``sample_weight``: sort each system's scores once, compute the
        observed scores from that ranking (the value ``score_func`` returns,
        by DeLong's one pass for a binary AUC) and keep both rankings in
        ``paired.rankings`` for a test that needs them (DeLong's
        placements), instead of sorting again. Data on which the metric is
        undefined (a class missing) are scored by ``score_func``, for its
        warning. Without it, the built-in ranking metrics keep their
        rankings too: their ``score_func``'s own body returns the ranking
        it sorts (:func:`sigtest.metrics._ranking.value_and_ranking`), which
        the resampling (bootstrap, jackknife, permutation) reuses instead
        of sorting each system again.
    **metric_params
        Extra parameters for the metric (e.g. ``zero_division``).

    Returns
    -------
    paired : PairedData

    Raises
    ------
    ValueError
        Mismatched lengths (naming the argument), empty input, hard and
        soft predictions mixed, ``compress=True`` where it is not possible.

    Notes
    -----
    Both systems go through the metric's own ``statistics`` with the same
    parameters, so its validation applies. In the compressed path the metric
    is evaluated once on one representative row per occupied cell; every
    distinct label value occurs in some cell, so value-level validation is
    the same as on the full data, and the cost beyond one linear encoding
    pass is independent of ``N``.

    Examples
    --------
    >>> import numpy as np
    >>> from sigtest.metrics import get_metric
    >>> from sigtest._engine import prepare_paired
    >>> acc = get_metric("accuracy")  # statistics [correct, 1]
    >>> paired = prepare_paired([0, 1, 1, 0], [0, 1, 0, 0], [0, 1, 1, 1], acc)
    >>> paired.compressed, paired.score_a, paired.score_b
    (True, 0.75, 0.75)
    >>> paired.counts
    array([1., 1., 1., 1.])
    """
    metric = as_metric(metric)
    same = y_pred_a is y_pred_b  # one system on both sides (its own score): scored once
    y_true, a, b, n, w = _check_inputs(metric, y_true, y_pred_a, y_pred_b, sample_weight,
                                       compress, cell_cache)
    design = check_design(groups, strata, n)
    params = _label_params(metric, labels, metric_params)
    if not metric.has_statistics:
        return _prepare_without_statistics(metric, params, labels, compress, rank_once,
                                           y_true, a, b, n, w, design, metric_params, same)
    stats_a, stats_b, counts, row_of_item = _pair_statistics(
        metric, params, compress, cell_cache, y_true, a, b, n, w, design)
    sums_a = stats_a.sum(axis=0) if counts is None else counts @ stats_a
    sums_b = stats_b.sum(axis=0) if counts is None else counts @ stats_b
    score_a = float(metric.aggregate(sums_a, **params))
    score_b = float(metric.aggregate(sums_b, **params))
    if design.item_groups is None:
        stats_a, stats_b, counts, row_strata = design_rows(stats_a, stats_b, counts,
                                                           row_of_item, design)
        row_sizes = None
    else:  # the item count of every cluster row travels with the rows (McNemar)
        sizes = np.bincount(design.item_groups, weights=w, minlength=design.n_groups)
        stats_a, stats_b, counts, row_strata, row_sizes = design_rows(
            stats_a, stats_b, counts, row_of_item, design, sizes=sizes)
    return PairedData(metric, params, n, stats_a, stats_b, counts, score_a, score_b,
                      sample_weight=w, metric_params=metric_params, row_strata=row_strata,
                      row_sizes=row_sizes, **_design_fields(design))


def _check_inputs(metric, y_true, y_pred_a, y_pred_b, sample_weight, compress, cell_cache):
    """Stage 1 of :func:`prepare_paired`: ``(y_true, a, b, n, w)`` checked and normalised."""
    _check_compress(compress, _COMPRESS_OPTIONS)
    if cell_cache is not None and not isinstance(cell_cache, CellCache):
        raise TypeError(
            f"The 'cell_cache' parameter must be a CellCache or None. Got {cell_cache!r} instead."
        )
    y_true, (a, b) = check_targets(metric, y_true, [y_pred_a, y_pred_b],
                                   ["y_pred_a", "y_pred_b"])
    n, w = _check_lengths([y_true, a, b], ["y_true", "y_pred_a", "y_pred_b"], sample_weight)
    y_true, a, b = _check_hard_soft(metric, y_true, a, b)
    if metric.input_type == "labels":
        # before the union of the labels, which would otherwise be blamed
        for arr, name in ((y_true, "y_true"), (a, "y_pred_a"), (b, "y_pred_b")):
            if arr.dtype.kind in "fc" and not np.all(np.isfinite(arr)):
                raise ValueError(f"The '{name}' parameter must not contain NaN or infinity.")
    return y_true, a, b, n, w


def _label_params(metric, labels, metric_params):
    """Stage 2: the metric's parameters with ``labels`` checked (None: the union, filled later)."""
    params = metric.params(**metric_params)
    if metric.input_type == "labels":
        if labels is not None:
            labels = _as_array(labels, "labels")
            if labels.ndim != 1 or labels.shape[0] == 0:
                raise ValueError("The 'labels' parameter must be a non-empty 1-D array.")
            if np.unique(labels).shape[0] != labels.shape[0]:
                raise ValueError("The 'labels' parameter must not contain duplicates.")
            params["labels"] = labels
        elif metric.has_statistics:
            params["labels"] = None  # filled from the union by _pair_statistics
    elif labels is not None:
        _check_no_labels(metric)
        params["labels"] = _as_array(labels, "labels")
    return params


def _prepare_without_statistics(metric, params, labels, compress, rank_once, y_true, a, b, n,
                                w, design, metric_params, same=False):
    """A metric without statistics: the data travel whole, scored by ``score_func``.

    ``same``: A and B are one array (a system's own score), scored once.
    """
    accepts = getattr(metric.score_func, "accepts", None)
    if labels is not None and accepts is not None and not accepts("labels"):
        raise TypeError(
            f"The 'labels' parameter was given but the function of metric "
            f"{metric.name!r} ({metric.score_func.__name__!r}) does not accept it."
        )
    if compress is True:
        raise ValueError(
            f"compress=True needs a cellwise metric with statistics; {metric.name!r} has none."
        )
    params = {k: v for k, v in params.items() if not (k == "labels" and v is None)}
    kw = {} if w is None else {"sample_weight": w}
    rankings = None
    if rank_once and metric.ranking is not None and w is None:
        rankings = _rankings(metric, y_true, a, b, params)
    scored = None if rankings is not None else value_and_ranking(metric)
    if scored is not None:  # score_func's own body, keeping the ranking it sorts
        score_a, ra = scored(y_true, a, **kw, **params)
        score_b, rb = (score_a, ra) if same else scored(y_true, b, **kw, **params)
        score_a, score_b, rankings = float(score_a), float(score_b), (ra, rb)
    elif rankings is None:
        score_a = float(metric.score_func(y_true, a, **kw, **params))
        score_b = score_a if same else float(metric.score_func(y_true, b, **kw, **params))
    else:
        # imported here: the one-pass kernel loads numba, which plain inputs never need
        from sigtest._engine.delong import ranking_score

        score_a, score_b = (ranking_score(r) for r in rankings)
    return PairedData(
        metric, params, n, None, None, None, score_a, score_b, data=(y_true, a, b, w),
        sample_weight=w, metric_params=metric_params, rankings=rankings,
        **_design_fields(design),
    )


def _pair_statistics(metric, params, compress, cell_cache, y_true, a, b, n, w, design):
    """Stage 3: both systems' statistics, as cells or as item rows.

    Returns ``(stats_a, stats_b, counts, row_of_item)``: ``counts`` is the
    size of every occupied cell (None for item rows, which carry the
    weights); ``row_of_item`` the cell of every item where a design needs
    it. Fills ``params["labels"]`` with the union of the labels when unset.
    """
    can_compress = metric.cellwise and metric.input_type in ("labels", "scores")
    if compress is True and not can_compress:
        raise ValueError(
            f"compress=True needs a cellwise hard-label metric; {metric.name!r} is not."
        )
    if compress is True and w is not None:
        raise ValueError(
            "compress=True cannot be combined with 'sample_weight' (weighted items are not "
            "exchangeable within a cell); use compress='auto' or False."
        )
    use_cells = can_compress and w is None and compress in ("auto", True)

    row_of_item = cells = None
    if use_cells:
        # the row of every item only for design_rows (clusters, strata)
        cells = _cells(y_true, a, b, with_rows=not design.empty, cache=cell_cache)
        union, yt, ya, yb, counts = cells[:5]
        row_of_item = cells[5] if len(cells) > 5 else None
        if (metric.input_type == "scores" and compress == "auto"
                and _SCORE_CELLS_PER_ITEM * counts.shape[0] > n):
            use_cells = False  # graded scores: about as many cells as items
            row_of_item = None
    if use_cells:
        if params.get("labels") is None and metric.input_type == "labels":
            params["labels"] = union
        sparse = design.empty
        if cell_cache is None:
            stats_a, stats_b = _cell_statistics(metric, yt, ya, yb, params, sparse=sparse)
        else:  # the metrics of a pair that share statistics and params compute them once
            stats_a, stats_b = cell_cache.statistics(
                metric, params, sparse,
                lambda: _cell_statistics(metric, yt, ya, yb, params, sparse=sparse))
        return stats_a, stats_b, counts, row_of_item
    expand = union = None
    if can_compress and cells is None:  # item rows, computed per cell when cells are few
        union, yt, ya, yb, cell_counts, row_of_cell = _cells(y_true, a, b, with_rows=True,
                                                             cache=cell_cache)
        if _EXPAND_CELLS_PER_ITEM * cell_counts.shape[0] <= n:
            expand = row_of_cell
    if metric.input_type == "labels" and params.get("labels") is None:
        params["labels"] = union if union is not None else _union_codes([y_true, a, b])[0]
    if expand is None:
        stats_a, stats_b = _statistics_pair(metric, y_true, a, b, params)
    else:  # the rows of a cellwise metric depend on the cell only: the same arrays
        stats_a, stats_b = _cell_statistics(metric, yt, ya, yb, params, sparse=False)
        stats_a, stats_b = stats_a[expand], stats_b[expand]
    if w is not None:
        stats_a = np.ascontiguousarray(stats_a * w[:, None])
        stats_b = np.ascontiguousarray(stats_b * w[:, None])
    return stats_a, stats_b, None, None


#: Per-item scores take the cell path (``compress="auto"``) only when there are at
#: most 1/20 as many occupied cells (pairs of scores) as items: a cell costs the
#: resampling kernels about as much as 20 items (its multinomial count is drawn
#: by binomials; ``benchmarks/bench_scores.py``: 5,312 cells of 10^4 judge
#: scores, 7.9 s against 0.82 s for the items). 0/1 scores have at most 4 cells.
_SCORE_CELLS_PER_ITEM = 20


#: Item rows of a cellwise metric (``compress=False``, or ``sample_weight``) are
#: computed once per occupied cell and copied to the items when there are at most
#: 1/4 as many cells as items (``compare``'s shared resamples take every system's
#: item rows: 25 cells of 10^4 items for 5 classes).
_EXPAND_CELLS_PER_ITEM = 4


def _check_no_labels(metric):
    """Per-item scores have no classes: ``labels=`` is an error, not ignored."""
    if metric.input_type == "scores":
        raise ValueError(
            f"The 'labels' parameter has no meaning for metric {metric.name!r} (per-item "
            "scores, no classes); leave it None."
        )


def _rankings(metric, y_true, a, b, params):
    """Both systems' rankings (one sort each), or ``None`` where the metric is undefined.

    Every binary component must hold a positive and a negative item (the
    components depend on ``y_true`` only, so A's ranking tells); otherwise
    the caller scores with ``score_func``, which warns.
    """
    ra = metric.ranking(y_true, a, **params)
    sizes = np.diff(ra.starts)
    if np.any(sizes == 0):
        return None
    positives = np.add.reduceat(ra.positive.astype(np.int64), ra.starts[:-1])
    if np.any(positives == 0) or np.any(positives == sizes):
        return None
    return ra, metric.ranking(y_true, b, **params)


def _design_fields(design):
    """The design fields of :class:`PairedData` (cluster/stratum counts and codes)."""
    return dict(n_groups=design.n_groups, n_strata=design.n_strata,
                item_groups=design.item_groups, item_strata=design.item_strata)


def run_statistics(y_true, runs_a, runs_b, metric, *, labels=None, groups=None, strata=None,
                   arg_names=("runs_a", "runs_b"), **metric_params):
    """Validated per-run, per-item statistics of two systems with several runs each.

    The input path of :func:`prepare_paired_runs` and of the hierarchical
    bootstrap (:mod:`sigtest._engine.nested`): the runs are checked against
    ``y_true`` like ``y_pred_a``/``y_pred_b`` of :func:`prepare_paired`, the
    class set of a hard-label metric defaults to the union of ``y_true`` and
    every run. ``arg_names`` are the caller's names of ``runs_a`` and
    ``runs_b``, used in the messages (the hierarchical bootstrap's are
    ``y_pred_a`` and ``y_pred_b``).

    Returns
    -------
    metric : Metric
    params : dict
        The metric parameters (``labels`` fixed).
    y : ndarray
        The checked ``y_true``.
    design : Design
        The checked ``groups``/``strata``.
    stats_a, stats_b : list of ndarray of shape (n_samples, s)
        One array of per-item statistics per run of A and of B.
    """
    metric = as_metric(metric)
    if not metric.has_statistics:
        raise ValueError(
            f"Metric {metric.name!r} has no sufficient statistics, so its per-item values "
            "cannot be averaged over runs; use runs='each' (one test per run)."
        )
    name_a, name_b = arg_names
    if metric.input_type == "scores":
        runs_a, runs_b = list(runs_a), list(runs_b)
        if not runs_a or not runs_b:
            raise ValueError(f"The '{name_a if not runs_a else name_b}' parameter must hold "
                             "at least one run.")
        y_true, runs = check_targets(
            metric, y_true, runs_a + runs_b,
            [f"{name}[{k}]" for name, runs in ((name_a, runs_a), (name_b, runs_b))
             for k in range(len(runs))])
        runs_a, runs_b = runs[:len(runs_a)], runs[len(runs_a):]
    else:
        y_true = check_targets(metric, y_true, [], [])[0]
    n = y_true.shape[0]
    if n == 0:
        raise ValueError("The 'y_true' parameter is empty; at least one sample is required.")
    runs_a = _check_runs(runs_a, name_a, n)
    runs_b = _check_runs(runs_b, name_b, n)
    design = check_design(groups, strata, n)
    checked = []
    for ra in runs_a:
        for rb in runs_b[:1]:
            checked.append(_check_hard_soft(metric, y_true, ra, rb))
    y = checked[0][0]
    runs_a = [c[1] for c in checked]
    runs_b = [_check_hard_soft(metric, y_true, runs_a[0], rb)[2] for rb in runs_b]
    params = metric.params(**metric_params)
    if metric.input_type == "labels":
        if labels is None:
            labels = _union_codes([y, *runs_a, *runs_b])[0]
        else:
            labels = _as_array(labels, "labels")
            if labels.ndim != 1 or labels.shape[0] == 0:
                raise ValueError("The 'labels' parameter must be a non-empty 1-D array.")
        params["labels"] = labels
    elif labels is not None:
        _check_no_labels(metric)
        params["labels"] = _as_array(labels, "labels")

    stats_a = [_statistics(metric, y, r, params, name_a) for r in runs_a]
    stats_b = [_statistics(metric, y, r, params, name_b) for r in runs_b]
    return metric, params, y, design, stats_a, stats_b


def _merge_identical_rows(stats_a, stats_b):
    """Items whose averaged rows are identical become one cell with a multiplicity.

    Averaged hard-label statistics take few values (accuracy over ``R_A`` and
    ``R_B`` runs: at most ``(R_A + 1)(R_B + 1)`` rows), so, as for the cells of
    single-run hard labels, the tests then work on ``O(cells)`` rows instead
    of ``N`` (benchmarked: 10x faster at N = 5,000, 5 runs). Done only
    when it at least halves the rows (soft metrics keep their item rows).
    Rows are sorted (``np.unique``), so they do not depend on the item order.
    """
    joint = np.hstack([stats_a, stats_b])
    n = joint.shape[0]
    # one integer key per row, column by column (1-D sorts are much faster than
    # np.unique(axis=0)); keys stay below n * (distinct values of a column)
    key = np.zeros(n, dtype=np.int64)
    for j in range(joint.shape[1]):
        _, code = np.unique(joint[:, j], return_inverse=True)
        width = int(code.max()) + 1
        if 2 * width > n:
            return stats_a, stats_b, None
        _, key = np.unique(key * width + code.ravel(), return_inverse=True)
    _, first, mult = np.unique(key, return_index=True, return_counts=True)
    if 2 * first.size > n:
        return stats_a, stats_b, None
    rows = joint[first]  # sorted lexicographically by value: independent of the item order
    s = stats_a.shape[1]
    return (np.ascontiguousarray(rows[:, :s]), np.ascontiguousarray(rows[:, s:]),
            mult.astype(np.float64))


def prepare_paired_runs(y_true, runs_a, runs_b, metric, *, labels=None, groups=None,
                        strata=None, compress="auto", **metric_params):
    r"""Paired statistics of two systems with several runs each, averaged per item.

    The row of item :math:`i` of system A is the mean of its per-item
    sufficient statistics over A's :math:`R_A` runs,
    :math:`\bar s_{A,i} = R_A^{-1} \sum_r s(y_i, \hat y^{(r)}_{A,i})`, and the
    same for B over its :math:`R_B` runs (``R_A`` and ``R_B`` may differ).
    The observed score is ``aggregate`` of the column sums, which equals the
    score of the runs pooled (every run concatenated). Any paired test then
    resamples the ``N`` items with both systems' averaged rows: the item, not
    the (item, run) copy, is the resampling unit. For additive statistics this
    is the cluster bootstrap / cluster permutation with the item as cluster,
    so it tests "is B better than A on average over runs" with the item
    variability (and the run variability inside each item) correctly counted
    once.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_classes)
    runs_a, runs_b : sequence of array-like
        The runs of A and of B, each of the shape of one prediction.
    metric : str or Metric
        Must have sufficient statistics (a ``ValueError`` otherwise: the
        average of per-item statistics is what makes the test valid).
    labels : array-like, optional
        Class set of a hard-label metric; default: the union of ``y_true``
        and every run of A and B.
    groups, strata : array-like of shape (n_samples,), optional
        Cluster and stratum id of every item, as in :func:`prepare_paired`.
    compress : {"auto", False}, default="auto"
        ``"auto"`` merges the items whose averaged rows (of A and B) are
        identical into one row with a multiplicity, when that at least halves
        the rows and there are no clusters or strata. ``False`` keeps one row
        per item in the items' order: what resampling several systems on the
        same drawn items needs (:mod:`sigtest._workflows.compare.shared`).
    **metric_params
        Extra metric parameters.

    Returns
    -------
    paired : PairedData
        One row per item (``counts is None``), or, with ``compress="auto"``
        when that at least halves the rows and there are no clusters or
        strata, one row per distinct pair of averaged rows with its
        multiplicity in ``counts``.

    Raises
    ------
    ValueError
        A metric without statistics, empty runs, mismatched lengths.

    Examples
    --------
    >>> from sigtest._engine import prepare_paired_runs
    >>> y = [0, 1, 1, 0]
    >>> paired = prepare_paired_runs(y, [[0, 1, 0, 0], [0, 1, 1, 0]], [[0, 1, 1, 1]],
    ...                              "accuracy")
    >>> paired.score_a, paired.score_b
    (0.875, 0.75)
    >>> paired.stats_a[:, 0].tolist()
    [1.0, 1.0, 0.5, 1.0]
    """
    _check_compress(compress, ("auto", False))
    metric, params, y, design, stats_a_runs, stats_b_runs = run_statistics(
        y_true, runs_a, runs_b, metric, labels=labels, groups=groups, strata=strata,
        **metric_params)
    total_a = sum(stats_a_runs[1:], stats_a_runs[0].copy())
    total_b = sum(stats_b_runs[1:], stats_b_runs[0].copy())
    if total_a.shape != total_b.shape:
        raise ValueError(
            f"Metric {metric.name!r} returned statistics of different shapes for A "
            f"{total_a.shape} and B {total_b.shape}."
        )
    stats_a = np.ascontiguousarray(total_a / len(runs_a))
    stats_b = np.ascontiguousarray(total_b / len(runs_b))
    score_a = float(metric.aggregate(stats_a.sum(axis=0), **params))
    score_b = float(metric.aggregate(stats_b.sum(axis=0), **params))
    counts = row_strata = None
    if design.item_groups is not None:
        # sum the run totals per cluster, then divide: counts stay integers until
        # the one division, so a cluster where A and B agree has D exactly 0
        total_a, total_b, counts, row_strata = design_rows(total_a, total_b, None, None, design)
        stats_a = np.ascontiguousarray(total_a / len(runs_a))
        stats_b = np.ascontiguousarray(total_b / len(runs_b))
    else:
        stats_a, stats_b, counts, row_strata = design_rows(stats_a, stats_b, None, None,
                                                           design)
    if counts is None and row_strata is None and compress == "auto":
        stats_a, stats_b, counts = _merge_identical_rows(stats_a, stats_b)
    return PairedData(metric, params, y.shape[0], stats_a, stats_b, counts, score_a, score_b,
                      metric_params=metric_params, row_strata=row_strata,
                      **_design_fields(design))
