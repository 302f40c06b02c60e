"""Resampling schemes on paired sufficient statistics (validating wrappers).

Every scheme maps a :class:`~sigtest._engine.paired.PairedData` to
resampled column sums of A and B; ``paired.deltas(sums_a, sums_b)`` turns them
into resampled differences ``value(B) - value(A)``. The heavy lifting is done
by the metric-agnostic kernels of :mod:`sigtest._engine.kernels`.

* Paired bootstrap (Efron & Tibshirani 1993; Berg-Kirkpatrick et al. 2012):
  ``m`` items drawn with replacement, the same items for A and B. Generic
  path: ``O(B * m * s)`` time and ``O(B * s)`` memory, no ``B x N`` index
  matrix. Compressed path: a Multinomial(m, counts / N) draw over the
  ``C <= K**3`` occupied cells, ``O(B * C * s)``, independent of ``N``.
* Paired permutation / approximate randomization (Noreen 1989; Fisher-Pitman):
  each item's A and B outputs swapped with probability 1/2. With
  ``D = stats_b - stats_a``, ``sums_a* = sum(stats_a) + sum_{swapped} D`` and
  ``sums_b* = sum(stats_b) - sum_{swapped} D``; only items with ``D != 0``
  matter. Compressed path: a Binomial(n_c, 1/2) number of swaps per
  discordant cell.
* Exact permutation: items with identical ``D`` rows are exchangeable, so the
  permutation distribution is that of ``sum_g k_g D_g`` with independent
  ``k_g ~ Binomial(n_g, 1/2)``; it is enumerated when ``prod(n_g + 1)`` is
  small (this is ``2**d`` when all ``d`` differing items are distinct).
* Jackknife: leave-one-out sums are ``total - row`` (closed form,
  ``O(N * s)``, or ``O(C * s)`` with cell weights).

Metrics without statistics use the slow path (:func:`bootstrap_deltas`,
:func:`permutation_deltas`): index batches from a NumPy ``Generator`` seeded
with the same integer seed, and one ``score_func`` call per system and
resample.
"""

from __future__ import annotations

import hashlib
import math
import numbers
import threading
from collections import OrderedDict

import numpy as np

from sigtest.exceptions import DegenerateDistributionWarning
from sigtest.metrics._registry import is_builtin_aggregate
from sigtest.utils import warn_external
from sigtest._engine import kernels as _kernels
from sigtest._engine.paired import PairedData
from sigtest._engine.sparse import SparseRows, sparse_difference
from sigtest._engine.checks import check_allocation, check_n_resamples as _check_n_resamples
from sigtest._engine.checks import check_positive_int as _check_positive_int
from sigtest._engine.rng import check_seed, resample_keys

__all__ = [
    "bootstrap_sums",
    "permutation_sums",
    "exact_permutation_sums",
    "monte_carlo_permutation_seconds",
    "jackknife_values",
    "drop_nonfinite",
    "bootstrap_deltas",
    "bootstrap_scores",
    "permutation_deltas",
    "resampled_deltas",
]

_SCHEMES = ("bootstrap", "permutation")
# Largest number of float64 entries of one exact-permutation output array.
_MAX_EXACT_CELLS = 2**25
# Largest number of multiply-adds of the lattice (convolution) exact path.
_MAX_LATTICE_WORK = 2**27
# Below this many inner-loop operations the serial kernel is used.
_PARALLEL_MIN_WORK = 4_000_000
# Measured serial costs (seconds) of one unit of work, for exact="auto"
# (2 cores, numba 0.6x; see docs/which_test.md): one swap pattern times one
# group in the enumeration kernel, one multiply-add of the lattice
# convolution, one (resample, merged cell) binomial draw, one (resample,
# discordant row, column) entry of the generic Monte Carlo kernel, and one
# aggregated row (resample or pattern) times statistic.
_COST_PATTERN_GROUP = 30e-9
_COST_LATTICE_OP = 1e-9
_COST_MC_CELL = 30e-9
_COST_MC_ENTRY = 1.2e-9
_COST_AGGREGATE = 5e-9


# --------------------------------------------------------------------------
# argument checks and seeds
# --------------------------------------------------------------------------
def _check_paired(paired, need_statistics=True):
    if not isinstance(paired, PairedData):
        raise TypeError(
            "The 'paired' parameter must be a PairedData (see prepare_paired). "
            f"Got {type(paired).__name__} instead."
        )
    if need_statistics and not paired.has_statistics:
        raise ValueError(
            f"Metric {paired.metric.name!r} has no sufficient statistics; use the slow path "
            "(bootstrap_deltas / permutation_deltas / resampled_deltas)."
        )


def resolve_sample_size(sample_size, n_samples):
    """Number of items per bootstrap resample: the one rounding rule.

    ``None`` -> ``n_samples``; a float ``f`` in (0, 1] -> ``max(1, floor(f * n))``
    (with a ``1e-9`` guard so that e.g. ``0.1 * 30`` gives 3); an int >= 1 ->
    itself. :class:`~sigtest.BergKirkpatrickBootstrap` uses the same rule.
    """
    if sample_size is None:
        return int(n_samples)
    if isinstance(sample_size, bool):
        raise ValueError(f"The 'sample_size' parameter must be a number. Got {sample_size!r}.")
    if isinstance(sample_size, numbers.Integral):
        if sample_size < 1:
            raise ValueError(
                f"The 'sample_size' parameter must be an int >= 1 or a float in (0, 1]. "
                f"Got {sample_size!r} instead."
            )
        return int(sample_size)
    if isinstance(sample_size, numbers.Real) and 0.0 < float(sample_size) <= 1.0:
        return max(1, int(math.floor(float(sample_size) * n_samples + 1e-9)))
    raise ValueError(
        "The 'sample_size' parameter must be an int >= 1 or a float in (0, 1]. "
        f"Got {sample_size!r} instead."
    )


def _reduce_columns(M):
    """Drop constant and duplicate columns of M (R, c).

    Returns ``(red, source, const)``: ``red`` is (R, u) C-contiguous,
    ``source[j]`` the column of ``red`` holding column ``j`` (or -1 if it is
    constant, with value ``const[j]``). ``red`` is ``M`` itself (no copy)
    when ``M`` is C-contiguous and every column is kept.

    Columns are compared one at a time (a digest of each column's bytes, then
    an exact comparison on a digest hit), so the extra memory is one column,
    not a boolean copy of ``M`` or the bytes of every column.
    """
    R, c = M.shape
    const = np.zeros(c)
    source = np.full(c, -1, dtype=np.intp)
    red_cols = []
    seen = {}
    for j in range(c):
        col = np.ascontiguousarray(M[:, j])
        if R == 0 or np.all(col == col[0]):
            const[j] = col[0] if R else 0.0
            continue
        key = hashlib.blake2b(col.tobytes(), digest_size=16).digest()
        for k in seen.get(key, ()):  # the same bytes (as the digest's input)
            if np.array_equal(np.ascontiguousarray(M[:, red_cols[k]]).view(np.uint8),
                              col.view(np.uint8)):
                source[j] = k
                break
        else:
            seen.setdefault(key, []).append(len(red_cols))
            source[j] = len(red_cols)
            red_cols.append(j)
    if not red_cols:
        return np.zeros((R, 0)), source, const
    if len(red_cols) == c and M.flags.c_contiguous:
        return M, source, const
    red = np.ascontiguousarray(M[:, red_cols])
    return red, source, const


