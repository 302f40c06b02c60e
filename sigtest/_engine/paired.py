"""Paired sufficient statistics of two systems: the input of every resampling scheme.

:func:`prepare_paired` validates ``(y_true, y_pred_a, y_pred_b)`` once, fixes
the label set, and turns the data into per-row statistics of A and B, either
one row per item (generic path) or one row per occupied cell
``(true, A, B)`` with its multiplicity (compressed path for ``cellwise``
hard-label metrics). The resampling kernels then never see labels or metrics,
only float arrays.
"""

from __future__ import annotations

import inspect
import math
import threading
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np

from sigtest.metrics import Metric, get_metric
from sigtest.metrics._common import check_zero_division
from sigtest._engine.checks import check_array_like as _as_array
from sigtest._engine.design import check_design, design_rows
from sigtest._engine.small_sample import discordant_count

__all__ = ["PairedData", "PairedStatistics", "SparseRows", "prepare_paired",
           "prepare_paired_runs"]

_COMPRESS_OPTIONS = ("auto", True, False)


def _check_compress(compress, options):
    """``compress`` must be one of ``options`` (``True``/``False`` as bools, not 1/0)."""
    if compress not in options or isinstance(compress, (int, float)) and not isinstance(
        compress, bool
    ):
        raise ValueError(
            f"The 'compress' parameter must be one of {options}. Got {compress!r} instead."
        )


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
        sums = np.asarray(sums, dtype=np.float64)
        return np.asarray(self.metric.aggregate(sums, **self.resample_params), dtype=np.float64)

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
        step = max(1, _SPARSE_CHUNK_ENTRIES // max(stats.shape[1], 1))
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


class SparseRows:
    """Rows of per-row statistics stored sparsely (CSR): what cell rows hold when wide.

    A hard-label row of a many-class metric (per-class TP / predicted / true
    counts) has at most a handful of nonzero entries among ``s = 3K + 1``
    columns, so ``C`` occupied cells are kept as ``O(C)`` entries instead of a
    dense ``(C, s)`` array. The resampling kernels read this form directly;
    other consumers get dense rows from indexing or :meth:`toarray` (row
    chunks are dense ``ndarray``).

    Parameters
    ----------
    indptr : ndarray of shape (R + 1,), int64
        Row ``r`` holds entries ``indptr[r]:indptr[r + 1]``.
    indices : ndarray of shape (nnz,), int64
        Column of every entry, increasing within a row.
    data : ndarray of shape (nnz,), float64
        Value of every entry (no explicit zeros).
    n_cols : int
        Number of columns ``s``.
    """

    ndim = 2
    dtype = np.dtype(np.float64)
    __array_ufunc__ = None  # ``counts @ rows`` calls __rmatmul__, not a densifying ufunc

    def __init__(self, indptr, indices, data, n_cols):
        self.indptr = np.ascontiguousarray(indptr, dtype=np.int64)
        self.indices = np.ascontiguousarray(indices, dtype=np.int64)
        self.data = np.ascontiguousarray(data, dtype=np.float64)
        self.shape = (self.indptr.shape[0] - 1, int(n_cols))

    @classmethod
    def from_dense(cls, dense):
        """The sparse form of a dense ``(R, s)`` array (zeros dropped)."""
        dense = np.asarray(dense, dtype=np.float64)
        rows, cols = np.nonzero(dense)
        indptr = np.zeros(dense.shape[0] + 1, dtype=np.int64)
        np.cumsum(np.bincount(rows, minlength=dense.shape[0]), out=indptr[1:])
        return cls(indptr, cols, dense[rows, cols], dense.shape[1])

    @classmethod
    def concatenate(cls, parts):
        """Stack row blocks (``SparseRows`` with the same number of columns)."""
        offsets = np.cumsum([0] + [p.data.shape[0] for p in parts])
        indptr = np.concatenate([[0]] + [p.indptr[1:] + o for p, o in zip(parts, offsets)])
        return cls(indptr, np.concatenate([p.indices for p in parts]),
                   np.concatenate([p.data for p in parts]), parts[0].shape[1])

    @property
    def nnz(self):
        """Number of stored entries."""
        return int(self.data.shape[0])

    def row_ids(self):
        """Row of every stored entry, shape (nnz,)."""
        return np.repeat(np.arange(self.shape[0], dtype=np.int64), np.diff(self.indptr))

    def take_rows(self, rows):
        """The rows ``rows`` (int array, in that order) as ``SparseRows``."""
        rows = np.asarray(rows, dtype=np.int64)
        lengths = self.indptr[rows + 1] - self.indptr[rows]
        indptr = np.zeros(rows.shape[0] + 1, dtype=np.int64)
        np.cumsum(lengths, out=indptr[1:])
        pos = np.repeat(self.indptr[rows] - indptr[:-1], lengths) + np.arange(indptr[-1])
        return SparseRows(indptr, self.indices[pos], self.data[pos], self.shape[1])

    def toarray(self, rows=None):
        """Dense ``(R, s)`` array (or of the rows ``rows``: a slice or int array)."""
        part = self
        if rows is not None:
            part = self.take_rows(np.arange(self.shape[0])[rows])
        out = np.zeros(part.shape)
        out[part.row_ids(), part.indices] = part.data
        return out

    def __array__(self, dtype=None, copy=None):
        out = self.toarray()
        return out if dtype is None else out.astype(dtype)

    def __len__(self):
        return self.shape[0]

    def __getitem__(self, key):
        if isinstance(key, tuple):
            rows, cols = key
            if isinstance(cols, (int, np.integer)):  # one dense column
                col = np.zeros(self.shape[0])
                hit = self.indices == int(cols) % self.shape[1]
                col[self.row_ids()[hit]] = self.data[hit]
                return col[rows]
            return self.toarray(rows)[:, cols]
        return self.toarray(key)

    def sum(self, axis=None):
        """Column sums (``axis=0``); other axes densify."""
        if axis == 0:
            return self.weighted_sum(None)
        return np.asarray(self).sum(axis=axis)

    def weighted_sum(self, weights):
        """``weights @ rows`` (column sums with row weights; ``None``: ones)."""
        vals = self.data if weights is None else self.data * np.repeat(
            np.asarray(weights, dtype=np.float64), np.diff(self.indptr))
        return np.bincount(self.indices, weights=vals, minlength=self.shape[1])

    def __rmatmul__(self, weights):
        return self.weighted_sum(weights)


def sparse_difference(stats_a, stats_b):
    """``stats_b - stats_a`` of two :class:`SparseRows` and its nonzero-row mask.

    Returns
    -------
    diff : SparseRows
        The difference rows (entries that cancel are dropped).
    rows : ndarray of shape (R,), bool
        Whether row ``r`` of the difference has a nonzero entry.
    """
    R, s = stats_a.shape
    key = np.concatenate([stats_a.row_ids() * s + stats_a.indices,
                          stats_b.row_ids() * s + stats_b.indices])
    vals = np.concatenate([-stats_a.data, stats_b.data])
    uniq, inverse = np.unique(key, return_inverse=True)
    diff = np.bincount(inverse.ravel(), weights=vals, minlength=uniq.shape[0])
    keep = diff != 0
    uniq, diff = uniq[keep], diff[keep]
    row, col = np.divmod(uniq, s)
    indptr = np.zeros(R + 1, dtype=np.int64)
    np.cumsum(np.bincount(row, minlength=R), out=indptr[1:])
    return SparseRows(indptr, col, diff, s), np.diff(indptr) > 0


#: Former name of :class:`PairedData`.
PairedStatistics = PairedData


# --------------------------------------------------------------------------
# validation helpers
# --------------------------------------------------------------------------
#: Metric keywords documented for the built-in metrics (accepted for any metric).
DOCUMENTED_METRIC_PARAMS = frozenset(
    {"zero_division", "average", "labels", "pos_label", "multilabel", "eps", "base"}
)
_DATA_ARGUMENTS = frozenset({"y_true", "y_pred", "y_proba", "y_score", "sums", "sample_weight"})


def _named_keywords(func):
    """Keyword names ``func`` declares, or ``None`` if its signature cannot be read."""
    func = getattr(func, "func", func)  # PlainScore wraps the user's function
    try:
        params = inspect.signature(func).parameters.values()
    except (TypeError, ValueError):
        return None
    return {p.name for p in params
            if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)} - _DATA_ARGUMENTS


