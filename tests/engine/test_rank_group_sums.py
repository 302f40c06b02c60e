"""The tie-group kernel of the rank-metric bootstrap against the item kernel, bit for bit.

``sigtest._engine.rank_group_sums`` sums each resample's one-byte counts per
tie group (positives and negatives apart, eight resamples per pass) and does
the floating-point work per group. Its scores must be those of the item
kernel (``rank_metrics._item_bootstrap``, one resample's weights at a time;
itself checked against scikit-learn in ``tests/engine/test_rank_kernels.py``)
and of the lane kernel exactly, with ties, strata, several components,
sample sizes, wrapped counts and any thread count; clusters and sample
weights keep the item kernel.
"""

import numba
import numpy as np
import pytest

from sigtest._engine import prepare_paired
from sigtest._engine import rank_group_sums, rank_metrics
from sigtest._engine.rank_metrics import rank_bootstrap_scores, ranked_pair
from sigtest._engine.rng import resample_keys

B = 45  # not a multiple of eight: the last pass has idle lanes


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(21)
    n = 120
    y = rng.integers(0, 3, n)
    a = np.round(rng.normal(size=n) + (y > 0), 1)  # ties within and across systems
    b = np.round(rng.normal(size=n) + 2 * (y > 0), 1)
    pa = rng.multinomial(8, np.ones(3) / 3, size=n) / 8.0  # tied class scores, sums of 1
    pb = 0.6 * pa + 0.4 * np.eye(3)[y]
    return y, a, b, pa, pb, rng.integers(0, 3, n)


def _paired(data, name, strata=False, **kwargs):
    y, a, b, pa, pb, st = data
    st = st if strata else None
    if name.startswith("roc_auc_"):
        return prepare_paired(y, pa, pb, name, strata=st, **kwargs)
    if name.startswith("average_precision_"):  # multiclass one-vs-rest: K components, or one
        average = "micro" if name.endswith("micro") else "macro"
        return prepare_paired(y, pa, pb, "average_precision", strata=st, average=average,
                              **kwargs)
    return prepare_paired((y > 0).astype(int), a, b, name, strata=st, **kwargs)


def _scores(monkeypatch, paired, path, n=B, sample_size=None, seed=5, parallel=False):
    """Scores by ``path``: "groups" (forced), "lanes" or "items"."""
    with monkeypatch.context() as m:
        if path == "groups":
            m.setattr(rank_metrics, "prefers_groups", lambda *args: True)
        else:
            m.setattr(rank_metrics, "_GROUP_SUMS", False)
        if path == "items":
            m.setattr(rank_metrics, "_LANE_MAX_DRAWS", -1)
        return rank_bootstrap_scores(paired, n, sample_size, seed, parallel=parallel)


def _naive_value(kind, values, items, positive, q):
    """The metric of one sorted component under item weights ``q``, by definition."""
    s, w, p = values, q[items], positive.astype(bool)
    P, N0 = w[p].sum(), w[~p].sum()
    if kind == 0:  # pairs (positive, negative) with ties one half
        num = sum(wi * (w[~p] * ((si > s[~p]) + 0.5 * (si == s[~p]))).sum()
                  for si, wi in zip(s[p], w[p]))
        return num / (P * N0) if P * N0 > 0 else np.nan
    ap = 0.0  # step-wise: recall steps at each distinct threshold times the precision there
    for t in np.unique(s)[::-1]:
        at = s == t
        if w[at & p].sum() > 0:
            ap += w[at & p].sum() / P * w[(s >= t) & p].sum() / w[s >= t].sum()
    return ap if P > 0 else 0.0


def _group_values(rp, layout, counts):
    """Both systems' values from the group kernel, the lanes' one-byte counts packed in a word."""
    word = np.zeros(counts.shape[1], dtype=np.uint64)
    for r in range(rank_group_sums.LANES):
        word |= counts[r].astype(np.uint64) << np.uint64(8 * r)
    out = []
    for s in range(2):
        vals = np.zeros(rank_group_sums.LANES)
        rank_group_sums._values_groups(
            rp.kind, layout.items[s], layout.bounds[s], layout.comp_groups[s], rp.unit,
            rp.weighting, word, np.zeros((3, 8)), np.zeros((3, rp.n_units, 8)), vals)
        out.append(vals)
    return out