#: Fixed projection vector of :func:`_row_groups` (deterministic, never 0).
_PROBE = np.random.default_rng(0x5EED).random(4096) + 0.5


def _row_groups(M):
    """``(first, inverse)`` of the equal rows of ``M``: what ``np.unique(M, axis=0)`` gives.

    ``first[g]`` is the first row of group ``g`` and ``inverse[i]`` the group
    of row ``i``; groups are numbered in the order of the sorted projection
    ``M @ probe`` (callers only use the first-occurrence order, which does
    not depend on the numbering). The projection is a sort of ``R`` floats
    instead of a lexicographic sort of ``R`` structured rows (several times
    faster on the small cell matrices of the permutation test); the grouping
    is checked exactly (``M[first][inverse] == M``, as floats: -0.0 equals
    0.0 as in ``np.unique``), and on any doubt (a projection collision, NaN,
    more columns than the probe) ``np.unique(M, axis=0)`` decides.
    """
    if M.shape[1] <= _PROBE.shape[0] and M.shape[1]:
        with np.errstate(all="ignore"):
            proj = M @ _PROBE[: M.shape[1]]
        _, first, inverse = np.unique(proj, return_index=True, return_inverse=True)
        inverse = inverse.ravel()
        if np.array_equal(M[first][inverse], M):
            return first, inverse
    _, first, inverse = np.unique(M, axis=0, return_index=True, return_inverse=True)
    return first, inverse.ravel()


def _merge_rows(M, counts):
    """Merge identical rows of M (R, u), summing their integer ``counts``.

    Rows keep the order of their first occurrence.
    """
    if M.shape[0] <= 1:
        return np.ascontiguousarray(M), np.rint(counts).astype(np.int64)
    keep, merged = _group_counts(*_row_groups(M), counts)
    return np.ascontiguousarray(M[keep]), merged


def _group_counts(first, inverse, counts):
    """Rows to keep (first occurrences, in order) and each kept row's summed ``counts``.

    ``first``/``inverse`` describe the groups of equal rows as
    ``np.unique(..., return_index=True, return_inverse=True)`` does.
    """
    order = np.argsort(first)
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    merged = np.bincount(rank[inverse.ravel()], weights=counts, minlength=order.size)
    return np.sort(first), np.rint(merged).astype(np.int64)


def _sparse_row_keys(rows):
    """(R, 1 + 2q) float64 keys: equal keys <=> equal sparse rows (q = widest row)."""
    R = rows.shape[0]
    lengths = np.diff(rows.indptr)
    q = int(lengths.max()) if R else 0
    keys = np.zeros((R, 1 + 2 * q))
    keys[:, 0] = lengths
    keys[:, 1 : 1 + q] = -1.0
    rid = rows.row_ids()
    pos = np.arange(rows.nnz) - rows.indptr[rid]
    keys[rid, 1 + pos] = rows.indices
    keys[rid, 1 + q + pos] = rows.data
    return keys


def _merge_sparse_rows(rows, counts):
    """:func:`_merge_rows` of :class:`SparseRows`: the same rows, order and counts.

    Rows are compared through fixed-width keys (their length, columns and
    values), ``O(nnz)`` memory instead of the dense ``(R, s)`` rows.
    """
    if rows.shape[0] <= 1:
        return rows, np.rint(counts).astype(np.int64)
    _, first, inverse = np.unique(_sparse_row_keys(rows), axis=0, return_index=True,
                                  return_inverse=True)
    keep, merged = _group_counts(first, inverse, counts)
    return rows.take_rows(keep), merged


def _sparse_joint(paired):
    """The rows ``[stats_a | stats_b]`` of sparse paired data as one :class:`SparseRows`."""
    a, b = paired.stats_a, paired.stats_b
    s = a.shape[1]
    rows = np.concatenate([a.row_ids(), b.row_ids()])
    order = np.argsort(rows, kind="stable")  # per row: A's entries, then B's
    indptr = a.indptr + b.indptr
    return SparseRows(indptr, np.concatenate([a.indices, b.indices + s])[order],
                      np.concatenate([a.data, b.data])[order], 2 * s)


def _sparse_constant_columns(rows):
    """Columns of ``rows`` equal in every row and not all zero: (columns, values)."""
    R, c = rows.shape
    filled = np.bincount(rows.indices, minlength=c) == R
    low = np.full(c, np.inf)
    high = np.full(c, -np.inf)
    np.minimum.at(low, rows.indices, rows.data)
    np.maximum.at(high, rows.indices, rows.data)
    cols = np.flatnonzero(filled & (low == high))
    return cols, low[cols]


# Item statistics larger than this (bytes per system) are bootstrapped one
# system at a time, without the joined (N, 2s) copy.
_JOINT_MAX_BYTES = 1 << 26
# Entries of one jackknife chunk of sparse rows (the aggregate makes several
# temporaries of this size).
_JACKKNIFE_ENTRIES = 1 << 18
# Largest memoised kernel output of the sparse path (float64 entries, 64 MiB:
# half the memo's byte budget, so P, R and F1 of one pair share one draw).
_MEMO_MAX_ENTRIES = 1 << 23


class _KernelMemo:
    """A small thread-safe LRU memo of compressed-path kernel outputs.

    precision, recall and F1 (macro or micro) share the same sufficient
    statistics, and :func:`sigtest.compare` gives every metric of a pair the
    same seed, so the same multinomial or binomial draws would be made up to
    three times per pair. The key is a digest of *everything* the kernel reads
    (its arrays' bytes, shapes and dtypes, the resample size, the seed and the
    number of resamples), so a hit returns exactly what the kernel would have
    returned: results never depend on the memo, only the time does. Only the
    compressed path is memoised (small inputs, cheap digests); entries are
    read-only and callers copy what they change.
    """

    def __init__(self, maxsize=16, maxbytes=1 << 27):
        self.maxsize = maxsize
        self.maxbytes = maxbytes  # bound on the bytes held (many-class outputs are large)
        self._data = OrderedDict()
        self._lock = threading.Lock()

    @staticmethod
    def key(kind, arrays, *scalars):
        h = hashlib.blake2b(digest_size=20)
        h.update(kind.encode())
        for arr in arrays:
            h.update(repr((arr.shape, arr.dtype.str)).encode())
            h.update(np.ascontiguousarray(arr).tobytes())
        h.update(repr(scalars).encode())
        return h.digest()

    def get_or_compute(self, key, compute):
        with self._lock:
            hit = self._data.get(key)
            if hit is not None:
                self._data.move_to_end(key)
                return hit
        value = compute()
        value.setflags(write=False)
        with self._lock:
            self._data[key] = value
            self._data.move_to_end(key)
            while len(self._data) > self.maxsize or (
                    len(self._data) > 1
                    and sum(v.nbytes for v in self._data.values()) > self.maxbytes):
                self._data.popitem(last=False)
        return value

    def clear(self):
        with self._lock:
            self._data.clear()


