"""Occupied cells of small-span integer labels in numba passes over the items.

:func:`small_int_cells` returns exactly what the NumPy path of
:func:`sigtest._engine.cells._cells_computed` (``_union_codes`` then the
``bincount`` of ``(t * K + a) * K + b``) returns: the same union (values and
dtype), the same occupied cells in the same (code) order, the same float64
counts and, when asked, the same int64 cell of every item. The NumPy path
builds several ``N``-sized int64 temporaries per array (the shifted labels,
their codes, the cell code, the ranks); here

1. one pass finds the smallest and largest label (``lo``, ``span``);
2. when ``span**3`` cells fit the count table, one pass counts the cell
   ``((t - lo) * span + (a - lo)) * span + (b - lo)`` of every item (the
   labels present are those of the occupied cells, and the cells are
   re-coded with the union's ``K`` when some values of the span are no
   label); otherwise one pass marks the labels present (the union and each
   label's code follow in ``O(span)``) and one pass counts the cells of the
   codes;
3. with rows, the counting pass also writes each item's cell code, and a
   last pass replaces it by the cell's rank among the occupied cells.

It applies to integer (and bool) labels of a small span (the rule of
``_union_codes``, :func:`sigtest._engine.cells._small_span`, passed in) and
to ``K**3`` within the count-table limit of ``_cells_computed``
(:func:`sigtest._engine.cells._cell_table_limit`); otherwise, and with
numba disabled (``SIGTEST_DISABLE_NUMBA=1``), it returns ``None`` and the
caller takes the NumPy path. 7-9x the NumPy path at ``N = 10^5 - 10^6``
(``benchmarks/bench_engine.py --only cells``).
"""

from __future__ import annotations

import numpy as np

from sigtest._engine.jit import cached_jit
from sigtest._engine.kernels import _numba_enabled

__all__ = ["small_int_cells"]

_jit = cached_jit(nogil=True)


@_jit
def _int_bounds(t, a, b):
    # comparisons written out: ``min(lo, x, y, z)`` compiles numba's tuple
    # overloads of min and max (~0.3 s of CPU in a new environment)
    lo = hi = np.int64(t[0])
    for i in range(t.shape[0]):
        for v in (np.int64(t[i]), np.int64(a[i]), np.int64(b[i])):
            if v < lo:
                lo = v
            if v > hi:
                hi = v
    return lo, hi


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
def _count_shifted_cells(t, a, b, lo, K, counts, rows):
    """:func:`_count_cells` with the identity lookup (labels ``lo .. lo + K - 1``): no gathers."""
    with_rows = rows.shape[0] > 0
    for i in range(t.shape[0]):
        code = ((np.int64(t[i]) - lo) * K + (np.int64(a[i]) - lo)) * K + (np.int64(b[i]) - lo)
        counts[code] += 1
        if with_rows:
            rows[i] = code


@_jit
def _codes_to_ranks(rows, rank):
    for i in range(rows.shape[0]):
        rows[i] = rank[rows[i]]


def _as_kernel_input(arr):
    """A read-only view (bool as its 0/1 bytes): numba compiles per dtype, not per write flag."""
    view = arr.view(np.uint8) if arr.dtype == np.bool_ else arr.view()
    view.flags.writeable = False
    return view


def _bounds(t, a, b):
    """Smallest and largest label, as Python ints."""
    if any(x.dtype == np.uint64 for x in (t, a, b)):  # may exceed int64: NumPy's exact min/max
        return min(int(x.min()) for x in (t, a, b)), max(int(x.max()) for x in (t, a, b))
    lo, hi = _int_bounds(t, a, b)
    return int(lo), int(hi)


def small_int_cells(y_true, a, b, with_rows, *, small_span, max_table):
    """The cells of ``_cells_computed`` for integer or bool labels of a small span, or ``None``.

    Parameters
    ----------
    y_true, a, b : ndarray of shape (n_samples,)
        Integer or bool labels.
    with_rows : bool
        Also return the cell (row) index of every item.
    small_span : callable
        ``small_span(lo, hi, n)`` -> ``(lo, span)`` when the labels ``lo..hi``
        of ``n`` items have a small span, else ``None``
        (:func:`sigtest._engine.cells._small_span`, the rule of ``_union_codes``).
    max_table : int
        The largest ``K**3`` counted in a table
        (:func:`sigtest._engine.cells._cell_table_limit`).

    Returns
    -------
    cells : tuple or None
        ``(union, occupied, counts, row_of_item)``: the sorted labels, the
        occupied cell codes ``(t * K + a) * K + b`` in increasing order,
        their int64 counts and (with ``with_rows``, else ``None``) the int64
        row of every item. ``None`` (the caller computes the cells with
        NumPy) when the span of the labels is not small, when ``K**3``
        exceeds ``max_table``, when there are no items or when numba is
        disabled.

    Notes
    -----
    When ``span**3`` itself fits the table, the cells are counted on the
    shifted labels directly (``K = span``, no pass to find the labels
    present): the labels present are those of an occupied cell, and since
    the code of a label in the union is increasing in its value, the
    occupied cells keep their order (and their rows) when re-coded with the
    union's ``K``.
    """
    n = y_true.shape[0]
    if n == 0 or not _numba_enabled():  # no items: NumPy's path (and its error)
        return None
    t, pa, pb = (_as_kernel_input(x) for x in (y_true, a, b))
    small = small_span(*_bounds(t, pa, pb), n)
    if small is None:
        return None
    lo, span = small
    limit = max_table
    rows = np.empty(n if with_rows else 0, dtype=np.int64)
    if span**3 <= limit:  # count on the shifted labels (every value a label for now)
        width, values = span, None
        counts = np.zeros(width**3, dtype=np.int64)
        _count_shifted_cells(t, pa, pb, np.int64(lo), np.int64(width), counts, rows)
    else:
        present = np.zeros(span, dtype=np.bool_)
        _mark_present(t, pa, pb, np.int64(lo), present)
        values = np.flatnonzero(present)
        width = values.shape[0]
        if width**3 > limit:
            return None
        counts = np.zeros(width**3, dtype=np.int64)
        _count_cells(t, pa, pb, np.int64(lo), np.cumsum(present) - 1, np.int64(width),
                     counts, rows)
    occupied_mask = counts > 0
    occupied = np.flatnonzero(occupied_mask)
    counts = counts[occupied]
    if with_rows:
        _codes_to_ranks(rows, np.cumsum(occupied_mask) - 1)
    if values is None:  # the labels present are those of the occupied cells
        ct, rest = np.divmod(occupied, width * width)
        ca, cb = np.divmod(rest, width)
        present = np.zeros(width, dtype=np.bool_)
        present[ct] = present[ca] = present[cb] = True
        values = np.flatnonzero(present)
        K = values.shape[0]
        if K < width:  # values of the span that are no label: re-code with the union's K
            lookup = np.cumsum(present) - 1
            occupied = (lookup[ct] * K + lookup[ca]) * K + lookup[cb]
    union = (values + lo).astype(np.result_type(y_true, a, b))
    return union, occupied, counts, rows if with_rows else None
