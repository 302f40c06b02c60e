"""Jackknife: leave-one-out metric values of A and B, :func:`jackknife_values`.

Leave-one-out sums are ``total - row`` (closed form, ``O(N * s)``, or
``O(C * s)`` with cell weights; sparse cell rows in chunks). A rank metric
(ROC AUC, average precision) has closed forms from each system's scores
sorted once (:mod:`sigtest._engine.rank_jackknife`), else one pass over
them per left-out unit. Any other metric without statistics calls ``score_func`` once per
left-out item, cell or cluster (through the slow path's scorer, :mod:`.slow`).
"""

from __future__ import annotations

import numpy as np

from sigtest._engine.sparse import SparseRows
from sigtest._engine.resampling.rows import _check_paired
from sigtest._engine.resampling.slow import _score, _slow_params, _SlowScorer

__all__ = ["jackknife_values"]

# Entries of one jackknife chunk of sparse rows (the aggregate makes several
# temporaries of this size).
_JACKKNIFE_ENTRIES = 1 << 18


def jackknife_values(paired, *, chunk_rows=65536, ranked=None):
    """Leave-one-out metric values of A and B per row (generic) or per cell.

    Parameters
    ----------
    paired : PairedData
    chunk_rows : int, default=65536
        Rows aggregated per call (bounds memory to ``chunk_rows * s``; the
        values do not depend on it). The values are computed once per
        ``paired`` and shared, read-only, by later calls.
    ranked : RankedPair, optional
        A rank metric's sorted orders of ``paired``
        (:func:`~sigtest._engine.rank_metrics.ranked_pair`), reused when the
        caller has them; the values do not depend on it.

    Returns
    -------
    theta_a, theta_b : ndarray of shape (R,)
        ``aggregate(total - row)`` for every row ``R`` (items or cells).
    weights : ndarray of shape (R,)
        Multiplicity of every row: ones (generic) or the cell counts.
        The jackknife mean is ``sum(weights * theta) / sum(weights)``.

    Notes
    -----
    Closed form from the sufficient statistics: ``O(N * s)`` (generic) or
    ``O(C * s)`` (compressed), instead of ``N`` metric evaluations
    (Efron 1987, the acceleration of BCa). A binary ROC AUC on items uses
    the closed form of its placement values (``O(N)`` after one sort), the
    multiclass AUCs and average precision closed forms per component
    (``O(N K)``, one-vs-one ``O(N K^2)``), the remaining rank metric cases
    one pass over each system's sorted order per left-out unit;
    another metric without statistics falls back to ``N`` calls of
    ``score_func``.

    Examples
    --------
    >>> import numpy as np
    >>> from sigtest.metrics import get_metric
    >>> from sigtest._engine import prepare_paired
    >>> acc = get_metric("accuracy")  # statistics [correct, 1]
    >>> y, a, b = [0, 0, 1, 0], [0, 1, 1, 0], [0, 0, 1, 0]
    >>> theta_a, theta_b, w = jackknife_values(prepare_paired(y, a, b, acc))
    >>> theta_a.round(3), w   # cells (0,0,0) x2, (0,1,0), (1,1,1)
    (array([0.667, 1.   , 0.667]), array([2., 1., 1.]))
    """
    _check_paired(paired, need_statistics=False)
    found = paired.memo.get("jackknife")
    if found is None:  # computed once per paired data (read-only: callers share it)
        found = tuple(np.asarray(array)
                      for array in _jackknife_values(paired, chunk_rows, ranked))
        for array in found:
            array.flags.writeable = False
        paired.memo["jackknife"] = found
    return found


def _jackknife_values(paired, chunk_rows, ranked=None):
    """:func:`jackknife_values`, computed."""
    if not paired.has_statistics:
        closed = _jackknife_auc(paired)
        if closed is None:
            closed = _jackknife_ranked(paired, ranked)
        return _jackknife_slow(paired) if closed is None else closed
    sums_a, sums_b = paired.totals()
    R = paired.stats_a.shape[0]
    theta_a = np.empty(R)
    theta_b = np.empty(R)
    if isinstance(paired.stats_a, SparseRows):
        return _jackknife_sparse(paired, sums_a, sums_b, theta_a, theta_b)
    for lo in range(0, R, chunk_rows):
        hi = min(R, lo + chunk_rows)
        theta_a[lo:hi] = paired.values(sums_a - paired.stats_a[lo:hi])
        theta_b[lo:hi] = paired.values(sums_b - paired.stats_b[lo:hi])
    weights = np.ones(R) if paired.counts is None else paired.counts.copy()
    return theta_a, theta_b, weights


