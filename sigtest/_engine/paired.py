"""Paired sufficient statistics of two systems: the input of every resampling scheme.

:class:`PairedData` holds what a test sees: per-row statistics of A and B
(one row per item, or one row per occupied cell ``(true, A, B)`` with its
multiplicity), the observed scores and the sampling design. It is built by
the validated input path (:mod:`sigtest._engine.prepare`); its rows are
dense arrays or :class:`~sigtest._engine.sparse.SparseRows`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from sigtest.metrics import Metric
from sigtest._engine.small_sample import discordant_count
from sigtest._engine.sparse import SparseRows, dense_chunk_rows, sparse_difference

__all__ = ["PairedData", "PairedStatistics", "check_decomposable", "metric_values",
           "resample_params_of"]


def metric_values(metric, resample_params, sums):
    """``metric.aggregate(sums, **resample_params)`` as float64 (:meth:`PairedData.values`).

    Parameters
    ----------
    metric : Metric
        With sufficient statistics.
    resample_params : dict
        :attr:`PairedData.resample_params`.
    sums : array-like of shape (..., s)

    Returns
    -------
    values : ndarray of shape (...)
    """
    sums = np.asarray(sums, dtype=np.float64)
    return np.asarray(metric.aggregate(sums, **resample_params), dtype=np.float64)


def resample_params_of(params, *, fill_unset=True):
    """``params`` with ``zero_division="warn"`` (or unset) replaced by 0.0.

    ``fill_unset=False`` leaves an unset ``zero_division`` unset (for a
    function that may not take the keyword).
    """
    out = dict(params)
    zd = out.get("zero_division", "warn" if fill_unset else None)
    if isinstance(zd, str) and zd == "warn":
        out["zero_division"] = 0.0
    return out


_NOT_DECOMPOSABLE = (
    "Metric {name!r} is not decomposable per item: its score is not a weighted mean of "
    "per-item values (e.g. macro-F1 or an entropy correlation are computed from totals "
    "over all items), so per-item values or differences are not defined. Use a test on "
    "the whole metric instead: PairedPermutation or BCaInterval."
)


def check_decomposable(metric):
    """``ValueError`` unless ``metric`` is a weighted mean of per-item values.

    What the per-item tests (sign, Wilcoxon, paired t, McNemar) need
    (``metric.decomposable`` with sufficient statistics); it depends on the
    metric alone, so a workflow checks it before any data is prepared.

    Parameters
    ----------
    metric : Metric
    """
    if not (getattr(metric, "decomposable", False) and metric.has_statistics):
        raise ValueError(_NOT_DECOMPOSABLE.format(name=metric.name))


@dataclass(frozen=True)
class PairedData:
    r"""The prepared paired data of a baseline A and a candidate B: what a test sees.

    Built once by the validated input path (``SignificanceTest.test``,
    :func:`sigtest.compare` and the other workflows) and passed to
    :meth:`SignificanceTest.evaluate`, the hook of a user-defined test.
    Rows are either items (``counts is None``) or occupied cells
    ``(true, A, B)`` of hard labels with their multiplicities ``counts``.

    Parameters
    ----------
    metric : Metric
        The metric (its ``aggregate``, ``greater_is_better`` and
        ``decomposable`` flag).
    params : dict
        Parameters passed to ``statistics``/``aggregate`` (labels fixed),
        with the user's ``zero_division``.
    n_samples : int
        Number of items ``N``.
    stats_a, stats_b : ndarray of shape (R, s) or None
        Per-row sufficient statistics of A and B, float64, C-contiguous. ``R = N`` (generic path, rows multiplied by
        ``sample_weight`` if given) or ``R = C`` occupied cells (compressed).
        ``None`` for a metric without statistics (slow path). Wide, mostly
        zero cell rows (many-class precision/recall/F1: ``s = 3K + 1``) are
        a :class:`SparseRows` instead: ``numpy.asarray(stats_a)`` or
        indexing rows (``stats_a[lo:hi]``) gives dense rows.
    counts : ndarray of shape (R,) or None
        Cell multiplicities (float64) in the compressed path, else ``None``.
    score_a, score_b : float
        Observed metric values (computed with the user's ``zero_division``,
        so an undefined-metric warning fires on the observed data only).
    data : tuple or None
        ``(y_true, y_pred_a, y_pred_b, sample_weight)`` for the slow path.
    resample_params : dict
        ``params`` with ``zero_division="warn"`` replaced by ``0.0``: used on
        resamples, which fill 0/0 silently.
    sample_weight : ndarray of shape (N,) or None
        The validated item weights of the generic path (already multiplied
        into ``stats_a``/``stats_b``).
    metric_params : dict
        The metric keyword arguments the user passed (recorded in results).
    n_groups : int or None
        Number ``G`` of clusters (``groups=``); rows are then clusters, each
        holding the sums of its items' statistics (identical cluster rows
        merged with multiplicities ``counts``), and every scheme resamples
        clusters. ``None``: independent items.
    n_strata : int or None
        Number ``H`` of strata (``strata=``): the bootstrap resamples within
        each stratum, keeping its size. ``None``: no strata.
    row_strata : ndarray of shape (R,) or None
        Stratum code (``0 .. H - 1``) of every row.
    item_groups, item_strata : ndarray of shape (N,) or None
        Cluster and stratum code of every item (used by the slow path).
    row_sizes : ndarray of shape (R,) or None
        Clustered data: the item count (total ``sample_weight``) of the
        cluster(s) of every row, carried from the input path (merged rows
        join clusters of equal size). ``None`` when not clustered or not
        known (then a test infers it, e.g. McNemar from the count statistic).
    rankings : tuple of two RankedScores or None
        Each system's scores sorted once by the input path, for the tests
        and the resampling to reuse instead of sorting again: a ranking
        metric prepared with ``rank_once=True`` (DeLong's test: the observed
        scores computed from them), or a built-in ranking metric (ROC AUC,
        average precision: the rankings its ``score_func`` sorted, see
        :func:`sigtest.metrics._ranking.value_and_ranking`). ``None``
        otherwise.

    Notes
    -----
    The parameters are also the (read-only) attributes; the object is built
    by the input path, not by users. Orientation: :attr:`delta` is ``score_b - score_a``; :meth:`orient`
    flips the sign for a loss, so :attr:`statistic` (and every oriented
    value) is positive when B is better.
    """

    metric: Metric
    params: dict
    n_samples: int
    stats_a: np.ndarray | None
    stats_b: np.ndarray | None
    counts: np.ndarray | None
    score_a: float
    score_b: float
    data: tuple | None = None
    resample_params: dict = field(default=None, repr=False)
    sample_weight: np.ndarray | None = field(default=None, repr=False)
    metric_params: dict = field(default=None, repr=False)
    n_groups: int | None = None
    n_strata: int | None = None
    row_strata: np.ndarray | None = field(default=None, repr=False)
    item_groups: np.ndarray | None = field(default=None, repr=False)
    item_strata: np.ndarray | None = field(default=None, repr=False)
    row_sizes: np.ndarray | None = field(default=None, repr=False)
    rankings: tuple | None = field(default=None, repr=False, compare=False)
    #: Values derived from the fields once and reused by every test and check of
    #: the pair (the jackknife values: the BCa acceleration and the influence
    #: concentration both read them); not an argument, so ``dataclasses.replace``
    #: starts a new one.
    memo: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self):
        if self.resample_params is None:
            object.__setattr__(self, "resample_params", resample_params_of(self.params))
        if self.metric_params is None:
            object.__setattr__(self, "metric_params", {})

    @property
    def clustered(self) -> bool:
        """Whether the items come in clusters (``groups=``): rows are clusters."""
        return self.n_groups is not None

    @property
    def stratified(self) -> bool:
        """Whether the bootstrap resamples within strata (``strata=``)."""
        return self.n_strata is not None

    @property
    def n_units(self) -> int:
        """Number of resampling units: ``n_groups`` clusters, else ``n_samples`` items."""
        return int(self.n_groups if self.n_groups is not None else self.n_samples)

    @property
    def compressed(self) -> bool:
        """Whether rows are cells with multiplicities (``counts``)."""
        return self.counts is not None

    @property
    def has_statistics(self) -> bool:
        """Whether the fast (sufficient-statistic) path is available."""
        return self.stats_a is not None

    @property
    def n_statistics(self) -> int:
        """Number of statistics columns ``s`` per system (0 on the slow path)."""
        return 0 if self.stats_a is None else self.stats_a.shape[1]

    @property
    def delta(self) -> float:
        """Observed raw difference ``score_b - score_a``."""
        return float(self.score_b - self.score_a)

    @property
    def statistic(self) -> float:
        """Observed oriented difference ``orient(delta)``: positive means B is better."""
        return float(self.orient(self.delta))

    @property
    def n_discordant(self) -> int:
        """Number ``d`` of discordant items (A and B per-item statistics differ).

        Only these items move under a paired permutation; see
        ``discordant_count`` for the slow path and weights.
        """
        return discordant_count(self)

    def orient(self, x):
        """Oriented values: ``x`` for a score, ``-x`` for a loss (positive: B better).

        Parameters
        ----------
        x : float or ndarray
            Raw differences ``B - A`` (e.g. resampled ``score_b* - score_a*``).

        Returns
        -------
        oriented : float or ndarray
            ``x`` if the metric is a score (greater is better), ``-x`` if it
            is a loss: positive values mean B is better.
        """
        return x if self.metric.greater_is_better else -x

    def _require_statistics(self):
        """ValueError unless the metric has sufficient statistics (fast path)."""
        if not self.has_statistics:
            raise ValueError("This metric has no sufficient statistics (slow path).")

    def totals(self):
        """Observed column sums of the statistics of A and B.

        Returns
        -------
        sums_a, sums_b : ndarray of shape (s,)
            The weighted sums of ``stats_a`` and ``stats_b`` over rows (cell
            rows weighted by ``counts``): ``values(sums_a)`` is the score of A.

        Raises
        ------
        ValueError
            For a metric without sufficient statistics (slow path).
        """
        self._require_statistics()
        if self.counts is None:
            return self.stats_a.sum(axis=0), self.stats_b.sum(axis=0)
        return self.counts @ self.stats_a, self.counts @ self.stats_b

    def values(self, sums):
        """Metric values of column sums, computed with the resample parameters.

        Parameters
        ----------
        sums : array-like of shape (..., s)
            Column sums of statistics (e.g. one row per resample).

        Returns
        -------
        values : ndarray of shape (...)
            ``metric.aggregate(sums)`` with ``resample_params`` (0/0 filled
            silently when the user asked ``zero_division="warn"``).
        """
        return metric_values(self.metric, self.resample_params, sums)

    def deltas(self, sums_a, sums_b):
        """Raw resampled differences ``values(sums_b) - values(sums_a)``.

        Parameters
        ----------
        sums_a, sums_b : array-like of shape (..., s)
            Column sums of the statistics of A and B, same leading shape.

        Returns
        -------
        deltas : ndarray of shape (...)
            ``score_b* - score_a*`` per leading index, not oriented (see
            :meth:`orient`).
        """
        return self.values(sums_b) - self.values(sums_a)

    def discordant_rows(self):
        """Boolean mask of the rows whose A and B statistics differ.

        Returns
        -------
        rows : ndarray of shape (R,), bool
            ``True`` where a row of ``stats_b`` differs from that of
            ``stats_a`` (read from the nonzero entries for sparse rows).

        Raises
        ------
        ValueError
            For a metric without sufficient statistics (slow path).
        """
        self._require_statistics()
        if isinstance(self.stats_a, SparseRows):
            return sparse_difference(self.stats_a, self.stats_b)[1]
        return np.any(self.stats_b != self.stats_a, axis=1)

    def discordant_entries(self):
        """Row and column indices of the entries where ``stats_b`` differs from ``stats_a``.

        Returns
        -------
        rows, cols : ndarray of shape (nnz,), int64
            Entry ``(rows[j], cols[j])`` differs (read from the nonzero
            entries for sparse rows, never densified).

        Raises
        ------
        ValueError
            For a metric without sufficient statistics (slow path).
        """
        self._require_statistics()
        if isinstance(self.stats_a, SparseRows):
            diff = sparse_difference(self.stats_a, self.stats_b)[0]
            return diff.row_ids(), diff.indices
        rows, cols = np.nonzero(self.stats_b != self.stats_a)
        return rows.astype(np.int64), cols.astype(np.int64)

    def _row_weights(self):
        if self.counts is not None:
            return self.counts.copy()
        if self.clustered:
            return np.ones(self.stats_a.shape[0])
        if self.sample_weight is not None:
            return np.asarray(self.sample_weight, dtype=np.float64).copy()
        return np.ones(self.n_samples)

    def item_values(self):
        r"""Per-item metric values of A and B, one per row, with row weights.

        For a per-item decomposable metric (``metric.decomposable``: its
        score is the weighted mean :math:`\sum_i w_i v_i / \sum_i w_i` of
        per-item values) the value of row :math:`i` is ``aggregate`` of its
        statistics row (e.g. 1 if correct for accuracy).

        Returns
        -------
        values_a, values_b : ndarray of shape (R,)
            Per-row metric values of A and B (``aggregate`` of each
            statistics row).
        weights : ndarray of shape (R,)
            Cell multiplicities (compressed rows), the sample weights, or ones.
            Expand with ``numpy.repeat(values, weights.astype(int))`` for
            unweighted per-item data.

        Raises
        ------
        ValueError
            If the metric is not decomposable per item (macro-F1, entropy
            correlation, a metric without statistics); the message names the
            tests to use instead.

        Notes
        -----
        Clustered data (``groups=``): one value per cluster, the metric of
        the cluster's summed statistics (e.g. its accuracy), with the
        multiplicity of identical cluster rows as weight. A per-item test
        (sign, Wilcoxon, paired t) then tests these cluster-level values,
        the cluster-summary approach (Donner & Klar 2000, ch. 6): valid
        for independent clusters, and it weights clusters equally, so its
        null hypothesis is about the mean of the cluster values, not the
        pooled score.
        """
        check_decomposable(self.metric)
        weights = self._row_weights()
        values_a = self._row_values(self.stats_a)
        values_b = self._row_values(self.stats_b)
        zero = weights == 0  # weighted rows of weight 0: 0/0, value irrelevant
        if np.any(zero):
            values_a[zero] = 0.0
            values_b[zero] = 0.0
        if not self.clustered:  # cluster values are cluster means, not items
            self._check_item_mean(values_a, weights, self.score_a, "A")
            self._check_item_mean(values_b, weights, self.score_b, "B")
        return values_a, values_b, weights

    def _row_values(self, stats):
        """``values`` of every statistics row (sparse rows in dense chunks)."""
        if not isinstance(stats, SparseRows):
            return self.values(stats)
        step = dense_chunk_rows(stats.shape[1])
        return np.concatenate([self.values(stats[lo : lo + step])
                               for lo in range(0, stats.shape[0], step)])

    def _check_item_mean(self, values, weights, score, system):
        """The score must be the weighted mean of the per-item values.

        A metric flagged decomposable can stop being one for a given label
        set: micro-F1 equals accuracy only when ``labels`` covers every label
        predicted (with ``labels=[0, 1]`` and predictions of class 2 it is
        not a mean of per-item values). A per-item test would then test
        other numbers than the score it reports.
        """
        total = float(weights.sum())
        mean = float(np.dot(weights, values) / total) if total > 0 else math.nan
        if not (math.isfinite(mean) and math.isfinite(float(score))
                and abs(mean - float(score)) <= 1e-9 * max(1.0, abs(float(score)))):
            raise ValueError(
                f"Metric {self.metric.name!r} is not the mean of per-item values on these "
                f"data (labels={self.params.get('labels')!r}): for system {system} the "
                f"weighted mean of the per-item values is {mean:.6g} but the score is "
                f"{float(score):.6g}, so a per-item test (sign, Wilcoxon, paired t, McNemar) "
                "would test other numbers than the score. Use PairedPermutation or "
                "BCaInterval, or a label set that covers every predicted label."
            )

    def item_differences(self):
        """Oriented per-item differences ``orient(value_b - value_a)`` and row weights.

        Positive means B is better on that item. See :meth:`item_values`
        (same rows, weights and ``ValueError`` for non-decomposable metrics).

        Returns
        -------
        differences : ndarray of shape (R,)
            ``orient(value_b - value_a)`` per row: positive where B is better.
        weights : ndarray of shape (R,)
            Row weights, as returned by :meth:`item_values`.
        """
        values_a, values_b, weights = self.item_values()
        return self.orient(values_b - values_a), weights


#: Former name of :class:`PairedData`.
PairedStatistics = PairedData