def _takes_var_keywords(func):
    func = getattr(func, "func", func)
    try:
        params = inspect.signature(func).parameters.values()
    except (TypeError, ValueError):
        return True
    return any(p.kind == p.VAR_KEYWORD for p in params)


def metric_keywords(metric):
    """Keyword arguments ``metric`` accepts, or ``None`` (anything: ``**kwargs``).

    The union of the keywords named by its ``statistics``, ``aggregate`` and
    ``score_func``, its fixed ``kwargs`` and :data:`DOCUMENTED_METRIC_PARAMS`.
    A plain ``score_func`` (no statistics) that takes ``**kwargs`` accepts
    anything; the ``**params`` of ``statistics``/``aggregate`` do not count
    (the contract requires them to ignore what they do not use).
    """
    score_func = metric.score_func
    if not metric.has_statistics and _takes_var_keywords(score_func):
        return None
    names = set(DOCUMENTED_METRIC_PARAMS) | set(metric.kwargs)
    for func in (metric.statistics, metric.aggregate, score_func):
        if func is None:
            continue
        named = _named_keywords(func)
        if named is None:
            return None
        names |= named
    return names


def check_metric_params(metric, metric_params, *, caller):
    """Raise ``TypeError`` for keyword arguments that ``metric`` does not accept.

    ``test(..., groups=g)`` or ``strata=`` (or a typo such as
    ``zero_divison=``) would otherwise be swallowed: neither the test nor the
    metric uses them.

    Parameters
    ----------
    metric : Metric
    metric_params : dict
        The keyword arguments left after the test's own ones.
    caller : str
        Name shown in the message (e.g. ``"PairedPermutation.test"``).

    Raises
    ------
    TypeError
        Naming every unknown keyword and the accepted ones.
    ValueError
        An invalid ``zero_division`` (see
        :func:`sigtest.metrics._common.check_zero_division`), also where the
        metric does not use it.
    """
    if "zero_division" in metric_params:
        # checked even for a metric with no ratio to fill (accuracy), which
        # would otherwise accept any value silently
        check_zero_division(metric_params["zero_division"])
    accepted = metric_keywords(metric)
    if accepted is None:
        return
    unknown = sorted(k for k in metric_params if k not in accepted)
    if unknown:
        raise TypeError(
            f"{caller}() got unexpected keyword argument(s) {unknown}: neither the test nor "
            f"the metric {metric.name!r} accepts them (the metric accepts "
            f"{sorted(k for k in accepted if not k.startswith('_'))})."
        )