def _jackknife_auc(paired):
    """Leave-one-out values of A and B in closed form (rank metrics), else None.

    Binary ROC AUC on items: from the placement values (DeLong's structural
    components) of the one sort, ``O(N)`` instead of ``2 N`` calls of
    ``score_func`` (:func:`sigtest._engine.rank_metrics.auc_jackknife`;
    clusters: :func:`~sigtest._engine.rank_metrics.auc_cluster_jackknife`).
    The multiclass AUCs (one-vs-rest, one-vs-one; items, weights, clusters)
    and average precision (binary, one-vs-rest ``macro`` / ``weighted``;
    items, up to :data:`~sigtest._engine.rank_jackknife.AP_MAX_DISTINCT_WEIGHTS`
    distinct weights): per-component closed forms combined as the metric
    combines its components (:func:`sigtest._engine.rank_jackknife.ranked_jackknife`),
    ``O(N K)`` or ``O(N K^2)``. The other cases (average precision
    ``micro`` or with clusters): :func:`_jackknife_ranked`.
    """
    # numpy only: also without numba (SIGTEST_DISABLE_NUMBA=1)
    if (getattr(paired.metric, "ranking", None) is None or paired.has_statistics
            or paired.data is None):
        return None
    y, a, b, w = paired.data
    kept = getattr(paired, "rankings", None)  # sorted once by the input path
    ra = paired.metric.ranking(y, a, **paired.params) if kept is None else kept[0]
    rb = paired.metric.ranking(y, b, **paired.params) if kept is None else kept[1]
    if ra.kind != "roc_auc" or ra.n_components != 1:
        return _jackknife_components(paired, ra, rb, w)
    # imported on a first rank metric (a comparison without one never imports it)
    from sigtest._engine.rank_metrics import auc_cluster_jackknife, auc_jackknife

    if paired.item_groups is not None:  # delete-one-cluster
        G = int(paired.n_groups)
        return (auc_cluster_jackknife(ra, paired.item_groups, G, w),
                auc_cluster_jackknife(rb, paired.item_groups, G, w), np.ones(G))
    theta_a = auc_jackknife(ra, w)
    theta_b = theta_a if rb is ra else auc_jackknife(rb, w)  # one system's own score
    return theta_a, theta_b, np.ones(paired.n_samples)


def _jackknife_components(paired, ra, rb, w):
    """:func:`_jackknife_auc` of a multiclass AUC or an average precision, else None."""
    # imported on a first rank metric (a comparison without one never imports it)
    from sigtest._engine.rank_jackknife import ranked_jackknife

    groups = paired.item_groups
    G = None if groups is None else int(paired.n_groups)
    theta_a = ranked_jackknife(ra, w, groups, G)
    if theta_a is None:
        return None
    theta_b = theta_a if rb is ra else ranked_jackknife(rb, w, groups, G)
    return theta_a, theta_b, np.ones(theta_a.shape[0])


#: Left-out units whose weight rows are held at once (``block x units`` floats).
_RANKED_BLOCK = 256


