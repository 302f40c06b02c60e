"""The speed-ups of the engine and of ``compare`` do not change any result."""

import inspect

import numpy as np
import pytest

from sigtest import BCaInterval, PairedPermutation
from sigtest._engine import resampling as R
from sigtest._engine.resampling import permutation as RP
from sigtest._engine.resampling import rows as RR
from sigtest._engine.rng import resample_keys
from sigtest._engine import prepare_paired


@pytest.mark.parametrize("n_resamples", [1, 2, 3, 5, 100, 10_001])
@pytest.mark.parametrize("seed", [0, 1, 7, 2**32 - 1, 2**63 + 12345, 2**130 + 3])
def test_resample_keys_equal_numpy_generate_state(seed, n_resamples):
    expected = np.random.SeedSequence(seed, spawn_key=(0,)).generate_state(
        n_resamples, dtype=np.uint64
    )
    got = resample_keys(seed, n_resamples)
    assert got.dtype == np.uint64
    np.testing.assert_array_equal(got, expected)


def test_expand_places_varying_and_constant_columns():
    sums_red = np.arange(12.0).reshape(4, 3)
    source = np.array([2, -1, 0, 0, -1, 1])
    const = np.array([0.0, 5.0, 0.0, 0.0, -2.0, 0.0])
    out = RR._expand(sums_red, source, const, 3.0)
    expected = np.column_stack([sums_red[:, 2], np.full(4, 15.0), sums_red[:, 0],
                                sums_red[:, 0], np.full(4, -6.0), sums_red[:, 1]])
    np.testing.assert_array_equal(out, expected)
    out0 = RR._expand(np.zeros((4, 0)), np.array([-1, -1]), np.array([1.0, 2.0]), 2.0)
    np.testing.assert_array_equal(out0, np.tile([2.0, 4.0], (4, 1)))


@pytest.mark.parametrize("metric", ["accuracy", "f1_macro", "recall_macro"])
@pytest.mark.parametrize("test", [PairedPermutation(n_resamples=300, random_state=3),
                                  BCaInterval(n_resamples=300, random_state=4)])
def test_test_paired_equals_test(metric, test):
    rng = np.random.default_rng(0)
    y = rng.integers(0, 4, 400)
    a = np.where(rng.random(400) < 0.6, y, rng.integers(0, 4, 400))
    b = np.where(rng.random(400) < 0.7, y, rng.integers(0, 4, 400))
    res = test.test(y, a, b, metric=metric)
    res2 = test.test_paired(prepare_paired(y, a, b, metric))
    assert res2.pvalue == res.pvalue or (np.isnan(res.pvalue) and np.isnan(res2.pvalue))
    assert res2.confidence_interval == res.confidence_interval
    np.testing.assert_array_equal(res2.null_distribution, res.null_distribution)
    assert (res2.score_a, res2.score_b, res2.params) == (res.score_a, res.score_b, res.params)


@pytest.mark.parametrize("parallel", [False, True])
@pytest.mark.parametrize("m_factor", [1.0, 0.3, 2.5])
def test_cell_kernel_with_per_cell_constants_equals_twin(parallel, m_factor):
    # counts mix tiny cells (inversion), large ones (BTRS) and a dominant first
    # cell (p > 1/2: the flipped branch); per-cell constants must not change a draw
    from sigtest._engine import kernels as K
    from sigtest._engine import kernels_numpy as P

    rng = np.random.default_rng(5)
    counts = np.concatenate([[5000], rng.integers(1, 12, 20), rng.integers(30, 400, 15)])
    counts = counts.astype(np.int64)
    stats = rng.normal(size=(counts.size, 3))
    stats[rng.random(stats.shape) < 0.5] = 0.0
    m = max(1, int(m_factor * counts.sum()))
    keys = resample_keys(11, 150)
    got = K.bootstrap_sums_cells(stats, counts, m, keys, parallel=parallel)
    np.testing.assert_array_equal(got, P.bootstrap_sums_cells(stats, counts, m, keys))


