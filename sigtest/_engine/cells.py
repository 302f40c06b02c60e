"""Hard labels as occupied cells ``(true, A, B)``, and the metric's statistics of rows.

* label encoding: the sorted union of the labels and every array's codes in
  it (``O(N)`` for small integer labels, chunked for strings);
* occupied cells: one representative row per distinct ``(true, A, B)`` with
  its multiplicity (and the cell of every item), reused within one task
  through a :class:`CellCache` its caller creates and passes down;
* statistics: the metric's per-row statistics of A and B, checked, named
  after the caller's arguments, dense or :class:`~sigtest._engine.sparse.SparseRows`
  for wide cell rows.
"""

from __future__ import annotations

import numpy as np

from sigtest._engine.sparse import SparseRows, dense_chunk_rows

__all__ = ["CellCache"]

# --------------------------------------------------------------------------
# label encoding (O(N) for small integer labels)
# --------------------------------------------------------------------------
def _small_int_span(arrays):
    """``(lo, span)`` of integer or bool ``arrays`` with a small span of values, else ``None``.

    Small: at most ``max(2**16, 4 N)`` values from the smallest to the
    largest label, all within ``(-2**62, 2**62)`` (a presence table of the
    span is then cheaper than sorting).
    """
    if not all(arr.dtype.kind in "biu" for arr in arrays):
        return None
    lo = min(int(arr.min()) for arr in arrays)
    hi = max(int(arr.max()) for arr in arrays)
    return _small_span(lo, hi, arrays[0].shape[0])


def _small_span(lo, hi, n):
    """``(lo, span)`` when the labels ``lo..hi`` of ``n`` items have a small span, else ``None``."""
    span = hi - lo + 1
    if -(2**62) < lo and hi < 2**62 and span <= max(1 << 16, 4 * n):
        return lo, span
    return None


def _union_codes(arrays):
    """Sorted union of the values of ``arrays`` and each array's codes in it."""
    small = _small_int_span(arrays)
    if small is not None:
        lo, span = small
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


class CellCache:
    """Cells of the last ``(y_true, a, b)`` seen, matched by identity. One per task; never shared.

    For the metrics of one pair (:func:`sigtest.compare`): their label codes
    and occupied cells ``(true, A, B)`` are the same, only the statistics per
    cell differ. The caller creates one cache per task and passes it to every
    :func:`~sigtest._engine.prepare.prepare_paired` call of that task
    (``cell_cache=``); a later call with the *same array objects* (``is``)
    gets the first call's cells (equal to what a new computation gives; the
    rows of the items are computed when first asked for). The caller must
    not modify the arrays it passes while it uses the cache. Not
    thread-safe: a cache belongs to one task.

    The arrays it returns are read-only (``flags.writeable`` is False) and
    shared by every call for the same arrays: no caller writes into them (the
    statistics of the cells, the counts and the rows are new arrays), and a
    copy per call cost a pass over the ``N`` rows of every item per metric.
    """

    __slots__ = ("_entry", "_stats")

    def __init__(self):
        self._entry = None
        self._stats = []  # [(statistics, params, sparse, (stats_a, stats_b))] of the cells

    def cells(self, y_true, a, b, *, with_rows=False):
        """The occupied cells of ``(y_true, a, b)``, computed once for the same objects.

        Parameters
        ----------
        y_true, a, b : ndarray of shape (n_samples,)
            Checked hard labels.
        with_rows : bool, default=False
            Also return the cell (row) index of every item.

        Returns
        -------
        cells : tuple of ndarray
            ``(union, true, a, b, counts)`` and, with ``with_rows``, the row
            of every item: read-only, the same arrays for every call.
        """
        entry = self._entry
        if (entry is not None and entry[0] is y_true and entry[1] is a and entry[2] is b
                and (len(entry[3]) > 5 or not with_rows)):
            out = entry[3]
        else:  # the rows only when asked (a pass over the items); asked later: computed again
            out = _cells_computed(y_true, a, b, with_rows)
            for x in out:  # shared by the calls: nobody writes into them
                x.flags.writeable = False
            self._entry = (y_true, a, b, out)
            self._stats = []
        return out if with_rows else out[:5]

    def statistics(self, metric, params, sparse, compute):
        """The cell statistics ``compute()`` of the cached cells, once per function and params.

        The metrics of a pair that share a statistics function and its
        parameters (``f1_macro``, ``precision_macro`` and ``recall_macro``:
        the same rows of ``TP_k``, ``pred_k``, ``true_k``) get copies of the
        first computation, which is what a new one gives (a statistics
        function is a function of its arguments). Stored only when the
        computation is dense and emitted no warning (a warning is re-emitted
        and the rows computed again on the next call, so every call warns as
        without the cache). Call after :meth:`cells` of the same arrays.
        """
        import warnings

        func = metric.statistics
        for f, p, sp, stats in self._stats:
            if f is func and sp == sparse and _same_params(p, params):
                return tuple(x.copy() for x in stats)
        with warnings.catch_warnings(record=True) as caught:
            stats = compute()
        for w in caught:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno,
                                   source=w.source)
        if not caught and all(isinstance(x, np.ndarray) for x in stats):
            self._stats.append((func, dict(params), sparse, tuple(x.copy() for x in stats)))
        return stats