@pytest.mark.parametrize("name", ["roc_auc", "average_precision"])
def test_group_pass_equals_the_item_pass_and_the_definition_on_any_counts(data, name):
    paired = _paired(data, name)
    rp = ranked_pair(paired)
    layout = rank_group_sums.group_layout(rp)
    rng = np.random.default_rng(3)
    counts = rng.integers(0, 4, (rank_group_sums.LANES, rp.n_items)).astype(np.uint8)
    counts[3] = 0  # an empty resample
    counts[4, rp.positive[0, rp.items[0]] == 0] = 0  # one without negatives
    for s, vals in enumerate(_group_values(rp, layout, counts)):
        for r in range(rank_group_sums.LANES):
            q = counts[r].astype(np.float64)
            ref = rp.value(s, q)
            assert np.array_equal(vals[r], ref, equal_nan=True), (s, r)
            naive = _naive_value(rp.kind, rp.values[s], rp.items[s], rp.positive[s], q)
            assert np.allclose(vals[r], naive, rtol=1e-12, equal_nan=True), (s, r)
        assert np.isnan(vals[3]) if rp.kind == 0 else vals[3] == 0.0


@pytest.mark.parametrize("name", ["roc_auc", "average_precision", "roc_auc_ovr_weighted",
                                  "roc_auc_ovo", "average_precision_ovr",
                                  "average_precision_micro"])
@pytest.mark.parametrize("strata", [False, True])
@pytest.mark.parametrize("sample_size", [None, 0.5])
def test_group_scores_equal_the_item_and_lane_kernels(monkeypatch, data, name, strata,
                                                      sample_size):
    paired = _paired(data, name, strata)
    ref = _scores(monkeypatch, paired, "items", sample_size=sample_size)
    assert np.isfinite(ref).sum() > B  # mostly defined: the comparison has teeth
    assert np.unique(ref[:, 1]).size > 10
    got = _scores(monkeypatch, paired, "groups", sample_size=sample_size)
    assert np.array_equal(got, ref, equal_nan=True)
    lanes = _scores(monkeypatch, paired, "lanes", sample_size=sample_size)
    assert np.array_equal(lanes, ref, equal_nan=True)


@pytest.mark.parametrize("name", ["roc_auc", "average_precision"])
def test_group_scores_without_ties_and_with_one_tie_group(monkeypatch, name):
    rng = np.random.default_rng(4)
    y = rng.integers(0, 2, 80)
    for a, b in [(rng.normal(size=80) + y, rng.normal(size=80) + 2 * y),  # no ties
                 (np.zeros(80), np.round(rng.random(80) + y, 0))]:  # one group; two
        paired = prepare_paired(y, a, b, name)
        ref = _scores(monkeypatch, paired, "items", seed=3)
        got = _scores(monkeypatch, paired, "groups", seed=3)
        assert np.array_equal(got, ref, equal_nan=True)


def test_merged_groups_keep_mixed_groups_and_component_starts():
    # groups: +, +, -, mixed, -, - | (component 2) -, +
    gid = np.array([0, 1, 2, 3, 3, 4, 5, 6, 7])
    positive = np.array([1, 1, 0, 1, 0, 0, 0, 0, 1], dtype=bool)
    comp = np.array([0, 6, 8])
    new, new_comp = rank_group_sums._merged_groups(gid, positive, comp, 0)
    assert new.tolist() == [0, 0, 1, 2, 2, 3, 3, 4, 5]  # AUC: runs of one label merge
    assert new_comp.tolist() == [0, 4, 6]
    new, new_comp = rank_group_sums._merged_groups(gid, positive, comp, 1)
    assert new.tolist() == [0, 1, 2, 3, 3, 4, 4, 5, 6]  # AP: only runs of negatives
    assert new_comp.tolist() == [0, 5, 7]


def test_wrapped_one_byte_counts_are_recomputed_wide(monkeypatch):
    y = np.array([0, 1, 0, 1, 1, 0])  # 6 items drawn 3000 times: counts ~500
    a = np.array([0.1, 0.9, 0.4, 0.35, 0.8, 0.7])
    b = np.array([0.2, 0.6, 0.1, 0.7, 0.7, 0.3])
    paired = prepare_paired(y, a, b, "roc_auc")
    rp = ranked_pair(paired)
    units, starts, draws = rank_metrics._strata_layout(rp, 3000)
    _, wrapped = rank_group_sums.group_bootstrap(
        rank_group_sums.group_layout(rp), resample_keys(2, B), rp.kind, rp.unit,
        rp.weighting, rp.n_units, units, starts, draws, True, rp.n_items)
    assert wrapped.all()
    ref = _scores(monkeypatch, paired, "items", sample_size=3000, seed=2)
    monkeypatch.setattr(rank_metrics, "_LANE_MAX_DRAWS", 10**6)  # one-byte counts regardless
    got = _scores(monkeypatch, paired, "groups", sample_size=3000, seed=2)
    assert np.array_equal(got, ref)
    assert np.isfinite(ref).all() and np.unique(ref[:, 0]).size > 5