_MEMO = _KernelMemo()


def _use_threads(parallel, work):
    """Use the threaded kernel only for enough work to pay for the threads.

    Results are identical either way; this only avoids the thread-pool start
    (and the threading-layer load in a fresh process) for small jobs.
    """
    return bool(parallel) and work >= _PARALLEL_MIN_WORK


def _expand(sums_red, source, const, multiplier):
    varying = source >= 0
    if sums_red.shape[1] == 0:
        out = np.empty((sums_red.shape[0], source.shape[0]))
    else:
        # one row-wise gather (np.take) instead of two masked 2-D assignments
        out = np.take(sums_red, np.where(varying, source, 0), axis=1)
    if not varying.all():
        out[:, ~varying] = multiplier * const[~varying]
    return out


# --------------------------------------------------------------------------
# fast paths
# --------------------------------------------------------------------------
def bootstrap_sums(paired, n_resamples, sample_size=None, seed=0, *, parallel=True):
    """Paired-bootstrap column sums of A and B.

    Parameters
    ----------
    paired : PairedData
    n_resamples : int
        Number of resamples ``B``.
    sample_size : int, float or None, default=None
        Items per resample: ``None`` = ``N``, a float in (0, 1] = that
        fraction of ``N``, an int = that many.
    seed : int
        Integer seed (see :func:`sigtest.utils.validation.check_random_state_seed`).
    parallel : bool, default=True
        Use the multi-threaded kernel variant. Results are identical.

    Returns
    -------
    sums_a, sums_b : ndarray of shape (n_resamples, s)

    Notes
    -----
    Resample ``b`` sums the statistics of ``m`` items ``i_1..i_m`` drawn
    uniformly with replacement: ``sums_a[b] = sum_j stats_a[i_j]`` and the
    same indices for B (Efron & Tibshirani 1993; Berg-Kirkpatrick et al.
    2012). Constant columns (e.g. a count) are returned as ``m * value``.

    Examples
    --------
    >>> import numpy as np
    >>> from sigtest.metrics import get_metric
    >>> from sigtest._engine import prepare_paired
    >>> acc = get_metric("accuracy")  # statistics [correct, 1]
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 3, 500)
    >>> a = np.where(rng.random(500) < 0.7, y, (y + 1) % 3)
    >>> b = np.where(rng.random(500) < 0.8, y, (y + 1) % 3)
    >>> sums_a, sums_b = bootstrap_sums(prepare_paired(y, a, b, acc), 2000, seed=1)
    >>> sums_a.shape, float(sums_a[0, 1])
    ((2000, 2), 500.0)
    """
    _check_paired(paired)
    B = _check_n_resamples(n_resamples)
    check_allocation(B, 16 + 32 * paired.n_statistics)
    seed = check_seed(seed)
    if paired.stratified:
        return _stratified_bootstrap_sums(paired, B, sample_size, seed, parallel)
    m = resolve_sample_size(sample_size, paired.n_units)
    return _bootstrap_sums(paired, B, m, seed, 0, parallel)


def _stratified_sample_size(sample_size, n_units):
    """``sample_size`` of a stratified bootstrap: ``None`` or a fraction per stratum."""
    if sample_size is None:
        return None
    if isinstance(sample_size, numbers.Integral) and not isinstance(sample_size, bool):
        if int(sample_size) == n_units:
            return None
        raise ValueError(
            "With strata, the 'sample_size' parameter must be a fraction in (0, 1] (applied "
            f"within each stratum) or None. Got the int {sample_size!r} instead."
        )
    resolve_sample_size(sample_size, n_units)  # the one check of a fraction
    return None if float(sample_size) == 1.0 else float(sample_size)


def _stratum(paired, rows):
    """The rows of one stratum as unstratified, unclustered paired data."""
    import dataclasses

    counts = None if paired.counts is None else paired.counts[rows]
    units = rows.size if counts is None else int(np.rint(counts.sum()))
    return dataclasses.replace(
        paired, stats_a=np.ascontiguousarray(paired.stats_a[rows]),
        stats_b=np.ascontiguousarray(paired.stats_b[rows]), counts=counts, n_samples=units,
        n_groups=None, n_strata=None, row_strata=None, item_groups=None, item_strata=None,
        data=None, sample_weight=None,
    )


def _stratified_bootstrap_sums(paired, B, sample_size, seed, parallel):
    r"""Stratified bootstrap: each stratum resampled on its own, keeping its size.

    Stratum :math:`h` (its :math:`n_h` units: items or clusters) draws
    :math:`m_h = n_h` units with replacement (or the fraction
    ``sample_size`` of them) from the independent stream ``h`` of the seed;
    the sums of all strata are added (R ``boot(strata=)``; Davison & Hinkley
    1997, §3.7).
    """
    fraction = _stratified_sample_size(sample_size, paired.n_units)
    s = paired.n_statistics
    sums_a, sums_b = np.zeros((B, s)), np.zeros((B, s))
    for h in range(int(paired.n_strata)):
        rows = np.flatnonzero(paired.row_strata == h)
        if rows.size == 0:
            continue
        sub = _stratum(paired, rows)
        m = resolve_sample_size(fraction, sub.n_units)
        part_a, part_b = _bootstrap_sums(sub, B, m, seed, h, parallel)
        sums_a += part_a
        sums_b += part_b
    return sums_a, sums_b


def _bootstrap_sums(paired, B, m, seed, stream, parallel):
    """Bootstrap sums of ``m`` units drawn from the rows, keys of ``stream``."""
    if paired.stats_a.shape[0] >= 2**32:
        raise ValueError("The generic bootstrap supports at most 2**32 - 1 rows.")
    s = paired.n_statistics
    if isinstance(paired.stats_a, SparseRows):
        return _bootstrap_sums_sparse(paired, B, m, seed, stream, parallel)
    if not paired.compressed and paired.stats_a.nbytes > _JOINT_MAX_BYTES:
        # large item rows: one kernel call per system on its own rows (the
        # same keys, hence the same draws and column sums as the joint call)
        # instead of a (N, 2s) joined copy
        out = []
        for stats in (paired.stats_a, paired.stats_b):
            red, source, const = _reduce_columns(stats)
            sums_red = np.zeros((B, 0)) if red.shape[1] == 0 else _kernels.bootstrap_sums_generic(
                red, m, resample_keys(seed, B, stream),
                parallel=_use_threads(parallel, B * m * red.shape[1]))
            out.append(_expand(sums_red, source, const, float(m)))
        return out[0], out[1]
    M = np.hstack([paired.stats_a, paired.stats_b])
    red, source, const = _reduce_columns(M)
    if red.shape[1] == 0:
        sums_red = np.zeros((B, 0))
    elif paired.compressed:
        # Cells with identical joint statistics rows are merged (a multinomial
        # over merged cells is the aggregate of the finer one): accuracy has
        # at most 4 distinct rows whatever K is.
        red, counts = _merge_rows(red, paired.counts)
        sums_red = _MEMO.get_or_compute(
            _MEMO.key("bootstrap_cells", (red, counts), m, seed, B, stream),
            lambda: _kernels.bootstrap_sums_cells(
                red, counts, m, resample_keys(seed, B, stream),
                parallel=_use_threads(parallel, B * red.shape[0] * 16),
            ),
        )
    else:
        sums_red = _kernels.bootstrap_sums_generic(
            red, m, resample_keys(seed, B, stream),
            parallel=_use_threads(parallel, B * m * red.shape[1])
        )
    out = _expand(sums_red, source, const, float(m))
    return out[:, :s], out[:, s:]


