"""The one-pass placement kernel of DeLong's test against its NumPy twin, bit for bit.

The twin is the tie-group sums of ``rank_metrics.auc_placements`` with the
metric's own ``ranked_value``; both are exact with unit weights, so the
kernel (jitted and as plain Python) must return the same bits.
"""

import numpy as np
import pytest

from sigtest._engine.delong import _placements_py, placements, ranking_score
from sigtest._engine.rank_metrics import auc_placements
from sigtest.metrics import get_metric
from sigtest.metrics._ranking import ranked_value, roc_auc_score


def _scores(kind, rng, n):
    y = rng.integers(0, 2, n)
    if kind == "ties":
        return y, np.round(rng.normal(size=n) + y, 1)
    if kind == "few values":
        return y, rng.integers(0, 3, n).astype(float)
    if kind == "constant":
        return y, np.full(n, 0.5)
    return y, rng.normal(size=n) + y  # continuous


@pytest.mark.parametrize("kind", ["ties", "few values", "constant", "continuous"])
@pytest.mark.parametrize("seed", range(3))
def test_kernel_equals_the_numpy_twin_bit_for_bit(kind, seed):
    rng = np.random.default_rng(seed)
    y, s = _scores(kind, rng, 500 + 37 * seed)
    ranked = get_metric("roc_auc").ranking(y, s)
    v10, v01 = auc_placements(ranked)
    twin = np.where(np.isnan(v10), v01, v10)
    place, is_positive, auc = placements(ranked)
    np.testing.assert_array_equal(place, twin)
    np.testing.assert_array_equal(is_positive, y == 1)
    assert auc == ranked_value(ranked) == roc_auc_score(y, s) == ranking_score(ranked)
    py_place, py_pos, py_auc = _placements_py(ranked.values, ranked.items, ranked.positive,
                                              ranked.n_items)
    np.testing.assert_array_equal(py_place, place)
    assert py_auc == auc and np.array_equal(py_pos.astype(bool), is_positive)


def test_other_rankings_are_scored_by_the_metric():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 200)
    p = rng.dirichlet(np.ones(3), 200)
    metric = get_metric("roc_auc_ovr")
    ranked = metric.ranking(y, p, **metric.params())
    assert ranking_score(ranked) == ranked_value(ranked)
    with pytest.raises(ValueError, match="one component"):
        placements(ranked)