def _swapped_twin(totals, B, cols, red):
    """The plain form of ``_add_swapped``: full (B, s) operations on a zero-filled swap."""
    swapped = np.zeros((B, totals[0].shape[0]))
    if red is not None:
        swapped[:, cols] = red
    return totals[0] + swapped, totals[1] - swapped


def _same_bits(x, y):
    return x.shape == y.shape and np.array_equal(x.view(np.uint64), y.view(np.uint64))


@pytest.mark.parametrize("cols", [[0, 1, 2, 3, 4, 5], [1, 2, 3], [3, 4, 5], [0, 2, 5], [4], [],
                                  None])
def test_add_swapped_equals_zero_filled_twin_bit_for_bit(cols):
    rng = np.random.default_rng(5)
    B, s = 7, 6
    # -0.0 totals: ``x + 0.0`` and ``x - 0.0`` must keep the twin's signs of zero
    totals = (np.array([-0.0, 3.5, 0.0, -2.0, 1e300, -0.0]),
              np.array([0.0, -0.0, 7.25, -0.0, 4.0, -1e-300]))
    red = None
    if cols is not None:
        cols = np.asarray(cols, dtype=np.int64)
        red = rng.normal(size=(B, cols.size)).round(1)
        red[0] = -0.0
        red[1] = 0.0
    got = RP._add_swapped(totals, B, cols, red)
    want = _swapped_twin(totals, B, cols, red)
    assert all(_same_bits(g, w) for g, w in zip(got, want))
    out = (np.full((B, s), np.nan), np.full((B, s), np.nan))
    RP._add_swapped(totals, B, cols, red, out=out)
    assert all(_same_bits(g, w) for g, w in zip(out, want))


@pytest.mark.parametrize("metric", ["f1_macro", "precision_macro", "recall_macro",
                                    "accuracy"])
def test_shared_permutation_sums_equal_the_plain_ones(metric):
    rng = np.random.default_rng(11)
    y = rng.integers(0, 4, 500)
    a = np.where(rng.random(500) < 0.6, y, rng.integers(0, 4, 500))
    b = np.where(rng.random(500) < 0.7, y, rng.integers(0, 4, 500))
    paired = prepare_paired(y, a, b, metric)
    assert paired.compressed and RP._reads_only(paired.metric)
    RR._MEMO.clear()
    plain = R.permutation_sums(paired, 400, 8, parallel=False)
    assert all(x.flags.writeable for x in plain)  # the public function's output stays the user's
    for _ in range(2):  # computed, then from the memo
        shared = RP._permutation_sums(paired, 400, 8, False, shared=True)
        assert all(_same_bits(s, p) for s, p in zip(shared, plain))
        assert not any(x.flags.writeable for x in shared)
    deltas = R.resampled_deltas(paired, 400, 8, scheme="permutation", parallel=False)
    assert _same_bits(deltas, paired.deltas(*plain))


def _acc_stats(y_true, y_pred, **params):
    return np.column_stack([np.asarray(y_true) == np.asarray(y_pred),
                            np.ones(len(y_true))]).astype(float)


def _in_place_acc_agg(sums, **params):
    sums[..., 1] += 0.0  # writes into its input: must get a writable array
    return sums[..., 0] / sums[..., 1]


def test_custom_aggregate_gets_writable_permutation_sums():
    from sigtest.metrics._registry import Metric, score_from_statistics

    stats, agg = _acc_stats, _in_place_acc_agg
    metric = Metric("in_place_acc", score_from_statistics(stats, agg), statistics=stats,
                    aggregate=agg, cellwise=True)
    assert not RP._reads_only(metric)
    rng = np.random.default_rng(2)
    y = rng.integers(0, 3, 200)
    a, b = rng.integers(0, 3, 200), rng.integers(0, 3, 200)
    paired = prepare_paired(y, a, b, metric)
    assert paired.compressed
    got = R.resampled_deltas(paired, 300, 1, scheme="permutation", parallel=False)
    want = paired.deltas(*R.permutation_sums(paired, 300, 1, parallel=False))
    assert _same_bits(got, want)