def _check_lengths(arrays, names, sample_weight):
    n = arrays[0].shape[0]
    if n == 0:
        raise ValueError(f"The '{names[0]}' parameter is empty; at least one sample is required.")
    for arr, name in zip(arrays[1:], names[1:]):
        if arr.shape[0] != n:
            raise ValueError(
                f"The '{name}' parameter has {arr.shape[0]} samples but 'y_true' has {n}; "
                "all inputs must have the same number of samples."
            )
    if sample_weight is not None:
        raw = np.asarray(sample_weight.to_numpy() if hasattr(sample_weight, "to_numpy")
                         else sample_weight)
        if raw.dtype.kind not in "biuf":
            raise ValueError(
                "The 'sample_weight' parameter must hold numbers. Got an array of dtype "
                f"{raw.dtype} instead."
            )
        w = raw.astype(np.float64)
        if w.ndim != 1 or w.shape[0] != n:
            raise ValueError(
                f"The 'sample_weight' parameter must be 1-D with {n} entries (one per "
                f"sample). Got shape {w.shape} instead."
            )
        if not np.all(np.isfinite(w)) or np.any(w < 0):
            raise ValueError("The 'sample_weight' parameter must be finite and non-negative.")
        if not w.sum() > 0:  # as the metrics say: an all-zero weighting defines no score
            raise ValueError("The 'sample_weight' parameter must have a positive sum.")
        return n, w
    return n, None


