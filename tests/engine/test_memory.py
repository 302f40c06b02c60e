"""Memory stays proportional to the data (issue 15, section 1, second item).

Many classes: the cell rows of precision/recall/F1 (``3K + 1`` columns, at
most four nonzero) are stored sparsely and resampled by kernels reading only
the nonzero entries; the results are bit-identical to the dense cell path
(same merged cells, same draws, same order of the nonzero terms). String
labels are encoded chunk by chunk, large item rows are bootstrapped one
system at a time; both give the same numbers as before with less memory.
"""

import tracemalloc

import numpy as np
import pytest

from sigtest import BergKirkpatrickBootstrap, PairedPermutation
from sigtest._engine import kernels, kernels_numpy, resampling
from sigtest._engine.resampling import bootstrap as resampling_bootstrap
from sigtest._engine.resampling import permutation as resampling_permutation
from sigtest._engine.resampling import rows as resampling_rows
from sigtest._engine import cells as cells_mod
from sigtest._engine import paired as paired_mod
from sigtest._engine import sparse as sparse_mod
from sigtest._engine import prepare_paired
from sigtest._engine.cells import _union_codes
from sigtest._engine.sparse import SparseRows
from sigtest._engine.rng import resample_keys
from sigtest.metrics import get_metric
from sigtest.metrics._hard import _prf_statistics


def _hard(n, k, seed=0, acc_a=0.6, acc_b=0.65):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    a = np.where(rng.random(n) < acc_a, y, rng.integers(0, k, n))
    b = np.where(rng.random(n) < acc_b, y, rng.integers(0, k, n))
    return y, a, b


@pytest.fixture
def sparse_everywhere(monkeypatch):
    """Store cell rows sparsely from small sizes on (the path of many classes)."""
    monkeypatch.setattr(cells_mod, "_SPARSE_MIN_ROWS", 8)
    monkeypatch.setattr(cells_mod, "_SPARSE_MIN_ENTRIES", 64)


def _dense_and_sparse(monkeypatch, y, a, b, metric, **kw):
    monkeypatch.setattr(cells_mod, "_SPARSE_MIN_ENTRIES", 1 << 60)
    dense = prepare_paired(y, a, b, metric, **kw)
    monkeypatch.setattr(cells_mod, "_SPARSE_MIN_ROWS", 8)
    monkeypatch.setattr(cells_mod, "_SPARSE_MIN_ENTRIES", 64)
    sparse = prepare_paired(y, a, b, metric, **kw)
    assert isinstance(sparse.stats_a, SparseRows) and isinstance(dense.stats_a, np.ndarray)
    return dense, sparse


# --------------------------------------------------------------------------- SparseRows
def test_sparse_rows_round_trip_and_reductions():
    rng = np.random.default_rng(1)
    dense = np.where(rng.random((40, 7)) < 0.2, rng.integers(-3, 4, (40, 7)), 0).astype(float)
    rows = SparseRows.from_dense(dense)
    np.testing.assert_array_equal(rows.toarray(), dense)
    np.testing.assert_array_equal(np.asarray(rows), dense)
    assert rows.nnz == np.count_nonzero(dense) and rows.shape == dense.shape
    pick = np.array([5, 0, 5, 39])
    np.testing.assert_array_equal(rows.take_rows(pick).toarray(), dense[pick])
    np.testing.assert_array_equal(rows[3:9], dense[3:9])
    np.testing.assert_array_equal(rows[:, 4], dense[:, 4])
    w = rng.integers(1, 5, 40).astype(float)
    np.testing.assert_array_equal(w @ rows, w @ dense)  # integers: exact
    np.testing.assert_array_equal(rows.sum(axis=0), dense.sum(axis=0))
    both = SparseRows.concatenate([SparseRows.from_dense(dense[:13]),
                                   SparseRows.from_dense(dense[13:])])
    np.testing.assert_array_equal(both.toarray(), dense)


@pytest.mark.parametrize("labels", [None, [0, 1, 2, 3, 5], [7, 2, 0]])
def test_prf_sparse_statistics_equal_dense(labels):
    y, a, _ = _hard(500, 8, seed=2)
    lab = None if labels is None else np.asarray(labels)
    want = _prf_statistics(y, a, labels=lab)
    indptr, indices, data, n_cols = _prf_statistics.sparse(y, a, labels=lab)
    got = SparseRows(indptr, indices, data, n_cols)
    np.testing.assert_array_equal(got.toarray(), want)
    # canonical: increasing columns within every row
    assert all(np.all(np.diff(indices[indptr[r]:indptr[r + 1]]) > 0) for r in range(500))


