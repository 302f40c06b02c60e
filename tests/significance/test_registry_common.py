"""Common properties over every registered test x every registered metric (issue 9 s3).

Parametrised by ``get_test_names()`` x ``get_metric_names()``, so a newly
registered test or metric is covered by registering it. A test may refuse a
metric it does not apply to (McNemar beyond accuracy, rank tests on metrics
that are not per-item decomposable), but only with a ``ValueError`` whose
message says so, and the same way for both orders of the systems.
"""

import warnings

import numpy as np
import pytest

from sigtest import get_metric, get_metric_names, get_test, get_test_names

N = 80
B = 199
# Metrics without statistics are scored by their own function on every resample
# (scikit-learn's d2_absolute_error_score: ~10 ms a weighted call, 1600 calls for
# the Bayesian bootstrap's four runs below): they run on fewer resamples. The
# checks are the same; the Monte Carlo tolerance below follows the count.
B_SLOW = 49


def _resamples(metric):
    return B if metric.statistics is not None else B_SLOW


def _data(metric, seed):
    rng = np.random.default_rng(seed)
    k = 3
    if metric.input_type == "labels":
        y = rng.integers(0, k, N)
        a = np.where(rng.random(N) < 0.6, y, (y + rng.integers(1, k, N)) % k)
        b = np.where(rng.random(N) < 0.8, y, (y + rng.integers(1, k, N)) % k)
        return y, a, b
    if metric.input_type == "regression":  # positive, for the deviances
        y = rng.gamma(2.0, 1.0, N) + 0.1
        return y, y * rng.uniform(0.5, 1.5, N), y * rng.uniform(0.8, 1.2, N)
    if metric.input_type == "labels_proba":  # hard gold, predict_proba of each system
        y = rng.integers(0, k, N)
        one_hot = np.eye(k)[y]
        qa = 0.4 * one_hot + 0.6 * rng.dirichlet(np.ones(k), N)
        qb = 0.8 * one_hot + 0.2 * rng.dirichlet(np.ones(k), N)
        return y, qa, qb
    if metric.input_type == "scores":  # per-item 0/1 scores (McNemar applies too)
        return None, (rng.random(N) < 0.6).astype(float), (rng.random(N) < 0.8).astype(float)
    if metric.input_type == "proba":
        p = rng.dirichlet(np.ones(k), N)
        qa = 0.4 * p + 0.6 * rng.dirichlet(np.ones(k), N)
        qb = 0.8 * p + 0.2 * rng.dirichlet(np.ones(k), N)
        return p, qa, qb
    if metric.response_method == "predict_proba":  # per-label probabilities, soft gold
        y = rng.random((N, k))
        a = np.clip(0.5 * y + 0.5 * rng.random((N, k)), 0.0, 1.0)
        b = np.clip(0.8 * y + 0.2 * rng.random((N, k)), 0.0, 1.0)
        return y, a, b
    y = (rng.random((N, k)) < 0.4).astype(int)
    if metric.response_method == "predict":
        a = np.where(rng.random((N, k)) < 0.7, y, 1 - y)
        b = np.where(rng.random((N, k)) < 0.85, y, 1 - y)
    else:
        a = np.clip(0.5 * y + 0.5 * rng.random((N, k)), 0.0, 1.0)
        b = np.clip(0.8 * y + 0.2 * rng.random((N, k)), 0.0, 1.0)
    return y, a, b


def _make(name, n_resamples=B, **extra):
    test = get_test(name)
    params = test.get_params(deep=False)
    settings = {"n_resamples": n_resamples, "random_state": 7, "alternative": "two-sided", **extra}
    return test.set_params(**{k: v for k, v in settings.items() if k in params})


def _run(test, metric, y, a, b):
    # one target class: the binary averages and the likelihood ratios (one vs rest)
    one_class = metric.kwargs.get("average") == "binary" or "likelihood_ratio" in metric.name
    kw = {"pos_label": 1} if one_class else {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return test.test(y, a, b, metric=metric.name, **kw)


@pytest.mark.parametrize("metric_name", get_metric_names())
@pytest.mark.parametrize("test_name", get_test_names())
def test_every_registered_test_on_every_registered_metric(test_name, metric_name):
    metric = get_metric(metric_name)
    y, a, b = _data(metric, seed=3)
    n_resamples = _resamples(metric)
    test = _make(test_name, n_resamples)
    try:
        ab = _run(test, metric, y, a, b)
    except ValueError as exc:  # not applicable: both orders refuse, with a reason
        assert len(str(exc)) > 30
        with pytest.raises(ValueError):
            _run(test, metric, y, b, a)
        return
    ba = _run(_make(test_name, n_resamples), metric, y, b, a)
    bayesian = ab.prob_better is not None  # posterior probabilities instead of a p-value
    if bayesian:
        probs = (ab.prob_worse, ab.prob_equivalent, ab.prob_better)
        assert np.isnan(ab.pvalue) and all(0.0 <= p <= 1.0 for p in probs)
        assert sum(probs) == pytest.approx(1.0, abs=1e-12)
        # swapping A and B swaps "B better" and "B worse": two estimates of the
        # same probability from B draws each (same binomial tolerance as below)
        for p, q in ((ab.prob_better, ba.prob_worse), (ab.prob_worse, ba.prob_better)):
            assert abs(p - q) <= (5 * np.sqrt(2 * max(p * (1 - p), 0.01) / n_resamples)
                                  + 2 / n_resamples)
    else:
        assert 0.0 < ab.pvalue <= 1.0
    assert np.isfinite(ab.statistic)
    assert ab.metric == metric_name and ab.test == type(test).name
    # swapping A and B negates the difference; a two-sided p does not change:
    # exactly for a deterministic test; for a Monte Carlo one the resamples of
    # (B, A) are other draws (compressed cells are enumerated in another
    # order), so the two p-values are two estimates of the same p, each with
    # binomial sd sqrt(p (1 - p) / B): 5 sd of their difference (+ 2 steps of
    # 1/(B+1) for the discreteness) is a false-alarm rate below 1e-6
    assert ba.delta == pytest.approx(-ab.delta, rel=1e-12, abs=1e-15)
    assert ba.statistic == pytest.approx(-ab.statistic, rel=1e-12, abs=1e-15)
    if ab.alternative == "two-sided" and not bayesian:
        if "random_state" in test.get_params():
            p = ab.pvalue
            tol = 5 * np.sqrt(2 * p * (1 - p) / n_resamples) + 2 / (n_resamples + 1)
            assert abs(ba.pvalue - ab.pvalue) <= tol
        else:
            assert ba.pvalue == pytest.approx(ab.pvalue, rel=1e-9)
    # the same random_state gives the same answer
    again = _run(_make(test_name, n_resamples), metric, y, a, b)
    np.testing.assert_equal(again.pvalue, ab.pvalue)  # nan for a Bayesian test
    if bayesian:
        assert again.prob_better == ab.prob_better and again.prob_worse == ab.prob_worse
    assert tuple(again.confidence_interval) == pytest.approx(tuple(ab.confidence_interval),
                                                             nan_ok=True)
    # identical systems are never significant
    same = _run(_make(test_name, n_resamples), metric, y, a, a.copy())
    assert np.isnan(same.pvalue) or same.pvalue >= 0.5
    if bayesian:  # identical systems are exactly equivalent
        assert same.prob_equivalent == 1.0