def _check_hard_soft(metric, y_true, a, b):
    """Reject hard/soft mixtures; return the arrays (column vectors raveled)."""
    if a.ndim != b.ndim:
        hard, soft = ("y_pred_a", "y_pred_b") if a.ndim < b.ndim else ("y_pred_b", "y_pred_a")
        raise ValueError(
            f"Mixed hard and soft predictions: '{hard}' is {min(a.ndim, b.ndim)}-D and "
            f"'{soft}' is {max(a.ndim, b.ndim)}-D. Both systems must give the same kind of "
            f"output for metric {metric.name!r}."
        )
    if metric.input_type == "labels":
        out = []
        for arr, name in ((y_true, "y_true"), (a, "y_pred_a"), (b, "y_pred_b")):
            if arr.ndim == 2 and arr.shape[1] == 1:
                arr = arr.ravel()
            if arr.ndim != 1:
                raise ValueError(
                    f"Metric {metric.name!r} takes 1-D hard labels, but '{name}' has shape "
                    f"{arr.shape}. Pass predicted labels (e.g. the argmax of scores), or use "
                    "a soft-label metric for probability outputs."
                )
            out.append(arr)
        kinds = {arr.dtype.kind for arr in out} - {"O"}
        if kinds & {"U", "S"} and kinds - {"U", "S"}:
            raise ValueError(
                "Mixed label types: 'y_true', 'y_pred_a' and 'y_pred_b' must all be strings "
                f"or all be numbers (got dtypes {[str(x.dtype) for x in out]})."
            )
        return tuple(out)
    for arr, name in ((a, "y_pred_a"), (b, "y_pred_b")):
        if arr.ndim != 2:
            raise ValueError(
                f"Metric {metric.name!r} takes soft predictions of shape (n_samples, "
                f"n_classes), but '{name}' has shape {arr.shape} (hard labels?)."
            )
    return y_true, a, b


# --------------------------------------------------------------------------
# label encoding (O(N) for small integer labels)
# --------------------------------------------------------------------------
def _union_codes(arrays):
    """Sorted union of the values of ``arrays`` and each array's codes in it."""
    ints = all(arr.dtype.kind in "biu" for arr in arrays)
    if ints:
        lo = min(int(arr.min()) for arr in arrays)
        hi = max(int(arr.max()) for arr in arrays)
        span = hi - lo + 1
        if -(2**62) < lo and hi < 2**62 and span <= max(1 << 16, 4 * arrays[0].shape[0]):
            present = np.zeros(span, dtype=bool)
            shifted = [arr.astype(np.int64, copy=False) - lo for arr in arrays]
            for sh in shifted:
                present[sh] = True
            values = np.flatnonzero(present)
            lookup = np.cumsum(present) - 1
            dtype = np.result_type(*arrays)
            return (values + lo).astype(dtype), [lookup[sh] for sh in shifted]
    n = arrays[0].shape[0]
    if all(arr.dtype.kind in "US" for arr in arrays) and len({a.dtype.kind for a in arrays}) == 1:
        return _string_union_codes(arrays)
    try:
        union, inverse = np.unique(np.concatenate(arrays), return_inverse=True)
    except TypeError as exc:
        raise ValueError(
            "The labels in 'y_true', 'y_pred_a' and 'y_pred_b' cannot be sorted together "
            f"(mixed types?): {exc}"
        ) from exc
    inverse = inverse.ravel()
    return union, [inverse[k * n : (k + 1) * n] for k in range(len(arrays))]


# Items per chunk when encoding fixed-width strings (bounds the temporaries).
_STRING_CHUNK = 1 << 20


def _string_union_codes(arrays):
    """:func:`_union_codes` of fixed-width string arrays, chunk by chunk.

    ``np.unique`` of the concatenation copies the strings three times (the
    concatenation, its sorted copy, the flattened input) and sorts ``3 N``
    of them; here each chunk of ``_STRING_CHUNK`` items is reduced to its
    distinct values, the sorted union of those is the label set (the same
    values and order as ``np.unique`` of the concatenation), and every item's
    code is its position in the union (``np.searchsorted``). Memory beyond
    the input: the int64 codes and one chunk's temporaries.
    """
    distinct = []
    for arr in arrays:
        for lo in range(0, arr.shape[0], _STRING_CHUNK):
            distinct.append(np.unique(arr[lo : lo + _STRING_CHUNK]))
    union = np.unique(np.concatenate(distinct))
    codes = []
    for arr in arrays:
        out = np.empty(arr.shape[0], dtype=np.intp)
        for lo in range(0, arr.shape[0], _STRING_CHUNK):
            out[lo : lo + _STRING_CHUNK] = np.searchsorted(union, arr[lo : lo + _STRING_CHUNK])
        codes.append(out)
    return union, codes


#: Per thread: the cells of the last (y_true, a, b) inside :func:`reusing_cells`.
_CELL_REUSE = threading.local()