# --------------------------------------------------------------------------- kernels
def _sparse_case(monkeypatch, n=3000, k=40, metric="f1_macro"):
    y, a, b = _hard(n, k, seed=3)
    return _dense_and_sparse(monkeypatch, y, a, b, metric)


def test_sparse_kernels_equal_their_numpy_twins(monkeypatch):
    _, sp = _sparse_case(monkeypatch, n=600, k=25)
    joint = resampling_rows._sparse_joint(sp)
    rows, counts = resampling_rows._merge_sparse_rows(joint, sp.counts)
    keys = resample_keys(11, 9)
    for parallel in (False, True):
        got = kernels.bootstrap_sums_cells_sparse(rows.indptr, rows.indices, rows.data,
                                                  joint.shape[1], counts, 600, keys, parallel)
        want = kernels_numpy.bootstrap_sums_cells_sparse(rows.indptr, rows.indices, rows.data,
                                                         joint.shape[1], counts, 600, keys)
        np.testing.assert_array_equal(got, want)
    discordant = resampling_permutation.discordant_rows(sp)
    D, c = resampling_rows._merge_sparse_rows(discordant.D, discordant.weights)
    for parallel in (False, True):
        got = kernels.permutation_sums_cells_sparse(D.indptr, D.indices, D.data, D.shape[1],
                                                    c, keys, parallel)
        want = kernels_numpy.permutation_sums_cells_sparse(D.indptr, D.indices, D.data,
                                                           D.shape[1], c, keys)
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("metric", ["f1_macro", "precision_weighted", "recall_micro"])
def test_sparse_cell_path_is_bit_identical_to_dense(monkeypatch, metric):
    dense, sp = _sparse_case(monkeypatch, metric=metric)
    assert (sp.score_a, sp.score_b) == (dense.score_a, dense.score_b)
    for parallel in (False, True):
        for fn in (resampling.bootstrap_sums, resampling.permutation_sums):
            resampling_rows._MEMO.clear()
            want = fn(dense, 64, seed=5, parallel=parallel)
            resampling_rows._MEMO.clear()
            got = fn(sp, 64, seed=5, parallel=parallel)
            np.testing.assert_array_equal(got[0], want[0])
            np.testing.assert_array_equal(got[1], want[1])
        got = resampling.bootstrap_sums(sp, 40, sample_size=0.3, seed=2, parallel=parallel)
        want = resampling.bootstrap_sums(dense, 40, sample_size=0.3, seed=2, parallel=parallel)
        np.testing.assert_array_equal(got[0], want[0])
    for got, want in zip(resampling.jackknife_values(sp), resampling.jackknife_values(dense)):
        np.testing.assert_array_equal(got, want)
    assert sp.n_discordant == dense.n_discordant
    assert (resampling.monte_carlo_permutation_seconds(sp, 99)
            == resampling.monte_carlo_permutation_seconds(dense, 99))
    assert resampling.exact_permutation_sums(sp) is None
    assert resampling.exact_permutation_sums(dense) is None


def test_sparse_exact_permutation_equals_dense(monkeypatch):
    # few discordant items: the exact distribution is enumerated on both paths
    rng = np.random.default_rng(4)
    y = rng.integers(0, 30, 400)
    a = y.copy()
    b = y.copy()
    a[:5] = (y[:5] + 1) % 30
    b[5:9] = (y[5:9] + 2) % 30
    dense, sp = _dense_and_sparse(monkeypatch, y, a, b, "f1_macro")
    got, want = resampling.exact_permutation_sums(sp), resampling.exact_permutation_sums(dense)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
    for test in (PairedPermutation(random_state=0), BergKirkpatrickBootstrap(
            n_resamples=199, random_state=0)):
        r_s, r_d = test.test_paired(sp), test.test_paired(dense)
        assert (r_s.pvalue, r_s.statistic) == (r_d.pvalue, r_d.statistic)
        np.testing.assert_array_equal(r_s.null_distribution, r_d.null_distribution)


def test_public_results_identical_for_any_thread_count(monkeypatch, sparse_everywhere):
    y, a, b = _hard(2000, 50, seed=6)
    out = []
    for n_jobs in (1, 2):
        for test in (BergKirkpatrickBootstrap(n_resamples=99, random_state=3, n_jobs=n_jobs),
                     PairedPermutation(n_resamples=99, random_state=3, n_jobs=n_jobs)):
            r = test.test(y, a, b, metric="f1_macro")
            out.append((r.pvalue, tuple(r.null_distribution)))
    assert out[0] == out[2] and out[1] == out[3]


