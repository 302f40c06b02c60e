"""The numba cells of small-span integer labels equal the NumPy path exactly (issue 23).

References: :func:`sigtest._engine.cells._cells_numpy` (the NumPy code, kept
as the fallback) and a naive ``np.unique`` of the ``(true, A, B)`` rows.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sigtest._engine import cells as C
from sigtest._engine import cells_numba as CN

DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint64, np.bool_]


@pytest.fixture(autouse=True)
def _numba_cells_at_any_size(monkeypatch):
    # the numba passes on the small arrays of these tests (by default they
    # start at C._NUMBA_CELLS_MIN_ITEMS items)
    monkeypatch.setattr(C, "_NUMBA_CELLS_MIN_ITEMS", 0)


def _labels(rng, dtype, n, lo, hi):
    if dtype == np.bool_:
        return rng.integers(0, 2, n).astype(bool)
    info = np.iinfo(dtype)  # lo..hi clipped to the dtype's range
    lo = min(max(lo, info.min), info.max)
    return rng.integers(lo, max(min(hi, info.max), lo) + 1, n).astype(dtype)


def _noisy_pair(rng, dtype, n, lo, hi):
    y = _labels(rng, dtype, n, lo, hi)
    a = np.where(rng.random(n) < 0.6, y, _labels(rng, dtype, n, lo, hi))
    b = np.where(rng.random(n) < 0.7, y, _labels(rng, dtype, n, lo, hi))
    return y, a, b


def _spy(monkeypatch):
    """Record what small_int_cells returned (``None``: the NumPy fallback ran)."""
    calls = []
    fast = CN.small_int_cells

    def spy(*args, **kwargs):
        out = fast(*args, **kwargs)
        calls.append(out is not None)
        return out

    monkeypatch.setattr(CN, "small_int_cells", spy)
    return calls


def _assert_same(got, want):
    assert len(got) == len(want)
    for x, z in zip(got, want):
        assert x.dtype == z.dtype and x.shape == z.shape
        np.testing.assert_array_equal(x, z)


def _assert_naive(y, a, b, out):
    union, yt, ya, yb, counts, rows = out
    triples, want_counts = np.unique(np.stack([y, a, b], axis=1).astype(np.int64), axis=0,
                                     return_counts=True)
    np.testing.assert_array_equal(np.stack([yt, ya, yb], axis=1), triples)
    np.testing.assert_array_equal(counts, want_counts)
    np.testing.assert_array_equal(union, np.unique(np.concatenate([y, a, b])))
    np.testing.assert_array_equal(yt[rows], y)
    np.testing.assert_array_equal(ya[rows], a)
    np.testing.assert_array_equal(yb[rows], b)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("lo, hi", [(0, 4), (-7, 5), (-40, 40)])
@pytest.mark.parametrize("with_rows", [False, True])
def test_small_int_cells_equal_numpy_path(monkeypatch, dtype, lo, hi, with_rows):
    rng = np.random.default_rng([abs(lo), hi, np.dtype(dtype).num])
    y, a, b = _noisy_pair(rng, dtype, 700, lo, hi)
    calls = _spy(monkeypatch)
    got = C._cells_computed(y, a, b, with_rows)
    assert calls == [True]  # the numba path ran
    _assert_same(got, C._cells_numpy(y, a, b, with_rows))
    if with_rows:
        _assert_naive(y, a, b, got)


def test_mixed_dtypes_and_a_single_class(monkeypatch):
    rng = np.random.default_rng(1)
    y = rng.integers(-3, 3, 500).astype(np.int8)
    a = rng.integers(-3, 3, 500).astype(np.int64)
    b = rng.integers(0, 3, 500).astype(np.uint8)
    calls = _spy(monkeypatch)
    got = C._cells_computed(y, a, b, True)
    _assert_same(got, C._cells_numpy(y, a, b, True))
    assert got[0].dtype == np.result_type(y, a, b)
    _assert_naive(y, a, b, got)
    one = np.full(50, -5, dtype=np.int32)
    got = C._cells_computed(one, one, one, True)
    _assert_same(got, C._cells_numpy(one, one, one, True))
    assert got[4].tolist() == [50.0] and got[5].tolist() == [0] * 50
    assert calls == [True, True]


@pytest.mark.parametrize("with_rows", [False, True])
def test_wide_spans_and_many_labels(monkeypatch, with_rows):
    rng = np.random.default_rng(2)
    # span 2**16 with a few labels: the labels present are marked first, K = 5
    values = np.array([-30000, -1, 0, 7, 35535])
    y, a, b = (values[rng.integers(0, 5, 400)] for _ in range(3))
    # span 10 with gaps (span**3 fits the table): counted on the shifted
    # labels, then re-coded with K = 4 (a label only in y_true, one only in b)
    gaps = (np.r_[np.full(399, 2), -1], np.r_[np.full(200, 2), np.full(200, 5)],
            np.r_[np.full(399, 5), 8])
    # K = 150 labels at N = 400: K**3 = 3.4e6 > max(2**20, 4 N), the NumPy fallback
    many = [rng.integers(-75, 75, 400) for _ in range(3)]
    assert np.unique(np.concatenate(many)).shape[0] ** 3 > C._cell_table_limit(400)
    calls = _spy(monkeypatch)
    for t, p, q in [(y, a, b), gaps, many]:
        got = C._cells_computed(t, p, q, with_rows)
        _assert_same(got, C._cells_numpy(t, p, q, with_rows))
        if with_rows:
            _assert_naive(t, p, q, got)
    assert calls == [True, True, False]


def test_numba_disabled_and_non_integer_labels_take_numpy(monkeypatch):
    rng = np.random.default_rng(3)
    y, a, b = _noisy_pair(rng, np.int64, 300, 0, 5)
    calls = _spy(monkeypatch)
    monkeypatch.setenv("SIGTEST_DISABLE_NUMBA", "1")
    assert CN.small_int_cells(y, a, b, True, small_span=C._small_span,
                              max_table=C._cell_table_limit(300)) is None
    _assert_same(C._cells_computed(y, a, b, True), C._cells_numpy(y, a, b, True))
    monkeypatch.delenv("SIGTEST_DISABLE_NUMBA")
    # strings, floats and labels beyond a small span never reach the kernel
    for t, p, q in [(y.astype(str), a.astype(str), b.astype(str)),
                    (y * 0.5, a * 0.5, b * 0.5),
                    (y * 10**6, a * 10**6, b * 10**6)]:
        _assert_same(C._cells_computed(t, p, q, True), C._cells_numpy(t, p, q, True))
    # no items: the NumPy path and its error (the kernels never read past the end)
    empty = np.array([], dtype=np.int64)
    with pytest.raises(ValueError):
        C._cells_computed(empty, empty, empty)
    # the direct call, the call with numba disabled, the span of 5 * 10**6, no items
    assert calls == [False, False, False, False]


@settings(max_examples=60, deadline=None)
@given(dtype=st.sampled_from(DTYPES), n=st.integers(1, 60), lo=st.integers(-300, 300),
       width=st.integers(1, 300), with_rows=st.booleans(), seed=st.integers(0, 2**32 - 1))
def test_any_small_span_equals_numpy_path(dtype, n, lo, width, with_rows, seed):
    # any labels, span, gaps and dtype: the same cells as the NumPy twin
    # (whichever path runs: a wide K**3 falls back)
    rng = np.random.default_rng(seed)
    y, a, b = _noisy_pair(rng, dtype, n, lo, lo + width)
    got = C._cells_computed(y, a, b, with_rows)
    _assert_same(got, C._cells_numpy(y, a, b, with_rows))
    if with_rows:
        _assert_naive(y, a, b, got)


def test_small_arrays_take_the_numpy_path_with_the_same_cells(monkeypatch):
    # below the size where the numba passes pay, the NumPy path (no kernel to
    # compile or load); from it on, the numba passes; the same cells either way
    monkeypatch.setattr(C, "_NUMBA_CELLS_MIN_ITEMS", 2**14)
    rng = np.random.default_rng(5)
    calls = _spy(monkeypatch)
    for n in (2**14 - 1, 2**14):
        y, a, b = _noisy_pair(rng, np.int64, n, 0, 3)
        _assert_same(C._cells_computed(y, a, b, True), C._cells_numpy(y, a, b, True))
    assert calls == [True]