@contextmanager
def reusing_cells():
    """Within the block, :func:`_cells` of the same array objects is computed once.

    For the metrics of one pair (``sigtest.compare``): their label codes and
    occupied cells ``(true, A, B)`` are the same, only the statistics per
    cell differ. A later call with the *same objects* (``is``) returns copies
    of the first call's arrays (equal to what a new computation gives); the
    caller must not modify the arrays it passes in the block. Thread-local.
    """
    previous = getattr(_CELL_REUSE, "entry", False)
    _CELL_REUSE.entry = None
    try:
        yield
    finally:
        _CELL_REUSE.entry = previous


def _cells(y_true, a, b, with_rows=False):
    """Occupied cells (t, a, b) as representative values and counts.

    With ``with_rows``, also the cell (row) index of every item. Inside
    :func:`reusing_cells`, computed once for the same array objects.
    """
    entry = getattr(_CELL_REUSE, "entry", False)
    if entry is False:
        return _cells_computed(y_true, a, b, with_rows)
    if entry is not None and entry[0] is y_true and entry[1] is a and entry[2] is b:
        out = entry[3]
    else:
        out = _cells_computed(y_true, a, b, True)
        _CELL_REUSE.entry = (y_true, a, b, out)
    out = tuple(x.copy() for x in out)  # callers own (and may keep) what they get
    return out if with_rows else out[:5]


