"""A rank metric sorts each system once per call: ``score()`` and the permutation test.

The input path keeps the rankings that the metric's ``score_func`` sorts
(``paired.rankings``); the bootstrap, the jackknife and the permutation
reuse them instead of sorting again. The results must be the same bits as
the path that sorts afresh: data with the kept rankings dropped
(``rankings=None``, what every step sorted before), and the public
functions called separately.
"""

import dataclasses

import numpy as np
import pytest

import sigtest
from sigtest._engine import prepare_paired
from sigtest._engine.rank_metrics import rank_bootstrap_scores
from sigtest._engine.rank_shared import rank_shared_scores
from sigtest._engine.resampling import jackknife_values
from sigtest.metrics import _ranking
from sigtest.tests_._score import score_paired


def _binary(n=240, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    # rounded: ties within a system
    return y, np.round(rng.normal(size=n) + y, 1), rng.normal(size=n) + 0.5 * y


def _proba(n=240, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    z = rng.normal(size=(n, 3))
    z[np.arange(n), y] += 1.0
    p = np.exp(z)
    return y, p / p.sum(axis=1, keepdims=True), rng.dirichlet(np.ones(3), n)


CASES = [("roc_auc", _binary), ("average_precision", _binary), ("roc_auc_ovr", _proba),
         ("roc_auc_ovo_weighted", _proba), ("average_precision", _proba)]
DESIGNS = {"items": {}, "weights": {"sample_weight": np.linspace(0.5, 2.0, 240)},
           "clusters": {"groups": np.arange(240) // 4}}


@pytest.fixture
def sorts(monkeypatch):
    """Number of rankings built (one sort of a system's scores each)."""
    count = {"n": 0}
    build = _ranking.ranked_scores

    def counted(*args, **kwargs):
        count["n"] += 1
        return build(*args, **kwargs)

    monkeypatch.setattr(_ranking, "ranked_scores", counted)
    return count


def _design(metric, design):
    if metric == "roc_auc_ovo_weighted" and design == "weights":
        pytest.skip("scikit-learn refuses sample_weight for one-vs-one")
    return DESIGNS[design]


def _resorted(paired):
    """``paired`` without its kept rankings: every step sorts again (the path before)."""
    return dataclasses.replace(paired, rankings=None)


@pytest.mark.parametrize("metric, make", CASES)
@pytest.mark.parametrize("design", sorted(DESIGNS))
def test_score_sorts_once_and_keeps_the_bits(metric, make, design, sorts):
    kw = _design(metric, design)
    y, s, _ = make()
    sorts["n"] = 0
    res = sigtest.score(y, s, metric, n_resamples=300, random_state=3, **kw)
    assert sorts["n"] == 1  # was 5 (AUC) or 6: observed value, bootstrap (x2), jackknife
    # the path that sorts at every step
    paired = prepare_paired(y, s, s, metric, **kw)
    old = _resorted(paired)
    ref = score_paired(old, n_resamples=300, seed=res.seed)
    assert res.estimate == ref.estimate == paired.metric.score_func(
        y, s, **({"sample_weight": kw["sample_weight"]} if "sample_weight" in kw else {}),
        **paired.params)
    np.testing.assert_array_equal(res.bootstrap_distribution, ref.bootstrap_distribution)
    np.testing.assert_array_equal(
        res.bootstrap_distribution, rank_bootstrap_scores(_resorted(paired), 300, seed=res.seed)[:, 0])
    assert res.acceleration == ref.acceleration
    assert tuple(res.confidence_interval) == tuple(ref.confidence_interval)
    # the jackknife on the kept rankings: the same values as sorted afresh
    for kept, fresh in zip(jackknife_values(paired), jackknife_values(_resorted(paired))):
        np.testing.assert_array_equal(kept, fresh)


@pytest.mark.parametrize("metric, make", CASES)
@pytest.mark.parametrize("design", ["items", "clusters"])
def test_permutation_sorts_each_system_once_and_keeps_the_bits(metric, make, design, sorts):
    kw = _design(metric, design)
    y, a, b = make()
    test = sigtest.PairedPermutation(n_resamples=500, random_state=1)
    sorts["n"] = 0
    res = test.test(y, a, b, metric=metric, **kw)
    assert sorts["n"] == 2  # was 4: observed scores and the permutation's orders
    old = _resorted(prepare_paired(y, a, b, metric, **kw))
    ref = test.test_paired(old)
    func = old.metric.score_func
    assert (res.score_a, res.score_b) == (func(y, a, **old.params), func(y, b, **old.params))
    assert (res.pvalue, res.statistic) == (ref.pvalue, ref.statistic)
    np.testing.assert_array_equal(res.null_distribution, ref.null_distribution)


def test_a_users_ranking_metric_keeps_its_own_score_function(sorts):
    """Only the built-in score functions give their ranking: a user's is called as before."""
    calls = []

    def auc(y_true, y_score, **kw):
        calls.append(1)
        return _ranking.roc_auc_score(y_true, y_score, **kw)

    metric = sigtest.metrics.Metric("my_auc", auc, ranking=_ranking.roc_auc_ranking,
                                    input_type="labels_proba")
    y, s, _ = _binary()
    paired = prepare_paired(y, s, s, metric)
    assert paired.rankings is None and len(calls) == 1
    assert _ranking.value_and_ranking(metric) is None
    assert _ranking.value_and_ranking(sigtest.metrics.get_metric("accuracy")) is None
    res = sigtest.score(y, s, metric, n_resamples=200, random_state=0)
    ref = sigtest.score(y, s, "roc_auc", n_resamples=200, random_state=0)
    assert res.estimate == ref.estimate
    np.testing.assert_array_equal(res.bootstrap_distribution, ref.bootstrap_distribution)


@pytest.mark.parametrize("metric, make", CASES)
def test_shared_resamples_reuse_the_kept_rankings(metric, make, sorts):
    """``ComparisonResult.ranks``' shared resamples: no system sorted again."""
    y, a, b = make()
    data = [prepare_paired(y, s, s, metric) for s in (a, b, a)]
    sorts["n"] = 0
    got = rank_shared_scores(data, 200, 5)
    assert sorts["n"] == 0  # was one per system
    np.testing.assert_array_equal(got, rank_shared_scores([_resorted(p) for p in data], 200, 5))