def test_metric_defined_through_exec_runs_the_permutation_test():
    # a notebook or runner exec()s the definitions in fresh globals: the
    # functions have __module__ None (crashed with None.startswith)
    from sigtest.metrics import register_metric, unregister_metric

    namespace = {"np": np}
    exec(inspect.getsource(_acc_stats) + inspect.getsource(_in_place_acc_agg), namespace)
    stats, agg = namespace["_acc_stats"], namespace["_in_place_acc_agg"]
    assert agg.__module__ is None
    metric = register_metric("exec_acc", statistics=stats, aggregate=agg, cellwise=True)
    try:
        assert not RP._reads_only(metric)
        rng = np.random.default_rng(5)
        y = rng.integers(0, 3, 300)
        a = np.where(rng.random(300) < 0.6, y, rng.integers(0, 3, 300))
        b = np.where(rng.random(300) < 0.7, y, rng.integers(0, 3, 300))
        test = PairedPermutation(n_resamples=499, random_state=3, exact=False)
        got = test.test(y, a, b, metric="exec_acc")
        want = test.test(y, a, b, metric="accuracy")  # the same statistics, built-in
        assert got.pvalue == want.pvalue and got.delta == want.delta
    finally:
        unregister_metric("exec_acc")


def test_builtin_aggregates_are_recognised_by_identity_not_module():
    from sigtest.metrics import get_metric
    from sigtest.metrics._registry import is_builtin_aggregate

    for name in ("accuracy", "f1_macro", "f1", "multilabel_f1_micro", "soft_f1_macro",
                 "po_jsd", "jsd", "entropy_correlation", "entropy_similarity"):
        assert RP._reads_only(get_metric(name)), name

    def impostor(sums, **params):  # a user function in a module named like sigtest's
        return sums[..., 0]

    impostor.__module__ = "sigtest.metrics._hard"
    assert not is_builtin_aggregate(impostor)
    assert not is_builtin_aggregate(None)


def _paired_fields_equal(p, q):
    assert p.score_a == q.score_a and p.score_b == q.score_b and p.n_samples == q.n_samples
    for name in ("stats_a", "stats_b", "counts"):
        np.testing.assert_array_equal(getattr(p, name), getattr(q, name))
    np.testing.assert_array_equal(p.params["labels"], q.params["labels"])


def test_cell_cache_gives_the_plain_cells_once_per_arrays(monkeypatch):
    from sigtest._engine import CellCache
    from sigtest._engine import cells as C

    rng = np.random.default_rng(4)
    y = rng.integers(0, 5, 600)
    a = np.where(rng.random(600) < 0.6, y, rng.integers(0, 5, 600))
    b = np.where(rng.random(600) < 0.7, y, rng.integers(0, 5, 600))
    metrics = ["accuracy", "f1_macro", "precision_macro", "recall_macro"]
    plain = [prepare_paired(y, a, b, m) for m in metrics]
    calls = []
    computed = C._cells_computed
    monkeypatch.setattr(C, "_cells_computed",
                        lambda *args: calls.append(args) or computed(*args))
    cache = CellCache()
    reused = [prepare_paired(y, a, b, m, cell_cache=cache) for m in metrics]
    # the same values in other objects: computed again, then reused
    a2 = a.copy()
    again = [prepare_paired(y, a2, b, m, cell_cache=cache) for m in metrics[:2]]
    assert len(calls) == 2  # one per distinct (y, a, b) objects
    assert calls[-1][3] is False  # no design: prepare_paired asks for no rows
    # the rows asked later: computed once more, then reused
    out1, out2 = C._cells(y, a2, b, True, cache=cache), C._cells(y, a2, b, True, cache=cache)
    assert len(calls) == 3 and len(out1) == 6
    assert all(x is z for x, z in zip(C._cells(y, a2, b, cache=cache), out1[:5]))
    assert len(calls) == 3
    for p, q in zip(plain, reused + again):
        _paired_fields_equal(p, q)
    # each call gets the same read-only arrays (equal to a new computation)
    assert all(x is z and not x.flags.writeable for x, z in zip(out1, out2))
    for x, z in zip(out1, computed(y, a2, b, True)):
        np.testing.assert_array_equal(x, z)
    with pytest.raises(ValueError, match="read-only"):
        out1[4][0] = 0.0
    # without a cache: no reuse, no state kept
    prepare_paired(y, a, b, "accuracy")
    assert len(calls) == 4
    for x, z in zip(C._cells(y, a, b, True), computed(y, a, b, True)):
        np.testing.assert_array_equal(x, z)
    # another cache (another task) shares nothing with the first
    prepare_paired(y, a2, b, "accuracy", cell_cache=CellCache())
    assert len(calls) == 6  # (the plain _cells call above was the 5th)