def _cells_computed(y_true, a, b, with_rows=False):
    """:func:`_cells` without reuse."""
    union, (ct, ca, cb) = _union_codes([y_true, a, b])
    K = union.shape[0]
    n = y_true.shape[0]
    if K**3 >= 2**63:
        # (t * K + a) * K + b would overflow int64 (K > 2,097,151 labels):
        # encode the (true, A) pairs first, then the pair with B
        pairs, pair_code = np.unique(ct.astype(np.int64) * K + ca, return_inverse=True)
        return _cells_of_codes(union, pair_code.ravel() * np.int64(K) + cb, K,
                               lambda occ: np.divmod(pairs[occ // K], K) + (occ % K,),
                               with_rows)
    code = (ct * K + ca) * K + cb
    row_of_item = None
    if K**3 <= max(1 << 20, 4 * n):
        counts = np.bincount(code, minlength=K**3)
        present = counts > 0
        occupied = np.flatnonzero(present)
        counts = counts[occupied]
        if with_rows:
            row_of_item = (np.cumsum(present) - 1)[code]
    else:
        occupied, inverse, counts = np.unique(code, return_inverse=True, return_counts=True)
        row_of_item = inverse.ravel()
    t, rest = np.divmod(occupied, K * K)
    ia, ib = np.divmod(rest, K)
    out = (union, union[t], union[ia], union[ib], counts.astype(np.float64))
    return out + (row_of_item,) if with_rows else out


def _cells_of_codes(union, code, K, decode, with_rows):
    """Occupied cells of collision-free int64 ``code``s; ``decode`` gives (t, a, b) codes."""
    occupied, inverse, counts = np.unique(code, return_inverse=True, return_counts=True)
    t, ia, ib = decode(occupied)
    out = (union, union[t], union[ia], union[ib], counts.astype(np.float64))
    return out + (inverse.ravel(),) if with_rows else out


def _named_errors(call, name):
    """``call()``, a ValueError naming 'y_pred' renamed to the caller's argument ``name``."""
    try:
        return call()
    except ValueError as exc:
        # the metric's checks call its prediction 'y_pred': name the caller's
        # argument ('y_pred_a' or 'y_pred_b') instead
        message = str(exc)
        if type(exc) is ValueError and name != "y_pred" and "'y_pred'" in message:
            raise ValueError(message.replace("'y_pred'", f"'{name}'")) from exc
        raise


def _statistics(metric, y_true, y_pred, params, name):
    stats = _named_errors(lambda: metric.statistics(y_true, y_pred, **params), name)
    stats = np.ascontiguousarray(stats, dtype=np.float64)
    if stats.ndim != 2 or stats.shape[0] != len(y_true):
        raise ValueError(
            f"Metric {metric.name!r}: statistics() must return an array of shape "
            f"(n_samples, s) for '{name}'; got shape {stats.shape}."
        )
    return stats


def _statistics_pair(metric, y_true, a, b, params):
    """Statistics of A and B with the same parameters; their shapes must agree."""
    stats_a = _statistics(metric, y_true, a, params, "y_pred_a")
    stats_b = _statistics(metric, y_true, b, params, "y_pred_b")
    if stats_a.shape != stats_b.shape:
        raise ValueError(
            f"Metric {metric.name!r} returned statistics of different shapes for A "
            f"{stats_a.shape} and B {stats_b.shape}."
        )
    return stats_a, stats_b


# Cell rows are stored sparsely (:class:`SparseRows`) when there are more than
# this many cells and their dense statistics would exceed _SPARSE_MIN_ENTRIES
# float64 entries with at most a quarter of them nonzero (many-class metrics).
_SPARSE_MIN_ROWS = 1024
# Cells evaluated densely first, to learn ``s`` and the density of the rows.
_SPARSE_PROBE_ROWS = 64
_SPARSE_MIN_ENTRIES = 1 << 22
# Dense entries of one chunk of cell statistics while building the sparse rows.
_SPARSE_CHUNK_ENTRIES = 1 << 20


def _cell_statistics(metric, yt, ya, yb, params):
    """Statistics of the cell rows of A and B: dense, or :class:`SparseRows` when wide.

    The metric is evaluated on chunks of cells (at most
    ``_SPARSE_CHUNK_ENTRIES`` dense entries at a time), so the dense
    ``(C, s)`` arrays of a many-class metric never exist: memory is that of
    the nonzero entries (a few per cell).
    """
    C = yt.shape[0]
    head = slice(0, _SPARSE_PROBE_ROWS)
    first_a, first_b = _statistics_pair(metric, yt[head], ya[head], yb[head], params)
    s = first_a.shape[1]
    dense_nonzero = np.count_nonzero(first_a) + np.count_nonzero(first_b)
    if C * s <= _SPARSE_MIN_ENTRIES or 4 * dense_nonzero > first_a.size + first_b.size:
        return _statistics_pair(metric, yt, ya, yb, params)
    sparse = getattr(metric.statistics, "sparse", None)
    if sparse is not None:  # the metric's own sparse form (built-in P/R/F1)
        out = []
        for y_pred, name in ((ya, "y_pred_a"), (yb, "y_pred_b")):
            indptr, indices, data, n_cols = _named_errors(
                lambda y_pred=y_pred: sparse(yt, y_pred, **params), name)
            rows = SparseRows(indptr, indices, data, n_cols)
            if rows.shape != (C, s):
                raise ValueError(
                    f"Metric {metric.name!r}: its sparse statistics have shape {rows.shape}, "
                    f"its dense statistics {(C, s)}."
                )
            out.append(rows)
        return tuple(out)
    step = max(1, _SPARSE_CHUNK_ENTRIES // max(s, 1))
    parts_a, parts_b = [SparseRows.from_dense(first_a)], [SparseRows.from_dense(first_b)]
    del first_a, first_b
    for lo in range(_SPARSE_PROBE_ROWS, C, step):
        part = slice(lo, min(C, lo + step))
        chunk_a, chunk_b = _statistics_pair(metric, yt[part], ya[part], yb[part], params)
        if chunk_a.shape[1] != s:
            raise ValueError(
                f"Metric {metric.name!r} returned statistics with {chunk_a.shape[1]} "
                f"columns for some rows and {s} for others."
            )
        parts_a.append(SparseRows.from_dense(chunk_a))
        parts_b.append(SparseRows.from_dense(chunk_b))
    return SparseRows.concatenate(parts_a), SparseRows.concatenate(parts_b)


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
        compresses when ``metric.cellwise`` and no ``sample_weight``.
    groups : array-like of shape (n_samples,), optional
        Cluster id of every item (ints or strings): the rows become the
        clusters' summed statistics and every test resamples clusters
        (see :mod:`sigtest._engine.design`).
    strata : array-like of shape (n_samples,), optional
        Stratum id of every item: the bootstrap resamples within strata.
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
    >>> from sigtest._engine.paired import prepare_paired
    >>> acc = get_metric("accuracy")  # statistics [correct, 1]
    >>> paired = prepare_paired([0, 1, 1, 0], [0, 1, 0, 0], [0, 1, 1, 1], acc)
    >>> paired.compressed, paired.score_a, paired.score_b
    (True, 0.75, 0.75)
    >>> paired.counts
    array([1., 1., 1., 1.])
    """
    metric = get_metric(metric)
    _check_compress(compress, _COMPRESS_OPTIONS)
    y_true = _as_array(y_true, "y_true")
    a = _as_array(y_pred_a, "y_pred_a")
    b = _as_array(y_pred_b, "y_pred_b")
    n, w = _check_lengths([y_true, a, b], ["y_true", "y_pred_a", "y_pred_b"], sample_weight)
    y_true, a, b = _check_hard_soft(metric, y_true, a, b)
    if metric.input_type == "labels":
        # before the union of the labels, which would otherwise be blamed
        for arr, name in ((y_true, "y_true"), (a, "y_pred_a"), (b, "y_pred_b")):
            if arr.dtype.kind in "fc" and not np.all(np.isfinite(arr)):
                raise ValueError(f"The '{name}' parameter must not contain NaN or infinity.")
    design = check_design(groups, strata, n)

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
            params["labels"] = None  # filled below from the union
    elif labels is not None:
        params["labels"] = _as_array(labels, "labels")

    if not metric.has_statistics:
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
        score_a = float(metric.score_func(y_true, a, **kw, **params))
        score_b = float(metric.score_func(y_true, b, **kw, **params))
        return PairedData(
            metric, params, n, None, None, None, score_a, score_b, data=(y_true, a, b, w),
            sample_weight=w, metric_params=metric_params, **_design_fields(design),
        )

    can_compress = metric.cellwise and metric.input_type == "labels"
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

    row_of_item = None
    if use_cells:
        union, yt, ya, yb, counts, row_of_item = _cells(y_true, a, b, with_rows=True)
        if params.get("labels") is None:
            params["labels"] = union
        if design.empty and yt.shape[0] > _SPARSE_MIN_ROWS:
            stats_a, stats_b = _cell_statistics(metric, yt, ya, yb, params)
        else:
            stats_a, stats_b = _statistics_pair(metric, yt, ya, yb, params)
        sums_a, sums_b = counts @ stats_a, counts @ stats_b
    else:
        if metric.input_type == "labels" and params.get("labels") is None:
            params["labels"] = _union_codes([y_true, a, b])[0]
        stats_a, stats_b = _statistics_pair(metric, y_true, a, b, params)
        if w is not None:
            stats_a = np.ascontiguousarray(stats_a * w[:, None])
            stats_b = np.ascontiguousarray(stats_b * w[:, None])
        counts = None
        sums_a, sums_b = stats_a.sum(axis=0), stats_b.sum(axis=0)

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


def _design_fields(design):
    """The design fields of :class:`PairedData` (cluster/stratum counts and codes)."""
    return dict(n_groups=design.n_groups, n_strata=design.n_strata,
                item_groups=design.item_groups, item_strata=design.item_strata)


def _check_runs(runs, name, n):
    if isinstance(runs, np.ndarray):
        runs = list(runs)
    runs = [_as_array(r, name) for r in runs]
    if not runs:
        raise ValueError(f"The '{name}' parameter must hold at least one run.")
    for k, r in enumerate(runs):
        if r.shape[0] != n:
            raise ValueError(
                f"Run {k} of '{name}' has {r.shape[0]} samples but 'y_true' has {n}."
            )
    return runs


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
    metric = get_metric(metric)
    if not metric.has_statistics:
        raise ValueError(
            f"Metric {metric.name!r} has no sufficient statistics, so its per-item values "
            "cannot be averaged over runs; use runs='each' (one test per run)."
        )
    y_true = _as_array(y_true, "y_true")
    n = y_true.shape[0]
    if n == 0:
        raise ValueError("The 'y_true' parameter is empty; at least one sample is required.")
    name_a, name_b = arg_names
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
        params["labels"] = _as_array(labels, "labels")

    stats_a = [_statistics(metric, y, r, params, name_a) for r in runs_a]
    stats_b = [_statistics(metric, y, r, params, name_b) for r in runs_b]
    return metric, params, y, design, stats_a, stats_b


def _merge_identical_rows(stats_a, stats_b):
    """Items whose averaged rows are identical become one cell with a multiplicity.

    Averaged hard-label statistics take few values (accuracy over ``R_A`` and
    ``R_B`` runs: at most ``(R_A + 1)(R_B + 1)`` rows), so, as for the cells of
    single-run hard labels, the tests then work on ``O(cells)`` rows instead
    of ``N`` (issue 11 benchmark: 10x faster at N = 5,000, 5 runs). Done only
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
    >>> from sigtest._engine.paired import prepare_paired_runs
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