def test_group_scores_do_not_depend_on_threads(monkeypatch, data):
    paired = _paired(data, "roc_auc")
    n_big = 300  # several parallel blocks
    ref = _scores(monkeypatch, paired, "items", n=n_big, seed=1)
    before = numba.get_num_threads()
    try:
        for t in sorted({1, numba.config.NUMBA_NUM_THREADS}):
            numba.set_num_threads(t)
            got = _scores(monkeypatch, paired, "groups", n=n_big, seed=1, parallel=True)
            assert np.array_equal(got, ref, equal_nan=True), t
    finally:
        numba.set_num_threads(before)


@pytest.mark.parametrize("kwargs", [{"groups": np.arange(120) // 3},
                                    {"sample_weight": np.linspace(0.5, 2.0, 120)}])
def test_clusters_and_weights_keep_the_item_kernel(monkeypatch, data, kwargs):
    paired = _paired(data, "roc_auc", **kwargs)

    def refuse(*args, **kw):
        raise AssertionError("the group kernel takes plain counts only")

    monkeypatch.setattr(rank_metrics, "group_bootstrap", refuse)
    monkeypatch.setattr(rank_metrics, "prefers_groups", lambda *args: True)
    got = rank_bootstrap_scores(paired, B, None, 5, parallel=False)
    assert np.isfinite(got).all()


def test_the_group_kernel_is_chosen_up_to_its_memory_bound():
    assert rank_group_sums.prefers_groups(10_000)
    assert rank_group_sums.prefers_groups(rank_group_sums.MAX_ITEMS)
    big = rank_group_sums.MAX_ITEMS + 1  # 16 bytes per item and thread: too many
    assert not rank_group_sums.prefers_groups(big)


@pytest.mark.parametrize("name", ["roc_auc", "average_precision"])
def test_groups_longer_than_a_flush_and_wide_counts(monkeypatch, name):
    """Tie groups with more than 256 positives and negatives (the 16-bit fields are
    unpacked mid-range) and counts up to 255, against the item kernel and a naive twin."""
    rng = np.random.default_rng(8)
    n = 1500
    y = rng.integers(0, 2, n)
    a = np.where(rng.random(n) < 0.6, 0.0, rng.normal(size=n) + y)  # one group of ~900
    b = np.round(rng.normal(size=n) + y, 1)
    paired = prepare_paired(y, a, b, name)
    ref = _scores(monkeypatch, paired, "items", n=20, seed=9)
    assert np.array_equal(_scores(monkeypatch, paired, "groups", n=20, seed=9), ref)
    rp = ranked_pair(paired)
    layout = rank_group_sums.group_layout(rp)
    counts = rng.integers(0, 256, (rank_group_sums.LANES, n)).astype(np.uint8)
    for s, vals in enumerate(_group_values(rp, layout, counts)):
        for r in range(rank_group_sums.LANES):
            q = counts[r].astype(np.float64)
            assert vals[r] == rp.value(s, q), (s, r)
            naive = _naive_value(rp.kind, rp.values[s], rp.items[s], rp.positive[s], q)
            assert np.isclose(vals[r], naive, rtol=1e-12), (s, r)


def test_the_default_path_takes_the_group_kernel_above_the_lanes(monkeypatch):
    rng = np.random.default_rng(1)
    n = 70_000  # the lane kernel would run four lanes
    y = rng.integers(0, 2, n)
    paired = prepare_paired(y, rng.normal(size=n) + y, rng.normal(size=n), "roc_auc")
    calls = []
    real = rank_metrics.group_bootstrap

    def spy(*args, **kwargs):
        calls.append(args[1].shape[0])
        return real(*args, **kwargs)

    monkeypatch.setattr(rank_metrics, "group_bootstrap", spy)
    got = rank_bootstrap_scores(paired, 10, None, 7, parallel=False)
    assert calls == [10]
    monkeypatch.setattr(rank_metrics, "_GROUP_SUMS", False)
    assert np.array_equal(got, rank_bootstrap_scores(paired, 10, None, 7, parallel=False))