def _jackknife_ranked(paired, ranked=None):
    """Leave-one-out values of any rank metric from its sorted orders, else None.

    Each system's scores are sorted once (``ranked``, the caller's
    :class:`~sigtest._engine.rank_metrics.RankedPair`, or built here);
    leaving out unit ``u`` (an item, or a cluster) is the weight vector with ``u``'s items at 0, one pass per
    system over the sorted order
    (:func:`sigtest._engine.rank_metrics.rank_weighted_scores`):
    ``O(U L)`` for ``L`` sorted entries, instead of ``2 U`` calls of
    ``score_func`` that each sort again. The cases without a closed form
    (:func:`_jackknife_auc`): average precision ``micro``, with clusters, or
    under many distinct item weights.
    A weight of zero drops an item as scikit-learn drops zero-weight items,
    so the values equal ``score_func`` on the data without the unit (to
    1e-12: sums in another order).
    """
    # imported on a first rank metric (a comparison without one never imports it)
    from sigtest._engine.rank_metrics import rank_weighted_scores, ranked_pair, uses_ranking

    if not uses_ranking(paired):
        return None
    rp = ranked_pair(paired) if ranked is None else ranked
    U = rp.n_resampling_units
    theta = np.empty((U, 2))
    for lo in range(0, U, _RANKED_BLOCK):
        hi = min(U, lo + _RANKED_BLOCK)
        W = np.ones((hi - lo, U))
        W[np.arange(hi - lo), np.arange(lo, hi)] = 0.0
        theta[lo:hi] = rank_weighted_scores(rp, W)
    return np.ascontiguousarray(theta[:, 0]), np.ascontiguousarray(theta[:, 1]), np.ones(U)


def _jackknife_sparse(paired, sums_a, sums_b, theta_a, theta_b):
    """:func:`jackknife_values` of sparse cell rows, in chunks of ``_JACKKNIFE_ENTRIES``.

    Each chunk is the totals repeated, minus the chunk's nonzero entries:
    the same numbers as ``total - dense row`` (subtracting 0 changes
    nothing), without densifying the rows.
    """
    R, s = paired.stats_a.shape
    step = max(1, _JACKKNIFE_ENTRIES // max(s, 1))
    for total, rows, theta in ((sums_a, paired.stats_a, theta_a),
                               (sums_b, paired.stats_b, theta_b)):
        for lo in range(0, R, step):
            hi = min(R, lo + step)
            start, stop = rows.indptr[lo], rows.indptr[hi]
            chunk = np.tile(total, (hi - lo, 1))
            rid = np.repeat(np.arange(hi - lo), np.diff(rows.indptr[lo : hi + 1]))
            chunk[rid, rows.indices[start:stop]] -= rows.data[start:stop]
            theta[lo:hi] = paired.values(chunk)
    return theta_a, theta_b, paired.counts.copy()


def _jackknife_slow(paired):
    """Leave-one-out scores by ``score_func``: ``2 N`` calls, or one per
    distinct (true, predicted) cell for order-independent hard-label metrics
    (leaving out any item of a cell gives the same label table)."""
    y, a, b, w = paired.data
    params = _slow_params(paired)
    n = paired.n_samples
    scorer = _SlowScorer(paired, params)
    if paired.item_groups is not None:
        return _jackknife_slow_clusters(paired, params, scorer)
    if scorer.memo is not None:
        KK = scorer.K * scorer.K
        out = []
        for cells in (scorer.cell_a, scorer.cell_b):
            total = np.bincount(cells, minlength=KK)
            values = np.full(KK, np.nan)
            for c in np.flatnonzero(total):
                counts = total.copy()
                counts[c] -= 1
                values[c] = scorer._call(counts)
            out.append(values[cells])
        return out[0], out[1], np.ones(n)
    theta_a = np.empty(n)
    theta_b = np.empty(n)
    keep = np.ones(n, dtype=bool)
    for i in range(n):
        keep[i] = False
        wi = None if w is None else w[keep]
        theta_a[i] = _score(paired, params, y[keep], a[keep], wi)
        theta_b[i] = _score(paired, params, y[keep], b[keep], wi)
        keep[i] = True
    return theta_a, theta_b, np.ones(n)


def _jackknife_slow_clusters(paired, params, scorer):
    """Delete-one-cluster scores by ``score_func``: one call per cluster and system."""
    y, a, b, w = paired.data
    groups = paired.item_groups
    G = int(paired.n_groups)
    theta = np.empty((2, G))
    for g in range(G):
        keep = groups != g
        for k, pred in enumerate((a, b)):
            if scorer.memo is not None:
                cells = (scorer.cell_a, scorer.cell_b)[k][keep]
                theta[k, g] = scorer._call(np.bincount(cells, minlength=scorer.K * scorer.K))
            else:
                theta[k, g] = _score(paired, params, y[keep], pred[keep],
                                     None if w is None else w[keep])
    return theta[0], theta[1], np.ones(G)