def _same_params(p, q):
    """Whether two metric parameter dicts are equal (arrays by dtype, shape and values)."""
    if p.keys() != q.keys():
        return False
    for key, u in p.items():
        v = q[key]
        if u is v:
            continue
        if isinstance(u, np.ndarray) or isinstance(v, np.ndarray):
            if not (isinstance(u, np.ndarray) and isinstance(v, np.ndarray)
                    and u.dtype == v.dtype and u.shape == v.shape and np.array_equal(u, v)):
                return False
        elif type(u) is not type(v) or not isinstance(u, (str, int, float, bool, type(None))):
            return False
        elif u != v:
            return False
    return True


def _cells(y_true, a, b, with_rows=False, cache=None):
    """Occupied cells (t, a, b) as representative values and counts.

    With ``with_rows``, also the cell (row) index of every item. With a
    :class:`CellCache`, computed once for the same array objects.
    """
    if cache is None:
        return _cells_computed(y_true, a, b, with_rows)
    return cache.cells(y_true, a, b, with_rows=with_rows)


#: Fewest items for which the numba passes of the cells are used. Below, the
#: NumPy path takes under ~0.6 ms (0.4 ms at N = 10^4, 0.1-0.3 ms more than
#: the numba passes), less than what a new process spends loading the two
#: kernels from numba's cache, or a new environment compiling them (~0.7 s of
#: CPU): the first call on small data compiles and loads only what pays. From
#: 2**15 items the NumPy path costs 2 ms and more, 5-15x the numba passes.
_NUMBA_CELLS_MIN_ITEMS = 2**14


def _cells_computed(y_true, a, b, with_rows=False):
    """:func:`_cells` without a cache.

    Integer labels of a small span whose ``K**3`` cells fit the count table
    take numba passes over the items
    (:func:`~sigtest._engine.cells_numba.small_int_cells`, the same output)
    from ``_NUMBA_CELLS_MIN_ITEMS`` items on; :func:`_cells_numpy` is the
    fallback and its twin.
    """
    if y_true.shape[0] >= _NUMBA_CELLS_MIN_ITEMS and all(
            arr.dtype.kind in "biu" for arr in (y_true, a, b)):
        from sigtest._engine.cells_numba import small_int_cells  # imports numba

        fast = small_int_cells(y_true, a, b, with_rows, small_span=_small_span,
                               max_table=_cell_table_limit(y_true.shape[0]))
        if fast is not None:
            union, occupied, counts, row_of_item = fast
            return _decoded_cells(union, occupied, counts, row_of_item, with_rows)
    return _cells_numpy(y_true, a, b, with_rows)


def _cell_table_limit(n):
    """The largest ``K**3`` whose cells are counted in a table (else ``np.unique``)."""
    return max(1 << 20, 4 * n)


def _cells_numpy(y_true, a, b, with_rows=False):
    """:func:`_cells_computed` in NumPy (the fallback, and the twin of the numba path)."""
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
    if K**3 <= _cell_table_limit(n):
        counts = np.bincount(code, minlength=K**3)
        present = counts > 0
        occupied = np.flatnonzero(present)
        counts = counts[occupied]
        if with_rows:
            row_of_item = (np.cumsum(present) - 1)[code]
    else:
        occupied, inverse, counts = np.unique(code, return_inverse=True, return_counts=True)
        row_of_item = inverse.ravel()
    return _decoded_cells(union, occupied, counts, row_of_item, with_rows)


def _decoded_cells(union, occupied, counts, row_of_item, with_rows):
    """The output of :func:`_cells` from the occupied codes ``(t * K + a) * K + b``."""
    K = union.shape[0]
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


def _named_errors(call, name, metric=None):
    """``call()``, a ValueError naming 'y_pred' renamed to the caller's argument ``name``.

    The message also names ``metric`` when it does not already: a 1-D
    probability given to a label metric says which metric wanted labels.
    """
    try:
        return call()
    except ValueError as exc:
        # the metric's checks call its prediction 'y_pred': name the caller's
        # argument ('y_pred_a' or 'y_pred_b') instead
        message = str(exc)
        changed = False
        if type(exc) is ValueError and name != "y_pred" and "'y_pred'" in message:
            message, changed = message.replace("'y_pred'", f"'{name}'"), True
        if type(exc) is ValueError and metric is not None and repr(metric.name) not in message:
            message, changed = f"{message} (metric {metric.name!r})", True
        if changed:
            raise ValueError(message) from exc
        raise


def _statistics(metric, y_true, y_pred, params, name):
    stats = _named_errors(lambda: metric.statistics(y_true, y_pred, **params), name,
                           metric)
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


def _cell_statistics(metric, yt, ya, yb, params, *, sparse=True):
    """Statistics of the cell rows of A and B: dense, or :class:`SparseRows` when wide.

    Dense unless ``sparse`` and there are more than ``_SPARSE_MIN_ROWS``
    cells. Sparse rows are built from chunks of cells (at most
    ``dense_chunk_rows`` rows at a time), so the dense ``(C, s)`` arrays of a
    many-class metric never exist: memory is that of the nonzero entries (a
    few per cell).
    """
    C = yt.shape[0]
    if not sparse or C <= _SPARSE_MIN_ROWS:
        return _statistics_pair(metric, yt, ya, yb, params)
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
                lambda y_pred=y_pred: sparse(yt, y_pred, **params), name, metric)
            rows = SparseRows(indptr, indices, data, n_cols)
            if rows.shape != (C, s):
                raise ValueError(
                    f"Metric {metric.name!r}: its sparse statistics have shape {rows.shape}, "
                    f"its dense statistics {(C, s)}."
                )
            out.append(rows)
        return tuple(out)
    step = dense_chunk_rows(s)
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