def test_cell_cache_computes_shared_statistics_once_per_cells():
    """Metrics of a pair with the same statistics function and params share one computation.

    Reference: prepare_paired without a cache (every field equal); a metric
    whose statistics warn is computed and warns on every call.
    """
    import warnings

    from sigtest._engine import CellCache
    from sigtest.metrics import get_metric, register_metric, unregister_metric

    rng = np.random.default_rng(5)
    y = rng.integers(0, 4, 500)
    a = np.where(rng.random(500) < 0.6, y, rng.integers(0, 4, 500))
    b = np.where(rng.random(500) < 0.7, y, rng.integers(0, 4, 500))
    prf = get_metric("f1_macro")
    calls = []

    def counted(y_true, y_pred, **params):
        calls.append(y_true.shape[0])
        return prf.statistics(y_true, y_pred, **params)

    def noisy(y_true, y_pred, **params):
        calls.append(-1)
        warnings.warn("noisy statistics", UserWarning)
        return prf.statistics(y_true, y_pred, **params)

    names = ["_counted_f1", "_counted_precision", "_noisy_f1"]
    register_metric(names[0], statistics=counted, aggregate=prf.aggregate, cellwise=True)
    register_metric(names[1], statistics=counted,
                    aggregate=get_metric("precision_macro").aggregate, cellwise=True)
    register_metric(names[2], statistics=noisy, aggregate=prf.aggregate, cellwise=True)
    try:
        metrics = [*names[:2], "f1_macro", "precision_weighted", "recall_macro", names[2],
                   names[2]]
        plain = [prepare_paired(y, a, b, m) for m in metrics]
        calls.clear()
        cache = CellCache()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            reused = [prepare_paired(y, a, b, m, cell_cache=cache) for m in metrics]
        for p, q in zip(plain, reused):
            _paired_fields_equal(p, q)
        # counted: one computation (A and B) for both metrics; noisy: every call
        assert calls.count(-1) == 4 and len(calls) - 4 == 2
        assert sum("noisy statistics" in str(w.message) for w in caught) == 4
        # other params (labels=), then other arrays: computed again
        other = prepare_paired(y, a, b, names[0], labels=[0, 1, 2, 3, 4], cell_cache=cache)
        assert len(calls) == 8
        _paired_fields_equal(other, prepare_paired(y, a, b, names[0], labels=[0, 1, 2, 3, 4]))
        del calls[8:]
        prepare_paired(y, a.copy(), b, names[1], cell_cache=cache)
        assert len(calls) == 10
        # the callers own their arrays: changing one does not change the next
        first = prepare_paired(y, a, b, names[0], cell_cache=cache)
        first.stats_a[:] = -1.0
        _paired_fields_equal(prepare_paired(y, a, b, names[1], cell_cache=cache), plain[1])
    finally:
        for name in names:
            unregister_metric(name)


def _lacks_cell_cache(metric):
    from sigtest._engine.inputs import metric_keywords

    accepted = metric_keywords(metric)
    return accepted is None or "cell_cache" not in accepted