def test_generic_cellwise_metric_without_sparse_hook(monkeypatch, sparse_everywhere):
    # a user metric with the same statistics but no sparse form: chunked densify
    import dataclasses

    def stats(y_true, y_pred, **params):
        return _prf_statistics(y_true, y_pred, **params)

    f1 = get_metric("f1_macro")
    mine = dataclasses.replace(f1, name="my_f1", statistics=stats)
    monkeypatch.setattr(sparse_mod, "_SPARSE_CHUNK_ENTRIES", 500)  # many chunks
    y, a, b = _hard(3000, 40, seed=7)
    got = prepare_paired(y, a, b, mine)
    want = prepare_paired(y, a, b, f1)
    assert isinstance(got.stats_a, SparseRows)
    np.testing.assert_array_equal(got.stats_a.toarray(), want.stats_a.toarray())
    np.testing.assert_array_equal(got.stats_b.toarray(), want.stats_b.toarray())


# --------------------------------------------------------------------------- naive twin
def test_bootstrap_sums_match_naive_resampled_f1(monkeypatch, sparse_everywhere):
    """Per-resample sums and macro-F1 against sklearn on the resampled items.

    The compressed bootstrap draws a Multinomial(N, counts / N) over the
    merged cells; the naive twin takes the same draws (the NumPy multinomial
    of the kernels' generator), expands every cell into that many copies of
    its labels and scores them with scikit-learn.
    """
    from sklearn.metrics import f1_score

    y, a, b = _hard(1500, 30, seed=8)
    paired = prepare_paired(y, a, b, "f1_macro")
    assert isinstance(paired.stats_a, SparseRows)
    B, seed = 6, 13
    sums_a, sums_b = resampling.bootstrap_sums(paired, B, seed=seed)
    # naive: cells, their dense joint rows, merged by np.unique in first-occurrence order
    union, yt, ya, yb, counts = cells_mod._cells(y, a, b)
    joint = np.hstack([_prf_statistics(yt, ya, labels=union), _prf_statistics(yt, yb, labels=union)])
    _, first, inverse = np.unique(joint, axis=0, return_index=True, return_inverse=True)
    keep = np.sort(first)
    rank = np.argsort(np.argsort(first))
    merged = np.bincount(rank[inverse.ravel()], weights=counts).astype(np.int64)
    x = kernels_numpy._multinomial_draws(merged, len(y), resample_keys(seed, B))
    for r in range(B):
        reps = np.repeat(keep, x[r])
        np.testing.assert_array_equal(sums_a[r], x[r] @ joint[keep][:, :joint.shape[1] // 2])
        for sums, pred in ((sums_a, ya), (sums_b, yb)):
            want = f1_score(yt[reps], pred[reps], labels=union, average="macro", zero_division=0)
            assert paired.values(sums[r]) == pytest.approx(want, rel=1e-12, abs=1e-15)


# --------------------------------------------------------------------------- memory bounds
def _traced_peak(fn):
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_many_classes_never_allocate_dense_cells_by_classes():
    """K = 2,000, N = 20,000, B = 50: bootstrap (with BCa jackknife) and permutation.

    Dense cell statistics would be (cells, 3K + 1) float64 per system: with
    ~15,000 occupied cells that is 15,000 * 6,001 * 8 B = 720 MB each (and a
    B x cells x K array 16 GB). The sparse path holds O(N + nnz) index
    arrays (~2 MB each), the (B, 2(3K + 1)) sums (~5 MB), a dense probe of
    64 cells (6 MB), the row keys of the merge and np.unique's sort of them
    (~36 MB measured), and jackknife chunks of 2**18 entries (2 MB) plus the
    aggregate's temporaries of one chunk: 64 MB bounds all of it, an
    eleventh of one dense system. (numba's own allocations are not traced;
    they are the (B, 2s) outputs.)
    """
    y, a, b = _hard(20_000, 2_000, seed=9)

    def run():
        BergKirkpatrickBootstrap(n_resamples=50, random_state=0).test(y, a, b, metric="f1_macro")
        PairedPermutation(n_resamples=50, random_state=0).test(y, a, b, metric="recall_macro")

    run()  # compile / load the kernels outside the traced run
    peak = _traced_peak(run)
    assert peak < 64 * 2**20, f"peak {peak / 2**20:.0f} MB"


def test_string_labels_are_encoded_without_copies(monkeypatch):
    """Codes equal np.unique of the concatenation; peak below 1.3x the input.

    ``np.unique(np.concatenate(...), return_inverse=True)`` held the
    concatenation, its flattened and sorted copies and the int64 inverse
    (~3.5x the input of <U6 strings). Chunked encoding holds the int64 codes
    (1/3 of the input for 24-byte strings) and one chunk's temporaries
    (``_STRING_CHUNK`` items, here 50,000: a quarter of each array).
    """
    monkeypatch.setattr(cells_mod, "_STRING_CHUNK", 50_000)
    y, a, b = _hard(200_000, 7, seed=10)
    names = np.array([f"lab{j:03d}" for j in range(7)])
    arrays = [names[y], names[a], names[b][:, None].astype("<U5").ravel()]
    union, codes = _union_codes(arrays)
    want_union, inverse = np.unique(np.concatenate(arrays), return_inverse=True)
    np.testing.assert_array_equal(union, want_union)
    assert union.dtype == want_union.dtype
    np.testing.assert_array_equal(np.concatenate(codes), inverse.ravel())
    size = sum(x.nbytes for x in arrays)
    peak = _traced_peak(lambda: _union_codes(arrays))
    assert peak < 1.3 * size, f"peak {peak / size:.2f}x the input"


def test_bytes_labels_and_mixed_widths_encode_as_unique():
    arrays = [np.array([b"b", b"a", b"ccc"]), np.array([b"a", b"zz", b"b"]),
              np.array([b"ccc", b"a", b"a"])]
    union, codes = _union_codes(arrays)
    want, inverse = np.unique(np.concatenate(arrays), return_inverse=True)
    np.testing.assert_array_equal(union, want)
    np.testing.assert_array_equal(np.concatenate(codes), inverse.ravel())


def test_large_soft_rows_bootstrap_without_joined_copy():
    """soft_f1_macro on 300,000 x 10 rows: per-system kernels, same sums as the joint one.

    The statistics of each system are (N, 30) float64 = 72 MB, above
    ``_JOINT_MAX_BYTES`` (64 MB): the joined (N, 60) copy (144 MB) and its
    reduced copy (~120 MB) are not made. Traced peak of the bootstrap call
    on prepared data: the (B, s) sums and one column (2.4 MB) at a time, so
    well below one system's statistics (72 MB); the joint path needs > 240 MB.
    """
    rng = np.random.default_rng(11)
    n, k = 300_000, 10
    y = np.eye(k)[rng.integers(0, k, n)]
    pa = rng.dirichlet(np.ones(k), n)
    pb = 0.7 * pa + 0.3 * y
    paired = prepare_paired(y, pa, pb, "soft_f1_macro")
    assert paired.stats_a.nbytes > resampling_bootstrap._JOINT_MAX_BYTES
    resampling.bootstrap_sums(paired, 2, seed=0)  # warm up
    peak = _traced_peak(lambda: resampling.bootstrap_sums(paired, 10, seed=1))
    assert peak < 36 * 2**20, f"peak {peak / 2**20:.0f} MB"
    small = paired_mod.PairedData(paired.metric, paired.params, 40_000,
                                  paired.stats_a[:40_000].copy(),
                                  paired.stats_b[:40_000].copy(), None,
                                  paired.score_a, paired.score_b)
    joint = resampling.bootstrap_sums(small, 10, seed=1)
    old = resampling_bootstrap._JOINT_MAX_BYTES
    try:
        resampling_bootstrap._JOINT_MAX_BYTES = 0
        split = resampling.bootstrap_sums(small, 10, seed=1)
    finally:
        resampling_bootstrap._JOINT_MAX_BYTES = old
    np.testing.assert_array_equal(joint[0], split[0])
    np.testing.assert_array_equal(joint[1], split[1])


def test_item_values_of_sparse_rows_equal_dense(monkeypatch):
    # f1_micro is decomposable: per-item tests read item values of sparse rows in chunks
    monkeypatch.setattr(sparse_mod, "_SPARSE_CHUNK_ENTRIES", 1000)
    y, a, b = _hard(3000, 40, seed=12)
    dense, sp = _dense_and_sparse(monkeypatch, y, a, b, "f1_micro")
    for got, want in zip(sp.item_values(), dense.item_values()):
        np.testing.assert_array_equal(got, want)


def test_kernel_memo_keeps_its_byte_budget():
    memo = resampling_rows._KernelMemo(maxsize=16, maxbytes=3 * 8000)
    for i in range(5):
        memo.get_or_compute(bytes([i]), lambda: np.zeros(1000))  # 8,000 bytes each
    assert len(memo._data) == 3 and list(memo._data) == [bytes([2]), bytes([3]), bytes([4])]
    memo.get_or_compute(b"big", lambda: np.zeros(10_000))  # alone above the budget
    assert list(memo._data) == [b"big"]
    calls = []
    got = memo.get_or_compute(b"big", lambda: calls.append(1) or np.ones(1))
    assert not calls and got.shape == (10_000,)
