"""Cell rows stored sparsely: :class:`SparseRows` (CSR) and the difference of two.

What the rows of a many-class hard-label metric hold (per-class TP /
predicted / true counts: a handful of nonzero entries among ``s = 3K + 1``
columns). Built by :mod:`sigtest._engine.cells`, held by
:class:`~sigtest._engine.paired.PairedData`, read directly by the resampling
kernels.
"""

from __future__ import annotations

import numpy as np

__all__ = ["SparseRows", "dense_chunk_rows", "sparse_difference"]

# Dense entries of one chunk when sparse rows are built or read densely.
_SPARSE_CHUNK_ENTRIES = 1 << 20


def dense_chunk_rows(n_cols):
    """Rows per dense chunk of ``n_cols`` columns (at most ``_SPARSE_CHUNK_ENTRIES`` entries).

    Parameters
    ----------
    n_cols : int
        Number of columns ``s`` of the rows.

    Returns
    -------
    step : int
        At least 1.
    """
    return max(1, _SPARSE_CHUNK_ENTRIES // max(n_cols, 1))


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
