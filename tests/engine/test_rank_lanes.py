"""The lane kernel of the rank-metric bootstrap against the item kernel, bit for bit.

``sigtest._engine.rank_lanes`` computes several resamples per pass over the
sorted orders (one-byte counts side by side). Its scores must be the item
kernel's (``rank_metrics._item_bootstrap``: one resample's uint16 counts at a
time, the path before the lanes) exactly, for any number of lanes, block and
thread count; a resample whose one-byte counts wrap is recomputed by the
item kernel. The item kernel itself is checked against scikit-learn on the
same draws in ``tests/engine/test_rank_kernels.py``.
"""

import numba
import numpy as np
import pytest

from sigtest._engine import prepare_paired
from sigtest._engine import rank_lanes, rank_metrics
from sigtest._engine.rank_metrics import rank_bootstrap_scores, ranked_pair
from sigtest._engine.rng import resample_keys

B = 45  # not a multiple of the lanes: the last pass has idle lanes


@pytest.fixture(autouse=True)
def lanes_only(monkeypatch):
    """The lane kernel, not the tie-group kernel (tests/engine/test_rank_group_sums.py)."""
    monkeypatch.setattr(rank_metrics, "_GROUP_SUMS", False)


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(11)
    n = 90
    y = rng.integers(0, 3, n)
    a = np.round(rng.normal(size=n) + (y > 0), 1)  # ties within and across systems
    b = np.round(rng.normal(size=n) + 2 * (y > 0), 1)
    pa = rng.dirichlet(np.ones(3), n)
    pb = 0.6 * pa + 0.4 * np.eye(3)[y]
    return y, a, b, pa, pb, rng.integers(0, 3, n)


def _paired(data, name, strata):
    y, a, b, pa, pb, st = data
    if name.startswith("roc_auc_"):
        return prepare_paired(y, pa, pb, name, strata=st if strata else None)
    if name.startswith("average_precision_"):  # multiclass one-vs-rest: K components, or one
        average = "micro" if name.endswith("micro") else "macro"
        return prepare_paired(y, pa, pb, "average_precision", average=average,
                              strata=st if strata else None)
    return prepare_paired((y > 0).astype(int), a, b, name, strata=st if strata else None)


def _item_kernel(monkeypatch, paired, sample_size, seed, parallel=False):
    with monkeypatch.context() as m:
        m.setattr(rank_metrics, "_LANE_MAX_DRAWS", -1)  # never the lanes
        return rank_bootstrap_scores(paired, B, sample_size, seed, parallel=parallel)


@pytest.mark.parametrize("name", ["roc_auc", "average_precision", "roc_auc_ovr_weighted",
                                  "roc_auc_ovo", "average_precision_ovr",
                                  "average_precision_micro"])
@pytest.mark.parametrize("strata", [False, True])
@pytest.mark.parametrize("sample_size", [None, 0.5])
def test_lane_scores_equal_the_item_kernel_for_any_lanes(monkeypatch, data, name, strata,
                                                         sample_size):
    paired = _paired(data, name, strata)
    ref = _item_kernel(monkeypatch, paired, sample_size, seed=5)
    assert np.isfinite(ref).sum() > B  # mostly defined: the comparison has teeth
    for lanes in (1, 2, 4, 8):  # 4 and 8: the sums in registers
        monkeypatch.setattr(rank_metrics, "lanes_for", lambda n, lanes=lanes: lanes)
        got = rank_bootstrap_scores(paired, B, sample_size, 5, parallel=False)
        assert np.array_equal(got, ref, equal_nan=True), lanes


@pytest.mark.parametrize("name", ["roc_auc", "average_precision"])
def test_lane_scores_equal_the_item_kernel_without_ties(monkeypatch, name):
    rng = np.random.default_rng(4)
    y = rng.integers(0, 2, 80)
    a, b = rng.normal(size=80) + y, rng.normal(size=80) + 2 * y  # continuous: no ties
    paired = prepare_paired(y, a, b, name)
    ref = _item_kernel(monkeypatch, paired, None, seed=3)
    for lanes in (1, 2, 4, 8):
        monkeypatch.setattr(rank_metrics, "lanes_for", lambda n, lanes=lanes: lanes)
        got = rank_bootstrap_scores(paired, B, None, 3, parallel=False)
        assert np.array_equal(got, ref, equal_nan=True), lanes


def test_wrapped_one_byte_counts_are_recomputed_wide(monkeypatch):
    # 6 items drawn 3000 times: every count is ~500, far above a byte
    y = np.array([0, 1, 0, 1, 1, 0])
    a = np.array([0.1, 0.9, 0.4, 0.35, 0.8, 0.7])
    b = np.array([0.2, 0.6, 0.1, 0.7, 0.9, 0.3])
    paired = prepare_paired(y, a, b, "roc_auc")
    rp = ranked_pair(paired)
    units, starts, draws = rank_metrics._strata_layout(rp, 3000)
    _, wrapped = rank_lanes.lane_bootstrap(
        4, resample_keys(2, B), rp.kind, rp.items, rp.positive_weight, rp.ties, rp.starts,
        rp.unit, rp.weighting, rp.n_units, units, starts, draws, True, rp.n_items)
    assert wrapped.all()
    ref = _item_kernel(monkeypatch, paired, 3000, seed=2)
    monkeypatch.setattr(rank_metrics, "_LANE_MAX_DRAWS", 10**6)  # lanes despite the load
    got = rank_bootstrap_scores(paired, B, 3000, 2, parallel=False)
    assert np.array_equal(got, ref)
    assert np.isfinite(ref).all() and np.unique(ref[:, 0]).size > 5


def test_lane_scores_do_not_depend_on_threads_or_blocks(monkeypatch, data):
    paired = _paired(data, "average_precision", False)
    ref = _item_kernel(monkeypatch, paired, None, seed=1)
    n_big = 300  # several parallel blocks of 64 resamples
    with monkeypatch.context() as m:
        m.setattr(rank_metrics, "_LANE_MAX_DRAWS", -1)
        item = rank_bootstrap_scores(paired, n_big, seed=1, parallel=False)
    assert np.array_equal(item[:B], ref)
    before = numba.get_num_threads()
    try:
        for t in sorted({1, numba.config.NUMBA_NUM_THREADS}):
            numba.set_num_threads(t)
            got = rank_bootstrap_scores(paired, n_big, seed=1, parallel=True)
            assert np.array_equal(got, item, equal_nan=True), t
    finally:
        numba.set_num_threads(before)


def test_lanes_fill_the_count_block_with_a_power_of_two():
    assert rank_lanes.lanes_for(10_000) == 8
    assert rank_lanes.lanes_for(100_000) == 4
    assert rank_lanes.lanes_for(1_000_000) == 1
    for n in (1, 3, 70_000, 300_000, 10**7):
        lanes = rank_lanes.lanes_for(n)
        assert lanes & (lanes - 1) == 0 and 1 <= lanes <= rank_lanes.MAX_LANES
        assert lanes == 1 or lanes * n <= rank_lanes.LANE_BYTES