def _bootstrap_sums_sparse(paired, B, m, seed, stream, parallel):
    """:func:`_bootstrap_sums` of sparse cell rows: the same draws and sums.

    Rows are merged as in the dense path (identical joint rows, first
    occurrence order), so the multinomial draws are the same; the kernel
    adds only the nonzero entries, in the same cell order, and constant
    columns are set to ``m * value`` as :func:`_expand` does, so the output
    is bit-identical to the dense path's, in ``O(B * (C + s) + nnz)`` time
    and ``O(B * s + nnz)`` memory.
    """
    s = paired.n_statistics
    joint = _sparse_joint(paired)
    const_cols, const_vals = _sparse_constant_columns(joint)
    if const_cols.size == 2 * s:  # nothing varies: no draw is needed
        out = np.zeros((B, 2 * s))
    else:
        rows, counts = _merge_sparse_rows(joint, paired.counts)

        def run():
            return _kernels.bootstrap_sums_cells_sparse(
                rows.indptr, rows.indices, rows.data, 2 * s, counts, m,
                resample_keys(seed, B, stream),
                parallel=_use_threads(parallel, B * (rows.shape[0] + rows.nnz) * 4),
            )

        if B * 2 * s <= _MEMO_MAX_ENTRIES:
            out = _MEMO.get_or_compute(
                _MEMO.key("bootstrap_cells_sparse", (rows.indptr, rows.indices, rows.data,
                                                     counts), m, seed, B, stream, s),
                run,
            ).copy()
        else:
            out = run()
    out[:, const_cols] = float(m) * const_vals
    return out[:, :s], out[:, s:]


def _discordant_sparse(paired):
    """Sparse difference rows with a nonzero entry and their weights (counts)."""
    diff, nonzero = sparse_difference(paired.stats_a, paired.stats_b)
    rows = np.flatnonzero(nonzero)
    return diff.take_rows(rows), paired.counts[rows]


#: The last dense paired data whose discordant rows were computed, and them:
#: ``PairedPermutation`` asks three times for the same data (the Monte Carlo
#: cost estimate, the exact attempt, the Monte Carlo run). One slot holding a
#: strong reference (so an ``is`` check cannot be fooled by a reused id);
#: callers must not modify the cached arrays.
_LAST_DISCORDANT = None


def _discordant(paired):
    """Rows and columns of D = stats_b - stats_a that are not all zero (cached: do not modify)."""
    entry = _LAST_DISCORDANT
    if entry is not None and entry[0] is paired:
        return entry[1]
    D = paired.stats_b - paired.stats_a
    rows = np.flatnonzero(np.any(D != 0, axis=1))
    cols = np.flatnonzero(np.any(D[rows] != 0, axis=0))
    weights = None if paired.counts is None else paired.counts[rows]
    out = (np.ascontiguousarray(D[np.ix_(rows, cols)]), cols, weights)
    _remember(paired, out)
    return out


def _remember(paired, out, merged=None):
    global _LAST_DISCORDANT
    _LAST_DISCORDANT = (paired, out, merged)


def _merged_discordant(paired):
    """:func:`_merge_rows` of the weighted discordant rows (cached with them)."""
    D, cols, weights = _discordant(paired)
    entry = _LAST_DISCORDANT
    if entry is not None and entry[0] is paired and entry[2] is not None:
        return entry[2]
    merged = _merge_rows(D, weights)
    if entry is not None and entry[0] is paired:
        _remember(paired, entry[1], merged)
    return merged


def permutation_sums(paired, n_resamples, seed=0, *, parallel=True):
    """Paired-permutation (approximate randomization) column sums of A and B.

    Parameters
    ----------
    paired : PairedData
    n_resamples : int
    seed : int
    parallel : bool, default=True

    Returns
    -------
    sums_a, sums_b : ndarray of shape (n_resamples, s)

    Notes
    -----
    With ``D_i = stats_b[i] - stats_a[i]`` and swap indicators
    ``e_i ~ Bernoulli(1/2)``: ``sums_a* = sum_i stats_a[i] + sum_i e_i D_i``
    and ``sums_b* = sum_i stats_b[i] - sum_i e_i D_i`` (Noreen 1989). In the
    compressed path ``sum_{i in c} e_i ~ Binomial(n_c, 1/2)`` per cell.

    Examples
    --------
    >>> import numpy as np
    >>> from sigtest.metrics import get_metric
    >>> from sigtest._engine import prepare_paired
    >>> acc = get_metric("accuracy")  # statistics [correct, 1]
    >>> paired = prepare_paired([1, 1, 0, 0, 1], [1, 0, 0, 1, 1], [1, 1, 0, 0, 1], acc)
    >>> sums_a, sums_b = permutation_sums(paired, 1000, seed=0)
    >>> bool(np.all(sums_a + sums_b == paired.totals()[0] + paired.totals()[1]))
    True
    """
    return _permutation_sums(paired, n_resamples, seed, parallel, shared=False)


def _permutation_sums(paired, n_resamples, seed, parallel, shared):
    _check_paired(paired)
    B = _check_n_resamples(n_resamples)
    check_allocation(B, 16 + 32 * paired.n_statistics)
    seed = check_seed(seed)
    if isinstance(paired.stats_a, SparseRows):
        swapped = _permutation_swapped_sparse(paired, B, seed, parallel)
        sums_a, sums_b = paired.totals()
        return sums_a + swapped, sums_b - swapped
    return _permutation_sums_dense(paired, B, seed, parallel, shared=shared)


def _reads_only(metric):
    """Whether ``metric.aggregate`` is a built-in one (never writes into its ``sums``).

    By identity (:func:`sigtest.metrics._registry.is_builtin_aggregate`), not by
    module name: a user aggregate may have ``__module__ = None`` (``exec``).
    """
    return is_builtin_aggregate(metric.aggregate)


