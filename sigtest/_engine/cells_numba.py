"""Occupied cells of small-span integer labels in two numba passes over the items.

:func:`small_int_cells` returns exactly what the NumPy path of
:func:`sigtest._engine.cells._cells_computed` (``_union_codes`` then the
``bincount`` of ``(t * K + a) * K + b``) returns: the same union (values and
dtype), the same occupied cells in the same (code) order, the same float64
counts and, when asked, the same int64 cell of every item. The NumPy path
builds several ``N``-sized int64 temporaries per array (the shifted labels,
their codes, the cell code, the ranks); here

1. one pass marks the labels present (a table of ``span`` flags, the
   union and each label's code follow from it: ``O(span)``);
2. one pass reads ``(t, a, b)`` of every item, counts its cell in a table of
   ``K**3`` counts and, with rows, writes the cell code of the item, which a
   last pass over the rows replaces by the cell's rank among the occupied
   cells.

It applies to integer (and bool) labels of a small span, the rule of
``_union_codes`` (:func:`sigtest._engine.cells._small_int_span`), and to
``K**3`` within the ``bincount`` limit of ``_cells_computed``; otherwise, and
with numba disabled (``SIGTEST_DISABLE_NUMBA=1``), it returns ``None`` and the
caller takes the NumPy path. ~10x the NumPy path at ``N = 10^6``
(``benchmarks/bench_engine.py --only cells``).
"""

from __future__ import annotations

import numpy as np

from sigtest._engine.kernels import _numba_enabled

__all__ = ["small_int_cells"]

try:
    from numba import njit
except ImportError:  # pragma: no cover - numba is a hard dependency

    def njit(*args, **kwargs):
        return (lambda f: f) if not args or not callable(args[0]) else args[0]

_jit = njit(cache=True, nogil=True)


@_jit
def _mark_present(t, a, b, lo, present):
    for i in range(t.shape[0]):
        present[np.int64(t[i]) - lo] = True
        present[np.int64(a[i]) - lo] = True
        present[np.int64(b[i]) - lo] = True


@_jit
def _count_cells(t, a, b, lo, lookup, K, counts, rows):
    """``counts[cell] += 1`` per item; with ``rows`` (length N, else 0) each item's cell code."""
    with_rows = rows.shape[0] > 0
    for i in range(t.shape[0]):
        code = ((lookup[np.int64(t[i]) - lo] * K + lookup[np.int64(a[i]) - lo]) * K
                + lookup[np.int64(b[i]) - lo])
        counts[code] += 1
        if with_rows:
            rows[i] = code


@_jit
def _codes_to_ranks(rows, rank):
    for i in range(rows.shape[0]):
        rows[i] = rank[rows[i]]


def _as_kernel_input(arr):
    # bool labels are read as their bytes (0/1): one compiled kernel fewer
    return arr.view(np.uint8) if arr.dtype == np.bool_ else arr


def small_int_cells(y_true, a, b, lo, span, with_rows, max_table):
    """The cells of ``_cells_computed`` for labels in ``[lo, lo + span)``, or ``None``.

    Parameters
    ----------
    y_true, a, b : ndarray of shape (n_samples,)
        Integer or bool labels, every value in ``[lo, lo + span)``.
    lo, span : int
        The smallest label and the span of the labels (``_small_int_span``).
    with_rows : bool
        Also return the cell (row) index of every item.
    max_table : int
        The largest ``K**3`` counted in a table (the ``bincount`` limit of
        ``_cells_computed``); ``None`` is returned beyond it.

    Returns
    -------
    cells : tuple or None
        ``(union, occupied, counts, row_of_item)``: the sorted labels, the
        occupied cell codes ``(t * K + a) * K + b`` in increasing order,
        their int64 counts and (with ``with_rows``, else ``None``) the int64
        row of every item; ``None`` when ``K**3 > max_table`` or numba is
        disabled (the caller computes the cells with NumPy).
    """
    if not _numba_enabled():
        return None
    t, pa, pb = (_as_kernel_input(x) for x in (y_true, a, b))
    lo = np.int64(lo)
    present = np.zeros(span, dtype=np.bool_)
    _mark_present(t, pa, pb, lo, present)
    values = np.flatnonzero(present)
    K = values.shape[0]
    if K**3 > max_table:
        return None
    lookup = np.cumsum(present) - 1
    union = (values + int(lo)).astype(np.result_type(y_true, a, b))
    counts = np.zeros(K**3, dtype=np.int64)
    rows = np.empty(y_true.shape[0] if with_rows else 0, dtype=np.int64)
    _count_cells(t, pa, pb, lo, lookup, np.int64(K), counts, rows)
    occupied_mask = counts > 0
    occupied = np.flatnonzero(occupied_mask)
    if with_rows:
        _codes_to_ranks(rows, np.cumsum(occupied_mask) - 1)
    return union, occupied, counts[occupied], rows if with_rows else None
