"""What every resampling scheme shares: argument checks, row merging, the memo.

* the argument check of the fast path (:func:`_check_paired`) and when to
  use threads (:func:`_use_threads`);
* row grouping and merging: constant and duplicate columns dropped
  (:func:`_reduce_columns`, :func:`_expand`), identical rows merged with
  their counts, dense (:func:`_merge_rows`) or sparse
  (:func:`_merge_sparse_rows`);
* :class:`_KernelMemo`: compressed-path kernel outputs keyed by a digest of
  everything the kernel reads (a cache by content: results never depend on
  it).
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict

import numpy as np

from sigtest._engine.paired import PairedData
from sigtest._engine.sparse import SparseRows

__all__ = []

# Below this many inner-loop operations the serial kernel is used.
_PARALLEL_MIN_WORK = 4_000_000


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


def _reduce_columns(M):
    """Drop constant and duplicate columns of M (R, c).

    Returns ``(red, source, const)``: ``red`` is (R, u) C-contiguous,
    ``source[j]`` the column of ``red`` holding column ``j`` (or -1 if it is
    constant, with value ``const[j]``). ``red`` is ``M`` itself (no copy)
    when ``M`` is C-contiguous and every column is kept.

    Columns of a large ``M`` are compared one at a time (a digest of each
    column's bytes, then an exact comparison on a digest hit), so the extra
    memory is one column, not a boolean copy of ``M`` or the bytes of every
    column; a small one (at most ``_SMALL_REDUCE`` entries: the strata of a
    stratified bootstrap, the cells of a compressed pair) in one transposed
    copy, with the same decisions (:func:`_small_reduce`).
    """
    R, c = M.shape
    const = np.zeros(c)
    source = np.full(c, -1, dtype=np.intp)
    if 0 < R and M.size <= _SMALL_REDUCE:
        red_cols = _small_reduce(M, source, const)
    else:
        red_cols = _large_reduce(M, source, const)
    if not red_cols:
        return np.zeros((R, 0)), source, const
    if len(red_cols) == c and M.flags.c_contiguous:
        return M, source, const
    red = np.ascontiguousarray(M[:, red_cols])
    return red, source, const


#: Matrices of at most this many entries are reduced by :func:`_small_reduce`.
_SMALL_REDUCE = 1 << 16


def _small_reduce(M, source, const):
    """:func:`_reduce_columns` of a small matrix with rows: its columns as bytes.

    The same decisions as :func:`_large_reduce` (a column is constant when
    it equals its first entry everywhere; a duplicate when its bytes equal
    those of a kept column) on one transposed copy, without digests: the
    bytes are the dictionary's keys.
    """
    cols = np.ascontiguousarray(M.T)
    constant = (cols == cols[:, :1]).all(axis=1)
    red_cols, seen = [], {}
    for j in range(cols.shape[0]):
        if constant[j]:
            const[j] = cols[j, 0]
            continue
        k = seen.setdefault(cols[j].tobytes(), len(red_cols))
        source[j] = k
        if k == len(red_cols):
            red_cols.append(j)
    return red_cols


def _large_reduce(M, source, const):
    """Fill ``source`` and ``const`` column by column; return the kept columns."""
    R, c = M.shape
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
    return red_cols


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