def test_cell_cache_is_reserved_for_the_input_path():
    from sigtest._engine import CellCache, check_metric_params
    from sigtest.metrics import get_metric, register_metric, unregister_metric

    y, a, b = [0, 1, 1, 0], [0, 1, 0, 0], [0, 1, 1, 1]
    with pytest.raises(TypeError, match="cell_cache"):
        check_metric_params(get_metric("accuracy"), {"cell_cache": CellCache()}, caller="f")
    # even for a metric that accepts any keyword (or names it)
    any_kw = register_metric("_any_keyword", lambda y_true, y_pred, **kw: 0.0)
    named = register_metric("_names_cell_cache", lambda y_true, y_pred, cell_cache=None: 0.0)
    try:
        for metric in (any_kw, named):
            assert _lacks_cell_cache(metric)
            with pytest.raises(TypeError, match="reserved for the input path"):
                check_metric_params(metric, {"cell_cache": 1}, caller="f")
    finally:
        unregister_metric("_any_keyword")
        unregister_metric("_names_cell_cache")
    with pytest.raises(TypeError, match="cell_cache"):
        PairedPermutation(n_resamples=99, random_state=0).test(
            y, a, b, metric="accuracy", cell_cache=CellCache())
    with pytest.raises(TypeError, match="'cell_cache' parameter must be a CellCache"):
        prepare_paired(y, a, b, "accuracy", cell_cache={})


@pytest.mark.parametrize("metric", ["accuracy", "f1_macro", "precision_weighted", "f1"])
@pytest.mark.parametrize("case", ["plain", "weights", "groups", "strings", "many_cells"])
def test_item_rows_of_cellwise_metrics_computed_per_cell_equal_the_direct_rows(metric, case):
    """compress=False (and sample_weight) rows of a cellwise metric, built from its cells.

    Reference: the metric's own statistics called on every item (labels =
    the sorted union), times the weights, summed per cluster: the same
    arrays bit for bit; with more cells than a quarter of the items the
    rows are computed per item.
    """
    from sigtest.metrics import get_metric

    rng = np.random.default_rng(11)
    n, k = (40, 12) if case == "many_cells" else (400, 2 if metric == "f1" else 4)
    y = rng.integers(0, k, n)
    a = np.where(rng.random(n) < 0.6, y, rng.integers(0, k, n))
    b = np.where(rng.random(n) < 0.7, y, rng.integers(0, k, n))
    if case == "strings":
        y, a, b = (np.array(["c%d" % v for v in x]) for x in (y, a, b))
    kw = {}
    w = rng.random(n) if case == "weights" else None
    if w is not None:
        kw["sample_weight"] = w
    groups = rng.integers(0, 30, n) if case == "groups" else None
    if groups is not None:
        kw["groups"] = groups
    if metric == "f1":
        kw["pos_label"] = "c1" if case == "strings" else 1
    m = get_metric(metric)
    got = prepare_paired(y, a, b, m, compress=False, **kw)
    labels = np.unique(np.concatenate([y, a, b]))
    params = {**m.params(**({"pos_label": kw["pos_label"]} if "pos_label" in kw else {})),
              "labels": labels}
    want_a, want_b = (m.statistics(y, p, **params) for p in (a, b))
    if w is not None:
        want_a, want_b = want_a * w[:, None], want_b * w[:, None]
    if groups is not None:
        sums = [np.zeros((groups.max() + 1, want_a.shape[1])) for _ in range(2)]
        for i, g in enumerate(groups):
            sums[0][g] += want_a[i]
            sums[1][g] += want_b[i]
        want_a, want_b = (s[np.unique(groups)] for s in sums)
    np.testing.assert_array_equal(got.stats_a, want_a)
    np.testing.assert_array_equal(got.stats_b, want_b)
    np.testing.assert_array_equal(got.params["labels"], labels)
    assert got.counts is None or np.all(got.counts == 1)
    assert got.score_a == m.aggregate(want_a.sum(axis=0), **params)