def _permutation_sums_dense(paired, B, seed, parallel, shared):
    """:func:`permutation_sums` of dense rows; ``shared``: memoised read-only sums.

    With ``shared`` (and compressed rows), the two ``(B, s)`` sums are kept in
    the kernel memo under a digest of everything they are made of (the merged
    discordant cells and counts, the seed, ``B``, the discordant columns and
    the totals), so precision, recall and F1 of one pair build them once; the
    values are those of ``shared=False``. The arrays are then read-only.
    """
    D, cols, weights = _discordant(paired)
    red = None
    if D.shape[0] and D.shape[1]:
        if weights is not None:
            # cells with equal D rows: one Binomial(sum n_c, 1/2) (sum of independent ones)
            D, counts = _merged_discordant(paired)

            def kernel():
                return _kernels.permutation_sums_cells(
                    D, counts, resample_keys(seed, B),
                    parallel=_use_threads(parallel, B * D.shape[0] * 16),
                )

            if shared:
                totals = paired.totals()

                def both():
                    red = _MEMO.get_or_compute(
                        _MEMO.key("permutation_cells", (D, counts), seed, B), kernel)
                    out = np.empty((2, B, totals[0].shape[0]))
                    _add_swapped(totals, B, cols, red, out=(out[0], out[1]))
                    return out

                out = _MEMO.get_or_compute(
                    _MEMO.key("permutation_cells_sums", (D, counts, cols, *totals), seed, B),
                    both)
                return out[0], out[1]
            red = _MEMO.get_or_compute(
                _MEMO.key("permutation_cells", (D, counts), seed, B), kernel)
        else:
            red = _kernels.permutation_sums_generic(
                D, resample_keys(seed, B), parallel=_use_threads(parallel, B * D.size)
            )
    return _add_swapped(paired.totals(), B, cols, red)


def _add_swapped(totals, B, cols, red, out=None):
    """``sums_a + swapped, sums_b - swapped`` with ``swapped`` zero outside ``cols``.

    Bit-identical to the full ``(B, s)`` operations on a zero-filled
    ``swapped`` (``x + 0.0`` and ``x - 0.0`` are filled in once per column;
    only the ``cols`` of ``red`` are added), without building ``swapped``.
    ``out``: two ``(B, s)`` arrays to write into (default: new ones).
    """
    sums_a, sums_b = totals
    if out is None:
        out_a = np.empty((B, sums_a.shape[0]))
        out_b = np.empty((B, sums_b.shape[0]))
    else:
        out_a, out_b = out
    if red is not None and cols.shape[0] and int(cols[-1]) - int(cols[0]) + 1 == cols.shape[0]:
        # ``cols`` is sorted and distinct, so here a contiguous range: each
        # entry is written once, through slices (no column scatter)
        lo, hi = int(cols[0]), int(cols[-1]) + 1
        np.add(sums_a[lo:hi], red, out=out_a[:, lo:hi])
        np.subtract(sums_b[lo:hi], red, out=out_b[:, lo:hi])
        for part in (slice(0, lo), slice(hi, None)):
            out_a[:, part] = sums_a[part] + 0.0
            out_b[:, part] = sums_b[part] - 0.0
        return out_a, out_b
    out_a[...] = sums_a + 0.0
    out_b[...] = sums_b - 0.0
    if red is not None:
        out_a[:, cols] = sums_a[cols] + red
        out_b[:, cols] = sums_b[cols] - red
    return out_a, out_b


def _permutation_swapped_sparse(paired, B, seed, parallel):
    """Swapped sums of sparse cell rows: the draws and sums of the dense path."""
    s = paired.n_statistics
    D, weights = _discordant_sparse(paired)
    if D.shape[0] == 0:
        return np.zeros((B, s))
    D, counts = _merge_sparse_rows(D, weights)

    def run():
        return _kernels.permutation_sums_cells_sparse(
            D.indptr, D.indices, D.data, s, counts, resample_keys(seed, B),
            parallel=_use_threads(parallel, B * (D.shape[0] + D.nnz) * 4),
        )

    if B * s > _MEMO_MAX_ENTRIES:
        return run()
    return _MEMO.get_or_compute(
        _MEMO.key("permutation_cells_sparse", (D.indptr, D.indices, D.data, counts), seed, B,
                  s),
        run,
    ).copy()


def monte_carlo_permutation_seconds(paired, n_resamples):
    """Estimated serial time of a Monte Carlo permutation run (seconds).

    ``n_resamples x merged discordant cells x 30 ns`` for compressed hard
    labels, ``n_resamples x discordant rows x (columns + 4) x 1.2 ns`` for
    the generic kernel, plus ``n_resamples x s x 5 ns`` for the aggregation;
    the constants were measured on the kernels (see ``docs/which_test.md``).

    Parameters
    ----------
    paired : PairedData
    n_resamples : int

    Returns
    -------
    float
    """
    _check_paired(paired)
    B = _check_n_resamples(n_resamples)
    agg = B * paired.n_statistics * _COST_AGGREGATE
    if isinstance(paired.stats_a, SparseRows):
        D, weights = _discordant_sparse(paired)
        if D.shape[0] == 0:
            return agg
        return B * _merge_sparse_rows(D, weights)[0].shape[0] * _COST_MC_CELL + agg
    D, cols, weights = _discordant(paired)
    if D.shape[0] == 0 or D.shape[1] == 0:
        return agg
    if weights is not None:
        rows = _merged_discordant(paired)[0].shape[0]
        return B * rows * _COST_MC_CELL + agg
    return B * D.shape[0] * (D.shape[1] + 4) * _COST_MC_ENTRY + agg


