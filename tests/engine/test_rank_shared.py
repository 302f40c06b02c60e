"""Rank metrics of many systems on shared resamples (``sigtest._engine.rank_shared``).

Each system is sorted once and a resample is its units' counts; the naive twin
is scikit-learn's function on the drawn items (the resample as data), on the
same draws (``shared_draws``): equal to 1e-12, with sample weights, clusters,
strata, multiclass averages and an odd number of systems. The blocks in which
the draws are made do not change a bit.
"""

import warnings

import numpy as np
import pytest
from sklearn import metrics as skm

from sigtest._engine import prepare_paired
from sigtest._engine.rank_shared import rank_shared_scores, uses_shared_ranking
from sigtest._engine.shared import shared_draw_blocks, shared_draws

B = 37  # not a multiple of the blocks tried


def _sk(name, y, s, w):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if name == "roc_auc":
            return skm.roc_auc_score(y, s, sample_weight=w)
        if name == "roc_auc_ovr":
            return skm.roc_auc_score(y, s, multi_class="ovr", sample_weight=w)
        if name == "average_precision":
            return skm.average_precision_score(y, s, sample_weight=w)
        return skm.average_precision_score(y, s, average="weighted", sample_weight=w)


def _systems(name, n, k, rng):
    K = 2 if name in ("roc_auc", "average_precision") else 3
    y = rng.integers(0, K, n)
    y[:K] = np.arange(K)
    out = []
    for j in range(k):
        if K == 2:
            out.append(np.round(rng.normal(size=n) + (0.3 + 0.2 * j) * y, 1))  # ties
        else:
            z = np.round(rng.normal(size=(n, K)), 1)
            z[np.arange(n), y] += 0.5 + 0.2 * j
            p = np.exp(z)
            out.append(p / p.sum(axis=1, keepdims=True))
    return y, out


@pytest.mark.parametrize("name", ["roc_auc", "average_precision", "roc_auc_ovr",
                                  "average_precision_weighted"])
@pytest.mark.parametrize("design", ["items", "weights", "clusters", "strata"])
def test_shared_scores_equal_sklearn_on_the_drawn_items(name, design):
    rng = np.random.default_rng(3)
    n, k = 90, 3  # odd: the last system is paired with itself
    y, systems = _systems(name, n, k, rng)
    w = rng.integers(1, 4, n).astype(float) if design == "weights" else None
    groups = np.arange(n) // 3 if design == "clusters" else None
    strata = rng.integers(0, 3, n) if design == "strata" else None
    metric = "average_precision" if name.startswith("average_precision") else name
    kw = {"average": "weighted"} if name == "average_precision_weighted" else {}
    data = [prepare_paired(y, s, s, metric, sample_weight=w, groups=groups, strata=strata,
                           **kw) for s in systems]
    assert uses_shared_ranking(data)
    U = n if groups is None else n // 3
    scores = rank_shared_scores(data, B, seed=11, unit_of_item=groups, n_units=U,
                                unit_strata=strata)
    draws = shared_draws(U, B, 11, strata)
    members = None if groups is None else [np.flatnonzero(groups == g) for g in range(U)]
    for b in range(B):
        idx = draws[b] if members is None else np.concatenate([members[u] for u in draws[b]])
        for j, s in enumerate(systems):
            ref = _sk(name, y[idx], s[idx], None if w is None else w[idx])
            got = scores[b, j]
            assert (np.isnan(ref) and np.isnan(got)) or abs(got - ref) <= 1e-12, (b, j)
    # the blocks of draws do not change a bit
    again = rank_shared_scores(data, B, seed=11, unit_of_item=groups, n_units=U,
                               unit_strata=strata, block=5)
    assert np.array_equal(again, scores, equal_nan=True)


def test_draw_blocks_are_the_rows_of_shared_draws():
    strata = np.random.default_rng(0).integers(0, 4, 50)
    for st in (None, strata):
        whole = shared_draws(50, 23, 5, st)
        parts = list(shared_draw_blocks(50, 23, 5, st, block=4))
        assert [s for s, _ in parts] == list(range(0, 23, 4))
        assert np.array_equal(np.concatenate([d for _, d in parts]), whole)


def test_metrics_with_statistics_do_not_take_the_rank_path():
    y = np.array([0, 1, 1, 0, 1])
    data = [prepare_paired(y, y, y, "accuracy")]
    assert not uses_shared_ranking(data)
    assert not uses_shared_ranking([])
