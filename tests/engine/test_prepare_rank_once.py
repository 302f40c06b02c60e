"""``prepare_paired(rank_once=True)``: each system sorted once, the scores unchanged.

The observed scores computed from the kept rankings must equal, bit for bit,
what the metric's ``score_func`` returns, for every ranking metric; weighted
or undefined data keep the default path. The default path of a built-in
ranking metric keeps the rankings its ``score_func`` sorts, too.
"""

import warnings

import numpy as np
import pytest

from sigtest._engine import prepare_paired
from sigtest.exceptions import UndefinedMetricWarning


def _binary(seed):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, 300)
    return y, np.round(rng.normal(size=300) + y, 1), rng.normal(size=300) * 3 + y


def _proba(seed):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, 300)
    a = rng.dirichlet(np.ones(3), 300)
    b = np.round(rng.dirichlet(np.ones(3), 300), 2)
    return y, a, b / b.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("metric, make", [
    ("roc_auc", _binary), ("average_precision", _binary), ("roc_auc_ovr", _proba),
    ("roc_auc_ovo_weighted", _proba), ("roc_auc_ovr_weighted", _proba)])
@pytest.mark.parametrize("seed", range(3))
def test_scores_from_the_kept_rankings_equal_the_metric_bit_for_bit(metric, make, seed):
    y, a, b = make(seed)
    plain = prepare_paired(y, a, b, metric)
    once = prepare_paired(y, a, b, metric, rank_once=True)
    assert len(plain.rankings) == 2 and len(once.rankings) == 2
    func = plain.metric.score_func
    assert (plain.score_a, plain.score_b) == (func(y, a, **plain.params),
                                              func(y, b, **plain.params))
    assert (once.score_a, once.score_b) == (plain.score_a, plain.score_b)
    ranking = plain.metric.ranking
    for kept in (plain.rankings[1], once.rankings[1]):
        np.testing.assert_array_equal(kept.items, ranking(y, b, **plain.params).items)


def test_weighted_and_undefined_data_are_scored_by_the_metric():
    y, a, b = _binary(0)
    w = np.full(300, 2.0)
    weighted = prepare_paired(y, a, b, "roc_auc", sample_weight=w, rank_once=True)
    # the score function's own body (which keeps its ranking), not DeLong's pass
    func = weighted.metric.score_func
    assert weighted.score_a == func(y, a, sample_weight=w)
    np.testing.assert_array_equal(weighted.rankings[0].values,
                                  weighted.metric.ranking(y, a).values)
    with pytest.warns(UndefinedMetricWarning):  # the metric's own warning
        one_class = prepare_paired(np.ones(300, dtype=int), a, b, "roc_auc",
                                   labels=[0, 1], rank_once=True)
    assert np.isnan(one_class.score_a)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        hard = prepare_paired(y, y, 1 - y, "accuracy", rank_once=True)  # no ranking
    assert hard.rankings is None