def exact_permutation_sums(paired, max_patterns=2**20, *, parallel=True, max_seconds=None):
    """The exact paired-permutation distribution of the column sums, if small.

    Parameters
    ----------
    paired : PairedData
    max_patterns : int, default=2**20
        Largest number of distinct swap patterns to enumerate. The limit is
        further capped at ``2**25 // s`` so that each returned array stays
        below 256 MiB.
    parallel : bool, default=True
    max_seconds : float or None, default=None
        If given, return None when the estimated serial time of the
        enumeration (``patterns x groups x 30 ns`` or ``lattice
        multiply-adds x 1 ns``, plus ``patterns x s x 5 ns`` to aggregate)
        exceeds it: :class:`~sigtest.PairedPermutation` with ``exact="auto"``
        passes the estimated time of the Monte Carlo run.

    Returns
    -------
    (sums_a, sums_b, prob) or None
        ``sums_*`` of shape (P, s) and ``prob`` of shape (P,) summing to 1:
        the permutation distribution is ``P(sums = sums_*[p]) = prob[p]``
        (patterns may repeat values). ``None`` when ``P > max_patterns``.
        A p-value is ``sum(prob[|delta*| >= |delta|])`` (with a tolerance).

    Notes
    -----
    Items whose difference rows ``D_i`` are equal are exchangeable, so they
    are grouped; with group sizes ``n_g`` the swapped sum is
    ``sum_g k_g D_g`` with independent ``k_g ~ Binomial(n_g, 1/2)`` and
    ``P = prod_g (n_g + 1)`` patterns (``2**d`` when all ``d`` differing
    items are distinct). When a single integer statistic varies (accuracy,
    micro scores), the distribution is instead computed by convolving the
    scaled binomial pmfs on the integer lattice (one row per reachable
    value), which handles thousands of discordant items. For accuracy this is
    the exact McNemar (sign) test.

    Examples
    --------
    >>> import numpy as np
    >>> from sigtest.metrics import get_metric
    >>> from sigtest._engine import prepare_paired
    >>> acc = get_metric("accuracy")  # statistics [correct, 1]
    >>> y = np.zeros(10, int); a = y.copy(); b = y.copy()
    >>> a[:4] = 1; b[8:] = 1   # A wrong on 4 items, B wrong on 2 others
    >>> sums_a, sums_b, prob = exact_permutation_sums(prepare_paired(y, a, b, acc))
    >>> delta = 0.8 - 0.6
    >>> d = (sums_b[:, 0] - sums_a[:, 0]) / 10
    >>> round(float(prob[np.abs(d) >= delta - 1e-12].sum()), 4)  # sign test, 6 discordant
    0.6875
    """
    _check_paired(paired)
    _check_positive_int(max_patterns, "max_patterns")
    s = paired.n_statistics
    if isinstance(paired.stats_a, SparseRows):
        # the distinct difference rows decide the pattern count: densify only
        # when few enough of them remain to enumerate (2**G <= limit)
        D, weights = _discordant_sparse(paired)
        if D.shape[0]:
            merged = _merge_sparse_rows(D, weights)[0]
            if 1 << min(merged.shape[0], 64) > min(int(max_patterns), _MAX_EXACT_CELLS // max(s, 1)):
                return None
        cols = np.unique(D.indices)
        D = np.ascontiguousarray(D.toarray()[:, cols])
    else:
        D, cols, weights = _discordant(paired)
    sums_a, sums_b = paired.totals()
    if D.shape[0] == 0 or D.shape[1] == 0:
        return sums_a[None, :].copy(), sums_b[None, :].copy(), np.ones(1)
    limit = min(int(max_patterns), _MAX_EXACT_CELLS // max(s, 1))
    budget = np.inf if max_seconds is None else float(max_seconds)
    if D.shape[1] > 1 and not _patterns_within(paired, D, weights, limit, budget, s):
        return None
    groups, inverse = np.unique(D, axis=0, return_inverse=True)
    w = np.ones(D.shape[0]) if weights is None else weights
    sizes = np.bincount(inverse.ravel(), weights=w, minlength=groups.shape[0])
    counts = np.rint(sizes).astype(np.int64)
    if not np.allclose(sizes, counts):  # pragma: no cover - counts are integers
        raise ValueError("Cell counts must be integers.")
    from scipy.stats import binom  # lazy: scipy.stats is slow to import

    lattice = _lattice_distribution(groups, counts, limit, binom, budget=budget, s=s)
    if lattice is not None:
        red, prob = lattice
    else:
        if not _enumeration_fits(counts, limit, budget, s):
            return None
        n_patterns = int(np.prod(counts + 1))
        pmf = np.concatenate([binom.pmf(np.arange(c + 1), c, 0.5) for c in counts.tolist()])
        offsets = np.concatenate([[0], np.cumsum(counts + 1)[:-1]]).astype(np.int64)
        red, prob = _kernels.exact_swap_sums(
            np.ascontiguousarray(groups), counts, pmf, offsets,
            parallel=_use_threads(parallel, n_patterns * groups.size),
        )
    swapped = np.zeros((red.shape[0], s))
    swapped[:, cols] = red
    return sums_a + swapped, sums_b - swapped, prob


def _patterns_within(paired, D, weights, limit, budget, s):
    """Whether the enumeration of several varying columns fits ``limit`` and ``budget``.

    The checks of the pattern enumeration in :func:`exact_permutation_sums`
    (``prod_g (n_g + 1) <= limit`` and its estimated time within
    ``budget``), made on the merged rows before anything is built: both
    are products and sums over the groups, so the order in which the groups
    are found does not matter.
    """
    if weights is None:
        groups, counts = _merge_rows(D, np.ones(D.shape[0]))
    elif isinstance(paired.stats_a, SparseRows):
        groups, counts = _merge_rows(D, weights)
    else:
        groups, counts = _merged_discordant(paired)
    return _enumeration_fits(counts, limit, budget, s)


def _enumeration_fits(counts, limit, budget, s):
    """``prod_g (n_g + 1) <= limit`` and ``patterns x (G x 30 ns + s x 5 ns) <= budget``."""
    n_patterns = 1
    for c in counts.tolist():
        n_patterns *= c + 1
        if n_patterns > limit:
            return False
    seconds = n_patterns * (counts.shape[0] * _COST_PATTERN_GROUP + s * _COST_AGGREGATE)
    return seconds <= budget


def _lattice_distribution(groups, counts, limit, binom, *, budget=np.inf, s=1):
    """Exact swapped-sum distribution when one integer column varies.

    With a single varying statistic taking integer values ``d_g`` (accuracy,
    micro scores: a count of correct items), ``sum_g k_g d_g`` lives on an
    integer lattice and its pmf is the convolution of the scaled
    Binomial(n_g, 1/2) pmfs: ``O(sum_g L_g * n_g |d_g|)`` instead of
    ``prod_g (n_g + 1)`` patterns. Returns ``(values (L, 1), prob (L,))`` or
    None when the shortcut does not apply or would exceed ``limit`` cells or
    ``_MAX_LATTICE_WORK`` multiply-adds.
    """
    if groups.shape[1] != 1:
        return None
    d = groups[:, 0]
    if not np.all(d == np.rint(d)) or np.any(np.abs(d) > 2**20):
        return None
    d = np.rint(d).astype(np.int64)
    spans = np.abs(d) * counts
    if int(spans.sum()) + 1 > limit:
        return None
    work, length = 0, 1
    for span in spans.tolist():
        work += length * (span + 1)
        length += span
    if work > _MAX_LATTICE_WORK:
        return None
    if work * _COST_LATTICE_OP + length * s * _COST_AGGREGATE > budget:
        return None
    pmf = np.ones(1)
    low = 0
    for dg, ng in zip(d.tolist(), counts.tolist()):
        k = np.arange(ng + 1)
        low_g = min(0, dg * ng)
        grid = np.zeros(abs(dg) * ng + 1)
        grid[k * dg - low_g] = binom.pmf(k, ng, 0.5)
        pmf = np.convolve(pmf, grid)
        low += low_g
    values = low + np.flatnonzero(pmf > 0)
    return values[:, None].astype(np.float64), pmf[pmf > 0]


def jackknife_values(paired, *, chunk_rows=65536):
    """Leave-one-out metric values of A and B per row (generic) or per cell.

    Parameters
    ----------
    paired : PairedData
    chunk_rows : int, default=65536
        Rows aggregated per call (bounds memory to ``chunk_rows * s``).

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
    (Efron 1987, the acceleration of BCa). A metric without statistics falls
    back to ``N`` calls of ``score_func`` (``O(N**2)``).

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
    if not paired.has_statistics:
        return _jackknife_slow(paired)
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


# --------------------------------------------------------------------------
# slow path (metric without statistics)
# --------------------------------------------------------------------------
def _slow_params(paired):
    params = dict(paired.params)
    zd = params.get("zero_division")
    if isinstance(zd, str) and zd == "warn":
        params["zero_division"] = 0.0
    return params


def _score(paired, params, y, p, w):
    kw = {} if w is None else {"sample_weight": w}
    return float(paired.metric.score_func(y, p, **kw, **params))


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


# Above this estimated duration (seconds) the slow path shows a progress bar.
_PROGRESS_SECONDS = 2.0
# Largest number of (true, predicted) label cells of the slow-path memo.
_MEMO_MAX_CELLS = 4096


class _Progress:
    """A progress bar (``tqdm.auto`` on stderr) shown only for long slow-path runs.

    After every batch the total time is extrapolated from the batches done;
    once it exceeds :data:`_PROGRESS_SECONDS` the bar appears (when stderr is
    a terminal) and is updated until :meth:`close`. It only reads the clock:
    the resamples and their order never depend on it.
    """

    def __init__(self, total, desc):
        import time

        self._clock = time.perf_counter
        self.start = self._clock()
        self.total = total
        self.desc = desc
        self.done = 0
        self.bar = None

    def update(self, n):
        self.done += n
        if self.bar is not None:
            self.bar.update(n)
            return
        elapsed = self._clock() - self.start
        if self.done < self.total and elapsed / self.done * self.total > _PROGRESS_SECONDS:
            import sys

            from tqdm.auto import tqdm

            # disable=None: no bar when stderr is not a terminal (a log, a pipe, CI)
            self.bar = tqdm(total=self.total, initial=self.done, desc=self.desc,
                            unit="resample", file=sys.stderr, leave=False, disable=None)

    def close(self):
        if self.bar:
            self.bar.close()


class _SlowScorer:
    """``score_func`` on resamples of hard labels, memoised by the label table.

    A metric of hard labels that does not depend on the order of the items
    is a function of the table of (true, predicted) label counts. Resamples
    with the same table (about 500 distinct tables among 10 000 permutations
    of N = 300 binary items) then share one ``score_func`` call, made on the
    *canonical* arrays (items sorted by their cell). Order independence is
    checked on the observed data: the canonical arrays of A and of B must
    give exactly the observed scores, or the memo is not used (sequence
    metrics, for instance). Results are deterministic either way.
    """

    def __init__(self, paired, params):
        self.paired = paired
        self.params = params
        y, a, b, w = _data(paired)
        self.memo = None
        if w is not None or np.ndim(y) != 1 or np.ndim(a) != 1 or np.ndim(b) != 1:
            return
        try:
            values, inverse = np.unique(np.concatenate([y, a, b]), return_inverse=True)
        except TypeError:  # unorderable labels
            return
        K = values.shape[0]
        if K * K > _MEMO_MAX_CELLS:
            return
        n = y.shape[0]
        inverse = inverse.ravel()
        self.values, self.K = values, K
        yc = inverse[:n].astype(np.int64)
        self.cell_a = yc * K + inverse[n:2 * n]
        self.cell_b = yc * K + inverse[2 * n:]
        for cells, pred in ((self.cell_a, a), (self.cell_b, b)):
            counts = np.bincount(cells, minlength=K * K)
            observed = _score(paired, params, y, pred, None)
            canonical = self._call(counts)
            if not (canonical == observed or (np.isnan(canonical) and np.isnan(observed))):
                return
        self.memo = {}

    def _call(self, counts):
        cells = np.repeat(np.arange(self.K * self.K), counts)
        y = self.values[cells // self.K]
        p = self.values[cells % self.K]
        return _score(self.paired, self.params, y, p, None)

    def scores(self, cells):
        """Scores of resamples given as cell codes of shape (r, m)."""
        r, m = cells.shape
        KK = self.K * self.K
        counts = np.bincount((cells + KK * np.arange(r)[:, None]).ravel(),
                             minlength=r * KK).reshape(r, KK)
        out = np.empty(r)
        memo = self.memo
        for i in range(r):
            key = counts[i].tobytes()
            value = memo.get(key)
            if value is None:
                value = memo[key] = self._call(counts[i])
            out[i] = value
        return out


def _slow_scores(paired, n_resamples, seed, batch_size, what, batch_scores):
    """Shared driver of the slow paths: seeded batches, the scorer, a progress bar.

    ``batch_scores(rng, size, scorer, params)`` draws one batch of ``size``
    resamples from ``rng`` and returns their scores of A and B as a
    ``(size, 2)`` array; batches are drawn in order from
    ``numpy.random.default_rng(seed)``, so the result depends only on
    ``seed`` and ``batch_size``.
    """
    B = _check_n_resamples(n_resamples)
    check_allocation(B, 16)
    rng = np.random.default_rng(check_seed(seed))
    params = _slow_params(paired)
    scorer = _SlowScorer(paired, params)
    out = np.empty((B, 2))
    progress = _Progress(B, f"{what} ({paired.metric.name})")
    try:
        for lo in range(0, B, batch_size):
            hi = min(B, lo + batch_size)
            out[lo:hi] = batch_scores(rng, hi - lo, scorer, params)
            progress.update(hi - lo)
    finally:
        progress.close()
    return out


def bootstrap_scores(paired, n_resamples, sample_size=None, seed=0, *, batch_size=256):
    """Slow-path paired bootstrap: the resampled scores of A and B.

    Index batches of shape ``(batch_size, m)`` come from
    ``numpy.random.default_rng(seed)``; each resample calls ``score_func``
    once per system (metric parameters as given, ``zero_division="warn"``
    replaced by 0.0). Works for any metric, with or without statistics.
    Hard labels without weights share the calls of resamples with equal
    label tables (see :class:`_SlowScorer`); a run estimated to take more
    than 2 s shows a progress bar on stderr (tqdm) when stderr is a terminal. Clustered data
    (``groups=``) draw ``m`` whole clusters (default: ``G``); strata draw
    within each stratum, keeping its size.

    Returns
    -------
    scores : ndarray of shape (n_resamples, 2)
        Column 0: A's score on each resample; column 1: B's.
    """
    _check_paired(paired, need_statistics=False)
    _check_n_resamples(n_resamples)
    check_seed(seed)
    y, a, b, w = _data(paired)
    units = _Units(paired)
    if paired.stratified:
        fraction = _stratified_sample_size(sample_size, units.n_units)
    else:
        m = resolve_sample_size(sample_size, units.n_units)

    def draw(rng, size):
        if not paired.stratified:
            return rng.integers(0, units.n_units, (size, m))
        parts = []
        for members in units.by_stratum:
            m_h = resolve_sample_size(fraction, members.size)
            parts.append(members[rng.integers(0, members.size, (size, m_h))])
        return np.hstack(parts)

    def batch(rng, size, scorer, params):
        drawn = draw(rng, size)
        out = np.empty((size, 2))
        if units.members is None:  # units are items: one index matrix
            if scorer.memo is not None:
                out[:, 0] = scorer.scores(scorer.cell_a[drawn])
                out[:, 1] = scorer.scores(scorer.cell_b[drawn])
                return out
            rows = drawn
        else:
            rows = [units.items(u) for u in drawn]
        for r in range(size):
            i = rows[r]
            if scorer.memo is not None:
                out[r, 0] = scorer.scores(scorer.cell_a[i][None, :])[0]
                out[r, 1] = scorer.scores(scorer.cell_b[i][None, :])[0]
                continue
            wi = None if w is None else w[i]
            out[r, 0] = _score(paired, params, y[i], a[i], wi)
            out[r, 1] = _score(paired, params, y[i], b[i], wi)
        return out

    return _slow_scores(paired, n_resamples, seed, batch_size, "bootstrap", batch)


def bootstrap_deltas(paired, n_resamples, sample_size=None, seed=0, *, batch_size=256):
    """Slow-path paired bootstrap: raw deltas ``score_b* - score_a*``.

    The resamples of :func:`bootstrap_scores` (same seed, same batches).

    Returns
    -------
    deltas : ndarray of shape (n_resamples,)
    """
    scores = bootstrap_scores(paired, n_resamples, sample_size, seed, batch_size=batch_size)
    return scores[:, 1] - scores[:, 0]


class _Units:
    """Resampling units of the slow path: items, or clusters (``groups=``).

    ``members`` is ``None`` when units are items; else clusters are stored
    as runs of ``order`` (items sorted by cluster) given by ``starts`` and
    ``sizes``. ``by_stratum`` lists the units of each stratum.
    """

    def __init__(self, paired):
        groups, strata = paired.item_groups, paired.item_strata
        self.members = None
        unit_strata = strata
        if groups is None:
            self.n_units = int(paired.n_samples)
        else:
            G = int(paired.n_groups)
            self.n_units = G
            self.order = np.argsort(groups, kind="stable")
            self.sizes = np.bincount(groups, minlength=G)
            self.starts = np.concatenate([[0], np.cumsum(self.sizes)[:-1]])
            self.members = True
            if strata is not None:
                unit_strata = np.empty(G, dtype=np.int64)
                unit_strata[groups] = strata
        self.by_stratum = [] if unit_strata is None else [
            np.flatnonzero(unit_strata == h) for h in range(int(paired.n_strata))
        ]
        self.by_stratum = [u for u in self.by_stratum if u.size]

    def items(self, units):
        """Item indices of the drawn clusters ``units`` (in draw order)."""
        lens = self.sizes[units]
        total = int(lens.sum())
        offsets = np.repeat(self.starts[units] - (np.cumsum(lens) - lens), lens)
        return self.order[offsets + np.arange(total)]


def permutation_deltas(paired, n_resamples, seed=0, *, batch_size=256):
    """Slow-path paired permutation: raw deltas after random A/B swaps.

    Swap masks of shape ``(batch_size, N)`` come from
    ``numpy.random.default_rng(seed).random(...) < 0.5``; clustered data
    (``groups=``) draw one swap per cluster, ``(batch_size, G)``, applied to
    all its items. Hard labels without weights share the calls of resamples
    with equal label tables (see :class:`_SlowScorer`); a run estimated to
    take more than 2 s shows a progress bar on stderr (tqdm) when stderr is a terminal.

    Returns
    -------
    deltas : ndarray of shape (n_resamples,)
    """
    _check_paired(paired, need_statistics=False)
    y, a, b, w = _data(paired)
    n = paired.n_samples
    groups = paired.item_groups

    def batch(rng, size, scorer, params):
        if groups is None:
            swaps = rng.random((size, n)) < 0.5
        else:
            swaps = (rng.random((size, int(paired.n_groups))) < 0.5)[:, groups]
        out = np.empty((size, 2))
        if scorer.memo is not None:
            out[:, 0] = scorer.scores(np.where(swaps, scorer.cell_b, scorer.cell_a))
            out[:, 1] = scorer.scores(np.where(swaps, scorer.cell_a, scorer.cell_b))
            return out
        for r in range(size):
            sw = swaps[r].reshape((n,) + (1,) * (a.ndim - 1))
            out[r, 0] = _score(paired, params, y, np.where(sw, b, a), w)
            out[r, 1] = _score(paired, params, y, np.where(sw, a, b), w)
        return out

    scores = _slow_scores(paired, n_resamples, seed, batch_size, "permutation", batch)
    return scores[:, 1] - scores[:, 0]


def _data(paired):
    if paired.data is None:
        raise ValueError(
            "The slow path needs the raw data; this PairedData holds only "
            "statistics (use bootstrap_sums / permutation_sums)."
        )
    return paired.data


def resampled_deltas(
    paired, n_resamples, seed=0, *, scheme="bootstrap", sample_size=None, parallel=True
):
    """Raw resampled deltas of a scheme, on the fast path when possible.

    Parameters
    ----------
    paired : PairedData
    n_resamples : int
    seed : int
    scheme : {"bootstrap", "permutation"}, default="bootstrap"
    sample_size : int, float or None
        Bootstrap only (see :func:`bootstrap_sums`).
    parallel : bool, default=True

    Returns
    -------
    deltas : ndarray of shape (n_resamples,)
    """
    _check_paired(paired, need_statistics=False)
    if scheme not in _SCHEMES:
        raise ValueError(f"The 'scheme' parameter must be one of {_SCHEMES}. Got {scheme!r}.")
    if scheme == "permutation" and sample_size is not None:
        raise ValueError("The 'sample_size' parameter only applies to scheme='bootstrap'.")
    if scheme == "bootstrap" and sample_size is None:
        from sigtest._engine.shared import supplied_deltas  # compare's shared resamples (one pair's columns)

        supplied = supplied_deltas(n_resamples)
        if supplied is not None:
            return supplied
    if paired.has_statistics:
        if scheme == "bootstrap":
            sums = bootstrap_sums(paired, n_resamples, sample_size, seed, parallel=parallel)
        else:
            # memoised read-only sums (P, R and F1 of a pair share them) for
            # the built-in aggregates, which never write into their input
            sums = _permutation_sums(paired, n_resamples, seed, parallel,
                                     shared=_reads_only(paired.metric))
        return paired.deltas(*sums)
    if scheme == "bootstrap":
        return bootstrap_deltas(paired, n_resamples, sample_size, seed)
    return permutation_deltas(paired, n_resamples, seed)


def drop_nonfinite(deltas):
    """Drop resamples on which the metric is undefined, with a warning.

    Defined behaviour for NaN metric values in a resample (e.g.
    ``zero_division=np.nan`` and a class absent from the resample): those
    resamples are dropped and counted out of ``n_resamples``; a
    :class:`~sigtest.exceptions.DegenerateDistributionWarning` says how many.
    """
    finite = np.isfinite(deltas)
    n_bad = deltas.size - int(finite.sum())
    if n_bad:
        warn_external(
            f"{n_bad} of {deltas.size} resampled differences are not finite (the metric is "
            "undefined on those resamples, e.g. zero_division=nan); they are dropped and "
            "the p-value / interval use the remaining ones.",
            DegenerateDistributionWarning,
        )
        deltas = deltas[finite]
    return deltas
