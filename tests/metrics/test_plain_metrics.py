"""Metrics registered from a plain callable (issue 8, section 2): only accepted keywords."""

import pickle

import numpy as np
import pytest
from sklearn.metrics import matthews_corrcoef

from sigtest import PairedPermutation
from sigtest.metrics import Metric, get_metric, register_metric, unregister_metric
from sigtest.metrics._registry import PlainScore


@pytest.fixture
def mcc():
    register_metric("t_mcc_plain", matthews_corrcoef)
    yield get_metric("t_mcc_plain")
    unregister_metric("t_mcc_plain")


def _data(n=120, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    a = np.where(rng.random(n) < 0.6, y, rng.integers(0, 3, n))
    b = np.where(rng.random(n) < 0.8, y, rng.integers(0, 3, n))
    return y, a, b


def test_single_test_with_a_registered_sklearn_function(mcc):
    y, a, b = _data()
    res = PairedPermutation(n_resamples=99, random_state=0).test(y, a, b, metric=mcc.name)
    assert res.score_a == pytest.approx(matthews_corrcoef(y, a), abs=1e-12)
    assert res.score_b == pytest.approx(matthews_corrcoef(y, b), abs=1e-12)
    assert 0 < res.pvalue <= 1
    # sample_weight is accepted by matthews_corrcoef and passed on
    w = np.linspace(0.5, 1.5, len(y))
    res_w = PairedPermutation(n_resamples=19, random_state=0).test(
        y, a, b, metric=mcc.name, sample_weight=w)
    assert res_w.score_a == pytest.approx(matthews_corrcoef(y, a, sample_weight=w), abs=1e-12)


def test_keywords_the_user_gives_that_the_function_cannot_take_are_errors(mcc):
    y, a, b = _data()
    with pytest.raises(TypeError, match="labels"):
        PairedPermutation(n_resamples=19).test(y, a, b, metric=mcc.name, labels=[0, 1, 2])
    with pytest.raises(TypeError, match="zero_division"):
        PairedPermutation(n_resamples=19).test(y, a, b, metric=mcc.name, zero_division=0.0)
    with pytest.raises(TypeError, match="beta"):
        register_metric("t_bad_fixed", matthews_corrcoef, beta=2.0)


def test_plain_score_filters_only_the_internal_class_set():
    def no_kw(y_true, y_pred):
        return float(np.mean(np.asarray(y_true) == np.asarray(y_pred)))

    f = PlainScore(no_kw)
    assert f([0, 1], [0, 0], labels=[0, 1]) == 0.5
    with pytest.raises(TypeError, match="sample_weight"):
        f([0, 1], [0, 0], sample_weight=[1, 1])
    g = PlainScore(lambda y_true, y_pred, **kw: kw)
    assert g([0], [0], labels=[0], anything=1) == {"labels": [0], "anything": 1}
    metric = Metric("t_direct", no_kw)
    assert isinstance(metric.score_func, PlainScore) and metric.score_func.func is no_kw
    assert Metric("t_direct", no_kw) == metric
    assert pickle.loads(pickle.dumps(PlainScore(matthews_corrcoef))) == PlainScore(
        matthews_corrcoef)
